//! IR -> Cranelift -> native code. A warp's 32 lanes live in SIMD vectors
//! (8 x i32x4 for 32-bit registers, 16 x i64x2 for 64-bit ones, 8 x i32x4 lane masks for
//! predicates); divergence is handled with per-lane next-block numbers (DESIGN.md).
//!
//! Public API: [`JitModule::compile`] compiles every kernel of a checked module into one
//! Cranelift `JITModule`; [`JitModule::kernel`] returns a [`KernelFn`] that runs one warp
//! (`ctx.live` lanes) to completion, a fault, or an error and returns `ctx.status`.
//! [`dump`] prints the CLIF or the machine code of kernels.
//!
//! Every IR block is compiled as a convergent variant (no lane pending: no write
//! merging, uniform branches are jumps) and, where lanes can wait elsewhere while it
//! runs, a divergent one; PTX registers live in a register file in memory. Modules
//! load with quick code (single-pass register allocation) and get optimized code
//! compiled in the background once their kernels have run a while (`tier`,
//! [`JitTier`]); in the optimized tier, kernels of more than 1500 instructions still use
//! the single-pass allocator (`Tier`).
//!
//! Modules:
//! - `lanes`: warp values and masks as vectors;
//! - `translate`: the per-kernel translator (operands, writes, instruction dispatch);
//! - `regfile`: the register file (loads, stores, dead-store deletion, entry zeroing);
//! - `divmode`: which blocks need a divergent variant;
//! - `control`: predication, branches, divergence bookkeeping, the dispatcher, `exit`;
//! - `call`: `.func`s as Cranelift functions, direct and indirect calls;
//! - `arith`: arithmetic, logic, shifts, `setp`, `selp`;
//! - `convert`: `cvt`;
//! - `mem`: `ld`, `st`, `cvta` (inline coalesced fast paths, helper slow path);
//! - `sreg`: special registers, `isspacep`, order points;
//! - `helpers`: `extern "C"` host helpers called by generated code;
//! - `dump`: CLIF / disassembly listings;
//! - `stats`: compile statistics ([`CompileStats`]);
//! - `tier`: tiered compilation ([`JitTier`]).

#![allow(clippy::needless_range_loop)]

mod arith;
mod atom;
mod barrier;
mod bits;
mod builtin;
mod call;
mod cflow;
mod compare;
mod control;
mod convert;
mod cvtx;
mod divmode;
mod dump;
mod half;
mod halfcvt;
mod helpers;
mod intfp;
mod lanes;
mod matrix;
mod mem;
mod regfile;
mod split;
mod sreg;
mod stats;
mod tier;
mod translate;
mod uniform;
mod warp;
mod watchdog;

use crate::exec::ModuleLayout;
use crate::ir;
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule as ClifJitModule};
use cranelift_module::{Linkage, Module as _};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use dump::{dump, DumpKind};
pub use helpers::{helper_calls, HelperCalls};
pub use stats::CompileStats;
pub use tier::JitTier;

/// A compiled kernel: runs one warp from the kernel's entry with the lanes in `ctx.live`
/// and returns `ctx.status` (`STATUS_OK` when every lane exited normally).
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

/// The compiled kernels of one module. Compiled code is callable from many threads at
/// once; its memory is freed when the `JitModule` (and a background compile of it, see
/// `tier`) are gone.
pub struct JitModule {
    shared: std::sync::Arc<tier::Shared>,
    /// The load-time compile.
    stats: CompileStats,
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
        let (shared, stats) = tier::Shared::compile(m, layout, tier)?;
        Ok(JitModule { shared, stats })
    }

    /// The current code of kernel `f` and its stack frame bytes (`None`: not a kernel
    /// with a body). The pointer is valid while this `JitModule` lives.
    pub fn code(&self, f: ir::FuncId) -> Option<(KernelFn, u64)> {
        self.shared.table().kernels.get(&f).copied()
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

    /// Where the load-time compile's time went (see [`CompileStats`]).
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }

    /// Whether the current code is the optimized tier.
    pub fn is_optimized(&self) -> bool {
        self.shared.table().optimized
    }

    /// Records that a launch of this module's code took `took`; with
    /// [`JitTier::Tiered`], starts the optimized compile once kernels have run long
    /// enough (see `tier`).
    pub fn record_run(&self, took: std::time::Duration, m: &ir::Module, layout: &ModuleLayout) {
        self.shared.record_run(took, m, layout);
    }

    /// Notes the start of a launch of `threads` threads (call before taking its code
    /// with [`JitModule::code`]): with [`JitTier::Tiered`], a launch of at least
    /// `tier::TIER_UP_THREADS` starts the optimized compile at once, and a launch waits
    /// for an optimized compile that is about to end (see `tier`).
    pub fn launch_start(&self, threads: u64, m: &ir::Module, layout: &ModuleLayout) {
        if threads >= tier::TIER_UP_THREADS {
            self.shared.start(m, layout);
        }
        self.shared.wait_if_worth();
    }

    /// The compiled kernel `f`, or `None` if `f` is not a kernel with a body. The
    /// pointer is valid while this `JitModule` lives.
    pub fn kernel(&self, f: ir::FuncId) -> Option<KernelFn> {
        self.code(f).map(|c| c.0)
    }
}

