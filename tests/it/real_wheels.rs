//! Opt-in tier: the real frameworks from PyPI, installed into prefixes laid
//! out like conda environments (`tests/real-wheels/make-prefix.sh`), checked
//! by envhook and by the real loader. Off unless `ENVHOOK_REAL_WHEELS=1`
//! (it downloads about 25 GB); see docs/development.md, "The real-wheel tier".
//!
//! For each framework it asserts:
//! - the findings that are not `info` are exactly the expected ones, before
//!   and after `envhook install` (a healthy layout gets none), apart from
//!   `system-library-wins` for a library this machine's loader cache really
//!   holds;
//! - every DT_NEEDED name of every object envhook resolves, with and without
//!   the hook, resolves to the same file as the real loader says (its
//!   `LD_TRACE_LOADED_OBJECTS` trace, what `ldd` prints);
//! - what the framework really loads at run time agrees with envhook: the
//!   file TensorFlow dlopens (LD_DEBUG), the files JAX preloads
//!   (/proc/self/maps), whether ONNX Runtime's CUDA provider loads, which
//!   cuDNN Paddle finds.
//!
//! Variables: `ENVHOOK_REAL_WHEELS_PYTHON` (an interpreter for 3.12
//! wheels, default `python3`), `ENVHOOK_REAL_WHEELS_DIR` (keep the prefixes
//! there and reuse them; by default each goes to a temporary directory and
//! is removed), `PIP_CACHE_DIR`, `PIP_INDEX_URL` as pip reads them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

/// The driver and GPU envhook is told about (this tier needs no GPU).
const MACHINE: &[&str] = &["--driver-version", "580.65.06", "--gpu", "A100"];
const LD_SO: &str = "/lib64/ld-linux-x86-64.so.2";

/// One prefix at a time: each is several GB.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A framework as users install it, and what envhook must say.
struct Case {
    name: &'static str,
    requirements: &'static [&'static str],
    /// The finding codes (not `info`) before `envhook install`.
    before: &'static [&'static str],
    /// And after.
    after: &'static [&'static str],
}

/// A prefix with the case installed; removed on drop unless kept.
struct Prefix {
    path: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

fn enabled() -> bool {
    crate::support::opt_in(
        "ENVHOOK_REAL_WHEELS",
        "set ENVHOOK_REAL_WHEELS=1 to run the real-wheel tier",
    )
    .is_some()
}

fn prefix(case: &Case) -> Prefix {
    let (dir, temp) = match std::env::var_os("ENVHOOK_REAL_WHEELS_DIR") {
        Some(d) => (PathBuf::from(d), None),
        None => {
            let t = tempfile::Builder::new()
                .prefix("envhook-real-")
                .tempdir()
                .unwrap();
            (t.path().to_path_buf(), Some(t))
        }
    };
    let path = dir.join(case.name);
    let marker = path.join("conda-meta/.envhook-real-wheels");
    let wanted = case.requirements.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(wanted.as_str()) {
        let python =
            std::env::var("ENVHOOK_REAL_WHEELS_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-wheels/make-prefix.sh");
        let status = Command::new(script)
            .arg(&python)
            .arg(&path)
            .args(case.requirements)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "installing {:?} failed",
            case.requirements
        );
        std::fs::write(&marker, &wanted).unwrap();
    }
    // What a user would have done before: no hooks yet.
    let _ = envhook(&["uninstall", "-p"], &path);
    Prefix { path, _temp: temp }
}

/// Run envhook with no LD_LIBRARY_PATH of the test's own.
fn envhook(args: &[&str], prefix: &Path) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_envhook"));
    cmd.args(args).arg(prefix).env_remove("LD_LIBRARY_PATH");
    cmd.output().unwrap()
}

fn check(prefix: &Path) -> Value {
    check_for(prefix, MACHINE)
}

/// The sonames this machine's loader cache holds.
fn ld_cache() -> String {
    let out = Command::new("/sbin/ldconfig").arg("-p").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The codes of the findings that are not `info`, without those this
/// machine explains (a system CUDA library in the loader cache that wins).
fn loud(json: &Value) -> Vec<String> {
    let cache = ld_cache();
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .filter(|f| {
            let message = f["message"].as_str().unwrap_or("");
            !(f["code"] == "system-library-wins"
                && message
                    .split_whitespace()
                    .any(|w| w.starts_with("lib") && w.contains(".so") && cache.contains(w)))
        })
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn canonical(p: &str) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p))
}

/// The loader's trace of OBJECT (what `ldd` prints: `ld.so --list` stops
/// at the first name it cannot find): where each name of its closure goes.
fn ld_list(object: &Path, run_with_hook: Option<&Path>) -> BTreeMap<String, Option<PathBuf>> {
    let out = match run_with_hook {
        // `env` sets the variable after envhook has started, for ld.so only.
        Some(prefix) => Command::new(env!("CARGO_BIN_EXE_envhook"))
            .args(["run", "-p"])
            .arg(prefix)
            .args(["--", "env", "LD_TRACE_LOADED_OBJECTS=1", LD_SO])
            .arg(object)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .unwrap(),
        None => Command::new(LD_SO)
            .arg(object)
            .env("LD_TRACE_LOADED_OBJECTS", "1")
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .unwrap(),
    };
    let mut map = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((name, rest)) = line.trim().split_once(" => ") else {
            continue;
        };
        let path = rest.split(" (").next().unwrap_or("").trim();
        map.insert(
            name.to_string(),
            (path != "not found").then(|| canonical(path)),
        );
    }
    map
}

/// Every DT_NEEDED name envhook resolved agrees with the loader's trace.
fn loader_agrees(json: &Value, with_hook: bool, prefix: &Path) -> usize {
    let mut compared = 0;
    for lib in json["libraries"].as_array().unwrap() {
        let object = PathBuf::from(lib["object"].as_str().unwrap());
        let real = ld_list(&object, with_hook.then_some(prefix));
        for n in lib["names"].as_array().unwrap() {
            if n["kind"] != "needed" {
                continue;
            }
            let name = n["name"].as_str().unwrap();
            let answer = &n[if with_hook {
                "with_hook"
            } else {
                "without_hook"
            }];
            // A name a copy loaded earlier in the process answers (by the
            // framework's preloader or cuda-pathfinder) is no question for
            // a trace of the object alone; the tests that need it read the
            // process's own maps.
            if answer["rule"] == "loaded" {
                continue;
            }
            let ours = answer["path"].as_str().map(canonical);
            let theirs = real.get(name).unwrap_or_else(|| {
                panic!(
                    "the loader's trace of {} lacks {name}: {real:?}",
                    object.display()
                )
            });
            assert_eq!(
                &ours,
                theirs,
                "{name} of {} (with hook: {with_hook})",
                object.display()
            );
            compared += 1;
        }
    }
    compared
}

