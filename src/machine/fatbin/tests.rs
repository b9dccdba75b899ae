//! Tests of the fatbin reader on real nvcc-built fixtures
//! (`tests/fixtures/fatbin/`, see `build.sh` there).
use super::*;
use std::io::Write;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fatbin")
        .join(name)
}

fn fatbins(name: &str) -> Fatbins {
    read(&fixture(name)).unwrap().unwrap()
}

/// The entries named as `cuobjdump` 13.5 lists them: an arch-specific
/// target with its `a`, a family cubin without its `f` (`sm_100`), a
/// family PTX with it (`sm_100f`).
fn listed(f: &Fatbins, kind: Kind) -> BTreeSet<String> {
    f.entries
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| match (e.variant, e.kind) {
            (Variant::ArchSpecific, _) => format!("sm_{}a", e.sm),
            (Variant::FamilySpecific, Kind::Ptx) => format!("sm_{}f", e.sm),
            _ => format!("sm_{}", e.sm),
        })
        .collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The lists in the header of tests/fixtures/fatbin/build.sh, as
/// `cuobjdump --list-elf --list-ptx` printed them.
#[test]
fn architectures_match_cuobjdump() {
    #[rustfmt::skip]
    let cases: &[(&str, &[&str], &[&str], u64)] = &[
        ("sm70_sm80.so", &["sm_70", "sm_80"], &[], 2),
        ("sm80_compute80.so", &["sm_80"], &["sm_80"], 1),
        ("compute75.so", &[], &["sm_75"], 1),
        ("sm90.so", &["sm_90"], &[], 1),
        ("lz4_sm86_compute86.so", &["sm_86"], &["sm_86"], 1),
        ("two_units.so", &["sm_75"], &["sm_86"], 2),
        ("cu13_variants.so",
         &["sm_90a", "sm_100a", "sm_100", "sm_120"],
         &["sm_90a", "sm_100f", "sm_120"], 1),
    ];
    for &(name, elf, ptx, containers) in cases {
        let f = fatbins(name);
        assert_eq!(listed(&f, Kind::Sass), names(elf), "{name} cubins");
        assert_eq!(listed(&f, Kind::Ptx), names(ptx), "{name} PTX");
        assert_eq!(f.containers, containers, "{name} containers");
        assert!(f.complete, "{name}");
    }
    let f = fatbins("cu13_variants.so");
    assert_eq!(f.sass(), BTreeSet::from([90, 100, 120]));
    assert_eq!(f.ptx(), BTreeSet::from([90, 100, 120]));
    let named: Vec<String> = f.entries.iter().map(FatbinEntry::name).collect();
    assert_eq!(
        named,
        [
            "sm_90a",
            "sm_100f",
            "sm_100a",
            "sm_120",
            "compute_90a",
            "compute_100f",
            "compute_120"
        ]
    );
}

/// fatbinary compresses PTX by default and cubins only with
/// `-compress-all` (its `--help`); 11.8 uses LZ4, 13.5 zstd.
#[test]
fn compression_flags() {
    let all = |name: &str, kind: Kind| -> Vec<bool> {
        let f = fatbins(name);
        f.entries
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.compressed)
            .collect()
    };
    assert_eq!(all("sm80_compute80.so", Kind::Sass), [false]);
    assert_eq!(all("sm80_compute80.so", Kind::Ptx), [true]);
    assert_eq!(all("lz4_sm86_compute86.so", Kind::Sass), [true]);
    assert_eq!(all("lz4_sm86_compute86.so", Kind::Ptx), [true]);
    assert_eq!(all("cu13_variants.so", Kind::Sass), [false; 4]);
    assert_eq!(all("cu13_variants.so", Kind::Ptx), [true; 3]);
}

fn verdict(f: &Fatbins, major: u32, minor: u32) -> String {
    match f.runs_on(major, minor) {
        Verdict::Sass(e) | Verdict::Ptx(e) => e.name(),
        Verdict::NoImage => "none".into(),
    }
}

