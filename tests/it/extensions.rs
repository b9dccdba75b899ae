//! Issue #39: everything built against a framework's C++ API, found by
//! what it is rather than by a catalogue, and judged by what really loads.
//! The shapes are those of real PyPI wheels (xformers 0.0.28.post3 pins
//! `torch==2.5.1`; torchao 0.8.0 declares no torch and its `_C.abi3.so`
//! needs `libtorch.so`; vLLM 0.7.3 pins torch, torchvision and xformers),
//! the objects real ELF built with `cc`, and torch's libraries split as
//! PyPI's are (`libtorch.so` needs `libtorch_cpu.so`, which defines the
//! API): a symbol defined one library away is in the extension's scope.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::explaining::explain;
use support::{Env, FileSpec, PipDist, Sandbox, cc_source as cc, findings_of as of};

const MACHINE: &[&str] = &["--driver-version", "580.65.06", "--gpu", "H100"];

/// The C definition of each mangled name (they are valid C identifiers).
fn defining(symbols: &[&str]) -> String {
    symbols
        .iter()
        .map(|s| format!("int {s}(void) {{ return 0; }}\n"))
        .collect()
}

/// A C object that calls each of `symbols`, defined elsewhere.
fn calling(symbols: &[&str]) -> String {
    let declared: String = symbols
        .iter()
        .map(|s| format!("int {s}(void);\n"))
        .collect();
    let calls: Vec<String> = symbols.iter().map(|s| format!("{s}()")).collect();
    format!(
        "{declared}int PyInit__C(void) {{ return {}; }}\n",
        calls.join(" + ")
    )
}

/// torch 2.6.0 from PyPI, its API in `libtorch_cpu.so` (defining
/// `symbols`) behind `libtorch.so`; returns `libtorch.so`.
fn torch(env: &mut Env, symbols: &[&str]) -> PathBuf {
    let lib = env.site().join("torch/lib");
    env.pip(
        PipDist::new("torch", "2.6.0")
            .files(vec![
                FileSpec::File("torch/lib/libtorch.so"),
                FileSpec::File("torch/lib/libtorch_cpu.so"),
                FileSpec::File("torch/lib/libtorch_cuda.so"),
            ])
            .text(
                "torch/version.py",
                "__version__ = '2.6.0+cu124'\ndebug = False\ncuda = '12.4'\ngit_version = 'x'\nhip = None\n",
            ),
    );
    cc(
        &lib.join("libtorch_cpu.so"),
        "libtorch_cpu.so",
        &defining(symbols),
        &[],
    );
    cc(
        &lib.join("libtorch_cuda.so"),
        "libtorch_cuda.so",
        "int cuda_part(void) { return 0; }\n",
        &[],
    );
    cc(
        &lib.join("libtorch.so"),
        "libtorch.so",
        "int torch_part(void) { return 0; }\n",
        &[&lib.join("libtorch_cpu.so")],
    );
    lib.join("libtorch.so")
}

fn check(sb: &Sandbox, prefix: &Path) -> (Value, i32) {
    support::check_json(sb, prefix, MACHINE)
}

fn env(sb: &Sandbox) -> (Env, PathBuf) {
    let prefix = sb.path("envs/torch");
    let mut env = Env::new(&prefix);
    env.python("3.11.7");
    (env, prefix)
}

const AT: &str = "_ZN2at18TensorIteratorBaseC2Ev";
const C10: &str = "_ZN3c104cuda9SetDeviceEi";

/// xformers, which the catalogue does not name, is found by its pin on
/// torch; it was built for torch 2.5.1 and needs a symbol torch 2.6.0
/// lacks: an error naming the pin and the demangled symbol, and pip's
/// choice of its release for this torch. Built for this torch, nothing.
#[test]
fn an_uncatalogued_extension_built_for_another_torch() {
    let sb = Sandbox::new();
    let (mut env, prefix) = env(&sb);
    let libtorch = torch(&mut env, &[C10]);
    env.pip(
        PipDist::new("xformers", "0.0.28.post3")
            .requires(vec!["numpy", "torch ==2.5.1"])
            .files(vec![FileSpec::File("xformers/_C.so")]),
    );
    let ext = env.site().join("xformers/_C.so");
    cc(&ext, "_C.so", &calling(&[C10, AT]), &[&libtorch]);
    let (json, code) = check(&sb, &prefix);
    let found = of(&json, "extension-mismatch");
    assert_eq!(found.len(), 1, "{:#}", json["findings"]);
    let message = found[0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        format!(
            "xformers 0.0.28.post3 (_C.so) was built for torch==2.5.1 (its own requirement), not \
             the installed torch 2.6.0: it needs at::TensorIteratorBase::TensorIteratorBase() \
             ({AT}), which torch's libraries do not define, so loading it fails with \"undefined \
             symbol: {AT}\""
        )
    );
    let fix = format!(
        "'{}/bin/python' -m pip install 'torch==2.6.0' 'xformers'",
        prefix.display()
    );
    assert_eq!(found[0]["fix"]["command"], fix);
    assert_eq!(code, 1);
    // explain of the loader's message: the same finding and fix.
    let message = format!("ImportError: {}: undefined symbol: {AT}", ext.display());
    let (json, _) = explain(&sb, &prefix, &message, MACHINE);
    let answer = &json["answers"][0];
    assert_eq!(answer["verdict"], "cause", "{answer:#}");
    assert_eq!(answer["fix"]["command"], fix);
    // A torch symbol nothing here needs: not this environment.
    let (json, _) = explain(
        &sb,
        &prefix,
        "undefined symbol: _ZN5torch3jit4loadEv",
        MACHINE,
    );
    assert_eq!(json["answers"][0]["verdict"], "not-here", "{json:#}");
    // The release built for torch 2.6.0.
    env.pip(
        PipDist::new("xformers", "0.0.29.post3")
            .requires(vec!["numpy", "torch==2.6.0"])
            .files(vec![FileSpec::File("xformers/_C.so")]),
    );
    std::fs::remove_dir_all(env.site().join("xformers-0.0.28.post3.dist-info")).unwrap();
    cc(&ext, "_C.so", &calling(&[C10]), &[&libtorch]);
    let (json, _) = check(&sb, &prefix);
    assert!(
        of(&json, "extension-mismatch").is_empty(),
        "{:#}",
        json["findings"]
    );
    assert!(
        of(&json, "framework-pin-broken").is_empty(),
        "{:#}",
        json["findings"]
    );
}

