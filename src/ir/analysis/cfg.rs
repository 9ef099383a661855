//! Control-flow facts of one function. Blocks are numbered in reverse post-order (check
//! guarantees it), so a back edge is an edge to a block at or before its source.

use crate::ir::{BlockId, Function, Idx, IdxVec, Terminator};

/// Per block: whether some terminator of `f` branches to it (the entry block is a
/// target only if a branch goes back to it).
pub fn branch_targets(f: &Function) -> IdxVec<BlockId, bool> {
    let mut targets = IdxVec::from_elem(false, f.blocks.len());
    for blk in &f.blocks {
        for s in blk.term.successors() {
            if let Some(t) = targets.get_mut(s) {
                *t = true;
            }
        }
    }
    targets
}

/// Per block: whether it is a loop header, i.e. entered from a block at or after it.
/// Every cycle of the CFG contains such an edge, so code that must run once per loop
/// iteration (the watchdog's stop check) runs at these blocks.
pub fn loop_headers(f: &Function) -> IdxVec<BlockId, bool> {
    let mut header = IdxVec::from_elem(false, f.blocks.len());
    for (i, blk) in f.blocks.iter_enumerated() {
        for s in blk.term.successors() {
            if s <= i {
                if let Some(h) = header.get_mut(s) {
                    *h = true;
                }
            }
        }
    }
    header
}

/// Per block: whether it can run while some lanes of the warp wait at other blocks (or
/// at a barrier), i.e. whether a backend that specialises convergent code needs a
/// divergent variant of it.
///
/// The dispatcher always runs the lowest-numbered pending block (blocks are in reverse
/// post-order), so when block `b` runs, every waiting lane waits at a block numbered
/// above `b`, or at a barrier (`exec::barrier::BAR_WAIT` sorts above every block). Those lanes were
/// sent there by an edge `x -> t` (`t > b`; a barrier's or a split call's edge counts
/// as `t = ∞`) of a block `x` that ran earlier. Without cycles blocks run in increasing
/// order, so `x < b`: `b` needs a divergent variant iff some edge jumps over it. With
/// cycles, a block of a loop may run again after any block of the same loop: for the span `[h, l]` of every
/// back edge `l -> h` (spans that overlap merged), an edge from a block of the span
/// counts for every block of the span.
///
/// The JIT's dispatcher stops the warp with an internal error when a block this
/// finds never divergent is dispatched divergently.
pub fn divergent_blocks(f: &Function) -> IdxVec<BlockId, bool> {
    divergent_blocks_given(f, &IdxVec::new())
}

/// [`divergent_blocks`], where `uniform[x]` says that the branch, `brx.idx` or barrier
/// ending block `x` sends all its active lanes the same way (`ir::analysis::shape`):
/// when `x` itself never runs divergently, such a terminator leaves no lane waiting
/// (the whole warp goes on together), so its edges do not count. Iterated until the
/// divergent blocks no longer grow.
pub fn divergent_blocks_given(
    f: &Function,
    uniform: &IdxVec<BlockId, bool>,
) -> IdxVec<BlockId, bool> {
    // Spans and edge targets are compared as numbers (reverse post-order positions,
    // `usize::MAX` above every block), so the tables below are indexed by `usize`.
    let n = f.blocks.len();
    // Loop spans: each block's span id (merged overlapping [h, l] ranges).
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (x, blk) in f.blocks.iter().enumerate() {
        for s in blk.term.successors() {
            let h = s.index();
            if h <= x {
                spans.push((h, x));
            }
        }
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (h, l) in spans {
        match merged.last_mut() {
            Some(last) if h <= last.1 => last.1 = last.1.max(l),
            _ => merged.push((h, l)),
        }
    }
    // The highest target of an edge from each block (barriers: above every block).
    let edge_far: Vec<usize> = f
        .blocks
        .iter()
        .map(|blk| {
            let t = blk
                .term
                .successors()
                .iter()
                .map(|s| s.index())
                .max()
                .unwrap_or(0);
            // Barriers, and split calls (which park lanes at their resume block behind
            // the barrier flag), leave lanes waiting above every block.
            if matches!(
                blk.term,
                Terminator::Barrier { .. }
                    | Terminator::Call {
                        resume: Some(_),
                        ..
                    }
                    | Terminator::CallIndirect {
                        resume: Some(_),
                        ..
                    }
            ) {
                usize::MAX
            } else {
                t
            }
        })
        .collect();
    let one_way: Vec<bool> = f
        .blocks
        .iter_enumerated()
        .map(|(x, blk)| {
            uniform.get(x).copied().unwrap_or(false)
                && matches!(
                    blk.term,
                    Terminator::Branch { .. }
                        | Terminator::BrxIdx { .. }
                        | Terminator::Barrier { .. }
                )
        })
        .collect();
    let mut div = vec![false; n];
    loop {
        let far: Vec<usize> = (0..n)
            .map(|x| {
                if one_way[x] && !div[x] {
                    0
                } else {
                    edge_far[x]
                }
            })
            .collect();
        let new = spread(&far, &merged);
        let new: Vec<bool> = new.iter().zip(&div).map(|(a, b)| *a || *b).collect();
        if new == div {
            return div.into();
        }
        div = new;
    }
}

/// The divergent blocks given each block's highest edge target `far` and the merged
/// loop spans (see [`divergent_blocks`]).
fn spread(far: &[usize], merged: &[(usize, usize)]) -> Vec<bool> {
    let n = far.len();
    let mut div = vec![false; n];
    // Edges from earlier blocks: the running maximum of `far` over x < b.
    let mut reach = 0usize;
    for b in 0..n {
        if b > 0 {
            reach = reach.max(far[b - 1]);
        }
        div[b] = reach > b;
    }
    // Edges from blocks of the same loop span.
    for &(h, l) in merged {
        let l = l.min(n.saturating_sub(1));
        let top = (h..=l).map(|x| far[x]).max().unwrap_or(0);
        for (b, d) in div.iter_mut().enumerate().take(l + 1).skip(h) {
            *d |= top > b;
        }
    }
    div
}
