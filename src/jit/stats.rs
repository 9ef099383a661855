//! Compile statistics: how long building the Cranelift IR, Cranelift's compilation
//! (`define_function`) and finalizing took for a module, and how large the input and the
//! generated CLIF were (benches/load.rs reports them per 1,000 PTX instructions).

use crate::ir;
use std::time::Duration;

/// Compile cost of one module ([`super::JitModule::stats`]).
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

    /// Total compile time.
    pub fn total(&self) -> Duration {
        self.build + self.define + self.finalize
    }
}
