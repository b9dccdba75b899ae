//! The hooks under a real third-party activator: rattler_shell's
//! `Activator`, the library pixi activates environments with. It finds the
//! scripts by itself, runs activation in a real shell and reports the
//! variables that changed; its deactivation script (which restores
//! `CONDA_PREFIX` *before* running deactivate.d) is run in the same shell.

use crate::support;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use rattler_conda_types::Subdir;
use rattler_shell::activation::{ActivationVariables, Activator, PathModificationBehavior};
use rattler_shell::shell::{Bash, Fish, Shell, Zsh};
use support::Sandbox;

fn base_env(sb: &Sandbox, ld: Option<&str>) -> HashMap<String, String> {
    let mut env = HashMap::from([
        ("PATH".to_string(), std::env::var("PATH").unwrap()),
        ("HOME".to_string(), sb.home().display().to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
    ]);
    if let Some(v) = ld {
        env.insert("LD_LIBRARY_PATH".into(), v.into());
    }
    env
}

/// Activate with rattler, then deactivate with rattler's script; returns
/// (variables rattler reports changed, environment after deactivation).
fn round_trip<S: Shell + Clone + 'static>(
    shell: S,
    program: &str,
    args: &[&str],
    ext: &str,
    prefix: &Path,
    env: &HashMap<String, String>,
) -> (HashMap<String, String>, HashMap<String, String>) {
    let activator = Activator::from_path(prefix, shell, Subdir::Linux64).unwrap();
    let ours = prefix.join(format!("etc/conda/activate.d/envhook.{ext}"));
    assert!(
        activator.activation_scripts.contains(&ours),
        "{:?}",
        activator.activation_scripts
    );
    let vars = ActivationVariables {
        conda_prefix: None,
        path: None,
        path_modification_behavior: PathModificationBehavior::Prepend,
        current_env: env.clone(),
    };
    let os_env: HashMap<&OsStr, &OsStr> = env
        .iter()
        .map(|(k, v)| (OsStr::new(k), OsStr::new(v)))
        .collect();
    let changed = activator.run_activation(vars, Some(os_env)).unwrap();

    let mut active = env.clone();
    active.extend(changed.clone());
    let deactivation = activator
        .deactivation(ActivationVariables {
            conda_prefix: Some(prefix.to_path_buf()),
            path: None,
            path_modification_behavior: PathModificationBehavior::Prepend,
            current_env: active.clone(),
        })
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join(format!("deactivate.{ext}"));
    std::fs::write(&script, deactivation.script.contents().unwrap()).unwrap();
    let source = if ext == "fish" { "source" } else { "." };
    let out = Command::new(program)
        .args(args)
        .arg(format!("{source} '{}'; env -0", script.display()))
        .env_clear()
        .envs(&active)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter_map(|r| r.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (changed, after)
}

fn check(
    prefix: &Path,
    initial: Option<&str>,
    changed: &HashMap<String, String>,
    after: &HashMap<String, String>,
) {
    let dir = prefix.join("lib/envhook/cuda").display().to_string();
    let want = match initial {
        Some(v) if !v.is_empty() => format!("{dir}:{v}"),
        _ => dir,
    };
    assert_eq!(changed.get("LD_LIBRARY_PATH"), Some(&want), "{changed:#?}");
    assert!(
        changed.keys().any(|k| k.starts_with("ENVHOOK_STATE_")),
        "{changed:#?}"
    );
    assert_eq!(
        after.get("LD_LIBRARY_PATH").map(String::as_str),
        initial,
        "{after:#?}"
    );
    assert!(
        !after.keys().any(|k| k.starts_with("ENVHOOK_")),
        "{after:#?}"
    );
}

#[test]
fn rattler_activator_bash_zsh_fish() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    sb.install(&env.prefix);
    for initial in [Some("/orig/lib:/other lib"), None, Some("")] {
        let base = base_env(&sb, initial);
        let (changed, after) = round_trip(
            Bash::default(),
            "bash",
            &["--norc", "-c"],
            "sh",
            &env.prefix,
            &base,
        );
        check(&env.prefix, initial, &changed, &after);
        let (changed, after) = round_trip(Zsh, "zsh", &["-f", "-c"], "sh", &env.prefix, &base);
        check(&env.prefix, initial, &changed, &after);
        let (changed, after) = round_trip(
            Fish,
            "fish",
            &["--no-config", "-c"],
            "fish",
            &env.prefix,
            &base,
        );
        check(&env.prefix, initial, &changed, &after);
    }
}
