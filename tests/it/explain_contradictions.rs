//! `envhook explain` answers that must not contradict the message or
//! themselves (#41, group 4): the shell's own LD_LIBRARY_PATH named as the
//! cause where it supplies the wrong library, and no "none of the known
//! causes" after an answer that names the cause.

use crate::support;

use serde_json::Value;
use support::explaining::{A100, explain_with, text};
use support::{Env, FileSpec, PipDist, Sandbox};

/// vllm-project/vllm#10300's message (torch 2.5.1's cuSPARSE of CUDA 12.4).
const NVJITLINK: &str = "ImportError: /opt/conda/envs/vllmsource/lib/python3.11/site-packages/\
                         torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined \
                         symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12";

/// An environment whose nvJitLink (12.8.93) defines the symbol.
fn new_nvjitlink(sb: &Sandbox) -> Env {
    let mut env = Env::new(sb.path("envs/new"));
    env.python("3.12.8");
    env.pip(
        PipDist::new("nvidia-nvjitlink-cu12", "12.8.93").files(vec![FileSpec::File(
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        )]),
    );
    env
}

/// A CUDA 12.1 toolkit's lib64 as infiniflow/ragflow#4466's shell had it
/// on LD_LIBRARY_PATH (`/usr/local/cuda-12.1/lib64:`): its nvJitLink is
/// 12.1.105.
fn cuda121_lib64(sb: &Sandbox) -> String {
    let dir = sb.path("usr/local/cuda-12.1/lib64");
    std::fs::create_dir_all(&dir).unwrap();
    support::cc_shared(
        &dir.join("libnvJitLink.so.12.1.105"),
        "libnvJitLink.so.12",
        &[],
        None,
        false,
    );
    std::os::unix::fs::symlink("libnvJitLink.so.12.1.105", dir.join("libnvJitLink.so.12")).unwrap();
    dir.to_str().unwrap().to_string()
}

fn symbol_answer(json: &Value) -> &Value {
    json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "__nvJitLinkComplete_12_4")
        .unwrap_or_else(|| panic!("{json:#}"))
}

/// The environment's nvJitLink would do; the shell's LD_LIBRARY_PATH puts
/// CUDA 12.1's first. That variable is the cause, here, in this shell:
/// not "another environment" (#41 item 4b).
#[test]
fn the_shells_ld_library_path_is_the_cause_not_another_environment() {
    let sb = Sandbox::new();
    let env = new_nvjitlink(&sb);
    let lib64 = cuda121_lib64(&sb);
    let value = format!("{lib64}:/opt/other/lib:");
    let vars = [("LD_LIBRARY_PATH", value.as_str())];
    let (json, code) = explain_with(&sb, &env.prefix, NVJITLINK, A100, &vars);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["verdict"], "cause", "{json:#}");
    let a = symbol_answer(&json);
    assert_eq!(a["verdict"], "cause", "{a:#}");
    let diagnosis = text(&a["diagnosis"]);
    assert!(
        diagnosis.contains(&format!(
            "this shell's LD_LIBRARY_PATH puts {lib64}/libnvJitLink.so.12 first, nvJitLink 12.1.105"
        )),
        "{diagnosis}"
    );
    assert!(!diagnosis.contains("another environment"), "{diagnosis}");
    assert_eq!(
        a["fix"]["command"], "export LD_LIBRARY_PATH='/opt/other/lib'",
        "{a:#}"
    );
    // Nothing in the answer, for the symbol or the library, blames
    // another environment.
    let (shown, _) = explain_text_with(&sb, &env, &vars);
    assert!(!shown.contains("another environment"), "{shown}");
    // Without that variable, the symbol's copy came from elsewhere, as
    // before.
    let (json, _) = explain_with(&sb, &env.prefix, NVJITLINK, A100, &[]);
    assert_eq!(symbol_answer(&json)["verdict"], "not-here", "{json:#}");
}

/// `explain_text` with variables set.
fn explain_text_with(sb: &Sandbox, env: &Env, vars: &[(&str, &str)]) -> (String, i32) {
    let mut cmd = sb.envhook();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd
        .arg("explain")
        .arg(NVJITLINK)
        .args(A100)
        .arg("-p")
        .arg(&env.prefix)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

/// A message, the extra arguments and variables, the exit code and
/// verdict expected.
type Case<'a> = (
    &'a str,
    &'a [&'a str],
    &'a [(&'a str, &'a str)],
    i32,
    &'a str,
);

/// One rule for explain's exit code, whichever side the cause is on (#41
/// item 4d): 1 for a cause found here (the environment's, this machine's
/// driver, this shell's variable), 0 for none found here (a driver that
/// meets the floor, a cause envhook cannot check), each with the verdict
/// that says so; and the contract (`envhook man`) states that rule.
#[test]
fn exit_codes_follow_one_rule_on_every_side() {
    let sb = Sandbox::new();
    let env = support::explaining::torch_cu128(&sb.path("envs/torch"));
    // The CUDA runtime's cudaErrorInsufficientDriver text as torch prints
    // it; "No CUDA GPUs are available" (c10/cuda/CUDAFunctions.cpp); NVML's
    // NVML_ERROR_LIB_RM_VERSION_MISMATCH as nvidia-smi prints it.
    let insufficient =
        "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version";
    let nvml = "Failed to initialize NVML: Driver/library version mismatch";
    let cases: &[Case] = &[
        // This machine has no driver: found here, on the machine.
        (insufficient, &[], &[], 1, "cause"),
        // A driver too old for the build: found here, on the machine.
        (
            insufficient,
            &["--driver-version", "470.82.01", "--gpu", "A100"],
            &[],
            1,
            "cause",
        ),
        // A driver that meets it: not here.
        (insufficient, A100, &[], 0, "not-here"),
        // This shell hides the GPUs: found here, in the shell.
        (
            "RuntimeError: No CUDA GPUs are available",
            A100,
            &[("CUDA_VISIBLE_DEVICES", "")],
            1,
            "cause",
        ),
        // The driver's module against its libraries: not checked here.
        (nvml, A100, &[], 0, "not-here"),
    ];
    for (message, extra, vars, code, verdict) in cases {
        let (json, got) = explain_with(&sb, &env.prefix, message, extra, vars);
        assert_eq!(
            (got, json["verdict"].as_str().unwrap()),
            (*code, *verdict),
            "{message} {extra:?} {vars:?}: {json:#}"
        );
    }
    let man = sb.run(&["man"]).1;
    assert!(
        man.contains("on this machine or in this shell")
            && man.contains("one envhook cannot check"),
        "the contract does not state explain's rule: {man}"
    );
}
