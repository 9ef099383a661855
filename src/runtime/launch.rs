//! Launches: argument and configuration checks, the per-launch memory (parameter buffer,
//! shared windows, local frames), the workers that run CTAs (the launching thread and
//! the device's thread pool, `pool`; the time limit is `watchdog`'s), and the CTA
//! scheduler that runs a CTA's warps and implements barriers.
//!
//! A CTA runs all its warps on one OS thread. Kernels without barriers run their warps
//! one after the other on the worker's stack (JIT code in order: one call runs the
//! warps chained by `WarpCtx::next`); kernels with barriers run each warp in a
//! stackful coroutine (corosensei) that suspends inside `bar.sync`, so barriers work at
//! any call depth in both backends. When no warp can run and some wait at a barrier that
//! can never complete, the launch ends with [`Error::Deadlock`]. JIT kernels whose
//! barriers are continuations return at barriers instead and have a loop of their own
//! (`cont`).

use crate::exec::barrier::WarpYield;
use crate::exec::ctx::{WarpCtx, WarpEnv, STATUS_OK, WARP_SIZE};
use crate::exec::region::{RegionKind, RegionTable};
use crate::exec::sreg::{self, SregCtx};
use crate::interp;
use crate::ir::analysis::callgraph;
use crate::ir::{FuncId, Function};
use crate::jit::KernelFn;
use crate::runtime::device::{Backend, Device, KernelArg, LaunchConfig, Module};
use crate::runtime::error::{Error, Fault, Result};
use crate::runtime::memory::DeviceMemory;
use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

mod barriers;
mod claims;
mod cont;
mod shape;
use barriers::run_cta_with_barriers;
pub(super) use barriers::{deadlock, warp_error, Barriers, WarpState};
use claims::{batch_ctaids, batch_size, chunk_units, claim_units, next_ctaid};
use shape::{check_shape, Shape};

/// Most threads in a CTA.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;
/// Most shared memory (static + dynamic) per CTA: 227 KiB, as on sm_90.
pub const MAX_SHARED_PER_BLOCK: u32 = 227 * 1024;
/// Stack of each warp coroutine (committed lazily).
const WARP_STACK_BYTES: usize = 1 << 20;
/// JIT kernels whose stack frame is larger run their warps on coroutine stacks sized
/// for it rather than on the worker thread's stack (which may be as small as 2 MiB).
const INLINE_FRAME_BYTES: u64 = 512 << 10;

#[derive(Clone, Copy)]
enum Exec {
    Jit(KernelFn),
    Interp,
}

/// Everything a worker needs to run CTAs of one launch.
pub(super) struct LaunchShared<'a> {
    module: &'a Module,
    func_id: FuncId,
    pub(super) func: &'a Function,
    exec: Exec,
    cfg: &'a LaunchConfig,
    regions: Arc<RegionTable>,
    /// The device heap, when the module calls `malloc`/`free`.
    heap: Option<Arc<crate::exec::heap::DeviceHeap>>,
    /// The grid's device-runtime state, when the module calls the device runtime.
    cdp: Option<Arc<crate::exec::cdp::CdpGrid>>,
    /// The device's texture and surface objects.
    textures: Arc<crate::exec::texture::TextureTable>,
    param_base: u64,
    shared_size: u64,
    /// Special-register values common to the launch (`smid` and the cluster registers
    /// are set per worker and CTA).
    sreg: SregCtx,
    /// Cluster shape (`[1, 1, 1]` without `.reqnctapercluster`).
    cluster: [u32; 3],
    /// A cooperative launch: all CTAs are one scheduling unit (`exec::gridsync`).
    cooperative: bool,
    /// Bytes per thread of the local area (the kernel's frame, then its call stack).
    local_size: u64,
    /// Bytes of the kernel's own frame, zeroed in every CTA.
    frame_size: u64,
    /// Bytes at the end of `local_size` kept for `alloca` (`exec::stack`).
    alloca_bytes: u64,
    /// Run warps in coroutines: barriers are reachable, or calls (whose depth is then
    /// bounded by a known host stack).
    uses_barriers: bool,
    /// Bytes of each warp's register file when the kernel's barriers are continuations
    /// (`jit::control::cont`: no coroutines); 0 otherwise.
    cont_regs: u64,
    /// Continuation warps run on the worker's stack (their frame fits there); otherwise
    /// each runs in a coroutine that suspends where the code returns at a barrier.
    cont_direct: bool,
    /// Host stack of each warp coroutine.
    stack_bytes: usize,
    /// The largest stack frame of the module's JIT code (see `WarpEnv::frame_margin`).
    frame_margin: usize,
    abort: AtomicBool,
    /// Set by the watchdog when the time limit passes (see `WarpCtx::stop`).
    stop: std::sync::atomic::AtomicU32,
    next_cta: AtomicU64,
    /// The launch's error and the scheduling unit that raised it (`u64::MAX`: none in
    /// particular): where several workers' CTAs fail, the lowest unit's error is
    /// reported, whichever failed first (units are claimed in order and the first one
    /// claimed always runs, so a grid whose CTAs all fail alike reports the same error
    /// on any number of workers).
    error: Mutex<Option<(u64, Error)>>,
    /// The launch's `printf` output (see `crate::exec::printf`).
    output: Arc<Mutex<Vec<u8>>>,
    /// The launch's sanitizers, if any (see `crate::exec::sanitize`).
    san: Option<Arc<crate::exec::sanitize::Sanitizer>>,
    /// The CTA order of a random schedule (`None`: in order).
    cta_order: Option<Vec<u64>>,
    /// CTAs a worker runs together, their warps chained in one call of the JIT's code
    /// (`batch_size`; 1: one scheduling unit at a time).
    batch: u64,
}

