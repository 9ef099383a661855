//! Barriers, warp side: lanes arrive at a barrier (`bar.sync`, `bar.arrive`, `bar.red`),
//! the warp suspends its coroutine until the CTA scheduler has seen every thread arrive,
//! and reads the `bar.red` result. The scheduler (`runtime::launch`) counts arrivals per
//! CTA and wakes the waiting warps.

use crate::exec::ctx::{stop_with_error, Stopped, WarpCtx, STATUS_OK, WARP_SIZE};
use crate::ir::{BarRedOp, InstId};

/// Set in a lane's next-block number while the lane waits at a barrier: it sorts above
/// every block, so the warp runs every other pending block first.
pub const BAR_WAIT: u32 = 0x8000_0000;

/// What a kernel whose barriers are continuations (`jit::control::cont`) returns when
/// its warp waits at a barrier (neither `STATUS_OK` nor `STATUS_FAULT`; never stored in
/// `WarpCtx::status`): its arrival is in `WarpEnv::arrivals`, and calling it again
/// continues at `WarpCtx::resume`.
pub const RET_BARRIER: u32 = 0x100;

/// What a warp hands to its CTA scheduler when it suspends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpYield {
    /// The warp has no lane left to run until the barriers its lanes arrived at (listed
    /// in [`WarpEnv::arrivals`](crate::exec::ctx::WarpEnv::arrivals)) complete.
    Wait,
    /// The warp arrived at a barrier without waiting (`bar.arrive`, in
    /// [`WarpEnv::arrivals`](crate::exec::ctx::WarpEnv::arrivals)); it stays ready to run.
    Arrive,
    /// An mbarrier wait found its phase incomplete (`exec::asyncop`): the warp stays
    /// ready, after the CTA's other warps have run.
    Poll,
}

/// Lanes `mask` of a warp arrived at barrier `id`, which completes when `count` threads
/// (all live threads of the CTA if `None`) have arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub id: u32,
    pub count: Option<u32>,
    pub mask: u32,
    pub inst: InstId,
    /// False for `bar.arrive`: the lanes count towards the barrier but do not wait.
    pub wait: bool,
    /// `bar.red`: the arriving lanes whose predicate `c` is true.
    pub red: Option<u32>,
}

/// The arrival a continuation kernel's warp left in its context when it returned
/// [`RET_BARRIER`] (`WarpCtx::bar_*`).
pub fn cont_arrival(ctx: &WarpCtx) -> Arrival {
    Arrival {
        id: ctx.bar_id,
        count: (ctx.bar_count != 0).then_some(ctx.bar_count),
        mask: ctx.bar_mask,
        inst: InstId(ctx.bar_inst),
        wait: true,
        red: (ctx.bar_red != 0).then_some(ctx.bar_red as u32),
    }
}

/// Lanes `mask` arrive at barrier `id` (non-blocking: the lanes must later wait with
/// [`bar_wait`] before they go on). Returns `Err(Stopped)` (with `ctx.status` set) if the
/// barrier operands are invalid.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`](crate::exec::ctx::WarpEnv).
pub unsafe fn bar_arrive(
    ctx: &mut WarpCtx,
    id: u32,
    count: Option<u32>,
    mask: u32,
    inst: InstId,
) -> Result<(), Stopped> {
    if id > 15 {
        unsafe { stop_with_error(ctx, format!("barrier id {id} is out of range 0..15")) };
        return Err(Stopped);
    }
    if let Some(c) = count {
        if c == 0 || c % WARP_SIZE as u32 != 0 {
            unsafe {
                stop_with_error(
                    ctx,
                    format!("barrier thread count {c} is not a positive multiple of 32"),
                )
            };
            return Err(Stopped);
        }
    }
    let env = unsafe { &mut *ctx.env };
    if env.yielder.is_none() && ctx.cont_regs == 0 {
        unsafe { stop_with_error(ctx, "bar.sync outside a scheduled warp".into()) };
        return Err(Stopped);
    }
    let red = env.pending_red.take();
    env.arrivals.push(Arrival {
        id,
        count,
        mask,
        inst,
        wait: true,
        red,
    });
    Ok(())
}

/// `bar.arrive a, b`: lanes `mask` arrive at barrier `id` (of `count` threads) without
/// waiting; the scheduler records the arrival at once and the warp goes on.
///
/// # Safety
/// As [`bar_wait`].
pub unsafe fn bar_arrive_nowait(
    ctx: &mut WarpCtx,
    id: u32,
    count: u32,
    mask: u32,
    inst: InstId,
) -> Result<(), Stopped> {
    unsafe { bar_arrive(ctx, id, Some(count), mask, inst)? };
    let env = unsafe { &mut *ctx.env };
    if let Some(a) = env.arrivals.last_mut() {
        a.wait = false;
    }
    let Some(y) = env.yielder else {
        return Err(Stopped);
    };
    // SAFETY: the scheduler keeps the yielder alive while the coroutine runs.
    let y = unsafe { &*y };
    y.suspend(WarpYield::Arrive);
    if ctx.status != STATUS_OK {
        return Err(Stopped);
    }
    Ok(())
}

/// The result of the `bar.red` this warp last waited at on barrier `id`: the number of
/// threads whose predicate was true (`popc`), whether all were (`and`), any was (`or`).
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`](crate::exec::ctx::WarpEnv).
pub unsafe fn bar_red_result(ctx: &WarpCtx, id: u32, op: BarRedOp) -> u32 {
    let env = unsafe { &*ctx.env };
    let (yes, all) = env.red_results[id.min(15) as usize];
    match op {
        BarRedOp::Popc => yes,
        BarRedOp::And => (yes == all) as u32,
        BarRedOp::Or => (yes != 0) as u32,
    }
}

/// Suspends the warp until every barrier its lanes arrived at has completed.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`](crate::exec::ctx::WarpEnv), and
/// the warp must be running inside its scheduler coroutine.
pub unsafe fn bar_wait(ctx: &mut WarpCtx) -> Result<(), Stopped> {
    let env = unsafe { &*ctx.env };
    let Some(y) = env.yielder else {
        unsafe { stop_with_error(ctx, "bar.sync outside a scheduled warp".into()) };
        return Err(Stopped);
    };
    // SAFETY: the scheduler keeps the yielder alive while the coroutine runs.
    let y = unsafe { &*y };
    y.suspend(WarpYield::Wait);
    if ctx.status != STATUS_OK {
        return Err(Stopped);
    }
    Ok(())
}

/// `bar.sync` for a whole converged set of lanes: [`bar_arrive`] then [`bar_wait`].
///
/// # Safety
/// As [`bar_wait`].
pub unsafe fn bar_sync(
    ctx: &mut WarpCtx,
    id: u32,
    count: Option<u32>,
    mask: u32,
    inst: InstId,
) -> Result<(), Stopped> {
    unsafe {
        bar_arrive(ctx, id, count, mask, inst)?;
        bar_wait(ctx)
    }
}
