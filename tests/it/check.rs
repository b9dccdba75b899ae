//! `envhook check` on environments with real ELF
//! libraries built by `cc`, fake drivers (nvidia-smi scripts, /proc files,
//! an NVML library built by `cc`), a real ld.so.cache written by
//! `ldconfig`, stub libcuda and shadowing system directories.

use crate::support;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;
use support::paddle::{cudnn8, paddle_env};
use support::{CondaPkg, Env, FileSpec, PipDist, Sandbox, check_json, codes, finding};

fn name_check<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["names"].as_array().unwrap())
        .find(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("{name} not resolved: {:#}", json["libraries"]))
}

const A100: &[&str] = &["--driver-version", "535.104.05", "--gpu", "A100"];

#[test]
fn cudnn_older_than_the_build_names_the_fix() {
    let sb = Sandbox::new();
    let env = paddle_env(
        &sb.path("envs/paddle"),
        "8.2.1",
        cudnn8("lib/libcudnn.so.8.2.1"),
    );
    let (json, code) = check_json(&sb, &env.prefix, A100);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["schema"], "envhook.check/2");
    let f = finding(&json, "cudnn-older-than-build");
    assert_eq!(f["severity"], "warning");
    assert_eq!(
        f["message"],
        "paddlepaddle-gpu 2.5.2.post116 is built for CUDA 11.6 / cuDNN 8.4; this environment has the older \
         cuDNN 8.2.1 (cudnn), which may lack symbols the build uses"
    );
    // The fix keeps the build's cuDNN major, with its minor as the floor.
    assert_eq!(
        f["fix"]["command"],
        format!(
            "conda install -p '{}' -c conda-forge 'cudnn>=8.4,<9'",
            env.prefix.display()
        )
    );
    // CUDA 11.8 >= 11.6, same major: no CUDA finding.
    assert!(
        !codes(&json).iter().any(|c| c.starts_with("cuda-")),
        "{:?}",
        codes(&json)
    );
}

#[test]
fn library_resolution_with_and_without_the_hook() {
    let sb = Sandbox::new();
    let env = paddle_env(
        &sb.path("envs/paddle"),
        "8.9.2.26",
        cudnn8("lib/libcudnn.so.8.9.2"),
    );
    let (json, code) = check_json(&sb, &env.prefix, A100);
    let lib = env.path("lib/envhook/cuda").display().to_string();
    let cudart = name_check(&json, "libcudart.so.11.0");
    assert_eq!(cudart["kind"], "needed");
    assert_eq!(
        cudart["with_hook"]["path"],
        format!("{lib}/libcudart.so.11.0")
    );
    assert_eq!(cudart["with_hook"]["rule"], "ld-library-path");
    assert_eq!(cudart["without_hook"], Value::Null);
    // Paddle 2.x dlopens the unversioned name; cudnn ships it.
    let cudnn = name_check(&json, "libcudnn.so");
    assert_eq!(cudnn["kind"], "dlopen");
    assert_eq!(cudnn["with_hook"]["path"], format!("{lib}/libcudnn.so"));
    let f = finding(&json, "needs-hook");
    assert!(
        f["message"].as_str().unwrap().contains("libcudart.so.11.0"),
        "{f:#}"
    );
    assert_eq!(
        f["fix"]["command"],
        format!("envhook install -p '{}'", env.prefix.display())
    );
    assert_eq!(code, 1);
    // The ELF facts were read from the real file.
    let elf = &json["libraries"][0]["elf"];
    assert_eq!(
        elf["needed"],
        serde_json::json!([
            "libcudart.so.11.0",
            "libcublas.so.11",
            "libdnnl.so.3",
            "libc.so.6"
        ])
    );
    assert_eq!(elf["rpath"], serde_json::json!(["$ORIGIN/../libs"]));
    assert_eq!(elf["soname"], "libpaddle.so");

    // After install the same names resolve through the real link directory.
    sb.install(&env.prefix);
    let (json, code) = check_json(&sb, &env.prefix, A100);
    assert_eq!(code, 0, "{:#}", json["findings"]);
    assert_eq!(json["hook"]["state"], "current");
    assert_eq!(
        name_check(&json, "libcudart.so.11.0")["with_hook"]["path"],
        format!("{lib}/libcudart.so.11.0")
    );
}