/// Per-worker memory: the shared windows and local frames of one cluster's CTAs (or of
/// one batch's CTAs, see `batch_size`).
struct WorkerMem {
    /// The shared window of each CTA of a cluster (or batch), by rank.
    cluster_shared: Vec<u64>,
    local_base: u64,
    /// The worker's index (`%smid`).
    index: u32,
}

/// The kernel's parameter buffer with `args` at the parameters' offsets.
fn pack_params(func: &Function, args: &[KernelArg]) -> Result<Vec<u8>, String> {
    if args.len() != func.params.len() {
        return Err(format!(
            "the kernel takes {} parameters but {} arguments were given",
            func.params.len(),
            args.len()
        ));
    }
    let mut params = vec![0u8; func.param_size.max(1) as usize];
    for (i, (a, p)) in args.iter().zip(&func.params).enumerate() {
        let bytes = a.to_bytes();
        if bytes.len() != p.size as usize {
            return Err(format!(
                "argument {i} ({a:?}) is {} bytes but parameter '{}' is {} bytes",
                bytes.len(),
                p.name,
                p.size
            ));
        }
        let o = p.offset as usize;
        match params.get_mut(o..o + bytes.len()) {
            Some(dst) => dst.copy_from_slice(&bytes),
            None => {
                return Err(format!(
                    "parameter '{}' lies outside the parameter buffer",
                    p.name
                ))
            }
        }
    }
    Ok(params)
}

/// The kernel's code for the backend `cfg` asks for, and its stack frame bytes (huge
/// for kernels of thousands of instructions: one too large for a worker thread's stack
/// runs on a coroutine stack of its size). Compiles the kernel at its first launch and
/// tells the JIT a launch starts (a tier-up may be due, see `jit::JitTier`).
fn select_code(
    module: &Module,
    (func_id, kernel): (FuncId, &str),
    cfg: &LaunchConfig,
    threads: u64,
    sanitized: bool,
) -> Result<(Exec, u64)> {
    let bad = |msg: String| Error::Launch {
        kernel: kernel.to_string(),
        msg,
    };
    let j = match cfg.backend {
        Backend::Interp => return Ok((Exec::Interp, 0)),
        Backend::Jit if sanitized => super::sanitize::instrumented_jit(module).map_err(bad)?,
        Backend::Jit => module.inner.jit.as_ref().ok_or_else(|| {
            bad("the module was loaded without JIT code; use Backend::Interp".into())
        })?,
    };
    let (m, layout) = (module.ir(), &module.inner.layout);
    j.ensure_for(func_id, cfg.block, m, layout)
        .map_err(|msg| Error::Compile {
            kernel: kernel.to_string(),
            msg,
        })?;
    j.launch_start_for(func_id, cfg.block, threads, m, layout);
    match j.code_for(func_id, cfg.block) {
        Some((f, frame)) => Ok((Exec::Jit(f), frame)),
        None => Err(bad("the module has no code for this kernel".into())),
    }
}

/// Launch memory: the parameter buffer, then per worker one shared window and local
/// area for each CTA it runs at once (a scheduling unit's, or `batch` CTAs). Every
/// allocation is pushed onto `owned` (freed by the caller).
fn alloc_memory(
    mem: &DeviceMemory,
    params: &[u8],
    (shape, batch): (&Shape, u64),
    local_size: u64,
    workers: usize,
    owned: &mut Vec<u64>,
) -> Result<(u64, Vec<WorkerMem>)> {
    let param_base = mem.alloc(params.len() as u64, 16, RegionKind::Param)?;
    owned.push(param_base);
    mem.write(param_base, params)?;
    let mut wmem = Vec::with_capacity(workers);
    let ctas = shape.unit_ctas().max(batch);
    for index in 0..workers as u32 {
        let mut cluster_shared = Vec::with_capacity(ctas as usize);
        for _ in 0..ctas {
            let shared_base = mem.alloc(shape.shared_size, 256, RegionKind::Shared)?;
            owned.push(shared_base);
            cluster_shared.push(shared_base);
        }
        let local_base = if local_size > 0 {
            let b = mem.alloc(local_size * shape.nthreads * ctas, 256, RegionKind::Local)?;
            owned.push(b);
            b
        } else {
            0
        };
        wmem.push(WorkerMem {
            cluster_shared,
            local_base,
            index,
        });
    }
    Ok((param_base, wmem))
}

