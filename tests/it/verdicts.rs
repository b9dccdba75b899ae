//! Issue #10: verdicts that match reality on the layouts real tools
//! produce. Each test is one case the field tests saw go wrong: conda's
//! CUDA 12 `lib/ -> targets/` links, a framework without its CUDA stack (one
//! finding, one fix, install agreeing with check), the driver's own
//! libraries, the OpenCL loader a CUDA wheel carries, a 20 kB RUNPATH, and
//! JAX's core object in `jax-cuda12-pjrt`, names loaded at run time from
//! the object that loads them (TensorFlow, ONNX Runtime) or by path from the
//! wheels (JAX), the GPU code in real fatbins, the frameworks' pins, cuDNN's
//! GPUs. Objects are real ELF built with `cc`.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::{Env, FileSpec, PipDist, Sandbox, check_json, codes, findings_of};

/// A pip wheel that installs one real library (built by `cc` with that
/// soname at `rel` under site-packages), as the nvidia-* wheels do; the
/// library's path.
fn wheel_lib(
    env: &mut Env,
    dist: &'static str,
    version: &'static str,
    rel: &'static str,
) -> std::path::PathBuf {
    env.pip(PipDist::new(dist, version).files(vec![FileSpec::File(rel)]));
    let path = env.site().join(rel);
    let soname = path.file_name().unwrap().to_str().unwrap().to_string();
    support::cc_shared(&path, &soname, &[], None, false);
    path
}

/// PyPI's paddlepaddle-gpu 2.6.2 alone: a CUDA 11.8 / cuDNN 8.6 build that
/// declares no nvidia-* dependency and dlopens unversioned names.
fn paddle_alone(prefix: &Path) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    env.pip(
        PipDist::new("paddlepaddle-gpu", "2.6.2")
            .files(vec![FileSpec::File("paddle/base/libpaddle.so")])
            .text(
                "paddle/version/__init__.py",
                "full_version    = '2.6.2'\ncuda_version    = '11.8'\ncudnn_version   = '8.6.0'\nwith_pip_cuda_libraries = 'OFF'\n",
            ),
    );
    support::cc_shared(
        &env.site().join("paddle/base/libpaddle.so"),
        "libpaddle.so",
        &[],
        None,
        false,
    );
    env
}

#[test]
fn framework_without_its_cuda_stack_gets_one_finding_with_one_fix() {
    let sb = Sandbox::new();
    let env = paddle_alone(&sb.path("envs/paddle"));
    let (json, code) = check_json(&sb, &env.prefix, &["--driver-version", "535.104.05"]);
    assert_eq!(code, 1);
    let missing = findings_of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    let f = missing[0];
    assert_eq!(f["severity"], "error");
    let message = f["message"].as_str().unwrap();
    for name in ["libcudnn.so", "libcublas.so", "libcurand.so"] {
        assert!(message.contains(name), "{message}");
    }
    let p = env.prefix.display();
    assert_eq!(
        f["fix"]["command"],
        format!(
            "'{p}/bin/python' -m pip install 'cuda-toolkit[cublas,cufft,curand,cusolver,cusparse,nvrtc]==11.8.*' \
             'nvidia-cudnn-cu11>=8.6,<9' && envhook install -p '{p}'"
        )
    );
    // The same cause is not reported again with other fixes.
    let all = codes(&json);
    assert!(
        !all.iter()
            .any(|c| c == "no-cuda-runtime" || c == "no-cudnn"),
        "{all:?}"
    );
    // NCCL is only for several GPUs: an info, with a fix that agrees.
    let nccl = findings_of(&json, "optional-library-missing");
    assert_eq!(nccl.len(), 1, "{all:?}");
    assert_eq!(nccl[0]["severity"], "info");
    assert_eq!(
        nccl[0]["fix"]["command"],
        format!("'{p}/bin/python' -m pip install 'nvidia-nccl-cu11'")
    );

    // install agrees: no hooks to write yet, the same finding, exit 1.
    let (code, out, err) = sb.run_on(&["install", "--dry-run"], &env.prefix);
    assert_eq!((code, err.as_str()), (1, ""), "{out}");
    assert!(out.contains("no hooks to write"), "{out}");
    assert!(
        out.contains(&format!("error[library-not-found]: {}", message)),
        "{out}"
    );
}

#[test]
fn conda_cuda12_layout_has_one_library_per_file() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("envs/torch"));
    let (code, out, err) = sb.run_on(&["install", "--dry-run"], &env.prefix);
    assert!(!out.contains("shadowed-library"), "{out}");
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
}

#[test]
fn the_opencl_loader_of_a_cuda_wheel_is_not_exposed() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/cu11"));
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu11", "11.8.89").files(vec![
            FileSpec::File("nvidia/cuda_runtime/lib/libcudart.so.11.0"),
            FileSpec::File("nvidia/cuda_runtime/lib/libOpenCL.so.1"),
        ]),
    );
    sb.install(&env.prefix);
    let link = env.path("lib/envhook/cuda");
    assert!(link.join("libcudart.so.11.0").exists());
    assert!(!link.join("libOpenCL.so.1").exists());
    assert!(!link.join("libOpenCL.so").exists());
}

/// An ONNX Runtime-like CUDA provider that needs the driver's libcuda.so.1.
fn needs_libcuda(prefix: &Path) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cuda-runtime", "13.0.96")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.23.0")
            .files(vec![FileSpec::File(
                "onnxruntime/capi/libonnxruntime_providers_cuda.so",
            )])
            .text(
                "onnxruntime/capi/build_and_package_info.py",
                "package_name = 'onnxruntime-gpu'\n__version__ = '1.23.0'\ncuda_version = '13.0'\ncudnn_version = '9.13'\n",
            ),
    );
    let site = env.site();
    let cudart = site.join("nvidia/cu13/lib/libcudart.so.13");
    support::cc_shared(&cudart, "libcudart.so.13", &[], None, false);
    let stub = sb_stub(prefix);
    support::cc_shared(&stub, "libcuda.so.1", &[], None, false);
    support::cc_shared(
        &site.join("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[&cudart, &stub],
        Some("$ORIGIN/../../nvidia/cu13/lib"),
        true,
    );
    std::fs::remove_file(&stub).unwrap();
    env
}

/// A scratch place for a libcuda.so.1 to link against (removed again: the
/// driver's library is not on this fake machine).
fn sb_stub(prefix: &Path) -> std::path::PathBuf {
    prefix.parent().unwrap().join("scratch/libcuda.so.1")
}

#[test]
fn the_drivers_libraries_are_never_something_to_install() {
    let sb = Sandbox::new();
    let env = needs_libcuda(&sb.path("envs/ort"));
    // This machine's driver is reported (nvidia-smi answers), but its
    // libcuda.so.1 is nowhere: the driver's problem, said so.
    let smi = sb.path("bin/nvidia-smi");
    std::fs::write(
        &smi,
        "#!/bin/sh\necho '580.95.05, NVIDIA A100-SXM4-40GB, 8.0'\n",
    )
    .unwrap();
    std::fs::set_permissions(&smi, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    let all = codes(&json);
    assert!(!all.contains(&"library-not-found".to_string()), "{all:?}");
    let f = findings_of(&json, "driver-library-missing");
    assert_eq!(f.len(), 1, "{all:?}");
    assert!(f[0]["message"].as_str().unwrap().contains("libcuda.so.1"));
    assert!(
        f[0]["fix"]["choose"]["advice"]
            .as_str()
            .unwrap()
            .contains("NVIDIA container toolkit"),
        "{}",
        f[0]["fix"]
    );
    // Checked for another machine: that machine's driver provides it.
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "580.95.05"]);
    let all = codes(&json);
    assert!(
        !all.iter()
            .any(|c| c == "library-not-found" || c == "driver-library-missing"),
        "{all:?}"
    );
    // No driver at all (a build host): the driver rule's info says it.
    std::fs::remove_file(&smi).unwrap();
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    let all = codes(&json);
    assert!(
        !all.iter()
            .any(|c| c == "library-not-found" || c == "driver-library-missing"),
        "{all:?}"
    );
}

