//! The wheels `scripts/build-wheels DIR` builds, as a pip user gets them:
//! the binary's glibc bound, an install with `pip install --no-index` into a
//! fresh virtual environment, the installed `envhook` laying out the demo
//! (`envhook demo`, with nothing but the binary) and run over it (show,
//! audit, install, an activation round trip in bash), and the plugin wheel's
//! entry point and its way to the binary.
//!
//! Opt-in, because building the wheels is a release build through zig
//! (minutes): `scripts/build-wheels DIR && ENVHOOK_WHEELS=DIR cargo test
//! --test it wheels::`. CI's `.ci/run` does exactly that.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The wheel directory, or `None` (and a note) when the tier is not asked for.
fn wheels() -> Option<PathBuf> {
    let dir = crate::support::opt_in(
        "ENVHOOK_WHEELS",
        "set ENVHOOK_WHEELS=DIR after scripts/build-wheels DIR; CI's .ci/run does",
    )?;
    let dir = std::path::absolute(dir).unwrap();
    assert!(
        dir.is_dir(),
        "ENVHOOK_WHEELS={}: not a directory",
        dir.display()
    );
    Some(dir)
}

/// The one wheel in `dir` whose file name starts with `stem-VERSION-`.
fn wheel(dir: &Path, stem: &str) -> PathBuf {
    let start = format!("{stem}-{VERSION}-");
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(&start) && name.ends_with(".whl")
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{}: want one {start}*.whl (the wheel's version is Cargo.toml's), found {found:?}",
        dir.display()
    );
    found.into_iter().next().unwrap()
}

fn ok(out: Output, what: &str) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// `(major, minor)` of every `GLIBC_x.y[.z]` symbol version in `objdump -T`.
fn glibc_versions(dynsyms: &str) -> Vec<(u32, u32)> {
    dynsyms
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            let mut parts = v.split('.').map(|p| p.parse::<u32>());
            Some((parts.next()?.ok()?, parts.next()?.ok()?))
        })
        .collect()
}

#[test]
fn glibc_versions_are_read_from_objdump_lines() {
    let text = "0000000000000000      DF *UND*\t0000000000000000 (GLIBC_2.2.5) memcpy\n\
                0000000000000000      DF *UND*\t0000000000000000  GLIBC_2.17  clock_gettime\n\
                0000000000000000  w   D  *UND*\t0000000000000000  GLIBC_PRIVATE __x\n";
    assert_eq!(glibc_versions(text), vec![(2, 2), (2, 17)]);
}

/// The binary inside the `envhook` wheel needs no glibc newer than 2.17
/// (CentOS 7, RHEL/Rocky 8, Ubuntu 20.04) and no library outside the
/// manylinux2014 set; the wheel says so in its tag.
#[test]
fn the_wheels_binary_needs_glibc_2_17_at_most() {
    let Some(dir) = wheels() else { return };
    let whl = wheel(&dir, "envhook");
    let name = whl.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.contains("manylinux_2_17_x86_64"), "{name}");
    let tmp = tempfile::tempdir().unwrap();
    ok(
        Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(&whl)
            .arg(tmp.path())
            .output()
            .unwrap(),
        "unzip",
    );
    let binary = tmp
        .path()
        .join(format!("envhook-{VERSION}.data/scripts/envhook"));
    assert!(binary.is_file(), "{name}: no {}", binary.display());
    let dynsyms = ok(
        Command::new("objdump")
            .arg("-T")
            .arg(&binary)
            .output()
            .unwrap(),
        "objdump -T",
    );
    let versions = glibc_versions(&dynsyms);
    assert!(!versions.is_empty(), "no GLIBC_ versions:\n{dynsyms}");
    let newest = versions.iter().max().unwrap();
    assert!(
        *newest <= (2, 17),
        "{name}: the binary needs GLIBC_{}.{}",
        newest.0,
        newest.1
    );
    // The manylinux2014 policy's libraries (PEP 599); anything else would
    // be missing on the machines the tag promises.
    let allowed = [
        "libc.so.6",
        "libm.so.6",
        "libdl.so.2",
        "librt.so.1",
        "libpthread.so.0",
        "libgcc_s.so.1",
        "ld-linux-x86-64.so.2",
    ];
    let headers = ok(
        Command::new("objdump")
            .arg("-p")
            .arg(&binary)
            .output()
            .unwrap(),
        "objdump -p",
    );
    let needed: Vec<&str> = headers
        .lines()
        .filter_map(|l| l.trim().strip_prefix("NEEDED"))
        .map(str::trim)
        .collect();
    assert!(!needed.is_empty(), "{headers}");
    for lib in &needed {
        assert!(allowed.contains(lib), "{name}: needs {lib} ({needed:?})");
    }
}

