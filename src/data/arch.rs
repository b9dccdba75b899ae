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
