//! Shared objects written without a compiler: what `envhook demo` puts
//! where a framework's and a toolkit's libraries go, so a machine with only
//! the binary (`pip install envhook`) gets objects that envhook's readers,
//! `readelf` and the loader take as `cc -shared` output.
//!
//! The `object` crate's ELF writer lays out the tables; this file decides
//! only what goes in them: `DT_SONAME`, `DT_NEEDED`, `DT_RPATH` or
//! `DT_RUNPATH`, functions defined under a version (`.gnu.version_d`) and
//! versioned symbols needed from other files (`.gnu.version_r`), with the
//! GNU hash table the loader looks symbols up in. Two segments, as `ld`
//! makes them: the read-only tables and code, then `.dynamic` writable, on
//! page-aligned mappings so that glibc's loader maps the file.

use object::Endianness;
use object::elf;
use object::write::StringId;
use object::write::elf::{
    FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Verdef, Vernaux, Verneed, Writer,
};

/// The page size the segments are aligned to (x86-64's).
const PAGE: u64 = 0x1000;
/// Each defined function's code: `xor eax, eax; ret`.
const FUNCTION: &[u8] = &[0x31, 0xc0, 0xc3];

/// Where an object asks the loader to look for what it needs.
///
/// The demo's objects ask for nothing; the tests that hold this writer to
/// `cc` (src/machine/elf.rs, tests/it/demo.rs) write every kind.
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
pub enum SearchPath<'a> {
    /// `DT_RPATH` (searched before `LD_LIBRARY_PATH`).
    Rpath(&'a str),
    /// `DT_RUNPATH` (searched after it).
    Runpath(&'a str),
}

/// A symbol an object needs from another, bound to a version of it.
#[derive(Debug, Clone, Copy)]
pub struct Import<'a> {
    /// The symbol.
    pub symbol: &'a str,
    /// The version it is bound to (`libcudart.so.11.0`).
    pub version: &'a str,
    /// The file (soname) that defines the version.
    pub file: &'a str,
}

/// What one shared object carries for the dynamic linker.
#[derive(Debug, Clone, Copy, Default)]
pub struct SharedObject<'a> {
    /// `DT_SONAME`.
    pub soname: &'a str,
    /// `DT_NEEDED`, in order.
    pub needed: &'a [&'a str],
    /// `DT_RPATH` or `DT_RUNPATH`.
    pub search: Option<SearchPath<'a>>,
    /// The functions it defines (each returns 0).
    pub defines: &'a [&'a str],
    /// The version its functions are defined under, if any.
    pub version: Option<&'a str>,
    /// The versioned symbols it needs.
    pub imports: &'a [Import<'a>],
}

/// The object's bytes.
pub fn write(obj: &SharedObject) -> object::write::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut writer = Writer::new(Endianness::Little, true, &mut out);
    let layout = Layout::reserve(&mut writer, obj)?;
    layout.write(&mut writer, obj)?;
    Ok(out)
}

/// The strings, indices and file ranges reserved in the writer's first
/// phase, for its second.
struct Layout {
    soname: StringId,
    needed: Vec<StringId>,
    /// `DT_RPATH` or `DT_RUNPATH`, and the path.
    search: Option<(elf::DynamicTag, StringId)>,
    defines: Vec<StringId>,
    version: Option<StringId>,
    /// Per file needed from: its name and its versions.
    files: Vec<(StringId, Vec<Needed>)>,
    /// Each import's symbol name and version index.
    imports: Vec<(StringId, u16)>,
    text_name: StringId,
    text: SectionIndex,
    offsets: Offsets,
}

