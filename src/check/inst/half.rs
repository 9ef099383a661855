//! Lowering of half-precision arithmetic (`add sub mul fma neg abs min max` and
//! `ex2.approx`, `tanh.approx` on `.f16 .f16x2 .bf16 .bf16x2`) into [`InstKind::Half`],
//! with the modifier rules of the PTX ISA ("Half Precision Floating Point
//! Instructions"), and of `set` with packed sources (`set.cmp.dty.f16x2`,
//! `set.cmp.dty.bf16x2`) into `SetpPacked` + two `selp` + `or`.

use super::{rnd_of, Mods};
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{
    ArithOp, BoolOp, CmpOp, FloatMode, HalfMode, HalfOp, InstKind, Loc, Operand, PredSrc, RegId,
    Type,
};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

const OPCODES: &[&str] = &[
    "add", "sub", "mul", "fma", "mad", "neg", "abs", "min", "max", "ex2", "tanh",
];

fn is_half_type(name: &str) -> bool {
    matches!(name, "f16" | "f16x2" | "bf16" | "bf16x2")
}

/// Whether `i` is an arithmetic instruction on a half-precision type (lowered here).
pub(super) fn is_half_form(i: &Instruction) -> bool {
    OPCODES.contains(&i.opcode.name.as_str()) && i.mods.iter().any(|m| is_half_type(&m.name))
}

