//! The CTA scheduler's general loop for kernels with barriers: each warp runs in a
//! stackful coroutine that suspends inside `bar.sync`; [`Barriers`] counts arrivals per
//! barrier and generation and releases the waiting warps; a CTA in which no warp can run
//! and some wait at a barrier that can never complete ends the launch with
//! [`Error::Deadlock`] ([`deadlock`]).

use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::runtime) enum WarpState {
    Ready,
    /// Waiting until the barriers in its `waits` list complete.
    Waiting,
    Done,
}

/// The CTA's barriers: arrivals and completed generations.
#[derive(Default)]
pub(in crate::runtime) struct Barriers {
    /// Threads arrived in the current generation of each barrier.
    pub(super) arrived: [u32; 16],
    /// The thread count the current generation waits for (`None`: all live threads).
    pub(super) expected: [Option<u32>; 16],
    /// Completed generations of each barrier.
    pub(super) generation: [u64; 16],
    /// Per warp: (barrier, generation) pairs it waits for.
    pub(in crate::runtime) waits: Vec<Vec<(u32, u64)>>,
    /// Bit i: barrier i has arrivals in its current generation.
    pub(super) open: u16,
    /// `bar.red`: threads of the current generation whose predicate is true.
    pub(super) red_yes: [u32; 16],
    /// (true predicates, arrived threads) of each barrier's last completed generation.
    pub(super) red_done: [(u32, u32); 16],
    /// Live threads of each warp as last seen by [`Barriers::refresh`], and their sum
    /// (the count a barrier without a thread count waits for).
    pub(super) live_of: Vec<u32>,
    pub(super) live: u32,
    /// synccheck and racecheck's barrier epochs, under a sanitizer.
    pub(super) check: Option<crate::runtime::sanitize::BarrierCheck>,
    /// Per warp: it also waits at the cluster barrier (`super::cluster`).
    pub(super) blocked: Vec<bool>,
}

impl Barriers {
    /// The barriers of CTA `ctaid`, whose warps are `warps`: nothing arrived, every
    /// warp's live threads counted.
    fn for_cta(sh: &LaunchShared, warps: &[WarpSlot], ctaid: [u32; 3]) -> Barriers {
        let live_of: Vec<u32> = warps.iter().map(|w| w.ctx.live.count_ones()).collect();
        Barriers {
            waits: vec![Vec::new(); warps.len()],
            live: live_of.iter().sum(),
            live_of,
            check: sh
                .san
                .clone()
                .map(|s| crate::runtime::sanitize::BarrierCheck::new(s, ctaid)),
            blocked: vec![false; warps.len()],
            ..Default::default()
        }
    }

    /// Updates the live-thread count after warp `w` ran (its lanes may have exited).
    fn refresh(&mut self, w: usize, warps: &[WarpSlot]) {
        let now = warps[w].ctx.live.count_ones();
        self.live = self.live - self.live_of[w] + now;
        self.live_of[w] = now;
    }

    /// Records the arrivals a warp reported before suspending.
    fn arrive(&mut self, w: usize, slot: &mut WarpSlot) {
        let mut arrivals = std::mem::take(&mut slot.env.arrivals);
        for a in arrivals.drain(..) {
            let id = a.id.min(15) as usize;
            self.arrived[id] += a.mask.count_ones();
            if a.count.is_some() {
                self.expected[id] = a.count;
            }
            if let Some(c) = self.check.as_mut() {
                let t = tid_of(slot, a.mask.trailing_zeros() as usize);
                c.arrival(id, a.inst, t, self.arrived[id], self.expected[id], a.wait);
            }
            if let Some(bits) = a.red {
                self.red_yes[id] += (bits & a.mask).count_ones();
            }
            if a.wait {
                self.waits[w].push((id as u32, self.generation[id]));
            }
            self.open |= 1 << id;
        }
        slot.env.arrivals = arrivals;
    }

