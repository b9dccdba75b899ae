//! Text for deployments that never activate: a login-shell snippet, a
//! Dockerfile `ENV` line, an env-file line. `dirs` must not contain `:` or
//! newlines (see [`crate::activation::spec::check_prefix`]).

use super::{HookValues, substitute};

/// The first line of an Apptainer section's details: it is not a hook,
/// and nothing rewrites or removes it but the user.
const EXPORTED: &str =
    "written by `envhook export --format apptainer`: export again after the environment changes";

/// What an export renders from: its directories and header lines only
/// (no state, no staleness: nothing is ever deactivated).
fn values<'a>(dirs: &'a [String], header: &'a [String]) -> HookValues<'a> {
    HookValues {
        id: "0",
        dirs,
        conda_meta: "",
        self_path: "",
        watch: &[],
        stale_message: "",
        prefix: "",
        moved_format: "",
        foreign_message: "",
        header,
        copy_marks: &[],
    }
}

/// An `/etc/profile.d` snippet (POSIX sh): idempotent prepend.
pub fn profile(dirs: &[String], header: &[String]) -> String {
    let v = values(dirs, header);
    substitute(include_str!("../../../hooks/profile.sh"), |token| {
        Some(match token {
            "HEADER" => super::header_text(),
            "DETAILS" => super::details_text(&v, super::INSTALLED),
            "DIRS" => super::quote::posix(&dirs.join(":")),
            "STRIP" => super::fragment(super::Dialect::Posix, super::Fragment::Strip),
            _ => return None,
        })
    })
}

/// A Dockerfile `ENV` line. The value is double-quoted with `\`, `"`
/// and `$` escaped (Dockerfile escaping), then Docker's own
/// `${LD_LIBRARY_PATH:+:...}` keeps an existing value without leaving an
/// empty element when there is none.
pub fn dockerfile(dirs: &[String], install_prefix: Option<&str>) -> String {
    // The link directory exists only where `envhook install` ran: in
    // an image, that RUN line creates it (and fails the build loudly
    // when envhook is not there, instead of a path to nothing).
    let run = install_prefix.map_or_else(String::new, |prefix| {
        format!(
            "# lib/envhook/cuda is created by envhook install: run it in the image \
             (envhook must be on PATH there)\nRUN envhook install -p {}\n",
            super::quote::posix(prefix)
        )
    });
    let escaped = super::quote::dockerfile_inner(&dirs.join(":"));
    format!("{run}ENV LD_LIBRARY_PATH=\"{escaped}${{LD_LIBRARY_PATH:+:${{LD_LIBRARY_PATH}}}}\"\n")
}

/// An Apptainer/Singularity definition-file `%environment` section
/// (`hooks/apptainer.sh`, indented). Apptainer copies it into the
/// image's `/.singularity.d/env/90-environment.sh` and runs it at every
/// start in its embedded interpreter, so an inherited `LD_LIBRARY_PATH`
/// (`APPTAINERENV_LD_LIBRARY_PATH`, `--env`) stays after the
/// environment's directories. For the link directory, the lines before
/// the section say which `%post` line creates it in the image: they are
/// comments, harmless wherever the section is pasted.
pub fn apptainer(dirs: &[String], header: &[String], install_prefix: Option<&str>) -> String {
    let v = values(dirs, header);
    let body = substitute(include_str!("../../../hooks/apptainer.sh"), |token| {
        Some(match token {
            "HEADER" => super::header_text(),
            "DETAILS" => super::details_text(&v, EXPORTED),
            "DIRS" => super::quote::apptainer(&dirs.join(":")),
            _ => return None,
        })
    });
    let mut text = String::new();
    if let Some(prefix) = install_prefix {
        text.push_str(&format!(
            "# lib/envhook/cuda is created by envhook install: in %post, after the\n\
             # environment is created (envhook must be on PATH there):\n\
             #     envhook install -p {}\n",
            super::quote::posix(prefix)
        ));
    }
    text.push_str("%environment\n");
    for line in body.lines() {
        if !line.is_empty() {
            text.push_str("    ");
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// A `KEY=VALUE` env-file line (docker `--env-file`, Kubernetes
/// ConfigMaps): no quoting or expansion exists there, so the value is
/// the directories alone.
pub fn env_file(dirs: &[String]) -> String {
    format!("LD_LIBRARY_PATH={}\n", dirs.join(":"))
}
