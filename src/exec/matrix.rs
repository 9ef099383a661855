//! The runtime side of the warp-level matrix instructions ([`InstKind::Matrix`]:
//! `ldmatrix`, `mma.sync`, `movmatrix`), shared by both backends: the whole-warp
//! requirement, `ldmatrix`'s row loads through the checked access path, then
//! `crate::ops::matrix` for the data.
//!
//! [`InstKind::Matrix`]: crate::ir::InstKind::Matrix

use crate::exec::ctx::{self, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{InstId, MatrixOp, Space};
use crate::ops::matrix as matrix_ops;

/// Runs a matrix instruction for the warp. `mask` is the lanes that run it (active and
/// guard true); `addrs` are `ldmatrix`'s lane addresses in `space`; `srcs` the source
/// registers of all 32 lanes. Returns the destination registers of all 32 lanes (none
/// when no lane runs it).
///
/// These instructions are `.sync.aligned`: the ISA leaves them undefined unless every
/// thread of the warp runs them, and each lane's result depends on the others' operands,
/// so a warp where some lane does not run it (exited, inactive, guarded off, or past the
/// CTA's thread count) stops with an error naming the instruction and the first such
/// lane. A generic `ldmatrix` address outside the CTA's shared window is an error too.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: MatrixOp,
    mask: u32,
    inst: InstId,
    space: Space,
    addrs: &[u64; WARP_SIZE],
    srcs: &[[u32; WARP_SIZE]],
) -> Result<Vec<[u32; WARP_SIZE]>, Stopped> {
    if mask == 0 {
        return Ok(Vec::new());
    }
    if mask != u32::MAX {
        let lane = (!mask).trailing_zeros();
        let msg = format!(
            "warp-level matrix instruction run by lanes {mask:#010x} of warp {}: `.sync.aligned` needs all 32 lanes of the warp (lane {lane} does not run it)",
            ctx.warpid
        );
        // SAFETY: the caller's contract.
        unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane) };
        return Err(Stopped);
    }
    let mut rows = [[0u16; 8]; WARP_SIZE];
    if let MatrixOp::Ldmatrix { num, .. } = op {
        let lanes = matrix_ops::ldmatrix_row_lanes(num);
        if space == Space::Generic {
            for l in (0..WARP_SIZE).filter(|l| lanes >> l & 1 != 0) {
                let a = addrs[l];
                let off = a.wrapping_sub(ctx.shared_base);
                if off >= ctx.shared_size || ctx.shared_size - off < 16 {
                    let msg = format!(
                        "ldmatrix: generic address {a:#x} of lane {l} is not in the CTA's shared memory"
                    );
                    // SAFETY: the caller's contract.
                    unsafe { ctx::stop_with_error_at(ctx, msg, inst, l as u32) };
                    return Err(Stopped);
                }
            }
        }
        let req = AccessReq {
            space,
            elem_bytes: 2,
            nvec: 8,
            slot_bytes: 4,
            write: false,
            mask: lanes,
            inst,
        };
        let mut data = [0u32; 8 * WARP_SIZE];
        // SAFETY: `data` holds 8 * 32 slots of 4 bytes; the caller's contract for env.
        unsafe { ctx::access(ctx, &req, addrs, data.as_mut_ptr() as *mut u8)? };
        for (l, row) in rows.iter_mut().enumerate() {
            for (e, x) in row.iter_mut().enumerate() {
                *x = data[e * WARP_SIZE + l] as u16;
            }
        }
    }
    Ok(matrix_ops::eval(op, srcs, &rows))
}
