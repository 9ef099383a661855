//! Listings of generated code: the CLIF of a kernel or `.func` as built (before
//! optimisation), or the machine code (VCode disassembly) Cranelift produces for it;
//! and the quick-tier compile cost of each kernel ([`kernel_stats`], `ptxjit dump --stats`).

use super::stats::CompileStats;
use super::tier::{compile_code, free, Policy};
use super::{build_guarded, declare_kernel, define, guard, kernel_signature, new_module, Tier};
use crate::exec::ModuleLayout;
use crate::ir;
use crate::ir::analysis::callgraph;
use crate::jit::translate::opcode_cost::{self, OpcodeCost};
use crate::jit::{abi, JitError};
use cranelift_codegen::ir::UserFuncName;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::Module as _;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::Duration;

/// What [`dump`] prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpKind {
    /// Cranelift IR as built by the translator.
    Clif,
    /// Machine code listing (Cranelift's VCode disassembly).
    Asm,
}

/// Text of the CLIF (after building) or the machine code listing of one kernel (by
/// name) or of all kernels.
pub fn dump(
    m: &ir::Module,
    layout: &ModuleLayout,
    kernel: Option<&str>,
    kind: DumpKind,
) -> Result<String, JitError> {
    let mut fctx = FunctionBuilderContext::new();
    let mut out = String::new();
    let mut found = false;
    for (i, f) in m.functions.iter().enumerate() {
        if !f.has_body() || kernel.is_some_and(|k| k != f.name) {
            continue;
        }
        found = true;
        let fid = ir::FuncId(i as u32);
        // A module per kernel, with the settings `JitModule::compile` would use.
        let tier = match crate::config::EnvConfig::read().jit_tier {
            crate::config::JitTier::Quick => Tier::Quick,
            _ => Tier::of(f),
        };
        let mut cm = new_module(tier)?;
        let helpers = abi::declare(&mut cm)?;
        let calls = crate::jit::translate::funcs::declare_funcs(&mut cm, m)?;
        let mut cctx = cm.make_context();
        let id = match f.kind {
            ir::FuncKind::Entry => {
                cctx.func.signature = kernel_signature(&cm);
                declare_kernel(&mut cm, fid, &f.name)?
            }
            ir::FuncKind::Func => {
                cctx.func.signature = crate::jit::translate::funcs::func_signature(&cm);
                *calls
                    .funcs
                    .get(&fid)
                    .ok_or_else(|| JitError::Codegen("function not declared".into()))?
            }
        };
        cctx.func.name = UserFuncName::user(0, id.as_u32());
        let env = crate::jit::translate::BuildEnv {
            m,
            layout,
            helpers: &helpers,
            calls: &calls,
            instrument: false,
            rows: super::dump_rows(),
            quick: tier == Tier::Quick,
        };
        let _cont = build_guarded(env, fid, &mut cctx.func, &mut fctx, &mut cm)?;
        let what = match f.kind {
            ir::FuncKind::Entry => "kernel",
            ir::FuncKind::Func => "function",
        };
        let _ = writeln!(out, "; {what} {}", f.name);
        match kind {
            DumpKind::Clif => {
                let _ = writeln!(out, "{}", cctx.func.display());
            }
            DumpKind::Asm => {
                cctx.set_disasm(true);
                guard("define_function", || define(&mut cm, id, &mut cctx))?;
                let text = cctx
                    .compiled_code()
                    .and_then(|c| c.vcode.clone())
                    .unwrap_or_default();
                let _ = writeln!(out, "{text}");
            }
        }
    }
    if !found {
        return Err(match kernel {
            Some(k) => JitError::NoSuchKernel(k.to_string()),
            None => JitError::NoSuchKernel("(any)".to_string()),
        });
    }
    // The modules are dropped without finalizing; their code is never run.
    Ok(out)
}

/// The compile cost of one kernel in the quick tier (what its first launch pays):
/// the kernel and the functions it reaches compiled as a lazy compile does.
#[derive(Clone, Debug)]
pub struct KernelStats {
    pub name: String,
    /// Functions the kernel reaches through calls (compiled with it).
    pub funcs: usize,
    /// Counts and wall-clock times of the compile.
    pub stats: CompileStats,
    /// CPU time of the compiling thread (less disturbed than wall-clock time when other
    /// processes share the cores).
    pub cpu: Duration,
    /// CLIF instructions by PTX opcode (`ptxjit dump --stats --by-opcode`).
    pub opcodes: Vec<OpcodeCost>,
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Compiles each kernel of `m` (or only `kernel`) with the functions it reaches in the
/// quick tier, as its first launch would, and reports the cost. The code is discarded.
pub fn kernel_stats(
    m: &ir::Module,
    layout: &ModuleLayout,
    kernel: Option<&str>,
) -> Result<Vec<KernelStats>, JitError> {
    let mut out = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        if f.kind != ir::FuncKind::Entry || !f.has_body() || kernel.is_some_and(|k| k != f.name) {
            continue;
        }
        let fid = ir::FuncId(i as u32);
        let funcs: HashSet<ir::FuncId> = callgraph::reachable_funcs(m, fid).into_iter().collect();
        let t = thread_cpu();
        let variant = (false, super::dump_rows());
        let (code, opcodes) = opcode_cost::collect(|| {
            compile_code(m, layout, Policy::Quick, None, variant, Some(&funcs))
        });
        let code = code?;
        let cpu = thread_cpu() - t;
        free(code.modules);
        out.push(KernelStats {
            name: f.name.clone(),
            funcs: funcs.len() - 1,
            stats: code.stats,
            cpu,
            opcodes,
        });
    }
    if out.is_empty() {
        return Err(JitError::NoSuchKernel(
            kernel.unwrap_or("(any)").to_string(),
        ));
    }
    Ok(out)
}

/// `PTXJIT_CODE_DUMP`: writes one finalized function's machine code, as loaded, to
/// `dir/<symbol>.bin` and its load address (`0x…`) to `dir/<symbol>.addr`, so that
/// `objdump -D -b binary -m i386:x86-64 --adjust-vma=ADDR` lines up with `perf`'s
/// sample addresses. A failure is a warning on stderr, never an error of the compile.
pub(crate) fn write_code(dir: &std::path::Path, symbol: &str, code: &[u8]) {
    let addr = format!("{:#x}\n", code.as_ptr() as usize);
    let r = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(dir.join(format!("{symbol}.bin")), code))
        .and_then(|()| std::fs::write(dir.join(format!("{symbol}.addr")), addr));
    if let Err(e) = r {
        eprintln!(
            "ptxjit: warning: cannot write the code of {symbol} to {}: {e}",
            dir.display()
        );
    }
}
