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
//! are done here over its lazily read bytes.
//!
//! Every walk has a budget tied to the file: a table must fit in the file
//! it is read from, a hash chain takes no more steps than the table has
//! symbols and all lookups together a fixed number per lookup
//! ([`hash`]), version lists stop at [`versions::MAX_VERSIONS`], and the
//! names handed out stop at [`MAX_NAMES`] bytes. Hostile input gives an
//! error or a short answer, never a hang.

use std::cell::{Cell, OnceCell};
use std::collections::HashMap;
use std::path::Path;

use object::read::ReadRef;
use object::read::elf::{FileHeader, ProgramHeader};
use object::{Endian, Endianness, elf};

use super::elf::{Counting, dynamic_entries, header, open_counted, tag_value};

mod demangle;
mod hash;

pub use demangle::demangle;
mod versions;

use hash::GnuTable;

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
/// The most bytes of symbol names one object's `needs` or `undefined`
/// hands out: libtorch_cpu.so's whole `.dynstr` is 7 MB, and a hostile
/// table can name one 60 kB string from every one of its symbols.
const MAX_NAMES: u64 = 64 << 20;

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
    /// table's chains), found once, failure too.
    count: OnceCell<Option<u64>>,
    /// The GNU hash table, read whole on the first lookup: a few hundred
    /// kB for libtorch_cpu.so, against a system call per chain step.
    gnu_table: OnceCell<Option<GnuTable>>,
    hash: Option<u64>,
    versym: Option<u64>,
    verneed: Option<(u64, u64)>,
    verdef: Option<(u64, u64)>,
    /// The versions this object defines, by index, read once (`None`:
    /// malformed).
    defined: OnceCell<Option<HashMap<u16, String>>>,
    /// Hash chain steps taken and lookups made, for the chain budget.
    steps: Cell<u64>,
    lookups: Cell<u64>,
    /// Bytes of names `needs` and `undefined` may still hand out.
    names_left: Cell<u64>,
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
        count: OnceCell::new(),
        gnu_table: OnceCell::new(),
        hash: None,
        versym: None,
        verneed: None,
        verdef: None,
        defined: OnceCell::new(),
        steps: Cell::new(0),
        lookups: Cell::new(0),
        names_left: Cell::new(MAX_NAMES),
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
        let Some(dynamic) = dynamic_entries(data, phdrs, endian, self.len)? else {
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
        let tag = |t: elf::DynamicTag| tag_value(&dynamic, t);
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
        self.string_max(offset, MAX_NAME)
    }

    /// The string at `offset`, if its NUL comes within `max` bytes.
    fn string_max(&self, offset: u64, max: u64) -> Option<String> {
        let (start, end) = self.strtab?;
        let at = start.checked_add(offset)?;
        let mut n = 64u64.min(max + 1);
        loop {
            let take = n.min(end.checked_sub(at)?);
            let piece = self.bytes(at, take)?;
            if let Some(stop) = piece.iter().position(|&b| b == 0) {
                return Some(String::from_utf8_lossy(&piece[..stop]).into_owned());
            }
            if take < n || n > max {
                return None;
            }
            n = (n * 4).min(max + 1);
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
    /// of the GNU hash table's last chain; never more than `.dynsym` entries
    /// the file holds.
    fn count(&self) -> Option<u64> {
        *self.count.get_or_init(|| {
            let stated = match self.hash {
                Some(h) => u64::from(self.u32(h + 4)?),
                None => self.gnu_count()?,
            };
            let fits = self.len.saturating_sub(self.symtab?) / SYM_SIZE;
            Some(stated.min(fits).min(MAX_ENTRIES))
        })
    }

    fn decode32(&self, c: &[u8]) -> Option<u32> {
        Some(self.endian.read_u32(c.try_into().ok()?))
    }

    /// The version index of symbol `i` (`DT_VERSYM`), hidden bit cleared.
    fn version_index(&self, i: u64) -> Option<u16> {
        Some(self.u16(self.versym?.checked_add(i * 2)?)? & 0x7fff)
    }

    /// The name at `offset`, charged to the budget of names handed out.
    fn handed_out(&self, offset: u64) -> Result<Option<String>, String> {
        let Some(name) = self.string(offset) else {
            return Ok(None);
        };
        let left = self.names_left.get();
        let cost = name.len() as u64 + 1;
        if cost > left {
            return Err(format!("malformed: symbol names past {MAX_NAMES} bytes"));
        }
        self.names_left.set(left - cost);
        Ok(Some(name))
    }

    /// The names of this object's undefined symbols that `keep` accepts,
    /// not weak (a weak reference may stay unbound): what its providers
    /// must define. The symbol table is read in pieces of 4096 entries.
    pub fn undefined(&self, keep: &dyn Fn(&str) -> bool) -> Result<Vec<String>, String> {
        const PIECE: u64 = 4096;
        let mut out = Vec::new();
        let (Some(count), Some(symtab)) = (self.count(), self.symtab) else {
            return Ok(out);
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
                if let Some(symbol) = self.handed_out(u64::from(name))?
                    && keep(&symbol)
                {
                    out.push(symbol);
                }
            }
            first += n;
        }
        Ok(out)
    }

    /// Whether this object defines `name` (of `version`, when given), by
    /// its hash table, as the loader looks it up: the GNU one, else the
    /// SysV one (`DT_HASH`; CUDA 12's nvJitLink and NVRTC have only that).
    /// `None` when it has neither, or cannot tell (a malformed table, or
    /// the chain budget spent).
    pub fn defines(&self, name: &str, version: Option<&str>) -> Option<bool> {
        let matches = |i: u64| -> Option<bool> {
            let (n, _, shndx) = self.symbol(i)?;
            if shndx == SHN_UNDEF || !self.string_is(u64::from(n), name.as_bytes()) {
                return Some(false);
            }
            Some(match (version, self.versym) {
                (Some(want), Some(_)) => {
                    let have = self.version_index(i)?;
                    let defined = self.defined.get_or_init(|| self.defined_versions());
                    defined.as_ref()?.get(&have).is_some_and(|v| v == want)
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
}
#[cfg(test)]
mod tests;
