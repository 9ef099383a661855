//! The sanitizers on thread block clusters. The runtime runs a cluster's CTAs together
//! on one worker (`runtime::cluster`), so the sanitizers' per-CTA state covers the
//! whole running cluster:
//!
//! - threads and warps are numbered across the cluster (rank `r`'s warp `w` is warp
//!   `r * nwarps + w`, its lane `l` thread `32 * (r * nwarps + w) + l`), which keys the
//!   warp epochs, the mbarrier clocks and racecheck's records;
//! - the shared shadows (initcheck's bits, racecheck's window records) hold every
//!   CTA's window, rank `r`'s at `r * shared_stride`: an access to another CTA's shared
//!   memory (`ld/st/atom/red.shared::cluster`, a generic address from `mapa` or
//!   `cvta.shared::cluster`, an async copy or `st.async` into it) is checked against
//!   that CTA's shadow;
//! - each CTA has its own barrier epoch (`bar.sync` orders its own threads only), and a
//!   completed `barrier.cluster` phase starts a new epoch in every CTA of the cluster
//!   and becomes the cluster's epoch, before which every access of the cluster is
//!   ordered (`race::Now::cluster_epoch`). An access between a thread's
//!   `barrier.cluster.arrive` and the phase's completion counts as before it (a missed
//!   race, never a false one);
//! - global memory: the CTA-level shadow checks each CTA's threads against each other
//!   (the other CTAs' accesses count as ordered there), and the cross-CTA shadow
//!   (`ctarace`) checks the CTAs against each other, in the cluster or not; a completed
//!   `barrier.cluster` phase counts there as an atomic of each CTA of the cluster.

use super::{Sanitizer, State, WarpView};

/// One CTA of the running cluster, as [`Sanitizer::unit_start`] is told it.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnitCta {
    pub ctaid: [u32; 3],
    /// Host address of its shared window.
    pub shared_base: u64,
    /// Host address of its thread 0's `.local` area (thread t's is `local_size` bytes
    /// at `local_root + t * local_size`, whatever call frames are pushed).
    pub local_root: u64,
}

impl State {
    /// The shared-shadow offset of host address `h` if it lies in the window of
    /// another CTA of the running cluster than `w`'s.
    pub(super) fn remote_shared(&self, w: &WarpView, h: u64) -> Option<u64> {
        if self.ctas.len() < 2 {
            return None;
        }
        self.ctas.iter().enumerate().find_map(|(r, c)| {
            let off = h.wrapping_sub(c.shared_base);
            (r as u32 != w.rank && off < w.shared_size).then(|| r as u64 * self.shared_stride + off)
        })
    }

    /// Where shared-shadow offset `o` lies, for a report.
    pub(super) fn remote_what(&self, o: u64) -> String {
        let r = o / self.shared_stride.max(1);
        let b = self.ctas.get(r as usize).map_or([0; 3], |c| c.ctaid);
        format!(
            "shared memory of block ({},{},{}) of the cluster not written by any thread of \
             that CTA",
            b[0], b[1], b[2]
        )
    }

    /// The block of the running cluster's thread `prev` when it is another CTA's than
    /// thread `cur`'s.
    pub(super) fn other_block(&self, prev: u32, cur: u32) -> Option<[u32; 3]> {
        let n = self.cta_threads();
        if n == 0 || prev / n == cur / n {
            return None;
        }
        self.ctas.get((prev / n) as usize).map(|c| c.ctaid)
    }

    /// `w`'s CTA's index in the cross-CTA shadow (`ctarace`).
    pub(super) fn race_cta(&self, w: &WarpView) -> u32 {
        self.race_ctas.get(w.rank as usize).copied().unwrap_or(0)
    }
}

impl Sanitizer {
    /// A cluster of CTAs `ctas` (by rank; one CTA without clusters) starts, each of
    /// `ntid` threads in `nwarps` warps: their shared and local memory are unwritten,
    /// and no access of them happened yet.
    pub fn unit_start(&self, ntid: [u32; 3], nwarps: usize, ctas: &[UnitCta]) {
        let mut s = self.state();
        let n = ctas.len().max(1);
        s.ntid = ntid;
        s.nwarps = nwarps as u32;
        s.ctas.clear();
        s.ctas.extend_from_slice(ctas);
        s.shared_stride = self.shared_size.next_multiple_of(256);
        let e = s.tick();
        s.cluster_epoch = e;
        s.epochs.clear();
        s.epochs.resize(n, e);
        let e = s.tick();
        let warps = nwarps * n;
        s.warp_epochs.clear();
        s.warp_epochs.resize(warps, e);
        let shared = s.shared_stride * (n as u64 - 1) + self.shared_size;
        if self.opts.initcheck {
            s.shared_init.reset(shared);
            let threads = warps as u64 * 32;
            s.local_init.reset(self.local_size * threads);
        }
        if self.opts.racecheck {
            s.mbar_acq.clear();
            s.mbar_acq.resize(warps * warps, 0);
            s.mbars.clear();
            s.shared_race.reset(shared);
            s.global_race.clear();
            let idx: Vec<u32> = ctas.iter().map(|c| s.cta_race.start(c.ctaid)).collect();
            s.race_ctas = idx;
        }
    }

    /// A barrier of the running cluster's CTA `ctaid` (of the only CTA without
    /// clusters) completed: its later accesses are ordered after its earlier ones.
    pub fn barrier_completed(&self, ctaid: [u32; 3]) {
        let mut s = self.state();
        let r = match s.ctas.len() {
            0 | 1 => 0,
            _ => s.ctas.iter().position(|c| c.ctaid == ctaid).unwrap_or(0),
        };
        let e = s.tick();
        if let Some(x) = s.epochs.get_mut(r) {
            *x = e;
        }
    }

    /// A phase of the running cluster's `barrier.cluster` completed: every access of
    /// the cluster before it is ordered before every access after it.
    pub fn cluster_barrier_completed(&self) {
        let mut s = self.state();
        let e = s.tick();
        s.cluster_epoch = e;
        s.epochs.iter_mut().for_each(|x| *x = e);
        // Across CTAs on global memory: a release and an acquire of each CTA, after
        // every access so far.
        let time = s.exec.wrapping_add(1);
        for i in 0..s.race_ctas.len() {
            let c = s.race_ctas[i];
            s.cta_race.atomic(c, time);
        }
    }
}