#[test]
fn missing_unversioned_name_for_paddle() {
    use FileSpec::*;
    let sb = Sandbox::new();
    // cuDNN without its -dev package: libcudnn.so.8 only.
    let files = || {
        vec![
            File("lib/libcudnn.so.8.4.1"),
            Link("lib/libcudnn.so.8", "libcudnn.so.8.4.1"),
        ]
    };
    // A prefix no hook can carry (':' is LD_LIBRARY_PATH's separator): the
    // unversioned name is missing, and the link beside the file is the fix,
    // to the soname of the build's major as a -dev package links it.
    let odd = paddle_env(&sb.path("odd:env"), "8.4.1", files());
    let (json, _) = check_json(&sb, &odd.prefix, A100);
    let f = finding(&json, "missing-dev-symlink");
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains("loads by name libcudnn.so") && msg.contains("has only as libcudnn.so.8"),
        "{msg}"
    );
    assert_eq!(
        f["fix"]["command"],
        format!(
            "ln -s 'libcudnn.so.8' '{}'",
            odd.prefix.join("lib/libcudnn.so").display()
        )
    );
    // In dirs mode the hook exposes lib/ as it is: no libcudnn.so there.
    // Those hooks are not what `envhook install` writes now, so check says
    // stale once and judges the environment as the refresh would leave it.
    let env = paddle_env(&sb.path("env"), "8.4.1", files());
    sb.envhook()
        .args(["install", "--mode", "dirs", "-p"])
        .arg(&env.prefix)
        .assert()
        .code(0);
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let all = codes(&json);
    assert_eq!(
        all.iter().filter(|c| *c == "stale-hook").count(),
        1,
        "{all:?}"
    );
    assert!(!all.contains(&"missing-dev-symlink".to_string()), "{all:?}");
    // The isolating mode is what the refresh writes.
    sb.install(&env.prefix);
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let all = codes(&json);
    assert!(
        !all.iter()
            .any(|c| c == "missing-dev-symlink" || c == "stale-hook"),
        "{all:?}"
    );
    assert!(
        name_check(&json, "libcudnn.so")["with_hook"]["path"]
            .as_str()
            .unwrap()
            .ends_with("lib/envhook/cuda/libcudnn.so")
    );
}

/// The conda runtime (CUDA 12.6) and the torch build (CUDA 12.0) both
/// below CUDA 12's one floor: one finding naming both, its fix once.
#[test]
fn needs_below_one_driver_floor_are_one_finding() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "450.80.02"]);
    let found = support::findings_of(&json, "driver-too-old");
    assert_eq!(found.len(), 1, "{json:#}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "cuda-cudart 12.6.77 (conda) needs CUDA 12.6 and the pytorch 2.4.1 build \
             needs CUDA 12.0: every CUDA 12.x needs an NVIDIA driver >= 525.60.13;"
        ),
        "{message}"
    );
    assert_eq!(
        found[0]["fix"]["choose"]["commands"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{json:#}"
    );
}

#[test]
fn driver_floors_at_the_boundary() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "450.80.01"]);
    let f = finding(&json, "driver-too-old");
    assert_eq!(f["severity"], "error");
    assert!(
        f["message"].as_str().unwrap().contains(
            "needs an NVIDIA driver >= 450.80.02; this machine has 450.80.01 (--driver-version)"
        ),
        "{f:#}"
    );
    assert!(
        f["source"]
            .as_str()
            .unwrap()
            .contains("minor-version-compatibility"),
        "{f:#}"
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "450.80.02"]);
    assert!(
        !codes(&json).contains(&"driver-too-old".to_string()),
        "{:?}",
        codes(&json)
    );

    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "525.60.12"]);
    assert!(
        finding(&json, "driver-too-old")["message"]
            .as_str()
            .unwrap()
            .contains(">= 525.60.13")
    );
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "525.60.13"]);
    assert!(!codes(&json).contains(&"driver-too-old".to_string()));
    // 525.60.13 fully supports CUDA 12.0 only; 12.6 runs with limits.
    assert!(
        finding(&json, "driver-older-than-cuda")["message"]
            .as_str()
            .unwrap()
            .contains("supports CUDA 12.0")
    );
    let (json, code) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    assert_eq!(codes(&json), vec!["driver-stub"]);
    assert_eq!(code, 0);
}

