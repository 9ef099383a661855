//! Kernel coverage (see `crate::exec::coverage`): in modules loaded with a coverage map,
//! every IR block's entry (both variants) adds one, saturating at 255, to the counter
//! `base + 2 * block + (active != ctx.live)`, exactly as the interpreter counts. Modules
//! without a map get none of this code.

use crate::exec::ctx::WarpCtx;
use crate::jit::translate::FuncTranslator;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// Counts an entry of IR block `block`; `base` is the address of the function's first
    /// counter (`None`: coverage off, nothing emitted).
    pub(crate) fn count_block(&mut self, base: Option<u64>, block: usize) {
        let Some(base) = base else { return };
        let live = self.load_ctx(I32, offset_of!(WarpCtx, live), false);
        let act = self.b.use_var(self.active_bits);
        let partial = self.b.ins().icmp(IntCC::NotEqual, act, live);
        let partial = self.b.ins().uextend(I64, partial);
        let at = base.wrapping_add(2 * block as u64);
        let addr = self.b.ins().iconst(I64, at as i64);
        let addr = self.b.ins().iadd(addr, partial);
        let fl = MemFlagsData::new().with_notrap();
        let old = self.b.ins().uload8(I32, fl, addr, 0);
        // old + 1, minus one again where that made 256.
        let inc = self.b.ins().iadd_imm_u(old, 1);
        let over = self.b.ins().ushr_imm_u(inc, 8);
        let new = self.b.ins().isub(inc, over);
        self.b.ins().istore8(fl, new, addr, 0);
    }
}
