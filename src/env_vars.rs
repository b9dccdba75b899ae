//! Every environment variable envhook reads, in one place, so docs/environment.md's
//! table and the code cannot drift apart.
//!
//! It is also the one place the process environment is read: [`process`]
//! and [`home_dir`] are captured once into `discovery::Context`, which every
//! reader is given (so tests can give a fake one). clippy.toml refuses
//! std's readers (`std::env::var` and the rest) anywhere else.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;

/// The process environment: every variable whose name is Unicode (the
/// names envhook reads all are).
// The one sanctioned reader of the process environment (see the module doc).
#[allow(clippy::disallowed_methods)]
pub fn process() -> HashMap<String, OsString> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
        .collect()
}

/// The user's home directory: `HOME`, else the password database, as std
/// finds it.
// Reads HOME: the one sanctioned place (see the module doc).
#[allow(clippy::disallowed_methods)]
pub fn home_dir() -> Option<PathBuf> {
    std::env::home_dir()
}

/// The active conda environment; used when neither `-n` nor `-p` is given
/// and no venv is active (see `discovery::venv`).
pub const CONDA_PREFIX: &str = "CONDA_PREFIX";
/// The active Python venv (set by its `bin/activate`); used first when
/// neither `-n` nor `-p` is given.
pub const VIRTUAL_ENV: &str = "VIRTUAL_ENV";
/// conda's activation level, 0 or unset outside any environment; `run`
/// sets the next one, as `conda activate` does.
pub const CONDA_SHLVL: &str = "CONDA_SHLVL";
/// The active environment's name as conda gives it; `run` keeps it when it
/// runs in the environment already active.
pub const CONDA_DEFAULT_ENV: &str = "CONDA_DEFAULT_ENV";
/// Path of the `conda` executable (set by conda's shell integration); its
/// installation's root prefix is found from it.
pub const CONDA_EXE: &str = "CONDA_EXE";
/// conda's root prefix, where set.
pub const CONDA_ROOT: &str = "CONDA_ROOT";
/// micromamba/mamba's root prefix.
pub const MAMBA_ROOT_PREFIX: &str = "MAMBA_ROOT_PREFIX";
/// Extra envs directories, `:`-separated (conda's env-var form of `envs_dirs`).
pub const CONDA_ENVS_DIRS: &str = "CONDA_ENVS_DIRS";
/// The older spelling of [`CONDA_ENVS_DIRS`].
pub const CONDA_ENVS_PATH: &str = "CONDA_ENVS_PATH";
/// An extra `.condarc` file to read.
pub const CONDARC: &str = "CONDARC";
/// Base of the user's configuration directory (`~/.config` when unset).
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
/// Where envhook finds the system's own files (`/etc/conda`, `/var/lib/conda`):
/// envhook reads `$ENVHOOK_SYSROOT/etc/conda/...` instead of `/etc/conda/...`.
/// For inspecting an image's root filesystem from outside, and for tests.
pub const ENVHOOK_SYSROOT: &str = "ENVHOOK_SYSROOT";
/// Extra compatibility matrix rows (a TOML file), like `--matrix`.
pub const ENVHOOK_MATRIX: &str = "ENVHOOK_MATRIX";
/// conda's override of the driver's CUDA version; empty means no CUDA.
pub const CONDA_OVERRIDE_CUDA: &str = "CONDA_OVERRIDE_CUDA";
/// Seconds `audit` waits for one environment before reporting it as not
/// answering (a dead network mount); 60 by default.
pub const ENVHOOK_AUDIT_TIMEOUT: &str = "ENVHOOK_AUDIT_TIMEOUT";

/// (audit) The terminal's width, as shells export it; the table is laid
/// out for it.
pub const COLUMNS: &str = "COLUMNS";

/// (explain) Which GPUs CUDA shows a process: empty hides every one.
pub const CUDA_VISIBLE_DEVICES: &str = "CUDA_VISIBLE_DEVICES";
/// (explain) Which GPUs the NVIDIA container toolkit mounts into a
/// container: `void`, `none` or empty mount none.
pub const NVIDIA_VISIBLE_DEVICES: &str = "NVIDIA_VISIBLE_DEVICES";

