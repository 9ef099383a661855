//! Integer arithmetic as inline vector code: add/sub, `mul.lo`, `mul.hi`, `mul.wide`,
//! `mad`, shifts by a uniform amount (the rest of [`InstKind::Arith`] on integers goes
//! through the `ptxjit_arith` helper, see `arith`).
//!
//! [`InstKind::Arith`]: crate::ir::InstKind::Arith

use crate::ir::{ArithOp, FloatMode, MulMode, Operand, Type};
use crate::jit::translate::lanes::{WarpValue, N32};
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32X4, I64};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};

/// `log2(b)` when `b` is an immediate positive power of two of type `ty`.
fn pow2_imm(b: &Operand, ty: Type) -> Option<u32> {
    let Operand::Imm(x) = *b else { return None };
    let w = ty.bits().min(64);
    let x = if w == 64 { x } else { x & ((1 << w) - 1) };
    let limit = if ty.is_signed() { w - 1 } else { w };
    (x.is_power_of_two() && x.trailing_zeros() < limit).then(|| x.trailing_zeros())
}

impl FuncTranslator<'_> {
    /// Integer and bit-type operations that vectors do exactly; `None` otherwise.
    pub(crate) fn int_inline(
        &mut self,
        op: ArithOp,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<Option<(WarpValue, Type)>, JitError> {
        let w = ty.bits();
        if !(ty.is_int() || ty.is_bits()) || w > 64 {
            return Ok(None);
        }
        let signed = ty.is_signed();
        let r = match op {
            ArithOp::Mul(MulMode::Lo) => self.mul_lo(ty, srcs)?,
            ArithOp::Add | ArithOp::Sub | ArithOp::And | ArithOp::Or | ArithOp::Xor => {
                let a = self.read(&srcs[0], ty, false)?;
                let c = self.read(&srcs[1], ty, false)?;
                let b = &mut self.b;
                lanes::map2(&a, &c, |x, y| match op {
                    ArithOp::Add => b.ins().iadd(x, y),
                    ArithOp::Sub => b.ins().isub(x, y),
                    ArithOp::And => b.ins().band(x, y),
                    ArithOp::Or => b.ins().bor(x, y),
                    ArithOp::Xor => b.ins().bxor(x, y),
                    _ => b.ins().imul(x, y),
                })
            }
            ArithOp::Not | ArithOp::Neg => {
                let a = self.read(&srcs[0], ty, false)?;
                let b = &mut self.b;
                lanes::map1(&a, |&x| {
                    if op == ArithOp::Not {
                        b.ins().bnot(x)
                    } else {
                        b.ins().ineg(x)
                    }
                })
            }
            ArithOp::Abs => {
                let a = self.read(&srcs[0], ty, signed)?;
                if signed {
                    let b = &mut self.b;
                    lanes::map1(&a, |&x| b.ins().iabs(x))
                } else {
                    a
                }
            }
            ArithOp::Min | ArithOp::Max => {
                let a = self.read(&srcs[0], ty, true)?;
                let c = self.read(&srcs[1], ty, true)?;
                let b = &mut self.b;
                lanes::map2(&a, &c, |x, y| match (op, signed) {
                    (ArithOp::Min, true) => b.ins().smin(x, y),
                    (ArithOp::Min, false) => b.ins().umin(x, y),
                    (_, true) => b.ins().smax(x, y),
                    (_, false) => b.ins().umax(x, y),
                })
            }
            ArithOp::Mul(mode @ (MulMode::Hi | MulMode::Wide))
            | ArithOp::Mad(mode @ (MulMode::Hi | MulMode::Wide)) => {
                let Some((p, pty)) = self.mul_hi_wide(mode, ty, srcs)? else {
                    return Ok(None);
                };
                if let ArithOp::Mad(_) = op {
                    let c = self.read(&srcs[2], pty, false)?;
                    let b = &mut self.b;
                    return Ok(Some((lanes::map2(&p, &c, |x, y| b.ins().iadd(x, y)), pty)));
                }
                return Ok(Some((p, pty)));
            }
            ArithOp::Mad(MulMode::Lo) => {
                let p = self.mul_lo(ty, srcs)?;
                let d = self.read(&srcs[2], ty, false)?;
                let b = &mut self.b;
                lanes::map2(&p, &d, |x, y| b.ins().iadd(x, y))
            }
            ArithOp::Shl | ArithOp::Shr => {
                return self.shift(op, ty, srcs, mask).map(|r| r.map(|v| (v, ty)))
            }
            _ => return Ok(None),
        };
        Ok(Some((r, ty)))
    }

    /// The low half of `a * b` (a shift when `b` is a power-of-two immediate).
    pub(crate) fn mul_lo(&mut self, ty: Type, srcs: &[Operand]) -> Result<WarpValue, JitError> {
        let a = self.read(&srcs[0], ty, false)?;
        if let Some(k) = pow2_imm(&srcs[1], ty) {
            let sh = lanes::iconst32(&mut self.b, k);
            let b = &mut self.b;
            return Ok(lanes::map1(&a, |&x| b.ins().ishl(x, sh)));
        }
        let c = self.read(&srcs[1], ty, false)?;
        let b = &mut self.b;
        Ok(lanes::map2(&a, &c, |x, y| b.ins().imul(x, y)))
    }

    /// `mul.hi` / `mul.wide` products (without the `mad` addend) for widths up to 32.
    pub(crate) fn mul_hi_wide(
        &mut self,
        mode: MulMode,
        ty: Type,
        srcs: &[Operand],
    ) -> Result<Option<(WarpValue, Type)>, JitError> {
        let w = ty.bits();
        let signed = ty.is_signed();
        if w > 32 {
            return Ok(None);
        }
        let a = self.read(&srcs[0], ty, true)?;
        let c = self.read(&srcs[1], ty, true)?;
        if w <= 16 {
            // The full product fits in 32 bits.
            let b = &mut self.b;
            let p = lanes::map2(&a, &c, |x, y| b.ins().imul(x, y));
            return Ok(Some(match mode {
                MulMode::Hi => {
                    let sh = lanes::iconst32(&mut self.b, w);
                    let b = &mut self.b;
                    (lanes::map1(&p, |&x| b.ins().ushr(x, sh)), ty)
                }
                _ => (p, ty.widened().unwrap_or(ty)),
            }));
        }
        if mode == MulMode::Wide {
            if let Some(k) = pow2_imm(&srcs[1], ty) {
                let wa = lanes::widen_w(&mut self.b, &a, signed);
                let sh = lanes::iconst32(&mut self.b, k);
                let b = &mut self.b;
                let p = lanes::map1(&wa, |&x| b.ins().ishl(x, sh));
                return Ok(Some((p, ty.widened().unwrap_or(ty))));
            }
        }
        let mut lo_hi = Vec::with_capacity(2 * N32);
        for k in 0..N32 {
            let (x, y) = (a.v[k], c.v[k]);
            for high in [false, true] {
                let (xa, ya) = match (signed, high) {
                    (true, false) => (self.b.ins().swiden_low(x), self.b.ins().swiden_low(y)),
                    (true, true) => (self.b.ins().swiden_high(x), self.b.ins().swiden_high(y)),
                    (false, false) => (self.b.ins().uwiden_low(x), self.b.ins().uwiden_low(y)),
                    (false, true) => (self.b.ins().uwiden_high(x), self.b.ins().uwiden_high(y)),
                };
                lo_hi.push(self.b.ins().imul(xa, ya));
            }
        }
        Ok(Some(match mode {
            MulMode::Hi => {
                let v = (0..N32)
                    .map(|k| lanes::half_pair(&mut self.b, lo_hi[2 * k], lo_hi[2 * k + 1], true))
                    .collect();
                (WarpValue::narrow(v), ty)
            }
            _ => (WarpValue::wide(lo_hi), ty.widened().unwrap_or(ty)),
        }))
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
