//! The hostile objects of #38: each one a real `cc`-built object patched
//! the way an adversary would, read under a bound that is generous for
//! the budgeted readers (steps and bytes counted, and a minute of wall
//! clock that they finish in well under a second) and that the unbudgeted
//! ones fail by hours or gigabytes.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{elf, symbols};

const DT_NULL: u64 = 0;
const DT_NEEDED: u64 = 1;
const DT_HASH: u64 = 4;
const DT_SONAME: u64 = 14;
const DT_GNU_HASH: u64 = 0x6fff_fef5;
const DT_VERSYM: u64 = 0x6fff_fff0;
const DT_VERNEED: u64 = 0x6fff_fffe;
const DT_VERNEEDNUM: u64 = 0x6fff_ffff;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const MIB: u64 = 1 << 20;

/// `f`'s answer, or a failure after `secs` seconds: a reader that loops
/// fails the test instead of hanging it.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("still reading after {secs} s"))
}

/// `cc -shared` of `code` into `dir/name`, with `args`.
fn cc(dir: &Path, name: &str, code: &str, args: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, code).unwrap();
    let out = dir.join(name);
    let ok = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .arg(format!("-Wl,-soname,{name}"))
        .args(args)
        .status()
        .expect("cc is installed")
        .success();
    assert!(ok, "cc {name}");
    out
}

/// A 64-bit little-endian ELF's bytes, patched in place.
struct Patch {
    bytes: Vec<u8>,
}

impl Patch {
    fn of(path: &Path) -> Self {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..6], b"\x7fELF\x02\x01", "a 64-bit LE ELF");
        Patch { bytes }
    }

    fn u32(&self, at: u64) -> u32 {
        let at = at as usize;
        u32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap())
    }

    fn u64(&self, at: u64) -> u64 {
        let at = at as usize;
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap())
    }

    fn put(&mut self, at: u64, value: &[u8]) {
        let at = at as usize;
        if self.bytes.len() < at + value.len() {
            self.bytes.resize(at + value.len(), 0);
        }
        self.bytes[at..at + value.len()].copy_from_slice(value);
    }

    fn put32(&mut self, at: u64, v: u32) {
        self.put(at, &v.to_le_bytes());
    }

    fn put64(&mut self, at: u64, v: u64) {
        self.put(at, &v.to_le_bytes());
    }

    /// The file offset of the last program header of type `p_type`.
    fn segment(&self, p_type: u32) -> u64 {
        let (phoff, phnum) = (self.u64(0x20), u64::from(self.u32(0x38) & 0xffff));
        (0..phnum)
            .map(|i| phoff + i * 56)
            .filter(|&ph| self.u32(ph) == p_type)
            .max_by_key(|&ph| {
                if p_type == PT_LOAD {
                    self.u64(ph + 8)
                } else {
                    ph
                }
            })
            .expect("the segment")
    }

    /// The dynamic entries, `DT_NULL` included.
    fn dynamic(&self) -> Vec<(u64, u64)> {
        let start = self.u64(self.segment(PT_DYNAMIC) + 8);
        let mut out = Vec::new();
        for at in (start..).step_by(16) {
            out.push((self.u64(at), self.u64(at + 8)));
            if self.u64(at) == DT_NULL {
                return out;
            }
        }
        unreachable!()
    }

    /// The file offset of the value of the entry tagged `tag`.
    fn entry(&self, tag: u64) -> u64 {
        let start = self.u64(self.segment(PT_DYNAMIC) + 8);
        let i = self.dynamic().iter().position(|e| e.0 == tag).expect("tag");
        start + i as u64 * 16 + 8
    }

    fn value(&self, tag: u64) -> u64 {
        self.u64(self.entry(tag))
    }

    /// The file offset of virtual address `vaddr`.
    fn offset(&self, vaddr: u64) -> u64 {
        let phoff = self.u64(0x20);
        (0..u64::from(self.u32(0x38) & 0xffff))
            .map(|i| phoff + i * 56)
            .filter(|&ph| self.u32(ph) == PT_LOAD)
            .find(|&ph| vaddr >= self.u64(ph + 16) && vaddr - self.u64(ph + 16) < self.u64(ph + 32))
            .map(|ph| vaddr - self.u64(ph + 16) + self.u64(ph + 8))
            .expect("a loaded address")
    }

    /// Stretch the last `PT_LOAD` to the file offset `end`, so that what
    /// lies there has a virtual address.
    fn cover(&mut self, end: u64) {
        let ph = self.segment(PT_LOAD);
        let size = end - self.u64(ph + 8);
        self.put64(ph + 32, size);
        self.put64(ph + 40, size.max(self.u64(ph + 40)));
    }

    /// The virtual address of file offset `at` in the last `PT_LOAD`.
    fn vaddr(&self, at: u64) -> u64 {
        let ph = self.segment(PT_LOAD);
        at - self.u64(ph + 8) + self.u64(ph + 16)
    }

    /// The file offset where appended data starts (8-aligned).
    fn end(&mut self) -> u64 {
        let end = (self.bytes.len() as u64).next_multiple_of(8);
        self.bytes.resize(end as usize, 0);
        end
    }

    /// Write the file, `len` bytes long: what lies past the bytes is a
    /// hole of zeros that takes no disk.
    fn write(&self, path: &Path, len: u64) {
        std::fs::write(path, &self.bytes).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_len(len.max(self.bytes.len() as u64)).unwrap();
    }
}

