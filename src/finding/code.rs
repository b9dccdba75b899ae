//! The finding codes: one closed vocabulary, each documented in
//! docs/findings.md (tests/it/docs.rs holds the two to each other). JSON,
//! the table and Prometheus labels carry the kebab-case name; the code
//! carries the variant, so a misspelt code does not compile.

use std::fmt;

/// Declares [`Code`] with each variant's name as printed.
macro_rules! codes {
    ($($variant:ident = $name:literal,)*) => {
        /// A finding's stable identifier.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Code {
            /// Every code, in the order of docs/findings.md.
            pub const ALL: &[Code] = &[$(Code::$variant),*];

            /// The name JSON and the table print.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }
        }
    };
}

codes! {
    BrokenInstall = "broken-install",
    CudnnWithoutLibraries = "cudnn-without-libraries",
    MixedCudaRuntimes = "mixed-cuda-runtimes",
    DistInfoUnreadable = "dist-info-unreadable",
    WheelFilesOverwritten = "wheel-files-overwritten",
    FrameworkFromCondaAndPip = "framework-from-conda-and-pip",
    DuplicateRecord = "duplicate-record",
    DuplicateDistInfo = "duplicate-dist-info",
    RecordNameMismatch = "record-name-mismatch",
    DriverStub = "driver-stub",
    ForeignHook = "foreign-hook",
    RecordTruncated = "record-truncated",
    RecordTooLarge = "record-too-large",
    HandwrittenKept = "handwritten-kept",
    ShadowedLibrary = "shadowed-library",
    DriverTooOld = "driver-too-old",
    ForwardCompat = "forward-compat",
    DriverOlderThanCuda = "driver-older-than-cuda",
    DriverLibraryMissing = "driver-library-missing",
    NoCudaDriver = "no-cuda-driver",
    NoDriver = "no-driver",
    GpuUnknown = "gpu-unknown",
    GpuUnsupported = "gpu-unsupported",
    GpuPartlyUnsupported = "gpu-partly-unsupported",
    GpuJit = "gpu-jit",
    KnownBadVersion = "known-bad-version",
    LibraryUnused = "library-unused",
    RefusedAtStart = "refused-at-start",
    PinBroken = "pin-broken",
    PinMissing = "pin-missing",
    BrokenImport = "broken-import",
    NoSuchBuild = "no-such-build",
    BuildNotInData = "build-not-in-data",
    CudaMismatch = "cuda-mismatch",
    CudaOlderThanBuild = "cuda-older-than-build",
    NoCudaRuntime = "no-cuda-runtime",
    NoCudnn = "no-cudnn",
    CudnnMismatch = "cudnn-mismatch",
    CudnnOlderThanBuild = "cudnn-older-than-build",
    CudnnCudaMismatch = "cudnn-cuda-mismatch",
    CudnnCudaUnlisted = "cudnn-cuda-unlisted",
    LibraryNotFound = "library-not-found",
    OptionalLibraryMissing = "optional-library-missing",
    TensorrtOtherVersion = "tensorrt-other-version",
    TensorrtOtherCuda = "tensorrt-other-cuda",
    LibraryOtherMajor = "library-other-major",
    CudnnPinBelowBuild = "cudnn-pin-below-build",
    MissingDevSymlink = "missing-dev-symlink",
    NeedsHook = "needs-hook",
    SystemLibraryWins = "system-library-wins",
    HookOtherMajor = "hook-other-major",
    ExtensionMismatch = "extension-mismatch",
    FrameworkPinBroken = "framework-pin-broken",
    SymbolMissing = "symbol-missing",
    StubOnPath = "stub-on-path",
    StubLibcuda = "stub-libcuda",
    StaleHook = "stale-hook",
    MovedHooks = "moved-hooks",
    KernelspecWithoutPath = "kernelspec-without-path",
    ShellUnsupported = "shell-unsupported",
    NotEnvhooks = "not-envhooks",
    PrefixUnsupported = "prefix-unsupported",
    LibraryNotLoadable = "library-not-loadable",
    LibraryNotExposed = "library-not-exposed",
    ElfUnreadable = "elf-unreadable",
    LdCacheUnreadable = "ld-cache-unreadable",
    ElfSearchPathCut = "elf-search-path-cut",
    FixFailed = "fix-failed",
    Unreadable = "unreadable",
}

impl Code {
    /// The code printed as `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A code named in a data file (data/explain.toml): an unknown name is
/// an error when the file is read, not a row that never matches.
impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let name = String::deserialize(d)?;
        Code::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("no finding code {name:?}")))
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            let name = c.as_str();
            assert!(seen.insert(name), "{name} twice");
            assert!(
                name.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
                "{name}"
            );
            assert_eq!(Code::from_name(name), Some(*c));
        }
    }
}
