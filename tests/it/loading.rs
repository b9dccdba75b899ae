//! Issue #27: the loader as it really runs. Each test is one class of
//! wrong verdict a real GPU machine or a real PyPI environment showed,
//! under the condition that showed it: a requirement under an extra the
//! environment was not installed with, libraries loaded by path (CuPy and
//! numba-cuda through cuda-pathfinder), the object whose code calls dlopen
//! (TensorFlow 2.16), the dependencies of a library loaded by path under
//! an inherited LD_LIBRARY_PATH, symbols a provider lacks, a library of
//! another CUDA major under the same soname, and a framework that falls
//! back to the CPU. Objects are real ELF built with `cc`.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::{Env, FileSpec, PipDist, Sandbox};

/// The machine the checks are made for (no GPU is needed to run them).
const MACHINE: &[&str] = &["--driver-version", "580.65.06", "--gpu", "H100"];

fn check(sb: &Sandbox, prefix: &Path, extra: &[&str]) -> (Value, i32) {
    support::check_json(sb, prefix, &[MACHINE, extra].concat())
}

/// The findings that are not `info`, as `severity code: message`.
fn loud(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .map(|f| {
            format!(
                "{} {}: {}",
                f["severity"].as_str().unwrap(),
                f["code"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// A pip wheel that installs real libraries (each built by `cc` with its
/// file name as soname) at `rels` under site-packages.
fn wheel(env: &mut Env, dist: &'static str, version: &'static str, rels: &[&'static str]) {
    env.pip(PipDist::new(dist, version).files(rels.iter().map(|r| FileSpec::File(r)).collect()));
    for rel in rels {
        let path = env.site().join(rel);
        let soname = path.file_name().unwrap().to_str().unwrap().to_string();
        support::cc_shared(&path, &soname, &[], None, false);
    }
}

/// The CUDA 13 wheels a `pip install 'numba-cuda[cu13]'` or
/// `cupy-cuda13x[ctk]` brings (PyPI, December 2026): the suffix-less
/// toolkit wheels share `nvidia/cu13/lib`.
fn cuda13_wheels(env: &mut Env) {
    wheel(
        env,
        "nvidia-cuda-runtime",
        "13.0.96",
        &["nvidia/cu13/lib/libcudart.so.13"],
    );
    wheel(
        env,
        "nvidia-cuda-nvrtc",
        "13.0.88",
        &["nvidia/cu13/lib/libnvrtc.so.13"],
    );
    wheel(
        env,
        "nvidia-nvvm",
        "13.0.88",
        &["nvidia/cu13/lib/libnvvm.so.4"],
    );
    wheel(
        env,
        "nvidia-nvjitlink",
        "13.0.88",
        &["nvidia/cu13/lib/libnvJitLink.so.13"],
    );
    env.pip(PipDist::new("cuda-toolkit", "13.0.2"));
    env.pip(PipDist::new("cuda-bindings", "13.5.0"));
    env.pip(PipDist::new("cuda-pathfinder", "1.9.1"));
}

/// numba-cuda 0.30.4's Requires-Dist (PyPI METADATA).
const NUMBA_CUDA_REQUIRES: &[&str] = &[
    "numba>=0.60.0",
    "cuda-bindings<14.0.0,>=12.9.1",
    "cuda-core<2.0.0,>=0.5.1",
    "cuda-pathfinder<2.0.0,>=1.4.0",
    "packaging",
    "cuda-bindings<13.0.0,>=12.9.1; extra == \"cu12\"",
    "cuda-toolkit[cccl,cudart,nvcc,nvrtc]==12.*; extra == \"cu12\"",
    "nvidia-nvjitlink-cu12<13.0.0,>=12.3.0; extra == \"cu12\"",
    "cuda-bindings==13.*; extra == \"cu13\"",
    "cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*; extra == \"cu13\"",
    "nvidia-nvjitlink<14.0.0,>=13.0.0; extra == \"cu13\"",
];

/// numba-cuda 0.30.4 with its Requires-Dist and its dispatcher object,
/// whose libraries cuda-pathfinder loads (none of them DT_NEEDED).
fn numba_cuda(env: &mut Env) {
    let dispatcher = "numba_cuda/numba/cuda/cext/_dispatcher.cpython-312-x86_64-linux-gnu.so";
    env.pip(
        PipDist::new("numba-cuda", "0.30.4")
            .requires(NUMBA_CUDA_REQUIRES.to_vec())
            .files(vec![FileSpec::File(dispatcher)]),
    );
    support::cc_shared(
        &env.site().join(dispatcher),
        "_dispatcher.so",
        &[],
        None,
        false,
    );
}

/// `pip install numba-cuda` alone (0.30.4 from PyPI, as the field test
/// made it): `from numba import cuda` fails on cuda-pathfinder's
/// libcudart. One error, and the fix numba-cuda's own docs give, the extra
/// of the CUDA major here (the newest where nothing says): followed as
/// printed on the real wheels, numba then failed only on the missing
/// driver of that machine.
#[test]
fn numba_cuda_without_an_extra_gets_the_extra() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/numba");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    env.pip(PipDist::new("cuda-bindings", "13.5.0"));
    env.pip(PipDist::new("cuda-pathfinder", "1.9.1"));
    env.pip(PipDist::new("numba", "0.68.1"));
    numba_cuda(&mut env);
    let python = prefix.join("bin/python");
    let (json, code) = check(&sb, &prefix, &[]);
    assert_eq!(code, 1, "{:#}", json["findings"]);
    let missing = of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert_eq!(missing[0]["severity"], "error");
    assert!(
        missing[0]["message"]
            .as_str()
            .unwrap()
            .contains("libcudart.so.13"),
        "{:#}",
        missing[0]
    );
    assert_eq!(
        missing[0]["fix"]["command"],
        format!(
            "'{}' -m pip install 'numba-cuda[cu13]==0.30.4' && envhook install -p '{}'",
            python.display(),
            prefix.display()
        )
    );
    // The driver here (580.65.06) runs CUDA 13; one that supports CUDA 12
    // at most gets the cu12 extra.
    let args = [
        "check",
        "--json",
        "--driver-version",
        "550.54.15",
        "--gpu",
        "H100",
    ];
    let (_, out, _) = sb.run_on(&args, &prefix);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert!(
        of(&json, "library-not-found")[0]["fix"]["command"]
            .as_str()
            .unwrap()
            .contains("'numba-cuda[cu12]==0.30.4'"),
        "{:#}",
        json["findings"]
    );
}

/// `pip install 'numba-cuda[cu13]'`: the `cu12` extra's pins (CUDA 12's
/// toolkit) are not the user's, and never a finding. On the H200 they
/// were a false `cuda-mismatch` and a false `pin-broken`.
#[test]
fn an_extra_the_environment_was_not_installed_with_is_not_held() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/numba");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    cuda13_wheels(&mut env);
    env.pip(PipDist::new("cuda-core", "1.2.2"));
    env.pip(PipDist::new("numba", "0.68.1"));
    env.pip(PipDist::new("packaging", "26.4"));
    numba_cuda(&mut env);
    let (json, code) = check(&sb, &prefix, &[]);
    assert_eq!(loud(&json), Vec::<String>::new(), "{:#}", json["findings"]);
    let numba = json["frameworks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["package"] == "numba-cuda")
        .unwrap();
    let pins: Vec<(&str, &str)> = numba["pins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["requirement"].as_str().unwrap(),
                p["extra"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pins,
        [
            ("cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*", "cu13"),
            ("nvidia-nvjitlink>=13.0.0, <14.0.0", "cu13"),
        ]
    );
    assert_eq!(code, 0);
    // The toolkit downgraded by hand (`pip install cuda-toolkit==12.9.1`):
    // `cu13` no longer holds wholly and `cu12` is not there (its
    // nvJitLink wheel is missing), so `cu13` is still the user's extra, and
    // now broken.
    std::fs::remove_dir_all(env.site().join("cuda_toolkit-13.0.2.dist-info")).unwrap();
    env.pip(PipDist::new("cuda-toolkit", "12.9.1"));
    let (json, code) = check(&sb, &prefix, &[]);
    let loud = loud(&json);
    assert_eq!(loud.len(), 1, "{loud:#?}");
    assert!(
        loud[0].starts_with("error pin-broken: numba-cuda 0.30.4 requires cuda-toolkit[cccl,cudart,nvrtc,nvvm]==13.*"),
        "{loud:#?}"
    );
    assert_eq!(code, 1);
}

/// PyPI's torch at (version, local tag, CUDA), reduced to its
/// `libtorch_cuda.so` (real ELF needing `needs`, found through the RPATH
/// `rpath`) and its version file.
fn torch(
    env: &mut Env,
    (version, tag, cuda): (&'static str, &str, &str),
    needs: &Path,
    rpath: &str,
) {
    env.pip(
        PipDist::new("torch", version)
            .files(vec![FileSpec::File("torch/lib/libtorch_cuda.so")])
            .text(
                "torch/version.py",
                format!(
                    "__version__ = '{version}+{tag}'\ndebug = False\ncuda = '{cuda}'\ngit_version = 'x'\nhip = None\n"
                ),
            ),
    );
    support::cc_shared(
        &env.site().join("torch/lib/libtorch_cuda.so"),
        "libtorch_cuda.so",
        &[needs],
        Some(rpath),
        false,
    );
}

/// The findings of one code.
fn of<'a>(json: &'a Value, code: &str) -> Vec<&'a Value> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// CuPy 14 loads its libraries through cuda-pathfinder, by absolute path
/// from the wheels, before the module that needs them is imported: its
/// objects have no RUNPATH, yet no hook is needed. On the H200 this was a
/// false `needs-hook` (and `system-library-wins` beside a system CUDA).
#[test]
fn what_cuda_pathfinder_loads_needs_no_hook() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/cupy");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    cuda13_wheels(&mut env);
    wheel(
        &mut env,
        "nvidia-cublas",
        "13.1.0.3",
        &[
            "nvidia/cu13/lib/libcublas.so.13",
            "nvidia/cu13/lib/libcublasLt.so.13",
        ],
    );
    let module = "cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so";
    env.pip(
        PipDist::new("cupy-cuda13x", "14.2.0")
            .requires(vec!["numpy<2.6,>=2.0", "cuda-pathfinder==1.*,>=1.3.4"])
            .files(vec![FileSpec::File(module)]),
    );
    let site = env.site();
    // Linked by path, as CuPy's build does, then no RUNPATH at all.
    support::cc_shared(
        &site.join(module),
        "cublas.cpython-312-x86_64-linux-gnu.so",
        &[&site.join("nvidia/cu13/lib/libcublas.so.13")],
        None,
        false,
    );
    let (json, code) = check(&sb, &prefix, &[]);
    assert_eq!(loud(&json), Vec::<String>::new(), "{:#}", json["findings"]);
    assert_eq!(code, 0);
    let cublas = json["libraries"][0]["names"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "libcublas.so.13")
        .unwrap_or_else(|| panic!("{:#}", json["libraries"]));
    // pathfinder loaded it; the module's DT_NEEDED finds it loaded.
    assert_eq!(cublas["without_hook"]["rule"], "loaded");
    assert!(
        cublas["without_hook"]["path"]
            .as_str()
            .unwrap()
            .ends_with("site-packages/nvidia/cu13/lib/libcublas.so.13")
    );
    // Without cuda-pathfinder's data (a release no row covers) the name is
    // resolved as the loader would: only through a hook.
    std::fs::remove_dir_all(site.join("cuda_pathfinder-1.9.1.dist-info")).unwrap();
    env.pip(PipDist::new("cuda-pathfinder", "9.0.0"));
    let (json, _) = check(&sb, &prefix, &[]);
    assert_eq!(of(&json, "needs-hook").len(), 1, "{:#}", json["findings"]);
}

/// A library loaded by path takes its own dependencies from the loader's
/// search, where an inherited LD_LIBRARY_PATH (`module load cuda`)
/// precedes its RUNPATH `$ORIGIN`: JAX loads the wheel's libcublas.so.13
/// before libcublasLt.so.13, which then comes from the system; torch 2.11
/// preloads libcublasLt.so.13 first and is not affected. Measured so on
/// PyPI torch 2.11.0 and jax 0.11.2 (/proc/self/maps).
#[test]
fn the_dependencies_of_a_library_loaded_by_path_under_an_inherited_path() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/gpu");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    cuda13_wheels(&mut env);
    let site = env.site();
    let lib = site.join("nvidia/cu13/lib");
    env.pip(PipDist::new("nvidia-cublas", "13.1.0.3").files(vec![
        FileSpec::File("nvidia/cu13/lib/libcublas.so.13"),
        FileSpec::File("nvidia/cu13/lib/libcublasLt.so.13"),
    ]));
    support::cc_lib(
        &lib.join("libcublasLt.so.13"),
        "libcublasLt.so.13",
        "int lt(void) { return 0; }\n",
        &[],
        None,
        None,
    );
    support::cc_lib(
        &lib.join("libcublas.so.13"),
        "libcublas.so.13",
        "int lt(void);\nint blas(void) { return lt(); }\n",
        &[&lib.join("libcublasLt.so.13")],
        Some("$ORIGIN"),
        None,
    );
    let system = sb.path("usr/local/cuda-13.0/lib64");
    support::cc_lib(
        &system.join("libcublasLt.so.13"),
        "libcublasLt.so.13",
        "int lt(void) { return 1; }\n",
        &[],
        None,
        None,
    );
    env.pip(PipDist::new("jaxlib", "0.11.2"));
    env.pip(PipDist::new("jax-cuda13-plugin", "0.11.2"));
    let plugin = "jax_plugins/xla_cuda13/xla_cuda_plugin.so";
    env.pip(PipDist::new("jax-cuda13-pjrt", "0.11.2").files(vec![FileSpec::File(plugin)]));
    support::cc_shared(
        &site.join(plugin),
        "xla_cuda_plugin.so",
        &[],
        Some("$ORIGIN/../../nvidia/cu13/lib"),
        false,
    );
    let inherited = system.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = sb.envhook_std();
        cmd.args(["check", "--json"])
            .args(MACHINE)
            .args(args)
            .arg("-p")
            .arg(&prefix);
        cmd.env("LD_LIBRARY_PATH", inherited);
        let out = cmd.output().unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        (json, out.status.code().unwrap())
    };
    let (json, _) = run(&[]);
    let wins = of(&json, "system-library-wins");
    assert_eq!(wins.len(), 1, "{:#}", json["findings"]);
    let message = wins[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("jax-cuda13-plugin 0.11.2: without envhook's hook"),
        "{message}"
    );
    assert!(message.contains("libcublasLt.so.13"), "{message}");
    assert!(message.contains(inherited), "{message}");
    assert_eq!(
        wins[0]["fix"]["command"],
        format!("envhook install -p '{}'", prefix.display())
    );
    let edge = json["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "libcublasLt.so.13")
        .unwrap_or_else(|| panic!("{:#}", json["dependencies"]));
    assert!(
        edge["needed_by"]
            .as_str()
            .unwrap()
            .ends_with("libcublas.so.13")
    );
    assert_eq!(edge["without_hook"]["rule"], "ld-library-path");
    // The fix, as printed: then the environment's copy is the one.
    let (code, _, err) = sb.run_on(&["install"], &prefix);
    assert!(code <= 1, "{err}");
    let (json, _) = run(&[]);
    assert!(
        of(&json, "system-library-wins").is_empty(),
        "{:#}",
        json["findings"]
    );
    sb.run_on(&["uninstall"], &prefix);
    // torch 2.11 preloads libcublasLt.so.13 before libcublas.so.13.
    std::fs::remove_dir_all(site.join("jax_cuda13_pjrt-0.11.2.dist-info")).unwrap();
    torch(
        &mut env,
        ("2.11.0", "cu130", "13.0"),
        &lib.join("libcublas.so.13"),
        "$ORIGIN/../../nvidia/cu13/lib",
    );
    let (json, _) = run(&[]);
    let wins = of(&json, "system-library-wins");
    assert!(
        wins.iter()
            .all(|w| !w["message"].as_str().unwrap().starts_with("torch")),
        "{wins:#?}"
    );
}

/// cuSPARSE built against nvJitLink 12.4 needs
/// `__nvJitLinkComplete_12_4@libnvJitLink.so.12`; an nvJitLink wheel of
/// 12.1 has the version node but not the symbol: importing torch fails
/// with "undefined symbol". One of the most reported torch import errors.
#[test]
fn a_symbol_the_bound_provider_lacks() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/torch");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    let site = env.site();
    env.pip(
        PipDist::new("nvidia-nvjitlink-cu12", "12.1.105").files(vec![FileSpec::File(
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        )]),
    );
    env.pip(
        PipDist::new("nvidia-cusparse-cu12", "12.3.1.170").files(vec![FileSpec::File(
            "nvidia/cusparse/lib/libcusparse.so.12",
        )]),
    );
    let jit = site.join("nvidia/nvjitlink/lib/libnvJitLink.so.12");
    let scratch = sb.path("scratch/libnvJitLink.so.12");
    // Built against 12.4's nvJitLink, which the environment then lost.
    support::cc_lib(
        &scratch,
        "libnvJitLink.so.12",
        "int __nvJitLinkComplete_12_4(void) { return 0; }\nint __nvJitLinkCreate_12_0(void) { return 0; }\n",
        &[],
        None,
        Some("libnvJitLink.so.12"),
    );
    let sparse = site.join("nvidia/cusparse/lib/libcusparse.so.12");
    support::cc_lib(
        &sparse,
        "libcusparse.so.12",
        "int __nvJitLinkComplete_12_4(void);\nint __nvJitLinkCreate_12_0(void);\nint sp(void) { return __nvJitLinkComplete_12_4() + __nvJitLinkCreate_12_0(); }\n",
        &[&scratch],
        Some("$ORIGIN:$ORIGIN/../../nvjitlink/lib"),
        Some("libcusparse.so.12"),
    );
    support::cc_lib(
        &jit,
        "libnvJitLink.so.12",
        "int __nvJitLinkCreate_12_0(void) { return 0; }\n",
        &[],
        None,
        Some("libnvJitLink.so.12"),
    );
    torch(
        &mut env,
        ("2.5.1", "cu124", "12.4"),
        &sparse,
        "$ORIGIN/../../nvidia/cusparse/lib",
    );
    let (json, code) = check(&sb, &prefix, &[]);
    let missing = of(&json, "symbol-missing");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert_eq!(missing[0]["severity"], "error");
    let message = missing[0]["message"].as_str().unwrap();
    assert!(
        message.contains("undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"),
        "{message}"
    );
    assert!(message.starts_with("libcusparse.so.12"), "{message}");
    assert_eq!(
        missing[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install --upgrade 'nvidia-nvjitlink-cu12'",
            prefix.display()
        )
    );
    assert_eq!(code, 1);
    // The loader agrees (what `ldd -r` asks it: bind every symbol now).
    let trace = std::process::Command::new("/lib64/ld-linux-x86-64.so.2")
        .arg(&sparse)
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .env("LD_BIND_NOW", "yes")
        .env("LD_WARN", "yes")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&trace.stdout).into_owned()
        + &String::from_utf8_lossy(&trace.stderr);
    assert!(
        text.contains("undefined symbol: __nvJitLinkComplete_12_4"),
        "{text}"
    );
    // With the nvJitLink it was built with, nothing.
    std::fs::copy(&scratch, &jit).unwrap();
    let (json, _) = check(&sb, &prefix, &[]);
    assert!(
        of(&json, "symbol-missing").is_empty(),
        "{:#}",
        json["findings"]
    );
}

/// The environment's nvJitLink (12.4) defines the symbol, and this
/// shell's LD_LIBRARY_PATH puts a CUDA 12.1 lib64 first (infiniflow/
/// ragflow#4466's variable): check's closure finds cuSPARSE failing on
/// that copy, and explain names the shell's variable as the cause, with
/// the export that drops the directory or the hook (#41 item 4b). The
/// same as torch 2.5.1 printed with nvidia-nvjitlink-cu12 12.1.105's
/// library first on LD_LIBRARY_PATH (vllm-project/vllm#10300's message).
#[test]
fn an_older_nvjitlink_on_the_shells_path_is_the_shells_doing() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/torch");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    let site = env.site();
    env.pip(
        PipDist::new("nvidia-nvjitlink-cu12", "12.4.127").files(vec![FileSpec::File(
            "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        )]),
    );
    env.pip(
        PipDist::new("nvidia-cusparse-cu12", "12.3.1.170").files(vec![FileSpec::File(
            "nvidia/cusparse/lib/libcusparse.so.12",
        )]),
    );
    let jit = site.join("nvidia/nvjitlink/lib/libnvJitLink.so.12");
    support::cc_lib(
        &jit,
        "libnvJitLink.so.12",
        "int __nvJitLinkComplete_12_4(void) { return 0; }\nint __nvJitLinkCreate_12_0(void) { return 0; }\n",
        &[],
        None,
        Some("libnvJitLink.so.12"),
    );
    let sparse = site.join("nvidia/cusparse/lib/libcusparse.so.12");
    support::cc_lib(
        &sparse,
        "libcusparse.so.12",
        "int __nvJitLinkComplete_12_4(void);\nint __nvJitLinkCreate_12_0(void);\nint sp(void) { return __nvJitLinkComplete_12_4() + __nvJitLinkCreate_12_0(); }\n",
        &[&jit],
        Some("$ORIGIN:$ORIGIN/../../nvjitlink/lib"),
        Some("libcusparse.so.12"),
    );
    torch(
        &mut env,
        ("2.5.1", "cu124", "12.4"),
        &sparse,
        "$ORIGIN/../../nvidia/cusparse/lib",
    );
    let lib64 = sb.path("usr/local/cuda-12.1/lib64");
    support::cc_lib(
        &lib64.join("libnvJitLink.so.12.1.105"),
        "libnvJitLink.so.12",
        "int __nvJitLinkCreate_12_0(void) { return 0; }\n",
        &[],
        None,
        Some("libnvJitLink.so.12"),
    );
    std::os::unix::fs::symlink("libnvJitLink.so.12.1.105", lib64.join("libnvJitLink.so.12"))
        .unwrap();
    let message = "ImportError: /opt/conda/envs/vllmsource/lib/python3.11/site-packages/torch/\
                   lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: \
                   __nvJitLinkComplete_12_4, version libnvJitLink.so.12";
    let ld = format!("{}:", lib64.display());
    let out = sb
        .envhook()
        .env("LD_LIBRARY_PATH", &ld)
        .args(["explain", "--json", message, "-p"])
        .arg(&prefix)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{json:#}");
    let a = json["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "__nvJitLinkComplete_12_4")
        .unwrap_or_else(|| panic!("{json:#}"));
    let diagnosis = a["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.contains("does not define it"),
        "check's closure: {diagnosis}"
    );
    assert!(
        diagnosis.ends_with("The cause is this shell's own LD_LIBRARY_PATH, not the environment."),
        "{diagnosis}"
    );
    assert_eq!(
        a["fix"]["choose"]["commands"][0], "unset LD_LIBRARY_PATH",
        "{a:#}"
    );
    assert!(
        a["fix"]["choose"]["commands"][1]
            .as_str()
            .unwrap()
            .starts_with("envhook install"),
        "{a:#}"
    );
}

/// JAX without cuDNN does not fail: it runs on the CPU ("Unable to load
/// cuDNN", "Falling back to cpu"). A library whose absence costs the GPU
/// is an error, not a warning.
#[test]
fn a_framework_that_falls_back_to_the_cpu_is_an_error() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/jax");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    cuda13_wheels(&mut env);
    let site = env.site();
    env.pip(PipDist::new("jaxlib", "0.11.2"));
    env.pip(PipDist::new("jax-cuda13-plugin", "0.11.2").requires(vec![
        "jax-cuda13-pjrt==0.11.2",
        "nvidia-cudnn-cu13<10.0,>=9.8; extra == \"with-cuda\"",
    ]));
    let plugin = "jax_plugins/xla_cuda13/xla_cuda_plugin.so";
    env.pip(PipDist::new("jax-cuda13-pjrt", "0.11.2").files(vec![FileSpec::File(plugin)]));
    support::cc_shared(
        &site.join(plugin),
        "xla_cuda_plugin.so",
        &[],
        Some("$ORIGIN/../../nvidia/cu13/lib"),
        false,
    );
    let (json, code) = check(&sb, &prefix, &[]);
    let missing = of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert_eq!(missing[0]["severity"], "error");
    let message = missing[0]["message"].as_str().unwrap();
    assert!(message.contains("libcudnn.so.9"), "{message}");
    assert!(
        message.ends_with("without them it runs on the CPU"),
        "{message}"
    );
    assert_eq!(code, 1);
}

/// cupy-cuda11x 13.3.0 with one `module`, beside CUDA 12's runtime wheel
/// and one more CUDA 12 wheel (distribution, version, its library).
fn cupy11_beside_cuda12(
    sb: &Sandbox,
    module: &'static str,
    (dist, version, lib): (&'static str, &'static str, &'static str),
) -> (std::path::PathBuf, Env) {
    let prefix = sb.path("envs/cupy11");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    wheel(
        &mut env,
        "nvidia-cuda-runtime-cu12",
        "12.4.127",
        &["nvidia/cuda_runtime/lib/libcudart.so.12"],
    );
    wheel(&mut env, dist, version, &[lib]);
    env.pip(PipDist::new("cupy-cuda11x", "13.3.0").files(vec![FileSpec::File(module)]));
    (prefix, env)
}

/// cupy-cuda11x beside torch's CUDA 12 wheels, with its cuBLAS module:
/// `libcublas.so.11` is nowhere (an error: CuPy's matmul needs it), and
/// the fix is still CuPy's CUDA 12 build, never CUDA 11's libraries
/// beside CUDA 12's (which a plain "install what is missing" fix gave).
/// Measured on cupy-cuda11x 13.3.0 beside torch 2.5.1: after the printed
/// fix, CuPy's own `cupy_backends.cuda.libs` imports load the wheels'
/// libcublas.so.12, libnvrtc.so.12 and libcurand.so.10 (/proc/self/maps).
#[test]
fn a_build_for_another_major_missing_its_libraries_is_replaced_not_completed() {
    let sb = Sandbox::new();
    let module = "cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so";
    let cublas = (
        "nvidia-cublas-cu12",
        "12.4.5.8",
        "nvidia/cublas/lib/libcublas.so.12",
    );
    let (prefix, env) = cupy11_beside_cuda12(&sb, module, cublas);
    // Linked against a CUDA 11 cuBLAS that is then gone, as on a machine
    // with no CUDA 11.
    let elsewhere = sb.path("build/libcublas.so.11");
    support::cc_shared(&elsewhere, "libcublas.so.11", &[], None, false);
    let site = env.site();
    support::cc_shared(
        &site.join(module),
        "cublas.cpython-312-x86_64-linux-gnu.so",
        &[&elsewhere],
        None,
        false,
    );
    std::fs::remove_file(&elsewhere).unwrap();
    let (json, code) = check(&sb, &prefix, &[]);
    assert_eq!(code, 1);
    let py = prefix.join("bin/python");
    let rebuilt = format!(
        "'{py}' -m pip uninstall -y 'cupy-cuda11x' && '{py}' -m pip install 'cupy-cuda12x==13.3.0' && envhook install -p '{}'",
        prefix.display(),
        py = py.display()
    );
    let missing = of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{:#}", json["findings"]);
    assert!(
        missing[0]["message"]
            .as_str()
            .unwrap()
            .contains("libcublas.so.11"),
        "{:#}",
        missing[0]
    );
    assert_eq!(missing[0]["fix"]["command"], rebuilt, "{:#}", missing[0]);
    // No fix anywhere installs CUDA 11's libraries.
    let text = json["findings"].to_string();
    assert!(
        !text.contains("-cu11") && !text.contains(">=11,<12"),
        "{text}"
    );
    // explain of the message CuPy prints gives check's fix, from the same
    // one answer to "a build of another major" (fixes::for_major).
    let (code, out, err) = sb.run_on(
        &[
            "explain",
            "libcublas.so.11: cannot open shared object file: No such file or directory",
        ],
        &prefix,
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("'cupy-cuda12x==13.3.0'"), "{out}");
    assert!(!out.contains("-cu11") && !out.contains(">=11,<12"), "{out}");
}

/// cupy-cuda11x beside torch's CUDA 12 wheels: CuPy links its runtime in,
/// and the CUDA 12 `libcurand.so.10` has the soname its CUDA 11 build asks
/// for, but is another build. The hook that would expose it is no fix
/// (no `needs-hook`), and installing CUDA 11's libraries beside CUDA 12's
/// would put two `libcurand.so.10` in one wheel directory: the fix is
/// CuPy's CUDA 12 build. Measured on cupy-cuda11x 13.3.0 beside torch
/// 2.5.1: `ImportError: libcublas.so.11`; after the printed fix, CuPy's
/// cuBLAS, cuSOLVER, cuSPARSE, cuRAND and cuFFT modules import.
#[test]
fn a_library_of_another_cuda_major_under_the_same_soname() {
    let sb = Sandbox::new();
    let module = "cupy_backends/cuda/libs/curand.cpython-312-x86_64-linux-gnu.so";
    let curand = (
        "nvidia-curand-cu12",
        "10.3.5.147",
        "nvidia/curand/lib/libcurand.so.10",
    );
    let (prefix, env) = cupy11_beside_cuda12(&sb, module, curand);
    let site = env.site();
    support::cc_shared(
        &site.join(module),
        "curand.cpython-312-x86_64-linux-gnu.so",
        &[&site.join("nvidia/curand/lib/libcurand.so.10")],
        None,
        false,
    );
    let (json, code) = check(&sb, &prefix, &[]);
    assert!(of(&json, "needs-hook").is_empty(), "{:#}", json["findings"]);
    assert!(
        of(&json, "no-cuda-runtime").is_empty(),
        "{:#}",
        json["findings"]
    );
    let mismatch = of(&json, "cuda-mismatch");
    assert_eq!(mismatch.len(), 1, "{:#}", json["findings"]);
    assert!(
        mismatch[0]["message"]
            .as_str()
            .unwrap()
            .contains("Its CUDA runtime is linked in")
    );
    let py = prefix.join("bin/python");
    assert_eq!(
        mismatch[0]["fix"]["command"],
        format!(
            "'{py}' -m pip uninstall -y 'cupy-cuda11x' && '{py}' -m pip install 'cupy-cuda12x==13.3.0' && envhook install -p '{}'",
            prefix.display(),
            py = py.display()
        )
    );
    assert_eq!(code, 1);
    // A CUDA 11 on the user's LD_LIBRARY_PATH (`module load cuda/11.8`):
    // CuPy works on it, so no cuda-mismatch; but the hook would put the
    // CUDA 12 wheel's libcurand.so.10 before it.
    let system = sb.path("opt/cuda-11.8/lib64");
    support::cc_shared(
        &system.join("libcurand.so.10"),
        "libcurand.so.10",
        &[],
        None,
        false,
    );
    let run = |sb: &Sandbox| {
        let mut cmd = sb.envhook_std();
        cmd.args(["check", "--json"])
            .args(MACHINE)
            .arg("-p")
            .arg(&prefix);
        let out = cmd.env("LD_LIBRARY_PATH", &system).output().unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        (json, out.status.code().unwrap())
    };
    let (json, _) = run(&sb);
    assert!(
        of(&json, "cuda-mismatch").is_empty(),
        "{:#}",
        json["findings"]
    );
    assert!(
        of(&json, "system-library-wins").is_empty(),
        "{:#}",
        json["findings"]
    );
    let shadows = of(&json, "hook-other-major");
    assert_eq!(shadows.len(), 1, "{:#}", json["findings"]);
    let message = shadows[0]["message"].as_str().unwrap();
    assert!(
        message.contains("but the hook would put the environment's first: CUDA 12 wheels'"),
        "{message}"
    );
    assert_eq!(shadows[0]["fix"]["command"], mismatch[0]["fix"]["command"]);
    sb.run_on(&["install"], &prefix);
    let (json, code) = run(&sb);
    let shadows = of(&json, "hook-other-major");
    assert_eq!(shadows.len(), 1, "{:#}", json["findings"]);
    assert!(
        shadows[0]["message"]
            .as_str()
            .unwrap()
            .contains("the hook puts")
    );
    assert_eq!(code, 1);
}

/// torchvision 0.22 is built against torch 2.7: beside torch 2.6 its
/// `_C.so` needs `_ZNK5torch8autograd4Node4nameB5cxx11Ev`, which torch
/// 2.6's libraries lack (torch's C++ API has no symbol versions), and
/// torchvision then fails with "operator torchvision::nms does not exist".
/// The fix lets pip pick the torchvision built for the torch installed
/// (measured: `pip install 'torch==2.6.0' torchvision` installs 0.21.0,
/// after which nms runs and check is clean).
#[test]
fn a_torch_extension_built_against_another_torch() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/torch");
    let mut env = Env::new(&prefix);
    env.python("3.12.4");
    let site = env.site();
    let lib = site.join("torch/lib");
    env.pip(
        PipDist::new("torch", "2.6.0")
            .files(vec![
                FileSpec::File("torch/lib/libtorch_cuda.so"),
                FileSpec::File("torch/lib/libtorch_cpu.so"),
            ])
            .text(
                "torch/version.py",
                "__version__ = '2.6.0+cu124'\ndebug = False\ncuda = '12.4'\ngit_version = 'x'\nhip = None\n",
            ),
    );
    support::cc_shared(
        &lib.join("libtorch_cuda.so"),
        "libtorch_cuda.so",
        &[],
        None,
        false,
    );
    // torch 2.7's libtorch_cpu.so, which torchvision was linked against,
    // then torch 2.6's, which is installed.
    let built_against = sb.path("scratch/libtorch_cpu.so");
    let both = "int _ZN3c104funcEv(void) { return 0; }\nint _ZNK5torch8autograd4Node4nameB5cxx11Ev(void) { return 0; }\n";
    support::cc_lib(&built_against, "libtorch_cpu.so", both, &[], None, None);
    support::cc_lib(
        &lib.join("libtorch_cpu.so"),
        "libtorch_cpu.so",
        "int _ZN3c104funcEv(void) { return 0; }\n",
        &[],
        None,
        None,
    );
    env.pip(
        PipDist::new("torchvision", "0.22.0")
            .requires(vec!["numpy", "torch==2.7.0", "pillow!=8.3.*,>=5.3.0"])
            .files(vec![FileSpec::File("torchvision/_C.so")]),
    );
    support::cc_lib(
        &site.join("torchvision/_C.so"),
        "_C.so",
        "int _ZN3c104funcEv(void);\nint _ZNK5torch8autograd4Node4nameB5cxx11Ev(void);\nint PyInit__C(void) { return _ZN3c104funcEv() + _ZNK5torch8autograd4Node4nameB5cxx11Ev(); }\n",
        &[&built_against],
        None,
        None,
    );
    let (json, code) = check(&sb, &prefix, &[]);
    let mismatch = of(&json, "extension-mismatch");
    assert_eq!(mismatch.len(), 1, "{:#}", json["findings"]);
    assert_eq!(mismatch[0]["severity"], "error");
    let message = mismatch[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "torchvision 0.22.0 (_C.so) was built for torch==2.7.0 (its own requirement), not the \
             installed torch 2.6.0: it needs torch::autograd::Node::name[abi:cxx11]() const \
             (_ZNK5torch8autograd4Node4nameB5cxx11Ev),"
        ),
        "{message}"
    );
    assert_eq!(
        mismatch[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'torch==2.6.0' 'torchvision'",
            prefix.display()
        )
    );
    assert_eq!(code, 1);
    // The torchvision built for this torch: nothing to say.
    std::fs::copy(lib.join("libtorch_cpu.so"), &built_against).unwrap();
    support::cc_lib(
        &site.join("torchvision/_C.so"),
        "_C.so",
        "int _ZN3c104funcEv(void);\nint PyInit__C(void) { return _ZN3c104funcEv(); }\n",
        &[&built_against],
        None,
        None,
    );
    let (json, _) = check(&sb, &prefix, &[]);
    assert!(
        of(&json, "extension-mismatch").is_empty(),
        "{:#}",
        json["findings"]
    );
}

/// bitsandbytes loads the object its `BNB_CUDA_VERSION` names, where set
/// and not empty, instead of the one for its torch's CUDA
/// (bitsandbytes/cextension.py@0.45.0): check reads the variable as the
/// process would. `BNB_CUDA_VERSION=118` under a torch for CUDA 12.4 with
/// CUDA 12's wheels only: the cuda118 object's CUDA 11 libraries are
/// nowhere, and the variable is the cause, unset as bitsandbytes advises.
#[test]
fn a_picked_object_follows_the_variable_that_overrides_the_pick() {
    let sb = Sandbox::new();
    let prefix = sb.path("envs/bnb");
    let mut env = super::explain_corpus_more::bitsandbytes_on(&prefix, "2.4.1+cu124", "12.4");
    let cudart = ["nvidia/cuda_runtime/lib/libcudart.so.12"];
    wheel(&mut env, "nvidia-cuda-runtime-cu12", "12.4.127", &cudart);
    let cublas = [
        "nvidia/cublas/lib/libcublas.so.12",
        "nvidia/cublas/lib/libcublasLt.so.12",
    ];
    wheel(&mut env, "nvidia-cublas-cu12", "12.4.5.8", &cublas);
    let cusparse = ["nvidia/cusparse/lib/libcusparse.so.12"];
    wheel(&mut env, "nvidia-cusparse-cu12", "12.3.1.170", &cusparse);
    // torch reaches its wheels through its RPATH (torch 2.5.1's
    // libtorch_cuda.so), and bitsandbytes imports torch first: torch's
    // copies answer the cuda124 object's names, with no hook.
    let site = env.site();
    let deps: Vec<std::path::PathBuf> = [&cudart[..], &cublas[..], &cusparse[..]]
        .concat()
        .iter()
        .map(|r| site.join(r))
        .collect();
    let deps: Vec<&Path> = deps.iter().map(|d| d.as_path()).collect();
    support::cc_shared(
        &site.join("torch/lib/libtorch_cuda.so"),
        "libtorch_cuda.so",
        &deps,
        Some(
            "$ORIGIN/../../nvidia/cuda_runtime/lib:$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cusparse/lib",
        ),
        false,
    );
    let run = |value: Option<&str>| {
        let mut cmd = sb.envhook();
        if let Some(v) = value {
            cmd.env("BNB_CUDA_VERSION", v);
        }
        let out = cmd
            .args(["check", "--json", "-p"])
            .arg(&prefix)
            .args(MACHINE)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    // Unset or empty: the cuda124 object, whose libraries torch loaded.
    for value in [None, Some("")] {
        let json = run(value);
        let about: Vec<String> = loud(&json)
            .into_iter()
            .filter(|f| f.contains("needs-hook") || f.contains("library-not-found"))
            .collect();
        assert_eq!(about, Vec::<String>::new(), "{value:?}");
    }
    let json = run(Some("118"));
    let missing = of(&json, "library-not-found");
    assert_eq!(missing.len(), 1, "{json:#}");
    let message = missing[0]["message"].as_str().unwrap();
    assert!(
        message.contains("libbitsandbytes_cuda118.so") && message.contains("libcusparse.so.11"),
        "{message}"
    );
    assert_eq!(
        missing[0]["fix"]["choose"]["commands"],
        serde_json::json!(["unset BNB_CUDA_VERSION"]),
        "{:#}",
        missing[0]
    );
    // The value that names the object for torch's own CUDA changes nothing.
    assert!(of(&run(Some("124")), "library-not-found").is_empty());
}
