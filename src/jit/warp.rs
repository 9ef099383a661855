//! Warp-wide instructions ([`InstKind::Warp`]: `shfl vote match redux activemask elect
//! bar.warp.sync`): the operands of all 32 lanes go to stack slots and one `ptxjit_warp`
//! helper call applies `crate::ops::warp` (the function the interpreter uses) to the
//! whole warp; the value results come back in a slot, the predicate results as lane bits.
//!
//! [`InstKind::Warp`]: crate::ir::InstKind::Warp

use super::helpers::{slot_bytes, Helper};
use super::lanes;
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::ir::{Operand, PredSrc, RegId, Type, WarpOp};
use crate::ops::warp::{WarpIn, WARP};
use cranelift_codegen::ir::InstBuilder;

/// Operand slots (32 lanes × 8 bytes each) and the result slot.
const SLOTS: [i32; 4] = [
    SCRATCH_DATA,
    SCRATCH_DATA + 256,
    SCRATCH_DATA + 512,
    SCRATCH_DATA + 1024,
];
const SLOT_OUT: i32 = SCRATCH_DATA + 768;

impl FnTx<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn warp_op(
        &mut self,
        op: WarpOp,
        ty: Type,
        dst: Option<RegId>,
        pred: Option<RegId>,
        srcs: &[Operand],
        vote_src: Option<PredSrc>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let (stys, dty) = crate::ops::warp::signature(op, ty);
        let mut ptrs = Vec::with_capacity(SLOTS.len());
        for k in 0..SLOTS.len() {
            if let (Some(s), Some(t)) = (srcs.get(k), stys.get(k)) {
                let w = self.read(s, *t, false)?;
                self.spill(&w, SLOTS[k]);
            }
            ptrs.push(self.scratch_addr(SLOTS[k]));
        }
        let pbits = match vote_src {
            Some(p) => {
                let m = self.read_pred(&Operand::Reg(p.reg), p.negate)?;
                lanes::bits_from_mask(&mut self.b, &m)
            }
            None => lanes::iconst32(&mut self.b, 0),
        };
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, crate::ops::warp::encode(op, ty));
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Warp)?;
        let call = self.b.ins().call(
            h,
            &[desc, bits, pbits, ptrs[0], ptrs[1], ptrs[2], ptrs[3], po],
        );
        let preds = self.b.inst_results(call)[0];
        if let (Some(d), Some(t)) = (dst, dty) {
            let r = self.unspill(t.bits() > 32, SLOT_OUT);
            self.write(d, t, r, mask)?;
        }
        if let Some(p) = pred {
            let m = lanes::mask_from_bits(&mut self.b, preds);
            self.write_pred(p, &m, mask)?;
        }
        Ok(())
    }
}

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
    let (stys, dty) = crate::ops::warp::signature(op, ty);
    let ptrs = [a, b, c, d];
    let mut vals = vec![[0u64; WARP]; stys.len()];
    for (k, t) in stys.iter().enumerate().take(ptrs.len()) {
        let wide = slot_bytes(*t) == 8;
        for (l, v) in vals[k].iter_mut().enumerate() {
            // SAFETY: the caller passes slots of 32 lanes of the operand's width.
            *v = unsafe {
                if wide {
                    (ptrs[k] as *const u64).add(l).read_unaligned()
                } else {
                    (ptrs[k] as *const u32).add(l).read_unaligned() as u64
                }
            };
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
        let wide = slot_bytes(t) == 8;
        for l in (0..WARP).filter(|l| mask >> l & 1 != 0) {
            // SAFETY: as above, for the result slot.
            unsafe {
                if wide {
                    (out as *mut u64).add(l).write_unaligned(r.vals[l])
                } else {
                    (out as *mut u32).add(l).write_unaligned(r.vals[l] as u32)
                }
            }
        }
    }
    r.preds
}
