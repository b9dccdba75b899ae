//! The commands findings suggest, in the style of the installer the
//! environment's CUDA stack already uses.

use std::path::Path;

use crate::data::matrix::{major, major_minor};
use crate::inventory::Installer;

/// The command that installs a CUDA runtime of `cuda` in the style of the
/// framework's installer.
pub fn cuda_install_hint(cuda: &str, installer: Installer, prefix: &Path) -> String {
    let mm = major_minor(cuda);
    let p = prefix.display();
    match (installer, major(cuda)) {
        (Installer::Pip, Some(maj)) if maj >= 13 => {
            format!("{p}/bin/python -m pip install nvidia-cuda-runtime=={mm}.*")
        }
        (Installer::Pip, Some(maj)) => {
            format!("{p}/bin/python -m pip install nvidia-cuda-runtime-cu{maj}")
        }
        (_, Some(maj)) if maj <= 11 => {
            format!("conda install -p {p} -c conda-forge cudatoolkit={mm}")
        }
        _ => format!("conda install -p {p} -c conda-forge cuda-version={mm} cuda-cudart libcublas"),
    }
}

pub fn cudnn_install_hint(
    cudnn: &str,
    installer: Installer,
    cuda: Option<&str>,
    prefix: &Path,
) -> String {
    let mm = major_minor(cudnn);
    let p = prefix.display();
    match installer {
        Installer::Pip => {
            let suffix = cuda
                .and_then(major)
                .map(|m| format!("-cu{m}"))
                .unwrap_or_default();
            format!("{p}/bin/python -m pip install 'nvidia-cudnn{suffix}=={mm}.*'")
        }
        Installer::Conda => format!("conda install -p {p} -c conda-forge cudnn={mm}"),
    }
}