/// `PREFIX/bin/python -c CODE`, through `envhook run` or not.
fn python(prefix: &Path, code: &str, with_hook: bool, env: &[(&str, &str)]) -> (bool, String) {
    let py = prefix.join("bin/python");
    let mut cmd = if with_hook {
        let mut c = Command::new(env!("CARGO_BIN_EXE_envhook"));
        c.args(["run", "-p"]).arg(prefix).arg("--").arg(&py);
        c
    } else {
        Command::new(&py)
    };
    cmd.args(["-c", code]).env_remove("LD_LIBRARY_PATH");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// `PREFIX/bin/python -m pip ARGS --quiet`, which must succeed.
fn pip(prefix: &Path, args: &[&str]) {
    let out = Command::new(prefix.join("bin/python"))
        .args(["-m", "pip"])
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The resolution envhook reports for a name.
fn resolved<'a>(json: &'a Value, name: &str, key: &str) -> Option<&'a str> {
    json["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["names"].as_array().unwrap())
        .find(|n| n["name"] == name)
        .and_then(|n| n[key]["path"].as_str())
}

/// Check a case: findings before and after install, and the loader's
/// agreement both ways. Returns the document after install.
fn run_case(case: &Case, p: &Path) -> (Value, Value) {
    let before = check(p);
    assert_eq!(
        loud(&before),
        case.before,
        "{}: {:#}",
        case.name,
        before["findings"]
    );
    let n = loader_agrees(&before, false, p);
    let out = envhook(&["install", "-p"], p);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = check(p);
    assert_eq!(
        loud(&after),
        case.after,
        "{}: {:#}",
        case.name,
        after["findings"]
    );
    let m = loader_agrees(&after, true, p);
    eprintln!(
        "{}: {n} DT_NEEDED names agree with the loader without the hook, {m} with it",
        case.name
    );
    (before, after)
}

#[test]
fn torch() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "torch",
        requirements: &["torch==2.15.0"],
        before: &[],
        after: &[],
    };
    let p = prefix(&case);
    run_case(&case, &p.path);
    // Everything through torch's own RPATH: it imports without the hook.
    let (ok, text) = python(
        &p.path,
        "import torch; print(torch.version.cuda)",
        false,
        &[],
    );
    assert!(ok, "{text}");
}

#[test]
fn onnxruntime() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "ort",
        requirements: &["onnxruntime-gpu[cuda,cudnn]==1.31.1"],
        // The CUDA provider has no RPATH: without preload_dlls() or a
        // library path it cannot load the wheels' libraries.
        before: &["needs-hook"],
        after: &[],
    };
    let p = prefix(&case);
    let (before, _) = run_case(&case, &p.path);
    let load = "import ctypes, onnxruntime, os; \
                ctypes.CDLL(os.path.join(os.path.dirname(onnxruntime.__file__), \
                'capi/libonnxruntime_providers_cuda.so'))";
    let (ok, text) = python(&p.path, load, false, &[]);
    assert!(
        !ok && text.contains("cannot open shared object file"),
        "{text}"
    );
    assert!(
        resolved(&before, "libcublasLt.so.13", "without_hook").is_none(),
        "envhook agrees it is not found without the hook"
    );
    let (ok, text) = python(&p.path, load, true, &[]);
    // libcuda.so.1 is the driver's: only a machine without one fails here.
    assert!(ok || text.contains("libcuda.so.1"), "{text}");
}

#[test]
fn tensorflow() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // cuSOLVER's wheel is in libtensorflow_cc.so.2's RUNPATH only, and the
    // DsoLoader that runs is libtensorflow_framework.so.2's (#27): TF's own
    // TryDlopenCUDALibraries logs "Could not load dynamic library
    // 'libcusolver.so.11'" without the hook.
    let case = Case {
        name: "tf",
        requirements: &["tensorflow[and-cuda]==2.21.0"],
        before: &["needs-hook"],
        after: &[],
    };
    let p = prefix(&case);
    let (before, _) = run_case(&case, &p.path);
    // The file TensorFlow dlopens for the CUDA runtime, per the loader.
    let log = tempfile::tempdir().unwrap();
    let out = log.path().join("ld");
    let (_, text) = python(
        &p.path,
        "import tensorflow as tf; tf.config.list_physical_devices('GPU')",
        false,
        &[
            ("LD_DEBUG", "libs"),
            ("LD_DEBUG_OUTPUT", out.to_str().unwrap()),
            ("TF_CPP_MIN_LOG_LEVEL", "3"),
        ],
    );
    let mut trace = String::new();
    for e in std::fs::read_dir(log.path()).unwrap() {
        trace.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    let opened = dlopened(&trace, "libcudart.so.12");
    assert!(
        opened.is_some(),
        "TensorFlow did not dlopen the CUDA runtime: {text}"
    );
    assert_eq!(
        opened,
        resolved(&before, "libcudart.so.12", "without_hook").map(canonical)
    );
}

/// The file the loader opened for `name`, from an `LD_DEBUG=libs` trace:
/// the last file tried after "find library=NAME" before the next search.
fn dlopened(trace: &str, name: &str) -> Option<PathBuf> {
    let mut searching = false;
    let mut last = None;
    for line in trace.lines() {
        let line = line.trim();
        if let Some(rest) = line.split("find library=").nth(1) {
            if searching && last.is_some() {
                break;
            }
            searching = rest.starts_with(&format!("{name} "));
        } else if searching && let Some(file) = line.split("trying file=").nth(1) {
            last = Some(canonical(file.trim()));
        }
    }
    last
}

#[test]
fn jax() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "jax",
        requirements: &["jax[cuda12]==0.12.0.1"],
        before: &[],
        after: &[],
    };
    let p = prefix(&case);
    let (before, _) = run_case(&case, &p.path);
    // JAX preloads each library by path when its backend starts (which
    // fails without a GPU, after the preload).
    let (_, maps) = python(
        &p.path,
        "import jax\ntry:\n    jax.devices()\nexcept Exception:\n    pass\n\
         print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if '.so' in l})))",
        false,
        &[],
    );
    let loaded: Vec<PathBuf> = maps.lines().map(canonical).collect();
    // Preloaded by path, then found loaded by the plugin's dlopen (#27).
    let preloaded: Vec<&Value> = before["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["names"].as_array().unwrap())
        .filter(|n| n["without_hook"]["rule"] == "loaded")
        .collect();
    assert!(preloaded.len() >= 8, "{:#}", before["libraries"]);
    for n in preloaded {
        let path = canonical(n["without_hook"]["path"].as_str().unwrap());
        assert!(
            loaded.contains(&path),
            "{} not loaded: {maps}",
            path.display()
        );
    }
}

