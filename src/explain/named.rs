//! The libraries JAX's start-up check names in "Unable to load cuSPARSE.
//! Is it installed?" (jax-ml/jax jax/_src/xla_bridge.py `_version_check`
//! at jax-v0.4.36, later jax_plugins/xla_cuda12/__init__.py), read as
//! catalogue components so that each is answered like cuDNN and cuBLAS.

use crate::data::catalog::CATALOG;

/// The most components one paste is answered for: JAX checks seven.
const MAX_COMPONENTS: usize = 8;
/// The longest component name read ("cusparselt" is 10).
const MAX_NAME: usize = 16;

/// The catalogue components a lower-cased message names in JAX's "Unable
/// to load {name}. Is it installed?" (`cusparse`, `cufft`; `cudart` for
/// "CUDA"), each once, in order. A name JAX checks today or adds later is
/// read the same way, as long as the catalogue knows its library.
pub fn components(lower: &str) -> Vec<String> {
    const BEFORE: &str = "unable to load ";
    const AFTER: &str = ". is it installed?";
    let mut out: Vec<String> = Vec::new();
    for (at, _) in lower.match_indices(BEFORE) {
        let rest = &lower[at + BEFORE.len()..];
        // The name is one short word directly before the question: only
        // that many characters are looked at, so that a paste of many
        // "unable to load " stays linear.
        let window = rest
            .char_indices()
            .nth(MAX_NAME + AFTER.len())
            .map_or(rest, |(i, _)| &rest[..i]);
        let Some(end) = window.find(AFTER) else {
            continue;
        };
        let name = &rest[..end];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let component = if name == "cuda" {
            Some("cudart")
        } else {
            CATALOG
                .library_component(&format!("lib{name}.so"))
                .filter(|c| *c == name)
        };
        if let Some(c) = component.filter(|c| !out.iter().any(|o| o == c)) {
            out.push(c.to_string());
            if out.len() == MAX_COMPONENTS {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jax-ml/jax jax/_src/xla_bridge.py at jax-v0.4.36: the names its
    /// `_version_check` calls pass.
    #[test]
    fn the_names_jax_checks() {
        let msg = [
            "CUDA", "cuDNN", "cuFFT", "cuSOLVER", "cuPTI", "cuBLAS", "cuSPARSE",
        ]
        .map(|n| format!("Unable to load {n}. Is it installed?\n"))
        .concat()
        .to_lowercase();
        assert_eq!(
            components(&msg),
            [
                "cudart", "cudnn", "cufft", "cusolver", "cupti", "cublas", "cusparse"
            ]
        );
        // Repeated, unknown, or not a name.
        assert_eq!(
            components(
                "unable to load cufft. is it installed? unable to load cufft. is it installed?"
            ),
            ["cufft"]
        );
        assert!(components("unable to load libfoo. is it installed?").is_empty());
        assert!(components("unable to load the cuda libraries. is it installed?").is_empty());
        assert!(components(&"unable to load ".repeat(10_000)).is_empty());
    }
}
