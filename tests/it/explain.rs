//! `envhook explain`: the messages of the field notes (`../shared/seeds/`)
//! against environments that have their cause and environments that do
//! not, with real ELF built by `cc`. The verdict is the exit code: 1 when
//! the cause is in the environment, 0 when it is not or cannot be told.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::explaining::{A100, explain, explain_text};
use support::paddle::{cudnn8, paddle_env};
use support::{CondaPkg, Env, FileSpec, PipDist, Sandbox};

/// The answer about the first clue.
fn first(json: &Value) -> &Value {
    &json["answers"][0]
}

fn cause_codes(json: &Value) -> Vec<&str> {
    json["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect()
}

/// Paddle 2.6's PyPI wheel (CUDA 11.8, cuDNN 8.6, no pip CUDA libraries:
/// it dlopens libcudnn.so by its unversioned name) over the cu11 wheels,
/// which ship only libcudnn.so.8: `pyenvs/paddle-cudnn` of the field tests.
fn paddle_over_cu11_wheels(prefix: &Path) -> Env {
    use FileSpec::*;
    let mut env = Env::new(prefix);
    env.python("3.11.7");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu11", "11.8.89").files(vec![
            File("nvidia/__init__.py"),
            File("nvidia/cuda_runtime/lib/libcudart.so.11.0"),
        ]),
    );
    env.pip(
        PipDist::new("nvidia-cudnn-cu11", "8.6.0.163")
            .files(vec![File("nvidia/cudnn/lib/libcudnn.so.8")]),
    );
    env.pip(
        PipDist::new("paddlepaddle-gpu", "2.6.2")
            .files(vec![File("paddle/base/libpaddle.so")])
            .text(
                "paddle/version/__init__.py",
                "full_version     = '2.6.2'\ncuda_version     = '11.8'\ncudnn_version    = '8.6.0'\n",
            ),
    );
    let site = env.site();
    for (rel, soname) in [
        (
            "nvidia/cuda_runtime/lib/libcudart.so.11.0",
            "libcudart.so.11.0",
        ),
        ("nvidia/cudnn/lib/libcudnn.so.8", "libcudnn.so.8"),
        ("paddle/base/libpaddle.so", "libpaddle.so"),
    ] {
        support::cc_shared(&site.join(rel), soname, &[], None, false);
    }
    env
}

#[test]
fn a_library_of_another_major_is_the_cause_only_when_something_here_asks_for_it() {
    let sb = Sandbox::new();
    // Paddle's CUDA 11.6 wheel (NEEDs libcudart.so.11.0) over CUDA 12.
    let env = {
        use FileSpec::*;
        let mut env = Env::new(sb.path("envs/paddle12"));
        env.python("3.10.14");
        env.conda(CondaPkg::new("cuda-version", "12.4", "h3060b56_3").noarch());
        env.conda(
            CondaPkg::new("cuda-cudart", "12.4.127", "he02047a_2").files(vec![
                File("lib/libcudart.so.12.4.127"),
                Link("lib/libcudart.so.12", "libcudart.so.12.4.127"),
            ]),
        );
        env.pip(
            PipDist::new("paddlepaddle-gpu", "2.5.2.post116")
                .files(vec![File("paddle/fluid/libpaddle.so")])
                .text(
                    "paddle/version/__init__.py",
                    "full_version = '2.5.2'\ncuda_version = '11.6'\ncudnn_version = '8.4.0'\n",
                ),
        );
        support::cc_shared(
            &env.path("lib/libcudart.so.12.4.127"),
            "libcudart.so.12",
            &[],
            None,
            false,
        );
        // Link against a CUDA 11 runtime outside the environment, so that
        // libpaddle.so records the name without the environment having it.
        let elsewhere = sb.path("build/libcudart.so.11.0");
        support::cc_shared(&elsewhere, "libcudart.so.11.0", &[], None, false);
        support::cc_shared(
            &env.site().join("paddle/fluid/libpaddle.so"),
            "libpaddle.so",
            &[&elsewhere],
            None,
            false,
        );
        env
    };
    let msg =
        "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["verdict"], "cause");
    let a = first(&json);
    assert_eq!(a["verdict"], "cause");
    let diagnosis = a["diagnosis"].as_str().unwrap();
    assert!(diagnosis.contains("libcudart.so.12"), "{diagnosis}");
    assert!(
        a["asked_by"][0]
            .as_str()
            .unwrap()
            .starts_with("libpaddle.so of paddlepaddle-gpu 2.5.2.post116, built for CUDA 11.6"),
        "{a:#}"
    );

    // torch's CUDA 13 wheels hold cuDNN 9; nothing in them asks for
    // libcudnn.so.8, so the message came from elsewhere.
    let env = support::pip_cuda13(&sb.path("envs/cu13"));
    let (json, code) = explain(
        &sb,
        &env.prefix,
        "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory",
        A100,
    );
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(first(&json)["verdict"], "not-here");
    let diagnosis = first(&json)["diagnosis"].as_str().unwrap();
    assert!(diagnosis.contains("libcudnn.so.9"), "{diagnosis}");
    assert!(diagnosis.contains("nothing envhook reads in it asks for libcudnn.so.8"));
    assert_eq!(first(&json)["fix"], Value::Null);
}