impl Device {
    /// Launches kernel `kernel` of `module` and waits for it to finish: checks the
    /// launch shape and the arguments, picks the code, allocates the launch memory,
    /// plans the launch and runs it on the worker pool.
    pub fn launch(
        &self,
        module: &Module,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[KernelArg],
    ) -> Result<()> {
        let (func_id, func) = module.kernel(kernel)?;
        let params = pack_params(func, args).map_err(|msg| Error::Launch {
            kernel: kernel.to_string(),
            msg,
        })?;
        self.launch_tree(module, func_id, cfg, &params, 0)
    }

    /// Runs one grid of kernel `func_id` with the parameter bytes `params` (`cdp`: its
    /// device-runtime state, see `super::cdp`).
    pub(crate) fn launch_grid(
        &self,
        module: &Module,
        func_id: FuncId,
        cfg: &LaunchConfig,
        params: &[u8],
        cdp: Option<Arc<crate::exec::cdp::CdpGrid>>,
    ) -> Result<()> {
        let func = &module.ir().functions[func_id];
        let kernel = func.name.as_str();
        let bad = |msg: String| Error::Launch {
            kernel: kernel.to_string(),
            msg,
        };
        let shape = check_shape(module.ir(), func, cfg).map_err(bad)?;
        let units = shape.ncta / shape.unit_ctas();
        let san_opts = cfg
            .sanitize
            .or(self.inner.opts.sanitize)
            .filter(|o| o.any());
        // memcheck alone needs no instrumented code: every bad access leaves the JIT's
        // fast paths for the checked helper, which reports it.
        let instrument = san_opts.is_some_and(|o| o.initcheck || o.racecheck || o.synccheck);
        let (exec, frame) = select_code(
            module,
            (func_id, kernel),
            cfg,
            shape.ncta * shape.nthreads,
            instrument,
        )?;
        let clock_origin_ns = sreg::now_ns();
        let gridid = self.inner.launches.fetch_add(1, Ordering::Relaxed) + 1;
        let one_worker = san_opts.is_some() || cfg.schedule != super::device::Schedule::InOrder;
        let workers = match one_worker {
            true => 1,
            false => (self.inner.opts.threads as u64).min(units).max(1) as usize,
        };
        let has_calls = callgraph::has_calls(&module.inner.ir, func_id);
        let uses_barriers = has_calls
            || callgraph::reaches_barrier(&module.inner.ir, func_id)
            || callgraph::polls(&module.inner.ir, func_id)
            || frame > INLINE_FRAME_BYTES;
        let batch = batch_size(
            uses_barriers || san_opts.is_some() || cfg.schedule != super::device::Schedule::InOrder,
            &shape,
            self.inner.opts.threads as u32,
        );
        let frame_size = func.call_frame() as u64;
        let alloca_bytes = match module.inner.uses_stack {
            true => crate::exec::stack::ALLOCA_BYTES,
            false => 0,
        };
        let local_size = if has_calls {
            frame_size + callgraph::call_stack_bytes(&module.inner.ir, func_id)
        } else {
            frame_size
        } + alloca_bytes;
        let heap = if module.inner.uses_heap {
            Some(self.device_heap()?)
        } else {
            None
        };
        let mem = &self.inner.mem;
        let _san_guard = san_opts.map(|_| {
            self.inner
                .san_lock
                .lock()
                .unwrap_or_else(|e| e.into_inner())
        });
        let san = san_opts.map(|o| {
            let heap = self.heap_slot_heap();
            let used = module.ir().used_bytes.clone();
            super::sanitize::launch_sanitizer(mem, o, shape.shared_size, local_size, heap, used)
        });
        // memcheck checks the requested sizes, not the GPU's 256-byte granules.
        let exact_bounds = self.inner.opts.exact_bounds || san_opts.is_some_and(|o| o.memcheck);
        let mut owned = Vec::new();
        let result = (|| {
            let (param_base, wmem) = alloc_memory(
                mem,
                params,
                (&shape, batch),
                local_size,
                workers,
                &mut owned,
            )?;
            let shared = LaunchShared {
                module,
                func_id,
                func,
                exec,
                cfg,
                regions: Arc::new(super::sanitize::region_table(
                    mem.region_table(exact_bounds),
                    san.as_deref(),
                )),
                heap,
                cdp,
                textures: self.inner.textures.clone(),
                param_base,
                shared_size: shape.shared_size,
                sreg: self.launch_sreg(
                    func,
                    cfg,
                    shape.shared_size,
                    (clock_origin_ns, gridid),
                    params.len(),
                ),
                cluster: shape.cluster,
                cooperative: shape.cooperative,
                local_size,
                frame_size,
                alloca_bytes,
                uses_barriers,
                cont_regs: match (exec, module.inner.jit.as_ref()) {
                    (Exec::Jit(_), Some(j)) if !instrument && j.continuations(func_id) => {
                        crate::jit::cont_regfile_bytes(func)
                    }
                    _ => 0,
                },
                cont_direct: frame <= INLINE_FRAME_BYTES,
                stack_bytes: if has_calls {
                    crate::exec::call::CALL_STACK_HOST_BYTES
                } else {
                    WARP_STACK_BYTES
                }
                .max(frame as usize + WARP_STACK_BYTES),
                frame_margin: match (exec, module.inner.jit.as_ref()) {
                    (Exec::Jit(_), _) if instrument => super::sanitize::instrumented_jit(module)
                        .map_or(0, |j| j.max_frame_bytes() as usize),
                    (Exec::Jit(_), Some(j)) => j.max_frame_bytes() as usize,
                    _ => 0,
                },
                abort: AtomicBool::new(false),
                stop: std::sync::atomic::AtomicU32::new(0),
                next_cta: AtomicU64::new(0),
                error: Mutex::new(None),
                output: Arc::new(Mutex::new(Vec::new())),
                san: san.clone(),
                cta_order: super::schedule::cta_order(cfg.schedule, units),
                batch,
            };
            self.run_launch(&shared, &wmem, units)
        })();
        for a in owned {
            let _ = mem.free(a);
        }
        super::sanitize::finish_launch(self, module, kernel, san.as_deref(), result)
    }

