//! Man pages: `envhook(1)` and one `envhook-<verb>(1)` per subcommand,
//! rendered by clap_mangen from the clap definitions (synopsis, options,
//! subcommands), followed by the sections clap knows nothing of: EXIT
//! STATUS (from [`crate::exit`]), ENVIRONMENT (from
//! [`crate::env_vars::DOCUMENTED`]), FILES and EXAMPLES.

use std::io::{self, Write};

use clap::Command;
use roff::{Roff, bold, italic, roman};

/// What envhook writes, and the files it reads, per subcommand that
/// touches them (`None`: every page).
const FILES: &[(&str, Option<&[&str]>, &str)] = &[
    (
        "PREFIX/etc/conda/activate.d/envhook.{sh,fish,ps1,csh}",
        Some(&["install", "uninstall", "audit"]),
        "the activation hooks envhook writes (POSIX sh for bash, zsh, dash and xonsh; fish; PowerShell; \
         tcsh and csh); \
         marked as envhook's in their first lines, and the only hook files it replaces or removes",
    ),
    (
        "PREFIX/etc/conda/deactivate.d/envhook.{sh,fish,ps1,csh}",
        Some(&["install", "uninstall", "audit"]),
        "the matching deactivation hooks, which restore LD_LIBRARY_PATH exactly",
    ),
    (
        "PREFIX/etc/conda/{activate.d,deactivate.d}/NAME.envhook-replaced",
        Some(&["install", "uninstall"]),
        "a hand-written LD_LIBRARY_PATH hook moved aside by install --replace-handwritten \
         (conda runs only *.sh, *.fish, ... there); uninstall moves it back",
    ),
    (
        "PREFIX/lib/envhook/cuda",
        Some(&["install", "uninstall", "export", "run", "audit"]),
        "a link to PREFIX/lib/envhook/cuda-FINGERPRINT, the directory of links to the \
         environment's CUDA libraries only, which the hooks put on LD_LIBRARY_PATH",
    ),
    (
        "$XDG_RUNTIME_DIR/envhook-run, ~/.cache/envhook-run, <tmp>/envhook-run-<uid>",
        Some(&["run"]),
        "run's own link directory for an environment without envhook's hooks: per user, mode 0700, \
         one subdirectory per environment and set of packages, nothing written in the environment",
    ),
    (
        "DIR/.envhook-demo",
        Some(&["demo"]),
        "marks DIR as a demo installation envhook demo laid out (a root miniconda3/ and \
         home/.conda/environments.txt beside it), so a later envhook demo DIR may replace it; \
         a DIR without it is never replaced",
    ),
    (
        "PREFIX/conda-meta/.envhook.lock",
        Some(&["install", "uninstall", "audit"]),
        "the per-environment lock that makes concurrent runs take turns",
    ),
    (
        "VENV/bin/activate, VENV/bin/activate.fish",
        Some(&["install", "uninstall", "audit"]),
        "a venv's own activation scripts: install appends one marked block (from # >>> envhook >>> \
         to # <<< envhook <<<) that runs the hooks in VENV/etc/conda and wraps deactivate; \
         uninstall takes it out, leaving each script byte for byte as it was",
    ),
    (
        "VENV/.envhook.lock",
        Some(&["install", "uninstall", "audit"]),
        "a venv's lock (it has no conda-meta/)",
    ),
    (
        "PREFIX/share/jupyter/kernels/NAME/kernel.json, kernel.json.envhook",
        Some(&["install", "uninstall"]),
        "the environment's Jupyter kernelspecs: install --jupyter sets LD_LIBRARY_PATH in the env \
         of each kernel.json and keeps the file as it was in kernel.json.envhook beside it; \
         uninstall writes it back byte for byte",
    ),
    (
        "PREFIX/conda-meta/*.json, site-packages/*.dist-info",
        None,
        "read: what the environment holds (conda records, pip metadata)",
    ),
    (
        "~/.conda/environments.txt, .condarc files",
        None,
        "read: where environments are, as conda finds them",
    ),
    (
        "/etc/ld.so.cache, /proc/driver/nvidia/version",
        Some(&["check", "audit", "explain"]),
        "read: the loader's cache, and the driver when neither NVML nor nvidia-smi answers",
    ),
];

/// Examples per page (`""`: envhook(1)).
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "",
        &[
            (
                "envhook install -n paddle",
                "write the hooks once; conda activate does the rest",
            ),
            ("envhook audit", "every environment on this machine"),
            (
                "envhook explain \"libcudnn.so.8: cannot open shared object file\" -n paddle",
                "what an error means in an environment",
            ),
        ],
    ),
    (
        "show",
        &[
            (
                "envhook show -n paddle",
                "the GPU stack of the environment paddle",
            ),
            (
                "envhook show -p ./.pixi/envs/default --json",
                "a pixi environment, as JSON",
            ),
        ],
    ),
    (
        "envs",
        &[("envhook envs", "every environment, and where it was found")],
    ),
    (
        "install",
        &[
            (
                "envhook install -n paddle --dry-run",
                "the plan and the scripts; nothing written",
            ),
            ("envhook install -n paddle", "write the hooks"),
            (
                "envhook install -n paddle --replace-handwritten",
                "take over a hand-written env_vars.sh pair",
            ),
        ],
    ),
    (
        "uninstall",
        &[(
            "envhook uninstall -n paddle",
            "remove envhook's files, and only those",
        )],
    ),
    (
        "check",
        &[
            (
                "envhook check -n torch",
                "against this machine's driver and GPUs",
            ),
            (
                "envhook check -n torch --driver-version 535.104.05 --gpu H100",
                "against another machine, e.g. where an image will run",
            ),
        ],
    ),
    (
        "audit",
        &[
            (
                "envhook audit --json > audit.json",
                "every environment, for a script",
            ),
            (
                "envhook audit --fix",
                "install or refresh missing or stale hooks",
            ),
        ],
    ),
    (
        "export",
        &[(
            "envhook export -n torch --format dockerfile",
            "ENV lines for an image",
        )],
    ),
    (
        "run",
        &[(
            "envhook run -n paddle -- python train.py",
            "without activating",
        )],
    ),
    (
        "completions",
        &[
            ("source <(envhook completions bash)", "in ~/.bashrc"),
            (
                "envhook completions fish | source",
                "in ~/.config/fish/config.fish",
            ),
        ],
    ),
    (
        "man",
        &[("envhook man --dir ~/.local/share/man/man1", "every page")],
    ),
    (
        "explain",
        &[(
            "python train.py 2>&1 | envhook explain - -n paddle",
            "a whole traceback, from standard input",
        )],
    ),
    (
        "demo",
        &[
            ("envhook demo", "lay out the demo in /tmp/envhook-demo"),
            (
                "HOME=/tmp/envhook-demo/home envhook audit",
                "then audit it as its user would",
            ),
        ],
    ),
];

