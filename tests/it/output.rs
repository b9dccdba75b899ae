//! How `check` reads to a person (#42 item 6): colour on a terminal and
//! only where asked for (a real terminal in tmux, pipes, `NO_COLOR`,
//! `--color`), a clean environment's verdict first and short, each fix
//! once, and the loader's view under labelled columns that name, before
//! `install`, files that exist rather than the hook's links.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::terminal::Terminal;
use crate::support::{self, Env, FileSpec, PipDist, Sandbox};

const A100: &[&str] = &["--driver-version", "535.104.05", "--gpu", "A100"];

/// An SGR sequence (`ESC [ ... m`) somewhere in `text`.
fn styled(text: &str) -> bool {
    text.split('\u{1b}').skip(1).any(|rest| {
        rest.strip_prefix('[').is_some_and(|r| {
            let end = r.find(|c: char| !c.is_ascii_digit() && c != ';');
            end.is_some_and(|i| r[i..].starts_with('m'))
        })
    })
}

/// The demo's `paddle`: a needs-hook warning and a note, each with a fix.
fn warned(sb: &Sandbox) -> PathBuf {
    let prefix = sb.path("envs/paddle");
    support::cuda11_paddle(&prefix);
    prefix
}

/// `envhook check` in a real terminal (tmux, `TERM=xterm`), three times:
/// as it is, under `NO_COLOR=1`, and with `--color never`; the screen with
/// its styles as tmux drew them.
#[test]
fn a_terminal_gets_colour_unless_no_color_or_color_never() {
    let sb = Sandbox::new();
    let prefix = warned(&sb);
    let bin = assert_cmd::cargo::cargo_bin("envhook");
    let check = format!(
        "{} check -p {} {}",
        bin.display(),
        prefix.display(),
        A100.join(" ")
    );
    let command = format!(
        "env -i HOME={} PATH=/usr/bin:/bin TERM=xterm ENVHOOK_SYSROOT={} sh -c '\
         echo BEGIN-AUTO; {check}; echo BEGIN-NO-COLOR; NO_COLOR=1 {check}; \
         echo BEGIN-NEVER; {check} --color never; echo END-OF-RUNS'; sleep 30",
        sb.home().display(),
        sb.path("sysroot").display(),
    );
    let term = Terminal::start(&sb.path("tmux.sock"), &command, Duration::from_secs(20));
    let screen = term.wait_for_styled("END-OF-RUNS");
    let part = |from: &str, to: &str| {
        let start = screen.find(from).unwrap_or_else(|| panic!("{screen}"));
        let end = screen.find(to).unwrap_or_else(|| panic!("{screen}"));
        screen[start..end].to_string()
    };
    let auto = part("BEGIN-AUTO", "BEGIN-NO-COLOR");
    assert!(auto.contains("needs-hook"), "{auto}");
    assert!(styled(&auto), "no colour on a terminal:\n{auto}");
    let no_color = part("BEGIN-NO-COLOR", "BEGIN-NEVER");
    assert!(no_color.contains("needs-hook"), "{no_color}");
    assert!(!styled(&no_color), "NO_COLOR=1:\n{no_color:?}");
    let never = part("BEGIN-NEVER", "END-OF-RUNS");
    assert!(never.contains("needs-hook"), "{never}");
    assert!(!styled(&never), "--color never:\n{never:?}");
}

