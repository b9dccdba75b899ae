//! Real ELF for the tests, built by `cc`: the shapes of shared object
//! the tests build.

use std::fs;
use std::path::Path;

/// A shared object built by `cc` from C source `src`, named `soname`,
/// needing `deps` (real ELF: its symbols are the source's).
pub fn cc_source(out: &Path, soname: &str, src: &str, deps: &[&Path]) {
    fs::create_dir_all(out.parent().expect("a file in a directory")).unwrap();
    let c = out.with_extension("fixture.c");
    fs::write(&c, src).unwrap();
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&c)
        .arg(format!("-Wl,-soname,{soname}"))
        .arg("-Wl,--no-as-needed")
        .args(deps)
        .status()
        .expect("cc is installed");
    assert!(status.success(), "cc failed for {}", out.display());
    fs::remove_file(&c).unwrap();
}

/// Build a real shared object with `cc`: SONAME `soname`, DT_NEEDED on
/// each of `deps` (linked by path, so their own SONAMEs are recorded), and
/// `rpath` as DT_RPATH (`runpath: false`) or DT_RUNPATH (`runpath: true`).
pub fn cc_shared(out: &Path, soname: &str, deps: &[&Path], rpath: Option<&str>, runpath: bool) {
    if let Some(dir) = out.parent() {
        fs::create_dir_all(dir).unwrap();
    }
    let src = out.with_extension("fixture.c");
    let symbol: String = soname
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    fs::write(
        &src,
        format!("int envhook_fixture_{symbol}(void) {{ return 42; }}\n"),
    )
    .unwrap();
    let mut cmd = std::process::Command::new("cc");
    cmd.args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&src)
        .arg(format!("-Wl,-soname,{soname}"));
    if let Some(r) = rpath {
        cmd.arg(if runpath {
            "-Wl,--enable-new-dtags"
        } else {
            "-Wl,--disable-new-dtags"
        });
        cmd.arg(format!("-Wl,-rpath,{r}"));
    }
    cmd.arg("-Wl,--no-as-needed");
    cmd.args(deps);
    let status = cmd.status().expect("cc is installed (CI installs gcc)");
    assert!(status.success(), "cc failed for {}", out.display());
    fs::remove_file(&src).unwrap();
}

/// Build a real shared object with `cc` from `src`: its soname, the
/// libraries it links by path, a RUNPATH, and a version script naming
/// the version node every symbol gets (as NVIDIA's libraries do:
/// `libnvJitLink.so.12 { global: *; }`).
pub fn cc_lib(
    out: &Path,
    soname: &str,
    src: &str,
    deps: &[&Path],
    runpath: Option<&str>,
    node: Option<&str>,
) {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let c = out.with_extension("fixture.c");
    std::fs::write(&c, src).unwrap();
    let mut cmd = std::process::Command::new("cc");
    cmd.args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&c)
        .arg(format!("-Wl,-soname,{soname}"))
        .arg("-Wl,--no-as-needed");
    if let Some(r) = runpath {
        cmd.args(["-Wl,--enable-new-dtags", &format!("-Wl,-rpath,{r}")]);
    }
    let map = out.with_extension("fixture.map");
    if let Some(node) = node {
        std::fs::write(&map, format!("{node} {{ global: *; }};\n")).unwrap();
        cmd.arg(format!("-Wl,--version-script={}", map.display()));
    }
    let status = cmd.args(deps).status().expect("cc is installed");
    assert!(status.success(), "cc failed for {}", out.display());
    let _ = std::fs::remove_file(&c);
    let _ = std::fs::remove_file(&map);
}

/// `cc -shared -nostdlib` of `code` into `dir/name`.
pub fn cc_nostdlib(dir: &Path, name: &str, code: &str, args: &[String]) -> std::path::PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, code).unwrap();
    let out = dir.join(name);
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-nostdlib", "-o"])
        .arg(&out)
        .arg(&src)
        .args(args)
        .status()
        .expect("cc is installed (CI installs gcc)");
    assert!(status.success(), "cc {name}");
    out
}