/// Paddle's own answer: the cuDNN version its dynload found (None when it
/// found none).
fn paddle_cudnn(p: &Path, with_hook: bool) -> String {
    let (_, text) = python(
        p,
        "import paddle; print('cudnn', paddle.device.get_cudnn_version())",
        with_hook,
        &[("GLOG_minloglevel", "3")],
    );
    text.lines()
        .find_map(|l| l.strip_prefix("cudnn "))
        .unwrap_or_else(|| panic!("{text}"))
        .to_string()
}

#[test]
fn paddle_alone_and_with_the_cuda11_wheels() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Paddle 2.6.2 declares no nvidia wheel: no cuDNN anywhere is the one
    // finding, before and after install.
    let alone = Case {
        name: "paddle",
        requirements: &["paddlepaddle-gpu==2.6.2", "setuptools"],
        before: &["library-not-found"],
        after: &["library-not-found"],
    };
    let p = prefix(&alone);
    run_case(&alone, &p.path);
    assert_eq!(paddle_cudnn(&p.path, true), "None");
    drop(p);
    let with = Case {
        name: "paddle-cudnn",
        requirements: &[
            "paddlepaddle-gpu==2.6.2",
            "setuptools",
            "nvidia-cudnn-cu11==8.6.0.163",
            "nvidia-cublas-cu11==11.11.3.6",
            "nvidia-cuda-runtime-cu11==11.8.89",
        ],
        before: &["needs-hook"],
        after: &[],
    };
    // Paddle 2.6.2 also dlopens libcurand.so, libcusolver.so, ...,
    // which these three wheels do not bring: found only where the machine
    // has a CUDA 11 toolkit's unversioned names (Debian's
    // nvidia-cuda-toolkit), else nowhere, before and after the hook.
    let missing = Case {
        before: &["library-not-found", "needs-hook"],
        after: &["library-not-found"],
        ..with
    };
    let toolkit = ld_cache().contains("libcurand.so ");
    let with = if toolkit { with } else { missing };
    let p = prefix(&with);
    run_case(&with, &p.path);
    // The hook is what makes Paddle find cuDNN.
    assert_eq!(paddle_cudnn(&p.path, false), "None");
    if toolkit {
        assert_eq!(paddle_cudnn(&p.path, true), "8600");
    } else {
        // cuDNN 8.6's libcudnn_ops_infer.so.8 needs the libnvrtc.so that
        // envhook reports missing: Paddle aborts in cudnnGetVersion.
        let (_, text) = python(
            &p.path,
            "import paddle; print('cudnn', paddle.device.get_cudnn_version())",
            true,
            &[("GLOG_minloglevel", "3")],
        );
        assert!(
            text.contains("libnvrtc.so: cannot open shared object file"),
            "{text}"
        );
    }
}

/// #37: Paddle 2.6.2 (CUDA 11.8 / cuDNN 8.6) beside the CUDA 12 / cuDNN 9
/// wheels another package pulls in. The hook must never hand it cuDNN 9
/// (Paddle's own `get_cudnn_version()` said 90100 through the hook before),
/// and the fix, followed as printed, gives it cuDNN 8 from the cu11 wheels.
#[test]
fn paddle_beside_cuda12_wheels_gets_its_own_major() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "paddle-cu12",
        requirements: &[
            "paddlepaddle-gpu==2.6.2",
            "setuptools",
            "numpy<2",
            "nvidia-cudnn-cu12==9.1.0.70",
            "nvidia-cublas-cu12==12.1.3.1",
        ],
        before: &["library-other-major", "library-not-found"],
        after: &[],
    };
    let p = prefix(&case);
    let out = envhook(&["install", "--always", "-p"], &p.path);
    assert!(out.status.code().is_some_and(|c| c <= 1));
    assert_eq!(paddle_cudnn(&p.path, true), "None");
    follow_the_fixes(&case, &p.path, &[]);
    let cudnn = paddle_cudnn(&p.path, true);
    assert!(cudnn.starts_with('8') && cudnn.len() == 4, "{cudnn}");
}

