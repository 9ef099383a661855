//! Lowering of the warp-level matrix instructions into [`InstKind::Matrix`]:
//! `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 d, [p]`,
//! `movmatrix.sync.aligned.m8n8.trans.b16 d, a` and the `mma.sync.aligned` forms that
//! `crate::ir::MmaOp::supported` accepts (`m16n8k16.row.col.f32.{f16,bf16}` and
//! `m16n8k32.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32`). Every other shape, type or
//! qualifier is a located "not supported yet" error. Fragment registers may be any
//! 32-bit register (`.f32` accumulators: `.f32` or `.b32`; `.s32` accumulators: integer
//! or bit registers); `_` may replace a result register.

use super::Mods;
use crate::check::func::Fx;
use crate::check::operand::VecElem;
use crate::ir::Fit;
use crate::ir::{InstKind, MatrixOp, MmaOp, MmaShape, Operand, RegId, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// `mma` shapes that PTX has but ptxjit does not execute.
const OTHER_SHAPES: &[&str] = &[
    "m8n8k4",
    "m16n8k4",
    "m16n8k8",
    "m8n8k16",
    "m8n8k32",
    "m16n8k64",
    "m8n8k128",
    "m16n8k128",
    "m16n8k256",
];

impl Fx<'_, '_> {
    /// `ldmatrix`, `movmatrix` or `mma` (by opcode name).
    pub(super) fn matrix_op(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        for q in ["sync", "aligned"] {
            if !m.has(q) {
                return Err(self.err(m.loc, format!("'{}' needs '.{q}'", m.text)));
            }
        }
        match i.opcode.name.as_str() {
            "ldmatrix" => self.ldmatrix(i, m),
            "movmatrix" => self.movmatrix(i, m),
            _ => self.mma(i, m),
        }
    }

    /// The single type modifier `b16` of `ldmatrix`/`movmatrix`.
    fn b16_only(&self, m: &mut Mods) -> Result<(), PtxError> {
        match m.types().as_slice() {
            [(Type::B16, _)] => Ok(()),
            [] => Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
            _ => Err(self.unsupported(m)),
        }
    }

    fn m8n8(&self, m: &mut Mods) -> Result<(), PtxError> {
        if m.has("m8n8") {
            Ok(())
        } else {
            Err(self.err(
                m.loc,
                format!(
                    "instruction '{}' is not supported yet (only '.m8n8')",
                    m.text
                ),
            ))
        }
    }

    fn ldmatrix(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.m8n8(m)?;
        let num = match m.one_of(&["x1", "x2", "x4"]) {
            Some("x1") => 1,
            Some("x2") => 2,
            Some(_) => 4,
            None => {
                return Err(self.err(m.loc, format!("'{}' needs '.x1', '.x2' or '.x4'", m.text)))
            }
        };
        let trans = m.has("trans");
        let space = self.space_mod(m, false)?;
        if !matches!(space, Space::Shared | Space::Generic) {
            return Err(self.err(
                m.loc,
                format!(
                    "state space .{} is not valid for '{}'",
                    space.name(),
                    m.text
                ),
            ));
        }
        self.b16_only(m)?;
        self.nops(i, m, 2)?;
        let dsts = self.result_vector(&i.operands[0], num, Type::B32, m)?;
        let addr = self.address(&i.operands[1], space)?;
        Ok(InstKind::Matrix {
            op: MatrixOp::Ldmatrix {
                num: num as u8,
                trans,
            },
            dsts,
            srcs: vec![],
            addr: Some((space, addr)),
        })
    }

    fn movmatrix(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.m8n8(m)?;
        if !m.has("trans") {
            return Err(self.err(m.loc, format!("'{}' needs '.trans'", m.text)));
        }
        self.b16_only(m)?;
        self.nops(i, m, 2)?;
        let d = match &i.operands[0] {
            ast::Operand::Sink(_) => None,
            op => Some(self.dst(op, Type::B32, Fit::Strict)?),
        };
        let a = self.src(&i.operands[1], Type::B32, Fit::Strict)?;
        Ok(InstKind::Matrix {
            op: MatrixOp::Movmatrix,
            dsts: vec![d],
            srcs: vec![a],
            addr: None,
        })
    }

    fn mma(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let shape = match m.one_of(&["m16n8k16", "m16n8k32"]) {
            Some("m16n8k16") => MmaShape::M16n8k16,
            Some(_) => MmaShape::M16n8k32,
            None if m.any(|x| OTHER_SHAPES.contains(&x)) => return Err(self.unsupported(m)),
            None => return Err(self.err(m.loc, format!("'{}' needs a shape", m.text))),
        };
        let is_layout = |x: &str| x == "row" || x == "col";
        let alayout = m.take_if(is_layout).map(|(x, _)| x);
        let blayout = m.take_if(is_layout).map(|(x, _)| x);
        if (alayout, blayout) != (Some("row"), Some("col")) {
            return Err(self.err(m.loc, format!("'{}' needs the layouts '.row.col'", m.text)));
        }
        let satfinite = m.has("satfinite");
        let ts = m.types();
        let [(dtype, _), (atype, _), (btype, _), (ctype, _)] = ts.as_slice() else {
            return Err(self.err(
                m.loc,
                format!("'{}' needs four types: .dtype.atype.btype.ctype", m.text),
            ));
        };
        let op = MmaOp {
            shape,
            dtype: *dtype,
            atype: *atype,
            btype: *btype,
            ctype: *ctype,
            satfinite,
        };
        let Some(sig) = MatrixOp::Mma(op).signature() else {
            return Err(self.unsupported(m));
        };
        self.nops(i, m, 4)?;
        let dsts = self.result_vector(&i.operands[0], sig.dsts, sig.dtype, m)?;
        let (na, nb) = match shape {
            MmaShape::M16n8k16 | MmaShape::M16n8k32 => (4, 2),
        };
        let mut srcs = Vec::with_capacity(sig.srcs.len());
        let mut k = 0;
        for (op, n) in i.operands[1..]
            .iter()
            .zip([na, nb, sig.srcs.len() - na - nb])
        {
            srcs.extend(self.source_vector(op, &sig.srcs[k..k + n], m)?);
            k += n;
        }
        Ok(InstKind::Matrix {
            op: MatrixOp::Mma(op),
            dsts,
            srcs,
            addr: None,
        })
    }

    /// A `{d0, ..}` result vector of `n` registers of type `ty` (`_` allowed).
    fn result_vector(
        &self,
        op: &ast::Operand,
        n: usize,
        ty: Type,
        m: &Mods,
    ) -> Result<Vec<Option<RegId>>, PtxError> {
        let elems = self.vector_elems(op)?;
        if elems.len() != n {
            return Err(self.vector_len_error(op, n, elems.len(), m));
        }
        elems
            .into_iter()
            .map(|el| match el {
                VecElem::Op(ast::Operand::Sink(_)) => Ok(None),
                VecElem::Op(o) => self.dst(o, ty, Fit::Strict).map(Some),
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, op.loc())?;
                    Ok(Some(r))
                }
            })
            .collect()
    }

    /// A `{a0, ..}` source vector with one element per type in `tys`.
    fn source_vector(
        &self,
        op: &ast::Operand,
        tys: &[Type],
        m: &Mods,
    ) -> Result<Vec<Operand>, PtxError> {
        let elems = self.vector_elems(op)?;
        if elems.len() != tys.len() {
            return Err(self.vector_len_error(op, tys.len(), elems.len(), m));
        }
        elems
            .into_iter()
            .zip(tys)
            .map(|(el, &ty)| match el {
                VecElem::Op(ast::Operand::Sink(l)) => {
                    Err(self.err(*l, "'_' is not allowed as a source operand"))
                }
                VecElem::Op(o) => self.src(o, ty, Fit::Strict),
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, op.loc())?;
                    Ok(Operand::Reg(r))
                }
            })
            .collect()
    }

    fn vector_len_error(&self, op: &ast::Operand, want: usize, got: usize, m: &Mods) -> PtxError {
        self.err(
            op.loc(),
            format!(
                "'{}' needs a vector of {want} registers here, not {got}",
                m.text
            ),
        )
    }
}
