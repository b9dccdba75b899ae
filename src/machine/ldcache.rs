//! `/etc/ld.so.cache`, the loader's name-to-path cache written by
//! `ldconfig`, parsed for real: the new format (`glibc-ld.so.cache1.1`,
//! glibc >= 2.32 writes only this) and the old `ld.so-1.7.0` format that may
//! precede it. Layout from glibc's `sysdeps/generic/dl-cache.h`.

use std::path::{Path, PathBuf};

const NEW_MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
const OLD_MAGIC: &[u8] = b"ld.so-1.7.0";
/// `struct cache_file_new` up to the first entry.
const NEW_HEADER: usize = 48;
/// `struct file_entry_new`: flags, key, value, osversion, hwcap.
const NEW_ENTRY: usize = 24;
/// `struct file_entry` (old format): flags, key, value.
const OLD_ENTRY: usize = 12;

/// One cache entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The soname, e.g. `libcudnn.so.8`.
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// ldconfig's flags: the low byte is the library type, the high byte
    /// the ABI (`0x0300` x86-64, `0x0a00` AArch64).
    pub flags: i32,
}

/// The parsed cache.
#[derive(Debug, Clone, Default)]
pub struct LdCache {
    /// Entries in file order (ldconfig writes them in lookup order).
    pub entries: Vec<Entry>,
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

fn cstr_at(d: &[u8], at: usize) -> Option<String> {
    let rest = d.get(at..)?;
    let end = rest.iter().position(|b| *b == 0)?;
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

impl LdCache {
    /// Read a cache file; `Ok(None)` when there is none (musl systems,
    /// minimal containers).
    pub fn read(path: &Path) -> Result<Option<LdCache>, String> {
        match crate::paths::read_regular(path, crate::paths::MAX_TEXT) {
            Ok(bytes) => Self::parse(&bytes)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Parse cache bytes (little-endian, as on every platform envhook runs on).
    pub fn parse(d: &[u8]) -> Result<LdCache, String> {
        let bad = || "truncated or corrupt ld.so.cache".to_string();
        // One entry at `at`: flags, key, value (the old and new formats
        // agree on these three), strings counted from `strings`.
        let entry = |at: usize, strings: usize| -> Result<Entry, String> {
            let flags = u32_at(d, at).ok_or_else(bad)? as i32;
            let key = u32_at(d, at + 4).ok_or_else(bad)? as usize;
            let value = u32_at(d, at + 8).ok_or_else(bad)? as usize;
            Ok(Entry {
                name: cstr_at(d, strings + key).ok_or_else(bad)?,
                path: PathBuf::from(cstr_at(d, strings + value).ok_or_else(bad)?),
                flags,
            })
        };
        let mut base = 0usize;
        if d.starts_with(OLD_MAGIC) {
            let nlibs = u32_at(d, 12).ok_or_else(bad)? as usize;
            let old_end = 16 + nlibs * OLD_ENTRY;
            let new_at = old_end.next_multiple_of(8);
            if d.get(new_at..new_at + NEW_MAGIC.len()) == Some(NEW_MAGIC) {
                base = new_at;
            } else {
                // Old format only: strings follow the entries.
                let entries = (0..nlibs)
                    .map(|i| entry(16 + i * OLD_ENTRY, old_end))
                    .collect::<Result<_, _>>()?;
                return Ok(LdCache { entries });
            }
        } else if !d.starts_with(NEW_MAGIC) {
            return Err("not an ld.so.cache (unknown magic)".into());
        }
        let nlibs = u32_at(d, base + 20).ok_or_else(bad)? as usize;
        if nlibs > d.len() / NEW_ENTRY {
            return Err(bad());
        }
        // In the new format, string offsets count from the new header.
        let entries = (0..nlibs)
            .map(|i| entry(base + NEW_HEADER + i * NEW_ENTRY, base))
            .collect::<Result<_, _>>()?;
        Ok(LdCache { entries })
    }

    /// The first entry for `name` built for `machine` (ELF `e_machine`).
    pub fn lookup(&self, name: &str, machine: u16) -> Option<&Path> {
        let abi = match machine {
            62 => Some(0x0300),  // EM_X86_64 -> FLAG_X8664_LIB64
            183 => Some(0x0a00), // EM_AARCH64 -> FLAG_AARCH64_LIB64
            _ => None,
        };
        self.entries
            .iter()
            .find(|e| e.name == name && abi.is_none_or(|a| e.flags & 0xff00 == a))
            .map(|e| e.path.as_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machines_cache_parses() {
        // Every Debian system has one; `ldconfig -p` reads the same file.
        let Some(cache) = LdCache::read(Path::new("/etc/ld.so.cache")).unwrap() else {
            return;
        };
        assert!(!cache.entries.is_empty());
        assert!(cache.entries.iter().all(|e| e.path.is_absolute()));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(LdCache::parse(b"hello").is_err());
        let mut truncated = NEW_MAGIC.to_vec();
        truncated.extend([0xff, 0xff, 0, 0]);
        assert!(LdCache::parse(&truncated).is_err());
        let mut huge = NEW_MAGIC.to_vec();
        huge.extend([0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0]);
        huge.resize(200, 0);
        assert!(LdCache::parse(&huge).is_err());
    }
}

#[cfg(test)]
mod ldconfig_tests {
    use super::*;

    /// A cache written by the real `ldconfig` for a directory of ours.
    #[test]
    fn reads_what_ldconfig_writes() {
        let Some(ldconfig) = ["/usr/sbin/ldconfig", "/sbin/ldconfig"]
            .into_iter()
            .find(|p| Path::new(p).exists())
        else {
            return; // not a glibc system
        };
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("lib");
        std::fs::create_dir(&lib).unwrap();
        let src = dir.path().join("x.c");
        std::fs::write(&src, "int f(void) { return 1; }\n").unwrap();
        let so = lib.join("libenvhooktest.so.3.1");
        let ok = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-Wl,-soname,libenvhooktest.so.3", "-o"])
            .arg(&so)
            .arg(&src)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let conf = dir.path().join("ld.so.conf");
        std::fs::write(&conf, format!("{}\n", lib.display())).unwrap();
        let cache_file = dir.path().join("ld.so.cache");
        let out = std::process::Command::new(ldconfig)
            .arg("-C")
            .arg(&cache_file)
            .arg("-f")
            .arg(&conf)
            .arg("-X") // do not touch the library's own links
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cache = LdCache::read(&cache_file).unwrap().unwrap();
        // ldconfig records the soname path (the link it would make), not the file.
        assert_eq!(
            cache.lookup("libenvhooktest.so.3", 62),
            Some(lib.join("libenvhooktest.so.3").as_path())
        );
        assert_eq!(
            cache.lookup("libenvhooktest.so.3", 183),
            None,
            "x86-64 entry, not AArch64"
        );
        assert_eq!(cache.lookup("libnothere.so.1", 62), None);
    }
}
