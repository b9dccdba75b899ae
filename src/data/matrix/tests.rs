//! The matrix questions against the shipped data and small files.

use super::gpus::model_tokens;
use super::*;

fn m() -> Matrix {
    Matrix::load(None).unwrap()
}

#[test]
fn every_row_has_a_source() {
    let m = m();
    let sources = m
        .driver_floor
        .iter()
        .map(|r| &r.source)
        .chain(m.toolkit_driver.iter().map(|r| &r.source))
        .chain(m.arch.iter().map(|r| &r.source))
        .chain(m.gpu.iter().map(|r| &r.source))
        .chain(m.cudnn.iter().map(|r| &r.source))
        .chain(m.framework.iter().map(|r| &r.source))
        .chain(m.dlopen.iter().map(|r| &r.source))
        .chain(m.soname.iter().map(|r| &r.source));
    for s in sources {
        assert!(s.trim().len() > 5, "row without a source");
    }
    assert!(!m.version.is_empty());
    assert_eq!(
        shipped_version(),
        m.version,
        "the quick read agrees with the parser"
    );
}

#[test]
fn driver_floors_at_and_around_each_boundary() {
    let m = m();
    let floor = |cuda: &str| m.driver_floor(cuda).map(|f| f.linux.as_str());
    assert_eq!(floor("11.0"), Some("450.80.02"));
    assert_eq!(floor("11.8"), Some("450.80.02"));
    assert_eq!(floor("12.0"), Some("525.60.13"));
    assert_eq!(floor("12.9"), Some("525.60.13"));
    assert_eq!(floor("13.0"), Some("580.65.06"));
    assert_eq!(floor("10.2"), Some("440.33"));
    assert_eq!(
        floor("10.1"),
        None,
        "no row: no minor version compatibility before 11"
    );
    let v = |s: &str| version(s).unwrap();
    assert!(v("525.60.12") < v("525.60.13") && v("525.60.13") < v("525.85.12"));
    assert!(v("580.65.06") > v("575.57.08"));
}

#[test]
fn max_cuda_of_a_driver() {
    let m = m();
    let max = |d: &str| m.max_cuda_for_driver(d);
    assert_eq!(max("450.80.02").as_deref(), Some("11.0"));
    assert_eq!(max("470.82.01").as_deref(), Some("11.4"));
    assert_eq!(max("525.60.12").as_deref(), Some("11.8"));
    assert_eq!(max("525.60.13").as_deref(), Some("12.0"));
    assert_eq!(max("550.54.15").as_deref(), Some("12.4"));
    assert_eq!(max("570.124.06").as_deref(), Some("12.8"));
    assert_eq!(
        max("570.211.01").as_deref(),
        Some("12.8"),
        "12.8.2's runfile"
    );
    assert_eq!(max("575.57.08").as_deref(), Some("12.9"));
    assert_eq!(
        max("580.126.20").as_deref(),
        Some("13.0"),
        "13.0.3's runfile"
    );
    assert_eq!(max("580.65.06").as_deref(), Some("13.0"));
    assert_eq!(max("590.44.01").as_deref(), Some("13.1"));
    assert_eq!(max("590.48.01").as_deref(), Some("13.1"));
    assert_eq!(max("595.45.04").as_deref(), Some("13.2"));
    assert_eq!(max("595.58.03").as_deref(), Some("13.2"));
    assert_eq!(max("595.71.05").as_deref(), Some("13.2"), "same branch");
    assert_eq!(max("610.43.02").as_deref(), Some("13.3"));
    assert_eq!(max("545.23.08").as_deref(), Some("12.3"));
    assert_eq!(max("300.0"), None);
    assert_eq!(
        max("620.10"),
        None,
        "a newer branch than any row: not covered by the data"
    );
}

#[test]
fn architectures_per_toolkit() {
    let m = m();
    let ok = |cuda: &str, cc: &str| m.cuda_supports_cc(cuda, cc).map(|(ok, _)| ok);
    assert_eq!(ok("11.7", "9.0"), Some(false), "sm_90 needs 11.8");
    assert_eq!(ok("11.8", "9.0"), Some(true));
    assert_eq!(ok("11.8", "8.9"), Some(true));
    assert_eq!(ok("12.9", "7.0"), Some(true));
    assert_eq!(ok("13.0", "7.0"), Some(false), "CUDA 13 drops Volta");
    assert_eq!(ok("13.0", "7.5"), Some(true));
    assert_eq!(ok("11.8", "3.5"), Some(true));
    assert_eq!(ok("12.0", "3.5"), Some(false), "CUDA 12 drops Kepler");
    assert_eq!(ok("12.7", "10.0"), Some(false));
    assert_eq!(ok("12.8", "10.0"), Some(true));
    assert_eq!(ok("12.8", "12.0"), Some(true));
    assert_eq!(ok("12.8", "4.2"), None);
    // P1 (data audit 2026-12-05): same-major binary compatibility. CUDA
    // 12.8 cannot target sm_103 or sm_121, but its sm_100 and sm_120 code
    // runs there; every CUDA that reaches sm_100 runs on Rubin (10.7).
    assert_eq!(ok("12.8", "10.3"), Some(true), "B300 runs sm_100 code");
    assert_eq!(ok("12.8", "12.1"), Some(true), "GB10 runs sm_120 code");
    assert_eq!(ok("12.8", "10.7"), Some(true), "Rubin");
    assert_eq!(ok("13.0", "10.7"), Some(true), "Rubin");
    assert_eq!(ok("12.7", "10.3"), Some(false), "nothing of major 10 yet");
    assert_eq!(ok("12.6", "12.1"), Some(false));
    assert_eq!(ok("13.0", "7.2"), Some(false), "Xavier: Volta is gone");
    let bound = |cuda: &str, cc: &str| m.cuda_supports_cc(cuda, cc).map(|(_, a)| a.cc.as_str());
    assert_eq!(bound("12.8", "12.1"), Some("12.0"), "the code that runs");
    assert_eq!(
        bound("12.9", "10.3"),
        Some("10.3"),
        "its own, when targeted"
    );
    assert_eq!(
        bound("12.6", "12.1"),
        Some("12.0"),
        "the oldest first toolkit"
    );
    assert_eq!(bound("13.0", "7.0"), Some("7.0"));
}

