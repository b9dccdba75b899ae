//! `envhook show` on prefixes laid out like real environments: CUDA 11
//! conda, CUDA 12 split packages, pip nvidia wheels (CUDA 12 and 13),
//! CPU-only, mixed conda + pip, Windows layout, and broken installs.

use crate::support;

use std::fs;
use std::path::Path;

use serde_json::Value;
use support::{CondaPkg, Env, FileSpec, PipDist, Sandbox};

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn codes(json: &Value) -> Vec<&str> {
    json["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| s(&p["code"]))
        .collect()
}

fn dirs(json: &Value) -> Vec<String> {
    json["library_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| s(&d["path"]).to_string())
        .collect()
}

/// The package called `name` in the inventory JSON.
fn package<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no package {name}"))
}

/// The library of `pkg` whose path ends with `suffix`.
fn library<'a>(pkg: &'a Value, suffix: &str) -> &'a Value {
    pkg["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| s(&l["path"]).ends_with(suffix))
        .unwrap_or_else(|| panic!("no library {suffix}"))
}

fn p(prefix: &Path, rel: &str) -> String {
    prefix.join(rel).display().to_string()
}

#[test]
fn cuda11_cudatoolkit_with_paddle_wheel() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["schema"], "envhook.inventory/2");
    assert_eq!(json["platform"], "linux-64");
    assert_eq!(json["cuda"][0]["version"], "11.8");
    assert_eq!(json["cuda"][0]["package"], "cudatoolkit");
    assert_eq!(json["cuda"].as_array().unwrap().len(), 1);
    assert_eq!(json["cudnn"][0]["version"], "8.9.2.26");
    assert_eq!(json["cublas"][0]["package"], "cudatoolkit");
    assert_eq!(json["nccl"], serde_json::json!([]));
    let fw = &json["frameworks"][0];
    assert_eq!(fw["framework"], "paddlepaddle");
    assert_eq!(fw["version"], "2.5.2.post116");
    assert_eq!(fw["installer"], "pip");
    assert_eq!(
        fw["build"]["variant"],
        serde_json::json!({"kind": "cuda", "cuda": "11.6", "cudnn": "8.4.0"})
    );
    assert!(s(&fw["build"]["evidence"]).starts_with("paddle/version/__init__.py"));
    assert_eq!(dirs(&json), vec![p(&env.prefix, "lib")]);
    assert_eq!(json["library_dirs"][0]["holds"], "mixed");
    // The inventory finds nothing wrong; check's rules do (no hook, no
    // driver to check against, an optional library).
    assert_eq!(
        codes(&json),
        vec!["needs-hook", "no-driver", "optional-library-missing"]
    );
    // Only cudatoolkit and cudnn are parsed: python and openssl are known by name only.
    assert_eq!(json["stats"]["records_total"], 4);
    assert_eq!(json["stats"]["records_parsed"], 2);
    // The symlink chain resolves to the real file.
    let cudart = library(package(&json, "cudatoolkit"), "lib/libcudart.so");
    assert_eq!(cudart["status"], "ok");
    assert_eq!(cudart["component"], "cudart");
    assert!(s(&cudart["resolves_to"]).ends_with("lib/libcudart.so.11.8.89"));
    // The env's libcrypto is not a CUDA library and is not reported.
    assert!(!json.to_string().contains("libcrypto"));
}

#[test]
fn paddle_without_version_file_falls_back_to_the_post_tag() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    fs::remove_file(env.site().join("paddle/version/__init__.py")).unwrap();
    let (json, _) = support::show_json(&sb, &env.prefix);
    let fw = &json["frameworks"][0];
    assert_eq!(
        fw["build"]["variant"],
        serde_json::json!({"kind": "cuda", "cuda": "11.6", "cudnn": null})
    );
    assert_eq!(fw["build"]["evidence"], "version suffix .post116");
}

#[test]
fn cuda12_split_packages_and_targets_dir() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("envs/torch"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "info findings do not fail: {json:#}");
    // cuda-version 12.6 and cuda-cudart 12.6.77 agree: one claim.
    assert_eq!(
        json["cuda"].as_array().unwrap().len(),
        1,
        "{:#}",
        json["cuda"]
    );
    assert_eq!(json["cuda"][0]["version"], "12.6");
    assert_eq!(json["cublas"][0]["version"], "12.6.4.1");
    assert_eq!(json["nccl"][0]["version"], "2.23.4.1");
    assert_eq!(json["cudnn"][0]["version"], "9.3.0.75");
    assert_eq!(
        dirs(&json),
        vec![
            p(&env.prefix, "lib"),
            p(&env.prefix, "targets/x86_64-linux/lib")
        ]
    );
    // The stub directory never becomes a library directory.
    assert!(dirs(&json).iter().all(|d| !d.contains("stubs")));
    assert_eq!(codes(&json), vec!["driver-stub", "no-driver"]);
    // pytorch + libtorch are one build, reported under pytorch.
    let fws = json["frameworks"].as_array().unwrap();
    assert_eq!(fws.len(), 1, "{fws:#?}");
    assert_eq!(fws[0]["package"], "pytorch");
    assert_eq!(fws[0]["build"]["variant"]["cuda"], "12.0");
}

