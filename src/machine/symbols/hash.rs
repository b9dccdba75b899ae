//! Symbol lookups by the object's own hash table, as the loader looks a
//! symbol up: the GNU one (`DT_GNU_HASH`), else the SysV one (`DT_HASH`).
//!
//! A hash chain is the file's word: one may loop (SysV `chain[1] = 1`),
//! never end (GNU, no word with the low bit), or hold every symbol, and
//! a check looks up thousands of names. So one chain takes no more steps
//! than the table has symbols, and all lookups of one object together
//! [`FIRST_STEPS`] plus [`LOOKUP_STEPS`] each; real chains are a few
//! symbols long (the linkers size the buckets to the symbols), so only a
//! hostile table meets either bound, and its lookups answer "cannot
//! tell".

use object::Endian;

use super::{MAX_ENTRIES, PAGE, Tables};

/// The chain steps all lookups of one object may take besides
/// [`LOOKUP_STEPS`] each.
const FIRST_STEPS: u64 = 4096;
/// The chain steps each lookup adds to the budget.
const LOOKUP_STEPS: u64 = 64;

/// A GNU hash table in memory (`DT_GNU_HASH`).
pub(super) struct GnuTable {
    symoffset: u64,
    shift: u32,
    bloom: Vec<u64>,
    buckets: Vec<u32>,
    /// From `symoffset` to the end of the last chain.
    chains: Vec<u32>,
}