/// A SysV hash table (`chain[1] = 1`, every bucket 1) whose chains loop,
/// stating 2^22 symbols that the (sparse) file holds: each lookup of the
/// old reader walked 2^22 steps.
#[test]
fn sysv_hash_chain_that_loops() {
    let t = tempfile::tempdir().unwrap();
    let code = "int f1(void) { return 1; }\nint f2(void) { return 2; }\n";
    let so = cc(t.path(), "libloop.so", code, &["-Wl,--hash-style=sysv"]);
    let mut p = Patch::of(&so);
    let table = p.offset(p.value(DT_HASH));
    let nbucket = u64::from(p.u32(table));
    p.put32(table + 4, 1 << 22);
    for b in 0..nbucket {
        p.put32(table + 8 + b * 4, 1);
    }
    p.put32(table + 8 + nbucket * 4 + 4, 1);
    p.write(&so, table + 20 * MIB);
    let (answers, steps, read) = within(60, move || {
        let count = Cell::new(0);
        let tables = symbols::open(&so, &count).unwrap();
        let answers: Vec<Option<bool>> = (0..2000)
            .map(|k| tables.defines(&format!("absent_{k}"), None))
            .collect();
        (answers, tables.chain_steps(), count.get())
    });
    // Every chain loops: no lookup can tell, and all of them together
    // take the budget's steps.
    assert!(answers.iter().all(Option::is_none), "{answers:?}");
    assert!(steps <= 4096 + 64 * 2000, "{steps} chain steps");
    assert!(read < MIB, "{read} bytes read");
}

