//! Calls at run time (both backends): pushing and popping a callee's `.local` frame
//! with the depth and stack limits, copying call-site `.param` variables, and mapping
//! function addresses back to functions. The call-graph facts a launch needs are in
//! [`crate::ir::analysis::callgraph`].

use crate::exec::ctx::{Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{FuncId, Module, MAX_CALL_DEPTH};

pub use crate::exec::ctx::stop_with_error_at;

pub use crate::ir::FUNC_ADDR_BASE;

/// Host stack that must remain free below the current frame when a call is entered.
pub const HOST_STACK_MARGIN: usize = 256 * 1024;

/// Host stack of a warp coroutine for kernels that call functions (reserved; pages are
/// committed as used). A call level takes well under 1 KiB for small functions, so 1000
/// levels of functions with many registers fit; deeper use stops with an error.
pub const CALL_STACK_HOST_BYTES: usize = 32 << 20;

/// Enters a callee: checks the depth, the thread's call stack (`frame + size` must fit
/// the current local window) and the host stack, zeroes bytes `[zero_from, size)` of the
/// new frame for the lanes in `mask`, and moves every lane's local window up by `frame`.
/// `name` names the callee and the call site in the error.
///
/// # Safety
/// `ctx.env` must point to this warp's live env; the local windows must be valid.
pub unsafe fn call_push(
    ctx: &mut WarpCtx,
    mask: u32,
    frame: u32,
    size: u32,
    zero_from: u32,
    name: &str,
    inst: crate::ir::InstId,
) -> Result<(), Stopped> {
    let probe = 0u8;
    let here = &probe as *const u8 as usize;
    // SAFETY: the caller guarantees env.
    let limit = unsafe { (*ctx.env).stack_limit };
    let why = if ctx.call_depth >= MAX_CALL_DEPTH {
        Some(format!("more than {MAX_CALL_DEPTH} nested calls"))
    } else if frame as u64 + size as u64 > ctx.local_size - unsafe { (*ctx.env).alloca_bytes } {
        Some("the call stack is exhausted".to_string())
    } else if limit != 0 && here < limit.saturating_add(unsafe { (*ctx.env).frame_margin }) {
        Some("the host stack is exhausted".to_string())
    } else {
        None
    };
    if let Some(why) = why {
        let lane = mask.trailing_zeros().min(WARP_SIZE as u32 - 1);
        let msg = format!("call to function {name} failed: {why} (recursion too deep?)");
        unsafe { stop_with_error_at(ctx, msg, inst, lane) };
        return Err(Stopped);
    }
    for lane in 0..WARP_SIZE {
        if mask & (1 << lane) != 0 && size > zero_from {
            let p = ctx.local_base[lane] + frame as u64 + zero_from as u64;
            // SAFETY: frame + size is inside the lane's local window (checked above).
            unsafe { std::ptr::write_bytes(p as *mut u8, 0, (size - zero_from) as usize) };
        }
    }
    // SAFETY: the caller guarantees env.
    unsafe { crate::exec::ctx::sanitize_local_written(ctx, mask, frame as i64, size as u64) };
    for b in ctx.local_base.iter_mut() {
        *b += frame as u64;
    }
    ctx.local_size -= frame as u64;
    ctx.call_depth += 1;
    Ok(())
}

/// Leaves a callee entered with [`call_push`] and the same `frame`.
pub fn call_pop(ctx: &mut WarpCtx, frame: u32) {
    for b in ctx.local_base.iter_mut() {
        *b -= frame as u64;
    }
    ctx.local_size += frame as u64;
    ctx.call_depth = ctx.call_depth.saturating_sub(1);
}

/// While a callee's frame is pushed: copies `size` bytes per lane of `mask` between the
/// caller's frame (offset `caller`) and the callee's (offset `callee`), towards the
/// callee if `to_callee`.
///
/// # Safety
/// The frame must be pushed with `frame`; both ranges must lie inside their frames
/// (`check` validates the offsets); `ctx.env` must point to this warp's live env.
pub unsafe fn call_copy(
    ctx: &WarpCtx,
    mask: u32,
    frame: u32,
    caller: u32,
    callee: u32,
    size: u32,
    to_callee: bool,
) {
    for lane in 0..WARP_SIZE {
        if mask & (1 << lane) != 0 {
            let base = ctx.local_base[lane];
            let c = (base - frame as u64 + caller as u64) as *mut u8;
            let e = (base + callee as u64) as *mut u8;
            let (s, d) = if to_callee { (c, e) } else { (e, c) };
            // SAFETY: as documented; the ranges do not overlap (the caller's slots end
            // before `frame`).
            unsafe { std::ptr::copy_nonoverlapping(s, d, size as usize) };
        }
    }
    if !to_callee {
        // SAFETY: the runtime runs warps with their env set.
        unsafe {
            let off = caller as i64 - frame as i64;
            crate::exec::ctx::sanitize_local_written(ctx, mask, off, size as u64)
        };
    }
}

/// Decodes the function address `addr` of an indirect call: the index in `targets` of
/// the function it names, or an error message (naming the address) when it names none.
pub fn decode_target(m_funcs: usize, targets: &[u32], addr: u64) -> Result<usize, String> {
    let fid = addr.wrapping_sub(FUNC_ADDR_BASE);
    if addr < FUNC_ADDR_BASE || fid >= m_funcs as u64 {
        return Err(format!(
            "indirect call to address {addr:#x}, which is not a function of the module"
        ));
    }
    targets
        .iter()
        .position(|&t| t as u64 == fid)
        .ok_or_else(|| {
            format!("indirect call to address {addr:#x} (function {fid}), which is not a target of this call")
        })
}

/// `'name' at file:line:col (`text`)`: a callee and the call, for [`call_push`].
pub fn callee_at(m: &Module, func: FuncId, inst: crate::ir::InstId) -> String {
    let name = m.functions.get(func).map_or("?", |f| f.name.as_str());
    format!("'{name}' at {}", inst_where(m, inst))
}

/// `file:line:col (`text`)` of an instruction.
pub fn inst_where(m: &Module, inst: crate::ir::InstId) -> String {
    match m.inst_info.get(inst) {
        Some(i) => format!("{}:{} (`{}`)", m.file, i.loc, i.text),
        None => m.file.clone(),
    }
}
