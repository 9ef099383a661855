//! `set`: a comparison written as 0xffffffff / 1.0f / 0 instead of a predicate.

use super::lanes::{self, W};
use super::translate::{FnTx, Mask};
use super::JitError;
use crate::ir::{BoolOp, CmpOp, Operand, PredSrc, RegId, Type};
use cranelift_codegen::ir::{InstBuilder, Value};

impl FnTx<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn set(
        &mut self,
        cmp: CmpOp,
        dty: Type,
        ty: Type,
        ftz: bool,
        dst: RegId,
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let mut r = self.compare_masks(cmp, ty, ftz, a, b, mask)?;
        if let Some((op, c)) = combine {
            let c = self.read_pred(&Operand::Reg(c.reg), c.negate)?;
            r = r
                .iter()
                .zip(&c)
                .map(|(&x, &y)| match op {
                    BoolOp::And => self.b.ins().band(x, y),
                    BoolOp::Or => self.b.ins().bor(x, y),
                    BoolOp::Xor => self.b.ins().bxor(x, y),
                })
                .collect();
        }
        // The masks are all ones / all zeros per lane: 0xffffffff / 0 as they are.
        let v: Vec<Value> = if dty == Type::F32 {
            let one = lanes::splat32(&mut self.b, 0x3f80_0000);
            r.iter().map(|&x| self.b.ins().band(x, one)).collect()
        } else {
            r
        };
        self.write(dst, dty, W::narrow(v), mask)
    }
}
