//! The CTA loop of kernels whose barriers are continuations (`jit::control::cont`): each
//! warp runs on the worker's stack until it returns `RET_BARRIER` at a `bar.sync` or
//! `bar.red` (its arrival in `WarpCtx::bar_*`, written by the generated code) or exits,
//! so no coroutine, no stack switch, no helper call at the barrier and no mbarrier or
//! cluster bookkeeping is needed. Such a kernel has no `bar.arrive`, so every arrival
//! waits, and a warp waits at one barrier at a time. Arrivals are counted in place, per
//! CTA, in fixed arrays; a barrier completes when its count (all live threads without
//! one) is reached, exited lanes counted out. The warps run in the rounds of the general
//! loop (`run_cta_with_barriers`): each round runs every ready warp once, in the
//! schedule's order, so the warps run, and the barriers complete, exactly as there.
//!
//! In the in-order schedule a call may run several warps of a CTA (`WarpCtx::chain_*`):
//! before calling warp `w`, the loop tells the code how many of the warps after it in
//! the CTA are ready (they are the next ones of the round), which barrier the CTA's
//! warps last arrived at, and how many threads that barrier still waits for. A warp
//! whose whole arrival there leaves it incomplete (no thread count, not `bar.red`, no
//! lane exited in its step) goes on with the next warp in the same call, as the loop
//! would have: that arrival completes nothing and wakes nobody. The loop then records
//! the chained warps' arrivals at once, handles the last warp's status as usual, and
//! skips the chained warps in the round. When the chain was the whole CTA and its last
//! warp completes the barrier, nothing is noted per warp: they all waited there and are
//! all woken. When that CTA is the unit's only one, the code itself goes on with the
//! next round at the first warp (`WarpCtx::chain_wrap`), as the loop would, and the
//! loop records the completed rounds after the call (`wrapped`).

use super::{warp_error, Barriers, LaunchShared, WarpSlot, WarpState};
use crate::exec::barrier::RET_BARRIER;
use crate::exec::ctx::{WarpCtx, STATUS_OK};
use crate::jit::KernelFn;
use crate::runtime::device::Schedule;
use crate::runtime::error::Result;

/// One CTA's barriers (the fields of [`Barriers`] a continuation kernel uses).
#[derive(Default)]
struct Cta {
    /// Threads arrived in the current generation of each barrier.
    arrived: [u32; 16],
    /// The thread count the current generation waits for (0: all live threads).
    expected: [u32; 16],
    /// Completed generations of each barrier.
    generation: [u32; 16],
    /// `bar.red`: threads of the current generation whose predicate is true.
    red_yes: [u32; 16],
    /// (true predicates, arrived threads) of each barrier's last completed generation.
    red_done: [(u32, u32); 16],
    /// Bit i: barrier i has arrivals in its current generation.
    open: u16,
    /// Bit i: the current generation of barrier i is a `bar.red`'s.
    red: u16,
    /// Bit i: barrier i completed a generation since the last wake-up.
    done: u16,
    /// Bit i: the last completed generation of barrier i was a `bar.red`'s (only then
    /// do the woken warps need its result).
    red_last: u16,
    /// Live threads of the CTA.
    live: u32,
    /// The barrier the CTA's warps last arrived at (the one chained arrivals use).
    last_id: u8,
}

impl Cta {
    /// The threads barrier `id`'s current generation waits for.
    #[inline]
    fn need(&self, id: usize) -> u32 {
        match self.expected[id] {
            0 => self.live,
            c => c,
        }
    }

    /// Completes barrier `id` if its count is reached.
    #[inline]
    fn complete_one(&mut self, id: usize) {
        if self.arrived[id] >= self.need(id) {
            if self.red & (1 << id) != 0 {
                self.red_done[id] = (self.red_yes[id], self.arrived[id]);
                self.red_yes[id] = 0;
                self.red &= !(1 << id);
                self.red_last |= 1 << id;
            } else {
                self.red_last &= !(1 << id);
            }
            self.arrived[id] = 0;
            self.expected[id] = 0;
            self.generation[id] = self.generation[id].wrapping_add(1);
            self.open &= !(1 << id);
            self.done |= 1 << id;
        }
    }