#[test]
fn a_20_kb_runpath_is_followed() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/tf"));
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.5.82").files(vec![FileSpec::File(
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        )]),
    );
    env.pip(
        PipDist::new("tensorflow", "2.21.0")
            .files(vec![FileSpec::File("tensorflow/libtensorflow_framework.so.2")])
            .text(
                "tensorflow/python/platform/build_info.py",
                "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True)])\n",
            ),
    );
    let site = env.site();
    let cudart = site.join("nvidia/cuda_runtime/lib/libcudart.so.12");
    support::cc_shared(&cudart, "libcudart.so.12", &[], None, false);
    // TensorFlow's RUNPATH lists every nvidia/*/lib, 668 entries: the real
    // one comes last.
    let mut runpath: Vec<String> = (0..667)
        .map(|i| format!("$ORIGIN/../nvidia/component{i:03}/lib"))
        .collect();
    runpath.push("$ORIGIN/../nvidia/cuda_runtime/lib".into());
    let runpath = runpath.join(":");
    assert!(runpath.len() > 20_000);
    support::cc_shared(
        &site.join("tensorflow/libtensorflow_framework.so.2"),
        "libtensorflow_framework.so.2",
        &[&cudart],
        Some(&runpath),
        true,
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    assert!(!codes(&json).contains(&"elf-unreadable".to_string()));
    let names = &json["libraries"][0]["names"];
    assert_eq!(
        names[0]["name"], "libcudart.so.12",
        "{:#}",
        json["libraries"]
    );
    assert_eq!(names[0]["without_hook"]["rule"], "runpath");
    let found = Path::new(names[0]["without_hook"]["path"].as_str().unwrap());
    assert_eq!(
        found.canonicalize().unwrap(),
        cudart.canonicalize().unwrap()
    );
}

/// TensorFlow 2.21's wheel without its libraries: the framework object
/// is for the test to build.
fn tf_221(sb: &Sandbox) -> Env {
    let mut env = Env::new(sb.path("envs/tf"));
    env.python("3.11.9");
    env.pip(
        PipDist::new("tensorflow", "2.21.0")
            .files(vec![FileSpec::File("tensorflow/libtensorflow_framework.so.2")])
            .text(
                "tensorflow/python/platform/build_info.py",
                "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True)])\n",
            ),
    );
    env
}

/// A RUNPATH of 1100 elements (#38): the first 1024 are searched and
/// printed, the object says how many were dropped, and `check` notes it.
#[test]
fn a_runpath_past_1024_elements_is_cut_and_said() {
    let sb = Sandbox::new();
    let env = tf_221(&sb);
    let runpath: Vec<String> = (0..1100).map(|i| format!("/r{i}")).collect();
    support::cc_shared(
        &env.site().join("tensorflow/libtensorflow_framework.so.2"),
        "libtensorflow_framework.so.2",
        &[],
        Some(&runpath.join(":")),
        true,
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    assert!(codes(&json).contains(&"elf-search-path-cut".to_string()));
    let elf = &json["libraries"][0]["elf"];
    assert_eq!(elf["runpath"].as_array().unwrap().len(), 1024, "{elf:#}");
    assert_eq!(elf["search_elements_dropped"], 76);
}

/// `path`'s dynamic segment moved to its end and stated 1 GiB long, all
/// of it a sparse hole past the real entries.
fn gigabyte_dynamic_segment(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (phoff, phnum) = (word(&bytes, 0x20) as usize, bytes[0x38] as usize);
    let ph = (0..phnum)
        .map(|i| phoff + i * 56)
        .find(|&ph| bytes[ph] == 2)
        .unwrap();
    let start = word(&bytes, ph + 8) as usize;
    let n = (0..).find(|k| word(&bytes, start + k * 16) == 0).unwrap() + 1;
    let entries = bytes[start..start + n * 16].to_vec();
    bytes.resize(bytes.len().next_multiple_of(8), 0);
    let at = bytes.len() as u64;
    bytes.extend_from_slice(&entries);
    bytes[ph + 8..ph + 16].copy_from_slice(&at.to_le_bytes());
    bytes[ph + 32..ph + 40].copy_from_slice(&(1u64 << 30).to_le_bytes());
    std::fs::write(path, &bytes).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(at + (1 << 30)).unwrap();
}

/// A framework object whose dynamic segment is a sparse 1 GiB (#38):
/// `check` under 768 MiB of address space reads it as it reads the real
/// one (it read and kept the whole gigabyte, 1042 MiB, 5 to 12 s).
#[test]
fn a_sparse_gigabyte_dynamic_segment_is_read_in_bounded_memory() {
    use wait_timeout::ChildExt;
    let sb = Sandbox::new();
    let env = tf_221(&sb);
    let object = env.site().join("tensorflow/libtensorflow_framework.so.2");
    support::cc_shared(
        &object,
        "libtensorflow_framework.so.2",
        &[],
        Some("/r"),
        true,
    );
    gigabyte_dynamic_segment(&object);
    // Found on this PATH: the child's is the sandbox's.
    let prlimit = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("prlimit"))
        .find(|p| p.is_file())
        .expect("prlimit (util-linux) is installed");
    let mut child = std::process::Command::new(prlimit)
        .arg(format!("--as={}", 768u64 << 20))
        .arg(assert_cmd::cargo::cargo_bin("envhook"))
        .args(["check", "--json", "--driver-version", "560.35.05", "-p"])
        .arg(&env.prefix)
        .env_clear()
        .env("HOME", sb.home())
        .env("PATH", sb.path("bin"))
        .env("ENVHOOK_SYSROOT", sb.path("sysroot"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = child
        .wait_timeout(std::time::Duration::from_secs(60))
        .unwrap();
    let Some(_) = status else {
        child.kill().unwrap();
        panic!("check still running after 60 s");
    };
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(
        !codes(&json).contains(&"elf-unreadable".to_string()),
        "{out}"
    );
    let elf = &json["libraries"][0]["elf"];
    assert_eq!(elf["soname"], "libtensorflow_framework.so.2", "{out}");
    assert_eq!(elf["runpath"][0], "/r");
    assert!(elf["bytes_read"].as_u64().unwrap() < 64 << 10, "{elf}");
}

#[test]
fn jax_core_object_comes_from_the_pjrt_distribution() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/jax"));
    env.python("3.12.4");
    env.pip(PipDist::new("jaxlib", "0.7.2"));
    env.pip(
        PipDist::new("jax-cuda12-plugin", "0.7.2")
            .files(vec![FileSpec::File("jax_cuda12_plugin/_versions.so")]),
    );
    env.pip(
        PipDist::new("jax-cuda12-pjrt", "0.7.2").files(vec![FileSpec::File(
            "jax_plugins/xla_cuda12/xla_cuda_plugin.so",
        )]),
    );
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    let objects: Vec<&str> = json["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["object"].as_str().unwrap())
        .collect();
    assert_eq!(objects.len(), 1, "{objects:?}");
    assert!(objects[0].ends_with("jax_plugins/xla_cuda12/xla_cuda_plugin.so"));
    // jaxlib from PyPI is the CPU build; the plugin is the CUDA one.
    let frameworks = json["frameworks"].as_array().unwrap();
    assert_eq!(frameworks.len(), 2, "{frameworks:#?}");
    assert!(
        frameworks
            .iter()
            .any(|f| f["package"] == "jaxlib" && f["build"]["variant"]["kind"] == "cpu")
    );
}

/// A torch-like pip build whose libtorch_cuda.so is one of the real nvcc
/// fixtures of tests/fixtures/fatbin.
fn torch_with_code(prefix: &Path, fixture: &str) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cuda-runtime-cu12", "12.6.77").files(vec![FileSpec::File(
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        )]),
    );
    env.pip(
        PipDist::new("torch", "2.6.0")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.6.0'\ncuda = '12.6'\nhip = None\n",
            ),
    );
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fatbin");
    std::fs::copy(
        fixtures.join(fixture),
        env.site().join("torch/lib/libtorch_cuda.so"),
    )
    .unwrap();
    env
}

#[test]
fn the_architectures_in_the_binary_decide() {
    let sb = Sandbox::new();
    // SASS for sm_70 and sm_80, no PTX (nvcc 11.8; cuobjdump lists them).
    let env = torch_with_code(&sb.path("envs/sass"), "sm70_sm80.so");
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "560.35.05", "--gpu", "sm_90"],
    );
    let f = findings_of(&json, "gpu-unsupported");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let message = f[0]["message"].as_str().unwrap();
    assert!(message.contains("has sm_70 sm_80, no PTX"), "{message}");
    assert!(
        message.contains("no kernel image is available"),
        "{message}"
    );
    // sm_80 code runs on 8.6 (same major, newer minor).
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "560.35.05", "--gpu", "sm_86"],
    );
    assert!(
        findings_of(&json, "gpu-unsupported").is_empty(),
        "{:#}",
        json["findings"]
    );

    // SASS sm_80 plus PTX compute_80: Hopper runs it by JIT only.
    let env = torch_with_code(&sb.path("envs/ptx"), "sm80_compute80.so");
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "560.35.05", "--gpu", "sm_90"],
    );
    assert!(findings_of(&json, "gpu-unsupported").is_empty());
    let jit = findings_of(&json, "gpu-jit");
    assert_eq!(jit.len(), 1, "{:#}", json["findings"]);
    assert_eq!(jit[0]["severity"], "info");
    assert!(jit[0]["message"].as_str().unwrap().contains("compute_80"));
}

