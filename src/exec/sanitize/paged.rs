//! racecheck's shadow of global memory within a CTA, in pages: the [`ByteRec`]s of the
//! bytes a CTA touched, `PAGE` bytes to a page, found through one hash lookup per page
//! (none for the two pages used last: a kernel alternating between two arrays, as
//! `y = a * x + y` does, walks no table) instead of one per 8-byte word.
//!
//! **Granules.** A page keeps one record per 4-byte granule, standing for the granule's
//! four bytes while they are equal (every access so far covered the whole granule as
//! one thread's: an aligned access of 4 bytes or more), and per-byte records for the
//! granules a narrower or straddling access split (`split`). Since the bytes of an
//! unsplit granule have equal records, one check and one update of its record give
//! exactly what four per-byte checks and updates would: the same first race (the
//! granule's first byte is checked first), the same records after. A granule whose
//! four byte records become equal again after an access that covered it whole is merged
//! back. Callers see the shadow as *cells* ([`PagedRecs::any`], [`PagedRecs::each_mut`]):
//! a whole granule or one byte, in address order.
//!
//! A CTA's start forgets the page table but keeps the pages as a pool to reuse, without
//! clearing them: a record left by an earlier CTA carries an epoch older than the
//! current CTA's (epochs only grow), so `race::Now` takes it as ordered before every
//! later access — exactly as it takes the empty record — and replaces it the same way
//! (a reused page starts with no granule split: its granule records are such old ones).
//! The pool holds as many pages as the CTA that touched the most pages needed.

use super::race::ByteRec;
use super::AddrHasher;
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Bytes per page.
const PAGE: u64 = 256;
/// Bytes per granule.
const GRAIN: u64 = 4;
/// Granules per page.
const GRAINS: usize = (PAGE / GRAIN) as usize;
/// No page (an empty entry of the recent-page cache).
const NONE: (u64, u32) = (u64::MAX, 0);

/// The mask of bits `g0..g1` (`g0 < g1 <= 64`).
fn span(g0: usize, g1: usize) -> u64 {
    (u64::MAX >> (64 - (g1 - g0))) << g0
}

/// One page's shadow (`R`: a byte's record).
struct Page<R> {
    /// Per granule: the record of its four bytes (meaningless where split).
    grains: Box<[R; GRAINS]>,
    /// Bit g: granule g has per-byte records in `bytes`.
    split: u64,
    /// Per byte (allocated at the first split): the records of split granules' bytes.
    bytes: Vec<R>,
}

impl<R: Copy + Default + Eq> Page<R> {
    fn new() -> Page<R> {
        Page {
            grains: Box::new([R::default(); GRAINS]),
            split: 0,
            bytes: Vec::new(),
        }
    }

    /// Gives granule `g` per-byte records (copies of its granule record).
    fn split(&mut self, g: usize) {
        if self.bytes.is_empty() {
            self.bytes = vec![R::default(); PAGE as usize];
        }
        let rec = self.grains[g];
        self.bytes[g * 4..g * 4 + 4].fill(rec);
        self.split |= 1 << g;
    }

    /// The granules `g0..g1` of this page's bytes `[a, stop)` when they are whole
    /// granules of one thread's access each (`whole`) and none is split.
    #[inline]
    fn whole_grains(&self, a: u64, stop: u64, whole: bool) -> Option<(usize, usize)> {
        let (o, e) = (
            (a % PAGE) as usize,
            (stop - a) as usize + (a % PAGE) as usize,
        );
        let aligned = whole && o % GRAIN as usize == 0 && e % GRAIN as usize == 0;
        let (g0, g1) = (o / GRAIN as usize, e / GRAIN as usize);
        let none_split = g1 == g0 || self.split & span(g0, g1) == 0;
        (aligned && none_split).then_some((g0, g1))
    }

    /// Merges split granule `g` back when its four byte records are equal.
    fn try_merge(&mut self, g: usize) {
        let b = &self.bytes[g * 4..g * 4 + 4];
        if b[1..].iter().all(|r| *r == b[0]) {
            self.grains[g] = b[0];
            self.split &= !(1 << g);
        }
    }

