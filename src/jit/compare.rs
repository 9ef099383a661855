//! `set`: a comparison written as all ones / 1.0 / 0 instead of a predicate, and the
//! packed `setp.f16x2` / `setp.bf16x2`.

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
        // Floats get 1.0 in their format (`crate::ops::set_value`).
        let one = match dty {
            Type::F32 => Some(0x3f80_0000),
            Type::F16 => Some(0x3c00),
            Type::BF16 => Some(0x3f80),
            _ => None,
        };
        let v: Vec<Value> = match one {
            Some(one) => {
                let one = lanes::splat32(&mut self.b, one);
                r.iter().map(|&x| self.b.ins().band(x, one)).collect()
            }
            None => r,
        };
        self.write(dst, dty, W::narrow(v), mask)
    }
}

impl FnTx<'_> {
    /// `setp.f16x2 p|q` / `setp.bf16x2 p|q` (`ty`): the halves are compared by the
    /// scalar helper (`crate::ops`), the low halves into `p`, the high halves into `q`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn setp_packed(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        dst_lo: Option<RegId>,
        dst_hi: Option<RegId>,
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let x = self.read(a, Type::B32, false)?;
        let y = self.read(b, Type::B32, false)?;
        let c = match combine {
            Some((op, c)) => Some((op, self.read_pred(&Operand::Reg(c.reg), c.negate)?)),
            None => None,
        };
        let ety = if ty == Type::BF16x2 {
            Type::BF16
        } else {
            Type::F16
        };
        for (half, dst) in [(0, dst_lo), (1, dst_hi)] {
            let Some(dst) = dst else { continue };
            let (xs, ys) = if half == 0 {
                (x.clone(), y.clone())
            } else {
                (
                    lanes::map1(&x, |&v| self.b.ins().ushr_imm_u(v, 16)),
                    lanes::map1(&y, |&v| self.b.ins().ushr_imm_u(v, 16)),
                )
            };
            let mut r = self.compare_helper_vals(cmp, ety, ftz, &xs, &ys, mask)?;
            if let Some((op, cv)) = &c {
                r = r
                    .iter()
                    .zip(cv)
                    .map(|(&t, &p)| match op {
                        BoolOp::And => self.b.ins().band(t, p),
                        BoolOp::Or => self.b.ins().bor(t, p),
                        BoolOp::Xor => self.b.ins().bxor(t, p),
                    })
                    .collect();
            }
            self.write_pred(dst, &r, mask)?;
        }
        Ok(())
    }
}
