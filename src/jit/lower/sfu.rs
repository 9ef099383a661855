//! The special functions ([`InstKind::Sfu`]: `sqrt`, `rsqrt`, `rcp`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh`): `sqrt`/`rcp` rounded to nearest are vector code, the rest goes
//! lane by lane through the `ptxjit_sfu` helper (`crate::ops::float::special`).
//!
//! [`InstKind::Sfu`]: crate::ir::InstKind::Sfu

use crate::ir::{Operand, RegId, Rnd, SfuOp, Type};
use crate::jit::abi::Helper;
use crate::jit::lower::arith::{SLOT_A, SLOT_OUT};
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{F32X4, F64X2};
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    /// `sqrt rcp rsqrt sin cos lg2 ex2 tanh` through the `ptxjit_sfu` helper (one call
    /// per warp instruction, `crate::ops::float::special` per lane).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sfu(
        &mut self,
        op: SfuOp,
        ty: Type,
        approx: bool,
        rnd: Option<Rnd>,
        ftz: bool,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        if let Some(r) = self.sfu_vector(op, ty, approx, rnd, ftz, src)? {
            return self.write(dst, ty, r, mask);
        }
        let w = self.read(src, ty, false)?;
        self.spill(&w, SLOT_A);
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(
            &mut self.b,
            crate::ops::float::special::sfu_encode(op, ty, approx, rnd, ftz),
        );
        let pa = self.scratch_addr(SLOT_A);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Sfu)?;
        self.b.ins().call(h, &[desc, bits, pa, po]);
        let r = self.unspill(ty.bits() > 32, SLOT_OUT);
        self.write(dst, ty, r, mask)
    }

    /// `sqrt` and `rcp` correctly rounded to nearest (`.rn`, or `.approx.f32`, which
    /// `ops::float::special` also computes correctly rounded) as vector code: the host's IEEE
    /// `sqrtps`/`divps` (and the f64 forms) give the same bits as `ops::float::special`, with
    /// the canonical NaN and `.ftz` applied as there. `None`: use the helper.
    pub(crate) fn sfu_vector(
        &mut self,
        op: SfuOp,
        ty: Type,
        approx: bool,
        rnd: Option<Rnd>,
        ftz: bool,
        src: &Operand,
    ) -> Result<Option<lanes::WarpValue>, JitError> {
        let f32 = ty == Type::F32;
        let nearest = matches!(rnd, None | Some(Rnd::Rn));
        // f64 `.approx` forms are upper-word approximations (helper).
        if !matches!(op, SfuOp::Sqrt | SfuOp::Rcp) || !nearest || (approx && !f32) {
            return Ok(None);
        }
        let ftz = ftz && f32;
        let w = self.read(src, ty, false)?;
        let fty = if f32 { F32X4 } else { F64X2 };
        let nan = crate::jit::helpers::canonical_nan(ty.bits());
        let one = if f32 {
            lanes::splat32(&mut self.b, 1.0f32.to_bits())
        } else {
            lanes::splat64(&mut self.b, 1.0f64.to_bits())
        };
        let one = lanes::bitcast(&mut self.b, fty, one);
        let mut v = Vec::with_capacity(w.v.len());
        for &x in &w.v {
            let x = if ftz {
                lanes::flush_f32(&mut self.b, x)
            } else {
                x
            };
            let x = lanes::bitcast(&mut self.b, fty, x);
            let r = match op {
                SfuOp::Sqrt => self.b.ins().sqrt(x),
                _ => self.b.ins().fdiv(one, x),
            };
            v.push(self.float_result(r, fty, false, ftz, nan));
        }
        Ok(Some(lanes::WarpValue { wide: !f32, v }))
    }
}
