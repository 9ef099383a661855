//! Lowering of the texture and surface instructions into [`InstKind::Texture`] through
//! texture/surface object handles (a `.u64` register or immediate) or module
//! `.texref`/`.surfref` names (their address, which the runtime binds):
//! `tex{.base,.level,.grad}.{1d,2d,3d,a1d,a2d,cube,acube}.{v4.{f32,s32,u32,f16},v2.f16x2}.{f32,s32}
//! d{|p}, [t, c]{, lod | dPdx, dPdy}{, e}{, f}` (cubemaps: `.f32` coordinates, no offset),
//! `tld4.{r,g,b,a}.{2d,a2d,cube,acube}.v4.{f32,s32,u32}.f32 d{|p}, [t, c]{, e}{, f}`,
//! both also in the independent mode's `[t, s, c]` (a `.samplerref` or `.u64` sampler),
//! `suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} d, [s, c]` and
//! `sust.b` likewise, `sust.p.{1d,2d,3d}{.v2,.v4}.b32`, `sured.b.{add,min,max,and,or}.{1d,2d,3d}`
//! and `sured.p` (`.b32`; `.b64` with `.min`/`.max`) (`txq`/`suq`: `texquery.rs`). The
//! object is a `.u64` handle, a module reference or an opaque kernel parameter (loaded
//! before the instruction). Multisample geometries stay located "not supported yet"
//! errors.