#[test]
fn without_a_fatbin_the_builds_cuda_decides() {
    // Seed 001's row: Paddle 2.5.2.post116, a CUDA 11.6 build, on an
    // H100: Hopper needs code from CUDA 11.8 or newer.
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/paddle"));
    env.python("3.10.14");
    env.pip(
        PipDist::new("paddlepaddle-gpu", "2.5.2.post116")
            .files(vec![FileSpec::File("paddle/fluid/libpaddle.so")])
            .text(
                "paddle/version/__init__.py",
                "full_version = '2.5.2'\ncuda_version = '11.6'\ncudnn_version = '8.4.0'\n",
            ),
    );
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &[
            "--driver-version",
            "535.104.05",
            "--gpu",
            "NVIDIA H100 80GB HBM3",
        ],
    );
    let f = findings_of(&json, "gpu-unsupported");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let message = f[0]["message"].as_str().unwrap();
    assert!(message.contains("built with CUDA 11.6"), "{message}");
    assert!(message.contains("CUDA 11.8 or newer"), "{message}");
    // The newest build that runs on Hopper, as the command that installs
    // it from Paddle's index.
    let hint = f[0]["fix"]["command"].as_str().unwrap();
    assert!(
        hint.starts_with(&format!(
            "{py} uninstall -y 'paddlepaddle-gpu' && {py} install 'paddlepaddle-gpu>=",
            py = format!("'{}/bin/python' -m pip", env.prefix.display())
        )),
        "{hint}"
    );
    // Never Paddle's cu118 3.x builds, which Hopper users report return
    // empty results (PaddleOCR#16198): here the 2.6 CUDA 11.8 build from
    // PyPI, whose libphi.so holds sm_90 code and which the 535 driver
    // runs natively.
    assert!(!hint.contains("stable/cu118"), "{hint}");
    assert!(
        hint.ends_with("install 'paddlepaddle-gpu>=2.5,<2.7'"),
        "{hint}"
    );
}

/// TensorFlow 2.17 as PyPI ships it, without a fatbin envhook can read:
/// its build_info.py lists `['sm_60', 'sm_70', 'sm_80', 'sm_89',
/// 'compute_90']` (read in the tensorflow 2.17.0 wheel), and the driver
/// JIT-compiles that PTX for Hopper and Blackwell: `gpu-jit`, not "no
/// kernel image" from the CUDA 12.3 it was built with (data audit
/// 2026-12-06, Q2). The cuDNN 8.9 it pins, built before Blackwell, is the
/// separate finding; below the list's lowest nothing runs.
#[test]
fn without_a_fatbin_tensorflows_own_list_decides() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/tf217"));
    env.python("3.11.9");
    let object = "tensorflow/libtensorflow_framework.so.2";
    env.pip(
        PipDist::new("tensorflow", "2.17.0")
            .files(vec![FileSpec::File(object)])
            .text(
                "tensorflow/python/platform/build_info.py",
                "import collections\n\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])\n",
            ),
    );
    // A real ELF, with no fatbin in it.
    support::cc_shared(
        &env.site().join(object),
        "libtensorflow_framework.so.2",
        &[],
        None,
        false,
    );
    wheel_lib(
        &mut env,
        "nvidia-cudnn-cu12",
        "8.9.7.29",
        "nvidia/cudnn/lib/libcudnn.so.8",
    );
    let on = |gpu: &str| {
        check_json(
            &sb,
            &env.prefix,
            &["--driver-version", "580.65.06", "--gpu", gpu],
        )
        .0
    };
    for gpu in ["B200", "NVIDIA GeForce RTX 5090", "NVIDIA H100 80GB HBM3"] {
        let json = on(gpu);
        let jit = findings_of(&json, "gpu-jit");
        assert_eq!(jit.len(), 1, "{gpu}: {:#}", json["findings"]);
        let message = jit[0]["message"].as_str().unwrap();
        assert!(
            message.starts_with("tensorflow 2.17.0 runs on")
                && message.contains("only by JIT-compiling PTX: compute_90 (cuda_compute_capabilities in tensorflow/python/platform/build_info.py"),
            "{message}"
        );
        assert!(
            findings_of(&json, "gpu-unsupported")
                .iter()
                .all(|f| f["message"].as_str().unwrap().starts_with("cuDNN 8.9.7.29")),
            "{gpu}: {:#}",
            json["findings"]
        );
    }
    // The cuDNN it pins has no Blackwell kernels: that is the blocker.
    assert_eq!(findings_of(&on("B200"), "gpu-unsupported").len(), 1);
    // Cubins for Ampere and Volta.
    for gpu in ["A100", "V100"] {
        let json = on(gpu);
        assert!(
            findings_of(&json, "gpu-jit").is_empty()
                && findings_of(&json, "gpu-unsupported").is_empty(),
            "{gpu}: {:#}",
            json["findings"]
        );
    }
    // Below the list's lowest (Maxwell, sm_52): nothing runs.
    let json = on("sm_52");
    let unsupported = findings_of(&json, "gpu-unsupported");
    assert_eq!(unsupported.len(), 1, "{:#}", json["findings"]);
    let message = unsupported[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "tensorflow 2.17.0 is built for compute capability 6.0, 7.0, 8.0, 8.9 and PTX 9.0 \
             (cuda_compute_capabilities in tensorflow/python/platform/build_info.py); "
        ),
        "{message}"
    );
}

/// torch 2.15.0 from PyPI as it is: its METADATA pins the toolkit and
/// cuDNN it was built with, and libtorch_cuda.so finds them through its
/// RPATH into site-packages/nvidia.
fn torch_215(prefix: &Path, cudnn: &'static str) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    env.pip(PipDist::new("cuda-toolkit", "13.2.2"));
    env.pip(
        PipDist::new("nvidia-cuda-runtime", "13.2.51")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    env.pip(
        PipDist::new("nvidia-cudnn-cu13", cudnn)
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.9")]),
    );
    env.pip(
        PipDist::new("torch", "2.15.0")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.15.0+cu132'\ncuda = '13.2'\nhip = None\n",
            )
            .requires(vec![
                "filelock",
                "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2; platform_system == \"Linux\"",
                "nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"",
                "optree>=0.13.0; extra == \"optree\"",
            ]),
    );
    let site = env.site();
    let cudart = site.join("nvidia/cu13/lib/libcudart.so.13");
    let cudnn_lib = site.join("nvidia/cudnn/lib/libcudnn.so.9");
    support::cc_shared(&cudart, "libcudart.so.13", &[], None, false);
    support::cc_shared(&cudnn_lib, "libcudnn.so.9", &[], None, false);
    support::cc_shared(
        &site.join("torch/lib/libtorch_cuda.so"),
        "libtorch_cuda.so",
        &[&cudart, &cudnn_lib],
        Some("$ORIGIN/../../nvidia/cu13/lib:$ORIGIN/../../nvidia/cudnn/lib"),
        false,
    );
    env
}

#[test]
fn a_pip_build_with_the_wheels_it_pins_gets_no_warning() {
    let sb = Sandbox::new();
    let env = torch_215(&sb.path("envs/torch"), "9.26.0.51");
    let (json, code) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "600.10", "--gpu", "sm_90"],
    );
    let loud: Vec<&Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .collect();
    assert!(loud.is_empty(), "{loud:#?}");
    assert_eq!(code, 0);
    // The pins are the build's word on its cuDNN.
    let pins = json["frameworks"][0]["pins"].as_array().unwrap();
    assert!(
        pins.iter()
            .any(|p| p["requirement"] == "nvidia-cudnn-cu13==9.26.0.51")
    );
    // Both libraries loaded by path from their wheels before torch's
    // objects (torch/__init__.py's _preload_cuda_deps, #27): the objects'
    // DT_NEEDED find them loaded.
    for name in json["libraries"][0]["names"].as_array().unwrap() {
        assert_eq!(name["without_hook"]["rule"], "loaded", "{name}");
        assert!(
            name["without_hook"]["path"]
                .as_str()
                .unwrap()
                .contains("/site-packages/nvidia/"),
            "{name}"
        );
    }
}

