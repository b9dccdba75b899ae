//! Jupyter kernels, which are never activated (#42 item 3): `install
//! --jupyter` sets the library path in the `env` of the environment's
//! kernelspecs, laid out byte for byte as ipykernel 7.4.0 writes them
//! (`python -m ipykernel install --prefix P`, and with `--env`), and
//! `uninstall` gives each kernel.json back byte for byte. A kernel is
//! started here as jupyter_client 8.10 starts one (`string.Template(v)
//! .safe_substitute(os.environ)` over the spec's env, then its argv) by the
//! real python3, in a real venv over a real ELF libcudart, and
//! `/proc/self/maps` says what it loaded. The real jupyter_client and
//! ipykernel from PyPI are in the opt-in tier (tests/it/real_wheels.rs).

use crate::support;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::Sandbox;
use support::venvs::venv;

/// `python -m ipykernel install --prefix P` (ipykernel 7.4.0, CPython
/// 3.11): `json.dump(spec, f, indent=1)`, no newline at the end. `@PY@` is
/// the venv's python.
const IPYKERNEL: &str = "{\n \"argv\": [\n  \"@PY@\",\n  \"-Xfrozen_modules=off\",\n  \"-m\",\n  \"ipykernel_launcher\",\n  \"-f\",\n  \"{connection_file}\"\n ],\n \"display_name\": \"Python 3 (ipykernel)\",\n \"language\": \"python\",\n \"metadata\": {\n  \"debugger\": true,\n  \"supported_encryption\": [\n   \"curve\"\n  ]\n },\n \"kernel_protocol_version\": \"5.5\"\n}";

/// The same with `--display-name 'Pÿ "x"' --env FOO bar --env
/// LD_LIBRARY_PATH '/opt/x:${LD_LIBRARY_PATH}'` (its escapes included).
const IPYKERNEL_ENV: &str = "{\n \"argv\": [\n  \"@PY@\",\n  \"-Xfrozen_modules=off\",\n  \"-m\",\n  \"ipykernel_launcher\",\n  \"-f\",\n  \"{connection_file}\"\n ],\n \"display_name\": \"P\\u00ff \\\"x\\\"\",\n \"language\": \"python\",\n \"metadata\": {\n  \"debugger\": true,\n  \"supported_encryption\": [\n   \"curve\"\n  ]\n },\n \"kernel_protocol_version\": \"5.5\",\n \"env\": {\n  \"FOO\": \"bar\",\n  \"LD_LIBRARY_PATH\": \"/opt/x:${LD_LIBRARY_PATH}\"\n }\n}";

/// Start the kernel of `spec` as jupyter_client 8.10 does
/// (provisioner_base.py `pre_launch` and `__apply_env_substitutions`),
/// with `LD_LIBRARY_PATH` in the launcher as given, its argv[0] running
/// a probe in place of ipykernel: the kernel's `LD_LIBRARY_PATH` and the
/// libcudart files mapped after `ctypes.CDLL("libcudart.so.12")`.
fn launch(spec: &Path, launcher_ld: Option<&str>) -> String {
    let script = r#"
import json, os, string, subprocess, sys
spec = json.load(open(sys.argv[1]))
env = os.environ.copy()
env.update({k: string.Template(v).safe_substitute(env) for k, v in spec.get("env", {}).items()})
probe = ("import ctypes, os\ntry:\n ctypes.CDLL('libcudart.so.12')\nexcept OSError:\n pass\n"
         "print(repr(os.environ.get('LD_LIBRARY_PATH')), os.environ.get('FOO'))\n"
         "print(sorted({l.rstrip('\\n').split(None, 5)[-1] for l in open('/proc/self/maps') if 'libcudart' in l}))")
sys.stdout.flush()
subprocess.run([spec["argv"][0], "-c", probe], env=env, check=True)
"#;
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(script)
        .arg(spec)
        .env_remove("LD_LIBRARY_PATH");
    if let Some(v) = launcher_ld {
        cmd.env("LD_LIBRARY_PATH", v);
    }
    support::stdout_ok(cmd.output().unwrap())
}

