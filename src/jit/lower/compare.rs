//! `set`: a comparison written as all ones / 1.0 / 0 instead of a predicate, and the
//! packed `setp.f16x2` / `setp.bf16x2`.

use crate::ir::{ArithOp, BoolOp, CmpOp, Operand, PredSrc, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::lanewise;
use crate::jit::translate::lanes::{WarpValue, N32};
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, F64X2};
use cranelift_codegen::ir::{InstBuilder, Value};

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn set(
        &mut self,
        cmp: CmpOp,
        dty: Type,
        ty: Type,
        ftz: bool,
        dst: RegId,
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let mut r = self.compare_masks(cmp, ty, ftz, a, b, mask)?;
        if let Some((op, c)) = combine {
            let c = self.read_pred(&Operand::Reg(c.reg), c.negate)?;
            r = r
                .iter()
                .zip(&c)
                .map(|(&x, &y)| match op {
                    BoolOp::And => self.b.ins().band(x, y),
                    BoolOp::Or => self.b.ins().bor(x, y),
                    BoolOp::Xor => self.b.ins().bxor(x, y),
                })
                .collect();
        }
        // The masks are all ones / all zeros per lane: 0xffffffff / 0 as they are.
        // Floats get 1.0 in their format (`crate::ops::set_value`).
        let one = match dty {
            Type::F32 => Some(0x3f80_0000),
            Type::F16 => Some(0x3c00),
            Type::BF16 => Some(0x3f80),
            _ => None,
        };
        let v: Vec<Value> = match one {
            Some(one) => {
                let one = lanes::splat32(&mut self.b, one);
                r.iter().map(|&x| self.b.ins().band(x, one)).collect()
            }
            None => r,
        };
        self.write(dst, dty, WarpValue::narrow(v), mask)
    }
}

