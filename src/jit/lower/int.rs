//! The integer family (and the dispatch of every [`InstKind::Arith`]): integer arithmetic
//! as inline vector code where Cranelift computes the exact PTX result (add/sub,
//! `mul.lo`, `mul.hi`, `mul.wide`, `mad`, min/max/abs/neg), the float forms sent to
//! `float.rs`, the logic ones to `logic.rs`, and everything else (integer division,
//! `mul.hi.u64`, per-lane cases) through the `ptxjit_arith` helper, which applies
//! `crate::ops::arith` lane by lane. The bit-manipulation and packed-integer
//! instructions ([`InstKind::Bits`]) go to stack slots and one `ptxjit_bits` helper call
//! applies `crate::ops::int` to the active lanes (the function the interpreter
//! uses).
//!
//! [`InstKind::Arith`]: crate::ir::InstKind::Arith
//! [`InstKind::Bits`]: crate::ir::InstKind::Bits

use crate::ir::{ArithOp, BitOp, FloatMode, MulMode, Operand, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::lanewise;
use crate::jit::translate::lanes::{self, WarpValue, N32};
use crate::jit::translate::scratch::OPERAND_SLOTS;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F64X2, I32X4, I64X2, I8X16};
use cranelift_codegen::ir::{BlockArg, ConstantData, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

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
            ArithOp::Div(_) | ArithOp::Rem
                if !self.quick && matches!(ty, Type::U32 | Type::S32) =>
            {
                self.div_rem_32(op == ArithOp::Rem, signed, ty, srcs)?
            }
            ArithOp::Div(_) | ArithOp::Rem
                if !self.quick && matches!(ty, Type::U64 | Type::S64) =>
            {
                self.div_rem_64(op, signed, ty, srcs, mask)?
            }
            _ => return Ok(None),
        };
        Ok(Some((r, ty)))
    }

    /// `div`/`rem` of `.u32`/`.s32` in `f64` vectors (optimized tier; the quick tier calls
    /// the helper, whose code is smaller): each operand converted exactly (its bits with
    /// the sign bit flipped for `.s32`, below the exponent of 2^52, minus 2^52 and the
    /// flip), the quotient rounded by `fdiv` and truncated. It is the exact integer
    /// quotient: with |a| < 2^32 and |b| >= 1 the true quotient is at least 1/|b| from
    /// any other integer, and `fdiv`'s error is below |a/b| * 2^-53 < 2^-21/|b|. Back to
    /// 32 bits by adding 1.5 * 2^52 (the low mantissa bits are then the quotient's two's
    /// complement; |q| <= 2^32). `rem` is `a - q * b` in 32-bit arithmetic. As
    /// `crate::ops::int::arith`: `x / 0` and `x % 0` are all ones, `i32::MIN / -1` wraps
    /// to `i32::MIN` (the quotient 2^31's low bits) and `i32::MIN % -1` is 0.
    fn div_rem_32(
        &mut self,
        rem: bool,
        signed: bool,
        ty: Type,
        srcs: &[Operand],
    ) -> Result<WarpValue, JitError> {
        let a = self.read(&srcs[0], ty, false)?;
        let c = self.read(&srcs[1], ty, false)?;
        let b = &mut self.b;
        let magic = lanes::splat64(b, (1.5f64 * (1u64 << 52) as f64).to_bits());
        let magic = lanes::bitcast(b, F64X2, magic);
        let ones = lanes::splat32(b, u32::MAX);
        let zero = lanes::splat32(b, 0);
        let mut out = Vec::with_capacity(N32);
        for (&x, &y) in a.v.iter().zip(&c.v) {
            let (fx, fy) = (exact_f64(b, x, signed), exact_f64(b, y, signed));
            let q = [0, 1].map(|h| {
                let q = b.ins().fdiv(fx[h], fy[h]);
                let q = b.ins().trunc(q);
                let q = b.ins().fadd(q, magic);
                lanes::bitcast(b, I64X2, q)
            });
            let q = lanes::narrow_pair(b, q[0], q[1]);
            let r = match rem {
                true => {
                    let p = b.ins().imul(q, y);
                    b.ins().isub(x, p)
                }
                false => q,
            };
            let by_zero = b.ins().icmp(IntCC::Equal, y, zero);
            out.push(b.ins().bitselect(by_zero, ones, r));
        }
        Ok(WarpValue::narrow(out))
    }

    /// `div`/`rem` of `.u64`/`.s64` (optimized tier): where every lane's operands lie in
    /// [-2^51, 2^51) (`.u64`: below 2^51), as in index arithmetic, the quotient comes
    /// from `f64` vectors as in [`Self::div_rem_32`] (exact: the operands convert exactly,
    /// by adding and subtracting the bits of 1.5 * 2^52, and `fdiv`'s error, below
    /// |a/b| * 2^-53 < 2^-2/|b|, is less than the quotient's distance 1/|b| to the next
    /// integer); otherwise the `ptxjit_arith` helper, lane by lane. `x / 0` and `x % 0`
    /// are all ones (`i64::MIN / -1` cannot reach the vector form).
    fn div_rem_64(
        &mut self,
        op: ArithOp,
        signed: bool,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<WarpValue, JitError> {
        let a = self.read(&srcs[0], ty, false)?;
        let c = self.read(&srcs[1], ty, false)?;
        let bits = self.mbits(mask);
        let b = &mut self.b;
        // The range test: `.s64` values plus 2^51 (or `.u64` values) have no bit at or
        // above bit 52 (bit 51 for `.u64`) in any lane.
        let (bias, limit) = match signed {
            true => (1u64 << 51, 1u64 << 52),
            false => (0, 1u64 << 51),
        };
        let bias_v = lanes::splat64(b, bias);
        let mut any = None;
        for &x in a.v.iter().chain(&c.v) {
            let t = b.ins().iadd(x, bias_v);
            any = Some(match any {
                None => t,
                Some(acc) => b.ins().bor(acc, t),
            });
        }
        let Some(any) = any else {
            return Err(self.internal(self.cur_text()));
        };
        let high = lanes::splat64(b, !(limit - 1));
        let out_of_range = b.ins().band(any, high);
        let slow_needed = b.ins().vany_true(out_of_range);
        let fast = b.create_block();
        let slow = b.create_block();
        let join = b.create_block();
        for _ in 0..a.v.len() {
            b.append_block_param(join, I64X2);
        }
        b.ins().brif(slow_needed, slow, &[], fast, &[]);
        b.set_cold_block(slow);
        b.switch_to_block(fast);
        let magic_bits = lanes::splat64(b, 0x4338_0000_0000_0000);
        let magic = lanes::bitcast(b, F64X2, magic_bits);
        let ones = lanes::splat64(b, u64::MAX);
        let zero = lanes::splat64(b, 0);
        let mut out = Vec::with_capacity(a.v.len());
        for (&x, &y) in a.v.iter().zip(&c.v) {
            let [fx, fy] = [x, y].map(|v| {
                let t = b.ins().iadd(v, magic_bits);
                let f = lanes::bitcast(b, F64X2, t);
                b.ins().fsub(f, magic)
            });
            let q = b.ins().fdiv(fx, fy);
            let q = b.ins().trunc(q);
            let q = b.ins().fadd(q, magic);
            let q = lanes::bitcast(b, I64X2, q);
            let q = b.ins().isub(q, magic_bits);
            let r = match op {
                ArithOp::Rem => {
                    let p = b.ins().imul(q, y);
                    b.ins().isub(x, p)
                }
                _ => q,
            };
            let by_zero = b.ins().icmp(IntCC::Equal, y, zero);
            out.push(BlockArg::Value(b.ins().bitselect(by_zero, ones, r)));
        }
        b.ins().jump(join, &out);
        self.b.switch_to_block(slow);
        let desc = lanes::iconst64(
            &mut self.b,
            lanewise::arith_desc(op, ty, FloatMode::default()),
        );
        self.call_lanewise(Helper::Arith, &[desc, bits], &[a, c], 3)?;
        let r = self.lanewise_result(true);
        let args: Vec<BlockArg> = r.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        Ok(WarpValue::wide(self.b.block_params(join).to_vec()))
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
}

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
                Type::F32 | Type::F64 => {
                    let canon = !self.nan_blind.contains(dst) && !self.nan_lazy.contains(dst);
                    self.float_inline(op, ty, fm, srcs, canon)?
                }
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

    /// PTX `min`/`max` of one vector part (int bits in, int bits out).
    pub(crate) fn minmax(
        &mut self,
        is_max: bool,
        fty: cranelift_codegen::ir::Type,
        a: Value,
        c: Value,
        canon: Option<Value>,
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
        // `canon` `None`: the result's NaN bits are never observed (one of the NaNs).
        let Some(canon) = canon else { return r };
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
            return Err(self.internal(self.cur_text()));
        }
        let (ta, tb, tc, to) = (
            op.src_type(ty, 0),
            op.src_type(ty, 1),
            op.src_type(ty, 2),
            op.dst_type(ty),
        );
        let Some(first) = srcs.first() else {
            return Err(self.internal(self.cur_text()));
        };
        let mut vals = vec![self.read(first, ta, false)?];
        for (s, t) in srcs.iter().zip([ta, tb, tc]).skip(1) {
            vals.push(self.read(s, t, false)?);
        }
        let desc = lanewise::arith_desc(op, ty, fm);
        self.call_lanewise_desc(Helper::Arith, desc, mask, &vals, 3)?;
        Ok((self.lanewise_result(to.bits() > 32), to))
    }
}

