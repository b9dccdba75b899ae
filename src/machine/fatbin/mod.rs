//! Which GPU architectures a CUDA-using shared object carries code for,
//! read from the headers of its fatbin, so that "no kernel image is
//! available for execution on the device" can be predicted from the binary
//! alone, without a GPU and without loading the object.
//!
//! # The format
//!
//! nvcc embeds device code in the ELF section `.nv_fatbin`
//! (`FATBIN_DATA_SECTION_NAME` in CUDA's `fatbinary_section.h`). A linked
//! object's section is the concatenation of many *containers*, one per
//! compilation unit (and one per device-link step), each a 16-byte header
//! followed by entries. Everything is little-endian.
//!
//! Container header (`struct fatBinaryHeader` of CUDA's `fatbinary.h`):
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0x00 | u32 | magic `0xBA55ED50` |
//! | 0x04 | u16 | version, 1 |
//! | 0x06 | u16 | header size, 16 |
//! | 0x08 | u64 | size of the entries that follow the header |
//!
//! Entry header, 64 bytes or more (64 up to sm_90, 80 for CUDA 13 PTX,
//! 96 to 120 for sm_100 and later cubins, whose extra bytes are records
//! this module does not need):
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0x00 | u16 | kind: 1 PTX, 2 ELF cubin (SASS) |
//! | 0x02 | u16 | entry format version, `0x0101` |
//! | 0x04 | u32 | header size; the payload follows it |
//! | 0x08 | u64 | payload size, padded to 8; the next entry starts after it |
//! | 0x10 | u32 | compressed payload size, 0 when not compressed |
//! | 0x18 | u16, u16 | code version minor, major (cubin ELF ABI or PTX ISA) |
//! | 0x1c | u32 | architecture, `major * 10 + minor`: 80, 90, 100, 103, 120 |
//! | 0x28 | u64 | flags, below |
//!
//! Flags: `0x1` 64-bit, `0x2` debug, `0x10` Linux host, `0x2000` LZ4
//! compression (CUDA 11 and 12), `0x8000` zstd compression (CUDA 13 and
//! late 12), `0x100000` architecture-specific target (`sm_90a`,
//! `sm_100a`), `0x200000` family-specific target (`sm_100f`). Kinds 4 (old
//! cubin) and 8 (NVVM IR) exist too; the driver runs neither as a kernel,
//! so they are skipped.
//!
//! Sources: `fatbinary_section.h` (Debian's `nvidia-cuda-dev`) for the
//! section names; `fatbinary.h` (CUDA 10 and earlier, quoted in ZLUDA) for
//! the magic, the container header and the kinds; the entry layout and the
//! LZ4 flag from n-eiling/cuda-fatbin-decompression (`fatbin-decompress.h`)
//! and jiegec/fatbinary (`fatbinary/src/lib.rs`); the zstd flag and the
//! walk by header size plus padded payload size from vosen/ZLUDA
//! (`cuda_types/src/dark_api.rs`). No published source names the `a` and
//! `f` flags: they were read off real objects and matched entry by entry
//! with `cuobjdump` 13.5 (torch 2.15's `libtorch_cuda.so`: every one of its
//! 2,981 cubins, 4 of them `sm_90a`, 61 `sm_100a`/`sm_120a`/`sm_121a`; and
//! `tests/fixtures/fatbin/cu13_variants.so`, built by nvcc 13.5 with
//! `sm_90a`, `sm_100a` and `sm_100f` targets). The cubins' own ELF
//! `e_flags` do not tell `sm_100a` from `sm_100` in CUDA 13's ABI, which is
//! why the fatbin flag is the one read.
//!
//! # Why only headers
//!
//! `libtorch_cuda.so` and `libpaddle.so` are 450 to 500 MB, nearly all of it
//! fatbin payloads, many compressed. Everything needed is in the headers,
//! so only the ELF header, the section headers, the section-name table,
//! 16 bytes per container and 48 per entry are read, through a lazy
//! reader that counts what it reads ([`Fatbins::bytes_read`]): a payload is
//! skipped by its size field, never read or decompressed.
//!
//! # Not covered
//!
//! - `__nv_relfatbin` (`FATBIN_PRELINK_DATA_SECTION_NAME`) holds the
//!   relocatable images of `-rdc` units, the input of device linking; what
//!   the device link made of them is a container in `.nv_fatbin`, so only
//!   `.nv_fatbin` is read. Of the objects checked only paddle's `libphi.so`
//!   has one: its device-linked container holds sm_35 to sm_90 cubins
//!   (none for 8.x) while the pre-link images add compute_70/75/80 PTX;
//!   whether the runtime JIT-links those on a GPU the linked code lacks is
//!   not established here.
//! - The verdict is over the union of all containers. A framework also
//!   ships units built only for the architectures whose kernels they hold
//!   (`sm_100a`-only units in torch); those are launched only on that
//!   architecture, so they do not change "does this object run here".
//! - Whether the installed driver can JIT a PTX of a newer ISA than it knows
//!   is a driver-version question, not answered here.

