//! The CTA loop of kernels whose barriers are continuations (`jit::control::cont`): each
//! warp runs on the worker's stack until it returns `RET_BARRIER` at a `bar.sync` (its
//! arrival in `WarpEnv::arrivals`) or exits, so no coroutine, no stack switch and no
//! mbarrier or cluster bookkeeping is needed. Arrivals are counted in place, per CTA, in
//! fixed arrays; a barrier completes when its count (all live threads without one) is
//! reached, exited lanes counted out. The warps run in the rounds of the general loop
//! (`run_cta_with_barriers`): each round runs every ready warp once, in the schedule's
//! order, so the warps run, and the barriers complete, exactly as there.

use super::{run_warp, warp_error, Barriers, LaunchShared, WarpSlot, WarpState};
use crate::exec::barrier::RET_BARRIER;
use crate::exec::ctx::STATUS_OK;
use crate::runtime::error::Result;

/// One CTA's barriers (the fields of [`Barriers`] a continuation kernel uses).
#[derive(Default)]
struct Cta {
    /// Threads arrived in the current generation of each barrier.
    arrived: [u32; 16],
    /// The thread count the current generation waits for (`None`: all live threads).
    expected: [Option<u32>; 16],
    /// Completed generations of each barrier.
    generation: [u64; 16],
    /// `bar.red`: threads of the current generation whose predicate is true.
    red_yes: [u32; 16],
    /// (true predicates, arrived threads) of each barrier's last completed generation.
    red_done: [(u32, u32); 16],
    /// Bit i: barrier i has arrivals in its current generation.
    open: u16,
    /// Live threads of the CTA.
    live: u32,
}

impl Cta {
    /// Completes every open barrier whose count is reached; whether one did.
    fn complete(&mut self) -> bool {
        let mut advanced = false;
        let mut open = self.open;
        while open != 0 {
            let id = open.trailing_zeros() as usize;
            open &= open - 1;
            if self.arrived[id] >= self.expected[id].unwrap_or(self.live) {
                self.red_done[id] = (self.red_yes[id], self.arrived[id]);
                self.red_yes[id] = 0;
                self.arrived[id] = 0;
                self.expected[id] = None;
                self.generation[id] += 1;
                self.open &= !(1 << id);
                advanced = true;
            }
        }
        advanced
    }
}

/// Per warp of the scheduling unit.
#[derive(Clone, Copy)]
struct Warp {
    state: WarpState,
    /// Live threads as last counted.
    live: u32,
    /// Bit i: the warp waits for barrier i to complete generation `gen[i]`.
    waits: u16,
    gen: [u64; 16],
}

/// Makes the waiting warps of `warps` whose barriers have all completed ready
/// (`Barriers::release`'s wake-up).
fn wake(cta: &Cta, warps: &mut [Warp], slots: &mut [WarpSlot]) {
    for (w, slot) in warps.iter_mut().zip(slots) {
        if w.state != WarpState::Waiting {
            continue;
        }
        let mut m = w.waits;
        let mut done = true;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            done &= cta.generation[b] > w.gen[b];
        }
        if done {
            let mut m = w.waits;
            while m != 0 {
                let b = m.trailing_zeros() as usize;
                m &= m - 1;
                slot.env.red_results[b] = cta.red_done[b];
            }
            w.waits = 0;
            w.state = WarpState::Ready;
        }
    }
}

/// Runs the warps `slots` of the CTAs `ctaids` (`run_cta_with_barriers` for a kernel
/// whose barriers are continuations, run on this stack).
pub(super) fn run(sh: &LaunchShared, slots: &mut [WarpSlot], ctaids: &[[u32; 3]]) -> Result<()> {
    let n = slots.len();
    let nw = n / ctaids.len().max(1);
    let mut warps: Vec<Warp> = slots
        .iter()
        .map(|s| Warp {
            state: WarpState::Ready,
            live: s.ctx.live.count_ones(),
            waits: 0,
            gen: [0; 16],
        })
        .collect();
    let mut ctas: Vec<Cta> = warps
        .chunks(nw.max(1))
        .map(|c| Cta {
            live: c.iter().map(|w| w.live).sum(),
            ..Default::default()
        })
        .collect();
    let mut order = super::super::schedule::Order::new(sh.cfg.schedule, ctaids[0], n);
    let mut round = Vec::with_capacity(n);
    let mut left = n;
    loop {
        let mut ran = false;
        order.fill_round(&mut round);
        for &w in &round {
            if warps[w].state != WarpState::Ready {
                continue;
            }
            ran = true;
            let c = w / nw;
            let status = run_warp(sh, &mut slots[w].ctx);
            let (warp, cta) = (&mut warps[w], &mut ctas[c]);
            if status == RET_BARRIER {
                let env = &mut *slots[w].env;
                for a in env.arrivals.drain(..) {
                    let id = a.id.min(15) as usize;
                    cta.arrived[id] += a.mask.count_ones();
                    if a.count.is_some() {
                        cta.expected[id] = a.count;
                    }
                    if let Some(bits) = a.red {
                        cta.red_yes[id] += (bits & a.mask).count_ones();
                    }
                    if a.wait {
                        warp.waits |= 1 << id;
                        warp.gen[id] = cta.generation[id];
                    }
                    cta.open |= 1 << id;
                }
                warp.state = WarpState::Waiting;
            } else {
                warp.state = WarpState::Done;
                left -= 1;
                if status != STATUS_OK {
                    return Err(warp_error(sh, &slots[w], w % nw, ctaids[c]));
                }
            }
            // Exits and arrivals may complete barriers.
            let now = slots[w].ctx.live.count_ones();
            cta.live = cta.live - warp.live + now;
            warp.live = now;
            let range = match cta.complete() {
                true => c * nw..(c + 1) * nw,
                // Only the warp that has just arrived can be released (a warp whose
                // arrivals did not wait).
                false => w..w + 1,
            };
            wake(cta, &mut warps[range.clone()], &mut slots[range]);
        }
        if left == 0 {
            return Ok(());
        }
        if !ran {
            for (c, cta) in ctas.iter_mut().enumerate() {
                let r = c * nw..(c + 1) * nw;
                cta.complete();
                wake(cta, &mut warps[r.clone()], &mut slots[r]);
            }
            if !warps.iter().any(|w| w.state == WarpState::Ready) {
                return Err(deadlock(sh, slots, &warps, &ctas, ctaids, nw));
            }
        }
    }
}

/// The deadlock error of the general loop (`launch::deadlock`) for the first CTA with
/// a waiting warp.
fn deadlock(
    sh: &LaunchShared,
    slots: &[WarpSlot],
    warps: &[Warp],
    ctas: &[Cta],
    ctaids: &[[u32; 3]],
    nw: usize,
) -> crate::runtime::error::Error {
    let c = (0..ctas.len())
        .find(|&c| warps[c * nw..(c + 1) * nw].iter().any(|w| w.waits != 0))
        .unwrap_or(0);
    let r = c * nw..(c + 1) * nw;
    let cta = &ctas[c];
    let bars = Barriers {
        arrived: cta.arrived,
        expected: cta.expected,
        generation: cta.generation,
        waits: warps[r.clone()]
            .iter()
            .map(|w| {
                (0..16u32)
                    .filter(|&b| w.waits & (1 << b) != 0)
                    .map(|b| (b, w.gen[b as usize]))
                    .collect()
            })
            .collect(),
        open: cta.open,
        live: cta.live,
        ..Default::default()
    };
    let state: Vec<WarpState> = warps[r.clone()].iter().map(|w| w.state).collect();
    super::deadlock(sh, &slots[r], &state, &bars, ctaids[c])
}
