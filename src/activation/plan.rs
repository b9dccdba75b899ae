//! The hooks one environment gets: rendered from its [`HookSpec`] for each
//! chosen shell dialect, before anything on disk is looked at.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation::shell::{self, Dialect, HookValues, Phase};
use crate::activation::spec::HookSpec;
use crate::paths;

/// The file name of every hook envhook writes, before the extension.
pub const HOOK_STEM: &str = "envhook";

/// One file the install writes.
#[derive(Debug, Clone, Serialize)]
pub struct HookFile {
    /// Where.
    #[serde(serialize_with = "paths::serialize")]
    pub path: PathBuf,
    /// Which shell family.
    pub dialect: Dialect,
    /// activate.d or deactivate.d.
    pub phase: Phase,
    /// The script.
    #[serde(skip)]
    pub text: String,
}

impl HookFile {
    /// The file name, e.g. `envhook.sh`.
    pub fn name(&self) -> String {
        file_name(self.dialect)
    }
}

/// What an install writes.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The spec the hooks implement.
    pub spec: HookSpec,
    /// The scripts to write.
    pub files: Vec<HookFile>,
    /// Hand-written hooks to move aside now (`--replace-handwritten`).
    #[serde(serialize_with = "paths::serialize_vec")]
    pub take_over: Vec<PathBuf>,
    /// Dialects asked for that cannot express this environment's hooks,
    /// with the reason (no hook is better than a broken one).
    pub skipped: Vec<(Dialect, String)>,
    /// Dialects asked for whose activation scripts a venv has but envhook
    /// does not hook (see [`shell::venv::script`]): no hooks for them.
    pub venv_unhooked: Vec<Dialect>,
}

fn file_name(dialect: Dialect) -> String {
    format!("{HOOK_STEM}.{}", dialect.extension())
}

/// The hook file for one dialect and phase.
pub fn hook_path(prefix: &Path, dialect: Dialect, phase: Phase) -> PathBuf {
    prefix.join(phase.rel_dir()).join(file_name(dialect))
}

impl Plan {
    /// Render the hooks of `spec` for `dialects`. `take_over`: hand-written
    /// hooks to move aside now; `replaced`: every hand-written hook moved
    /// aside, now or before, which the header lists (see [`takeover`]).
    ///
    /// [`takeover`]: crate::activation::takeover
    pub fn new(
        spec: HookSpec,
        dialects: &[Dialect],
        take_over: Vec<PathBuf>,
        replaced: &[PathBuf],
    ) -> Plan {
        let prefix = spec.prefix.clone();
        let dirs: Vec<String> = spec.dirs.iter().map(|d| d.display().to_string()).collect();
        // The hooks watch the records and pip dist-infos they were made
        // from by name (an uninstall removes them), and the records'
        // times (an install or upgrade adds a newer one); the spec's
        // records are in its fingerprint too, which `check` compares.
        let conda_meta = prefix.join("conda-meta");
        let watch: Vec<String> = spec.watch.iter().map(|w| w.display().to_string()).collect();
        let conda_meta = conda_meta.display().to_string();
        let stale_message = crate::activation::shell::messages::stale_message(&prefix);
        let header = header(&spec, replaced);
        let mut files = Vec::new();
        let mut skipped = Vec::new();
        let mut venv_unhooked = Vec::new();
        let venv = crate::discovery::is_venv(&prefix);
        for &dialect in dialects {
            if venv && shell::venv::script(dialect).is_none() {
                venv_unhooked.push(dialect);
                continue;
            }
            if let Some(why) = dialect.unsupported(&dirs) {
                skipped.push((dialect, why));
                continue;
            }
            let self_path = hook_path(&prefix, dialect, Phase::Activate)
                .display()
                .to_string();
            let prefix_text = prefix.display().to_string();
            for phase in [Phase::Activate, Phase::Deactivate] {
                let copy_marks = copy_marks(&spec, dialect, phase);
                let values = HookValues {
                    id: &spec.id,
                    dirs: &dirs,
                    conda_meta: &conda_meta,
                    self_path: &self_path,
                    watch: &watch,
                    stale_message: &stale_message,
                    prefix: &prefix_text,
                    moved_format: &crate::activation::shell::messages::moved_format(),
                    foreign_message: crate::activation::shell::messages::FOREIGN_MESSAGE,
                    header: &header,
                    copy_marks: &copy_marks,
                };
                files.push(HookFile {
                    path: hook_path(&prefix, dialect, phase),
                    dialect,
                    phase,
                    text: shell::render(dialect, phase, &values),
                });
            }
        }
        Plan {
            spec,
            files,
            take_over,
            skipped,
            venv_unhooked,
        }
    }
}

/// What a copy of the environment made without conda holds, relative to
/// its prefix, for the hooks to recognise one (see `shell/copy.rs`): this
/// hook, then the link directory named by the fingerprint, or (without
/// one) the directories the hooks expose.
fn copy_marks(spec: &HookSpec, dialect: Dialect, phase: Phase) -> Vec<String> {
    let relative = |p: &Path| {
        p.strip_prefix(&spec.prefix)
            .ok()
            .map(|r| format!("/{}", r.display()))
    };
    let hook = hook_path(&spec.prefix, dialect, phase);
    let dirs: Vec<&Path> = match &spec.isolation {
        Some(iso) => vec![iso.dir.as_path()],
        None => spec.dirs.iter().map(PathBuf::as_path).collect(),
    };
    std::iter::once(hook.as_path())
        .chain(dirs)
        .filter_map(relative)
        .collect()
}

/// The hooks' header: version, mode and fingerprint, the prefix (also
/// hex-encoded), the directories exposed, and the hand-written hooks moved
/// aside.
fn header(spec: &HookSpec, replaced: &[PathBuf]) -> Vec<String> {
    let mut header = vec![
        format!(
            "envhook {} | mode {} | fingerprint {}",
            env!("CARGO_PKG_VERSION"),
            spec.mode,
            spec.fingerprint
        ),
        format!("prefix {}", spec.prefix.display()),
        // The prefix as written, hex-encoded so that conda's rewriting
        // of the old prefix in a copy leaves it: `check` compares it with
        // where the hooks are now (see status::installed).
        format!(
            "origin-hex {}",
            crate::activation::shell::messages::hex(&spec.prefix.display().to_string())
        ),
    ];
    header.extend(
        spec.dirs
            .iter()
            .map(|d| format!("library path {}", d.display())),
    );
    header.extend(replaced.iter().map(|p| {
        format!(
            "replaced {} (kept as {}{}; envhook uninstall puts it back)",
            p.display(),
            p.file_name().unwrap_or_default().to_string_lossy(),
            crate::activation::takeover::SUFFIX
        )
    }));
    header
}