#[test]
fn gpu_names() {
    let m = m();
    let cc = |name: &str| m.gpu_by_name(name).map(|g| g.cc.as_str());
    // Names as nvidia-smi prints them, and what they must map to.
    let table: &[(&str, Option<&str>)] = &[
        ("NVIDIA A100-SXM4-40GB", Some("8.0")),
        ("NVIDIA A100-SXM4-80GB", Some("8.0")),
        ("NVIDIA A100-PCIE-40GB", Some("8.0")),
        ("NVIDIA A100 80GB PCIe", Some("8.0")),
        ("NVIDIA A100-SXM4-80GB MIG 1g.10gb", Some("8.0")),
        ("NVIDIA A800-SXM4-80GB", Some("8.0")),
        ("NVIDIA A30", Some("8.0")),
        ("NVIDIA A10", Some("8.6")),
        ("NVIDIA A10G", Some("8.6")),
        ("NVIDIA A40", Some("8.6")),
        ("NVIDIA A16", Some("8.6")),
        ("NVIDIA A2", Some("8.6")),
        ("NVIDIA RTX A1000", Some("8.6")),
        ("NVIDIA RTX A6000", Some("8.6")),
        ("NVIDIA L4", Some("8.9")),
        ("NVIDIA L40S", Some("8.9")),
        ("NVIDIA L40", Some("8.9")),
        ("NVIDIA L20", Some("8.9")),
        ("NVIDIA H100 80GB HBM3", Some("9.0")),
        ("NVIDIA H100 PCIe", Some("9.0")),
        ("NVIDIA H100 NVL", Some("9.0")),
        ("NVIDIA H200", Some("9.0")),
        ("NVIDIA H200 NVL", Some("9.0")),
        ("NVIDIA GH200 480GB", Some("9.0")),
        ("NVIDIA H800", Some("9.0")),
        ("NVIDIA H20", Some("9.0")),
        ("NVIDIA B200", Some("10.0")),
        ("NVIDIA GB200", Some("10.0")),
        ("NVIDIA B300", Some("10.3")),
        ("NVIDIA GB10", Some("12.1")),
        ("NVIDIA Jetson T4000", Some("11.0")),
        ("NVIDIA Jetson T5000", Some("11.0")),
        ("Orin (nvgpu)", Some("8.7")),
        ("Tesla T4", Some("7.5")),
        ("Tesla V100-SXM2-16GB", Some("7.0")),
        ("Tesla V100-PCIE-32GB", Some("7.0")),
        ("Tesla V100S-PCIE-32GB", Some("7.0")),
        ("Tesla P100-PCIE-16GB", Some("6.0")),
        ("Tesla P40", Some("6.1")),
        ("Tesla P4", Some("6.1")),
        ("NVIDIA GeForce GTX 1080 Ti", Some("6.1")),
        ("NVIDIA TITAN V", Some("7.0")),
        ("NVIDIA TITAN RTX", Some("7.5")),
        ("NVIDIA GeForce RTX 2080 Ti", Some("7.5")),
        ("NVIDIA GeForce GTX 1660 SUPER", Some("7.5")),
        ("Quadro RTX 8000", Some("7.5")),
        ("Quadro RTX 6000", Some("7.5")),
        ("NVIDIA T1000 8GB", Some("7.5")),
        ("NVIDIA GeForce RTX 3090", Some("8.6")),
        ("NVIDIA GeForce RTX 3060 Laptop GPU", Some("8.6")),
        ("NVIDIA GeForce RTX 4090", Some("8.9")),
        ("NVIDIA GeForce RTX 4090 D", Some("8.9")),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", Some("8.9")),
        ("NVIDIA RTX 6000 Ada Generation", Some("8.9")),
        ("NVIDIA RTX 4000 SFF Ada Generation", Some("8.9")),
        ("NVIDIA GeForce RTX 5090", Some("12.0")),
        ("NVIDIA GeForce RTX 5070 Ti", Some("12.0")),
        ("NVIDIA GeForce RTX 5060", Some("12.0")),
        (
            "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
            Some("12.0"),
        ),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", Some("12.0")),
        (
            "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
            Some("12.0"),
        ),
        ("NVIDIA RTX PRO 4000 Blackwell", Some("12.0")),
        // Flag-style names (`--gpu A100`) work the same way.
        ("A100", Some("8.0")),
        ("rtx 4090", Some("8.9")),
        // Unknown models are unknown, not the nearest substring.
        ("Quadro P1000", None),
        ("Tesla K80", None),
        ("NVIDIA Graphics Device", None),
        ("NVIDIA", None),
        ("", None),
    ];
    for (name, want) in table {
        assert_eq!(cc(name), *want, "{name:?}");
    }
}

#[test]
fn gpu_names_are_whole_models_not_substrings() {
    let m = m();
    let row = |name: &str| m.gpu_by_name(name).map(|g| g.name.as_str());
    // Each of these contains another row's model as a substring.
    assert_eq!(row("NVIDIA RTX A1000"), Some("RTX A1000"), "not an A100");
    assert_ne!(row("NVIDIA A100-SXM4-80GB"), Some("A10 / A10G"));
    assert_eq!(row("NVIDIA A10"), Some("A10 / A10G"), "not an A100");
    assert_eq!(
        row("NVIDIA Jetson T4000"),
        Some("Jetson Thor (T5000 / T4000)"),
        "not a T4"
    );
    assert_eq!(row("NVIDIA L4"), Some("L4"), "not an L40S");
    assert_eq!(row("NVIDIA GH200 480GB"), Some("H200 / GH200"));
    assert_eq!(
        row("NVIDIA RTX 6000 Ada Generation"),
        Some("RTX Ada Generation"),
        "not the Turing Quadro RTX 6000"
    );
    assert_eq!(
        row("NVIDIA GeForce RTX 30"),
        None,
        "a series is not a model"
    );
    assert_eq!(
        model_tokens("NVIDIA A100-SXM4-80GB"),
        vec!["A100".to_string()]
    );
    assert_eq!(
        model_tokens("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"),
        vec!["RTX", "PRO", "6000", "BLACKWELL"]
    );
    assert_eq!(model_tokens("NVIDIA H100 80GB HBM3e"), vec!["H100"]);
}

#[test]
fn a_user_gpu_row_wins_and_uses_the_same_matching() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.toml");
    std::fs::write(
        &file,
        "[[gpu]]\nname = \"lab card\"\nmatch = [\"GeForce RTX 4090\"]\ncc = \"8.9\"\nsource = \"site\"\n",
    )
    .unwrap();
    let m = Matrix::load(Some(&file)).unwrap();
    let g = m.gpu_by_name("NVIDIA GeForce RTX 4090 D").unwrap();
    assert_eq!(g.name, "lab card");
    assert_eq!(m.gpu_by_name("NVIDIA GeForce RTX 4080").unwrap().cc, "8.9");
}

