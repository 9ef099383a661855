//! Lowering of the warp-level matrix instructions into [`InstKind::Matrix`]:
//! `ldmatrix`/`stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16`,
//! `movmatrix.sync.aligned.m8n8.trans.b16 d, a` and every `mma.sync.aligned` form that
//! `crate::ops::matrix::mma_supported` accepts (`wmma`: `matrix_wmma.rs`), `mma.sp`
//! with every sparsity selector `ptxas` accepts. Every other shape, type or qualifier
//! (the sm_100 forms) is a located "not supported yet" error naming the instruction. Fragment registers may be any
//! register of the fragment's register size (`.f32` accumulators: `.f32` or `.b32`;
//! `.s32`: integer or bit registers; `.f64`: 64-bit); `_` may replace a result register.

use super::Mods;
use crate::check::consts::Const;
use crate::check::func::Fx;
use crate::check::operand::{Val, VecElem};
use crate::ir::Fit;
use crate::ir::{
    ElemType, InstKind, MatrixOp, MmaOp, MmaShape, Operand, PopcOp, RegId, Space, Type,
};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `ldmatrix`, `stmatrix`, `movmatrix`, `mma` or `wmma` (by opcode name).
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
            "ldmatrix" | "stmatrix" => self.ldmatrix(i, m),
            "wmma" => self.wmma(i, m),
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
        let num8 = num as u8;
        if i.opcode.name == "stmatrix" {
            let addr = self.address(&i.operands[0], space)?;
            let srcs = self.source_vector(&i.operands[1], &vec![Type::B32; num], m)?;
            return Ok(InstKind::Matrix {
                op: MatrixOp::Stmatrix { num: num8, trans },
                dsts: vec![],
                srcs,
                addr: Some((space, addr)),
            });
        }
        let dsts = self.result_vector(&i.operands[0], num, Type::B32, m)?;
        let addr = self.address(&i.operands[1], space)?;
        Ok(InstKind::Matrix {
            op: MatrixOp::Ldmatrix { num: num8, trans },
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

    /// The shape modifier of `mma`/`wmma`.
    pub(super) fn mma_shape(&self, m: &mut Mods) -> Result<MmaShape, PtxError> {
        match m.take_if(|x| MmaShape::from_name(x).is_some()) {
            Some((x, _)) => MmaShape::from_name(x).ok_or_else(|| self.unsupported(m)),
            None if m.any(|x| x.starts_with('m') && x.contains('n') && x.contains('k')) => {
                Err(self.unsupported(m))
            }
            None => Err(self.err(m.loc, format!("'{}' needs a shape", m.text))),
        }
    }

    /// The element type modifiers, in order.
    pub(super) fn elem_types(&self, m: &mut Mods) -> Vec<ElemType> {
        let mut v = Vec::new();
        while let Some((x, _)) = m.take_if(|x| ElemType::from_name(x).is_some()) {
            v.extend(ElemType::from_name(x));
        }
        v
    }

    /// `.xor.popc` / `.and.popc`.
    pub(super) fn popc_op(&self, m: &mut Mods) -> Result<Option<PopcOp>, PtxError> {
        let op = match m.one_of(&["xor", "and"]) {
            Some("xor") => Some(PopcOp::Xor),
            Some(_) => Some(PopcOp::And),
            None => None,
        };
        if op.is_some() != m.has("popc") {
            return Err(self.unsupported(m));
        }
        Ok(op)
    }

    /// Two `.row`/`.col` layout qualifiers (`true`: row).
    pub(super) fn two_layouts(&self, m: &mut Mods) -> Result<(bool, bool), PtxError> {
        let is_layout = |x: &str| x == "row" || x == "col";
        match (m.take_if(is_layout), m.take_if(is_layout)) {
            (Some((a, _)), Some((b, _))) => Ok((a == "row", b == "row")),
            _ => Err(self.err(m.loc, format!("'{}' needs two layouts (.row/.col)", m.text))),
        }
    }

    fn mma(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        // `mma.sp::ordered_metadata` takes the same metadata as `mma.sp` on sm_80/sm_90
        // (the order of the two indices of a group is ascending in both).
        let sparse = m.one_of(&["sp", "sp::ordered_metadata"]).is_some();
        let shape = self.mma_shape(m)?;
        let (arow, brow) = self.two_layouts(m)?;
        if shape != MmaShape::M8n8k4 && (!arow || brow) {
            return Err(self.err(m.loc, format!("'{}' needs the layouts '.row.col'", m.text)));
        }
        let satfinite = m.has("satfinite");
        let bop = self.popc_op(m)?;
        let ts = self.elem_types(m);
        let [dtype, atype, btype, ctype] = ts.as_slice() else {
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
            arow,
            brow,
            satfinite,
            bop,
            rnd: None,
            sparse,
        };
        self.mma_operands(i, m, MatrixOp::Mma(op))
    }

    /// The `d, a, b, c` vectors of `mma`/`wmma.mma`.
    pub(super) fn mma_operands(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        op: MatrixOp,
    ) -> Result<InstKind, PtxError> {
        let (MatrixOp::Mma(mo) | MatrixOp::WmmaMma(mo)) = op else {
            return Err(self.unsupported(m));
        };
        let Some(sig) = op.signature() else {
            return Err(self.unsupported(m));
        };
        self.nops(i, m, if mo.sparse { 6 } else { 4 })?;
        let dsts = self.result_vector(&i.operands[0], sig.dsts, sig.dtype, m)?;
        let wmma = matches!(op, MatrixOp::WmmaMma(_));
        let regs = |f, t| crate::ops::matrix::frag_regs(wmma, mo.shape, f, t).unwrap_or(0);
        let na = if mo.sparse {
            crate::ops::matrix::sparse_a_regs(mo).unwrap_or(0)
        } else {
            regs(crate::ir::Frag::A, mo.atype)
        };
        let nb = regs(crate::ir::Frag::B, mo.btype);
        let nmeta = if mo.sparse { 2 } else { 0 };
        let mut srcs = Vec::with_capacity(sig.srcs.len());
        let mut k = 0;
        for (o, n) in i.operands[1..4]
            .iter()
            .zip([na, nb, sig.srcs.len() - na - nb - nmeta])
        {
            srcs.extend(self.source_vector(o, &sig.srcs[k..k + n], m)?);
            k += n;
        }
        if mo.sparse {
            srcs.push(self.src(&i.operands[4], Type::B32, Fit::Strict)?);
            let sel = self.sparsity_selector(&i.operands[5], mo, m)?;
            srcs.push(Operand::Imm(sel));
        }
        Ok(InstKind::Matrix {
            op,
            dsts,
            srcs,
            addr: None,
        })
    }

    /// `mma.sp`'s sparsity selector: an integer constant in the range `ptxas` accepts
    /// for the form (`crate::ir::matrix_layout::ptxas_sparse_selectors`; the run time
    /// stops on the ones the ISA leaves undefined, `crate::exec::matrix`).
    fn sparsity_selector(
        &self,
        op: &ast::Operand,
        mo: crate::ir::MmaOp,
        m: &Mods,
    ) -> Result<u64, PtxError> {
        let n = crate::ir::matrix_layout::ptxas_sparse_selectors(mo).unwrap_or(1) as u64;
        let value = match op {
            ast::Operand::Value(e) => match self.value(e) {
                Ok(Val::Const(Const::Int { bits, .. })) => Some(bits),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some(v) if v < n => Ok(v),
            Some(v) => Err(self.err(
                op.loc(),
                format!(
                    "sparsity selector {} of '{}' is out of range (0..={})",
                    v as i64,
                    m.text,
                    n - 1
                ),
            )),
            None => Err(self.err(
                op.loc(),
                format!(
                    "the sparsity selector of '{}' must be an integer constant",
                    m.text
                ),
            )),
        }
    }

    /// A `{d0, ..}` result vector of `n` registers of type `ty` (`_` allowed).
    pub(super) fn result_vector(
        &self,
        op: &ast::Operand,
        n: usize,
        ty: Type,
        m: &Mods,
    ) -> Result<Vec<Option<RegId>>, PtxError> {
        self.vector_dsts(op, &vec![ty; n], Fit::Strict, |found| {
            vector_len_message(n, found, m)
        })
    }

    /// A `{a0, ..}` source vector with one element per type in `tys`.
    pub(super) fn source_vector(
        &self,
        op: &ast::Operand,
        tys: &[Type],
        m: &Mods,
    ) -> Result<Vec<Operand>, PtxError> {
        let elems = self.vector_elems(op)?;
        if elems.len() != tys.len() {
            let msg = vector_len_message(tys.len(), elems.len(), m);
            return Err(self.err(op.loc(), msg));
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
}

/// The error for a vector operand of `got` elements where `m` needs `want` registers.
fn vector_len_message(want: usize, got: usize, m: &Mods) -> String {
    format!(
        "'{}' needs a vector of {want} registers here, not {got}",
        m.text
    )
}
