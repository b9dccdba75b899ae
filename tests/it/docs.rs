//! The documentation, held to the program so that the two cannot drift:
//! the README stays short and starts with its two commands, every link in
//! it and in `docs/` resolves (anchors included), every finding code the
//! source can emit is in `docs/findings.md` and nothing else is, every
//! command and option `--help` shows is in `docs/commands.md`, and
//! `docs/exit-codes.md` and `docs/files.md` state the man pages' EXIT
//! STATUS and FILES word for word.
//! The variables of `docs/environment.md` are the ENVIRONMENT section's.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use support::{Sandbox, source};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `envhook ARGS` in a sandbox; its stdout.
fn envhook(args: &[&str]) -> String {
    let (code, out, err) = Sandbox::new().run(args);
    assert_eq!(code, 0, "envhook {args:?}: {err}");
    out
}

#[test]
fn the_readme_is_short_and_starts_with_its_two_commands() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md is {lines} lines; reference belongs in docs/"
    );
    let first_block: Vec<&str> = readme
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap()
        .lines()
        .collect();
    assert_eq!(first_block.len(), 2, "{first_block:?}");
    assert!(first_block[0].starts_with("cargo run -q -- demo /tmp/envhook-demo"));
    assert_eq!(first_block[1], "scripts/test");
    // CI runs both of the README's commands exactly as written.
    for command in first_block {
        assert!(
            read(".ci/run").lines().any(|l| l.trim() == command),
            ".ci/run does not run `{command}`"
        );
    }
}

/// The Markdown files whose links are checked.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![
        PathBuf::from("README.md"),
        PathBuf::from("hooks/README.md"),
        PathBuf::from("CHANGELOG.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(ROOT).unwrap().to_path_buf())
        .collect();
    docs.sort();
    assert!(docs.len() >= 10, "{docs:?}");
    pages.extend(docs);
    pages
}

/// The targets of `[text](target)` links outside code blocks and spans.
fn links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold no links.
        let prose: String = line
            .split('`')
            .enumerate()
            .map(|(i, part)| if i % 2 == 0 { part } else { "" })
            .collect();
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    markdown
        .lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#')
        })
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_link_in_the_docs_resolves() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in pages() {
        let text = read(page.to_str().unwrap());
        let dir = page.parent().unwrap();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let full = Path::new(ROOT).join(&target);
            if !full.exists() {
                broken.push(format!(
                    "{}: {link} (no {})",
                    page.display(),
                    target.display()
                ));
                continue;
            }
            if let Some(anchor) = anchor {
                let heads = anchors(&std::fs::read_to_string(&full).unwrap());
                if !heads.contains(anchor) {
                    broken.push(format!("{}: {link} (no heading #{anchor})", page.display()));
                }
            }
        }
    }
    assert!(checked > 30, "links were not read: {checked}");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_reader_sees_links_and_anchors() {
    let md = "# Auditing a machine\n\nSee [a](docs/a.md#x-y) and `[not](a link)`.\n```\n[no](code)\n```\n## `--fix`, step by step\n";
    assert_eq!(links(md), vec!["docs/a.md#x-y"]);
    assert_eq!(
        anchors(md),
        BTreeSet::from(["auditing-a-machine".into(), "--fix-step-by-step".into()])
    );
}

/// A token of Rust source: enough to find the finding codes.
#[derive(Debug, PartialEq)]
enum Token {
    Str(String),
    Ident(String),
    Punct(char),
}

/// Rust source as tokens, comments and character literals dropped.
fn tokens(src: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (piece, part) in source::pieces(src) {
        match piece {
            source::Piece::Str => out.push(Token::Str(unquote(part))),
            source::Piece::Code => {
                let mut chars = part.chars().peekable();
                while let Some(c) = chars.next() {
                    if c.is_alphanumeric() || c == '_' {
                        let mut ident = c.to_string();
                        while let Some(&n) =
                            chars.peek().filter(|n| n.is_alphanumeric() || **n == '_')
                        {
                            ident.push(n);
                            chars.next();
                        }
                        out.push(Token::Ident(ident));
                    } else if !c.is_whitespace() {
                        out.push(Token::Punct(c));
                    }
                }
            }
            source::Piece::Comment | source::Piece::Char => {}
        }
    }
    out
}

/// A string literal's text: the quotes (and `r#`) gone, each escaped
/// character as itself (enough to read a finding code).
fn unquote(literal: &str) -> String {
    let body = literal.trim_start_matches('b');
    if let Some(raw) = body.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        return raw[hashes + 1..raw.len() - 1 - hashes].to_string();
    }
    let mut out = String::new();
    let mut chars = body[1..body.len() - 1].chars();
    while let Some(c) = chars.next() {
        out.extend(if c == '\\' { chars.next() } else { Some(c) });
    }
    out
}