use std::cell::Cell;
use std::collections::BTreeMap;
#[cfg(test)]
use std::collections::BTreeSet;
use std::marker::PhantomData;
use std::path::Path;

use object::elf;
use object::read::ReadRef;
use object::read::elf::{FileHeader, SectionHeader};

/// The section nvcc puts device code in.
const SECTION: &[u8] = b".nv_fatbin";
const MAGIC: u32 = 0xBA55_ED50;
const CONTAINER_HEADER: u64 = 16;
/// The part of an entry header read: up to and including the flags.
const ENTRY_PREFIX: usize = 0x30;
/// Every entry header seen is at least this long (all sources agree).
const MIN_ENTRY_HEADER: u64 = 64;
/// Entry headers seen are at most 120 bytes; far more means corrupt data.
const MAX_ENTRY_HEADER: u64 = 4096;
/// Section-name tables are a few hundred bytes.
const MAX_SHSTRTAB: u64 = 1 << 20;
/// The cap on headers read (containers and entries together): 65,536
/// headers cost at most 3 MiB of reads. The largest objects seen hold
/// under 9,000 (cuBLASLt 12.9: 3,015 containers, 5,969 entries). Past it
/// the walk stops and [`Fatbins::complete`] is false.
const MAX_HEADERS: u64 = 65_536;
/// The most section headers read: a shared object has a few dozen, and
/// an extended count (`e_shnum` 0, the count in section 0) can state 2^32
/// of them in a sparse file.
const MAX_SECTIONS: u32 = 1 << 16;
/// Zero bytes tolerated between two containers (alignment padding).
const MAX_PADDING: u64 = 4096;

const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;
const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;

use crate::data::arch::{self, Cc};
pub use crate::data::arch::{Kind, Variant};

/// One distinct kind of code image found in the fatbin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FatbinEntry {
    pub kind: Kind,
    /// The architecture as the format stores it, `major * 10 + minor` of
    /// the compute capability: 75 for sm_75, 90 for sm_90 and sm_90a,
    /// 100 for sm_100, 103 for sm_103, 120 for sm_120.
    pub sm: u32,
    pub variant: Variant,
    /// Whether the payload is compressed (LZ4 or zstd); in
    /// [`Fatbins::entries`], whether any copy of it is.
    pub compressed: bool,
}

/// The code images of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fatbins {
    /// Distinct entries, sorted; an image repeated in many containers (one
    /// per compilation unit) is listed once, as compressed when any of its
    /// copies is.
    pub entries: Vec<FatbinEntry>,
    /// Containers walked.
    pub containers: u64,
    /// False when the walk stopped at the header cap, so that the entries
    /// may be missing architectures.
    pub complete: bool,
    /// Bytes read from the file to learn this.
    pub bytes_read: u64,
}

