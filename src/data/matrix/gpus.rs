//! GPU model names to rows of the `[[gpu]]` table: whole model names
//! compared as tokens, as nvidia-smi prints them and as people type them,
//! and the nearest names for one the table does not know.

use super::{Gpu, Matrix};
use crate::data::arch::Cc;

/// What a `--gpu` value names, by one rule: a compute capability written
/// as one (`sm_89`, `sm89`, `compute_89`, `8.9`) where the `[[arch]]`
/// table holds it; else a GPU's model number alone (`4090`, `4070 Ti`: the
/// RTX 4090, the RTX 4070), which wins over every reading as a compute
/// capability; else a bare two- or three-digit number that is a compute
/// capability without its dot (`86`, `120`); else a GPU name.
#[derive(Debug)]
pub enum GpuFlag<'m> {
    /// A compute capability the `[[arch]]` table holds.
    Cc(Cc),
    /// A GPU of the `[[gpu]]` table: its name (the table's for a model
    /// number, else as given), and its row.
    Model(String, &'m Gpu),
    /// A model number GPUs of different compute capabilities carry (`6000`:
    /// the Quadro RTX 6000, the RTX 6000 Ada, the RTX PRO 6000 Blackwell):
    /// each name with its row.
    Ambiguous(Vec<(&'m str, &'m Gpu)>),
    /// Nothing the data knows; the names like it, for the hint.
    Unknown(Vec<String>),
}

impl Matrix {
    /// What `--gpu VALUE` names (see [`GpuFlag`]).
    pub fn gpu_flag(&self, value: &str) -> GpuFlag<'_> {
        let lower = value.trim().to_ascii_lowercase();
        let known = |cc: Cc| self.arch.iter().any(|a| Cc::parse(&a.cc) == Some(cc));
        // sm_89, sm89, compute_89, 8.9: written as a compute capability.
        let sm = ["compute_", "sm_", "sm"]
            .iter()
            .find_map(|p| lower.strip_prefix(p))
            .filter(|d| d.len() >= 2 && d.bytes().all(|b| b.is_ascii_digit()));
        let written = match sm {
            Some(digits) => Some(digits.parse().ok().map(Cc::from_sm)),
            None if lower.contains('.')
                && lower.bytes().all(|b| b.is_ascii_digit() || b == b'.') =>
            {
                Some(Cc::parse(&lower))
            }
            None => None,
        };
        if let Some(cc) = written {
            return match cc.filter(|c| known(*c)) {
                Some(cc) => GpuFlag::Cc(cc),
                None => GpuFlag::Unknown(names(self.gpus_numbered(sm.unwrap_or_default()))),
            };
        }
        // A model number alone, with detail words at most (`4070 Ti SUPER`).
        if let [number] = model_tokens(value).as_slice()
            && number.bytes().all(|b| b.is_ascii_digit())
        {
            let rows = self.gpus_numbered(number);
            if let Some((name, gpu)) = rows.first()
                && rows.iter().all(|(_, g)| g.cc == gpu.cc)
            {
                return GpuFlag::Model(name.to_string(), gpu);
            }
            if !rows.is_empty() {
                return GpuFlag::Ambiguous(rows);
            }
            let as_sm = (2..=3)
                .contains(&lower.len())
                .then(|| lower.parse().ok().map(Cc::from_sm))
                .flatten()
                .filter(|c| known(*c));
            return match as_sm {
                Some(cc) => GpuFlag::Cc(cc),
                None => GpuFlag::Unknown(self.numbers_near(number)),
            };
        }
        match self.gpu_by_name(value) {
            Some(gpu) => GpuFlag::Model(value.to_string(), gpu),
            None => GpuFlag::Unknown(self.names_near(value)),
        }
    }

    /// The entries of the `[[gpu]]` table whose model number is `number`
    /// (a model token of digits alone: `RTX 4090`, `RTX 6000 Ada` for
    /// `6000`), each with its row, in the table's order.
    fn gpus_numbered(&self, number: &str) -> Vec<(&str, &Gpu)> {
        self.gpu
            .iter()
            .flat_map(|g| g.matches.iter().map(move |m| (m.as_str(), g)))
            .filter(|(m, _)| model_tokens(m).iter().any(|t| t == number))
            .collect()
    }

    /// Model numbers like `number` that the table holds: the same length
    /// and the same first two digits (`4091`: the RTX 4090, 4080, ...).
    fn numbers_near(&self, number: &str) -> Vec<String> {
        let Some(head) = number.get(..2) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for (name, _) in self
            .gpu
            .iter()
            .flat_map(|g| g.matches.iter().map(move |m| (m, g)))
        {
            let near = model_tokens(name).iter().any(|t| {
                t.len() == number.len()
                    && t.starts_with(head)
                    && t.bytes().all(|b| b.is_ascii_digit())
            });
            if near && out.len() < 6 && !out.contains(name) {
                out.push(name.clone());
            }
        }
        out
    }

    /// The names like a GPU name the table does not know: the nearest
    /// first (a typo: `A10O`), then those sharing a word with it.
    fn names_near(&self, value: &str) -> Vec<String> {
        let mut suggestions = self.gpus_near(value);
        let words: Vec<String> = value
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 2)
            .map(str::to_ascii_uppercase)
            .collect();
        for name in self.gpu.iter().flat_map(|g| g.matches.iter()) {
            let upper = name.to_ascii_uppercase();
            if suggestions.len() < 6
                && words.iter().any(|w| upper.contains(w.as_str()))
                && !suggestions.contains(name)
            {
                suggestions.push(name.clone());
            }
        }
        suggestions
    }

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
    fn gpus_near(&self, name: &str) -> Vec<String> {
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

/// The names of `rows`, once each.
fn names(rows: Vec<(&str, &Gpu)>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (name, _) in rows {
        if !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}
