//! A range fact for inline `.shared` atomics (`atomic_inline`): an address
//! `u + (x & M) + offset` whose base `u` holds one known constant `C` (a register written
//! once in the function, by an unguarded `mov` of an immediate or of a shared variable's
//! address, and not live at the function's entry: every read follows that write) and
//! whose mask `M` is a constant lies in `[C + offset, C + offset + M]` in every lane. So
//! `C + offset + M + len <= size` (the launch's shared window) and `C + offset` and `M`
//! multiples of the access size prove every lane in range and aligned: one scalar test
//! per instruction instead of the vector test of all 32 lanes (the histogram's
//! `atom.shared.add [s + (x & 252)], 1`). Where it fails, the instruction takes the exact
//! lane-by-lane test as before, so a mask whose bound passes the window's end faults
//! only where an active lane really is out of range, with the same message.
//!
//! The pattern, in the atom's own IR block: the address register's last definition
//! before the atom is an unguarded 64-bit `add` of `u` and either an immediate `M` or a
//! register whose last definition before the `add` is an unguarded 64-bit `and` with
//! the immediate `M`. Unguarded instructions of the block ran for every lane the atom
//! runs for.

use crate::ir::analysis::liveness::{term_effect, Liveness};
use crate::ir::{
    AddrBase, Address, ArithOp, BlockId, Function, Inst, InstId, InstKind, Operand, RegId, Type,
    VarRef,
};
use crate::jit::translate::FuncTranslator;

/// Masks and bases above this are not used (the bound must not overflow).
const MAX_SPAN: u64 = u32::MAX as u64;

fn wide_int(ty: Type) -> bool {
    matches!(ty, Type::B64 | Type::U64 | Type::S64)
}

/// Index of the last instruction before `end` in `insts` that writes `r`.
fn last_def(insts: &[Inst], end: usize, r: RegId) -> Option<usize> {
    insts[..end]
        .iter()
        .rposition(|i| i.kind.defs().contains(&r))
}

