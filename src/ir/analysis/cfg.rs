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
/// as `t = ∞`) of a block `x` that ran earlier, and `t` has not run since. Every block
/// that runs between `x` and `t` is below `t` (`t` waits, and the lowest pending block
/// runs first), and the blocks run in increasing order except where a back edge
/// `y -> h` (`h <= y`) sends lanes back, which needs `y < t`. So the blocks that can run
/// while lanes wait at `t` are `[lo, t)`, where `lo` starts above `x` and falls to the
/// `h` of every back edge `y -> h` with `y` in `[min(x, lo), t)` (until it no longer
/// falls): an edge inside a loop counts for the loop's earlier blocks only if the loop
/// can go round before `t` runs. A region that has reconverged (an `if`/`else` whose
/// arms meet at `t`) leaves the blocks before it convergent, even in a loop.
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
    fixpoint(f, uniform).div.into()
}

/// Where lanes can wait while each block runs: the triples `(lo, hi, w)` such that
/// lanes may wait at block `w` while a block of `[lo, hi)` runs, one per edge `x -> w`
/// that can leave lanes waiting (an edge of a block that [`divergent_blocks_given`]
/// counts): `hi` is `w` itself (the lanes wait until `w` runs) and `lo` is found as
/// for the divergent blocks, with the edge's own target for `t`; for a barrier or a
/// split call the range is every block (lanes wait behind the barrier flag, and all
/// of a barrier's lanes are released at once). Every lane that waits while block `b`
/// runs waits at the `w` of a triple whose range holds `b`.
pub fn waiting_ranges_given(
    f: &Function,
    uniform: &IdxVec<BlockId, bool>,
) -> Vec<(usize, usize, BlockId)> {
    let s = fixpoint(f, uniform);
    let n = f.blocks.len();
    let mut out = Vec::new();
    for (x, blk) in f.blocks.iter().enumerate() {
        if s.far[x] == 0 {
            continue;
        }
        let parks = s.far[x] == usize::MAX;
        let mut succ = blk.term.successors();
        succ.sort_unstable();
        succ.dedup();
        for w in succ {
            if parks {
                // Every barrier releases its lanes at once: lanes released to `w` may
                // wait while lanes released to a lower block run, whatever their order.
                out.push((0, n, w));
            } else if let Some(lo) = range_start(x, w.index().min(n), &s.near, &s.back) {
                out.push((lo, w.index().min(n), w));
            }
        }
    }
    out
}

/// The fixpoint of [`divergent_blocks_given`] and the edge tables it was found with.
struct Spread {
    div: Vec<bool>,
    /// Per block: the highest edge target that counts (0: none).
    far: Vec<usize>,
    near: Vec<usize>,
    back: Vec<(usize, usize)>,
}

fn fixpoint(f: &Function, uniform: &IdxVec<BlockId, bool>) -> Spread {
    // Edge targets are compared as numbers (reverse post-order positions, `usize::MAX`
    // above every block), so the tables below are indexed by `usize`.
    let n = f.blocks.len();
    // Back edges `y -> h` (`h <= y`), by source.
    let mut back: Vec<(usize, usize)> = Vec::new();
    for (y, blk) in f.blocks.iter().enumerate() {
        for s in blk.term.successors() {
            if s.index() <= y {
                back.push((y, s.index()));
            }
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
    // The lowest target of an edge from each block (`usize::MAX`: none).
    let near: Vec<usize> = f
        .blocks
        .iter()
        .map(|blk| {
            let t = blk.term.successors();
            t.iter().map(|s| s.index()).min().unwrap_or(usize::MAX)
        })
        .collect();
    let one_way: Vec<bool> = f
        .blocks
        .iter_enumerated()
        .map(|(x, blk)| {
            // A jump sends every lane one way whatever its shape.
            matches!(blk.term, Terminator::Jump { .. })
                || uniform.get(x).copied().unwrap_or(false)
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
        let new = spread(&far, &near, &back);
        let new: Vec<bool> = new.iter().zip(&div).map(|(a, b)| *a || *b).collect();
        if new == div {
            return Spread {
                div,
                far,
                near,
                back,
            };
        }
        div = new;
    }
}

/// The divergent blocks given each block's highest edge target `far` (0: no edge
/// that counts) and lowest `near`, and the back edges `back` (see
/// [`divergent_blocks`]).
fn spread(far: &[usize], near: &[usize], back: &[(usize, usize)]) -> Vec<bool> {
    let n = far.len();
    // +1 at the start and -1 at the end of each range `[lo, t)` of divergent blocks.
    let mut diff = vec![0i64; n + 1];
    for (lo, t) in ranges(far, near, back) {
        diff[lo] += 1;
        diff[t] -= 1;
    }
    let mut open = 0i64;
    diff[..n]
        .iter()
        .map(|d| {
            open += d;
            open > 0
        })
        .collect()
}

/// The nonempty ranges `[lo, t)` of blocks that can run while lanes wait where a block
/// sent them (see [`divergent_blocks`]).
fn ranges(far: &[usize], near: &[usize], back: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let n = far.len();
    far.iter()
        .enumerate()
        .filter_map(|(x, &t)| {
            let t = t.min(n);
            range_start(x, t, near, back).map(|lo| (lo, t))
        })
        .collect()
}

/// The start `lo` of the blocks `[lo, t)` that can run while lanes that block `x` sent
/// away wait for `t` (`None` when empty; see [`divergent_blocks`]).
fn range_start(x: usize, t: usize, near: &[usize], back: &[(usize, usize)]) -> Option<usize> {
    // After `x` the lowest pending block runs: above `x`, or a target of `x`.
    let first = near.get(x).copied().unwrap_or(usize::MAX);
    let mut lo = (x + 1).min(first);
    let mut src = x.min(lo);
    loop {
        let fell = back
            .iter()
            .filter(|&&(y, h)| y >= src && y < t && h < lo)
            .map(|&(_, h)| h)
            .min();
        match fell {
            Some(h) => {
                lo = h;
                src = src.min(h);
            }
            None => break,
        }
    }
    (lo < t).then_some(lo)
}
