//! The narrow-format `cvt` forms and `cvt.pack` ([`InstKind::CvtX`]): the operands go
//! to stack slots and one `ptxjit_cvtx` helper call applies `crate::ops::convert::cvtx` to the
//! active lanes (the function the interpreter uses); `cvt.rn.{f16,bf16}x2.f32` runs
//! in vectors (`crate::jit::lower::convert_half`).
//!
//! [`InstKind::CvtX`]: crate::ir::InstKind::CvtX

use crate::ir::{CvtXOp, CvtXRnd, MiniFmt, Operand, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

/// Operand slots (32 lanes of 4 bytes: every source and result is at most 32 bits).
const SLOTS: [i32; 3] = [SCRATCH_DATA, SCRATCH_DATA + 256, SCRATCH_DATA + 512];
const SLOT_OUT: i32 = SCRATCH_DATA + 768;

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
                crate::jit::lower::convert_half::f32_to_f16_rn
            } else {
                crate::jit::lower::convert_half::f32_to_bf16_rn
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
        for (k, (s, t)) in srcs.iter().zip(stys).enumerate().take(SLOTS.len()) {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SLOTS[k]);
        }
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, crate::ops::convert::cvtx::encode(op));
        let p: Vec<_> = SLOTS.iter().map(|&o| self.scratch_addr(o)).collect();
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::CvtX)?;
        self.b.ins().call(h, &[desc, bits, p[0], p[1], p[2], po]);
        let r = self.unspill(false, SLOT_OUT);
        self.write(dst, dty, r, mask)
    }
}