#[test]
fn pip_nvidia_wheels_cuda12() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        json["cuda"][0],
        serde_json::json!({
            "version": "12.1", "installer": "pip", "package": "nvidia-cuda-runtime-cu12", "package_version": "12.1.105"
        })
    );
    assert_eq!(json["cudnn"][0]["version"], "8.9.2.26");
    let site = env.site();
    let nv = |lib: &str| {
        site.join("nvidia")
            .join(lib)
            .join("lib")
            .display()
            .to_string()
    };
    assert_eq!(
        dirs(&json),
        vec![nv("cuda_runtime"), nv("cublas"), nv("cudnn"), nv("nccl")]
    );
    let fw = &json["frameworks"][0];
    assert_eq!(fw["package"], "torch");
    assert_eq!(fw["build"]["variant"]["cuda"], "12.1");
    assert_eq!(fw["build"]["evidence"], "torch/version.py: cuda = '12.1'");
    let cudnn = package(&json, "nvidia-cudnn-cu12");
    assert_eq!(cudnn["cuda_major"], 12);
    // numpy is not read at all.
    assert_eq!(json["stats"]["dist_infos_total"], 6);
    assert_eq!(json["stats"]["dist_infos_read"], 5);
}

#[test]
fn pip_cuda13_shares_nvidia_cu13_lib() {
    let sb = Sandbox::new();
    let env = support::pip_cuda13(&sb.path("env"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["cuda"][0]["version"], "13.0");
    assert_eq!(json["cuda"][0]["package"], "nvidia-cuda-runtime");
    let site = env.site();
    let cu13 = site.join("nvidia/cu13/lib").display().to_string();
    assert_eq!(dirs(&json)[0], cu13);
    assert_eq!(
        json["library_dirs"][0]["components"],
        serde_json::json!(["cublas", "cudart"])
    );
    let cudnn = package(&json, "nvidia-cudnn-cu13");
    assert_eq!(cudnn["cuda_major"], 13);
    let fw = &json["frameworks"][0];
    assert_eq!(
        fw["build"]["variant"],
        serde_json::json!({"kind": "cuda", "cuda": "13.0", "cudnn": "9.13.0"})
    );
}

#[test]
fn cpu_only_env() {
    let sb = Sandbox::new();
    let env = support::cpu_only(&sb.path("env"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0);
    assert_eq!(json["cuda"], serde_json::json!([]));
    assert_eq!(json["library_dirs"], serde_json::json!([]));
    let kinds: Vec<(&str, &str)> = json["frameworks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (s(&f["package"]), s(&f["build"]["variant"]["kind"])))
        .collect();
    assert_eq!(kinds, vec![("pytorch", "cpu"), ("paddlepaddle", "cpu")]);
    let text = sb
        .envhook()
        .args(["show", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("CUDA runtime  none"), "{text}");
    assert!(text.contains("built for CPU only"), "{text}");
}

#[test]
fn mixed_conda_and_pip_runtimes_are_a_finding() {
    let sb = Sandbox::new();
    let env = support::mixed(&sb.path("env"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    let versions: Vec<(&str, &str)> = json["cuda"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (s(&c["version"]), s(&c["installer"])))
        .collect();
    assert_eq!(versions, vec![("11.8", "conda"), ("12.1", "pip")]);
    assert_eq!(
        codes(&json),
        vec![
            "mixed-cuda-runtimes",
            "shadowed-library",
            "needs-hook",
            "no-driver",
            "optional-library-missing"
        ]
    );
    // conda's lib/ comes before pip's directories.
    assert_eq!(dirs(&json)[0], p(&env.prefix, "lib"));
    assert_eq!(json["frameworks"].as_array().unwrap().len(), 2);
}

#[test]
fn missing_library_is_a_broken_install() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    fs::remove_file(env.path("lib/libcudnn_cnn_infer.so.8.9.2")).unwrap();
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    let problem = &json["problems"][0];
    assert_eq!(problem["code"], "broken-install");
    assert_eq!(problem["severity"], "error");
    let msg = s(&problem["message"]);
    // The file and the dangling symlink that pointed at it.
    assert!(
        msg.starts_with("cudnn 8.9.2.26 (conda): 2 of 7 listed libraries are broken"),
        "{msg}"
    );
    assert!(s(&problem["path"]).ends_with("conda-meta/cudnn-8.9.2.26-cuda11_0.json"));
    assert!(s(&problem["fix"]["command"]).contains("--force-reinstall 'cudnn=8.9.2.26'"));
    let cudnn = package(&json, "cudnn");
    let status = |suffix: &str| library(cudnn, suffix)["status"].clone();
    assert_eq!(status("libcudnn_cnn_infer.so.8.9.2"), "missing");
    assert_eq!(status("libcudnn_cnn_infer.so.8"), "dangling-symlink");
}

#[test]
fn symlink_loops_are_reported_not_followed_forever() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("env"));
    let a = env.path("lib/libcudnn.so.8");
    fs::remove_file(&a).unwrap();
    std::os::unix::fs::symlink("libcudnn.so.8.loop", &a).unwrap();
    std::os::unix::fs::symlink("libcudnn.so.8", env.path("lib/libcudnn.so.8.loop")).unwrap();
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    let lib = library(package(&json, "cudnn"), "lib/libcudnn.so.8");
    assert_eq!(lib["status"], "symlink-loop");
    assert!(s(&json["problems"][0]["message"]).contains("a symlink loop"));
}

#[test]
fn missing_pip_library_is_a_broken_install() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    fs::remove_file(env.site().join("nvidia/cudnn/lib/libcudnn_cnn_infer.so.8")).unwrap();
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    assert_eq!(codes(&json), vec!["broken-install", "no-driver"]);
    let hint = s(&json["problems"][0]["fix"]["command"]);
    assert!(
        hint.contains("pip install --force-reinstall --no-deps 'nvidia-cudnn-cu12==8.9.2.26'"),
        "{hint}"
    );
}

#[test]
fn five_hundred_records_parse_only_the_few_of_interest() {
    let sb = Sandbox::new();
    let mut env = support::cuda11_paddle(&sb.path("env"));
    // 496 records that are not even JSON: opening any of them would fail.
    env.filler(496, true);
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["stats"]["records_total"], 500);
    assert_eq!(json["stats"]["records_parsed"], 2);
}

#[test]
fn conda_owned_dist_info_is_not_a_second_install() {
    let sb = Sandbox::new();
    let mut env = support::cuda12_split(&sb.path("env"));
    // conda-forge's pytorch ships torch-2.4.1.dist-info with INSTALLER=conda.
    env.pip(PipDist::new("torch", "2.4.1").installer("conda"));
    let (json, _) = support::show_json(&sb, &env.prefix);
    assert_eq!(json["frameworks"].as_array().unwrap().len(), 1);
    assert!(!codes(&json).contains(&"framework-from-conda-and-pip"));

    // `pip install torch` on top of conda's pytorch is a real second copy.
    let sb = Sandbox::new();
    let mut env = support::cuda12_split(&sb.path("env"));
    env.pip(
        PipDist::new("torch", "2.5.1").files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")]),
    );
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    assert!(
        codes(&json).contains(&"framework-from-conda-and-pip"),
        "{:?}",
        codes(&json)
    );
}

#[test]
fn cudnn_metapackage_without_libraries() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    env.conda(CondaPkg::new("cuda-version", "12.6", "h7480c83_3").noarch());
    env.conda(
        CondaPkg::new("cudnn", "9.8.0.87", "h81d5506_0").depends(vec!["libcudnn-dev 9.8.0.87"]),
    );
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    assert_eq!(codes(&json), vec!["cudnn-without-libraries", "no-driver"]);
    assert!(s(&json["problems"][0]["fix"]["command"]).contains("'libcudnn' 'libcudnn-dev'"));
}

