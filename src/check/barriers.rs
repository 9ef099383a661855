//! Ends a block after every `bar.sync`: each barrier becomes a [`Terminator::Barrier`]
//! whose continuation is a new block numbered right after it. Inserting the continuation
//! directly after its only predecessor keeps the numbering a reverse post-order.

use crate::ir::{Block, BlockId, Function, InstKind, Terminator};

/// Splits every block of `f` at its `bar.sync` instructions.
pub(crate) fn split_at_barriers(f: &mut Function) {
    if !f.blocks.iter().any(|b| {
        b.insts
            .iter()
            .any(|i| matches!(i.kind, InstKind::BarSync { .. }))
    }) {
        return;
    }
    // New blocks, and for each old block the new id of its first piece.
    let mut out: Vec<Block> = Vec::new();
    let mut first_piece = Vec::with_capacity(f.blocks.len());
    // First pass: count pieces so that targets can be remapped.
    let mut next_id = 0u32;
    for b in &f.blocks {
        first_piece.push(next_id);
        let n = b
            .insts
            .iter()
            .filter(|i| matches!(i.kind, InstKind::BarSync { .. }))
            .count() as u32;
        next_id += 1 + n;
    }
    let remap = |t: BlockId| BlockId(first_piece[t.0 as usize]);
    for b in std::mem::take(&mut f.blocks) {
        let mut cur = Block {
            label: b.label,
            insts: Vec::new(),
            term: b.term.clone(),
        };
        for inst in b.insts {
            if let InstKind::BarSync { barrier, count } = inst.kind {
                let next = BlockId(out.len() as u32 + 1);
                cur.term = Terminator::Barrier {
                    guard: inst.guard,
                    barrier,
                    count,
                    next,
                    inst: inst.id,
                };
                out.push(cur);
                cur = Block {
                    label: None,
                    insts: Vec::new(),
                    term: b.term.clone(),
                };
            } else {
                cur.insts.push(inst);
            }
        }
        cur.term = match b.term {
            Terminator::Jump { target, inst } => Terminator::Jump {
                target: remap(target),
                inst,
            },
            Terminator::Branch {
                guard,
                taken,
                not_taken,
                uni,
                inst,
            } => Terminator::Branch {
                guard,
                taken: remap(taken),
                not_taken: remap(not_taken),
                uni,
                inst,
            },
            Terminator::Ret { guard, next, inst } => Terminator::Ret {
                guard,
                next: next.map(remap),
                inst,
            },
            Terminator::Exit { guard, next, inst } => Terminator::Exit {
                guard,
                next: next.map(remap),
                inst,
            },
            Terminator::Barrier {
                guard,
                barrier,
                count,
                next,
                inst,
            } => Terminator::Barrier {
                guard,
                barrier,
                count,
                next: remap(next),
                inst,
            },
        };
        out.push(cur);
    }
    f.blocks = out;
}
