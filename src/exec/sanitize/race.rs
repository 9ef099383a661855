//! racecheck's shadow state: per byte the last write and up to two reads since, each
//! with the thread, instruction and the synchronisation epochs at the time.
//!
//! Epochs come from one counter per launch that only grows: a CTA's epoch is set anew
//! when the CTA starts and whenever one of its barriers completes, and a warp's epoch
//! when the CTA starts and whenever the warp executes `bar.warp.sync`. Two accesses by
//! different threads are *ordered* when the CTA epoch changed between them, or (same
//! warp) the warp epoch changed; otherwise they are concurrent, and concurrent accesses
//! of which one writes race unless both are atomic. Records from an earlier CTA carry
//! an older epoch, so nothing needs clearing between CTAs. Warps run one after the other
//! in ptxjit, so "between" is the order of execution, and an access is only ever
//! ordered after a barrier that every thread reached in between: the check reports no
//! race in correctly synchronised code, whatever the schedule.
//!
//! In a cluster of several CTAs (`super::cluster`) each CTA has its own epoch, and
//! accesses of different CTAs are ordered only by a completed `barrier.cluster` phase
//! (the cluster's epoch, [`Now::cluster_epoch`]) or an mbarrier.

/// One recorded access (`epoch == 0`: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acc {
    /// Linear thread index in the CTA.
    pub tid: u32,
    pub inst: u32,
    pub epoch: u32,
    pub wepoch: u32,
    /// Which execution of an instruction by a warp made the access: the lanes of one
    /// execution do not race with each other (all lanes storing one value to one
    /// address, as Triton's reductions do, is one store).
    pub exec: u32,
    pub atomic: bool,
}

/// The shadow of one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByteRec {
    pub w: Acc,
    pub r1: Acc,
    pub r2: Acc,
}

/// The hazard of a race and the earlier access it races with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// The current read races with an earlier write.
    Raw(Acc),
    /// The current write races with an earlier read.
    War(Acc),
    /// The current write races with an earlier write.
    Waw(Acc),
}

/// The epochs an access is checked against.
#[derive(Clone, Copy, Debug)]
pub struct Now<'a> {
    /// The CTA's current epoch.
    pub epoch: u32,
    /// Each warp's current epoch.
    pub warp_epochs: &'a [u32],
    /// mbarrier ordering (`super::mbar`): entry `cur_warp * nwarps + prev_warp` is the
    /// latest execution serial (`Acc::exec`) of `prev_warp`'s accesses that `cur_warp`
    /// is ordered after (0: none); empty without mbarriers.
    pub mbar: &'a [u32],
    /// The epoch the running cluster's last `barrier.cluster` completed in (or the
    /// cluster started in): accesses of an earlier epoch are ordered before every
    /// later access of any of its CTAs.
    pub cluster_epoch: u32,
    /// Threads per CTA in the cluster's thread numbering (`tid / cta_threads` is the
    /// CTA's rank); 0 for a cluster of one CTA.
    pub cta_threads: u32,
    /// Whether accesses of the cluster's other CTAs are checked here (shared memory);
    /// if not (global memory, which `super::ctarace` checks across CTAs), they count as
    /// ordered.
    pub other_ctas: bool,
}