/// Which image the driver would use on a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A cubin that runs as it is.
    Sass(FatbinEntry),
    /// No cubin runs, but this PTX can be JIT-compiled for the GPU (slow
    /// first start, and needs a driver that knows the PTX's ISA).
    Ptx(FatbinEntry),
    /// Nothing runs: "no kernel image is available for execution on the
    /// device".
    NoImage,
}

impl FatbinEntry {
    /// The target as nvcc spells it: `sm_90a`, `compute_100f`.
    pub fn name(&self) -> String {
        let prefix = match self.kind {
            Kind::Sass => "sm",
            Kind::Ptx => "compute",
        };
        let suffix = match self.variant {
            Variant::Generic => "",
            Variant::FamilySpecific => "f",
            Variant::ArchSpecific => "a",
        };
        format!("{prefix}_{}{suffix}", self.sm)
    }

    /// Whether this image runs on compute capability `major.minor`, by
    /// NVIDIA's rules ([`crate::data::arch::runs`]).
    fn runs_on(&self, major: u32, minor: u32) -> bool {
        arch::runs(
            self.kind,
            self.variant,
            Cc::from_sm(self.sm),
            Cc { major, minor },
        )
    }
}

impl Fatbins {
    /// Architectures with a cubin, all variants together (the tests compare
    /// them with cuobjdump's listing).
    #[cfg(test)]
    pub fn sass(&self) -> BTreeSet<u32> {
        self.of_kind(Kind::Sass)
    }

    /// Architectures with PTX, all variants together.
    #[cfg(test)]
    pub fn ptx(&self) -> BTreeSet<u32> {
        self.of_kind(Kind::Ptx)
    }

    #[cfg(test)]
    fn of_kind(&self, kind: Kind) -> BTreeSet<u32> {
        self.entries
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.sm)
            .collect()
    }

    /// What a GPU of compute capability `cc_major.cc_minor` would run. The
    /// driver takes a cubin when one runs and JIT-compiles PTX only
    /// otherwise. Among several, the newest architecture is named, and at
    /// equal architecture the most portable variant: real objects keep
    /// their `sm_90a` kernels in units of their own beside the generic
    /// `sm_90` ones (torch 2.15: 4 units against 476), so the generic image
    /// is the one most kernels run from.
    pub fn runs_on(&self, cc_major: u32, cc_minor: u32) -> Verdict {
        let best = |kind: Kind| {
            self.entries
                .iter()
                .filter(|e| e.kind == kind && e.runs_on(cc_major, cc_minor))
                .max_by_key(|e| (e.sm, std::cmp::Reverse(e.variant)))
                .copied()
        };
        if let Some(e) = best(Kind::Sass) {
            Verdict::Sass(e)
        } else if let Some(e) = best(Kind::Ptx) {
            Verdict::Ptx(e)
        } else {
            Verdict::NoImage
        }
    }
}

fn u16_at(b: &[u8; ENTRY_PREFIX], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8; ENTRY_PREFIX], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8; ENTRY_PREFIX], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | u64::from(u32_at(b, at + 4)) << 32
}

