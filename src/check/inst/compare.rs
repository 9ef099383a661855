//! The comparison and selection family: `setp`, `set` (also the packed half forms) and
//! `selp`.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{self, BoolOp, CmpOp, InstKind, RegId, Type};
use crate::parse::ast::{self, Instruction, Operand};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// The types of `setp.ty` (`(None, ty)`) or `set.dty.ty` (`(Some(dty), ty)`).
    pub(super) fn compare_types(
        &self,
        m: &mut Mods,
        set: bool,
    ) -> Result<(Option<Type>, Type), PtxError> {
        let ts = m.types();
        let want = if set { 2 } else { 1 };
        if ts.len() < want {
            let what = if set {
                "a destination and a source type"
            } else {
                "a type"
            };
            return Err(self.err(m.loc, format!("instruction '{}' needs {what}", m.text)));
        }
        if let Some((_, l)) = ts.get(want) {
            return Err(self.err(*l, format!("instruction '{}' has too many types", m.text)));
        }
        let sty = ts[want - 1].0;
        if sty == Type::B128 {
            return Err(self.unsupported(m));
        }
        if !set {
            return Ok((None, sty));
        }
        let dty = ts[0].0;
        use Type::*;
        // The PTX ISA's `set` forms (ptxas agrees): half-precision destinations take any
        // 16/32/64-bit scalar source (`.bf16` also `.bf16`; `.f16` not `.bf16`), 16-bit
        // integer destinations only half sources, packed sources a packed destination of
        // their own format or `.u32`/`.s32`.
        let scalar = |t: Type| !matches!(t, F16x2 | BF16x2) && t.bits() >= 16 && t.bits() <= 64;
        let ok = match (dty, sty) {
            (F32, F16 | BF16) => {
                return Err(self.err(
                    ts[0].1,
                    format!(
                        "destination type .f32 is not valid with {sty} sources in '{}'",
                        m.text
                    ),
                ))
            }
            (U32 | S32, F16x2 | BF16x2) => true,
            (U32 | S32 | B32 | F32, s) => scalar(s),
            (U16 | S16, F16 | BF16) => true,
            (F16x2, F16x2) | (BF16x2, BF16x2) => true,
            (F16, s) => scalar(s) && s != BF16,
            (BF16, s) => scalar(s),
            _ => false,
        };
        if ok {
            return Ok((Some(dty), sty));
        }
        Err(self.err(
            ts[0].1,
            format!(
                "destination type {dty} is not valid with source type {sty} in '{}'",
                m.text
            ),
        ))
    }

    /// The destination register of `set` (type `dty`).
    pub(super) fn compare_dst(
        &self,
        op: &Operand,
        dty: Option<Type>,
    ) -> Result<Option<RegId>, PtxError> {
        match dty {
            Some(t) => Ok(Some(self.dst(op, t, Fit::Strict)?)),
            None => self.pred_dst(op),
        }
    }

    /// `setp`, or `set` (`set == true`: a destination type before the source type).
    pub(super) fn setp(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        set: bool,
    ) -> Result<Vec<InstKind>, PtxError> {
        const CMPS: &[&str] = &[
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
            "gtu", "geu", "num", "nan",
        ];
        let Some(cmp_name) = m.one_of(CMPS) else {
            return Err(self.err(m.loc, format!("'{}' needs a comparison operator", m.text)));
        };
        let bool_op = m.one_of(&["and", "or", "xor"]).map(|b| match b {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            _ => BoolOp::Xor,
        });
        let ftz = m.has("ftz");
        let (dty, mut ty) = self.compare_types(m, set)?;
        if ty == Type::Pred || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        if ftz && (!matches!(ty, Type::F32 | Type::F16 | Type::F16x2) || dty == Some(Type::BF16)) {
            return Err(self.err(
                m.loc,
                format!(
                    "'.ftz' is only valid for .f32, .f16 and .f16x2 sources and non-bf16 destinations in '{}'",
                    m.text
                ),
            ));
        }
        let cmp = match cmp_name {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" | "lo" => CmpOp::Lt,
            "le" | "ls" => CmpOp::Le,
            "gt" | "hi" => CmpOp::Gt,
            "ge" | "hs" => CmpOp::Ge,
            "equ" => CmpOp::Equ,
            "neu" => CmpOp::Neu,
            "ltu" => CmpOp::Ltu,
            "leu" => CmpOp::Leu,
            "gtu" => CmpOp::Gtu,
            "geu" => CmpOp::Geu,
            "num" => CmpOp::Num,
            _ => CmpOp::Nan,
        };
        let invalid = || {
            self.err(
                m.loc,
                format!(
                    "comparison '.{cmp_name}' is not valid for type {ty} in '{}'",
                    m.text
                ),
            )
        };
        if ty.is_bits() {
            if !matches!(cmp, CmpOp::Eq | CmpOp::Ne) {
                return Err(invalid());
            }
        } else if ty.is_int() {
            let unsigned_only = matches!(cmp_name, "lo" | "ls" | "hi" | "hs");
            if (unsigned_only && !ty.is_unsigned())
                || !matches!(
                    cmp,
                    CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
                )
            {
                return Err(invalid());
            }
        } else if matches!(cmp_name, "lo" | "ls" | "hi" | "hs") {
            return Err(invalid());
        }
        let want = if bool_op.is_some() { 4 } else { 3 };
        self.nops(i, m, want)?;
        let (dst, dst_neg) = match (&i.operands[0], dty) {
            (op, Some(_)) => (None, self.compare_dst(op, dty)?),
            (ast::Operand::Pair(p, q), None) => (self.pred_dst(p)?, self.pred_dst(q)?),
            (op, None) => (self.pred_dst(op)?, None),
        };
        let a = self.src(&i.operands[1], ty, Fit::Strict)?;
        let b = self.src(&i.operands[2], ty, Fit::Strict)?;
        let combine = match bool_op {
            Some(bo) => Some((bo, self.pred_src(&i.operands[3])?)),
            None => None,
        };
        let float_reg =
            |o: &ir::Operand| matches!(o, ir::Operand::Reg(r) if self.reg_ty(*r).is_float());
        if ty.is_bits() && !float_reg(&a) && !float_reg(&b) {
            // Bit-size equality is the unsigned comparison of the same width. A float
            // register (any register of the size fits a bit type) keeps the bit type,
            // which the backends compare as unsigned bits too.
            ty = ty.to_unsigned();
        }
        if matches!(ty, Type::F16x2 | Type::BF16x2) {
            if let (Some(dty), Some(dst)) = (dty, dst_neg) {
                return self.set_packed(cmp, dty, ty, ftz, dst, a, b, combine, m.loc);
            }
            return Ok(vec![InstKind::SetpPacked {
                cmp,
                ty,
                ftz,
                dst_lo: dst,
                dst_hi: dst_neg,
                a,
                b,
                combine,
            }]);
        }
        if let (Some(dty), Some(dst)) = (dty, dst_neg) {
            return Ok(vec![InstKind::Set {
                cmp,
                dty,
                ty,
                ftz,
                dst,
                a,
                b,
                combine,
            }]);
        }
        Ok(vec![InstKind::Setp {
            cmp,
            ty,
            ftz,
            dst,
            dst_neg,
            a,
            b,
            combine,
        }])
    }

    pub(super) fn selp(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if ty == Type::Pred || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 4)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        let a = self.src(&i.operands[1], ty, Fit::Strict)?;
        let b = self.src(&i.operands[2], ty, Fit::Strict)?;
        let cond = self.pred_src(&i.operands[3])?;
        Ok(InstKind::Selp {
            ty,
            dst,
            a,
            b,
            cond,
        })
    }
}