/// Write kernelspec `name` of `prefix` from `template`; its path.
fn kernelspec(prefix: &Path, name: &str, template: &str) -> PathBuf {
    let dir = prefix.join("share/jupyter/kernels").join(name);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kernel.json");
    let python = prefix.join("bin/python").display().to_string();
    fs::write(&path, template.replace("@PY@", &python)).unwrap();
    path
}

/// A venv with ipykernel's kernelspec: the prefix, its libcudart, the
/// kernel.json and its bytes.
fn plain_venv(sb: &Sandbox) -> (PathBuf, PathBuf, PathBuf, Vec<u8>) {
    let (prefix, cudart) = venv(&sb.path("v"));
    let plain = kernelspec(&prefix, "python3", IPYKERNEL);
    let was = fs::read(&plain).unwrap();
    (prefix, cudart, plain, was)
}

fn install(sb: &Sandbox, prefix: &Path, extra: &[&str]) -> String {
    let (code, out, err) = sb.run_on(&[&["install"], extra].concat(), prefix);
    assert!(code == 0 || code == 1, "{code}\n{out}\n{err}");
    out
}

#[test]
fn a_kernel_loads_the_library_without_activation_and_its_file_comes_back() {
    let sb = Sandbox::new();
    // `$` is jupyter_client's template character, the space a shell's.
    let (prefix, cudart) = venv(&sb.path("a $HOME b"));
    let plain = kernelspec(&prefix, "python3", IPYKERNEL);
    let own = kernelspec(&prefix, "own", IPYKERNEL_ENV);
    fs::set_permissions(&own, fs::Permissions::from_mode(0o600)).unwrap();
    let (plain_was, own_was) = (fs::read(&plain).unwrap(), fs::read(&own).unwrap());
    assert!(
        launch(&plain, None).ends_with("None None\n[]\n"),
        "no library before"
    );

    // A plain install leaves kernelspecs alone; --jupyter sets them.
    install(&sb, &prefix, &[]);
    assert_eq!(fs::read(&plain).unwrap(), plain_was);
    let out = install(&sb, &prefix, &["--jupyter"]);
    assert!(
        out.contains(&format!("  set          {}", plain.display())),
        "{out}"
    );
    let link = prefix.join("lib/envhook/cuda").display().to_string();
    let expected = String::from_utf8(plain_was.clone()).unwrap().replace(
        "\"5.5\"\n}",
        &format!(
            "\"5.5\",\n \"env\": {{\n  \"LD_LIBRARY_PATH\": \"{}\"\n }}\n}}",
            link.replace('$', "$$")
        ),
    );
    assert_eq!(fs::read_to_string(&plain).unwrap(), expected);
    let seen = launch(&plain, None);
    assert_eq!(seen, format!("'{link}' None\n['{}']\n", cudart.display()));
    // The kernelspec's own value and variables stay, after envhook's;
    // jupyter_client fills in the launcher's value.
    let seen = launch(&own, Some("/launcher"));
    assert!(
        seen.starts_with(&format!("'{link}:/opt/x:/launcher' bar\n")),
        "{seen}"
    );
    assert_eq!(
        fs::metadata(&own).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // Again: nothing changes.
    let now = fs::read(&plain).unwrap();
    let out = install(&sb, &prefix, &[]);
    assert!(!out.contains("kernel.json"), "{out}");
    assert_eq!(fs::read(&plain).unwrap(), now);

    let (code, out, err) = sb.run_on(&["uninstall"], &prefix);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(&format!("  restored     {}", own.display())),
        "{out}"
    );
    assert_eq!(fs::read(&plain).unwrap(), plain_was);
    assert_eq!(fs::read(&own).unwrap(), own_was);
    assert_eq!(
        fs::metadata(&own).unwrap().permissions().mode() & 0o777,
        0o600
    );
    for k in [&plain, &own] {
        assert!(!k.with_file_name("kernel.json.envhook").exists());
    }
}