    /// [`PagedRecs::any`] on bytes `[a, stop)` of this page (`a..stop` inside it).
    fn any_in(&self, a: u64, stop: u64, whole: bool, f: &mut impl FnMut(u64, &R) -> bool) -> bool {
        let off = a % PAGE;
        if let Some((g0, g1)) = self.whole_grains(a, stop, whole) {
            // The common case: whole granules, none split.
            return (g0..)
                .zip(&self.grains[g0..g1])
                .any(|(g, rec)| f(a - off + g as u64 * GRAIN, rec));
        }
        let mut b = a;
        while b < stop {
            let o = (b % PAGE) as usize;
            let g = o / 4;
            let gend = (b - b % GRAIN + GRAIN).min(stop);
            if self.split >> g & 1 != 0 {
                for (k, rec) in self.bytes[o..o + (gend - b) as usize].iter().enumerate() {
                    if f(b + k as u64, rec) {
                        return true;
                    }
                }
            } else if whole && b.is_multiple_of(GRAIN) && gend - b == GRAIN {
                if f(b, &self.grains[g]) {
                    return true;
                }
            } else {
                for x in b..gend {
                    if f(x, &self.grains[g]) {
                        return true;
                    }
                }
            }
            b = gend;
        }
        false
    }

    /// [`PagedRecs::each_mut`] on bytes `[a, stop)` of this page (`a..stop` inside it).
    fn each_mut_in(&mut self, a: u64, stop: u64, whole: bool, f: &mut impl FnMut(u64, &mut R)) {
        let off = a % PAGE;
        if let Some((g0, g1)) = self.whole_grains(a, stop, whole) {
            for (g, rec) in (g0..).zip(&mut self.grains[g0..g1]) {
                f(a - off + g as u64 * GRAIN, rec);
            }
            return;
        }
        let mut b = a;
        while b < stop {
            let o = (b % PAGE) as usize;
            let g = o / 4;
            let gend = (b - b % GRAIN + GRAIN).min(stop);
            let full = whole && b.is_multiple_of(GRAIN) && gend - b == GRAIN;
            if full && self.split >> g & 1 == 0 {
                f(b, &mut self.grains[g]);
            } else {
                if self.split >> g & 1 == 0 {
                    self.split(g);
                }
                for (k, rec) in self.bytes[o..o + (gend - b) as usize]
                    .iter_mut()
                    .enumerate()
                {
                    f(b + k as u64, rec);
                }
                if full {
                    self.try_merge(g);
                }
            }
            b = gend;
        }
    }
}

/// The shadow of the global bytes the running CTA touched (`R`: a byte's record;
/// the cross-CTA shadow keeps its own records in the same pages, and never clears).
pub(super) struct PagedRecs<R = ByteRec> {
    /// Page number -> index in `pages`.
    index: HashMap<u64, u32, BuildHasherDefault<AddrHasher>>,
    /// The pool: the first `used` pages are the CTA's.
    pages: Vec<Page<R>>,
    used: usize,
    /// The two pages looked up last, the latest first: (page number, index).
    recent: Cell<[(u64, u32); 2]>,
}

impl<R> Default for PagedRecs<R> {
    fn default() -> Self {
        PagedRecs {
            index: HashMap::default(),
            pages: Vec::new(),
            used: 0,
            recent: Cell::new([NONE; 2]),
        }
    }
}

impl<R: Copy + Default + Eq> PagedRecs<R> {
    /// A new CTA: no byte touched yet (the pages stay in the pool).
    pub fn clear(&mut self) {
        self.index.clear();
        self.used = 0;
        self.recent.set([NONE; 2]);
    }

    /// The index of page `page`, if the CTA touched it.
    #[inline]
    fn find(&self, page: u64) -> Option<u32> {
        let [a, b] = self.recent.get();
        if a.0 == page {
            return Some(a.1);
        }
        if b.0 == page {
            self.recent.set([b, a]);
            return Some(b.1);
        }
        let i = *self.index.get(&page)?;
        self.recent.set([(page, i), a]);
        Some(i)
    }