/// Every page: `envhook(1)` first, then the subcommands'. `root` is the
/// clap command as the binary uses it (with its long `--version`).
pub fn pages(root: Command) -> Vec<(String, Command)> {
    let mut root = root.disable_help_subcommand(true);
    // Building names the subcommands `envhook-show` etc., which is what the
    // SUBCOMMANDS section refers to and what the pages are called.
    root.build();
    let mut pages = vec![("envhook".to_string(), root.clone())];
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_display_name().unwrap_or(sub.get_name()).to_string();
        pages.push((name, sub.clone()));
    }
    pages
}

/// Render one page (roff).
pub fn render(name: &str, cmd: &Command, out: &mut dyn Write) -> io::Result<()> {
    let verb = name.strip_prefix("envhook-").unwrap_or("");
    let man = clap_mangen::Man::new(cmd.clone())
        .title(name.to_ascii_uppercase())
        .section("1")
        .date(date())
        .source(format!("envhook {}", env!("CARGO_PKG_VERSION")))
        .manual("User Commands");
    // clap_mangen renders section by section, each with roff's apostrophe
    // preamble; the page keeps the first one only.
    let mut parts = Vec::new();
    man.render_title(&mut parts)?;
    man.render_name_section(&mut parts)?;
    man.render_synopsis_section(&mut parts)?;
    man.render_description_section(&mut parts)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut parts)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut parts)?;
    }
    let mut roff = Roff::new();
    exit_status(&mut roff, verb);
    environment(&mut roff);
    files(&mut roff, verb);
    examples(&mut roff, verb);
    see_also(&mut roff, verb);
    roff.to_writer(&mut parts)?;
    let text = String::from_utf8_lossy(&parts);
    let (preamble, body) = text.split_at(text.find(".TH").unwrap_or(0));
    out.write_all(preamble.as_bytes())?;
    // clap_mangen separates a value list with `.br`, a blank line, `.br`,
    // which mandoc flags; a `.sp` is the space it means.
    let body = body.replace(preamble, "").replace(".br\n\n.br\n", ".sp\n");
    out.write_all(body.as_bytes())
}

/// The page date: the compatibility data's (`2026.12.1` → `2026-12-01`),
/// the newest fact the pages describe, so the same build always renders
/// the same pages.
fn date() -> String {
    let v = crate::data::matrix::shipped_version();
    let mut parts = v.split('.');
    match (parts.next(), parts.next()) {
        (Some(y), Some(m)) if y.len() == 4 && !m.is_empty() && m.len() <= 2 => {
            format!("{y}-{m:0>2}-01")
        }
        _ => String::new(),
    }
}

fn exit_status(roff: &mut Roff, verb: &str) {
    roff.control("SH", ["EXIT STATUS"]);
    if verb == "run" {
        // The command's status is run's: envhook execs it.
        roff.text([roman(crate::exit::RUN_SUMMARY)]);
        return;
    }
    for (code, meaning) in crate::exit::CONTRACT {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(*meaning)]);
    }
}

fn environment(roff: &mut Roff) {
    roff.control("SH", ["ENVIRONMENT"]);
    for (var, meaning) in crate::env_vars::DOCUMENTED {
        roff.control("TP", []);
        roff.text([bold(*var)]);
        roff.text([roman(*meaning)]);
    }
}

fn files(roff: &mut Roff, verb: &str) {
    let rows: Vec<_> = FILES
        .iter()
        .filter(|(_, verbs, _)| verb.is_empty() || verbs.is_none_or(|v| v.contains(&verb)))
        .collect();
    if rows.is_empty() {
        return;
    }
    roff.control("SH", ["FILES"]);
    for (path, _, meaning) in rows {
        roff.control("TP", []);
        roff.text([italic(*path)]);
        roff.text([roman(*meaning)]);
    }
}

fn examples(roff: &mut Roff, verb: &str) {
    let Some((_, list)) = EXAMPLES.iter().find(|(v, _)| *v == verb) else {
        return;
    };
    roff.control("SH", ["EXAMPLES"]);
    for (command, what) in *list {
        roff.control("TP", []);
        roff.text([bold(*command)]);
        roff.text([roman(*what)]);
    }
}

fn see_also(roff: &mut Roff, verb: &str) {
    roff.control("SH", ["SEE ALSO"]);
    if verb.is_empty() {
        roff.text([roman(
            "conda(1); envhook's docs/json.md for the JSON schemas, and data/matrix.toml for the compatibility data and its sources",
        )]);
    } else {
        roff.text([bold("envhook"), roman("(1)")]);
    }
}
