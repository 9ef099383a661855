//! The paged shadow's pages and pool, and its granule cells against a plain per-byte
//! shadow: the same random accesses (one thread's, or a warp's contiguous run) must
//! find the same first race and leave every byte with the same record.

use super::*;
use crate::exec::sanitize::race::{Acc, Hazard, Now};

/// Byte `x`'s record in `p` (the default record where the CTA touched no page of it).
fn rec_at(p: &PagedRecs, x: u64) -> ByteRec {
    let mut out = ByteRec::default();
    p.any(x, x + 1, false, |_, r| {
        out = *r;
        true
    });
    out
}

#[test]
fn pages_split_ranges_and_are_reused_after_clear() {
    let mut p: PagedRecs = PagedRecs::default();
    let mut cells = Vec::new();
    // [250, 520): bytes 250, 251 (granule 248..252 in part), granules 252.., 512..520.
    p.each_mut(250, 520, true, |a, r| {
        r.w.tid = 7;
        cells.push(a);
    });
    assert_eq!(&cells[..4], &[250, 251, 252, 256]);
    assert_eq!(cells.len(), 2 + 1 + 64 + 2, "2 bytes, 1 + 64 + 2 granules");
    assert_eq!(p.used, 3);
    assert_eq!(p.pages[0].split, 1 << 62, "only granule 248..252 is split");
    assert!((250..520).all(|x| rec_at(&p, x).w.tid == 7));
    assert_eq!(
        rec_at(&p, 249).w.tid,
        0,
        "split: byte 249 keeps its own record"
    );
    let mut seen = 0;
    assert!(!p.any(0, 1024, false, |_, _| {
        seen += 1;
        false
    }));
    assert_eq!(seen, 768, "pages 0..3 are there, page 3 is not");
    p.clear();
    assert!(
        !p.any(0, 1024, false, |_, _| true),
        "nothing touched after clear"
    );
    p.each_mut(4096, 4100, true, |_, _| {});
    assert_eq!((p.used, p.pages.len()), (1, 3), "a pooled page is reused");
    assert_eq!(p.pages[0].split, 0, "a reused page starts unsplit");
}

#[test]
fn whole_access_merges_equal_bytes() {
    let mut p: PagedRecs = PagedRecs::default();
    p.each_mut(0, 1, true, |_, r| r.w.tid = 1);
    assert_eq!(p.pages[0].split, 1);
    p.each_mut(0, 4, true, |_, r| *r = ByteRec::default());
    assert_eq!(
        p.pages[0].split, 0,
        "four equal bytes become one granule again"
    );
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) % n
    }
}

/// First race of a set of per-byte checks, and all records updated (`Now::access` on
/// each byte in order: the per-byte shadow's behaviour).
fn model(
    now: &Now,
    recs: &mut [ByteRec],
    lo: u64,
    n: u64,
    cur: impl Fn(u64) -> Acc,
    write: bool,
) -> Option<Hazard> {
    let mut hit = None;
    for x in lo..lo + n {
        let r = now.access(&mut recs[x as usize], cur(x), write);
        hit = hit.or(r);
    }
    hit
}

/// A granule shadow as the randomized test drives it.
trait Cells {
    fn cells_any(
        &self,
        h: u64,
        end: u64,
        whole: bool,
        f: &mut dyn FnMut(u64, &ByteRec) -> bool,
    ) -> bool;
    fn cells_mut(&mut self, h: u64, end: u64, whole: bool, f: &mut dyn FnMut(u64, &mut ByteRec));
    /// A new CTA.
    fn restart(&mut self);
}

impl Cells for PagedRecs {
    fn cells_any(
        &self,
        h: u64,
        end: u64,
        whole: bool,
        f: &mut dyn FnMut(u64, &ByteRec) -> bool,
    ) -> bool {
        self.any(h, end, whole, f)
    }
    fn cells_mut(&mut self, h: u64, end: u64, whole: bool, f: &mut dyn FnMut(u64, &mut ByteRec)) {
        self.each_mut(h, end, whole, f)
    }
    fn restart(&mut self) {
        self.clear()
    }
}

impl Cells for WindowRecs {
    fn cells_any(
        &self,
        h: u64,
        end: u64,
        whole: bool,
        f: &mut dyn FnMut(u64, &ByteRec) -> bool,
    ) -> bool {
        self.any(h, end, whole, f)
    }
    fn cells_mut(&mut self, h: u64, end: u64, whole: bool, f: &mut dyn FnMut(u64, &mut ByteRec)) {
        self.each_mut(h, end, whole, f)
    }
    fn restart(&mut self) {
        self.reset(self.len)
    }
}