/// The files needed from, as [`Layout::strings`] gathers them: each name,
/// its string, and its versions by name.
type Gathering<'a> = Vec<(&'a str, StringId, Vec<(&'a str, Needed)>)>;

/// A version needed from another file.
struct Needed {
    name: StringId,
    index: u16,
    /// `elf::hash` of the name, as the loader compares it.
    hash: u32,
}

/// File offsets of the parts of the object (also their addresses, but for
/// `.dynamic`, which is mapped a page higher).
#[derive(Default)]
struct Offsets {
    gnu_hash: u64,
    dynsym: u64,
    dynstr: u64,
    versym: u64,
    verdef: u64,
    verneed: u64,
    text: u64,
    dynamic: u64,
    /// Where the loaded part of the file ends.
    end: u64,
}

impl Layout {
    /// The writer's first phase: every string, index and range.
    fn reserve<'a>(w: &mut Writer<'a>, obj: &SharedObject<'a>) -> object::write::Result<Self> {
        w.reserve_file_header();
        w.reserve_program_headers(3);
        let mut layout = Self::strings(w, obj);
        w.reserve_null_section_index();
        w.reserve_gnu_hash_section_index();
        w.reserve_dynsym_section_index();
        w.reserve_dynstr_section_index();
        if layout.versioned() {
            w.reserve_gnu_versym_section_index();
        }
        if layout.version.is_some() {
            w.reserve_gnu_verdef_section_index();
        }
        if !layout.files.is_empty() {
            w.reserve_gnu_verneed_section_index();
        }
        layout.text = w.reserve_section_index();
        w.reserve_dynamic_section_index();
        w.reserve_shstrtab_section_index();
        w.reserve_null_dynamic_symbol_index();
        for _ in 0..obj.imports.len() + obj.defines.len() {
            w.reserve_dynamic_symbol_index();
        }
        // In file order (a struct literal evaluates its fields in order).
        let mut o = Offsets {
            gnu_hash: w.reserve_gnu_hash(1, 1, obj.defines.len() as u32),
            dynsym: w.reserve_dynsym(),
            dynstr: w.reserve_dynstr()?,
            ..Offsets::default()
        };
        if layout.versioned() {
            o.versym = w.reserve_gnu_versym();
        }
        if layout.version.is_some() {
            o.verdef = w.reserve_gnu_verdef(2, 2);
        }
        if !layout.files.is_empty() {
            let aux = layout.files.iter().map(|(_, v)| v.len()).sum();
            o.verneed = w.reserve_gnu_verneed(layout.files.len() as u16, aux);
        }
        o.text = w.reserve((FUNCTION.len() * obj.defines.len()) as u64, 16);
        o.dynamic = w.reserve_dynamic(layout.dynamic_count());
        o.end = w.reserved_len();
        layout.offsets = o;
        w.reserve_shstrtab()?;
        w.reserve_section_headers();
        Ok(layout)
    }

    /// The dynamic strings, and the version indices they get: the object's
    /// own version is 2 (1 is the file itself), needed ones follow.
    fn strings<'a>(w: &mut Writer<'a>, obj: &SharedObject<'a>) -> Self {
        let mut add = |s: &'a str| w.add_dynamic_string(s.as_bytes());
        let soname = add(obj.soname);
        let needed = obj.needed.iter().map(|n| add(n)).collect();
        let search = obj.search.map(|s| match s {
            SearchPath::Rpath(p) => (elf::DT_RPATH, add(p)),
            SearchPath::Runpath(p) => (elf::DT_RUNPATH, add(p)),
        });
        let defines = obj.defines.iter().map(|d| add(d)).collect();
        let version = obj.version.map(&mut add);
        let mut next = if version.is_some() { 3 } else { 2 };
        let mut files: Gathering = Vec::new();
        let mut imports = Vec::new();
        for import in obj.imports {
            let at = match files.iter().position(|(f, ..)| *f == import.file) {
                Some(at) => at,
                None => {
                    files.push((import.file, add(import.file), Vec::new()));
                    files.len() - 1
                }
            };
            let versions = &mut files[at].2;
            let index = match versions.iter().find(|(v, _)| *v == import.version) {
                Some((_, needed)) => needed.index,
                None => {
                    let needed = Needed {
                        name: add(import.version),
                        index: next,
                        hash: elf::hash(import.version.as_bytes()),
                    };
                    versions.push((import.version, needed));
                    next += 1;
                    next - 1
                }
            };
            imports.push((add(import.symbol), index));
        }
        let files = files
            .into_iter()
            .map(|(_, id, v)| (id, v.into_iter().map(|(_, needed)| needed).collect()))
            .collect();
        Layout {
            soname,
            needed,
            search,
            defines,
            version,
            files,
            imports,
            text_name: w.add_section_name(b".text"),
            text: SectionIndex(0),
            offsets: Offsets::default(),
        }
    }

    /// Whether the object has version tables (and so `.gnu.version`).
    fn versioned(&self) -> bool {
        self.version.is_some() || !self.files.is_empty()
    }

    /// How many `.dynamic` entries [`Layout::write_dynamic`] writes.
    fn dynamic_count(&self) -> usize {
        let mut count = 1 + self.needed.len() + usize::from(self.search.is_some()) + 5 + 1;
        if self.versioned() {
            count += 1;
        }
        if self.version.is_some() {
            count += 2;
        }
        if !self.files.is_empty() {
            count += 2;
        }
        count
    }
}

