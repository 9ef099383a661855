//! Types and destination of `setp`/`set` (the comparison itself is checked in `inst`).

use super::func::Fx;
use super::inst::Mods;
use super::operand::Rule;
use crate::ir::{RegId, Type};
use crate::parse::ast::Operand;
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
            Some(t) => Ok(Some(self.dst(op, t, Rule::Strict)?)),
            None => self.pred_dst(op),
        }
    }
}
