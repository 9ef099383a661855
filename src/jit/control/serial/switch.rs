//! Compare trees in the lane-by-lane form: a `switch` that NVRTC compiled to a tree of
//! `setp` + `bra` on one masked register (the bytecode kernel's `switch (ins & 15)`)
//! becomes one jump table on that register, as LLVM's own switch lowering would do.
//!
//! The tree is found on the IR: its root is a block ending in `setp.cmp p, x, imm;
//! @p bra`, where `x` was set earlier in the same block by `and x, y, m` (so `x <= m`,
//! its container zero-extended, `m < 64`); the tree's inner blocks hold such a `setp`
//! on `x` and its branch (or only a `bra`), and besides it only unguarded `mov`s of a
//! register or immediate to a register other than `x` (NVRTC hoists a case's `pc = imm`
//! into the tree), are inside the loop and head no loop (no watchdog check is
//! skipped). Walking the tree for each `v` in `0..=m` with the ISA's compare on the
//! setp's type gives the block value `v` reaches and the `mov`s on its way; the jump
//! table sends `x` there directly, through a block running those `mov`s in order where
//! there are any. The predicates the tree writes must be dead where it ends, as the
//! table skips their writes. Any other shape keeps its branches.

use super::Lanes;
use crate::ir::analysis::cfg;
use crate::ir::{
    ArithOp, BlockId, CmpOp, Function, Idx, Inst, InstKind, Operand, RegId, Terminator,
};
use crate::ir::{RegClass, Type};

/// The most values a recognized tree's register may take (the jump table's length).
const MAX_CASES: u64 = 64;
/// The most tree blocks one value's walk passes.
const MAX_DEPTH: usize = 64;

/// A compare tree from a block's terminator: register `x`, and per value `v` of
/// `0..targets.len()` the IR block the tree sends it to, after the `mov`s (as block and
/// instruction index) on its way.
pub(crate) struct Switch {
    pub x: RegId,
    pub targets: Vec<(Vec<(BlockId, usize)>, BlockId)>,
}

/// `mov d, a` of a register or immediate to a 32- or 64-bit register other than `x`,
/// without guard.
fn plain_mov(f: &Function, inst: &Inst, x: RegId) -> bool {
    match &inst.kind {
        InstKind::Mov {
            dst,
            src: Operand::Reg(_) | Operand::Imm(_),
            ..
        } => {
            let c = f.regs[*dst].ty.class();
            inst.guard.is_none() && *dst != x && matches!(c, RegClass::R32 | RegClass::R64)
        }
        _ => false,
    }
}

/// `setp.cmp p, x, imm` without guard, combining predicate or second destination, on an
/// integer type of at most 32 bits: `(cmp, ty, p, x, imm)`.
fn int_setp(inst: &Inst) -> Option<(CmpOp, Type, RegId, RegId, u64)> {
    let InstKind::Setp {
        cmp,
        ty,
        dst: Some(p),
        dst_neg: None,
        a: Operand::Reg(x),
        b: Operand::Imm(c),
        combine: None,
        ..
    } = &inst.kind
    else {
        return None;
    };
    let int = !ty.is_float() && ty.bits() <= 32 && ty.class() == RegClass::R32;
    let ok = matches!(
        cmp,
        CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
    );
    (inst.guard.is_none() && int && ok).then_some((*cmp, *ty, *p, *x, *c))
}

/// The ISA's integer `setp.cmp.ty` of `a` and `b` (both truncated to the type's width,
/// signed types compared as signed).
fn compare(cmp: CmpOp, ty: Type, a: u64, b: u64) -> bool {
    let w = ty.bits();
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let (a, b) = (a & mask, b & mask);
    let ord = if ty.is_signed() {
        let s = 64 - w;
        (((a << s) as i64) >> s).cmp(&(((b << s) as i64) >> s))
    } else {
        a.cmp(&b)
    };
    match cmp {
        CmpOp::Eq => ord.is_eq(),
        CmpOp::Ne => ord.is_ne(),
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        _ => ord.is_ge(),
    }
}

