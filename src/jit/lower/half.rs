//! Half-precision arithmetic ([`InstKind::Half`]): `neg`/`abs` without `.ftz` are sign-bit
//! operations on the vectors (a NaN gives the canonical NaN); everything else goes through one `ptxjit_half` helper call
//! per warp instruction, which applies `crate::ops::half` (the interpreter's semantics) to
//! the active lanes.
//!
//! [`InstKind::Half`]: crate::ir::InstKind::Half

use crate::ir::{HalfMode, HalfOp, Operand, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16X8, I32X4};
use cranelift_codegen::ir::InstBuilder;

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