#[test]
fn cudnn_and_cuda() {
    let m = m();
    let ok = |d: &str, c: &str| m.cudnn_supports_cuda(d, c).map(|(ok, _)| ok);
    assert_eq!(ok("8.2.1", "11.3"), Some(true));
    assert_eq!(ok("8.2.1", "11.4"), Some(false), "8.2.0-8.2.1 stop at 11.3");
    assert_eq!(ok("8.2.2", "11.4"), Some(true));
    assert_eq!(ok("8.4.0", "11.6"), Some(true));
    assert_eq!(ok("8.4.0", "11.7"), Some(false));
    assert_eq!(ok("8.9.2.26", "12.2"), Some(true));
    assert_eq!(ok("8.9.2.26", "11.8"), Some(true));
    assert_eq!(ok("8.9.7.29", "12.3"), Some(false));
    assert_eq!(ok("9.1.0.70", "11.8"), Some(true));
    // A5: the CUDA 11.x packages of 9.0-9.10 also list 11.0-11.7.
    assert_eq!(ok("9.1.0.70", "11.7"), Some(true));
    assert_eq!(ok("9.0.0.312", "11.4"), Some(true));
    assert_eq!(ok("9.1.0.70", "10.2"), Some(false));
    assert_eq!(ok("9.3.0.75", "12.6"), Some(true));
    assert_eq!(ok("9.10.2.21", "12.9"), Some(true));
    assert_eq!(ok("9.10.2.21", "11.8"), Some(true));
    assert_eq!(ok("9.11.0.98", "11.8"), Some(false), "no CUDA 11 build");
    assert_eq!(ok("9.13.0.50", "13.0"), Some(true));
    assert_eq!(ok("9.13.0.50", "11.8"), Some(false));
    assert_eq!(ok("9.17.1.4", "13.1"), Some(true));
    assert_eq!(ok("9.17.1.4", "13.2"), Some(false));
    assert_eq!(ok("9.19.0.56", "13.0"), Some(true), "torch 2.11's pair");
    // A3: PyTorch's own CUDA 13.2 pairings are listed.
    assert_eq!(ok("9.20.0.48", "13.2"), Some(true));
    assert_eq!(ok("9.24.0.43", "13.2"), Some(true));
    assert_eq!(ok("9.26.0.51", "13.2"), Some(true), "torch 2.15's pair");
    assert_eq!(ok("9.28.1.4", "12.9"), Some(true));
    assert_eq!(ok("6.0", "8.0"), None);
    // Not covered by the data: unknown, not "unlisted".
    assert_eq!(ok("9.29.0.1", "13.2"), None, "cuDNN past the last row");
    assert_eq!(ok("9.28.1.4", "13.5"), None, "CUDA past every row");
    assert_eq!(ok("9.28.1.4", "14.0"), None);
    assert_eq!(
        m.cudnn("9.28.1.4").map(|r| r.versions.as_str()),
        Some(">=9.23,<=9.28.1.4")
    );
    // P12: cuDNN 9.23 came out with CUDA 13.3; a 13.3 runtime past 9.20-9.22
    // is unlisted now that a row reaches 13.3.
    assert_eq!(ok("9.23.0.1", "13.3"), Some(true));
    assert_eq!(ok("9.20.0.48", "13.3"), Some(false));
    assert_eq!(ok("9.28.1.4", "13.4"), None, "13.4: not read");
    assert!(m.cudnn("9.28.1.5").is_none());
}

#[test]
fn what_runs_on_a_gpu() {
    let m = m();
    // cuDNN: Volta lost its kernels at 9.11, Blackwell got them at 9.7.
    assert_eq!(m.cudnn_cap_for_cc("7.0").as_deref(), Some("<9.11"));
    assert_eq!(
        m.cudnn_cap_for_cc("9.0"),
        None,
        "the newest still has Hopper"
    );
    assert_eq!(m.cudnn_floor_for_cc("10.0").as_deref(), Some("9.7"));
    assert_eq!(m.cudnn_floor_for_cc("12.1").as_deref(), Some("9.7"));
    assert_eq!(
        m.cudnn_floor_for_cc("8.0"),
        None,
        "older rows record no capabilities"
    );
    // CUDA: from the oldest toolkit whose code runs there to the last.
    assert_eq!(
        m.cuda_for_cc("7.0"),
        Some(("9.0".into(), Some("12.9".into())))
    );
    assert_eq!(m.cuda_for_cc("10.3"), Some(("12.8".into(), None)));
    // Build rows: torch 2.15 (CUDA 13.2, cuDNN 9.26) has no Volta code;
    // torch 2.10-2.14 cu126 does.
    let row = |release: &str, tag: &str| m.framework(Framework::Pytorch, release, tag).unwrap();
    assert_eq!(m.row_runs_on(row("2.15.0", "default"), "7.0"), Some(false));
    assert_eq!(m.row_runs_on(row("2.12.0", "cu126"), "7.0"), Some(true));
    assert_eq!(
        m.row_runs_on(row("2.8.0", "cu128"), "10.3"),
        Some(true),
        "B300"
    );
    assert_eq!(m.row_runs_on(row("2.6.0", "cu126"), "10.0"), Some(false));
    // nvJitLink's sonames (P3).
    assert_eq!(
        m.soname("libnvJitLink", "12.4").as_deref(),
        Some("libnvJitLink.so.12")
    );
    assert_eq!(
        m.soname("libnvJitLink", "13.0").as_deref(),
        Some("libnvJitLink.so.13")
    );
    assert_eq!(m.soname("libnvJitLink", "11.8"), None, "came with CUDA 12");
    let newest = m.builds_newest_first(Framework::Jax);
    assert!(
        newest[0].release.contains("0.12.1"),
        "{}",
        newest[0].release
    );
}

#[test]
fn cudnn_and_compute_capability() {
    let m = m();
    let ok = |d: &str, cc: &str| m.cudnn_supports_cc(d, cc).map(|(ok, _)| ok);
    // A4: Maxwell, Pascal and Volta are gone from 9.11 on.
    assert_eq!(ok("9.10.2.21", "7.0"), Some(true), "V100");
    assert_eq!(ok("9.10.2.21", "6.1"), Some(true), "P40");
    assert_eq!(
        ok("9.10.2.21", "5.2"),
        Some(true),
        "GTX 9xx: binary compatible with 5.0"
    );
    assert_eq!(ok("9.11.0.98", "7.0"), Some(false));
    assert_eq!(ok("9.17.1.4", "7.0"), Some(false), "V100");
    assert_eq!(ok("9.17.1.4", "6.0"), Some(false), "P100");
    assert_eq!(ok("9.26.0.51", "6.1"), Some(false), "P4/P40/GTX 10xx");
    assert_eq!(ok("9.17.1.4", "7.5"), Some(true));
    assert_eq!(ok("9.17.1.4", "8.7"), Some(true), "Orin runs 8.6 code");
    assert_eq!(ok("9.17.1.4", "9.0"), Some(true));
    assert_eq!(ok("9.17.1.4", "10.3"), Some(true), "B300 runs 10.0 code");
    assert_eq!(ok("9.17.1.4", "12.1"), Some(true), "GB10 runs 12.0 code");
    assert_eq!(ok("9.26.0.51", "10.7"), Some(true), "Rubin runs 10.0 code");
    assert_eq!(ok("9.5.1.17", "9.0"), Some(true));
    assert_eq!(ok("9.5.1.17", "3.7"), Some(false), "Kepler");
    assert_eq!(ok("8.9.7.29", "9.0"), Some(true));
    // Not covered: a major the list does not have, a future one, a row
    // without capabilities, a release past the table.
    assert_eq!(ok("9.17.1.4", "11.0"), None, "Thor: not listed");
    assert_eq!(ok("9.17.1.4", "13.0"), None);
    assert_eq!(ok("9.5.1.17", "10.0"), None);
    assert_eq!(ok("8.6.0.163", "8.6"), None, "no cc recorded");
    assert_eq!(ok("9.30.0.1", "8.0"), None);
    assert_eq!(ok("9.17.1.4", "sm_70"), None, "not a capability");
    let (_, row) = m.cudnn_supports_cc("9.10.2.21", "12.0").unwrap();
    assert!(
        row.note.as_deref().is_some_and(|n| n.contains("570.26")),
        "A6: Blackwell needs the 12.8+ build and driver 570.26"
    );
    // Built for CUDA releases that predate the GPU: none of its code runs
    // there. Not so where a listed capability's code runs (P1: cuDNN 9.7
    // built for CUDA 12.8 lists 10.0 and 12.0).
    let predates = |d: &str, cc: &str| m.cudnn_predates_arch(d, cc).map(|(_, a)| a.cc.as_str());
    assert_eq!(predates("8.9.7.29", "10.0"), Some("10.0"), "B200");
    assert_eq!(predates("8.9.7.29", "10.3"), Some("10.0"), "B300");
    assert_eq!(predates("8.9.7.29", "12.1"), Some("12.0"), "GB10");
    for cudnn in [
        "9.7.1.26",
        "9.8.0.87",
        "9.9.0.52",
        "9.10.2.21",
        "9.26.0.51",
        "9.28.1.4",
    ] {
        for cc in ["10.0", "10.3", "10.7", "12.0", "12.1"] {
            assert_eq!(predates(cudnn, cc), None, "cuDNN {cudnn} on {cc}");
        }
    }
    assert_eq!(predates("8.9.7.29", "9.0"), None);
    // What a fix keeps to.
    assert_eq!(m.cudnn_keeping_cc("7.0").as_deref(), Some("<9.11"));
    assert_eq!(m.cudnn_keeping_cc("5.2").as_deref(), Some("<9.11"));
    assert_eq!(
        m.cudnn_keeping_cc("3.7"),
        None,
        "no row with capabilities lists Kepler"
    );
    assert_eq!(m.cudnn_keeping_cc("8.0").as_deref(), Some("<=9.28.1.4"));
}