/// A record as the checks see it at CTA epoch `epoch`: an access of another epoch is
/// ordered before every later one, exactly as no access (`race::Now::ordered`).
fn seen(r: ByteRec, epoch: u32) -> ByteRec {
    let f = |a: Acc| if a.epoch == epoch { a } else { Acc::default() };
    ByteRec {
        w: f(r.w),
        r1: f(r.r1),
        r2: f(r.r2),
    }
}

/// Random accesses (one thread's, or a warp's contiguous run, as the range path gives
/// them) to `c` and to a plain per-byte shadow of `span` bytes: the same first race, and
/// after each access every byte's record the same (`exact`), or the same as the checks
/// see it (`seen`) when `ctas` (a new CTA now and then: the per-byte shadow keeps its
/// records, `c` restarts, and the epoch grows).
fn against_per_byte<C: Cells>(mut c: C, span: u64, ctas: bool, seed: u64) {
    let mut rng = Rng(seed * 0x9e37_79b9);
    let mut flat = vec![ByteRec::default(); span as usize];
    let (mut epoch, mut exec) = (1u32, 0u32);
    let warp_epochs = [1u32, 1, 1, 1, 1];
    let mut restarted = false;
    let rec_at = |c: &C, x: u64| {
        let mut out = ByteRec::default();
        c.cells_any(x, x + 1, false, &mut |_, r| {
            out = *r;
            true
        });
        out
    };
    for step in 0..400 {
        if rng.below(30) == 0 {
            epoch += 1;
        }
        if ctas && rng.below(60) == 0 {
            epoch += 1;
            c.restart();
            restarted = true;
        }
        exec += 1;
        let now = Now {
            epoch,
            warp_epochs: &warp_epochs,
            mbar: &[],
            cluster_epoch: 0,
            cta_threads: 0,
            other_ctas: true,
        };
        let len = [1u64, 2, 4, 8, 4, 4][rng.below(6) as usize];
        let write = rng.below(2) == 0;
        // A warp's run of `n` lanes, or one thread's access (n = 1).
        let n = if rng.below(3) == 0 {
            1
        } else {
            rng.below(32) + 1
        };
        let h = rng.below((span - n * len) / len + 1) * len;
        let tid0 = rng.below(97) as u32;
        let inst = rng.below(5) as u32;
        let cur = |x: u64| Acc {
            tid: tid0 + ((x - h) / len) as u32,
            inst,
            epoch,
            wepoch: 1,
            exec,
            atomic: false,
        };
        let end = h + n * len;
        let want = model(&now, &mut flat, h, n * len, cur, write);
        let whole = len >= GRAIN && h.is_multiple_of(GRAIN);
        let mut got = None;
        c.cells_any(h, end, whole, &mut |x, r| {
            got = now.hazard(r, &cur(x), write);
            got.is_some()
        });
        assert_eq!(got, want, "seed {seed} step {step}: first race");
        c.cells_mut(h, end, whole, &mut |x, r| now.record(r, cur(x), write));
        for x in 0..span {
            let (g, f) = (rec_at(&c, x), flat[x as usize]);
            let (g, f) = match restarted {
                true => (seen(g, epoch), seen(f, epoch)),
                false => (g, f),
            };
            assert_eq!(g.w, f.w, "seed {seed} step {step} byte {x}");
            assert_eq!(g.r1, f.r1, "seed {seed} step {step} byte {x}");
            assert_eq!(g.r2, f.r2, "seed {seed} step {step} byte {x}");
        }
    }
}

#[test]
fn granule_cells_match_per_byte_records() {
    for seed in 1..40u64 {
        against_per_byte(PagedRecs::default(), 1024, false, seed);
    }
}

/// The shared window's granule shadow against the per-byte shadow it replaced (which
/// kept its records across CTAs), in windows that do and do not end on a page or a
/// granule.
#[test]
fn shared_window_matches_per_byte_records() {
    for seed in 1..40u64 {
        let len = [1024u64, 1000, 300, 600][seed as usize % 4];
        let mut w = WindowRecs::default();
        w.reset(len);
        against_per_byte(w, len, seed % 2 == 0, seed);
    }
}
