//! The translation of a function's IR blocks: each block's convergent variant, then the
//! divergent variant of the blocks that have one, and one block's instructions (its
//! per-block state cleared first: remembered half-warp shapes, the store check memo,
//! predicate bits, the shape states).

use super::{FuncTranslator, Mode};
use crate::ir::analysis::shape::strong_load;
use crate::ir::{BlockId, Idx, IdxVec};
use crate::jit::JitError;

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
