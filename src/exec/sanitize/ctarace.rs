//! racecheck across the CTAs of one launch on global memory: CTAs of a launch run
//! concurrently on a GPU, so two CTAs accessing the same global byte, one of them with a
//! plain write, race unless an atomic orders them.
//!
//! Shadow per global byte (in the pages of [`PagedRecs`], by granule where it can): the last write and the last read from
//! another CTA, each as a 32-bit key naming an entry of a log of the launch's
//! instruction executions (CTA, warp, instruction, atomicity, time: the execution's serial
//! number) and the lane. A launch of more than 2^27 checked instruction executions stops
//! recording new ones (later accesses go unchecked across CTAs). ptxjit runs a sanitized launch's CTAs one after the other, so
//! an earlier CTA's accesses all precede the current CTA's. Covered orderings:
//!
//! - atomics never race with atomics, and a plain read of an atomically written byte is
//!   no race (the compare-and-swap loop's guess);
//! - an access of CTA A is ordered before CTA B's when A executed a global atomic after
//!   the access and B executed a global atomic before its own (the flag handoff of
//!   `__threadfence(); atomicAdd(&count, 1)` and "last block" reductions). Whether A
//!   fenced before its atomic, and whether B's atomic read A's, is not checked: such
//!   code is taken as ordered (a missed race, never a false one);
//! - the CTAs of a cluster run together: a completed `barrier.cluster` phase counts as
//!   an atomic of each of them (what each did before it is ordered before what the
//!   others do after it).

use super::paged::PagedRecs;

/// One access of a CTA, as the shadow gives it back (`cta == 0`: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtaAcc {
    /// Index of the CTA in [`CtaShadow`]'s order, plus one.
    pub cta: u32,
    /// Linear thread index in the CTA.
    pub tid: u32,
    pub inst: u32,
    pub time: u32,
    pub atomic: bool,
}

/// One logged instruction execution.
#[derive(Clone, Copy, Debug)]
struct Exec {
    cta: u32,
    /// Linear thread index of the warp's lane 0.
    tid0: u32,
    inst: u32,
    time: u32,
    atomic: bool,
}

/// The cross-CTA hazard found and the earlier access (`prev_write`: it was a write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaHazard {
    pub prev: CtaAcc,
    pub prev_write: bool,
}

/// The cross-CTA shadow of one launch.
#[derive(Default)]
pub struct CtaShadow {
    /// Per byte: `[write key, read key]` (key: (log index + 1) * 32 + lane; 0: none),
    /// by 4-byte granule where the bytes agree (see `paged`).
    shadow: PagedRecs<[u32; 2]>,
    log: Vec<Exec>,
    /// `%ctaid` of each CTA seen, in order (CTA index = position + 1).
    ctaids: Vec<[u32; 3]>,
    /// Per CTA index: the time of its last global atomic (0: none).
    release: Vec<u32>,
    /// Per CTA index: whether it executed a global atomic yet.
    acquired: Vec<bool>,
}

/// What [`CtaShadow::access`] needs to order two accesses.
struct Order<'a> {
    log: &'a [Exec],
    release: &'a [u32],
    acquired: bool,
    cta: u32,
}

impl Order<'_> {
    fn exec(&self, key: u32) -> Option<&Exec> {
        self.log.get(((key >> 5) as usize).checked_sub(1)?)
    }
    /// Whether the access `key` may race with the current one (`atomic`, `write`:
    /// whether `key` is the byte's write).
    fn races(&self, key: u32, key_is_write: bool, atomic: bool, write: bool) -> bool {
        let Some(e) = self.exec(key) else {
            return false;
        };
        if e.cta == self.cta {
            return false;
        }
        let exempt = match key_is_write {
            true => e.atomic && (atomic || !write),
            false => e.atomic || atomic,
        };
        let released = self
            .release
            .get(e.cta as usize - 1)
            .is_some_and(|&t| t > e.time);
        !(exempt || (self.acquired && released))
    }
}

impl CtaShadow {
    /// The index (plus one) of CTA `ctaid`, starting a new CTA when it changes.
    pub fn cta(&mut self, ctaid: [u32; 3]) -> u32 {
        if self.ctaids.last() != Some(&ctaid) {
            return self.start(ctaid);
        }
        self.ctaids.len() as u32
    }