/// A GNU hash table whose one chain has no word with the low bit for 2^20
/// words: each lookup of the old reader walked all of them.
#[test]
fn gnu_hash_chain_that_never_ends() {
    const WORDS: u64 = 1 << 20;
    let t = tempfile::tempdir().unwrap();
    let so = cc(
        t.path(),
        "libendless.so",
        "int f(void) { return 1; }\n",
        &[],
    );
    let mut p = Patch::of(&so);
    // nbuckets 1, symoffset 1, no bloom filter, shift 0; bucket 0 -> 1.
    let table = p.end();
    for (k, w) in [1, 1, 0, 0, 1].into_iter().enumerate() {
        p.put32(table + k as u64 * 4, w);
    }
    let last = table + 20 + (WORDS - 1) * 4;
    p.put32(last, 1);
    let len = 32 * MIB;
    p.cover(len);
    let vaddr = p.vaddr(table);
    p.put64(p.entry(DT_GNU_HASH), vaddr);
    p.write(&so, len);
    let (answers, steps, read) = within(60, move || {
        let count = Cell::new(0);
        let tables = symbols::open(&so, &count).unwrap();
        let answers: Vec<Option<bool>> = (0..20_000)
            .map(|k| tables.defines(&format!("absent_{k}"), None))
            .collect();
        (answers, tables.chain_steps(), count.get())
    });
    assert!(answers.iter().all(|a| *a != Some(true)));
    assert!(answers.iter().any(Option::is_none), "the budget was spent");
    assert!(steps <= 4096 + 64 * 20_000, "{steps} chain steps");
    // The chain is read twice, counted, then kept: 8 MiB.
    assert!(read < 10 * MIB, "{read} bytes read");
}

/// An object with `n` `DT_NEEDED` entries (all naming its soname) before
/// its own entries, in a dynamic segment moved to the end of the file.
fn with_needed(dir: &Path, n: u64) -> PathBuf {
    let so = cc(
        dir,
        &format!("libneeds{n}.so"),
        "int f(void) { return 1; }\n",
        &[],
    );
    let mut p = Patch::of(&so);
    let own = p.dynamic();
    let name = p.value(DT_SONAME);
    let at = p.end();
    let mut entries = Vec::with_capacity((n as usize + own.len()) * 16);
    for (tag, val) in std::iter::repeat_n((DT_NEEDED, name), n as usize).chain(own) {
        entries.extend_from_slice(&tag.to_le_bytes());
        entries.extend_from_slice(&val.to_le_bytes());
    }
    p.put(at, &entries);
    let ph = p.segment(PT_DYNAMIC);
    p.put64(ph + 8, at);
    p.put64(ph + 32, entries.len() as u64);
    p.write(&so, 0);
    so
}

/// 4M `DT_NEEDED` entries: the old reader read the 64 MiB segment and
/// kept 4M names; 257 of them pass the cap on `DT_NEEDED`.
#[test]
fn four_million_needed_entries() {
    let t = tempfile::tempdir().unwrap();
    let so = with_needed(t.path(), 1 << 22);
    let (info, tables, read) = within(60, move || {
        let count = Cell::new(0);
        let tables = symbols::open(&so, &count).err();
        (elf::read(&so).map(|i| i.needed.len()), tables, count.get())
    });
    assert!(info.unwrap_err().contains("malformed"));
    assert!(tables.unwrap().contains("malformed"));
    assert!(read < MIB, "{read} bytes read");
    // Besides the object's own (libc.so.6, where cc links it).
    let own = elf::read(&with_needed(t.path(), 0)).unwrap().needed.len() as u64;
    let so = with_needed(t.path(), 257 - own);
    assert!(elf::read(&so).unwrap_err().contains("DT_NEEDED"));
    let so = with_needed(t.path(), 256 - own);
    assert_eq!(elf::read(&so).unwrap().needed.len(), 256);
}

/// The dynamic segment moved to the end of the file and stated 1 GiB
/// long, all of it a hole past its real entries: the old readers read
/// and kept the whole gigabyte (1042 MiB, 5 to 12 s).
#[test]
fn sparse_gigabyte_dynamic_segment() {
    let t = tempfile::tempdir().unwrap();
    let so = cc(t.path(), "libsparse.so", "int f(void) { return 1; }\n", &[]);
    let before = elf::read(&so).unwrap();
    let mut p = Patch::of(&so);
    let own = p.dynamic();
    let at = p.end();
    for (k, (tag, val)) in own.into_iter().enumerate() {
        p.put64(at + k as u64 * 16, tag);
        p.put64(at + k as u64 * 16 + 8, val);
    }
    let ph = p.segment(PT_DYNAMIC);
    p.put64(ph + 8, at);
    p.put64(ph + 32, 1 << 30);
    p.write(&so, at + (1 << 30));
    let (after, read) = within(60, move || {
        let count = Cell::new(0);
        let tables = symbols::open(&so, &count).unwrap();
        let _ = tables.defines("f", None);
        (elf::read(&so).unwrap(), count.get())
    });
    assert_eq!(after.soname.as_deref(), Some("libsparse.so"));
    assert_eq!(after.needed, before.needed);
    assert!(
        after.bytes_read < 64 << 10,
        "{} bytes read",
        after.bytes_read
    );
    assert!(read < 64 << 10, "{read} bytes read by the symbol reader");
}