#[test]
fn framework_builds() {
    let m = m();
    let row = |fw, r: &str, t: &str| {
        m.framework(fw, r, t)
            .map(|r| (r.cuda.as_str(), r.cudnn.as_deref()))
    };
    assert_eq!(
        row(Framework::Paddlepaddle, "2.5.2", "post116"),
        Some(("11.6", Some("8.4.0")))
    );
    assert_eq!(
        row(Framework::Paddlepaddle, "2.4.2", "post116"),
        Some(("11.6", Some("8.4.0")))
    );
    assert_eq!(
        row(Framework::Paddlepaddle, "2.6.2", "default"),
        Some(("11.8", Some("8.6.0")))
    );
    assert_eq!(
        row(Framework::Paddlepaddle, "2.4.2", "default"),
        Some(("10.2", Some("7.6.5")))
    );
    assert_eq!(
        row(Framework::Paddlepaddle, "2.4.2", "post120"),
        None,
        "post120 starts at 2.5"
    );
    assert_eq!(
        row(Framework::Pytorch, "2.3.1", "default"),
        Some(("12.1", Some("8.9.2.26")))
    );
    assert_eq!(
        row(Framework::Pytorch, "2.7.0", "default"),
        Some(("12.6", Some("9.5.1.17")))
    );
    assert_eq!(
        row(Framework::Tensorflow, "2.15.0", "default"),
        Some(("12.2", Some("8.9")))
    );
    assert_eq!(
        row(Framework::Tensorflow, "2.11.1", "default"),
        Some(("11.2", Some("8.1")))
    );
    let by_cuda = m
        .framework_by_cuda(Framework::Paddlepaddle, "3.0.0", "12.6")
        .unwrap();
    assert_eq!(by_cuda.cudnn.as_deref(), Some("9.5.1.17"));
    // A8: no CUDA 12 build runs on Kepler.
    assert_eq!(
        m.framework(Framework::Paddlepaddle, "2.6.2", "post120")
            .and_then(|r| r.min_cc.as_deref()),
        Some("5.0")
    );
    // B4: the 3.0 betas have a cu118 build.
    assert_eq!(
        m.framework_by_cuda(Framework::Paddlepaddle, "3.0.0b2", "11.8")
            .map(|r| r.tag.as_str()),
        Some("cu118")
    );
    // B3: cu130, with its cuDNN pin not recorded.
    let cu130 = m
        .framework_by_cuda(Framework::Paddlepaddle, "3.3.0", "13.0")
        .unwrap();
    assert_eq!(cu130.cudnn, None);
    assert_eq!(cu130.confidence, Confidence::Uncertain);
    assert_eq!(
        row(Framework::Paddlepaddle, "0.0.0", "post118"),
        Some(("11.8", Some("8.6.0"))),
        "B7: nightly only"
    );
    // B1/B2: PyTorch 2.10-2.15, defaults from PyPI METADATA.
    assert_eq!(
        row(Framework::Pytorch, "2.10.0", "default"),
        Some(("12.8", Some("9.10.2.21")))
    );
    assert_eq!(
        row(Framework::Pytorch, "2.11.0", "default"),
        Some(("13.0", Some("9.19.0.56")))
    );
    assert_eq!(
        row(Framework::Pytorch, "2.13.0", "default"),
        Some(("13.0", Some("9.20.0.48")))
    );
    assert_eq!(
        row(Framework::Pytorch, "2.14.1", "cu126"),
        Some(("12.6", Some("9.10.2.21")))
    );
    assert_eq!(
        row(Framework::Pytorch, "2.14.1", "cu132"),
        Some(("13.2", Some("9.24.0.43")))
    );
    assert_eq!(
        row(Framework::Pytorch, "2.15.0", "default"),
        Some(("13.2", Some("9.26.0.51")))
    );
    assert_eq!(
        m.framework_by_cuda(Framework::Pytorch, "2.15.0", "13.2")
            .map(|r| r.cudnn.as_deref()),
        Some(Some("9.26.0.51"))
    );
    assert_eq!(
        row(Framework::Tensorflow, "2.21.0", "default"),
        Some(("12.5", Some("9.3")))
    );
    // A1/A2/B6: JAX per build.
    assert_eq!(
        row(Framework::Jax, "0.4.26", "cuda12"),
        Some(("12.3", Some("8.9.6")))
    );
    assert_eq!(
        row(Framework::Jax, "0.5.3", "cuda12"),
        Some(("12.3", Some("9.1.1")))
    );
    assert_eq!(
        row(Framework::Jax, "0.6.2", "cuda12"),
        Some(("12.8", Some("9.8.0")))
    );
    assert_eq!(
        row(Framework::Jax, "0.10.2", "cuda12"),
        Some(("12.9", Some("9.8.0")))
    );
    assert_eq!(
        row(Framework::Jax, "0.12.0.1", "cuda12"),
        Some(("12.9", Some("9.10.2")))
    );
    assert_eq!(
        row(Framework::Jax, "0.9.0.1", "cuda13"),
        Some(("13.0", Some("9.12.0")))
    );
    assert_eq!(
        row(Framework::Jax, "0.7.1", "cuda13"),
        None,
        "cuda13 starts at 0.7.2"
    );
    assert_eq!(
        row(Framework::Jax, "0.4.25", "cuda11"),
        Some(("11.8", Some("8.6")))
    );
    // B5: ONNX Runtime 1.21-1.31 from the wheels' build files.
    assert_eq!(
        row(Framework::Onnxruntime, "1.23.2", "default"),
        Some(("12.2", Some("9")))
    );
    assert_eq!(
        row(Framework::Onnxruntime, "1.26.0", "default"),
        Some(("12.8", Some("9")))
    );
    assert_eq!(
        row(Framework::Onnxruntime, "1.31.1", "default"),
        Some(("13.0", Some("9")))
    );
    let dl = m.dlopen(Framework::Paddlepaddle, "", "2.5.2", false, Some(11));
    assert!(dl[0].names.contains(&"libcudnn.so".to_string()));
    assert_eq!(
        m.dlopen(Framework::Paddlepaddle, "", "3.0.0", true, Some(12))[0].names,
        vec!["libnvrtc.so"]
    );
    // The names follow the build's own CUDA and cuDNN.
    let names = |fw, release: &str, major, cuda: &str, cudnn: &str| -> Vec<String> {
        m.dlopen(fw, "", release, true, Some(major))
            .iter()
            .flat_map(|r| m.dlopen_names(r, Some(cuda), Some(cudnn)))
            .collect()
    };
    // TensorFlow: every release from 2.12, each with its build's names.
    let tf213 = names(Framework::Tensorflow, "2.13.1", 11, "11.8", "8");
    assert!(
        tf213.contains(&"libcudart.so.11.0".to_string()),
        "{tf213:?}"
    );
    assert!(tf213.contains(&"libcufft.so.10".to_string()));
    assert!(tf213.contains(&"libcurand.so.10".to_string()));
    assert!(tf213.contains(&"libcudnn.so.8".to_string()));
    let tf220 = names(Framework::Tensorflow, "2.20.0", 12, "12.5.1", "9");
    assert!(tf220.contains(&"libcublas.so.12".to_string()), "{tf220:?}");
    assert!(tf220.contains(&"libcufft.so.11".to_string()));
    assert!(
        !tf220
            .iter()
            .any(|n| n.starts_with("libcurand") || n.starts_with("libnccl"))
    );
    let tf221 = names(Framework::Tensorflow, "2.21.0", 12, "12.5.1", "9");
    assert!(tf221.contains(&"libnccl.so.2".to_string()), "{tf221:?}");
    // The DsoLoader that runs is libtensorflow_framework.so.2's (#27).
    for release in ["2.12.1", "2.16.1", "2.21.0"] {
        let row = m.dlopen(Framework::Tensorflow, "", release, true, Some(12))[0];
        assert_eq!(row.object.as_deref(), Some("libtensorflow_framework.so.2"));
        assert!(row.falls_back_to_cpu);
    }
    // JAX: by name through the plugin's RPATH, then preloaded from 0.6.2;
    // the plugin's CUDA major decides the sonames.
    let old = m.dlopen(Framework::Jax, "", "0.5.3", true, Some(12));
    assert!(!old[0].preloaded_from_wheels);
    let jax12 = names(Framework::Jax, "0.12.0.1", 12, "12.9", "9.10.2");
    assert!(
        jax12.contains(&"libcusolver.so.11".to_string()),
        "{jax12:?}"
    );
    assert!(m.dlopen(Framework::Jax, "", "0.12.0.1", true, Some(12))[0].preloaded_from_wheels);
    let jax13 = names(Framework::Jax, "0.12.1", 13, "13.0", "9.12");
    assert!(
        jax13.contains(&"libcusolver.so.12".to_string()),
        "{jax13:?}"
    );
    assert!(jax13.contains(&"libcufft.so.12".to_string()));
    // ONNX Runtime: cuDNN and cuFFT by their majors from 1.28 (in
    // DT_NEEDED before), both optional (microsoft/onnxruntime#29252,
    // #29808).
    assert_eq!(
        names(Framework::Onnxruntime, "1.29.0", 13, "13.0", "9"),
        ["libcudnn.so.9", "libcufft.so.12"]
    );
    let ort = &m.dlopen(Framework::Onnxruntime, "", "1.29.0", true, Some(13))[0];
    assert!(
        ort.loses("libcudnn.so.9")
            .is_some_and(|l| l.contains("NOT_IMPLEMENTED"))
    );
    assert!(
        ort.loses("libcufft.so.12")
            .is_some_and(|l| l.contains("Rfft"))
    );
    assert_eq!(ort.loses("libcudnn_ops.so.9"), None);
    assert!(
        m.dlopen(Framework::Onnxruntime, "", "1.27.0", true, Some(13))
            .is_empty()
    );
    // CuPy needs NVRTC and cuBLAS for nearly everything, in 13 and 14
    // alike (#39); cuBLASLt, cuFFT and the rest are another matter.
    for (package, release) in [("cupy-cuda11x", "13.6.0"), ("cupy-cuda13x", "14.2.0")] {
        let row = m.dlopen(Framework::Other, package, release, true, None)[0];
        assert!(
            row.requires("libnvrtc.so.11.2")
                .is_some_and(|w| w.contains("every kernel"))
        );
        assert!(row.requires("libcublas.so.13").is_some());
        assert_eq!(row.requires("libcublasLt.so.13"), None);
        assert_eq!(row.requires("libcufft.so.10"), None);
    }
}

