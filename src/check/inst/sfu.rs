//! Lowering of `sqrt rcp rsqrt sin cos lg2 ex2 tanh` into [`InstKind::Sfu`].

use super::{Mods, Rule};
use crate::check::func::Fx;
use crate::ir::{InstKind, Rnd, SfuOp, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
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
        let ftz = m.has("ftz");
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        let f64_ty = ty == Type::F64;
        // `rcp.approx.ftz.f64` / `rsqrt.approx.ftz.f64` are the only f64 forms with
        // `.ftz` (upper-word approximations, see `ops::special::approx_hi_f64`).
        if ftz && f64_ty && !(approx && matches!(op, SfuOp::Rcp | SfuOp::Rsqrt)) {
            return Err(self.unsupported(m));
        }
        let exact_ok = matches!(op, SfuOp::Sqrt | SfuOp::Rcp);
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
        let dst = self.dst(&i.operands[0], ty, Rule::Strict)?;
        let src = self.src(&i.operands[1], ty, Rule::Strict)?;
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
