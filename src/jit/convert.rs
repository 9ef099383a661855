//! `cvt`: type conversions.
//!
//! Inline: integer <-> integer without `.sat` (sign/zero extension per the source type,
//! truncation by the destination write), `cvt.rn.{f32,f64}.{s,u}{8,16,32}` (exact or
//! correctly rounded by SSE), and `cvt.{rni,rzi,rmi,rpi}.{s,u}{8,16,32}.f32`
//! (round, then saturating conversion; NaN -> 0). Everything else goes through the
//! `ptxjit_cvt` helper (the interpreter's scalar semantics).

use super::helpers::{self, Helper};
use super::lanes::{self, W};
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::ir::{Operand, RegId, Rnd, Type};
use cranelift_codegen::ir::types::{F32X4, F64X2, I32X4};
use cranelift_codegen::ir::InstBuilder;

fn int_like(t: Type) -> bool {
    (t.is_int() || t.is_bits()) && t.bits() <= 64
}

impl FnTx<'_> {
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
        if !helpers::scalar_cvt_supported(dst_ty, src_ty, rnd) {
            return Err(self.unsupported(self.cur_text()));
        }
        let a = self.read(src, src_ty, false)?;
        self.spill(&a, SCRATCH_DATA);
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(
            &mut self.b,
            helpers::cvt_desc(dst_ty, src_ty, rnd, ftz, sat),
        );
        let pa = self.scratch_addr(SCRATCH_DATA);
        let po = self.scratch_addr(SCRATCH_DATA + 256);
        let h = self.helper(Helper::Cvt)?;
        self.b.ins().call(h, &[desc, bits, pa, po]);
        let out = self.unspill(dst_ty.bits() > 32, SCRATCH_DATA + 256);
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
    ) -> Result<Option<W>, JitError> {
        let dwide = dst_ty.bits() > 32;
        if int_like(dst_ty) && int_like(src_ty) {
            if sat && (dst_ty.is_int() && dst_ty != src_ty) {
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
        if src_ty == Type::F32
            && dst_ty.is_int()
            && dst_ty.bits() <= 32
            && matches!(rnd, Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi))
        {
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
                let f = match rnd {
                    Some(Rnd::Rni) => self.b.ins().nearest(f),
                    Some(Rnd::Rmi) => self.b.ins().floor(f),
                    Some(Rnd::Rpi) => self.b.ins().ceil(f),
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
        Ok(None)
    }
}
