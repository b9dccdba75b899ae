//! NVIDIA's binary compatibility: which compiled device code a GPU of a
//! given compute capability runs. One place for the rule, used by the
//! fatbin reader for objects' code and by the matrix for what a CUDA
//! release or a cuDNN build can run on.

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A cubin: SASS, machine code for one architecture.
    Sass,
    /// PTX, which the driver JIT-compiles for the GPU it runs on.
    Ptx,
}

/// How far beyond its own architecture an entry may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// `sm_80`, `compute_80`: the usual compatibility rules.
    Generic,
    /// `sm_100f`, `compute_100f`: the architecture's family (same major,
    /// same or newer minor), for PTX as for SASS.
    FamilySpecific,
    /// `sm_90a`, `compute_90a`: exactly that compute capability.
    ArchSpecific,
}

/// A compute capability, `major.minor`: 8.6 for sm_86, 10.3 for sm_103.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cc {
    pub major: u32,
    pub minor: u32,
}

impl Cc {
    /// `"8.6"` -> 8.6, `"10.0"` -> 10.0, `"9"` -> 9.0; `None` for anything
    /// else.
    pub fn parse(text: &str) -> Option<Cc> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = match parts.next() {
            Some(m) => m.parse().ok()?,
            None => 0,
        };
        parts.next().is_none().then_some(Cc { major, minor })
    }

    /// The fatbin's `major * 10 + minor`: 75 -> 7.5, 103 -> 10.3.
    pub fn from_sm(sm: u32) -> Cc {
        Cc {
            major: sm / 10,
            minor: sm % 10,
        }
    }
}

impl std::fmt::Display for Cc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Whether code compiled for `code` runs on a GPU of compute capability
/// `device`: NVIDIA's binary compatibility rules (CUDA C++ Programming
/// Guide, "Binary Compatibility", "PTX Compatibility" and "Feature
/// Availability": architecture-specific and family-specific features; the
/// Blackwell compatibility guide).
///
/// - A generic cubin (`sm_80`) runs on its own major at the same or a newer
///   minor: 8.0 code on 8.6 and 8.9, 10.0 code on 10.3 (B300) and 10.7
///   (Rubin, "uses the SM103 instruction set"), 12.0 code on 12.1 (GB10);
///   never across a major (8.0 code on 9.0).
/// - Family-specific code (`sm_100f`, `compute_100f`) runs on the same
///   family, its major, at the same or a newer minor, as SASS and as PTX.
/// - Architecture-specific code (`sm_90a`, `compute_90a`) runs only on
///   exactly that capability: sm_90a never runs on sm_100.
/// - Generic PTX (`compute_80`) is JIT-compiled by the driver for any equal
///   or newer capability, across majors.
pub fn runs(kind: Kind, variant: Variant, code: Cc, device: Cc) -> bool {
    match (variant, kind) {
        (Variant::ArchSpecific, _) => code == device,
        (Variant::FamilySpecific, _) | (Variant::Generic, Kind::Sass) => {
            code.major == device.major && code.minor <= device.minor
        }
        (Variant::Generic, Kind::Ptx) => code <= device,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(s: &str) -> Cc {
        Cc::parse(s).unwrap()
    }

    #[test]
    fn nvidia_binary_compatibility() {
        use Kind::*;
        use Variant::*;
        let sass = |code: &str, dev: &str| runs(Sass, Generic, cc(code), cc(dev));
        // Same major, same or newer minor.
        assert!(sass("8.0", "8.6") && sass("8.6", "8.9") && sass("8.0", "8.0"));
        assert!(sass("10.0", "10.3"), "B300 runs sm_100 cubins");
        assert!(sass("10.0", "10.7") && sass("10.3", "10.7"), "Rubin");
        assert!(sass("12.0", "12.1"), "GB10 runs sm_120 cubins");
        assert!(!sass("8.6", "8.0"), "never an older minor");
        assert!(!sass("8.0", "9.0") && !sass("9.0", "10.0") && !sass("10.0", "12.0"));
        // Architecture-specific: exactly that capability.
        assert!(runs(Sass, ArchSpecific, cc("9.0"), cc("9.0")));
        assert!(!runs(Sass, ArchSpecific, cc("9.0"), cc("10.0")));
        assert!(!runs(Sass, ArchSpecific, cc("10.0"), cc("10.3")));
        assert!(!runs(Ptx, ArchSpecific, cc("9.0"), cc("10.0")));
        // Family-specific: the major, same or newer minor.
        assert!(runs(Sass, FamilySpecific, cc("10.0"), cc("10.3")));
        assert!(runs(Ptx, FamilySpecific, cc("12.0"), cc("12.1")));
        assert!(!runs(Sass, FamilySpecific, cc("10.0"), cc("12.0")));
        assert!(!runs(Sass, FamilySpecific, cc("10.3"), cc("10.0")));
        // Generic PTX JITs forward, across majors, never backward.
        assert!(runs(Ptx, Generic, cc("9.0"), cc("12.1")));
        assert!(!runs(Ptx, Generic, cc("9.0"), cc("8.9")));
    }

    #[test]
    fn capabilities_parse() {
        assert_eq!(
            Cc::parse("10.3"),
            Some(Cc {
                major: 10,
                minor: 3
            })
        );
        assert_eq!(Cc::parse("9"), Some(Cc { major: 9, minor: 0 }));
        assert_eq!(Cc::from_sm(121), cc("12.1"));
        assert_eq!(cc("12.1").to_string(), "12.1");
        for bad in ["", "x", "8.6.1", "8.", "-1.0"] {
            assert_eq!(Cc::parse(bad), None, "{bad}");
        }
    }
}
