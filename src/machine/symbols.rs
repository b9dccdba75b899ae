//! Symbols, not only names: what `ldd -r` checks, without loading
//! anything. An object's undefined symbols are bound to the providers the
//! loader picked, and a provider that lacks one fails the load with
//! `undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12`
//! (cuSPARSE of one CUDA minor beside the nvJitLink of an older one) or
//! `undefined symbol: _ZN3c10...` (a torch extension built against another
//! torch).
//!
//! Only the dynamic tables are read, and only the pieces needed, through
//! the same lazy reader as [`super::elf`]: the version tables
//! (`DT_VERSYM`, `DT_VERNEED`, `DT_VERDEF`), the GNU hash table
//! (`DT_GNU_HASH`) and the `.dynsym` entries and names a lookup reaches.
//! The `object` crate's symbol-table readers want whole sections in memory
//! (libtorch_cpu.so's `.dynsym` and `.dynstr` are 7 MB), so the lookups
//! are done here over its lazily read bytes. Every loop is bounded by the
//! table sizes the file states and by the file's length: hostile input
//! gives an error or a short answer, never a hang.

use std::cell::Cell;
use std::path::Path;

use object::read::ReadRef;
use object::read::elf::{Dyn, FileHeader, ProgramHeader};
use object::{Endian, Endianness, elf};

use super::elf::{Counting, header, open_counted};

/// The unit small reads are served in.
const PAGE: u64 = 4096;
/// A `.dynsym` entry's size in a 64-bit ELF.
const SYM_SIZE: u64 = 24;
/// `st_shndx` of an undefined symbol (the ELF gABI's `SHN_UNDEF`).
const SHN_UNDEF: u16 = 0;
/// The binding of a weak symbol (`STB_WEAK`, the high nibble of `st_info`).
const STB_WEAK: u8 = 2;
/// The longest symbol name compared or read (C++ names run to a few kB).
const MAX_NAME: u64 = 64 * 1024;
/// The most symbols, version entries or hash buckets a table may state:
/// libtorch_cpu.so has 77 000 dynamic symbols.
const MAX_ENTRIES: u64 = 1 << 22;

/// A versioned symbol an object needs: `__nvJitLinkCreate_13_0` of version
/// `libnvJitLink.so.13` from the file `libnvJitLink.so.13`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// The symbol's name.
    pub symbol: String,
    /// The version it is bound to.
    pub version: String,
    /// The file (soname) the version is needed from.
    pub file: String,
}

/// The dynamic tables of one object, located, over its lazily read bytes.
pub struct Tables<'c> {
    data: object::read::ReadCache<Counting<'c>>,
    endian: Endianness,
    len: u64,
    /// File offset of `.dynsym`.
    symtab: Option<u64>,
    /// File offset and end of `.dynstr`.
    strtab: Option<(u64, u64)>,
    gnu_hash: Option<u64>,
    /// The number of dynamic symbols (from `DT_HASH`, or the GNU hash
    /// table's chains).
    count: Cell<Option<u64>>,
    /// The GNU hash table, read whole on the first lookup: a few hundred
    /// kB for libtorch_cpu.so, against a system call per chain step.
    gnu_table: std::cell::OnceCell<Option<GnuTable>>,
    hash: Option<u64>,
    versym: Option<u64>,
    verneed: Option<(u64, u64)>,
    verdef: Option<(u64, u64)>,
}

/// A GNU hash table in memory (`DT_GNU_HASH`).
struct GnuTable {
    symoffset: u64,
    shift: u32,
    bloom: Vec<u64>,
    buckets: Vec<u32>,
    /// From `symoffset` to the end of the last chain.
    chains: Vec<u32>,
}

/// Reads of one object's tables, counted into the cell given.
pub fn open<'c>(path: &Path, count: &'c Cell<u64>) -> Result<Tables<'c>, String> {
    let (data, len) = open_counted(path, count)?;
    let mut t = Tables {
        data,
        endian: Endianness::Little,
        len,
        symtab: None,
        strtab: None,
        gnu_hash: None,
        count: Cell::new(None),
        gnu_table: std::cell::OnceCell::new(),
        hash: None,
        versym: None,
        verneed: None,
        verdef: None,
    };
    t.locate()?;
    Ok(t)
}