/// Read the fatbin headers of `path`. `Ok(None)`: the object has no
/// `.nv_fatbin` section, so it carries no CUDA device code.
pub fn read(path: &Path) -> Result<Option<Fatbins>, String> {
    let count = Cell::new(0u64);
    let (cache, len) = super::elf::open_counted(path, &count)?;
    let data = &cache;
    let (header, endian) = super::elf::header(data)?;
    let shnum = header.shnum(endian, data).map_err(|e| e.to_string())?;
    if shnum > MAX_SECTIONS {
        return Err(format!("malformed: {shnum} section headers"));
    }
    let sections = header
        .section_headers(endian, data)
        .map_err(|e| e.to_string())?;
    if sections.is_empty() {
        // The loader needs no section headers, so a fatbin may be there
        // all the same: unknown is not "none".
        return Err("no section headers: .nv_fatbin cannot be located".into());
    }
    let names = section_names(header, endian, data, sections)?;
    let mut walk = Walk {
        data,
        _data: PhantomData,
        seen: BTreeMap::new(),
        containers: 0,
        headers: 0,
        complete: true,
    };
    let mut found = false;
    for section in sections {
        let Some(name) = names.get(section.sh_name(endian) as usize..) else {
            return Err("section name outside the section-name table".into());
        };
        if name.split(|&b| b == 0).next() != Some(SECTION) {
            continue;
        }
        found = true;
        if section.sh_type(endian) == elf::SHT_NOBITS {
            return Err(".nv_fatbin has no data in this file (SHT_NOBITS)".into());
        }
        let start = section.sh_offset(endian);
        let end = start
            .checked_add(section.sh_size(endian))
            .filter(|&end| end <= len)
            .ok_or_else(|| format!(".nv_fatbin ends past the end of the file ({len} bytes)"))?;
        walk.section(start, end)?;
        if !walk.complete {
            break;
        }
    }
    if !found {
        return Ok(None);
    }
    Ok(Some(Fatbins {
        entries: walk
            .seen
            .into_iter()
            .map(|((kind, sm, variant), compressed)| FatbinEntry {
                kind,
                sm,
                variant,
                compressed,
            })
            .collect(),
        containers: walk.containers,
        complete: walk.complete,
        bytes_read: count.get(),
    }))
}

/// Results already read in this process, by file identity: conda
/// hard-links a package's files from its cache into every environment that
/// holds it, so `audit` meets the same `libtorch_cuda.so` many times.
type Key = (u64, u64, u64, i64);
type Known = BTreeMap<Key, Result<Option<Fatbins>, String>>;
static CACHE: std::sync::LazyLock<std::sync::Mutex<Known>> =
    std::sync::LazyLock::new(Default::default);

/// [`read`], once per file (device, inode, size, modification time) per
/// process.
pub fn read_cached(path: &Path) -> Result<Option<Fatbins>, String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return read(path);
    };
    let key = (meta.dev(), meta.ino(), meta.len(), meta.mtime());
    if let Some(known) = CACHE.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return known;
    }
    let result = read(path);
    if let Ok(mut c) = CACHE.lock() {
        c.insert(key, result.clone());
    }
    result
}

/// The section-name string table, read whole in one small read.
fn section_names<'a, R: ReadRef<'a>>(
    header: &elf::FileHeader64<object::Endianness>,
    endian: object::Endianness,
    data: R,
    sections: &[elf::SectionHeader64<object::Endianness>],
) -> Result<&'a [u8], String> {
    let index = header.shstrndx(endian, data).map_err(|e| e.to_string())?;
    let shstrtab = sections
        .get(index as usize)
        .ok_or("section-name table index out of range")?;
    let size = shstrtab.sh_size(endian);
    if size > MAX_SHSTRTAB {
        return Err(format!("section-name table of {size} bytes"));
    }
    data.read_bytes_at(shstrtab.sh_offset(endian), size)
        .map_err(|_| "section-name table past the end of the file".to_string())
}

/// The walk over the fatbin sections, with what it has found so far.
struct Walk<'a, R: ReadRef<'a>> {
    data: R,
    _data: PhantomData<&'a ()>,
    /// (kind, sm, variant) to whether any copy is compressed.
    seen: BTreeMap<(Kind, u32, Variant), bool>,
    containers: u64,
    headers: u64,
    complete: bool,
}

