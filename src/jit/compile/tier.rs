//! Tiered compilation. Cranelift's backtracking register allocator takes most of the
//! compile time (3-4× the single-pass allocator's) but gives 1.3-1.6× faster code. A
//! module is therefore compiled at load time with the single-pass allocator (the *quick*
//! tier); once its kernels have run for a while (longer in total than
//! [`TIER_UP_FACTOR`] × the quick compile, and at least [`TIER_UP_MIN`]), a background
//! thread compiles the whole module again with the usual settings (the *optimized*
//! tier, [`super::Tier`]) and publishes the new code, which launches that start
//! afterwards use. Both tiers are built from the same CLIF, so they compute the same
//! bits. [`JitTier`] (`DeviceOptions::jit_tier`, or `PTXJIT_JIT_TIER=quick|optimized|tiered`)
//! can pin one tier.
//!
//! The code of every tier stays allocated until the `JitModule` and the background
//! compile are both gone (launches that started with the quick code may still run it).

use super::stats::{self, CompileStats};
use super::{build_guarded, declare_kernel, define, guard, kernel_signature, new_module, Tier};
pub use crate::config::JitTier;
use crate::exec::ModuleLayout;
use crate::ir;
use crate::jit::translate::funcs as call;
use crate::jit::{abi, JitError, KernelFn};
use cranelift_codegen::ir::UserFuncName;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule as ClifJitModule;
use cranelift_module::Module as _;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

/// Background optimization starts when kernels have run this many times as long as the
/// quick compile took...
pub const TIER_UP_FACTOR: u32 = 3;
/// ...and at least this long; or at the start of a launch of at least this many
/// threads (such launches tend to repeat: the compile then overlaps the first one).
pub const TIER_UP_MIN: Duration = Duration::from_millis(20);
pub const TIER_UP_THREADS: u64 = 1 << 20;

/// How a compile chooses each function's [`Tier`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Single-pass register allocation everywhere.
    Quick,
    /// [`Tier::of`] (single-pass only for huge functions).
    Optimized,
}

/// Kernel entry points with their stack frame sizes.
#[derive(Default)]
pub(crate) struct Table {
    pub kernels: HashMap<ir::FuncId, (KernelFn, u64)>,
    /// Frames of every compiled kernel and function.
    pub frames: HashMap<ir::FuncId, u64>,
    pub optimized: bool,
}

/// The code of one compile.
struct Code {
    modules: Vec<ClifJitModule>,
    calls: Vec<call::CallEnv>,
    table: Table,
    stats: CompileStats,
}

fn free(modules: Vec<ClifJitModule>) {
    for m in modules {
        // SAFETY: callers free only modules whose code can no longer run (a discarded
        // compile, or every handle to the code gone).
        unsafe { m.free_memory() };
    }
}

/// State shared by a `JitModule` and its background compile.
pub(crate) struct Shared {
    /// The current code (swapped to the optimized tier when it is ready).
    pub table: RwLock<Arc<Table>>,
    /// Own the code memory of every tier. Behind a mutex so that the `JitModule` is
    /// `Sync` (`cranelift_jit::JITModule` is `Send` only); never locked on the hot path.
    owned: Mutex<(Vec<ClifJitModule>, Vec<call::CallEnv>)>,
    mode: JitTier,
    /// Launch time of this module's kernels so far, and the time that starts the
    /// optimized compile.
    run_ns: AtomicU64,
    threshold_ns: u64,
    started: AtomicBool,
    /// The `JitModule` is gone: a background compile in progress stops.
    pub cancelled: AtomicBool,
    /// The last launch's duration.
    last_ns: AtomicU64,
    /// The expected duration of the optimized compile ([`TIER_UP_FACTOR`] × the quick
    /// one).
    estimate: Duration,
    /// When the optimized compile started, and whether it has ended.
    progress: Mutex<(Option<Instant>, bool)>,
    ended: Condvar,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let (modules, _) = std::mem::take(self.owned.get_mut().unwrap_or_else(|e| e.into_inner()));
        free(modules);
    }
}