/// torch accepts a cuDNN of its major with an equal or newer minor and
/// refuses an older one (torch/backends/cudnn/__init__.py `_init`): the
/// pin broken upward is pip's complaint (an info), downward torch's (an
/// error). Both keep the command that restores the pin.
#[test]
fn a_wheel_moved_past_the_frameworks_pin_is_pin_broken() {
    let sb = Sandbox::new();
    let older = torch_215(&sb.path("envs/older"), "9.20.0.48");
    let (json, code) = check_json(&sb, &older.prefix, &["--driver-version", "600.10"]);
    assert_eq!(code, 1);
    let f = findings_of(&json, "pin-broken");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    assert_eq!(f[0]["severity"], "error");
    let message = f[0]["message"].as_str().unwrap();
    assert!(
        message.contains("\"cuDNN version incompatibility\""),
        "{message}"
    );
    let env = torch_215(&sb.path("envs/torch"), "9.28.1.4");
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "600.10"]);
    let f = findings_of(&json, "pin-broken");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    assert_eq!(f[0]["severity"], "info");
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .contains("which torch accepts at start"),
        "{}",
        f[0]["message"]
    );
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .contains("requires nvidia-cudnn-cu13==9.26.0.51 (its METADATA); this environment has nvidia-cudnn-cu13 9.28.1.4"),
        "{}",
        f[0]["message"]
    );
    assert_eq!(
        f[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'nvidia-cudnn-cu13==9.26.0.51'",
            env.prefix.display()
        )
    );
}

#[test]
fn conda_env_config_vars_are_hooks_too() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("home/.conda/envs/paddle"));
    // What tf#52988's comments advise: `conda env config vars set
    // LD_LIBRARY_PATH=$CONDA_PREFIX/lib`, stored literally.
    std::fs::write(
        env.path("conda-meta/state"),
        serde_json::json!({"env_vars": {"LD_LIBRARY_PATH": format!("{}/lib", env.prefix.display())}})
            .to_string(),
    )
    .unwrap();
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "535.104.05"]);
    let f = findings_of(&json, "foreign-hook");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let message = f[0]["message"].as_str().unwrap();
    assert!(message.contains("conda-meta/state"), "{message}");
    assert!(message.contains("(conda env config vars)"), "{message}");
    assert!(
        message.contains("exposes all of the environment's lib/"),
        "{message}"
    );
    assert_eq!(
        f[0]["fix"]["command"],
        format!(
            "envhook install -p '{p}' && conda env config vars unset LD_LIBRARY_PATH -p '{p}'",
            p = env.prefix.display()
        )
    );
    // audit shows the environment's hook as a buggy foreign one.
    let out = sb
        .envhook()
        .args(["audit", "--json", "--driver-version", "535.104.05"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["envs"][0]["hook"], "legacy", "{:#}", doc["envs"][0]);
}

/// torch 2.6 (CUDA 12.6, which still targets Volta) over a cuDNN wheel.
fn torch_26_over_cudnn(prefix: &Path, cudnn: &'static str) -> Env {
    let mut env = Env::new(prefix);
    env.python("3.11.9");
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", cudnn)
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.9")]),
    );
    env.pip(
        PipDist::new("torch", "2.6.0")
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                "__version__ = '2.6.0+cu126'\ncuda = '12.6'\nhip = None\n",
            ),
    );
    env
}

#[test]
fn cudnn_9_11_dropped_volta_while_cuda_12_kept_it() {
    let sb = Sandbox::new();
    let v100 = [
        "--driver-version",
        "560.35.05",
        "--gpu",
        "Tesla V100-SXM2-32GB",
    ];
    let env = torch_26_over_cudnn(&sb.path("envs/new"), "9.11.0.98");
    let (json, code) = check_json(&sb, &env.prefix, &v100);
    assert_eq!(code, 1);
    let f = findings_of(&json, "gpu-unsupported");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let message = f[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("cuDNN 9.11.0.98 (nvidia-cudnn-cu12 9.11.0.98) has no kernels for Tesla V100-SXM2-32GB (sm_70) (it lists compute capability 7.5 and newer)"),
        "{message}"
    );
    assert_eq!(
        f[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'nvidia-cudnn-cu12<9.11'",
            env.prefix.display()
        )
    );
    // The same wheel on Turing and newer; the last release with Volta.
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "560.35.05", "--gpu", "sm_75"],
    );
    assert!(
        findings_of(&json, "gpu-unsupported").is_empty(),
        "{:#}",
        json["findings"]
    );
    let env = torch_26_over_cudnn(&sb.path("envs/old"), "9.10.2.21");
    let (json, _) = check_json(&sb, &env.prefix, &v100);
    assert!(
        findings_of(&json, "gpu-unsupported").is_empty(),
        "{:#}",
        json["findings"]
    );

    // A build with no code for the GPU is the one finding: its fix brings
    // its own CUDA and cuDNN (torch 2.15 is CUDA 13.2, which has no Volta).
    let env = torch_215(&sb.path("envs/torch215"), "9.26.0.51");
    let (json, _) = check_json(&sb, &env.prefix, &v100);
    let f = findings_of(&json, "gpu-unsupported");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("torch 2.15.0"),
        "{:#}",
        f[0]
    );
}

#[test]
fn names_loaded_at_run_time_are_resolved_from_the_object_that_loads_them() {
    let sb = Sandbox::new();
    // TensorFlow 2.21: every name is dlopened by libtensorflow_framework.so.2,
    // whose RUNPATH has nvidia/cuda_runtime/lib but not nvidia/cusolver/lib;
    // libtensorflow_cc.so.2's RUNPATH, which has it, is never searched
    // (measured on the real wheel: "Could not load dynamic library
    // 'libcusolver.so.11'", #27).
    let mut env = Env::new(sb.path("envs/tf"));
    env.python("3.11.9");
    for (dist, version, rel) in [
        (
            "nvidia-cuda-runtime-cu12",
            "12.5.82",
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        ),
        (
            "nvidia-cusolver-cu12",
            "11.6.3.83",
            "nvidia/cusolver/lib/libcusolver.so.11",
        ),
    ] {
        env.pip(PipDist::new(dist, version).files(vec![FileSpec::File(rel)]));
    }
    env.pip(
        PipDist::new("tensorflow", "2.21.0")
            .files(vec![
                FileSpec::File("tensorflow/libtensorflow_framework.so.2"),
                FileSpec::File("tensorflow/libtensorflow_cc.so.2"),
            ])
            .text(
                "tensorflow/python/platform/build_info.py",
                "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True)])\n",
            ),
    );
    let site = env.site();
    for (rel, soname) in [
        ("nvidia/cuda_runtime/lib/libcudart.so.12", "libcudart.so.12"),
        ("nvidia/cusolver/lib/libcusolver.so.11", "libcusolver.so.11"),
    ] {
        support::cc_shared(&site.join(rel), soname, &[], None, false);
    }
    support::cc_shared(
        &site.join("tensorflow/libtensorflow_framework.so.2"),
        "libtensorflow_framework.so.2",
        &[],
        Some("$ORIGIN/../nvidia/cuda_runtime/lib"),
        true,
    );
    support::cc_shared(
        &site.join("tensorflow/libtensorflow_cc.so.2"),
        "libtensorflow_cc.so.2",
        &[],
        Some("$ORIGIN/../nvidia/cusolver/lib"),
        true,
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    let by_object = |suffix: &str| -> Vec<(String, String)> {
        json["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["object"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("{suffix}: {:#}", json["libraries"]))["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["name"].as_str().unwrap().to_string(),
                    n["without_hook"]["rule"]
                        .as_str()
                        .unwrap_or("-")
                        .to_string(),
                )
            })
            .collect()
    };
    let framework = by_object("libtensorflow_framework.so.2");
    assert_eq!(framework[0], ("libcudart.so.12".into(), "runpath".into()));
    assert!(framework.contains(&("libcusolver.so.11".into(), "-".into())));
    assert!(by_object("libtensorflow_cc.so.2").is_empty());
    // cuDNN, cuBLAS, ... are nowhere: one finding for the framework.
    let missing = findings_of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert!(
        missing[0]["message"]
            .as_str()
            .unwrap()
            .contains("libcudnn.so.9")
    );
    // cuSOLVER is the wheel's, reached only through the hook; without it
    // TensorFlow registers no GPU: an error.
    let hook = findings_of(&json, "needs-hook");
    assert_eq!(hook.len(), 1, "{:#}", json["findings"]);
    assert_eq!(hook[0]["severity"], "error");
    let message = hook[0]["message"].as_str().unwrap();
    assert!(message.contains("libcusolver.so.11"), "{message}");
    assert!(message.contains("on the CPU"), "{message}");
}

