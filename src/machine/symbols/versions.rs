//! Symbol versions: the ones an object needs (`DT_VERNEED`), the ones it
//! defines (`DT_VERDEF`), and its versioned needs matched to its symbols
//! (`DT_VERSYM`).
//!
//! The lists are linked by offsets the file states, so entries can
//! overlap and a list can claim 65 535 entries of 65 535 versions each:
//! every walk stops at [`MAX_VERSIONS`] entries in all (a real object
//! needs a few dozen versions) and such an object is malformed.

use std::collections::HashMap;

use object::Endian;

use super::{Need, SHN_UNDEF, STB_WEAK, Tables};

/// The most version entries (files and versions together) one list may
/// have.
pub(super) const MAX_VERSIONS: usize = 1 << 13;
/// The longest version or file name kept (`GLIBC_2.2.5`,
/// `libnvJitLink.so.12`).
const MAX_VERSION_NAME: u64 = 1024;

/// One needed version: its index, the file it is needed from, its name.
type Needed = (u16, String, String);

fn too_many(what: &str) -> String {
    format!("malformed: more than {MAX_VERSIONS} {what} entries")
}

impl Tables<'_> {
    /// The versions this object needs: version index -> (file, version).
    fn needed_versions(&self) -> Result<Vec<Needed>, String> {
        let mut out = Vec::new();
        let Some((mut at, count)) = self.verneed else {
            return Ok(out);
        };
        let mut visited = 0;
        let mut visit = || {
            visited += 1;
            (visited <= MAX_VERSIONS)
                .then_some(())
                .ok_or_else(|| too_many("DT_VERNEED"))
        };
        for _ in 0..count {
            visit()?;
            let (Some(cnt), Some(file), Some(aux), Some(next)) = (
                self.u16(at + 2),
                self.u32(at + 4),
                self.u32(at + 8),
                self.u32(at + 12),
            ) else {
                break;
            };
            let file = self
                .string_max(u64::from(file), MAX_VERSION_NAME)
                .unwrap_or_default();
            let mut a = at + u64::from(aux);
            for _ in 0..cnt {
                visit()?;
                let (Some(other), Some(name), Some(anext)) =
                    (self.u16(a + 6), self.u32(a + 8), self.u32(a + 12))
                else {
                    break;
                };
                if let Some(version) = self.string_max(u64::from(name), MAX_VERSION_NAME) {
                    out.push((other & 0x7fff, file.clone(), version));
                }
                if anext == 0 {
                    break;
                }
                a += u64::from(anext);
            }
            if next == 0 {
                break;
            }
            at += u64::from(next);
        }
        Ok(out)
    }

    /// The versions this object defines: version index -> name (the first
    /// entry of an index); `None`: malformed.
    pub(super) fn defined_versions(&self) -> Option<HashMap<u16, String>> {
        let mut out = HashMap::new();
        let Some((mut at, count)) = self.verdef else {
            return Some(out);
        };
        for visited in 0..count {
            if visited as usize >= MAX_VERSIONS {
                return None;
            }
            let (Some(ndx), Some(aux), Some(next)) =
                (self.u16(at + 4), self.u32(at + 12), self.u32(at + 16))
            else {
                break;
            };
            if let Some(name) = self
                .u32(at + u64::from(aux))
                .and_then(|n| self.string_max(u64::from(n), MAX_VERSION_NAME))
            {
                out.entry(ndx & 0x7fff).or_insert(name);
            }
            if next == 0 {
                break;
            }
            at += u64::from(next);
        }
        Some(out)
    }

    /// The versioned symbols this object needs from the files `wanted`
    /// accepts, undefined and not weak (a weak reference may stay
    /// unbound): one pass over the symbols, each version found by its
    /// index.
    pub fn needs(&self, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<Need>, String> {
        let mut versions: HashMap<u16, (String, String)> = HashMap::new();
        for (index, file, version) in self.needed_versions()? {
            if wanted(&file) {
                // The first entry of an index, as a search in order finds.
                versions.entry(index).or_insert((file, version));
            }
        }
        let mut out = Vec::new();
        if versions.is_empty() {
            return Ok(out);
        }
        let (Some(count), Some(versym)) = (self.count(), self.versym) else {
            return Ok(out);
        };
        let Some(all) = self.bytes(versym, count * 2) else {
            return Ok(out);
        };
        let indices: Vec<u16> = all
            .chunks_exact(2)
            .map(|c| self.endian.read_u16([c[0], c[1]]))
            .collect();
        for (i, v) in indices.iter().enumerate() {
            let Some((file, version)) = versions.get(&(v & 0x7fff)) else {
                continue;
            };
            let Some((name, info, shndx)) = self.symbol(i as u64) else {
                continue;
            };
            if shndx != SHN_UNDEF || info >> 4 == STB_WEAK {
                continue;
            }
            if let Some(symbol) = self.handed_out(u64::from(name))? {
                out.push(Need {
                    symbol,
                    version: version.clone(),
                    file: file.clone(),
                });
            }
        }
        Ok(out)
    }
}
