//! NVML (`libnvidia-ml.so.1`, the vendor library nvidia-smi itself calls)
//! behind a safe type: [`Nvml::init`] loads the library with the normal
//! library search and initialises NVML, its methods read what
//! [`super::driver`] reports, and dropping it shuts NVML down. This is the
//! only module that calls foreign code, so the crate's `unsafe_code = "deny"`
//! (Cargo.toml's `[lints]`) is lifted here and nowhere else in `src/`.
//!
//! Every entry point is looked up by name with the signature NVML's public
//! header (`nvml.h`) gives it; one that is missing (an older driver) is
//! read as "not known", as a failing call is.

// The one place envhook needs `unsafe`: loading a C library and calling
// it. Each block below says why it is sound.
#![allow(unsafe_code)]

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};

use libloading::{Library, Symbol};

/// `NVML_SUCCESS`.
const SUCCESS: c_int = 0;
/// Room for the strings read here: nvml.h's
/// `NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE` is 80 and
/// `NVML_DEVICE_NAME_V2_BUFFER_SIZE` 96.
const TEXT: usize = 96;

/// `nvmlInit_v2`, `nvmlShutdown`.
type Call = unsafe extern "C" fn() -> c_int;
/// `nvmlSystemGetDriverVersion`.
type Text = unsafe extern "C" fn(*mut c_char, c_uint) -> c_int;
/// `nvmlSystemGetCudaDriverVersion_v2`.
type Int = unsafe extern "C" fn(*mut c_int) -> c_int;
/// `nvmlDeviceGetCount_v2`.
type Count = unsafe extern "C" fn(*mut c_uint) -> c_int;
/// `nvmlDeviceGetHandleByIndex_v2`.
type Handle = unsafe extern "C" fn(c_uint, *mut *mut c_void) -> c_int;
/// `nvmlDeviceGetName`.
type Name = unsafe extern "C" fn(*mut c_void, *mut c_char, c_uint) -> c_int;
/// `nvmlDeviceGetCudaComputeCapability`.
type Cc = unsafe extern "C" fn(*mut c_void, *mut c_int, *mut c_int) -> c_int;

/// Why there is no [`Nvml`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// No `libnvidia-ml.so.1` on the library search, or one without
    /// `nvmlInit_v2`.
    NotInstalled,
    /// `nvmlInit_v2` failed: no GPU, or the driver is not loaded.
    InitFailed,
}

/// NVML, loaded and initialised; shut down when dropped.
pub struct Nvml {
    lib: Library,
}

/// One GPU, by its NVML handle (valid while the [`Nvml`] it came from is).
pub struct Device<'a> {
    nvml: &'a Nvml,
    handle: *mut c_void,
}

impl Nvml {
    /// Load `libnvidia-ml.so.1` and initialise NVML.
    pub fn init() -> Result<Nvml, Unavailable> {
        // SAFETY: loading runs the library's initialisers; NVML is the
        // vendor's library, meant to be loaded this way by any process.
        let lib =
            unsafe { Library::new("libnvidia-ml.so.1") }.map_err(|_| Unavailable::NotInstalled)?;
        {
            // SAFETY: nvml.h: `nvmlReturn_t nvmlInit_v2(void)`.
            let init = unsafe { symbol::<Call>(&lib, b"nvmlInit_v2\0") }
                .ok_or(Unavailable::NotInstalled)?;
            // SAFETY: takes nothing; the first NVML call a process makes.
            if unsafe { init() } != SUCCESS {
                // Not initialised, so not shut down: the library is only
                // unloaded, as `lib` goes out of scope.
                return Err(Unavailable::InitFailed);
            }
        }
        Ok(Nvml { lib })
    }

    /// The display driver's version, `560.35.05`.
    pub fn driver_version(&self) -> Option<String> {
        let mut buf = [0u8; TEXT];
        // SAFETY: nvml.h: `nvmlSystemGetDriverVersion(char *version,
        // unsigned int length)`.
        let f = unsafe { self.symbol::<Text>(b"nvmlSystemGetDriverVersion\0") }?;
        // SAFETY: NVML writes at most `length` bytes, NUL included, into
        // the buffer, which holds that many.
        if unsafe { f(buf.as_mut_ptr().cast(), TEXT as c_uint) } != SUCCESS {
            return None;
        }
        text(&buf)
    }

    /// The newest CUDA the driver supports, as NVML encodes it
    /// (`1000 * major + 10 * minor`: 12060 is 12.6).
    pub fn cuda_driver_version(&self) -> Option<i32> {
        let mut version: c_int = 0;
        // SAFETY: nvml.h: `nvmlSystemGetCudaDriverVersion_v2(int *)`.
        let f = unsafe { self.symbol::<Int>(b"nvmlSystemGetCudaDriverVersion_v2\0") }?;
        // SAFETY: the pointer is to a live int NVML writes once.
        (unsafe { f(&mut version) } == SUCCESS).then_some(version)
    }

