//! racecheck's shadow of global memory within a CTA, in pages: the [`ByteRec`]s of the
//! bytes a CTA touched, `PAGE` bytes to a page, found through one hash lookup per page
//! (and none for the page used last) instead of one per 8-byte word.
//!
//! A CTA's start forgets the page table but keeps the pages as a pool to reuse, without
//! clearing them: a record left by an earlier CTA carries an epoch older than the
//! current CTA's (epochs only grow), so `race::Now` takes it as ordered before every
//! later access — exactly as it takes the empty record — and replaces it the same way.
//! The pool holds as many pages as the CTA that touched the most pages needed.

use super::race::ByteRec;
use super::AddrHasher;
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Bytes per page.
const PAGE: u64 = 256;

/// The shadow of the global bytes the running CTA touched.
#[derive(Default)]
pub(super) struct PagedRecs {
    /// Page number -> index in `pages`.
    index: HashMap<u64, u32, BuildHasherDefault<AddrHasher>>,
    /// The pool: the first `used` pages are the CTA's.
    pages: Vec<Box<[ByteRec]>>,
    used: usize,
    /// The last page looked up: (page number, index).
    last: Cell<Option<(u64, u32)>>,
}

impl PagedRecs {
    /// A new CTA: no byte touched yet (the pages stay in the pool).
    pub fn clear(&mut self) {
        self.index.clear();
        self.used = 0;
        self.last.set(None);
    }

    /// The index of page `page`, if the CTA touched it.
    fn find(&self, page: u64) -> Option<u32> {
        if let Some((p, i)) = self.last.get() {
            if p == page {
                return Some(i);
            }
        }
        let i = *self.index.get(&page)?;
        self.last.set(Some((page, i)));
        Some(i)
    }

    /// The index of page `page`, taken from the pool (or allocated) if new.
    fn find_or_add(&mut self, page: u64) -> u32 {
        if let Some(i) = self.find(page) {
            return i;
        }
        let i = self.used as u32;
        if self.used == self.pages.len() {
            self.pages
                .push(vec![ByteRec::default(); PAGE as usize].into_boxed_slice());
        }
        self.used += 1;
        self.index.insert(page, i);
        self.last.set(Some((page, i)));
        i
    }

    /// Calls `f(a, recs)` for each page's part of host bytes `[h, end)` the CTA touched,
    /// in address order (`recs`: the records of bytes `a ..`); stops at the first `true`
    /// and returns it.
    pub fn any(&self, h: u64, end: u64, mut f: impl FnMut(u64, &[ByteRec]) -> bool) -> bool {
        let mut a = h;
        while a < end {
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE - a % PAGE).min(end - a) as usize;
            if let Some(i) = self.find(page) {
                if f(a, &self.pages[i as usize][off..off + n]) {
                    return true;
                }
            }
            a += n as u64;
        }
        false
    }

    /// Calls `f(a, recs)` for each page's part of host bytes `[h, end)`, in address
    /// order, adding the pages not touched yet.
    pub fn each_mut(&mut self, h: u64, end: u64, mut f: impl FnMut(u64, &mut [ByteRec])) {
        let mut a = h;
        while a < end {
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE - a % PAGE).min(end - a) as usize;
            let i = self.find_or_add(page) as usize;
            f(a, &mut self.pages[i][off..off + n]);
            a += n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_split_ranges_and_are_reused_after_clear() {
        let mut p = PagedRecs::default();
        let mut parts = Vec::new();
        // [250, 520): pages 0 (250..256), 1 (256..512), 2 (512..520).
        p.each_mut(250, 520, |a, r| {
            r.iter_mut().for_each(|x| x.w.tid = 7);
            parts.push((a, r.len()));
        });
        assert_eq!(parts, vec![(250, 6), (256, 256), (512, 8)]);
        assert_eq!(p.used, 3);
        assert!(!p.any(250, 520, |_, r| r.iter().any(|x| x.w.tid != 7)));
        let mut seen = 0;
        assert!(!p.any(0, 1024, |_, r| {
            seen += r.len();
            false
        }));
        assert_eq!(seen, 768, "pages 0..3 are there, page 3 is not");
        p.clear();
        assert!(!p.any(0, 1024, |_, _| true), "nothing touched after clear");
        p.each_mut(4096, 4100, |_, _| {});
        assert_eq!((p.used, p.pages.len()), (1, 3), "a pooled page is reused");
    }
}
