//! The warp-wide helper (`ptxjit_warp`): `shfl`, `vote`, `match`, `redux`, ... over `crate::ops::warp`.

use crate::jit::helpers::{rd, slot_bytes, wr};
use crate::ops::warp::{WarpIn, WARP};

/// Applies a warp operation to the lanes in `mask`: `a..d` are the operand slots (as the
/// operation's signature gives their types), `out` the value slot; returns the predicate
/// results as lane bits.
///
/// # Safety
/// The pointers must be valid slots of 32 lanes for the operand and result types.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ptxjit_warp(
    desc: u64,
    mask: u32,
    pred: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    d: *const u8,
    out: *mut u8,
) -> u32 {
    let Some((op, ty)) = crate::ops::warp::decode(desc) else {
        return 0;
    };
    let (stys, dty) = op.signature(ty);
    let ptrs = [a, b, c, d];
    let mut vals = [[0u64; WARP]; 4];
    for (k, t) in stys.iter().enumerate().take(ptrs.len()) {
        for (l, v) in vals[k].iter_mut().enumerate() {
            // SAFETY: the caller passes slots of 32 lanes of the operand's width.
            *v = unsafe { rd(ptrs[k], l, slot_bytes(*t), 64) };
        }
    }
    let r = crate::ops::warp::eval(
        op,
        ty,
        &WarpIn {
            mask,
            srcs: &vals,
            pred,
        },
    );
    if let Some(t) = dty {
        for l in (0..WARP).filter(|l| mask >> l & 1 != 0) {
            // SAFETY: as above, for the result slot.
            unsafe { wr(out, l, slot_bytes(t), r.vals[l]) };
        }
    }
    r.preds
}