/// A pipe gets no colour, unless `--color always` (which wins over
/// `NO_COLOR`, as no-color.org asks of a command-line flag) or
/// `CLICOLOR_FORCE`; JSON never; clap's help follows `--color` too,
/// wherever on the line it is.
#[test]
fn a_pipe_gets_colour_only_when_asked() {
    let sb = Sandbox::new();
    let prefix = warned(&sb);
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut cmd = sb.envhook();
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let p = prefix.to_str().unwrap();
    let check = |extra: &[&'static str]| -> Vec<String> {
        ["check", "-p", p]
            .iter()
            .chain(A100)
            .chain(extra)
            .map(|a| a.to_string())
            .collect()
    };
    let run_check = |env: &[(&str, &str)], extra: &[&'static str]| {
        let args = check(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(env, &args)
    };
    let plain = run_check(&[], &[]);
    assert!(plain.contains("warning[needs-hook]: "), "{plain}");
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    let always = run_check(&[], &["--color", "always"]);
    assert!(styled(&always), "{always:?}");
    // The words are the same, the styles aside.
    assert_eq!(anstream::adapter::strip_str(&always).to_string(), plain);
    assert!(styled(&run_check(
        &[("NO_COLOR", "1")],
        &["--color=always"]
    )));
    assert!(styled(&run_check(&[("CLICOLOR_FORCE", "1")], &[])));
    assert!(!styled(&run_check(
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
        &[]
    )));
    let json = run_check(&[], &["--color", "always", "--json"]);
    assert!(!json.contains('\u{1b}'), "{json}");
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
    for args in [
        &["--color", "always", "--help"][..],
        &["check", "--help", "--color", "always"],
    ] {
        assert!(styled(&run(&[], args)), "{args:?}");
    }
    assert!(!styled(&run(
        &[("CLICOLOR_FORCE", "1")],
        &["check", "--help", "--color", "never"]
    )));
}

/// A CuPy 13 environment as pip lays it out beside torch's CUDA 12 wheels
/// (measured on cupy-cuda12x 13.3.0, torch 2.5.1): CuPy's modules name
/// cuBLAS and NVRTC with no RUNPATH, so only a hook finds the wheels'
/// copies; its cuDNN and cuTENSOR modules name libraries its requirements
/// do not bring (notes, each with its own fix).
fn cupy(sb: &Sandbox) -> PathBuf {
    cupy_with(sb, &[])
}

/// [`cupy`], with more modules that each name a library nothing here has:
/// (module, soname).
fn cupy_with(sb: &Sandbox, missing: &[(&'static str, &str)]) -> PathBuf {
    let prefix = sb.path("envs/cupy");
    let mut env = Env::new(&prefix);
    env.python("3.11.7");
    let site = env.site();
    let mut libs = Vec::new();
    for (dist, version, lib) in [
        (
            "nvidia-cublas-cu12",
            "12.4.5.8",
            "nvidia/cublas/lib/libcublas.so.12",
        ),
        (
            "nvidia-cuda-nvrtc-cu12",
            "12.4.127",
            "nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
        ),
        (
            "nvidia-cuda-runtime-cu12",
            "12.4.127",
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        ),
    ] {
        env.pip(PipDist::new(dist, version).files(vec![FileSpec::File(lib)]));
        let path = site.join(lib);
        let soname = path.file_name().unwrap().to_str().unwrap().to_string();
        support::cc_shared(&path, &soname, &[], None, false);
        libs.push(path);
    }
    let mut modules: Vec<(&'static str, PathBuf)> = vec![
        (
            "cupy_backends/cuda/libs/cublas.cpython-311-x86_64-linux-gnu.so",
            libs[0].clone(),
        ),
        (
            "cupy/cuda/jitify.cpython-311-x86_64-linux-gnu.so",
            libs[1].clone(),
        ),
        (
            "cupy_backends/cuda/libs/cudnn.cpython-311-x86_64-linux-gnu.so",
            scratch(sb, "libcudnn.so.8"),
        ),
        (
            "cupy_backends/cuda/libs/cutensor.cpython-311-x86_64-linux-gnu.so",
            scratch(sb, "libcutensor.so.2"),
        ),
    ];
    for (module, soname) in missing {
        modules.push((module, scratch(sb, soname)));
    }
    env.pip(
        PipDist::new("cupy-cuda12x", "13.3.0")
            .requires(vec!["numpy<2.3,>=1.22", "fastrlock>=0.5"])
            .files(modules.iter().map(|(m, _)| FileSpec::File(m)).collect()),
    );
    for (module, dep) in &modules {
        let soname = module.rsplit('/').next().unwrap();
        support::cc_shared(&site.join(module), soname, &[dep], None, false);
    }
    for (_, dep) in &modules[2..] {
        // Two modules may name one library: removed once.
        let _ = std::fs::remove_file(dep);
    }
    prefix
}

/// A library built outside the environment to link against, removed
/// after: the module names it and nothing here has it.
fn scratch(sb: &Sandbox, soname: &str) -> PathBuf {
    let path = sb.path(&format!("scratch/{soname}"));
    support::cc_shared(&path, soname, &[], None, false);
    path
}

fn check_text(sb: &Sandbox, prefix: &Path, extra: &[&str]) -> (i32, String) {
    let args: Vec<&str> = ["check"].iter().chain(A100).chain(extra).copied().collect();
    let (code, out, err) = sb.run_on(&args, prefix);
    assert!(!err.contains("panicked"), "{err}");
    (code, out)
}

/// No line of a fix (`fix:` and the commands under `choose:`) twice.
fn fixes_once(text: &str) {
    let mut seen = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("fix: ") || line.starts_with('\'') || line.starts_with("envhook ") {
            assert!(!seen.contains(&line), "{line:?} twice in:\n{text}");
            seen.push(line);
        }
    }
}

/// Hooked, the CuPy environment is clean: the verdict is the first line,
/// the notes with something to do follow, each fix once, and the rest
/// (the loader's view, a note with nothing to do) waits for `-v`.
#[test]
fn a_clean_environment_says_so_first_and_briefly() {
    let sb = Sandbox::new();
    let prefix = cupy(&sb);
    let (code, _, err) = sb.run_on(&["install", "-q"], &prefix);
    assert_eq!(code, 0, "{err}");
    let (code, text) = check_text(&sb, &prefix, &[]);
    assert_eq!(code, 0, "{text}");
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("ok: nothing to fix; "), "{text}");
    assert!(
        text.lines().count() <= 16,
        "{} lines:\n{text}",
        text.lines().count()
    );
    assert!(!text.contains("LIBRARY [HOW IT IS LOADED]"), "{text}");
    assert!(text.contains("info[optional-library-missing]"), "{text}");
    assert!(!text.contains("build-not-in-data"), "nothing to do: {text}");
    assert!(text.trim_end().ends_with(": envhook check -v)"), "{text}");
    fixes_once(&text);
    // -v: everything, under the header for a current hook.
    let (code, verbose) = check_text(&sb, &prefix, &["-v"]);
    assert_eq!(code, 0, "{verbose}");
    assert!(verbose.contains("info[build-not-in-data]"), "{verbose}");
    assert!(
        verbose.contains("FOUND WITH ENVHOOK'S HOOK ACTIVE"),
        "{verbose}"
    );
    assert!(verbose.contains("without the hook: not found"), "{verbose}");
    assert!(verbose.lines().count() > text.lines().count() + 5);
    fixes_once(&verbose);
}

/// Before `install` the loader's view says what it shows: where the
/// loader finds each library now, and what the hook would expose, named
/// by the file its link will point at, which exists, never by the link
/// directory, which does not yet.
#[test]
fn before_install_the_columns_say_now_and_after_install() {
    let sb = Sandbox::new();
    let prefix = cupy(&sb);
    let (code, text) = check_text(&sb, &prefix, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("hooks        none installed"), "{text}");
    assert!(text.contains("FOUND NOW (NO ENVHOOK HOOK)"), "{text}");
    assert!(
        !text.contains("lib/envhook/"),
        "a link that does not exist:\n{text}"
    );
    let after: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("after envhook install: "))
        .collect();
    assert_eq!(after.len(), 2, "cuBLAS and NVRTC:\n{text}");
    for line in after {
        let file = line.split(" (").next().unwrap();
        assert!(Path::new(file).is_file(), "{file} does not exist:\n{text}");
    }
    assert!(text.contains("error[needs-hook]: "), "{text}");
    fixes_once(&text);
}

