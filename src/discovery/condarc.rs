//! The `envs_dirs` setting of conda's configuration files.
//!
//! conda reads a fixed list of files and `condarc.d/` directories
//! (`conda/base/constants.py`, `SEARCH_PATH`); envhook reads the same list,
//! with the system ones under [`Context::sysroot`], and takes `envs_dirs`
//! (or its alias `envs_path`) from each. Values may be a list or an
//! `os.pathsep`-separated string and may use `~` and `$VAR`.

use std::path::{Path, PathBuf};

use super::Context;
use crate::env_vars;

/// The configuration files conda would read, in conda's order, that exist.
/// `roots` stand in for `$CONDA_ROOT` (envhook may see several installs).
pub fn search_path(ctx: &Context, roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut bases: Vec<PathBuf> = vec![
        ctx.system_path("/etc/conda"),
        ctx.system_path("/var/lib/conda"),
    ];
    bases.extend(roots.iter().cloned());
    let mut candidates = Vec::new();
    let push_base = |base: PathBuf, candidates: &mut Vec<PathBuf>| {
        candidates.push(base.join(".condarc"));
        candidates.push(base.join("condarc"));
        candidates.extend(condarc_d(&base.join("condarc.d")));
    };
    for base in bases {
        push_base(base, &mut candidates);
    }
    let xdg = ctx
        .var_path(env_vars::XDG_CONFIG_HOME)
        .or_else(|| ctx.home().map(|h| h.join(".config")));
    if let Some(xdg) = xdg {
        push_base(xdg.join("conda"), &mut candidates);
    }
    if let Some(home) = ctx.home() {
        if ctx.var(env_vars::XDG_CONFIG_HOME).is_some() {
            push_base(home.join(".config").join("conda"), &mut candidates);
        }
        push_base(home.join(".conda"), &mut candidates);
        candidates.push(home.join(".condarc"));
    }
    if let Some(prefix) = ctx.var_path(env_vars::CONDA_PREFIX) {
        push_base(prefix, &mut candidates);
    }
    if let Some(file) = ctx.var_path(env_vars::CONDARC) {
        candidates.push(file);
    }
    let mut seen = Vec::new();
    candidates.retain(|c| {
        let keep = c.is_file() && !seen.contains(c);
        if keep {
            seen.push(c.clone());
        }
        keep
    });
    candidates
}

/// The `*.yml`/`*.yaml` files of a `condarc.d` directory, sorted.
fn condarc_d(dir: &Path) -> Vec<PathBuf> {
    let mut files = crate::paths::dir_entries(dir);
    files.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yml" | "yaml")));
    files
}

/// A real `.condarc` is a few kilobytes; 1 MiB leaves room for comments
/// and long channel lists, and keeps a corrupt or hostile file (they are
/// read as root by `audit`) from costing seconds and hundreds of
/// megabytes in the YAML parser.
pub const MAX_BYTES: u64 = 1 << 20;

/// conda's settings nest a few levels (`channel_settings`, `proxy_servers`);
/// libyaml's cost grows with the square of the nesting depth (10^5 levels
/// took 50 s), so deeper files are refused before parsing.
pub const MAX_DEPTH: usize = 64;

/// The envs directories one file configures, expanded.
pub fn read_envs_dirs(file: &Path, ctx: &Context) -> Result<Vec<PathBuf>, String> {
    let bytes = crate::paths::read_regular(file, MAX_BYTES).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_string())?;
    parse_envs_dirs(&text, ctx)
}

/// An upper bound of a YAML text's nesting depth, found in one pass
/// without parsing: the open flow collections (`[`, `{` outside quotes and
/// comments) plus the block levels (distinct, increasing indentations,
/// sequence dashes counting as indentation).
fn nesting_depth(text: &str) -> usize {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    let mut deepest = 0usize;
    for line in text.lines() {
        let body = line.trim_start_matches([' ', '-']);
        if flow == 0 && !body.is_empty() && !body.starts_with('#') {
            let indent = line.len() - body.len();
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
        }
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for c in body.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '#') if prev == ' ' => break,
                (None, '[' | '{') => flow += 1,
                (None, ']' | '}') => flow = flow.saturating_sub(1),
                _ => {}
            }
            deepest = deepest.max(indents.len() + flow);
            prev = c;
        }
    }
    deepest
}

