//! Bit-manipulation and packed-integer instructions ([`InstKind::Bits`]) and the special
//! functions ([`InstKind::Sfu`]): the operands
//! go to stack slots and one `ptxjit_bits` helper call applies `crate::ops::bits` to the
//! active lanes (the same function the interpreter uses).
//!
//! [`InstKind::Bits`]: crate::ir::InstKind::Bits
//! [`InstKind::Sfu`]: crate::ir::InstKind::Sfu

use super::helpers::Helper;
use super::lanes;
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::ir::{BitOp, Operand, RegId, Rnd, SfuOp, Type};
use cranelift_codegen::ir::InstBuilder;

/// Operand slots (the arithmetic helpers use the first three and `SLOT_OUT`).
const SLOTS: [i32; 4] = [
    SCRATCH_DATA,
    SCRATCH_DATA + 256,
    SCRATCH_DATA + 512,
    SCRATCH_DATA + 1024,
];
const SLOT_OUT: i32 = SCRATCH_DATA + 768;

impl FnTx<'_> {
    pub(crate) fn bits(
        &mut self,
        op: BitOp,
        ty: Type,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let (stys, dty) = crate::ops::bits::signature(op, ty);
        for (k, (s, t)) in srcs.iter().zip(&stys).enumerate().take(SLOTS.len()) {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SLOTS[k]);
        }
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, crate::ops::bits::encode(op, ty));
        let p: Vec<_> = SLOTS.iter().map(|&o| self.scratch_addr(o)).collect();
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Bits)?;
        self.b
            .ins()
            .call(h, &[desc, bits, p[0], p[1], p[2], p[3], po]);
        let r = self.unspill(dty.bits() > 32, SLOT_OUT);
        self.write(dst, dty, r, mask)
    }

    /// `sqrt rcp rsqrt sin cos lg2 ex2 tanh` through the `ptxjit_sfu` helper (one call
    /// per warp instruction, `crate::ops::special` per lane).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sfu(
        &mut self,
        op: SfuOp,
        ty: Type,
        approx: bool,
        rnd: Option<Rnd>,
        ftz: bool,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let w = self.read(src, ty, false)?;
        self.spill(&w, SLOTS[0]);
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(
            &mut self.b,
            crate::ops::special::sfu_encode(op, ty, approx, rnd, ftz),
        );
        let pa = self.scratch_addr(SLOTS[0]);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Sfu)?;
        self.b.ins().call(h, &[desc, bits, pa, po]);
        let r = self.unspill(ty.bits() > 32, SLOT_OUT);
        self.write(dst, ty, r, mask)
    }
}