/// A consumer of libc's versioned `strlen`, with `--hash-style=both` so
/// that `DT_HASH` states its symbol count.
fn consumer(dir: &Path, name: &str) -> (PathBuf, Patch) {
    let code = "#include <string.h>\nunsigned long f(const char *s) { return strlen(s); }\n";
    let so = cc(dir, name, code, &["-Wl,--hash-style=both"]);
    let p = Patch::of(&so);
    (so, p)
}

/// One `Verneed` entry: file name offset, offset of its first `Vernaux`
/// from the entry, offset of the next entry (0: the last).
fn verneed(count: u16, file: u32, aux: u32, next: u32) -> Vec<u8> {
    let mut e = Vec::with_capacity(16);
    e.extend_from_slice(&1u16.to_le_bytes());
    e.extend_from_slice(&count.to_le_bytes());
    for w in [file, aux, next] {
        e.extend_from_slice(&w.to_le_bytes());
    }
    e
}

/// 65 535 `Verneed` entries of 65 535 versions each, all of them the same
/// overlapping `Vernaux` words: the old walk visited 4 * 10^9 entries and
/// kept a name for each.
#[test]
fn overlapping_verneed_entries() {
    const N: u64 = 65_535;
    let t = tempfile::tempdir().unwrap();
    let (so, mut p) = consumer(t.path(), "libverneed.so");
    let name = p.value(DT_SONAME) as u32;
    let start = p.end();
    let aux = start + N * 16;
    for k in 0..N {
        let at = start + k * 16;
        let next = if k + 1 == N { 0 } else { 16 };
        p.put(at, &verneed(N as u16, name, (aux - at) as u32, next));
    }
    // Every word 4: each Vernaux is 4 bytes past the last, names string 4.
    for k in 0..N + 4 {
        p.put32(aux + k * 4, 4);
    }
    let end = p.end();
    p.cover(end);
    let vaddr = p.vaddr(start);
    p.put64(p.entry(DT_VERNEED), vaddr);
    p.put64(p.entry(DT_VERNEEDNUM), N);
    p.write(&so, 0);
    let needs = within(60, move || {
        let count = Cell::new(0);
        let tables = symbols::open(&so, &count).unwrap();
        tables.needs(&|_| true).map(|n| n.len())
    });
    assert!(needs.unwrap_err().contains("malformed"));
}

