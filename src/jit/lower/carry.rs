//! The extended-precision family: inline vector code for the carry chain
//! ([`InstKind::Carry`]), bit-identical to `crate::ops::carry`.
//!
//! The carry flag lives in a predicate register (lane masks); 64-bit forms widen it to
//! i64x2 masks and narrow the carry out back. Every form is one addition with carry:
//! `a + b + C`, `(a * b).lo/hi + c + C`, and `a - b` as `a + ~b + C` with `C = 1` for
//! `sub.cc` (the flag then means "no borrow", as `crate::ops::carry` explains). Carries
//! come from unsigned compares: `x + y` carries iff the sum is below `x`, and adding the
//! carry-in once more carries iff that wraps to 0. `mad.cc` adds to the
//! `mul.lo`/`mul.hi` product of the arithmetic lowering (inline, or its helper for
//! `mul.hi` of 64-bit types).
//!
//! [`InstKind::Carry`]: crate::ir::InstKind::Carry

use crate::ir::{ArithOp, CarryOp, FloatMode, MulMode, Operand, RegId, Type};
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn carry(
        &mut self,
        op: CarryOp,
        ty: Type,
        dst: RegId,
        srcs: &[Operand],
        cc_in: Option<RegId>,
        cc_out: Option<RegId>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let n = if matches!(op, CarryOp::Add | CarryOp::Sub) {
            2
        } else {
            3
        };
        if srcs.len() != n {
            return Err(JitError::Codegen(format!(
                "{} has {} operands",
                self.cur_text(),
                srcs.len()
            )));
        }
        let (x, y) = match op {
            CarryOp::Add | CarryOp::Sub => (
                self.read(&srcs[0], ty, false)?,
                self.read(&srcs[1], ty, false)?,
            ),
            CarryOp::MadLo | CarryOp::MadHi => {
                let mode = if op == CarryOp::MadHi {
                    MulMode::Hi
                } else {
                    MulMode::Lo
                };
                let p = self.product(mode, ty, &srcs[..2], mask)?;
                (p, self.read(&srcs[2], ty, false)?)
            }
        };
        let wide = x.wide;
        let sub = op == CarryOp::Sub;
        // The carry-in as all-ones / zero lane masks of the operands' width: the flag,
        // or for sub.cc a constant 1 (no borrow).
        let cin = match cc_in {
            Some(r) => {
                let m = self.pred_vals(r, false);
                Some(if wide {
                    lanes::mask64(&mut self.b, &m)
                } else {
                    m
                })
            }
            None if sub => Some(vec![
                lanes::splat_w(&mut self.b, wide, u64::MAX).v[0];
                x.v.len()
            ]),
            None => None,
        };
        let mut d = Vec::with_capacity(x.v.len());
        let mut cout = Vec::with_capacity(x.v.len());
        for k in 0..x.v.len() {
            let b = &mut self.b;
            let a = x.v[k];
            let c = if sub { b.ins().bnot(y.v[k]) } else { y.v[k] };
            let s = b.ins().iadd(a, c);
            let c1 = b.ins().icmp(IntCC::UnsignedLessThan, s, a);
            let (r, f) = match &cin {
                // Subtracting the all-ones carry mask adds 1.
                Some(m) => {
                    let r = b.ins().isub(s, m[k]);
                    let c2 = b.ins().icmp(IntCC::UnsignedLessThan, r, s);
                    (r, b.ins().bor(c1, c2))
                }
                None => (s, c1),
            };
            d.push(r);
            cout.push(f);
        }
        if let Some(r) = cc_out {
            let m = if wide {
                lanes::narrow_mask(&mut self.b, &cout)
            } else {
                cout
            };
            self.write_pred(r, &m, mask)?;
        }
        self.write(dst, ty, WarpValue { wide, v: d }, mask)
    }

    /// `mul.lo`/`mul.hi` of `srcs[0..2]` as the arithmetic lowering computes it.
    fn product(
        &mut self,
        mode: MulMode,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<WarpValue, JitError> {
        let op = ArithOp::Mul(mode);
        if let Some((w, _)) = self.int_inline(op, ty, srcs, mask)? {
            return Ok(w);
        }
        Ok(self
            .arith_helper(op, ty, FloatMode::default(), srcs, mask)?
            .0)
    }
}