/// Two findings with one fix: the command is printed once, and the second
/// finding points back to it. (Two of the modules here name cuDNN 8,
/// which nothing here has: a note each, one pip install.)
#[test]
fn a_fix_two_findings_share_is_printed_once() {
    let sb = Sandbox::new();
    let module = "cupy/cuda/cudnn.cpython-311-x86_64-linux-gnu.so";
    let prefix = cupy_with(&sb, &[(module, "libcudnn.so.8")]);
    let (json, _) = support::check_json(&sb, &prefix, A100);
    let cudnn: Vec<&serde_json::Value> = support::findings_of(&json, "optional-library-missing")
        .into_iter()
        .filter(|f| f["message"].as_str().unwrap().contains("libcudnn.so.8"))
        .collect();
    assert_eq!(cudnn.len(), 2, "{:#}", json["findings"]);
    assert_eq!(cudnn[0]["fix"], cudnn[1]["fix"]);
    let (_, text) = check_text(&sb, &prefix, &[]);
    fixes_once(&text);
    assert_eq!(text.matches("(the same fix as above)").count(), 1, "{text}");
}

/// explain's answer for a library the hook would expose: before
/// `install`, the file the hook's link will point at (which exists), not
/// the link; after, the link the loader opens.
#[test]
fn explain_names_what_the_hook_would_expose_before_install() {
    let sb = Sandbox::new();
    let prefix = warned(&sb);
    let message = "ImportError: libcudnn.so.8: cannot open shared object file";
    let (_, text, err) = sb.run_on(&["explain", message], &prefix);
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("with envhook's hook:"))
        .unwrap_or_else(|| panic!("{text}{err}"))
        .trim();
    let file = line
        .strip_prefix("not installed yet; envhook install would expose ")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(Path::new(file).is_file(), "{file}: {text}");
    assert!(!text.contains("lib/envhook/"), "{text}");
    let (code, _, err) = sb.run_on(&["install", "-q"], &prefix);
    assert_eq!(code, 0, "{err}");
    let (_, text, _) = sb.run_on(&["explain", message], &prefix);
    let link = prefix.join("lib/envhook/cuda/libcudnn.so.8");
    assert!(
        text.contains(&format!(
            "with envhook's hook:    {} (LD_LIBRARY_PATH)",
            link.display()
        )),
        "{text}"
    );
}

