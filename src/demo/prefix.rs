//! Builds prefixes laid out like real conda environments: the demo's, and
//! the integration tests' (tests/it/support includes this file).
//!
//! Records carry the keys real conda and rattler records carry
//! (`../shared/reference/real-env-data.md` §1.2), with valid hash strings
//! and the quirks of real ones (`"features": ""`, `"track_features": ""`,
//! channel with and without subdir). Library files are real files and
//! symlinks arranged as the conda-forge and PyPI packages arrange them.
//! Every write goes through a [`Tree`], never by path.

use std::io;
use std::path::{Path, PathBuf};

use super::tree::Tree;

/// One file a package installs.
#[derive(Clone, Debug)]
pub enum FileSpec {
    /// A regular file with some bytes.
    File(&'static str),
    /// A symlink (relative target, as conda packages ship them).
    Link(&'static str, &'static str),
    /// Listed in the record but not on disk (a broken install).
    #[allow(dead_code)] // tests/it/support's broken installs; the demo has none
    Absent(&'static str),
}

impl FileSpec {
    fn rel(&self) -> &'static str {
        match self {
            FileSpec::File(p) | FileSpec::Link(p, _) | FileSpec::Absent(p) => p,
        }
    }
}

/// A conda package to install into a prefix.
#[derive(Clone, Debug)]
pub struct CondaPkg {
    pub name: &'static str,
    pub version: &'static str,
    pub build: &'static str,
    pub channel: &'static str,
    pub subdir: &'static str,
    pub depends: Vec<&'static str>,
    pub files: Vec<FileSpec>,
}

impl CondaPkg {
    /// A conda-forge linux-64 package.
    pub fn new(name: &'static str, version: &'static str, build: &'static str) -> Self {
        CondaPkg {
            name,
            version,
            build,
            channel: "https://conda.anaconda.org/conda-forge/",
            subdir: "linux-64",
            depends: Vec::new(),
            files: Vec::new(),
        }
    }

    pub fn files(mut self, files: Vec<FileSpec>) -> Self {
        self.files = files;
        self
    }

    pub fn depends(mut self, deps: Vec<&'static str>) -> Self {
        self.depends = deps;
        self
    }

    pub fn noarch(mut self) -> Self {
        self.subdir = "noarch";
        self
    }

    pub fn channel(mut self, channel: &'static str) -> Self {
        self.channel = channel;
        self
    }
}

/// A pip distribution to install into site-packages.
#[derive(Clone, Debug)]
pub struct PipDist {
    /// The distribution name as on PyPI (`nvidia-cuda-runtime-cu12`).
    pub name: &'static str,
    pub version: &'static str,
    pub installer: &'static str,
    /// Files relative to site-packages.
    pub files: Vec<FileSpec>,
    /// Extra files with contents (`torch/version.py`), also in RECORD.
    pub texts: Vec<(&'static str, String)>,
    /// `Requires-Dist:` lines of METADATA.
    pub requires: Vec<&'static str>,
}

impl PipDist {
    pub fn new(name: &'static str, version: &'static str) -> Self {
        PipDist {
            name,
            version,
            installer: "pip",
            files: Vec::new(),
            texts: Vec::new(),
            requires: Vec::new(),
        }
    }

    #[allow(dead_code)] // tests/it/support's prefixes pin; the demo's do not
    pub fn requires(mut self, requires: Vec<&'static str>) -> Self {
        self.requires = requires;
        self
    }

    pub fn files(mut self, files: Vec<FileSpec>) -> Self {
        self.files = files;
        self
    }

    pub fn text(mut self, rel: &'static str, body: impl Into<String>) -> Self {
        self.texts.push((rel, body.into()));
        self
    }

