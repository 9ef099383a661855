//! Which IR blocks need a divergent variant (see `translate::Mode`): the blocks that
//! can run while some lanes wait elsewhere.
//!
//! The dispatcher always runs the lowest-numbered pending block (blocks are in reverse
//! post-order), so when block `b` runs, every waiting lane waits at a block numbered
//! above `b`, or at a barrier (`BAR_WAIT` sorts above every block). Those lanes were
//! sent there by an edge `x -> t` (`t > b`; a barrier's or a split call's edge counts
//! as `t = ∞`) of a block `x` that ran earlier. Without cycles blocks run in increasing
//! order, so `x < b`: `b` needs a divergent variant iff some edge jumps over it. With cycles, a block of a
//! loop may run again after any block of the same loop: for the span `[h, l]` of every
//! back edge `l -> h` (spans that overlap merged), an edge from a block of the span
//! counts for every block of the span.
//!
//! A block that lanes can wait at but that needs no divergent variant gets a stub in
//! the dispatcher's table that stops the warp with an internal error, so that a flaw
//! in this reasoning is reported, never a silently wrong result.

use super::helpers::Helper;
use super::lanes;
use super::translate::FnTx;
use super::JitError;
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{self, Terminator};
use cranelift_codegen::ir::{Block, InstBuilder};

/// `div[b]`: block `b` needs a divergent variant.
pub(crate) fn div_blocks(f: &ir::Function) -> Vec<bool> {
    let n = f.blocks.len();
    // Loop spans: each block's span id (merged overlapping [h, l] ranges).
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (x, blk) in f.blocks.iter().enumerate() {
        for s in blk.term.successors() {
            let h = s.0 as usize;
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
    let far: Vec<usize> = f
        .blocks
        .iter()
        .map(|blk| {
            let t = blk
                .term
                .successors()
                .iter()
                .map(|s| s.0 as usize)
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
    for &(h, l) in &merged {
        let l = l.min(n.saturating_sub(1));
        let top = (h..=l).map(|x| far[x]).max().unwrap_or(0);
        for (b, d) in div.iter_mut().enumerate().take(l + 1).skip(h) {
            *d |= top > b;
        }
    }
    div
}

impl FnTx<'_> {
    /// The dispatcher's entry for IR block `blk` run divergently when the analysis says
    /// it never is: stops the warp with an internal error.
    pub(crate) fn div_stub(&mut self, blk: usize) -> Result<Block, JitError> {
        let stub = self.b.create_block();
        self.b.switch_to_block(stub);
        let h = self.helper(Helper::Internal)?;
        let v = lanes::iconst32(&mut self.b, blk as u32);
        self.b.ins().call(h, &[self.ctx, v]);
        self.b.ins().jump(self.ret_status, &[]);
        Ok(stub)
    }
}

/// Stops the warp: IR block `blk` was dispatched divergently although [`div_blocks`]
/// found that it never runs so (a JIT bug).
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_internal_error(ctx: *mut WarpCtx, blk: u32) {
    let ctx = unsafe { &mut *ctx };
    let msg = format!(
        "internal JIT error: block {blk} ran with lanes waiting elsewhere, which the \
         compiler ruled out; please report this kernel"
    );
    unsafe { ctx::stop_with_error(ctx, msg) };
}
