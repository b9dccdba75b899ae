//! The dynamic-linking facts of a shared object: `DT_SONAME`, `DT_NEEDED`,
//! `DT_RPATH`, `DT_RUNPATH`, read with the `object` crate's ELF types
//! through a lazy reader, so that only the ELF header, the program headers,
//! the dynamic segment and the strings it names are read: a 1.3 GB
//! `libtorch_cuda.so` costs a few kilobytes. Section headers and symbol
//! tables are never touched.
//!
//! The object may be an adversary's (root's `audit --fix` reads every
//! user's environment), so nothing is read by a size the file states: the
//! dynamic segment is read a page at a time up to its `DT_NULL`, and the
//! lists and strings it names have caps ([`MAX_DYNAMIC`], [`MAX_NEEDED`],
//! [`MAX_STRING_BYTES`], [`MAX_SEARCH_ELEMENTS`]). Past a cap the object is
//! malformed, except a search path, whose first elements are kept.

use std::cell::Cell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use object::read::elf::{Dyn, FileHeader, ProgramHeader};
use object::read::{ReadCache, ReadRef};
use object::{Endianness, elf};
use serde::Serialize;

/// What the loader needs to know about one object.
#[derive(Debug, Clone, Serialize)]
pub struct ElfInfo {
    /// The file read.
    #[serde(serialize_with = "crate::paths::serialize")]
    pub path: PathBuf,
    /// `DT_SONAME`.
    pub soname: Option<String>,
    /// `DT_NEEDED`, in order.
    pub needed: Vec<String>,
    /// `DT_RPATH` entries, unexpanded.
    pub rpath: Vec<String>,
    /// `DT_RUNPATH` entries, unexpanded.
    pub runpath: Vec<String>,
    /// RPATH and RUNPATH elements past [`MAX_SEARCH_ELEMENTS`] (or their
    /// bytes), counted and not kept: a library found only there is
    /// reported as not found.
    #[serde(skip_serializing_if = "is_zero")]
    pub search_elements_dropped: usize,
    /// ELF machine (`EM_X86_64` = 62).
    pub machine: u16,
    /// Bytes read from the file to learn this.
    pub bytes_read: u64,
}

/// The unit small reads are served in.
const PAGE: u64 = 4096;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A file that counts what the lazy reader really reads (the `bytes_read`
/// figures of the ELF and fatbin readers).
pub(crate) struct Counting<'a> {
    file: File,
    count: &'a Cell<u64>,
}

impl<'a> Counting<'a> {
    /// Count reads of `file` into `count`.
    pub(crate) fn new(file: File, count: &'a Cell<u64>) -> Self {
        Counting { file, count }
    }
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

impl Seek for Counting<'_> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.file.seek(pos)
    }
}