    /// The index of page `page`, taken from the pool (or allocated) if new.
    fn find_or_add(&mut self, page: u64) -> u32 {
        if let Some(i) = self.find(page) {
            return i;
        }
        let i = self.used as u32;
        if self.used == self.pages.len() {
            self.pages.push(Page::new());
        } else {
            // Its records are an earlier CTA's: as good as empty, granule by granule.
            self.pages[self.used].split = 0;
        }
        self.used += 1;
        self.index.insert(page, i);
        let [a, _] = self.recent.get();
        self.recent.set([(page, i), a]);
        i
    }

    /// Calls `f(a, rec)` for each cell of host bytes `[h, end)` the CTA touched, in
    /// address order (`a`: the cell's first byte, `rec`: its record): a whole granule
    /// where `whole` says each granule inside the range is one thread's access and the
    /// granule is not split, else each byte (an unsplit granule's record standing for
    /// its bytes); stops at the first `true` and returns it.
    pub fn any(&self, h: u64, end: u64, whole: bool, mut f: impl FnMut(u64, &R) -> bool) -> bool {
        let mut a = h;
        while a < end {
            let stop = a + (PAGE - a % PAGE).min(end - a);
            if let Some(i) = self.find(a / PAGE) {
                if self.pages[i as usize].any_in(a, stop, whole, &mut f) {
                    return true;
                }
            }
            a = stop;
        }
        false
    }

    /// Calls `f(a, rec)` for each cell of host bytes `[h, end)` (as [`PagedRecs::any`]
    /// gives them, splitting a granule the range or its threads cover in part), in
    /// address order, adding the pages not touched yet.
    pub fn each_mut(&mut self, h: u64, end: u64, whole: bool, mut f: impl FnMut(u64, &mut R)) {
        let mut a = h;
        while a < end {
            let stop = a + (PAGE - a % PAGE).min(end - a);
            let i = self.find_or_add(a / PAGE) as usize;
            self.pages[i].each_mut_in(a, stop, whole, &mut f);
            a = stop;
        }
    }
}

/// racecheck's shadow of the CTA's shared window, in the same granule pages as
/// [`PagedRecs`] but indexed directly by offset (`len` bytes; offsets past it are not
/// tracked). A CTA's start keeps the records (an earlier CTA's are as good as empty) and
/// only clears the pages' split bits.
pub(super) struct WindowRecs<R = ByteRec> {
    pages: Vec<Page<R>>,
    len: u64,
}

impl<R> Default for WindowRecs<R> {
    fn default() -> Self {
        WindowRecs {
            pages: Vec::new(),
            len: 0,
        }
    }
}

impl<R: Copy + Default + Eq> WindowRecs<R> {
    /// A new CTA with a window of `len` bytes.
    pub fn reset(&mut self, len: u64) {
        let n = len.div_ceil(PAGE) as usize;
        self.pages.truncate(n);
        self.pages.iter_mut().for_each(|p| p.split = 0);
        self.pages.resize_with(n, Page::new);
        self.len = len;
    }

    /// [`PagedRecs::any`] on window bytes `[o, end)` (clipped to the window).
    pub fn any(&self, o: u64, end: u64, whole: bool, mut f: impl FnMut(u64, &R) -> bool) -> bool {
        let (mut a, end) = (o, end.min(self.len));
        while a < end {
            let stop = a + (PAGE - a % PAGE).min(end - a);
            if self.pages[(a / PAGE) as usize].any_in(a, stop, whole, &mut f) {
                return true;
            }
            a = stop;
        }
        false
    }

    /// [`PagedRecs::each_mut`] on window bytes `[o, end)` (clipped to the window).
    pub fn each_mut(&mut self, o: u64, end: u64, whole: bool, mut f: impl FnMut(u64, &mut R)) {
        let (mut a, end) = (o, end.min(self.len));
        while a < end {
            let stop = a + (PAGE - a % PAGE).min(end - a);
            self.pages[(a / PAGE) as usize].each_mut_in(a, stop, whole, &mut f);
            a = stop;
        }
    }
}

#[cfg(test)]
mod tests;
