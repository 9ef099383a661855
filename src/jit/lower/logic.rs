//! The logic and shift family: `and/or/xor/not` on predicates (lane masks), and
//! `shl`/`shr` with PTX clamping (the bitwise integer forms are inline in
//! `int.rs`'s dispatch; `lop3 shf cnot` go through the `ptxjit_bits` helper).

use crate::ir::{ArithOp, FloatMode, Operand, RegId, Type};
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32X4, I64};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};

impl FuncTranslator<'_> {
    /// `and/or/xor/not.pred`.
    pub(crate) fn pred_logic(
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
            _ => return Err(self.internal(format!("{} on predicates", self.cur_text()))),
        };
        self.write_pred(dst, &r, mask)
    }

    /// `shl` / `shr` with PTX clamping. Immediate amounts are static; register amounts
    /// use a scalar shift when uniform over the warp and the helper otherwise.
    pub(crate) fn shift(
        &mut self,
        op: ArithOp,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<Option<WarpValue>, JitError> {
        let w = ty.bits();
        let signed = ty.is_signed() && op == ArithOp::Shr;
        let a = self.read(&srcs[0], ty, op == ArithOp::Shr)?;
        let cw: u32 = if a.wide { 64 } else { 32 };
        if let Operand::Imm(s) = srcs[1] {
            let s = s as u32;
            if s >= w && !signed {
                return Ok(Some(lanes::splat_w(&mut self.b, a.wide, 0)));
            }
            let amt = lanes::iconst32(&mut self.b, s.min(cw - 1));
            return Ok(Some(self.shift_by(op, signed, &a, amt)));
        }
        // Uniform amount?
        let sv = self.read(&srcs[1], Type::U32, false)?;
        let s0 = self.b.ins().extractlane(sv.v[0], 0);
        let sp = self.b.ins().splat(I32X4, s0);
        let eqs: Vec<Value> =
            sv.v.iter()
                .map(|&x| self.b.ins().icmp(IntCC::Equal, x, sp))
                .collect();
        let all = lanes::and_reduce(&mut self.b, &eqs);
        let uni = self.b.ins().vall_true(all);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let vty = a.vty();
        for _ in 0..a.v.len() {
            self.b.append_block_param(join, vty);
        }
        self.b.ins().brif(uni, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let cm1 = lanes::iconst32(&mut self.b, cw - 1);
        let amt = self.b.ins().umin(s0, cm1);
        let mut r = self.shift_by(op, signed, &a, amt);
        if !signed {
            let big = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, s0, w as i64);
            let z = lanes::splat_w(&mut self.b, a.wide, 0);
            let b = &mut self.b;
            r = lanes::map2(&r, &z, |x, zz| b.ins().select(big, zz, x));
        }
        let args: Vec<BlockArg> = r.v.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(slow);
        let (h, _) = self.arith_helper(op, ty, FloatMode::default(), srcs, mask)?;
        let args: Vec<BlockArg> = h.v.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        let v = self.b.block_params(join).to_vec();
        Ok(Some(WarpValue { wide: a.wide, v }))
    }

    pub(crate) fn shift_by(
        &mut self,
        op: ArithOp,
        signed: bool,
        a: &WarpValue,
        amt: Value,
    ) -> WarpValue {
        let amt = if a.wide {
            self.b.ins().uextend(I64, amt)
        } else {
            amt
        };
        let b = &mut self.b;
        lanes::map1(a, |&x| match (op, signed) {
            (ArithOp::Shl, _) => b.ins().ishl(x, amt),
            (_, true) => b.ins().sshr(x, amt),
            _ => b.ins().ushr(x, amt),
        })
    }
}