impl Tables<'_> {
    /// A lookup starts: the chain steps it may take, at most `count`.
    fn allowance(&self, count: u64) -> u64 {
        let lookups = self.lookups.get() + 1;
        self.lookups.set(lookups);
        let budget = FIRST_STEPS.saturating_add(LOOKUP_STEPS.saturating_mul(lookups));
        budget.saturating_sub(self.steps.get()).min(count)
    }

    /// The hash chain steps all lookups so far have taken.
    #[cfg(test)]
    pub(crate) fn chain_steps(&self) -> u64 {
        self.steps.get()
    }

    /// One chain step out of `left`; `None` once they are spent.
    fn step(&self, left: &mut u64) -> Option<()> {
        *left = left.checked_sub(1)?;
        self.steps.set(self.steps.get() + 1);
        Some(())
    }

    /// The GNU hash table's header: bucket count, first hashed symbol,
    /// and the file offsets of its buckets and chains.
    fn gnu(&self) -> Option<(u64, u64, u64, u64)> {
        let g = self.gnu_hash?;
        let nbuckets = u64::from(self.u32(g)?);
        let symoffset = u64::from(self.u32(g + 4)?);
        let bloom = u64::from(self.u32(g + 8)?);
        if nbuckets == 0 || nbuckets > MAX_ENTRIES || bloom > MAX_ENTRIES {
            return None;
        }
        let buckets = g + 16 + bloom * 8;
        Some((nbuckets, symoffset, buckets, buckets + nbuckets * 4))
    }

    /// The number of symbols by the GNU hash table: the end of the chain
    /// of the highest bucket, scanned a piece at a time, never past the
    /// file nor [`MAX_ENTRIES`] words.
    pub(super) fn gnu_count(&self) -> Option<u64> {
        let (nbuckets, symoffset, buckets, chains) = self.gnu()?;
        let all = self.bytes(buckets, nbuckets * 4)?;
        let last = all
            .chunks_exact(4)
            .filter_map(|c| self.decode32(c))
            .max()
            .map(u64::from)?;
        if last < symoffset {
            return Some(symoffset);
        }
        let mut at = chains.checked_add((last - symoffset) * 4)?;
        let end = at.saturating_add(MAX_ENTRIES * 4).min(self.len);
        let mut i = last;
        while end.saturating_sub(at) >= 4 {
            let n = (end - at).min(PAGE) / 4 * 4;
            let piece = self.bytes(at, n)?;
            if let Some(k) = piece
                .chunks_exact(4)
                .position(|w| self.decode32(w).is_some_and(|c| c & 1 == 1))
            {
                return Some(i + k as u64 + 1);
            }
            i += n / 4;
            at += n;
        }
        None
    }

    /// The GNU hash table, read once: its bloom filter, buckets and chains.
    fn gnu_table(&self) -> Option<&GnuTable> {
        self.gnu_table
            .get_or_init(|| {
                let (nbuckets, symoffset, buckets, chains) = self.gnu()?;
                let g = self.gnu_hash?;
                let nbloom = u64::from(self.u32(g + 8)?);
                let shift = self.u32(g + 12)?;
                let count = self.count()?;
                // Each read is checked against the file's length first,
                // so nothing is allocated by a size the file cannot hold.
                let words = |at: u64, n: u64| -> Option<Vec<u32>> {
                    let raw = self.bytes(at, n.checked_mul(4)?)?;
                    raw.chunks_exact(4).map(|c| self.decode32(c)).collect()
                };
                let bloom_raw = self.bytes(g + 16, nbloom.checked_mul(8)?)?;
                let bloom = bloom_raw
                    .chunks_exact(8)
                    .map(|c| Some(self.endian.read_u64(c.try_into().ok()?)))
                    .collect::<Option<Vec<u64>>>()?;
                Some(GnuTable {
                    symoffset,
                    shift,
                    bloom,
                    buckets: words(buckets, nbuckets)?,
                    chains: words(chains, count.saturating_sub(symoffset))?,
                })
            })
            .as_ref()
    }

    /// A GNU hash table lookup: the bloom filter, the bucket, then its
    /// chain, whose low bit ends it.
    pub(super) fn gnu_lookup(
        &self,
        name: &str,
        matches: &dyn Fn(u64) -> Option<bool>,
    ) -> Option<bool> {
        let t = self.gnu_table()?;
        let h = gnu_hash(name.as_bytes());
        if !t.bloom.is_empty() {
            let word = t.bloom[(h as usize / 64) % t.bloom.len()];
            let mask = (1u64 << (h % 64)) | (1u64 << (h.checked_shr(t.shift).unwrap_or(0) % 64));
            if word & mask != mask {
                return Some(false);
            }
        }
        let mut i = u64::from(*t.buckets.get(h as usize % t.buckets.len())?);
        if i == 0 || i < t.symoffset {
            return Some(false);
        }
        let mut left = self.allowance(t.chains.len() as u64);
        while let Some(&c) = t.chains.get((i - t.symoffset) as usize) {
            self.step(&mut left)?;
            if c | 1 == h | 1 && matches(i)? {
                return Some(true);
            }
            if c & 1 == 1 {
                break;
            }
            i += 1;
        }
        Some(false)
    }

    /// A SysV hash table lookup (`nbucket`, `nchain`, then the buckets and
    /// chains, all in the file): a chain visits at most `nchain` symbols,
    /// and one that would visit more loops.
    pub(super) fn sysv_lookup(
        &self,
        name: &str,
        matches: &dyn Fn(u64) -> Option<bool>,
    ) -> Option<bool> {
        let table = self.hash?;
        let nbucket = u64::from(self.u32(table)?);
        let nchain = u64::from(self.u32(table + 4)?);
        let size = (nbucket + nchain) * 4 + 8;
        if nbucket == 0 || table.checked_add(size)? > self.len {
            return None;
        }
        let h = u64::from(sysv_hash(name.as_bytes()));
        let chains = table + 8 + nbucket * 4;
        let mut i = u64::from(self.u32(table + 8 + h % nbucket * 4)?);
        let mut left = self.allowance(nchain);
        while i != 0 && i < nchain {
            self.step(&mut left)?;
            if matches(i)? {
                return Some(true);
            }
            i = u64::from(self.u32(chains + i * 4)?);
        }
        Some(false)
    }
}

/// The SysV ELF hash function (`_dl_elf_hash`).
pub(super) fn sysv_hash(name: &[u8]) -> u32 {
    name.iter().fold(0u32, |h, &c| {
        let h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        (h ^ (g >> 24)) & !g
    })
}

/// The GNU hash function (`dl_new_hash`).
fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}
