//! Compile statistics: how long building the Cranelift IR, Cranelift's compilation
//! (`define_function`) and finalizing took for a module, and how large the input and the
//! generated CLIF were (benches/load.rs reports them per 1,000 PTX instructions); and
//! the host stack frame of each compiled function, which launches need to run huge
//! kernels on a large enough stack.

use crate::ir;
use std::time::Duration;

/// Compile cost of one module, or of one kernel and the functions it reaches
/// ([`crate::jit::JitModule::stats`], [`crate::jit::kernel_stats`]).
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Functions (kernels and `.func`s) compiled.
    pub functions: usize,
    /// IR instructions compiled, terminators included (about one per PTX instruction).
    pub ir_insts: usize,
    /// CLIF instructions built, before Cranelift's optimisations.
    pub clif_insts: usize,
    /// CLIF blocks built.
    pub clif_blocks: usize,
    /// Building the CLIF (the translator and cranelift-frontend's SSA construction).
    pub build: Duration,
    /// Cranelift's compilation: optimisation, lowering, register allocation, emission.
    pub define: Duration,
    /// Linking and making the code executable (`finalize_definitions`).
    pub finalize: Duration,
}

impl CompileStats {
    pub(crate) fn add_function(
        &mut self,
        f: &ir::Function,
        func: &cranelift_codegen::ir::Function,
        build: Duration,
    ) {
        self.functions += 1;
        self.ir_insts += f.blocks.iter().map(|b| b.insts.len() + 1).sum::<usize>();
        for b in func.layout.blocks() {
            self.clif_blocks += 1;
            self.clif_insts += func.layout.block_insts(b).count();
        }
        self.build += build;
    }

    /// Adds the counts and times of another compile.
    pub(crate) fn add(&mut self, o: &CompileStats) {
        self.functions += o.functions;
        self.ir_insts += o.ir_insts;
        self.clif_insts += o.clif_insts;
        self.clif_blocks += o.clif_blocks;
        self.build += o.build;
        self.define += o.define;
        self.finalize += o.finalize;
    }

    /// Total compile time.
    pub fn total(&self) -> Duration {
        self.build + self.define + self.finalize
    }
}

/// Bytes of the stack frame the code of a compiled function allocates: the `sub rsp,
/// imm` of Cranelift's x86-64 prologue (`push rbp; mov rbp, rsp; sub rsp, n`), or,
/// where that is not found, 16 bytes per CLIF value (the single-pass allocator gives at
/// most one 16-byte slot to each value), plus the return address and saved `rbp`.
pub(crate) fn frame_bytes(code: &[u8], func: &cranelift_codegen::ir::Function) -> u64 {
    let head = &code[..code.len().min(64)];
    let found = head.windows(7).find_map(|w| match w {
        [0x48, 0x81, 0xec, a, b, c, d] => Some(u32::from_le_bytes([*a, *b, *c, *d]) as u64),
        _ => None,
    });
    let found = found.or_else(|| {
        head.windows(4).find_map(|w| match w {
            [0x48, 0x83, 0xec, a] => Some(*a as u64),
            _ => None,
        })
    });
    16 + found.unwrap_or(16 * func.dfg.num_values() as u64)
}