#[test]
fn releases_past_the_data_are_not_covered() {
    let m = m();
    for (fw, release, tag) in [
        (Framework::Pytorch, "2.15.1", "default"),
        (Framework::Pytorch, "2.16.0", "default"),
        (Framework::Pytorch, "2.16.0", "cu132"),
        (Framework::Tensorflow, "2.21.1", "default"),
        (Framework::Tensorflow, "2.22.0", "default"),
        (Framework::Jax, "0.12.1", "cuda12"),
        (Framework::Jax, "0.13.0", "cuda13"),
        (Framework::Onnxruntime, "1.32.0", "default"),
        (Framework::Paddlepaddle, "3.5.0", "default"),
    ] {
        assert!(
            m.framework(fw, release, tag).is_none(),
            "{fw:?} {release} {tag} is past the data"
        );
    }
    assert!(
        m.framework_by_cuda(Framework::Paddlepaddle, "3.4.2", "13.0")
            .is_none()
    );
    assert!(
        m.framework_by_cuda(Framework::Pytorch, "2.16.0", "13.2")
            .is_none()
    );
    assert!(
        m.dlopen(Framework::Paddlepaddle, "", "3.4.0", true, Some(12))
            .is_empty()
    );
    // Paddle 3.4 has rows of its own (data audit 2026-12-04 N3).
    assert!(
        m.framework_by_cuda(Framework::Paddlepaddle, "3.4.1", "12.9")
            .is_some()
    );
    assert!(m.cudnn("9.29.0.1").is_none());
}