impl Now<'_> {
    /// Whether `prev` is ordered before `cur` (or is no access, or the same thread's).
    #[inline]
    fn ordered(&self, prev: &Acc, cur: &Acc) -> bool {
        if prev.epoch == 0 || prev.tid == cur.tid {
            return true;
        }
        // A barrier of the CTA orders its own threads' accesses; only a cluster barrier
        // orders another CTA's.
        if prev.epoch != self.epoch
            && (prev.epoch < self.cluster_epoch || self.same_cta(prev.tid, cur.tid))
        {
            return true;
        }
        if !self.other_ctas && !self.same_cta(prev.tid, cur.tid) {
            return true;
        }
        let (w, cw) = ((prev.tid / 32) as usize, (cur.tid / 32) as usize);
        if w == cw && self.warp_epochs.get(w).is_some_and(|&e| e != prev.wepoch) {
            return true;
        }
        let n = self.warp_epochs.len();
        self.mbar
            .get(cw * n + w)
            .is_some_and(|&r| r != 0 && r >= prev.exec)
    }

    /// Whether threads `a` and `b` (numbered across the cluster) are of one CTA.
    #[inline]
    fn same_cta(&self, a: u32, b: u32) -> bool {
        self.cta_threads == 0 || a / self.cta_threads == b / self.cta_threads
    }

    /// Whether `prev` and `cur` may race: not ordered, and not lanes of one execution.
    #[inline]
    fn concurrent(&self, prev: &Acc, cur: &Acc) -> bool {
        !self.ordered(prev, cur) && prev.exec != cur.exec
    }

    /// Records access `cur` (`write`) of one byte; returns the first race found.
    ///
    /// Atomics never race with atomics, and a plain read never races with an atomic
    /// write: that is the compare-and-swap loop (`old = *p; do ... atomicCAS(p, old,
    /// f(old))`), whose plain read is only a guess the atomic checks. A plain write and
    /// an atomic do race.
    pub fn access(&self, rec: &mut ByteRec, cur: Acc, write: bool) -> Option<Hazard> {
        let hit = self.hazard(rec, &cur, write);
        self.record(rec, cur, write);
        hit
    }

    /// The first race access `cur` (`write`) of one byte would find, changing nothing
    /// (the check of [`Now::access`]).
    #[inline]
    pub fn hazard(&self, rec: &ByteRec, cur: &Acc, write: bool) -> Option<Hazard> {
        let exempt_ww = |p: &Acc| p.atomic && cur.atomic;
        let exempt_rw = |p: &Acc| p.atomic || (write && cur.atomic);
        let exempt_w = if write {
            exempt_ww(&rec.w)
        } else {
            exempt_rw(&rec.w)
        };
        if self.concurrent(&rec.w, cur) && !exempt_w {
            return Some(if write {
                Hazard::Waw(rec.w)
            } else {
                Hazard::Raw(rec.w)
            });
        }
        if !write {
            return None;
        }
        [rec.r1, rec.r2]
            .into_iter()
            .find(|r| self.concurrent(r, cur) && !exempt_rw(r))
            .map(Hazard::War)
    }

    /// Records access `cur` (`write`) of one byte (the update of [`Now::access`]).
    #[inline]
    pub fn record(&self, rec: &mut ByteRec, cur: Acc, write: bool) {
        if write {
            // Reads stay recorded: a read by thread A, then A's write, then B's write
            // still races with A's read.
            rec.w = cur;
        } else if self.ordered(&rec.r1, &cur) {
            rec.r1 = cur;
        } else if self.ordered(&rec.r2, &cur) {
            rec.r2 = cur;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(tid: u32, epoch: u32, wepoch: u32) -> Acc {
        Acc {
            tid,
            inst: tid,
            epoch,
            wepoch,
            exec: tid + 100,
            atomic: false,
        }
    }

    #[test]
    fn hazards_and_ordering() {
        let we = [5u32, 6];
        let now = Now {
            epoch: 9,
            warp_epochs: &we,
            mbar: &[],
            cluster_epoch: 1,
            cta_threads: 0,
            other_ctas: true,
        };
        let mut r = ByteRec::default();
        assert_eq!(now.access(&mut r, acc(40, 9, 6), true), None);
        // Thread 3 (warp 0) reads what thread 40 (warp 1) wrote in the same epoch.
        assert_eq!(
            now.access(&mut r, acc(3, 9, 5), false),
            Some(Hazard::Raw(acc(40, 9, 6)))
        );
        // Thread 4 writes: the earlier write races first (WAW).
        let waw = now.access(&mut r, acc(4, 9, 5), true);
        assert_eq!(waw, Some(Hazard::Waw(acc(40, 9, 6))));
        // Thread 4 writes what thread 3 read: WAR.
        let mut fresh = ByteRec::default();
        assert_eq!(now.access(&mut fresh, acc(3, 9, 5), false), None);
        let war = now.access(&mut fresh, acc(4, 9, 5), true);
        assert!(matches!(war, Some(Hazard::War(a)) if a.tid == 3));
        // After a barrier (new epoch) nothing races.
        let later = Now {
            epoch: 10,
            warp_epochs: &we,
            mbar: &[],
            cluster_epoch: 1,
            cta_threads: 0,
            other_ctas: true,
        };
        assert_eq!(later.access(&mut r, acc(7, 10, 5), false), None);
        // Same warp, but the warp synchronised since (warp epoch 5 -> 7): ordered.
        let we2 = [7u32, 6];
        let synced = Now {
            epoch: 10,
            warp_epochs: &we2,
            mbar: &[],
            cluster_epoch: 1,
            cta_threads: 0,
            other_ctas: true,
        };
        assert_eq!(synced.access(&mut r, acc(8, 10, 7), true), None);
        // Atomics do not race with atomics.
        let mut a = ByteRec::default();
        let at = |t| Acc {
            atomic: true,
            ..acc(t, 9, 5)
        };
        assert_eq!(now.access(&mut a, at(1), true), None);
        assert_eq!(now.access(&mut a, at(2), true), None);
        // A plain read of an atomically written byte is the CAS-loop idiom: no race;
        // a plain write is one.
        assert_eq!(now.access(&mut a, acc(3, 9, 5), false), None);
        assert!(now.access(&mut a, acc(4, 9, 5), true).is_some());
    }
}