#[test]
fn verdicts_follow_cuda_compatibility() {
    let f = fatbins("sm70_sm80.so");
    // Binary compatibility within a major only.
    assert_eq!(verdict(&f, 8, 0), "sm_80");
    assert_eq!(verdict(&f, 8, 6), "sm_80");
    assert_eq!(verdict(&f, 8, 9), "sm_80");
    assert_eq!(verdict(&f, 7, 5), "sm_70");
    assert_eq!(verdict(&f, 9, 0), "none");
    assert_eq!(verdict(&f, 6, 1), "none");

    let f = fatbins("sm80_compute80.so");
    assert!(matches!(f.runs_on(8, 6), Verdict::Sass(_)));
    // No sm_90 cubin, but compute_80 PTX JIT-compiles for 9.0 and on.
    assert!(matches!(f.runs_on(9, 0), Verdict::Ptx(_)));
    assert_eq!(verdict(&f, 9, 0), "compute_80");
    assert_eq!(verdict(&f, 12, 0), "compute_80");
    assert_eq!(verdict(&f, 7, 5), "none");

    let f = fatbins("compute75.so");
    assert_eq!(verdict(&f, 7, 5), "compute_75");
    assert_eq!(verdict(&f, 12, 1), "compute_75");
    assert_eq!(verdict(&f, 7, 2), "none");

    let f = fatbins("sm90.so");
    assert_eq!(verdict(&f, 9, 0), "sm_90");
    assert_eq!(verdict(&f, 10, 0), "none");
    assert_eq!(verdict(&f, 8, 9), "none");

    let f = fatbins("two_units.so");
    assert_eq!(verdict(&f, 7, 5), "sm_75");
    assert_eq!(verdict(&f, 8, 0), "none");
    assert_eq!(verdict(&f, 8, 6), "compute_86");

    let f = fatbins("cu13_variants.so");
    assert_eq!(verdict(&f, 9, 0), "sm_90a");
    // Both sm_100a and sm_100f run on 10.0: the portable one is named.
    assert_eq!(verdict(&f, 10, 0), "sm_100f");
    // sm_100a is 10.0 only; sm_100f covers its family.
    assert_eq!(verdict(&f, 10, 3), "sm_100f");
    assert_eq!(verdict(&f, 12, 0), "sm_120");
    assert_eq!(verdict(&f, 12, 1), "sm_120");
    // compute_90a is 9.0 only, compute_100f is 10.x only, compute_120
    // needs 12.0 or newer: nothing for 11.0, PTX for 13.0.
    assert_eq!(verdict(&f, 11, 0), "none");
    assert_eq!(verdict(&f, 13, 0), "compute_120");
    assert_eq!(verdict(&f, 8, 9), "none");
}

#[test]
fn arch_and_family_ptx_rules() {
    let only = |variant| Fatbins {
        entries: vec![FatbinEntry {
            kind: Kind::Ptx,
            sm: 100,
            variant,
            compressed: false,
        }],
        containers: 1,
        complete: true,
        bytes_read: 0,
    };
    let a = only(Variant::ArchSpecific);
    assert_eq!(verdict(&a, 10, 0), "compute_100a");
    assert_eq!(verdict(&a, 10, 3), "none");
    assert_eq!(verdict(&a, 12, 0), "none");
    let f = only(Variant::FamilySpecific);
    assert_eq!(verdict(&f, 10, 3), "compute_100f");
    assert_eq!(verdict(&f, 12, 0), "none");
    assert_eq!(verdict(&f, 9, 0), "none");
    let g = only(Variant::Generic);
    assert_eq!(verdict(&g, 12, 1), "compute_100");
    assert_eq!(verdict(&g, 9, 0), "none");
}

#[test]
fn no_fatbin_is_none() {
    assert_eq!(read(&fixture("no_fatbin.so")), Ok(None));
    // Not even an ELF file: an error, not "no fatbin".
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    assert!(read(&here).unwrap_err().contains("not a 64-bit ELF"));
}

