//! The candidates clap's dynamic completion offers for `-n`, `--gpu` and
//! `man PAGE`, computed when the shell asks (environment names from the
//! same discovery as `envhook envs`, GPUs from this build's data). Here,
//! beside the definitions that name them, so that `cli` imports nothing
//! from `cmd`.

use std::ffi::OsString;

use clap_complete::CompletionCandidate;

use crate::discovery::{Context, Discovery};

/// `-n`: the names `-n` accepts, from the same discovery `envs` uses.
pub fn env_names() -> Vec<CompletionCandidate> {
    let ctx = Context::from_process();
    let discovery = Discovery::run(&ctx, &[]);
    let mut names: Vec<CompletionCandidate> = Vec::new();
    for env in &discovery.envs {
        if let Some(name) = &env.name
            && offerable(name)
            && !names.iter().any(|c| c.get_value() == name.as_str())
        {
            names.push(
                CompletionCandidate::new(name).help(Some(env.prefix.display().to_string().into())),
            );
        }
    }
    names
}

/// Whether a name can be one completion candidate: clap's shell scripts
/// separate candidates with control characters (bash with a vertical
/// tab, others with newlines), so a name holding one would be offered as
/// two. Such a name is typed, or given with `-p`.
fn offerable(name: &str) -> bool {
    !name.chars().any(char::is_control)
}

/// `--gpu`: each GPU of the built-in data by name (spaces as `-`, which
/// `--gpu` matches the same way, so the word needs no quoting), and each
/// compute capability as `sm_XY`; once digits are typed, the model numbers
/// `--gpu` takes alone (`4090`). What is typed matches without regard to
/// case, and each candidate starts with it as typed (`rtx-40` gives
/// `rtx-4090`), so that every shell's own prefix filter keeps it; `--gpu`
/// reads names and `sm_` in any case.
pub fn gpu_values(current: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    let Ok(matrix) = crate::data::matrix::Matrix::load(None) else {
        return Vec::new();
    };
    let typed = current.to_string_lossy();
    let numbers = typed.starts_with(|c: char| c.is_ascii_digit());
    let mut out: Vec<CompletionCandidate> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut offer = |value: String, help: String| {
        let Some(rest) = value
            .get(..typed.len())
            .filter(|head| head.eq_ignore_ascii_case(&typed))
            .map(|_| &value[typed.len()..])
        else {
            return;
        };
        let value = format!("{typed}{rest}");
        if seen.insert(value.clone()) {
            out.push(CompletionCandidate::new(value).help(Some(help.into())));
        }
    };
    for gpu in &matrix.gpu {
        let sm = format!("sm_{}", gpu.cc.replace('.', ""));
        offer(sm.clone(), format!("compute capability {}", gpu.cc));
        for name in &gpu.matches {
            offer(
                name.split_whitespace().collect::<Vec<_>>().join("-"),
                sm.clone(),
            );
            let number = name.rsplit(' ').next().filter(|_| numbers).filter(|n| {
                n.bytes().all(|b| b.is_ascii_digit())
                    && matches!(matrix.gpu_flag(n), crate::data::matrix::GpuFlag::Model(..))
            });
            if let Some(number) = number {
                offer(number.to_string(), format!("{name}, {sm}"));
            }
        }
    }
    out
}

/// `man PAGE`: the subcommands.
pub fn man_pages() -> Vec<CompletionCandidate> {
    use clap::CommandFactory;
    super::Cli::command()
        .get_subcommands()
        .map(|s| CompletionCandidate::new(OsString::from(s.get_name())))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_with_control_characters_are_not_offered() {
        assert!(super::offerable("paddle-3.0"));
        assert!(super::offerable("naïve env"));
        assert!(!super::offerable("a\u{b}b"));
        assert!(!super::offerable("a\nb"));
    }
}
