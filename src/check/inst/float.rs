//! The f32/f64 family: the `min`/`max` forms with modifiers (`.NaN`, `.xorsign.abs`,
//! and the integer `.relu`, `.u16x2`, `.s16x2` forms, which share them) into
//! [`InstKind::MinMax`], `copysign`, `testp`, `fma`, and `sqrt rcp rsqrt sin cos lg2 ex2
//! tanh` into [`InstKind::Sfu`]. (`add sub mul mad div abs neg min max` on floats are
//! built with their integer forms in `int.rs`.)

use super::Mods;
use super::FRND;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{ArithOp, InstKind, MinMaxOp, Rnd, SfuOp, TestpOp, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

/// Modifiers that send `min`/`max` to [`Fx::min_max_ext`].
pub(super) fn is_ext_minmax_mod(m: &str) -> bool {
    matches!(m, "NaN" | "xorsign" | "abs" | "relu" | "u16x2" | "s16x2")
}

impl Fx<'_, '_> {
    pub(super) fn min_max_ext(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        let max = i.opcode.name == "max";
        let nan = m.has("NaN");
        let xorsign = m.has("xorsign");
        let abs = m.has("abs");
        let relu = m.has("relu");
        let ftz = m.has("ftz");
        if xorsign != abs {
            return Err(self.err(
                m.loc,
                format!("'.xorsign' and '.abs' go together in '{}'", m.text),
            ));
        }
        let packed = m.one_of(&["u16x2", "s16x2"]);
        let ty = match packed {
            Some(p) => {
                if let Some((_, l)) = m.types().first() {
                    return Err(self.err(*l, format!("'{}' has too many types", m.text)));
                }
                if p == "u16x2" {
                    Type::U16
                } else {
                    Type::S16
                }
            }
            None => self.one_type(m)?,
        };
        let invalid = |s: &Self, what: &str| {
            s.err(
                m.loc,
                format!("'{what}' is not valid for this type in '{}'", m.text),
            )
        };
        let float_mods = [(nan, ".NaN"), (xorsign, ".xorsign.abs"), (ftz, ".ftz")];
        match (ty, packed.is_some()) {
            (Type::F32, false) => {
                if relu {
                    return Err(invalid(self, ".relu"));
                }
            }
            (Type::S32, false) | (Type::S16, true) | (Type::U16, true) => {
                if let Some((_, w)) = float_mods.iter().find(|(on, _)| *on) {
                    return Err(invalid(self, w));
                }
                if relu && ty == Type::U16 {
                    return Err(invalid(self, ".relu"));
                }
            }
            (Type::F64, false) => {
                // Only the plain form exists for .f64.
                let first = float_mods.iter().find(|(on, _)| *on);
                return Err(invalid(self, first.map_or(".relu", |(_, w)| w)));
            }
            _ => return Err(self.bad_type(m, ty)),
        }
        self.nops(i, m, 3)?;
        if packed.is_some() {
            self.packed_16x2_regs(i, m)?;
        }
        let oty = if packed.is_some() { Type::B32 } else { ty };
        let dst = self.dst(&i.operands[0], oty, Fit::Strict)?;
        let a = self.src(&i.operands[1], oty, Fit::Strict)?;
        let b = self.src(&i.operands[2], oty, Fit::Strict)?;
        let op = MinMaxOp {
            max,
            ftz,
            nan,
            xorsign_abs: xorsign,
            relu,
            packed: packed.is_some(),
        };
        Ok(InstKind::MinMax { op, ty, dst, a, b })
    }

    pub(super) fn copysign(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 3)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        let a = self.src(&i.operands[1], ty, Fit::Strict)?;
        let b = self.src(&i.operands[2], ty, Fit::Strict)?;
        Ok(InstKind::Copysign { ty, dst, a, b })
    }

    pub(super) fn testp(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let op = match m.one_of(&[
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ]) {
            Some("finite") => TestpOp::Finite,
            Some("infinite") => TestpOp::Infinite,
            Some("number") => TestpOp::Number,
            Some("notanumber") => TestpOp::NotANumber,
            Some("normal") => TestpOp::Normal,
            Some(_) => TestpOp::Subnormal,
            None => return Err(self.err(m.loc, format!("'{}' needs a test (.finite ...)", m.text))),
        };
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 2)?;
        let dst = self.dst(&i.operands[0], Type::Pred, Fit::Strict)?;
        let src = self.src(&i.operands[1], ty, Fit::Strict)?;
        Ok(InstKind::Testp { op, ty, dst, src })
    }

    pub(super) fn fma(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["relu", "oob"])?;
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        let fm = self.fmode(m, ty, FRND, true)?;
        if fm.rnd.is_none() {
            return Err(self.err(
                m.loc,
                format!("rounding modifier required for '{}'", m.text),
            ));
        }
        self.arith(i, m, ArithOp::Fma, ty, fm)
    }

    pub(super) fn sfu_op(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let op = match i.opcode.name.as_str() {
            "sqrt" => SfuOp::Sqrt,
            "rcp" => SfuOp::Rcp,
            "rsqrt" => SfuOp::Rsqrt,
            "sin" => SfuOp::Sin,
            "cos" => SfuOp::Cos,
            "lg2" => SfuOp::Lg2,
            "ex2" => SfuOp::Ex2,
            _ => SfuOp::Tanh,
        };
        let approx = m.has("approx");
        let rnd = m.one_of(&["rn", "rz", "rm", "rp"]).map(|r| match r {
            "rn" => Rnd::Rn,
            "rz" => Rnd::Rz,
            "rm" => Rnd::Rm,
            _ => Rnd::Rp,
        });
        let mut ftz = m.has("ftz");
        // ISA: `tanh.approx.f32` has no `.ftz` (ptxas: "Illegal modifier '.ftz'").
        if ftz && op == SfuOp::Tanh {
            return Err(self.err(m.loc, format!("'.ftz' is not valid for '{}'", m.text)));
        }
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        let f64_ty = ty == Type::F64;
        // `rcp.approx.ftz.f64` / `rsqrt.approx.ftz.f64` are the only f64 forms with
        // `.ftz` (upper-word approximations, see `ops::float::approx_hi_f64`).
        // ptxas also accepts `rcp.{rn,rz,rm,rp}.ftz.f64` and assembles it to the cubin of
        // `rcp.{rn,rz,rm,rp}.f64`, byte for byte (ptxas 12.9, sm_90): `.ftz` is dropped.
        if ftz && f64_ty && op == SfuOp::Rcp && rnd.is_some() {
            ftz = false;
        } else if ftz && f64_ty && !(approx && matches!(op, SfuOp::Rcp | SfuOp::Rsqrt)) {
            return Err(self.unsupported(m));
        }
        let exact_ok = matches!(op, SfuOp::Sqrt | SfuOp::Rcp);
        // PTX ISA 1.0 ... 1.3 (each instruction's "PTX ISA Notes"): without modifiers the
        // `.f32` forms are `.approx.ftz`, `sqrt.f64` is `.rn`, `rsqrt.f64` `.approx`
        // (ptxas 12.9 accepts them before 1.4; it reads `rcp.f64` as `rcp.approx.f64` and
        // rejects it for the missing `.ftz`, so that one stays an error).
        let (mut approx, mut rnd) = (approx, rnd);
        let v = self.cx.m.version;
        if !approx && rnd.is_none() && v != (0, 0) && v < (1, 4) && op != SfuOp::Tanh {
            match (f64_ty, op) {
                (false, _) => (approx, ftz) = (true, true),
                (true, SfuOp::Sqrt) => rnd = Some(Rnd::Rn),
                (true, SfuOp::Rsqrt) => approx = true,
                _ => {}
            }
        }
        match (approx, rnd) {
            (true, Some(_)) => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' has both '.approx' and a rounding modifier", m.text),
                ))
            }
            (false, None) => {
                let need = if exact_ok {
                    "'.approx' or a rounding modifier"
                } else {
                    "'.approx'"
                };
                return Err(self.err(m.loc, format!("'{}' needs {need}", m.text)));
            }
            (false, Some(_)) if !exact_ok => {
                return Err(self.err(m.loc, format!("'{}' exists only as '.approx'", m.text)));
            }
            (true, None) if f64_ty && op != SfuOp::Rsqrt && !(op == SfuOp::Rcp && ftz) => {
                return Err(self.bad_type(m, ty))
            }
            _ => {}
        }
        self.nops(i, m, 2)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        let src = self.src(&i.operands[1], ty, Fit::Strict)?;
        Ok(InstKind::Sfu {
            op,
            ty,
            approx,
            rnd,
            ftz,
            dst,
            src,
        })
    }
}
