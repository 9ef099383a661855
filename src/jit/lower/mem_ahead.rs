//! Loads ahead (issue 14): a coalesced `ld.global` in a loop header, its lanes proven
//! consecutive by the shape analysis (`lower::mem::addr_shape`), whose lane-0 address
//! moves by the same step from one run to the next (a grid-stride loop: the step is
//! the grid's width in bytes, often 64 KiB and more, past what the hardware
//! prefetchers follow) touches the next run's bytes at the start of this run, so that
//! their cache misses overlap this run's work instead of stalling the next. Cranelift
//! has no prefetch instruction: the touch is an ordinary one-byte load per 64-byte line
//! whose result nothing reads (a load that may trap, so it is kept), of an address
//! that always lies in the instruction's cached region (the one its access was just
//! tested in, `mem_fast::cached_region`), otherwise of the access's own bytes. It never
//! changes what the program reads or writes.
//!
//! The step is the difference between the host address of lane 0 at this run and at
//! the last run of the instruction in this call of the function (a Cranelift variable,
//! zero at entry: the first run touches its own bytes). Only in the optimised tier and
//! outside the sanitizer variant, and not in a block with an atomic outside shared
//! memory or a fence: a host `lock` instruction waits for every earlier load, the touch
//! included, so the touch's miss stalls the run it was meant to overlap (hist_global:
//! 28% more time per element on one worker).

use crate::ir::{BlockId, InstId, InstKind, Space};
use crate::jit::translate::FuncTranslator;
use cranelift_codegen::ir::types::{I64, I8};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};

/// Bytes per touch (a host cache line).
const LINE: i64 = 64;

impl FuncTranslator<'_> {
    /// Touches the bytes the coalesced load `inst` of `bytes` bytes at host address `h`
    /// (lane 0's, tested in place) will read at its next run (see the module
    /// documentation); nothing outside a loop header.
    pub(super) fn load_ahead(&mut self, h: Value, bytes: i64, inst: InstId) {
        if self.quick || self.instrument || !self.in_header || self.block_waits_for_loads() {
            return;
        }
        let var = match self.ahead.get(&inst) {
            Some(&v) => v,
            None => {
                let v = self.b.declare_var(I64);
                self.ahead.insert(inst, v);
                v
            }
        };
        let prev = self.b.use_var(var);
        self.b.def_var(var, h);
        let step = self.b.ins().isub(h, prev);
        let next = self.b.ins().iadd(h, step);
        let range = self.cached_region(inst);
        let len = self.b.ins().iconst(I64, bytes);
        let inside = self.in_range_dyn(range, next, len);
        let at = self.b.ins().select(inside, next, h);
        // A load that may trap: Cranelift keeps it although nothing reads it (`at` is
        // in a region of device memory or the access's own bytes, so it never does).
        let fl = MemFlagsData::new();
        for off in (0..bytes).step_by(LINE as usize) {
            self.b.ins().load(I8, fl, at, off as i32);
        }
    }

    /// Whether the IR block being translated holds an instruction that waits for every
    /// earlier load: an atomic outside shared memory (a host `lock`) or a fence.
    fn block_waits_for_loads(&self) -> bool {
        let b = BlockId(self.cur_block as u32);
        self.f.blocks.get(b).is_some_and(|blk| {
            blk.insts.iter().any(|i| match i.kind {
                InstKind::Atom { space, .. } => space != Space::Shared,
                InstKind::Fence => true,
                _ => false,
            })
        })
    }
}
