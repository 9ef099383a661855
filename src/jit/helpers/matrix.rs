//! The warp-level matrix helper (`ptxjit_matrix`) over `crate::exec::matrix::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{InstId, Space, Type};

/// Byte offsets in the data area of registers of types `tys`, in order: 4 bytes per lane
/// for 32-bit (and narrower) registers, 8 for 64-bit ones, lane-major within a register.
pub fn reg_offsets(tys: impl Iterator<Item = Type>) -> Vec<usize> {
    let mut off = 0;
    tys.map(|t| {
        let o = off;
        off += WARP_SIZE * if t.bits() == 64 { 8 } else { 4 };
        o
    })
    .collect()
}

/// The state space of a helper call's `space` code (0 shared, 1 generic, 2 global).
pub fn space_of(code: u32) -> Space {
    match code {
        1 => Space::Generic,
        2 => Space::Global,
        _ => Space::Shared,
    }
}

/// Runs a matrix instruction for the lanes in `mask` (see
/// `crate::exec::matrix::exec`): `space` is the state space code of the addresses
/// ([`space_of`]), `addrs` holds 32 u64 lane addresses, `data` the source registers
/// laid out by [`reg_offsets`], where the result registers are written (laid out the
/// same way). Returns 0, or the warp's nonzero status after an error.
///
/// # Safety
/// `ctx` must be the running warp's context; `addrs` and `data` valid as described, with
/// room for the larger of the sources and the results in `data`.
pub unsafe extern "C" fn ptxjit_matrix(
    ctx: *mut WarpCtx,
    desc: u64,
    mask: u32,
    inst: u32,
    space: u32,
    addrs: *const u64,
    data: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some((op, sig)) =
        crate::ops::matrix::decode_op(desc).and_then(|op| Some((op, op.signature()?)))
    else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let offs = reg_offsets(sig.srcs.iter().copied());
    let mut srcs = vec![[0u64; WARP_SIZE]; sig.srcs.len()];
    for ((s, t), off) in srcs.iter_mut().zip(&sig.srcs).zip(offs) {
        for (l, v) in s.iter_mut().enumerate() {
            // SAFETY: `data` holds the source registers (caller's contract).
            *v = unsafe {
                if t.bits() == 64 {
                    (data.add(off + 8 * l) as *const u64).read_unaligned()
                } else {
                    (data.add(off + 4 * l) as *const u32).read_unaligned() as u64
                }
            };
        }
    }
    // SAFETY: 32 lane addresses (caller's contract).
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe {
        crate::exec::matrix::exec(ctx, op, mask, InstId(inst), space_of(space), addrs, &srcs)
    } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    let offs = reg_offsets(std::iter::repeat_n(sig.dtype, out.len()));
    for (r, off) in out.iter().zip(offs) {
        for (l, &v) in r.iter().enumerate() {
            // SAFETY: room for the result registers (caller's contract).
            unsafe {
                if sig.dtype.bits() == 64 {
                    (data.add(off + 8 * l) as *mut u64).write_unaligned(v)
                } else {
                    (data.add(off + 4 * l) as *mut u32).write_unaligned(v as u32)
                }
            };
        }
    }
    STATUS_OK
}
