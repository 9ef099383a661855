//! Lazy and tiered compilation.
//!
//! **Lazy:** a module's kernels are compiled when first needed: [`Shared::ensure`]
//! compiles one kernel and the functions it reaches (direct calls and call tables,
//! `ir::analysis::callgraph::reachable_funcs`) into a Cranelift module of their own (a
//! *unit*) and publishes the code in the [`Table`]. Different kernels compile at the same
//! time on different threads; a thread that needs a kernel another thread is compiling
//! waits for it (a `OnceLock` per kernel). A compile error is kept and returned to
//! every later launch of the kernel. A function reached by several kernels is compiled
//! once in each of their units. [`Shared::compile`] compiles the whole module at once
//! (eager: `DeviceOptions::jit_eager`, `PTXJIT_EAGER=1`, and [`super::super::JitModule::compile`]).
//!
//! **Tiered:** Cranelift's backtracking register allocator takes most of the compile time
//! (3-4× the single-pass allocator's) but gives 1.3-1.6× faster code. Kernels are
//! therefore first compiled with the single-pass allocator and without Cranelift's
//! mid-end (`opt_level=none`: no e-graph pass, no alias analysis; 1.3-2.8× less
//! compile time than with it, and no slower code measured) — the *quick* tier; once a
//! kernel has run for a while (longer in total than [`TIER_UP_FACTOR`] × its quick
//! compile, and at least [`TIER_UP_MIN`]), a background thread compiles it (and the
//! functions it reaches) again with the usual settings (the *optimized* tier,
//! [`super::Tier`]) and publishes the new code, which launches that start afterwards
//! use. Both tiers compute the same bits; the quick tier's CLIF is smaller where a
//! lowering has a smaller form (`BuildEnv::quick`: global atomics and accesses of no
//! proven shape through the helpers, `lower::mem_quick`), which tests run on both
//! tiers.
//! [`JitTier`] (`DeviceOptions::jit_tier`, or `PTXJIT_JIT_TIER=quick|optimized|tiered`)
//! can pin one tier.
//!
//! The code of every compile stays allocated until the `JitModule` and the background
//! compile are both gone (launches that started with the quick code may still run it).

use super::stats::{self, CompileStats};
use super::{build_guarded, declare_kernel, define, guard, kernel_signature, new_module, Tier};
pub use crate::config::JitTier;
use crate::exec::ModuleLayout;
use crate::ir;
use crate::ir::analysis::callgraph;
use crate::jit::translate::funcs as call;
use crate::jit::{abi, JitError, KernelFn};
use cranelift_codegen::ir::UserFuncName;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule as ClifJitModule;
use cranelift_module::Module as _;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// A kernel is optimized when it has run this many times as long as its quick compile
/// took...
pub const TIER_UP_FACTOR: u32 = 3;
/// ...and at least this long; or at the start of a launch of at least this many
/// threads (such launches tend to repeat: the compile then overlaps the first one).
pub const TIER_UP_MIN: Duration = Duration::from_millis(20);
pub const TIER_UP_THREADS: u64 = 1 << 20;

/// How a compile chooses each function's [`Tier`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    /// Single-pass register allocation everywhere.
    Quick,
    /// [`Tier::of`] (single-pass only for huge functions).
    Optimized,
}

/// Kernel entry points with their stack frame sizes.
#[derive(Clone, Default)]
pub(crate) struct Table {
    pub kernels: HashMap<ir::FuncId, (KernelFn, u64)>,
    /// Frames of every compiled kernel and function.
    pub frames: HashMap<ir::FuncId, u64>,
    /// The kernels whose code is the quick tier.
    pub quick: HashSet<ir::FuncId>,
    /// The kernels whose barriers are continuations (`control::cont`; the same in
    /// every tier).
    pub cont: HashSet<ir::FuncId>,
    /// Every compiled kernel has optimized code ([`JitTier::Optimized`] always; with
    /// [`JitTier::Tiered`], once some kernel is compiled and none has quick code).
    pub optimized: bool,
}

