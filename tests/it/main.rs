//! The integration tests, one binary (as ripgrep's `tests/integration`):
//! every file below is a module, so `tests/it/support` and the shell harness
//! are compiled once and the tests link once. Each module's doc says what
//! it holds; `cargo test --test it MODULE::` runs one of them.

// Cargo.toml's lints hold envhook's code; the tests are the harness
// around it. They read their own process environment (the opt-in tiers'
// switches such as ENVHOOK_REAL_WHEELS, the PATH and the tools the
// sandbox hands the binary), which is not envhook reading its, and they
// say what they skipped or did on the test's output.
#![allow(clippy::disallowed_methods, clippy::print_stdout, clippy::print_stderr)]

mod harness;
mod support;

mod apptainer;
mod architecture;
mod audit;
mod audit_report;
mod bad_input;
mod check;
mod compat;
mod completions;
mod conda_plugin;
mod conventions;
mod copied;
mod demo;
mod discovery;
mod docs;
mod explain;
mod explain_causes;
mod explain_contradictions;
mod explain_corpus;
mod explain_corpus_more;
mod explain_families;
mod explain_large;
mod explain_machine;
mod explain_not_environment;
mod export;
mod extensions;
mod fix_lines;
mod hooks;
mod install;
mod judged;
mod jupyter;
mod loading;
mod man;
mod monitoring;
mod output;
mod paddle;
mod rattler;
mod readme;
mod real_conda;
mod real_explain;
mod real_jupyter;
mod real_venvs;
mod real_wheels;
mod relocation;
mod run;
mod safety;
mod services;
mod show;
mod takeover;
mod tensorrt;
mod venv;
mod verdicts;
mod wheels;
