//! PaddlePaddle end to end: the environment `envhook install -n paddle` is
//! named for. Paddle 2.x dlopens unversioned names (`libcudnn.so`,
//! `libcublas.so`); the hooks' link directory answers them with the major
//! the build was made for, or not at all, and check says which major to
//! install. The layouts follow the real PyPI wheels (paddlepaddle-gpu
//! 2.6.2, nvidia-*-cu11 and -cu12); tests/it/real_wheels.rs has the opt-in
//! tier on the wheels themselves.

use crate::support;

use std::fs;
use std::path::Path;

use serde_json::Value;
use support::paddle::{CUDA11_CUDNN8, CUDA12_CUDNN9, paddle_262, wheels};
use support::{Sandbox, findings_of};

const A100: &[&str] = &["--driver-version", "535.104.05", "--gpu", "A100"];

fn check(sb: &Sandbox, prefix: &Path) -> (Value, i32) {
    support::check_json(sb, prefix, A100)
}

/// How check resolved `name` for each object that asks for it.
fn resolved<'a>(json: &'a Value, name: &str) -> Vec<&'a Value> {
    json["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["names"].as_array().unwrap())
        .filter(|n| n["name"] == name)
        .collect()
}

/// Where the link directory's `name` leads (its file name), if it exists.
fn link(prefix: &Path, name: &str) -> Option<String> {
    let target = fs::read_link(prefix.join("lib/envhook/cuda").join(name)).ok()?;
    Some(target.file_name()?.to_str()?.to_string())
}

#[test]
fn a_cuda11_paddle_is_never_handed_cuda12_or_cudnn9() {
    let sb = Sandbox::new();
    let mut env = paddle_262(&sb.path("envs/paddle"));
    wheels(&mut env, CUDA12_CUDNN9);
    let prefix = env.prefix.clone();

    let (json, code) = check(&sb, &prefix);
    assert_eq!(code, 1, "{:#}", json["findings"]);
    let wrong = findings_of(&json, "library-other-major");
    assert_eq!(wrong.len(), 1, "{:#}", json["findings"]);
    let (msg, fix) = (
        wrong[0]["message"].as_str().unwrap(),
        wrong[0]["fix"]["command"].as_str().unwrap(),
    );
    assert_eq!(wrong[0]["severity"], "error");
    assert!(
        msg.contains("CUDA 11.8 / cuDNN 8.6.0")
            && msg.contains("libcudnn.so.8")
            && msg.contains("libcublas.so.11")
            && msg.contains("only as libcudnn.so.9"),
        "{msg}"
    );
    // One command: the build's own major of everything it loads, then
    // the hooks; never the hooks alone.
    assert!(
        fix.contains("'nvidia-cudnn-cu11>=8.6,<9'")
            && fix.contains("cuda-toolkit[cublas,")
            && fix.contains("]==11.8.*'")
            && fix.ends_with(&format!("&& envhook install -p '{}'", prefix.display())),
        "{fix}"
    );
    assert!(findings_of(&json, "needs-hook").is_empty());
    assert!(findings_of(&json, "missing-dev-symlink").is_empty());

    // install writes no hooks (none would change what Paddle loads), and
    // says why without claiming that everything resolves.
    let out = sb
        .envhook()
        .args(["install", "-p"])
        .arg(&prefix)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("what is missing (below) no hook can provide")
            && text.contains("library-other-major")
            && !text.contains("every CUDA library its frameworks load resolves"),
        "{text}"
    );
    // Written anyway, the hooks expose CUDA 12's libraries under their own
    // names only: no unversioned name leads to another major.
    sb.install(&prefix);
    assert_eq!(
        link(&prefix, "libcudnn.so.9").as_deref(),
        Some("libcudnn.so.9")
    );
    for name in ["libcudnn.so", "libcublas.so", "libcublasLt.so"] {
        assert_eq!(link(&prefix, name), None, "{name}");
    }

    // The fix, as the wheels it installs lay themselves out: the names
    // now lead to the build's major, and check has nothing left to say
    // about them.
    wheels(&mut env, CUDA11_CUDNN8);
    sb.install(&prefix);
    assert_eq!(
        link(&prefix, "libcudnn.so").as_deref(),
        Some("libcudnn.so.8")
    );
    assert_eq!(
        link(&prefix, "libcublas.so").as_deref(),
        Some("libcublas.so.11")
    );
    assert_eq!(
        link(&prefix, "libcublasLt.so").as_deref(),
        Some("libcublasLt.so.11")
    );
    let (json, code) = check(&sb, &prefix);
    assert_eq!(code, 0, "{:#}", json["findings"]);
    assert!(findings_of(&json, "library-other-major").is_empty());
}

