//! GPU model names to rows of the `[[gpu]]` table: whole model names
//! compared as tokens, as nvidia-smi prints them and as people type them,
//! and the nearest names for one the table does not know.

use super::{Gpu, Matrix};

impl Matrix {
    /// The GPU model a name matches: the first row one of whose `match`
    /// entries has the same model tokens as `name` (see [`model_tokens`]).
    /// Whole names only, so `NVIDIA RTX A1000` is not an A100, `NVIDIA
    /// Jetson T4000` not a T4, `NVIDIA A10` not an A100 and `NVIDIA L4`
    /// not an L40S. `None` for a model the table does not list.
    pub fn gpu_by_name(&self, name: &str) -> Option<&Gpu> {
        let want = model_tokens(name);
        if want.is_empty() {
            return None;
        }
        // Token for token first; then the tokens run together, as people
        // write them (`RTX4090`, `rtx 4090`).
        self.gpu
            .iter()
            .find(|g| g.matches.iter().any(|m| model_tokens(m) == want))
            .or_else(|| {
                let joined = want.concat();
                self.gpu
                    .iter()
                    .find(|g| g.matches.iter().any(|m| model_tokens(m).concat() == joined))
            })
    }

    /// The GPU names nearest to `name` (at most three, by edit distance on
    /// the model tokens run together, `A10O` -> `A100`): what `--gpu`
    /// suggests for a name it does not know.
    pub fn gpus_near(&self, name: &str) -> Vec<String> {
        let joined = model_tokens(name).concat();
        if joined.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(usize, &String)> = self
            .gpu
            .iter()
            .flat_map(|g| g.matches.iter())
            .map(|m| (strsim::levenshtein(&model_tokens(m).concat(), &joined), m))
            .filter(|(d, m)| *d <= 2.max(m.len() / 4))
            .collect();
        scored.sort_by_key(|(d, _)| *d);
        scored.into_iter().take(3).map(|(_, m)| m.clone()).collect()
    }
}

/// Words of a GPU name that say who sells it, not which model it is.
const BRAND_TOKENS: &[&str] = &["NVIDIA", "TESLA", "GEFORCE", "QUADRO"];

/// Words of a GPU name that describe memory, form factor or a variant with
/// the same chip (and so the same compute capability): `NVIDIA H100 NVL`,
/// `NVIDIA GeForce RTX 4060 Laptop GPU`, `RTX 4070 Ti SUPER`, `RTX 4090 D`,
/// `NVIDIA RTX 6000 Ada Generation`, `... Max-Q Workstation Edition`, MIG
/// slices, `Orin (nvgpu)`. Sizes (`80GB`), `SXM*` and `HBM*` are matched by
/// [`is_detail_token`].
const DETAIL_TOKENS: &[&str] = &[
    "PCIE",
    "NVL",
    "SFF",
    "MIG",
    "LAPTOP",
    "MOBILE",
    "GPU",
    "MAX",
    "Q",
    "MAXQ",
    "WORKSTATION",
    "SERVER",
    "EDITION",
    "GENERATION",
    "TI",
    "SUPER",
    "D",
    "OEM",
    "NVGPU",
    // nvidia-smi's "NVIDIA B300 SXM6 AC" (the air-cooled board; data
    // audit 2026-12-04 N11).
    "AC",
];

/// Whether an upper-case token of a GPU name is a memory, form-factor or
/// variant word rather than part of the model name.
fn is_detail_token(t: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    DETAIL_TOKENS.contains(&t)
        || ["GB", "MB", "G"]
            .iter()
            .any(|unit| t.strip_suffix(unit).is_some_and(digits))
        || t.strip_prefix("SXM")
            .is_some_and(|r| r.is_empty() || digits(r))
        || t.strip_prefix("HBM").is_some_and(|r| {
            let r = r.strip_suffix('E').unwrap_or(r);
            r.is_empty() || digits(r)
        })
}

/// The model tokens of a GPU name: split on anything but ASCII letters and
/// digits, upper-cased, without brand and detail words. `NVIDIA
/// A100-SXM4-80GB` -> `[A100]`, `NVIDIA GeForce RTX 4090` -> `[RTX, 4090]`,
/// `NVIDIA RTX A1000` -> `[RTX, A1000]`, `NVIDIA Jetson T4000` -> `[JETSON,
/// T4000]`, `Quadro RTX 8000` -> `[RTX, 8000]`.
pub(super) fn model_tokens(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_ascii_uppercase)
        .filter(|t| !BRAND_TOKENS.contains(&t.as_str()) && !is_detail_token(t))
        .collect()
}