#[test]
fn paddles_unversioned_cudnn_is_found_only_through_the_hook() {
    let sb = Sandbox::new();
    let env = paddle_over_cu11_wheels(&sb.path("envs/paddle"));
    // Seed 000's title error.
    let msg = "RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. \
               Cannot invoke method cudnnGetVersion.";
    let (text, code) = explain_text(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{text}");
    assert!(text.starts_with("Paddle could not load cuDNN\n"), "{text}");
    assert!(
        text.contains("asked for by: libpaddle.so of paddlepaddle-gpu 2.6.2, built for CUDA 11.8 / cuDNN 8.6.0"),
        "{text}"
    );
    assert!(
        text.contains("is only libcudnn.so.8") && text.contains("unversioned name libcudnn.so"),
        "{text}"
    );
    let fix = format!("fix: envhook install -p '{}'", env.prefix.display());
    // One fix, said once, though a finding leads to it too.
    assert_eq!(text.matches(&fix).count(), 1, "{text}");

    // Paddle's other wording of the same failure names the library.
    let msg = "The third-party dynamic library (libcudnn.so) that Paddle depends on is not \
               configured correctly. (error code is libcudnn.so: cannot open shared object file: \
               No such file or directory)";
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(first(&json)["clue"]["name"], "libcudnn.so");
    assert_eq!(
        first(&json)["fix"]["command"],
        format!("envhook install -p '{}'", env.prefix.display())
    );

    sb.install(&env.prefix);
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["verdict"], "not-here");
    let diagnosis = first(&json)["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.starts_with("the loader finds libcudnn.so here"),
        "{diagnosis}"
    );
}

#[test]
fn a_missing_runtime_is_found_through_the_hook_after_install() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    let msg =
        "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory";
    let (text, code) = explain_text(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.starts_with("the loader did not find a library\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "asked for by: libpaddle.so of paddlepaddle-gpu 2.5.2.post116, built for CUDA 11.6 / cuDNN 8.4.0"
        ),
        "{text}"
    );
    assert!(text.contains("warning[needs-hook]"), "{text}");
    // Installed, the hook reaches it: the answer says the process that
    // printed it ran without activating the environment, and the last
    // line agrees with it rather than saying "none of the known causes"
    // (#41 item 4c).
    sb.install(&env.prefix);
    let (text, code) = explain_text(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("only through envhook's hook"), "{text}");
    assert!(!text.contains("none of the known causes"), "{text}");
    assert!(
        text.ends_with(
            "  nothing in this environment causes it: the answer above says where it came from\n"
        ),
        "{text}"
    );
}