/// Only headers are read: a few kilobytes of a 10 to 30 kB object.
#[test]
fn reads_only_headers() {
    for name in [
        "sm70_sm80.so",
        "sm80_compute80.so",
        "compute75.so",
        "sm90.so",
        "lz4_sm86_compute86.so",
        "two_units.so",
        "cu13_variants.so",
        "no_fatbin.so",
    ] {
        let path = fixture(name);
        let len = std::fs::metadata(&path).unwrap().len();
        let read = match read(&path).unwrap() {
            Some(f) => f.bytes_read,
            None => 0,
        };
        assert!(read <= 4096, "{name}: {read} bytes read");
        assert!(
            read < len / 2 || name == "no_fatbin.so",
            "{name}: {read} of {len}"
        );
    }
}

/// Where `.nv_fatbin`'s section header is in `bytes`, and the section's
/// offset and size.
fn nv_fatbin_header(bytes: &[u8]) -> (usize, u64, u64) {
    use object::read::elf::FileHeader as _;
    let header = elf::FileHeader64::<object::Endianness>::parse(bytes).unwrap();
    let endian = header.endian().unwrap();
    let sections = header.section_headers(endian, bytes).unwrap();
    let names = header.section_strings(endian, bytes, sections).unwrap();
    let index = sections
        .iter()
        .position(|s| s.name(endian, names).unwrap() == SECTION)
        .unwrap();
    let at = header.e_shoff(endian) as usize + index * 64;
    let s = &sections[index];
    (at, s.sh_offset(endian), s.sh_size(endian))
}

/// `fixture` with its `.nv_fatbin` moved to `section` appended at the
/// end (8-aligned), written to `dir`; the old section is left unused.
fn with_section(dir: &Path, fixture_name: &str, section: &[u8]) -> PathBuf {
    let mut bytes = std::fs::read(fixture(fixture_name)).unwrap();
    let (at, _, _) = nv_fatbin_header(&bytes);
    bytes.resize(bytes.len().next_multiple_of(8), 0);
    let offset = bytes.len() as u64;
    bytes[at + 0x18..at + 0x20].copy_from_slice(&offset.to_le_bytes());
    bytes[at + 0x20..at + 0x28].copy_from_slice(&(section.len() as u64).to_le_bytes());
    bytes.extend_from_slice(section);
    let path = dir.join(format!("patched-{}.so", section.len()));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn container(entries: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = entries.concat();
    let mut c = MAGIC.to_le_bytes().to_vec();
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&16u16.to_le_bytes());
    c.extend_from_slice(&(body.len() as u64).to_le_bytes());
    c.extend_from_slice(&body);
    c
}

/// A 64-byte entry header as nvcc 11.8 writes it (64-bit, Linux),
/// followed by `payload` zero bytes when `with_payload`.
fn entry(kind: u16, sm: u32, flags: u64, payload: u64, with_payload: bool) -> Vec<u8> {
    let mut e = vec![0u8; 64];
    e[0..2].copy_from_slice(&kind.to_le_bytes());
    e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
    e[4..8].copy_from_slice(&64u32.to_le_bytes());
    e[8..16].copy_from_slice(&payload.to_le_bytes());
    e[0x1c..0x20].copy_from_slice(&sm.to_le_bytes());
    e[0x28..0x30].copy_from_slice(&(flags | 0x11).to_le_bytes());
    if with_payload {
        e.resize(64 + payload as usize, 0);
    }
    e
}