#[test]
fn a_system_copy_of_another_major_is_named() {
    let sb = Sandbox::new();
    let mut env = paddle_262(&sb.path("envs/paddle"));
    wheels(&mut env, CUDA11_CUDNN8);
    // The system's libcudnn.so (a -dev package) is cuDNN 9: without the
    // hook, Paddle's dlopen finds it through the default directories.
    let sys = sb.path("sysroot/usr/lib/x86_64-linux-gnu");
    support::cc_shared(
        &sys.join("libcudnn.so.9.1.0"),
        "libcudnn.so.9",
        &[],
        None,
        false,
    );
    std::os::unix::fs::symlink("libcudnn.so.9.1.0", sys.join("libcudnn.so")).unwrap();
    let (json, _) = check(&sb, &env.prefix);
    // Before the hook, the system's cuDNN 9 is what Paddle would get; the
    // hook (with its libcudnn.so -> .so.8) is the fix.
    let names = resolved(&json, "libcudnn.so");
    assert!(
        names[0]["with_hook"]["path"]
            .as_str()
            .unwrap()
            .ends_with("lib/envhook/cuda/libcudnn.so"),
        "{names:#?}"
    );
    assert!(
        findings_of(&json, "library-other-major").is_empty(),
        "{:#}",
        json["findings"]
    );
}

/// Paddle 3.3.1's cu126 wheel as Paddle's index serves it: it pins
/// `nvidia-cudnn-cu12==9.5.1.17` (python/setup.py's 12.6 pin set) and its
/// version file says it was compiled with cuDNN 9.9.0, with `cudnn`
/// installed at `cudnn`.
fn paddle_331_cu126(prefix: &Path, cudnn: &'static str) -> support::Env {
    use support::{FileSpec, PipDist};
    let mut env = support::Env::new(prefix);
    env.python("3.11.7");
    env.pip(
        PipDist::new("paddlepaddle-gpu", "3.3.1")
            .files(vec![FileSpec::File("paddle/base/libpaddle.so")])
            .requires(vec![
                "nvidia-cuda-runtime-cu12==12.6.77; platform_system == \"Linux\"",
                "nvidia-cudnn-cu12==9.5.1.17; platform_system == \"Linux\"",
                "nvidia-cublas-cu12==12.6.4.1; platform_system == \"Linux\"",
            ])
            .text(
                "paddle/version/__init__.py",
                "full_version    = '3.3.1'\ncuda_version    = '12.6'\ncudnn_version   = '9.9.0'\nwith_pip_cuda_libraries = 'ON'\n",
            ),
    );
    let files = |f: &'static [&'static str]| f.iter().map(|f| FileSpec::File(f)).collect();
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.6.77")
            .files(files(&["nvidia/cuda_runtime/lib/libcudart.so.12"])),
    );
    env.pip(
        PipDist::new("nvidia-cublas-cu12", "12.6.4.1").files(files(&[
            "nvidia/cublas/lib/libcublas.so.12",
            "nvidia/cublas/lib/libcublasLt.so.12",
        ])),
    );
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", cudnn).files(files(&["nvidia/cudnn/lib/libcudnn.so.9"])),
    );
    env
}

/// Every pip fix `json` carries, as `(prefix's python, specs)`.
fn pip_fixes(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["fix"]["command"].as_str())
        .filter(|c| c.contains(" -m pip install "))
        .map(String::from)
        .collect()
}

#[test]
fn a_wheel_pinned_below_the_cudnn_it_was_compiled_with_gets_no_fix_that_cannot_change_anything() {
    let sb = Sandbox::new();
    for (cudnn, says) in [
        ("9.5.1.17", "which is installed (9.5.1.17)"),
        ("9.9.0.52", "the cuDNN it was compiled with"),
    ] {
        let env = paddle_331_cu126(&sb.path(&format!("envs/p{cudnn}")), cudnn);
        let (json, _) = check(&sb, &env.prefix);
        let note = findings_of(&json, "cudnn-pin-below-build");
        assert_eq!(note.len(), 1, "{cudnn}: {:#}", json["findings"]);
        assert_eq!(note[0]["severity"], "info");
        assert!(note[0]["fix"].is_null(), "{:#}", note[0]);
        let msg = note[0]["message"].as_str().unwrap();
        assert!(msg.contains(says) && msg.contains("cuDNN 9.9"), "{msg}");
        for code in ["cudnn-older-than-build", "pin-broken"] {
            assert!(
                findings_of(&json, code).is_empty(),
                "{cudnn}: {:#}",
                json["findings"]
            );
        }
        // Nothing pip would find already satisfied or cannot satisfy.
        for fix in pip_fixes(&json) {
            assert!(
                !fix.contains(&format!("nvidia-cudnn-cu12=={cudnn}")),
                "{fix}"
            );
        }
    }
}