#[test]
fn an_undefined_cudnn_v8_symbol_means_a_cudnn_older_than_8() {
    let sb = Sandbox::new();
    let msg = "ImportError: /opt/conda/envs/paddle/lib/python3.10/site-packages/paddle/fluid/\
               libpaddle.so: undefined symbol: cudnnSetRNNDescriptor_v8";
    let old = paddle_env(&sb.path("old"), "7.6.5", cudnn7());
    let (json, code) = explain(&sb, &old.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    let a = first(&json);
    assert_eq!(a["clue"]["kind"], "symbol");
    assert_eq!(a["clue"]["component"], "cudnn");
    assert_eq!(a["verdict"], "cause");
    let diagnosis = a["diagnosis"].as_str().unwrap();
    assert!(diagnosis.contains("cuDNN 7.6.5 lacks it"), "{diagnosis}");
    assert!(
        a["fix"]["command"]
            .as_str()
            .unwrap()
            .contains("'cudnn>=8.4,<9'"),
        "{a:#}"
    );

    // Every cuDNN 8 exports it (seed 003's "8.4.x changed its exports" is
    // wrong): in an environment with 8.4.1 the process loaded another copy.
    let good = paddle_env(&sb.path("good"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    let (json, code) = explain(&sb, &good.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    let diagnosis = first(&json)["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.contains("(8.4.1) exports it, so the process loaded another copy"),
        "{diagnosis}"
    );
    assert_eq!(first(&json)["verdict"], "not-here");
}

/// cuDNN 7's files.
fn cudnn7() -> Vec<FileSpec> {
    vec![
        FileSpec::File("lib/libcudnn.so.7.6.5"),
        FileSpec::Link("lib/libcudnn.so.7", "libcudnn.so.7.6.5"),
        FileSpec::Link("lib/libcudnn.so", "libcudnn.so.7"),
    ]
}

#[test]
fn windows_messages_are_not_tied_to_a_linux_environment() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    sb.install(&env.prefix);
    for msg in [
        "OSError: [WinError 126] The specified module could not be found. Error loading \
         \"C:\\Users\\me\\miniconda3\\envs\\paddle\\lib\\site-packages\\paddle\\libs\\cudnn64_8.dll\" \
         or one of its dependencies.",
        "ImportError: DLL load failed while importing core_avx: The specified module could not be found.",
    ] {
        let (json, code) = explain(&sb, &env.prefix, msg, A100);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["verdict"], "cannot-tell");
        assert_eq!(json["known"][0]["kind"], "windows");
        assert_eq!(json["causes"], serde_json::json!([]));
    }
    let (json, _) = explain(
        &sb,
        &env.prefix,
        "OSError: [WinError 126] Error loading \"C:\\x\\cudnn64_8.dll\"",
        A100,
    );
    assert_eq!(first(&json)["clue"]["kind"], "dll");
    assert!(
        first(&json)["diagnosis"]
            .as_str()
            .unwrap()
            .contains("not LD_LIBRARY_PATH")
    );
}

#[test]
fn a_crash_lists_the_causes_envhook_can_check_and_only_those_present() {
    let sb = Sandbox::new();
    let msg = "Segmentation fault (core dumped)";
    let healthy = paddle_env(
        &sb.path("healthy"),
        "8.4.1",
        cudnn8("lib/libcudnn.so.8.4.1"),
    );
    sb.install(&healthy.prefix);
    let (text, code) = explain_text(&sb, &healthy.prefix, msg, A100);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("a crash in native code\n"), "{text}");
    assert!(
        text.contains("none of the causes it can check is present"),
        "{text}"
    );
    // cuDNN 8.2 under a build made with 8.4.
    let old = paddle_env(&sb.path("old"), "8.2.1", cudnn8("lib/libcudnn.so.8.2.1"));
    sb.install(&old.prefix);
    let (json, code) = explain(&sb, &old.prefix, msg, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(cause_codes(&json), ["cudnn-older-than-build"]);
}

#[test]
fn driver_and_kernel_image_messages_ask_the_machine() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    sb.install(&env.prefix);
    let msg = "RuntimeError: CUDA driver version is insufficient for CUDA runtime version";
    let (json, code) = explain(&sb, &env.prefix, msg, &["--driver-version", "418.67"]);
    assert_eq!(code, 1, "{json:#}");
    assert!(cause_codes(&json).contains(&"driver-too-old"), "{json:#}");
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["verdict"], "not-here");

    let msg = "CUDA error: no kernel image is available for execution on the device";
    let (json, code) = explain(
        &sb,
        &env.prefix,
        msg,
        &["--driver-version", "535.104.05", "--gpu", "sm_30"],
    );
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        json["known"][0]["title"],
        "the GPU's architecture is not in the build"
    );
    assert_eq!(cause_codes(&json), ["gpu-unsupported"], "{json:#}");
    // CUDA 11.6 builds for Kepler's 3.5 still (CUDA 12 dropped it).
    let (json, code) = explain(
        &sb,
        &env.prefix,
        msg,
        &["--driver-version", "535.104.05", "--gpu", "sm_35"],
    );
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["verdict"], "not-here");
}