/// Parse `envs_dirs` / `envs_path` out of a `.condarc` text.
pub fn parse_envs_dirs(text: &str, ctx: &Context) -> Result<Vec<PathBuf>, String> {
    if nesting_depth(text) > MAX_DEPTH {
        return Err(format!(
            "it nests deeper than the {MAX_DEPTH} levels envhook reads (conda's settings nest a few)"
        ));
    }
    let doc: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| format!("not valid YAML ({e})"))?;
    let map = match doc {
        serde_yaml::Value::Null => return Ok(Vec::new()),
        serde_yaml::Value::Mapping(m) => m,
        _ => return Err("the top level is not a mapping".into()),
    };
    let mut raw: Vec<String> = Vec::new();
    for key in ["envs_dirs", "envs_path"] {
        match map.get(key) {
            None | Some(serde_yaml::Value::Null) => {}
            Some(serde_yaml::Value::String(s)) => raw.extend(s.split(':').map(str::to_string)),
            Some(serde_yaml::Value::Sequence(items)) => {
                for item in items {
                    match item {
                        serde_yaml::Value::String(s) => raw.push(s.clone()),
                        other => return Err(format!("{key} holds a non-string entry: {other:?}")),
                    }
                }
            }
            Some(_) => return Err(format!("{key} is neither a list nor a string")),
        }
    }
    Ok(raw
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| expand(s, ctx))
        .collect())
}

/// `~` and `$VAR` / `${VAR}` expansion; unknown variables stay as written,
/// as Python's `os.path.expandvars` leaves them.
fn expand(entry: &str, ctx: &Context) -> PathBuf {
    let expanded = shellexpand::full_with_context_no_errors(
        entry,
        || ctx.home().and_then(Path::to_str),
        |var| ctx.var_str(var),
    );
    PathBuf::from(expanded.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context::fake(Path::new("/home/u"), &[("SCRATCH", "/scratch/u")])
    }

    #[test]
    fn reads_lists_strings_and_aliases() {
        let text = "channels: [conda-forge]\nenvs_dirs:\n  - ~/envs\n  - $SCRATCH/envs\n  - ${SCRATCH}/more\n  - $NOPE/x\nenvs_path: /a:/b\n";
        let dirs = parse_envs_dirs(text, &ctx()).unwrap();
        let want: Vec<PathBuf> = [
            "/home/u/envs",
            "/scratch/u/envs",
            "/scratch/u/more",
            "$NOPE/x",
            "/a",
            "/b",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(dirs, want);
    }

    #[test]
    fn nesting_is_bounded_before_parsing() {
        let real = "channels:\n  - conda-forge\nchannel_settings:\n  - channel: x\n    auth: y\nproxy_servers: {http: 'http://p:8080', https: \"[not {a flow\"}\nenvs_dirs: [~/envs] # [[[[\n";
        assert!(nesting_depth(real) <= 4, "{}", nesting_depth(real));
        assert_eq!(
            parse_envs_dirs(real, &ctx()).unwrap(),
            vec![PathBuf::from("/home/u/envs")]
        );
        let flow = format!(
            "envs_dirs: {}{}\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let block: String = (0..100)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        for deep in [flow, block] {
            // The depth message, not the parser's: refused before parsing.
            let err = parse_envs_dirs(&deep, &ctx()).unwrap_err();
            assert!(err.contains("nests deeper than the 64 levels"), "{err}");
        }
        let ok_depth = format!("envs_dirs: {}{}\n", "[".repeat(60), "]".repeat(60));
        assert!(parse_envs_dirs(&ok_depth, &ctx()).is_err_and(|e| !e.contains("nests")));
    }

    #[test]
    fn empty_and_broken_files() {
        assert_eq!(parse_envs_dirs("", &ctx()).unwrap(), Vec::<PathBuf>::new());
        assert_eq!(
            parse_envs_dirs("# only a comment\n", &ctx()).unwrap(),
            Vec::<PathBuf>::new()
        );
        assert!(
            parse_envs_dirs("envs_dirs: [unclosed", &ctx())
                .unwrap_err()
                .contains("YAML")
        );
        assert!(parse_envs_dirs("- a\n- b\n", &ctx()).is_err());
        assert!(parse_envs_dirs("envs_dirs: {a: 1}\n", &ctx()).is_err());
    }
}
