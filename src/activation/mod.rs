//! What envhook writes into an environment: the hooks' specification
//! derived from the inventory ([`spec`]), their text in every shell dialect
//! ([`shell`], the only code that knows shell syntax), writing and removing
//! them ([`install`]), and the hand-written hooks it finds and leaves alone
//! ([`foreign`]) unless asked to take them over ([`takeover`]); and, for
//! `run` on an environment without hooks, the same link directory kept
//! privately outside it ([`private`]), and the variables `conda activate`
//! would set, which `run` sets ([`conda_vars`]), with the state the
//! hooks would have saved ([`run_state`]).
//!
//! One way down, no module importing one that imports it: [`spec`] (what
//! the hooks expose) → [`plan`] (what to write) → [`shell`] (the text per
//! dialect, and the sentences the hooks and `check` both print, in
//! [`shell::messages`]) → [`install`] over [`confined`], [`lock`] and
//! [`stamp`] (the writing, stamped after what the hooks watch). The readers sit beside it and import down only: [`status`]
//! (are the installed hooks current?), [`foreign`] (hand-written hooks)
//! and [`takeover`] (moving them aside, and the finding that proposes it;
//! `plan` names the moved scripts in the header and `install` moves them,
//! so those two import it, and it imports only `foreign` and `shell`).
//! A venv has no activate.d: [`venv`] appends to its own activation
//! scripts the block that runs the same hooks, and takes it out again.
//! `tests/it/architecture.rs` holds these rooms to having no circle.
//! Jupyter starts kernels from their kernelspecs, never activated:
//! [`kernelspec`] sets the same path in their `env` and puts them back.
//! A newcomer starts at `spec`, then `hooks/README.md` for the templates.

pub mod conda_vars;
pub mod confined;
pub mod decide;
pub mod foreign;
pub mod install;
pub mod kernelspec;
pub mod lock;
pub mod plan;
pub mod private;
pub mod run_state;
pub mod shadowing;
pub mod shell;
pub mod spec;
pub mod stamp;
pub mod status;
pub mod takeover;
pub mod venv;