/// torchao declares no torch: found by its object's DT_NEEDED. It names
/// no release, so pip would keep it; the fix is the choice of its release
/// for this torch or a build from source against it.
#[test]
fn an_extension_that_declares_no_torch_is_found_by_what_it_links() {
    let sb = Sandbox::new();
    let (mut env, prefix) = env(&sb);
    let libtorch = torch(&mut env, &[C10]);
    env.pip(
        PipDist::new("torchao", "0.8.0")
            .requires(vec!["pytest==7.4.0; extra == 'dev'"])
            .files(vec![FileSpec::File("torchao/_C.abi3.so")]),
    );
    cc(
        &env.site().join("torchao/_C.abi3.so"),
        "_C.abi3.so",
        &calling(&[AT]),
        &[&libtorch],
    );
    let (json, _) = check(&sb, &prefix);
    let found = of(&json, "extension-mismatch");
    assert_eq!(found.len(), 1, "{:#}", json["findings"]);
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("torchao 0.8.0 (_C.abi3.so) was built against another torch than the installed torch 2.6.0"),
        "{:#}",
        found[0]
    );
    let choose = &found[0]["fix"]["choose"];
    assert_eq!(
        choose["commands"][0],
        format!(
            "'{}/bin/python' -m pip install --force-reinstall --no-deps --no-build-isolation \
             --no-binary 'torchao' 'torchao==0.8.0'",
            prefix.display()
        ),
        "{choose:#}"
    );
}

/// vLLM 0.7.3 pins torch, torchvision and xformers; under torch 2.6.0 its
/// objects find every torch symbol they need (measured on the real
/// wheels), so it loads: a warning listing what pip check would, not an
/// error. A distribution that links nothing of torch and requires nothing
/// of it is not looked at.
#[test]
fn a_broken_pin_with_every_symbol_there_is_a_warning() {
    let sb = Sandbox::new();
    let (mut env, prefix) = env(&sb);
    let libtorch = torch(&mut env, &[C10, AT]);
    env.pip(
        PipDist::new("torchvision", "0.21.0")
            .requires(vec!["torch==2.6.0"])
            .files(vec![FileSpec::File("torchvision/_C.so")]),
    );
    cc(
        &env.site().join("torchvision/_C.so"),
        "_C.so",
        &calling(&[C10]),
        &[&libtorch],
    );
    env.pip(
        PipDist::new("vllm", "0.7.3")
            .requires(vec![
                "torch==2.5.1",
                "torchvision==0.20.1",
                "xformers==0.0.28.post3; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
                "numpy<2.0",
            ])
            .files(vec![FileSpec::File("vllm/_C.abi3.so")]),
    );
    cc(
        &env.site().join("vllm/_C.abi3.so"),
        "_C.abi3.so",
        &calling(&[C10, AT]),
        &[&libtorch],
    );
    env.pip(
        PipDist::new("numpy", "2.1.0")
            .files(vec![FileSpec::File("numpy/_core/_multiarray_umath.so")]),
    );
    let (json, code) = check(&sb, &prefix);
    assert!(
        of(&json, "extension-mismatch").is_empty(),
        "{:#}",
        json["findings"]
    );
    let found = of(&json, "framework-pin-broken");
    assert_eq!(found.len(), 1, "{:#}", json["findings"]);
    assert_eq!(found[0]["severity"], "warning");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "vllm 0.7.3 requires torch==2.5.1, torchvision==0.20.1, and torch 2.6.0, torchvision \
             0.21.0 installed (pip check reports it): its 1 object(s) built against torch find \
             every symbol they need"
        ),
        "{message}"
    );
    assert_eq!(
        found[0]["fix"]["command"],
        format!(
            "'{}/bin/python' -m pip install 'torch==2.6.0' 'vllm'",
            prefix.display()
        )
    );
    assert_eq!(code, 1);
    // numpy is neither: it is not in the inventory at all.
    let (code, out, _) = sb.run_on(&["show", "--json"], &prefix);
    assert_eq!(code, 0);
    let show: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = show["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        names.contains(&"vllm") && !names.contains(&"numpy"),
        "{names:?}"
    );
}
