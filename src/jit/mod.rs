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
pub use translate::opcode_cost::OpcodeCost;

/// A compiled kernel: runs one warp from the kernel's entry with the lanes in `ctx.live`
/// and returns `ctx.status` (`STATUS_OK` when every lane exited normally), or, for a
/// kernel with barriers as continuations, `exec::barrier::RET_BARRIER` at a barrier.
pub type KernelFn = unsafe extern "C" fn(ctx: *mut crate::exec::ctx::WarpCtx) -> u32;

/// Errors of the JIT.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// IR the JIT has no lowering for, which `check` and `validate` reject: every form
    /// the JIT refuses is a check-time error, so this is a bug (in the front end, the
    /// validator or the lowering), named at the instruction.
    #[error(
        "{file}:{line}:{col}: internal error: the JIT has no lowering for {what} \
         (check and validate reject it: a bug)"
    )]
    Internal {
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
    /// The code for launches whose `%ntid.x` is a multiple of 32 (`%tid.x` affine in
    /// every warp: `translate::affine`), compiled when such a launch first needs it.
    /// Only for lazy modules ([`JitModule::lazy`]); an eagerly compiled module (and
    /// the sanitizer variant) runs its one code for every launch.
    rows: std::sync::OnceLock<std::sync::Arc<compile::tier::Shared>>,
    lazy: bool,
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
        for s in std::iter::once(&self.shared).chain(self.rows.get()) {
            s.cancelled
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
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
        Ok(JitModule::of(shared))
    }

    /// A module whose kernels are compiled when first needed ([`JitModule::ensure`]),
    /// each with the functions it reaches, in tier `tier`.
    pub fn lazy(tier: JitTier) -> JitModule {
        let mut j = JitModule::of(compile::tier::Shared::lazy(tier, false));
        j.lazy = true;
        j
    }

    fn of(shared: std::sync::Arc<compile::tier::Shared>) -> JitModule {
        JitModule {
            shared,
            rows: std::sync::OnceLock::new(),
            lazy: false,
        }
    }

    /// The code for launches of blocks `block` (see [`JitModule::rows`]).
    fn variant(&self, block: [u32; 3]) -> &std::sync::Arc<compile::tier::Shared> {
        if !self.lazy || self.shared.instrument() || !block[0].is_multiple_of(32) {
            return &self.shared;
        }
        self.rows
            .get_or_init(|| compile::tier::Shared::lazy_rows(self.shared.mode()))
    }

    /// The variants compiled so far.
    fn variants(&self) -> impl Iterator<Item = &std::sync::Arc<compile::tier::Shared>> {
        std::iter::once(&self.shared).chain(self.rows.get())
    }

    /// [`JitModule::ensure`] for a launch of blocks `block`: the code for such launches.
    pub fn ensure_for(
        &self,
        f: ir::FuncId,
        block: [u32; 3],
        m: &ir::Module,
        layout: &ModuleLayout,
    ) -> Result<(), String> {
        self.variant(block).ensure(f, m, layout)
    }

    /// [`JitModule::code`] for a launch of blocks `block` (after
    /// [`JitModule::ensure_for`]).
    pub fn code_for(&self, f: ir::FuncId, block: [u32; 3]) -> Option<(KernelFn, u64)> {
        self.variant(block).table().kernels.get(&f).copied()
    }

    /// [`JitModule::record_run`] for a launch of blocks `block`.
    pub fn record_run_for(
        &self,
        f: ir::FuncId,
        block: [u32; 3],
        took: std::time::Duration,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) {
        self.variant(block).record_run(f, took, m, layout);
    }

    /// [`JitModule::launch_start`] for a launch of blocks `block`.
    pub fn launch_start_for(
        &self,
        f: ir::FuncId,
        block: [u32; 3],
        threads: u64,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) {
        self.variant(block).launch_start(f, threads, m, layout);
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
        Ok(JitModule::of(shared))
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
        let mut k: std::collections::HashSet<ir::FuncId> = std::collections::HashSet::new();
        for s in self.variants() {
            k.extend(s.table().kernels.keys().copied());
        }
        k.len()
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
    /// Eligibility does not depend on the launch shape, so every compiled variant (the
    /// generic code and the one for blocks of whole-warp rows) agrees.
    pub fn continuations(&self, f: ir::FuncId) -> bool {
        self.variants().any(|s| s.table().cont.contains(&f))
    }

    /// The stack frame bytes of compiled kernel or function `f` (`None`: not compiled).
    pub fn frame_bytes(&self, f: ir::FuncId) -> Option<u64> {
        self.variants()
            .filter_map(|s| s.table().frames.get(&f).copied())
            .max()
    }

    /// The largest stack frame of any compiled function of the module.
    pub fn max_frame_bytes(&self) -> u64 {
        self.variants()
            .filter_map(|s| s.table().frames.values().copied().max())
            .max()
            .unwrap_or(0)
    }

    /// Where the compile time went so far: every compile except the background
    /// optimized ones (see [`CompileStats`]).
    pub fn stats(&self) -> CompileStats {
        let mut st = self.shared.stats();
        if let Some(r) = self.rows.get() {
            st.add(&r.stats());
        }
        st
    }

    /// Whether every compiled kernel has optimized code (see `tier`).
    pub fn is_optimized(&self) -> bool {
        let t: Vec<_> = self.variants().map(|s| s.table()).collect();
        let used: Vec<_> = t.iter().filter(|t| !t.kernels.is_empty()).collect();
        match used.is_empty() {
            true => t.first().is_some_and(|t| t.optimized),
            false => used.iter().all(|t| t.optimized),
        }
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