impl FuncTranslator<'_> {
    /// `setp.f16x2 p|q` / `setp.bf16x2 p|q` (`ty`): the halves are compared by the
    /// scalar helper (`crate::ops`), the low halves into `p`, the high halves into `q`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn setp_packed(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        dst_lo: Option<RegId>,
        dst_hi: Option<RegId>,
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let x = self.read(a, Type::B32, false)?;
        let y = self.read(b, Type::B32, false)?;
        let c = match combine {
            Some((op, c)) => Some((op, self.read_pred(&Operand::Reg(c.reg), c.negate)?)),
            None => None,
        };
        let ety = if ty == Type::BF16x2 {
            Type::BF16
        } else {
            Type::F16
        };
        for (half, dst) in [(0, dst_lo), (1, dst_hi)] {
            let Some(dst) = dst else { continue };
            let (xs, ys) = if half == 0 {
                (x.clone(), y.clone())
            } else {
                (
                    lanes::map1(&x, |&v| self.b.ins().ushr_imm_u(v, 16)),
                    lanes::map1(&y, |&v| self.b.ins().ushr_imm_u(v, 16)),
                )
            };
            let mut r = self.compare_helper_vals(cmp, ety, ftz, &xs, &ys, mask)?;
            if let Some((op, cv)) = &c {
                r = r
                    .iter()
                    .zip(cv)
                    .map(|(&t, &p)| match op {
                        BoolOp::And => self.b.ins().band(t, p),
                        BoolOp::Or => self.b.ins().bor(t, p),
                        BoolOp::Xor => self.b.ins().bxor(t, p),
                    })
                    .collect();
            }
            self.write_pred(dst, &r, mask)?;
        }
        Ok(())
    }
}

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn setp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        dst: Option<RegId>,
        dst_neg: Option<RegId>,
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let r = self.compare_masks(cmp, ty, ftz, a, b, mask)?;
        // The bit form too where it is cheaper from scalars (the vector form is then
        // left unused by a branch or guard in the block, and Cranelift drops it).
        let bits = match (combine, mask.unguarded) {
            (None, true) => self.affine_cmp_bits(cmp, ty, a, b)?,
            _ => None,
        };
        // The complement `q` only where the second destination is written.
        let neg = dst_neg.is_some();
        // A vector form from the bits (a splat and two operations per vector) where the
        // compare of a run takes an add and two to four (`ne`, signed `le`/`ge`,
        // unsigned orders; x86 compares signed `gt` and `eq` only), in convergent code
        // only (a merging write, as in hist_shared's loop, keeps the compare as
        // before): the file keeps it when the predicate is live after the block
        // (block_sum's `tid != 0` across its last barriers). The bits are those of the compare in
        // every lane the write keeps (an unguarded convergent write also sets the lanes
        // of no thread, which nothing reads).
        let costly = match cmp {
            CmpOp::Ne => true,
            CmpOp::Le | CmpOp::Ge => true,
            CmpOp::Lt | CmpOp::Gt => !ty.is_signed(),
            _ => false,
        };
        let bits_vec = match bits {
            Some(x) if costly && !mask.merge => Some(x),
            _ => None,
        };
        let (p, q): (Vec<Value>, Vec<Value>) = match (combine, bits_vec) {
            (None, Some(x)) => {
                let p = lanes::mask_from_bits(&mut self.b, x);
                let q = match neg {
                    true => {
                        let nx = self.b.ins().bnot(x);
                        lanes::mask_from_bits(&mut self.b, nx)
                    }
                    false => Vec::new(),
                };
                (p, q)
            }
            (None, None) => {
                let q = match neg {
                    true => r.iter().map(|&x| self.b.ins().bnot(x)).collect(),
                    false => Vec::new(),
                };
                (r, q)
            }
            (Some((bop, src)), _) => {
                let c = self.read_pred(&Operand::Reg(src.reg), src.negate)?;
                let mut p = Vec::with_capacity(N32);
                let mut q = Vec::with_capacity(N32);
                for k in 0..N32 {
                    let f = |b: &mut cranelift_frontend::FunctionBuilder, x: Value| match bop {
                        BoolOp::And => b.ins().band(x, c[k]),
                        BoolOp::Or => b.ins().bor(x, c[k]),
                        BoolOp::Xor => b.ins().bxor(x, c[k]),
                    };
                    p.push(f(&mut self.b, r[k]));
                    if neg {
                        let nr = self.b.ins().bnot(r[k]);
                        q.push(f(&mut self.b, nr));
                    }
                }
                (p, q)
            }
        };
        if let Some(d) = dst {
            self.write_pred(d, &p, mask)?;
            if let Some(x) = bits {
                self.pred_bits_set(d, x);
            }
        }
        if let Some(d) = dst_neg {
            self.write_pred(d, &q, mask)?;
            if let Some(x) = bits {
                let nx = self.b.ins().bnot(x);
                self.pred_bits_set(d, nx);
            }
        }
        Ok(())
    }

    /// The lane masks of `a cmp b` (type `ty`) for the lanes of `mask`.
    pub(crate) fn compare_masks(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        a: &Operand,
        b: &Operand,
        mask: &mut Mask,
    ) -> Result<Vec<Value>, JitError> {
        Ok(match ty {
            Type::F32 | Type::F64 => self.float_cmp(cmp, ty, ftz, a, b)?,
            _ if (ty.is_int() || ty.is_bits()) && ty.bits() <= 64 => self.int_cmp(cmp, ty, a, b)?,
            _ => self.setp_helper(cmp, ty, ftz, a, b, mask)?,
        })
    }

    pub(crate) fn int_cmp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        a: &Operand,
        b: &Operand,
    ) -> Result<Vec<Value>, JitError> {
        let signed = ty.is_signed();
        // (signed, unsigned) condition codes.
        let (scc, ucc) = match cmp {
            CmpOp::Eq | CmpOp::Equ => (IntCC::Equal, IntCC::Equal),
            CmpOp::Ne | CmpOp::Neu => (IntCC::NotEqual, IntCC::NotEqual),
            CmpOp::Lt | CmpOp::Ltu => (IntCC::SignedLessThan, IntCC::UnsignedLessThan),
            CmpOp::Le | CmpOp::Leu => {
                (IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual)
            }
            CmpOp::Gt | CmpOp::Gtu => (IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
            CmpOp::Ge | CmpOp::Geu => (
                IntCC::SignedGreaterThanOrEqual,
                IntCC::UnsignedGreaterThanOrEqual,
            ),
            CmpOp::Num | CmpOp::Nan => {
                let c = lanes::splat32(&mut self.b, if cmp == CmpOp::Num { u32::MAX } else { 0 });
                return Ok(vec![c; N32]);
            }
        };
        let cc = if signed { scc } else { ucc };
        let x = self.read(a, ty, true)?;
        let y = self.read(b, ty, true)?;
        let m: Vec<Value> =
            x.v.iter()
                .zip(&y.v)
                .map(|(&p, &q)| self.b.ins().icmp(cc, p, q))
                .collect();
        Ok(if x.wide {
            lanes::narrow_mask(&mut self.b, &m)
        } else {
            m
        })
    }

    pub(crate) fn float_cmp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        a: &Operand,
        b: &Operand,
    ) -> Result<Vec<Value>, JitError> {
        let f32 = ty == Type::F32;
        let fty = if f32 { F32X4 } else { F64X2 };
        // Float vectors (no bitcast from the register file's integer form).
        let mut x = self.read_float(a, ty)?;
        let mut y = self.read_float(b, ty)?;
        if ftz && f32 {
            x = lanes::map1(&x, |&v| lanes::flush_f32(&mut self.b, v));
            y = lanes::map1(&y, |&v| lanes::flush_f32(&mut self.b, v));
        }
        let mut m = Vec::with_capacity(x.v.len());
        for k in 0..x.v.len() {
            let p = lanes::bitcast(&mut self.b, fty, x.v[k]);
            let q = lanes::bitcast(&mut self.b, fty, y.v[k]);
            let mut f = |cc| self.b.ins().fcmp(cc, p, q);
            let r = match cmp {
                CmpOp::Eq => f(FloatCC::Equal),
                CmpOp::Ne => {
                    let o = f(FloatCC::Ordered);
                    let n = f(FloatCC::NotEqual);
                    self.b.ins().band(o, n)
                }
                CmpOp::Lt => f(FloatCC::LessThan),
                CmpOp::Le => f(FloatCC::LessThanOrEqual),
                CmpOp::Gt => f(FloatCC::GreaterThan),
                CmpOp::Ge => f(FloatCC::GreaterThanOrEqual),
                CmpOp::Equ => {
                    let u = f(FloatCC::Unordered);
                    let e = f(FloatCC::Equal);
                    self.b.ins().bor(u, e)
                }
                CmpOp::Neu => f(FloatCC::NotEqual),
                CmpOp::Ltu => f(FloatCC::UnorderedOrLessThan),
                CmpOp::Leu => f(FloatCC::UnorderedOrLessThanOrEqual),
                CmpOp::Gtu => f(FloatCC::UnorderedOrGreaterThan),
                CmpOp::Geu => f(FloatCC::UnorderedOrGreaterThanOrEqual),
                CmpOp::Num => f(FloatCC::Ordered),
                CmpOp::Nan => f(FloatCC::Unordered),
            };
            m.push(r);
        }
        Ok(if f32 {
            m
        } else {
            lanes::narrow_mask(&mut self.b, &m)
        })
    }

    pub(crate) fn setp_helper(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        a: &Operand,
        b: &Operand,
        mask: &mut Mask,
    ) -> Result<Vec<Value>, JitError> {
        if ty.bits() > 64
            || !(matches!(ty, Type::F16 | Type::BF16)
                || lanewise::scalar_arith_supported(ArithOp::Add, ty))
        {
            return Err(self.internal(self.cur_text()));
        }
        let x = self.read(a, ty, false)?;
        let y = self.read(b, ty, false)?;
        self.compare_helper_vals(cmp, ty, ftz, &x, &y, mask)
    }

    /// `x cmp y` (values of type `ty`) for the lanes of `mask`, lane by lane in
    /// `crate::ops` through the setp helper.
    pub(crate) fn compare_helper_vals(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        x: &WarpValue,
        y: &WarpValue,
        mask: &mut Mask,
    ) -> Result<Vec<Value>, JitError> {
        let desc = lanewise::setp_desc(cmp, ty, ftz);
        self.call_lanewise_desc(Helper::Setp, desc, mask, &[x.clone(), y.clone()], 2)?;
        Ok(self.lanewise_result(false).v)
    }

    pub(crate) fn selp(
        &mut self,
        ty: Type,
        dst: RegId,
        a: &Operand,
        b: &Operand,
        cond: PredSrc,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let c = self.read_pred(&Operand::Reg(cond.reg), cond.negate)?;
        let x = self.read(a, ty, false)?;
        let y = self.read(b, ty, false)?;
        let m = if x.wide {
            lanes::mask64(&mut self.b, &c)
        } else {
            c
        };
        let r = lanes::select_w(&mut self.b, &m, &x, &y);
        self.write(dst, ty, r, mask)
    }
}
