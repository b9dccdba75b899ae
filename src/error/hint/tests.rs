//! Every hint as it reads, one error of each kind (and of each case a
//! hint tells apart), so moving or reshaping the hints cannot change one
//! unseen.

use std::io;
use std::path::PathBuf;

use super::super::{Conflict, Error};

fn io(kind: io::ErrorKind) -> io::Error {
    io::Error::from(kind)
}

fn p(path: &str) -> PathBuf {
    PathBuf::from(path)
}

/// One error of each kind, and of each case a hint tells apart, by name.
fn cases() -> Vec<(&'static str, Error)> {
    use io::ErrorKind::{NotFound, PermissionDenied, ReadOnlyFilesystem};
    vec![
        ("NoEnvSelected", Error::NoEnvSelected),
        (
            "PrefixMissing conda",
            Error::PrefixMissing {
                path: p("/gone"),
                from_var: Some("CONDA_PREFIX"),
            },
        ),
        (
            "PrefixMissing venv",
            Error::PrefixMissing {
                path: p("/gone"),
                from_var: Some("VIRTUAL_ENV"),
            },
        ),
        (
            "PrefixMissing",
            Error::PrefixMissing {
                path: p("/gone"),
                from_var: None,
            },
        ),
        (
            "NotAnEnv",
            Error::NotAnEnv {
                path: p("/d"),
                why: "no conda-meta/",
            },
        ),
        (
            "VenvScript",
            Error::VenvScript {
                path: p("/v/bin/activate"),
                why: "changed",
            },
        ),
        (
            "Kernelspec",
            Error::Kernelspec {
                path: p("/k/kernel.json.envhook"),
                why: "changed",
            },
        ),
        (
            "UnknownEnv none",
            Error::UnknownEnv {
                name: "x".into(),
                known: vec![],
            },
        ),
        (
            "UnknownEnv",
            Error::UnknownEnv {
                name: "x".into(),
                known: vec![(Some("base".into()), p("/c")), (None, p("/e"))],
            },
        ),
        (
            "NameOutsideEnvsDirs",
            Error::NameOutsideEnvsDirs {
                name: "x".into(),
                candidates: vec![p("/a/x"), p("/b b/x")],
            },
        ),
        (
            "PixiProjectAmbiguous",
            Error::PixiProjectAmbiguous {
                project: p("/p"),
                envs: vec![p("/p/.pixi/envs/a"), p("/p/.pixi/envs/b")],
            },
        ),
        (
            "Read denied",
            Error::Read {
                path: p("/r"),
                source: io(PermissionDenied),
            },
        ),
        (
            "Read",
            Error::Read {
                path: p("/r"),
                source: io(NotFound),
            },
        ),
        (
            "BadRecord",
            Error::BadRecord {
                path: p("/r.json"),
                reason: "eof".into(),
            },
        ),
        (
            "BadDistInfo",
            Error::BadDistInfo {
                path: p("/METADATA"),
                reason: "eof".into(),
            },
        ),
        (
            "UnsupportedPrefix",
            Error::UnsupportedPrefix {
                path: p("/a:b"),
                why: "a colon",
            },
        ),
        (
            "Write denied",
            Error::Write {
                path: p("/w"),
                source: io(PermissionDenied),
            },
        ),
        (
            "Write read-only",
            Error::Write {
                path: p("/w"),
                source: io(ReadOnlyFilesystem),
            },
        ),
        (
            "Write",
            Error::Write {
                path: p("/w"),
                source: io(NotFound),
            },
        ),
        (
            "RecordTooLarge",
            Error::RecordTooLarge {
                path: p("/r.json"),
                max: 64 << 20,
            },
        ),
        (
            "PrivateDir",
            Error::PrivateDir {
                path: p("/run/envhook"),
                why: "not ours".into(),
            },
        ),
        (
            "NotAFile",
            Error::NotAFile {
                path: p("/dev/null"),
                what: "a character device",
            },
        ),
        (
            "PlantedLink",
            Error::PlantedLink {
                link: p("/e/etc"),
                target: p("/etc"),
            },
        ),
        (
            "NotOurs",
            Error::NotOurs {
                conflicts: vec![Conflict {
                    path: p("/e/x"),
                    what: "a file".into(),
                }],
            },
        ),
        (
            "Locked",
            Error::Locked {
                prefix: p("/e"),
                secs: 30,
            },
        ),
        ("NotInstalled", Error::NotInstalled { prefix: p("/e") }),
        (
            "Exec",
            Error::Exec {
                program: "nope".into(),
                source: io(NotFound),
            },
        ),
        (
            "BadMatrix",
            Error::BadMatrix {
                path: p("/m.toml"),
                reason: "eof".into(),
            },
        ),
        ("NoMessage", Error::NoMessage { stdin: "was empty" }),
        ("EnvsDirMissing", Error::EnvsDirMissing { path: p("/envs") }),
        (
            "UnknownGpu number",
            Error::UnknownGpu {
                value: "4091".into(),
                suggestions: vec![],
            },
        ),
        (
            "UnknownGpu like",
            Error::UnknownGpu {
                value: "A10O".into(),
                suggestions: vec!["A100".into(), "A10".into()],
            },
        ),
        (
            "UnknownGpu",
            Error::UnknownGpu {
                value: "Quadro".into(),
                suggestions: vec![],
            },
        ),
        (
            "AmbiguousGpu",
            Error::AmbiguousGpu {
                value: "6000".into(),
                names: vec![
                    ("RTX A6000".into(), "8.6".into()),
                    ("Quadro RTX 6000".into(), "7.5".into()),
                ],
            },
        ),
        (
            "UnknownManPage",
            Error::UnknownManPage {
                page: "x".into(),
                known: vec!["check".into(), "show".into()],
            },
        ),
        (
            "NotADemo",
            Error::NotADemo {
                path: p("/home/u"),
                what: "a file",
                marker: ".envhook-demo",
            },
        ),
        (
            "DemoPath",
            Error::DemoPath {
                path: p("/a\nb"),
                why: "a line break",
            },
        ),
        (
            "Demo denied",
            Error::Demo {
                source: io(PermissionDenied),
            },
        ),
        (
            "Demo",
            Error::Demo {
                source: io(NotFound),
            },
        ),
        ("Output", Error::Output(io(io::ErrorKind::StorageFull))),
    ]
}