    /// Completes every open barrier whose count is reached.
    fn complete(&mut self) {
        let mut open = self.open;
        while open != 0 {
            let id = open.trailing_zeros() as usize;
            open &= open - 1;
            self.complete_one(id);
        }
    }
}

/// Per warp of the scheduling unit.
#[derive(Clone, Copy)]
struct Warp {
    state: WarpState,
    /// The barrier the warp waits at (while `Waiting`) and its generation then.
    id: u8,
    gen: u32,
    /// Live lanes as last seen.
    live: u32,
}

/// Makes the waiting warps of `warps` whose barrier has completed (a barrier of
/// `cta.done`) ready (`Barriers::release`'s wake-up), and clears `cta.done`. The
/// `bar.red` result goes to the warp's environment only after a `bar.red` (the
/// `InstKind::BarRedResult` reading it follows one; other barriers' stale results
/// are never read).
fn wake(cta: &mut Cta, warps: &mut [Warp], slots: &mut [WarpSlot]) {
    let done = cta.done;
    cta.done = 0;
    for (w, slot) in warps.iter_mut().zip(slots) {
        let id = w.id as usize;
        if w.state != WarpState::Waiting || done & (1 << id) == 0 || cta.generation[id] == w.gen {
            continue;
        }
        if cta.red_last & (1 << id) != 0 {
            slot.env.red_results[id] = cta.red_done[id];
        }
        w.state = WarpState::Ready;
    }
}

/// The lanes set in `mask`: a whole warp and none without the popcount, which the
/// plain x86-64 build does in a dozen instructions (three per warp of every CTA).
#[inline]
fn lanes_of(mask: u32) -> u32 {
    match mask {
        0 => 0,
        u32::MAX => 32,
        m => m.count_ones(),
    }
}

/// Records the arrival the generated code left in `ctx` (`WarpCtx::bar_*`) for `warp`
/// of `cta`: the warp waits there.
#[inline]
fn arrive(cta: &mut Cta, warp: &mut Warp, ctx: &WarpCtx) {
    let id = (ctx.bar_id & 15) as usize;
    cta.arrived[id] += ctx.bar_lanes;
    if ctx.bar_count != 0 {
        cta.expected[id] = ctx.bar_count;
    }
    if ctx.bar_red != 0 {
        cta.red_yes[id] += (ctx.bar_red as u32 & ctx.bar_mask).count_ones();
        cta.red |= 1 << id;
    }
    cta.open |= 1 << id;
    cta.last_id = id as u8;
    warp.id = id as u8;
    warp.gen = cta.generation[id];
    warp.state = WarpState::Waiting;
}

/// The warps a call ran before its last one (see the module's doc): they arrived, whole,
/// at barrier `id` with `lanes` threads in all, which leaves `left_need` threads for it
/// to wait for.
struct Chained {
    id: usize,
    lanes: u32,
    left_need: u32,
}

impl Chained {
    /// Records the chained warps `warps` (what `arrive` records for each): they wait.
    fn record(&self, cta: &mut Cta, warps: &mut [Warp]) {
        let gen = cta.generation[self.id];
        for x in warps {
            x.state = WarpState::Waiting;
            x.id = self.id as u8;
            x.gen = gen;
        }
        cta.arrived[self.id] += self.lanes;
        cta.open |= 1 << self.id;
    }

    /// When the chain ran the whole CTA in order and its last warp (`last`, whose live
    /// lanes were `live`) arrived, whole, at the same barrier and completes it: records
    /// it all at once (what `arrive` for each warp, `complete_one` and `wake` do, with
    /// nothing left to note per warp: they all waited there and are all woken, and no
    /// `bar.red` result is passed on) and returns true; otherwise changes nothing.
    #[inline]
    fn whole_cta(&self, cta: &mut Cta, last: &WarpCtx, live: u32) -> bool {
        let id = self.id;
        let whole = last.live == live
            && last.bar_id as usize & 15 == id
            && last.bar_count == 0
            && last.bar_red == 0
            && last.bar_lanes >= self.left_need
            && cta.red & (1 << id) == 0;
        if whole {
            cta.arrived[id] += self.lanes + last.bar_lanes;
            cta.open |= 1 << id;
            cta.complete_one(id);
            cta.done = 0;
        }
        whole
    }
}

