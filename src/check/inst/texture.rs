//! Lowering of the texture and surface instructions into [`InstKind::Texture`] through
//! texture/surface object handles (a `.u64` register or immediate):
//! `tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} d, [t, c]`,
//! `tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32 d, [t, c]`,
//! `suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} d, [s, c]` and
//! `sust.b` likewise, and `sured.b.{add,min,max,and,or}.{1d,2d,3d}`. Other forms (`txq`,
//! `suq`, `sured.p`, `sust.p`, cube and multisample
//! geometries, mipmap levels and gradients, offsets, depth compare, `.texref`/`.surfref`
//! operands, the optional predicate result) stay located "not supported yet" errors.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{AtomOp, InstKind, Operand, RegId, SurfClamp, TexGeom, TexOp, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

fn geom_of(m: &mut Mods) -> Option<TexGeom> {
    Some(match m.one_of(&["1d", "2d", "3d", "a1d", "a2d"])? {
        "1d" => TexGeom::D1,
        "2d" => TexGeom::D2,
        "3d" => TexGeom::D3,
        "a1d" => TexGeom::A1d,
        _ => TexGeom::A2d,
    })
}

impl Fx<'_, '_> {
    /// `tex`, `tld4`, `suld` or `sust` (by opcode name).
    pub(super) fn texture_op(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        let op = match i.opcode.name.as_str() {
            "tex" => {
                let geom = geom_of(m).ok_or_else(|| self.unsupported(m))?;
                if !m.has("v4") {
                    return Err(self.unsupported(m));
                }
                let (dtype, ctype) = match m.types().as_slice() {
                    [(d, _), (c, _)]
                        if matches!(d, Type::F32 | Type::S32 | Type::U32)
                            && matches!(c, Type::F32 | Type::S32) =>
                    {
                        (*d, *c)
                    }
                    _ => return Err(self.unsupported(m)),
                };
                TexOp::Tex { geom, dtype, ctype }
            }
            "tld4" => {
                let comp = match m.one_of(&["r", "g", "b", "a"]) {
                    Some("r") => 0,
                    Some("g") => 1,
                    Some("b") => 2,
                    Some(_) => 3,
                    None => return Err(self.unsupported(m)),
                };
                if !m.has("2d") || !m.has("v4") {
                    return Err(self.unsupported(m));
                }
                let dtype = match m.types().as_slice() {
                    [(d, _), (Type::F32, _)] if matches!(d, Type::F32 | Type::S32 | Type::U32) => {
                        *d
                    }
                    _ => return Err(self.unsupported(m)),
                };
                TexOp::Tld4 { comp, dtype }
            }
            "sured" => self.sured_op(m)?,
            name => {
                if !m.has("b") {
                    return Err(self.unsupported(m));
                }
                let geom = geom_of(m).ok_or_else(|| self.unsupported(m))?;
                let vec = match m.one_of(&["v2", "v4"]) {
                    Some("v2") => 2,
                    Some(_) => 4,
                    None => 1,
                };
                let bytes = match m.types().as_slice() {
                    [(Type::B8, _)] => 1,
                    [(Type::B16, _)] => 2,
                    [(Type::B32, _)] => 4,
                    [(Type::B64, _)] if vec < 4 => 8,
                    _ => return Err(self.unsupported(m)),
                };
                let clamp = match m.one_of(&["trap", "clamp", "zero"]) {
                    Some("clamp") => SurfClamp::Clamp,
                    Some("zero") => SurfClamp::Zero,
                    _ => SurfClamp::Trap,
                };
                if name == "suld" {
                    TexOp::Suld {
                        geom,
                        bytes,
                        vec,
                        clamp,
                    }
                } else {
                    TexOp::Sust {
                        geom,
                        bytes,
                        vec,
                        clamp,
                        formatted: false,
                    }
                }
            }
        };
        let sig = op.signature();
        let store = matches!(op, TexOp::Sust { .. } | TexOp::Sured { .. });
        if i.operands.len() > 2 && !store {
            // The offset and depth-compare operands of `tex`/`tld4`.
            return Err(self.unsupported(m));
        }
        self.nops(i, m, 2)?;
        let (res_op, addr_op) = if store {
            (&i.operands[1], &i.operands[0])
        } else {
            (&i.operands[0], &i.operands[1])
        };
        let parts = match addr_op {
            ast::Operand::Bracket(v, _) if v.len() == 2 => v,
            o => {
                return Err(self.err(
                    o.loc(),
                    format!("'{}' needs an operand '[object, {{coordinates}}]'", m.text),
                ))
            }
        };
        // A `.texref`/`.surfref` name (not declared: ptxjit rejects those declarations)
        // is an unsupported form, not an unknown symbol.
        let handle = self.src(&parts[0], Type::U64, Fit::Relaxed).ok();
        if !matches!(handle, Some(Operand::Reg(_) | Operand::Imm(_))) {
            return Err(self.err(
                m.loc,
                format!(
                    "instruction '{}' is not supported yet (texture or surface references: use a .u64 object handle)",
                    m.text
                ),
            ));
        }
        let nc = op.geom().ncoords();
        let mut srcs = handle.into_iter().collect::<Vec<_>>();
        srcs.extend(self.tex_sources(&parts[1], &sig.srcs[1..1 + nc], m)?);
        let mut dsts = Vec::new();
        if store {
            srcs.extend(self.tex_sources(res_op, &sig.srcs[1 + nc..], m)?);
        } else {
            dsts = self.tex_results(res_op, &sig.dsts, m)?;
        }
        Ok(InstKind::Texture { op, dsts, srcs })
    }

