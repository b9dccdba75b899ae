//! Opt-in tier, with the real-wheel tier (`ENVHOOK_REAL_WHEELS=1`): a real
//! Jupyter kernel (#42 item 3). jupyter_client and ipykernel from PyPI go
//! into a venv made by `python3 -m venv` over the CUDA runtime wheel's
//! layout (its libcudart a real ELF object); `ipykernel install --prefix`
//! writes the kernelspec, `envhook install --jupyter` sets the path in it,
//! and jupyter_client's `KernelManager` starts the kernel from it, nothing
//! activated: the kernel loads the venv's libcudart (`/proc/self/maps`).
//! `envhook uninstall` gives kernel.json back byte for byte, and the
//! kernel no longer finds the library. The kernelspec `ipykernel install
//! --user` writes for it is named, and left as it is. A few MB from PyPI; `PIP_INDEX_URL`
//! as pip reads it.

use crate::support;

use std::fs;
use std::path::Path;
use std::process::Command;

use support::Sandbox;
use support::venvs::venv;

/// Start the kernel named python3 with jupyter_client, from a process
/// without `LD_LIBRARY_PATH`, and run the probe in it: where its
/// kernelspec lies, then the kernel's `LD_LIBRARY_PATH` and the libcudart
/// files it maps (or the error of loading it).
const CLIENT: &str = r#"
import sys
from jupyter_client.manager import KernelManager
km = KernelManager(kernel_name="python3")
print(km.kernel_spec.resource_dir)
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)
code = """import ctypes, os
try:
    ctypes.CDLL('libcudart.so.12')
except OSError as e:
    print('OSError', e)
print(repr(os.environ.get('LD_LIBRARY_PATH')))
print(sorted({l.rstrip('\\n').split(None, 5)[-1] for l in open('/proc/self/maps') if 'libcudart' in l}))"""
out = []
reply = kc.execute_interactive(code, timeout=120,
    output_hook=lambda m: out.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
kc.stop_channels()
km.shutdown_kernel(now=True)
assert reply["content"]["status"] == "ok", reply
sys.stdout.write("".join(out))
"#;

fn run(cmd: &mut Command) -> String {
    let out = cmd.env("PIP_NO_CACHE_DIR", "1").output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn kernel(sb: &Sandbox, python: &Path) -> String {
    run(Command::new(python)
        .args(["-c", CLIENT])
        .env_clear()
        .env("HOME", sb.home())
        .env("PATH", "/usr/bin:/bin"))
}

#[test]
fn a_real_kernel_loads_the_library_from_its_kernelspec() {
    let on = support::opt_in(
        "ENVHOOK_REAL_WHEELS",
        "set ENVHOOK_REAL_WHEELS=1 to run the real-wheel tier",
    );
    if on.is_some() {
        real_kernel();
    }
}

fn real_kernel() {
    let sb = Sandbox::new();
    let (prefix, cudart) = venv(&sb.path("v"));
    let python = prefix.join("bin/python");
    run(Command::new(&python).args(["-m", "ensurepip"]));
    run(Command::new(&python).args(["-m", "pip", "install", "-q", "jupyter_client", "ipykernel"]));
    run(Command::new(&python)
        .args(["-m", "ipykernel", "install", "--prefix"])
        .arg(&prefix));
    // The user's kernelspec for the venv, outside it: named, not written.
    run(Command::new(&python)
        .args(["-m", "ipykernel", "install", "--user", "--name", "v"])
        .env("HOME", sb.home()));
    let user = sb.home().join(".local/share/jupyter/kernels/v/kernel.json");
    let user_was = fs::read(&user).unwrap();
    let spec_dir = prefix.join("share/jupyter/kernels/python3");
    let spec = spec_dir.join("kernel.json");
    let was = fs::read(&spec).unwrap();

    let (code, out, err) = sb.run_on(&["install", "--jupyter"], &prefix);
    assert!(code == 0 || code == 1, "{out}\n{err}");
    assert!(
        out.contains(&format!("  set          {}", spec.display())),
        "{out}"
    );
    let link = prefix.join("lib/envhook/cuda");
    assert!(
        out.contains(&format!(
            "  note         {} starts this environment's python but lies outside it",
            user.display()
        )),
        "{out}"
    );
    assert_eq!(fs::read(&user).unwrap(), user_was);
    let seen = kernel(&sb, &python);
    assert_eq!(
        seen,
        format!(
            "{}\n'{}'\n['{}']\n",
            spec_dir.display(),
            link.display(),
            cudart.display()
        )
    );

    let (code, out, err) = sb.run_on(&["uninstall"], &prefix);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(fs::read(&spec).unwrap(), was, "kernel.json byte for byte");
    let seen = kernel(&sb, &python);
    assert!(
        seen.contains("\nOSError libcudart.so.12") && seen.ends_with("\nNone\n[]\n"),
        "{seen}"
    );
}