/// The variant's name: a variant added without a case here does not
/// compile, and [`every_hint_reads_as_it_did`] counts the names it meets.
fn variant(e: &Error) -> &'static str {
    match e {
        Error::NoEnvSelected => "NoEnvSelected",
        Error::PrefixMissing { .. } => "PrefixMissing",
        Error::NotAnEnv { .. } => "NotAnEnv",
        Error::VenvScript { .. } => "VenvScript",
        Error::Kernelspec { .. } => "Kernelspec",
        Error::UnknownEnv { .. } => "UnknownEnv",
        Error::NameOutsideEnvsDirs { .. } => "NameOutsideEnvsDirs",
        Error::PixiProjectAmbiguous { .. } => "PixiProjectAmbiguous",
        Error::Read { .. } => "Read",
        Error::BadRecord { .. } => "BadRecord",
        Error::BadDistInfo { .. } => "BadDistInfo",
        Error::UnsupportedPrefix { .. } => "UnsupportedPrefix",
        Error::Write { .. } => "Write",
        Error::RecordTooLarge { .. } => "RecordTooLarge",
        Error::PrivateDir { .. } => "PrivateDir",
        Error::NotAFile { .. } => "NotAFile",
        Error::PlantedLink { .. } => "PlantedLink",
        Error::NotOurs { .. } => "NotOurs",
        Error::Locked { .. } => "Locked",
        Error::NotInstalled { .. } => "NotInstalled",
        Error::Exec { .. } => "Exec",
        Error::BadMatrix { .. } => "BadMatrix",
        Error::NoMessage { .. } => "NoMessage",
        Error::EnvsDirMissing { .. } => "EnvsDirMissing",
        Error::UnknownGpu { .. } => "UnknownGpu",
        Error::AmbiguousGpu { .. } => "AmbiguousGpu",
        Error::UnknownManPage { .. } => "UnknownManPage",
        Error::NotADemo { .. } => "NotADemo",
        Error::DemoPath { .. } => "DemoPath",
        Error::Demo { .. } => "Demo",
        Error::Output(_) => "Output",
    }
}

