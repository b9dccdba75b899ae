//! What this machine does, independent of any environment: its NVIDIA
//! driver and GPUs ([`driver`]), the loader's cache ([`ldcache`]), the
//! dynamic-linking facts of shared objects ([`elf`]), the GPU architectures
//! compiled into them ([`fatbin`]) and the loader's search for a library,
//! simulated ([`resolve`]).

pub mod driver;
pub mod elf;
#[allow(dead_code)] // read by the kernel-image rules in a follow-up
pub mod fatbin;
pub mod ldcache;
pub mod resolve;
