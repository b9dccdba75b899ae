use super::*;

#[test]
fn shipped_catalog_is_consistent() {
    let cat = Catalog::parse(PACKAGES_TOML).unwrap();
    let libs: Vec<&str> = cat.libraries.iter().map(|r| r.lib.as_str()).collect();
    for row in cat.conda_rows().chain(cat.pip_rows()) {
        assert!(!row.source.trim().is_empty(), "{} has no source", row.name);
        match row.role {
            Role::CudaLibrary => {
                let lib = row
                    .lib
                    .as_deref()
                    .unwrap_or_else(|| panic!("{} needs lib", row.name));
                assert!(libs.contains(&lib), "{}: unknown lib {lib}", row.name);
            }
            Role::Framework | Role::FrameworkLibrary | Role::FrameworkExtension => {
                assert!(row.framework.is_some(), "{} needs framework", row.name)
            }
            _ => assert!(row.lib.is_none() && row.framework.is_none(), "{}", row.name),
        }
    }
    for row in &cat.libraries {
        assert!(!row.source.trim().is_empty(), "{} has no source", row.stem);
    }
}

#[test]
fn pip_suffixes_give_the_cuda_major() {
    let cat = &*CATALOG;
    let (row, major) = cat.pip("nvidia-cuda-runtime-cu12").unwrap();
    assert_eq!((row.lib.as_deref(), major), (Some("cudart"), Some(12)));
    let (_, major) = cat.pip("nvidia-cuda-runtime").unwrap();
    assert_eq!(major, None);
    assert_eq!(cat.pip("nvidia-cudnn-cu13").unwrap().1, Some(13));
    assert!(cat.pip("nvidia-cudnn-cuda").is_none());
    assert!(cat.pip("numpy").is_none());
}

#[test]
fn tensorrt_wheels_give_the_cuda_major_before_their_last_part() {
    let cat = &*CATALOG;
    let (row, major) = cat.pip("tensorrt-cu12-libs").unwrap();
    assert_eq!((row.name.as_str(), major), ("tensorrt-libs", Some(12)));
    assert_eq!(row.lib.as_deref(), Some(TENSORRT));
    assert_eq!(cat.pip("tensorrt-cu13-libs").unwrap().1, Some(13));
    assert_eq!(cat.pip("tensorrt-libs").unwrap().1, None);
    let (row, major) = cat.pip("tensorrt-cu12").unwrap();
    assert_eq!((row.name.as_str(), major), ("tensorrt", Some(12)));
    assert_eq!(cat.pip("tensorrt").unwrap().1, None);
    let (row, major) = cat.pip("tensorrt-lean-cu12-libs").unwrap();
    assert_eq!((row.name.as_str(), major), ("tensorrt-lean-libs", Some(12)));
    // No row for the bindings; a suffix that is no number is none.
    assert!(cat.pip("tensorrt-cu12-bindings").is_none());
    assert!(cat.pip("tensorrt-cuda-libs").is_none());
    assert!(cat.pip("tensorrt-cu-libs").is_none());
}

#[test]
fn tensorrt_libraries_are_optional_and_exposed() {
    let cat = &*CATALOG;
    for name in [
        "libnvinfer.so.10",
        "libnvinfer_plugin.so.8",
        "libnvonnxparser.so.10",
        "libnvinfer_lean.so.11",
        "libnvparsers.so.8",
    ] {
        assert_eq!(cat.library_component(name), Some(TENSORRT), "{name}");
        assert!(cat.is_exposed(name), "{name}");
        assert!(cat.optional_use(name).is_some(), "{name}");
    }
    assert_eq!(
        cat.conda_package_for(TENSORRT, Some(12)).as_deref(),
        Some("libnvinfer")
    );
}

#[test]
fn onnxruntime_tensorrt_provider_is_an_optional_object() {
    let cat = &*CATALOG;
    let f = Framework::Onnxruntime;
    assert_eq!(
        cat.core_library_rank(f, "libonnxruntime_providers_cuda.so"),
        Some(0)
    );
    assert_eq!(
        cat.core_library_rank(f, "libonnxruntime_providers_tensorrt.so"),
        Some(1)
    );
    assert!(
        cat.core_library_use(f, "libonnxruntime_providers_tensorrt.so")
            .is_some_and(|u| u.contains("TensorrtExecutionProvider"))
    );
    assert_eq!(
        cat.core_library_use(f, "libonnxruntime_providers_cuda.so"),
        None
    );
}

