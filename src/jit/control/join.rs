//! If-then bodies without the dispatcher (issue 14): a divergent branch of convergent
//! code whose one successor `S` only jumps to the other one, `L` (`@p bra L; S: …; L:`
//! or `@p bra S; …; S: …; bra L`), runs `S` under the mask of its lanes and goes on at
//! `L`'s convergent variant with the branch's lanes again.
//!
//! That is what the dispatcher does, step for step, when
//! - the branch runs in the convergent variant (no lane waits anywhere else),
//! - `S`'s only predecessor is the branch's block `B` and `B < S < L` in the block
//!   numbering (reverse post-order): the dispatcher runs the lower pending block `S`
//!   first, in its divergent variant, while the other lanes wait at `L`,
//! - `S` ends in a plain jump to `L` (no `exit`, barrier, call, `brx.idx` or branch: its
//!   lanes then all wait at `L` too, so the dispatcher runs `L` next, convergent, with
//!   every lane `B` had), and
//! - `S` has a divergent variant (`cfg::divergent_blocks`), so its instructions merge
//!   their writes under the mask as there, and no loop runs lane by lane from it.
//!
//! `S` is translated once more, as its divergent variant but ending in that jump to
//! `L` (the branch's lanes restored) instead of recording `L` per lane and
//! dispatching: no `next` vectors are written or read on the way (their spills and the
//! dispatcher's jump table were most of a visit). Anything else keeps the dispatcher;
//! so do the sanitizer builds, the quick tier (the copy is 8% more CLIF over the test
//! corpus) and `PTXJIT_JOIN=0`.

use crate::ir::{BlockId, Idx, Terminator};
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I32;
use cranelift_codegen::ir::{InstBuilder, Value};

impl FuncTranslator<'_> {
    /// For the branch ending the current block (convergent variant) to `taken` or
    /// `not_taken`: the if-then body and its join `(S, L)` when the rule of the module
    /// doc holds.
    pub(crate) fn if_then_body(
        &self,
        taken: BlockId,
        not_taken: BlockId,
    ) -> Option<(BlockId, BlockId)> {
        if !self.joins.on || self.mode != Mode::Conv {
            return None;
        }
        let b = self.cur_block;
        [(not_taken, taken), (taken, not_taken)]
            .into_iter()
            .find(|&(s, l)| {
                let (si, li) = (s.index(), l.index());
                let jumps = matches!(
                    self.f.blocks.get(s).map(|x| &x.term),
                    Some(Terminator::Jump { target, .. }) if *target == l
                );
                jumps
                    && b < si
                    && si < li
                    && self.joins.preds.get(s) == Some(&1)
                    && self.blocks_d.get(si).is_some_and(|d| d.is_some())
                    && self.serial.regions.get(s).is_some_and(|r| r.is_none())
            })
    }

    /// Runs the lanes `body_bits` of the branch's lanes `all` through the copy of
    /// `body` that joins `join` (ends the current Cranelift block).
    pub(crate) fn join_enter(
        &mut self,
        body: BlockId,
        join: BlockId,
        body_bits: Value,
        all: Value,
    ) {
        let blk = self.b.create_block();
        self.b.append_block_param(blk, I32);
        self.b.def_var(self.active_bits, body_bits);
        self.b.ins().jump(blk, &[all.into()]);
        self.joins.pending.push((body, join, blk));
    }

    /// Translates the copies `join_enter` asked for (after every block's variants;
    /// `cov`: the coverage counters' base).
    pub(crate) fn translate_joins(&mut self, cov: Option<u64>) -> Result<(), JitError> {
        let mode = self.mode;
        self.mode = Mode::Div;
        let res = self.translate_join_copies(cov);
        self.mode = mode;
        res
    }

    fn translate_join_copies(&mut self, cov: Option<u64>) -> Result<(), JitError> {
        while let Some((body, join, blk)) = self.joins.pending.pop() {
            self.b.switch_to_block(blk);
            let all = self.b.block_params(blk)[0];
            self.cur = None;
            self.rf.record_join(body.index());
            self.block_body(body, cov, false)?;
            let f = self.f;
            let term = &f.blocks[body].term;
            if let Terminator::Jump { inst, .. } = *term {
                self.cur = inst;
            }
            self.check_uni(term)?;
            self.b.def_var(self.active_bits, all);
            let jb = *self
                .blocks_c
                .get(join.index())
                .ok_or_else(|| self.internal("if-then join outside the function"))?;
            self.b.ins().jump(jb, &[]);
        }
        Ok(())
    }
}
