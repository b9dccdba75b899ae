//! What a test needs of the machine beyond the tools `scripts/test`
//! installs, and the one way to go without it: a test that lacks what it
//! needs fails, unless `ENVHOOK_TEST_SKIP` names the missing thing; the
//! opt-in tiers say on the terminal that they did not run. A test that
//! printed "skipped" and passed would pass on a machine that tested
//! nothing (docs/development.md, "Test tiers").

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// The variable a run sets to go without something, comma-separated:
/// `ENVHOOK_TEST_SKIP=root,systemd-analyze`.
pub const SKIP_VAR: &str = "ENVHOOK_TEST_SKIP";

/// What `ENVHOOK_TEST_SKIP` may name, and what to do instead of naming it.
const NEEDS: &[(&str, &str)] = &[
    (
        "root",
        "run the tests as root (CI's .ci/run does: it chowns files to other uids and writes a loader cache for a fake root)",
    ),
    (
        "systemd-analyze",
        "apt-get install systemd (scripts/test installs it)",
    ),
];

/// An unprivileged uid for the files and processes of other users; no
/// account is needed to own files or to run as it (`setpriv`).
pub const OTHER_UID: u32 = 54321;

/// Whether the test runs with root's privileges (which ignore file modes).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Whether the test may go on with what needs `need` (one of [`NEEDS`]),
/// `present` or not: `true` when present; `false`, said on the terminal,
/// when absent and `ENVHOOK_TEST_SKIP` names it; a failure otherwise. A
/// test asks before the part that needs it, the whole test or one case.
pub fn require(need: &str, present: bool) -> bool {
    let how = NEEDS
        .iter()
        .find(|(n, _)| *n == need)
        .map(|(_, how)| *how)
        .unwrap_or_else(|| panic!("{need:?} is not in support::tiers::NEEDS"));
    if present {
        return true;
    }
    let test = std::thread::current().name().unwrap_or("?").to_string();
    assert!(
        skipped().iter().any(|s| s == need),
        "{test} needs {need}: {how}; or set {SKIP_VAR}={need} to go without it \
         (docs/development.md, \"Test tiers\")"
    );
    say(&format!("{test}: what needs {need} NOT RUN ({SKIP_VAR})"));
    false
}

/// Whether `program` runs (`program --version` exits 0).
pub fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The names `ENVHOOK_TEST_SKIP` holds; a name not in [`NEEDS`] fails
/// every test that asks, so that a misspelt opt-out is not a silent one.
fn skipped() -> Vec<String> {
    let list = std::env::var(SKIP_VAR).unwrap_or_default();
    let names: Vec<String> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    for name in &names {
        assert!(
            NEEDS.iter().any(|(n, _)| n == name),
            "{SKIP_VAR}={list}: {name:?} is none of {:?}",
            NEEDS.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
    }
    names
}

/// An opt-in tier's switch: the value of `var` (unset, empty or `0` is
/// off), or `None` after saying on the terminal that the test did not run
/// and how to run it (`how`).
pub fn opt_in(var: &str, how: &str) -> Option<std::ffi::OsString> {
    let value = std::env::var_os(var).filter(|v| !v.is_empty() && v != "0");
    if value.is_none() {
        let test = std::thread::current().name().unwrap_or("?").to_string();
        say(&format!("{test}: NOT RUN (opt-in: {how})"));
    }
    value
}

/// A line on the terminal, past the test harness's capture (which takes
/// only `print!` and `eprint!`): a test that did not run says so even
/// when it passes.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {line}");
}

impl super::Sandbox {
    /// `envhook` with the sandbox's clean environment (see
    /// [`super::Sandbox::envhook_std`]), run as [`OTHER_UID`] when the test
    /// runs as root, so that file modes bind it (root's CI would otherwise
    /// test nothing); as the test's own user otherwise. The sandbox is
    /// opened to that uid (a temporary directory is its creator's alone).
    pub fn envhook_unprivileged(&self) -> Command {
        if !is_root() {
            return self.envhook_std();
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut cmd = Command::new("/usr/bin/setpriv");
        cmd.args([
            &format!("--reuid={OTHER_UID}"),
            &format!("--regid={OTHER_UID}"),
            "--clear-groups",
        ])
        .arg(assert_cmd::cargo::cargo_bin("envhook"))
        .env_clear()
        .env("HOME", self.home())
        .env("PATH", self.path("bin"))
        .env("ENVHOOK_SYSROOT", self.path("sysroot"));
        cmd
    }
}

/// `chown -R -h UID:UID dir`: a tree another user owns.
pub fn chown_tree(dir: &Path, uid: u32) {
    let status = Command::new("chown")
        .args(["-R", "-h", &format!("{uid}:{uid}")])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}
