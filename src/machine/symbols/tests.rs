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
        .needs(&|f| f.starts_with("libnvJitLink"))
        .unwrap();
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
    assert_eq!(hash::sysv_hash(b"printf"), 0x077905a6);
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
    let mut all = t.undefined(&|_| true).unwrap();
    all.sort();
    assert!(all.contains(&"_ZN3c104funcEv".to_string()), "{all:?}");
    assert!(all.contains(&"other".to_string()));
    assert!(!all.contains(&"maybe".to_string()));
    assert_eq!(
        t.undefined(&|n| n.starts_with("_ZN3c10")).unwrap(),
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
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/fixture.so");
    let mut bytes = std::fs::read(real).unwrap();
    // Every table offset pointing past the end.
    for cut in [bytes.len() / 2, bytes.len() - 40] {
        let g = t.path().join(format!("cut{cut}.so"));
        std::fs::write(&g, &bytes[..cut]).unwrap();
        if let Ok(tables) = open(&g, &count) {
            assert!(tables.needs(&|_| true).unwrap_or_default().is_empty());
            let _ = tables.defines("x", Some("y"));
        }
    }
    for b in bytes.iter_mut().skip(64) {
        *b = 0xff;
    }
    let g = t.path().join("ff.so");
    std::fs::write(&g, &bytes).unwrap();
    if let Ok(tables) = open(&g, &count) {
        assert!(tables.needs(&|_| true).unwrap_or_default().is_empty());
        let _ = tables.defines("x", None);
    }
}
