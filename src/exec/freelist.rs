//! A first-fit list of free address extents with coalescing: the allocator core of
//! device memory (`crate::runtime::memory`) and of the kernels' `malloc` heap
//! ([`crate::exec::heap`]).

use std::collections::BTreeMap;

/// Free extents, start -> size, never adjacent (freed extents merge with neighbours).
#[derive(Debug, Default)]
pub struct FreeList {
    free: BTreeMap<u64, u64>,
}

impl FreeList {
    /// A list holding the one extent `[start, start + size)` (nothing if `size` is 0).
    pub fn new(start: u64, size: u64) -> FreeList {
        let mut f = FreeList::default();
        if size > 0 {
            f.free.insert(start, size);
        }
        f
    }

    /// Takes `need` bytes at the first address that is a multiple of `align` (a power
    /// of two) and fits; `None` when no extent can hold them.
    pub fn take(&mut self, need: u64, align: u64) -> Option<u64> {
        let (start, sz, a) = self.free.iter().find_map(|(&start, &sz)| {
            let a = start.checked_next_multiple_of(align)?;
            (a.checked_add(need)? <= start + sz).then_some((start, sz, a))
        })?;
        self.free.remove(&start);
        if a > start {
            self.free.insert(start, a - start);
        }
        if a + need < start + sz {
            self.free.insert(a + need, start + sz - (a + need));
        }
        Some(a)
    }

    /// Returns `[start, start + size)`, merging it with adjacent free extents.
    pub fn give(&mut self, mut start: u64, mut size: u64) {
        if let Some((&next, &nsz)) = self.free.range(start + size..).next() {
            if next == start + size {
                self.free.remove(&next);
                size += nsz;
            }
        }
        if let Some((&prev, &psz)) = self.free.range(..start).next_back() {
            if prev + psz == start {
                self.free.remove(&prev);
                start = prev;
                size += psz;
            }
        }
        self.free.insert(start, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_alignment_and_coalescing() {
        let mut f = FreeList::new(0x1008, 0x100);
        assert_eq!(f.take(0x10, 0x100), None, "0x1100 + 0x10 is past the end");
        assert_eq!(
            f.take(0x10, 0x10),
            Some(0x1010),
            "aligned up, the gap stays free"
        );
        assert_eq!(f.take(8, 8), Some(0x1008), "the gap before it");
        assert_eq!(f.take(u64::MAX, 1), None, "no overflow");
        f.give(0x1008, 8);
        f.give(0x1010, 0x10);
        assert_eq!(
            f.take(0x100, 8),
            Some(0x1008),
            "all merged back into one extent"
        );
    }
}