/// Every version, release and CUDA spec of the shipped data ends at what
/// its source covers (data audit 2026-12, "closed ranges").
#[test]
fn specs_are_closed_above() {
    // Specs allowed to stay open above, as (table.field, spec). None at
    // present. What is open on purpose lives outside specs:
    // - [[arch]] rows with last_ctk = "": architectures that every
    //   toolkit up to the newest still targets (checked below);
    // - [[driver_floor]] and [[toolkit_driver]]: a newer driver still runs
    //   older CUDA (backward compatibility), so floors have no top;
    // - [[cudnn]] `cc` lists: a newer minor of a listed major is covered
    //   by binary compatibility, any other newer major is unknown.
    const OPEN_ALLOWED: &[(&str, &str)] = &[];
    let m = m();
    let specs = m
        .framework
        .iter()
        .map(|r| ("framework.release", r.release.as_str(), r.source.as_str()))
        .chain(m.cudnn.iter().flat_map(|r| {
            [
                ("cudnn.versions", r.versions.as_str(), r.source.as_str()),
                ("cudnn.cuda", r.cuda.as_str(), r.source.as_str()),
            ]
        }))
        .chain(
            m.dlopen
                .iter()
                .map(|r| ("dlopen.release", r.release.as_str(), r.source.as_str())),
        )
        .chain(
            m.soname
                .iter()
                .map(|r| ("soname.cuda", r.cuda.as_str(), r.source.as_str())),
        );
    for (field, text, source) in specs {
        let s = spec(text).unwrap();
        if OPEN_ALLOWED.contains(&(field, text)) {
            continue;
        }
        assert!(
            upper_bound(&s).is_some(),
            "{field} = {text:?} is open above ({source})"
        );
    }
    // The architectures still supported: Turing and newer (CUDA 13 dropped
    // Maxwell, Pascal and Volta; sm_101 became sm_110).
    let mut open_arch: Vec<&str> = m
        .arch
        .iter()
        .filter(|a| a.last_ctk.is_empty())
        .map(|a| a.cc.as_str())
        .collect();
    open_arch.sort_by_key(|cc| Cc::parse(cc));
    assert_eq!(
        open_arch,
        [
            "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "10.7", "11.0", "12.0",
            "12.1"
        ]
    );
}

#[test]
fn upper_bounds_of_specs() {
    let ub = |s: &str| upper_bound(&spec(s).unwrap()).map(|(v, incl)| (v.to_string(), incl));
    assert_eq!(ub(">=9.17"), None);
    assert_eq!(ub("<3.0.0a0"), Some(("3.0.0a0".into(), false)));
    assert_eq!(ub(">=2.15,<=2.15.0"), Some(("2.15.0".into(), true)));
    assert_eq!(ub("==0.0.0"), Some(("0.0.0".into(), true)));
    assert_eq!(
        ub(">=11.0,<11.9|>=12.0,<12.10"),
        Some(("12.10".into(), false))
    );
    assert_eq!(ub("==10.2|>=11.0"), None, "one open branch opens the whole");
    assert_eq!(ub("*"), None);
    assert_eq!(ub("!=1.0"), None);
}

#[test]
fn shipped_rows_follow_the_schema_rules() {
    let m = m();
    for r in &m.cudnn {
        for cc in r.cc.iter().flatten() {
            assert!(Cc::parse(cc).is_some(), "{cc} in {}", r.versions);
        }
    }
    for r in &m.framework {
        for cc in [&r.min_cc, &r.max_cc].into_iter().flatten() {
            assert!(
                Cc::parse(cc).is_some(),
                "{cc} in {:?} {}",
                r.framework,
                r.release
            );
        }
        if r.confidence == Confidence::Uncertain {
            assert!(
                r.note.is_some(),
                "uncertain row without a note: {:?} {} {}",
                r.framework,
                r.release,
                r.tag
            );
        }
    }
    // No two rows of one framework and tag overlap (the first would hide
    // the second).
    for (i, a) in m.framework.iter().enumerate() {
        for b in &m.framework[i + 1..] {
            if a.framework != b.framework || a.tag != b.tag {
                continue;
            }
            let (sa, sb) = (spec(&a.release).unwrap(), spec(&b.release).unwrap());
            for probe in [&a.release, &b.release] {
                for v in probe
                    .split(['|', ','])
                    .map(|p| p.trim_start_matches(['>', '<', '=', '!']))
                    .filter_map(version)
                {
                    assert!(
                        !(sa.matches(&v) && sb.matches(&v)),
                        "{:?} {}: {} and {} both match {v}",
                        a.framework,
                        a.tag,
                        a.release,
                        b.release
                    );
                }
            }
        }
    }
}

#[test]
fn user_rows_take_precedence_and_bad_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.toml");
    std::fs::write(
        &file,
        "[[driver_floor]]\ncuda = \"12\"\nlinux = \"999.1\"\nsource = \"site policy\"\n",
    )
    .unwrap();
    let m = Matrix::load(Some(&file)).unwrap();
    assert_eq!(m.driver_floor("12.4").unwrap().linux, "999.1");
    assert!(m.version.ends_with("+user"));
    std::fs::write(
        &file,
        "[[cudnn]]\nversions = \">=8.2,,<8.3\"\ncuda = \"11\"\nsource = \"x\"\n",
    )
    .unwrap();
    let err = Matrix::load(Some(&file)).unwrap_err().to_string();
    assert!(
        err.contains("m.toml") && err.contains(">=8.2,,<8.3"),
        "{err}"
    );
    std::fs::write(&file, "[[gpu]]\nname = 1\n").unwrap();
    assert!(Matrix::load(Some(&file)).is_err());
    // A file written for 2026.12.0 (no cc, note or toolkit confidence)
    // still parses; a bad capability is an error.
    std::fs::write(
        &file,
        "[[cudnn]]\nversions = \">=9.30,<9.31\"\ncuda = \">=13.0,<13.6\"\nsource = \"site\"\n\
         [[toolkit_driver]]\nctk = \"13.5.0\"\nlinux = \"620.1\"\nsource = \"site\"\n",
    )
    .unwrap();
    let m = Matrix::load(Some(&file)).unwrap();
    assert_eq!(
        m.cudnn_supports_cuda("9.30.1", "13.5").map(|(ok, _)| ok),
        Some(true)
    );
    assert!(m.cudnn_supports_cc("9.30.1", "8.0").is_none());
    assert_eq!(m.max_cuda_for_driver("620.1").as_deref(), Some("13.5"));
    assert_eq!(m.toolkit_driver[0].confidence, Confidence::Verified);
    std::fs::write(
        &file,
        "[[cudnn]]\nversions = \">=9.30,<9.31\"\ncuda = \">=13.0,<13.6\"\ncc = [\"sm_75\"]\nsource = \"x\"\n",
    )
    .unwrap();
    let err = Matrix::load(Some(&file)).unwrap_err().to_string();
    assert!(err.contains("sm_75"), "{err}");
}