/// The code of one compile.
pub(crate) struct Code {
    pub modules: Vec<ClifJitModule>,
    pub calls: Vec<call::CallEnv>,
    pub table: Table,
    pub stats: CompileStats,
    /// Building and Cranelift's compilation of each function.
    pub times: HashMap<ir::FuncId, Duration>,
}

pub(crate) fn free(modules: Vec<ClifJitModule>) {
    for m in modules {
        // SAFETY: callers free only modules whose code can no longer run (a discarded
        // compile, or every handle to the code gone).
        unsafe { m.free_memory() };
    }
}

/// One kernel's first compile and its tiering counters.
#[derive(Default)]
struct Unit {
    /// The first compile (quick, or optimized with [`JitTier::Optimized`]).
    compiled: OnceLock<Result<(), String>>,
    /// Launch time of the kernel so far.
    run_ns: AtomicU64,
    /// How long its first compile took.
    compile_ns: AtomicU64,
    /// Due for the optimized tier.
    hot: AtomicBool,
}

/// The optimizing thread's current batch.
#[derive(Default)]
struct Progress {
    started: Option<Instant>,
    ended: bool,
    /// Its expected duration ([`TIER_UP_FACTOR`] × the quick compiles).
    estimate: Duration,
}

/// State shared by a `JitModule` and its background compile.
pub(crate) struct Shared {
    /// The current code (kernels added as they are compiled, swapped to the optimized
    /// tier when it is ready).
    pub table: RwLock<Arc<Table>>,
    /// Own the code memory of every compile. Behind a mutex so that the `JitModule` is
    /// `Sync` (`cranelift_jit::JITModule` is `Send` only); never locked on the hot path.
    owned: Mutex<(Vec<ClifJitModule>, Vec<call::CallEnv>)>,
    mode: JitTier,
    /// The sanitizer variant (see `translate::BuildEnv::instrument`).
    instrument: bool,
    /// Code for launches whose `%ntid.x` is a multiple of 32 only (see
    /// `translate::BuildEnv::rows`).
    pub(crate) rows: bool,
    units: Mutex<HashMap<ir::FuncId, Arc<Unit>>>,
    /// Every compile so far except the background ones.
    stats: Mutex<CompileStats>,
    /// The optimizing thread runs.
    running: AtomicBool,
    /// An optimized compile failed: the module keeps its quick code.
    failed: AtomicBool,
    /// The `JitModule` is gone: a background compile in progress stops.
    pub cancelled: AtomicBool,
    /// The last launch's duration.
    last_ns: AtomicU64,
    progress: Mutex<Progress>,
    ended: Condvar,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let (modules, _) = std::mem::take(self.owned.get_mut().unwrap_or_else(|e| e.into_inner()));
        free(modules);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

impl Shared {
    fn new(mode: JitTier, instrument: bool, rows: bool) -> Shared {
        Shared {
            table: RwLock::new(Arc::new(Table {
                optimized: mode == JitTier::Optimized,
                ..Table::default()
            })),
            owned: Mutex::new((Vec::new(), Vec::new())),
            mode,
            instrument,
            rows,
            units: Mutex::new(HashMap::new()),
            stats: Mutex::new(CompileStats::default()),
            running: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            cancelled: AtomicBool::new(false),
            last_ns: AtomicU64::new(0),
            progress: Mutex::new(Progress::default()),
            ended: Condvar::new(),
        }
    }

    /// A module whose kernels are compiled when first needed ([`Shared::ensure`]), in
    /// tier `mode` (the quick tier first for [`JitTier::Tiered`]); `instrument`: the
    /// sanitizer variant.
    pub(crate) fn lazy(mode: JitTier, instrument: bool) -> Arc<Shared> {
        Arc::new(Shared::new(mode, instrument, false))
    }

    /// A lazy module of code for launches whose `%ntid.x` is a multiple of 32 (see
    /// `translate::BuildEnv::rows`).
    pub(crate) fn lazy_rows(mode: JitTier) -> Arc<Shared> {
        Arc::new(Shared::new(mode, false, true))
    }

    /// The tier mode.
    pub(crate) fn mode(&self) -> JitTier {
        self.mode
    }

