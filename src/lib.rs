//! envhook: matched CUDA library paths and compatibility checks for conda
//! environments running GPU frameworks.
//!
//! The rooms, floor by floor from the ground up; every import runs down or
//! across a floor, never up, and none closes a circle (tests/it/architecture.rs
//! checks both, and that no function outside tests passes 80 lines):
//!
//! 1. ground: `paths` (no-follow file access), `env_vars`, `exit` (the exit
//!    contract), `error`, `finding` (what a finding is), `notice`, `colour`
//!    (whether output is styled, and the styles)
//! 2. `data`: the shipped catalogue and compatibility matrix; `demo`: the
//!    demo installation `envhook demo` lays out (ELF objects included)
//! 3. `discovery`: which environments exist, and the process `Context`
//! 4. `machine` (driver, loader, ELF) and `inventory` (what one environment
//!    holds)
//! 5. `activation`: the hooks envhook writes, and reading them back
//! 6. `loading`: the loader simulation (what each framework's import asks
//!    for and gets), data for the rules
//! 7. `rules`: the verdicts, one file per family
//! 8. `explain` (an error message, answered) and `audit` (every environment)
//! 9. `report`: tables, JSON and Prometheus text
//! 10. `manual` and `cli` (clap only)
//! 11. `cmd`: one thin file per verb
//!
//! A newcomer starts at `inventory::Inventory::read`, then `rules::run`,
//! then `activation` (its module doc says where to go next).

// The docs are the maintainers' map of the house, built with private
// items (.ci/run); a module doc linking to a private helper is a link a
// maintainer follows, not a broken one.
#![allow(rustdoc::private_intra_doc_links)]

pub mod activation;
pub mod audit;
pub mod cli;
pub mod cmd;
pub mod colour;
pub mod data;
pub mod demo;
pub mod discovery;
pub mod env_vars;
pub mod error;
pub mod exit;
pub mod explain;
pub mod finding;
pub mod inventory;
pub mod loading;
pub mod machine;
pub mod manual;
pub mod notice;
pub mod paths;
pub mod report;
pub mod rules;