/// The expression starting at `from`: its tokens, up to the first `,`
/// (or closing bracket) at its own depth.
fn expression(t: &[Token], from: usize) -> &[Token] {
    let mut depth = 0i32;
    for (k, tok) in t[from..].iter().enumerate() {
        match tok {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') if depth == 0 => return &t[from..from + k],
            Token::Punct(')' | ']' | '}') => depth -= 1,
            Token::Punct(',') if depth == 0 => return &t[from..from + k],
            _ => {}
        }
    }
    &t[from..]
}

/// The string literals of the expression starting at `from`.
fn literals_of_expression(t: &[Token], from: usize) -> Vec<String> {
    expression(t, from)
        .iter()
        .filter_map(|tok| match tok {
            Token::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The finding codes a source file can emit: the second argument of a
/// `finding(...)` call, and the value of a `code:` field.
fn codes_in(src: &str) -> BTreeSet<String> {
    let t = tokens(src);
    let mut out = BTreeSet::new();
    for i in 0..t.len().saturating_sub(2) {
        match (&t[i], &t[i + 1]) {
            (Token::Ident(f), Token::Punct('(')) if f == "finding" => {
                // Past the first argument (the severity).
                let j = i + 2 + expression(&t, i + 2).len();
                if matches!(t.get(j), Some(Token::Punct(','))) {
                    out.extend(literals_of_expression(&t, j + 1));
                }
            }
            // A field of a struct literal: after `{` or `,`, not `let code:`
            // or a parameter.
            (Token::Ident(f), Token::Punct(':'))
                if f == "code"
                    && !matches!(t.get(i + 2), Some(Token::Punct(':')))
                    && i > 0
                    && matches!(t[i - 1], Token::Punct('{' | ',')) =>
            {
                out.extend(literals_of_expression(&t, i + 2));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn the_code_reader_finds_codes_wherever_they_are_written() {
    let src = r#"
        fn a() {
            out.push(finding(
                if jit { Severity::Warning } else { Severity::Info },
                if all { "gpu-unsupported" } else { "gpu-partly-unsupported" },
                format!("a {} b", "not-a-code"),
                None,
            ));
            let p = Problem { severity: Severity::Error, code: "fix-failed", message: x };
            let code: Vec<&str> = lines.filter(|l| !l.starts_with("REM")).collect();
            let c = '"'; // "comment-code"
            fn finding(severity: Severity, code: &'static str) {}
        }
    "#;
    assert_eq!(
        codes_in(src),
        BTreeSet::from([
            "gpu-unsupported".into(),
            "gpu-partly-unsupported".into(),
            "fix-failed".into()
        ])
    );
}

#[test]
fn every_finding_code_is_documented_and_every_documented_code_exists() {
    // Each code, with the first file that emits it.
    let mut emitted_in = std::collections::BTreeMap::new();
    for file in source::files() {
        for code in codes_in(&file.code) {
            emitted_in.entry(code).or_insert_with(|| file.path.clone());
        }
    }
    let emitted: BTreeSet<String> = emitted_in.keys().cloned().collect();
    assert!(emitted.len() > 40, "codes were not read: {emitted:?}");
    let doc = read("docs/findings.md");
    let documented: BTreeSet<String> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            l.split('|')
                .nth(1)
                .unwrap()
                .split(',')
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let undocumented: Vec<String> = emitted
        .difference(&documented)
        .map(|c| format!("{c} ({})", emitted_in[c].display()))
        .collect();
    let unknown: Vec<&String> = documented.difference(&emitted).collect();
    assert!(
        undocumented.is_empty(),
        "codes the source emits that docs/findings.md lacks: {undocumented:?}"
    );
    assert!(
        unknown.is_empty(),
        "codes docs/findings.md lists that the source never emits: {unknown:?}"
    );
}

#[test]
fn the_exit_codes_page_states_the_man_pages_exit_status() {
    let entries = man_entries(&envhook(&["man"]), "EXIT STATUS");
    assert_eq!(entries.len(), 4, "{entries:?}");
    let page = read("docs/exit-codes.md");
    for (code, meaning) in entries {
        let row = format!("| {code} | {meaning} |");
        assert!(page.contains(&row), "docs/exit-codes.md lacks\n{row}");
    }
}

/// The long options of a help text.
fn long_options(help: &str) -> BTreeSet<String> {
    help.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .flat_map(|l| l.split([' ', ',', '=', '[', '<']))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(String::from)
        .collect()
}

#[test]
fn every_command_and_option_is_in_the_commands_page() {
    let page = read("docs/commands.md");
    let help = envhook(&["--help"]);
    let commands: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    let mut missing = Vec::new();
    for option in long_options(&help) {
        if option != "--help" && !page.contains(option.as_str()) {
            missing.push(format!("envhook {option}"));
        }
    }
    for command in &commands {
        if !page.contains(&format!("`envhook {command}")) {
            missing.push(format!("envhook {command}"));
        }
        for option in long_options(&envhook(&[command, "--help"])) {
            if option != "--help" && !page.contains(option.as_str()) {
                missing.push(format!("envhook {command} {option}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/commands.md does not mention:\n{}",
        missing.join("\n")
    );
}

/// A man page section's `.TP` entries: (term, text), roff escapes undone.
fn man_entries(page: &str, section: &str) -> Vec<(String, String)> {
    let body = page
        .split(&format!(".SH {section}\n"))
        .nth(1)
        .or_else(|| page.split(&format!(".SH \"{section}\"\n")).nth(1))
        .unwrap_or_else(|| panic!("no {section} section"))
        .split("\n.SH ")
        .next()
        .unwrap();
    let plain = |s: &str| {
        s.replace("\\-", "-")
            .replace("\\*(Aq", "'")
            .replace("\\fI", "")
            .replace("\\fB", "")
            .replace("\\fR", "")
            .replace("\\_", "_")
    };
    let lines: Vec<&str> = body
        .lines()
        .filter(|l| !l.is_empty() && *l != ".TP")
        .collect();
    lines
        .chunks(2)
        .map(|pair| (plain(pair[0]), plain(pair[1])))
        .collect()
}

#[test]
fn the_files_page_states_the_man_pages_files() {
    let page = read("docs/files.md");
    let rows: Vec<(String, String)> = page
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            (
                cells[0].trim_start_matches("| ").replace('`', ""),
                cells[1].trim_end_matches(" |").replace('`', ""),
            )
        })
        .collect();
    let man = man_entries(&envhook(&["man"]), "FILES");
    assert!(man.len() >= 8, "{man:?}");
    assert_eq!(rows, man, "docs/files.md and the man pages' FILES differ");
    // Every path a subcommand's page names is the main page's.
    let install = man_entries(&envhook(&["man", "install"]), "FILES");
    assert!(install.iter().all(|e| man.contains(e)), "{install:?}");
}

/// docs/environment.md's table of variables and the man pages' ENVIRONMENT
/// section come from one list; this holds the page to it.
#[test]
fn the_docs_list_the_same_variables_as_the_man_pages() {
    let table = read("docs/environment.md");
    let vars: Vec<String> = man_entries(&envhook(&["man"]), "ENVIRONMENT")
        .into_iter()
        .map(|(var, _)| var)
        .collect();
    assert!(vars.len() > 15, "{vars:?}");
    for var in &vars {
        assert!(
            table.contains(&format!("`{var}`")),
            "docs/environment.md lacks {var}"
        );
    }
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        for var in row.split('|').nth(1).unwrap().split(',') {
            let var = var.trim().trim_matches('`');
            assert!(vars.iter().any(|v| v == var), "man pages lack {var}");
        }
    }
}

/// The commands page says what an error looks like: envhook's own
/// (`error:`, then `hint:` lines) and the command line's, which clap
/// prints (`error:`, a `tip:` where it has a suggestion, `Usage:` and a
/// pointer to `--help`); both as envhook prints them.
#[test]
fn the_commands_page_shows_errors_as_they_are_printed() {
    let page = read("docs/commands.md");
    for said in ["`error:`", "`hint:`", "`tip:`", "`Usage:`", "`--help`"] {
        assert!(
            page.contains(said),
            "docs/commands.md does not mention {said}"
        );
    }
    let sb = Sandbox::new();
    let (code, _, err) = sb.run(&["chek"]);
    assert_eq!(code, 2, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("error: "), "{err}");
    assert!(
        err.contains("\n  tip: a similar subcommand exists: 'check'\n"),
        "{err}"
    );
    assert!(err.contains("\nUsage: envhook "), "{err}");
    assert!(
        err.ends_with("For more information, try '--help'.\n"),
        "{err}"
    );
    let (code, _, err) = sb.run(&["show", "-p"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: a value is required for '--prefix <PREFIX>'"),
        "{err}"
    );
    assert!(
        err.ends_with("For more information, try '--help'.\n"),
        "{err}"
    );
    let (code, _, err) = sb.run(&["show", "-p", "/nonexistent"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("\n  hint: "),
        "{err}"
    );
}

/// An option with a default is shown optional: `export`'s `--format`
/// defaults to `sh`, as its help says.
#[test]
fn the_commands_page_shows_defaulted_options_as_optional() {
    let page = read("docs/commands.md");
    let row = page
        .lines()
        .find(|l| l.starts_with("| `envhook export "))
        .expect("an export row");
    assert!(row.contains("[--format sh\\|"), "{row}");
    assert!(row.contains("(the default, `sh`)"), "{row}");
    assert!(envhook(&["export", "--help"]).contains("[default: sh]"));
}

/// The hooks page names every hook file `install` writes.
#[test]
fn the_hooks_page_names_every_hook_file() {
    let sb = Sandbox::new();
    let env = support::cuda11_paddle(&sb.path("envs/paddle"));
    let (code, _, err) = sb.run_on(&["install", "--always"], &env.prefix);
    assert!(code <= 1, "{err}");
    let page = read("docs/hooks.md");
    let dir = env.prefix.join("etc/conda/activate.d");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        assert!(
            page.contains(&format!("`{name}`")),
            "docs/hooks.md does not name {name}"
        );
    }
}