#[test]
fn the_message_comes_from_standard_input_and_must_be_there() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    let traceback = "Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    \
                     import paddle\nOSError: libcudart.so.11.0: cannot open shared object file: \
                     No such file or directory\n";
    // Pasted without quotes, the words arrive one by one (#42 item 6):
    // joined, they are the message.
    let words: Vec<&str> =
        "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
            .split(' ')
            .collect();
    let out = sb
        .envhook()
        .arg("explain")
        .args(&words)
        .args(A100)
        .arg("-p")
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  libcudart.so.11.0\n"), "{text}");
    for args in [&["explain", "-"][..], &["explain"][..]] {
        let out = sb
            .envhook()
            .args(args)
            .args(A100)
            .arg("-p")
            .arg(&env.prefix)
            .write_stdin(traceback.as_bytes().to_vec())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("  libcudart.so.11.0\n"), "{text}");
    }
    // Bytes that are not UTF-8 in a captured stderr do not matter.
    let mut bytes = b"\xff\xfe progress \xe2\x96".to_vec();
    bytes.extend_from_slice(traceback.as_bytes());
    sb.envhook()
        .args(["explain", "-p"])
        .arg(&env.prefix)
        .args(A100)
        .write_stdin(bytes)
        .assert()
        .code(1);
    let out = sb
        .envhook()
        .args(["explain", "-p"])
        .arg(&env.prefix)
        .write_stdin("  \n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("error: explain needs the error message: none was given, and standard input was empty\n  hint: "),
        "{stderr}"
    );
}

#[test]
fn a_message_envhook_does_not_know_gets_no_unrelated_findings() {
    let sb = Sandbox::new();
    // An environment with findings (cuDNN older than the build).
    let env = paddle_env(&sb.path("env"), "8.2.1", cudnn8("lib/libcudnn.so.8.2.1"));
    let (text, code) = explain_text(&sb, &env.prefix, "KeyError: 'det_model_dir'", A100);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("envhook does not recognise this message"),
        "{text}"
    );
    assert!(!text.contains("cudnn-older-than-build"), "{text}");
}

