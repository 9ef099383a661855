//! Kernel coverage: one 8-bit counter per (function, basic block, warp fullness) of a
//! module, counted by both backends at every block entry, for coverage-guided fuzzing
//! (`ptxjit::fuzz` registers the counters with libFuzzer as an inline-8bit-counters
//! region).
//!
//! Counter `base[f] + 2 * block + partial` counts the entries of IR block `block` of
//! function `f`; `partial` is 1 when the block runs with fewer lanes than the warp's
//! live lanes (`active != ctx.live`: divergence, or a callee called by part of the warp),
//! so a block reached divergently is a different feature from the same block reached by
//! the whole warp. Counters saturate at 255. The region is leaked on purpose: libFuzzer
//! keeps its address for the rest of the process and cannot forget a region.
//!
//! Modules loaded without coverage have no map and their code has no counting at all
//! (the JIT compiles the increment only into modules that have a map).

use crate::ir;
use std::sync::atomic::{AtomicU8, Ordering};

/// The counters of one module and where each function's counters start.
pub struct CoverageMap {
    counters: &'static [AtomicU8],
    /// First counter of each function, indexed by `FuncId`.
    base: ir::IdxVec<ir::FuncId, u32>,
    /// `(function, block)` of each pair of counters (index / 2).
    blocks: Vec<(ir::FuncId, u32)>,
}

impl std::fmt::Debug for CoverageMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoverageMap")
            .field("counters", &self.counters.len())
            .finish()
    }
}

impl CoverageMap {
    /// Two counters for every block of every function of `m` (leaked; see the module
    /// doc).
    pub fn new(m: &ir::Module) -> CoverageMap {
        let mut base = ir::IdxVec::new();
        let mut blocks = Vec::new();
        for (i, f) in m.functions.iter().enumerate() {
            base.push((blocks.len() * 2) as u32);
            for b in 0..f.blocks.len() {
                blocks.push((ir::FuncId(i as u32), b as u32));
            }
        }
        let n = (blocks.len() * 2).max(1);
        let counters: &'static [AtomicU8] =
            Box::leak((0..n).map(|_| AtomicU8::new(0)).collect::<Box<[_]>>());
        CoverageMap {
            counters,
            base,
            blocks,
        }
    }

    /// The counters (libFuzzer's region is `[as_ptr(), as_ptr() + len)`).
    pub fn counters(&self) -> &'static [AtomicU8] {
        self.counters
    }

    /// The counter of block `block` of function `f`, entered with a full (`partial ==
    /// false`) or partial warp.
    pub fn index(&self, f: ir::FuncId, block: ir::BlockId, partial: bool) -> Option<usize> {
        use ir::Idx;
        let b = *self.base.get(f)? as usize;
        // The counters are one flat array (the JIT addresses it the same way).
        Some(b + 2 * block.index() + partial as usize)
    }

    /// The address of the counter of block 0, full warp, of function `f` (the JIT adds
    /// `2 * block + partial`).
    pub fn func_base_addr(&self, f: ir::FuncId) -> Option<u64> {
        let i = self.index(f, ir::BlockId(0), false)?;
        self.counters.get(i).map(|c| c.as_ptr() as u64)
    }

    /// Counts one entry of `block` of `f` (the interpreter's side; the JIT emits the
    /// same saturating increment inline).
    pub fn hit(&self, f: ir::FuncId, block: ir::BlockId, partial: bool) {
        if let Some(c) = self
            .index(f, block, partial)
            .and_then(|i| self.counters.get(i))
        {
            // Counters are per-process hints like clang's inline counters: a lost
            // update between two workers is harmless, a torn one impossible.
            let v = c.load(Ordering::Relaxed);
            c.store(v.saturating_add(1), Ordering::Relaxed);
        }
    }

    /// Sets every counter to zero.
    pub fn clear(&self) {
        for c in self.counters {
            c.store(0, Ordering::Relaxed);
        }
    }

    /// A copy of the counters.
    pub fn snapshot(&self) -> Vec<u8> {
        self.counters
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect()
    }

    /// What counter `i` counts: function, block and whether the warp was partial.
    pub fn describe(&self, i: usize) -> Option<(ir::FuncId, u32, bool)> {
        let &(f, b) = self.blocks.get(i / 2)?;
        Some((f, b, i % 2 == 1))
    }
}