#[test]
fn sonames_follow_the_cuda_release() {
    let m = m();
    let so = |lib: &str, cuda: &str| m.soname(lib, cuda);
    assert_eq!(so("libcufft", "11.8").as_deref(), Some("libcufft.so.10"));
    assert_eq!(so("libcufft", "12.5.1").as_deref(), Some("libcufft.so.11"));
    assert_eq!(so("libcufft", "12").as_deref(), Some("libcufft.so.11"));
    assert_eq!(so("libcufft", "13.0").as_deref(), Some("libcufft.so.12"));
    assert_eq!(
        so("libcudart", "11.8").as_deref(),
        Some("libcudart.so.11.0")
    );
    assert_eq!(so("libnvrtc", "11.8").as_deref(), Some("libnvrtc.so.11.2"));
    assert_eq!(so("libcupti", "11.8").as_deref(), Some("libcupti.so.11.8"));
    assert_eq!(
        so("libcusolver", "13.2").as_deref(),
        Some("libcusolver.so.12")
    );
    // cuSOLVER's major moved to 11 with CUDA 11.1: a bare `11` is ambiguous.
    assert_eq!(
        so("libcusolver", "11.0.3").as_deref(),
        Some("libcusolver.so.10")
    );
    assert_eq!(
        so("libcusolver", "11.1").as_deref(),
        Some("libcusolver.so.11")
    );
    assert_eq!(so("libcusolver", "11"), None);
    // Past the data, or a minor whose soname was not read: no name.
    assert_eq!(so("libcufft", "14.0"), None);
    assert_eq!(so("libcupti", "11.2"), None);
    assert_eq!(so("libcupti", "11"), None);
    // One row per (library, CUDA release): ranges do not overlap.
    for (i, a) in m.soname.iter().enumerate() {
        for b in &m.soname[i + 1..] {
            if a.library != b.library {
                continue;
            }
            let (sa, sb) = (spec(&a.cuda).unwrap(), spec(&b.cuda).unwrap());
            for probe in ["11.0", "11.2", "11.8", "12.0", "12.9", "13.0", "13.2"] {
                let v = version(probe).unwrap();
                assert!(
                    !(sa.matches(&v) && sb.matches(&v)),
                    "{} has two sonames for CUDA {probe}",
                    a.library
                );
            }
        }
    }
}

#[test]
fn dlopen_names_come_from_the_build() {
    let m = m();
    let row = DlopenRow {
        framework: Framework::Tensorflow,
        packages: Vec::new(),
        by: super::By::Name,
        falls_back_to_cpu: false,
        linked_in: Vec::new(),
        release: "==1.0".into(),
        pip_cuda_libraries: None,
        cuda_major: None,
        object: None,
        preloaded_from_wheels: false,
        names: vec!["libnvrtc.so".into()],
        then_dir: Default::default(),
        libraries: vec!["libcufft".into(), "libcudnn".into(), "libcupti".into()],
        optional: Default::default(),
        required: Default::default(),
        confidence: Confidence::Verified,
        note: None,
        source: "test".into(),
    };
    assert_eq!(
        m.dlopen_names(&row, Some("12.5.1"), Some("9")),
        [
            "libnvrtc.so",
            "libcufft.so.11",
            "libcudnn.so.9",
            "libcupti.so.12"
        ]
    );
    assert_eq!(
        m.dlopen_names(&row, Some("11.8"), Some("8.6.0")),
        [
            "libnvrtc.so",
            "libcufft.so.10",
            "libcudnn.so.8",
            "libcupti.so.11.8"
        ]
    );
    // Unknown versions: only what can be named.
    assert_eq!(
        m.dlopen_names(&row, None, Some("9")),
        ["libnvrtc.so", "libcudnn.so.9"]
    );
    assert_eq!(m.dlopen_names(&row, Some("12.5"), None).len(), 3);
}