    /// Completes every barrier whose count is reached and wakes the warps whose
    /// barriers have all completed (also those whose barriers completed while they
    /// were still running, e.g. after a `bar.arrive` handed their arrivals over).
    /// `waited`: the warp that has just started waiting, if any (checked even when no
    /// barrier completes now).
    fn release(&mut self, warps: &mut [WarpSlot], state: &mut [WarpState], waited: Option<usize>) {
        let mut advanced = false;
        let mut open = self.open;
        let live = self.live;
        while open != 0 {
            let id = open.trailing_zeros() as usize;
            open &= open - 1;
            if self.arrived[id] >= self.expected[id].unwrap_or(live) {
                if let Some(c) = self.check.as_mut() {
                    c.completed(id);
                }
                self.red_done[id] = (self.red_yes[id], self.arrived[id]);
                self.red_yes[id] = 0;
                self.arrived[id] = 0;
                self.expected[id] = None;
                self.generation[id] += 1;
                self.open &= !(1 << id);
                advanced = true;
            }
        }
        // Without a completed barrier only the warp that has just started waiting can
        // be released (its barriers may have completed while it ran).
        let range = match (advanced, waited) {
            (true, _) => 0..state.len(),
            (false, Some(w)) => w..(w + 1).min(state.len()),
            (false, None) => 0..0,
        };
        for (w, s) in state
            .iter_mut()
            .enumerate()
            .take(range.end)
            .skip(range.start)
        {
            if *s == WarpState::Waiting
                && !self.blocked.get(w).copied().unwrap_or(false)
                && self.waits[w]
                    .iter()
                    .all(|&(b, g)| self.generation[b as usize] > g)
            {
                for &(b, _) in &self.waits[w] {
                    warps[w].env.red_results[b as usize] = self.red_done[b as usize];
                }
                self.waits[w].clear();
                *s = WarpState::Ready;
            }
        }
    }
}

