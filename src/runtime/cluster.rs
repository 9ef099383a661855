//! Thread block clusters, host side: a launch's cluster shape, the CTAs of one cluster
//! (which a worker runs together, as one scheduling unit whose warps belong to several
//! CTAs, each with its own shared window), and the cluster barrier
//! (`barrier.cluster.arrive` / `barrier.cluster.wait`, warp side in
//! `crate::exec::cluster`).
//!
//! The barrier completes a phase when every non-exited thread of every CTA of the
//! cluster has arrived; a wait returns once the phase its lanes arrived in completed.
//! Arrivals are tracked per lane, so exited threads never hold a phase back and a thread
//! arriving twice in one phase, or waiting without arriving, is reported.

use crate::exec::barrier::Arrival;
use crate::exec::cluster::CLUSTER_BARRIER;
use crate::exec::ctx::{WarpEnv, WARP_SIZE};
use crate::ir::{Function, InstId};
use crate::runtime::device::LaunchConfig;
use crate::runtime::error::Error;
use crate::runtime::launch::{Barriers, LaunchShared, WarpSlot, WarpState};

/// Most CTAs in a cluster (the hardware's non-portable limit on sm_90; the
/// `.shared::cluster` encoding of `crate::exec::cluster` has room for more).
pub const MAX_CLUSTER_CTAS: u32 = 16;

/// The launch's cluster shape: [`LaunchConfig::cluster`], else the kernel's
/// `.reqnctapercluster`, else `[1, 1, 1]`. Errors are the launch error's message.
pub(super) fn shape(func: &Function, cfg: &LaunchConfig) -> Result<[u32; 3], String> {
    let cluster = match (
        cfg.cluster,
        func.perf.reqnctapercluster,
        func.perf.explicitcluster,
    ) {
        (Some(c), Some(r), _) if c != r => {
            return Err(format!(
                "cluster dimensions {c:?} differ from the kernel's .reqnctapercluster {r:?}"
            ))
        }
        (Some(c), _, _) | (None, Some(c), _) => c,
        (None, None, true) => {
            return Err(
                "the kernel declares .explicitcluster but the launch gives no cluster \
                 dimensions (LaunchConfig::cluster, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)"
                    .into(),
            )
        }
        (None, None, false) => [1, 1, 1],
    };
    if (0..3).any(|d| cluster[d] == 0 || !cfg.grid[d].is_multiple_of(cluster[d])) {
        return Err(format!(
            "grid {:?} is not a multiple of the cluster shape {:?}",
            cfg.grid, cluster
        ));
    }
    let n = cluster.iter().map(|&c| c as u64).product::<u64>();
    if n > MAX_CLUSTER_CTAS as u64 {
        return Err(format!(
            "a cluster of {cluster:?} has {n} CTAs; at most {MAX_CLUSTER_CTAS}"
        ));
    }
    if let Some(max) = func.perf.maxclusterrank.filter(|&m| m > 0) {
        if n > max as u64 {
            return Err(format!(
                "a cluster of {n} CTAs exceeds the kernel's .maxclusterrank {max}"
            ));
        }
    }
    Ok(cluster)
}

/// The CTAs of cluster number `unit` (clusters numbered x fastest over the grid of
/// clusters), in rank order (`%cluster_ctarank`).
pub(super) fn ctas(grid: [u32; 3], cdim: [u32; 3], unit: u64) -> Vec<[u32; 3]> {
    let [nx, ny, _] = [grid[0] / cdim[0], grid[1] / cdim[1], grid[2] / cdim[2]];
    let cl = [
        (unit % nx as u64) as u32,
        ((unit / nx as u64) % ny as u64) as u32,
        (unit / (nx as u64 * ny as u64)) as u32,
    ];
    let n = cdim[0] * cdim[1] * cdim[2];
    (0..n)
        .map(|r| {
            let local = [
                r % cdim[0],
                (r / cdim[0]) % cdim[1],
                r / (cdim[0] * cdim[1]),
            ];
            [
                cl[0] * cdim[0] + local[0],
                cl[1] * cdim[1] + local[1],
                cl[2] * cdim[2] + local[2],
            ]
        })
        .collect()
}