#[test]
fn a_retyped_soname_and_the_drivers_own_messages() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    // Seed 003: "libcudart.so.11.6: cannot open shared object file". No
    // CUDA 11 release has that name; the answer is for libcudart.so.11.0.
    let (json, code) = explain(
        &sb,
        &env.prefix,
        "ImportError: libcudart.so.11.6: cannot open shared object file",
        A100,
    );
    assert_eq!(code, 1, "{json:#}");
    let diagnosis = first(&json)["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.starts_with("no release has libcudart.so.11.6: every CUDA 11 runtime"),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("for libcudart.so.11.0: "), "{diagnosis}");
    assert_eq!(
        first(&json)["fix"]["command"],
        format!("envhook install -p '{}'", env.prefix.display())
    );

    // The sandbox has no driver: that is the cause of an NVML failure
    // that found none ...
    let (json, code) = explain(
        &sb,
        &env.prefix,
        "Failed to initialize NVML: Driver Not Loaded",
        &[],
    );
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(cause_codes(&json), ["no-driver"]);
    assert_eq!(json["driver"], "none found");
    // ... but not of one whose module and libraries differ: that needs a
    // module, and the answer is the step that compares them.
    let msg = "Failed to initialize NVML: Driver/library version mismatch";
    let (json, code) = explain(&sb, &env.prefix, msg, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert!(cause_codes(&json).is_empty(), "{json:#}");
    assert_eq!(
        json["known"][0]["fix"]["choose"]["commands"][0],
        "cat /proc/driver/nvidia/version"
    );
    let (json, code) = explain(&sb, &env.prefix, msg, A100);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["driver"],
        "535.104.05 (--driver-version/--gpu), supports CUDA <= 12.2; A100 sm_80"
    );
}

/// ONNX Runtime 1.18 (a CUDA 11.8 build) beside CUDA 12 wheels: its
/// provider is here and names the cause; the answer ends with that cause,
/// never with "none of the known causes" (#19).
#[test]
fn the_provider_that_failed_to_load_is_here_and_names_the_cause() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/ort"));
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cublas-cu12", "12.9.1.4")
            .files(vec![FileSpec::File("nvidia/cublas/lib/libcublasLt.so.12")]),
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.18.1").files(vec![FileSpec::File(
            "onnxruntime/capi/libonnxruntime_providers_cuda.so",
        )]),
    );
    let site = env.site();
    support::cc_shared(
        &site.join("nvidia/cublas/lib/libcublasLt.so.12"),
        "libcublasLt.so.12",
        &[],
        None,
        false,
    );
    let scratch = sb.path("scratch/libcublasLt.so.11");
    support::cc_shared(&scratch, "libcublasLt.so.11", &[], None, false);
    let provider = site.join("onnxruntime/capi/libonnxruntime_providers_cuda.so");
    support::cc_shared(
        &provider,
        "libonnxruntime_providers_cuda.so",
        &[&scratch],
        None,
        false,
    );
    std::fs::remove_file(&scratch).unwrap();
    let message = "Failed to load library libonnxruntime_providers_cuda.so with error: \
                   libcublasLt.so.11: cannot open shared object file: No such file or directory";
    let (json, code) = explain(&sb, &env.prefix, message, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["verdict"], "cause");
    let it = first(&json);
    assert_eq!(it["clue"]["name"], "libonnxruntime_providers_cuda.so");
    assert_eq!(
        it["with_hook"]["path"].as_str(),
        Some(provider.to_str().unwrap())
    );
    let (text, _) = explain_text(&sb, &env.prefix, message, A100);
    assert!(
        !text.contains("has no libonnxruntime_providers_cuda.so"),
        "{text}"
    );
    assert!(!text.contains("none of the known causes"), "{text}");
    assert!(text.contains("which the build cannot use"), "{text}");
}

/// nvJitLink's entry points carry the release that added them: a cuSPARSE
/// of CUDA 12.4 needs `__nvJitLinkComplete_12_4`, which nvJitLink 12.1
/// lacks (pytorch/pytorch#134929). explain decodes it and compares the
/// environment's nvJitLink (#28, P3).
#[test]
fn an_nvjitlink_symbol_names_the_release_it_needs() {
    let sb = Sandbox::new();
    let message = "ImportError: /e/lib/python3.12/site-packages/nvidia/cusparse/lib/libcusparse.so.12: \
                   undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12";
    let mut env = Env::new(sb.path("envs/old"));
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-nvjitlink-cu12", "12.1.105").files(vec![FileSpec::File(
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        )]),
    );
    let (json, code) = explain(&sb, &env.prefix, message, A100);
    assert_eq!(code, 1, "{json:#}");
    let answer = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "__nvJitLinkComplete_12_4")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(answer["verdict"], "cause");
    assert!(
        answer["diagnosis"]
            .as_str()
            .unwrap()
            .contains("defined by nvJitLink 12.4 and newer"),
        "{answer:#}"
    );
    assert_eq!(
        answer["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'nvidia-nvjitlink-cu12>=12.4,<13'",
            env.prefix.display()
        )
    );
    // New enough here: the process loaded another copy.
    let mut env = Env::new(sb.path("envs/new"));
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-nvjitlink-cu12", "12.8.93").files(vec![FileSpec::File(
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        )]),
    );
    let (json, _) = explain(&sb, &env.prefix, message, A100);
    let answer = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "__nvJitLinkComplete_12_4")
        .unwrap();
    assert_eq!(answer["verdict"], "not-here", "{answer:#}");
}

