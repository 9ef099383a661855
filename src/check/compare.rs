//! Types and destination of `setp`/`set` (the comparison itself is checked in `inst`).

use super::func::Fx;
use super::inst::Mods;
use super::operand::Rule;
use crate::ir::{RegId, Type};
use crate::parse::ast::Operand;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// The types of `setp.ty` (`(None, ty)`) or `set.dty.ty` (`(Some(dty), ty)`).
    /// `.f16` sources are supported; packed and bf16 forms are not yet.
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
        let packed_set = set && sty == Type::F16x2;
        if packed_set || matches!(sty, Type::BF16 | Type::BF16x2 | Type::B128) {
            return Err(self.unsupported(m));
        }
        if !set {
            return Ok((None, sty));
        }
        let dty = ts[0].0;
        match dty {
            Type::F32 if sty == Type::F16 => Err(self.err(
                ts[0].1,
                format!(
                    "destination type .f32 is not valid with .f16 sources in '{}'",
                    m.text
                ),
            )),
            Type::U32 | Type::S32 | Type::B32 | Type::F32 => Ok((Some(dty), sty)),
            // Half-precision destinations (set.f16.*, set.u16.f16, ...) are not done yet.
            Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 | Type::U16 | Type::S16 => {
                Err(self.unsupported(m))
            }
            _ => Err(self.err(
                ts[0].1,
                format!(
                    "destination type {dty} is not valid for '{}' (.u32, .s32, .b32 or .f32)",
                    m.text
                ),
            )),
        }
    }

    /// The destination register of `set` (type `dty`).
    pub(super) fn compare_dst(
        &self,
        op: &Operand,
        dty: Option<Type>,
    ) -> Result<Option<RegId>, PtxError> {
        match dty {
            Some(t) => Ok(Some(self.dst(op, t, Rule::Strict)?)),
            None => self.pred_dst(op),
        }
    }
}