#[test]
fn jax_preloads_from_the_wheels_and_ort_dlopens_cudnn_by_its_major() {
    let sb = Sandbox::new();
    // JAX loads each library by path from its wheel first: no hook needed,
    // although the plugin has no RPATH to nvidia/cusolver/lib.
    let mut env = Env::new(sb.path("envs/jax"));
    env.python("3.12.4");
    env.pip(PipDist::new("jaxlib", "0.12.0.1"));
    env.pip(PipDist::new("jax-cuda12-plugin", "0.12.0.1"));
    env.pip(
        PipDist::new("jax-cuda12-pjrt", "0.12.0.1").files(vec![FileSpec::File(
            "jax_plugins/xla_cuda12/xla_cuda_plugin.so",
        )]),
    );
    env.pip(
        PipDist::new("nvidia-cusolver-cu12", "11.7.5.82").files(vec![FileSpec::File(
            "nvidia/cusolver/lib/libcusolver.so.11",
        )]),
    );
    let site = env.site();
    let cusolver = site.join("nvidia/cusolver/lib/libcusolver.so.11");
    support::cc_shared(&cusolver, "libcusolver.so.11", &[], None, false);
    support::cc_shared(
        &site.join("jax_plugins/xla_cuda12/xla_cuda_plugin.so"),
        "xla_cuda_plugin.so",
        &[],
        None,
        false,
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    let names = json["libraries"][0]["names"].as_array().unwrap();
    let solver = names
        .iter()
        .find(|n| n["name"] == "libcusolver.so.11")
        .unwrap_or_else(|| panic!("{:#}", json["libraries"]));
    // The dlopen by name finds the copy loaded by path.
    assert_eq!(solver["without_hook"]["rule"], "loaded");
    assert_eq!(solver["with_hook"]["rule"], "loaded");
    assert_eq!(solver["without_hook"]["path"].as_str(), cusolver.to_str());
    assert!(
        findings_of(&json, "needs-hook").is_empty(),
        "{:#}",
        json["findings"]
    );
    // The rest of the stack is nowhere: one finding, one pip command.
    let missing = findings_of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert!(
        missing[0]["fix"]["command"]
            .as_str()
            .unwrap()
            .contains("nvidia-cudnn-cu12"),
        "{:#}",
        missing[0]
    );

    // ONNX Runtime 1.31's CUDA provider builds libcudnn.so.9 at run time:
    // the wheel's copy is reached only through the hook.
    let mut env = Env::new(sb.path("envs/ort"));
    env.python("3.12.4");
    env.pip(
        PipDist::new("nvidia-cuda-runtime", "13.0.96")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    env.pip(
        PipDist::new("nvidia-cudnn-cu13", "9.28.1.4")
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.9")]),
    );
    wheel_lib(
        &mut env,
        "nvidia-cufft",
        "12.0.0.61",
        "nvidia/cu13/lib/libcufft.so.12",
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.31.1").files(vec![FileSpec::File(
            "onnxruntime/capi/libonnxruntime_providers_cuda.so",
        )]),
    );
    let site = env.site();
    support::cc_shared(
        &site.join("nvidia/cudnn/lib/libcudnn.so.9"),
        "libcudnn.so.9",
        &[],
        None,
        false,
    );
    support::cc_shared(
        &site.join("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[],
        None,
        false,
    );
    let (json, code) = check_json(&sb, &env.prefix, &["--driver-version", "580.65.06"]);
    let cudnn = &json["libraries"][0]["names"][0];
    assert_eq!(cudnn["name"], "libcudnn.so.9", "{:#}", json["libraries"]);
    assert_eq!(cudnn["kind"], "dlopen");
    assert_eq!(cudnn["without_hook"], Value::Null);
    assert_eq!(
        findings_of(&json, "needs-hook").len(),
        1,
        "{:#}",
        json["findings"]
    );
    assert_eq!(code, 1);
    sb.install(&env.prefix);
    let (json, code) = check_json(&sb, &env.prefix, &["--driver-version", "580.65.06"]);
    assert_eq!(code, 0, "{:#}", json["findings"]);
}

/// After the user adds the libraries a framework lacked (the fix check
/// printed), the hooks are stale: check says so once, judges the
/// environment as the refresh would leave it, and never calls the new,
/// valid libraries damaged (#19).
#[test]
fn stale_hooks_never_invent_damage() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/ort"));
    env.python("3.12.4");
    let cudart = wheel_lib(
        &mut env,
        "nvidia-cuda-runtime",
        "13.0.96",
        "nvidia/cu13/lib/libcudart.so.13",
    );
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.31.1").files(vec![FileSpec::File(
            "onnxruntime/capi/libonnxruntime_providers_cuda.so",
        )]),
    );
    let site = env.site();
    support::cc_shared(
        &site.join("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[&cudart],
        None,
        false,
    );
    sb.install(&env.prefix);
    let machine = ["--driver-version", "580.65.06"];
    let (json, _) = check_json(&sb, &env.prefix, &machine);
    // ONNX Runtime 1.28+ runs without cuDNN and cuFFT, but the operators
    // that use them fail: warnings.
    let missing = findings_of(&json, "optional-library-missing");
    assert_eq!(missing.len(), 2, "{:#}", json["findings"]);
    assert!(
        missing[0]["message"]
            .as_str()
            .unwrap()
            .contains("libcudnn.so.9"),
        "{:#}",
        missing[0]
    );
    // Later, the user installs cuDNN and cuFFT, as the hints say, and does
    // not refresh (the hooks' times set back, not waited out).
    support::age_hooks(&env.prefix, 10);
    wheel_lib(
        &mut env,
        "nvidia-cudnn-cu13",
        "9.28.1.4",
        "nvidia/cudnn/lib/libcudnn.so.9",
    );
    wheel_lib(
        &mut env,
        "nvidia-cufft",
        "12.0.0.61",
        "nvidia/cu13/lib/libcufft.so.12",
    );
    let (json, code) = check_json(&sb, &env.prefix, &machine);
    let all = codes(&json);
    assert_eq!(all, ["stale-hook"], "{:#}", json["findings"]);
    assert_eq!(code, 1);
    let cudnn = json["libraries"][0]["names"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "libcudnn.so.9")
        .unwrap()
        .clone();
    assert!(
        cudnn["with_hook"]["path"]
            .as_str()
            .is_some_and(|p| p.contains("lib/envhook/cuda")),
        "{cudnn:#}"
    );
    // The refresh the finding names ends in a clean check.
    sb.install(&env.prefix);
    let (json, code) = check_json(&sb, &env.prefix, &machine);
    assert_eq!(code, 0, "{:#}", json["findings"]);
}

/// The names a framework loads at run time come from its own build files
/// for every release, not from a row for the newest one (#19): TensorFlow
/// 2.20 without cuBLAS and ONNX Runtime 1.29 without cuDNN.
#[test]
fn older_releases_keep_their_run_time_checks() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/tf"));
    env.python("3.11.9");
    wheel_lib(
        &mut env,
        "nvidia-cuda-runtime-cu12",
        "12.5.82",
        "nvidia/cuda_runtime/lib/libcudart.so.12",
    );
    env.pip(
        PipDist::new("tensorflow", "2.20.0")
            .files(vec![FileSpec::File("tensorflow/libtensorflow_framework.so.2")])
            .text(
                "tensorflow/python/platform/build_info.py",
                "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True)])\n",
            ),
    );
    let site = env.site();
    support::cc_shared(
        &site.join("tensorflow/libtensorflow_framework.so.2"),
        "libtensorflow_framework.so.2",
        &[],
        Some("$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cublas/lib"),
        true,
    );
    let (json, code) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    assert_eq!(code, 1);
    let missing = findings_of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    let message = missing[0]["message"].as_str().unwrap();
    for name in [
        "libcublas.so.12",
        "libcublasLt.so.12",
        "libcufft.so.11",
        "libcusolver.so.11",
        "libcusparse.so.12",
        "libcudnn.so.9",
    ] {
        assert!(message.contains(name), "{name}: {message}");
    }
    assert!(!message.contains("libcurand"), "{message}");
    // The runtime is found through the RUNPATH, as TensorFlow finds it.
    let cudart = json["libraries"][0]["names"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "libcudart.so.12")
        .unwrap_or_else(|| panic!("{:#}", json["libraries"]))
        .clone();
    assert_eq!(cudart["without_hook"]["rule"], "runpath");

    // ONNX Runtime 1.29: cuDNN is loaded by a name built at run time;
    // without it the provider runs, and the kernels that need it return
    // NOT_IMPLEMENTED (microsoft/onnxruntime#29252).
    let mut env = Env::new(sb.path("envs/ort"));
    env.python("3.12.4");
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.29.0")
            .files(vec![FileSpec::File(
                "onnxruntime/capi/libonnxruntime_providers_cuda.so",
            )])
            .text(
                "onnxruntime/capi/build_and_package_info.py",
                "package_name = 'onnxruntime-gpu'\n__version__ = '1.29.0'\ncuda_version = '13.0'\n",
            ),
    );
    support::cc_shared(
        &env.site()
            .join("onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        "libonnxruntime_providers_cuda.so",
        &[],
        None,
        false,
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "580.65.06"]);
    assert!(
        findings_of(&json, "library-not-found").is_empty(),
        "{:#}",
        json["findings"]
    );
    let missing = findings_of(&json, "optional-library-missing");
    let cudnn = missing
        .iter()
        .find(|p| p["message"].as_str().unwrap().contains("libcudnn.so.9"))
        .unwrap_or_else(|| panic!("{:#}", json["findings"]));
    assert_eq!(cudnn["severity"], "warning");
    assert!(
        cudnn["message"]
            .as_str()
            .unwrap()
            .contains("NOT_IMPLEMENTED"),
        "{cudnn:#}"
    );
}

