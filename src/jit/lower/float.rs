//! Float arithmetic as inline vector code: f32/f64 add/sub/mul/fma/div/min/max/neg/abs
//! rounded to nearest with `.ftz`, `.sat` and canonical NaN results, and `copysign`,
//! `testp` (the rest goes through the `ptxjit_arith` helper, see `arith`).

use crate::ir::{ArithOp, DivMode, FloatMode, MulMode, Operand, RegId, Rnd, TestpOp, Type};
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, F64X2, I32X4, I64X2};
use cranelift_codegen::ir::{InstBuilder, Value};

fn is_nearest(r: Option<Rnd>) -> bool {
    matches!(r, None | Some(Rnd::Rn))
}

impl FuncTranslator<'_> {
    /// f32/f64 operations with round-to-nearest; `None` for other rounding modes.
    pub(crate) fn float_inline(
        &mut self,
        op: ArithOp,
        ty: Type,
        fm: FloatMode,
        srcs: &[Operand],
    ) -> Result<Option<(WarpValue, Type)>, JitError> {
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
        let nan = crate::jit::helpers::canonical_nan(ty.bits());
        let r = match op {
            ArithOp::Neg | ArithOp::Abs => {
                let s = lanes::splat_w(&mut self.b, !f32, sign);
                let b = &mut self.b;
                return Ok(Some((
                    lanes::map2(&ops[0], &s, |x, m| {
                        if op == ArithOp::Neg {
                            b.ins().bxor(x, m)
                        } else {
                            b.ins().band_not(x, m)
                        }
                    }),
                    ty,
                )));
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
                return Ok(Some((WarpValue { wide: !f32, v }, ty)));
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
                WarpValue { wide: !f32, v }
            }
        };
        Ok(Some((r, ty)))
    }

    /// `div.approx.f32` of one f32x4 part: the quotient, or for 2^126 < |b| < 2^128
    /// `x * (+-0)` with the sign of `b` (`crate::ops::approx_div_huge_divisor`). `bi` is
    /// `y`'s bits as i32x4.
    pub(crate) fn approx_div_f32(&mut self, x: Value, y: Value, bi: Value) -> Value {
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
}

impl FuncTranslator<'_> {
    pub(crate) fn copysign(
        &mut self,
        ty: Type,
        dst: RegId,
        a: &Operand,
        b: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let wide = ty.bits() == 64;
        let x = self.read(a, ty, false)?;
        let y = self.read(b, ty, false)?;
        let sign = if wide { 1u64 << 63 } else { 0x8000_0000 };
        let sign = lanes::splat_w(&mut self.b, wide, sign).v[0];
        let bd = &mut self.b;
        let r = lanes::map2(&x, &y, |p, q| {
            let s = bd.ins().band(p, sign);
            let m = bd.ins().band_not(q, sign);
            bd.ins().bor(m, s)
        });
        self.write(dst, ty, r, mask)
    }

    pub(crate) fn testp(
        &mut self,
        op: TestpOp,
        ty: Type,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let wide = ty.bits() == 64;
        let x = self.read(src, ty, false)?;
        let (sign, e, min_normal) = if wide {
            (1u64 << 63, 0x7ff0_0000_0000_0000, 1u64 << 52)
        } else {
            (0x8000_0000, 0x7f80_0000, 0x0080_0000)
        };
        let mut c = |v| lanes::splat_w(&mut self.b, wide, v).v[0];
        let (sign, e, min_normal, zero) = (c(sign), c(e), c(min_normal), c(0));
        let bd = &mut self.b;
        let r = lanes::map1(&x, |&p| {
            let m = bd.ins().band_not(p, sign);
            match op {
                TestpOp::Finite => bd.ins().icmp(IntCC::UnsignedLessThan, m, e),
                TestpOp::Infinite => bd.ins().icmp(IntCC::Equal, m, e),
                TestpOp::Number => bd.ins().icmp(IntCC::UnsignedLessThanOrEqual, m, e),
                TestpOp::NotANumber => bd.ins().icmp(IntCC::UnsignedGreaterThan, m, e),
                TestpOp::Normal => {
                    let lo = bd
                        .ins()
                        .icmp(IntCC::UnsignedGreaterThanOrEqual, m, min_normal);
                    let hi = bd.ins().icmp(IntCC::UnsignedLessThan, m, e);
                    let z = bd.ins().icmp(IntCC::Equal, m, zero);
                    let n = bd.ins().band(lo, hi);
                    bd.ins().bor(n, z)
                }
                TestpOp::Subnormal => {
                    let nz = bd.ins().icmp(IntCC::NotEqual, m, zero);
                    let lo = bd.ins().icmp(IntCC::UnsignedLessThan, m, min_normal);
                    bd.ins().band(nz, lo)
                }
            }
        });
        let m = if wide {
            lanes::narrow_mask(&mut self.b, &r.v)
        } else {
            r.v
        };
        self.write_pred(dst, &m, mask)
    }
}
