//! Arithmetic, logic, shifts, `setp` and `selp`.
//!
//! Inline vector code where Cranelift computes the exact PTX result (integer add/sub/
//! mul.lo/mul.hi.32/mul.wide/mad/min/max/abs/neg/logic, shifts by a uniform amount,
//! f32/f64 add/sub/mul/fma/div/min/max/neg/abs with round-to-nearest, `.ftz`, `.sat` and
//! canonical NaN results); everything else (integer division, `mul.hi.u64`, per-lane
//! shift amounts, directed rounding) calls the `ptxjit_arith` helper, which applies the
//! interpreter's scalar semantics to every lane.

use super::helpers::{self, Helper};
use super::lanes::{self, N32, W};
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::ir::{
    ArithOp, BoolOp, CmpOp, DivMode, FloatMode, MulMode, Operand, PredSrc, RegId, Rnd, Type,
};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, F64X2, I32X4, I64, I64X2};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};

/// Offsets of the helper operand slots in the scratch data area.
const SLOT_A: i32 = SCRATCH_DATA;
const SLOT_B: i32 = SCRATCH_DATA + 256;
const SLOT_C: i32 = SCRATCH_DATA + 512;
const SLOT_OUT: i32 = SCRATCH_DATA + 768;

/// `log2(b)` when `b` is an immediate positive power of two of type `ty`.
fn pow2_imm(b: &Operand, ty: Type) -> Option<u32> {
    let Operand::Imm(x) = *b else { return None };
    let w = ty.bits().min(64);
    let x = if w == 64 { x } else { x & ((1 << w) - 1) };
    let limit = if ty.is_signed() { w - 1 } else { w };
    (x.is_power_of_two() && x.trailing_zeros() < limit).then(|| x.trailing_zeros())
}

fn is_nearest(r: Option<Rnd>) -> bool {
    matches!(r, None | Some(Rnd::Rn))
}