/// The commands envhook's findings suggest (the `fix:` lines that are
/// commands: a pip install in the environment's Python, `envhook ...`).
/// Every command of every finding, those under a `choose:` too, is one
/// line bash parses (`bash -n`), as tests/it/fix_lines.rs holds the
/// fixtures' to.
fn fix_commands(json: &Value, prefix: &Path) -> Vec<String> {
    let python = format!("'{}/bin/python'", prefix.display());
    let findings = json["findings"].as_array().unwrap();
    for f in findings {
        let fix = &f["fix"];
        let choices = fix["choose"]["commands"].as_array().into_iter().flatten();
        for c in fix["command"]
            .as_str()
            .into_iter()
            .chain(choices.filter_map(Value::as_str))
        {
            let out = Command::new("bash").args(["-n", "-c", c]).output().unwrap();
            assert!(
                out.status.success() && out.stderr.is_empty() && !c.contains('\n'),
                "{c}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    findings
        .iter()
        .filter(|f| f["severity"] != "info")
        .filter_map(|f| f["fix"]["command"].as_str())
        .filter(|h| h.starts_with(&python) || h.starts_with("envhook "))
        .map(String::from)
        .collect()
}

/// What pip would install for a fix's pip command (`pip install --dry-run
/// --report`, in the environment's own Python), added to what is
/// installed, must satisfy every CUDA-stack requirement of every installed
/// distribution (an extra's only where its distribution is installed, as
/// envhook's pin rule reads them).
const PINS_HOLD: &str = r#"
import json, sys, importlib.metadata as md
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name as canon
report = json.load(open(sys.argv[1]))
final = {canon(d.metadata["Name"]): d.version for d in md.distributions()}
for item in report.get("install", []):
    final[canon(item["metadata"]["name"])] = item["metadata"]["version"]
bad = []
for d in md.distributions():
    extras = [""] + (d.metadata.get_all("Provides-Extra") or [])
    for text in d.requires or []:
        req = Requirement(text)
        name = canon(req.name)
        if not (name.startswith("nvidia-") or name == "cuda-toolkit") or name not in final:
            continue
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in extras):
            continue
        if not req.specifier.contains(final[name], prereleases=True):
            bad.append(f"{d.metadata['Name']} requires {text}; the fix leaves {name} {final[name]}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
"#;

/// Run a fix's pip command as a dry run and check [`PINS_HOLD`] on its
/// report before the fix is followed.
fn pins_hold_after(p: &Path, command: &str) {
    let python = format!("'{}/bin/python'", p.display());
    let install = format!("{python} -m pip install ");
    let Some(first) = command
        .split(" && ")
        .next()
        .filter(|c| c.starts_with(&install))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let dry = first.replacen(
        &install,
        &format!("{install}--quiet --dry-run --report {} ", report.display()),
        1,
    );
    let out = Command::new("sh").args(["-c", &dry]).output().unwrap();
    assert!(
        out.status.success(),
        "{dry}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `python` is the fix's quoted word; the program is the path itself.
    let out = Command::new(p.join("bin/python"))
        .args(["-c", PINS_HOLD])
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{first} would break a pin:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Run one fix as printed, with this build's envhook first on PATH and no
/// LD_LIBRARY_PATH of the test's own; it must succeed.
fn follow(name: &str, command: &str) {
    let bin = Path::new(env!("CARGO_BIN_EXE_envhook")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    eprintln!("{name}: following {command}");
    let out = Command::new("sh")
        .args(["-c", command])
        .env("PATH", &path)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Do what envhook says, as printed, with this build's envhook first on
/// PATH; then `pip check` must find no broken requirement (the fix kept
/// every framework's pins) and envhook must find nothing but `after`.
fn follow_the_fixes(case: &Case, p: &Path, after: &[&str]) -> Value {
    let before = check(p);
    assert_eq!(
        loud(&before),
        case.before,
        "{}: {:#}",
        case.name,
        before["findings"]
    );
    for command in fix_commands(&before, p) {
        pins_hold_after(p, &command);
        follow(case.name, &command);
    }
    let pip_check = Command::new(p.join("bin/python"))
        .args(["-m", "pip", "check"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&pip_check.stdout);
    assert!(
        !text
            .lines()
            .any(|l| l.contains("nvidia") || l.contains("cuda")),
        "{}: the fixes broke a pin: {text}",
        case.name
    );
    let json = check(p);
    assert_eq!(loud(&json), after, "{}: {:#}", case.name, json["findings"]);
    json
}

/// Older releases keep their run-time checks, and each fix, followed as
/// printed, ends in a clean check (#19): TensorFlow 2.20 with only its
/// CUDA runtime, ONNX Runtime 1.29 whose [cuda] extra brings no cuBLAS and
/// no cuDNN, JAX 0.5.3 without its wheels.
#[test]
fn older_releases_and_their_fixes() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for case in [
        Case {
            name: "tf220",
            requirements: &["tensorflow==2.20.0", "nvidia-cuda-runtime-cu12==12.5.82"],
            before: &["library-not-found"],
            after: &[],
        },
        Case {
            name: "ort129",
            requirements: &["onnxruntime-gpu[cuda]==1.29.0"],
            // cuBLAS is required (DT_NEEDED); cuDNN is loaded lazily and
            // only its operators fail (#28, P2); the TensorRT provider,
            // loaded only for a session that asks for it, is an info
            // (#39), and the [cuda] extra brings cuFFT (13.5 wheels).
            before: &[
                "library-not-found",
                "optional-library-missing",
                "needs-hook",
            ],
            after: &[],
        },
        Case {
            name: "jax053",
            requirements: &["jax[cuda12]==0.5.3"],
            before: &["library-not-found"],
            after: &[],
        },
    ] {
        let p = prefix(&case);
        let before = check(&p.path);
        let message = before["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "library-not-found")
            .and_then(|f| f["message"].as_str())
            .unwrap_or_default()
            .to_string();
        // Names only the build's own files can give.
        let expected = match case.name {
            "tf220" => "libcufft.so.11",
            "ort129" => "libcublas.so.13",
            _ => "libcusolver.so.11",
        };
        assert!(message.contains(expected), "{}: {message}", case.name);
        if case.name == "ort129" {
            let optional: Vec<&str> = before["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["code"] == "optional-library-missing")
                .filter_map(|f| f["message"].as_str())
                .collect();
            assert!(
                optional
                    .iter()
                    .any(|m| m.contains("libcudnn.so.9") && m.contains("NOT_IMPLEMENTED")),
                "{optional:?}"
            );
        }
        follow_the_fixes(&case, &p.path, case.after);
    }
}

/// ONNX Runtime 1.18 (a CUDA 11.8 / cuDNN 8 build) beside CUDA 12 wheels:
/// one finding for the one cause, its fix followed, and then the real
/// loader resolves every library of the provider through the hook.
#[test]
fn a_cuda11_build_beside_cuda12_wheels() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "ort118",
        requirements: &[
            "onnxruntime-gpu==1.18.1",
            "nvidia-cuda-runtime-cu12",
            "nvidia-cublas-cu12",
            "nvidia-cudnn-cu12",
            "nvidia-curand-cu12",
            "nvidia-cufft-cu12",
        ],
        // CUDA 12's libcurand.so.10 has the soname this CUDA 11 build
        // asks for, but is no copy of its major: the hook is no fix for it
        // (#27); the CUDA 11 libraries the fix installs then need it.
        before: &["library-not-found"],
        after: &[],
    };
    let p = prefix(&case);
    // On Blackwell the CUDA 12 wheels it never opens are not judged (#39
    // item 2): no `gpu-unsupported` for their cuDNN, no `known-bad-version`
    // for their cuBLAS 12.9 on a B200; the provider itself runs there by
    // JIT-compiling its compute_80 PTX (an info).
    for gpu in ["RTX 5090", "B200"] {
        let json = check_for(&p.path, &["--driver-version", "580.65.06", "--gpu", gpu]);
        assert_eq!(loud(&json), case.before, "{gpu}: {:#}", json["findings"]);
    }
    let after = follow_the_fixes(&case, &p.path, &[]);
    let provider = after["libraries"][0]["object"]
        .as_str()
        .unwrap()
        .to_string();
    let real = ld_list(Path::new(&provider), Some(&p.path));
    for name in ["libcublasLt.so.11", "libcudnn.so.8", "libcudart.so.11.0"] {
        assert!(
            real.get(name).is_some_and(Option::is_some),
            "{name} not resolved with the hook: {real:?}"
        );
    }
    loader_agrees(&after, true, &p.path);
}

/// torch 2.15 beside TensorFlow 2.21 or JAX 0.12 in one environment: their
/// cuDNN and NCCL wheels (cu13 and cu12) own the same files, no one set
/// satisfies both, and neither framework is blamed for the other's CUDA.
#[test]
fn two_frameworks_sharing_nvidia_wheels() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for case in [
        Case {
            name: "torch-tf",
            requirements: &["torch==2.15.0", "tensorflow[and-cuda]==2.21.0"],
            before: &[],
            after: &[],
        },
        Case {
            name: "torch-jax",
            requirements: &["torch==2.15.0", "jax[cuda12]==0.12.0.1"],
            before: &[],
            after: &[],
        },
    ] {
        let p = prefix(&case);
        let json = check(&p.path);
        let over: Vec<&Value> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "wheel-files-overwritten")
            .collect();
        assert!(!over.is_empty(), "{}: {:#}", case.name, json["findings"]);
        for f in over {
            let hint = f["fix"]["command"]
                .as_str()
                .or(f["fix"]["choose"]["advice"].as_str())
                .unwrap();
            assert!(
                hint.contains("separate environments") || hint.contains("--force-reinstall"),
                "{hint}"
            );
        }
        // Neither framework is blamed for the other's CUDA line.
        let codes: Vec<&str> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["code"].as_str())
            .collect();
        assert!(
            !codes.contains(&"cuda-mismatch"),
            "{}: {codes:?}",
            case.name
        );
    }
}

/// The CUDA libraries a process has mapped, from inside it: Python code
/// that prints them after `code` ran (its exceptions ignored: without a GPU
/// the frameworks stop after loading).
fn mapped_after(code: &str) -> String {
    let indented: String = code.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "try:\n{indented}except Exception:\n    pass\n\
         print('\\n'.join(sorted({{l.split()[-1] for l in open('/proc/self/maps') \\\n\
         if 'libcu' in l or 'nvJitLink' in l or 'nvrtc' in l}})))"
    )
}

/// A healthy environment of four frameworks as one pip install makes it
/// (#27): torch 2.11, JAX 0.11.2 with its CUDA 13 plugin, CuPy 14.2 and
/// numba-cuda 0.30.4, which load their libraries by path (torch's and
/// JAX's preloaders, cuda-pathfinder). It checks clean before and after
/// the hook (it was a false `needs-hook`, and numba-cuda's `cu12` extra a
/// false `cuda-mismatch`). Under an inherited LD_LIBRARY_PATH naming
/// copies of libcublasLt.so.13 and libnvJitLink.so.13, JAX really maps
/// them and envhook says so; torch and CuPy do not, and envhook is silent
/// about them; after the printed fix, JAX maps only the environment's.
#[test]
fn four_frameworks_that_load_by_path() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "gpu13",
        requirements: &[
            "torch==2.11.0",
            "jax[cuda13]==0.11.2",
            "cupy-cuda13x==14.2.0",
            "numba-cuda[cu13]==0.30.4",
        ],
        before: &[],
        after: &[],
    };
    let p = prefix(&case);
    run_case(&case, &p.path);
    let _ = envhook(&["uninstall", "-p"], &p.path);
    let site = p.path.join("lib/python3.12/site-packages/nvidia/cu13/lib");
    let system = tempfile::tempdir().unwrap();
    for lib in ["libcublasLt.so.13", "libnvJitLink.so.13"] {
        std::fs::copy(site.join(lib), system.path().join(lib)).unwrap();
    }
    let inherited = system.path().to_str().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_envhook"));
    cmd.args(["check", "--json"])
        .args(MACHINE)
        .arg("-p")
        .arg(&p.path);
    let out = cmd.env("LD_LIBRARY_PATH", inherited).output().unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let wins: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "system-library-wins")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(wins.len(), 1, "{wins:#?}");
    assert!(wins[0].starts_with("jax-cuda13-plugin"), "{}", wins[0]);
    let jax = mapped_after("import jax_plugins.xla_cuda13 as p\np.initialize()");
    let (_, maps) = python(&p.path, &jax, false, &[("LD_LIBRARY_PATH", inherited)]);
    for lib in ["libcublasLt.so.13", "libnvJitLink.so.13"] {
        assert!(
            maps.lines().any(|l| l == format!("{inherited}/{lib}")),
            "JAX did not map the inherited {lib}: {maps}"
        );
    }
    for (who, code) in [
        ("torch", "import torch"),
        (
            "cupy",
            "from cupy_backends.cuda.libs import cublas, cusparse",
        ),
    ] {
        let (_, maps) = python(
            &p.path,
            &mapped_after(code),
            false,
            &[("LD_LIBRARY_PATH", inherited)],
        );
        assert!(
            !maps.contains(inherited),
            "{who} mapped the inherited copies: {maps}"
        );
    }
    // The fix as printed; activation as `envhook run` does it.
    assert_eq!(envhook(&["install", "-p"], &p.path).status.code(), Some(0));
    let mut run = Command::new(env!("CARGO_BIN_EXE_envhook"));
    run.args(["run", "-p"])
        .arg(&p.path)
        .arg("--")
        .arg(p.path.join("bin/python"));
    let out = run
        .args(["-c", &jax])
        .env("LD_LIBRARY_PATH", inherited)
        .output()
        .unwrap();
    let maps = String::from_utf8_lossy(&out.stdout);
    assert!(
        !maps.contains(inherited),
        "with the hook JAX still mapped: {maps}"
    );
    let _ = envhook(&["uninstall", "-p"], &p.path);
}