/// 8000 needed versions (under the cap) and 2^22 symbols, the version
/// table a hole: the old `needs` compared every symbol's version with
/// every needed version, 3 * 10^10 times.
#[test]
fn many_needed_versions_times_many_symbols() {
    const VERSIONS: u64 = 8000;
    const SYMBOLS: u64 = 1 << 22;
    let t = tempfile::tempdir().unwrap();
    let (so, mut p) = consumer(t.path(), "libversions.so");
    let name = p.value(DT_SONAME) as u32;
    let start = p.end();
    p.put(start, &verneed(VERSIONS as u16, name, 16, 0));
    for k in 0..VERSIONS {
        let at = start + 16 + k * 16;
        let next = if k + 1 == VERSIONS { 0u32 } else { 16 };
        p.put32(at, 0); // vna_hash
        p.put32(at + 4, (2 + k as u32) << 16); // vna_flags, vna_other
        p.put32(at + 8, name);
        p.put32(at + 12, next);
    }
    let versym = p.end();
    let len = versym + SYMBOLS * 24 + MIB;
    p.cover(len);
    let (verneed_at, versym_at) = (p.vaddr(start), p.vaddr(versym));
    p.put64(p.entry(DT_VERNEED), verneed_at);
    p.put64(p.entry(DT_VERNEEDNUM), 1);
    p.put64(p.entry(DT_VERSYM), versym_at);
    let hash = p.offset(p.value(DT_HASH));
    p.put32(hash + 4, SYMBOLS as u32);
    p.write(&so, len);
    let (needs, read) = within(60, move || {
        let count = Cell::new(0);
        let tables = symbols::open(&so, &count).unwrap();
        (tables.needs(&|_| true).map(|n| n.len()), count.get())
    });
    // Every symbol's version index is 0, which none of the needed ones is.
    assert_eq!(needs, Ok(0));
    // The version table of 2^22 symbols, 8 MiB, and the version list:
    // every symbol was looked at, once.
    assert!((8 * MIB..10 * MIB).contains(&read), "{read} bytes read");
}

/// A 10^5-element RUNPATH (4 MB): the first 1024 elements are kept, the
/// rest counted, and the object's JSON stays small (it was 4 MiB of
/// `check --json`).
#[test]
fn a_hundred_thousand_element_runpath() {
    use crate::demo::elf::{SearchPath, SharedObject, write};
    let t = tempfile::tempdir().unwrap();
    let runpath: Vec<String> = (0..100_000)
        .map(|i| format!("$ORIGIN/../nvidia/component{i:06}/lib"))
        .collect();
    let runpath = runpath.join(":");
    let object = SharedObject {
        soname: "libwide.so",
        needed: &[],
        search: Some(SearchPath::Runpath(&runpath)),
        defines: &["f"],
        version: None,
        imports: &[],
    };
    let so = t.path().join("libwide.so");
    std::fs::write(&so, write(&object).unwrap()).unwrap();
    let info = elf::read(&so).unwrap();
    assert_eq!(info.runpath.len(), elf::MAX_SEARCH_ELEMENTS);
    assert_eq!(info.runpath[0], "$ORIGIN/../nvidia/component000000/lib");
    assert_eq!(info.search_elements_dropped, 100_000 - 1024);
    let json = serde_json::to_string(&info).unwrap();
    assert!(json.len() < 64 << 10, "{} bytes of JSON", json.len());
    assert!(json.contains("\"search_elements_dropped\":98976"));
}

/// Every truncation of a real object, and every byte of its headers
/// flipped: an error or an answer from every reader, never a panic.
#[test]
fn every_truncation_and_header_byte() {
    let t = tempfile::tempdir().unwrap();
    let (_, p) = consumer(t.path(), "libcut.so");
    let whole = p.bytes.clone();
    let read_all = |path: &Path| {
        let _ = elf::read(path);
        let count = Cell::new(0);
        if let Ok(tables) = symbols::open(path, &count) {
            let _ = tables.needs(&|_| true);
            let _ = tables.undefined(&|_| true);
            let _ = tables.defines("f", Some("GLIBC_2.2.5"));
            let _ = tables.defines("strlen", None);
        }
    };
    let cut = t.path().join("cut.so");
    // Every length through the headers and the dynamic tables, then
    // 2000 more.
    let step = (whole.len() / 2000).max(1);
    for len in (0..whole.len()).filter(|&l| l < 4096 || l % step == 0) {
        std::fs::write(&cut, &whole[..len]).unwrap();
        read_all(&cut);
    }
    let headers = 64 + 56 * (u64::from(p.u32(0x38) & 0xffff)) as usize;
    for at in 0..headers {
        let mut bytes = whole.clone();
        bytes[at] ^= 0xff;
        std::fs::write(&cut, &bytes).unwrap();
        read_all(&cut);
    }
}