/// A fresh virtual environment with `conda-envhook` installed from the wheel
/// directory alone, which brings `envhook` as its dependency. Shared by the
/// tests below; rebuilt on every run.
fn venv(dir: &Path) -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wheels-venv");
        let _ = std::fs::remove_dir_all(&venv);
        ok(
            Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .output()
                .unwrap(),
            "python3 -m venv",
        );
        ok(
            Command::new(venv.join("bin/python"))
                .args(["-m", "pip", "install", "--no-index", "--find-links"])
                .arg(dir)
                .args(["--disable-pip-version-check", "conda-envhook"])
                .output()
                .unwrap(),
            "pip install --no-index conda-envhook",
        );
        venv
    })
}

/// Runs `script` in bash with the venv's `bin` first on PATH and HOME in the
/// demo, as a user who ran `pip install envhook` would.
fn user_shell(venv: &Path, demo: &Path, script: &str) -> Output {
    Command::new("bash")
        .args(["--noprofile", "--norc", "-euc", script])
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", venv.join("bin").display()),
        )
        .env("HOME", demo.join("home"))
        .env("DEMO", demo)
        .output()
        .unwrap()
}

/// `pip install --no-index` of both wheels, then the installed `envhook`
/// alone: its version, the demo it lays out and `show` on it, an audit, an
/// install, and an activation round trip in bash that restores an
/// inherited `LD_LIBRARY_PATH` exactly.
#[test]
fn the_wheels_install_without_an_index_and_run_over_the_demo() {
    let Some(dir) = wheels() else { return };
    let venv = venv(&dir);
    let listed = ok(
        Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "list", "--format", "freeze"])
            .output()
            .unwrap(),
        "pip list",
    );
    for dist in ["envhook", "conda-envhook"] {
        assert!(
            listed.lines().any(|l| l == format!("{dist}=={VERSION}")),
            "{dist} {VERSION} not installed:\n{listed}"
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let demo = tmp.path().join("demo");
    let out = user_shell(
        venv,
        &demo,
        r#"
        test "$(command -v envhook)" = "$VIRTUAL_BIN/envhook"
        envhook --version
        # The demo, from the wheel's binary alone (no compiler, no cargo).
        envhook demo "$DEMO" > "$DEMO.txt"
        envhook show -p "$DEMO/miniconda3/envs/paddle" > "$DEMO.show.txt"
        # Exit 1: the demo's environments have findings, by design.
        rc=0; envhook audit --driver-version 535.104.05 --gpu A100 > "$DEMO/audit.txt" || rc=$?
        test "$rc" = 1
        env="$DEMO/miniconda3/envs/paddle"
        rc=0; envhook install -p "$env" || rc=$?
        test "$rc" -le 1
        export LD_LIBRARY_PATH=/opt/site/lib
        CONDA_PREFIX="$env"; export CONDA_PREFIX
        . "$env/etc/conda/activate.d/envhook.sh"
        echo "active=$LD_LIBRARY_PATH"
        . "$env/etc/conda/deactivate.d/envhook.sh"
        echo "after=$LD_LIBRARY_PATH"
        "#
        .replace("$VIRTUAL_BIN", &venv.join("bin").display().to_string())
        .as_str(),
    );
    let stdout = ok(out, "the installed envhook over the demo");
    assert!(
        stdout.starts_with(&format!("envhook {VERSION} ")),
        "{stdout}"
    );
    let written = std::fs::read_to_string(tmp.path().join("demo.txt")).unwrap();
    assert!(
        written.starts_with(&format!("demo installation written to {}", demo.display())),
        "{written}"
    );
    let show = std::fs::read_to_string(tmp.path().join("demo.show.txt")).unwrap();
    assert!(
        show.contains("PaddlePaddle   paddlepaddle-gpu 2.5.2.post116 (pip)"),
        "{show}"
    );
    let audit = std::fs::read_to_string(demo.join("audit.txt")).unwrap();
    for env in ["paddle", "torch", "wheels", "cpu"] {
        assert!(audit.contains(env), "audit has no {env}:\n{audit}");
    }
    let active = stdout
        .lines()
        .find_map(|l| l.strip_prefix("active="))
        .unwrap();
    let paddle = demo.join("miniconda3/envs/paddle");
    assert!(
        active.starts_with(&paddle.display().to_string()) && active.ends_with(":/opt/site/lib"),
        "{active}"
    );
    assert!(
        stdout.lines().any(|l| l == "after=/opt/site/lib"),
        "{stdout}"
    );
}

/// The plugin wheel: conda finds it through its `conda` entry point, it
/// requires this very `envhook`, and it finds the binary beside the Python
/// that runs conda with nothing on PATH (`/opt/conda/bin/conda ...` from a
/// shell that never activated base). conda itself is not on PyPI; the
/// plugin's test stand-in provides the modules it imports.
#[test]
fn the_plugin_wheel_registers_and_finds_the_binary_beside_its_python() {
    let Some(dir) = wheels() else { return };
    let venv = venv(&dir);
    let conftest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/conda-plugin/tests/conftest.py");
    let script = r#"
import importlib.metadata as md, runpy, sys
runpy.run_path(sys.argv[1])  # the stand-in for conda's plugin API
eps = [ep for ep in md.entry_points(group="conda") if ep.name == "conda-envhook"]
assert [ep.value for ep in eps] == ["conda_envhook.plugin"], eps
assert md.requires("conda-envhook") == ["envhook==" + sys.argv[2]], md.requires("conda-envhook")
plugin = eps[0].load()
print("binary=" + str(plugin.envhook_binary()))
print("hooks=" + ",".join(sorted(n for n in dir(plugin) if n.startswith("conda_"))))
sys.exit(plugin.envhook_subcommand(("--version",)))
"#;
    let out = Command::new(venv.join("bin/python"))
        .args(["-c", script])
        .arg(&conftest)
        .arg(VERSION)
        .env_clear()
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let stdout = ok(out, "the plugin in the venv");
    assert!(
        stdout.contains(&format!("binary={}", venv.join("bin/envhook").display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("hooks=conda_health_checks,conda_post_commands,conda_subcommands"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("envhook {VERSION} ")), "{stdout}");
}

/// `pip install conda-envhook` into a Python without conda succeeds (a
/// wheel runs nothing when installed) and nothing loads the plugin there:
/// `python -m conda_envhook` says so, and how to install it where conda
/// runs, instead of leaving the user to find out.
#[test]
fn the_plugin_wheel_without_conda_says_where_it_belongs() {
    let Some(dir) = wheels() else { return };
    let venv = venv(&dir);
    let base = tempfile::tempdir().unwrap();
    let out = Command::new(venv.join("bin/python"))
        .args(["-m", "conda_envhook"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("CONDA_EXE", base.path().join("bin/conda"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("has no conda with plugins"), "{err}");
    assert!(
        err.contains(&format!(
            "{} -m pip install conda-envhook",
            base.path().join("bin/python").display()
        )),
        "{err}"
    );
    assert!(!err.contains("Traceback"), "{err}");
}