impl Layout {
    /// The writer's second phase, in the order of the first.
    fn write(&self, w: &mut Writer, obj: &SharedObject) -> object::write::Result<()> {
        w.write_file_header(&FileHeader {
            os_abi: elf::ELFOSABI_NONE,
            abi_version: 0,
            e_type: elf::ET_DYN,
            e_machine: elf::EM_X86_64,
            e_entry: 0,
            e_flags: elf::FileFlags(0),
        })?;
        self.write_program_headers(w);
        let base = 1 + obj.imports.len() as u32;
        let hashes: Vec<u32> = obj
            .defines
            .iter()
            .map(|d| elf::gnu_hash(d.as_bytes()))
            .collect();
        // One bucket: every symbol is in it, so they are sorted by bucket.
        w.write_gnu_hash(base, 6, 1, 1, obj.defines.len() as u32, |i| {
            hashes[i as usize]
        });
        self.write_symbols(w);
        w.write_dynstr();
        self.write_versions(w, obj);
        w.write_align(16);
        for _ in obj.defines {
            w.write(FUNCTION);
        }
        self.write_dynamic(w)?;
        w.write_shstrtab();
        self.write_section_headers(w, (FUNCTION.len() * obj.defines.len()) as u64);
        Ok(())
    }

    /// The read-only segment from the file's start to `.dynamic`, the
    /// writable one holding `.dynamic` a page higher, and `PT_DYNAMIC`.
    fn write_program_headers(&self, w: &mut Writer) {
        let o = &self.offsets;
        let dynamic_len = o.end - o.dynamic;
        w.write_align_program_headers();
        w.write_program_header(&ProgramHeader {
            p_type: elf::PT_LOAD,
            p_flags: elf::PF_R | elf::PF_X,
            p_offset: 0,
            p_vaddr: 0,
            p_paddr: 0,
            p_filesz: o.dynamic,
            p_memsz: o.dynamic,
            p_align: PAGE,
        });
        for p_type in [elf::PT_LOAD, elf::PT_DYNAMIC] {
            w.write_program_header(&ProgramHeader {
                p_type,
                p_flags: elf::PF_R | elf::PF_W,
                p_offset: o.dynamic,
                p_vaddr: o.dynamic + PAGE,
                p_paddr: o.dynamic + PAGE,
                p_filesz: dynamic_len,
                p_memsz: dynamic_len,
                p_align: if p_type == elf::PT_LOAD { PAGE } else { 8 },
            });
        }
    }

    /// `.dynsym`: the null symbol, the imports (undefined), then the
    /// functions defined in `.text` (the ones the hash table covers).
    fn write_symbols(&self, w: &mut Writer) {
        w.write_null_dynamic_symbol();
        let global = |kind| elf::SymbolInfo::new(elf::STB_GLOBAL, kind);
        for (name, _) in &self.imports {
            w.write_dynamic_symbol(&Sym {
                section: None,
                st_name: w.dynamic_string_offset(Some(*name)),
                st_info: global(elf::STT_FUNC),
                st_other: elf::SymbolOther::default(),
                st_shndx: elf::SHN_UNDEF,
                st_value: 0,
                st_size: 0,
            });
        }
        for (i, name) in self.defines.iter().enumerate() {
            w.write_dynamic_symbol(&Sym {
                section: Some(self.text.0),
                st_name: w.dynamic_string_offset(Some(*name)),
                st_info: global(elf::STT_FUNC),
                st_other: elf::SymbolOther::default(),
                st_shndx: elf::SHN_UNDEF,
                st_value: self.offsets.text + (i * FUNCTION.len()) as u64,
                st_size: FUNCTION.len() as u64,
            });
        }
    }

