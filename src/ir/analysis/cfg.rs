//! Control-flow facts of one function. Blocks are numbered in reverse post-order (check
//! guarantees it), so a back edge is an edge to a block at or before its source.

use crate::ir::Function;

/// Per block: whether some terminator of `f` branches to it (the entry block is a
/// target only if a branch goes back to it).
pub fn branch_targets(f: &Function) -> Vec<bool> {
    let mut targets = vec![false; f.blocks.len()];
    for blk in &f.blocks {
        for s in blk.term.successors() {
            if let Some(t) = targets.get_mut(s.0 as usize) {
                *t = true;
            }
        }
    }
    targets
}

/// Per block: whether it is a loop header, i.e. entered from a block at or after it.
/// Every cycle of the CFG contains such an edge, so code that must run once per loop
/// iteration (the watchdog's stop check) runs at these blocks.
pub fn loop_headers(f: &Function) -> Vec<bool> {
    let mut header = vec![false; f.blocks.len()];
    for (i, blk) in f.blocks.iter().enumerate() {
        for s in blk.term.successors() {
            if (s.0 as usize) <= i {
                if let Some(h) = header.get_mut(s.0 as usize) {
                    *h = true;
                }
            }
        }
    }
    header
}