/// [`translate::build`], with a panic inside Cranelift's frontend (a JIT bug) turned
/// into [`JitError::Codegen`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_guarded(
    m: &ir::Module,
    layout: &ModuleLayout,
    fid: ir::FuncId,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    cm: &mut ClifJitModule,
    helpers: &helpers::HelperIds,
    calls: &call::CallEnv,
) -> Result<(), JitError> {
    match catch_unwind(AssertUnwindSafe(|| {
        translate::build(m, layout, fid, func, fctx, cm, helpers, calls)
    })) {
        Ok(r) => r,
        Err(p) => Err(JitError::Codegen(format!(
            "building the code of kernel {} panicked: {}",
            m.functions
                .get(fid.0 as usize)
                .map_or("?", |f| f.name.as_str()),
            panic_text(&p)
        ))),
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// `define_function`, with verifier and other codegen errors printed against the CLIF.
pub(crate) fn define(
    cm: &mut ClifJitModule,
    id: cranelift_module::FuncId,
    cctx: &mut cranelift_codegen::Context,
) -> Result<(), String> {
    match cm.define_function(id, cctx) {
        Ok(()) => Ok(()),
        Err(cranelift_module::ModuleError::Compilation(e)) => {
            Err(cranelift_codegen::print_errors::pretty_error(&cctx.func, e))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Runs a Cranelift step, turning its errors and panics into [`JitError::Codegen`].
fn guard<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, JitError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(JitError::Codegen(format!("{what}: {e}"))),
        Err(p) => Err(JitError::Codegen(format!(
            "{what} panicked: {}",
            panic_text(&p)
        ))),
    }
}

/// Compile settings for a kernel. Cranelift's backtracking register allocator takes most
/// of the compile time and memory of very large kernels (a warp-wide instruction is tens
/// of CLIF instructions and every register is 8-16 vectors), so kernels above
/// [`LARGE_KERNEL_INSTS`] instructions use the single-pass allocator: 4-5x faster to
/// compile, slower code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tier {
    Optimized = 0,
    Large = 1,
}

/// IR instructions above which a kernel is compiled with [`Tier::Large`].
pub(crate) const LARGE_KERNEL_INSTS: usize = 1500;

impl Tier {
    pub(crate) fn of(f: &ir::Function) -> Tier {
        let n: usize = f.blocks.iter().map(|b| b.insts.len() + 1).sum();
        if n > LARGE_KERNEL_INSTS {
            Tier::Large
        } else {
            Tier::Optimized
        }
    }
}

/// The native ISA with the settings the JIT uses for a tier.
pub(crate) fn make_isa(tier: Tier) -> Result<OwnedTargetIsa, JitError> {
    #[cfg(target_arch = "x86_64")]
    {
        if !std::is_x86_feature_detected!("sse4.1") {
            return Err(JitError::Host("SSE4.1 is required".into()));
        }
        if !std::is_x86_feature_detected!("fma") {
            return Err(JitError::Host("FMA is required".into()));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    return Err(JitError::Host("only x86-64 hosts are supported".into()));
    #[allow(unreachable_code)]
    {
        let mut fb = settings::builder();
        let set = |fb: &mut settings::Builder, k: &str, v: &str| {
            fb.set(k, v)
                .map_err(|e| JitError::Codegen(format!("setting {k}={v}: {e}")))
        };
        set(&mut fb, "opt_level", "speed")?;
        if tier == Tier::Large {
            set(&mut fb, "regalloc_algorithm", "single_pass")?;
        }
        set(
            &mut fb,
            "enable_verifier",
            if cfg!(debug_assertions) || std::env::var_os("PTXJIT_VERIFY").is_some() {
                "true"
            } else {
                "false"
            },
        )?;
        set(&mut fb, "is_pic", "false")?;
        set(&mut fb, "use_colocated_libcalls", "false")?;
        let ib = cranelift_native::builder().map_err(|e| JitError::Host(e.to_string()))?;
        ib.finish(settings::Flags::new(fb))
            .map_err(|e| JitError::Codegen(format!("ISA: {e}")))
    }
}

/// A fresh Cranelift JIT module with the helper symbols registered.
pub(crate) fn new_module(tier: Tier) -> Result<ClifJitModule, JitError> {
    let isa = make_isa(tier)?;
    let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    for h in helpers::HELPERS {
        jb.symbol(h.name, h.ptr());
    }
    Ok(ClifJitModule::new(jb))
}

pub(crate) fn kernel_signature(cm: &ClifJitModule) -> cranelift_codegen::ir::Signature {
    let mut sig = cm.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

pub(crate) fn declare_kernel(
    cm: &mut ClifJitModule,
    fid: ir::FuncId,
) -> Result<cranelift_module::FuncId, JitError> {
    let sig = kernel_signature(cm);
    cm.declare_function(&format!("ptxjit_kernel_{}", fid.0), Linkage::Local, &sig)
        .map_err(|e| JitError::Codegen(format!("declare kernel: {e}")))
}