impl FuncTranslator<'_> {
    pub(crate) fn bits(
        &mut self,
        op: BitOp,
        ty: Type,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let (stys, dty) = op.signature(ty);
        if let Some(r) = self.bits_inline(op, ty, srcs)? {
            return self.write(dst, dty, r, mask);
        }
        let mut vals = Vec::with_capacity(OPERAND_SLOTS);
        for (s, t) in srcs.iter().zip(&stys).take(OPERAND_SLOTS) {
            vals.push(self.read(s, *t, false)?);
        }
        let desc = crate::ops::int::encode(op, ty);
        self.call_lanewise_desc(Helper::Bits, desc, mask, &vals, OPERAND_SLOTS)?;
        let r = self.lanewise_result(dty.bits() > 32);
        self.write(dst, dty, r, mask)
    }
}

impl FuncTranslator<'_> {
    /// The bit operations that vectors compute exactly, as `crate::ops::int` does:
    /// `bfe` with immediate position and length inside the value (`.u`: a shift and a
    /// mask; `.s`: shifts left then arithmetically right), `prmt` with an immediate
    /// selector that replicates no sign (one byte shuffle of the two operands' vectors,
    /// `crate::ops::int::prmt_bytes`), `brev.b32` (bytes reversed, then nibble look-ups),
    /// `bfind` of `.u32`/`.s32` (from `clz`), `popc.b32` (byte counts, summed
    /// by a multiply), `clz.b32` (the exponent of the value converted exactly to `f64`,
    /// 32 for zero), `shf` (`logic.rs`); `None` for the other forms (the `ptxjit_bits`
    /// helper).
    fn bits_inline(
        &mut self,
        op: BitOp,
        ty: Type,
        srcs: &[Operand],
    ) -> Result<Option<WarpValue>, JitError> {
        let konst = |k: usize| srcs.get(k).and_then(|o| self.const_operand(o));
        match (op, ty) {
            (BitOp::Bfe, Type::U32 | Type::S32 | Type::U64 | Type::S64) => {
                let (Some(pos), Some(len)) = (konst(1), konst(2)) else {
                    return Ok(None);
                };
                let (pos, len, w) = ((pos & 0xff) as u32, (len & 0xff) as u32, ty.bits());
                if len == 0 || pos + len > w {
                    return Ok(None);
                }
                let a = self.read(&srcs[0], ty, false)?;
                let b = &mut self.b;
                let v = if ty.is_signed() {
                    let up = lanes::iconst32(b, w - pos - len);
                    let down = lanes::iconst32(b, w - len);
                    lanes::map1(&a, |&x| {
                        let t = b.ins().ishl(x, up);
                        b.ins().sshr(t, down)
                    })
                } else {
                    let sh = lanes::iconst32(b, pos);
                    let ones = u64::MAX >> (64 - len);
                    let m = lanes::splat_w(b, w == 64, ones);
                    lanes::map2(&a, &m, |x, mm| {
                        let t = b.ins().ushr(x, sh);
                        b.ins().band(t, mm)
                    })
                };
                Ok(Some(v))
            }
            (BitOp::Prmt(mode), Type::B32) => {
                let Some(sel) = konst(2).and_then(|c| crate::ops::int::prmt_bytes(mode, c as u32))
                else {
                    return Ok(None);
                };
                let a = self.read(&srcs[0], ty, false)?;
                let c = self.read(&srcs[1], ty, false)?;
                // Byte `j` of lane `l` of the result: byte `4l + i` of `a`'s vector or of
                // `b`'s (16 + ...), `i` the selected byte of `{b, a}`.
                let idx: Vec<u8> = (0..4u32)
                    .flat_map(|l| {
                        sel.map(|i| match i < 4 {
                            true => (4 * l + i) as u8,
                            false => (16 + 4 * l + i - 4) as u8,
                        })
                    })
                    .collect();
                let imm = self.b.func.dfg.immediates.push(ConstantData::from(idx));
                let b = &mut self.b;
                Ok(Some(lanes::map2(&a, &c, |x, y| {
                    let x = lanes::bitcast(b, I8X16, x);
                    let y = lanes::bitcast(b, I8X16, y);
                    let r = b.ins().shuffle(x, y, imm);
                    lanes::bitcast(b, I32X4, r)
                })))
            }
            (BitOp::Shf { left, clamp }, _) => self.shf(left, clamp, srcs),
            (BitOp::Popc, Type::B32) => {
                let a = self.read(&srcs[0], ty, false)?;
                let b = &mut self.b;
                let ones = lanes::splat32(b, 0x0101_0101);
                let sh = lanes::iconst32(b, 24);
                Ok(Some(lanes::map1(&a, |&x| {
                    let bytes = lanes::bitcast(b, I8X16, x);
                    let c = b.ins().popcnt(bytes);
                    let c = lanes::bitcast(b, I32X4, c);
                    let s = b.ins().imul(c, ones);
                    b.ins().ushr(s, sh)
                })))
            }
            (BitOp::Clz, Type::B32) => {
                let a = self.read(&srcs[0], ty, false)?;
                let b = &mut self.b;
                Ok(Some(lanes::map1(&a, |&x| clz32(b, x))))
            }
            (BitOp::Bfind { shiftamt }, Type::U32 | Type::S32) => {
                let a = self.read(&srcs[0], ty, false)?;
                let b = &mut self.b;
                let zero = lanes::splat32(b, 0);
                let ones = lanes::splat32(b, u32::MAX);
                let top = lanes::splat32(b, 31);
                let signed = ty.is_signed();
                Ok(Some(lanes::map1(&a, |&x| {
                    // `.s32`: a negative value's most significant 0 is its complement's 1.
                    let x = match signed {
                        true => {
                            let neg = b.ins().icmp(IntCC::SignedLessThan, x, zero);
                            let not = b.ins().bnot(x);
                            b.ins().bitselect(neg, not, x)
                        }
                        false => x,
                    };
                    let c = clz32(b, x);
                    let r = match shiftamt {
                        true => c,
                        false => b.ins().isub(top, c),
                    };
                    let none = b.ins().icmp(IntCC::Equal, x, zero);
                    b.ins().bitselect(none, ones, r)
                })))
            }
            (BitOp::Brev, Type::B32) => {
                let a = self.read(&srcs[0], ty, false)?;
                // Bytes reversed within each lane, then each byte's bits by two nibble
                // look-ups (the low nibble's reverse is the high nibble and the other way).
                let rev4 = |n: u8| (n & 1) << 3 | (n & 2) << 1 | (n & 4) >> 1 | (n & 8) >> 3;
                let b = &mut self.b;
                let order: Vec<u8> = (0..4u8)
                    .flat_map(|l| (0..4u8).map(move |j| 4 * l + 3 - j))
                    .collect();
                let order = b.func.dfg.immediates.push(ConstantData::from(order));
                let lo_lut = lanes::vconst(b, I8X16, (0..16u8).map(|n| rev4(n) << 4).collect());
                let hi_lut = lanes::vconst(b, I8X16, (0..16u8).map(rev4).collect());
                let nibble = lanes::vconst(b, I8X16, vec![0x0f; 16]);
                let four = lanes::iconst32(b, 4);
                Ok(Some(lanes::map1(&a, |&x| {
                    let v = lanes::bitcast(b, I8X16, x);
                    let v = b.ins().shuffle(v, v, order);
                    let lo = b.ins().band(v, nibble);
                    let hi = b.ins().ushr(v, four);
                    let hi = b.ins().band(hi, nibble);
                    let lo = b.ins().swizzle(lo_lut, lo);
                    let hi = b.ins().swizzle(hi_lut, hi);
                    let r = b.ins().bor(lo, hi);
                    lanes::bitcast(b, I32X4, r)
                })))
            }
            _ => Ok(None),
        }
    }
}

