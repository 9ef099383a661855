//! Lowering of `wmma` into [`InstKind::Matrix`]:
//! `wmma.load.{a,b,c}.sync.aligned.layout.shape{.global,.shared{::cta}}.type r, [p]{, stride}`,
//! `wmma.store.d.sync.aligned.layout.shape{.space}.type [p], r{, stride}` and
//! `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype` (`.f16`),
//! `...shape.dtype.atype.btype.ctype{.satfinite}` (bf16, tf32, s8/u8, s4/u4),
//! `...shape{.rnd}.f64.f64.f64.f64` and `wmma.mma.{xor,and}.popc...m8n8k128.s32.b1.b1.s32`,
//! for every shape and type `crate::ops::matrix::mma_supported` accepts. A missing stride
//! is the matrix's leading dimension (columns for `.row`, rows for `.col`).

use super::Mods;
use crate::check::func::Fx;
use crate::ir::{ElemType, Fit, Frag, InstKind, MatrixOp, MmaOp, Operand, Space, WmmaFrag};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    pub(super) fn wmma(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        match m.one_of(&["load", "store", "mma"]) {
            Some("load") => self.wmma_move(i, m, true),
            Some("store") => self.wmma_move(i, m, false),
            Some(_) => self.wmma_mma(i, m),
            None => Err(self.unsupported(m)),
        }
    }

    fn wmma_move(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        load: bool,
    ) -> Result<InstKind, PtxError> {
        let frag = match m.one_of(&["a", "b", "c", "d"]) {
            Some("a") if load => Frag::A,
            Some("b") if load => Frag::B,
            Some("c") if load => Frag::C,
            Some("d") if !load => Frag::D,
            _ => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs a fragment (.a, .b, .c / .d)", m.text),
                ))
            }
        };
        let row = match m.one_of(&["row", "col"]) {
            Some(x) => x == "row",
            None => return Err(self.err(m.loc, format!("'{}' needs a layout (.row/.col)", m.text))),
        };
        let shape = self.mma_shape(m)?;
        let space = self.space_mod(m, false)?;
        if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
            return Err(self.err(
                m.loc,
                format!(
                    "state space .{} is not valid for '{}'",
                    space.name(),
                    m.text
                ),
            ));
        }
        let ts = self.elem_types(m);
        let [ty] = ts.as_slice() else {
            return Err(self.err(m.loc, format!("'{}' needs one type", m.text)));
        };
        let f = WmmaFrag {
            frag,
            shape,
            ty: *ty,
            row,
        };
        let op = if load {
            MatrixOp::WmmaLoad(f)
        } else {
            MatrixOp::WmmaStore(f)
        };
        let Some(sig) = op.signature() else {
            return Err(self.unsupported(m));
        };
        if !matches!(i.operands.len(), 2 | 3) {
            self.nops(i, m, 3)?;
        }
        let stride = match i.operands.get(2) {
            Some(o) => self.src(o, crate::ir::Type::U32, Fit::Strict)?,
            None => {
                let (rows, cols) = crate::ops::matrix::wmma_dims(f);
                Operand::Imm(if row { cols } else { rows } as u64)
            }
        };
        let (vec_op, addr_op) = if load {
            (&i.operands[0], &i.operands[1])
        } else {
            (&i.operands[1], &i.operands[0])
        };
        let addr = self.address(addr_op, space)?;
        let nregs = sig.srcs.len().saturating_sub(1);
        let (dsts, mut srcs) = if load {
            (self.result_vector(vec_op, sig.dsts, sig.dtype, m)?, vec![])
        } else {
            (vec![], self.source_vector(vec_op, &sig.srcs[..nregs], m)?)
        };
        srcs.push(stride);
        Ok(InstKind::Matrix {
            op,
            dsts,
            srcs,
            addr: Some((space, addr)),
        })
    }

    fn wmma_mma(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let bop = self.popc_op(m)?;
        let (arow, brow) = self.two_layouts(m)?;
        let shape = self.mma_shape(m)?;
        let rnd = m.one_of(&["rn", "rz", "rm", "rp"]).map(|r| match r {
            "rn" => 0,
            "rz" => 1,
            "rm" => 2,
            _ => 3,
        });
        let satfinite = m.has("satfinite");
        let ts = self.elem_types(m);
        let (dtype, atype, btype, ctype) = match ts.as_slice() {
            [d, c] => (*d, ElemType::F16, ElemType::F16, *c),
            [d, a, b, c] => (*d, *a, *b, *c),
            _ => {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'{}' needs .dtype.ctype or .dtype.atype.btype.ctype",
                        m.text
                    ),
                ))
            }
        };
        let op = MmaOp {
            shape,
            dtype,
            atype,
            btype,
            ctype,
            arow,
            brow,
            satfinite,
            bop,
            rnd,
            sparse: false,
        };
        self.mma_operands(i, m, MatrixOp::WmmaMma(op))
    }
}
