//! The texture/surface helper (`ptxjit_texture`) over `crate::exec::texture::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{InstId, Type};

/// The data-area offsets of operands of types `tys` (4 bytes per lane for 32-bit and
/// narrower types, 8 for 64-bit), one after the other from 0; and the total size.
pub(crate) fn layout(tys: &[Type]) -> (Vec<i32>, i32) {
    let mut offs = Vec::with_capacity(tys.len());
    let mut off = 0;
    for t in tys {
        offs.push(off);
        off += if t.bits() == 64 { 8 } else { 4 } * WARP_SIZE as i32;
    }
    (offs, off)
}

/// Runs texture instruction `op` (a `TexOp` encoded by `crate::jit::lower::texture::encode`) for the lanes in `mask`: `data` holds
/// the sources as [`layout`] places them; the results are written from its start in the
/// same way. Returns 0, or the warp's nonzero status after an error.
///
/// # Safety
/// `ctx` must be the running warp's context; `data`
/// valid as described.
pub unsafe extern "C" fn ptxjit_texture(
    ctx: *mut WarpCtx,
    op: u64,
    mask: u32,
    inst: u32,
    data: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some(op) = crate::jit::lower::texture::decode(op) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let sig = op.signature();
    let (offs, _) = layout(&sig.srcs);
    let mut srcs = vec![[0u64; WARP_SIZE]; sig.srcs.len()];
    for ((s, t), off) in srcs.iter_mut().zip(&sig.srcs).zip(&offs) {
        for (l, v) in s.iter_mut().enumerate() {
            // SAFETY: `data` holds the sources (caller's contract).
            *v = unsafe {
                let p = data.add(*off as usize);
                if t.bits() == 64 {
                    (p.add(8 * l) as *const u64).read_unaligned()
                } else {
                    (p.add(4 * l) as *const u32).read_unaligned() as u64
                }
            };
        }
    }
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe { crate::exec::texture::exec(ctx, op, mask, InstId(inst), &srcs) } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    let (offs, _) = layout(&sig.dsts);
    for ((r, t), off) in out.iter().zip(&sig.dsts).zip(&offs) {
        for (l, v) in r.iter().enumerate() {
            // SAFETY: room for the results (caller's contract).
            unsafe {
                let p = data.add(*off as usize);
                if t.bits() == 64 {
                    (p.add(8 * l) as *mut u64).write_unaligned(*v)
                } else {
                    (p.add(4 * l) as *mut u32).write_unaligned(*v as u32)
                }
            };
        }
    }
    STATUS_OK
}
