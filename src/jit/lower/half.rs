//! Half-precision arithmetic ([`InstKind::Half`]): `neg`/`abs` without `.ftz` are sign-bit
//! operations on the vectors (a NaN gives the canonical NaN); in the optimized tier,
//! `add`/`sub`/`mul` of f16, bf16 and their pairs without `.ftz`, `.sat` are the f32
//! operation on the exactly
//! converted operands, rounded to the half format (`convert::half`): f32 carries at
//! least 2p + 2 bits (p = 11 for f16, 8 for bf16), so that double rounding is
//! innocuous (Figueroa, "When is double rounding innocuous?", 1995) and the result is
//! the correctly rounded one `crate::ops::half` computes; everything else goes through
//! one `ptxjit_half` helper call per warp instruction, which applies `crate::ops::half`
//! (the interpreter's semantics) to the active lanes.
//!
//! [`InstKind::Half`]: crate::ir::InstKind::Half

use crate::ir::{HalfMode, HalfOp, Operand, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::lower::convert::half as half_cvt;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I16X8, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

impl FuncTranslator<'_> {
    pub(crate) fn half(
        &mut self,
        op: HalfOp,
        ty: Type,
        mode: HalfMode,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let packed = matches!(ty, Type::F16x2 | Type::BF16x2);
        if matches!(op, HalfOp::Neg | HalfOp::Abs) && !mode.ftz {
            let Some(src) = srcs.first() else {
                return Err(self.internal(self.cur_text()));
            };
            let a = self.read(src, ty, false)?;
            let sign: u32 = if packed { 0x8000_8000 } else { 0x8000 };
            let k = lanes::splat32(&mut self.b, if op == HalfOp::Neg { sign } else { !sign });
            // A NaN half gives the canonical NaN 0x7fff (as `ops::half`, an H100's
            // results): per 16-bit lane, |h| above the infinity's bits.
            let inf = if matches!(ty, Type::F16 | Type::F16x2) {
                0x7c00_7c00
            } else {
                0x7f80_7f80
            };
            let inf = lanes::splat32(&mut self.b, inf);
            let inf = lanes::bitcast(&mut self.b, I16X8, inf);
            let low = lanes::splat32(&mut self.b, 0x7fff_7fff);
            let low = lanes::bitcast(&mut self.b, I16X8, low);
            let r = lanes::map1(&a, |&v| {
                let r = if op == HalfOp::Neg {
                    self.b.ins().bxor(v, k)
                } else {
                    // The container is zero-extended beyond 16 bits: clearing the sign
                    // bit keeps it so.
                    self.b.ins().band(v, k)
                };
                let h = lanes::bitcast(&mut self.b, I16X8, v);
                let m = self.b.ins().band(h, low);
                let isnan = self.b.ins().icmp(IntCC::SignedGreaterThan, m, inf);
                let r = lanes::bitcast(&mut self.b, I16X8, r);
                let r = self.b.ins().bitselect(isnan, low, r);
                lanes::bitcast(&mut self.b, I32X4, r)
            });
            return self.write(dst, ty, r, mask);
        }
        // (In the optimized tier: about 60 CLIF instructions per container against a
        // helper call, where the quick tier compiles less.)
        let plain = !(mode.ftz || mode.sat || mode.relu || mode.oob || self.quick);
        if plain && matches!(op, HalfOp::Add | HalfOp::Sub | HalfOp::Mul) && srcs.len() == 2 {
            let a = self.read(&srcs[0], ty, false)?;
            let b = self.read(&srcs[1], ty, false)?;
            let bf = matches!(ty, Type::BF16 | Type::BF16x2);
            let bd = &mut self.b;
            let r = lanes::map2(&a, &b, |x, y| match packed {
                false => half_arith(bd, op, bf, x, y),
                true => {
                    let low = lanes::splat32(bd, 0xffff);
                    let (xl, yl) = (bd.ins().band(x, low), bd.ins().band(y, low));
                    let (xh, yh) = (bd.ins().ushr_imm_u(x, 16), bd.ins().ushr_imm_u(y, 16));
                    let rl = half_arith(bd, op, bf, xl, yl);
                    let rh = half_arith(bd, op, bf, xh, yh);
                    let rh = bd.ins().ishl_imm_u(rh, 16);
                    bd.ins().bor(rl, rh)
                }
            });
            return self.write(dst, ty, r, mask);
        }
        let mut vals = Vec::with_capacity(3);
        for s in srcs.iter().take(3) {
            vals.push(self.read(s, ty, false)?);
        }
        let desc = crate::ops::half::encode(op, ty, mode);
        self.call_lanewise_desc(Helper::Half, desc, mask, &vals, 3)?;
        let r = self.lanewise_result(false);
        self.write(dst, ty, r, mask)
    }
}

/// `add`/`sub`/`mul` (`op`) of the f16 (or, `bf`, bf16) values in the low 16 bits of
/// `x` and `y`'s lanes (i32x4), rounded to nearest even (see the module doc): the
/// result zero-extended in the lanes, NaN the canonical NaN.
fn half_arith(b: &mut FunctionBuilder, op: HalfOp, bf: bool, x: Value, y: Value) -> Value {
    let widen = |b: &mut FunctionBuilder, v: Value| {
        let w = match bf {
            true => half_cvt::bf16_to_f32(b, v),
            false => half_cvt::f16_to_f32(b, v),
        };
        lanes::bitcast(b, F32X4, w)
    };
    let (fx, fy) = (widen(b, x), widen(b, y));
    let r = match op {
        HalfOp::Add => b.ins().fadd(fx, fy),
        HalfOp::Sub => b.ins().fsub(fx, fy),
        _ => b.ins().fmul(fx, fy),
    };
    match bf {
        true => half_cvt::f32_to_bf16_rn(b, r),
        false => half_cvt::f32_to_f16_rn(b, r),
    }
}