    /// Whether this is the sanitizer variant.
    pub(crate) fn instrument(&self) -> bool {
        self.instrument
    }

    /// Compiles every kernel and function of `m` now, in tier `mode` (the quick tier
    /// for [`JitTier::Tiered`]); `instrument`: the sanitizer variant.
    pub(crate) fn compile(
        m: &ir::Module,
        layout: &ModuleLayout,
        mode: JitTier,
        instrument: bool,
    ) -> Result<Arc<Shared>, JitError> {
        let sh = Shared::new(mode, instrument, false);
        let code = compile_code(m, layout, sh.policy(), None, (instrument, false), None)?;
        for &fid in code.table.kernels.keys() {
            let u = sh.unit(fid);
            let _ = u.compiled.set(Ok(()));
            let t = code.times.get(&fid).copied().unwrap_or_default();
            u.compile_ns.store(nanos(t), Ordering::Relaxed);
        }
        lock(&sh.stats).add(&code.stats);
        sh.publish(code, sh.policy());
        Ok(Arc::new(sh))
    }

    fn policy(&self) -> Policy {
        match self.mode {
            JitTier::Optimized => Policy::Optimized,
            JitTier::Quick | JitTier::Tiered => Policy::Quick,
        }
    }

    fn unit(&self, fid: ir::FuncId) -> Arc<Unit> {
        lock(&self.units).entry(fid).or_default().clone()
    }

