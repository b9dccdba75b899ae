//! What envhook writes into an environment: the hooks' specification
//! derived from the inventory ([`spec`]), their text in every shell dialect
//! ([`shell`], the only code that knows shell syntax), writing and removing
//! them ([`install`]), and the hand-written hooks it finds and leaves alone
//! ([`foreign`]) unless asked to take them over ([`takeover`]); and, for
//! `run` on an environment without hooks, the same link directory kept
//! privately outside it ([`private`]).

pub mod confined;
pub mod foreign;
pub mod install;
pub mod lock;
pub mod plan;
pub mod private;
pub mod shell;
pub mod spec;
pub mod status;
pub mod takeover;