/// Records `wraps` rounds the generated code ran in one call (`WarpCtx::chain_wrap`):
/// each was every warp of the CTA arriving, whole, at barrier `id` (no thread count,
/// not `bar.red`) and completing it, which `Chained::whole_cta` would have recorded:
/// the barrier's generation moves on, nothing is left open, and every warp is ready.
fn wrapped(cta: &mut Cta, id: usize, wraps: u32) {
    cta.generation[id] = cta.generation[id].wrapping_add(wraps);
    cta.arrived[id] = 0;
    cta.expected[id] = 0;
    cta.open &= !(1 << id);
    cta.red_last &= !(1 << id);
}

/// The loop's per-unit vectors, kept by each worker thread from one unit to the next
/// (no allocation per CTA).
#[derive(Default)]
struct Scratch {
    warps: Vec<Warp>,
    ctas: Vec<Cta>,
    round: Vec<usize>,
    cta_of: Vec<usize>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

/// Runs the warps `slots` of the CTAs `ctaids` with kernel `f` (`run_cta_with_barriers`
/// for a kernel whose barriers are continuations, run on this stack).
pub(super) fn run(
    sh: &LaunchShared,
    f: KernelFn,
    slots: &mut [WarpSlot],
    ctaids: &[[u32; 3]],
) -> Result<()> {
    let mut scratch = SCRATCH.try_with(|s| s.take()).unwrap_or_default();
    let r = run_with(sh, f, slots, ctaids, &mut scratch);
    let _ = SCRATCH.try_with(|s| s.set(scratch));
    r
}

/// [`run`] with the vectors of `scratch` (their contents are replaced).
fn run_with(
    sh: &LaunchShared,
    f: KernelFn,
    slots: &mut [WarpSlot],
    ctaids: &[[u32; 3]],
    scratch: &mut Scratch,
) -> Result<()> {
    let n = slots.len();
    let nw = n / ctaids.len().max(1);
    let Scratch {
        warps,
        ctas,
        round,
        cta_of,
    } = scratch;
    warps.clear();
    warps.extend(slots.iter().map(|s| Warp {
        state: WarpState::Ready,
        id: 0,
        gen: 0,
        live: s.ctx.live,
    }));
    ctas.clear();
    ctas.extend(warps.chunks(nw.max(1)).map(|c| Cta {
        live: c.iter().map(|w| lanes_of(w.live)).sum(),
        ..Default::default()
    }));
    let mut order = super::super::schedule::Order::new(sh.cfg.schedule, ctaids[0], n);
    // (Emptied: `fill_round` keeps an in-order round of the right length as it is.)
    round.clear();
    // The CTA of each warp (no division per warp step, nor per warp here: a
    // division costs as much as a warp's whole step of some kernels).
    cta_of.clear();
    for (c, cta) in slots.chunks(nw.max(1)).enumerate() {
        cta_of.extend(std::iter::repeat_n(c, cta.len()));
    }
    let mut left = n;
    // Chaining (see the module's doc) needs the in-order round: warp w + 1 next.
    let chain = matches!(sh.cfg.schedule, Schedule::InOrder);
    if chain {
        for cta in slots.chunks_mut(nw.max(1)) {
            for w in 1..cta.len() {
                let next: *mut WarpCtx = &mut *cta[w].ctx;
                cta[w - 1].ctx.chain_next = next;
            }
        }
    }
    loop {
        let mut ran = false;
        order.fill_round(round);
        let mut i = 0;
        while let Some(&w0) = round.get(i) {
            i += 1;
            let (Some(warp), Some(&c)) = (warps.get(w0), cta_of.get(w0)) else {
                continue;
            };
            if warp.state != WarpState::Ready {
                continue;
            }
            ran = true;
            let end = (c + 1) * nw;
            let mut k = 0;
            if chain {
                while w0 + 1 + k < end && warps[w0 + 1 + k].state == WarpState::Ready {
                    k += 1;
                }
            }
            let cta = &mut ctas[c];
            let ctx0: &mut WarpCtx = &mut slots[w0].ctx;
            let cid = cta.last_id as usize & 15;
            let need0 = cta.need(cid).saturating_sub(cta.arrived[cid]);
            ctx0.chain_left = k as u32;
            // Rounds wrap in the call only for the unit's only CTA, chained whole from
            // its first warp: the loop's next round would run the same warps again.
            let wrap = ctaids.len() == 1 && w0 == 0 && k + 1 == nw;
            ctx0.chain_wrap = if wrap { k as u32 } else { 0 };
            if k > 0 {
                ctx0.chain_id = cid as u32;
                ctx0.chain_need = need0;
                ctx0.chain_need0 = need0;
                ctx0.chain_ran = 0;
                ctx0.chain_wraps = 0;
            }
            // SAFETY: ctx0 is a valid, fully initialised warp context whose env lives
            // as long, its `chain_next` chain (at most `chain_left` links) runs through
            // the CTA's next warps' contexts, and `f` is the launch's compiled kernel.
            let status = unsafe { f(ctx0) };
            let mut w = w0;
            if k > 0 {
                ctx0.chain_left = 0;
                ctx0.chain_wrap = 0;
                if ctx0.chain_wraps != 0 {
                    wrapped(cta, cid, ctx0.chain_wraps);
                }
                let ran = ctx0.chain_ran as usize;
                let chained = Chained {
                    id: cid,
                    lanes: need0 - ctx0.chain_need,
                    left_need: ctx0.chain_need,
                };
                if ran > 0 {
                    i += ran;
                    w = w0 + ran;
                    let last = &slots[w].ctx;
                    if w0 == c * nw
                        && w + 1 == end
                        && status == RET_BARRIER
                        && chained.whole_cta(cta, last, warps[w].live)
                    {
                        continue;
                    }
                    chained.record(cta, &mut warps[w0..w]);
                }
            }
            let warp = &mut warps[w];
            let ctx: &WarpCtx = &slots[w].ctx;
            // (No popcount on the fast path: the build targets plain x86-64.)
            let now = ctx.live;
            if status == RET_BARRIER && now == warp.live {
                // The common step: the warp waits at a barrier, no lane exited.
                arrive(cta, warp, ctx);
                cta.complete_one(ctx.bar_id as usize & 15);
            } else {
                cta.live = cta.live - lanes_of(warp.live) + lanes_of(now);
                warp.live = now;
                if status == RET_BARRIER {
                    arrive(cta, warp, ctx);
                } else {
                    warp.state = WarpState::Done;
                    left -= 1;
                    if status != STATUS_OK {
                        return Err(warp_error(sh, &slots[w], w % nw, ctaids[c]));
                    }
                }
                // Exits change the count of every barrier without a thread count.
                cta.complete();
            }
            if cta.done != 0 {
                let r = c * nw..(c + 1) * nw;
                wake(cta, &mut warps[r.clone()], &mut slots[r]);
            }
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
                return Err(deadlock(sh, slots, warps, ctas, ctaids, nw));
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
        .find(|&c| {
            warps[c * nw..(c + 1) * nw]
                .iter()
                .any(|w| w.state == WarpState::Waiting)
        })
        .unwrap_or(0);
    let r = c * nw..(c + 1) * nw;
    let cta = &ctas[c];
    let bars = Barriers {
        arrived: cta.arrived,
        expected: cta.expected.map(|e| (e != 0).then_some(e)),
        generation: cta.generation.map(u64::from),
        waits: warps[r.clone()]
            .iter()
            .map(|w| match w.state {
                WarpState::Waiting => vec![(w.id as u32, w.gen as u64)],
                _ => Vec::new(),
            })
            .collect(),
        open: cta.open,
        live: cta.live,
        ..Default::default()
    };
    let state: Vec<WarpState> = warps[r.clone()].iter().map(|w| w.state).collect();
    super::deadlock(sh, &slots[r], &state, &bars, ctaids[c])
}

#[cfg(test)]
mod tests {
    use super::lanes_of;

    #[test]
    fn lanes_of_is_the_popcount() {
        // Oracle: `u32::count_ones`, over the two shortcuts, single lanes, and a
        // multiplicative sequence of masks.
        let mut masks = vec![0, u32::MAX, 1, 1 << 31, u32::MAX - 1, 0x5555_5555];
        let mut x = 0x9e37_79b9u32;
        for _ in 0..1000 {
            x = x.wrapping_mul(0x0101_0101).wrapping_add(0x7f4a_7c15);
            masks.push(x);
        }
        for m in masks {
            assert_eq!(lanes_of(m), m.count_ones(), "{m:#x}");
        }
    }
}
