//! One module per subcommand; each takes its parsed arguments and writes
//! its report to the given writer (stdout in `main`).

pub mod audit;
pub mod check;
pub mod completions;
pub mod demo;
pub mod envs;
pub mod explain;
pub mod export;
pub mod install;
pub mod jupyter;
pub mod man;
pub mod output;
pub mod show;
pub mod uninstall;

use crate::cli::EnvSelection;
use crate::discovery::Selector;
use crate::error::Error;

/// Read the selected environment (its name, where it has one), the data
/// and the machine: what `check`, `show` and `explain` judge.
pub fn gather(
    env: &EnvSelection,
    target: &crate::cli::TargetArgs,
    ctx: &crate::discovery::Context,
) -> Result<(Option<String>, crate::rules::Subject), Error> {
    let env = crate::discovery::select(ctx, &env.selector())?;
    let prefix = std::path::absolute(&env.prefix).map_err(|e| Error::read(&env.prefix, e))?;
    let inv = crate::inventory::Inventory::read(&prefix)?;
    let matrix = target.matrix(ctx)?;
    let driver = crate::machine::driver::detect(ctx, &target.driver_flags(&matrix)?, &matrix);
    let machine = crate::machine::Machine::new(driver, ctx);
    let subject = crate::rules::Subject {
        inv,
        matrix,
        machine,
    };
    Ok((env.name, subject))
}

impl EnvSelection {
    /// The selector these flags mean.
    pub fn selector(&self) -> Selector {
        match (&self.name, &self.prefix) {
            (Some(name), _) => Selector::Name(name.clone()),
            (None, Some(prefix)) => Selector::Prefix(prefix.clone()),
            (None, None) => Selector::Active,
        }
    }
}

impl crate::cli::TargetArgs {
    /// The matrix to use: built in, plus `--matrix` or `ENVHOOK_MATRIX`.
    pub fn matrix(
        &self,
        ctx: &crate::discovery::Context,
    ) -> Result<crate::data::matrix::Matrix, Error> {
        let user = self
            .matrix
            .clone()
            .or_else(|| ctx.var_path(crate::env_vars::ENVHOOK_MATRIX));
        crate::data::matrix::Matrix::load(user.as_deref())
    }

    /// The driver flags; a `--gpu` value that names no GPU or compute
    /// capability the matrix knows is an error here, since the matrix
    /// (with `--matrix` rows) decides that.
    pub fn driver_flags(
        &self,
        matrix: &crate::data::matrix::Matrix,
    ) -> Result<crate::machine::driver::Flags, Error> {
        Ok(crate::machine::driver::Flags {
            driver_version: self.driver_version.clone(),
            gpu: self
                .gpu
                .as_deref()
                .map(|g| crate::machine::driver::gpu_flag(g, matrix))
                .transpose()?,
        })
    }
}

/// `--envs-dir` names directories to search: one that is not there is a
/// mistake to report, not an empty place to skip quietly.
pub fn require_dirs(dirs: &[std::path::PathBuf]) -> Result<(), Error> {
    match dirs.iter().find(|d| !d.is_dir()) {
        Some(dir) => Err(Error::EnvsDirMissing { path: dir.clone() }),
        None => Ok(()),
    }
}
