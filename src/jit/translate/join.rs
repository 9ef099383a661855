//! The state of the if-then bodies a function's code enters without the dispatcher
//! (the rule and the code: `jit::control::join`).

use crate::ir::{self, BlockId, IdxVec};
use cranelift_codegen::ir::Block;

/// Whether if-then bodies may skip the dispatcher (`PTXJIT_JOIN`, on unless `0`).
pub(crate) fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXJIT_JOIN").map_or(true, |v| v != "0"))
}

/// The function's if-then bodies entered without the dispatcher.
pub(crate) struct Joins {
    pub on: bool,
    /// Per IR block: the number of edges that enter it.
    pub preds: IdxVec<BlockId, u32>,
    /// Copies still to translate: the body, the block it joins, its Cranelift block
    /// (whose parameter is the lanes to restore at the join).
    pub pending: Vec<(BlockId, BlockId, Block)>,
}

impl Joins {
    /// `keep_dispatcher`: the sanitizer build, and the quick tier (a body's second
    /// copy is compile time a first launch would pay for run time it may never use).
    pub(crate) fn new(f: &ir::Function, keep_dispatcher: bool) -> Joins {
        let mut preds = IdxVec::from_elem(0u32, f.blocks.len());
        for blk in &f.blocks {
            for s in blk.term.successors() {
                if let Some(n) = preds.get_mut(s) {
                    *n += 1;
                }
            }
        }
        Joins {
            on: enabled() && !keep_dispatcher,
            preds,
            pending: Vec::new(),
        }
    }
}
