//! `cvt`: type conversions.
//!
//! Inline: integer <-> integer without `.sat` (sign/zero extension per the source type,
//! truncation by the destination write), `cvt.rn.{f32,f64}.{s,u}{8,16,32}` (exact or
//! correctly rounded by SSE), and `cvt.{rni,rzi,rmi,rpi}.{s,u}{8,16,32}.f32`
//! (round, then saturating conversion; NaN -> 0), f16/bf16 <-> f32 (`convert_half`).
//! Everything else goes through the `ptxjit_cvt` helper (the interpreter's scalar
//! semantics).
//!
//! The narrow-format `cvt` forms and `cvt.pack` ([`InstKind::CvtX`]): the operands go
//! to stack slots and one `ptxjit_cvtx` helper call applies `crate::ops::convert`
//! to the active lanes (the function the interpreter uses); `cvt.rn.{f16,bf16}x2.f32`
//! runs in vectors (`half`).
//!
//! [`InstKind::CvtX`]: crate::ir::InstKind::CvtX

pub(crate) mod half;

use crate::ir::{CvtXOp, CvtXRnd, MiniFmt, Operand, RegId, Rnd, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::lanewise;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, F64X2, I32, I32X4, I64, I64X2, I8X16};
use cranelift_codegen::ir::{ConstantData, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

fn int_like(t: Type) -> bool {
    (t.is_int() || t.is_bits()) && t.bits() <= 64
}

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn cvt(
        &mut self,
        dst_ty: Type,
        src_ty: Type,
        rnd: Option<Rnd>,
        ftz: bool,
        sat: bool,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        if let Some(v) = self.cvt_inline(dst_ty, src_ty, rnd, ftz, sat, src)? {
            return self.write(dst, dst_ty, v, mask);
        }
        if !lanewise::scalar_cvt_supported(dst_ty, src_ty) {
            return Err(self.internal(self.cur_text()));
        }
        let a = self.read(src, src_ty, false)?;
        let desc = lanewise::cvt_desc(dst_ty, src_ty, rnd, ftz, sat);
        self.call_lanewise_desc(Helper::Cvt, desc, mask, &[a], 1)?;
        let out = self.lanewise_result(dst_ty.bits() > 32);
        self.write(dst, dst_ty, out, mask)
    }

    fn cvt_inline(
        &mut self,
        dst_ty: Type,
        src_ty: Type,
        rnd: Option<Rnd>,
        ftz: bool,
        sat: bool,
        src: &Operand,
    ) -> Result<Option<WarpValue>, JitError> {
        let dwide = dst_ty.bits() > 32;
        if let Some(v) = self.half_inline(dst_ty, src_ty, rnd, ftz, sat, src)? {
            return Ok(Some(v));
        }
        if int_like(dst_ty) && int_like(src_ty) {
            if sat && dst_ty != src_ty {
                return Ok(None);
            }
            let a = self.read(src, src_ty, true)?;
            return Ok(Some(if dwide && !a.wide {
                lanes::widen_w(&mut self.b, &a, src_ty.is_signed())
            } else if !dwide && a.wide {
                lanes::narrow_w(&mut self.b, &a)
            } else {
                a
            }));
        }
        // Integer (up to 32 bits) -> f32 / f64, round to nearest.
        if src_ty.is_int() && src_ty.bits() <= 32 && matches!(rnd, None | Some(Rnd::Rn)) && !sat {
            let signed = src_ty.is_signed();
            let a = self.read(src, src_ty, true)?;
            return Ok(match dst_ty {
                Type::F32 => Some(lanes::map1(&a, |&x| {
                    let f = if signed {
                        self.b.ins().fcvt_from_sint(F32X4, x)
                    } else {
                        self.b.ins().fcvt_from_uint(F32X4, x)
                    };
                    lanes::as_int(&mut self.b, f)
                })),
                Type::F64 => {
                    let w = lanes::widen_w(&mut self.b, &a, signed);
                    Some(lanes::map1(&w, |&x| {
                        let f = if signed {
                            self.b.ins().fcvt_from_sint(F64X2, x)
                        } else {
                            self.b.ins().fcvt_from_uint(F64X2, x)
                        };
                        lanes::as_int(&mut self.b, f)
                    }))
                }
                _ => None,
            });
        }
        // f32 -> integer (up to 32 bits) with an integer rounding mode.
        if src_ty == Type::F32 && dst_ty.is_int() && dst_ty.bits() <= 32 {
            let signed = dst_ty.is_signed();
            let dw = dst_ty.bits();
            let a = self.read(src, src_ty, false)?;
            let v = lanes::map1(&a, |&x| {
                let x = if ftz {
                    lanes::flush_f32(&mut self.b, x)
                } else {
                    x
                };
                let f = lanes::as_f32(&mut self.b, x);
                // A missing modifier truncates, as `.rzi` (ops::cvt).
                let f = match rnd {
                    Some(Rnd::Rni | Rnd::Rn) => self.b.ins().nearest(f),
                    Some(Rnd::Rmi | Rnd::Rm) => self.b.ins().floor(f),
                    Some(Rnd::Rpi | Rnd::Rp) => self.b.ins().ceil(f),
                    _ => f,
                };
                let i = if signed {
                    self.b.ins().fcvt_to_sint_sat(I32X4, f)
                } else {
                    self.b.ins().fcvt_to_uint_sat(I32X4, f)
                };
                if dw < 32 {
                    if signed {
                        let lo = lanes::splat32(&mut self.b, (-(1i32 << (dw - 1))) as u32);
                        let hi = lanes::splat32(&mut self.b, (1u32 << (dw - 1)) - 1);
                        let t = self.b.ins().smax(i, lo);
                        self.b.ins().smin(t, hi)
                    } else {
                        let hi = lanes::splat32(&mut self.b, (1u32 << dw) - 1);
                        self.b.ins().umin(i, hi)
                    }
                } else {
                    i
                }
            });
            return Ok(Some(v));
        }
        // f32/f64 -> any integer: round in vectors, convert lane by lane (scalar
        // saturating conversions; NaN -> 0).
        if matches!(src_ty, Type::F32 | Type::F64) && dst_ty.is_int() {
            return self
                .float_to_int_lanes(dst_ty, src_ty, rnd, ftz, src)
                .map(Some);
        }
        if matches!(src_ty, Type::F32 | Type::F64) && matches!(dst_ty, Type::F32 | Type::F64) {
            return self.float_to_float(dst_ty, src_ty, rnd, ftz, sat, src);
        }
        Ok(None)
    }

    /// f16/bf16 <-> f32 without `.sat` (f32 -> f16/bf16 only `.rn`), in vectors
    /// (`half`).
    fn half_inline(
        &mut self,
        dst_ty: Type,
        src_ty: Type,
        rnd: Option<Rnd>,
        ftz: bool,
        sat: bool,
        src: &Operand,
    ) -> Result<Option<WarpValue>, JitError> {
        if sat {
            return Ok(None);
        }
        let f: fn(&mut FunctionBuilder, Value) -> Value = match (dst_ty, src_ty, rnd) {
            (Type::F32, Type::F16, None) => half::f16_to_f32,
            (Type::F32, Type::BF16, None) => half::bf16_to_f32,
            (Type::F16, Type::F32, Some(Rnd::Rn)) => half::f32_to_f16_rn,
            (Type::BF16, Type::F32, Some(Rnd::Rn)) => half::f32_to_bf16_rn,
            _ => return Ok(None),
        };
        let a = self.read(src, src_ty, false)?;
        let each = |t: &mut Self, x: Value| {
            // `.ftz` flushes f32 inputs and results (only bf16 -> f32 can give a
            // subnormal result).
            let x = if ftz && src_ty == Type::F32 {
                lanes::flush_f32(&mut t.b, x)
            } else {
                x
            };
            let r = f(&mut t.b, x);
            if ftz && dst_ty == Type::F32 {
                lanes::flush_f32(&mut t.b, r)
            } else {
                r
            }
        };
        // 15 to 30 CLIF instructions per vector: the quick tier loops over the vectors.
        if self.quick {
            return Ok(Some(self.vector_loop(&[&a], |t, x| each(t, x[0]))));
        }
        let v = a.v.iter().map(|&x| each(self, x)).collect();
        Ok(Some(WarpValue { wide: a.wide, v }))
    }

    /// Rounds float lanes per an integer rounding modifier (none = truncate).
    fn round_int(&mut self, f: Value, rnd: Option<Rnd>) -> Value {
        match rnd {
            Some(Rnd::Rni | Rnd::Rn) => self.b.ins().nearest(f),
            Some(Rnd::Rmi | Rnd::Rm) => self.b.ins().floor(f),
            Some(Rnd::Rpi | Rnd::Rp) => self.b.ins().ceil(f),
            _ => self.b.ins().trunc(f),
        }
    }

    fn float_to_int_lanes(
        &mut self,
        dst_ty: Type,
        src_ty: Type,
        rnd: Option<Rnd>,
        ftz: bool,
        src: &Operand,
    ) -> Result<WarpValue, JitError> {
        let a = self.read(src, src_ty, false)?;
        let f32 = src_ty == Type::F32;
        let fty = if f32 { F32X4 } else { F64X2 };
        let dw = dst_ty.bits();
        let signed = dst_ty.is_signed();
        let ity = if dw > 32 { I64 } else { I32 };
        let (lo, hi): (i64, i64) = if signed {
            (-(1i64 << (dw.min(63) - 1)), ((1u64 << (dw - 1)) - 1) as i64)
        } else {
            (
                0,
                if dw >= 64 {
                    -1
                } else {
                    ((1u64 << dw) - 1) as i64
                },
            )
        };
        let nan_int = match (dw, signed) {
            (64, _) => i64::MIN,
            (_, true) => lo as u32 as i64,
            _ => (1u32 << (dw - 1)) as i64,
        };
        let mut out_lanes = Vec::with_capacity(32);
        for &p in &a.v {
            let x = if ftz && f32 {
                lanes::flush_f32(&mut self.b, p)
            } else {
                p
            };
            let f = lanes::bitcast(&mut self.b, fty, x);
            let f = self.round_int(f, rnd);
            for l in 0..(if f32 { 4 } else { 2 }) {
                let e = self.b.ins().extractlane(f, l as u8);
                let i = if signed {
                    self.b.ins().fcvt_to_sint_sat(ity, e)
                } else {
                    self.b.ins().fcvt_to_uint_sat(ity, e)
                };
                let i = if dw < 32 {
                    let lo = self.b.ins().iconst(I32, lo as u32 as i64);
                    let hi = self.b.ins().iconst(I32, hi as u32 as i64);
                    if signed {
                        let t = self.b.ins().smax(i, lo);
                        self.b.ins().smin(t, hi)
                    } else {
                        self.b.ins().umin(i, hi)
                    }
                } else {
                    i
                };
                // A NaN gives the destination's sign bit on the GPU for f64 sources and
                // 64-bit destinations, this path's cases (`ops::cvt`).
                let nan = self.b.ins().fcmp(FloatCC::Unordered, e, e);
                let pat = self.b.ins().iconst(ity, nan_int);
                let i = self.b.ins().select(nan, pat, i);
                out_lanes.push(i);
            }
        }
        // Reassemble vectors of the destination's container.
        let (vty, per) = if dw > 32 { (I64X2, 2) } else { (I32X4, 4) };
        let mut v = Vec::with_capacity(32 / per);
        for chunk in out_lanes.chunks(per) {
            let mut acc = self.b.ins().splat(vty, chunk[0]);
            for (l, &x) in chunk.iter().enumerate().skip(1) {
                acc = self.b.ins().insertlane(acc, x, l as u8);
            }
            v.push(acc);
        }
        Ok(WarpValue { wide: dw > 32, v })
    }

    /// f32 <-> f64 and same-type float conversions (`ops::cvt` rules: NaN -> canonical
    /// NaN, or +0 with `.sat`; `.ftz` flushes f32 inputs and results; `.sat` clamps to
    /// [+0, 1]). `None` for directed rounding of f64 -> f32.
    fn float_to_float(
        &mut self,
        dst_ty: Type,
        src_ty: Type,
        rnd: Option<Rnd>,
        ftz: bool,
        sat: bool,
        src: &Operand,
    ) -> Result<Option<WarpValue>, JitError> {
        let integral = matches!(rnd, Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi));
        if integral && dst_ty != src_ty {
            return Ok(None);
        }
        if src_ty == Type::F64 && dst_ty == Type::F32 && !matches!(rnd, None | Some(Rnd::Rn)) {
            return Ok(None);
        }
        let a = self.read(src, src_ty, false)?;
        let a = if ftz && src_ty == Type::F32 {
            lanes::map1(&a, |&x| lanes::flush_f32(&mut self.b, x))
        } else {
            a
        };
        // The converted value, as float vectors of the destination type.
        let conv: Vec<Value> = match (src_ty, dst_ty) {
            (Type::F32, Type::F64) => {
                let imm = self.b.func.dfg.immediates.push(ConstantData::from(
                    (8u8..16).chain(8..16).collect::<Vec<u8>>(),
                ));
                let mut out = Vec::with_capacity(16);
                for &p in &a.v {
                    let f = lanes::bitcast(&mut self.b, F32X4, p);
                    out.push(self.b.ins().fvpromote_low(f));
                    let b8 = lanes::bitcast(&mut self.b, I8X16, p);
                    let hi = self.b.ins().shuffle(b8, b8, imm);
                    let hf = lanes::bitcast(&mut self.b, F32X4, hi);
                    out.push(self.b.ins().fvpromote_low(hf));
                }
                out
            }
            (Type::F64, Type::F32) => {
                let imm = self.b.func.dfg.immediates.push(ConstantData::from(
                    (0u8..8).chain(16..24).collect::<Vec<u8>>(),
                ));
                let mut out = Vec::with_capacity(8);
                for k in 0..8 {
                    let lo = lanes::bitcast(&mut self.b, F64X2, a.v[2 * k]);
                    let hi = lanes::bitcast(&mut self.b, F64X2, a.v[2 * k + 1]);
                    let dl = self.b.ins().fvdemote(lo);
                    let dh = self.b.ins().fvdemote(hi);
                    let bl = lanes::bitcast(&mut self.b, I8X16, dl);
                    let bh = lanes::bitcast(&mut self.b, I8X16, dh);
                    let c = self.b.ins().shuffle(bl, bh, imm);
                    out.push(lanes::bitcast(&mut self.b, F32X4, c));
                }
                out
            }
            _ => {
                let fty = if src_ty == Type::F32 { F32X4 } else { F64X2 };
                let mut out = Vec::with_capacity(a.v.len());
                for &p in &a.v {
                    let f = lanes::bitcast(&mut self.b, fty, p);
                    out.push(if integral { self.round_int(f, rnd) } else { f });
                }
                out
            }
        };
        // NaN sources: canonical NaN (+0 with .sat). Integral rounding of a NaN is NaN,
        // and promote/demote keep NaN-ness, so the result's NaN-ness decides.
        let f32 = dst_ty == Type::F32;
        let fty = if f32 { F32X4 } else { F64X2 };
        let nan = crate::jit::helpers::canonical_nan(dst_ty.bits());
        let mut v = Vec::with_capacity(conv.len());
        for r in conv {
            let ri = lanes::as_int(&mut self.b, r);
            let out = if sat {
                let z = lanes::splat_w(&mut self.b, !f32, 0).v[0];
                let one_bits = if f32 {
                    1f32.to_bits() as u64
                } else {
                    1f64.to_bits()
                };
                let one = lanes::splat_w(&mut self.b, !f32, one_bits).v[0];
                let zf = lanes::bitcast(&mut self.b, fty, z);
                let onef = lanes::bitcast(&mut self.b, fty, one);
                let le0 = self
                    .b
                    .ins()
                    .fcmp(FloatCC::UnorderedOrLessThanOrEqual, r, zf);
                let ge1 = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, r, onef);
                let t = self.b.ins().bitselect(le0, z, ri);
                self.b.ins().bitselect(ge1, one, t)
            } else {
                let un = self.b.ins().fcmp(FloatCC::Unordered, r, r);
                let c = lanes::splat_w(&mut self.b, !f32, nan).v[0];
                self.b.ins().bitselect(un, c, ri)
            };
            v.push(if ftz && f32 {
                lanes::flush_f32(&mut self.b, out)
            } else {
                out
            });
        }
        Ok(Some(WarpValue { wide: !f32, v }))
    }
}