    /// Starts CTA `ctaid` (one of a cluster's, whose CTAs run together); returns its
    /// index (plus one).
    pub fn start(&mut self, ctaid: [u32; 3]) -> u32 {
        self.ctaids.push(ctaid);
        self.release.push(0);
        self.acquired.push(false);
        self.ctaids.len() as u32
    }

    /// `%ctaid` of CTA index `cta`.
    pub fn ctaid(&self, cta: u32) -> [u32; 3] {
        self.ctaids
            .get((cta as usize).wrapping_sub(1))
            .copied()
            .unwrap_or_default()
    }

    /// CTA `cta` executed a global atomic at `time` (or completed a cluster barrier
    /// before the access of that time: every access of its before it is released, and
    /// its later ones acquire).
    pub fn atomic(&mut self, cta: u32, time: u32) {
        let i = (cta as usize).wrapping_sub(1);
        if let Some(r) = self.release.get_mut(i) {
            *r = time;
        }
        if let Some(a) = self.acquired.get_mut(i) {
            *a = true;
        }
    }

    /// Whether CTA `cta` executed a global atomic yet.
    fn acquired(&self, cta: u32) -> bool {
        self.acquired
            .get((cta as usize).wrapping_sub(1))
            .copied()
            .unwrap_or(false)
    }

    /// The log key of lane `tid % 32`'s part of execution `time` of instruction `inst`
    /// by the warp of thread `tid` (0 once the log is full).
    fn key(&mut self, cta: u32, tid: u32, inst: u32, time: u32, atomic: bool) -> u32 {
        let lane = tid % 32;
        let tid0 = tid - lane;
        let same = self
            .log
            .last()
            .is_some_and(|e| e.cta == cta && e.tid0 == tid0 && e.inst == inst && e.time == time);
        if !same {
            if self.log.len() >= (1 << 27) - 1 {
                return 0;
            }
            self.log.push(Exec {
                cta,
                tid0,
                inst,
                time,
                atomic,
            });
        }
        (self.log.len() as u32) << 5 | lane
    }

    fn acc(&self, key: u32) -> CtaAcc {
        match self.log.get(((key >> 5) as usize).wrapping_sub(1)) {
            Some(e) => CtaAcc {
                cta: e.cta,
                tid: e.tid0 + (key & 31),
                inst: e.inst,
                time: e.time,
                atomic: e.atomic,
            },
            None => CtaAcc::default(),
        }
    }

