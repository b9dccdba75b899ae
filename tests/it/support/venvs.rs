//! Running a venv's own activation scripts in real shells, and what they
//! must leave: for tests/it/venv.rs (fixture wheels) and the real-wheel
//! tier (tests/it/real_venvs.rs: a real `uv venv` and the wheel from PyPI).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The initial states of `LD_LIBRARY_PATH`: unset, empty, and a value
/// with a space and an empty element.
pub const INITS: [Option<&str>; 3] = [None, Some(""), Some("/opt/a b::/c")];

/// The shell code that prints `LD_LIBRARY_PATH` (`unset`, or `set:` and
/// the value) under `label`, and what the venv's python loads for
/// libcudart.so.12 by the loader's own account.
pub fn probe(fish: bool, label: &str, prefix: &Path) -> String {
    let python = format!("'{}/bin/python'", prefix.display());
    let maps = "-c 'import ctypes,sys\ntry:\n ctypes.CDLL(\"libcudart.so.12\")\n\
                except OSError:\n sys.exit(print(\"cudart none\"))\nprint(\"cudart \" + \
                [l.split()[-1] for l in open(\"/proc/self/maps\") if \"libcudart\" in l][0])'";
    if fish {
        format!(
            "if set -q LD_LIBRARY_PATH; printf '{label} set:%s\\n' \"$LD_LIBRARY_PATH\"; \
             else; echo '{label} unset'; end; {python} {maps}\n"
        )
    } else {
        format!(
            "if [ -n \"${{LD_LIBRARY_PATH+x}}\" ]; then printf '{label} set:%s\\n' \
             \"$LD_LIBRARY_PATH\"; else echo '{label} unset'; fi; {python} {maps}\n"
        )
    }
}

/// Run the activation cycle in `shell` from the initial state `init`:
/// stdout, with stderr required empty.
pub fn cycle(shell: &str, prefix: &Path, init: Option<&str>) -> String {
    let fish = shell == "fish";
    let (activate, setup) = match (fish, init) {
        (true, None) => ("activate.fish", "set -e LD_LIBRARY_PATH\n".to_string()),
        (true, Some(v)) => ("activate.fish", format!("set -gx LD_LIBRARY_PATH '{v}'\n")),
        (false, None) => ("activate", "set -u\nunset LD_LIBRARY_PATH\n".to_string()),
        (false, Some(v)) => (
            "activate",
            format!("set -u\nexport LD_LIBRARY_PATH='{v}'\n"),
        ),
    };
    let source = if fish { "source" } else { "." };
    let script = format!(
        "{setup}{}{source} '{p}/bin/{activate}'\n{}{source} '{p}/bin/{activate}'\n{}deactivate\n{}",
        probe(fish, "before", prefix),
        probe(fish, "active", prefix),
        probe(fish, "again", prefix),
        probe(fish, "after", prefix),
        p = prefix.display(),
    );
    let args: &[&str] = if fish {
        &["--no-config", "-c"]
    } else {
        &["-c"]
    };
    let out = Command::new(shell)
        .args(args)
        .arg(&script)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", prefix.parent().unwrap())
        .output()
        .unwrap();
    super::stdout_silent(out, shell)
}

/// What `cycle` printed must be: the state before, the venv's link
/// directory first while active (once, after a second activation too),
/// the venv's libcudart loaded while active and not before or after, and
/// the state before again, byte for byte.
pub fn assert_cycle(out: &str, prefix: &Path, cudart: &Path, init: Option<&str>, what: &str) {
    let state = |label: &str| match init {
        None => format!("{label} unset"),
        Some(v) => format!("{label} set:{v}"),
    };
    let link = prefix.join("lib/envhook/cuda").display().to_string();
    let active = match init {
        None | Some("") => link,
        Some(v) => format!("{link}:{}", v.trim_start_matches(':').replace("::", ":")),
    };
    let loaded = format!("cudart {}", cudart.display());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{what}: {out}");
    assert_eq!(lines[0], state("before"), "{what}");
    assert_eq!(lines[2], format!("active set:{active}"), "{what}");
    assert_eq!(lines[4], format!("again set:{active}"), "{what}");
    assert_eq!(lines[6], state("after"), "{what}");
    assert_eq!((lines[3], lines[5]), (&*loaded, &*loaded), "{what}");
    // Without the hook the loader finds no copy, or the machine's: never
    // the venv's.
    for i in [1, 7] {
        assert!(
            lines[i].starts_with("cudart ") && lines[i] != loaded,
            "{what}: {out}"
        );
    }
}

pub fn sha(path: &Path) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(fs::read(path).unwrap()).to_vec()
}

/// The version of the `python3` the venvs are made from, `3.X`.
pub fn python_version() -> &'static str {
    let out = Command::new("python3")
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .unwrap();
    Box::leak(
        String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .to_string()
            .into_boxed_str(),
    )
}

/// A venv made by `python3 -m venv` over a prefix holding the
/// nvidia-cuda-runtime-cu12 wheel as pip lays it out, its libcudart a real
/// ELF object: returns the prefix and the library.
pub fn venv(at: &Path) -> (PathBuf, PathBuf) {
    let mut env = super::Env::new(at);
    env.python(python_version());
    env.pip(
        super::PipDist::new("nvidia-cuda-runtime-cu12", "12.9.79").files(vec![
            super::FileSpec::File("nvidia/cuda_runtime/lib/libcudart.so.12"),
        ]),
    );
    fs::remove_dir_all(env.path("conda-meta")).unwrap();
    let cudart = env.site().join("nvidia/cuda_runtime/lib/libcudart.so.12");
    super::cc_shared(&cudart, "libcudart.so.12", &[], None, false);
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(at)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    (at.to_path_buf(), fs::canonicalize(cudart).unwrap())
}