/// TensorFlow 2.16.1 `[and-cuda]`: the DsoLoader that runs is
/// libtensorflow_framework.so.2's, whose RUNPATH leads only into
/// nvidia/cuda_runtime/lib, so without a hook TensorFlow opens none of
/// cuBLAS, cuFFT, cuSOLVER, cuSPARSE, cuDNN and registers no GPU: an error.
/// Ground truth: TF's own TryDlopenCUDALibraries, called as its GPU device
/// discovery calls it, and its log (#27).
#[test]
fn tensorflow_216_cannot_open_its_wheels() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "tf216",
        requirements: &["tensorflow[and-cuda]==2.16.1"],
        before: &["needs-hook"],
        after: &[],
    };
    let p = prefix(&case);
    let (before, _) = run_case(&case, &p.path);
    let hook = before["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "needs-hook")
        .unwrap();
    assert_eq!(hook["severity"], "error");
    // tsl::internal::DsoLoader::TryDlopenCUDALibraries() returns an
    // absl::Status through a hidden pointer; its log names each library.
    let probe = "import ctypes, os, tensorflow as tf\n\
                 lib = ctypes.CDLL(os.path.join(os.path.dirname(tf.__file__), 'libtensorflow_framework.so.2'))\n\
                 f = lib._ZN3tsl8internal9DsoLoader22TryDlopenCUDALibrariesEv\n\
                 f.argtypes = [ctypes.c_void_p]\n\
                 buf = ctypes.create_string_buffer(64)\n\
                 f(ctypes.addressof(buf))";
    let log = [
        ("TF_CPP_MAX_VLOG_LEVEL", "1"),
        ("TF_CPP_MIN_LOG_LEVEL", "0"),
    ];
    let libs = [
        "libcublas.so.12",
        "libcufft.so.11",
        "libcusolver.so.11",
        "libcudnn.so.8",
    ];
    let (_, text) = python(&p.path, probe, false, &log);
    for lib in libs {
        assert!(
            text.contains(&format!("Could not load dynamic library '{lib}'")),
            "{lib}: {text}"
        );
    }
    // With the hook: each opened (TensorRT, which is not installed, still
    // is not).
    let (_, text) = python(&p.path, probe, true, &log);
    for lib in libs {
        assert!(
            text.contains(&format!("Successfully opened dynamic library {lib}")),
            "{lib}: {text}"
        );
    }
}