impl Tables<'_> {
    /// Find the tables through the dynamic segment; their addresses are
    /// virtual, mapped to file offsets through the `PT_LOAD` segments.
    fn locate(&mut self) -> Result<(), String> {
        let data = &self.data;
        let (head, endian) = header(data)?;
        self.endian = endian;
        let phdrs = head
            .program_headers(endian, data)
            .map_err(|e| e.to_string())?;
        let Some(dynamic) = phdrs
            .iter()
            .find_map(|ph| ph.dynamic(endian, data).ok().flatten())
        else {
            return Ok(()); // static: no dynamic symbols
        };
        let offset = |vaddr: u64| {
            phdrs
                .iter()
                .filter(|ph| ph.p_type(endian) == elf::PT_LOAD)
                .find(|ph| {
                    let start = ph.p_vaddr(endian);
                    vaddr >= start && vaddr - start < ph.p_filesz(endian)
                })
                .map(|ph| vaddr - ph.p_vaddr(endian) + ph.p_offset(endian))
        };
        let tag = |t: elf::DynamicTag| {
            dynamic
                .iter()
                .take_while(|d| d.d_tag(endian) != elf::DT_NULL)
                .find(|d| d.d_tag(endian) == t)
                .map(|d| d.d_val(endian))
        };
        let strsz = tag(elf::DT_STRSZ).unwrap_or(MAX_NAME);
        let len = self.len;
        let strtab = tag(elf::DT_STRTAB).and_then(offset);
        let symtab = tag(elf::DT_SYMTAB).and_then(offset);
        let gnu_hash = tag(elf::DT_GNU_HASH).and_then(offset);
        let hash = tag(elf::DT_HASH).and_then(offset);
        let versym = tag(elf::DT_VERSYM).and_then(offset);
        let verneed = tag(elf::DT_VERNEED)
            .and_then(offset)
            .zip(tag(elf::DT_VERNEEDNUM));
        let verdef = tag(elf::DT_VERDEF)
            .and_then(offset)
            .zip(tag(elf::DT_VERDEFNUM));
        self.strtab = strtab.map(|s| (s, s.saturating_add(strsz).min(len)));
        self.symtab = symtab;
        self.gnu_hash = gnu_hash;
        self.hash = hash;
        self.versym = versym;
        self.verneed = verneed;
        self.verdef = verdef;
        Ok(())
    }

    /// `n` bytes at `at`. A small read inside one page is served from
    /// that whole page, read once (the reader caches each range it read),
    /// so a walk over version entries or names costs a read per page, not
    /// one per field.
    fn bytes(&self, at: u64, n: u64) -> Option<&[u8]> {
        let end = at.checked_add(n)?;
        if end > self.len {
            return None;
        }
        let page = at - at % PAGE;
        if end <= page + PAGE {
            let whole = (&self.data)
                .read_bytes_at(page, PAGE.min(self.len - page))
                .ok()?;
            return whole.get((at - page) as usize..(end - page) as usize);
        }
        (&self.data).read_bytes_at(at, n).ok()
    }

    fn u16(&self, at: u64) -> Option<u16> {
        Some(self.endian.read_u16(self.bytes(at, 2)?.try_into().ok()?))
    }

    fn u32(&self, at: u64) -> Option<u32> {
        self.decode32(self.bytes(at, 4)?)
    }

    /// The string at `offset` in `.dynstr`, read in growing pieces up to
    /// its NUL, never past the table's end nor [`MAX_NAME`].
    fn string(&self, offset: u64) -> Option<String> {
        let (start, end) = self.strtab?;
        let at = start.checked_add(offset)?;
        let mut n = 64u64;
        loop {
            let take = n.min(end.checked_sub(at)?);
            let piece = self.bytes(at, take)?;
            if let Some(stop) = piece.iter().position(|&b| b == 0) {
                return Some(String::from_utf8_lossy(&piece[..stop]).into_owned());
            }
            if take < n || n >= MAX_NAME {
                return None;
            }
            n *= 4;
        }
    }

    /// Whether the string at `offset` is exactly `name`: one read of its
    /// length plus the NUL.
    fn string_is(&self, offset: u64, name: &[u8]) -> bool {
        let Some((start, end)) = self.strtab else {
            return false;
        };
        let Some(at) = start.checked_add(offset) else {
            return false;
        };
        let n = name.len() as u64 + 1;
        if at.saturating_add(n) > end {
            return false;
        }
        self.bytes(at, n)
            .is_some_and(|b| &b[..name.len()] == name && b[name.len()] == 0)
    }

    /// `.dynsym` entry `i`: name offset, info, section index.
    fn symbol(&self, i: u64) -> Option<(u32, u8, u16)> {
        let at = self.symtab?.checked_add(i.checked_mul(SYM_SIZE)?)?;
        let b = self.bytes(at, 8)?;
        let name = self.u32(at)?;
        let shndx = self.u16(at + 6)?;
        Some((name, b[4], shndx))
    }

    /// The number of dynamic symbols: `DT_HASH`'s `nchain`, else the end
    /// of the GNU hash table's last chain.
    fn count(&self) -> Option<u64> {
        if let Some(c) = self.count.get() {
            return Some(c);
        }
        let c = match self.hash {
            Some(h) => u64::from(self.u32(h + 4)?),
            None => self.gnu_count()?,
        };
        let c = c.min(MAX_ENTRIES);
        self.count.set(Some(c));
        Some(c)
    }

    /// The GNU hash table's header: bucket count, first hashed symbol,
    /// and the file offsets of its buckets and chains.
    fn gnu(&self) -> Option<(u64, u64, u64, u64)> {
        let g = self.gnu_hash?;
        let nbuckets = u64::from(self.u32(g)?);
        let symoffset = u64::from(self.u32(g + 4)?);
        let bloom = u64::from(self.u32(g + 8)?);
        if nbuckets == 0 || nbuckets > MAX_ENTRIES || bloom > MAX_ENTRIES {
            return None;
        }
        let buckets = g + 16 + bloom * 8;
        Some((nbuckets, symoffset, buckets, buckets + nbuckets * 4))
    }

    fn gnu_count(&self) -> Option<u64> {
        let (nbuckets, symoffset, buckets, chains) = self.gnu()?;
        let all = self.bytes(buckets, nbuckets * 4)?;
        let last = all
            .chunks_exact(4)
            .filter_map(|c| self.decode32(c))
            .max()
            .map(u64::from)?;
        if last < symoffset {
            return Some(symoffset);
        }
        let mut i = last;
        while i - last < MAX_ENTRIES {
            let c = self.u32(chains + (i - symoffset) * 4)?;
            if c & 1 == 1 {
                return Some(i + 1);
            }
            i += 1;
        }
        None
    }

    fn decode32(&self, c: &[u8]) -> Option<u32> {
        Some(self.endian.read_u32(c.try_into().ok()?))
    }

    /// The version index of symbol `i` (`DT_VERSYM`), hidden bit cleared.
    fn version_index(&self, i: u64) -> Option<u16> {
        Some(self.u16(self.versym?.checked_add(i * 2)?)? & 0x7fff)
    }

    /// The versions this object needs: version index -> (file, version).
    fn needed_versions(&self) -> Vec<(u16, String, String)> {
        let mut out = Vec::new();
        let Some((mut at, count)) = self.verneed else {
            return out;
        };
        for _ in 0..count.min(MAX_ENTRIES) {
            let (Some(cnt), Some(file), Some(aux), Some(next)) = (
                self.u16(at + 2),
                self.u32(at + 4),
                self.u32(at + 8),
                self.u32(at + 12),
            ) else {
                break;
            };
            let file = self.string(u64::from(file)).unwrap_or_default();
            let mut a = at + u64::from(aux);
            for _ in 0..cnt {
                let (Some(other), Some(name), Some(anext)) =
                    (self.u16(a + 6), self.u32(a + 8), self.u32(a + 12))
                else {
                    break;
                };
                if let Some(version) = self.string(u64::from(name)) {
                    out.push((other & 0x7fff, file.clone(), version));
                }
                if anext == 0 {
                    break;
                }
                a += u64::from(anext);
            }
            if next == 0 {
                break;
            }
            at += u64::from(next);
        }
        out
    }

    /// The versions this object defines: version index -> name.
    fn defined_versions(&self) -> Vec<(u16, String)> {
        let mut out = Vec::new();
        let Some((mut at, count)) = self.verdef else {
            return out;
        };
        for _ in 0..count.min(MAX_ENTRIES) {
            let (Some(ndx), Some(aux), Some(next)) =
                (self.u16(at + 4), self.u32(at + 12), self.u32(at + 16))
            else {
                break;
            };
            if let Some(name) = self
                .u32(at + u64::from(aux))
                .and_then(|n| self.string(u64::from(n)))
            {
                out.push((ndx & 0x7fff, name));
            }
            if next == 0 {
                break;
            }
            at += u64::from(next);
        }
        out
    }

    /// The versioned symbols this object needs from the files `wanted`
    /// accepts, undefined and not weak (a weak reference may stay
    /// unbound).
    pub fn needs(&self, wanted: &dyn Fn(&str) -> bool) -> Vec<Need> {
        let versions: Vec<(u16, String, String)> = self
            .needed_versions()
            .into_iter()
            .filter(|(_, file, _)| wanted(file))
            .collect();
        let mut out = Vec::new();
        if versions.is_empty() {
            return out;
        }
        let (Some(count), Some(versym)) = (self.count(), self.versym) else {
            return out;
        };
        let Some(all) = self.bytes(versym, count * 2) else {
            return out;
        };
        let indices: Vec<u16> = all
            .chunks_exact(2)
            .map(|c| self.endian.read_u16([c[0], c[1]]))
            .collect();
        for (i, v) in indices.iter().enumerate() {
            let Some((_, file, version)) = versions.iter().find(|(n, ..)| *n == v & 0x7fff) else {
                continue;
            };
            let Some((name, info, shndx)) = self.symbol(i as u64) else {
                continue;
            };
            if shndx != SHN_UNDEF || info >> 4 == STB_WEAK {
                continue;
            }
            if let Some(symbol) = self.string(u64::from(name)) {
                out.push(Need {
                    symbol,
                    version: version.clone(),
                    file: file.clone(),
                });
            }
        }
        out
    }

    /// The names of this object's undefined symbols that `keep` accepts,
    /// not weak (a weak reference may stay unbound): what its providers
    /// must define. The symbol table is read in pieces of 4096 entries.
    pub fn undefined(&self, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
        const PIECE: u64 = 4096;
        let mut out = Vec::new();
        let (Some(count), Some(symtab)) = (self.count(), self.symtab) else {
            return out;
        };
        let mut first = 0;
        while first < count {
            let n = PIECE.min(count - first);
            let Some(piece) = self.bytes(symtab + first * SYM_SIZE, n * SYM_SIZE) else {
                break;
            };
            let entries: Vec<(u32, u8, u16)> = piece
                .chunks_exact(SYM_SIZE as usize)
                .filter_map(|e| {
                    let name = self.decode32(&e[0..4])?;
                    let shndx = self.endian.read_u16([e[6], e[7]]);
                    Some((name, e[4], shndx))
                })
                .collect();
            for (name, info, shndx) in entries {
                if shndx != SHN_UNDEF || info >> 4 == STB_WEAK || name == 0 {
                    continue;
                }
                if let Some(symbol) = self.string(u64::from(name))
                    && keep(&symbol)
                {
                    out.push(symbol);
                }
            }
            first += n;
        }
        out
    }

    /// Whether this object defines `name` (of `version`, when given), by
    /// its hash table, as the loader looks it up: the GNU one, else the
    /// SysV one (`DT_HASH`; CUDA 12's nvJitLink and NVRTC have only that).
    /// `None` when it has neither.
    pub fn defines(&self, name: &str, version: Option<&str>) -> Option<bool> {
        let defined = std::cell::OnceCell::new();
        let matches = |i: u64| -> Option<bool> {
            let (n, _, shndx) = self.symbol(i)?;
            if shndx == SHN_UNDEF || !self.string_is(u64::from(n), name.as_bytes()) {
                return Some(false);
            }
            Some(match (version, self.versym) {
                (Some(want), Some(_)) => {
                    let have = self.version_index(i)?;
                    defined
                        .get_or_init(|| self.defined_versions())
                        .iter()
                        .any(|(ndx, v)| *ndx == have && v == want)
                }
                _ => true,
            })
        };
        if self.gnu_hash.is_some() {
            self.gnu_lookup(name, &matches)
        } else {
            self.sysv_lookup(name, &matches)
        }
    }

    /// The GNU hash table, read once: its bloom filter, buckets and chains.
    fn gnu_table(&self) -> Option<&GnuTable> {
        self.gnu_table
            .get_or_init(|| {
                let (nbuckets, symoffset, buckets, chains) = self.gnu()?;
                let g = self.gnu_hash?;
                let nbloom = u64::from(self.u32(g + 8)?);
                let shift = self.u32(g + 12)?;
                let count = self.count()?;
                let words = |at: u64, n: u64| -> Option<Vec<u32>> {
                    let raw = self.bytes(at, n.checked_mul(4)?)?;
                    raw.chunks_exact(4).map(|c| self.decode32(c)).collect()
                };
                let bloom_raw = self.bytes(g + 16, nbloom.checked_mul(8)?)?;
                let bloom = bloom_raw
                    .chunks_exact(8)
                    .map(|c| Some(self.endian.read_u64(c.try_into().ok()?)))
                    .collect::<Option<Vec<u64>>>()?;
                Some(GnuTable {
                    symoffset,
                    shift,
                    bloom,
                    buckets: words(buckets, nbuckets)?,
                    chains: words(chains, count.saturating_sub(symoffset))?,
                })
            })
            .as_ref()
    }

    /// A GNU hash table lookup: the bloom filter, the bucket, then its
    /// chain, whose low bit ends it.
    fn gnu_lookup(&self, name: &str, matches: &dyn Fn(u64) -> Option<bool>) -> Option<bool> {
        let t = self.gnu_table()?;
        let h = gnu_hash(name.as_bytes());
        if !t.bloom.is_empty() {
            let word = t.bloom[(h as usize / 64) % t.bloom.len()];
            let mask = (1u64 << (h % 64)) | (1u64 << (h.checked_shr(t.shift).unwrap_or(0) % 64));
            if word & mask != mask {
                return Some(false);
            }
        }
        let mut i = u64::from(*t.buckets.get(h as usize % t.buckets.len())?);
        if i == 0 || i < t.symoffset {
            return Some(false);
        }
        while let Some(&c) = t.chains.get((i - t.symoffset) as usize) {
            if c | 1 == h | 1 && matches(i)? {
                return Some(true);
            }
            if c & 1 == 1 {
                break;
            }
            i += 1;
        }
        Some(false)
    }

    /// A SysV hash table lookup (`nbucket`, `nchain`, then the buckets and
    /// chains): a chain visits at most `nchain` symbols.
    fn sysv_lookup(&self, name: &str, matches: &dyn Fn(u64) -> Option<bool>) -> Option<bool> {
        let table = self.hash?;
        let nbucket = u64::from(self.u32(table)?);
        let nchain = u64::from(self.u32(table + 4)?);
        if nbucket == 0 || nbucket > MAX_ENTRIES || nchain > MAX_ENTRIES {
            return None;
        }
        let h = u64::from(sysv_hash(name.as_bytes()));
        let chains = table + 8 + nbucket * 4;
        let mut i = u64::from(self.u32(table + 8 + h % nbucket * 4)?);
        for _ in 0..nchain {
            if i == 0 || i >= nchain {
                break;
            }
            if matches(i)? {
                return Some(true);
            }
            i = u64::from(self.u32(chains + i * 4)?);
        }
        Some(false)
    }
}