/// The framework builds released from January 2023 to December 2026 (data
/// audit 2026-12-05, section C) and whether each has a `[[framework]]` row
/// for its release and tag: at least 95% must. The lists are literals:
/// - torch: the 2.0-2.15 series on PyPI (pypi.org/pypi/torch/json); the
///   CUDA builds of each series as PyTorch's release compatibility matrix
///   lists them (2.0: 11.7/11.8; 2.1-2.3: 11.8/12.1; 2.4-2.5: + 12.4) and,
///   from 2.6, as the audit counts them (three per series);
/// - TensorFlow: the 2.12-2.21 series on PyPI (one build each);
/// - JAX: the monolithic CUDA jaxlib releases 0.4.2-0.4.29 of Google's
///   index, from jax-ml/jax CHANGELOG.md @cec06d1 and the jaxlib-v0.4.x
///   tags (PyPI no longer has their files; no jaxlib 0.4.5, 0.4.8 or
///   0.4.15), cuda11 to 0.4.25 (0.4.26 dropped it) and cuda12 from 0.4.7;
///   jax-cuda11-plugin, jax-cuda12-plugin and jax-cuda13-plugin as PyPI
///   lists them (pypi.org/pypi/jax-cuda12-plugin/json etc., 2026-12);
/// - onnxruntime-gpu: the 1.14-1.31 series on PyPI (the vendor's side
///   feeds are documented as not covered);
/// - paddlepaddle-gpu: 2.4.2-2.6.2 (PyPI) with their `.postNNN` builds and
///   3.0-3.4 from Paddle's own index (not reachable from here), with the
///   builds of each series as the matrix's sources and the audit name them.
#[test]
// The coverage per family goes to the test's stderr, for a person
// updating the matrix (`--nocapture`).
#[allow(clippy::print_stderr)]
fn framework_builds_since_2023_have_rows() {
    let m = m();
    let torch: &[(&str, &[&str])] = &[
        ("2.0.0", &["cu117", "cu118"]),
        ("2.1.0", &["cu118", "cu121"]),
        ("2.2.0", &["cu118", "cu121"]),
        ("2.3.0", &["cu118", "cu121"]),
        ("2.4.0", &["cu118", "cu121", "cu124"]),
        ("2.5.0", &["cu118", "cu121", "cu124"]),
        ("2.6.0", &["cu118", "cu124", "cu126"]),
        ("2.7.0", &["cu118", "cu126", "cu128"]),
        ("2.8.0", &["cu126", "cu128", "cu129"]),
        ("2.9.0", &["cu126", "cu128", "cu130"]),
        ("2.10.0", &["cu126", "cu128", "cu130"]),
        ("2.11.0", &["cu126", "cu128", "cu130"]),
        ("2.12.0", &["cu126", "cu130", "cu132"]),
        ("2.13.0", &["cu126", "cu130", "cu132"]),
        ("2.14.0", &["cu126", "cu130", "cu132"]),
        ("2.15.0", &["cu126", "cu130", "cu132"]),
    ];
    let tensorflow = [
        "2.12.0", "2.13.0", "2.14.0", "2.15.0", "2.16.1", "2.17.0", "2.18.0", "2.19.0", "2.20.0",
        "2.21.0",
    ];
    let jaxlib_monolithic = [
        "0.4.2", "0.4.3", "0.4.4", "0.4.6", "0.4.7", "0.4.9", "0.4.10", "0.4.11", "0.4.12",
        "0.4.13", "0.4.14", "0.4.16", "0.4.17", "0.4.18", "0.4.19", "0.4.20", "0.4.21", "0.4.22",
        "0.4.23", "0.4.24", "0.4.25", "0.4.26", "0.4.27", "0.4.28", "0.4.29",
    ];
    let jax_cuda11_plugin = ["0.4.22", "0.4.23", "0.4.24", "0.4.25"];
    let jax_cuda12_plugin = [
        "0.4.22", "0.4.23", "0.4.24", "0.4.25", "0.4.26", "0.4.27", "0.4.28", "0.4.29", "0.4.30",
        "0.4.31", "0.4.32", "0.4.33", "0.4.34", "0.4.35", "0.4.36", "0.4.38", "0.5.0", "0.5.1",
        "0.5.3", "0.6.0", "0.6.1", "0.6.2", "0.7.0", "0.7.1", "0.7.2", "0.8.0", "0.8.1", "0.8.2",
        "0.8.3", "0.9.0", "0.9.0.1", "0.9.1", "0.9.2", "0.10.0", "0.10.1", "0.10.2", "0.11.0",
        "0.11.1", "0.11.2", "0.12.0", "0.12.0.1",
    ];
    let jax_cuda13_plugin = [
        "0.7.2", "0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.9.0", "0.9.0.1", "0.9.1", "0.9.2",
        "0.10.0", "0.10.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.12.0.1", "0.12.1",
    ];
    let onnxruntime_gpu = [
        "1.14.0", "1.15.0", "1.16.0", "1.17.0", "1.18.0", "1.19.0", "1.20.0", "1.21.0", "1.22.0",
        "1.23.0", "1.24.1", "1.25.0", "1.26.0", "1.27.0", "1.28.0", "1.29.0", "1.30.0", "1.31.0",
    ];
    let paddle: &[(&str, &[&str])] = &[
        ("2.4.2", &["default", "post112", "post116", "post117"]),
        (
            "2.5.2",
            &[
                "default", "post102", "post112", "post116", "post117", "post120",
            ],
        ),
        (
            "2.6.2",
            &["default", "post112", "post116", "post117", "post120"],
        ),
        ("3.0.0b1", &["cu123"]),
        ("3.0.0", &["cu118", "cu126"]),
        ("3.1.0", &["cu118", "cu126", "cu129"]),
        ("3.2.0", &["cu118", "cu126", "cu129"]),
        ("3.3.0", &["cu118", "cu126", "cu129", "cu130"]),
        ("3.4.0", &["cu126", "cu129", "cu130"]),
    ];

    let mut builds: Vec<(&str, Framework, &str, &str)> = Vec::new();
    for (release, tags) in torch {
        for tag in *tags {
            builds.push(("PyTorch", Framework::Pytorch, release, tag));
        }
    }
    for release in tensorflow {
        builds.push(("TensorFlow", Framework::Tensorflow, release, "default"));
    }
    for release in jaxlib_monolithic {
        if version(release) <= version("0.4.25") {
            builds.push(("JAX", Framework::Jax, release, "cuda11"));
        }
        if version(release) >= version("0.4.7") {
            builds.push(("JAX", Framework::Jax, release, "cuda12"));
        }
    }
    for (list, tag) in [
        (&jax_cuda11_plugin[..], "cuda11"),
        (&jax_cuda12_plugin[..], "cuda12"),
        (&jax_cuda13_plugin[..], "cuda13"),
    ] {
        for release in list {
            builds.push(("JAX", Framework::Jax, release, tag));
        }
    }
    for release in onnxruntime_gpu {
        builds.push(("ONNX Runtime", Framework::Onnxruntime, release, "default"));
    }
    for (release, tags) in paddle {
        for tag in *tags {
            builds.push(("Paddle", Framework::Paddlepaddle, release, tag));
        }
    }

    let mut missing = Vec::new();
    let mut report = String::new();
    for family in ["PyTorch", "TensorFlow", "JAX", "ONNX Runtime", "Paddle"] {
        let of: Vec<_> = builds.iter().filter(|b| b.0 == family).collect();
        let without: Vec<_> = of
            .iter()
            .filter(|(_, fw, release, tag)| m.framework(*fw, release, tag).is_none())
            .map(|(_, _, release, tag)| format!("{release} {tag}"))
            .collect();
        report += &format!(
            "{family}: {} of {} ({:?})\n",
            of.len() - without.len(),
            of.len(),
            without
        );
        missing.extend(without);
    }
    let covered = builds.len() - missing.len();
    report += &format!("all: {covered} of {}\n", builds.len());
    eprint!("{report}");
    assert!(
        covered * 100 >= builds.len() * 95,
        "framework builds since 2023 with a row:\n{report}"
    );
}

#[test]
fn jaxs_start_check_by_release_and_the_builds_it_compares() {
    let m = m();
    let row = |jax: &str| {
        let rows: Vec<_> = m.start_check.iter().filter(|r| r.matches(jax)).collect();
        assert_eq!(rows.len(), 1, "jax {jax}");
        rows[0]
    };
    // cuFFT whole in 0.4.17-0.4.18, without its patch from 0.4.19; cuBLAS
    // and cuSPARSE from 0.4.21; nothing from 0.4.26 (absolute floors).
    assert_eq!(row("0.4.18").compares["cufft"], 3);
    assert_eq!(row("0.4.19").compares["cufft"], 2);
    assert!(!row("0.4.20").compares.contains_key("cublas"));
    assert_eq!(row("0.4.25").compares["cusparse"], 2);
    for jax in ["0.4.16", "0.4.26"] {
        assert!(!m.start_check.iter().any(|r| r.matches(jax)), "jax {jax}");
    }
    // The builds' versions: read for 0.4.22-0.4.25, not before.
    let built = |release: &str, tag: &str| m.framework(Framework::Jax, release, tag).unwrap();
    assert_eq!(built("0.4.23", "cuda12").libraries["cufft"], "11.0.8");
    assert_eq!(built("0.4.24", "cuda12").cuda, "12.3");
    assert_eq!(built("0.4.25", "cuda12").libraries["cupti"], "12.3");
    assert_eq!(built("0.4.22", "cuda11").libraries["cusolver"], "11.4.1");
    assert!(built("0.4.21", "cuda12").libraries.is_empty());
    assert!(built("0.4.26", "cuda12").libraries.is_empty());
    // A row must compare something, at one to three parts.
    let bad = "[[start_check]]\ndistribution = \"jax\"\nversions = \">=0.4.17,<0.4.19\"\n\
               build = \"jaxlib\"\nmodule = \"jaxlib/cuda/_versions\"\n\
               compares = { cudart = 4 }\nrefuses = \"x\"\nsource = \"test\"\n";
    assert!(parse(bad).is_err());
    assert!(parse(&bad.replace("cudart = 4", "cudart = 2")).is_ok());
    assert!(parse(&bad.replace("jaxlib/cuda", "/jaxlib/cuda")).is_err());
}
