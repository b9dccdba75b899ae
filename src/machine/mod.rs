//! What this machine does, independent of any environment: its NVIDIA
//! driver and GPUs ([`driver`], NVML's part through [`nvml`]) and the forward-compatibility libcuda
//! beside it ([`compat`]), the loader's cache ([`ldcache`]), the
//! dynamic-linking facts of shared objects ([`elf`]), the GPU architectures
//! compiled into them ([`fatbin`]) and the loader's search for a library,
//! simulated ([`resolve`]), for one name and for one process's closure of
//! loaded objects ([`loader`]).
//!
//! Of `discovery`, the floor below, it takes only `Context` (the process
//! environment and sysroot every reader is given): where the driver is
//! looked for depends on `ENVHOOK_SYSROOT` and `LD_LIBRARY_PATH` as the
//! command saw them.

pub mod compat;
pub mod driver;
pub mod elf;
pub mod fatbin;
pub mod ldcache;
pub mod loader;
pub mod nvml;
pub mod resolve;
pub mod symbols;

use crate::discovery::Context;
use driver::Driver;
use ldcache::LdCache;

/// What is the same for every environment on a machine: read once, even
/// when `audit` checks hundreds of environments.
#[derive(Debug)]
pub struct Machine {
    /// The driver and GPUs.
    pub driver: Driver,
    /// `/etc/ld.so.cache` (under the sysroot): none on musl systems, or why
    /// it could not be read.
    pub cache: Result<Option<LdCache>, String>,
}

impl Machine {
    /// Read the loader cache; the driver is detected by the caller.
    pub fn new(driver: Driver, ctx: &Context) -> Self {
        Machine {
            driver,
            cache: LdCache::read(&ctx.system_path("/etc/ld.so.cache")),
        }
    }
}

#[cfg(test)]
mod hostile;