    /// The ordering of the current CTA (`cta`) against earlier accesses.
    fn order(&self, cta: u32) -> Order<'_> {
        Order {
            log: &self.log,
            release: &self.release,
            acquired: self.acquired(cta),
            cta,
        }
    }

    /// Forgets every access to bytes `[h, h+len)` (a device-heap block handed out anew).
    pub fn forget(&mut self, h: u64, len: u64) {
        self.shadow
            .each_mut(h, h.saturating_add(len), true, |_, r| *r = [0; 2]);
    }

    /// Records access `cur` (`write`) of host bytes `[h, h+len)`; returns the first
    /// race with another CTA.
    pub fn access(&mut self, h: u64, len: u64, cur: CtaAcc, write: bool) -> Option<CtaHazard> {
        let key = self.key(cur.cta, cur.tid, cur.inst, cur.time, cur.atomic);
        if key == 0 {
            return None;
        }
        let mut hit = None;
        let ord = Order {
            log: &self.log,
            release: &self.release,
            acquired: self.acquired(cur.cta),
            cta: cur.cta,
        };
        // (One thread's access: each granule inside it is this thread's.)
        let end = h.saturating_add(len);
        self.shadow.each_mut(h, end, true, |_, rec| {
            if hit.is_none() {
                if ord.races(rec[0], true, cur.atomic, write) {
                    hit = Some((rec[0], true));
                } else if write && ord.races(rec[1], false, cur.atomic, write) {
                    hit = Some((rec[1], false));
                }
            }
            if write {
                rec[0] = key;
            } else if ord.exec(rec[1]).is_none_or(|e| e.cta != cur.cta) {
                rec[1] = key;
            }
        });
        hit.map(|(k, w)| CtaHazard {
            prev: self.acc(k),
            prev_write: w,
        })
    }

    /// Whether an access (`cur`'s CTA and atomicity, `write`) of host bytes `[h, h+len)`
    /// would race with another CTA, checked without recording anything (the check of
    /// [`CtaShadow::access`] for a warp's contiguous access: see [`CtaShadow::record_run`]).
    pub fn would_race(&self, h: u64, len: u64, cur: &CtaAcc, write: bool) -> bool {
        let ord = self.order(cur.cta);
        // (The check does not depend on the lane: whole granules wherever they can be.)
        let races = |_: u64, rec: &[u32; 2]| {
            ord.races(rec[0], true, cur.atomic, write)
                || (write && ord.races(rec[1], false, cur.atomic, write))
        };
        self.shadow.any(h, h.saturating_add(len), true, races)
    }

    /// Records the accesses of `lanes` consecutive lanes, from `cur.tid`'s, of `lane_len`
    /// bytes each at host bytes `[h, h + lanes * lane_len)` (`cur.tid`'s lane plus
    /// `lanes` at most 32), as [`CtaShadow::access`] would record each lane's.
    pub fn record_run(&mut self, h: u64, lane_len: u64, lanes: u32, cur: CtaAcc, write: bool) {
        let key = self.key(cur.cta, cur.tid, cur.inst, cur.time, cur.atomic);
        if key == 0 || lane_len == 0 {
            return;
        }
        let lane_of = |i: u64| match lane_len.is_power_of_two() {
            true => i >> lane_len.trailing_zeros(),
            false => i / lane_len,
        };
        let end = h.saturating_add(lane_len * lanes as u64);
        let ord = Order {
            log: &self.log,
            release: &self.release,
            acquired: self.acquired(cur.cta),
            cta: cur.cta,
        };
        // Each granule lies in one lane's bytes when lanes cover whole granules.
        let whole = lane_len >= 4 && h.is_multiple_of(4);
        self.shadow.each_mut(h, end, whole, |a, rec| {
            let lane_key = key + lane_of(a - h) as u32;
            if write {
                rec[0] = lane_key;
            } else if ord.exec(rec[1]).is_none_or(|e| e.cta != cur.cta) {
                rec[1] = lane_key;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(cta: u32, time: u32, atomic: bool) -> CtaAcc {
        CtaAcc {
            cta,
            tid: 0,
            inst: 1,
            time,
            atomic,
        }
    }

    #[test]
    fn races_between_ctas_and_atomic_handoff() {
        let mut s = CtaShadow::default();
        let a = s.cta([0, 0, 0]);
        assert_eq!(s.access(0x1000, 4, acc(a, 1, false), true), None);
        let b = s.cta([1, 0, 0]);
        // B reads what A wrote: RAW; B writes it: WAW.
        let raw = s.access(0x1002, 1, acc(b, 2, false), false);
        assert_eq!(raw.map(|h| (h.prev.cta, h.prev_write)), Some((a, true)));
        let c = s.cta([2, 0, 0]);
        let war = s.access(0x1003, 1, acc(c, 3, false), true);
        assert_eq!(war.map(|h| h.prev.cta), Some(a), "the write races first");
        // Atomics do not race with atomics.
        assert_eq!(s.access(0x2000, 4, acc(c, 4, true), true), None);
        let d = s.cta([3, 0, 0]);
        assert_eq!(s.access(0x2000, 4, acc(d, 5, true), true), None);
        // Handoff: D writes, then its atomic; E's atomic, then E reads: ordered.
        assert_eq!(s.access(0x3000, 4, acc(d, 6, false), true), None);
        s.atomic(d, 7);
        let e = s.cta([4, 0, 0]);
        assert_eq!(
            s.access(0x3000, 4, acc(e, 8, false), false),
            Some(CtaHazard {
                prev: acc(d, 6, false),
                prev_write: true
            }),
            "no atomic in E yet"
        );
        s.atomic(e, 9);
        assert_eq!(s.access(0x3000, 4, acc(e, 10, false), false), None);
    }
}