    /// `sured.b.op.geom.ctype.clamp`: `.add` on `.u32 .s32 .u64`, `.min`/`.max` on `.u32
    /// .s32 .u64 .s64`, `.and`/`.or` on `.b32` (the ISA's table; `sured.p` is not
    /// supported).
    fn sured_op(&mut self, m: &mut Mods) -> Result<TexOp, PtxError> {
        if !m.has("b") {
            return Err(self.unsupported(m));
        }
        let op = match m.one_of(&["add", "min", "max", "and", "or"]) {
            Some("add") => AtomOp::Add,
            Some("min") => AtomOp::Min,
            Some("max") => AtomOp::Max,
            Some("and") => AtomOp::And,
            Some("or") => AtomOp::Or,
            _ => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs .add, .min, .max, .and or .or", m.text),
                ))
            }
        };
        let geom = match m.one_of(&["1d", "2d", "3d"]) {
            Some("1d") => TexGeom::D1,
            Some("2d") => TexGeom::D2,
            Some("3d") => TexGeom::D3,
            _ => return Err(self.unsupported(m)),
        };
        let ty = self.one_type(m)?;
        let valid = match op {
            AtomOp::Add => matches!(ty, Type::U32 | Type::S32 | Type::U64),
            AtomOp::Min | AtomOp::Max => {
                matches!(ty, Type::U32 | Type::S32 | Type::U64 | Type::S64)
            }
            _ => ty == Type::B32,
        };
        if !valid {
            return Err(self.bad_type(m, ty));
        }
        let clamp = match m.one_of(&["trap", "clamp", "zero"]) {
            Some("clamp") => SurfClamp::Clamp,
            Some("zero") => SurfClamp::Zero,
            _ => SurfClamp::Trap,
        };
        Ok(TexOp::Sured {
            geom,
            op,
            ty,
            clamp,
        })
    }

    /// A vector operand (or a lone scalar for one element) with one element per type.
    fn tex_sources(
        &self,
        op: &ast::Operand,
        tys: &[Type],
        m: &Mods,
    ) -> Result<Vec<Operand>, PtxError> {
        if tys.len() == 1 && !matches!(op, ast::Operand::Vector(..)) {
            return Ok(vec![self.src(op, tys[0], Fit::Relaxed)?]);
        }
        self.vector_srcs(op, tys, Fit::Relaxed, |found| {
            format!(
                "'{}' needs {} elements here, not {found}",
                m.text,
                tys.len()
            )
        })
    }

    fn tex_results(
        &self,
        op: &ast::Operand,
        tys: &[Type],
        m: &Mods,
    ) -> Result<Vec<Option<RegId>>, PtxError> {
        if tys.len() == 1 && !matches!(op, ast::Operand::Vector(..)) {
            return Ok(vec![Some(self.dst(op, tys[0], Fit::Relaxed)?)]);
        }
        self.vector_dsts(op, tys, Fit::Relaxed, |found| {
            format!("'{}' needs {} results here, not {found}", m.text, tys.len())
        })
    }
}