impl FuncTranslator<'_> {
    pub(crate) fn cvtx(
        &mut self,
        op: CvtXOp,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let (stys, dty) = op.signature();
        if let CvtXOp::FromF32 {
            fmt: fmt @ (MiniFmt::F16 | MiniFmt::BF16),
            pair: true,
            rnd: CvtXRnd::Rn,
            relu: false,
            satfinite: false,
        } = op
        {
            // `cvt.rn.{f16,bf16}x2.f32 d, a, b` in vectors: a into the upper half.
            let f = if fmt == MiniFmt::F16 {
                half::f32_to_f16_rn
            } else {
                half::f32_to_bf16_rn
            };
            let a = self.read(&srcs[0], Type::F32, false)?;
            let c = self.read(&srcs[1], Type::F32, false)?;
            let v = lanes::map2(&a, &c, |x, y| {
                let hi = f(&mut self.b, x);
                let lo = f(&mut self.b, y);
                let hi = self.b.ins().ishl_imm_u(hi, 16);
                self.b.ins().bor(hi, lo)
            });
            return self.write(dst, dty, v, mask);
        }
        let mut vals = Vec::with_capacity(3);
        for (s, t) in srcs.iter().zip(stys).take(3) {
            vals.push(self.read(s, *t, false)?);
        }
        let desc = crate::ops::convert::encode(op);
        self.call_lanewise_desc(Helper::CvtX, desc, mask, &vals, 3)?;
        let r = self.lanewise_result(false);
        self.write(dst, dty, r, mask)
    }
}
