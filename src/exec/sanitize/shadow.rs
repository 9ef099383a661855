//! Shadow state of initcheck: a bit per byte saying "written". [`Bits`] is a plain
//! bitmap (shared windows, `.local` frames); [`InitMap`] holds one per device allocation
//! that is not known to be fully written, and lives as long as the device (host writes
//! and kernel stores mark bytes, `free` forgets the allocation).

use std::collections::BTreeMap;

/// A bitmap of `len` bits.
#[derive(Clone, Debug, Default)]
pub struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// `len` clear bits.
    pub fn new(len: u64) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64) as usize],
        }
    }
    /// Clears every bit and makes room for `len` bits.
    pub fn reset(&mut self, len: u64) {
        let n = len.div_ceil(64) as usize;
        self.words.clear();
        self.words.resize(n, 0);
    }
    /// Sets bits `[lo, lo+n)` (bits past the end are ignored), a word at a time.
    pub fn set(&mut self, lo: u64, n: u64) {
        let end = lo.saturating_add(n).min(self.words.len() as u64 * 64);
        let mut i = lo;
        while i < end {
            let k = (64 - i % 64).min(end - i);
            self.words[(i / 64) as usize] |= span(i % 64, k);
            i += k;
        }
    }
    /// The first clear bit of `[lo, lo+n)`, if any (bits past the end count as set),
    /// found a word at a time.
    pub fn first_clear(&self, lo: u64, n: u64) -> Option<u64> {
        let end = lo.saturating_add(n).min(self.words.len() as u64 * 64);
        let mut i = lo;
        while i < end {
            let k = (64 - i % 64).min(end - i);
            let clear = !self.words[(i / 64) as usize] & span(i % 64, k);
            if clear != 0 {
                return Some(i - i % 64 + clear.trailing_zeros() as u64);
            }
            i += k;
        }
        None
    }
}

/// The mask of bits `[at, at+k)` of a word (`at + k <= 64`, `k >= 1`).
fn span(at: u64, k: u64) -> u64 {
    (u64::MAX >> (64 - k)) << at
}

/// Per device allocation: its size and, until every byte has been written, a bitmap.
#[derive(Debug, Default)]
pub struct InitMap {
    allocs: BTreeMap<u64, (u64, Option<Bits>)>,
}

impl InitMap {
    /// Registers an allocation `[lo, lo+len)` whose bytes are not written yet
    /// (`cuMemAlloc`).
    pub fn add_uninit(&mut self, lo: u64, len: u64) {
        self.allocs.insert(lo, (len, Some(Bits::new(len))));
    }
    /// Forgets the allocation starting at `lo` (freed).
    pub fn remove(&mut self, lo: u64) {
        self.allocs.remove(&lo);
    }
    /// Treats every byte of every allocation as written (after a launch that did not
    /// track its stores).
    pub fn mark_all(&mut self) {
        self.allocs.clear();
    }
    fn entry(&mut self, addr: u64) -> Option<(u64, &mut (u64, Option<Bits>))> {
        let (&lo, e) = self.allocs.range_mut(..=addr).next_back()?;
        (addr < lo + e.0).then_some((lo, e))
    }
    /// Marks `[addr, addr+len)` written (bytes outside tracked allocations are ignored).
    pub fn mark(&mut self, addr: u64, len: u64) {
        let mut a = addr;
        let end = addr.saturating_add(len);
        while a < end {
            let Some((lo, (alen, bits))) = self.entry(a) else {
                // Skip to the next tracked allocation.
                match self.allocs.range(a..end).next() {
                    Some((&next, _)) => {
                        a = next;
                        continue;
                    }
                    None => return,
                }
            };
            let stop = end.min(lo + *alen);
            if let Some(b) = bits {
                b.set(a - lo, stop - a);
            }
            a = stop;
        }
    }
    /// Whether any byte of `[addr, addr+len)` lies in a tracked allocation and was never
    /// written (whatever allocation each byte is in: a superset of what
    /// [`InitMap::first_uninit`] finds for any access inside the range).
    pub fn any_uninit(&self, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len);
        let first = self.allocs.range(..=addr).next_back().map(|(&lo, _)| lo);
        let from = first.unwrap_or(addr);
        self.allocs.range(from..end).any(|(&lo, (alen, bits))| {
            let (a, b) = (addr.max(lo), end.min(lo.saturating_add(*alen)));
            a < b
                && bits
                    .as_ref()
                    .is_some_and(|x| x.first_clear(a - lo, b - a).is_some())
        })
    }
    /// The first byte of `[addr, addr+len)` in a tracked allocation that was never
    /// written, if any.
    pub fn first_uninit(&mut self, addr: u64, len: u64) -> Option<u64> {
        let (lo, (alen, bits)) = self.entry(addr)?;
        let n = len.min(lo + *alen - addr);
        bits.as_ref()?.first_clear(addr - lo, n).map(|i| lo + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_map_marks_and_finds() {
        let mut m = InitMap::default();
        m.add_uninit(1000, 100);
        assert_eq!(m.first_uninit(1000, 4), Some(1000));
        m.mark(990, 14); // covers 1000..1004 only
        assert_eq!(m.first_uninit(1000, 4), None);
        assert_eq!(m.first_uninit(1002, 4), Some(1004));
        assert_eq!(
            m.first_uninit(5000, 4),
            None,
            "untracked memory counts as written"
        );
        m.remove(1000);
        assert_eq!(m.first_uninit(1010, 4), None);
        let mut b = Bits::new(70);
        b.set(3, 66);
        assert_eq!(b.first_clear(0, 70), Some(0));
        assert_eq!(b.first_clear(3, 67), Some(69));
    }
}