/// Whether a file starts like a 64-bit ELF of `machine` (or any machine
/// when `None`): what the loader checks before accepting a candidate.
pub fn is_compatible(path: &Path, machine: Option<u16>) -> bool {
    thread_local! {
        /// Each candidate's ELF machine (`None`: not a 64-bit ELF, or not
        /// readable), per thread: the loader simulation asks for the same
        /// files for every object of a framework.
        static MACHINES: std::cell::RefCell<std::collections::HashMap<std::ffi::OsString, Option<u16>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    let known = MACHINES.with(|m| m.borrow().get(path.as_os_str()).copied());
    let m = match known {
        Some(m) => m,
        None => {
            let m = elf_machine(path);
            MACHINES.with(|c| c.borrow_mut().insert(path.as_os_str().to_owned(), m));
            m
        }
    };
    m.is_some_and(|m| machine.is_none_or(|want| want == m))
}

/// The `e_machine` of a 64-bit ELF file.
fn elf_machine(path: &Path) -> Option<u16> {
    let mut head = [0u8; 20];
    let mut f = crate::paths::open_regular(path).ok()?;
    if f.read_exact(&mut head).is_err() || &head[..4] != b"\x7fELF" || head[4] != elf::ELFCLASS64.0
    {
        return None;
    }
    Some(if head[5] == elf::ELFDATA2MSB.0 {
        u16::from_be_bytes([head[18], head[19]])
    } else {
        u16::from_le_bytes([head[18], head[19]])
    })
}

/// Open `path` (a regular file, never a device or FIFO) for lazy reading
/// that counts into `count`, with its length.
pub(crate) fn open_counted<'a>(
    path: &Path,
    count: &'a Cell<u64>,
) -> Result<(ReadCache<Counting<'a>>, u64), String> {
    let file = crate::paths::open_regular(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    Ok((ReadCache::new(Counting::new(file, count)), len))
}

/// The 64-bit ELF header of a lazily read file and its byte order.
pub(crate) fn header<'d, R: ReadRef<'d>>(
    data: R,
) -> Result<(&'d elf::FileHeader64<Endianness>, Endianness), String> {
    let header = elf::FileHeader64::<Endianness>::parse(data)
        .map_err(|_| "not a 64-bit ELF file".to_string())?;
    let endian = header.endian().map_err(|e| e.to_string())?;
    Ok((header, endian))
}

/// The most dynamic entries read before `DT_NULL`. Real objects have a
/// few dozen; the segment's stated size is not trusted, since a sparse
/// file can state a gigabyte of entries that all read as zeros.
pub(crate) const MAX_DYNAMIC: usize = 1 << 14;
/// The most `DT_NEEDED` entries an object may have (real ones have a few
/// dozen): each is searched for along every search path, so 256 names
/// and 1024 RUNPATH elements are already 262 144 files looked for.
const MAX_NEEDED: usize = 256;
/// The longest `DT_NEEDED` or `DT_SONAME` name (a file name, or at most a
/// path).
const MAX_NAME: u64 = 4096;
/// The most bytes of dynamic strings read for one object: every entry
/// may name the same long string, and each is read whole.
const MAX_STRING_BYTES: u64 = 16 << 20;
/// The most RPATH or RUNPATH elements kept, and the most bytes of them:
/// TensorFlow's RUNPATH has 668 elements (20 kB). The rest are counted,
/// not kept, so that a 10^5-element RUNPATH is neither searched nor
/// printed whole.
pub const MAX_SEARCH_ELEMENTS: usize = 1024;
const MAX_SEARCH_BYTES: usize = 64 << 10;

/// One dynamic entry: its tag and value.
pub(crate) type Entry = (elf::DynamicTag, u64);

/// Read the dynamic-linking facts of `path`.
pub fn read(path: &Path) -> Result<ElfInfo, String> {
    let count = Cell::new(0u64);
    let (cache, len) = open_counted(path, &count)?;
    let data = &cache;
    let (header, endian) = header(data)?;
    let phdrs = header
        .program_headers(endian, data)
        .map_err(|e| e.to_string())?;
    let mut info = ElfInfo {
        path: path.to_path_buf(),
        soname: None,
        needed: Vec::new(),
        rpath: Vec::new(),
        runpath: Vec::new(),
        search_elements_dropped: 0,
        machine: header.e_machine(endian).0,
        bytes_read: 0,
    };
    // Without a dynamic segment: a static object.
    if let Some(dynamic) = dynamic_entries(data, phdrs, endian, len)? {
        let (start, end) = string_table(&dynamic, phdrs, endian, len)?;
        let mut strings = Strings {
            data,
            start,
            end,
            left: MAX_STRING_BYTES,
        };
        facts(&dynamic, &mut strings, &mut info)?;
    }
    info.bytes_read = count.get();
    Ok(info)
}

/// Fill `info` from the dynamic entries, within the caps on names and
/// search paths.
fn facts<'d, R: ReadRef<'d>>(
    dynamic: &[Entry],
    strings: &mut Strings<R>,
    info: &mut ElfInfo,
) -> Result<(), String> {
    for &(tag, val) in dynamic {
        if tag == elf::DT_NEEDED {
            if info.needed.len() == MAX_NEEDED {
                return Err(format!(
                    "malformed: more than {MAX_NEEDED} DT_NEEDED entries"
                ));
            }
            info.needed.push(strings.get(val, MAX_NAME)?);
        } else if tag == elf::DT_SONAME {
            info.soname = Some(strings.get(val, MAX_NAME)?);
        } else if tag == elf::DT_RPATH || tag == elf::DT_RUNPATH {
            let list = strings.get(val, MAX_STRING_BYTES)?;
            let kept = if tag == elf::DT_RPATH {
                &mut info.rpath
            } else {
                &mut info.runpath
            };
            info.search_elements_dropped += keep_elements(kept, &list);
        }
    }
    Ok(())
}

/// Append the elements of a colon-separated search path to `kept`, up to
/// [`MAX_SEARCH_ELEMENTS`] and [`MAX_SEARCH_BYTES`] in all; the number
/// left out.
fn keep_elements(kept: &mut Vec<String>, list: &str) -> usize {
    let mut bytes: usize = kept.iter().map(String::len).sum();
    let mut dropped = 0;
    for element in list.split(':').filter(|s| !s.is_empty()) {
        if kept.len() < MAX_SEARCH_ELEMENTS && bytes + element.len() <= MAX_SEARCH_BYTES {
            bytes += element.len();
            kept.push(element.to_string());
        } else {
            dropped += 1;
        }
    }
    dropped
}

/// The entries of the dynamic segment (the last `PT_DYNAMIC`, as glibc
/// takes it) up to `DT_NULL`, read a page at a time, never by the size the
/// segment states; `None` for a static object. No `DT_NULL` in the first
/// [`MAX_DYNAMIC`] entries is malformed.
pub(crate) fn dynamic_entries<'d, R: ReadRef<'d>>(
    data: R,
    phdrs: &[elf::ProgramHeader64<Endianness>],
    endian: Endianness,
    len: u64,
) -> Result<Option<Vec<Entry>>, String> {
    const ENTRY: u64 = 16;
    let Some(ph) = phdrs
        .iter()
        .rev()
        .find(|ph| ph.p_type(endian) == elf::PT_DYNAMIC)
    else {
        return Ok(None);
    };
    let start = ph.p_offset(endian);
    let end = start
        .checked_add(ph.p_filesz(endian))
        .filter(|&end| end <= len)
        .ok_or("the dynamic segment ends past the end of the file")?;
    let mut entries = Vec::new();
    let mut at = start;
    while end - at >= ENTRY {
        let n = ((PAGE - at % PAGE) / ENTRY).clamp(1, (end - at) / ENTRY);
        let piece: &[elf::Dyn64<Endianness>] = data
            .read_slice_at(at, n as usize)
            .map_err(|_| "the dynamic segment is not readable")?;
        for d in piece {
            let tag = d.d_tag(endian);
            if tag == elf::DT_NULL {
                return Ok(Some(entries));
            }
            if entries.len() == MAX_DYNAMIC {
                return Err(format!(
                    "malformed: no DT_NULL in the first {MAX_DYNAMIC} dynamic entries"
                ));
            }
            entries.push((tag, d.d_val(endian)));
        }
        at += n * ENTRY;
    }
    Ok(Some(entries))
}

/// The value of the first entry tagged `tag`.
pub(crate) fn tag_value(dynamic: &[Entry], tag: elf::DynamicTag) -> Option<u64> {
    dynamic.iter().find(|(t, _)| *t == tag).map(|&(_, v)| v)
}

/// Where the dynamic string table lies in the file: its offset, and the end
/// that bounds every string read from it.
fn string_table(
    dynamic: &[Entry],
    phdrs: &[elf::ProgramHeader64<Endianness>],
    endian: Endianness,
    len: u64,
) -> Result<(u64, u64), String> {
    // DT_STRTAB holds a virtual address: map it to a file offset through
    // the PT_LOAD segment that contains it.
    let strtab_vaddr =
        tag_value(dynamic, elf::DT_STRTAB).ok_or("dynamic section without DT_STRTAB")?;
    let strtab_offset = phdrs
        .iter()
        .filter(|ph| ph.p_type(endian) == elf::PT_LOAD)
        .find(|ph| {
            let start = ph.p_vaddr(endian);
            strtab_vaddr >= start && strtab_vaddr - start < ph.p_filesz(endian)
        })
        .map(|ph| strtab_vaddr - ph.p_vaddr(endian) + ph.p_offset(endian))
        .ok_or("DT_STRTAB outside every loaded segment")?;
    // Strings end at NUL inside the string table (DT_STRSZ long); a RUNPATH
    // can be long (TensorFlow's is 20 kB), so the table's end bounds the
    // search, not a guess. Without DT_STRSZ, 1 MiB; never past the file.
    let strsz = tag_value(dynamic, elf::DT_STRSZ).unwrap_or(1 << 20);
    let strtab_end = strtab_offset.saturating_add(strsz).min(len);
    Ok((strtab_offset, strtab_end))
}

/// The dynamic string table of one object, with what is left of its
/// budget of bytes read ([`MAX_STRING_BYTES`]).
struct Strings<R> {
    data: R,
    start: u64,
    end: u64,
    left: u64,
}

impl<'d, R: ReadRef<'d>> Strings<R> {
    /// The NUL-terminated string at `offset`, at most `max` bytes. (The
    /// object crate's own string reader stops at 4 kB, so strings are read
    /// here in 4 kB pieces until their NUL, never past the table's end.)
    /// The pieces are aligned pages: the lazy reader keeps each range it
    /// read, so the names of one dynamic section, which lie side by side,
    /// cost one read per page rather than one each.
    fn get(&mut self, offset: u64, max: u64) -> Result<String, String> {
        let start = self.start.saturating_add(offset);
        let unreadable = || format!("string at {start:#x} is not readable");
        let mut bytes = Vec::new();
        let mut at = start;
        while at < self.end {
            let page = at - at % PAGE;
            let page_end = (page + PAGE).min(self.end);
            let piece = self
                .data
                .read_bytes_at(page, page_end - page)
                .map_err(|_| unreadable())?;
            let piece = &piece[(at - page) as usize..];
            let stop = piece.iter().position(|&b| b == 0);
            let taken = stop.unwrap_or(piece.len());
            if (bytes.len() + taken) as u64 > max {
                return Err(format!(
                    "malformed: string at {start:#x} longer than {max} bytes"
                ));
            }
            // Every piece read counts, the NUL too: a thousand entries
            // naming one long string read it a thousand times.
            let spent = taken as u64 + 1;
            if spent > self.left {
                return Err(format!(
                    "malformed: dynamic strings past {MAX_STRING_BYTES} bytes"
                ));
            }
            self.left -= spent;
            bytes.extend_from_slice(&piece[..taken]);
            if stop.is_some() {
                return Ok(String::from_utf8_lossy(&bytes).into_owned());
            }
            at = page_end;
        }
        Err(unreadable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 1.5 kB fixture object: its strings end near the end of the
    /// file, so reads must stop at the file's end.
    #[test]
    fn small_object_with_strings_near_the_end() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/fixture.so");
        let info = read(&path).unwrap();
        assert_eq!(info.soname.as_deref(), Some("libenvhook-fixture.so"));
        assert_eq!(info.machine, 62);
        assert!(info.bytes_read <= 1584);
        assert!(is_compatible(&path, Some(62)));
        assert!(!is_compatible(&path, Some(183)));
    }

    /// TensorFlow 2.21's libtensorflow_framework.so.2 has a 20 kB RUNPATH
    /// (668 entries); a 4 kB cap on strings made it unreadable.
    #[test]
    fn long_runpath_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("x.c");
        std::fs::write(&src, "int x(void) { return 1; }\n").unwrap();
        let runpath: Vec<String> = (0..700)
            .map(|i| format!("$ORIGIN/../nvidia/component{i:03}/lib"))
            .collect();
        let runpath = runpath.join(":");
        assert!(runpath.len() > 20_000);
        let out = dir.path().join("libx.so");
        let status = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&out)
            .arg(&src)
            .arg("-Wl,-soname,libx.so.2")
            .arg("-Wl,--enable-new-dtags")
            .arg(format!("-Wl,-rpath,{runpath}"))
            .status()
            .expect("cc is installed");
        assert!(status.success());
        let info = read(&out).unwrap();
        assert_eq!(info.runpath.len(), 700);
        assert_eq!(info.runpath[699], "$ORIGIN/../nvidia/component699/lib");
        assert_eq!(info.soname.as_deref(), Some("libx.so.2"));
    }

    /// `cc -shared -nostdlib` of `code` into `dir/name`, with `args`.
    fn cc(dir: &Path, name: &str, code: &str, args: &[String]) -> PathBuf {
        let src = dir.join(format!("{name}.c"));
        std::fs::write(&src, code).unwrap();
        let out = dir.join(name);
        let status = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-nostdlib", "-o"])
            .arg(&out)
            .arg(&src)
            .args(args)
            .status()
            .expect("cc is installed");
        assert!(status.success(), "cc {name}");
        out
    }

    /// What envhook reads of an object: its dynamic section and, through
    /// the symbol reader, its versioned needs and definitions.
    fn seen(path: &Path) -> (Vec<String>, String) {
        let info = read(path).unwrap();
        let count = Cell::new(0);
        let tables = crate::machine::symbols::open(path, &count).unwrap();
        let facts = vec![
            format!("soname {:?}", info.soname),
            format!("needed {:?}", info.needed),
            format!("rpath {:?} runpath {:?}", info.rpath, info.runpath),
            format!("machine {}", info.machine),
            format!("undefined {:?}", tables.undefined(&|_| true)),
            format!(
                "defines x_one@LIBX_1.0 {:?}",
                tables.defines("x_one", Some("LIBX_1.0"))
            ),
            format!("defines x_two {:?}", tables.defines("x_two", None)),
        ];
        (facts, format!("{:?}", tables.needs(&|_| true)))
    }

    /// The objects `envhook demo` writes (src/demo/elf.rs) read as `cc`
    /// and `ld` make them: SONAME, NEEDED, RPATH or RUNPATH, versions
    /// defined and needed; and the demo's own object as the test suite's
    /// cc-built fixture.
    #[test]
    fn written_objects_read_as_cc_built_ones() {
        use crate::demo::elf::{Import, SearchPath, SharedObject, write};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.map"), "LIBA_2.0 { global: a_f; local: *; };\n").unwrap();
        std::fs::write(
            d.join("x.map"),
            "LIBX_1.0 { global: x_one; x_two; local: *; };\n",
        )
        .unwrap();
        let map = |m: &str| format!("-Wl,--version-script={}", d.join(m).display());
        let liba = cc(
            d,
            "liba.so.2",
            "int a_f(void) { return 1; }\n",
            &["-Wl,-soname,liba.so.2".into(), map("a.map")],
        );
        let code = "extern int a_f(void);\nint x_one(void) { return a_f(); }\nint x_two(void) { return 0; }\n";
        for (dtags, search) in [
            (
                "--enable-new-dtags",
                SearchPath::Runpath("$ORIGIN/../lib:/opt/x"),
            ),
            (
                "--disable-new-dtags",
                SearchPath::Rpath("$ORIGIN/../lib:/opt/x"),
            ),
        ] {
            let built = cc(
                d,
                "libx.so.1",
                code,
                &[
                    "-Wl,-soname,libx.so.1".into(),
                    format!("-Wl,{dtags}"),
                    "-Wl,-rpath,$ORIGIN/../lib:/opt/x".into(),
                    map("x.map"),
                    "-Wl,--no-as-needed".into(),
                    liba.display().to_string(),
                ],
            );
            let written = d.join("written.so");
            let object = SharedObject {
                soname: "libx.so.1",
                needed: &["liba.so.2"],
                search: Some(search),
                defines: &["x_one", "x_two"],
                version: Some("LIBX_1.0"),
                imports: &[Import {
                    symbol: "a_f",
                    version: "LIBA_2.0",
                    file: "liba.so.2",
                }],
            };
            std::fs::write(&written, write(&object).unwrap()).unwrap();
            assert_eq!(seen(&written), seen(&built), "{dtags}");
        }
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/fixture.so");
        let demo = d.join("demo.so");
        std::fs::write(&demo, crate::demo::object().unwrap()).unwrap();
        assert_eq!(seen(&demo).0[..4], seen(&fixture).0[..4]);
    }

    #[test]
    fn not_elf_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.so");
        std::fs::write(&f, "just text").unwrap();
        assert!(read(&f).unwrap_err().contains("not a 64-bit ELF"));
        assert!(!is_compatible(&f, None));
    }
}
