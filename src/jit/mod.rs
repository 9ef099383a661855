//! IR -> Cranelift -> native code. A warp's 32 lanes live in SIMD vectors
//! (8 x i32x4 for 32-bit registers, 16 x i64x2 for 64-bit ones, 8 x i32x4 lane masks for
//! predicates); divergence is handled with per-lane next-block numbers (DESIGN.md).
//!
//! Public API: [`JitModule::compile`] compiles every kernel of a checked module at once,
//! [`JitModule::lazy`] each kernel (with the functions it reaches) when first needed
//! ([`JitModule::ensure`]); [`JitModule::kernel`] returns a [`KernelFn`] that runs one warp
//! (`ctx.live` lanes) to completion, a fault, or an error and returns `ctx.status`.
//! [`dump`] prints the CLIF or the machine code of kernels, [`kernel_stats`] their
//! compile cost.
//!
//! Every IR block is compiled as a convergent variant (no lane pending: no write
//! merging, uniform branches are jumps) and, where lanes can wait elsewhere while it
//! runs, a divergent one; PTX registers live in a register file in memory. Kernels
//! get quick code (single-pass register allocation) first and optimized code
//! compiled in the background once they have run a while (`tier`,
//! [`JitTier`]); in the optimized tier, kernels of more than 1500 instructions still use
//! the single-pass allocator (`Tier`).
//!
//! Layout (imports point down this list, never up; `tests/architecture.rs` checks the
//! folders):
//! - `compile/`: compiling a module (ISA flags per tier, declaring and defining
//!   functions), tiered compilation (`tier`, [`JitTier`]), listings (`dump`) and
//!   statistics (`stats`, [`CompileStats`]);
//! - `control/`: predication, branches and the dispatcher (`dispatch`), the divergent
//!   block stub (`divergence`), `brx.idx` (`brx`), calls (`call`) and split calls
//!   (`split`), barriers, the watchdog check and `--check-uniform`;
//! - `lower/`: one file per instruction family (`int`, `float`, `arith` for the
//!   `Arith` dispatch and helper path, `carry`, `minmax`, `compare`, `bits`, `sfu`,
//!   `half`, `convert`, `convert_half`, `cvtx`, `memory`, `atomic`, `warp`, `matrix`,
//!   `builtin`, `misc`);
//! - `translate/`: the per-function translator [`translate::FuncTranslator`] (operands,
//!   writes, instruction dispatch), warp values and masks as vectors (`lanes`), the
//!   register file (`regfile`), the module's functions as declared (`funcs`);
//! - `abi`: every helper generated code calls, declared once (`foreach_helper!`);
//! - `helpers/`: the helpers' host functions (`extern "C"`), over `crate::exec` and
//!   `crate::ops`; they never import the lowering code.

#![allow(clippy::needless_range_loop)]

mod abi;
mod compile;
mod control;
mod helpers;
mod lower;
mod translate;

use crate::exec::ModuleLayout;
use crate::ir;

pub use compile::dump::{dump, kernel_stats, DumpKind, KernelStats};
pub use compile::stats::CompileStats;
pub use compile::tier::JitTier;
pub use helpers::{helper_calls, HelperCalls};
pub use translate::cont::regfile_bytes as cont_regfile_bytes;

/// A compiled kernel: runs one warp from the kernel's entry with the lanes in `ctx.live`
/// and returns `ctx.status` (`STATUS_OK` when every lane exited normally), or, for a
/// kernel with barriers as continuations, `exec::barrier::RET_BARRIER` at a barrier.
pub type KernelFn = unsafe extern "C" fn(ctx: *mut crate::exec::ctx::WarpCtx) -> u32;

/// Errors of the JIT.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// An instruction or operand form the JIT cannot compile yet.
    #[error("{file}:{line}:{col}: error: {what} not supported by the JIT yet")]
    Unsupported {
        file: String,
        line: u32,
        col: u32,
        what: String,
    },
    /// Cranelift rejected the generated code or failed (a bug in the JIT).
    #[error("JIT code generation failed: {0}")]
    Codegen(String),
    /// The host CPU lacks a feature the generated code needs.
    #[error("the host CPU is not supported by the JIT: {0}")]
    Host(String),
    /// A kernel named in a request does not exist.
    #[error("no kernel named `{0}` in the module")]
    NoSuchKernel(String),
}

/// The compiled kernels of one module: compiled all at once ([`JitModule::compile`]) or
/// each when first needed ([`JitModule::lazy`], [`JitModule::ensure`]). Compiled code
/// is callable from many threads at once; its memory is freed when the `JitModule` (and
/// a background compile of it, see `tier`) are gone.
pub struct JitModule {
    shared: std::sync::Arc<compile::tier::Shared>,
}

impl std::fmt::Debug for JitModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitModule")
            .field("kernels", &self.shared.table().kernels.len())
            .finish()
    }
}