/// Two frameworks that pin the CUDA 12 and CUDA 13 builds of one NVIDIA
/// component: both wheels own nvidia/cudnn/lib, the second wrote over the
/// first's files, and no single set of wheels satisfies both pins (#19).
#[test]
fn wheels_that_wrote_over_each_other_are_named_with_their_pins() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/two"));
    env.python("3.12.4");
    let shared = "nvidia/cudnn/lib/libcudnn.so.9";
    let cu12 =
        env.pip(PipDist::new("nvidia-cudnn-cu12", "9.10.2.21").files(vec![FileSpec::File(shared)]));
    env.pip(PipDist::new("nvidia-cudnn-cu13", "9.26.0.51").files(vec![FileSpec::File(shared)]));
    env.pip(PipDist::new("torch", "2.15.0").requires(vec![
        "nvidia-cudnn-cu13==9.26.0.51; platform_system == \"Linux\"",
    ]));
    env.pip(PipDist::new("tensorflow", "2.21.0").requires(vec![
        "nvidia-cudnn-cu12<10,>=9.3.0.75; extra == \"and-cuda\"",
    ]));
    // The CUDA 12 wheel's RECORD no longer describes the file on disk.
    let record = cu12.join("RECORD");
    let text = std::fs::read_to_string(&record).unwrap();
    let (line, rest) = text.split_once('\n').unwrap();
    let (head, _) = line.rsplit_once(',').unwrap();
    std::fs::write(&record, format!("{head},999999\n{rest}")).unwrap();

    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "580.65.06"]);
    let f = findings_of(&json, "wheel-files-overwritten");
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    let message = f[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("nvidia-cudnn-cu12 9.10.2.21's libcudnn.so.9 in ")
            && message.contains("was written over by nvidia-cudnn-cu13 9.26.0.51")
            && message.contains("tensorflow 2.21.0 now loads nvidia-cudnn-cu13 9.26.0.51's copies"),
        "{message}"
    );
    assert_eq!(f[0]["severity"], "error");
    let hint = f[0]["fix"]["choose"]["advice"].as_str().unwrap();
    assert!(
        hint.starts_with("no one set of wheels satisfies both")
            && hint.contains("tensorflow 2.21.0 requires nvidia-cudnn-cu12")
            && hint.contains("torch 2.15.0 requires nvidia-cudnn-cu13==9.26.0.51")
            && hint.ends_with("put the frameworks in separate environments"),
        "{hint}"
    );
    // The choice is concrete: an environment of its own for each, made by
    // one command with this one's Python and the framework's release.
    let name = env.prefix.file_name().unwrap().to_string_lossy();
    let commands: Vec<&str> = f[0]["fix"]["choose"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    for (fw, spec) in [
        ("torch", "torch==2.15.0"),
        ("tensorflow", "tensorflow[and-cuda]==2.21.0"),
    ] {
        assert!(
            commands.contains(&format!(
                "conda create -y -n '{name}-{fw}' 'python=3.12' pip && conda run -n '{name}-{fw}' \
                 python -m pip install '{spec}'"
            ).as_str()),
            "{commands:?}"
        );
    }
    // Files the RECORDs agree on are no finding.
    std::fs::write(&record, text).unwrap();
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "580.65.06"]);
    assert!(findings_of(&json, "wheel-files-overwritten").is_empty());
}

/// A build that runs on Blackwell only by JIT-compiling its PTX, over a
/// cuDNN built before Blackwell existed: one verdict for the pair, naming
/// cuDNN as the blocker, not the CUDA release the build was made with (#19).
#[test]
fn on_a_newer_gpu_the_real_blocker_is_named() {
    let sb = Sandbox::new();
    // SASS sm_80 plus PTX compute_80 (real nvcc 11.8 output), CUDA 12.6.
    let mut env = torch_with_code(&sb.path("envs/jit"), "sm80_compute80.so");
    env.pip(
        PipDist::new("nvidia-cudnn-cu12", "8.9.7.29")
            .files(vec![FileSpec::File("nvidia/cudnn/lib/libcudnn.so.8")]),
    );
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "B200"],
    );
    let unsupported = findings_of(&json, "gpu-unsupported");
    assert_eq!(unsupported.len(), 1, "{:#}", json["findings"]);
    let message = unsupported[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("cuDNN 8.9.7.29 (nvidia-cudnn-cu12 8.9.7.29) has no kernels for B200"),
        "{message}"
    );
    assert!(
        unsupported[0]["fix"]["command"].as_str().unwrap()
            == format!(
                "'{}/bin/python' -m pip install 'nvidia-cudnn-cu12>=9.7'",
                env.prefix.display()
            )
            && message.contains("cuDNN 9.7 is the first with kernels for them"),
        "{:#}",
        unsupported[0]
    );
    assert_eq!(
        findings_of(&json, "gpu-jit").len(),
        1,
        "{:#}",
        json["findings"]
    );
    // The same build on a GPU its SASS covers: nothing to say.
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "A100"],
    );
    assert!(findings_of(&json, "gpu-unsupported").is_empty());
}

/// A CUDA package envhook has no data for (CuPy 13, which loads its
/// libraries by DT_NEEDED alone) is a framework too: its objects'
/// DT_NEEDED are checked, what its own pins name is expected, and a
/// library only an optional module needs is an info (#19). (CuPy 14 loads
/// them through cuda-pathfinder: tests/it/loading.rs.)
#[test]
fn a_cuda_package_without_data_is_checked_from_its_objects() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/cupy"));
    env.python("3.12.4");
    let cublas = wheel_lib(
        &mut env,
        "nvidia-cublas-cu12",
        "12.9.1.4",
        "nvidia/cublas/lib/libcublas.so.12",
    );
    wheel_lib(
        &mut env,
        "nvidia-cuda-runtime-cu12",
        "12.9.79",
        "nvidia/cuda_runtime/lib/libcudart.so.12",
    );
    wheel_lib(
        &mut env,
        "nvidia-cuda-nvrtc-cu12",
        "12.9.86",
        "nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
    );
    env.pip(PipDist::new("cuda-toolkit", "12.9.1"));
    env.pip(
        PipDist::new("cupy-cuda12x", "13.6.0")
            .files(vec![
                FileSpec::File("cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so"),
                FileSpec::File("cupy_backends/cuda/libs/cutensor.cpython-312-x86_64-linux-gnu.so"),
                FileSpec::File("cupy/_core/core.cpython-312-x86_64-linux-gnu.so"),
            ])
            .requires(vec![
                "numpy<2.6,>=2.0",
                "cuda-toolkit[cublas,cudart]==12.*; extra == \"ctk\"",
            ]),
    );
    let site = env.site();
    let scratch = sb.path("scratch/libcutensor.so.2");
    support::cc_shared(&scratch, "libcutensor.so.2", &[], None, false);
    let libs = site.join("cupy_backends/cuda/libs");
    support::cc_shared(
        &libs.join("cublas.cpython-312-x86_64-linux-gnu.so"),
        "cublas.cpython-312-x86_64-linux-gnu.so",
        &[&cublas],
        None,
        false,
    );
    support::cc_shared(
        &libs.join("cutensor.cpython-312-x86_64-linux-gnu.so"),
        "cutensor.cpython-312-x86_64-linux-gnu.so",
        &[&scratch],
        None,
        false,
    );
    support::cc_shared(
        &site.join("cupy/_core/core.cpython-312-x86_64-linux-gnu.so"),
        "core.cpython-312-x86_64-linux-gnu.so",
        &[],
        None,
        false,
    );
    std::fs::remove_file(&scratch).unwrap();
    let machine = ["--driver-version", "580.65.06"];
    let (json, code) = check_json(&sb, &env.prefix, &machine);
    let fw = &json["frameworks"][0];
    assert_eq!(
        (fw["framework"].as_str(), fw["package"].as_str()),
        (Some("other"), Some("cupy-cuda12x"))
    );
    // Only the objects that need CUDA libraries are listed, and the first,
    // from which CuPy 13 dlopens NVRTC at its first kernel (#27).
    assert_eq!(
        json["libraries"].as_array().unwrap().len(),
        3,
        "{:#}",
        json["libraries"]
    );
    assert_eq!(code, 1);
    assert_eq!(
        findings_of(&json, "needs-hook").len(),
        1,
        "{:#}",
        json["findings"]
    );
    assert!(
        findings_of(&json, "library-not-found").is_empty(),
        "{:#}",
        json["findings"]
    );
    let optional = findings_of(&json, "optional-library-missing");
    assert_eq!(optional.len(), 1, "{:#}", json["findings"]);
    assert!(
        optional[0]["message"]
            .as_str()
            .unwrap()
            .contains("libcutensor.so.2")
    );
    assert_eq!(
        optional[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'cutensor-cu12'",
            env.prefix.display()
        )
    );
    sb.install(&env.prefix);
    let (json, code) = check_json(&sb, &env.prefix, &machine);
    assert_eq!(code, 0, "{:#}", json["findings"]);
}