/// [`cupy`] with torch's cuDNN 9 wheel (nvidia-cudnn-cu12 9.1.0.70), which
/// CuPy 13's cudnn module cannot use.
pub(crate) fn cupy_beside_cudnn9(sb: &Sandbox) -> (PathBuf, Env) {
    let prefix = cupy(sb);
    let mut env = Env::new(&prefix);
    env.python("3.11.7");
    let cudnn9 = "nvidia/cudnn/lib/libcudnn.so.9";
    env.pip(PipDist::new("nvidia-cudnn-cu12", "9.1.0.70").files(vec![FileSpec::File(cudnn9)]));
    support::cc_shared(&env.site().join(cudnn9), "libcudnn.so.9", &[], None, false);
    (prefix, env)
}

/// CuPy 13's cudnn module needs `libcudnn.so.8` where the environment's
/// nvidia-cudnn-cu12 is cuDNN 9: `pip install 'nvidia-cudnn-cu12'` would
/// change nothing. The fix installs the wheel of cuDNN 8; where torch
/// requires the cuDNN 9 one (as torch 2.5.1 requires 9.1.0.70, measured
/// on PyPI's wheels), no command can hold both, and the note says which
/// requirement holds it.
#[test]
fn a_cudnn_of_another_major_is_never_a_fix_that_installs_nothing() {
    let sb = Sandbox::new();
    let (prefix, mut env) = cupy_beside_cudnn9(&sb);
    let note = |sb: &Sandbox| {
        let (json, _) = support::check_json(sb, &prefix, A100);
        support::findings_of(&json, "optional-library-missing")
            .into_iter()
            .find(|f| f["message"].as_str().unwrap().contains("libcudnn.so.8"))
            .cloned()
            .unwrap_or_else(|| panic!("{json:#}"))
    };
    let py = prefix.join("bin/python");
    assert_eq!(
        note(&sb)["fix"]["command"],
        format!(
            "'{}' -m pip install 'nvidia-cudnn-cu12>=8,<9'",
            py.display()
        )
    );
    env.pip(
        PipDist::new("torch", "2.5.1")
            .requires(vec![
                "nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\"",
            ])
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.5.1'\ncuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n",
            ),
    );
    let held = note(&sb);
    let choose = &held["fix"]["choose"];
    assert!(choose.get("commands").is_none(), "{held:#}");
    assert!(
        choose["advice"]
            .as_str()
            .unwrap()
            .contains("torch 2.5.1 requires nvidia-cudnn-cu12==9.1.0.70"),
        "{held:#}"
    );
}
