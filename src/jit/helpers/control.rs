//! Control helpers: barriers (`ptxjit_bar_*`), bad `brx.idx` indices, `nanosleep`,
//! `--check-uniform` failures, the watchdog, internal errors, calls (`ptxjit_call_*`)
//! and split calls, and the timers and `isspacep` of special registers.

use crate::exec::call::{call_copy, call_pop, call_push, decode_target};
use crate::exec::ctx::{stop_with_error_at, WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::exec::split::{call_resume, call_split};
use crate::exec::{barrier, ctx, sreg};
use crate::ir;
use crate::ir::{BarRedOp, InstId, Space};

/// Lanes `mask` arrive at barrier `id` (`count == u64::MAX`: no count); non-blocking.
/// Returns 0, or the warp's nonzero status.
///
/// # Safety
/// As `exec::ctx::bar_arrive`.
pub unsafe extern "C" fn ptxjit_bar_arrive(
    ctx: *mut WarpCtx,
    id: u32,
    count: u64,
    mask: u32,
    inst: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let count = if count == u64::MAX {
        None
    } else {
        Some(count as u32)
    };
    match unsafe { barrier::bar_arrive(ctx, id, count, mask, InstId(inst)) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Suspends the warp until the barriers its lanes arrived at complete. Returns 0, or the
/// warp's nonzero status.
///
/// # Safety
/// As `exec::ctx::bar_wait`.
pub unsafe extern "C" fn ptxjit_bar_wait(ctx: *mut WarpCtx) -> u32 {
    let ctx = unsafe { &mut *ctx };
    match unsafe { barrier::bar_wait(ctx) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// `--check-uniform` failed for instruction `inst`: `lanes` disagree with the first
/// active lane. Stops the warp (see `exec::ctx::not_uniform`).
///
/// # Safety
/// `ctx` must be the running warp's context.
pub unsafe extern "C" fn ptxjit_not_uniform(ctx: *mut WarpCtx, inst: u32, lanes: u32) {
    let ctx = unsafe { &mut *ctx };
    unsafe { ctx::not_uniform(ctx, InstId(inst), lanes) };
}

/// `bar.arrive` for lanes `mask`: returns 0, or the warp's nonzero status.
///
/// # Safety
/// As `exec::ctx::bar_arrive_nowait`.
pub unsafe extern "C" fn ptxjit_bar_arrive_nowait(
    ctx: *mut WarpCtx,
    id: u32,
    count: u32,
    mask: u32,
    inst: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    match unsafe { barrier::bar_arrive_nowait(ctx, id, count, mask, InstId(inst)) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Stores the `bar.red` predicate bits for the next arrival.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_bar_red_pending(ctx: *mut WarpCtx, bits: u32) {
    let ctx = unsafe { &mut *ctx };
    unsafe { (*ctx.env).pending_red = Some(bits) };
}

/// The result of the last `bar.red` (op 0 popc, 1 and, 2 or) on barrier `id`.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_bar_red_result(ctx: *mut WarpCtx, id: u32, op: u32) -> u32 {
    let ctx = unsafe { &*ctx };
    let op = match op {
        0 => BarRedOp::Popc,
        1 => BarRedOp::And,
        _ => BarRedOp::Or,
    };
    unsafe { barrier::bar_red_result(ctx, id, op) }
}

/// Records a bad `brx.idx` index: `bits` are the taking lanes with a bad index (the
/// lowest one is reported), `index` its index, `len` the list's length. Returns the
/// warp's (nonzero) status.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_bad_branch(
    ctx: *mut WarpCtx,
    inst: u32,
    bits: u32,
    index: u32,
    len: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let lane = bits.trailing_zeros().min(31);
    // SAFETY: as the caller's contract.
    unsafe { ctx::bad_branch_index(ctx, InstId(inst), lane, index, len) };
    ctx.status.max(STATUS_FAULT)
}

/// `nanosleep`: sleeps once for the smallest delay of the lanes in `mask` (`ts`: 32 u32
/// lane values), capped at 1 ms.
///
/// # Safety
/// `ts` must be valid for 32 u32 values.
pub unsafe extern "C" fn ptxjit_nanosleep(mask: u32, ts: *const u32) {
    let ts = unsafe { &*(ts as *const [u32; 32]) };
    ctx::nanosleep((0..32).filter(|l| mask >> l & 1 != 0).map(|l| ts[l]));
}

/// Stops the warp: IR block `blk` was dispatched divergently although
/// `ir::analysis::cfg::divergent_blocks`
/// found that it never runs so (a JIT bug).
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_internal_error(ctx: *mut WarpCtx, blk: u32) {
    let ctx = unsafe { &mut *ctx };
    let msg = format!(
        "internal JIT error: block {blk} ran with lanes waiting elsewhere, which the \
         compiler ruled out; please report this kernel"
    );
    unsafe { ctx::stop_with_error(ctx, msg) };
}

/// Stops the warp: the launch ran past its time limit (at instruction `inst`).
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_timed_out(ctx: *mut WarpCtx, inst: u32) {
    let ctx = unsafe { &mut *ctx };
    unsafe { ctx::timed_out(ctx, InstId(inst)) };
    ctx.status = ctx.status.max(STATUS_FAULT);
}

/// `ptxjit_call_pick(ctx, addrs, left, site) -> (index << 32) | lanes`: the group of
/// lanes of `left` whose address (`addrs[lane]`) equals the lowest lane's, and the
/// index of their target in the site's targets; 0 with the warp stopped when that
/// address is not a target.
pub(crate) unsafe extern "C" fn ptxjit_call_pick(
    ctx: *mut WarpCtx,
    addrs: *const u64,
    left: u32,
    site: *const IndirectSite,
) -> u64 {
    // SAFETY: generated code passes its warp context, a 32-lane address slot and a site
    // owned by the `JitModule` that owns the code.
    let (ctx, site) = unsafe { (&mut *ctx, &*site) };
    let addrs = unsafe { std::slice::from_raw_parts(addrs, 32) };
    if left == 0 {
        return 0;
    }
    let lane = left.trailing_zeros() as usize;
    let a = addrs[lane];
    let mut group = 0u32;
    for (l, &x) in addrs.iter().enumerate() {
        if left & (1 << l) != 0 && x == a {
            group |= 1 << l;
        }
    }
    match decode_target(site.nfuncs, &site.targets, a) {
        Ok(i) => ((i as u64) << 32) | group as u64,
        Err(msg) => {
            // SAFETY: the env is live while the warp runs.
            unsafe { stop_with_error_at(ctx, msg, site.inst, lane as u32) };
            0
        }
    }
}

/// `ptxjit_call_push(ctx, mask, frame, size, zero_from, name_ptr, name_len, inst) ->
/// status`.
pub(crate) unsafe extern "C" fn ptxjit_call_push(
    ctx: *mut WarpCtx,
    mask: u32,
    frame: u32,
    size: u32,
    zero_from: u32,
    name_ptr: *const u8,
    name_len: u64,
    inst: u32,
) -> u32 {
    // SAFETY: generated code passes its live warp context and a name owned by the
    // `JitModule` that owns the code.
    let ctx = unsafe { &mut *ctx };
    let name = unsafe { std::slice::from_raw_parts(name_ptr, name_len as usize) };
    let name = std::str::from_utf8(name).unwrap_or("?");
    match unsafe { call_push(ctx, mask, frame, size, zero_from, name, ir::InstId(inst)) } {
        Ok(()) => STATUS_OK,
        Err(_) => STATUS_FAULT,
    }
}

/// `ptxjit_call_pop(ctx, frame)`.
pub(crate) unsafe extern "C" fn ptxjit_call_pop(ctx: *mut WarpCtx, frame: u32) {
    // SAFETY: as above.
    call_pop(unsafe { &mut *ctx }, frame);
}

/// `ptxjit_call_copy(ctx, mask, frame, caller, callee, size, to_callee)`.
pub(crate) unsafe extern "C" fn ptxjit_call_copy(
    ctx: *mut WarpCtx,
    mask: u32,
    frame: u32,
    caller: u32,
    callee: u32,
    size: u32,
    to_callee: u32,
) {
    // SAFETY: the frame is pushed and the offsets were validated by `check`.
    unsafe { call_copy(&*ctx, mask, frame, caller, callee, size, to_callee != 0) };
}

/// `ptxjit_call_split(ctx, func, group) -> returned | parked << 32`: calls the compiled
/// function at `func` for lanes `group` as a split call.
///
/// # Safety
/// `ctx` must be the running warp's context; `func` a compiled `.func` of the module
/// that owns the calling code (which outlives the launch), its frame pushed.
pub(crate) unsafe extern "C" fn ptxjit_call_split(ctx: *mut WarpCtx, func: u64, group: u32) -> u64 {
    // SAFETY: generated code passes the address of a function it declared with the
    // `(ctx, mask) -> lanes` signature (`translate::funcs::func_signature`, the C convention).
    let f: unsafe extern "C" fn(*mut WarpCtx, u32) -> u32 = unsafe { std::mem::transmute(func) };
    // SAFETY: as documented.
    let (returned, parked) = unsafe { call_split(ctx, group, move |c| f(c, group)) };
    returned as u64 | (parked as u64) << 32
}

/// `ptxjit_call_resume(ctx, frame, lanes) -> returned | parked << 32`.
///
/// # Safety
/// As `exec::split::call_resume`.
pub(crate) unsafe extern "C" fn ptxjit_call_resume(
    ctx: *mut WarpCtx,
    frame: u32,
    lanes: u32,
) -> u64 {
    // SAFETY: as documented.
    let (returned, parked) = unsafe { call_resume(ctx, frame, lanes) };
    returned as u64 | (parked as u64) << 32
}

/// `%clock64` / `%globaltimer` ([`sreg::clock`]).
///
/// # Safety
/// `ctx` must point to a live warp context.
pub unsafe extern "C" fn ptxjit_clock(ctx: *const WarpCtx, which: u32) -> u64 {
    sreg::clock(unsafe { &*ctx }, which)
}

/// `isspacep` for the lanes in `mask`: bit i of the result is lane i's answer for its
/// generic address `addrs[i]`.
///
/// # Safety
/// `ctx` must point to a live warp context whose env is set; `addrs` to 32 u64 values.
pub unsafe extern "C" fn ptxjit_isspacep(
    ctx: *const WarpCtx,
    space: u32,
    mask: u32,
    addrs: *const u64,
) -> u32 {
    let ctx = unsafe { &*ctx };
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    let Some(&space) = ISSPACEP_SPACES.get(space as usize) else {
        return 0;
    };
    let mut out = 0u32;
    for lane in 0..WARP_SIZE {
        // SAFETY: the caller guarantees the env is set.
        if mask >> lane & 1 != 0 && unsafe { sreg::in_window(ctx, space, lane, addrs[lane]) } {
            out |= 1 << lane;
        }
    }
    out
}

/// What the code of one indirect call passes to `ptxjit_call_pick`.
pub(crate) struct IndirectSite {
    pub inst: crate::ir::InstId,
    pub nfuncs: usize,
    pub targets: Vec<u32>,
}

pub(crate) const ISSPACEP_SPACES: [Space; 6] = [
    Space::Global,
    Space::Shared,
    Space::Local,
    Space::Const,
    Space::Param,
    Space::SharedCluster,
];
