//! The dispatcher's stub for blocks that lanes can wait at but that need no divergent
//! variant ([`crate::ir::analysis::cfg::divergent_blocks`] decides which blocks need
//! one): it stops the warp with an internal error, so that a flaw in that reasoning is
//! reported, never a silently wrong result.

use crate::jit::abi::Helper;
use crate::jit::translate::{lanes, FuncTranslator};
use crate::jit::JitError;
use cranelift_codegen::ir::{Block, InstBuilder};

impl FuncTranslator<'_> {
    /// The dispatcher's entry for IR block `blk` run divergently when the analysis says
    /// it never is: stops the warp with an internal error.
    pub(crate) fn div_stub(&mut self, blk: usize) -> Result<Block, JitError> {
        let stub = self.b.create_block();
        self.b.switch_to_block(stub);
        self.cont_refresh();
        let h = self.helper(Helper::Internal)?;
        let v = lanes::iconst32(&mut self.b, blk as u32);
        self.b.ins().call(h, &[self.ctx, v]);
        self.b.ins().jump(self.ret_status, &[]);
        Ok(stub)
    }
}
