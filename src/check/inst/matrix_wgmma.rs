//! Lowering of the warpgroup-level matrix instructions (sm_90a):
//!
//! - `wgmma.fence.sync.aligned`, `wgmma.commit_group.sync.aligned` and
//!   `wgmma.wait_group.sync.aligned N` lower to nothing: `wgmma.mma_async` computes its
//!   result when the warp issues it (`crate::exec::wgmma`), so there is nothing to order
//!   or wait for.
//! - `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b-desc, scale-d{,
//!   imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b}` with A a `{...}` vector of
//!   four `.b32` registers or a 64-bit matrix descriptor, for every type of the ISA:
//!   `.f16` (`.f16`/`.f32` D), `.bf16` and `.tf32` (`.f32` D), `.e4m3`/`.e5m2` (any
//!   pair, `.f16`/`.f32` D), `.s8`/`.u8` (any pair, `.s32` D, optional `.satfinite`),
//!   `.b1` (`.s32` D, `.and.popc`); `N` a multiple of 8 up to 256 (integer and `.b1`:
//!   8, 16, 24 or a multiple of 16), `K` 16 (`.f16`/`.bf16`), 8 (`.tf32`), 32 (8-bit
//!   types) or 256 (`.b1`). imm-scale-a/b are 1 or -1, the trans arguments (`.f16` and
//!   `.bf16` only) 0 or 1. `scale-d` (a predicate or 0/1) becomes a `.u32` 0/1 through a
//!   `selp`. The sparse `wgmma.mma_async.sp` is a located "not supported yet" error.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::{ElemType, Fit, InstKind, MatrixOp, Operand, PopcOp, Type, WgmmaOp};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `wgmma.*` (by its first modifier).
    pub(super) fn wgmma(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let what = m.one_of(&["fence", "commit_group", "wait_group", "mma_async"]);
        for q in ["sync", "aligned"] {
            if !m.has(q) {
                return Err(self.err(m.loc, format!("'{}' needs '.{q}'", m.text)));
            }
        }
        match what {
            Some("fence") | Some("commit_group") => {
                self.nops(i, m, 0)?;
                Ok(vec![])
            }
            Some("wait_group") => {
                self.nops(i, m, 1)?;
                match self.src(&i.operands[0], Type::U32, Fit::Strict)? {
                    Operand::Imm(_) => Ok(vec![]),
                    _ => Err(self.err(
                        i.operands[0].loc(),
                        "wgmma.wait_group needs an integer constant",
                    )),
                }
            }
            Some(_) if !m.any(|x| x == "sp") => self.wgmma_mma(i, m),
            _ => Err(self.unsupported(m)),
        }
    }

    /// The `m64nNkK` shape: `(N, K)`.
    fn wgmma_shape(&self, m: &mut Mods) -> Result<(u16, usize), PtxError> {
        let parse = |x: &str| -> Option<(u16, usize)> {
            let (n, k) = x.strip_prefix("m64n")?.split_once('k')?;
            Some((n.parse().ok()?, k.parse().ok()?))
        };
        match m.take_if(|x| parse(x).is_some()) {
            Some((x, _)) => parse(x).ok_or_else(|| self.unsupported(m)),
            None => Err(self.err(m.loc, format!("'{}' needs a shape m64nNkK", m.text))),
        }
    }

    fn wgmma_mma(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        use ElemType::*;
        let (n, k) = self.wgmma_shape(m)?;
        let satfinite = m.has("satfinite");
        let bop = self.popc_op(m)?;
        let ts = self.elem_types(m);
        let [dtype, atype, btype] = ts[..] else {
            return Err(self.err(
                m.loc,
                format!("'{}' needs three types: .dtype.atype.btype", m.text),
            ));
        };
        let fp8 = |t| matches!(t, E4M3 | E5M2);
        let int8 = |t| matches!(t, S8 | U8);
        let float = match (dtype, atype, btype) {
            (F16 | F32, F16, F16) | (F32, BF16, BF16) | (F32, TF32, TF32) => true,
            (F16 | F32, a, b) if fp8(a) && fp8(b) => true,
            (S32, a, b) if int8(a) && int8(b) => false,
            (S32, B1, B1) if bop == Some(PopcOp::And) => false,
            _ => return Err(self.unsupported(m)),
        };
        let op = WgmmaOp {
            n,
            dtype,
            atype,
            btype,
            a_desc: !matches!(i.operands.get(1), Some(ast::Operand::Vector(..))),
            neg_a: false,
            neg_b: false,
            trans_a: false,
            trans_b: false,
            satfinite,
            bop,
        };
        let n_ok = if float {
            n % 8 == 0
        } else {
            matches!(n, 8 | 16 | 24) || n % 16 == 0
        };
        if !(8..=256).contains(&n) || !n_ok || k != op.k() || (satfinite && float) {
            return Err(self.unsupported(m));
        }
        self.wgmma_operands(i, m, op)
    }

    /// The operands of a `wgmma.mma_async` whose modifiers gave `op`.
    fn wgmma_operands(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        mut op: WgmmaOp,
    ) -> Result<Vec<InstKind>, PtxError> {
        let trans = matches!(op.atype, ElemType::F16 | ElemType::BF16);
        let float = op.dtype != ElemType::S32;
        let nimm = match (float, trans) {
            (false, _) => 0,
            (true, false) => 2,
            (true, true) => 3 + op.a_desc as usize,
        };
        self.nops(i, m, 4 + nimm)?;
        // imm-scale-a/b (1 or -1: `Some(negate)`) and imm-trans-a/b (0 or 1: `Some(trans)`).
        let imm = |fx: &Self, k: usize, scale: bool| -> Result<bool, PtxError> {
            let o = &i.operands[k];
            let v = match fx.src(o, Type::S32, Fit::Strict)? {
                Operand::Imm(v) => v as u32,
                _ => 2,
            };
            match (scale, v) {
                (true, 1) | (false, 0) => Ok(false),
                (true, u32::MAX) | (false, 1) => Ok(true),
                (true, _) => Err(fx.err(o.loc(), "wgmma.mma_async: imm-scale-a/b must be 1 or -1")),
                (false, _) => Err(fx.err(o.loc(), "wgmma.mma_async: imm-trans-a/b must be 0 or 1")),
            }
        };
        if float {
            op.neg_a = imm(self, 4, true)?;
            op.neg_b = imm(self, 5, true)?;
        }
        if trans {
            if op.a_desc {
                op.trans_a = imm(self, 6, false)?;
            }
            op.trans_b = imm(self, 3 + nimm, false)?;
        }
        let sig = MatrixOp::Wgmma(op)
            .signature()
            .ok_or_else(|| self.unsupported(m))?;
        let dsts = self.result_vector(&i.operands[0], sig.dsts, sig.dtype, m)?;
        let mut srcs = if op.a_desc {
            vec![self.src(&i.operands[1], Type::U64, Fit::Strict)?]
        } else {
            self.source_vector(&i.operands[1], &[Type::B32; 4], m)?
        };
        srcs.push(self.src(&i.operands[2], Type::U64, Fit::Strict)?);
        let nd = op.d_regs();
        srcs.extend(self.source_vector(&i.operands[0], &vec![sig.dtype; nd], m)?);
        let cond = self.pred_src(&i.operands[3])?;
        let t = self.new_reg(
            format!("%wgmma.scale_d.{}", self.regs.len()),
            Type::U32,
            m.loc,
        )?;
        srcs.push(Operand::Reg(t));
        Ok(vec![
            InstKind::Selp {
                ty: Type::U32,
                dst: t,
                a: Operand::Imm(1),
                b: Operand::Imm(0),
                cond,
            },
            InstKind::Matrix {
                op: MatrixOp::Wgmma(op),
                dsts,
                srcs,
                addr: None,
            },
        ])
    }
}