/// A library a CUDA library needs is found as the loader finds it for
/// that library: torch's libtorch_cuda.so needs cuSPARSE, whose RUNPATH
/// leads to nvJitLink's wheel (the real torch 2.5.1 imports without the
/// hook). "libnvJitLink.so.12: cannot open shared object file" did not come
/// from here, and the hook is no fix for it (#41: it was "cause", `envhook
/// install`, on the real wheels).
#[test]
fn a_dependency_found_through_its_callers_runpath_is_not_missing() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/torch"));
    env.python("3.11.7");
    let (jit, sparse) = (
        "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        "nvidia/cusparse/lib/libcusparse.so.12",
    );
    env.pip(PipDist::new("nvidia-nvjitlink-cu12", "12.4.127").files(vec![FileSpec::File(jit)]));
    env.pip(PipDist::new("nvidia-cusparse-cu12", "12.3.1.170").files(vec![FileSpec::File(sparse)]));
    env.pip(
        PipDist::new("torch", "2.5.1")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.5.1'\ncuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n",
            ),
    );
    let site = env.site();
    support::cc_shared(&site.join(jit), "libnvJitLink.so.12", &[], None, false);
    support::cc_shared(
        &site.join(sparse),
        "libcusparse.so.12",
        &[&site.join(jit)],
        Some("$ORIGIN/../../nvjitlink/lib"),
        true,
    );
    support::cc_shared(
        &site.join("torch/lib/libtorch_cuda.so"),
        "libtorch_cuda.so",
        &[&site.join(sparse)],
        Some("$ORIGIN/../../nvidia/cusparse/lib"),
        true,
    );
    let message =
        "OSError: libnvJitLink.so.12: cannot open shared object file: No such file or directory";
    let (json, code) = explain(&sb, &env.prefix, message, A100);
    let answer = first(&json);
    assert_eq!(answer["without_hook"]["rule"], "runpath", "{answer:#}");
    assert_eq!(answer["verdict"], "not-here", "{answer:#}");
    assert_eq!(code, 0, "{json:#}");
}

/// A record or dist-info envhook could not read leaves what the
/// environment holds unknown: explain says so, and the repair, instead of
/// "the message came from another environment" (#31 item 12).
#[test]
fn an_unreadable_record_is_said_not_blamed_on_another_environment() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/torn"));
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", "9.1.0.70")
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.9")]),
    );
    std::fs::remove_file(
        env.site()
            .join("nvidia_cudnn_cu12-9.1.0.70.dist-info/METADATA"),
    )
    .unwrap();
    let (json, code) = explain(
        &sb,
        &env.prefix,
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
        A100,
    );
    assert_eq!(code, 0, "{json:#}");
    let answer = first(&json);
    assert_eq!(answer["verdict"], "cannot-tell", "{answer:#}");
    let diagnosis = answer["diagnosis"].as_str().unwrap();
    assert!(diagnosis.contains("is not known"), "{diagnosis}");
    assert!(!diagnosis.contains("another environment"), "{diagnosis}");
    assert!(
        answer["fix"]["command"]
            .as_str()
            .unwrap()
            .contains("--force-reinstall"),
        "{answer:#}"
    );
}