impl Shared {
    /// Compiles `m` in tier `mode` (the quick tier for [`JitTier::Tiered`]);
    /// `instrument`: the sanitizer variant (see `translate::BuildEnv::instrument`).
    pub(crate) fn compile(
        m: &ir::Module,
        layout: &ModuleLayout,
        mode: JitTier,
        instrument: bool,
    ) -> Result<(Arc<Shared>, CompileStats), JitError> {
        let policy = match mode {
            JitTier::Optimized => Policy::Optimized,
            JitTier::Quick | JitTier::Tiered => Policy::Quick,
        };
        let code = compile_code(m, layout, policy, None, instrument)?;
        let total = code.stats.total();
        let threshold = (total * TIER_UP_FACTOR).max(TIER_UP_MIN);
        let shared = Arc::new(Shared {
            table: RwLock::new(Arc::new(code.table)),
            owned: Mutex::new((code.modules, code.calls)),
            mode,
            run_ns: AtomicU64::new(0),
            threshold_ns: threshold.as_nanos() as u64,
            started: AtomicBool::new(false),
            cancelled: AtomicBool::new(false),
            last_ns: AtomicU64::new(0),
            estimate: total * TIER_UP_FACTOR,
            progress: Mutex::new((None, false)),
            ended: Condvar::new(),
        });
        Ok((shared, code.stats))
    }