    #[allow(dead_code)] // tests/it/support's uv and conda installs; the demo's use pip
    pub fn installer(mut self, installer: &'static str) -> Self {
        self.installer = installer;
        self
    }
}

/// A prefix under construction.
pub struct Env {
    pub prefix: PathBuf,
    /// Where it is written.
    tree: Tree,
    python: Option<&'static str>,
    /// The bytes of every library file it gets: a real shared object, so
    /// that the loader simulation accepts it like the real thing.
    lib: &'static [u8],
}

fn hex(seed: &str, len: usize) -> String {
    // FNV-1a, repeated: a valid, stable hex digest of the right length.
    let mut out = String::new();
    let mut h: u64 = 0xcbf29ce484222325;
    while out.len() < len {
        for b in seed.bytes().chain(out.len().to_le_bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out.truncate(len);
    out
}

impl Env {
    /// An empty environment: `conda-meta/` with a `history` file.
    /// `lib` is what every library file it gets holds.
    #[allow(dead_code)] // for tests/it/support's prefixes; the demo opens its own
    pub fn new(prefix: impl Into<PathBuf>, lib: &'static [u8]) -> io::Result<Self> {
        Env::at(Tree::create(&prefix.into())?, lib)
    }

    /// [`Env::new`] in a directory already open.
    pub fn at(tree: Tree, lib: &'static [u8]) -> io::Result<Self> {
        tree.write(
            "conda-meta/history",
            "==> 2024-04-25 02:54:58 <==\n# cmd: /opt/conda/bin/conda create -n env\n# conda version: 24.3.0\n",
        )?;
        Ok(Env {
            prefix: tree.path().to_path_buf(),
            tree,
            python: None,
            lib,
        })
    }

    #[allow(dead_code)] // for tests/it/support's prefixes
    pub fn path(&self, rel: &str) -> PathBuf {
        self.prefix.join(rel)
    }

    /// Install a python record and create its site-packages.
    pub fn python(&mut self, version: &'static str) -> io::Result<&mut Self> {
        self.python = Some(version);
        self.tree.dir(self.site_rel())?;
        self.conda(
            CondaPkg::new("python", version, "hd12c33a_0_cpython")
                .files(vec![FileSpec::File("bin/python3")]),
        )?;
        if !self.tree.exists("bin/python")? {
            self.tree.symlink("python3", "bin/python")?;
        }
        Ok(self)
    }

    /// The site-packages directory (python must be installed first).
    #[allow(dead_code)] // for tests/it/support's prefixes
    pub fn site(&self) -> PathBuf {
        self.prefix.join(self.site_rel())
    }

    /// [`Env::site`], relative to the prefix.
    pub fn site_rel(&self) -> PathBuf {
        let v = self.python.expect("call python() first");
        let mm: Vec<&str> = v.split('.').take(2).collect();
        PathBuf::from(format!("lib/python{}/site-packages", mm.join(".")))
    }

    /// Write a file of the prefix (`rel` below it) with `bytes`.
    pub fn write(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> io::Result<()> {
        self.tree.write(rel, bytes)
    }

    /// Lay `files` out below `base` (relative to the prefix); the
    /// directory of an absent file is made all the same.
    fn lay_out(&self, base: &Path, files: &[FileSpec]) -> io::Result<()> {
        for f in files {
            let rel = base.join(f.rel());
            match f {
                FileSpec::File(_) => self.tree.write(&rel, self.lib)?,
                FileSpec::Link(_, target) => self.tree.symlink(target, &rel)?,
                FileSpec::Absent(_) => {
                    self.tree.dir(rel.parent().unwrap_or(Path::new("")))?;
                }
            }
        }
        Ok(())
    }

    /// Install a conda package: its files and its record. Returns the
    /// record's path.
    pub fn conda(&mut self, pkg: CondaPkg) -> io::Result<PathBuf> {
        self.lay_out(Path::new(""), &pkg.files)?;
        let fn_ = format!("{}-{}-{}.conda", pkg.name, pkg.version, pkg.build);
        let url = format!(
            "https://conda.anaconda.org/conda-forge/{}/{fn_}",
            pkg.subdir
        );
        let cache = format!(
            "/home/u/miniforge3/pkgs/{}-{}-{}",
            pkg.name, pkg.version, pkg.build
        );
        let paths: Vec<serde_json::Value> = pkg
            .files
            .iter()
            .map(|f| {
                let kind = match f {
                    FileSpec::Link(..) => "softlink",
                    _ => "hardlink",
                };
                serde_json::json!({
                    "_path": f.rel(),
                    "path_type": kind,
                    "sha256": hex(f.rel(), 64),
                    "sha256_in_prefix": hex(f.rel(), 64),
                    "size_in_bytes": self.lib.len(),
                })
            })
            .collect();
        let mut record = serde_json::json!({
            "build": pkg.build,
            "build_number": pkg.build.rsplit('_').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0),
            "channel": pkg.channel,
            "constrains": [],
            "depends": pkg.depends,
            "extracted_package_dir": cache,
            "features": "",
            "files": pkg.files.iter().map(FileSpec::rel).collect::<Vec<_>>(),
            "fn": fn_,
            "license": "LicenseRef-NVIDIA-End-User-License-Agreement",
            "link": {"source": cache, "type": 1},
            "md5": hex(&fn_, 32),
            "name": pkg.name,
            "package_tarball_full_path": format!("{cache}.conda"),
            "paths_data": {"paths": paths, "paths_version": 1},
            "requested_spec": "None",
            "sha256": hex(&url, 64),
            "size": 123456,
            "subdir": pkg.subdir,
            "timestamp": 1_718_000_000_000u64,
            "track_features": "",
            "url": url,
            "version": pkg.version,
        });
        if pkg.subdir == "noarch" {
            record["noarch"] = "generic".into();
        }
        let rel = format!("conda-meta/{}-{}-{}.json", pkg.name, pkg.version, pkg.build);
        self.tree
            .write(&rel, serde_json::to_string_pretty(&record)?)?;
        Ok(self.prefix.join(rel))
    }

    /// Install a pip distribution into site-packages. Returns the dist-info
    /// directory.
    pub fn pip(&mut self, dist: PipDist) -> io::Result<PathBuf> {
        let site = self.site_rel();
        self.lay_out(&site, &dist.files)?;
        let escaped = dist.name.replace('-', "_");
        let info_rel = format!("{escaped}-{}.dist-info", dist.version);
        let info = self.tree.dir(site.join(&info_rel))?;
        let requires: String = dist
            .requires
            .iter()
            .map(|r| format!("Requires-Dist: {r}\n"))
            .collect();
        info.write(
            "METADATA",
            format!(
                "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: fixture\nRequires-Python: >=3\n{requires}\nLong description.\n",
                dist.name, dist.version
            ),
        )?;
        info.write("INSTALLER", format!("{}\n", dist.installer))?;
        info.write(
            "WHEEL",
            "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.41.2)\nRoot-Is-Purelib: false\nTag: py3-none-manylinux2014_x86_64\n",
        )?;
        let mut record = String::new();
        for f in &dist.files {
            record.push_str(&format!(
                "{},sha256={},{}\n",
                f.rel(),
                hex(f.rel(), 43),
                self.lib.len()
            ));
        }
        for (rel, body) in &dist.texts {
            self.tree.write(site.join(rel), body)?;
            record.push_str(&format!("{rel},sha256={},{}\n", hex(rel, 43), body.len()));
        }
        for meta in ["METADATA", "INSTALLER", "WHEEL"] {
            record.push_str(&format!("{info_rel}/{meta},,\n"));
        }
        record.push_str(&format!("{info_rel}/RECORD,,\n"));
        info.write("RECORD", record)?;
        Ok(info.path().to_path_buf())
    }
}