/// CuPy needs NVRTC and cuBLAS for nearly every operation, whatever its
/// own requirements name (#39): every kernel is compiled with NVRTC, and
/// cuBLAS serves matmul. cupy-cuda11x 13.6.0 from PyPI names neither, so
/// both were infos; the data's `required` makes them one error, with the
/// command that installs both, while cuFFT (only `cupy.fft`) stays an
/// info. Measured on the real wheel with only the CUDA 11 runtime beside
/// it: `import cupy` works, NVRTC's SoftLink and `import cublas` fail;
/// after the printed fix both load, through `envhook run` only.
#[test]
fn cupys_nvrtc_and_cublas_are_required_whatever_its_pins_name() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/cupy11"));
    env.python("3.11.7");
    let modules = [
        (
            "cupy/cuda/jitify.cpython-311-x86_64-linux-gnu.so",
            "libnvrtc.so.11.2",
        ),
        (
            "cupy_backends/cuda/libs/cublas.cpython-311-x86_64-linux-gnu.so",
            "libcublas.so.11",
        ),
        (
            "cupy/cuda/cufft.cpython-311-x86_64-linux-gnu.so",
            "libcufft.so.10",
        ),
    ];
    env.pip(
        PipDist::new("cupy-cuda11x", "13.6.0")
            .files(modules.iter().map(|(m, _)| FileSpec::File(m)).collect())
            .requires(vec!["numpy<2.6,>=1.22", "fastrlock>=0.5"]),
    );
    let site = env.site();
    for (module, needed) in modules {
        let scratch = sb.path(&format!("scratch/{needed}"));
        support::cc_shared(&scratch, needed, &[], None, false);
        let object = site.join(module);
        let soname = object.file_name().unwrap().to_str().unwrap().to_string();
        support::cc_shared(&object, &soname, &[&scratch], None, false);
        std::fs::remove_file(&scratch).unwrap();
    }
    let py = format!("{}/bin/python", env.prefix.display());
    let (json, code) = check_json(&sb, &env.prefix, &[]);
    assert_eq!(code, 1, "{:#}", json["findings"]);
    let missing = findings_of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert_eq!(missing[0]["severity"], "error");
    let message = missing[0]["message"].as_str().unwrap();
    assert!(
        message.contains("libnvrtc.so.11.2, libcublas.so.11")
            && message.contains("without libnvrtc.so.11.2 every kernel fails")
            && !message.contains("libcufft"),
        "{message}"
    );
    assert_eq!(
        missing[0]["fix"]["command"],
        format!(
            "'{py}' -m pip install 'cuda-toolkit[cublas,nvrtc]>=11,<12' && envhook install -p '{}'",
            env.prefix.display()
        )
    );
    let optional = findings_of(&json, "optional-library-missing");
    assert_eq!(optional.len(), 1, "{:#}", json["findings"]);
    assert_eq!(optional[0]["severity"], "info");
    assert!(
        optional[0]["message"]
            .as_str()
            .unwrap()
            .contains("libcufft.so.10")
    );
    // The fix's wheels, before the hook it goes on to write: CuPy's
    // objects have no RUNPATH, so without the hook nearly every operation
    // still fails.
    wheel_lib(
        &mut env,
        "nvidia-cublas-cu11",
        "11.11.3.6",
        "nvidia/cublas/lib/libcublas.so.11",
    );
    wheel_lib(
        &mut env,
        "nvidia-cuda-nvrtc-cu11",
        "11.8.89",
        "nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2",
    );
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    assert!(
        findings_of(&json, "library-not-found").is_empty(),
        "{:#}",
        json["findings"]
    );
    let hook = findings_of(&json, "needs-hook");
    assert_eq!(hook.len(), 1, "{:#}", json["findings"]);
    assert_eq!(hook[0]["severity"], "error");
    assert!(
        hook[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("without them cupy-cuda11x 13.6.0 fails nearly every operation"),
        "{:#}",
        hook[0]
    );
    sb.install(&env.prefix);
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    assert!(
        !json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["severity"] == "error"),
        "{:#}",
        json["findings"]
    );
}

/// jax 0.4.35 as pip resolves `jax[cuda12]==0.4.35` today: beside
/// nvidia-cuda-nvcc-cu12 12.9, whose package has no `__init__.py`, its own
/// import raises TypeError on every machine; 0.4.36 (the fix, followed on
/// the real wheels) and a package with `__init__.py` do not.
#[test]
fn jax_0_4_35_beside_a_namespace_nvcc_package_cannot_import() {
    let sb = Sandbox::new();
    let layout = |name: &str, jax: &'static str, init: bool| {
        let mut env = Env::new(sb.path(&format!("envs/{name}")));
        env.python("3.11.9");
        env.pip(PipDist::new("jax", jax));
        let mut files = vec![FileSpec::File("nvidia/cuda_nvcc/bin/ptxas")];
        if init {
            files.push(FileSpec::File("nvidia/cuda_nvcc/__init__.py"));
        }
        env.pip(PipDist::new("nvidia-cuda-nvcc-cu12", "12.9.86").files(files));
        env
    };
    let broken = layout("broken", "0.4.35", false);
    let (json, code) = check_json(&sb, &broken.prefix, &[]);
    assert_eq!(code, 1, "{:#}", json["findings"]);
    let f = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "broken-import")
        .unwrap_or_else(|| panic!("{:#}", json["findings"]));
    assert_eq!(f["severity"], "error");
    assert!(
        f["fix"]["command"]
            .as_str()
            .unwrap()
            .contains("-m pip install 'jax[cuda12]==0.4.36' && envhook install -p "),
        "{f:#}"
    );
    for (name, jax, init) in [("fixed", "0.4.36", false), ("regular", "0.4.35", true)] {
        let env = layout(name, jax, init);
        let (json, _) = check_json(&sb, &env.prefix, &[]);
        assert!(
            !codes(&json).contains(&"broken-import".to_string()),
            "{name}: {:#}",
            json["findings"]
        );
    }
}

