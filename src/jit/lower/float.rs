//! The floating-point family as inline vector code: f32/f64 add/sub/mul/fma/div/min/max/
//! neg/abs rounded to nearest with `.ftz`, `.sat` and canonical NaN results (the rest
//! goes through the `ptxjit_arith` helper, see `int.rs`), `copysign`, `testp`, the
//! extended `min`/`max` forms ([`InstKind::MinMax`]: `.relu`, `.NaN`, `.xorsign.abs`,
//! bit-identical to `crate::ops::float`; their integer forms too). The special functions
//! are `sfu.rs`. The quick tier emits `.ftz` arithmetic and `min`/`max` once, in a loop
//! over the vectors (`FuncTranslator::vector_loop`): the same operations, less code.
//!
//! [`InstKind::MinMax`]: crate::ir::InstKind::MinMax

use crate::ir::{
    ArithOp, DivMode, FloatMode, MinMaxOp, MulMode, Operand, RegId, Rnd, TestpOp, Type,
};
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, F64X2, I16X8, I32X4};
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
        canon: bool,
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
        // The arithmetic reads float vectors (no bitcast); neg/abs/min/max work on bits.
        let bits = matches!(
            op,
            ArithOp::Min | ArithOp::Max | ArithOp::Neg | ArithOp::Abs
        );
        // The quick tier loops over the vectors of `.ftz` arithmetic and of min/max (20
        // to 30 CLIF instructions per vector, Triton's f32 code is `.ftz` throughout).
        let looped = self.quick
            && !matches!(op, ArithOp::Neg | ArithOp::Abs)
            && (ftz || matches!(op, ArithOp::Min | ArithOp::Max));
        let mut ops = Vec::with_capacity(3);
        // Every source is read NaN-blind but f64 `neg`/`abs`'s (a NaN keeps its payload).
        let blind = f32 || !matches!(op, ArithOp::Neg | ArithOp::Abs);
        for s in srcs {
            self.blind_read = blind;
            let v = if bits {
                self.read(s, ty, false)
            } else {
                self.read_float(s, ty)
            };
            self.blind_read = false;
            let v = v?;
            ops.push(if ftz && !looped {
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
                        if !canon {
                            // Still a NaN, whose bits no read observes.
                            return r;
                        }
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
                return Ok(Some((WarpValue { wide: !f32, v }, ty)));
            }
            _ => {
                let flush = ftz && looped;
                let each = |t: &mut Self, xs: &[Value]| {
                    let xs: Vec<Value> = xs
                        .iter()
                        .map(|&x| {
                            if flush {
                                lanes::flush_f32(&mut t.b, x)
                            } else {
                                x
                            }
                        })
                        .collect();
                    if matches!(op, ArithOp::Min | ArithOp::Max) {
                        let nanv = canon.then(|| {
                            if f32 {
                                lanes::splat32(&mut t.b, nan as u32)
                            } else {
                                lanes::splat64(&mut t.b, nan)
                            }
                        });
                        return t.minmax(op == ArithOp::Max, fty, xs[0], xs[1], nanv);
                    }
                    let x = lanes::bitcast(&mut t.b, fty, xs[0]);
                    let y = lanes::bitcast(&mut t.b, fty, xs[1]);
                    let r = match op {
                        ArithOp::Add => t.b.ins().fadd(x, y),
                        ArithOp::Sub => t.b.ins().fsub(x, y),
                        ArithOp::Mul(_) => t.b.ins().fmul(x, y),
                        ArithOp::Div(DivMode::Approx) if f32 => {
                            let bi = lanes::as_int(&mut t.b, xs[1]);
                            t.approx_div_f32(x, y, bi)
                        }
                        ArithOp::Div(_) => t.b.ins().fdiv(x, y),
                        _ => {
                            let z = lanes::bitcast(&mut t.b, fty, xs[2]);
                            t.b.ins().fma(x, y, z)
                        }
                    };
                    t.float_result(r, fty, fm.sat, ftz, canon.then_some(nan))
                };
                if looped {
                    let ws: Vec<&WarpValue> = ops.iter().collect();
                    self.vector_loop(&ws, each)
                } else {
                    let v = (0..n)
                        .map(|k| {
                            let xs: Vec<Value> = ops.iter().map(|o| o.v[k]).collect();
                            each(self, &xs)
                        })
                        .collect();
                    WarpValue { wide: !f32, v }
                }
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

    /// Applies `.sat`, the canonical NaN `nan` (`None`: the result's NaN bits are never
    /// observed, `crate::ir::analysis::nan`) and `.ftz` to a float result: float vectors
    /// (`FuncTranslator::write` stores them as they are), int bits with `.ftz`.
    pub(crate) fn float_result(
        &mut self,
        r: Value,
        fty: cranelift_codegen::ir::Type,
        sat: bool,
        ftz: bool,
        nan: Option<u64>,
    ) -> Value {
        let f32 = fty == F32X4;
        let fconst = |tx: &mut Self, x: u64| {
            let bytes: Vec<u8> = if f32 {
                (0..4).flat_map(|_| (x as u32).to_le_bytes()).collect()
            } else {
                (0..2).flat_map(|_| x.to_le_bytes()).collect()
            };
            lanes::vconst(&mut tx.b, fty, bytes)
        };
        let fbits = |x: f64| {
            if f32 {
                (x as f32).to_bits() as u64
            } else {
                x.to_bits()
            }
        };
        let mut r = r;
        if sat {
            let zero = fconst(self, fbits(0.0));
            let one = fconst(self, fbits(1.0));
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
        if let Some(nan) = nan {
            let un = self.b.ins().fcmp(FloatCC::Unordered, r, r);
            let un = lanes::bitcast(&mut self.b, fty, un);
            let c = fconst(self, nan);
            r = self.b.ins().bitselect(un, c, r);
        }
        if ftz {
            lanes::flush_f32(&mut self.b, r)
        } else {
            r
        }
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

impl FuncTranslator<'_> {
    pub(crate) fn minmax_ext(
        &mut self,
        op: MinMaxOp,
        ty: Type,
        dst: RegId,
        a: &Operand,
        b: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        if op.packed || !ty.is_float() {
            let rty = if op.packed { Type::B32 } else { ty };
            let x = self.read(a, rty, true)?;
            let y = self.read(b, rty, true)?;
            let signed = ty.is_signed();
            let vty = if op.packed { I16X8 } else { I32X4 };
            let zero = lanes::splat32(&mut self.b, 0);
            let zero = lanes::bitcast(&mut self.b, vty, zero);
            let bd = &mut self.b;
            let r = lanes::map2(&x, &y, |p, q| {
                let p = lanes::bitcast(bd, vty, p);
                let q = lanes::bitcast(bd, vty, q);
                let mut r = match (op.max, signed) {
                    (false, true) => bd.ins().smin(p, q),
                    (false, false) => bd.ins().umin(p, q),
                    (true, true) => bd.ins().smax(p, q),
                    (true, false) => bd.ins().umax(p, q),
                };
                if op.relu {
                    r = bd.ins().smax(r, zero);
                }
                lanes::bitcast(bd, I32X4, r)
            });
            return self.write(dst, rty, r, mask);
        }
        let f32 = ty == Type::F32;
        let fty = if f32 { F32X4 } else { F64X2 };
        let mut x = self.read(a, ty, false)?;
        let mut y = self.read(b, ty, false)?;
        if op.ftz && f32 {
            x = lanes::map1(&x, |&v| lanes::flush_f32(&mut self.b, v));
            y = lanes::map1(&y, |&v| lanes::flush_f32(&mut self.b, v));
        }
        let sign = if f32 { 0x8000_0000 } else { 1u64 << 63 };
        let sign = lanes::splat_w(&mut self.b, !f32, sign).v[0];
        let canon = crate::jit::helpers::canonical_nan(ty.bits());
        let canon = lanes::splat_w(&mut self.b, !f32, canon).v[0];
        let mut v = Vec::with_capacity(x.v.len());
        for k in 0..x.v.len() {
            let (mut p, mut q) = (x.v[k], y.v[k]);
            let mut xs = None;
            if op.xorsign_abs {
                let t = self.b.ins().bxor(p, q);
                xs = Some(self.b.ins().band(t, sign));
                p = self.b.ins().band_not(p, sign);
                q = self.b.ins().band_not(q, sign);
            }
            let mut r = self.minmax(op.max, fty, p, q, Some(canon));
            if op.nan {
                let un = self.any_nan(fty, p, q);
                r = self.b.ins().bitselect(un, canon, r);
            }
            if let Some(xs) = xs {
                let rn = self.any_nan(fty, r, r);
                let t = self.b.ins().bor(r, xs);
                r = self.b.ins().bitselect(rn, r, t);
            }
            v.push(r);
        }
        self.write(dst, ty, WarpValue { wide: !f32, v }, mask)
    }

    /// Lanes where `p` or `q` (int bits of floats of `fty`) is NaN, as an int mask.
    pub(crate) fn any_nan(
        &mut self,
        fty: cranelift_codegen::ir::Type,
        p: Value,
        q: Value,
    ) -> Value {
        let fp = lanes::bitcast(&mut self.b, fty, p);
        let fq = lanes::bitcast(&mut self.b, fty, q);
        self.b.ins().fcmp(FloatCC::Unordered, fp, fq)
    }
}
