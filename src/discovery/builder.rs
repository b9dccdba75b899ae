//! Accumulating what discovery finds: root prefixes, envs directories and
//! environments in conda's order, each once (by canonical path), with
//! every place that pointed at it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{
    Context, Discovery, EnvKind, EnvsDir, KnownEnv, StaleEntry, canonical, child_envs, condarc,
    environments_txt, is_env, is_venv, kind_of, pixi_envs, root_of_executable, venv,
};

/// Common install locations under the home directory, for machines where
/// conda's shell integration is not loaded (cron jobs, `ssh host cmd`).
const HOME_ROOT_GUESSES: &[&str] = &[
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    "micromamba",
    ".local/share/mamba",
];

impl Builder {
    /// Root prefixes, most explicit first; the environments
    /// environments.txt lists.
    pub(super) fn roots(&mut self, ctx: &Context) -> Vec<PathBuf> {
        for (var, label) in [
            (crate::env_vars::CONDA_ROOT, "CONDA_ROOT"),
            (crate::env_vars::MAMBA_ROOT_PREFIX, "MAMBA_ROOT_PREFIX"),
        ] {
            if let Some(root) = ctx.var_path(var) {
                self.root(root, label);
            }
        }
        if let Some(exe) = ctx.var_path(crate::env_vars::CONDA_EXE)
            && let Some(root) = root_of_executable(&exe)
        {
            self.root(root, "CONDA_EXE");
        }
        for tool in ["conda", "mamba"] {
            if let Some(exe) = ctx.which(tool)
                && let Some(root) = root_of_executable(&exe)
            {
                self.root(root, &format!("{tool} on PATH"));
            }
        }
        if let Some(home) = ctx.home() {
            for guess in HOME_ROOT_GUESSES {
                self.root(home.join(guess), &format!("~/{guess}"));
            }
        }
        // environments.txt lists roots too, and `<root>/envs/<name>` entries
        // name their root: a machine without conda's shell integration
        // still has every installation that ever created an env.
        let listed = read_environments_txt(ctx, &mut self.out);
        for prefix in &listed {
            if looks_like_root(prefix) {
                self.root(prefix.clone(), "~/.conda/environments.txt");
            } else if let Some(root) = prefix
                .parent()
                .filter(|p| p.file_name() == Some("envs".as_ref()))
                .and_then(Path::parent)
            {
                self.root(root.to_path_buf(), "~/.conda/environments.txt");
            }
        }
        listed
    }

    /// Envs directories, in conda's lookup order.
    pub(super) fn envs_dirs(&mut self, ctx: &Context) {
        for var in [
            crate::env_vars::CONDA_ENVS_DIRS,
            crate::env_vars::CONDA_ENVS_PATH,
        ] {
            if let Some(value) = ctx.var(var) {
                for dir in std::env::split_paths(value) {
                    if !dir.as_os_str().is_empty() {
                        self.envs_dir(dir, var.to_string());
                    }
                }
            }
        }
        let roots = self.out.roots.clone();
        for file in condarc::search_path(ctx, &roots) {
            match condarc::read_envs_dirs(&file, ctx) {
                Ok(dirs) => {
                    for dir in dirs {
                        self.envs_dir(dir, format!("envs_dirs in {}", file.display()));
                    }
                }
                Err(reason) => self.out.warnings.push(format!(
                    "ignoring {}: {reason}; its envs_dirs are not searched",
                    file.display()
                )),
            }
        }
        for root in &roots {
            self.envs_dir(root.join("envs"), format!("{}/envs", root.display()));
        }
        if let Some(home) = ctx.home() {
            self.envs_dir(home.join(".conda").join("envs"), "~/.conda/envs".into());
        }
    }

    /// The environments themselves: roots, the envs directories' children,
    /// environments.txt's entries and the directories given.
    pub(super) fn environments(&mut self, listed: Vec<PathBuf>, extra_dirs: &[PathBuf]) {
        let roots = self.out.roots.clone();
        for (root, origin) in roots.iter().zip(self.root_origins.clone()) {
            self.env(root.clone(), Some("base".into()), EnvKind::Root, &origin);
        }
        let dirs: Vec<EnvsDir> = self.out.envs_dirs.clone();
        for dir in &dirs {
            for env in child_envs(&dir.path) {
                let name = env.file_name().map(|n| n.to_string_lossy().into_owned());
                let kind = kind_of(&env, EnvKind::Named);
                self.env(env, name, kind, &dir.origin);
            }
        }
        for prefix in listed {
            let kind = kind_of(&prefix, EnvKind::Listed);
            self.env(prefix, None, kind, "~/.conda/environments.txt");
        }
        for dir in extra_dirs {
            self.extra(dir);
        }
    }
}