/// Every variable envhook (or a hook it writes, or its conda plugin) reads,
/// with what for: the man pages' ENVIRONMENT section is rendered from this
/// table, and a test holds docs/environment.md's table to it.
pub const DOCUMENTED: &[(&str, &str)] = &[
    (
        VIRTUAL_ENV,
        "the active venv, when neither -n nor -p is given (before CONDA_PREFIX)",
    ),
    (
        CONDA_PREFIX,
        "the active conda environment, when neither -n nor -p is given and no venv is active (base after a .venv in or above the current directory)",
    ),
    (
        CONDA_SHLVL,
        "(run) conda's activation level: run sets the next one, the previous prefix in CONDA_PREFIX_<n>, as conda activate does",
    ),
    (
        CONDA_DEFAULT_ENV,
        "(run) kept, with the level, when run runs in the environment already active",
    ),
    (
        CONDA_EXE,
        "locating the root prefix (<root>/bin/conda, <root>/condabin/conda)",
    ),
    (CONDA_ROOT, "a root prefix"),
    (MAMBA_ROOT_PREFIX, "a root prefix (mamba, micromamba)"),
    (
        CONDA_ENVS_DIRS,
        "extra envs directories (:-separated), searched first",
    ),
    (CONDA_ENVS_PATH, "the older spelling of CONDA_ENVS_DIRS"),
    (CONDARC, "an extra .condarc file to read"),
    (
        XDG_CONFIG_HOME,
        "where the user's conda configuration lives (~/.config when unset)",
    ),
    (
        "HOME",
        "the user's .condarc, ~/.conda/environments.txt and the usual install locations",
    ),
    ("PATH", "finding conda and mamba"),
    (ENVHOOK_MATRIX, "extra compatibility rows, like --matrix"),
    (
        CONDA_OVERRIDE_CUDA,
        "(check) the CUDA version the driver supports, as conda reads it; empty: no CUDA driver",
    ),
    (
        "LD_LIBRARY_PATH",
        "(check) the search path the loader simulation starts from",
    ),
    (
        "ENVHOOK_BIN",
        "(conda plugin) the envhook executable to call, instead of the one on PATH",
    ),
    (
        "NO_COLOR",
        "set and not empty: no colour, even on a terminal, unless --color always",
    ),
    (
        COLUMNS,
        "(audit) the terminal's width the table is laid out for, else the terminal's own",
    ),
    (
        "CLICOLOR_FORCE",
        "set and not empty: colour even when not on a terminal, unless NO_COLOR or --color never",
    ),
    ("CLICOLOR", "0: no colour, as NO_COLOR"),
    ("TERM", "unset or dumb: no colour on a terminal"),
    (
        ENVHOOK_AUDIT_TIMEOUT,
        "(audit) seconds to wait for one environment before reporting it as not answering (a dead network mount); 60 by default",
    ),
    (
        "ENVHOOK_QUIET",
        "(read by the generated hooks) non-empty: no staleness warning on activation",
    ),
    (
        "COMPLETE",
        "set by the shell completion scripts when they ask envhook for candidates (see envhook completions)",
    ),
    (
        CUDA_VISIBLE_DEVICES,
        "(explain) for a message that no GPU was found: empty hides every GPU, an index past the GPUs names a missing one",
    ),
    (
        NVIDIA_VISIBLE_DEVICES,
        "(explain) for a message that no GPU was found: void, none or empty mounts no GPU into a container",
    ),
    (
        "BNB_CUDA_VERSION",
        "(check) set and not empty: bitsandbytes loads libbitsandbytes_cuda<this>.so, not the object for its torch's CUDA, as bitsandbytes does (data/packages.toml's digits_from)",
    ),
    (
        "XDG_RUNTIME_DIR",
        "(run) where run keeps its private link directory, first",
    ),
    (
        "XDG_CACHE_HOME",
        "(run) where run keeps its private link directory, second (~/.cache when unset)",
    ),
    (
        "TMPDIR",
        "(run) where run keeps its private link directory, last (/tmp when unset)",
    ),
    (
        ENVHOOK_SYSROOT,
        "read system files (/etc/conda, /var/lib/conda, /etc/ld.so.cache, the default library directories, /proc/driver/nvidia/version) under this directory instead of /: for inspecting an image's root filesystem, and for tests",
    ),
];