#[test]
fn rewritten_edited_outside_and_linked_kernelspecs() {
    let sb = Sandbox::new();
    let (prefix, _, plain, was) = plain_venv(&sb);
    // ipykernel install --user --name v: outside the prefix, reported.
    let user = sb.home().join(".local/share/jupyter/kernels/v/kernel.json");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    let user_text = IPYKERNEL.replace("@PY@", &prefix.join("bin/python").display().to_string());
    fs::write(&user, &user_text).unwrap();
    // A kernelspec directory that is a link: not written through.
    let elsewhere = sb.path("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("kernel.json"), IPYKERNEL).unwrap();
    std::os::unix::fs::symlink(&elsewhere, prefix.join("share/jupyter/kernels/linked")).unwrap();

    let out = install(&sb, &prefix, &["--jupyter"]);
    let link = prefix.join("lib/envhook/cuda").display().to_string();
    assert!(
        out.contains(&format!(
            "{} starts this environment's python but lies outside it, where envhook does not \
             write: add to its \"env\": \"LD_LIBRARY_PATH\": \"{link}\"",
            user.display()
        )),
        "{out}"
    );
    assert_eq!(fs::read_to_string(&user).unwrap(), user_text);
    assert_eq!(
        fs::read_to_string(elsewhere.join("kernel.json")).unwrap(),
        IPYKERNEL
    );

    // `ipykernel install` again rewrites the file: a plain install sets
    // the value again, and the file it recorded is the new one.
    fs::write(&plain, &was).unwrap();
    let (json, _) = support::check_json(&sb, &prefix, &[]);
    let lost = support::findings_of(&json, "kernelspec-without-path");
    assert_eq!(lost.len(), 1, "{json:#}");
    assert_eq!(lost[0]["path"], plain.display().to_string());
    let fix = format!("envhook install -p '{}'", prefix.display());
    assert_eq!(lost[0]["fix"]["command"], fix.as_str());
    let out = install(&sb, &prefix, &[]);
    assert!(
        out.contains(&format!("  set          {}", plain.display())),
        "{out}"
    );
    assert!(fs::read_to_string(&plain).unwrap().contains(&link));
    let (json, _) = support::check_json(&sb, &prefix, &[]);
    assert!(support::findings_of(&json, "kernelspec-without-path").is_empty());

    // envhook's value edited by hand: refused, nothing removed.
    let set = fs::read_to_string(&plain).unwrap();
    fs::write(&plain, set.replace("/cuda\"", "/cuda:/mine\"")).unwrap();
    // install stops before it writes: the hook it would put back stays
    // missing.
    let fish = prefix.join("etc/conda/activate.d/envhook.fish");
    fs::remove_file(&fish).unwrap();
    let (code, out, err) = sb.run_on(&["install"], &prefix);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("envhook will not edit it"), "{err}");
    assert!(!fish.exists());
    let (code, out, err) = sb.run_on(&["uninstall"], &prefix);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains(&format!("{}: envhook will not edit it", plain.display())),
        "{err}"
    );
    assert!(
        err.contains("hint: ") && err.contains("kernel.json.envhook"),
        "{err}"
    );
    assert!(prefix.join("etc/conda/activate.d/envhook.sh").is_file());
    // Put right by hand as the hint says: uninstall then leaves it.
    fs::write(&plain, &was).unwrap();
    fs::remove_file(plain.with_file_name("kernel.json.envhook")).unwrap();
    let (code, out, err) = sb.run_on(&["uninstall"], &prefix);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(fs::read(&plain).unwrap(), was);
}

#[test]
fn an_environment_that_lost_its_cuda_libraries_gets_its_kernelspecs_back() {
    let sb = Sandbox::new();
    let (prefix, cudart, plain, was) = plain_venv(&sb);
    install(&sb, &prefix, &["--jupyter"]);
    assert_ne!(fs::read(&plain).unwrap(), was);
    // `pip uninstall nvidia-cuda-runtime-cu12`: its dist-info and library
    // go; install then removes the hooks and gives the kernelspec back.
    let site = cudart.ancestors().nth(4).unwrap();
    for entry in fs::read_dir(site).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("nvidia_cuda_runtime") || name == "nvidia" {
            fs::remove_dir_all(&path).unwrap();
        }
    }
    let out = install(&sb, &prefix, &[]);
    assert!(
        out.contains(&format!("  restored     {}", plain.display())),
        "{out}"
    );
    assert_eq!(fs::read(&plain).unwrap(), was);
    assert!(!prefix.join("etc/conda/activate.d/envhook.sh").exists());
}