use super::Mods;
use crate::check::consts::Const;
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::Fit;
use crate::ir::{
    AtomOp, InstKind, Operand, RegId, SurfClamp, TexGeom, TexMip, TexOp, TexRefKind, Type, VarRef,
};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// Operands of a level-of-detail mode after `[t, c]`.
fn mip_operands(mip: TexMip) -> usize {
    match mip {
        TexMip::Base => 0,
        TexMip::Level => 1,
        TexMip::Grad => 2,
    }
}

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
        let stripped;
        let i = match self.drop_int_depth(i) {
            Some(c) => {
                stripped = c;
                &stripped
            }
            None => i,
        };
        // Independent mode: `[texture, sampler, {coordinates}]`.
        let sampler = matches!(i.opcode.name.as_str(), "tex" | "tld4")
            && matches!(i.operands.get(1), Some(ast::Operand::Bracket(v, _)) if v.len() == 3);
        let op = match i.opcode.name.as_str() {
            "tex" => self.tex_form(i, m, sampler)?,
            "tld4" => {
                let comp = match m.one_of(&["r", "g", "b", "a"]) {
                    Some("r") => 0,
                    Some("g") => 1,
                    Some("b") => 2,
                    Some(_) => 3,
                    None => return Err(self.unsupported(m)),
                };
                let geom = match m.one_of(&["2d", "a2d", "cube", "acube"]) {
                    Some("2d") => TexGeom::D2,
                    Some("a2d") => TexGeom::A2d,
                    Some("cube") => TexGeom::Cube,
                    Some("acube") => TexGeom::Acube,
                    _ => return Err(self.unsupported(m)),
                };
                if !m.has("v4") {
                    return Err(self.unsupported(m));
                }
                let dtype = match m.types().as_slice() {
                    [(d, _), (Type::F32, _)] if matches!(d, Type::F32 | Type::S32 | Type::U32) => {
                        *d
                    }
                    _ => return Err(self.unsupported(m)),
                };
                let (offset, depth) = self.tex_extras(i, m, 2)?;
                if geom.cube() && offset {
                    return Err(self.err(
                        m.loc,
                        format!("'{}': cubemap lookups take no offset", m.text),
                    ));
                }
                TexOp::Tld4 {
                    comp,
                    geom,
                    dtype,
                    offset,
                    depth,
                    sampler,
                }
            }
            "sured" => self.sured_op(m)?,
            name => self.surf_form(m, name)?,
        };
        let sig = op.signature();
        let store = matches!(op, TexOp::Sust { .. } | TexOp::Sured { .. });
        if store {
            self.nops(i, m, 2)?;
        } else if i.operands.len() < 2 {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}' needs a result and '[object, {{coordinates}}]'",
                    m.text
                ),
            ));
        }
        let (mut res_op, addr_op) = if store {
            (&i.operands[1], &i.operands[0])
        } else {
            (&i.operands[0], &i.operands[1])
        };
        if let (false, ast::Operand::Pair(d, p)) = (store, res_op) {
            // `d|p`: p is true when the texels are resident, as they always are here.
            let p = self.dst(p, Type::Pred, Fit::Strict)?;
            self.pre.push(InstKind::Mov {
                ty: Type::Pred,
                dst: p,
                src: Operand::Imm(1),
            });
            res_op = d;
        }
        let parts = match addr_op {
            ast::Operand::Bracket(v, _) if v.len() == 2 && !sampler => {
                if self.independent_mode() && matches!(op, TexOp::Tex { .. } | TexOp::Tld4 { .. }) {
                    return Err(self.err(
                        v[0].loc(),
                        format!(
                            "'{}' needs '[texture, sampler, {{coordinates}}]' in independent texturing mode",
                            m.text
                        ),
                    ));
                }
                v
            }
            ast::Operand::Bracket(v, _) if v.len() == 3 && sampler => v,
            o => {
                return Err(self.err(
                    o.loc(),
                    format!("'{}' needs an operand '[object, {{coordinates}}]'", m.text),
                ))
            }
        };
        let want = match op {
            TexOp::Tex { .. } | TexOp::Tld4 { .. } => TexRefKind::Texture,
            _ => TexRefKind::Surface,
        };
        let mut srcs = vec![self.tex_handle(&parts[0], m, want)?];
        if sampler {
            srcs.push(self.tex_handle(&parts[1], m, TexRefKind::Sampler)?);
        }
        let (first, nc) = (op.first_coord(), op.geom().ncoords());
        let coords = &sig.srcs[first..first + nc];
        srcs.extend(match (&op, &parts[first]) {
            // The ISA's `tex` notes: "For compatibility with prior versions of PTX, ...
            // `.v4` coordinate vectors are allowed for any geometry, with the extra
            // elements being ignored" (nvopencc writes `[t, {%r1, %r2, %r3, %r4}]` for 1d).
            (TexOp::Tex { .. }, ast::Operand::Vector(v, _)) if v.len() == 4 && nc < 4 => {
                let mut tys = coords.to_vec();
                tys.resize(4, coords[nc - 1]);
                let mut all = self.tex_sources(&parts[first], &tys, m)?;
                all.truncate(nc);
                all
            }
            _ => self.tex_sources(&parts[first], coords, m)?,
        });
        let mut dsts = Vec::new();
        if store {
            srcs.extend(self.tex_sources(res_op, &sig.srcs[first + nc..], m)?);
        } else {
            dsts = self.tex_results(res_op, &sig.dsts, m)?;
            // The level of detail or gradients, the offset vector and the depth-compare
            // value, one operand each, in signature order.
            srcs.extend(self.lookup_operands(i, m, op, &sig.srcs[first + nc..])?);
        }
        Ok(InstKind::Texture { op, dsts, srcs })
    }

    /// `suld.b` and `sust.{b,p}` (by opcode name): `sust.p.{1d,2d,3d}{.v2,.v4}.b32` is a
    /// formatted store.
    fn surf_form(&mut self, m: &mut Mods, name: &str) -> Result<TexOp, PtxError> {
        let formatted = name == "sust" && m.has("p");
        if !formatted && !m.has("b") {
            return Err(self.unsupported(m));
        }
        let geom = geom_of(m).ok_or_else(|| self.unsupported(m))?;
        if formatted && geom.layered() {
            return Err(self.unsupported(m));
        }
        let vec = match m.one_of(&["v2", "v4"]) {
            Some("v2") => 2,
            Some(_) => 4,
            None => 1,
        };
        let bytes = match m.types().as_slice() {
            [(Type::B8, _)] => 1,
            [(Type::B16, _)] => 2,
            [(Type::B32, _)] => 4,
            [(Type::B64, _)] if vec < 4 && !formatted => 8,
            _ => return Err(self.unsupported(m)),
        };
        if formatted && bytes != 4 {
            return Err(self.unsupported(m));
        }
        let clamp = match m.one_of(&["trap", "clamp", "zero"]) {
            Some("clamp") => SurfClamp::Clamp,
            Some("zero") => SurfClamp::Zero,
            _ => SurfClamp::Trap,
        };
        Ok(if name == "suld" {
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
                formatted,
            }
        })
    }

    /// The `tex` form of the modifiers and operands.
    fn tex_form(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        sampler: bool,
    ) -> Result<TexOp, PtxError> {
        let mip = match m.one_of(&["base", "level", "grad"]) {
            Some("level") => TexMip::Level,
            Some("grad") => TexMip::Grad,
            _ => TexMip::Base,
        };
        let geom = match m.one_of(&["cube", "acube"]) {
            Some("cube") => TexGeom::Cube,
            Some(_) => TexGeom::Acube,
            None => geom_of(m).ok_or_else(|| self.unsupported(m))?,
        };
        let vec = m.one_of(&["v4", "v2"]);
        let (dtype, ctype) = match m.types().as_slice() {
            [(d, _), (c, _)]
                if matches!(
                    (vec, d),
                    (Some("v4"), Type::F32 | Type::S32 | Type::U32 | Type::F16)
                        | (Some("v2"), Type::F16x2)
                ) && matches!(c, Type::F32 | Type::S32) =>
            {
                (*d, *c)
            }
            _ => return Err(self.unsupported(m)),
        };
        let (offset, depth) = self.tex_extras(i, m, 2 + mip_operands(mip))?;
        if geom.cube() && (ctype != Type::F32 || offset) {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}': cubemap lookups take .f32 coordinates and no offset",
                    m.text
                ),
            ));
        }
        Ok(TexOp::Tex {
            geom,
            dtype,
            ctype,
            mip,
            offset,
            depth,
            sampler,
        })
    }

    /// Whether the module's `.target` names `texmode_independent`.
    pub(super) fn independent_mode(&self) -> bool {
        self.cx.m.target.iter().any(|t| t == "texmode_independent")
    }

    /// `tex`/`tld4`'s operands after `[t, c]`: the level of detail or the gradients
    /// (their first `dims` elements each), the offset vector and the depth-compare value, one operand
    /// each, of types `tys_all` in order.
    fn lookup_operands(
        &self,
        i: &Instruction,
        m: &Mods,
        op: TexOp,
        tys_all: &[Type],
    ) -> Result<Vec<Operand>, PtxError> {
        let mut out = Vec::new();
        let mut k = 0;
        let mut rest = &i.operands[2..];
        if let TexOp::Tex {
            mip: TexMip::Grad,
            geom,
            ..
        } = op
        {
            // dPdx and dPdy: vectors of `noffsets` elements (four for 3d and cube, the
            // last ignored); the first `dims` of each are sources.
            let tys = vec![Type::F32; geom.noffsets()];
            if rest.len() < 2 {
                return Err(self.err(m.loc, format!("'{}' needs dPdx and dPdy", m.text)));
            }
            for o in rest.iter().take(2) {
                out.extend(self.tex_sources(o, &tys, m)?.into_iter().take(geom.dims()));
            }
            k = 2 * geom.dims();
            rest = rest.get(2..).unwrap_or_default();
        }
        for o in rest {
            let n = match o {
                ast::Operand::Vector(v, _) => v.len(),
                _ => 1,
            };
            let tys = tys_all.get(k..k + n).ok_or_else(|| {
                self.err(o.loc(), format!("'{}' has an operand too many", m.text))
            })?;
            out.extend(self.tex_sources(o, tys, m)?);
            k += n;
        }
        if k != tys_all.len() {
            return Err(self.err(m.loc, format!("'{}' lacks an operand", m.text)));
        }
        Ok(out)
    }

    /// The object operand of a texture or surface instruction: a `.u64` register or
    /// immediate (an object handle, or the address of a reference variable), or the name
    /// of a module `.texref`/`.surfref` of kind `want` (its address).
    pub(super) fn tex_handle(
        &mut self,
        o: &ast::Operand,
        m: &Mods,
        want: TexRefKind,
    ) -> Result<Operand, PtxError> {
        let var = match o {
            ast::Operand::Value(e) => match self.value(e) {
                Ok(crate::check::operand::Val::Var(v, off, _)) => {
                    Some(Operand::VarAddr(v.vref, off))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(Operand::VarAddr(VarRef::KernelParam(p), 0)) = var {
            return self.tex_param_handle(o, m, p, want);
        }
        let h = match var {
            Some(v) => Some(v),
            None => self.src(o, Type::U64, Fit::Relaxed).ok(),
        };
        match h {
            Some(h @ (Operand::Reg(_) | Operand::Imm(_))) => Ok(h),
            Some(h @ Operand::VarAddr(VarRef::Global(id), 0)) => match self.cx.tex_refs.get(&id) {
                Some(k) if *k == want => Ok(h),
                Some(k) => Err(self.err(
                    o.loc(),
                    format!(
                        "'{}' needs a '.{}' here, not a '.{}'",
                        m.text,
                        want.name(),
                        k.name()
                    ),
                )),
                None => Err(self.err(
                    o.loc(),
                    format!(
                        "'{}' needs a texture or surface: a .u64 handle or a '.{}' name",
                        m.text,
                        want.name()
                    ),
                )),
            },
            _ => Err(self.err(
                o.loc(),
                format!(
                    "'{}' needs a texture or surface: a .u64 handle or a '.{}' name",
                    m.text,
                    want.name()
                ),
            )),
        }
    }

    /// The kind of an opaque kernel parameter (`.param .texref t`, `.samplerref`,
    /// `.surfref`: an 8-byte handle), or `None`.
    pub(crate) fn tex_param_kind(&self, p: &ast::ParamDecl) -> Option<TexRefKind> {
        let ast::ElemType::Opaque(n) = &p.dtype.ty else {
            return None;
        };
        let plain = p.dims.is_empty() && p.dtype.vec.is_none();
        let entry = self.kind == crate::ir::FuncKind::Entry && p.space == ast::DeclSpace::Param;
        TexRefKind::from_name(n).filter(|_| plain && entry)
    }

    /// An opaque kernel parameter (at offset `p`) named as a texture, sampler or
    /// surface: its handle, loaded from the parameter buffer before the instruction.
    fn tex_param_handle(
        &mut self,
        o: &ast::Operand,
        m: &Mods,
        p: u32,
        want: TexRefKind,
    ) -> Result<Operand, PtxError> {
        match self.tex_params.get(&p) {
            Some(k) if *k == want => {}
            Some(k) => {
                return Err(self.err(
                    o.loc(),
                    format!(
                        "'{}' needs a '.{}' here, not a '.{}'",
                        m.text,
                        want.name(),
                        k.name()
                    ),
                ))
            }
            None => {
                return Err(self.err(
                    o.loc(),
                    format!(
                        "'{}' needs a texture or surface: a .u64 handle or a '.{}' name",
                        m.text,
                        want.name()
                    ),
                ))
            }
        }
        let r = self.new_reg(format!("%{}.handle", want.name()), Type::U64, o.loc())?;
        self.pre.push(InstKind::Ld {
            space: crate::ir::Space::Param,
            ty: Type::U64,
            dsts: vec![Some(r)],
            addr: crate::ir::Address {
                base: crate::ir::AddrBase::Var(VarRef::KernelParam(p)),
                offset: 0,
            },
        });
        Ok(Operand::Reg(r))
    }

    /// `tex`/`tld4` without an integer constant in the depth-compare position (after
    /// the coordinates, the level of detail or gradients, and an optional offset vector),
    /// which ptxas 12.9 accepts and drops: the sm_90 cubins of `tex.1d.v4.f32.f32 d, [t,
    /// {x}], -1` (or `, 1`) and of `tld4.r.2d… d, [t, {x, y}], -1` (or `, 3`) are those
    /// without the operand, byte for byte, while a register or a float constant there is
    /// a depth compare and `{-1}` an offset. `None` when there is no such operand.
    fn drop_int_depth(&self, i: &Instruction) -> Option<Instruction> {
        if !matches!(i.opcode.name.as_str(), "tex" | "tld4") {
            return None;
        }
        let mip = i.mods.iter().find_map(|m| match m.name.as_str() {
            "level" => Some(1),
            "grad" => Some(2),
            _ => None,
        });
        let rest = i.operands.get(2 + mip.unwrap_or(0)..)?;
        let (last, before) = rest.split_last()?;
        let ast::Operand::Value(e) = last else {
            return None;
        };
        let int = matches!(self.value(e), Ok(Val::Const(Const::Int { .. })));
        let position = match before {
            [] => true,
            [e] => matches!(e, ast::Operand::Vector(..)),
            _ => false,
        };
        if !(int && position) {
            return None;
        }
        let mut c = i.clone();
        c.operands.pop();
        Some(c)
    }

    /// Which of `tex`/`tld4`'s optional trailing operands are present after the first
    /// `fixed` operands: an offset vector `e` (a `{..}` vector) and a depth-compare
    /// scalar `f`, in that order.
    fn tex_extras(
        &self,
        i: &Instruction,
        m: &Mods,
        fixed: usize,
    ) -> Result<(bool, bool), PtxError> {
        let rest = i.operands.get(fixed..).unwrap_or_default();
        let vec = |o: &ast::Operand| matches!(o, ast::Operand::Vector(..));
        match rest {
            [] => Ok((false, false)),
            [e] if vec(e) => Ok((true, false)),
            [f] => Ok((false, !vec(f))),
            [e, f] if vec(e) && !vec(f) => Ok((true, true)),
            _ => {
                let at = rest.last().map(|o| o.loc()).unwrap_or(m.loc);
                Err(self.err(
                    at,
                    format!(
                        "'{}' takes an offset vector and a depth-compare value after its coordinates, no more",
                        m.text
                    ),
                ))
            }
        }
    }

    /// `sured.b.op.geom.ctype.clamp`: `.add` on `.u32 .s32 .u64`, `.min`/`.max` on `.u32
    /// .s32 .u64 .s64`, `.and`/`.or` on `.b32` (the ISA's table); `sured.p.op.geom.b32`
    /// (every op) and `.b64` (`.min`/`.max`): the element is signed or unsigned as the
    /// surface's format says.
    fn sured_op(&mut self, m: &mut Mods) -> Result<TexOp, PtxError> {
        let formatted = m.has("p");
        if !formatted && !m.has("b") {
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
            _ if formatted => {
                ty == Type::B32 || ty == Type::B64 && matches!(op, AtomOp::Min | AtomOp::Max)
            }
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
            formatted,
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