impl Drop for JitModule {
    fn drop(&mut self) {
        self.shared
            .cancelled
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl JitModule {
    /// Compiles every kernel and `.func` with a body of the module, in the tier
    /// `PTXJIT_JIT_TIER` names (default [`JitTier::Tiered`]).
    pub fn compile(m: &ir::Module, layout: &ModuleLayout) -> Result<JitModule, JitError> {
        JitModule::compile_tier(m, layout, JitTier::from_env())
    }

    /// Compiles every kernel and `.func` with a body of the module in tier `tier`.
    pub fn compile_tier(
        m: &ir::Module,
        layout: &ModuleLayout,
        tier: JitTier,
    ) -> Result<JitModule, JitError> {
        let shared = compile::tier::Shared::compile(m, layout, tier, false)?;
        Ok(JitModule { shared })
    }

    /// A module whose kernels are compiled when first needed ([`JitModule::ensure`]),
    /// each with the functions it reaches, in tier `tier`.
    pub fn lazy(tier: JitTier) -> JitModule {
        JitModule {
            shared: compile::tier::Shared::lazy(tier, false),
        }
    }

    /// The sanitizer variant of the module (quick tier): every memory access goes
    /// through `exec::ctx::access` and warp-synchronous instructions call the
    /// sanitizer's checks. Only launches under a sanitizer use it, so normal code
    /// carries no instrumentation. Compiled now (`eager`) or kernel by kernel.
    pub fn instrumented(
        m: &ir::Module,
        layout: &ModuleLayout,
        eager: bool,
    ) -> Result<JitModule, JitError> {
        let shared = match eager {
            true => compile::tier::Shared::compile(m, layout, JitTier::Quick, true)?,
            false => compile::tier::Shared::lazy(JitTier::Quick, true),
        };
        Ok(JitModule { shared })
    }

    /// Compiles kernel `f` of `m` (the module this `JitModule` was made for) and the
    /// functions it reaches, unless they are compiled; waits where another thread
    /// compiles them. Err: why the JIT cannot compile them (the same text every time).
    pub fn ensure(
        &self,
        f: ir::FuncId,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) -> Result<(), String> {
        self.shared.ensure(f, m, layout)
    }

    /// How many kernels have code now.
    pub fn compiled_kernels(&self) -> usize {
        self.shared.compiled_kernels()
    }

    /// The current code of kernel `f` and its stack frame bytes (`None`: not a kernel
    /// with a body, or not compiled yet). The pointer is valid while this `JitModule`
    /// lives.
    pub fn code(&self, f: ir::FuncId) -> Option<(KernelFn, u64)> {
        self.shared.table().kernels.get(&f).copied()
    }

    /// Whether compiled kernel `f` runs its barriers as continuations: it returns
    /// `exec::barrier::RET_BARRIER` at a barrier, expects `WarpCtx::cont_regs` to hold
    /// `control::cont::regfile_bytes` bytes of per-warp memory, and resumes at
    /// `WarpCtx::resume` (see `control::cont`).
    pub fn continuations(&self, f: ir::FuncId) -> bool {
        self.shared.table().cont.contains(&f)
    }

    /// The stack frame bytes of compiled kernel or function `f` (`None`: not compiled).
    pub fn frame_bytes(&self, f: ir::FuncId) -> Option<u64> {
        self.shared.table().frames.get(&f).copied()
    }

    /// The largest stack frame of any compiled function of the module.
    pub fn max_frame_bytes(&self) -> u64 {
        self.shared
            .table()
            .frames
            .values()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// Where the compile time went so far: every compile except the background
    /// optimized ones (see [`CompileStats`]).
    pub fn stats(&self) -> CompileStats {
        self.shared.stats()
    }

    /// Whether every compiled kernel has optimized code (see `tier`).
    pub fn is_optimized(&self) -> bool {
        self.shared.table().optimized
    }

    /// Records that a launch of kernel `f` took `took`; with [`JitTier::Tiered`], the
    /// optimized compile of the kernel starts once it has run long enough (see `tier`).
    pub fn record_run(
        &self,
        f: ir::FuncId,
        took: std::time::Duration,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) {
        self.shared.record_run(f, took, m, layout);
    }

    /// Notes the start of a launch of `threads` threads of kernel `f` (call after
    /// [`JitModule::ensure`], before taking its code with [`JitModule::code`]): with
    /// [`JitTier::Tiered`], a launch of at least `tier::TIER_UP_THREADS` starts the
    /// kernel's optimized compile at once, and a launch waits for an optimized compile
    /// that is about to end (see `tier`).
    pub fn launch_start(&self, f: ir::FuncId, threads: u64, m: &ir::Module, layout: &ModuleLayout) {
        self.shared.launch_start(f, threads, m, layout);
    }

    /// The compiled kernel `f`, or `None` if `f` is not a kernel with a body (or not
    /// compiled yet). The pointer is valid while this `JitModule` lives.
    pub fn kernel(&self, f: ir::FuncId) -> Option<KernelFn> {
        self.code(f).map(|c| c.0)
    }
}