#[test]
fn windows_layout_env() {
    use FileSpec::*;
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("winenv"));
    let mut toolkit = CondaPkg::new("cudatoolkit", "11.2.2", "h7d7167e_11").files(vec![
        File("Library/bin/cudart64_110.dll"),
        File("Library/bin/cublas64_11.dll"),
        File("Library/bin/cublasLt64_11.dll"),
        File("DLLs/nvvm64_40_0.dll"),
    ]);
    toolkit.subdir = "win-64";
    env.conda(toolkit);
    let mut cudnn = CondaPkg::new("cudnn", "8.1.0.77", "h3e0f4f4_0")
        .files(vec![File("Library/bin/cudnn64_8.dll")]);
    cudnn.subdir = "win-64";
    env.conda(cudnn);
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["platform"], "win-64");
    assert_eq!(json["cuda"][0]["version"], "11.2");
    assert_eq!(dirs(&json)[0], p(&env.prefix, "Library/bin"));
}

#[test]
fn json_document_has_the_documented_shape() {
    let sb = Sandbox::new();
    let env = support::mixed(&sb.path("env"));
    let (json, _) = support::show_json(&sb, &env.prefix);
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = vec![
        "schema",
        "prefix",
        "platform",
        "cuda",
        "cudnn",
        "nccl",
        "cublas",
        "frameworks",
        "library_dirs",
        "packages",
        "problems",
        "stats",
    ];
    want.sort();
    let mut got = keys.clone();
    got.sort();
    assert_eq!(got, want);
    let pkg_keys: Vec<&str> = json["packages"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for k in [
        "name",
        "version",
        "build",
        "installer",
        "metadata",
        "role",
        "component",
        "framework",
        "cuda_major",
        "libraries",
    ] {
        assert!(pkg_keys.contains(&k), "package lacks {k}");
    }
    for problem in json["problems"].as_array().unwrap() {
        for k in ["severity", "code", "message", "fix", "path"] {
            assert!(problem.get(k).is_some(), "problem lacks {k}");
        }
    }
}

/// The JSON's `problems` are the findings the text lists (#42): the same
/// warnings in the same order, the notes it counts, each as `check --json`
/// reports it.
#[test]
fn json_problems_are_the_findings_the_text_lists() {
    let sb = Sandbox::new();
    let env = support::mixed(&sb.path("env"));
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 1);
    let text = sb
        .envhook()
        .args(["show", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let listed: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "problems")
        .skip(1)
        .take_while(|l| l.starts_with("  ") && !l.starts_with("  ("))
        .collect();
    assert_eq!(listed.len(), 3, "{text}");
    let problems = json["problems"].as_array().unwrap();
    let loud: Vec<String> = problems
        .iter()
        .filter(|p| p["severity"] != "info")
        .map(|p| format!("  {}[{}]", s(&p["severity"]), s(&p["code"])))
        .collect();
    let shown: Vec<String> = listed
        .iter()
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(loud, shown);
    let notes = problems.len() - loud.len();
    assert!(
        text.contains(&format!("and {notes} notes)")),
        "{notes}: {text}"
    );
    let check = sb
        .envhook()
        .args(["check", "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let check: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(json["problems"], check["findings"]);
}

#[test]
fn show_writes_nothing() {
    let sb = Sandbox::new();
    let env = support::mixed(&sb.path("env"));
    let before = support::snapshot(sb.dir.path());
    sb.envhook()
        .args(["show", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(1);
    sb.envhook()
        .args(["show", "--json", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(1);
    assert_eq!(support::snapshot(sb.dir.path()), before);
}

#[test]
fn human_output() {
    let sb = Sandbox::new();
    let env = support::mixed(&sb.path("env"));
    let out = sb
        .envhook()
        .args(["show", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&sb.dir.path().display().to_string(), "[SANDBOX]");
    insta::assert_snapshot!(text);
}

#[test]
fn tensorflow_jax_and_onnxruntime_builds() {
    use FileSpec::*;
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("env"));
    env.python("3.11.9");
    env.pip(
        PipDist::new("tensorflow", "2.15.0")
            .files(vec![File("tensorflow/libtensorflow_framework.so.2")])
            .text(
                "tensorflow/python/platform/build_info.py",
                "# Auto-generated\nimport collections\n\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/gcc'), ('cuda_compute_capabilities', ['sm_50', 'sm_90']), ('cuda_version', '12.2'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])\n",
            ),
    );
    env.pip(PipDist::new("jaxlib", "0.4.30"));
    env.pip(
        PipDist::new("jax-cuda12-plugin", "0.4.30")
            .files(vec![File("jax_plugins/xla_cuda12/xla_cuda_plugin.so")]),
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.18.1")
            .files(vec![File("onnxruntime/capi/libonnxruntime_providers_cuda.so")])
            .text(
                "onnxruntime/capi/build_and_package_info.py",
                "package_name = 'onnxruntime-gpu'\n__version__ = '1.18.1'\ncuda_version = '12.4'\ncudnn_version = '9.1'\n",
            ),
    );
    let (json, code) = support::show_json(&sb, &env.prefix);
    assert_eq!(code, 0, "{json:#}");
    let builds: Vec<(String, Value)> = json["frameworks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (s(&f["package"]).to_string(), f["build"]["variant"].clone()))
        .collect();
    assert_eq!(
        builds,
        vec![
            (
                "jax-cuda12-plugin".into(),
                serde_json::json!({"kind": "cuda", "cuda": "12", "cudnn": null})
            ),
            ("jaxlib".into(), serde_json::json!({"kind": "cpu"})),
            (
                "onnxruntime-gpu".into(),
                serde_json::json!({"kind": "cuda", "cuda": "12.4", "cudnn": "9.1"})
            ),
            (
                "tensorflow".into(),
                serde_json::json!({"kind": "cuda", "cuda": "12.2", "cudnn": "8"})
            ),
        ]
    );
}