impl Fx<'_, '_> {
    /// `add sub mul fma neg abs min max ex2 tanh` on `.f16`, `.f16x2`, `.bf16`, `.bf16x2`.
    pub(super) fn half_op(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let name = i.opcode.name.as_str();
        let ts = m.types();
        let ty = match ts.as_slice() {
            [(t, _)] => *t,
            [_, (_, l), ..] => {
                return Err(self.err(*l, format!("instruction '{}' has too many types", m.text)))
            }
            [] => return Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
        };
        let bf = matches!(ty, Type::BF16 | Type::BF16x2);
        let op = match name {
            "add" => HalfOp::Add,
            "sub" => HalfOp::Sub,
            "mul" => HalfOp::Mul,
            "fma" => HalfOp::Fma,
            "neg" => HalfOp::Neg,
            "abs" => HalfOp::Abs,
            "min" => HalfOp::Min,
            "max" => HalfOp::Max,
            "ex2" => HalfOp::Ex2,
            "tanh" => HalfOp::Tanh,
            _ => {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'{}': PTX has no half-precision 'mad'; use 'fma.rn'",
                        m.text
                    ),
                ))
            }
        };
        let mode = self.half_mode(op, bf, m)?;
        let n = op.arity();
        self.nops(i, m, n + 1)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        let srcs = i.operands[1..]
            .iter()
            .map(|o| self.src(o, ty, Fit::Strict))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(InstKind::Half {
            op,
            ty,
            mode,
            dst,
            srcs,
        })
    }

    /// The modifiers of half-precision `op` (`bf`: a bf16 type) other than its type, as
    /// ptxas accepts them: `.rn` (required on `fma`), `.approx` (`ex2`/`tanh` only),
    /// `.ftz`, `.sat`, `.relu`, `.NaN`, `.xorsign.abs`, `.oob`.
    fn half_mode(&self, op: HalfOp, bf: bool, m: &mut Mods) -> Result<HalfMode, PtxError> {
        let arith = matches!(op, HalfOp::Add | HalfOp::Sub | HalfOp::Mul | HalfOp::Fma);
        let minmax = matches!(op, HalfOp::Min | HalfOp::Max);
        let text = m.text.clone();
        let invalid = |s: &Self, loc: Loc, what: &str, why: &str| {
            s.err(
                loc,
                format!("modifier '.{what}' is not valid for '{text}'{why}"),
            )
        };

        // Rounding: `.rn` only, on add/sub/mul (optional) and fma (required).
        let rnd = m.take_if(|x| rnd_of(x).is_some());
        match rnd {
            Some(("rn", _)) if arith => {}
            Some((r, l)) if arith => {
                return Err(self.err(
                    l,
                    format!(
                        "rounding modifier '.{r}' is not valid for '{}': half-precision \
                         arithmetic rounds to nearest even only ('.rn')",
                        m.text
                    ),
                ))
            }
            Some((r, l)) => return Err(invalid(self, l, r, "")),
            None if op == HalfOp::Fma => {
                return Err(self.err(
                    m.loc,
                    format!("rounding modifier required for '{}'", m.text),
                ))
            }
            None => {}
        }
        let approx = m.take_if(|x| x == "approx");
        match (op, approx) {
            (HalfOp::Ex2 | HalfOp::Tanh, None) => {
                return Err(self.err(m.loc, format!("'{}' needs '.approx'", m.text)))
            }
            (HalfOp::Ex2 | HalfOp::Tanh, Some(_)) | (_, None) => {}
            (_, Some((a, l))) => return Err(invalid(self, l, a, "")),
        }
        let oob = m.take_if(|x| x == "oob");
        if let Some((_, l)) = oob {
            if op != HalfOp::Fma {
                return Err(invalid(self, l, "oob", ""));
            }
        }

        let ftz = m.take_if(|x| x == "ftz");
        let ftz_ok = match op {
            // ex2.approx.ftz.{bf16,bf16x2}: required; the f16 forms have no .ftz.
            HalfOp::Ex2 => bf,
            HalfOp::Tanh => false,
            _ => !bf,
        };
        if let (Some((_, l)), Some(_)) = (ftz, oob) {
            // ptxas 12.9: "Modifier '.ftz' cannot be combined with modifier '.oob'".
            return Err(invalid(self, l, "ftz", " together with '.oob'"));
        }
        if let Some((_, l)) = ftz {
            if !ftz_ok {
                let why = if bf { " (no '.ftz' for bf16)" } else { "" };
                return Err(invalid(self, l, "ftz", why));
            }
        } else if op == HalfOp::Ex2 && bf {
            return Err(self.err(
                m.loc,
                format!("'{}' needs '.ftz' (ex2.approx.ftz.bf16)", m.text),
            ));
        }
        let sat = m.take_if(|x| x == "sat");
        if let Some((_, l)) = sat {
            if !arith || bf {
                let why = if bf { " (no '.sat' for bf16)" } else { "" };
                return Err(invalid(self, l, "sat", why));
            }
        }
        let relu = m.take_if(|x| x == "relu");
        if let Some((_, l)) = relu {
            if op != HalfOp::Fma {
                return Err(invalid(self, l, "relu", ""));
            }
            if sat.is_some() {
                return Err(invalid(self, l, "relu", " together with '.sat'"));
            }
        }
        let nan = m.take_if(|x| x == "NaN");
        if let Some((_, l)) = nan {
            if !minmax {
                return Err(invalid(self, l, "NaN", ""));
            }
        }
        let xorsign = m.take_if(|x| x == "xorsign");
        let abs = m.take_if(|x| x == "abs");
        if let Some((_, l)) = xorsign.or(abs) {
            if !minmax {
                return Err(invalid(self, l, "xorsign.abs", ""));
            }
            if xorsign.is_none() || abs.is_none() {
                return Err(self.err(
                    l,
                    format!("'.xorsign' and '.abs' go together in '{}'", m.text),
                ));
            }
        }
        if let Some((x, l)) = m.take_if(|_| true) {
            return Err(invalid(self, l, x, ""));
        }
        let mode = HalfMode {
            ftz: ftz.is_some(),
            sat: sat.is_some(),
            relu: relu.is_some(),
            nan: nan.is_some(),
            xorsign_abs: xorsign.is_some(),
            oob: oob.is_some(),
        };
        Ok(mode)
    }

    /// `set.cmp{.bool}{.ftz}.dty.ty d, a, b{, {!}c}` with `ty` = `.f16x2` or `.bf16x2`:
    /// each half's (combined) result is written as 1.0 in the half format (`dty` =
    /// `.f16x2`/`.bf16x2`) or 0xffff (`.u32`/`.s32`) into its half of `d`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn set_packed(
        &mut self,
        cmp: CmpOp,
        dty: Type,
        ty: Type,
        ftz: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredSrc)>,
        loc: Loc,
    ) -> Result<Vec<InstKind>, PtxError> {
        let one: u64 = match dty {
            Type::F16x2 => 0x3c00,
            Type::BF16x2 => 0x3f80,
            _ => 0xffff,
        };
        let p_lo = self.new_reg("%__set_lo".into(), Type::Pred, loc)?;
        let p_hi = self.new_reg("%__set_hi".into(), Type::Pred, loc)?;
        let t_lo = self.new_reg("%__set_lo".into(), Type::B32, loc)?;
        let t_hi = self.new_reg("%__set_hi".into(), Type::B32, loc)?;
        let selp = |d: RegId, v: u64, p: RegId| InstKind::Selp {
            ty: Type::B32,
            dst: d,
            a: Operand::Imm(v),
            b: Operand::Imm(0),
            cond: PredSrc {
                reg: p,
                negate: false,
            },
        };
        Ok(vec![
            InstKind::SetpPacked {
                cmp,
                ty,
                ftz,
                dst_lo: Some(p_lo),
                dst_hi: Some(p_hi),
                a,
                b,
                combine,
            },
            selp(t_lo, one, p_lo),
            selp(t_hi, one << 16, p_hi),
            InstKind::Arith {
                op: ArithOp::Or,
                ty: Type::B32,
                fmode: FloatMode::default(),
                dst,
                srcs: vec![Operand::Reg(t_lo), Operand::Reg(t_hi)],
            },
        ])
    }
}
