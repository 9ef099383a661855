//! Compiling a module: the Cranelift ISA and its flags per tier, the JIT module with the
//! helper symbols, declaring and defining kernels with Cranelift's errors and panics
//! turned into [`JitError`]s; tiered compilation (`tier`), code listings (`dump`) and
//! compile statistics (`stats`).

pub(crate) mod dump;
pub(crate) mod stats;
pub(crate) mod tier;

use crate::ir;
use crate::jit::{abi, translate, JitError};
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule as ClifJitModule};
use cranelift_module::{Linkage, Module as _};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// [`translate::build`], with a panic inside Cranelift's frontend (a JIT bug) turned
/// into [`JitError::Codegen`].
pub(crate) fn build_guarded(
    env: translate::BuildEnv,
    fid: ir::FuncId,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    cm: &mut ClifJitModule,
) -> Result<bool, JitError> {
    match catch_unwind(AssertUnwindSafe(|| {
        translate::build(env, fid, func, fctx, cm)
    })) {
        Ok(r) => r,
        Err(p) => Err(JitError::Codegen(format!(
            "building the code of kernel {} panicked: {}",
            env.m.functions.get(fid).map_or("?", |f| f.name.as_str()),
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
pub(crate) fn guard<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, JitError> {
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
/// compile, slower code. The quick tier (`tier`) also skips Cranelift's mid-end (the
/// e-graph pass and alias analysis, a third or more of the compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tier {
    Optimized = 0,
    Large = 1,
    Quick = 2,
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
        let opt = if tier == Tier::Quick { "none" } else { "speed" };
        set(&mut fb, "opt_level", opt)?;
        if tier != Tier::Optimized {
            set(&mut fb, "regalloc_algorithm", "single_pass")?;
        }
        set(
            &mut fb,
            "enable_verifier",
            if crate::config::EnvConfig::read().jit_verify {
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
    for h in abi::HELPERS {
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

/// Declares kernel `fid` (named `name` in the PTX). Its symbol,
/// `ptxjit_kernel_<index>_<name>`, is what `perf report` shows for the kernel's code
/// (cranelift-jit writes `/tmp/perf-<pid>.map` when `perf record` runs the process).
pub(crate) fn declare_kernel(
    cm: &mut ClifJitModule,
    fid: ir::FuncId,
    name: &str,
) -> Result<cranelift_module::FuncId, JitError> {
    let sig = kernel_signature(cm);
    cm.declare_function(
        &format!("ptxjit_kernel_{}_{name}", fid.0),
        Linkage::Local,
        &sig,
    )
    .map_err(|e| JitError::Codegen(format!("declare kernel: {e}")))
}

/// Whether `ptxjit dump` shows the code for launches whose `%ntid.x` is a multiple of 32
/// (the default, see `translate::BuildEnv::rows`) or, with `PTXJIT_DUMP_ROWS=0`, the code
/// for every other launch.
pub(crate) fn dump_rows() -> bool {
    std::env::var("PTXJIT_DUMP_ROWS").map_or(true, |v| v != "0")
}
