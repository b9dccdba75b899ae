//! The data shipped in the binary and its readers: the package catalogue
//! (`data/packages.toml`, [`catalog`]) and the compatibility matrix
//! (`data/matrix.toml`, [`matrix`]). Both sit below the inventory and the
//! rules, which read them; neither reads an environment.

pub mod arch;
pub mod catalog;
pub mod matrix;
