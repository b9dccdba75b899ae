//! What this machine does, independent of any environment: its NVIDIA
//! driver and GPUs ([`driver`]), the loader's cache ([`ldcache`]), the
//! dynamic-linking facts of shared objects ([`elf`]) and the loader's search
//! for a library, simulated ([`resolve`]).

pub mod driver;
pub mod elf;
pub mod ldcache;
pub mod resolve;