#[test]
fn gpu_architectures() {
    let sb = Sandbox::new();
    let env = support::pip_cuda13(&sb.path("env"));
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "sm_70"],
    );
    // The build has no code for Volta: that is the finding, and its fix
    // brings another CUDA with it.
    let f: Vec<&Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "gpu-unsupported")
        .collect();
    assert_eq!(f.len(), 1, "{:#}", json["findings"]);
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("paddlepaddle-gpu 3.2.0 "),
        "{:#}",
        f[0]
    );
    // Without a framework, the environment's CUDA is what cannot run.
    let mut bare = Env::new(sb.path("bare"));
    bare.python("3.12.4");
    bare.pip(
        PipDist::new("nvidia-cuda-runtime", "13.0.96")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcudart.so.13")]),
    );
    let (json, _) = check_json(
        &sb,
        &bare.prefix,
        &["--driver-version", "580.65.06", "--gpu", "sm_70"],
    );
    let f = finding(&json, "gpu-unsupported");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("CUDA 13.0 (nvidia-cuda-runtime 13.0.96) cannot run on GPU 0 (sm_70)"),
        "{f:#}"
    );
    assert!(f["message"].as_str().unwrap().contains("no kernel image"));
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &["--driver-version", "580.65.06", "--gpu", "7.5"],
    );
    assert!(!codes(&json).contains(&"gpu-unsupported".to_string()));
    // Hopper needs CUDA 11.8.
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("old"));
    env.conda(
        CondaPkg::new("cudatoolkit", "11.7.1", "h283a8c5_12")
            .files(vec![FileSpec::File("lib/libcudart.so.11.7.99")]),
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
    assert!(
        finding(&json, "gpu-unsupported")["message"]
            .as_str()
            .unwrap()
            .contains("need CUDA 11.8 or newer")
    );
}

#[test]
fn cuda_major_mismatch() {
    let sb = Sandbox::new();
    let mut env = support::cuda12_split(&sb.path("env"));
    env.python("3.12.4");
    env.pip(PipDist::new("paddlepaddle-gpu", "2.5.2.post116"));
    let (json, _) = check_json(&sb, &env.prefix, &["--driver-version", "560.35.05"]);
    let f = finding(&json, "cuda-mismatch");
    assert_eq!(f["severity"], "error");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("built for CUDA 11.6 / cuDNN 8.4; this environment has CUDA 12.6"),
        "{f:#}"
    );
    let cudnn = finding(&json, "cudnn-mismatch");
    assert!(
        cudnn["message"]
            .as_str()
            .unwrap()
            .contains("libcudnn.so.8 vs libcudnn.so.9")
    );
}

