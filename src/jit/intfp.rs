//! Inline vector code for the carry chain ([`InstKind::Carry`]), the extended `min`/`max`
//! forms ([`InstKind::MinMax`]), `copysign` and `testp`, bit-identical to
//! `crate::ops::carry` and `crate::ops::minmax`.
//!
//! The carry flag lives in a predicate register (lane masks); 64-bit forms widen it to
//! i64x2 masks and narrow the carry out back. Every form is one addition with carry:
//! `a + b + C`, `(a * b).lo/hi + c + C`, and `a - b` as `a + ~b + C` with `C = 1` for
//! `sub.cc` (the flag then means "no borrow", as `crate::ops::carry` explains). Carries
//! come from unsigned compares: `x + y` carries iff the sum is below `x`, and adding the
//! carry-in once more carries iff that wraps to 0. `mad.cc` adds to the
//! `mul.lo`/`mul.hi` product of the arithmetic lowering (inline, or its helper for
//! `mul.hi` of 64-bit types).
//!
//! [`InstKind::Carry`]: crate::ir::InstKind::Carry
//! [`InstKind::MinMax`]: crate::ir::InstKind::MinMax

use super::lanes::{self, W};
use super::translate::{FnTx, Mask};
use super::JitError;
use crate::ir::{ArithOp, CarryOp, FloatMode, MinMaxOp, MulMode, Operand, RegId, TestpOp, Type};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, F64X2, I16X8, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};

impl FnTx<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn carry(
        &mut self,
        op: CarryOp,
        ty: Type,
        dst: RegId,
        srcs: &[Operand],
        cc_in: Option<RegId>,
        cc_out: Option<RegId>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let n = if matches!(op, CarryOp::Add | CarryOp::Sub) {
            2
        } else {
            3
        };
        if srcs.len() != n {
            return Err(JitError::Codegen(format!(
                "{} has {} operands",
                self.cur_text(),
                srcs.len()
            )));
        }
        let (x, y) = match op {
            CarryOp::Add | CarryOp::Sub => (
                self.read(&srcs[0], ty, false)?,
                self.read(&srcs[1], ty, false)?,
            ),
            CarryOp::MadLo | CarryOp::MadHi => {
                let mode = if op == CarryOp::MadHi {
                    MulMode::Hi
                } else {
                    MulMode::Lo
                };
                let p = self.product(mode, ty, &srcs[..2], mask)?;
                (p, self.read(&srcs[2], ty, false)?)
            }
        };
        let wide = x.wide;
        let sub = op == CarryOp::Sub;
        // The carry-in as all-ones / zero lane masks of the operands' width: the flag,
        // or for sub.cc a constant 1 (no borrow).
        let cin = match cc_in {
            Some(r) => {
                let m = self.pred_vals(r, false);
                Some(if wide {
                    lanes::mask64(&mut self.b, &m)
                } else {
                    m
                })
            }
            None if sub => Some(vec![
                lanes::splat_w(&mut self.b, wide, u64::MAX).v[0];
                x.v.len()
            ]),
            None => None,
        };
        let mut d = Vec::with_capacity(x.v.len());
        let mut cout = Vec::with_capacity(x.v.len());
        for k in 0..x.v.len() {
            let b = &mut self.b;
            let a = x.v[k];
            let c = if sub { b.ins().bnot(y.v[k]) } else { y.v[k] };
            let s = b.ins().iadd(a, c);
            let c1 = b.ins().icmp(IntCC::UnsignedLessThan, s, a);
            let (r, f) = match &cin {
                // Subtracting the all-ones carry mask adds 1.
                Some(m) => {
                    let r = b.ins().isub(s, m[k]);
                    let c2 = b.ins().icmp(IntCC::UnsignedLessThan, r, s);
                    (r, b.ins().bor(c1, c2))
                }
                None => (s, c1),
            };
            d.push(r);
            cout.push(f);
        }
        if let Some(r) = cc_out {
            let m = if wide {
                lanes::narrow_mask(&mut self.b, &cout)
            } else {
                cout
            };
            self.write_pred(r, &m, mask)?;
        }
        self.write(dst, ty, W { wide, v: d }, mask)
    }

    /// `mul.lo`/`mul.hi` of `srcs[0..2]` as the arithmetic lowering computes it.
    fn product(
        &mut self,
        mode: MulMode,
        ty: Type,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<W, JitError> {
        let op = ArithOp::Mul(mode);
        if let Some((w, _)) = self.int_inline(op, ty, srcs, mask)? {
            return Ok(w);
        }
        Ok(self
            .arith_helper(op, ty, FloatMode::default(), srcs, mask)?
            .0)
    }

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
        let canon = super::helpers::canonical_nan(ty.bits());
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
        self.write(dst, ty, W { wide: !f32, v }, mask)
    }

    /// Lanes where `p` or `q` (int bits of floats of `fty`) is NaN, as an int mask.
    fn any_nan(&mut self, fty: cranelift_codegen::ir::Type, p: Value, q: Value) -> Value {
        let fp = lanes::bitcast(&mut self.b, fty, p);
        let fq = lanes::bitcast(&mut self.b, fty, q);
        self.b.ins().fcmp(FloatCC::Unordered, fp, fq)
    }

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
