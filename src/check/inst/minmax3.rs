//! Three-input `min`/`max` (PTX ISA 8.8, sm_100): `min{.ftz}{.NaN}{.abs}.f32 d, a, b, c`
//! and the same for `max` (the forms ptxas 12.9 accepts; integer, f16 and f64 forms
//! take two inputs). Lowered to two two-input [`InstKind::MinMax`] through a hidden
//! register, `d = min(min(a, b), c)`: the two-input rules (a NaN input is ignored unless
//! every input is NaN, `.NaN` makes any NaN input give the canonical NaN, `.ftz` flushes
//! subnormal inputs, -0 is below +0) give the same result in any grouping. `.abs`
//! compares the magnitudes: each input's sign bit is cleared first.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::{ArithOp, Fit, FloatMode, InstKind, MinMaxOp, Operand, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    pub(super) fn min_max3(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let op = MinMaxOp {
            max: i.opcode.name == "max",
            ftz: m.has("ftz"),
            nan: m.has("NaN"),
            xorsign_abs: false,
            relu: false,
            packed: false,
        };
        let abs = m.has("abs");
        if m.one_of(&["f32"]).is_none() || m.any(|_| true) {
            return Err(self.unsupported(m));
        }
        self.nops(i, m, 4)?;
        let d = self.dst(&i.operands[0], Type::F32, Fit::Strict)?;
        let mut out = Vec::new();
        let mut srcs = Vec::new();
        for o in &i.operands[1..] {
            let s = self.src(o, Type::F32, Fit::Strict)?;
            srcs.push(if abs {
                let t = self.new_reg(format!("%min3.{}", self.regs.len()), Type::B32, m.loc)?;
                out.push(InstKind::Arith {
                    op: ArithOp::And,
                    ty: Type::B32,
                    fmode: FloatMode::default(),
                    dst: t,
                    srcs: vec![s, Operand::Imm(0x7fff_ffff)],
                });
                Operand::Reg(t)
            } else {
                s
            });
        }
        let t = self.new_reg(format!("%min3.{}", self.regs.len()), Type::F32, m.loc)?;
        out.push(InstKind::MinMax {
            op,
            ty: Type::F32,
            dst: t,
            a: srcs[0],
            b: srcs[1],
        });
        out.push(InstKind::MinMax {
            op,
            ty: Type::F32,
            dst: d,
            a: Operand::Reg(t),
            b: srcs[2],
        });
        Ok(out)
    }
}