impl<'a, R: ReadRef<'a>> Walk<'a, R> {
    /// Whether another header may be read; clears `complete` when not.
    fn budget(&mut self) -> bool {
        self.headers += 1;
        if self.headers > MAX_HEADERS {
            self.complete = false;
        }
        self.complete
    }

    /// Walk the containers of the section at `start..end` of the file.
    fn section(&mut self, start: u64, end: u64) -> Result<(), String> {
        let mut pos = start;
        let mut padding = 0;
        while end - pos >= CONTAINER_HEADER {
            if !self.budget() {
                return Ok(());
            }
            let head = self
                .data
                .read_bytes_at(pos, CONTAINER_HEADER)
                .map_err(|_| format!("unreadable fatbin header at {pos:#x}"))?;
            let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            if magic != MAGIC {
                // Containers are 8-aligned; zero words between them are
                // alignment padding.
                if head[..8] == [0; 8] && padding < MAX_PADDING {
                    padding += 8;
                    pos += 8;
                    continue;
                }
                return Err(format!("no fatbin magic at {pos:#x} (found {magic:#010x})"));
            }
            padding = 0;
            let version = u16::from_le_bytes([head[4], head[5]]);
            if version != 1 {
                return Err(format!("fatbin version {version} at {pos:#x}"));
            }
            let header_size = u64::from(u16::from_le_bytes([head[6], head[7]]));
            if header_size < CONTAINER_HEADER {
                return Err(format!(
                    "fatbin header at {pos:#x} claims {header_size} bytes"
                ));
            }
            let fat_size = u64::from_le_bytes([
                head[8], head[9], head[10], head[11], head[12], head[13], head[14], head[15],
            ]);
            let container_end = pos
                .checked_add(header_size)
                .and_then(|p| p.checked_add(fat_size))
                .filter(|&e| e <= end)
                .ok_or_else(|| format!("fatbin container at {pos:#x} overruns its section"))?;
            self.containers += 1;
            self.entries(pos + header_size, container_end)?;
            if !self.complete {
                return Ok(());
            }
            pos = container_end;
        }
        // Fewer bytes than a header may be left only as padding.
        let tail = self
            .data
            .read_bytes_at(pos, end - pos)
            .map_err(|_| format!("unreadable end of .nv_fatbin at {pos:#x}"))?;
        if tail.iter().any(|&b| b != 0) {
            return Err(format!(
                "{} stray bytes at the end of .nv_fatbin",
                tail.len()
            ));
        }
        Ok(())
    }

    /// Walk the entries of one container, `start..end` of the file.
    fn entries(&mut self, start: u64, end: u64) -> Result<(), String> {
        let mut pos = start;
        while pos < end {
            if !self.budget() {
                return Ok(());
            }
            if end - pos < MIN_ENTRY_HEADER {
                return Err(format!("truncated fatbin entry header at {pos:#x}"));
            }
            let bytes = self
                .data
                .read_bytes_at(pos, ENTRY_PREFIX as u64)
                .map_err(|_| format!("unreadable fatbin entry header at {pos:#x}"))?;
            let head: &[u8; ENTRY_PREFIX] = bytes
                .try_into()
                .map_err(|_| format!("short read of the entry header at {pos:#x}"))?;
            let header_size = u64::from(u32_at(head, 0x04));
            if !(MIN_ENTRY_HEADER..=MAX_ENTRY_HEADER).contains(&header_size) {
                return Err(format!(
                    "fatbin entry header at {pos:#x} claims {header_size} bytes"
                ));
            }
            let payload = u64_at(head, 0x08);
            let next = pos
                .checked_add(header_size)
                .and_then(|p| p.checked_add(payload))
                .filter(|&n| n <= end)
                .ok_or_else(|| format!("fatbin entry at {pos:#x} overruns its container"))?;
            let kind = match u16_at(head, 0x00) {
                KIND_PTX => Some(Kind::Ptx),
                KIND_ELF => Some(Kind::Sass),
                _ => None, // old cubin, NVVM IR: nothing the driver runs
            };
            if let Some(kind) = kind {
                let flags = u64_at(head, 0x28);
                let variant = if flags & FLAG_ARCH_SPECIFIC != 0 {
                    Variant::ArchSpecific
                } else if flags & FLAG_FAMILY_SPECIFIC != 0 {
                    Variant::FamilySpecific
                } else {
                    Variant::Generic
                };
                let compressed = flags & (FLAG_LZ4 | FLAG_ZSTD) != 0;
                *self
                    .seen
                    .entry((kind, u32_at(head, 0x1c), variant))
                    .or_default() |= compressed;
            }
            pos = next;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