/// The SysV ELF hash function (`_dl_elf_hash`).
fn sysv_hash(name: &[u8]) -> u32 {
    name.iter().fold(0u32, |h, &c| {
        let h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        (h ^ (g >> 24)) & !g
    })
}

/// The GNU hash function (`dl_new_hash`).
fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Build a versioned provider and a consumer of it with `cc`.
    fn cc(dir: &Path, name: &str, src: &str, args: &[&str]) -> std::path::PathBuf {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, src).unwrap();
        let out = dir.join(name);
        let ok = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&out)
            .arg(&c)
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        out
    }

    /// The nvJitLink case: cuSPARSE built against nvJitLink 12.4 needs
    /// `__nvJitLinkComplete_12_4@libnvJitLink.so.12`; nvJitLink 12.1
    /// defines the version node but not that symbol.
    #[test]
    fn a_versioned_symbol_the_bound_provider_lacks() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let map = d.join("v.map");
        std::fs::write(&map, "libnvJitLink.so.12 { global: *; };\n").unwrap();
        let map_arg = format!("-Wl,--version-script={}", map.display());
        let new = d.join("new");
        let old = d.join("old");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::create_dir_all(&old).unwrap();
        let provider_new = cc(
            &new,
            "libnvJitLink.so.12",
            "int __nvJitLinkComplete_12_4(void) { return 0; }\nint __nvJitLinkCreate_12_0(void) { return 0; }\n",
            &["-Wl,-soname,libnvJitLink.so.12", &map_arg],
        );
        let provider_old = cc(
            &old,
            "libnvJitLink.so.12",
            "int __nvJitLinkCreate_12_0(void) { return 0; }\n",
            &["-Wl,-soname,libnvJitLink.so.12", &map_arg],
        );
        let consumer = cc(
            d,
            "libcusparse.so.12",
            "int __nvJitLinkComplete_12_4(void);\nint __nvJitLinkCreate_12_0(void);\nint __attribute__((weak)) maybe(void);\nint f(void) { return __nvJitLinkComplete_12_4() + __nvJitLinkCreate_12_0() + (maybe ? maybe() : 0); }\n",
            &[
                "-Wl,-soname,libcusparse.so.12",
                provider_new.to_str().unwrap(),
            ],
        );
        let count = Cell::new(0);
        let needs = open(&consumer, &count)
            .unwrap()
            .needs(&|f| f.starts_with("libnvJitLink"));
        let mut names: Vec<&str> = needs.iter().map(|n| n.symbol.as_str()).collect();
        names.sort();
        assert_eq!(
            names,
            ["__nvJitLinkComplete_12_4", "__nvJitLinkCreate_12_0"]
        );
        assert!(
            needs
                .iter()
                .all(|n| n.version == "libnvJitLink.so.12" && n.file == "libnvJitLink.so.12")
        );
        let new_t = open(&provider_new, &count).unwrap();
        let old_t = open(&provider_old, &count).unwrap();
        for n in &needs {
            assert_eq!(new_t.defines(&n.symbol, Some(&n.version)), Some(true));
        }
        assert_eq!(
            old_t.defines("__nvJitLinkComplete_12_4", Some("libnvJitLink.so.12")),
            Some(false)
        );
        assert_eq!(
            old_t.defines("__nvJitLinkCreate_12_0", Some("libnvJitLink.so.12")),
            Some(true)
        );
        // Another version node of the same name is another symbol.
        assert_eq!(
            old_t.defines("__nvJitLinkCreate_12_0", Some("libnvJitLink.so.13")),
            Some(false)
        );
        assert_eq!(old_t.defines("__nvJitLinkCreate_12_0", None), Some(true));
        assert!(count.get() < 64 * 1024, "read {} bytes", count.get());
    }

    /// CUDA 12's nvJitLink has only a SysV hash table (`DT_HASH`): looked
    /// up in that, as the loader does (the real 12.1.105 wheel lacked
    /// `__nvJitLinkComplete_12_4` and the check said nothing).
    #[test]
    fn a_provider_with_only_a_sysv_hash_table() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let map = d.join("v.map");
        std::fs::write(&map, "libnvJitLink.so.12 { global: *; };\n").unwrap();
        let provider = cc(
            d,
            "libnvJitLink.so.12",
            "int __nvJitLinkCreate_12_0(void) { return 0; }\nint __nvJitLinkCreate_12_1(void) { return 0; }\n",
            &[
                "-Wl,-soname,libnvJitLink.so.12",
                "-Wl,--hash-style=sysv",
                &format!("-Wl,--version-script={}", map.display()),
            ],
        );
        let count = Cell::new(0);
        let t = open(&provider, &count).unwrap();
        assert!(t.gnu_hash.is_none() && t.hash.is_some());
        let v = Some("libnvJitLink.so.12");
        assert_eq!(t.defines("__nvJitLinkCreate_12_1", v), Some(true));
        assert_eq!(t.defines("__nvJitLinkCreate_12_0", v), Some(true));
        assert_eq!(t.defines("__nvJitLinkComplete_12_4", v), Some(false));
        assert_eq!(
            t.defines("__nvJitLinkCreate_12_1", Some("libnvJitLink.so.13")),
            Some(false)
        );
        assert_eq!(sysv_hash(b"printf"), 0x077905a6);
    }

    /// The undefined symbols an object needs, weak ones left out.
    #[test]
    fn undefined_symbols_for_the_providers_to_define() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let consumer = cc(
            d,
            "ext.so",
            "int _ZN3c104funcEv(void);\nint other(void);\nint __attribute__((weak)) maybe(void);\nint f(void) { return _ZN3c104funcEv() + other() + (maybe ? maybe() : 0); }\n",
            &["-Wl,--unresolved-symbols=ignore-all"],
        );
        let count = Cell::new(0);
        let t = open(&consumer, &count).unwrap();
        let mut all = t.undefined(&|_| true);
        all.sort();
        assert!(all.contains(&"_ZN3c104funcEv".to_string()), "{all:?}");
        assert!(all.contains(&"other".to_string()));
        assert!(!all.contains(&"maybe".to_string()));
        assert_eq!(
            t.undefined(&|n| n.starts_with("_ZN3c10")),
            ["_ZN3c104funcEv"]
        );
    }

    /// Garbage and truncated files give errors or empty answers, no panic.
    #[test]
    fn hostile_input_is_an_error_or_nothing() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("x.so");
        std::fs::write(&f, b"\x7fELF\x02\x01\x01\0garbage").unwrap();
        let count = Cell::new(0);
        assert!(open(&f, &count).is_err());
        let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fixture.so");
        let mut bytes = std::fs::read(real).unwrap();
        // Every table offset pointing past the end.
        for cut in [bytes.len() / 2, bytes.len() - 40] {
            let g = t.path().join(format!("cut{cut}.so"));
            std::fs::write(&g, &bytes[..cut]).unwrap();
            if let Ok(tables) = open(&g, &count) {
                assert!(tables.needs(&|_| true).is_empty());
                let _ = tables.defines("x", Some("y"));
            }
        }
        for b in bytes.iter_mut().skip(64) {
            *b = 0xff;
        }
        let g = t.path().join("ff.so");
        std::fs::write(&g, &bytes).unwrap();
        if let Ok(tables) = open(&g, &count) {
            assert!(tables.needs(&|_| true).is_empty());
            let _ = tables.defines("x", None);
        }
    }
}
