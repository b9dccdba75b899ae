//! Version numbers as messages write them, decoded (#29): torch's "found
//! version 12020" is the CUDA driver API version the driver supports
//! (major = v / 1000, minor = v % 1000 / 10: CUDA 12.2); JAX's cuDNN
//! versions are major*1000+minor*100+patch before cuDNN 9 (8600 is 8.6.0)
//! and major*10000+minor*100+patch from 9 on (90100 is 9.1.0); XLA writes
//! them out (8.6.0). A leaf: [`super::clues`] reads them, [`super::decode`]
//! answers them, and both compare them at the precision they are written.

use crate::data::matrix::{major, major_minor, version};

/// `a` is older than `b`, by major and minor; by major alone where either
/// states only its major (Paddle's "CUDA10/cuDNN7"): "11" is not older
/// than "11.8".
pub fn older(a: &str, b: &str) -> bool {
    if !a.contains('.') || !b.contains('.') {
        return major(a).zip(major(b)).is_some_and(|(a, b)| a < b);
    }
    version(&major_minor(a)) < version(&major_minor(b))
}

/// `a` is `b` at the precision of the less precise: "12.2" is "12".
pub fn same(a: &str, b: &str) -> bool {
    !older(a, b) && !older(b, a)
}

/// The versions a message states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    /// `driver` (the CUDA the driver supports) or a catalogue component.
    pub component: String,
    /// The version the process found.
    pub found: String,
    /// The version the framework was built against, when it says.
    pub built: Option<String>,
}

/// Human names of components, for sentences.
pub fn component_name(c: &str) -> &str {
    match c {
        "cudart" => "CUDA runtime",
        "cudnn" => "cuDNN",
        "cublas" => "cuBLAS",
        "nccl" => "NCCL",
        "cupti" => "CUPTI",
        "cufft" => "cuFFT",
        "cusolver" => "cuSOLVER",
        "cusparse" => "cuSPARSE",
        "nvjitlink" => "nvJitLink",
        "driver" => "NVIDIA driver",
        "ptxas" => "ptxas",
        other => other,
    }
}

/// `12020` -> `12.2`: a CUDA API version (`cudaDriverGetVersion`,
/// `cudaRuntimeGetVersion`).
pub fn cuda_api(v: u32) -> String {
    format!("{}.{}", v / 1000, v % 1000 / 10)
}

