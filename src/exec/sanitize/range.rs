//! The range path of initcheck and racecheck: a warp's access whose active lanes are
//! consecutive and whose lanes' bytes follow each other in host memory (a coalesced
//! `ld`/`st`: lane `l0 + j` at `h + j * len`) is checked as one range of bytes — the
//! initcheck bits a word at a time, the racecheck shadow in one pass with no per-lane
//! work — instead of lane by lane.
//!
//! The range path only ever takes the clean case: it first checks the whole range
//! without changing any state, and when any byte would give a finding (an unwritten
//! byte, a race) or the range is not plainly in one place (shared window, global
//! memory), it leaves the access to the per-lane path, which then reports exactly what
//! it always did (the same first lane, byte and finding order). When the range is clean
//! it records the accesses as the per-lane path would: the lanes' bytes are disjoint,
//! so the order of the lanes does not matter.

use super::ctarace::CtaAcc;
use super::race::{Acc, Now};
use super::shadow::InitMap;
use super::{AccessShape, Sanitizer, State, WarpView};
use crate::ir::Space;

/// A warp's contiguous access: lanes `l0 .. l0 + n` at host bytes `[h, h + n * len)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Run {
    pub l0: u32,
    pub n: u32,
    pub h: u64,
}

impl Run {
    /// The run of lanes `mask` with host addresses `host`, `len` bytes each, if the
    /// active lanes are consecutive and their bytes follow each other (and `len` is a
    /// power of two).
    pub fn of(mask: u32, host: &[u64; 32], len: u64) -> Option<Run> {
        // (A lane's bytes are found by a shift: a power of two, as every access's is
        // but a `.v3`'s would be.)
        if mask == 0 || !len.is_power_of_two() {
            return None;
        }
        let l0 = mask.trailing_zeros();
        let m = (mask >> l0) as u64;
        if m & (m + 1) != 0 {
            return None;
        }
        let n = m.count_ones();
        let h = host[l0 as usize];
        h.checked_add(n as u64 * len)?;
        let follows = (1..n as u64).all(|j| host[(l0 as u64 + j) as usize] == h + j * len);
        follows.then_some(Run { l0, n, h })
    }
}

/// Where a run lies.
enum RunPlace {
    /// In a shared window of the cluster, at this offset of the shared shadows.
    Shared(u64),
    Global,
}

impl Sanitizer {
    /// Where run `r` of `total` bytes lies, if all of it lies in one place the per-lane
    /// path would give every lane (not in a lane's own `.local` frame).
    fn run_place(&self, s: &State, w: &WarpView, r: &Run, total: u64) -> Option<RunPlace> {
        let (lo, end) = (r.h, r.h + total);
        let (sb, se) = (w.shared_base, w.shared_base.saturating_add(w.shared_size));
        if lo >= sb && end <= se {
            return Some(RunPlace::Shared(w.rank as u64 * s.shared_stride + lo - sb));
        }
        if end > sb && lo < se {
            return None;
        }
        if s.ctas.len() > 1 {
            // Another CTA's window, whole or not at all.
            for (k, c) in s.ctas.iter().enumerate() {
                let (cb, ce) = (c.shared_base, c.shared_base.saturating_add(w.shared_size));
                if lo >= cb && end <= ce {
                    return Some(RunPlace::Shared(k as u64 * s.shared_stride + lo - cb));
                }
                if end > cb && lo < ce {
                    return None;
                }
            }
        }
        if self.local_size > 0 {
            let t0 = w.warpid as u64 * 32 + r.l0 as u64;
            let root = s.ctas.get(w.rank as usize).map_or(0, |c| c.local_root);
            let fl = root + t0 * self.local_size;
            let fe = fl + r.n as u64 * self.local_size;
            if end > fl && lo < fe {
                return None;
            }
        }
        Some(RunPlace::Global)
    }

    /// Whether initcheck or racecheck look at the bytes of accesses in `space` (not
    /// `.param`'s); if not, [`Sanitizer::accesses`] does nothing.
    pub fn checks_accesses(&self, space: Space) -> bool {
        (self.opts.initcheck || self.opts.racecheck) && space != Space::Param
    }

    /// The range entry of the checked access path (`exec::ctx`'s run entry): initcheck
    /// and racecheck of a plain access by lanes `l0 .. l0 + n` at host bytes
    /// `[h, h + n * len)`, every lane's access already valid. When no byte gives a
    /// finding, records the accesses (as [`Sanitizer::accesses`] would) and returns
    /// true; otherwise changes nothing and returns false, and the caller takes the
    /// per-lane path.
    pub fn run_accesses(&self, w: &WarpView, req: &AccessShape, l0: u32, n: u32, h: u64) -> bool {
        if !self.checks_accesses(req.space) {
            return true;
        }
        if !req.write && self.used_span(req.inst, req.len).is_some() {
            return false;
        }
        let mut s = self.state();
        let mut init = self
            .opts
            .initcheck
            .then(|| self.init.lock().unwrap_or_else(|e| e.into_inner()));
        // The execution number `accesses` gives it (kept only when the run is clean:
        // the per-lane path then numbers the execution itself).
        let exec = s.exec;
        s.exec = exec.wrapping_add(1);
        let clean = self.run_access(&mut s, init.as_deref_mut(), w, req, &Run { l0, n, h });
        if !clean {
            s.exec = exec;
        }
        clean
    }