/// No arrival recorded for a lane.
const NONE: u64 = u64::MAX;

/// The cluster barrier of one running cluster, over the warps of all its CTAs (warp
/// `w` of the scheduling unit); with the id [`crate::exec::gridsync::GRID_BARRIER`]
/// the grid barrier of a cooperative grid, whose CTAs are one scheduling unit.
pub(super) struct ClusterBarrier {
    /// The arrivals' barrier id: [`CLUSTER_BARRIER`] or the grid barrier's.
    id: u32,
    /// Lanes of each warp that arrived in the current phase.
    arrived: Vec<u32>,
    /// Per warp and lane: the phase the lane arrived in and has not waited for yet.
    phase_of: Vec<[u64; WARP_SIZE]>,
    /// Completed phases.
    generation: u64,
    /// Per warp: the phase it waits for, and the `barrier.cluster.wait` instruction.
    waiting: Vec<Option<(u64, InstId)>>,
    /// Some thread arrived in the current phase.
    open: bool,
}

impl ClusterBarrier {
    pub(super) fn new(nwarps: usize) -> ClusterBarrier {
        ClusterBarrier::with_id(nwarps, CLUSTER_BARRIER)
    }

    /// A barrier counting the arrivals with id `id`.
    pub(super) fn with_id(nwarps: usize, id: u32) -> ClusterBarrier {
        ClusterBarrier {
            id,
            arrived: vec![0; nwarps],
            phase_of: vec![[NONE; WARP_SIZE]; nwarps],
            generation: 0,
            waiting: vec![None; nwarps],
            open: false,
        }
    }

    /// Takes warp `w`'s cluster-barrier arrivals and waits out of its arrivals; returns
    /// an error message (and the instruction and lane) on a misuse.
    pub(super) fn take(
        &mut self,
        w: usize,
        env: &mut WarpEnv,
    ) -> Result<(), (String, InstId, u32)> {
        if !env.arrivals.iter().any(|a| a.id == self.id) {
            return Ok(());
        }
        let mine: Vec<Arrival> = env
            .arrivals
            .iter()
            .filter(|a| a.id == self.id)
            .copied()
            .collect();
        env.arrivals.retain(|a| a.id != self.id);
        for a in mine {
            let lanes = (0..WARP_SIZE).filter(|l| a.mask >> l & 1 != 0);
            if !a.wait {
                let twice = self.arrived[w] & a.mask;
                if twice != 0 {
                    let msg = "barrier.cluster.arrive: the thread already arrived in this \
                               phase of the cluster barrier (each thread arrives once before \
                               it completes)";
                    return Err((msg.into(), a.inst, twice.trailing_zeros()));
                }
                self.arrived[w] |= a.mask;
                for l in lanes {
                    self.phase_of[w][l] = self.generation;
                }
                self.open = true;
                continue;
            }
            let mut target = 0;
            for l in lanes {
                let p = std::mem::replace(&mut self.phase_of[w][l], NONE);
                if p == NONE {
                    let msg = "barrier.cluster.wait without a preceding barrier.cluster.arrive";
                    return Err((msg.into(), a.inst, l as u32));
                }
                target = target.max(p);
            }
            if target >= self.generation {
                self.waiting[w] = Some((target, a.inst));
            }
        }
        Ok(())
    }

    /// The number of phases completed so far.
    pub(super) fn phases(&self) -> u64 {
        self.generation
    }

    /// Whether warp `w` waits for a phase that has not completed.
    pub(super) fn blocked(&self, w: usize) -> bool {
        self.waiting[w].is_some()
    }

