//! C++ names as people read them: `_ZN2at18TensorIteratorBaseC2Ev` is
//! `at::TensorIteratorBase::TensorIteratorBase()`. The Itanium ABI's
//! grammar is `cpp_demangle`'s (the demangler of Firefox's and Sentry's
//! symbolication, fuzzed), not hand-written here.
//!
//! A name comes from a hostile object or a pasted message: names longer
//! than [`MAX_MANGLED`] are not demangled, parsing and printing are held to
//! a recursion depth, and printing stops at [`MAX_DEMANGLED`] bytes (a
//! name's back-references can expand it exponentially).

use std::fmt;

/// The longest mangled name demangled: torch's longest run to about 1 kB.
const MAX_MANGLED: usize = 4096;
/// The longest demangled text kept.
const MAX_DEMANGLED: usize = 2048;
/// The recursion limit for parsing and printing.
const DEPTH: u32 = 64;

/// The most pieces printing may write: every piece is at least a byte or
/// an empty one, so this bounds the walk as [`MAX_DEMANGLED`] bounds the
/// text.
const MAX_WRITES: u32 = 4 * MAX_DEMANGLED as u32;

/// A `fmt::Write` that refuses to grow past [`MAX_DEMANGLED`] bytes or
/// [`MAX_WRITES`] pieces.
struct Capped {
    text: String,
    writes: u32,
}

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.writes += 1;
        if self.text.len() + s.len() > MAX_DEMANGLED || self.writes > MAX_WRITES {
            return Err(fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

/// The readable form of a mangled C++ name, or `None` for a name that is
/// not one (a C function), too long, or too deep.
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") || name.len() > MAX_MANGLED {
        return None;
    }
    let parse = cpp_demangle::ParseOptions::default().recursion_limit(DEPTH);
    let symbol = cpp_demangle::Symbol::new_with_options(name.as_bytes(), &parse).ok()?;
    let print = cpp_demangle::DemangleOptions::new().recursion_limit(DEPTH);
    let mut out = Capped {
        text: String::new(),
        writes: 0,
    };
    symbol.structured_demangle(&mut out, &print).ok()?;
    Some(out.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names from real `undefined symbol` messages (xformers under torch
    /// 2.6.0, vLLM's `_C` under another torch).
    #[test]
    fn real_names() {
        assert_eq!(
            demangle("_ZN2at18TensorIteratorBaseC2Ev").as_deref(),
            Some("at::TensorIteratorBase::TensorIteratorBase()")
        );
        assert_eq!(
            demangle("_ZN3c104cuda9SetDeviceEi").as_deref(),
            Some("c10::cuda::SetDevice(int)")
        );
        assert_eq!(
            demangle("_ZNK5torch8autograd4Node4nameB5cxx11Ev").as_deref(),
            Some("torch::autograd::Node::name[abi:cxx11]() const")
        );
        assert_eq!(demangle("cudnnCreate"), None);
        assert_eq!(demangle("_Z"), None);
    }

    /// Hostile names: deep nesting, back-references, long ones give a short answer or none, with no
    /// panic.
    #[test]
    fn hostile_names() {
        let deep = format!("_Z1f{}i{}", "PFv".repeat(2000), "E".repeat(2000));
        let mut expanding = String::from("_Z1fIiE");
        for _ in 0..40 {
            expanding.push_str("S_");
        }
        let wide = format!("_ZN{}E", "3abc".repeat(1000));
        for name in [
            deep.as_str(),
            expanding.as_str(),
            wide.as_str(),
            &"_Z".repeat(3000),
        ] {
            if let Some(text) = demangle(name) {
                assert!(text.len() <= MAX_DEMANGLED);
            }
        }
        // 1000 nested names print 5 kB: past the cap, no answer.
        assert_eq!(demangle(&wide), None);
    }
}
