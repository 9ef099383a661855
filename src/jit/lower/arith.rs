//! Arithmetic, logic, shifts, `setp` and `selp`.
//!
//! Inline vector code where Cranelift computes the exact PTX result (integer add/sub/
//! mul.lo/mul.hi.32/mul.wide/mad/min/max/abs/neg/logic, shifts by a uniform amount,
//! f32/f64 add/sub/mul/fma/div/min/max/neg/abs with round-to-nearest, `.ftz`, `.sat` and
//! canonical NaN results); everything else (integer division, `mul.hi.u64`, per-lane
//! shift amounts, directed rounding) calls the `ptxjit_arith` helper, which applies the
//! interpreter's scalar semantics to every lane.

use crate::ir::{ArithOp, FloatMode, Operand, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::lanewise;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};

/// Offsets of the helper operand slots in the scratch data area.
pub(crate) const SLOT_A: i32 = SCRATCH_DATA;
pub(crate) const SLOT_B: i32 = SCRATCH_DATA + 256;
pub(crate) const SLOT_C: i32 = SCRATCH_DATA + 512;
pub(crate) const SLOT_OUT: i32 = SCRATCH_DATA + 768;

impl FuncTranslator<'_> {
    pub(crate) fn arith(
        &mut self,
        op: ArithOp,
        ty: Type,
        fm: FloatMode,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        if srcs.len() != op.arity() {
            return Err(JitError::Codegen(format!(
                "{} has {} operands",
                self.cur_text(),
                srcs.len()
            )));
        }
        if ty == Type::Pred {
            return self.pred_logic(op, dst, srcs, mask);
        }
        let inline = if ty.is_float() {
            match ty {
                Type::F32 | Type::F64 => self.float_inline(op, ty, fm, srcs)?,
                _ => None,
            }
        } else {
            self.int_inline(op, ty, srcs, mask)?
        };
        let (v, rty) = match inline {
            Some(r) => r,
            None => self.arith_helper(op, ty, fm, srcs, mask)?,
        };
        self.write(dst, rty, v, mask)
    }

    /// `and/or/xor/not.pred`.
    fn pred_logic(
        &mut self,
        op: ArithOp,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let a = self.read_pred(&srcs[0], false)?;
        let r: Vec<Value> = match op {
            ArithOp::Not => a.iter().map(|&x| self.b.ins().bnot(x)).collect(),
            ArithOp::And | ArithOp::Or | ArithOp::Xor => {
                let c = self.read_pred(&srcs[1], false)?;
                a.iter()
                    .zip(&c)
                    .map(|(&x, &y)| match op {
                        ArithOp::And => self.b.ins().band(x, y),
                        ArithOp::Or => self.b.ins().bor(x, y),
                        _ => self.b.ins().bxor(x, y),
                    })
                    .collect()
            }
            _ => return Err(self.unsupported(format!("{} on predicates", self.cur_text()))),
        };
        self.write_pred(dst, &r, mask)
    }

    /// PTX `min`/`max` of one vector part (int bits in, int bits out).
    pub(crate) fn minmax(
        &mut self,
        is_max: bool,
        fty: cranelift_codegen::ir::Type,
        a: Value,
        c: Value,
        canon: Value,
    ) -> Value {
        let fa = lanes::bitcast(&mut self.b, fty, a);
        let fc = lanes::bitcast(&mut self.b, fty, c);
        let wins = self.b.ins().fcmp(
            if is_max {
                FloatCC::GreaterThan
            } else {
                FloatCC::LessThan
            },
            fa,
            fc,
        );
        let r = self.b.ins().bitselect(wins, a, c);
        let eq = self.b.ins().fcmp(FloatCC::Equal, fa, fc);
        let tie = if is_max {
            self.b.ins().band(a, c)
        } else {
            self.b.ins().bor(a, c)
        };
        let r = self.b.ins().bitselect(eq, tie, r);
        let an = self.b.ins().fcmp(FloatCC::Unordered, fa, fa);
        let cn = self.b.ins().fcmp(FloatCC::Unordered, fc, fc);
        let r = self.b.ins().bitselect(cn, a, r);
        let r = self.b.ins().bitselect(an, c, r);
        let both = self.b.ins().band(an, cn);
        self.b.ins().bitselect(both, canon, r)
    }

    /// Applies the operation lane by lane in the `ptxjit_arith` helper.
    pub(crate) fn arith_helper(
        &mut self,
        op: ArithOp,
        ty: Type,
        fm: FloatMode,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(WarpValue, Type), JitError> {
        if !lanewise::scalar_arith_supported(op, ty) {
            return Err(self.unsupported(self.cur_text()));
        }
        let (ta, tb, tc, to) = (
            op.src_type(ty, 0),
            op.src_type(ty, 1),
            op.src_type(ty, 2),
            op.dst_type(ty),
        );
        let a = self.read(&srcs[0], ta, false)?;
        self.spill(&a, SLOT_A);
        if srcs.len() >= 2 {
            let b = self.read(&srcs[1], tb, false)?;
            self.spill(&b, SLOT_B);
        }
        if srcs.len() >= 3 {
            let c = self.read(&srcs[2], tc, false)?;
            self.spill(&c, SLOT_C);
        }
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, lanewise::arith_desc(op, ty, fm));
        let pa = self.scratch_addr(SLOT_A);
        let pb = self.scratch_addr(SLOT_B);
        let pc = self.scratch_addr(SLOT_C);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Arith)?;
        self.b.ins().call(h, &[desc, bits, pa, pb, pc, po]);
        Ok((self.unspill(to.bits() > 32, SLOT_OUT), to))
    }
}
