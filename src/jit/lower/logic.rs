//! The logic and shift family: `and/or/xor/not` on predicates (lane masks), `shl`/`shr`
//! with PTX clamping, per-lane amounts in vectors for 32-bit values, and the funnel
//! shift `shf` in vectors (the bitwise integer forms are inline in `int.rs`'s dispatch;
//! `lop3 cnot` go through the `ptxjit_bits` helper).

use crate::ir::{ArithOp, FloatMode, Operand, RegId, Type};
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I32X4, I64};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

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
    /// use a scalar shift when uniform over the warp, and otherwise lane-wise vector code
    /// for 32-bit values ([`Self::shift_lanes32`]) or the helper.
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
        let h = match (w, a.wide) {
            (32, false) => self.shift_lanes32(op, signed, &a, &sv),
            _ => {
                self.arith_helper(op, ty, FloatMode::default(), srcs, mask)?
                    .0
            }
        };
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

    /// `shl`/`shr` of 32-bit values by per-lane amounts `n` (clamped at 32 as PTX does),
    /// in vectors: a left shift multiplies by 2^n, an unsigned right shift takes the high
    /// half of the product with 2^(32-n) (n = 0 keeps the value), a signed one shifts
    /// the value XOR its sign's spread and XORs it back. The powers of two come from
    /// the f32 whose exponent field is n + 127, converted to an integer (2^31, past the
    /// signed range, selected as its bits).
    pub(super) fn shift_lanes32(
        &mut self,
        op: ArithOp,
        signed: bool,
        a: &WarpValue,
        n: &WarpValue,
    ) -> WarpValue {
        // About 25 CLIF instructions per vector: the quick tier loops over the vectors.
        if self.quick {
            return self.vector_loop(&[a, n], |t, xs| t.shift_vector32(op, signed, xs[0], xs[1]));
        }
        let v = (a.v.iter().zip(&n.v))
            .map(|(&x, &amount)| self.shift_vector32(op, signed, x, amount))
            .collect();
        WarpValue::narrow(v)
    }

    /// [`Self::shift_lanes32`] of one vector: `x` shifted by the lanes of `amount`.
    fn shift_vector32(&mut self, op: ArithOp, signed: bool, x: Value, amount: Value) -> Value {
        let b = &mut self.b;
        let c31 = lanes::splat32(b, 31);
        let c32 = lanes::splat32(b, 32);
        let bias = lanes::splat32(b, 127);
        let two31 = lanes::splat32(b, 0x8000_0000);
        let zero = lanes::splat32(b, 0);
        let sh23 = lanes::iconst32(b, 23);
        let sh31 = lanes::iconst32(b, 31);
        // 2^e for e in 0..=31, lane-wise.
        let pow2 = |b: &mut FunctionBuilder, e: Value| {
            let bits = b.ins().iadd(e, bias);
            let bits = b.ins().ishl(bits, sh23);
            let f = lanes::bitcast(b, F32X4, bits);
            let v = b.ins().fcvt_to_sint_sat(I32X4, f);
            let is31 = b.ins().icmp(IntCC::Equal, e, c31);
            b.ins().bitselect(is31, two31, v)
        };
        let big = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, amount, c32);
        let k = b.ins().umin(amount, c31);
        match op {
            ArithOp::Shl => {
                let p = pow2(b, k);
                let r = b.ins().imul(x, p);
                b.ins().bitselect(big, zero, r)
            }
            _ => {
                // Signed: shift `x ^ s` (s = all ones when x < 0) logically, then
                // `^ s` again; amounts past 31 shift by 31 (all sign bits).
                let s = match signed {
                    true => b.ins().sshr(x, sh31),
                    false => zero,
                };
                let t = b.ins().bxor(x, s);
                let m = {
                    let e = b.ins().isub(c32, k);
                    let e = b.ins().umin(e, c31);
                    pow2(b, e)
                };
                let [tl, th] = [b.ins().uwiden_low(t), b.ins().uwiden_high(t)];
                let [ml, mh] = [b.ins().uwiden_low(m), b.ins().uwiden_high(m)];
                let pl = b.ins().imul(tl, ml);
                let ph = b.ins().imul(th, mh);
                let hi = lanes::half_pair(b, pl, ph, true);
                let k0 = b.ins().icmp(IntCC::Equal, k, zero);
                let u = b.ins().bitselect(k0, t, hi);
                let u = match signed {
                    true => u,
                    false => b.ins().bitselect(big, zero, u),
                };
                b.ins().bxor(u, s)
            }
        }
    }

    /// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c` (`crate::ops::int::shf`): the 64-bit
    /// `{b, a}` shifted by `n` (`c & 31` with `.wrap`, `min(c, 32)` with `.clamp`),
    /// its high word (left) or low word (right): `b << n | a >> (32 - n)` or
    /// `a >> n | b << (32 - n)`, each shift giving 0 at 32. An immediate `c` shifts by
    /// constants; a register's per-lane amounts use [`Self::shift_lanes32`] in the
    /// optimized tier (`None` in the quick tier, which compiles less: the helper).
    pub(super) fn shf(
        &mut self,
        left: bool,
        clamp: bool,
        srcs: &[Operand],
    ) -> Result<Option<WarpValue>, JitError> {
        let konst = self.const_operand(&srcs[2]);
        if konst.is_none() && self.quick {
            return Ok(None);
        }
        let a = self.read(&srcs[0], Type::B32, false)?;
        let b = self.read(&srcs[1], Type::B32, false)?;
        // (hi, lo): the word shifted toward the result's side, and the other.
        let (hi, lo) = if left { (&b, &a) } else { (&a, &b) };
        let (up, down) = match left {
            true => (ArithOp::Shl, ArithOp::Shr),
            false => (ArithOp::Shr, ArithOp::Shl),
        };
        if let Some(c) = konst {
            let n = match clamp {
                true => (c as u32).min(32),
                false => c as u32 & 31,
            };
            return Ok(Some(match n {
                0 => hi.clone(),
                32 => lo.clone(),
                _ => {
                    let (sn, sr) = (
                        lanes::iconst32(&mut self.b, n),
                        lanes::iconst32(&mut self.b, 32 - n),
                    );
                    let x = self.shift_by(up, false, hi, sn);
                    let y = self.shift_by(down, false, lo, sr);
                    let bd = &mut self.b;
                    lanes::map2(&x, &y, |p, q| bd.ins().bor(p, q))
                }
            }));
        }
        let c = self.read(&srcs[2], Type::U32, false)?;
        let bd = &mut self.b;
        let lim = lanes::splat32(bd, if clamp { 32 } else { 31 });
        let c32 = lanes::splat32(bd, 32);
        let n = lanes::map1(&c, |&x| match clamp {
            true => bd.ins().umin(x, lim),
            false => bd.ins().band(x, lim),
        });
        let rest = lanes::map1(&n, |&x| bd.ins().isub(c32, x));
        let x = self.shift_lanes32(up, false, hi, &n);
        let y = self.shift_lanes32(down, false, lo, &rest);
        let bd = &mut self.b;
        Ok(Some(lanes::map2(&x, &y, |p, q| bd.ins().bor(p, q))))
    }
}
