//! The translation of a function's IR blocks: each block's convergent variant, then the
//! divergent variant of the blocks that have one, and one block's instructions (its
//! per-block state cleared first: remembered half-warp shapes, the store check memo,
//! predicate bits, the shape states); and the rest of a function's translation after
//! its entry (`translate_function`: blocks, stubs, dispatch, resume, return).

use super::{FuncTranslator, Mode};
use crate::ir::analysis::shape::strong_load;
use crate::ir::{BlockId, Idx, IdxVec};
use crate::jit::JitError;
use cranelift_codegen::ir::Value;
use cranelift_module::Module as _;

impl<'a> FuncTranslator<'a> {
    /// Translates every IR block: its convergent variant, then the divergent variant of
    /// the blocks that have one (`cov`: the coverage counters' base, `loop_header`: the
    /// blocks that check the watchdog's stop flag).
    pub(super) fn translate_blocks(
        &mut self,
        cov: Option<u64>,
        loop_header: &IdxVec<BlockId, bool>,
    ) -> Result<(), JitError> {
        for mode in [Mode::Conv, Mode::Div] {
            self.mode = mode;
            for (id, blk) in self.f.blocks.iter_enumerated() {
                // `blocks_c`, `blocks_d` and the dispatch tables are numbered like the
                // IR blocks (raw vectors: the dispatcher indexes them by block number).
                let i = id.index();
                self.cur = None;
                let cb = match mode {
                    Mode::Conv => self.blocks_c[i],
                    Mode::Div => match self.blocks_d[i] {
                        Some(b) => b,
                        None => continue,
                    },
                };
                self.b.switch_to_block(cb);
                self.rf.recording = Some((i, mode == Mode::Conv));
                self.block_body(id, cov, loop_header[id])?;
                self.terminator(&blk.term)?;
            }
        }
        // Bodies of if-thens entered without the dispatcher (`control::join`).
        self.translate_joins(cov)
    }

    /// The instructions of IR block `id` (not its terminator) into the current
    /// Cranelift block, in the current mode and recording slot (`header`: the block
    /// checks the watchdog's stop flag).
    pub(crate) fn block_body(
        &mut self,
        id: BlockId,
        cov: Option<u64>,
        header: bool,
    ) -> Result<(), JitError> {
        let f = self.f;
        let blk = &f.blocks[id];
        let i = id.index();
        self.cur_block = i;
        self.in_header = header;
        self.cont_refresh();
        self.serial_driver(id)?;
        if header {
            self.stop_check(blk)?;
        }
        self.count_block(cov, i);
        self.halves_forget_all();
        self.store_memo.clear();
        self.pred_bits.clear();
        self.shapes.0.enter(id, &mut self.shape_now.0);
        self.shapes.1.enter(id, &mut self.shape_now.1);
        if let Some((sh, now)) = &mut self.shapes_half {
            sh.enter(id, now);
        }
        self.spine_clear();
        for (k, inst) in blk.insts.iter().enumerate() {
            self.spine_mark();
            self.inst(inst)?;
            let strong = strong_load(blk, k);
            self.shapes
                .0
                .step(self.f, &mut self.shape_now.0, inst, strong);
            self.shapes
                .1
                .step(self.f, &mut self.shape_now.1, inst, strong);
            if let Some((sh, now)) = &mut self.shapes_half {
                sh.step(self.f, now, inst, strong);
            }
        }
        self.spine_clear();
        Ok(())
    }
}

impl FuncTranslator<'_> {
    /// Translates the function's blocks after its entry, then fills the register
    /// file's initialisation, the divergence stubs, the dispatch, the resume and the
    /// return, and finalizes the function; returns whether it is a continuation kernel.
    pub(super) fn translate_function(
        mut self,
        entry_mask: Option<Value>,
        cov: Option<u64>,
        loop_header: &IdxVec<BlockId, bool>,
        (targets, div): (&IdxVec<BlockId, bool>, &IdxVec<BlockId, bool>),
        is_func: bool,
    ) -> Result<bool, JitError> {
        // A kernel (not a `.func`, not a continuation kernel, which returns at its
        // barriers) runs the warps chained by `WarpCtx::next` in one call: each starts at
        // the entry's initialisation as a call would, and the constants the code hoists to
        // the function's entry are made once per call instead of once per warp.
        // `next` is loaded at the head (only the launch writes it, before the call), so
        // the next warp's context does not wait for this warp's code: the pointer the
        // loop carries (spilled across the body's helper calls) is one load from the
        // last one, and the body's own spills of the context are off that chain.
        let chain = (!is_func && self.cont.is_none()).then(|| self.chain_head());
        self.entry(entry_mask)?;
        self.translate_blocks(cov, loop_header)?;
        let first = *self
            .blocks_c
            .first()
            .ok_or_else(|| JitError::Codegen("kernel without blocks".into()))?;
        self.finish_regfile(first);
        // Blocks lanes can wait at that never run divergently (see `control::divergence`).
        for (i, (&t, &d)) in targets.iter().zip(div).enumerate() {
            if t && !d {
                self.blocks_d[i] = Some(self.div_stub(i)?);
            }
        }
        self.build_dispatch()?;
        if let Some(r) = self.cont {
            self.build_resume(r)?;
        }
        self.build_return(chain);
        let FuncTranslator { b, cm, cont, .. } = self;
        b.finalize(cm.target_config());
        Ok(cont.is_some())
    }
}
