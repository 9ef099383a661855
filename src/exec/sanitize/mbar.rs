//! racecheck's ordering by mbarrier phases (PTX ISA, memory consistency model: an
//! `mbarrier.arrive` has release semantics, and a `test_wait`/`try_wait` that returns
//! true, having observed the completion of the phase, has acquire semantics).
//!
//! Clocks are per warp and count execution serials (`race::Acc::exec`): an arrival of
//! warp V releases every access V made so far (serial up to the launch's current one)
//! and everything V itself had acquired; a phase's completion keeps the join of its
//! arrivals' releases; a wait of warp W that sees the phase complete joins that into
//! W's row of `State::mbar_acq`, so that an earlier access of V is ordered before W's
//! later accesses (`race::Now::ordered`). The granularity is the warp: a lane's arrival
//! releases its warp's accesses, as warps execute in lockstep here. A phase's record
//! is kept per parity until the phase of the same parity completes again.

use super::{Sanitizer, WarpView};

/// The release clocks of one mbarrier object: of the open phase's arrivals so far,
/// and of the last completed phase of each parity (entry: warp -> serial).
#[derive(Clone, Debug, Default)]
pub(super) struct Clocks {
    open: Vec<u32>,
    done: [Vec<u32>; 2],
}

/// `a` = `a` join `b` (elementwise max, growing `a`).
fn join(a: &mut Vec<u32>, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, &y) in a.iter_mut().zip(b) {
        *x = (*x).max(y);
    }
}

impl Sanitizer {
    /// `mbarrier.init` (or `inval`) of the object at host address `h`: no phase of it
    /// orders anything yet.
    pub fn mbar_init(&self, h: u64) {
        if self.opts.racecheck {
            self.state().mbars.remove(&h);
        }
    }

    /// Warp `w` updated the object at `h`: `arrived` whether the update was an arrival
    /// (a release), `completed` the parity of the phase the update completed, if any.
    pub fn mbar_update(&self, w: &WarpView, h: u64, arrived: bool, completed: Option<u64>) {
        if !self.opts.racecheck {
            return;
        }
        let mut s = self.state();
        let n = s.warp_epochs.len();
        let v = s.warp_of(w) as usize;
        if v >= n || s.mbar_acq.len() < n * n {
            return;
        }
        let serial = s.exec;
        let mut rel = s.mbar_acq[v * n..(v + 1) * n].to_vec();
        rel[v] = serial;
        let c = s.mbars.entry(h).or_default();
        if arrived {
            join(&mut c.open, &rel);
        }
        if let Some(p) = completed {
            c.done[(p & 1) as usize] = std::mem::take(&mut c.open);
        }
    }

    /// A wait of warp `w` observed that the phase of parity `parity` of the object at
    /// `h` completed: the warp is ordered after that phase's arrivals.
    pub fn mbar_acquire(&self, w: &WarpView, h: u64, parity: u64) {
        if !self.opts.racecheck {
            return;
        }
        let mut s = self.state();
        let n = s.warp_epochs.len();
        let v = s.warp_of(w) as usize;
        let Some(done) = s
            .mbars
            .get(&h)
            .map(|c| c.done[(parity & 1) as usize].clone())
        else {
            return;
        };
        if v >= n || done.len() > n || s.mbar_acq.len() < n * n {
            return;
        }
        let row = &mut s.mbar_acq[v * n..(v + 1) * n];
        for (x, &y) in row.iter_mut().zip(&done) {
            *x = (*x).max(y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn join_is_elementwise_max() {
        let mut a = vec![3, 0];
        join(&mut a, &[1, 5, 2]);
        assert_eq!(a, vec![3, 5, 2]);
    }
}
