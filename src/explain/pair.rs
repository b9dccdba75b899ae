//! jax's check of jaxlib at import (jax-ml/jax jax/_src/lib/__init__.py
//! `check_jaxlib_version`): "jaxlib version X is newer than and
//! incompatible with jax version Y", and "jaxlib is version X, but this
//! version of jax requires version >= M". The versions the message states
//! are set beside the environment's pip jax and jaxlib, compared as jax
//! compares them (the dotted numeric prefix), and the fix is the pip
//! command that aligns them: jax raised to jaxlib's release, or jaxlib
//! raised to jax's minimum (never above jax, which jax refuses too).

use super::answer::{Answer, Verdict};
use super::clues::Clue;
use crate::rules::{Facts, fixes};

/// Answer a jax and jaxlib jax refuses together.
pub fn answer(
    f: &Facts,
    clue: &Clue,
    jax: Option<&str>,
    jaxlib: &str,
    minimum: Option<&str>,
) -> Answer {
    let d = &f.inv.distributions;
    let (Some(here_jax), Some(here_lib)) = (d.get("jax"), d.get("jaxlib")) else {
        let mut a = Answer::blank(clue, Vec::new());
        a.diagnosis = "envhook finds no pip jax and jaxlib here: the message came from another \
                       environment"
            .to_string();
        a.verdict = Verdict::NotHere;
        return a;
    };
    let mut a = Answer::blank(
        clue,
        vec![format!("jax {here_jax}, jaxlib {here_lib} (pip)")],
    );
    let (hj, hl) = (numeric(here_jax), numeric(here_lib));
    // Whether the message's versions are this environment's: another
    // environment's pair is said, not denied.
    let same = jax.is_none_or(|j| numeric(j) == hj) && numeric(jaxlib) == hl;
    let whose = if same {
        "the message's versions are this environment's"
    } else {
        "the message states other versions than this environment's, so another environment \
         printed it, but this one fails the same way"
    };
    let pip = fixes::pip(&f.inv.prefix);
    if hl > hj {
        let target = dotted(&hl);
        a.diagnosis = format!(
            "jaxlib {here_lib} is newer than jax {here_jax} here, which jax refuses at import \
             ({whose}); jax {target}, the release made with this jaxlib, accepts it"
        );
        a.verdict = Verdict::Cause;
        a.fix = Some(crate::finding::Fix::Command(
            pip.raw("install").arg(format!("jax=={target}")),
        ));
    } else if let Some(min) = minimum.map(numeric).filter(|m| hl < *m && *m <= hj) {
        let (low, high) = (dotted(&min), dotted(&hj));
        // Above jax is refused too: from its minimum up to jax itself.
        let want = if low == high {
            format!("jaxlib=={low}")
        } else {
            format!("jaxlib>={low},<={high}")
        };
        a.diagnosis = format!(
            "jaxlib {here_lib} is older than {low}, the least jaxlib jax {here_jax} accepts \
             ({whose}); it accepts {want}"
        );
        a.verdict = Verdict::Cause;
        a.fix = Some(crate::finding::Fix::Command(pip.raw("install").arg(want)));
    } else {
        a.diagnosis = format!(
            "jax {here_jax} accepts jaxlib {here_lib} here: the message came from another \
             environment, or from a Python that did not run this one"
        );
        a.verdict = Verdict::NotHere;
    }
    a
}

/// The dotted numeric prefix jax compares (`0.4.25+cuda11.cudnn86` ->
/// [0, 4, 25]), as its `_parse_version` reads it.
fn numeric(v: &str) -> Vec<u64> {
    let end = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    v[..end].split('.').map_while(|p| p.parse().ok()).collect()
}

fn dotted(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compared_as_jax_compares() {
        assert_eq!(numeric("0.4.25+cuda11.cudnn86"), [0, 4, 25]);
        assert_eq!(numeric("0.4.26.dev20240401"), [0, 4, 26]);
        assert!(numeric("0.4.14") > numeric("0.4.6"));
        assert_eq!(dotted(&numeric("0.4.36")), "0.4.36");
        assert!(numeric("garbage").is_empty());
    }
}