    /// How many GPUs NVML sees.
    pub fn device_count(&self) -> Option<u32> {
        let mut count: c_uint = 0;
        // SAFETY: nvml.h: `nvmlDeviceGetCount_v2(unsigned int *)`.
        let f = unsafe { self.symbol::<Count>(b"nvmlDeviceGetCount_v2\0") }?;
        // SAFETY: the pointer is to a live unsigned int NVML writes once.
        (unsafe { f(&mut count) } == SUCCESS).then_some(count)
    }

    /// The GPU at `index` (below [`Nvml::device_count`]).
    pub fn device(&self, index: u32) -> Option<Device<'_>> {
        let mut handle: *mut c_void = std::ptr::null_mut();
        // SAFETY: nvml.h: `nvmlDeviceGetHandleByIndex_v2(unsigned int,
        // nvmlDevice_t *)`, `nvmlDevice_t` being an opaque pointer.
        let f = unsafe { self.symbol::<Handle>(b"nvmlDeviceGetHandleByIndex_v2\0") }?;
        // SAFETY: the pointer is to a live handle NVML writes once; an
        // index past the GPUs is an error code, not undefined behaviour.
        let status = unsafe { f(index, &mut handle) };
        (status == SUCCESS).then_some(Device { nvml: self, handle })
    }

    /// The entry point `name` of this NVML (see [`symbol`]).
    ///
    /// # Safety
    ///
    /// As [`symbol`]'s.
    unsafe fn symbol<T>(&self, name: &[u8]) -> Option<Symbol<'_, T>> {
        // SAFETY: the caller's promise is the one `symbol` asks for.
        unsafe { symbol(&self.lib, name) }
    }
}

/// The entry point `name` (NUL-terminated) of `lib`; none when missing.
///
/// # Safety
///
/// `T` must be the function type nvml.h declares for `name`.
unsafe fn symbol<'l, T>(lib: &'l Library, name: &[u8]) -> Option<Symbol<'l, T>> {
    // SAFETY: the caller names the type nvml.h gives the symbol; the
    // `Symbol` borrows the library, so it cannot outlive it.
    unsafe { lib.get(name) }.ok()
}

impl Drop for Nvml {
    /// `nvmlShutdown`, once for the `nvmlInit_v2` that made this value
    /// (NVML counts them); the library is unloaded after.
    fn drop(&mut self) {
        // SAFETY: nvml.h: `nvmlReturn_t nvmlShutdown(void)`.
        if let Some(shutdown) = unsafe { self.symbol::<Call>(b"nvmlShutdown\0") } {
            // SAFETY: NVML was initialised by `Nvml::init`, and no handle
            // outlives `self` (`Device` borrows it).
            unsafe { shutdown() };
        }
    }
}

impl Device<'_> {
    /// The GPU's name, `NVIDIA L4`.
    pub fn name(&self) -> Option<String> {
        let mut buf = [0u8; TEXT];
        // SAFETY: nvml.h: `nvmlDeviceGetName(nvmlDevice_t, char *name,
        // unsigned int length)`.
        let f = unsafe { self.nvml.symbol::<Name>(b"nvmlDeviceGetName\0") }?;
        // SAFETY: the handle came from this NVML, still initialised; NVML
        // writes at most `length` bytes, NUL included, into the buffer.
        if unsafe { f(self.handle, buf.as_mut_ptr().cast(), TEXT as c_uint) } != SUCCESS {
            return None;
        }
        text(&buf)
    }

    /// The GPU's compute capability, `(8, 9)`.
    pub fn compute_capability(&self) -> Option<(i32, i32)> {
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        // SAFETY: nvml.h: `nvmlDeviceGetCudaComputeCapability(nvmlDevice_t,
        // int *major, int *minor)`.
        let f = unsafe {
            self.nvml
                .symbol::<Cc>(b"nvmlDeviceGetCudaComputeCapability\0")
        }?;
        // SAFETY: the handle came from this NVML, still initialised; both
        // pointers are to live ints NVML writes once.
        let status = unsafe { f(self.handle, &mut major, &mut minor) };
        (status == SUCCESS).then_some((major, minor))
    }
}

/// The NUL-terminated string NVML wrote into `buf`; none without a NUL.
fn text(buf: &[u8]) -> Option<String> {
    let text = CStr::from_bytes_until_nul(buf).ok()?;
    Some(text.to_string_lossy().into_owned())
}