/// The mask `m` of the last `and x, y, m` (or `and x, m, y`) of `insts` when nothing
/// after it writes `x` and `m < MAX_CASES`.
fn mask_of(f: &Function, insts: &[Inst], x: RegId) -> Option<u64> {
    use crate::ir::analysis::liveness::inst_effect;
    let k = insts
        .iter()
        .rposition(|i| inst_effect(f, i).defs.contains(&x))?;
    let inst = &insts[k];
    let InstKind::Arith {
        op: ArithOp::And,
        ty,
        dst,
        srcs,
        ..
    } = &inst.kind
    else {
        return None;
    };
    if inst.guard.is_some() || *dst != x || ty.class() != RegClass::R32 || *ty == Type::Pred {
        return None;
    }
    let m = match srcs.as_slice() {
        [Operand::Reg(_), Operand::Imm(m)] | [Operand::Imm(m), Operand::Reg(_)] => *m,
        _ => return None,
    };
    // The container holds the result zero-extended: at most `m` (and the type's mask).
    let w = ty.bits();
    let m = if w >= 32 {
        m & 0xffff_ffff
    } else {
        m & ((1 << w) - 1)
    };
    (m < MAX_CASES).then_some(m)
}

impl super::FuncTranslator<'_> {
    /// The compare tree that IR block `root`'s terminator starts, if it is one the
    /// lane-by-lane form can replace with a jump table (see the module doc).
    pub(super) fn serial_switch(&self, root: BlockId, st: &Lanes) -> Option<Switch> {
        let f = self.f;
        let blk = &f.blocks[root];
        let Terminator::Branch {
            guard,
            taken,
            not_taken,
            ..
        } = &blk.term
        else {
            return None;
        };
        let (last, before) = blk.insts.split_last()?;
        let (cmp, ty, p, x, c) = int_setp(last)?;
        if guard.pred != p {
            return None;
        }
        let m = mask_of(f, before, x)?;
        let headers = cfg::loop_headers(f);
        let inner = |b: BlockId| st.blocks.contains_key(&b.index()) && !headers[b];
        let mut preds = vec![p];
        let mut targets = Vec::with_capacity(m as usize + 1);
        for v in 0..=m {
            let go = compare(cmp, ty, v, c) != guard.negate;
            let mut b = if go { *taken } else { *not_taken };
            let mut depth = 0;
            let mut movs = Vec::new();
            // Follow the tree's inner blocks: one `setp` on `x` and its branch, or a
            // jump, with `mov`s.
            while inner(b) && depth < MAX_DEPTH {
                let ib = &f.blocks[b];
                let mut setp = None;
                let mut side = Vec::new();
                let mut other = false;
                for (k, i) in ib.insts.iter().enumerate() {
                    if plain_mov(f, i, x) {
                        side.push((b, k));
                    } else if let (None, Some(s)) = (setp, int_setp(i)) {
                        setp = Some(s);
                    } else {
                        other = true;
                    }
                }
                let next = match (setp, &ib.term) {
                    _ if other => break,
                    (None, Terminator::Jump { target, .. }) => *target,
                    (
                        Some((cmp2, ty2, q, x2, c2)),
                        Terminator::Branch {
                            guard: g,
                            taken: t,
                            not_taken: n,
                            ..
                        },
                    ) if x2 == x && g.pred == q => {
                        if !preds.contains(&q) {
                            preds.push(q);
                        }
                        if compare(cmp2, ty2, v, c2) != g.negate {
                            *t
                        } else {
                            *n
                        }
                    }
                    _ => break,
                };
                // A `mov` reading a predicate of the tree would see the table skip it.
                let reads_pred = side.iter().any(|&(bb, k)| {
                    matches!(&f.blocks[bb].insts[k].kind,
                        InstKind::Mov { src: Operand::Reg(r), .. } if preds.contains(r))
                });
                if reads_pred {
                    return None;
                }
                movs.extend(side);
                b = next;
                depth += 1;
            }
            if depth >= MAX_DEPTH {
                return None;
            }
            targets.push((movs, b));
        }
        // The predicates the tree writes are dead where it ends; a tree of fewer than 3
        // ends is left as its branches.
        let dead =
            (targets.iter()).all(|(_, t)| preds.iter().all(|&q| !st.live.live_in[*t].contains(q)));
        let mut ends: Vec<BlockId> = targets.iter().map(|t| t.1).collect();
        ends.sort_unstable_by_key(|b| b.index());
        ends.dedup();
        (dead && ends.len() >= 3).then_some(Switch { x, targets })
    }
}
