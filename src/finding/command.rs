//! A fix's command line as words, quoted once, where it is shown.
//!
//! A [`Cmd`] keeps what each word is: shell text envhook wrote itself
//! (a program, a flag, an operator), a value (a package, a version spec),
//! or a path. Values and paths are quoted only when the line is rendered,
//! so a prefix holding spaces, `$` or `'` pastes as it reads, and audit can
//! set one environment's prefix aside by comparing paths component by
//! component ([`Cmd::generalised`]) and run the command for each of several
//! environments ([`Cmd::for_each`]) without reading its own quoting back.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use super::quoted;

/// One piece of a command line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Part {
    /// Shell text written as it is, spaces included: envhook's own words
    /// (`pip install`, `&&`, `-p`) or a catalogue's (data/*.toml), never a
    /// value read from an environment or the machine.
    Raw(Cow<'static, str>),
    /// A value: quoted.
    Value(String),
    /// A path: quoted.
    Path(PathBuf),
    /// A path inside the environment a group of findings shares, relative
    /// to its prefix (empty for the prefix itself): see [`Cmd::generalised`].
    InEnv(PathBuf),
}

/// One line for bash (or any POSIX shell) that a user pastes as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Cmd {
    parts: Vec<Part>,
}

/// The loop variable of [`Cmd::for_each`].
const VAR: &str = "\"$env\"";

impl Cmd {
    /// A command that starts with envhook's own text: `Cmd::new("envhook install -p")`.
    pub fn new(text: &'static str) -> Cmd {
        Cmd::default().raw(text)
    }

    /// A command whose text comes whole from a catalogue row (data/*.toml),
    /// written there as it is to be pasted.
    pub fn from_catalogue(text: String) -> Cmd {
        Cmd {
            parts: vec![Part::Raw(Cow::Owned(text))],
        }
    }

    /// Another word of envhook's own text, after a space.
    pub fn raw(self, text: &'static str) -> Cmd {
        self.word(Part::Raw(Cow::Borrowed(text)))
    }

    /// Text of envhook's own, right after the last word (no space):
    /// a closing `)"`, a `-cu12` suffix.
    pub fn glued(mut self, text: &'static str) -> Cmd {
        self.parts.push(Part::Raw(Cow::Borrowed(text)));
        self
    }

    /// A path right after the last word (no space): `NAME='/path'`.
    pub fn glued_path(mut self, path: impl Into<PathBuf>) -> Cmd {
        self.parts.push(Part::Path(path.into()));
        self
    }

    /// A value right after the last word (no space): `NAME='value'`.
    pub fn glued_value(mut self, value: impl Into<String>) -> Cmd {
        self.parts.push(Part::Value(value.into()));
        self
    }

    /// A value, after a space; quoted when rendered.
    pub fn arg(self, value: impl Into<String>) -> Cmd {
        self.word(Part::Value(value.into()))
    }

    /// Values, each after a space.
    pub fn args<S: Into<String>>(self, values: impl IntoIterator<Item = S>) -> Cmd {
        values.into_iter().fold(self, Cmd::arg)
    }

    /// A path, after a space; quoted when rendered.
    pub fn path(self, path: impl Into<PathBuf>) -> Cmd {
        self.word(Part::Path(path.into()))
    }

    /// `self && next`.
    pub fn and(self, next: Cmd) -> Cmd {
        let mut cmd = self.raw("&&");
        cmd.parts.push(Part::Raw(Cow::Borrowed(" ")));
        cmd.parts.extend(next.parts);
        cmd
    }

