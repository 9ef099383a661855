//! The sanitizer variant's helper: `ptxjit_san_warp` runs
//! `exec::ctx::sanitize_warp_sync` for a warp-synchronous instruction (the interpreter
//! calls the same function).

use crate::exec::ctx::{self, WarpCtx, STATUS_FAULT, WARP_SIZE};
use crate::ir::InstId;

/// Checks the `membermask`s (`members`: 32 × u32) of instruction `inst` executed by
/// lanes `mask`; `sync != 0` for `bar.warp.sync`. Returns 0, or the warp's nonzero status
/// when a finding stops it.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`; `members` must point to
/// 32 u32.
pub unsafe extern "C" fn ptxjit_san_warp(
    ctx: *mut WarpCtx,
    inst: u32,
    mask: u32,
    sync: u32,
    members: *const u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let m = unsafe { &*(members as *const [u32; WARP_SIZE]) };
    match unsafe { ctx::sanitize_warp_sync(ctx, InstId(inst), mask, m, sync != 0) } {
        Ok(()) => 0,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}
