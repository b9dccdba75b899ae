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

#[test]
fn every_finding_code_is_documented_and_every_documented_code_exists() {
    use envhook::finding::Code;
    let doc = read("docs/findings.md");
    let documented: Vec<String> = doc
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
    let codes: Vec<String> = Code::ALL.iter().map(|c| c.to_string()).collect();
    // The enum lists the codes in the page's order: one list, read twice.
    assert_eq!(codes, documented, "Code::ALL and docs/findings.md differ");
    // A variant nothing constructs is a documented code the source never
    // emits (the compiler does not see that in a library's public enum).
    let src: String = source::files()
        .into_iter()
        .filter(|f| !f.path.ends_with("finding/code.rs"))
        .map(|f| f.code)
        .collect();
    let unused: Vec<&Code> = Code::ALL
        .iter()
        .filter(|c| !src.contains(&format!("Code::{c:?}")))
        .collect();
    assert!(
        unused.is_empty(),
        "codes the source never emits: {unused:?}"
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