impl FnTx<'_> {
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

    /// Integer and bit-type operations that vectors do exactly; `None` otherwise.
    pub(crate) fn int_inline(
        &mut self,
        op: ArithOp,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<Option<(W, Type)>, JitError> {
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
    fn mul_lo(&mut self, ty: Type, srcs: &[Operand]) -> Result<W, JitError> {
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
    fn mul_hi_wide(
        &mut self,
        mode: MulMode,
        ty: Type,
        srcs: &[Operand],
    ) -> Result<Option<(W, Type)>, JitError> {
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
                (W::narrow(v), ty)
            }
            _ => (W::wide(lo_hi), ty.widened().unwrap_or(ty)),
        }))
    }

    /// `shl` / `shr` with PTX clamping. Immediate amounts are static; register amounts
    /// use a scalar shift when uniform over the warp and the helper otherwise.
    fn shift(
        &mut self,
        op: ArithOp,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<Option<W>, JitError> {
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
        Ok(Some(W { wide: a.wide, v }))
    }

    fn shift_by(&mut self, op: ArithOp, signed: bool, a: &W, amt: Value) -> W {
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

    /// f32/f64 operations with round-to-nearest; `None` for other rounding modes.
    fn float_inline(
        &mut self,
        op: ArithOp,
        ty: Type,
        fm: FloatMode,
        srcs: &[Operand],
    ) -> Result<Option<(W, Type)>, JitError> {
        let f32 = ty == Type::F32;
        let ftz = fm.ftz && f32;
        let supported = match op {
            ArithOp::Add
            | ArithOp::Sub
            | ArithOp::Mul(MulMode::Lo)
            | ArithOp::Fma
            | ArithOp::Mad(MulMode::Lo) => is_nearest(fm.rnd),
            ArithOp::Div(_) => is_nearest(fm.rnd),
            ArithOp::Min | ArithOp::Max | ArithOp::Neg | ArithOp::Abs => true,
            _ => false,
        };
        if !supported {
            return Ok(None);
        }
        let mut ops = Vec::with_capacity(3);
        for s in srcs {
            let v = self.read(s, ty, false)?;
            ops.push(if ftz {
                lanes::map1(&v, |&x| lanes::flush_f32(&mut self.b, x))
            } else {
                v
            });
        }
        let fty = if f32 { F32X4 } else { F64X2 };
        let n = ops[0].v.len();
        let sign: u64 = if f32 { 0x8000_0000 } else { 1 << 63 };
        let nan = helpers::canonical_nan(ty.bits());
        let r = match op {
            ArithOp::Neg | ArithOp::Abs => {
                // A NaN gives the canonical NaN (f32) or passes through quieted (f64),
                // as `ops::float` (an H100's results).
                let s = lanes::splat_w(&mut self.b, !f32, sign);
                let alt = if f32 { nan } else { 1 << 51 }; // f64: the quiet bit
                let alt = lanes::splat_w(&mut self.b, !f32, alt);
                let v = (0..n)
                    .map(|k| {
                        let x = ops[0].v[k];
                        let r = if op == ArithOp::Neg {
                            self.b.ins().bxor(x, s.v[k])
                        } else {
                            self.b.ins().band_not(x, s.v[k])
                        };
                        let alt = if f32 {
                            alt.v[k]
                        } else {
                            self.b.ins().bor(x, alt.v[k])
                        };
                        let fx = lanes::bitcast(&mut self.b, fty, x);
                        let isnan = self.b.ins().fcmp(FloatCC::Unordered, fx, fx);
                        self.b.ins().bitselect(isnan, alt, r)
                    })
                    .collect();
                return Ok(Some((W { wide: !f32, v }, ty)));
            }
            ArithOp::Min | ArithOp::Max => {
                let canon = lanes::splat_w(&mut self.b, !f32, nan);
                let v = (0..n)
                    .map(|k| {
                        self.minmax(
                            op == ArithOp::Max,
                            fty,
                            ops[0].v[k],
                            ops[1].v[k],
                            canon.v[k],
                        )
                    })
                    .collect();
                return Ok(Some((W { wide: !f32, v }, ty)));
            }
            _ => {
                let v = (0..n)
                    .map(|k| {
                        let x = lanes::bitcast(&mut self.b, fty, ops[0].v[k]);
                        let y = lanes::bitcast(&mut self.b, fty, ops[1].v[k]);
                        let r = match op {
                            ArithOp::Add => self.b.ins().fadd(x, y),
                            ArithOp::Sub => self.b.ins().fsub(x, y),
                            ArithOp::Mul(_) => self.b.ins().fmul(x, y),
                            ArithOp::Div(DivMode::Approx) if f32 => {
                                self.approx_div_f32(x, y, ops[1].v[k])
                            }
                            ArithOp::Div(_) => self.b.ins().fdiv(x, y),
                            _ => {
                                let z = lanes::bitcast(&mut self.b, fty, ops[2].v[k]);
                                self.b.ins().fma(x, y, z)
                            }
                        };
                        self.float_result(r, fty, fm.sat, ftz, nan)
                    })
                    .collect();
                W { wide: !f32, v }
            }
        };
        Ok(Some((r, ty)))
    }

    /// `div.approx.f32` of one f32x4 part: the quotient, or for 2^126 < |b| < 2^128
    /// `x * (+-0)` with the sign of `b` (`crate::ops::approx_div_huge_divisor`). `bi` is
    /// `y`'s bits as i32x4.
    fn approx_div_f32(&mut self, x: Value, y: Value, bi: Value) -> Value {
        let q = self.b.ins().fdiv(x, y);
        let m = lanes::splat32(&mut self.b, 0x7fff_ffff);
        let mag = self.b.ins().band(bi, m);
        let lo = lanes::splat32(&mut self.b, 0x7e80_0000);
        let hi = lanes::splat32(&mut self.b, 0x7f80_0000);
        let above = self.b.ins().icmp(IntCC::UnsignedGreaterThan, mag, lo);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, mag, hi);
        let huge = self.b.ins().band(above, below);
        let huge = lanes::bitcast(&mut self.b, F32X4, huge);
        let sign = lanes::splat32(&mut self.b, 0x8000_0000);
        let zero = self.b.ins().band(bi, sign);
        let zero = lanes::bitcast(&mut self.b, F32X4, zero);
        let special = self.b.ins().fmul(x, zero);
        self.b.ins().bitselect(huge, special, q)
    }

    /// Applies `.sat`, the canonical NaN and `.ftz` to a float result; returns int bits.
    pub(crate) fn float_result(
        &mut self,
        r: Value,
        fty: cranelift_codegen::ir::Type,
        sat: bool,
        ftz: bool,
        nan: u64,
    ) -> Value {
        let f32 = fty == F32X4;
        let ity = if f32 { I32X4 } else { I64X2 };
        let fconst = |tx: &mut Self, x: f64| {
            let bits = if f32 {
                (x as f32).to_bits() as u64
            } else {
                x.to_bits()
            };
            let c = if f32 {
                lanes::splat32(&mut tx.b, bits as u32)
            } else {
                lanes::splat64(&mut tx.b, bits)
            };
            lanes::bitcast(&mut tx.b, fty, c)
        };
        let mut r = r;
        if sat {
            let zero = fconst(self, 0.0);
            let one = fconst(self, 1.0);
            // NaN, negatives and -0 become +0.
            let lo = self
                .b
                .ins()
                .fcmp(FloatCC::UnorderedOrLessThanOrEqual, r, zero);
            let lo = lanes::bitcast(&mut self.b, fty, lo);
            r = self.b.ins().bitselect(lo, zero, r);
            let hi = self.b.ins().fcmp(FloatCC::GreaterThan, r, one);
            let hi = lanes::bitcast(&mut self.b, fty, hi);
            r = self.b.ins().bitselect(hi, one, r);
        }
        let un = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let ri = lanes::bitcast(&mut self.b, ity, r);
        let c = if f32 {
            lanes::splat32(&mut self.b, nan as u32)
        } else {
            lanes::splat64(&mut self.b, nan)
        };
        let mut out = self.b.ins().bitselect(un, c, ri);
        if ftz {
            out = lanes::flush_f32(&mut self.b, out);
        }
        out
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
    ) -> Result<(W, Type), JitError> {
        if !helpers::scalar_arith_supported(op, ty) {
            return Err(self.unsupported(self.cur_text()));
        }
        let (ta, tb, tc, to) = helpers::arith_types(op, ty);
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
        let desc = lanes::iconst64(&mut self.b, helpers::arith_desc(op, ty, fm));
        let pa = self.scratch_addr(SLOT_A);
        let pb = self.scratch_addr(SLOT_B);
        let pc = self.scratch_addr(SLOT_C);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Arith)?;
        self.b.ins().call(h, &[desc, bits, pa, pb, pc, po]);
        Ok((self.unspill(to.bits() > 32, SLOT_OUT), to))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn setp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        dst: Option<RegId>,
        dst_neg: Option<RegId>,
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let r = self.compare_masks(cmp, ty, ftz, a, b, mask)?;
        let (p, q): (Vec<Value>, Vec<Value>) = match combine {
            None => {
                let q = r.iter().map(|&x| self.b.ins().bnot(x)).collect();
                (r, q)
            }
            Some((bop, src)) => {
                let c = self.read_pred(&Operand::Reg(src.reg), src.negate)?;
                let mut p = Vec::with_capacity(N32);
                let mut q = Vec::with_capacity(N32);
                for k in 0..N32 {
                    let nr = self.b.ins().bnot(r[k]);
                    let f = |b: &mut cranelift_frontend::FunctionBuilder, x: Value| match bop {
                        BoolOp::And => b.ins().band(x, c[k]),
                        BoolOp::Or => b.ins().bor(x, c[k]),
                        BoolOp::Xor => b.ins().bxor(x, c[k]),
                    };
                    p.push(f(&mut self.b, r[k]));
                    q.push(f(&mut self.b, nr));
                }
                (p, q)
            }
        };
        if let Some(d) = dst {
            self.write_pred(d, &p, mask)?;
        }
        if let Some(d) = dst_neg {
            self.write_pred(d, &q, mask)?;
        }
        Ok(())
    }

    /// The lane masks of `a cmp b` (type `ty`) for the lanes of `mask`.
    pub(crate) fn compare_masks(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        a: &Operand,
        b: &Operand,
        mask: &mut Mask,
    ) -> Result<Vec<Value>, JitError> {
        Ok(match ty {
            Type::F32 | Type::F64 => self.float_cmp(cmp, ty, ftz, a, b)?,
            _ if (ty.is_int() || ty.is_bits()) && ty.bits() <= 64 => self.int_cmp(cmp, ty, a, b)?,
            _ => self.setp_helper(cmp, ty, ftz, a, b, mask)?,
        })
    }

    fn int_cmp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        a: &Operand,
        b: &Operand,
    ) -> Result<Vec<Value>, JitError> {
        let signed = ty.is_signed();
        // (signed, unsigned) condition codes.
        let (scc, ucc) = match cmp {
            CmpOp::Eq | CmpOp::Equ => (IntCC::Equal, IntCC::Equal),
            CmpOp::Ne | CmpOp::Neu => (IntCC::NotEqual, IntCC::NotEqual),
            CmpOp::Lt | CmpOp::Ltu => (IntCC::SignedLessThan, IntCC::UnsignedLessThan),
            CmpOp::Le | CmpOp::Leu => {
                (IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual)
            }
            CmpOp::Gt | CmpOp::Gtu => (IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
            CmpOp::Ge | CmpOp::Geu => (
                IntCC::SignedGreaterThanOrEqual,
                IntCC::UnsignedGreaterThanOrEqual,
            ),
            CmpOp::Num | CmpOp::Nan => {
                let c = lanes::splat32(&mut self.b, if cmp == CmpOp::Num { u32::MAX } else { 0 });
                return Ok(vec![c; N32]);
            }
        };
        let cc = if signed { scc } else { ucc };
        let x = self.read(a, ty, true)?;
        let y = self.read(b, ty, true)?;
        let m: Vec<Value> =
            x.v.iter()
                .zip(&y.v)
                .map(|(&p, &q)| self.b.ins().icmp(cc, p, q))
                .collect();
        Ok(if x.wide {
            lanes::narrow_mask(&mut self.b, &m)
        } else {
            m
        })
    }

    fn float_cmp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        a: &Operand,
        b: &Operand,
    ) -> Result<Vec<Value>, JitError> {
        let f32 = ty == Type::F32;
        let fty = if f32 { F32X4 } else { F64X2 };
        let mut x = self.read(a, ty, false)?;
        let mut y = self.read(b, ty, false)?;
        if ftz && f32 {
            x = lanes::map1(&x, |&v| lanes::flush_f32(&mut self.b, v));
            y = lanes::map1(&y, |&v| lanes::flush_f32(&mut self.b, v));
        }
        let mut m = Vec::with_capacity(x.v.len());
        for k in 0..x.v.len() {
            let p = lanes::bitcast(&mut self.b, fty, x.v[k]);
            let q = lanes::bitcast(&mut self.b, fty, y.v[k]);
            let mut f = |cc| self.b.ins().fcmp(cc, p, q);
            let r = match cmp {
                CmpOp::Eq => f(FloatCC::Equal),
                CmpOp::Ne => {
                    let o = f(FloatCC::Ordered);
                    let n = f(FloatCC::NotEqual);
                    self.b.ins().band(o, n)
                }
                CmpOp::Lt => f(FloatCC::LessThan),
                CmpOp::Le => f(FloatCC::LessThanOrEqual),
                CmpOp::Gt => f(FloatCC::GreaterThan),
                CmpOp::Ge => f(FloatCC::GreaterThanOrEqual),
                CmpOp::Equ => {
                    let u = f(FloatCC::Unordered);
                    let e = f(FloatCC::Equal);
                    self.b.ins().bor(u, e)
                }
                CmpOp::Neu => f(FloatCC::NotEqual),
                CmpOp::Ltu => f(FloatCC::UnorderedOrLessThan),
                CmpOp::Leu => f(FloatCC::UnorderedOrLessThanOrEqual),
                CmpOp::Gtu => f(FloatCC::UnorderedOrGreaterThan),
                CmpOp::Geu => f(FloatCC::UnorderedOrGreaterThanOrEqual),
                CmpOp::Num => f(FloatCC::Ordered),
                CmpOp::Nan => f(FloatCC::Unordered),
            };
            m.push(r);
        }
        Ok(if f32 {
            m
        } else {
            lanes::narrow_mask(&mut self.b, &m)
        })
    }

    fn setp_helper(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        a: &Operand,
        b: &Operand,
        mask: &mut Mask,
    ) -> Result<Vec<Value>, JitError> {
        if ty.bits() > 64
            || !(matches!(ty, Type::F16 | Type::BF16)
                || helpers::scalar_arith_supported(ArithOp::Add, ty))
        {
            return Err(self.unsupported(self.cur_text()));
        }
        let x = self.read(a, ty, false)?;
        let y = self.read(b, ty, false)?;
        self.compare_helper_vals(cmp, ty, ftz, &x, &y, mask)
    }

    /// `x cmp y` (values of type `ty`) for the lanes of `mask`, lane by lane in
    /// `crate::ops` through the setp helper.
    pub(crate) fn compare_helper_vals(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        x: &W,
        y: &W,
        mask: &mut Mask,
    ) -> Result<Vec<Value>, JitError> {
        self.spill(x, SLOT_A);
        self.spill(y, SLOT_B);
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, helpers::setp_desc(cmp, ty, ftz));
        let pa = self.scratch_addr(SLOT_A);
        let pb = self.scratch_addr(SLOT_B);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Setp)?;
        self.b.ins().call(h, &[desc, bits, pa, pb, po]);
        Ok(self.unspill(false, SLOT_OUT).v)
    }

    pub(crate) fn selp(
        &mut self,
        ty: Type,
        dst: RegId,
        a: &Operand,
        b: &Operand,
        cond: PredSrc,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let c = self.read_pred(&Operand::Reg(cond.reg), cond.negate)?;
        let x = self.read(a, ty, false)?;
        let y = self.read(b, ty, false)?;
        let m = if x.wide {
            lanes::mask64(&mut self.b, &c)
        } else {
            c
        };
        let r = lanes::select_w(&mut self.b, &m, &x, &y);
        self.write(dst, ty, r, mask)
    }
}