    /// Completes the current phase if every live thread (`live(w)`: warp `w`'s live
    /// lanes) has arrived; returns the warps whose wait is over.
    pub(super) fn complete(&mut self, live: impl Fn(usize) -> u32) -> Vec<usize> {
        if !self.open || (0..self.arrived.len()).any(|w| live(w) & !self.arrived[w] != 0) {
            return Vec::new();
        }
        self.generation += 1;
        self.open = false;
        self.arrived.iter_mut().for_each(|a| *a = 0);
        let mut woken = Vec::new();
        for (w, wait) in self.waiting.iter_mut().enumerate() {
            if wait.is_some_and(|(g, _)| g < self.generation) {
                *wait = None;
                woken.push(w);
            }
        }
        woken
    }

    /// The deadlock report of a cluster whose warps wait at the barrier (`live(w)`:
    /// warp `w`'s live lanes; `name(w)`: how to call warp `w`); `None` when no warp
    /// waits there.
    pub(super) fn describe(
        &self,
        live: impl Fn(usize) -> u32,
        name: impl Fn(usize) -> String,
    ) -> Option<String> {
        let waiting: Vec<String> = (0..self.waiting.len())
            .filter(|&w| self.waiting[w].is_some())
            .map(&name)
            .collect();
        if waiting.is_empty() {
            return None;
        }
        let missing: Vec<String> = (0..self.arrived.len())
            .filter(|&w| live(w) & !self.arrived[w] != 0)
            .map(|w| {
                format!(
                    "{} ({} threads)",
                    name(w),
                    (live(w) & !self.arrived[w]).count_ones()
                )
            })
            .collect();
        Some(format!(
            "barrier.cluster waits in {} never complete: not arrived: {}",
            waiting.join(", "),
            missing.join(", ")
        ))
    }
}

/// A misuse of the cluster barrier by warp `wl` of CTA `ctaid` (see
/// `ClusterBarrier::take`) as the launch's error.
pub(super) fn misuse(
    sh: &LaunchShared,
    slot: &mut WarpSlot,
    wl: usize,
    ctaid: [u32; 3],
    msg: String,
    inst: crate::ir::InstId,
    lane: u32,
) -> Error {
    slot.env.error = Some(msg);
    slot.env.error_at = Some((inst, lane));
    super::launch::warp_error(sh, slot, wl, ctaid)
}

/// The deadlock of a scheduling unit: the first CTA whose warps wait at a CTA barrier
/// that can never complete, else the cluster barrier's report.
pub(super) fn deadlock(
    sh: &LaunchShared,
    warps: &[WarpSlot],
    state: &[WarpState],
    bars: &[Barriers],
    cluster: &ClusterBarrier,
    ctaids: &[[u32; 3]],
) -> Error {
    let nw = warps.len() / ctaids.len().max(1);
    let name = |w: usize| {
        let c = ctaids[w / nw];
        format!("block ({},{},{}) warp {}", c[0], c[1], c[2], w % nw)
    };
    if let Some(msg) = cluster.describe(|w| warps[w].ctx.live, name) {
        return Error::Deadlock(format!("deadlock in kernel '{}': {msg}", sh.func.name));
    }
    let c = (0..ctaids.len())
        .find(|&c| {
            (c * nw..(c + 1) * nw)
                .any(|w| state[w] == WarpState::Waiting && !bars[c].waits[w % nw].is_empty())
        })
        .unwrap_or(0);
    let cta = c * nw..(c + 1) * nw;
    super::launch::deadlock(sh, &warps[cta.clone()], &state[cta], &bars[c], ctaids[c])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_list_their_ctas_in_rank_order() {
        // Grid 4x2x1 in clusters of 2x2x1: cluster 1 holds CTAs x 2..3, y 0..1.
        assert_eq!(
            ctas([4, 2, 1], [2, 2, 1], 1),
            vec![[2, 0, 0], [3, 0, 0], [2, 1, 0], [3, 1, 0]]
        );
        assert_eq!(ctas([3, 1, 2], [1, 1, 2], 2), vec![[2, 0, 0], [2, 0, 1]]);
    }
}