/// torch 2.5.1 with its nvJitLink wheel downgraded past cuSPARSE's needs
/// (12.1.105 under a pin of 12.4.127): `import torch` fails with
/// "undefined symbol: __nvJitLinkComplete_12_4, version
/// libnvJitLink.so.12", and envhook names that symbol (the wheel has only a
/// SysV hash table); the pin it prints restores both (#27).
#[test]
fn an_nvjitlink_older_than_cusparse_needs() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "jitlink",
        requirements: &["torch==2.5.1"],
        before: &["symbol-missing", "pin-broken"],
        after: &[],
    };
    let p = prefix(&case);
    pip(
        &p.path,
        &["install", "--no-deps", "nvidia-nvjitlink-cu12==12.1.105"],
    );
    let (ok, text) = python(&p.path, "import torch", false, &[]);
    assert!(
        !ok && text
            .contains("undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"),
        "{text}"
    );
    let before = check(&p.path);
    let missing = before["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "symbol-missing")
        .unwrap_or_else(|| panic!("{:#}", before["findings"]));
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12")
    );
    // explain, given the real traceback, names the release the symbol
    // needs and the same fix (#28, P3).
    let last = text.lines().last().unwrap_or_default();
    let mut args = vec!["explain", "--json", last];
    args.extend_from_slice(MACHINE);
    args.push("-p");
    let out = envhook(&args, &p.path);
    let explained: Value = serde_json::from_slice(&out.stdout).unwrap();
    let answer = explained["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["clue"]["name"] == "__nvJitLinkComplete_12_4")
        .unwrap_or_else(|| panic!("{explained:#}"));
    assert_eq!(answer["verdict"], "cause", "{answer:#}");
    assert_eq!(answer["fix"], missing["fix"], "{answer:#}");
    follow_the_fixes(&case, &p.path, &[]);
    let (ok, text) = python(&p.path, "import torch", false, &[]);
    assert!(ok, "{text}");
    pip(
        &p.path,
        &["install", "--no-deps", "nvidia-nvjitlink-cu12==12.4.127"],
    );
}

/// `check` for another machine than [`MACHINE`].
fn check_for(prefix: &Path, machine: &[&str]) -> Value {
    let mut args = vec!["check", "--json"];
    args.extend_from_slice(machine);
    args.push("-p");
    let out = envhook(&args, prefix);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// Follow every command-shaped fix of `json`, with this build's envhook
/// first on PATH, in a copy of `p` (the copy is what is fixed).
fn follow_in_copy(p: &Path, json: &Value, name: &str) -> PathBuf {
    let copy = p.with_file_name(format!("{}-fixed", name));
    let _ = std::fs::remove_dir_all(&copy);
    let status = Command::new("cp")
        .arg("-a")
        .arg(p)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let from = p.display().to_string();
    let to = copy.display().to_string();
    for command in fix_commands(json, p) {
        follow(name, &command.replace(&from, &to));
    }
    copy
}

/// The version of an installed distribution (normalised name).
fn installed(p: &Path, name: &str) -> Option<String> {
    let out = Command::new(p.join("bin/python"))
        .args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version('{name}'))"),
        ])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Fixes for the GPU they are for, followed as printed in a copy of a real
/// environment (#28): the cuDNN 9 that ONNX Runtime 1.20 needs stays below
/// 9.11 on a V100 (9.11 dropped Volta; unbounded, pip takes 9.28), and is
/// 9.7 or newer on a B200; jax[cuda13] on a V100 (CUDA 13 dropped Volta)
/// becomes jax[cuda12] with its CUDA 13 wheels gone. Each ends in a check
/// with nothing but notes.
#[test]
fn fixes_fit_the_gpu() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let ort = Case {
        name: "ort120cudnn8",
        requirements: &[
            "onnxruntime-gpu==1.20.2",
            "nvidia-cudnn-cu12==8.9.7.29",
            "nvidia-cuda-runtime-cu12==12.6.*",
            "nvidia-cublas-cu12==12.6.*",
            "nvidia-cufft-cu12",
            "nvidia-curand-cu12",
        ],
        before: &[],
        after: &[],
    };
    let p = prefix(&ort);
    let v100 = ["--driver-version", "580.65.06", "--gpu", "V100"];
    let before = check_for(&p.path, &v100);
    let fixed = follow_in_copy(&p.path, &before, "ort120cudnn8-v100");
    let cudnn = installed(&fixed, "nvidia-cudnn-cu12").unwrap();
    assert!(cudnn.starts_with("9.10."), "{cudnn}");
    let after = check_for(&fixed, &v100);
    assert!(loud(&after).is_empty(), "{:#}", after["findings"]);
    let b200 = ["--driver-version", "580.65.06", "--gpu", "B200"];
    let before = check_for(&p.path, &b200);
    let fixed = follow_in_copy(&p.path, &before, "ort120cudnn8-b200");
    let after = check_for(&fixed, &b200);
    assert!(loud(&after).is_empty(), "{:#}", after["findings"]);

    let jax = Case {
        name: "jax13",
        requirements: &["jax[cuda13]==0.8.2"],
        before: &[],
        after: &[],
    };
    let p = prefix(&jax);
    let before = check_for(&p.path, &v100);
    assert!(loud(&before).contains(&"gpu-unsupported".to_string()));
    let fixed = follow_in_copy(&p.path, &before, "jax13-v100");
    assert!(installed(&fixed, "jax-cuda12-plugin").is_some());
    assert!(installed(&fixed, "nvidia-cudnn-cu13").is_none());
    let after = check_for(&fixed, &v100);
    assert!(loud(&after).is_empty(), "{:#}", after["findings"]);
}

/// torchvision 0.22.0 (built against torch 2.7) beside torch 2.6.0, as
/// `pip install --no-deps` leaves it: torchvision's ops do not exist, and
/// envhook names the undefined symbols; the printed fix (pip picks the
/// torchvision built for this torch) makes `nms` run and check clean (#27).
#[test]
fn a_torch_extension_built_against_another_torch() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "torchext",
        requirements: &["torch==2.6.0"],
        before: &["extension-mismatch"],
        after: &[],
    };
    let p = prefix(&case);
    pip(&p.path, &["install", "--no-deps", "torchvision==0.22.0"]);
    let nms = "import torch, torchvision, torchvision.ops\n\
               print(torchvision.ops.nms(torch.rand(4, 4), torch.rand(4), 0.5))";
    let (ok, text) = python(&p.path, nms, false, &[]);
    assert!(
        !ok && text.contains("operator torchvision::nms does not exist"),
        "{text}"
    );
    follow_the_fixes(&case, &p.path, &[]);
    let (ok, text) = python(&p.path, nms, false, &[]);
    assert!(ok, "{text}");
}

