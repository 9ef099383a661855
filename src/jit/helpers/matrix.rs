//! The warp-level matrix helper (`ptxjit_matrix`) over `crate::exec::matrix::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{InstId, Space};

/// Runs a matrix instruction for the lanes in `mask` (see
/// `crate::exec::matrix::exec`): `generic` selects the generic state space for
/// `ldmatrix` (else `.shared`), `addrs` holds 32 u64 lane addresses, `data` the source
/// registers (32 u32 lanes each, in order), where the result registers are written.
/// Returns 0, or the warp's nonzero status after an error.
///
/// # Safety
/// `ctx` must be the running warp's context; `addrs` and `data` valid as described, with
/// room for `max(sources, results)` registers in `data`.
pub unsafe extern "C" fn ptxjit_matrix(
    ctx: *mut WarpCtx,
    desc: u64,
    mask: u32,
    inst: u32,
    generic: u32,
    addrs: *const u64,
    data: *mut u32,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some((op, sig)) =
        crate::ops::matrix::decode_op(desc).and_then(|op| Some((op, op.signature()?)))
    else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let mut srcs = vec![[0u32; WARP_SIZE]; sig.srcs.len()];
    for (k, s) in srcs.iter_mut().enumerate() {
        for (l, v) in s.iter_mut().enumerate() {
            // SAFETY: `data` holds the source registers (caller's contract).
            *v = unsafe { data.add(k * WARP_SIZE + l).read_unaligned() };
        }
    }
    // SAFETY: 32 lane addresses (caller's contract).
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    let space = if generic != 0 {
        Space::Generic
    } else {
        Space::Shared
    };
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe {
        crate::exec::matrix::exec(ctx, op, mask, InstId(inst), space, addrs, &srcs)
    } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    for (k, r) in out.iter().enumerate() {
        for (l, v) in r.iter().enumerate() {
            // SAFETY: room for the result registers (caller's contract).
            unsafe { data.add(k * WARP_SIZE + l).write_unaligned(*v) };
        }
    }
    STATUS_OK
}
