//! The extended `min`/`max` forms ([`InstKind::MinMax`]: `.relu`, `.NaN`, `.xorsign.abs`,
//! three inputs) as inline vector code, bit-identical to `crate::ops::float::minmax`.
//!
//! [`InstKind::MinMax`]: crate::ir::InstKind::MinMax

use crate::ir::{MinMaxOp, Operand, RegId, Type};
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, F64X2, I16X8, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};

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
            let mut r = self.minmax(op.max, fty, p, q, canon);
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