    /// initcheck and racecheck of run `r` of a plain (not atomic) access, whose
    /// instruction has no `used_bytes_mask`: when no byte gives a finding, records the
    /// access and returns true; otherwise changes nothing and returns false (the caller
    /// takes the per-lane path). `s.exec` is the access's execution already.
    pub(super) fn run_access(
        &self,
        s: &mut State,
        mut init: Option<&mut InitMap>,
        w: &WarpView,
        req: &AccessShape,
        r: &Run,
    ) -> bool {
        let total = r.n as u64 * req.len;
        let Some(place) = self.run_place(s, w, r, total) else {
            return false;
        };
        // initcheck: a load of any unwritten byte goes the per-lane way.
        if let Some(init) = init.as_deref_mut() {
            let dirty = !req.write
                && match place {
                    RunPlace::Shared(o) => s.shared_init.first_clear(o, total).is_some(),
                    RunPlace::Global => init.any_uninit(r.h, total),
                };
            if dirty {
                return false;
            }
        }
        if self.opts.racecheck && !self.run_race(s, w, req, r, &place, total) {
            return false;
        }
        if req.write {
            if let Some(init) = init {
                match place {
                    RunPlace::Shared(o) => s.shared_init.set(o, total),
                    RunPlace::Global => init.mark(r.h, total),
                }
            }
        }
        true
    }

    /// racecheck of run `r`: when no byte races, records it and returns true; otherwise
    /// changes nothing and returns false.
    fn run_race(
        &self,
        s: &mut State,
        w: &WarpView,
        req: &AccessShape,
        r: &Run,
        place: &RunPlace,
        total: u64,
    ) -> bool {
        let write = req.write;
        let wi = s.warp_of(w) as usize;
        let (epoch, cta_threads, cta) = (s.epoch(w.rank), s.cta_threads(), s.race_cta(w));
        let cur0 = Acc {
            tid: s.tid_of(w, r.l0 as usize),
            inst: req.inst.0,
            epoch,
            wepoch: s.warp_epochs.get(wi).copied().unwrap_or(0),
            exec: s.exec,
            atomic: false,
        };
        // Lane `l0 + j`'s access.
        let cur = |j: usize| Acc {
            tid: cur0.tid + j as u32,
            ..cur0
        };
        let State {
            cluster_epoch,
            warp_epochs,
            mbar_acq,
            shared_race,
            global_race,
            cta_race,
            ..
        } = s;
        let mut now = Now {
            epoch,
            warp_epochs,
            mbar: mbar_acq,
            cluster_epoch: *cluster_epoch,
            cta_threads,
            other_ctas: true,
        };
        match *place {
            RunPlace::Shared(o) => {
                let end = o + total;
                // Whose byte `b` is, and whether lanes cover whole granules (as below).
                let lane_at = |b: u64| ((b - o) >> req.len.trailing_zeros()) as usize;
                let whole = req.len >= 4 && o.is_multiple_of(4);
                let raced = shared_race.any(o, end, whole, |b, rec| {
                    now.hazard(rec, &cur(lane_at(b)), write).is_some()
                });
                if raced {
                    return false;
                }
                shared_race.each_mut(o, end, whole, |b, rec| {
                    now.record(rec, cur(lane_at(b)), write)
                });
            }
            RunPlace::Global => {
                // (Other CTAs of the cluster: `cta_race` below.)
                now.other_ctas = false;
                let end = r.h + total;
                // The CTA's own accesses (`lane_at`: whose byte `b` is).
                let lane_at = |b: u64| ((b - r.h) >> req.len.trailing_zeros()) as usize;
                // Each granule lies in one lane's bytes when lanes cover whole granules.
                let whole = req.len >= 4 && r.h.is_multiple_of(4);
                let raced = global_race.any(r.h, end, whole, |b, rec| {
                    now.hazard(rec, &cur(lane_at(b)), write).is_some()
                });
                if raced {
                    return false;
                }
                // The launch's other CTAs.
                let cacc = CtaAcc {
                    cta,
                    tid: w.warpid * 32 + r.l0,
                    inst: req.inst.0,
                    time: cur0.exec,
                    atomic: false,
                };
                if cta_race.would_race(r.h, total, &cacc, write) {
                    return false;
                }
                global_race.each_mut(r.h, end, whole, |b, rec| {
                    now.record(rec, cur(lane_at(b)), write)
                });
                cta_race.record_run(r.h, req.len, r.n, cacc, write);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_lanes() {
        let mut host = [0u64; 32];
        for (l, h) in host.iter_mut().enumerate() {
            *h = 0x1000 + 4 * l as u64;
        }
        assert_eq!(
            Run::of(u32::MAX, &host, 4),
            Some(Run {
                l0: 0,
                n: 32,
                h: 0x1000
            })
        );
        // Lanes 4..12 only (a partial warp's or a branch's consecutive lanes).
        assert_eq!(
            Run::of(0xff0, &host, 4),
            Some(Run {
                l0: 4,
                n: 8,
                h: 0x1010
            })
        );
        // A gap in the mask, a wider element, a lane out of place: not a run.
        assert_eq!(Run::of(0xf0f, &host, 4), None);
        assert_eq!(Run::of(u32::MAX, &host, 8), None);
        host[7] += 4;
        assert_eq!(Run::of(u32::MAX, &host, 4), None);
        assert_eq!(Run::of(0x7f, &host, 4).map(|r| r.n), Some(7));
        assert_eq!(Run::of(0, &host, 4), None);
    }
}

#[cfg(test)]
mod differential;