#[test]
fn pip_specs_are_held_to_what_pip_would_do() {
    use support::pip_spec::{fault, pip_installs, satisfiable};
    let sb = Sandbox::new();
    let env = paddle_331_cu126(&sb.path("envs/p"), "9.5.1.17");
    let prefixes = vec![env.prefix.clone()];
    let python = format!(
        "'{}' -m pip install",
        env.prefix.join("bin/python").display()
    );
    // The shapes #37 found: a no-op, and a spec no version satisfies.
    let noop = format!("{python} 'nvidia-cudnn-cu12==9.5.1.17'");
    assert!(fault(&noop, &prefixes).unwrap().contains("changes nothing"));
    let never = format!("{python} 'nvidia-cudnn-cu12==9.5.1.17,>=9.7'");
    assert!(fault(&never, &prefixes).unwrap().contains("no version"));
    let specs = pip_installs(&format!("{python} 'x>=9.7,<9.6' 'y>=8.6,<9'"), &prefixes);
    assert_eq!(
        specs[0].1.iter().map(satisfiable).collect::<Vec<_>>(),
        [false, true]
    );
    // What changes something passes: another version, a missing wheel, an
    // extra.
    for ok in [
        format!("{python} 'nvidia-cudnn-cu12==9.9.0.52'"),
        format!("{python} 'nvidia-cudnn-cu12==9.5.1.17' 'nvidia-nccl-cu12'"),
        format!("{python} 'paddlepaddle-gpu[x]==3.3.1'"),
    ] {
        assert_eq!(fault(&ok, &prefixes), None, "{ok}");
    }
}

/// A Paddle 3.x wheel whose version file lists the architectures it was
/// compiled for, as setup.py writes it: an unquoted list of ints
/// (`compiled_cuda_archs     = [75, 80]`, read in paddlepaddle 3.2.0's
/// file, where the CPU build writes `[]`).
fn paddle_with_archs(prefix: &Path, cuda: &str, archs: &str) -> support::Env {
    use support::{FileSpec, PipDist};
    let mut env = support::Env::new(prefix);
    env.python("3.11.7");
    env.pip(
        PipDist::new("paddlepaddle-gpu", "3.3.1")
            .files(vec![FileSpec::File("paddle/base/libpaddle.so")])
            .text(
                "paddle/version/__init__.py",
                format!(
                    "full_version     = '3.3.1'\ncuda_version     = '{cuda}'\ncudnn_version    = 'False'\nwith_pip_cuda_libraries = 'ON'\ncompiled_cuda_archs     = {archs}\n"
                ),
            ),
    );
    env
}