/// A payload declared 1 GiB large, stored as a sparse hole, is skipped
/// by its size: the read stays at a few kilobytes.
#[test]
fn gigabyte_payload_is_never_read() {
    const GIB: u64 = 1 << 30;
    let dir = tempfile::tempdir().unwrap();
    let second = entry(1, 86, 0x2000, 8, true);
    // The container's entries: a cubin with a 1 GiB payload, then PTX.
    let mut section = MAGIC.to_le_bytes().to_vec();
    section.extend_from_slice(&1u16.to_le_bytes());
    section.extend_from_slice(&16u16.to_le_bytes());
    section.extend_from_slice(&(64 + GIB + second.len() as u64).to_le_bytes());
    section.extend_from_slice(&entry(2, 80, 0, GIB, false));
    let declared = section.len() as u64 + GIB + second.len() as u64;
    let path = with_section(dir.path(), "sm90.so", &section);
    // Patch the size to the declared one, then leave the hole and
    // write the second entry after it.
    let mut bytes = std::fs::read(&path).unwrap();
    let (at, offset, _) = nv_fatbin_header(&bytes);
    bytes[at + 0x20..at + 0x28].copy_from_slice(&declared.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.set_len(offset + section.len() as u64 + GIB).unwrap();
    file.write_all(&second).unwrap();
    drop(file);
    assert!(std::fs::metadata(&path).unwrap().len() > GIB);

    let f = read(&path).unwrap().unwrap();
    assert_eq!(f.sass(), BTreeSet::from([80]));
    assert_eq!(f.ptx(), BTreeSet::from([86]));
    let seen: Vec<(String, bool)> = f.entries.iter().map(|e| (e.name(), e.compressed)).collect();
    assert_eq!(seen, [("sm_80".into(), false), ("compute_86".into(), true)]);
    assert!(f.bytes_read <= 4096, "{} bytes read", f.bytes_read);
}

#[test]
fn padding_between_containers_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut section = container(&[entry(2, 75, 0, 16, true)]);
    section.extend_from_slice(&[0; 8]);
    section.extend_from_slice(&container(&[entry(2, 89, 0x10_0000, 8, true)]));
    section.extend_from_slice(&[0; 8]);
    let f = read(&with_section(dir.path(), "sm90.so", &section))
        .unwrap()
        .unwrap();
    assert_eq!(f.containers, 2);
    let named: Vec<String> = f.entries.iter().map(FatbinEntry::name).collect();
    assert_eq!(named, ["sm_75", "sm_89a"]);
}

/// An extended section count (`e_shnum` 0, section 0's size) of 2^24,
/// their headers a 1 GiB sparse hole: refused before any is read (the
/// reader read the whole gigabyte, #38).
#[test]
fn gigabyte_of_section_headers_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(fixture("sm90.so")).unwrap();
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap());
    bytes[0x3c..0x3e].copy_from_slice(&0u16.to_le_bytes());
    let size_0 = shoff as usize + 0x20;
    bytes[size_0..size_0 + 8].copy_from_slice(&(1u64 << 24).to_le_bytes());
    let path = dir.path().join("sections.so");
    std::fs::write(&path, &bytes).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(shoff + (64 << 24)).unwrap();
    let err = read(&path).unwrap_err();
    assert!(err.contains("16777216 section headers"), "{err}");
}

#[test]
fn corrupt_headers_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = container(&[entry(2, 80, 0, 8, true)]);
    let err = |section: &[u8]| read(&with_section(dir.path(), "sm90.so", section)).unwrap_err();
    let mut bad_magic = good.clone();
    bad_magic[0] ^= 0xff;
    assert!(err(&bad_magic).contains("no fatbin magic"));
    let mut bad_version = good.clone();
    bad_version[4] = 2;
    assert!(err(&bad_version).contains("fatbin version 2"));
    let mut long_container = good.clone();
    long_container[8] += 8;
    assert!(err(&long_container).contains("overruns its section"));
    let mut long_entry = good.clone();
    long_entry[16 + 8] += 8;
    assert!(err(&long_entry).contains("overruns its container"));
    let mut huge_header = good.clone();
    huge_header[16 + 6] = 1; // header size 64 + 65,536
    assert!(err(&huge_header).contains("claims 65600 bytes"));
    let mut small_header = good.clone();
    small_header[6] = 8;
    assert!(err(&small_header).contains("claims 8 bytes"));
    let mut stray = good.clone();
    stray.extend_from_slice(&[1, 2, 3]);
    assert!(err(&stray).contains("stray bytes"));
}