impl Fx<'_, '_> {
    /// `slct.dtype.s32 d, a, b, c` / `slct{.ftz}.dtype.f32 d, a, b, c`: `d = c >= 0 ? a :
    /// b`, lowered to `setp.ge{.ftz}.ctype p, c, 0` and `selp.dtype d, a, b, p` (a NaN
    /// `c` is not >= 0 and selects `b`; with `.ftz` a subnormal `c` counts as zero).
    pub(super) fn slct(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let ftz = m.has("ftz");
        let ts = m.types();
        let [(dty, _), (cty, cloc)] = ts[..] else {
            return Err(self.err(m.loc, format!("'{}' needs two types", m.text)));
        };
        if !matches!(cty, Type::S32 | Type::F32) || (ftz && cty != Type::F32) {
            return Err(self.err(
                cloc,
                format!("'{}': c must be .s32 or .f32 (.ftz: .f32)", m.text),
            ));
        }
        if dty == Type::Pred || dty.bits() < 16 || dty.bits() > 64 {
            return Err(self.err(m.loc, format!("'{}': bad destination type", m.text)));
        }
        self.nops(i, m, 4)?;
        let dst = self.dst(&i.operands[0], dty, Fit::Strict)?;
        let a = self.src(&i.operands[1], dty, Fit::Strict)?;
        let b = self.src(&i.operands[2], dty, Fit::Strict)?;
        let c = self.src(&i.operands[3], cty, Fit::Strict)?;
        let p = self.new_reg("%slct_p".into(), Type::Pred, m.loc)?;
        Ok(vec![
            InstKind::Setp {
                cmp: CmpOp::Ge,
                ty: cty,
                ftz,
                dst: Some(p),
                dst_neg: None,
                a: c,
                b: crate::ir::Operand::Imm(0),
                combine: None,
            },
            InstKind::Selp {
                ty: dty,
                dst,
                a,
                b,
                cond: crate::ir::PredSrc {
                    reg: p,
                    negate: false,
                },
            },
        ])
    }
}