fn check_on(sb: &Sandbox, prefix: &Path, gpu: &str) -> Value {
    let out = sb
        .envhook()
        .args([
            "check",
            "--json",
            "--driver-version",
            "580.65.06",
            "--gpu",
            gpu,
            "-p",
        ])
        .arg(prefix)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_architectures_a_paddle_build_lists_decide_where_it_runs() {
    let sb = Sandbox::new();
    // A CUDA 12.9 build from sm_75: the data's range for cu129 would let a
    // V100 pass; its own list does not.
    let cu129 = paddle_with_archs(
        &sb.path("envs/cu129"),
        "12.9",
        "[75, 80, 86, 89, 90, 100, 120]",
    );
    let json = check_on(&sb, &cu129.prefix, "V100");
    let f = findings_of(&json, "gpu-unsupported");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let msg = f[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("7.5, 8.0, 8.6") && msg.contains("compiled_cuda_archs"),
        "{msg}"
    );
    assert!(findings_of(&check_on(&sb, &cu129.prefix, "A100"), "gpu-unsupported").is_empty());
    // A CUDA 11.8 build for 6.1 to 8.0 on a Hopper: unsupported, and the
    // fix is never another cu118 build.
    let cu118 = paddle_with_archs(&sb.path("envs/cu118"), "11.8", "[61, 70, 75, 80]");
    let json = check_on(&sb, &cu118.prefix, "NVIDIA H100 80GB HBM3");
    let f = findings_of(&json, "gpu-unsupported");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let fix = f[0]["fix"].to_string();
    assert!(!fix.contains("stable/cu118"), "{fix}");
    assert!(findings_of(&check_on(&sb, &cu118.prefix, "A100"), "gpu-unsupported").is_empty());
}

#[test]
fn explain_says_paddles_cudnn_warning_is_a_warning_where_the_wheel_pins_below_its_build() {
    let sb = Sandbox::new();
    let env = paddle_331_cu126(&sb.path("envs/p"), "9.5.1.17");
    let message = "W1207 12:00:00.000000  1234 gpu_resources.cc:164] WARNING: device: 0. The installed Paddle is compiled with CUDNN 9.9, but CUDNN version in your machine is 9.5, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version.";
    let out = sb
        .envhook()
        .args(["explain", message, "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = json.to_string();
    assert!(
        text.contains("a start-up warning, not an error")
            && text.contains("nvidia-cudnn-cu12==9.5.1.17"),
        "{text}"
    );
    // No command: the pin is installed, and moving past it breaks it.
    assert!(!text.contains("pip install"), "{text}");
}

#[test]
fn show_says_what_paddleocr_runs_on() {
    let sb = Sandbox::new();
    let show = |prefix: &Path| {
        let out = sb
            .envhook()
            .args(["show", "-p"])
            .arg(prefix)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let line = |text: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with("paddleocr "))
            .unwrap_or_else(|| panic!("{text}"))
            .to_string()
    };
    // The GPU build beside CUDA 12 wheels: check's error is named.
    let mut env = paddle_262(&sb.path("envs/gpu"));
    wheels(&mut env, CUDA12_CUDNN9);
    env.pip(support::PipDist::new("paddleocr", "2.9.1"));
    let l = line(&show(&env.prefix));
    assert!(
        l.contains("runs on paddlepaddle-gpu 2.6.2, a GPU build that check finds errors for (library-other-major)"),
        "{l}"
    );
    // Fixed, it says how PaddleOCR picks the device.
    wheels(&mut env, CUDA11_CUDNN8);
    let l = line(&show(&env.prefix));
    assert!(
        l.contains("a GPU build; it uses the GPU where Paddle"),
        "{l}"
    );
    // PyPI's CPU-only paddlepaddle, and no Paddle at all.
    let mut cpu = support::Env::new(sb.path("envs/cpu"));
    cpu.python("3.11.7");
    cpu.pip(support::PipDist::new("paddlepaddle", "3.2.0"));
    cpu.pip(support::PipDist::new("paddleocr", "3.7.0"));
    assert!(
        line(&show(&cpu.prefix)).contains("paddlepaddle 3.2.0, a CPU build: it runs on the CPU")
    );
    let mut none = support::Env::new(sb.path("envs/none"));
    none.python("3.11.7");
    none.pip(support::PipDist::new("paddlex", "3.7.2"));
    let text = show(&none.prefix);
    let l = text
        .lines()
        .find(|l| l.trim_start().starts_with("paddlex "))
        .unwrap();
    assert!(l.contains("no PaddlePaddle in this environment"), "{l}");
}

#[test]
fn a_paddle_tag_no_release_carries_is_named() {
    use support::{FileSpec, PipDist};
    let sb = Sandbox::new();
    let layout = |name: &str, version: &'static str| {
        let mut env = support::Env::new(sb.path(&format!("envs/{name}")));
        env.python("3.10.14");
        env.pip(
            PipDist::new("paddlepaddle-gpu", version)
                .files(vec![FileSpec::File("paddle/fluid/libpaddle.so")]),
        );
        env
    };
    // The seed's table: 2.5.2.post118 does not exist.
    let env = layout("seed", "2.5.2.post118");
    let (json, _) = check(&sb, &env.prefix);
    let f = findings_of(&json, "no-such-build");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let msg = f[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("2.5.2.post116") && msg.contains("2.5.2 (plain)"),
        "{msg}"
    );
    // A real one is not.
    let env = layout("real", "2.5.2.post116");
    let (json, _) = check(&sb, &env.prefix);
    assert!(
        findings_of(&json, "no-such-build").is_empty(),
        "{:#}",
        json["findings"]
    );
}

#[test]
fn explain_of_paddles_dynload_message_names_the_builds_major() {
    let sb = Sandbox::new();
    let mut env = paddle_262(&sb.path("envs/paddle"));
    wheels(&mut env, CUDA12_CUDNN9);
    // The warning real Paddle 2.6.2 prints here (captured on this layout).
    let message = "W1207 17:01:02.287726 17044 dynamic_loader.cc:314] The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly. (error code is /usr/local/cuda/lib64/libcudnn.so: cannot open shared object file: No such file or directory)";
    let out = sb
        .envhook()
        .args(["explain", message, "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("which must be libcudnn.so.8"), "{text}");
    let fixes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("fix: "))
        .collect();
    assert!(!fixes.is_empty(), "{text}");
    for fix in fixes {
        assert!(fix.contains("'nvidia-cudnn-cu11>=8.6,<9'"), "{fix}");
        assert!(!fix.starts_with("envhook install"), "{fix}");
    }
}

#[test]
fn paddles_own_try_of_usr_local_cuda_is_judged_too() {
    let sb = Sandbox::new();
    // No cuDNN in the environment; a CUDA 12 toolkit's cuDNN 9 in
    // /usr/local/cuda/lib64, which Paddle tries by path after the loader.
    let env = paddle_262(&sb.path("envs/paddle"));
    let dir = sb.path("sysroot/usr/local/cuda/lib64");
    support::cc_shared(
        &dir.join("libcudnn.so.9.1.0"),
        "libcudnn.so.9",
        &[],
        None,
        false,
    );
    std::os::unix::fs::symlink("libcudnn.so.9.1.0", dir.join("libcudnn.so")).unwrap();
    let (json, _) = check(&sb, &env.prefix);
    let f = findings_of(&json, "library-other-major");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let msg = f[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("/usr/local/cuda/lib64/libcudnn.so (libcudnn.so.9)"),
        "{msg}"
    );
    // cuDNN 8 there is what the build wants: found by Paddle's own try.
    fs::remove_file(dir.join("libcudnn.so")).unwrap();
    support::cc_shared(
        &dir.join("libcudnn.so.8.6.0"),
        "libcudnn.so.8",
        &[],
        None,
        false,
    );
    std::os::unix::fs::symlink("libcudnn.so.8.6.0", dir.join("libcudnn.so")).unwrap();
    let (json, _) = check(&sb, &env.prefix);
    assert!(
        findings_of(&json, "library-other-major").is_empty(),
        "{:#}",
        json["findings"]
    );
    let names = resolved(&json, "libcudnn.so");
    assert_eq!(names[0]["without_hook"]["rule"], "path", "{names:#?}");
}

/// The seed's "conda works, pip does not" (data audit Q12): conda-build
/// gives `bin/python` DT_RPATH `$ORIGIN/../lib`, and glibc searches it for
/// a caller without DT_RUNPATH. A Paddle whose `libpaddle.so` has DT_RPATH
/// finds conda's cudatoolkit without any hook; no hook is asked for what
/// the executable's RPATH already reaches.
#[test]
fn condas_python_rpath_reaches_lib_for_a_caller_without_runpath() {
    let sb = Sandbox::new();
    let env = support::paddle::paddle_env(
        &sb.path("envs/paddle"),
        "8.9.2",
        support::paddle::cudnn8("lib/libcudnn.so.8.9.2"),
    );
    let (json, _) = check(&sb, &env.prefix);
    let before: Vec<String> = resolved(&json, "libcudart.so.11.0")
        .iter()
        .map(|n| n["without_hook"].to_string())
        .collect();
    assert!(before.iter().all(|w| w == "null"), "{before:?}");
    // bin/python3 as conda builds it: a program with DT_RPATH $ORIGIN/../lib.
    let python = env.path("bin/python3");
    fs::remove_file(&python).unwrap();
    support::cc_program(
        &python,
        "int main(void) { return 0; }\n",
        &["-Wl,--disable-new-dtags", "-Wl,-rpath,$ORIGIN/../lib"],
    );
    let (json, _) = check(&sb, &env.prefix);
    for name in ["libcudart.so.11.0", "libcublas.so.11"] {
        let n = resolved(&json, name);
        assert_eq!(n[0]["without_hook"]["rule"], "main-rpath", "{n:#?}");
    }
    let codes: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    let hook = findings_of(&json, "needs-hook");
    assert!(
        hook.iter()
            .all(|f| !f["message"].as_str().unwrap().contains("libcudart.so.11.0")),
        "{codes:?}"
    );
}
