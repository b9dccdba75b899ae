//! torch's "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not
//! compatible with the current PyTorch installation. The current PyTorch
//! install supports CUDA capabilities sm_50 sm_60 ..." (torch/cuda/
//! __init__.py, `_check_cubins`): the warning names the GPU, its
//! capability and the architectures of the torch that printed it. The GPU
//! is the machine explain measures the environment against (the message
//! shows it, whatever envhook sees here), and the list is said beside the
//! environment's own, never contradicted.

use super::answer::Answer;
use crate::machine::driver::GpuInfo;

/// What the warning states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stated {
    /// The GPU as torch names it (`NVIDIA GeForce RTX 5090`), when the
    /// line has one.
    pub name: Option<String>,
    /// Its capability as `sm_XY` digits (`120`).
    pub sm: String,
    /// The architectures the torch that printed it carries
    /// (`sm_50 ... sm_90`, `compute_90`), as listed.
    pub supports: Vec<String>,
}

/// A GPU name longer than this is not one (the line was garbled).
const MAX_GPU_NAME: usize = 96;
/// torch lists a dozen architectures; a longer list is cut here.
const MAX_LISTED: usize = 32;

const WITH: &str = " with cuda capability sm_";
const SUPPORTS: &str = "supports cuda capabilities ";

/// The GPU and list a pasted message states, from its first such warning
/// (several GPUs give several; explain answers the first). One pass over
/// the lower-cased message: a hostile paste costs its length.
pub fn stated(message: &str) -> Option<Stated> {
    // ASCII lower-casing keeps byte offsets, so the original's name can be
    // cut at the same place.
    let lower = message.to_ascii_lowercase();
    let at = lower.find(WITH)?;
    let rest = &lower[at + WITH.len()..];
    let sm: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if !(2..=3).contains(&sm.len()) {
        return None;
    }
    let supports = lower[at..]
        .find(SUPPORTS)
        .map(|i| list(&lower[at + i + SUPPORTS.len()..]))
        .unwrap_or_default();
    Some(Stated {
        name: gpu_name(&message[..at]),
        sm,
        supports,
    })
}

/// The GPU's name: the end of the line before " with CUDA capability",
/// after any logger's or warnings' prefix ("UserWarning: ", "Oct 04
/// 13:19:39 host unit\[394\]: ").
fn gpu_name(before: &str) -> Option<String> {
    let line = before.rsplit('\n').next().unwrap_or(before);
    let name = line.rsplit(": ").next().unwrap_or(line).trim();
    (!name.is_empty() && name.len() <= MAX_GPU_NAME).then(|| name.to_string())
}

/// `sm_50 sm_60 sm_90.` -> its architectures, up to the first word that
/// is not one.
fn list(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.trim_end_matches('.'))
        .take_while(|w| arch(w))
        .take(MAX_LISTED)
        .map(String::from)
        .collect()
}

fn arch(w: &str) -> bool {
    ["sm_", "compute_"].iter().any(|p| {
        w.strip_prefix(p).is_some_and(|d| {
            let d = d.trim_end_matches(['a', 'f']);
            !d.is_empty() && d.len() <= 3 && d.bytes().all(|b| b.is_ascii_digit())
        })
    })
}

impl Stated {
    /// Its compute capability, `12.0` for sm_120.
    pub fn cc(&self) -> String {
        let (major, minor) = self.sm.split_at(self.sm.len() - 1);
        format!("{major}.{minor}")
    }

    /// The GPU for check's architecture rules, labelled as the message
    /// names it.
    pub fn gpu(&self) -> GpuInfo {
        GpuInfo {
            name: Some(
                self.name
                    .clone()
                    .unwrap_or_else(|| format!("the GPU the message names (sm_{})", self.sm)),
            ),
            cc: Some(self.cc()),
            cc_source: Some(crate::machine::driver::CcSource::Message),
        }
    }

    /// The machine's GPUs with the message's added, where none of them
    /// has its capability: the message shows a GPU of that architecture,
    /// whatever envhook sees here or was given.
    pub fn adopt(&self, gpus: &mut Vec<GpuInfo>) {
        let cc = self.cc();
        if !gpus.iter().any(|g| g.cc.as_deref() == Some(cc.as_str())) {
            gpus.push(self.gpu());
        }
    }

    /// The answer about the GPUs, with what the message says of the torch
    /// that printed it.
    pub fn annotate(&self, a: &mut Answer) {
        if self.supports.is_empty() {
            return;
        }
        a.diagnosis.push_str(&format!(
            "; the torch that printed it has code for {}, none for sm_{}",
            self.supports.join(" "),
            self.sm
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The warning as https://github.com/Janrupf/stable-diffusion-webui-nix/issues/9
    /// shows it in a journal, each line behind the logger's prefix.
    #[test]
    fn journal_lines() {
        let msg = "Oct 04 13:19:39 llm sd-webui-forge-start[394]: NVIDIA GeForce RTX 5090 with \
                   CUDA capability sm_120 is not compatible with the current PyTorch \
                   installation.\nOct 04 13:19:39 llm sd-webui-forge-start[394]: The current \
                   PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 \
                   sm_86 sm_90.\n";
        let s = stated(msg).unwrap();
        assert_eq!(s.name.as_deref(), Some("NVIDIA GeForce RTX 5090"));
        assert_eq!((s.sm.as_str(), s.cc()), ("120", "12.0".to_string()));
        assert_eq!(
            s.supports,
            [
                "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"
            ]
        );
    }

    /// torch 1.x on an RTX 3090, after the warnings module's prefix, as
    /// https://github.com/pytorch/pytorch/issues/51850 shows it; and
    /// what is not a capability.
    #[test]
    fn older_torch_and_garbage() {
        let msg = ".../torch/cuda/__init__.py:104: UserWarning: \nGeForce RTX 3090 with CUDA \
                   capability sm_86 is not compatible with the current PyTorch installation.\nThe \
                   current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_61 \
                   sm_70 sm_75 compute_37.";
        let s = stated(msg).unwrap();
        assert_eq!(s.name.as_deref(), Some("GeForce RTX 3090"));
        assert_eq!(s.cc(), "8.6");
        assert_eq!(s.supports.last().map(String::as_str), Some("compute_37"));
        assert_eq!(stated("with CUDA capability sm_ is not"), None);
        assert_eq!(stated("with CUDA capability sm_12345"), None);
        let long = format!("{} with CUDA capability sm_90", "x".repeat(200));
        assert_eq!(stated(&long).unwrap().name, None);
    }
}