    /// `a && b && ...`; empty for none.
    pub fn all(cmds: impl IntoIterator<Item = Cmd>) -> Cmd {
        cmds.into_iter().fold(
            Cmd::default(),
            |acc, c| {
                if acc.is_empty() { c } else { acc.and(c) }
            },
        )
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    fn word(mut self, part: Part) -> Cmd {
        if !self.parts.is_empty() {
            self.parts.push(Part::Raw(Cow::Borrowed(" ")));
        }
        self.parts.push(part);
        self
    }

    /// The same command with every path inside `env` (compared component
    /// by component, so `/envs/a` is not inside `/envs/ab`) held relative
    /// to it: two environments' commands that differ only in their own
    /// prefix become equal.
    pub fn generalised(&self, env: &Path) -> Cmd {
        let parts = self.parts.iter().map(|p| match p {
            Part::Path(path) => match path.strip_prefix(env) {
                Ok(rest) => Part::InEnv(rest.to_path_buf()),
                Err(_) => p.clone(),
            },
            _ => p.clone(),
        });
        Cmd {
            parts: parts.collect(),
        }
    }

    /// Whether the command names the environment it was
    /// [generalised](Cmd::generalised) for.
    pub fn names_env(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::InEnv(_)))
    }

    /// The line for one environment: its paths given back.
    pub fn in_env(&self, env: &Path) -> String {
        self.render_with(&|rest: &Path| quoted_path_of(&join(env, rest)))
    }

    /// One POSIX line that runs the command for each of `envs`:
    /// `for env in '/a' '/b'; do envhook install -p "$env"; done`, or the
    /// command itself where it names no environment.
    pub fn for_each(&self, envs: &[PathBuf]) -> String {
        if !self.names_env() {
            return self.to_string();
        }
        let body = self.render_with(&|rest: &Path| {
            if rest.as_os_str().is_empty() {
                VAR.to_string()
            } else {
                format!("{VAR}{}", quoted(&format!("/{}", rest.to_string_lossy())))
            }
        });
        let list: Vec<String> = envs.iter().map(|p| quoted_path_of(p)).collect();
        format!("for env in {}; do {body}; done", list.join(" "))
    }

    fn render_with(&self, in_env: &dyn Fn(&Path) -> String) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Raw(text) => out.push_str(text),
                Part::Value(v) => out.push_str(&quoted(v)),
                Part::Path(path) => out.push_str(&quoted_path_of(path)),
                Part::InEnv(rest) => out.push_str(&in_env(rest)),
            }
        }
        out
    }
}

fn join(env: &Path, rest: &Path) -> PathBuf {
    if rest.as_os_str().is_empty() {
        env.to_path_buf()
    } else {
        env.join(rest)
    }
}

fn quoted_path_of(p: &Path) -> String {
    quoted(&p.to_string_lossy())
}

/// The line as pasted. A generalised command shows its environment as
/// `<env>` (it is only rendered this way by mistake; audit renders it with
/// [`Cmd::in_env`] or [`Cmd::for_each`]).
impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            &self.render_with(&|rest: &Path| quoted_path_of(&join(Path::new("<env>"), rest))),
        )
    }
}

impl serde::Serialize for Cmd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Cmd {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cmd, D::Error> {
        String::deserialize(d).map(Cmd::from_catalogue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn install(prefix: &str) -> Cmd {
        Cmd::new("envhook install -p").path(prefix)
    }

    #[test]
    fn values_and_paths_are_quoted_once() {
        let cmd = Cmd::default()
            .path("/envs/it's/bin/python")
            .raw("-m pip install")
            .arg("torch==2.6.0")
            .and(install("/envs/a b"));
        assert_eq!(
            cmd.to_string(),
            "'/envs/it'\\''s/bin/python' -m pip install 'torch==2.6.0' && envhook install -p '/envs/a b'"
        );
    }

    #[test]
    fn a_prefix_is_set_aside_by_components_not_text() {
        let a = install("/envs/a").generalised(Path::new("/envs/a"));
        let ab = install("/envs/ab").generalised(Path::new("/envs/a"));
        assert!(a.names_env());
        assert!(!ab.names_env());
        assert_ne!(a, ab);
        let quote = install("/envs/it's").generalised(Path::new("/envs/it's"));
        assert_eq!(a, quote.generalised(Path::new("/x")));
        assert_eq!(
            quote.in_env(Path::new("/envs/it's")),
            "envhook install -p '/envs/it'\\''s'"
        );
    }

    /// What sh makes of the loop: each prefix whole, spaces and quotes kept.
    #[test]
    fn the_loop_gives_each_prefix_as_one_word() {
        let cmd = Cmd::new("printf '[%s]\\n'")
            .path("/p/lib")
            .path("/p")
            .arg("x")
            .generalised(Path::new("/p"));
        let line = cmd.for_each(&["/a b".into(), "/it's".into()]);
        let out = std::process::Command::new("sh")
            .args(["-c", &line])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "[/a b/lib]\n[/a b]\n[x]\n[/it's/lib]\n[/it's]\n[x]\n"
        );
    }

    #[test]
    fn a_command_naming_no_environment_is_given_once() {
        let cmd = Cmd::new("nvidia-smi").generalised(Path::new("/p"));
        assert_eq!(cmd.for_each(&["/a".into(), "/b".into()]), "nvidia-smi");
    }

    #[test]
    fn json_keeps_the_line() {
        let json = serde_json::to_string(&install("/e")).unwrap();
        assert_eq!(json, "\"envhook install -p '/e'\"");
        let back: Cmd = serde_json::from_str("\"nvidia-smi -q\"").unwrap();
        assert_eq!(back.to_string(), "nvidia-smi -q");
    }
}
