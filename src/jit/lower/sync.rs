//! The synchronisation family's instructions that stay inside a block: order points
//! (Cranelift's `sequence_point`, a compiler barrier without machine code) and
//! `nanosleep` (one `ptxjit_nanosleep` helper call per warp instruction). Barriers end
//! blocks: `crate::jit::control::barrier`.

use crate::ir::{Operand, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    /// An order point: no memory access moves across it.
    pub(crate) fn order_point(&mut self) {
        self.b.ins().sequence_point();
    }

    /// `nanosleep.u32 t`: one helper call per warp-instruction with the lanes' delays.
    pub(crate) fn nanosleep(&mut self, t: &Operand, mask: &mut Mask) -> Result<(), JitError> {
        let bits = self.mbits(mask);
        let w = self.read(t, Type::U32, false)?;
        self.spill(&w, SCRATCH_DATA);
        let p = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Nanosleep)?;
        self.b.ins().call(h, &[bits, p]);
        Ok(())
    }
}