    /// The special registers every CTA of a launch shares (`shared_size`: the CTA's
    /// shared memory bytes; `clock_origin_ns`, `gridid`: the launch's clock origin and id).
    fn launch_sreg(
        &self,
        func: &crate::ir::Function,
        cfg: &LaunchConfig,
        shared_size: u64,
        (clock_origin_ns, gridid): (u64, u64),
        param_size: usize,
    ) -> SregCtx {
        let total = (shared_size as u32).next_multiple_of(sreg::SMEM_ALLOC_UNIT);
        SregCtx {
            clock_origin_ns,
            gridid,
            param_size: param_size as u64,
            nsmid: self.inner.opts.threads as u32,
            dynamic_smem_size: cfg.shared_bytes,
            total_smem_size: total,
            aggr_smem_size: total,
            is_explicit_cluster: (func.perf.reqnctapercluster.is_some()
                || func.perf.explicitcluster
                || cfg.cluster.is_some()) as u32,
            ..SregCtx::default()
        }
    }

    /// Runs the CTAs of a planned launch on `wmem.len()` workers under the watchdog,
    /// reports the run to the JIT's tiering, prints the launch's output and returns the
    /// first error a warp recorded.
    fn run_launch(&self, shared: &LaunchShared, wmem: &[WorkerMem], ncta: u64) -> Result<()> {
        let (cfg, module) = (shared.cfg, shared.module);
        // The watchdog sets the stop flag if the limit passes before `armed` drops.
        let armed = super::watchdog::arm(&shared.stop, cfg.timeout);
        let started = std::time::Instant::now();
        let run = if wmem.len() == 1 {
            worker(shared, &wmem[0], ncta);
            Ok(())
        } else {
            self.inner
                .pool
                .run(wmem.len(), &|i| worker(shared, &wmem[i], ncta))
        };
        drop(armed);
        if let (Exec::Jit(_), Some(j)) = (shared.exec, module.inner.jit.as_ref()) {
            let took = started.elapsed();
            let ir = module.ir();
            j.record_run_for(shared.func_id, cfg.block, took, ir, &module.inner.layout);
        }
        if let Err(msg) = run {
            return Err(Error::Host(format!(
                "a launch worker thread panicked: {msg}"
            )));
        }
        let text = std::mem::take(&mut *shared.output.lock().unwrap_or_else(|e| e.into_inner()));
        self.emit_output(&text);
        let err = shared
            .error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match err {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// Warp coroutine stacks kept by each thread between launches (mapping and first
/// touching a fresh stack costs more than a small launch; fuzzing launches thousands per
/// second). At most `KEPT_STACKS` are kept.
const KEPT_STACKS: usize = 32;
thread_local! {
    static STACKS: std::cell::RefCell<Vec<DefaultStack>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A worker's stacks, given back to its thread's cache when the worker ends.
struct KeptStacks(Vec<DefaultStack>);

impl Drop for KeptStacks {
    fn drop(&mut self) {
        let mut mine = std::mem::take(&mut self.0);
        mine.truncate(KEPT_STACKS);
        let _ = STACKS.try_with(|s| *s.borrow_mut() = mine);
    }
}

/// Runs scheduling units (clusters; a CTA without clusters) until `ncta` units have
/// started: a batch of single CTAs at a time where `sh.batch` > 1.
fn worker(sh: &LaunchShared, wm: &WorkerMem, ncta: u64) {
    let mut kept = KeptStacks(STACKS.try_with(|s| s.take()).unwrap_or_default());
    let stacks = &mut kept.0;
    let mut cache = vec![[0u64; 2]; sh.module.inner.ir.inst_info.len()];
    let mut slots: Vec<WarpSlot> = Vec::new();
    let chunk = chunk_units(ncta, sh.sreg.nsmid);
    // CTAs per unit, for the time limit's message.
    let grid_ctas = sh.cfg.grid.iter().map(|&g| g as u64).product::<u64>();
    let unit_ctas = grid_ctas / ncta.max(1);
    let (mut next, mut end) = (0u64, 0u64);
    let mut ctaids = UnitCtas {
        ids: Vec::new(),
        unit: u64::MAX,
    };
    loop {
        if sh.abort.load(Ordering::Relaxed) {
            return;
        }
        if next == end {
            let take = claim_units(
                ncta,
                sh.next_cta.load(Ordering::Relaxed),
                chunk,
                sh.sreg.nsmid,
            );
            next = sh.next_cta.fetch_add(take, Ordering::Relaxed);
            end = (next + take).min(ncta);
        }
        let i = next;
        if i >= ncta {
            return;
        }
        let take = (end - i).min(sh.batch).max(1);
        next += take;
        // Units not yet started: those no worker has claimed and the rest of this
        // worker's claim (other workers' claims may hold more).
        let unstarted = ncta.saturating_sub(sh.next_cta.load(Ordering::Relaxed)) + (end - i);
        let i = sh
            .cta_order
            .as_ref()
            .and_then(|o| o.get(i as usize).copied())
            .unwrap_or(i);
        if sh.stop.load(Ordering::Relaxed) != 0 {
            // Past the time limit with CTAs still to start (kernels without loops).
            let msg = format!(
                "the launch ran past its time limit (LaunchConfig::timeout, --timeout) \
                 with at least {} of {} CTAs not yet started",
                unstarted * unit_ctas,
                grid_ctas
            );
            let kernel = sh.func.name.clone();
            record_error(sh, u64::MAX, Error::Launch { kernel, msg });
            return;
        }
        match sh.batch {
            1 => unit_ctaids(sh, i, &mut ctaids),
            _ => batch_ctaids(sh.cfg.grid, i, take, &mut ctaids.ids),
        }
        if let Err(e) = run_cta(sh, wm, &ctaids.ids, stacks, &mut cache, &mut slots) {
            record_error(sh, i, e);
            return;
        }
    }
}

/// Records the error of scheduling unit `unit` (see `LaunchShared::error`) and stops
/// the other workers before their next unit.
fn record_error(sh: &LaunchShared, unit: u64, e: Error) {
    let mut slot = sh.error.lock().unwrap_or_else(|e| e.into_inner());
    if slot.as_ref().is_none_or(|(u, _)| unit < *u) {
        *slot = Some((unit, e));
    }
    sh.abort.store(true, Ordering::Relaxed);
}

/// The CTAs of the scheduling unit a worker runs, kept between units.
struct UnitCtas {
    /// `%ctaid` of each CTA of the unit, by rank.
    ids: Vec<[u32; 3]>,
    /// The unit they belong to (`u64::MAX`: none yet).
    unit: u64,
}

/// Sets `u.ids` to the CTAs of scheduling unit `unit`: every CTA of a cooperative grid
/// (x fastest), else the CTAs of cluster `unit` by rank. A unit of one CTA that follows
/// the previous one (CTAs taken in order) is the previous `%ctaid` plus one in x,
/// carried into y and z, without divisions or an allocation.
fn unit_ctaids(sh: &LaunchShared, unit: u64, u: &mut UnitCtas) {
    let grid = sh.cfg.grid;
    let single = !sh.cooperative && sh.cluster == [1, 1, 1];
    if single && u.ids.len() == 1 && u.unit.checked_add(1) == Some(unit) {
        next_ctaid(&mut u.ids[0], grid);
    } else if !(sh.cooperative && u.unit != u64::MAX) {
        u.ids = match sh.cooperative {
            true => super::cluster::ctas(grid, grid, 0),
            false => super::cluster::ctas(grid, sh.cluster, unit),
        };
    }
    u.unit = unit;
}

/// One warp of a CTA being run.
pub(super) struct WarpSlot {
    pub(super) ctx: Box<WarpCtx>,
    pub(super) env: Box<WarpEnv>,
    /// The warp's lanes that exist in the block (its `live` mask at the start of a CTA).
    live: u32,
    /// The register file of a kernel whose barriers are continuations (`ctx.cont_regs`).
    _regs: Vec<Regs16>,
}

/// 16 bytes, 16-aligned (register-file vectors).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Regs16([u8; 16]);

fn run_warp(sh: &LaunchShared, ctx: &mut WarpCtx) -> u32 {
    match sh.exec {
        // SAFETY: ctx is a valid, fully initialised warp context whose env lives as long.
        Exec::Jit(f) => unsafe { f(ctx) },
        Exec::Interp => interp::run_warp(
            &sh.module.inner.ir,
            &sh.module.inner.layout,
            sh.func_id,
            ctx,
        ),
    }
}

/// Runs one scheduling unit: the CTAs `ctaids` of one cluster (in rank order; one CTA
/// without clusters; or a batch of single CTAs, see `batch_size`), whose warps (CTA by
/// CTA) run together.
fn run_cta(
    sh: &LaunchShared,
    wm: &WorkerMem,
    ctaids: &[[u32; 3]],
    stacks: &mut Vec<DefaultStack>,
    cache: &mut [[u64; 2]],
    slots: &mut Vec<WarpSlot>,
) -> Result<()> {
    let ntid = sh.cfg.block;
    let nthreads = ntid[0] * ntid[1] * ntid[2];
    let nwarps = nthreads.div_ceil(WARP_SIZE as u32) as usize;
    // Bytes of one CTA's local area.
    let cta_local = sh.local_size * nthreads as u64;
    for (rank, &shared_base) in wm.cluster_shared.iter().take(ctaids.len()).enumerate() {
        if sh.shared_size > 0 {
            // Shared memory starts zeroed in every CTA (deterministic; a GPU leaves it
            // undefined).
            // SAFETY: the window was allocated for this worker with `shared_size` bytes.
            unsafe { std::ptr::write_bytes(shared_base as *mut u8, 0, sh.shared_size as usize) };
        }
        let local_base = wm.local_base + rank as u64 * cta_local;
        if sh.local_size > 0 && sh.frame_size == sh.local_size {
            // SAFETY: the local area holds `local_size` bytes per thread of the CTA.
            unsafe { std::ptr::write_bytes(local_base as *mut u8, 0, cta_local as usize) };
        } else if sh.frame_size > 0 {
            // Only each thread's own frame; callee frames are zeroed when they are entered.
            for t in 0..nthreads as u64 {
                // SAFETY: each thread's `local_size` bytes start with its frame.
                unsafe {
                    std::ptr::write_bytes(
                        (local_base + t * sh.local_size) as *mut u8,
                        0,
                        sh.frame_size as usize,
                    )
                };
            }
        }
    }
    // Warp contexts are built once per worker and launch (thread ids depend only on the
    // warp index and the block shape); each CTA only sets what differs. Slot
    // `rank * nwarps + w` is warp `w` of the cluster's CTA `rank`.
    while slots.len() < nwarps * ctaids.len() {
        let (rank, w) = (slots.len() / nwarps, slots.len() % nwarps);
        let mut ctx = Box::new(WarpCtx::new(ntid, ctaids[rank], sh.cfg.grid, w as u32));
        let mut env = Box::new(WarpEnv::new(sh.regions.clone()));
        env.output = Some(sh.output.clone());
        env.heap = sh.heap.clone();
        env.cdp = sh.cdp.clone();
        env.cooperative = sh.cooperative;
        env.textures = Some(sh.textures.clone());
        env.frame_margin = sh.frame_margin;
        env.alloca_bytes = sh.alloca_bytes;
        env.san = sh.san.clone();
        ctx.env = &mut *env;
        ctx.param_base = sh.param_base;
        ctx.shared_base = wm.cluster_shared[rank];
        // The windows of the CTA's own cluster (a unit may hold several clusters).
        let cluster_ctas = sh.cluster.iter().product::<u32>().max(1) as usize;
        ctx.cluster_shared = wm.cluster_shared[rank - rank % cluster_ctas..].as_ptr();
        ctx.shared_size = sh.shared_size;
        ctx.local_size = sh.local_size;
        ctx.inst_cache = cache.as_mut_ptr();
        ctx.inst_cache_len = cache.len() as u64;
        ctx.check_uniform = sh.cfg.check_uniform as u32;
        ctx.check_shapes = sh.cfg.check_shapes as u32;
        ctx.stop = &sh.stop;
        ctx.sreg = sh.sreg;
        ctx.sreg.smid = wm.index;
        // (Per CTA below only `clusterid` when clusters are single CTAs: the other
        // cluster registers are the same in every CTA, and no code writes `sreg`.)
        ctx.sreg.set_cluster(ctaids[rank], sh.cfg.grid, sh.cluster);
        // (Read only by split calls; the same in every CTA of the launch.)
        env.split.stack_bytes = sh.stack_bytes;
        if sh.local_size > 0 {
            let base = wm.local_base + rank as u64 * cta_local;
            for (lane, b) in ctx.local_base.iter_mut().enumerate() {
                *b = base + (w * WARP_SIZE + lane) as u64 * sh.local_size;
            }
        }
        let live = ctx.live;
        let regs = vec![Regs16([0; 16]); sh.cont_regs.div_ceil(16) as usize];
        ctx.cont_regs = match regs.is_empty() {
            true => 0,
            false => regs.as_ptr() as u64,
        };
        slots.push(WarpSlot {
            ctx,
            env,
            live,
            _regs: regs,
        });
    }
    let warps = &mut slots[..nwarps * ctaids.len()];
    reset_warps(sh, warps, ctaids, nwarps);

    if let Some(s) = &sh.san {
        // The cluster's CTAs by rank, with their shared windows and `.local` areas.
        let ctas: Vec<crate::exec::sanitize::UnitCta> = (ctaids.iter().enumerate())
            .map(|(rank, &ctaid)| crate::exec::sanitize::UnitCta {
                ctaid,
                shared_base: wm.cluster_shared.get(rank).copied().unwrap_or(0),
                local_root: wm.local_base + rank as u64 * cta_local,
            })
            .collect();
        s.unit_start(ntid, nwarps, &ctas);
    }
    if !sh.uses_barriers {
        return run_warps(sh, warps, ctaids, nwarps);
    }
    run_cta_with_barriers(sh, warps, ctaids, stacks)
}

/// Sets what differs in each unit: the warps' `%ctaid`, `%clusterid` (or every
/// cluster register), live lanes, status and call state, and the env fields a warp can
/// have changed.
#[inline]
fn reset_warps(sh: &LaunchShared, warps: &mut [WarpSlot], ctaids: &[[u32; 3]], nwarps: usize) {
    // Without barriers, calls or mbarrier waits (and not instrumented) a warp only ever
    // changes its env's `mbar` and `alloca_used` and still ends OK: faults and errors
    // stop the warp, and a stopped warp ends its worker (with its slots); arrivals,
    // `bar.red`, coroutines and split calls need barriers or calls. So the other
    // fields are still as `WarpEnv::new` or the last full reset left them.
    let clean = !sh.uses_barriers && sh.san.is_none();
    let single = sh.cluster.iter().all(|&c| c <= 1);
    if clean && single && sh.alloca_bytes == 0 {
        return reset_clean_warps(warps, ctaids, nwarps);
    }
    // (Warp `k` belongs to CTA `k / nwarps`; counted, not divided.)
    let (mut rank, mut in_rank) = (0usize, 0usize);
    for slot in warps.iter_mut() {
        if in_rank == nwarps {
            (rank, in_rank) = (rank + 1, 0);
        }
        in_rank += 1;
        let env = &mut *slot.env;
        if clean {
            debug_assert!(
                env_is_reset(env),
                "a barrier-free warp left its env changed"
            );
        } else {
            env.fault = None;
            env.error = None;
            env.error_at = None;
            env.yielder = None;
            env.arrivals.clear();
            env.pending_red = None;
            env.split.reset();
        }
        if sh.uses_barriers {
            // (Read only by the CTA loop of kernels with barriers, `launch::barriers`;
            // slots live for one launch.)
            env.mbar = Default::default();
        }
        if sh.alloca_bytes > 0 {
            // (Without an alloca stack nothing changes it.)
            env.alloca_used = [0; WARP_SIZE];
        }
        let ctx = &mut *slot.ctx;
        let ctaid = ctaids[rank];
        ctx.ctaid = ctaid;
        match single {
            true => ctx.sreg.clusterid = ctaid,
            false => ctx.sreg.set_cluster(ctaid, sh.cfg.grid, sh.cluster),
        }
        ctx.live = slot.live;
        if !clean {
            // (A barrier-free warp that ends leaves them as they were: it did not stop,
            // it has no calls and no continuations.)
            ctx.status = STATUS_OK;
            ctx.call_depth = 0;
            ctx.resume = 0;
        } else {
            debug_assert!(
                ctx.status == STATUS_OK && ctx.call_depth == 0 && ctx.resume == 0,
                "a barrier-free warp left its status or call state changed"
            );
        }
    }
}

/// [`reset_warps`] for a barrier-free kernel without an alloca stack, not instrumented,
/// whose clusters are single CTAs: only `%ctaid`, `%clusterid` and `live` differ (in
/// each context's first line); a function of its own, so that its loop keeps what it
/// reads in registers.
#[inline(never)]
fn reset_clean_warps(warps: &mut [WarpSlot], ctaids: &[[u32; 3]], nwarps: usize) {
    // (A worker's slots all hold its index as `%smid`.)
    let Some(smid) = warps.first().map(|s| s.ctx.sreg.smid) else {
        return;
    };
    for (cta, &ctaid) in warps.chunks_mut(nwarps.max(1)).zip(ctaids) {
        for slot in cta {
            let ctx = &mut *slot.ctx;
            debug_assert!(ctx.sreg.smid == smid, "slots of one worker differ in %smid");
            debug_assert!(
                ctx.status == STATUS_OK && ctx.call_depth == 0 && ctx.resume == 0,
                "a barrier-free warp left its status or call state changed"
            );
            ctx.restart_clean(slot.live, ctaid, smid);
            debug_assert!(
                env_is_reset(&slot.env),
                "a barrier-free warp left its env changed"
            );
        }
    }
}

/// Whether the fields of `env` that [`reset_warps`] resets for kernels with barriers hold
/// their reset values (checked in debug builds where it skips them).
fn env_is_reset(env: &WarpEnv) -> bool {
    env.fault.is_none()
        && env.error.is_none()
        && env.error_at.is_none()
        && env.yielder.is_none()
        && env.arrivals.is_empty()
        && env.pending_red.is_none()
        && env.split.owned == u32::MAX
}

/// Runs the warps of a unit of a kernel without barriers (`nwarps` per CTA) to their
/// end, in the schedule's order; the first warp that stops is the launch's error.
fn run_warps(
    sh: &LaunchShared,
    warps: &mut [WarpSlot],
    ctaids: &[[u32; 3]],
    nwarps: usize,
) -> Result<()> {
    let run = |w: usize, warps: &mut [WarpSlot]| match run_warp(sh, &mut warps[w].ctx) {
        STATUS_OK => Ok(()),
        _ => Err(warp_error(sh, &warps[w], w % nwarps, ctaids[w / nwarps])),
    };
    if let (Exec::Jit(f), super::device::Schedule::InOrder) = (sh.exec, sh.cfg.schedule) {
        // One call runs the unit's warps in order, chained through `WarpCtx::next`;
        // it returns at the first warp that stops.
        let next = link_warps(warps);
        // SAFETY: every context is valid and initialised, their envs live as long,
        // and the chain links the unit's warps (boxed: their addresses are fixed).
        let st = unsafe { f(next) };
        if st != STATUS_OK {
            return match warps.iter().position(|s| s.ctx.status != STATUS_OK) {
                Some(w) => Err(warp_error(sh, &warps[w], w % nwarps, ctaids[w / nwarps])),
                None => Err(Error::Host(format!(
                    "the kernel's code returned status {st} but no chained warp records it"
                ))),
            };
        }
    } else if sh.cfg.schedule == super::device::Schedule::InOrder {
        // (The in-order schedule is warp 0, 1, ...: no order to draw.)
        for w in 0..warps.len() {
            run(w, warps)?;
        }
    } else {
        for w in super::schedule::warp_order(sh.cfg.schedule, ctaids[0], warps.len()) {
            run(w, warps)?;
        }
    }
    Ok(())
}

/// Chains the contexts of `warps` in order through `WarpCtx::next` (the last one's
/// null) and returns the first (null: none). Stored only where a link differs: the slots
/// keep their links from the last unit, which usually had as many warps. (A function of
/// its own, so that its loop keeps what it reads in registers.)
#[inline(never)]
fn link_warps(warps: &mut [WarpSlot]) -> *mut WarpCtx {
    let mut next: *mut WarpCtx = std::ptr::null_mut();
    for slot in warps.iter_mut().rev() {
        if slot.ctx.next != next {
            slot.ctx.next = next;
        }
        next = &mut *slot.ctx;
    }
    next
}

/// `%tid` of lane `lane` of a warp.
fn tid_of(slot: &WarpSlot, lane: usize) -> [u32; 3] {
    let l = lane.min(WARP_SIZE - 1);
    [slot.ctx.tid[0][l], slot.ctx.tid[1][l], slot.ctx.tid[2][l]]
}