pub(super) fn run_cta_with_barriers(
    sh: &LaunchShared,
    warps: &mut [WarpSlot],
    ctaids: &[[u32; 3]],
    stacks: &mut Vec<DefaultStack>,
) -> Result<()> {
    type Co = Coroutine<(), WarpYield, u32, DefaultStack>;
    let n = warps.len();
    // Warps per CTA: warp `w` of the unit is warp `w % nw` of CTA `w / nw`.
    let nw = n / ctaids.len().max(1);
    // Barriers as continuations: the warps run on this stack and return at barriers.
    if let (true, Exec::Jit(f)) = (sh.cont_regs > 0 && sh.cont_direct, &sh.exec) {
        return cont::run(sh, *f, warps, ctaids);
    }
    let mut cos: Vec<Option<Co>> = Vec::with_capacity(n);
    for slot in warps.iter_mut() {
        let stack = match stacks.pop() {
            Some(s) if s.base().get() - s.limit().get() >= sh.stack_bytes => s,
            _ => DefaultStack::new(sh.stack_bytes)
                .map_err(|e| Error::Host(format!("cannot allocate a warp stack: {e}")))?,
        };
        slot.env.stack_limit = stack.limit().get() + crate::exec::call::HOST_STACK_MARGIN;
        let ctx: *mut WarpCtx = &mut *slot.ctx;
        let env: *mut WarpEnv = &mut *slot.env;
        let sh_ptr: *const LaunchShared = sh;
        // SAFETY: ctx, env and sh outlive the coroutine: every coroutine is either run to
        // completion or force-reset below before this function returns.
        let co = unsafe {
            Co::with_stack_unchecked(stack, move |y, ()| {
                (*env).yielder = Some(y as *const _);
                loop {
                    // (A continuation kernel whose frame needs this stack.)
                    match run_warp(&*sh_ptr, &mut *ctx) {
                        crate::exec::barrier::RET_BARRIER => {
                            let a = crate::exec::barrier::cont_arrival(&*ctx);
                            (*env).arrivals.push(a);
                            y.suspend(WarpYield::Wait)
                        }
                        s => return s,
                    }
                }
            })
        };
        cos.push(Some(co));
    }
    let mut state = vec![WarpState::Ready; n];
    let mut bars: Vec<Barriers> = (0..ctaids.len())
        .map(|c| Barriers::for_cta(sh, &warps[c * nw..(c + 1) * nw], ctaids[c]))
        .collect();
    let mut cluster = crate::runtime::cluster::ClusterBarrier::new(n);
    // The grid barrier of a cooperative grid (all its CTAs are this unit).
    let mut grid =
        crate::runtime::cluster::ClusterBarrier::with_id(n, crate::exec::gridsync::GRID_BARRIER);
    let mut order = crate::runtime::schedule::Order::new(sh.cfg.schedule, ctaids[0], n);
    // Rounds in which warps only polled mbarriers that did not change.
    let mut stalled = 0u32;
    let result = (|| -> Result<()> {
        loop {
            let mut ran = false;
            let mut progress = false;
            for w in order.next_round() {
                if state[w] != WarpState::Ready {
                    continue;
                }
                ran = true;
                let (c, wl) = (w / nw, w % nw);
                let cta = c * nw..(c + 1) * nw;
                let Some(co) = cos[w].as_mut() else { continue };
                let step = co.resume(());
                let polled = match step {
                    CoroutineResult::Yield(WarpYield::Poll) => true,
                    CoroutineResult::Yield(y @ (WarpYield::Wait | WarpYield::Arrive)) => {
                        let took = cluster
                            .take(w, &mut warps[w].env)
                            .and_then(|()| grid.take(w, &mut warps[w].env));
                        if let Err((msg, inst, lane)) = took {
                            let slot = &mut warps[w];
                            let e = crate::runtime::cluster::misuse(
                                sh, slot, wl, ctaids[c], msg, inst, lane,
                            );
                            return Err(e);
                        }
                        bars[c].blocked[wl] = cluster.blocked(w) || grid.blocked(w);
                        bars[c].arrive(wl, &mut warps[w]);
                        if y == WarpYield::Wait {
                            state[w] = WarpState::Waiting;
                        }
                        false
                    }
                    CoroutineResult::Return(status) => {
                        state[w] = WarpState::Done;
                        if let Some(co) = cos[w].take() {
                            stacks.push(co.into_stack());
                        }
                        if status != STATUS_OK {
                            return Err(warp_error(sh, &warps[w], wl, ctaids[c]));
                        }
                        false
                    }
                };
                let changed = std::mem::take(&mut warps[w].env.mbar.changes) != 0;
                progress |= !polled || changed;
                // Exits and arrivals may complete barriers.
                bars[c].refresh(wl, &warps[cta.clone()]);
                bars[c].release(&mut warps[cta.clone()], &mut state[cta], Some(wl));
                let phase = cluster.phases();
                let mut woken = cluster.complete(|k| warps[k].ctx.live);
                woken.extend(grid.complete(|k| warps[k].ctx.live));
                for v in woken {
                    let (c2, v2) = (v / nw, v % nw);
                    let cta2 = c2 * nw..(c2 + 1) * nw;
                    bars[c2].blocked[v2] = cluster.blocked(v) || grid.blocked(v);
                    bars[c2].release(&mut warps[cta2.clone()], &mut state[cta2], Some(v2));
                }
                if let Some(s) = sh.san.as_ref().filter(|_| cluster.phases() != phase) {
                    s.cluster_barrier_completed();
                }
                if bars[c].check.as_ref().is_some_and(|c| c.must_stop()) {
                    return Err(Error::Host("stopped by a sanitizer finding".into()));
                }
            }
            if state.iter().all(|s| *s == WarpState::Done) {
                return Ok(());
            }
            stalled = if progress || !ran { 0 } else { stalled + 1 };
            if stalled >= POLL_ROUNDS {
                return Err(poll_deadlock(sh, warps, &state, ctaids[0]));
            }
            if !ran {
                for (c, b) in bars.iter_mut().enumerate() {
                    let cta = c * nw..(c + 1) * nw;
                    b.release(&mut warps[cta.clone()], &mut state[cta], None);
                }
                if !state.contains(&WarpState::Ready) {
                    return Err(crate::runtime::cluster::deadlock(
                        sh, warps, &state, &bars, &cluster, ctaids,
                    ));
                }
            }
        }
    })();
    // Discard unfinished coroutines without unwinding through generated code.
    for co in cos.iter_mut().flatten() {
        if !co.done() {
            // SAFETY: nothing on the coroutine stack needs dropping for correctness
            // (interpreter frames leak their heap data; JIT frames own nothing).
            unsafe { co.force_reset() };
        }
    }
    for co in cos.into_iter().flatten() {
        stacks.push(co.into_stack());
    }
    for slot in warps.iter_mut() {
        slot.env.split.reset();
    }
    result
}

/// Rounds of the CTA loop in which every running warp only polled mbarriers and none
/// changed, after which the launch ends with a deadlock: a wait that can never
/// complete (the margin lets bounded polling loops run out first).
const POLL_ROUNDS: u32 = 10_000;