/// `clz` of each lane of an i32x4: 1054 minus the biased exponent of the lane's value
/// converted exactly to `f64` (2^52 + x as bits, minus 2^52); 32 for zero.
fn clz32(b: &mut FunctionBuilder, x: Value) -> Value {
    let sh = lanes::iconst32(b, 52);
    let [lo, hi] = exact_f64(b, x, false).map(|f| {
        let e = lanes::bitcast(b, I64X2, f);
        b.ins().ushr(e, sh)
    });
    let e = lanes::narrow_pair(b, lo, hi);
    let base = lanes::splat32(b, 1023 + 31);
    let n = b.ins().isub(base, e);
    let zero = lanes::splat32(b, 0);
    let thirty_two = lanes::splat32(b, 32);
    let is_zero = b.ins().icmp(IntCC::Equal, x, zero);
    b.ins().bitselect(is_zero, thirty_two, n)
}

/// The two f64x2 halves of an i32x4 of `.s32` (`signed`) or `.u32` values, converted
/// exactly: the bits (sign bit flipped for `.s32`) under the exponent of 2^52, minus 2^52
/// and the flip.
fn exact_f64(b: &mut FunctionBuilder, x: Value, signed: bool) -> [Value; 2] {
    let flip = if signed { 0x8000_0000u32 } else { 0 };
    let exp = lanes::splat64(b, 0x4330_0000_0000_0000);
    let off = f64::from_bits(0x4330_0000_0000_0000) + f64::from(flip);
    let off = lanes::splat64(b, off.to_bits());
    let off = lanes::bitcast(b, F64X2, off);
    let x = match signed {
        true => {
            let f = lanes::splat32(b, flip);
            b.ins().bxor(x, f)
        }
        false => x,
    };
    [b.ins().uwiden_low(x), b.ins().uwiden_high(x)].map(|h| {
        let h = b.ins().bor(h, exp);
        let f = lanes::bitcast(b, F64X2, h);
        b.ins().fsub(f, off)
    })
}