    /// `.gnu.version`, `.gnu.version_d` and `.gnu.version_r`, where the
    /// object has versions.
    fn write_versions(&self, w: &mut Writer, obj: &SharedObject) {
        if !self.versioned() {
            return;
        }
        w.write_null_gnu_versym();
        for (_, index) in &self.imports {
            w.write_gnu_versym(elf::VersionIndex(*index).versym(false));
        }
        let own = if self.version.is_some() {
            elf::VersionIndex(2)
        } else {
            elf::VER_NDX_GLOBAL
        };
        for _ in obj.defines {
            w.write_gnu_versym(own.versym(false));
        }
        if let (Some(version), Some(name)) = (self.version, obj.version) {
            w.write_align_gnu_verdef();
            for (index, flags, id, text) in [
                (1, elf::VER_FLG_BASE, self.soname, obj.soname),
                (2, elf::VersionFlags(0), version, name),
            ] {
                w.write_gnu_verdef(&Verdef {
                    version: elf::VER_DEF_CURRENT,
                    flags,
                    index: elf::VersionIndex(index),
                    aux_count: 1,
                    name: w.dynamic_string_offset(Some(id)),
                    hash: elf::hash(text.as_bytes()),
                });
            }
        }
        self.write_verneed(w);
    }

    /// `.gnu.version_r`: per file, the versions its symbols are bound to.
    fn write_verneed(&self, w: &mut Writer) {
        if self.files.is_empty() {
            return;
        }
        w.write_align_gnu_verneed();
        for (file, versions) in &self.files {
            w.write_gnu_verneed(&Verneed {
                version: elf::VER_NEED_CURRENT,
                aux_count: versions.len() as u16,
                file: w.dynamic_string_offset(Some(*file)),
            });
            for needed in versions {
                w.write_gnu_vernaux(&Vernaux {
                    flags: elf::VersionFlags(0),
                    index: elf::VersionIndex(needed.index),
                    name: w.dynamic_string_offset(Some(needed.name)),
                    hash: needed.hash,
                });
            }
        }
    }

    /// `.dynamic`: the names, then where the tables are.
    fn write_dynamic(&self, w: &mut Writer) -> object::write::Result<()> {
        let o = &self.offsets;
        w.write_align_dynamic();
        // In ld's order: what it needs, then its name.
        for needed in &self.needed {
            w.write_dynamic_string(elf::DT_NEEDED, *needed)?;
        }
        w.write_dynamic_string(elf::DT_SONAME, self.soname)?;
        if let Some((tag, path)) = self.search {
            w.write_dynamic_string(tag, path)?;
        }
        w.write_dynamic(elf::DT_GNU_HASH, o.gnu_hash)?;
        w.write_dynamic(elf::DT_STRTAB, o.dynstr)?;
        w.write_dynamic(elf::DT_SYMTAB, o.dynsym)?;
        w.write_dynamic(elf::DT_STRSZ, w.dynstr_len().into())?;
        w.write_dynamic(elf::DT_SYMENT, 24)?;
        if self.versioned() {
            w.write_dynamic(elf::DT_VERSYM, o.versym)?;
        }
        if self.version.is_some() {
            w.write_dynamic(elf::DT_VERDEF, o.verdef)?;
            w.write_dynamic(elf::DT_VERDEFNUM, 2)?;
        }
        if !self.files.is_empty() {
            w.write_dynamic(elf::DT_VERNEED, o.verneed)?;
            w.write_dynamic(elf::DT_VERNEEDNUM, self.files.len() as u64)?;
        }
        w.write_dynamic(elf::DT_NULL, 0)
    }
}

impl Layout {
    /// The section headers, for `readelf` and debuggers (the loader reads
    /// only the segments).
    fn write_section_headers(&self, w: &mut Writer, text_len: u64) {
        let o = &self.offsets;
        w.write_null_section_header();
        w.write_gnu_hash_section_header(o.gnu_hash);
        w.write_dynsym_section_header(o.dynsym, 1);
        w.write_dynstr_section_header(o.dynstr);
        w.write_gnu_versym_section_header(o.versym);
        w.write_gnu_verdef_section_header(o.verdef);
        w.write_gnu_verneed_section_header(o.verneed);
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(self.text_name)),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: elf::SHF_ALLOC | elf::SHF_EXECINSTR,
            sh_addr: o.text,
            sh_offset: o.text,
            sh_size: text_len,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 16,
            sh_entsize: 0,
        });
        w.write_dynamic_section_header(o.dynamic + PAGE);
        w.write_shstrtab_section_header();
    }
}