/// xformers 0.0.28.post3 (built for torch 2.5.1, and pinning it) under
/// torch 2.6.0, which the catalogue does not name: its `_C.so` fails to
/// load with "undefined symbol: _ZN2at18TensorIteratorBaseC2Ev"
/// (LD_BIND_NOW, after torch); envhook finds it by its pin and names the
/// symbol, and the printed fix (pip picks the xformers built for this
/// torch) makes it load and check clean (#39).
#[test]
fn an_uncatalogued_extension_built_for_another_torch() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "xformers",
        requirements: &["torch==2.6.0"],
        before: &["extension-mismatch"],
        after: &[],
    };
    let p = prefix(&case);
    pip(&p.path, &["install", "--no-deps", "xformers==0.0.28.post3"]);
    let load = "import ctypes, glob, os, torch, xformers\n\
                for so in glob.glob(os.path.join(os.path.dirname(xformers.__file__), '_C*.so')):\n\
                \x20   ctypes.CDLL(so)\n";
    let bind_now = [("LD_BIND_NOW", "1")];
    let (ok, text) = python(&p.path, load, false, &bind_now);
    assert!(
        !ok && text.contains("undefined symbol: _ZN2at18TensorIteratorBaseC2Ev"),
        "{text}"
    );
    let before = check(&p.path);
    let message = before["findings"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("xformers 0.0.28.post3 (_C.so) was built for torch==2.5.1"),
        "{:#}",
        before["findings"]
    );
    follow_the_fixes(&case, &p.path, &[]);
    let (ok, text) = python(&p.path, load, false, &bind_now);
    assert!(ok, "{text}");
}

/// cupy-cuda11x 13.3.0 beside torch 2.5.1's CUDA 12 wheels: CuPy links its
/// runtime in and finds none of its CUDA 11 libraries (`ImportError:
/// libcublas.so.11`), and the CUDA 12 `libcurand.so.10` under its soname is
/// another build; the printed fix (CuPy's CUDA 12 build, then the hook)
/// makes CuPy's modules import and check clean (#27).
#[test]
fn cupy_for_cuda11_beside_cuda12_wheels() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "cupy11cu12",
        requirements: &["cupy-cuda11x==13.3.0", "torch==2.5.1"],
        // CuPy's NVRTC and cuBLAS are required (#39): their absence is the
        // one error, and its fix is CuPy's CUDA 12 build.
        before: &["library-not-found"],
        after: &[],
    };
    let p = prefix(&case);
    // A kept prefix may hold the fix of a run before.
    pip(&p.path, &["uninstall", "-y", "cupy-cuda12x"]);
    pip(&p.path, &["install", "--no-deps", "cupy-cuda11x==13.3.0"]);
    let modules = "from cupy_backends.cuda.libs import cublas, curand, cusolver, cusparse";
    let (ok, text) = python(&p.path, modules, true, &[]);
    // No system CUDA 11 here: nothing serves the CUDA 11 build.
    if !ld_cache().contains("libcublas.so.11") {
        assert!(!ok && text.contains("libcublas.so.11"), "{text}");
    }
    follow_the_fixes(&case, &p.path, &[]);
    let (ok, text) = python(&p.path, modules, true, &[]);
    assert!(ok, "{text}");
}

/// cupy-cuda11x 13.6.0 with only the CUDA 11 runtime (#39): `import cupy`
/// works, but NVRTC, which compiles every kernel, and cuBLAS, which serves
/// matmul, are nowhere: the load `cupy_backends/cuda/libs/_cnvrtc.pxi`
/// makes for a CUDA 11 runtime fails, and so does `import cublas`, so
/// envhook's `library-not-found` is an error, not the infos of a module
/// only some code imports. The printed fix, followed, makes both load
/// (through the hook it writes; CuPy's objects have no RUNPATH).
#[test]
fn cupy_without_nvrtc_and_cublas() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "cupy11rt",
        requirements: &["cupy-cuda11x==13.6.0", "nvidia-cuda-runtime-cu11==11.8.89"],
        before: &["library-not-found"],
        after: &[],
    };
    let p = prefix(&case);
    // A kept prefix may hold the fix of a run before.
    let fix = [
        "cuda-toolkit",
        "nvidia-cublas-cu11",
        "nvidia-cuda-nvrtc-cu11",
    ];
    pip(&p.path, &[&["uninstall", "-y"][..], &fix[..]].concat());
    let probe = "
from cupy_backends.cuda._softlink import SoftLink
SoftLink('libnvrtc.so.11.2', 'nvrtc', mandatory=True)
from cupy_backends.cuda.libs import cublas
print(''.join(l for l in open('/proc/self/maps') if 'libnvrtc' in l or 'libcublas' in l))
";
    let (ok, text) = python(&p.path, "import cupy", false, &[]);
    assert!(ok, "{text}");
    if !ld_cache().contains("libnvrtc.so.11.2") {
        let (ok, text) = python(&p.path, probe, false, &[]);
        assert!(
            !ok && text.contains("CuPy failed to load libnvrtc.so.11.2"),
            "{text}"
        );
    }
    let json = follow_the_fixes(&case, &p.path, &[]);
    let (ok, text) = python(&p.path, probe, true, &[]);
    assert!(ok, "{text}");
    for file in [
        "nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2",
        "nvidia/cublas/lib/libcublas.so.11",
    ] {
        assert!(text.contains(file), "{file} not mapped: {text}");
    }
    assert!(
        !json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "library-not-found"),
        "{:#}",
        json["findings"]
    );
}

