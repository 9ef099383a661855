//! Registers that hold one constant: a fact the JIT uses to turn `shfl` lane offsets
//! and other operands into immediates.

use crate::ir::{CallDst, Function, InstId, InstKind, Operand, RegId, Terminator};
use std::collections::HashMap;

/// Registers that hold one constant where they are read after their definition:
/// written exactly once in the whole function, by an unguarded `mov` of an immediate.
/// Such a read sees the constant in the definition's block after it, and anywhere
/// when the definition is in the entry block (which runs before every other block). nvcc
/// puts the lane offsets and `c` operands of `shfl` in such registers. Values: the
/// constant, the definition's `InstId` and block.
pub fn entry_constants(f: &Function) -> HashMap<RegId, (u64, InstId, usize)> {
    let mut defs: HashMap<RegId, u32> = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            for r in i.kind.defs() {
                *defs.entry(r).or_default() += 1;
            }
        }
        if let Terminator::Call { rets, .. } | Terminator::CallIndirect { rets, .. } = &b.term {
            for r in rets {
                if let CallDst::Reg(d, _) = r.dst {
                    *defs.entry(d).or_default() += 2;
                }
            }
        }
    }
    let mut out = HashMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            if let (
                None,
                InstKind::Mov {
                    dst,
                    src: Operand::Imm(v),
                    ty,
                },
            ) = (i.guard, &i.kind)
            {
                if defs.get(dst) == Some(&1) && ty.bits() <= 64 {
                    out.insert(*dst, (*v & crate::ops::mask(ty.bits()), i.id, bi));
                }
            }
        }
    }
    out
}