/// A JAX layout for jax 0.4.17-0.4.25's own start-up check (#39): `jax`
/// at `jax`, `jaxlib 0.4.23+cuda12.cudnn89` (with the `jaxlib/cuda/_versions`
/// module the check reads where `monolithic`, else the CPU jaxlib beside
/// jax-cuda12-plugin, which never runs it), and the wheels given.
fn jax_start_check(
    sb: &Sandbox,
    name: &str,
    (jax, monolithic): (&'static str, bool),
    wheels: &[(&'static str, &'static str, &'static str)],
) -> Env {
    let mut env = Env::new(sb.path(&format!("envs/{name}")));
    env.python("3.11.7");
    env.pip(PipDist::new("jax", jax));
    if monolithic {
        env.pip(PipDist::new("jaxlib", "0.4.23+cuda12.cudnn89").files(vec![
            FileSpec::File("jaxlib/xla_extension.so"),
            FileSpec::File("jaxlib/cuda/_versions.so"),
        ]));
    } else {
        env.pip(
            PipDist::new("jaxlib", "0.4.23").files(vec![FileSpec::File("jaxlib/xla_extension.so")]),
        );
        env.pip(
            PipDist::new("jax-cuda12-plugin", "0.4.23")
                .files(vec![FileSpec::File("jax_cuda12_plugin/_versions.so")])
                .requires(vec!["jax-cuda12-pjrt==0.4.23"]),
        );
    }
    for (dist, version, rel) in wheels {
        wheel_lib(&mut env, dist, version, rel);
    }
    env
}

/// jax 0.4.17-0.4.25 refuses a library older than its monolithic CUDA
/// jaxlib was built with, each at its own precision (jax/_src/xla_bridge.py
/// `_check_cuda_versions` at those tags): one error naming them, with the
/// build's versions to install; not for the plugin builds, whose backend
/// never runs the check, nor past the versions compared. Measured on jax
/// 0.4.23 (with a `_versions` module built for CUDA 12.2 beside
/// nvidia-cuda-runtime-cu12 12.1.105): "Found CUDA version 12010, but JAX
/// was built against version 12020, which is newer"; passing once the
/// printed fix installed 12.2.140.
#[test]
fn jax_refuses_libraries_older_than_its_monolithic_jaxlib() {
    let sb = Sandbox::new();
    const RUNTIME_12_1: (&str, &str, &str) = (
        "nvidia-cuda-runtime-cu12",
        "12.1.105",
        "nvidia/cuda_runtime/lib/libcudart.so.12",
    );
    const CUDNN_8_8: (&str, &str, &str) = (
        "nvidia-cudnn-cu12",
        "8.8.1.3",
        "nvidia/cudnn/lib/libcudnn.so.8",
    );
    let env = jax_start_check(&sb, "old", ("0.4.23", true), &[RUNTIME_12_1, CUDNN_8_8]);
    let py = format!("'{}/bin/python'", env.prefix.display());
    let (json, code) = check_json(&sb, &env.prefix, &[]);
    assert_eq!(code, 1, "{:#}", json["findings"]);
    let refused = findings_of(&json, "refused-at-start");
    assert_eq!(refused.len(), 1, "{:#}", json["findings"]);
    assert_eq!(refused[0]["severity"], "error");
    let message = refused[0]["message"].as_str().unwrap();
    assert!(
        message.contains("built against CUDA 12.2, cuDNN 8.9")
            && message.contains("which jax 0.4.23 refuses")
            && message.contains(
                "\"Found CUDA version 12010, but JAX was built against version 12020, which is \
                 newer\", the first it meets"
            ),
        "{message}"
    );
    assert_eq!(
        refused[0]["fix"]["command"],
        format!(
            "{py} -m pip install 'nvidia-cuda-runtime-cu12==12.2.*' 'nvidia-cudnn-cu12==8.9.*'"
        )
    );
    // The one error, not a second warning for the same libraries.
    for code in ["cuda-older-than-build", "cudnn-older-than-build"] {
        assert!(
            findings_of(&json, code).is_empty(),
            "{:#}",
            json["findings"]
        );
    }
    // The plugin build of the same release never runs the check; a runtime
    // of the build's minor (and cuDNN 8.9 with another patch) passes it;
    // jax 0.4.26 has absolute floors instead.
    for (name, jax, monolithic, wheels) in [
        ("plugin", "0.4.23", false, [RUNTIME_12_1, CUDNN_8_8]),
        (
            "new",
            "0.4.23",
            true,
            [
                ("nvidia-cuda-runtime-cu12", "12.2.140", RUNTIME_12_1.2),
                ("nvidia-cudnn-cu12", "8.9.2.26", CUDNN_8_8.2),
            ],
        ),
        ("floors", "0.4.26", true, [RUNTIME_12_1, CUDNN_8_8]),
    ] {
        let env = jax_start_check(&sb, name, (jax, monolithic), &wheels);
        let (json, _) = check_json(&sb, &env.prefix, &[]);
        assert!(
            findings_of(&json, "refused-at-start").is_empty(),
            "{name}: {:#}",
            json["findings"]
        );
    }
    // cuFFT 11.0.2 under a build made with 11.0.8: jax 0.4.18 compares it
    // whole, 0.4.19 without the patch.
    let cufft = (
        "nvidia-cufft-cu12",
        "11.0.2.54",
        "nvidia/cufft/lib/libcufft.so.11",
    );
    let runtime = ("nvidia-cuda-runtime-cu12", "12.2.140", RUNTIME_12_1.2);
    let whole = jax_start_check(&sb, "whole", ("0.4.18", true), &[runtime, cufft]);
    let (json, _) = check_json(&sb, &whole.prefix, &[]);
    let refused = findings_of(&json, "refused-at-start");
    assert_eq!(refused.len(), 1, "{:#}", json["findings"]);
    assert!(
        refused[0]["message"]
            .as_str()
            .unwrap()
            .contains("\"Found cuFFT version 11002, but JAX was built against version 11008"),
        "{:#}",
        refused[0]
    );
    assert_eq!(
        refused[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'nvidia-cufft-cu12==11.0.8.*'",
            whole.prefix.display()
        )
    );
    let minor = jax_start_check(&sb, "minor", ("0.4.19", true), &[runtime, cufft]);
    let (json, _) = check_json(&sb, &minor.prefix, &[]);
    assert!(
        findings_of(&json, "refused-at-start").is_empty(),
        "{:#}",
        json["findings"]
    );
}

/// jaxlib 0.4.23's METADATA (PyPI) names `cuda11_pip`'s wheels before
/// `cuda12_pip`'s, and its cuDNN floor is open above (`>=8.9`): a fix for
/// its CUDA 12 / cuDNN 8.9 build installs the CUDA 12 wheel, below cuDNN 9
/// (whose `libcudnn.so.9` the build does not load), not `nvidia-cudnn-cu11`.
#[test]
fn a_fix_follows_the_pins_of_the_builds_own_majors() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/nocudnn"));
    env.python("3.11.7");
    env.pip(PipDist::new("jax", "0.4.23"));
    env.pip(
        PipDist::new("jaxlib", "0.4.23+cuda12.cudnn89")
            .files(vec![FileSpec::File("jaxlib/xla_extension.so")])
            .requires(vec![
                "scipy >=1.9",
                "nvidia-cuda-runtime-cu11 >=11.8 ; extra == 'cuda11_pip'",
                "nvidia-cudnn-cu11 >=8.8 ; extra == 'cuda11_pip'",
                "nvidia-cuda-runtime-cu12 ; extra == 'cuda12_pip'",
                "nvidia-cudnn-cu12 >=8.9 ; extra == 'cuda12_pip'",
            ]),
    );
    wheel_lib(
        &mut env,
        "nvidia-cuda-runtime-cu12",
        "12.2.140",
        "nvidia/cuda_runtime/lib/libcudart.so.12",
    );
    let (json, _) = check_json(&sb, &env.prefix, &[]);
    let py = format!("'{}/bin/python'", env.prefix.display());
    let no_cudnn = findings_of(&json, "no-cudnn");
    assert_eq!(no_cudnn.len(), 1, "{:#}", json["findings"]);
    assert_eq!(
        no_cudnn[0]["fix"]["command"],
        format!("{py} -m pip install 'nvidia-cudnn-cu12>=8.9,<9'")
    );
}

/// onnxruntime-gpu 1.26.0 (built with CUDA 12.8) on the CUDA 12.4 runtime
/// wheel, which its own requirement (`nvidia-cuda-runtime-cu12~=12.0;
/// extra == "cuda"`) accepts: an info with no fix, not a warning whose fix
/// is that same requirement (pip would install nothing). On the real
/// wheels every libcudart symbol its CUDA provider needs is in 12.4.127.
/// A build whose requirement the runtime does not meet keeps the warning.
#[test]
fn an_older_runtime_the_builds_own_requirement_accepts_is_a_note() {
    let sb = Sandbox::new();
    for (name, requirement, severity) in [
        (
            "accepted",
            "nvidia-cuda-runtime-cu12~=12.0; extra == \"cuda\"",
            "info",
        ),
        (
            "refused",
            "nvidia-cuda-runtime-cu12~=12.8; extra == \"cuda\"",
            "warning",
        ),
    ] {
        let prefix = sb.path(&format!("envs/{name}"));
        let mut env = Env::new(&prefix);
        env.python("3.11.9");
        // The real wheel's build file (build_and_package_info.py).
        env.pip(
            PipDist::new("onnxruntime-gpu", "1.26.0")
                .requires(vec![requirement])
                .text(
                    "onnxruntime/capi/build_and_package_info.py",
                    "package_name = 'onnxruntime-gpu'\n__version__ = '1.26.0'\ncuda_version = '12.8'\n",
                ),
        );
        wheel_lib(
            &mut env,
            "nvidia-cuda-runtime-cu12",
            "12.4.127",
            "nvidia/cuda_runtime/lib/libcudart.so.12",
        );
        let (json, _) = check_json(&sb, &prefix, &[]);
        let older = findings_of(&json, "cuda-older-than-build");
        assert_eq!(older.len(), 1, "{name}: {:#}", json["findings"]);
        assert_eq!(older[0]["severity"], severity, "{name}: {:#}", older[0]);
        let message = older[0]["message"].as_str().unwrap();
        match severity {
            "info" => {
                assert!(message.contains("which its own requirement"), "{message}");
                assert!(older[0]["fix"].is_null(), "{:#}", older[0]);
            }
            _ => assert!(message.contains("may lack symbols"), "{message}"),
        }
    }
}