    pub(crate) fn table(&self) -> Arc<Table> {
        self.table.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Every compile so far except the background ones.
    pub(crate) fn stats(&self) -> CompileStats {
        lock(&self.stats).clone()
    }

    /// Compiles kernel `fid` and the functions it reaches unless that is done (waits
    /// for another thread compiling it). The error (the compile's message, located
    /// where the JIT rejects an instruction) is the same for every call.
    pub(crate) fn ensure(
        &self,
        fid: ir::FuncId,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) -> Result<(), String> {
        if self.table().kernels.contains_key(&fid) {
            return Ok(());
        }
        match m.functions.get(fid) {
            Some(f) if f.kind == ir::FuncKind::Entry && f.has_body() => {}
            _ => return Err("not a kernel with a body".into()),
        }
        let unit = self.unit(fid);
        unit.compiled
            .get_or_init(|| {
                let funcs: HashSet<ir::FuncId> =
                    callgraph::reachable_funcs(m, fid).into_iter().collect();
                let policy = self.policy();
                let variant = (self.instrument, self.rows);
                let code = compile_code(m, layout, policy, None, variant, Some(&funcs))
                    .map_err(|e| e.to_string())?;
                unit.compile_ns
                    .store(nanos(code.stats.total()), Ordering::Relaxed);
                lock(&self.stats).add(&code.stats);
                self.publish(code, policy);
                Ok(())
            })
            .clone()
    }

    /// Takes ownership of a compile's code and adds its kernels to the table (replacing
    /// the quick code of kernels it optimized).
    fn publish(&self, code: Code, policy: Policy) {
        {
            let mut owned = lock(&self.owned);
            owned.0.extend(code.modules);
            owned.1.extend(code.calls);
        }
        let mut w = self.table.write().unwrap_or_else(|e| e.into_inner());
        let mut t = Table::clone(&w);
        for (fid, k) in code.table.kernels {
            t.kernels.insert(fid, k);
            match policy {
                Policy::Quick => t.quick.insert(fid),
                Policy::Optimized => t.quick.remove(&fid),
            };
        }
        t.cont.extend(code.table.cont);
        for (fid, f) in code.table.frames {
            let e = t.frames.entry(fid).or_insert(0);
            *e = (*e).max(f);
        }
        t.optimized = match self.mode {
            JitTier::Optimized => true,
            JitTier::Quick => false,
            JitTier::Tiered => !t.kernels.is_empty() && t.quick.is_empty(),
        };
        *w = Arc::new(t);
    }

    /// Adds a launch of kernel `fid` that took `took`; the kernel is due for the
    /// optimized tier once it has run long enough.
    pub(crate) fn record_run(
        self: &Arc<Self>,
        fid: ir::FuncId,
        took: Duration,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) {
        if self.mode != JitTier::Tiered {
            return;
        }
        let ns = nanos(took);
        self.last_ns.store(ns, Ordering::Relaxed);
        if !self.table().quick.contains(&fid) {
            return;
        }
        let u = self.unit(fid);
        let total = u.run_ns.fetch_add(ns, Ordering::Relaxed).saturating_add(ns);
        let threshold =
            (u.compile_ns.load(Ordering::Relaxed) * TIER_UP_FACTOR as u64).max(nanos(TIER_UP_MIN));
        if total >= threshold {
            u.hot.store(true, Ordering::Relaxed);
            self.start(m, layout);
        }
    }

    /// Before a launch of `threads` threads of kernel `fid`: a large launch makes the
    /// kernel due for the optimized tier at once; if the optimized compile of the kernel
    /// is expected to end within half the last launch's duration, waits for it (at most
    /// that long), so that repeated long launches switch to optimized code soon.
    pub(crate) fn launch_start(
        self: &Arc<Self>,
        fid: ir::FuncId,
        threads: u64,
        m: &ir::Module,
        layout: &ModuleLayout,
    ) {
        if self.mode != JitTier::Tiered || !self.table().quick.contains(&fid) {
            return;
        }
        let u = self.unit(fid);
        if threads >= TIER_UP_THREADS {
            u.hot.store(true, Ordering::Relaxed);
            self.start(m, layout);
        }
        if !u.hot.load(Ordering::Relaxed) {
            return;
        }
        let half = Duration::from_nanos(self.last_ns.load(Ordering::Relaxed) / 2);
        let p = lock(&self.progress);
        let Some(t0) = p.started else { return };
        if p.ended || p.estimate.saturating_sub(t0.elapsed()) > half {
            return;
        }
        let _ = self
            .ended
            .wait_timeout_while(p, half, |p| !p.ended)
            .unwrap_or_else(|e| e.into_inner());
    }

    /// The kernels due for the optimized tier that still have quick code.
    fn due(&self) -> Vec<ir::FuncId> {
        let quick = self.table().quick.clone();
        let mut v: Vec<ir::FuncId> = lock(&self.units)
            .iter()
            .filter(|(f, u)| u.hot.load(Ordering::Relaxed) && quick.contains(f))
            .map(|(f, _)| *f)
            .collect();
        v.sort_by_key(|f| f.0);
        v
    }

    /// Starts the optimizing thread unless it runs (only for [`JitTier::Tiered`]).
    fn start(self: &Arc<Self>, m: &ir::Module, layout: &ModuleLayout) {
        if self.mode != JitTier::Tiered
            || self.failed.load(Ordering::Relaxed)
            || self.due().is_empty()
            || self.running.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let (sh, m, layout) = (self.clone(), m.clone(), layout.clone());
        let spawned = std::thread::Builder::new()
            .name("ptxjit-optimize".into())
            .spawn(move || {
                sh.optimize(&m, &layout);
                sh.running.store(false, Ordering::Release);
            });
        if spawned.is_err() {
            // Without a thread, the module keeps its quick code.
            self.failed.store(true, Ordering::Relaxed);
            self.running.store(false, Ordering::Release);
        }
    }

    fn set_progress(&self, p: Progress) {
        *lock(&self.progress) = p;
        self.ended.notify_all();
    }

    /// The optimizing thread: compiles the kernels due, batch after batch, and
    /// publishes their code unless cancelled or failed (then the quick code stays).
    fn optimize(&self, m: &ir::Module, layout: &ModuleLayout) {
        loop {
            let due = self.due();
            if due.is_empty() || self.cancelled.load(Ordering::Relaxed) {
                break;
            }
            let units: Vec<Arc<Unit>> = due.iter().map(|&f| self.unit(f)).collect();
            let quick: u64 = units
                .iter()
                .map(|u| u.compile_ns.load(Ordering::Relaxed))
                .sum();
            self.set_progress(Progress {
                started: Some(Instant::now()),
                ended: false,
                estimate: Duration::from_nanos(quick.saturating_mul(TIER_UP_FACTOR as u64)),
            });
            let funcs: HashSet<ir::FuncId> = due
                .iter()
                .flat_map(|&f| callgraph::reachable_funcs(m, f))
                .collect();
            let cancel = Some(&self.cancelled);
            let variant = (false, self.rows);
            match compile_code(m, layout, Policy::Optimized, cancel, variant, Some(&funcs)) {
                Ok(code) if !self.cancelled.load(Ordering::Relaxed) => {
                    self.publish(code, Policy::Optimized)
                }
                Ok(code) => {
                    free(code.modules);
                    break;
                }
                Err(_) => {
                    self.failed.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        let mut p = lock(&self.progress);
        p.ended = true;
        drop(p);
        self.ended.notify_all();
    }
}

/// Compiles the functions with a body of `only` (every one when `None`: each kernel,
/// `FuncKind::Entry`, and each `.func`); functions and the kernels that may call them
/// share one Cranelift module. `only` must be closed under calls (the functions its
/// kernels reach). Stops with an error when `cancel` is set. `(instrument, rows)`: see
/// `translate::BuildEnv`.
pub(crate) fn compile_code(
    m: &ir::Module,
    layout: &ModuleLayout,
    policy: Policy,
    cancel: Option<&AtomicBool>,
    (instrument, rows): (bool, bool),
    only: Option<&HashSet<ir::FuncId>>,
) -> Result<Code, JitError> {
    let tier_of = |f: &ir::Function| match policy {
        Policy::Quick => Tier::Quick,
        Policy::Optimized => Tier::of(f),
    };
    let chosen: Vec<(ir::FuncId, &ir::Function)> = m
        .functions
        .iter_enumerated()
        .filter(|(fid, f)| f.has_body() && only.is_none_or(|s| s.contains(fid)))
        .collect();
    let mut tiers: Vec<Option<(ClifJitModule, abi::HelperIds, call::CallEnv)>> =
        vec![None, None, None];
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    let mut stats = CompileStats::default();
    let mut frames = HashMap::new();
    let mut conts = HashSet::new();
    let mut times = HashMap::new();
    let code_dump = crate::config::EnvConfig::code_dump_dir();
    // (tier, id, code bytes) of every function, for `PTXJIT_CODE_DUMP`.
    let mut sizes = Vec::new();
    // Functions and the kernels that may call them share one Cranelift module, of the
    // tier of the largest of them.
    let has_funcs = chosen.iter().any(|(_, f)| f.kind == ir::FuncKind::Func);
    let module_tier = chosen
        .iter()
        .map(|(_, f)| tier_of(f))
        .max_by_key(|t| *t as u8)
        .unwrap_or(Tier::Optimized);
    let result = (|| {
        for &(fid, f) in &chosen {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(JitError::Codegen("cancelled".into()));
            }
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
                    declare_kernel(cm, fid, &f.name)?
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
                rows,
                quick: tier == Tier::Quick,
            };
            if build_guarded(env, fid, &mut cctx.func, &mut fctx, cm)? {
                conts.insert(fid);
            }
            let t1 = Instant::now();
            stats.add_function(f, &cctx.func, t1 - t0);
            guard("define_function", || define(cm, id, &mut cctx))?;
            stats.define += t1.elapsed();
            times.insert(fid, t0.elapsed());
            if let Some(code) = cctx.compiled_code() {
                frames.insert(fid, stats::frame_bytes(code.code_buffer(), &cctx.func));
                sizes.push((tier as usize, id, code.code_buffer().len()));
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
                    if let Some(dir) = &code_dump {
                        for &(_, id, len) in sizes.iter().filter(|s| s.0 == t) {
                            let p = cm.get_finalized_function(id);
                            // SAFETY: a finalized function's code is `len` readable bytes
                            // at `p` (cranelift-jit copies the whole code buffer there).
                            let code = unsafe { std::slice::from_raw_parts(p, len) };
                            let decl = cm.declarations().get_function_decl(id);
                            super::dump::write_code(dir, &decl.linkage_name(id), code);
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
    table.cont = conts;
    Ok(Code {
        modules,
        calls: names,
        table,
        stats,
        times,
    })
}
