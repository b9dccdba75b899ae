//! One module per subcommand; each takes its parsed arguments and writes
//! its report to the given writer (stdout in `main`).

pub mod audit;
pub mod check;
pub mod envs;
pub mod explain;
pub mod export;
pub mod install;
pub mod show;
pub mod uninstall;

use std::io::{self, Write};

use crate::cli::EnvSelection;
use crate::discovery::Selector;
use crate::error::Error;

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

    /// The driver flags.
    pub fn driver_flags(&self) -> crate::machine::driver::Flags {
        crate::machine::driver::Flags {
            driver_version: self.driver_version.clone(),
            gpu: self.gpu.clone(),
        }
    }
}

/// Write JSON followed by a newline.
pub fn write_json<T: serde::Serialize>(out: &mut impl Write, value: &T) -> Result<(), Error> {
    serde_json::to_writer_pretty(&mut *out, value)
        .map_err(|e| Error::Output(io::Error::from(e)))?;
    writeln!(out).map_err(Error::Output)
}