    pub(crate) fn table(&self) -> Arc<Table> {
        self.table.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Adds a launch's duration; starts the optimized compile when due.
    pub(crate) fn record_run(
        self: &Arc<Self>,
        took: Duration,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) {
        if self.mode != JitTier::Tiered {
            return;
        }
        let ns = took.as_nanos().min(u64::MAX as u128) as u64;
        self.last_ns.store(ns, Ordering::Relaxed);
        if self.started.load(Ordering::Relaxed) {
            return;
        }
        let total = self
            .run_ns
            .fetch_add(ns, Ordering::Relaxed)
            .saturating_add(ns);
        if total >= self.threshold_ns {
            self.start(m, layout);
        }
    }

    /// Starts the optimized compile (once; only for [`JitTier::Tiered`]).
    pub(crate) fn start(self: &Arc<Self>, m: &ir::Module, layout: &ModuleLayout) {
        if self.mode != JitTier::Tiered || self.started.swap(true, Ordering::Relaxed) {
            return;
        }
        self.progress.lock().unwrap_or_else(|e| e.into_inner()).0 = Some(Instant::now());
        let (sh, m, layout) = (self.clone(), m.clone(), layout.clone());
        let spawned = std::thread::Builder::new()
            .name("ptxjit-optimize".into())
            .spawn(move || {
                sh.optimize(&m, &layout);
                sh.set_ended();
            });
        if spawned.is_err() {
            // Without a thread, the module keeps its quick code.
            self.set_ended();
        }
    }

    fn set_ended(&self) {
        self.progress.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.ended.notify_all();
    }

    /// Before a launch: if the optimized compile is expected to end within half the
    /// last launch's duration, waits for it (at most that long), so that repeated long
    /// launches switch to optimized code as soon as possible.
    pub(crate) fn wait_if_worth(&self) {
        if self.mode != JitTier::Tiered || !self.started.load(Ordering::Relaxed) {
            return;
        }
        let half = Duration::from_nanos(self.last_ns.load(Ordering::Relaxed) / 2);
        let p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        let Some(t0) = p.0 else { return };
        if p.1 || self.estimate.saturating_sub(t0.elapsed()) > half {
            return;
        }
        let _ = self
            .ended
            .wait_timeout_while(p, half, |p| !p.1)
            .unwrap_or_else(|e| e.into_inner());
    }

    /// The background compile: publishes the optimized code unless cancelled or failed
    /// (then the quick code stays).
    fn optimize(&self, m: &ir::Module, layout: &ModuleLayout) {
        let Ok(code) = compile_code(m, layout, Policy::Optimized, Some(&self.cancelled), false)
        else {
            return;
        };
        if self.cancelled.load(Ordering::Relaxed) {
            free(code.modules);
            return;
        }
        {
            let mut owned = self.owned.lock().unwrap_or_else(|e| e.into_inner());
            owned.0.extend(code.modules);
            owned.1.extend(code.calls);
        }
        *self.table.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(code.table);
    }
}

/// Compiles every kernel (`FuncKind::Entry` with a body) of the module, and every
/// `.func` with a body (in the same Cranelift module as the kernels, which call them).
/// Stops with an error when `cancel` is set.
fn compile_code(
    m: &ir::Module,
    layout: &ModuleLayout,
    policy: Policy,
    cancel: Option<&AtomicBool>,
    instrument: bool,
) -> Result<Code, JitError> {
    let tier_of = |f: &ir::Function| match policy {
        Policy::Quick => Tier::Large,
        Policy::Optimized => Tier::of(f),
    };
    let mut tiers: Vec<Option<(ClifJitModule, abi::HelperIds, call::CallEnv)>> = vec![None, None];
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    let mut stats = CompileStats::default();
    let mut frames = HashMap::new();
    // Functions and the kernels that may call them share one Cranelift module, of the
    // tier of the largest of them.
    let has_funcs = call::module_has_funcs(m);
    let module_tier = m
        .functions
        .iter()
        .map(tier_of)
        .max_by_key(|t| *t as u8)
        .unwrap_or(Tier::Optimized);
    let result = (|| {
        for (i, f) in m.functions.iter().enumerate() {
            if !f.has_body() {
                continue;
            }
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(JitError::Codegen("cancelled".into()));
            }
            let fid = ir::FuncId(i as u32);
            let tier = if has_funcs { module_tier } else { tier_of(f) };
            let slot = &mut tiers[tier as usize];
            if slot.is_none() {
                let mut cm = new_module(tier)?;
                let h = abi::declare(&mut cm)?;
                let c = call::declare_funcs(&mut cm, m)?;
                *slot = Some((cm, h, c));
            }
            let Some((cm, helpers, calls)) = slot.as_mut() else {
                continue;
            };
            let mut cctx = cm.make_context();
            let id = match f.kind {
                ir::FuncKind::Entry => {
                    cctx.func.signature = kernel_signature(cm);
                    declare_kernel(cm, fid)?
                }
                ir::FuncKind::Func => {
                    cctx.func.signature = call::func_signature(cm);
                    *calls
                        .funcs
                        .get(&fid)
                        .ok_or_else(|| JitError::Codegen("function not declared".into()))?
                }
            };
            cctx.func.name = UserFuncName::user(0, id.as_u32());
            let t0 = Instant::now();
            let env = crate::jit::translate::BuildEnv {
                m,
                layout,
                helpers,
                calls,
                instrument,
            };
            build_guarded(env, fid, &mut cctx.func, &mut fctx, cm)?;
            let t1 = Instant::now();
            stats.add_function(f, &cctx.func, t1 - t0);
            guard("define_function", || define(cm, id, &mut cctx))?;
            stats.define += t1.elapsed();
            if let Some(code) = cctx.compiled_code() {
                frames.insert(fid, stats::frame_bytes(code.code_buffer(), &cctx.func));
            }
            if f.kind == ir::FuncKind::Entry {
                ids.push((fid, tier, id));
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        free(tiers.into_iter().flatten().map(|t| t.0).collect());
        return Err(e);
    }
    let mut table = Table {
        optimized: policy == Policy::Optimized,
        ..Table::default()
    };
    let mut modules = Vec::new();
    let mut names = Vec::new();
    let t0 = Instant::now();
    let mut failed = None;
    for (t, slot) in tiers.into_iter().enumerate() {
        let Some((mut cm, _, calls)) = slot else {
            continue;
        };
        names.push(calls);
        if failed.is_none() {
            match guard("finalize_definitions", || {
                cm.finalize_definitions().map_err(|e| e.to_string())
            }) {
                Ok(()) => {
                    for &(fid, tier, id) in &ids {
                        if tier as usize == t {
                            let p = cm.get_finalized_function(id);
                            // SAFETY: the function was compiled with `kernel_signature`,
                            // which is the SystemV signature of `KernelFn`.
                            let kf: KernelFn =
                                unsafe { std::mem::transmute::<*const u8, KernelFn>(p) };
                            let frame = frames.get(&fid).copied().unwrap_or(0);
                            table.kernels.insert(fid, (kf, frame));
                        }
                    }
                }
                Err(e) => failed = Some(e),
            }
        }
        modules.push(cm);
    }
    if let Some(e) = failed {
        free(modules);
        return Err(e);
    }
    stats.finalize = t0.elapsed();
    table.frames = frames;
    Ok(Code {
        modules,
        calls: names,
        table,
        stats,
    })
}