fn script(path: &Path, body: &str) {
    fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn driver_detection_order() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let detect_with = |cmd: &mut assert_cmd::Command, extra: &[&str]| -> Value {
        let out = cmd
            .args(["check", "--json"])
            .args(extra)
            .arg("-p")
            .arg(&env.prefix)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["driver"].clone()
    };
    let detect = |cmd: &mut assert_cmd::Command| detect_with(cmd, &[]);
    // Nothing at all: a normal state.
    let d = detect(&mut sb.envhook());
    assert_eq!(d["source"], "none");
    // The kernel module file, open-module format.
    fs::create_dir_all(sb.path("sysroot/proc/driver/nvidia")).unwrap();
    fs::write(
        sb.path("sysroot/proc/driver/nvidia/version"),
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (dvs-builder@U16-I3-B03-4-3)  Wed May 21 2025\nGCC version:  gcc version 12.2.0\n",
    )
    .unwrap();
    let d = detect(&mut sb.envhook());
    assert_eq!(
        (
            d["source"].as_str(),
            d["version"].as_str(),
            d["max_cuda"].as_str()
        ),
        (Some("kernel-module"), Some("575.57.08"), Some("12.9"))
    );
    // nvidia-smi wins over the file.
    script(
        &sb.path("bin/nvidia-smi"),
        "echo '550.54.15, NVIDIA A100-SXM4-40GB, 8.0'\necho '550.54.15, NVIDIA A100-SXM4-40GB, 8.0'\n",
    );
    let d = detect(&mut sb.envhook());
    assert_eq!(d["source"], "nvidia-smi");
    assert_eq!(d["version"], "550.54.15");
    assert_eq!(d["gpus"].as_array().unwrap().len(), 2);
    assert_eq!(d["gpus"][0]["cc"], "8.0");
    assert_eq!(d["gpus"][0]["cc_source"], "driver");
    // An R470 driver rejects compute_cap: asked again without it; the
    // compute capability then comes from the GPU table.
    script(
        &sb.path("bin/nvidia-smi"),
        "case \"$1\" in *compute_cap*) echo 'Field \"compute_cap\" is not a valid field to query.'; exit 2 ;; esac\necho '470.82.01, Tesla T4'\n",
    );
    let d = detect(&mut sb.envhook());
    assert_eq!(
        (d["version"].as_str(), d["gpus"][0]["cc"].as_str()),
        (Some("470.82.01"), Some("7.5"))
    );
    assert_eq!(d["gpus"][0]["cc_source"], "matrix gpu table");
    // CONDA_OVERRIDE_CUDA wins over both; empty means no CUDA.
    let d = detect(sb.envhook().env("CONDA_OVERRIDE_CUDA", "12.4"));
    assert_eq!(
        (d["source"].as_str(), d["max_cuda"].as_str()),
        (Some("conda-override-cuda"), Some("12.4"))
    );
    let out = sb
        .envhook()
        .env("CONDA_OVERRIDE_CUDA", "")
        .args(["check", "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(codes(&json).contains(&"no-cuda-driver".to_string()));
    // Flags win over everything.
    let d = detect_with(
        sb.envhook().env("CONDA_OVERRIDE_CUDA", "12.4"),
        &["--driver-version", "580.65.06"],
    );
    assert_eq!(
        (d["source"].as_str(), d["max_cuda"].as_str()),
        (Some("flag"), Some("13.0"))
    );
}

#[test]
fn nvml_built_with_cc() {
    // A libnvidia-ml.so.1 with NVML's real entry points, found through the
    // normal library search; it writes each nvmlInit_v2 and nvmlShutdown
    // to a file, so what envhook leaves initialised shows.
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let dir = sb.path("fake-nvml");
    fs::create_dir_all(&dir).unwrap();
    support::cc_source(
        &dir.join("libnvidia-ml.so.1"),
        "libnvidia-ml.so.1",
        r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void called(const char *what) {
    const char *log = getenv("FAKE_NVML_CALLS");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) { fprintf(f, "%s\n", what); fclose(f); }
}
int nvmlInit_v2(void) { called("init"); return getenv("FAKE_NVML_INIT_FAILS") ? 1 : 0; }
int nvmlShutdown(void) { called("shutdown"); return 0; }
int nvmlSystemGetDriverVersion(char *v, unsigned n) { strncpy(v, "560.35.05", n); return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 12060; return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h) { *h = (void *)1; return 0; }
int nvmlDeviceGetName(void *h, char *name, unsigned n) { strncpy(name, "NVIDIA L4", n); return 0; }
int nvmlDeviceGetCudaComputeCapability(void *h, int *major, int *minor) { *major = 8; *minor = 9; return 0; }
"#,
        &[],
    );
    let calls = sb.path("nvml-calls");
    let out = sb
        .envhook()
        .env("LD_LIBRARY_PATH", &dir)
        .env("FAKE_NVML_CALLS", &calls)
        .args(["check", "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json["driver"];
    assert_eq!(d["source"], "nvml");
    assert_eq!(d["version"], "560.35.05");
    assert_eq!(d["max_cuda"], "12.6");
    assert_eq!(d["gpus"][0]["name"], "NVIDIA L4");
    assert_eq!(d["gpus"][0]["cc"], "8.9");
    assert_eq!(out.status.code(), Some(0), "{:#}", json["findings"]);
    // Initialised once, shut down once.
    assert_eq!(fs::read_to_string(&calls).unwrap(), "init\nshutdown\n");

    // A failed nvmlInit_v2 is a note, and nothing to shut down.
    fs::remove_file(&calls).unwrap();
    let out = sb
        .envhook()
        .env("LD_LIBRARY_PATH", &dir)
        .env("FAKE_NVML_CALLS", &calls)
        .env("FAKE_NVML_INIT_FAILS", "1")
        .args(["check", "--json", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_ne!(json["driver"]["source"], "nvml");
    assert!(
        json["driver"]["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("nvmlInit failed")),
        "{:#}",
        json["driver"]
    );
    assert_eq!(fs::read_to_string(&calls).unwrap(), "init\n");
}

#[test]
fn stub_libcuda_on_the_path() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let stubs = env.path("lib/stubs");
    let out = sb
        .envhook()
        .env("LD_LIBRARY_PATH", format!("{}:/usr/lib", stubs.display()))
        .args(["check", "--json", "--driver-version", "560.35.05", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = finding(&json, "stub-on-path");
    assert_eq!(f["severity"], "error");
    assert!(f["message"].as_str().unwrap().contains("link-time stub"));
    assert_eq!(out.status.code(), Some(1));
}

/// A system CUDA in the loader cache: `ldconfig -r SYSROOT` writes a real
/// cache for a fake root (needs root for its chroot).
#[test]
fn system_cuda_in_the_loader_cache_shadows_the_env() {
    if !support::require("root", support::is_root()) {
        return;
    }
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    let root = sb.path("sysroot");
    let sys = root.join("usr/local/cuda-11.2/lib64");
    support::cc_shared(
        &sys.join("libcudart.so.11.2.152"),
        "libcudart.so.11.0",
        &[],
        None,
        false,
    );
    std::os::unix::fs::symlink("libcudart.so.11.2.152", sys.join("libcudart.so.11.0")).unwrap();
    fs::create_dir_all(root.join("etc")).unwrap();
    fs::write(root.join("etc/ld.so.conf"), "/usr/local/cuda-11.2/lib64\n").unwrap();
    let ldconfig = ["/usr/sbin/ldconfig", "/sbin/ldconfig"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap();
    let out = std::process::Command::new(ldconfig)
        .arg("-r")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "ldconfig -r: {out:?}");
    assert!(root.join("etc/ld.so.cache").exists());
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let cudart = name_check(&json, "libcudart.so.11.0");
    assert_eq!(cudart["without_hook"]["rule"], "ld-so-cache");
    assert_eq!(
        cudart["without_hook"]["path"],
        sys.join("libcudart.so.11.0").display().to_string()
    );
    let f = finding(&json, "system-library-wins");
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains("without envhook's hook, the loader takes") && msg.contains("cuda-11.2"),
        "{msg}"
    );
    // With the hook installed the env's copy comes first.
    sb.install(&env.prefix);
    let (json, _) = check_json(&sb, &env.prefix, A100);
    assert!(
        !codes(&json).contains(&"system-library-wins".to_string()),
        "{:?}",
        codes(&json)
    );
}

#[test]
fn one_gigabyte_library_is_not_read_whole() {
    let sb = Sandbox::new();
    let env = paddle_env(&sb.path("env"), "8.4.1", cudnn8("lib/libcudnn.so.8.4.1"));
    let core = env.site().join("paddle/fluid/libpaddle.so");
    // Sparse: 1 GiB on paper, a few kB on disk.
    fs::File::options()
        .write(true)
        .open(&core)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let elf = &json["libraries"][0]["elf"];
    assert_eq!(elf["soname"], "libpaddle.so");
    let read = elf["bytes_read"].as_u64().unwrap();
    assert!(
        read > 0 && read < 256 * 1024,
        "read {read} bytes of a 1 GiB file"
    );
}

#[test]
fn user_matrix_rows_take_precedence() {
    let sb = Sandbox::new();
    let env = support::cuda12_split(&sb.path("env"));
    let file = sb.path("site.toml");
    fs::write(
        &file,
        "[[driver_floor]]\ncuda = \"12\"\nlinux = \"570.0\"\nsource = \"our cluster policy\"\n",
    )
    .unwrap();
    let (json, _) = check_json(
        &sb,
        &env.prefix,
        &[
            "--driver-version",
            "560.35.05",
            "--matrix",
            file.to_str().unwrap(),
        ],
    );
    let f = finding(&json, "driver-too-old");
    assert_eq!(f["source"], "our cluster policy");
    assert!(json["matrix_version"].as_str().unwrap().ends_with("+user"));
    let out = sb
        .envhook()
        .env("ENVHOOK_MATRIX", &file)
        .args(["check", "--json", "--driver-version", "560.35.05", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(codes(&json).contains(&"driver-too-old".to_string()));
    fs::write(
        &file,
        "[[driver_floor]]\ncuda = \"twelve\"\nlinux = \"1\"\nsource = \"x\"\n",
    )
    .unwrap();
    let out = sb
        .envhook()
        .args(["check", "--matrix"])
        .arg(&file)
        .arg("-p")
        .arg(&env.prefix)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not use the matrix"));
}

#[test]
fn human_output_and_exit_codes() {
    let sb = Sandbox::new();
    let env = support::pip_wheels(&sb.path("env"));
    let out = sb
        .envhook()
        .args([
            "check",
            "--driver-version",
            "560.35.05",
            "--gpu",
            "sm_80",
            "-p",
        ])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "driver       560.35.05 (--driver-version/--gpu), supports CUDA <= 12.6; GPU sm_80"
        ),
        "{text}"
    );
    let out = sb
        .envhook()
        .args(["check", "--driver-version", "470.82.01", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[driver-too-old]")
            && text.contains("    choose: upgrade the NVIDIA driver to 525.60.13 or newer"),
        "{text}"
    );
    // 470 meets CUDA 11's floor, and minor version compatibility runs
    // every 11.x on it, not only the 11.4 it came with: the newest torch
    // build made with an 11.x is torch 2.7's cu118, not torch 1.12's cu113,
    // the newest it supports outright (#42).
    assert!(
        text.contains(
            "or newer, or use a build made with CUDA 11.x; for torch 2.3.1, the newest build in \
             envhook's data that this driver runs: torch >=2.4,<2.8 (made with CUDA 11.8)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("bin/python' -m pip install 'torch>=2.4,<2.8' --index-url 'https://download.pytorch.org/whl/cu118'\n"),
        "{text}"
    );
}

#[test]
fn check_on_a_cpu_env_is_quiet() {
    let sb = Sandbox::new();
    let env = support::cpu_only(&sb.path("env"));
    let (json, code) = check_json(&sb, &env.prefix, &[]);
    assert_eq!(code, 0, "{:#}", json["findings"]);
    assert_eq!(json["libraries"], serde_json::json!([]));
}

/// A plain Python environment (venv, virtualenv, uv venv: a pyvenv.cfg
/// and no conda-meta/) is read as a pip-only one by check, show and
/// export (#30); the fixes end in `envhook install`, which hooks its own
/// activation scripts (#42).
#[test]
fn plain_venvs_are_pip_only_environments() {
    let sb = Sandbox::new();
    let mut env = support::Env::new(sb.path("venv"));
    env.python("3.12.8");
    env.pip(
        support::PipDist::new("nvidia-cuda-runtime-cu12", "12.6.77").files(vec![
            support::FileSpec::File("nvidia/cuda_runtime/lib/libcudart.so.12"),
        ]),
    );
    fs::remove_dir_all(env.path("conda-meta")).unwrap();
    fs::write(
        env.path("pyvenv.cfg"),
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.8\n",
    )
    .unwrap();
    let (json, code) = check_json(&sb, &env.prefix, A100);
    assert!(code <= 1, "{json:#}");
    assert_eq!(
        json["cuda"][0]["package"], "nvidia-cuda-runtime-cu12",
        "{json:#}"
    );
    let (code, out, err) = sb.run_on(&["show"], &env.prefix);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("nvidia-cuda-runtime-cu12 12.6.77 (pip)"),
        "{out}"
    );
    let (code, out, err) = sb.run_on(&["export", "--format", "env"], &env.prefix);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("nvidia/cuda_runtime/lib"), "{out}");

    // A framework here: its cuBLAS is missing, its runtime reached only
    // through a hook. The fixes end in `envhook install`, which hooks a
    // venv's own activation scripts (tests/it/venv.rs runs them).
    env.pip(
        support::PipDist::new("cupy-cuda12x", "14.2.0")
            .files(vec![support::FileSpec::File(
                "cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so",
            )])
            .requires(vec!["cuda-toolkit[cublas,cudart]==12.*; extra == \"ctk\""]),
    );
    let scratch = sb.path("scratch/libcublas.so.12");
    support::cc_shared(&scratch, "libcublas.so.12", &[], None, false);
    let cudart = env.site().join("nvidia/cuda_runtime/lib/libcudart.so.12");
    support::cc_shared(&cudart, "libcudart.so.12", &[], None, false);
    support::cc_shared(
        &env.site()
            .join("cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so"),
        "cublas.cpython-312-x86_64-linux-gnu.so",
        &[&scratch, &cudart],
        None,
        false,
    );
    fs::remove_file(&scratch).unwrap();
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let missing = finding(&json, "library-not-found");
    let install = missing["fix"]["command"].as_str().unwrap();
    assert!(
        install.contains("-m pip install 'cuda-toolkit[cublas"),
        "{install}"
    );
    assert!(
        install.ends_with(&format!(
            " && envhook install -p '{}'",
            env.prefix.display()
        )),
        "{install}"
    );
    assert_eq!(
        finding(&json, "needs-hook")["fix"]["command"],
        format!("envhook install -p '{}'", env.prefix.display())
    );
}

/// PyPI's onnxruntime-gpu 1.31.1 (a CUDA 13.0 build) installed with its
/// `[cuda,cudnn]` extras, as pip leaves it: the wheels the extras name,
/// and what those pulled in (nvidia-cudnn-cu13 needs nvidia-cublas, which
/// needs nvidia-cuda-nvrtc; nvidia-cufft needs nvidia-nvjitlink), each
/// with the Requires-Dist of its real METADATA.
fn ort_1311_with_extras(env: &mut Env) {
    use FileSpec::File;
    env.python("3.11.7");
    env.pip(
        PipDist::new("onnxruntime-gpu", "1.31.1")
            .files(vec![File(
                "onnxruntime/capi/libonnxruntime_providers_cuda.so",
            )])
            .text(
                "onnxruntime/capi/build_and_package_info.py",
                "package_name = 'onnxruntime-gpu'\n__version__ = '1.31.1'\ncuda_version = '13.0'\n",
            )
            .requires(vec![
                "numpy>=1.21.6",
                "nvidia-cuda-nvrtc~=13.0; extra == \"cuda\"",
                "nvidia-cuda-runtime~=13.0; extra == \"cuda\"",
                "nvidia-cufft~=12.0; extra == \"cuda\"",
                "nvidia-curand~=10.0; extra == \"cuda\"",
                "nvidia-cudnn-cu13~=9.0; extra == \"cudnn\"",
            ]),
    );
    for (dist, version, lib, requires) in [
        ("nvidia-cuda-runtime", "13.5.37", "libcudart.so.13", None),
        ("nvidia-cuda-nvrtc", "13.5.37", "libnvrtc.so.13", None),
        (
            "nvidia-cufft",
            "12.5.0.14",
            "libcufft.so.12",
            Some("nvidia-nvjitlink"),
        ),
        ("nvidia-curand", "10.4.5.25", "libcurand.so.10", None),
        (
            "nvidia-cublas",
            "13.10.0.20",
            "libcublas.so.13",
            Some("nvidia-cuda-nvrtc"),
        ),
        ("nvidia-nvjitlink", "13.5.37", "libnvJitLink.so.13", None),
    ] {
        let rel: &'static str = Box::leak(format!("nvidia/cu13/lib/{lib}").into_boxed_str());
        env.pip(
            PipDist::new(dist, version)
                .files(vec![File(rel)])
                .requires(requires.into_iter().collect()),
        );
    }
    env.pip(
        PipDist::new("nvidia-cudnn-cu13", "9.28.1.4")
            .files(vec![File("nvidia/cudnn/lib/libcudnn.so.9")])
            .requires(vec!["nvidia-cublas"]),
    );
}

/// #42 item 4: a driver too old for a build's CUDA major gets, beside the
/// driver upgrade, one command that puts in the newest build of the data
/// the driver runs (onnxruntime-gpu 1.24-1.26, CUDA 12.8, on a CUDA 12.2
/// driver through minor version compatibility), with the extras it was
/// installed with, the old major's wheels and what they pulled in taken
/// out; in the one wording check, explain and `conda doctor` print
/// ("CUDA 12.x", every release of the major whose floor the driver meets).
#[test]
fn driver_too_old_names_the_newest_build_the_driver_runs() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/ort"));
    ort_1311_with_extras(&mut env);
    let py = format!("'{}/bin/python' -m pip", env.prefix.display());
    let want = format!(
        "{py} uninstall -y 'onnxruntime-gpu' 'nvidia-cuda-nvrtc' 'nvidia-cuda-runtime' \
         'nvidia-cufft' 'nvidia-curand' 'nvidia-cudnn-cu13' 'nvidia-cublas' 'nvidia-nvjitlink' \
         && {py} install 'onnxruntime-gpu[cuda,cudnn]>=1.24,<1.27'"
    );
    // GPU known or not: the command is the same.
    for machine in [A100, &["--driver-version", "535.104.05"][..]] {
        let (json, code) = check_json(&sb, &env.prefix, machine);
        assert_eq!(code, 1);
        let f = finding(&json, "driver-too-old");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .starts_with("the onnxruntime-gpu 1.31.1 build needs CUDA 13.0"),
            "{f:#}"
        );
        let choose = &f["fix"]["choose"];
        assert_eq!(
            choose["advice"],
            "upgrade the NVIDIA driver to 580.65.06 or newer, or use a build made with CUDA \
             12.x; for onnxruntime-gpu 1.31.1, the newest build in envhook's data that this \
             driver runs: onnxruntime-gpu >=1.24,<1.27 (made with CUDA 12.8)",
            "{machine:?}"
        );
        assert_eq!(choose["commands"], serde_json::json!([want]), "{machine:?}");
    }
    // A wheel something staying still requires stays: CUDA 13's cuSOLVER
    // needs nvidia-cublas, which then keeps nvidia-cuda-nvrtc too.
    env.pip(
        PipDist::new("nvidia-cusolver", "12.1.0.51")
            .files(vec![FileSpec::File("nvidia/cu13/lib/libcusolver.so.12")])
            .requires(vec!["nvidia-cublas", "nvidia-nvjitlink"]),
    );
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let commands = &finding(&json, "driver-too-old")["fix"]["choose"]["commands"];
    assert_eq!(
        commands[0].as_str().unwrap(),
        format!(
            "{py} uninstall -y 'onnxruntime-gpu' 'nvidia-cuda-runtime' 'nvidia-cufft' \
             'nvidia-curand' 'nvidia-cudnn-cu13' && {py} install \
             'onnxruntime-gpu[cuda,cudnn]>=1.24,<1.27'"
        )
    );
    // explain of the message that driver prints gives check's fix, the
    // command with it.
    let out = sb
        .envhook()
        .args([
            "explain",
            "--json",
            "CUDA driver version is insufficient for CUDA runtime version",
        ])
        .args(A100)
        .arg("-p")
        .arg(&env.prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cause = &json["causes"][0];
    assert_eq!(cause["code"], "driver-too-old", "{json:#}");
    assert_eq!(cause["fix"]["choose"]["commands"], *commands, "{json:#}");
    // A message that names the driver's CUDA (torch's "found version
    // 12020"): the same fix where it is this driver's, check's words for
    // another one.
    let torch = "RuntimeError: The NVIDIA driver on your system is too old (found version 12020).";
    let here = check_json(&sb, &env.prefix, A100).0;
    let here = &finding(&here, "driver-too-old")["fix"];
    let elsewhere = "upgrade the NVIDIA driver, or use a build made with CUDA 12.x";
    for (machine, fix) in [
        (A100, here.clone()),
        (
            &["--driver-version", "580.65.06"][..],
            serde_json::json!({"choose": {"advice": elsewhere}}),
        ),
    ] {
        let out = sb
            .envhook()
            .args(["explain", "--json", torch])
            .args(machine)
            .arg("-p")
            .arg(&env.prefix)
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let answer = json["answers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["clue"]["kind"] == "version")
            .unwrap_or_else(|| panic!("{json:#}"));
        assert_eq!(answer["fix"], fix, "{machine:?}: {json:#}");
    }
    // The driver known only by the CUDA conda says it supports: the same
    // words.
    let out = sb
        .envhook()
        .env("CONDA_OVERRIDE_CUDA", "12.2")
        .args(["check", "-p"])
        .arg(&env.prefix)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("choose: upgrade the NVIDIA driver, or use a build made with CUDA 12.x; for"),
        "{text}"
    );
}

/// CUDA 13's nvidia-curand and CUDA 12's nvidia-curand-cu12, each
/// installing libcurand.so.10.
fn two_curand_wheels(env: &mut Env) {
    use FileSpec::File;
    env.pip(
        PipDist::new("nvidia-curand", "10.4.5.25")
            .files(vec![File("nvidia/cu13/lib/libcurand.so.10")]),
    );
    env.pip(
        PipDist::new("nvidia-curand-cu12", "10.3.10.19")
            .files(vec![File("nvidia/curand/lib/libcurand.so.10")]),
    );
}

/// #42: a soname two pip wheels of different CUDA lines both install
/// (CUDA 12's nvidia-curand-cu12 and CUDA 13's nvidia-curand, each
/// libcurand.so.10, after a downgrade left one behind) is no conda/pip
/// matter: the advice names the two wheels, with one command for each.
#[test]
fn a_soname_two_pip_wheels_install_names_both_wheels() {
    let sb = Sandbox::new();
    let mut env = Env::new(sb.path("envs/ort"));
    env.python("3.11.7");
    two_curand_wheels(&mut env);
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let f = finding(&json, "shadowed-library");
    let advice = f["fix"]["choose"]["advice"].as_str().unwrap();
    assert!(!advice.contains("conda"), "{advice}");
    assert_eq!(
        advice,
        "keep one CUDA line: nvidia-curand 10.4.5.25 (pip) and nvidia-curand-cu12 10.3.10.19 \
         (pip) both install libcurand.so.10; uninstall the one of the CUDA major the frameworks \
         here do not use"
    );
    let py = format!("'{}/bin/python' -m pip uninstall -y", env.prefix.display());
    assert_eq!(
        f["fix"]["choose"]["commands"],
        serde_json::json!([
            format!("{py} 'nvidia-curand'"),
            format!("{py} 'nvidia-curand-cu12'")
        ])
    );
}

/// The same two wheels beside a torch built for CUDA 12: the link
/// directory exposes CUDA 12's (not the first met), and the fix removes
/// the other one.
#[test]
fn of_two_wheels_with_one_soname_the_frameworks_cuda_line_is_exposed() {
    let sb = Sandbox::new();
    let mut env = support::explaining::torch_cu128(&sb.path("envs/t"));
    two_curand_wheels(&mut env);
    let (json, _) = check_json(&sb, &env.prefix, A100);
    let f = finding(&json, "shadowed-library");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("nvidia/curand/lib/libcurand.so.10 is exposed and")
            && message.ends_with("nvidia/cu13/lib/libcurand.so.10 is not"),
        "{message}"
    );
    assert_eq!(
        f["fix"]["choose"]["advice"],
        "keep one CUDA line: nvidia-curand-cu12 10.3.10.19 (pip) and nvidia-curand 10.4.5.25 \
         (pip) both install libcurand.so.10; the frameworks here are built for CUDA 12, so \
         uninstall nvidia-curand"
    );
    let py = format!("'{}/bin/python' -m pip uninstall -y", env.prefix.display());
    assert_eq!(
        f["fix"]["choose"]["commands"],
        serde_json::json!([format!("{py} 'nvidia-curand'")])
    );
    // Installed with the warning standing (exit 1: findings remain).
    let (code, out, err) = sb.run_on(&["install", "--always"], &env.prefix);
    assert_eq!(code, 1, "{out}{err}");
    let exposed = fs::canonicalize(env.prefix.join("lib/envhook/cuda/libcurand.so.10")).unwrap();
    assert!(
        exposed.ends_with("nvidia/curand/lib/libcurand.so.10"),
        "{exposed:?}"
    );
}