/// `M` where operand `op` of the `add` at `j` is the immediate `M` or a register whose
/// last definition before `j` is an unguarded 64-bit `and` with the immediate `M`.
fn masked(insts: &[Inst], j: usize, op: &Operand) -> Option<u64> {
    match *op {
        Operand::Imm(m) => Some(m),
        Operand::Reg(r) => {
            let i = last_def(insts, j, r)?;
            let d = &insts[i];
            match &d.kind {
                InstKind::Arith {
                    op: ArithOp::And,
                    ty,
                    dst,
                    srcs,
                    ..
                } if d.guard.is_none() && *dst == r && wide_int(*ty) => match srcs[..] {
                    [_, Operand::Imm(m)] | [Operand::Imm(m), _] => Some(m),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// The range `(C, M)` of the atom at index `k` of `insts` with address register base
/// `addr` (see the module documentation; the address's offset not included);
/// `constant(u)`: the constant `C` register `u` holds wherever it is read, if any.
pub(crate) fn masked_span(
    insts: &[Inst],
    k: usize,
    addr: &Address,
    constant: impl Fn(RegId) -> Option<u64>,
) -> Option<(u64, u64)> {
    let AddrBase::Reg(r) = addr.base else {
        return None;
    };
    let j = last_def(insts, k, r)?;
    let d = &insts[j];
    let InstKind::Arith {
        op: ArithOp::Add,
        ty,
        dst,
        srcs,
        ..
    } = &d.kind
    else {
        return None;
    };
    if d.guard.is_some() || *dst != r || !wide_int(*ty) || srcs.len() != 2 {
        return None;
    }
    let base = |op: &Operand| match *op {
        Operand::Reg(u) if u != r => constant(u),
        _ => None,
    };
    [(0, 1), (1, 0)]
        .into_iter()
        .find_map(|(b, m)| Some((base(&srcs[b])?, masked(insts, j, &srcs[m])?)))
        .filter(|&(c, m)| c <= MAX_SPAN && m <= MAX_SPAN)
}

/// The constant register `u` holds wherever it is read: written exactly once in `f`, by
/// an unguarded 64-bit `mov` of an immediate or a shared variable's address, and not live
/// at the entry (`entry_live`), so every read follows the write.
fn constant_reg(f: &Function, u: RegId, entry_live: bool) -> Option<u64> {
    if entry_live {
        return None;
    }
    let mut found = None;
    for b in &f.blocks {
        if term_effect(f, &b.term).defs.contains(&u) {
            return None;
        }
        for i in &b.insts {
            if !i.kind.defs().contains(&u) {
                continue;
            }
            let c = match (&i.guard, &i.kind) {
                (None, InstKind::Mov { ty, src, dst }) if *dst == u && wide_int(*ty) => {
                    match *src {
                        Operand::Imm(c) => Some(c),
                        Operand::VarAddr(VarRef::Shared(o), off) => {
                            u64::try_from(o as i64 + off).ok()
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if found.is_some() || c.is_none() {
                return None;
            }
            found = c;
        }
    }
    found
}

impl FuncTranslator<'_> {
    /// The shared addresses' bounds `(lo, M)` of the atom `inst` of the IR block being
    /// translated: every lane's address in `[lo, lo + M]` ([`masked_span`], `lo` with the
    /// address's offset).
    pub(crate) fn atom_span(&mut self, addr: &Address, inst: InstId) -> Option<(u64, u64)> {
        let f = self.f;
        let blk = f.blocks.get(BlockId(self.cur_block as u32))?;
        let k = blk.insts.iter().position(|i| i.id == inst)?;
        // The pattern first: the liveness analysis only where it matches.
        masked_span(&blk.insts, k, addr, |_| Some(0))?;
        let live = self.liveness.get_or_insert_with(|| Liveness::of(f));
        let entry = live.before(f, BlockId(0), 0);
        let (c, m) = masked_span(&blk.insts, k, addr, |u| {
            constant_reg(f, u, entry.contains(u))
        })?;
        let lo = u64::try_from(c as i64 + addr.offset).ok()?;
        Some((lo, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FloatMode, Guard};

    fn arith(op: ArithOp, dst: u32, srcs: Vec<Operand>, id: u32) -> Inst {
        Inst {
            guard: None,
            kind: InstKind::Arith {
                op,
                ty: Type::U64,
                fmode: FloatMode::default(),
                dst: RegId(dst),
                srcs,
            },
            id: InstId(id),
        }
    }

    fn at(r: u32) -> Address {
        Address {
            base: AddrBase::Reg(RegId(r)),
            offset: 0,
        }
    }

    #[test]
    fn the_histogram_pattern_gives_its_mask_and_nothing_else_does() {
        // r3 = r1 & 252; r4 = r2 + r3; atom [r4] (r2 the constant 16).
        let mut insts = vec![
            arith(
                ArithOp::And,
                3,
                vec![Operand::Reg(RegId(1)), Operand::Imm(252)],
                0,
            ),
            arith(
                ArithOp::Add,
                4,
                vec![Operand::Reg(RegId(2)), Operand::Reg(RegId(3))],
                1,
            ),
        ];
        let uni = |u: RegId| (u == RegId(2)).then_some(16);
        assert_eq!(masked_span(&insts, 2, &at(4), uni), Some((16, 252)));
        // Operands swapped.
        insts[1] = arith(
            ArithOp::Add,
            4,
            vec![Operand::Reg(RegId(3)), Operand::Reg(RegId(2))],
            1,
        );
        assert_eq!(masked_span(&insts, 2, &at(4), uni), Some((16, 252)));
        // The base not a known constant.
        assert_eq!(masked_span(&insts, 2, &at(4), |_| None), None);
        // The base is the address register itself (its value before the add).
        let own = vec![
            insts[0].clone(),
            arith(
                ArithOp::Add,
                4,
                vec![Operand::Reg(RegId(4)), Operand::Reg(RegId(3))],
                1,
            ),
        ];
        assert_eq!(masked_span(&own, 2, &at(4), |_| Some(16)), None);
        // The address register written again after the add.
        let mut later = insts.clone();
        later.push(arith(
            ArithOp::Add,
            4,
            vec![Operand::Reg(RegId(4)), Operand::Imm(4)],
            2,
        ));
        assert_eq!(masked_span(&later, 3, &at(4), uni), None);
        // The mask register written again before the add (not by an `and`).
        let mut redef = insts.clone();
        redef.insert(
            1,
            arith(
                ArithOp::Add,
                3,
                vec![Operand::Reg(RegId(3)), Operand::Imm(4)],
                5,
            ),
        );
        assert_eq!(masked_span(&redef, 3, &at(4), uni), None);
        // A guarded add.
        let mut guarded = insts.clone();
        guarded[1].guard = Some(Guard {
            pred: RegId(9),
            negate: false,
        });
        assert_eq!(masked_span(&guarded, 2, &at(4), uni), None);
        // A sub instead of the add, or an `or` instead of the `and`.
        let mut sub = insts.clone();
        sub[1] = arith(
            ArithOp::Sub,
            4,
            vec![Operand::Reg(RegId(2)), Operand::Reg(RegId(3))],
            1,
        );
        assert_eq!(masked_span(&sub, 2, &at(4), uni), None);
        let mut or = insts.clone();
        or[0] = arith(
            ArithOp::Or,
            3,
            vec![Operand::Reg(RegId(1)), Operand::Imm(252)],
            0,
        );
        assert_eq!(masked_span(&or, 2, &at(4), uni), None);
        // An immediate added to the uniform base.
        let imm = vec![arith(
            ArithOp::Add,
            4,
            vec![Operand::Reg(RegId(2)), Operand::Imm(64)],
            1,
        )];
        assert_eq!(masked_span(&imm, 1, &at(4), uni), Some((16, 64)));
    }
}