/// site-packages of a prefix's Python, whatever its version.
fn site_packages(prefix: &Path) -> PathBuf {
    std::fs::read_dir(prefix.join("lib"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .unwrap()
}

/// jax 0.4.23's own start-up check (#39; jax/_src/xla_bridge.py
/// `_check_cuda_versions`), beside nvidia-cuda-runtime-cu12 12.1.105 and
/// the rest of the CUDA 12.2 wheels: with jax-cuda12-plugin it never runs
/// (`cuda_versions` is None and `backends()` takes the plugin's factory),
/// and envhook says no `refused-at-start`. With a monolithic CUDA jaxlib it
/// raises "Found CUDA version 12010, but JAX was built against version
/// 12020"; that jaxlib is on Google's index only, not reachable here, so it
/// is made from the same wheels: the plugin's `_versions` module (the same
/// jaxlib/cuda/versions.cc, built for the same CUDA) as
/// `jaxlib/cuda/_versions`, jaxlib's version as the monolithic wheel names
/// it, the plugin removed. JAX's own check is then called as its backend
/// would, and refuses; envhook's printed fix, followed, makes it pass.
#[test]
fn jax_0_4_23_start_check() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "jax0423",
        requirements: &[
            "jax==0.4.23",
            "jaxlib==0.4.23",
            "jax-cuda12-plugin==0.4.23",
            "jax-cuda12-pjrt==0.4.23",
            "numpy<2",
            "nvidia-cuda-runtime-cu12==12.1.105",
            "nvidia-cudnn-cu12==8.9.7.29",
            "nvidia-cublas-cu12==12.2.5.6",
            "nvidia-cufft-cu12==11.0.8.103",
            "nvidia-cusolver-cu12==11.5.2.141",
            "nvidia-cusparse-cu12==12.1.2.141",
            "nvidia-cuda-cupti-cu12==12.2.142",
            "nvidia-nvjitlink-cu12==12.2.140",
        ],
        before: &["refused-at-start"],
        after: &[],
    };
    // A kept prefix made monolithic by a run before is made again.
    if let Some(dir) = std::env::var_os("ENVHOOK_REAL_WHEELS_DIR") {
        let kept = PathBuf::from(dir).join(case.name);
        if kept.join("conda-meta").is_dir() && site_packages(&kept).join("jaxlib/cuda").exists() {
            let _ = std::fs::remove_file(kept.join("conda-meta/.envhook-real-wheels"));
        }
    }
    let p = prefix(&case);
    let plugin = "
import jax._src.xla_bridge as xb
from jax._src import lib
xb.discover_pjrt_plugins()
print(lib.cuda_versions, xb._backend_factories['cuda'].factory.__qualname__)
";
    let (ok, text) = python(&p.path, plugin, false, &[]);
    assert!(
        ok && text.contains("None register_plugin.<locals>.factory"),
        "{text}"
    );
    let json = check(&p.path);
    assert!(
        !json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "refused-at-start"),
        "{:#}",
        json["findings"]
    );
    // The monolithic jaxlib.
    let site = site_packages(&p.path);
    std::fs::create_dir_all(site.join("jaxlib/cuda")).unwrap();
    std::fs::copy(
        site.join("jax_cuda12_plugin/_versions.so"),
        site.join("jaxlib/cuda/_versions.so"),
    )
    .unwrap();
    std::fs::write(site.join("jaxlib/cuda/__init__.py"), "").unwrap();
    pip(
        &p.path,
        &["uninstall", "-y", "jax-cuda12-plugin", "jax-cuda12-pjrt"],
    );
    let monolithic = site.join("jaxlib-0.4.23+cuda12.cudnn89.dist-info");
    std::fs::rename(site.join("jaxlib-0.4.23.dist-info"), &monolithic).unwrap();
    let metadata = monolithic.join("METADATA");
    let text = std::fs::read_to_string(&metadata).unwrap();
    std::fs::write(
        &metadata,
        text.replacen(
            "\nVersion: 0.4.23\n",
            "\nVersion: 0.4.23+cuda12.cudnn89\n",
            1,
        ),
    )
    .unwrap();
    let check_cuda = "
import jax._src.xla_bridge as xb
xb._check_cuda_versions()
print('passed')
";
    let (ok, text) = python(&p.path, check_cuda, false, &[]);
    assert!(
        !ok && text.contains(
            "Found CUDA version 12010, but JAX was built against version 12020, which is newer"
        ),
        "{text}"
    );
    let refused = check(&p.path);
    assert!(
        refused["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "refused-at-start"
                && f["message"]
                    .as_str()
                    .unwrap()
                    .contains("Found CUDA version 12010")),
        "{:#}",
        refused["findings"]
    );
    follow_the_fixes(&case, &p.path, &[]);
    let (ok, text) = python(&p.path, check_cuda, false, &[]);
    assert!(ok && text.contains("passed"), "{text}");
}

/// #42 item 4: onnxruntime-gpu 1.31.1 (CUDA 13.0) with its `[cuda,cudnn]`
/// extras on a CUDA 12.2 driver (535): `driver-too-old`, for the build and
/// for the CUDA 13 runtime it loads, with one command beside the driver
/// upgrade. Followed as printed, it puts in 1.24-1.26 (CUDA 12.8, which
/// 535 runs through minor version compatibility) with the extras' CUDA 12
/// wheels, and takes the CUDA 13 line out, what the extras pulled in
/// (nvidia-cublas, nvidia-nvjitlink) included: `pip check` is clean, the
/// driver is no longer blamed, and after `envhook install` nothing loud
/// is left, the real loader agreeing.
#[test]
fn a_cuda13_build_on_a_cuda12_driver() {
    if !enabled() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let case = Case {
        name: "ort1311-on-535",
        requirements: &["onnxruntime-gpu[cuda,cudnn]==1.31.1"],
        before: &["driver-too-old", "driver-too-old", "needs-hook"],
        after: &["needs-hook"],
    };
    // The fix below changes the prefix: a kept one is made again.
    if let Some(dir) = std::env::var_os("ENVHOOK_REAL_WHEELS_DIR") {
        let _ = std::fs::remove_file(
            PathBuf::from(dir)
                .join(case.name)
                .join("conda-meta/.envhook-real-wheels"),
        );
    }
    let p = prefix(&case);
    let machine = &["--driver-version", "535.104.05", "--gpu", "A100"];
    let before = check_for(&p.path, machine);
    assert_eq!(loud(&before), case.before, "{:#}", before["findings"]);
    fix_commands(&before, &p.path);
    let mut commands: Vec<&str> = before["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "driver-too-old")
        .flat_map(|f| f["fix"]["choose"]["commands"].as_array().unwrap())
        .filter_map(Value::as_str)
        .collect();
    commands.dedup();
    assert_eq!(commands.len(), 1, "{commands:?}");
    assert!(
        commands[0].ends_with("-m pip install 'onnxruntime-gpu[cuda,cudnn]>=1.24,<1.27'"),
        "{}",
        commands[0]
    );
    follow(case.name, commands[0]);
    let (_, version) = python(
        &p.path,
        "import importlib.metadata as m; print(m.version('onnxruntime-gpu'))",
        false,
        &[],
    );
    assert!(version.starts_with("1.26."), "{version}");
    let pip_check = Command::new(p.path.join("bin/python"))
        .args(["-m", "pip", "check"])
        .output()
        .unwrap();
    assert!(
        pip_check.status.success(),
        "{}",
        String::from_utf8_lossy(&pip_check.stdout)
    );
    // The CUDA 13 line is gone (pip may leave its emptied directories).
    let (_, left) = python(
        &p.path,
        "import importlib.metadata as m; print(sorted(d.metadata['Name'] for d in \
         m.distributions() if d.metadata['Name'].startswith('nvidia') and \
         not d.metadata['Name'].endswith('-cu12')))",
        false,
        &[],
    );
    assert_eq!(left.trim(), "[]", "{left}");
    let after = check_for(&p.path, machine);
    assert_eq!(loud(&after), case.after, "{:#}", after["findings"]);
    let out = envhook(&["install", "-p"], &p.path);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json = check_for(&p.path, machine);
    assert_eq!(loud(&json), Vec::<String>::new(), "{:#}", json["findings"]);
    assert!(loader_agrees(&json, true, &p.path) > 0);
}