#[test]
fn packages_for_components() {
    let cat = &*CATALOG;
    assert_eq!(
        cat.conda_package_for("cudart", Some(12)).as_deref(),
        Some("cuda-cudart")
    );
    assert_eq!(
        cat.conda_package_for("cudart", Some(11)).as_deref(),
        Some("cudatoolkit")
    );
    assert_eq!(
        cat.conda_package_for("curand", Some(12)).as_deref(),
        Some("libcurand")
    );
    assert_eq!(
        cat.conda_package_for("nvrtc", None).as_deref(),
        Some("cuda-nvrtc")
    );
    assert_eq!(
        cat.conda_package_for("cudnn", Some(11)).as_deref(),
        Some("cudnn")
    );
    assert_eq!(
        cat.conda_package_for("nccl", Some(12)).as_deref(),
        Some("nccl")
    );
    assert_eq!(cat.conda_package_for("opencl", Some(12)), None);
}

#[test]
fn jax_core_objects_plugin_first_then_monolithic_jaxlib() {
    let cat = &*CATALOG;
    let rank = |f: &str| cat.core_library_rank(Framework::Jax, f);
    assert_eq!(rank("xla_cuda_plugin.so"), Some(0));
    assert_eq!(rank("xla_extension.so"), Some(1));
    assert_eq!(rank("_versions.so"), None);
}

#[test]
fn longest_library_stem_wins() {
    let cat = &*CATALOG;
    assert_eq!(cat.library_component("libcublasLt.so.12"), Some("cublas"));
    assert_eq!(cat.library_component("libcudart.so.11.0"), Some("cudart"));
    assert_eq!(
        cat.library_component("libcudnn_ops_infer.so.8"),
        Some("cudnn")
    );
    assert_eq!(
        cat.library_component("libcusparseLt.so.0"),
        Some("cusparselt")
    );
    assert_eq!(cat.library_component("libcuda.so"), Some("driver"));
    assert_eq!(cat.library_component("libssl.so.3"), None);
}

/// The symbols torchvision 0.22.0 needs and torch 2.6.0 lacks, and
/// xformers 0.0.28.post3's (PyPI wheels, `nm -D`), and some that are
/// not torch's.
#[test]
fn torch_namespaces_by_their_mangled_names() {
    let torch = CATALOG.framework_abi(Framework::Pytorch).unwrap();
    for s in [
        "_ZNK5torch8autograd4Node4nameB5cxx11Ev",
        "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
        "_ZTHN3c104impl26raw_local_dispatch_key_setE",
        "_ZN2at4_ops3add4callERKNS_6TensorES4_RKN3c106ScalarE",
        "_ZTVN5torch8autograd4NodeE",
        "_ZN2at18TensorIteratorBaseC2Ev",
    ] {
        assert!(torch.owns_symbol(s), "{s}");
    }
    for s in [
        "PyLong_FromLong",
        "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
        "_ZN5boost3fooEv",
        "_Z3fooi",
        "_ZN3c1",
        "_ZN4c10x3fooEv",
        "_ZN12atomic_thing3fooEv",
    ] {
        assert!(!torch.owns_symbol(s), "{s}");
    }
    let tf = CATALOG.framework_abi(Framework::Tensorflow).unwrap();
    assert!(tf.owns_symbol("_ZN10tensorflow8OpKernelD2Ev"));
    assert!(tf.owns_symbol("_ZNK3tsl6Status8ToStringEv"));
    assert!(!tf.owns_symbol("_ZN4absl12lts_202308028StrCatEv"));
    assert!(tf.is_library("libtensorflow_framework.so.2"));
    assert!(torch.is_library("libtorch_cpu.so") && !torch.is_library("libcudart.so.12"));
}

#[test]
fn the_cuda_is_written_as_bitsandbytes_writes_it() {
    let row = PickedLibraryRow {
        name: "bitsandbytes".into(),
        framework: Framework::Pytorch,
        files: vec!["libbitsandbytes_cuda{cuda}.so".into()],
        digits_from: None,
        source: String::new(),
    };
    assert_eq!(row.files_for("11.8"), ["libbitsandbytes_cuda118.so"]);
    assert_eq!(row.files_for("12.4"), ["libbitsandbytes_cuda124.so"]);
    assert_eq!(row.files_for("12"), ["libbitsandbytes_cuda120.so"]);
}

#[test]
fn every_variable_a_picked_row_reads_is_documented() {
    let cat = Catalog::parse(PACKAGES_TOML).unwrap();
    for row in &cat.picked {
        if let Some(var) = &row.digits_from {
            assert!(
                crate::env_vars::DOCUMENTED
                    .iter()
                    .any(|(name, _)| name == var),
                "{var} is read for {} but not in env_vars::DOCUMENTED",
                row.name
            );
        }
    }
}
