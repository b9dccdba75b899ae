//! PaddlePaddle end to end: the environment `envhook install -n paddle` is
//! named for. Paddle 2.x dlopens unversioned names (`libcudnn.so`,
//! `libcublas.so`); the hooks' link directory answers them with the major
//! the build was made for, or not at all, and check says which major to
//! install. The layouts follow the real PyPI wheels (paddlepaddle-gpu
//! 2.6.2, nvidia-*-cu11 and -cu12); tests/real_wheels.rs has the opt-in
//! tier on the wheels themselves.

mod support;

use std::fs;
use std::path::Path;

use serde_json::Value;
use support::Sandbox;
use support::paddle::{CUDA11_CUDNN8, CUDA12_CUDNN9, paddle_262, wheels};

const A100: &[&str] = &["--driver-version", "535.104.05", "--gpu", "A100"];

fn check(sb: &Sandbox, prefix: &Path) -> (Value, i32) {
    let out = sb
        .envhook()
        .args(["check", "--json"])
        .args(A100)
        .arg("-p")
        .arg(prefix)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (json, out.status.code().unwrap())
}

fn findings<'a>(json: &'a Value, code: &str) -> Vec<&'a Value> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
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
    let wrong = findings(&json, "library-other-major");
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
    assert!(findings(&json, "needs-hook").is_empty());
    assert!(findings(&json, "missing-dev-symlink").is_empty());

    // The hooks written now expose CUDA 12's libraries under their own
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
    assert!(findings(&json, "library-other-major").is_empty());
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
    let names: Vec<&Value> = json["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["names"].as_array().unwrap())
        .filter(|n| n["name"] == "libcudnn.so")
        .collect();
    assert!(
        names[0]["with_hook"]["path"]
            .as_str()
            .unwrap()
            .ends_with("lib/envhook/cuda/libcudnn.so"),
        "{names:#?}"
    );
    assert!(
        findings(&json, "library-other-major").is_empty(),
        "{:#}",
        json["findings"]
    );
}
