//! Real ELF for the tests, built by `cc`: every call of the compiler the
//! tests make is here, so an object's shape is chosen by arguments, not by
//! another copy of the command line, and a missing `cc` fails the same way
//! everywhere.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a missing compiler fails with.
const NO_CC: &str = "cc runs: apt-get install gcc (scripts/test installs it)";

/// A shared object built by `cc` from C source `src`, named `soname`,
/// needing `deps` (real ELF: its symbols are the source's).
pub fn cc_source(out: &Path, soname: &str, src: &str, deps: &[&Path]) {
    shared(out, soname, src, deps, None, None);
}

/// Build a real shared object with `cc`: SONAME `soname`, DT_NEEDED on
/// each of `deps` (linked by path, so their own SONAMEs are recorded), and
/// `rpath` as DT_RPATH (`runpath: false`) or DT_RUNPATH (`runpath: true`).
pub fn cc_shared(out: &Path, soname: &str, deps: &[&Path], rpath: Option<&str>, runpath: bool) {
    let symbol: String = soname
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let src = format!("int envhook_fixture_{symbol}(void) {{ return 42; }}\n");
    shared(out, soname, &src, deps, rpath.map(|r| (r, runpath)), None);
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
    shared(out, soname, src, deps, runpath.map(|r| (r, true)), node);
}

/// The one shared-object command line: `rpath` is (path, as DT_RUNPATH
/// rather than DT_RPATH); `--no-as-needed` keeps a DT_NEEDED on every dep
/// even where no symbol of it is used, as the tests' objects use none.
fn shared(
    out: &Path,
    soname: &str,
    src: &str,
    deps: &[&Path],
    rpath: Option<(&str, bool)>,
    node: Option<&str>,
) {
    fs::create_dir_all(out.parent().expect("a file in a directory")).unwrap();
    let c = out.with_extension("fixture.c");
    fs::write(&c, src).unwrap();
    let mut cmd = Command::new("cc");
    cmd.args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&c)
        .arg(format!("-Wl,-soname,{soname}"))
        .arg("-Wl,--no-as-needed");
    if let Some((r, runpath)) = rpath {
        cmd.arg(if runpath {
            "-Wl,--enable-new-dtags"
        } else {
            "-Wl,--disable-new-dtags"
        });
        cmd.arg(format!("-Wl,-rpath,{r}"));
    }
    let map = out.with_extension("fixture.map");
    if let Some(node) = node {
        fs::write(&map, format!("{node} {{ global: *; }};\n")).unwrap();
        cmd.arg(format!("-Wl,--version-script={}", map.display()));
    }
    let status = cmd.args(deps).status().expect(NO_CC);
    assert!(status.success(), "cc failed for {}", out.display());
    fs::remove_file(&c).unwrap();
    if node.is_some() {
        fs::remove_file(&map).unwrap();
    }
}

/// `cc -shared -nostdlib` of `code` into `dir/name`, with `args` (version
/// scripts, libraries) as given: the objects `tests/it/demo.rs` holds
/// `demo::elf`'s own against.
pub fn cc_nostdlib(dir: &Path, name: &str, code: &str, args: &[String]) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    fs::write(&src, code).unwrap();
    let out = dir.join(name);
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-nostdlib", "-o"])
        .arg(&out)
        .arg(&src)
        .args(args)
        .status()
        .expect(NO_CC);
    assert!(status.success(), "cc {name}");
    out
}

/// A program built by `cc` from C source `src` into `out`, with `args`
/// (an RPATH, say) as given.
pub fn cc_program(out: &Path, src: &str, args: &[&str]) {
    let c = out.with_extension("fixture.c");
    fs::write(&c, src).unwrap();
    let status = Command::new("cc")
        .arg("-o")
        .arg(out)
        .arg(&c)
        .args(args)
        .status()
        .expect(NO_CC);
    assert!(status.success(), "cc failed for {}", out.display());
    fs::remove_file(&c).unwrap();
}