/// How many variants [`variant`] names.
const VARIANTS: usize = 31;

#[test]
fn every_hint_reads_as_it_did() {
    let want: &[(&str, Option<&str>)] = &[
        (
            "NoEnvSelected",
            Some(
                "pass -n NAME or -p PREFIX, run envhook inside an activated environment (VIRTUAL_ENV, CONDA_PREFIX), or in a directory with a .venv in it or above it (`envhook envs` lists the environments it can find)",
            ),
        ),
        (
            "PrefixMissing conda",
            Some(
                "CONDA_PREFIX points at a removed environment; run `conda deactivate` or pass -n NAME / -p PREFIX",
            ),
        ),
        (
            "PrefixMissing venv",
            Some(
                "VIRTUAL_ENV points at a removed environment; run `deactivate` or pass -n NAME / -p PREFIX",
            ),
        ),
        (
            "PrefixMissing",
            Some("check the path; `envhook envs` lists the environments it can find"),
        ),
        (
            "NotAnEnv",
            Some(
                "a conda environment is a directory with a conda-meta/ folder; pass the environment's prefix (e.g. ~/miniconda3/envs/NAME) or a pixi project with .pixi/envs/",
            ),
        ),
        (
            "VenvScript",
            Some(
                "envhook adds to a venv's activation script, and takes out of it, only the block it wrote, unchanged: remove the lines from `# >>> envhook >>>` to `# <<< envhook <<<` in /v/bin/activate yourself (the rest is the venv's), then run envhook again",
            ),
        ),
        (
            "Kernelspec",
            Some(
                "envhook sets LD_LIBRARY_PATH in a kernelspec's env, and puts the file back, only where it can do so exactly: make /k/kernel.json what you want the kernel to get (its env's LD_LIBRARY_PATH included), delete kernel.json.envhook beside it, then run envhook again",
            ),
        ),
        (
            "UnknownEnv none",
            Some(
                "envhook found no environments at all; pass the prefix with -p, or set CONDA_EXE / MAMBA_ROOT_PREFIX so it can find your installation",
            ),
        ),
        (
            "UnknownEnv",
            Some("environments found:\n  base                 /c\n  -                    /e"),
        ),
        (
            "NameOutsideEnvsDirs",
            Some(
                "listed in environments.txt outside them; select it by path: -p '/a/x' or -p '/b b/x'",
            ),
        ),
        (
            "PixiProjectAmbiguous",
            Some("pick one with -p:\n  /p/.pixi/envs/a\n  /p/.pixi/envs/b"),
        ),
        (
            "Read denied",
            Some("run envhook as a user who can read the environment"),
        ),
        ("Read", None),
        (
            "BadRecord",
            Some(
                "the record is damaged; reinstall the package (`conda install --force-reinstall -p PREFIX NAME`) or remove the stray file from conda-meta/",
            ),
        ),
        (
            "BadDistInfo",
            Some(
                "the pip metadata is damaged; reinstall the distribution (`pip install --force-reinstall --no-deps NAME==VERSION`)",
            ),
        ),
        (
            "UnsupportedPrefix",
            Some(
                "recreate the environment under a plain path (`conda create -p /path/without/colons`), or set LD_LIBRARY_PATH yourself",
            ),
        ),
        (
            "Write denied",
            Some(
                "the environment is read-only for this user (another owner, or a read-only mount); run envhook as the environment's owner, or see what it would write with --dry-run",
            ),
        ),
        (
            "Write read-only",
            Some(
                "the environment is read-only for this user (another owner, or a read-only mount); run envhook as the environment's owner, or see what it would write with --dry-run",
            ),
        ),
        ("Write", None),
        (
            "RecordTooLarge",
            Some(
                "reinstall the package so conda rewrites its record; envhook leaves it out of the checks meanwhile",
            ),
        ),
        (
            "PrivateDir",
            Some(
                "remove /run/envhook (envhook makes it again, mode 0700), or run envhook install on the environment so run uses its own link directory",
            ),
        ),
        (
            "NotAFile",
            Some(
                "envhook writes only regular files, replacing them whole; name a file that does not exist yet or is one, or write to standard output",
            ),
        ),
        (
            "PlantedLink",
            Some(
                "envhook writes only through real directories inside the environment and never follows a symbolic link there; if the link is yours, replace it with what it points at (a real directory or file) and run envhook again; if it is not, someone planted it: look at '/e/etc' before anything else writes there",
            ),
        ),
        (
            "NotOurs",
            Some(
                "envhook replaces and removes only what carries its mark (files that begin with `# envhook:owned`, directories holding `.envhook-owned`); move these aside or rename them, then run envhook again",
            ),
        ),
        (
            "Locked",
            Some(
                "an envhook install, uninstall or audit --fix is still running on this environment (a killed one releases the lock at once); wait for it, or find it with `pgrep -a envhook`",
            ),
        ),
        (
            "NotInstalled",
            Some(
                "run `envhook install -p /e` first: it creates lib/envhook/cuda, which holds the CUDA libraries only (in an image, run it there too); --mode dirs exports the library directories as they are, all of lib/ included, whose libstdc++ and libcrypto then shadow the system's",
            ),
        ),
        ("Exec", Some("check the command name and PATH")),
        (
            "BadMatrix",
            Some(
                "a matrix file has the tables of data/matrix.toml (driver_floor, toolkit_driver, arch, gpu, cudnn, framework, dlopen), every row with a source",
            ),
        ),
        (
            "NoMessage",
            Some(
                "give it as an argument (`envhook explain \"libcudnn.so.8: cannot open shared object file\"`) or pipe it in (`python train.py 2>&1 | envhook explain -`)",
            ),
        ),
        (
            "EnvsDirMissing",
            Some(
                "give an envs directory, a pixi project or an environment that exists (`envhook envs` lists what envhook finds without it)",
            ),
        ),
        (
            "UnknownGpu number",
            Some(
                "a bare number is a GPU's model number (`--gpu 4090`: the RTX 4090), else a compute capability without its dot (`--gpu 89`); write a compute capability as sm_89 or 8.9, one the matrix's [[arch]] table holds",
            ),
        ),
        (
            "UnknownGpu like",
            Some("known names like it: A100, A10; or give the compute capability (`--gpu sm_90`)"),
        ),
        (
            "UnknownGpu",
            Some(
                "give the compute capability (`--gpu sm_90`, `--gpu 8.6`), or add the GPU to a --matrix file's [[gpu]] table",
            ),
        ),
        (
            "AmbiguousGpu",
            Some("name one: RTX-A6000 (sm_86), Quadro-RTX-6000 (sm_75)"),
        ),
        ("UnknownManPage", Some("pages: envhook, check, show")),
        (
            "NotADemo",
            Some(
                "envhook demo writes only into a directory that does not exist, an empty one, or an earlier demo (which holds .envhook-demo), and /home/u is none of these; name another directory: `envhook demo DIR`",
            ),
        ),
        (
            "DemoPath",
            Some(
                "name a directory whose path holds no line break and ends in its name: `envhook demo DIR`",
            ),
        ),
        (
            "Demo denied",
            Some("name a directory this user can write: `envhook demo DIR`"),
        ),
        ("Demo", None),
        ("Output", None),
    ];
    let cases = cases();
    assert_eq!(cases.len(), want.len());
    let mut seen = std::collections::BTreeSet::new();
    for ((name, e), (want_name, want_hint)) in cases.iter().zip(want) {
        assert_eq!(name, want_name);
        assert!(name.starts_with(variant(e)), "{name} is not {}", variant(e));
        seen.insert(variant(e));
        assert_eq!(e.hint().as_deref(), *want_hint, "{name}");
    }
    assert_eq!(seen.len(), VARIANTS, "a variant has no case: {seen:?}");
}