fn poll_deadlock(
    sh: &LaunchShared,
    warps: &[WarpSlot],
    state: &[WarpState],
    ctaid: [u32; 3],
) -> Error {
    let ir = &sh.module.inner.ir;
    let mut parts = Vec::new();
    for (w, slot) in warps.iter().enumerate() {
        match (state[w], slot.env.mbar.poll_at) {
            (WarpState::Ready, Some((inst, lane, addr))) => {
                let line = ir.inst_info.get(inst).map_or(0, |i| i.loc.line);
                parts.push(format!(
                    "warp {w} polls the mbarrier at {addr:#x} (lane {lane}, line {line}) whose phase never completes"
                ));
            }
            (WarpState::Waiting, _) => parts.push(format!("warp {w} waits at a barrier")),
            _ => {}
        }
    }
    Error::Deadlock(format!(
        "deadlock in kernel '{}' block ({},{},{}): no mbarrier of the block changed in {POLL_ROUNDS} rounds: {}",
        sh.func.name,
        ctaid[0],
        ctaid[1],
        ctaid[2],
        parts.join("; ")
    ))
}

fn live_threads(warps: &[WarpSlot]) -> u32 {
    warps.iter().map(|w| w.ctx.live.count_ones()).sum()
}

pub(in crate::runtime) fn deadlock(
    sh: &LaunchShared,
    warps: &[WarpSlot],
    state: &[WarpState],
    bars: &Barriers,
    ctaid: [u32; 3],
) -> Error {
    let live = live_threads(warps);
    let mut parts = Vec::new();
    for id in 0..16u32 {
        let gen = bars.generation[id as usize];
        let waiting: Vec<usize> = (0..state.len())
            .filter(|&w| state[w] == WarpState::Waiting && bars.waits[w].contains(&(id, gen)))
            .collect();
        if waiting.is_empty() {
            continue;
        }
        let need = bars.expected[id as usize].unwrap_or(live);
        let missing: Vec<String> = (0..warps.len())
            .filter(|w| !waiting.contains(w))
            .filter(|&w| warps[w].ctx.live != 0)
            .map(|w| {
                format!(
                    "warp {w} (threads {}..{})",
                    w * WARP_SIZE,
                    (w + 1) * WARP_SIZE - 1
                )
            })
            .collect();
        parts.push(format!(
            "barrier {id} has {} of {need} threads (warps {:?} wait there; not arrived: {})",
            bars.arrived[id as usize],
            waiting,
            if missing.is_empty() {
                "lanes of the waiting warps".to_string()
            } else {
                missing.join(", ")
            }
        ));
    }
    Error::Deadlock(format!(
        "deadlock in kernel '{}' block ({},{},{}): {}",
        sh.func.name,
        ctaid[0],
        ctaid[1],
        ctaid[2],
        parts.join("; ")
    ))
}

/// Turns a stopped warp's record into an error naming kernel, instruction, block,
/// thread and address.
pub(in crate::runtime) fn warp_error(
    sh: &LaunchShared,
    slot: &WarpSlot,
    w: usize,
    ctaid: [u32; 3],
) -> Error {
    let ir = &sh.module.inner.ir;
    let tid_of = |lane: usize| {
        [
            slot.ctx.tid[0][lane],
            slot.ctx.tid[1][lane],
            slot.ctx.tid[2][lane],
        ]
    };
    if let Some(f) = &slot.env.fault {
        let info = ir.inst_info.get(f.inst);
        return Error::Fault(Fault {
            kernel: sh.func.name.clone(),
            file: ir.file.clone(),
            line: info.map_or(0, |i| i.loc.line),
            col: info.map_or(0, |i| i.loc.col),
            inst: info.map_or_else(String::new, |i| i.text.clone()),
            block: ctaid,
            thread: tid_of((f.lane as usize).min(WARP_SIZE - 1)),
            addr: f.addr,
            kind: f.kind,
            space: f.space,
            size: f.size,
            write: f.write,
        });
    }
    let msg = slot
        .env
        .error
        .clone()
        .unwrap_or_else(|| "the warp stopped without a recorded reason".into());
    let (line, inst, lane) = match slot.env.error_at {
        Some((i, lane)) => {
            let info = ir.inst_info.get(i);
            (
                info.map_or(0, |i| i.loc.line),
                info.map_or_else(String::new, |i| i.text.clone()),
                (lane as usize).min(WARP_SIZE - 1),
            )
        }
        None => (0, String::new(), 0),
    };
    Error::Kernel {
        kernel: sh.func.name.clone(),
        file: ir.file.clone(),
        line,
        inst,
        block: ctaid,
        thread: tid_of(lane),
        msg: format!("{msg} (warp {w})"),
    }
}