/// The environments `~/.conda/environments.txt` lists; entries that lead
/// nowhere are recorded as stale.
fn read_environments_txt(ctx: &Context, out: &mut Discovery) -> Vec<PathBuf> {
    let Some(home) = ctx.home() else {
        return Vec::new();
    };
    let file = home.join(".conda").join("environments.txt");
    let lines = match environments_txt::read(&file) {
        Ok(Some(lines)) => lines,
        Ok(None) => return Vec::new(),
        Err(e) => {
            out.warnings
                .push(format!("ignoring {}: {e}", file.display()));
            return Vec::new();
        }
    };
    let mut envs = Vec::new();
    for line in lines {
        let (entry, reason) = match line {
            environments_txt::Line::Env(prefix) if is_env(&prefix) || is_venv(&prefix) => {
                envs.push(prefix);
                continue;
            }
            environments_txt::Line::Env(prefix) => {
                let reason = if prefix.exists() {
                    "no conda-meta/ directory (nor a venv's pyvenv.cfg)"
                } else {
                    "no longer exists"
                };
                (prefix.display().to_string(), reason)
            }
            environments_txt::Line::Foreign(entry) => {
                (entry, "a path for another operating system")
            }
        };
        out.stale.push(StaleEntry {
            entry,
            file: file.clone(),
            reason,
        });
    }
    envs
}

/// Whether an environment is the root of an installation: it has conda's
/// `condabin/`, a conda/mamba executable, or an `envs/` directory.
fn looks_like_root(prefix: &Path) -> bool {
    prefix.join("condabin").is_dir()
        || prefix.join("envs").is_dir()
        || ["conda", "mamba", "micromamba"]
            .iter()
            .any(|exe| prefix.join("bin").join(exe).is_file())
}

/// Accumulates discovery results, de-duplicating by canonical path.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) out: Discovery,
    /// canonical prefix -> index in `out.envs`.
    seen_envs: HashMap<PathBuf, usize>,
    seen_dirs: HashMap<PathBuf, usize>,
    /// Where each of `out.roots` was first found, same order.
    root_origins: Vec<String>,
}

impl Builder {
    fn root(&mut self, root: PathBuf, origin: &str) {
        if !is_env(&root) {
            return;
        }
        let canon = canonical(&root);
        if self.out.roots.iter().all(|r| canonical(r) != canon) {
            self.out.roots.push(root);
            self.root_origins.push(format!("root prefix via {origin}"));
        }
    }

    fn envs_dir(&mut self, path: PathBuf, origin: String) {
        let canon = canonical(&path);
        if self.seen_dirs.contains_key(&canon) {
            return;
        }
        self.seen_dirs.insert(canon, self.out.envs_dirs.len());
        self.out.envs_dirs.push(EnvsDir { path, origin });
    }

    fn env(&mut self, prefix: PathBuf, name: Option<String>, kind: EnvKind, via: &str) {
        let canon = canonical(&prefix);
        if let Some(&i) = self.seen_envs.get(&canon) {
            let env = &mut self.out.envs[i];
            // A root found through environments.txt is listed there too:
            // one source, named once.
            if !env
                .found_via
                .iter()
                .any(|v| v == via || v.strip_prefix("root prefix via ") == Some(via))
            {
                env.found_via.push(via.to_string());
            }
            return;
        }
        self.seen_envs.insert(canon, self.out.envs.len());
        self.out.envs.push(KnownEnv {
            prefix,
            name,
            kind,
            found_via: vec![via.to_string()],
        });
    }

    /// A directory given on the command line: an environment, a pixi
    /// project, or an envs directory.
    fn extra(&mut self, dir: &Path) {
        let via = format!("given {}", dir.display());
        if is_env(dir) || is_venv(dir) {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let kind = kind_of(dir, EnvKind::Given);
            self.env(dir.to_path_buf(), name, kind, &via);
            return;
        }
        let pixi = pixi_envs(dir);
        if !pixi.is_empty() {
            for env in pixi {
                let name = env.file_name().map(|n| n.to_string_lossy().into_owned());
                self.env(
                    env,
                    name,
                    EnvKind::Pixi,
                    &format!("pixi project {}", dir.display()),
                );
            }
            return;
        }
        self.envs_dir(dir.to_path_buf(), via.clone());
        for env in child_envs(dir) {
            let name = env.file_name().map(|n| n.to_string_lossy().into_owned());
            let kind = kind_of(&env, EnvKind::Named);
            self.env(env, name, kind, &via);
        }
    }

    /// The active venv (`VIRTUAL_ENV`, or a `.venv` in or above the
    /// current directory), which nothing else lists: uv and venv write no
    /// `environments.txt`. A `.venv` that is not one is a warning here.
    pub(super) fn active_venv(&mut self, ctx: &Context) {
        let cwd = std::env::current_dir().ok();
        match venv::active(ctx, cwd.as_deref()) {
            Ok(Some((prefix, origin))) if is_venv(&prefix) => {
                let name = prefix.file_name().map(|n| n.to_string_lossy().into_owned());
                self.env(prefix, name, EnvKind::Venv, &origin.describe());
            }
            Ok(_) => {}
            Err(e) => self.out.warnings.push(e.to_string()),
        }
    }
}