/// `8600` -> `8.6.0`, `90100` -> `9.1.0`: a cuDNN version as
/// `cudnnGetVersion` returns it.
pub fn cudnn(v: u32) -> String {
    if v >= 10000 {
        format!("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100)
    } else {
        format!("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100)
    }
}

/// `11008` -> `11.0.8`: a cuFFT, cuSOLVER or cuSPARSE version as their
/// `GetVersion`/`GetProperty` calls give it (major*1000+minor*100+patch).
fn thousands(v: u32) -> String {
    format!("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100)
}

/// torch's ", NCCL version X.Y.Z" as NCCL 2.x: torch before 1.10 split
/// NCCL_VERSION_CODE (major*10000+minor*100+patch from NCCL 2.9 on) by
/// the older rule (code/1000, code%1000/100, code%100), so NCCL 2.10.3
/// (21003) printed as "21.0.3"; a real NCCL major is 2.
fn nccl(found: &str) -> String {
    let parts: Vec<u32> = found.split('.').map_while(|p| p.parse().ok()).collect();
    match parts[..] {
        [a, b, c] if a >= 20 && b < 10 && c < 100 => {
            let code = a * 1000 + b * 100 + c;
            format!("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100)
        }
        _ => found.to_string(),
    }
}

/// `120100` -> `12.1.0`: a cuBLAS version (`cublasGetVersion`).
fn cublas(v: u32) -> String {
    format!("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100)
}

/// The longest version number read from a message: real ones are short
/// (`2.19.3`, `90100`); a longer run of digits is no version, and is
/// never echoed.
const MAX_NUMBER: usize = 32;

/// The number (digits and dots) right after `key` in `text`.
/// The versions jax's check of jaxlib states (jax/_src/lib/__init__.py
/// `check_jaxlib_version`): "jaxlib version X is newer than and
/// incompatible with jax version Y" gives jaxlib X and jax Y; "jaxlib is
/// version X, but this version of jax requires version >= M" gives jaxlib
/// X and the minimum M.
pub struct JaxPair {
    /// jax's version, where the message says it.
    pub jax: Option<String>,
    /// jaxlib's.
    pub jaxlib: String,
    /// The least jaxlib that jax accepts, where the message says it.
    pub minimum: Option<String>,
}

/// [`JaxPair`] from a lower-cased message.
pub fn jax_pair(lower: &str) -> Option<JaxPair> {
    if let Some(jaxlib) = after(lower, "jaxlib version ") {
        return Some(JaxPair {
            jax: Some(after(lower, "incompatible with jax version ")?.to_string()),
            jaxlib: jaxlib.to_string(),
            minimum: None,
        });
    }
    Some(JaxPair {
        jax: None,
        jaxlib: after(lower, "jaxlib is version ")?.to_string(),
        minimum: Some(after(lower, "of jax requires version >= ")?.to_string()),
    })
}

fn after<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(rest.len());
    let n = rest[..end].trim_end_matches('.');
    (!n.is_empty() && n.len() <= MAX_NUMBER).then_some(n)
}

/// The versions a message carries, read the way `decode` names
/// (`data/explain.toml`), from its lower-cased text: one component's,
/// or each of the components one message states (Paddle's
/// "CUDA11/cuDNN8").
pub fn versions(decode: &str, lower: &str) -> Vec<Versions> {
    match decode {
        "paddle-cuda-cudnn" => paddle_cuda_cudnn(lower).unwrap_or_default(),
        _ => one(decode, lower).into_iter().collect(),
    }
}

/// Paddle's error where both the driver's CUDA major and the loaded
/// cuDNN's major are below the build's (paddle/phi/backends/gpu/
/// gpu_resources.cc, `PADDLE_ENFORCE_EQ`): "The installed Paddle is
/// compiled with CUDA11/cuDNN8,but CUDA/cuDNN version in your machine is
/// CUDA10/cuDNN7." Paddle's "CUDA ... in your machine" is
/// `cudaDriverGetVersion`'s, the driver's; each number is a major.
fn paddle_cuda_cudnn(lower: &str) -> Option<Vec<Versions>> {
    let built = &lower[lower.find("compiled with cuda")?..];
    let machine = &built[built.find("version in your machine is ")?..];
    let built_cudnn = after(built, "/cudnn")?;
    let driver = after(machine, "cuda")?;
    let found_cudnn = after(machine, "/cudnn")?;
    Some(vec![
        Versions {
            component: "driver".to_string(),
            found: driver.to_string(),
            built: None,
        },
        Versions {
            component: "cudnn".to_string(),
            found: found_cudnn.to_string(),
            built: Some(built_cudnn.to_string()),
        },
    ])
}

/// The versions of a message that states one component's.
fn one(decode: &str, lower: &str) -> Option<Versions> {
    let clue = |component: &str, found: String, built: Option<String>| Versions {
        component: component.to_string(),
        found,
        built,
    };
    match decode {
        "driver-api" => {
            let v = after(lower, "found version ")?.parse().ok()?;
            Some(clue("driver", cuda_api(v), None))
        }
        "jax" => {
            // "Found cuDNN version 8600, but JAX was built against version 8900"
            let name = lower.split("found ").nth(1)?.split(" version").next()?;
            let found: u32 = after(lower, &format!("found {name} version "))?
                .parse()
                .ok()?;
            let built: u32 = after(lower, "built against version ")?.parse().ok()?;
            let (component, read): (&str, fn(u32) -> String) = match name {
                "cudnn" => ("cudnn", cudnn),
                "cuda" => ("cudart", cuda_api),
                "cublas" => ("cublas", cublas),
                "cufft" => ("cufft", thousands),
                "cusolver" => ("cusolver", thousands),
                "cusparse" => ("cusparse", thousands),
                _ => return None,
            };
            Some(clue(component, read(found), Some(read(built))))
        }
        "jax-outdated" => {
            let built = after(lower, "version jax was built against: ")?
                .parse()
                .ok()?;
            let found = after(lower, "installed version: ")?.parse().ok()?;
            Some(clue("cudnn", cudnn(found), Some(cudnn(built))))
        }
        "nccl" => {
            // torch's "..., NCCL version 2.19.3" (a build suffix may follow).
            let found = after(lower, ", nccl version ")?;
            Some(clue("nccl", nccl(found), None))
        }
        "xla-ptxas" => {
            // "The NVIDIA driver's CUDA version is 12.2 which is older
            // than the ptxas CUDA version (12.3.107)."
            // Later: "... older than the PTX compiler version 12.5.82."
            let found = after(lower, "older than the ptxas cuda version (")
                .or_else(|| after(lower, "older than the ptx compiler version "))?;
            Some(clue("ptxas", found.to_string(), None))
        }
        "xla-ptxas-old" => {
            // "You are using ptxas 10.1.243, which is older than 11.1."
            let found = after(lower, "you are using ptxas ")?;
            let floor = after(lower, ", which is older than ")?;
            Some(clue("ptxas", found.to_string(), Some(floor.to_string())))
        }
        "paddle-cuda" => {
            // "The installed Paddle is compiled with CUDA 11.8, but CUDA
            // runtime version in your machine is 11.2": Paddle computes
            // that "runtime version" from cudaDriverGetVersion, so it is
            // the CUDA the driver supports.
            let built = after(lower, "compiled with cuda ")?;
            let found = after(lower, "cuda runtime version in your machine is ")?;
            Some(clue("driver", found.to_string(), Some(built.to_string())))
        }
        "paddle-cudnn" => {
            // "The installed Paddle is compiled with CUDNN 9.9, but CUDNN
            // version in your machine is 9.5, which may cause ..."
            let built = after(lower, "compiled with cudnn ")?;
            let found = after(lower, "cudnn version in your machine is ")?;
            Some(clue("cudnn", found.to_string(), Some(built.to_string())))
        }
        "xla-cudnn" => {
            let found = after(lower, "loaded runtime cudnn library: ")?;
            let built = after(lower, "but source was compiled with: ")?;
            Some(clue("cudnn", found.to_string(), Some(built.to_string())))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_api_and_cudnn_versions() {
        assert_eq!(cuda_api(12020), "12.2");
        assert_eq!(cuda_api(11080), "11.8");
        assert_eq!(cuda_api(13000), "13.0");
        assert_eq!(cudnn(8600), "8.6.0");
        assert_eq!(cudnn(8904), "8.9.4");
        assert_eq!(cudnn(90100), "9.1.0");
        assert_eq!(cudnn(91002), "9.10.2");
        assert_eq!(cublas(120100), "12.1.0");
        let v = |d: &str, m: &str| versions(d, &m.to_lowercase()).into_iter().next();
        assert_eq!(
            v(
                "driver-api",
                "The NVIDIA driver on your system is too old (found version 12020). Please update"
            ),
            Some(Versions {
                component: "driver".into(),
                found: "12.2".into(),
                built: None
            })
        );
        assert_eq!(
            v(
                "jax",
                "Found cuDNN version 8600, but JAX was built against version 8900, which is newer."
            ),
            Some(Versions {
                component: "cudnn".into(),
                found: "8.6.0".into(),
                built: Some("8.9.0".into())
            })
        );
        assert_eq!(
            v(
                "jax",
                "Found cuFFT version 11002, but JAX was built against version 11008, which is newer."
            ),
            Some(Versions {
                component: "cufft".into(),
                found: "11.0.2".into(),
                built: Some("11.0.8".into())
            })
        );
        assert!(matches!(
            v("jax", "Found cuSPARSE version 12003, but JAX was built against version 12102, which is newer."),
            Some(Versions { component, found, built: Some(built) })
                if component == "cusparse" && found == "12.0.3" && built == "12.1.2"
        ));
        // CUPTI's API number is no version: nothing to decode.
        assert_eq!(
            v(
                "jax",
                "Found cuPTI version 18, but JAX was built against version 20, which is newer."
            ),
            None
        );
        assert!(matches!(
            v("jax", "Found CUDA version 12010, but JAX was built against version 12020, which is newer."),
            Some(Versions { component, found, .. }) if component == "cudart" && found == "12.1"
        ));
        assert_eq!(
            v(
                "jax-outdated",
                "Outdated cuDNN installation found.\nVersion JAX was built against: 90100\nMinimum supported: 901\nInstalled version: 8600"
            ),
            Some(Versions {
                component: "cudnn".into(),
                found: "8.6.0".into(),
                built: Some("9.1.0".into())
            })
        );
        assert_eq!(
            v(
                "xla-cudnn",
                "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN"
            ),
            Some(Versions {
                component: "cudnn".into(),
                found: "8.6.0".into(),
                built: Some("8.9.4".into())
            })
        );
        assert_eq!(
            v(
                "paddle-cudnn",
                "W1207 gpu_resources.cc:164] WARNING: device: 0. The installed Paddle is compiled with CUDNN 9.9, but CUDNN version in your machine is 9.5, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version."
            ),
            Some(Versions {
                component: "cudnn".into(),
                found: "9.5".into(),
                built: Some("9.9".into())
            })
        );
        // Paddle's "CUDA runtime version in your machine" is the driver's
        // (gpu_resources.cc computes it from cudaDriverGetVersion).
        assert_eq!(
            v(
                "paddle-cuda",
                "W0801 gpu_resources.cc:119] WARNING: device: 0. The installed Paddle is compiled with CUDA 11.8, but CUDA runtime version in your machine is 11.4, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDA version."
            ),
            Some(Versions {
                component: "driver".into(),
                found: "11.4".into(),
                built: Some("11.8".into())
            })
        );
        assert_eq!(
            versions(
                "paddle-cuda-cudnn",
                &"InvalidArgumentError: The installed Paddle is compiled with CUDA11/cuDNN8,but CUDA/cuDNN version in your machine is CUDA10/cuDNN7. which will cause serious incompatible bug.".to_lowercase()
            ),
            [
                Versions {
                    component: "driver".into(),
                    found: "10".into(),
                    built: None
                },
                Versions {
                    component: "cudnn".into(),
                    found: "7".into(),
                    built: Some("8".into())
                }
            ]
        );
        assert!(versions("paddle-cuda-cudnn", "compiled with cuda11/cudnn8").is_empty());
        // XLA's two wordings of a ptxas newer than the driver, and its old
        // ptxas (openxla/xla nvptx_compiler.cc, asm_compiler.cc).
        for m in [
            "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.3.107). Because",
            "The NVIDIA driver's CUDA version is 12.4 which is older than the PTX compiler version 12.3.107. Because",
        ] {
            assert_eq!(
                v("xla-ptxas", m),
                Some(Versions {
                    component: "ptxas".into(),
                    found: "12.3.107".into(),
                    built: None
                })
            );
        }
        assert_eq!(
            v(
                "xla-ptxas-old",
                "*** WARNING *** You are using ptxas 11.0.221, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code"
            ),
            Some(Versions {
                component: "ptxas".into(),
                found: "11.0.221".into(),
                built: Some("11.1".into())
            })
        );
        // torch 1.9's split of NCCL_VERSION_CODE 21003 (NCCL 2.10.3).
        assert!(matches!(
            v("nccl", "unhandled cuda error, NCCL version 21.0.3"),
            Some(Versions { found, .. }) if found == "2.10.3"
        ));
        assert_eq!(nccl("2.19.3"), "2.19.3");
        assert_eq!(nccl("22.7.1"), "2.27.1");
        assert_eq!(v("driver-api", "too old (found version )"), None);
        assert_eq!(
            v(
                "nccl",
                "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:121, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"
            ),
            Some(Versions {
                component: "nccl".into(),
                found: "2.19.3".into(),
                built: None
            })
        );
    }
}
