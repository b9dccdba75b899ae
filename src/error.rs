//! The errors envhook reports, each naming the file involved and, where
//! there is one, what to do about it (`hint`).
//!
//! An [`Error`] always ends the command with exit code 2 (see
//! [`crate::exit::ExitStatus`]); problems that envhook *found* in an
//! environment are not errors but findings ([`crate::finding::Problem`]).

use std::io;
use std::path::PathBuf;

mod conflict;
mod hint;

pub use conflict::Conflict;
use conflict::not_ours_message;

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Neither `-n`, `-p` nor an active environment.
    #[error("no environment selected")]
    NoEnvSelected,

    /// `-p` (or `CONDA_PREFIX`) names a path that does not exist.
    #[error("{path}: no such directory", path = .path.display())]
    PrefixMissing {
        /// The path given.
        path: PathBuf,
        /// The variable it came from (`CONDA_PREFIX`, `VIRTUAL_ENV`), if any.
        from_var: Option<&'static str>,
    },

    /// A directory without `conda-meta/`.
    #[error("{path} is not a conda environment ({why})", path = .path.display())]
    NotAnEnv {
        /// The directory given.
        path: PathBuf,
        /// What is missing.
        why: &'static str,
    },

    /// A venv's activation script envhook will not edit: its block was
    /// changed by hand, or the script is not text it can edit exactly.
    #[error("{path}: envhook will not edit it: {why}", path = .path.display())]
    VenvScript {
        /// The script.
        path: PathBuf,
        /// Why.
        why: &'static str,
    },

    /// A kernelspec's kernel.json envhook will not edit: changed by hand
    /// since envhook set its `LD_LIBRARY_PATH`, or not JSON it can edit.
    #[error("{path}: envhook will not edit it: {why}", path = .path.display())]
    Kernelspec {
        /// The kernel.json (or envhook's record beside it).
        path: PathBuf,
        /// Why.
        why: &'static str,
    },

    /// `-n NAME` matched nothing.
    #[error("no environment named '{name}'")]
    UnknownEnv {
        /// The name asked for.
        name: String,
        /// The environments that do exist: name (if any) and prefix.
        known: Vec<(Option<String>, PathBuf)>,
    },

    /// `-n NAME` where no envs directory holds NAME, but environments listed
    /// elsewhere (environments.txt) are called NAME: conda reaches those by
    /// path only (`locate_prefix_by_name` looks in the envs directories and
    /// takes `base`/`root` for the root, nothing else).
    #[error(
        "no environment named '{name}' in conda's envs directories: conda activate -n reaches \
         only those and base"
    )]
    NameOutsideEnvsDirs {
        /// The name asked for.
        name: String,
        /// The environments elsewhere whose directory is called so.
        candidates: Vec<PathBuf>,
    },

    /// A pixi project with several environments and none called `default`.
    #[error("{project} is a pixi project with several environments", project = .project.display())]
    PixiProjectAmbiguous {
        /// The project directory.
        project: PathBuf,
        /// Its environments.
        envs: Vec<PathBuf>,
    },

    /// A file or directory that could not be read.
    #[error("could not read {path}: {source}", path = .path.display())]
    Read {
        /// What was being read.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },

    /// A conda-meta record that does not parse.
    #[error("could not parse conda-meta record {path}: {reason}", path = .path.display())]
    BadRecord {
        /// The record file.
        path: PathBuf,
        /// The parser's complaint.
        reason: String,
    },

    /// A pip dist-info directory that does not make sense.
    #[error("could not parse {path}: {reason}", path = .path.display())]
    BadDistInfo {
        /// The file inside the dist-info directory.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// A prefix whose path no hook can carry.
    #[error("{path}: envhook cannot write hooks for this prefix: {why}", path = .path.display())]
    UnsupportedPrefix {
        /// The prefix.
        path: PathBuf,
        /// Why.
        why: &'static str,
    },

    /// Creating, replacing or removing a file failed.
    #[error("could not write {path}: {source}", path = .path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },

    /// A conda record over [`crate::inventory::records::MAX_RECORD_BYTES`]:
    /// not read (the inventory leaves the package out, with a warning).
    #[error("{path} is over {} MiB; no real record is that large", .max >> 20, path = .path.display())]
    RecordTooLarge {
        /// The record.
        path: PathBuf,
        /// The limit, in bytes.
        max: u64,
    },

    /// `run`'s private link directory cannot be used.
    #[error("cannot use {path} for envhook run's private link directory: {why}", path = .path.display())]
    PrivateDir {
        /// The directory.
        path: PathBuf,
        /// Why not.
        why: String,
    },

    /// An output path that holds something other than a regular file:
    /// replacing it would replace a device node, a directory's name or a
    /// link the machine relies on.
    #[error("refusing to write {path}: it is {what}, not a regular file", path = .path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there ("a character device", ...).
        what: &'static str,
    },

    /// A path envhook would write through is a symbolic link (see
    /// [`crate::activation::confined`]: no link below the prefix is followed).
    #[error(
        "refusing to write through {link}: it is a symbolic link to {target}",
        link = .link.display(),
        target = .target.display()
    )]
    PlantedLink {
        /// The link.
        link: PathBuf,
        /// Where it points.
        target: PathBuf,
    },

    /// Files or directories where envhook would write that are not its own.
    #[error("{}", not_ours_message(.conflicts))]
    NotOurs {
        /// Each path and what is there.
        conflicts: Vec<Conflict>,
    },

    /// Another envhook kept the environment's lock for too long.
    #[error("another envhook has been writing to {prefix} for {secs} s", prefix = .prefix.display())]
    Locked {
        /// The environment.
        prefix: PathBuf,
        /// How long this one waited.
        secs: u64,
    },

    /// `--mode isolated` before `envhook install` created the link directory.
    #[error("{prefix} has no envhook link directory yet", prefix = .prefix.display())]
    NotInstalled {
        /// The environment.
        prefix: PathBuf,
    },

    /// A command to run could not be started.
    #[error("could not run {program}: {source}")]
    Exec {
        /// The program.
        program: String,
        /// Why.
        source: io::Error,
    },

    /// A compatibility matrix file that does not parse.
    #[error("could not use the matrix {path}: {reason}", path = .path.display())]
    BadMatrix {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },

    /// `explain` without a message, with nothing piped in.
    #[error("explain needs the error message: none was given, and standard input {stdin}")]
    NoMessage {
        /// "is a terminal" or "was empty".
        stdin: &'static str,
    },

    /// `--envs-dir DIR` where DIR is not a directory.
    #[error("--envs-dir {path}: no such directory", path = .path.display())]
    EnvsDirMissing {
        /// The directory given.
        path: PathBuf,
    },

    /// `--gpu VALUE` names no GPU the matrix knows, and no compute
    /// capability its `[[arch]]` table holds.
    #[error("--gpu {value}: not a compute capability (sm_XY, X.Y) nor a GPU the matrix knows")]
    UnknownGpu {
        /// The value given.
        value: String,
        /// A few known names that look alike, for the hint.
        suggestions: Vec<String>,
    },

    /// `--gpu NUMBER`, a model number GPUs of different compute
    /// capabilities carry.
    #[error("--gpu {value}: several GPUs carry that model number")]
    AmbiguousGpu {
        /// The value given.
        value: String,
        /// Each GPU's name and compute capability.
        names: Vec<(String, String)>,
    },

    /// `envhook man PAGE` for a page that does not exist.
    #[error("no man page for '{page}'")]
    UnknownManPage {
        /// The page asked for.
        page: String,
        /// The subcommands that have one.
        known: Vec<String>,
    },

    /// `envhook demo DIR` where DIR holds something that is not a demo.
    #[error("refusing to lay out the demo in {path}: it is {what}", path = .path.display())]
    NotADemo {
        /// The directory.
        path: PathBuf,
        /// What is there instead.
        what: &'static str,
        /// The file that marks a demo.
        marker: &'static str,
    },

    /// `envhook demo DIR` where DIR's path itself cannot hold a demo.
    #[error("refusing to lay out the demo in {path}: {why}", path = .path.display())]
    DemoPath {
        /// The directory, as given.
        path: PathBuf,
        /// What is wrong with its path.
        why: &'static str,
    },

    /// `envhook demo` could not lay its installation out. The I/O error
    /// names the path and the step itself (the demo's tree words its
    /// errors as `fs_err` does), so the message does not name it again.
    #[error("could not lay out the demo: {source}")]
    Demo {
        /// What failed, on which path.
        source: io::Error,
    },

    /// Writing the report failed (other than a closed pipe).
    #[error("could not write output: {0}")]
    Output(#[source] io::Error),
}

impl Error {
    /// The exit code the error ends the command with: 2, except for a
    /// command `run` could not start, which exits as shells do: 127 when
    /// it is not found, 126 when it cannot be executed.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Exec { source, .. } if source.kind() == io::ErrorKind::NotFound => 127,
            Error::Exec { .. } => 126,
            _ => 2,
        }
    }

    /// Wrap a write error with the path it concerns.
    pub fn write(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Write {
            path: path.into(),
            source,
        }
    }

    /// Wrap an I/O error with the path it concerns.
    pub fn read(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Read {
            path: path.into(),
            source,
        }
    }
}

/// Results in envhook.
pub type Result<T, E = Error> = std::result::Result<T, E>;