#[test]
fn truncated_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("cu13_variants.so")).unwrap();
    let (at, offset, size) = nv_fatbin_header(&bytes);
    let path = dir.path().join("t.so");
    // Cut inside .nv_fatbin: the section headers at the end go too.
    std::fs::write(&path, &bytes[..(offset + size / 2) as usize]).unwrap();
    assert!(read(&path).is_err());
    // Section headers kept, but the section claims more than the file.
    let mut long = bytes.clone();
    long[at + 0x20..at + 0x28].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    std::fs::write(&path, &long).unwrap();
    assert!(
        read(&path)
            .unwrap_err()
            .contains("past the end of the file")
    );
    std::fs::write(&path, &bytes[..40]).unwrap();
    assert!(read(&path).is_err());
}

/// Any single corrupted byte in the headers read gives an answer or an
/// error, never a panic.
#[test]
fn corrupted_bytes_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("cu13_variants.so")).unwrap();
    let (at, offset, _) = nv_fatbin_header(&bytes);
    let path = dir.path().join("c.so");
    let offset = offset as usize;
    let places = (0..64).chain(at..at + 64).chain(offset..offset + 256);
    for i in places {
        for value in [0x00, 0xff, bytes[i] ^ 0x01] {
            let mut b = bytes.clone();
            b[i] = value;
            std::fs::write(&path, &b).unwrap();
            let _ = read(&path);
        }
    }
}

/// Past the header cap the walk stops, and says so.
#[test]
fn header_cap_marks_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let mut section = container(&[entry(2, 80, 0, 0, true)]);
    let empty = container(&[]);
    for _ in 0..MAX_HEADERS {
        section.extend_from_slice(&empty);
    }
    let f = read(&with_section(dir.path(), "sm90.so", &section))
        .unwrap()
        .unwrap();
    assert!(!f.complete);
    assert_eq!(f.sass(), BTreeSet::from([80]));
    assert!(f.containers < MAX_HEADERS);
}

/// The real objects of installed frameworks, from
/// `ENVHOOK_FATBIN_OBJECTS` (paths separated by `:`). Run with
/// `cargo test --bin envhook machine::fatbin -- --ignored --nocapture`.
#[test]
#[ignore = "needs real CUDA objects named in ENVHOOK_FATBIN_OBJECTS"]
// A tool for a person at a terminal: the objects come from the test's own
// environment, and what was read is printed.
#[allow(clippy::disallowed_methods, clippy::print_stdout)]
fn real_objects() {
    let paths = std::env::var("ENVHOOK_FATBIN_OBJECTS").unwrap_or_default();
    for path in paths.split(':').filter(|p| !p.is_empty()) {
        let start = std::time::Instant::now();
        let result = read(Path::new(path));
        let elapsed = start.elapsed();
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!("{path} ({len} bytes, {elapsed:.1?})");
        match result {
            Ok(Some(f)) => {
                let sass: Vec<String> = f
                    .entries
                    .iter()
                    .filter(|e| e.kind == Kind::Sass)
                    .map(FatbinEntry::name)
                    .collect();
                let ptx: Vec<String> = f
                    .entries
                    .iter()
                    .filter(|e| e.kind == Kind::Ptx)
                    .map(FatbinEntry::name)
                    .collect();
                println!("  containers {}, complete {}", f.containers, f.complete);
                println!("  sass {}", sass.join(" "));
                println!("  ptx  {}", ptx.join(" "));
                println!("  bytes read {}", f.bytes_read);
                for (major, minor) in [(7, 5), (8, 0), (8, 6), (9, 0), (10, 0), (12, 0)] {
                    println!("  {major}.{minor}: {:?}", f.runs_on(major, minor));
                }
            }
            Ok(None) => println!("  no .nv_fatbin"),
            Err(e) => println!("  error: {e}"),
        }
    }
}
