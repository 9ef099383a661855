//! Dynamic parallelism (CDP2): the device runtime's entry points ([`CdpFn`]) as run by
//! both backends, and the per-grid record of the child grids a grid launches, which the
//! runtime (`crate::runtime::cdp`) runs when the grid's CTAs have finished.
//!
//! Schedule. A child grid starts after its parent grid's CTAs have all finished, and the
//! children of one grid run one after the other in launch order (by CTA, then in the
//! order each CTA launched them); each child's own children run right after it, so a
//! grid completes (children included) before the next grid of its stream starts. Tail
//! launches (`cudaStreamTailLaunch`) run after all other children of the grid. This is
//! one schedule CDP2 allows: a parent can never wait for a child (CDP2 has no device-side
//! `cudaDeviceSynchronize`), fire-and-forget and named-stream children may run in any
//! order relative to each other, and launches into one stream run in launch order.
//!
//! Limits, as the CUDA runtime documents them (error codes from `driver_types.h`):
//! a launch from a grid at nesting depth [`MAX_DEPTH`] (the host's grid is depth 0)
//! fails with `cudaErrorLaunchMaxDepthExceeded`; a launch while the device already has
//! `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT` launches not yet completed fails with
//! `cudaErrorLaunchPendingCountExceeded` (here every launch of a grid is pending until
//! it has run, so the limit counts all of them). A failing call returns its error and
//! sets the calling thread's last error (`cudaGetLastError` returns and clears it,
//! `cudaPeekAtLastError` only returns it); a failed `cudaGetParameterBuffer` returns NULL.
//!
//! Parameter buffers are blocks of a device-wide pool (`PARAM_SLOT_BYTES` per pending
//! launch) so the kernel can write them through the checked access path; a launch
//! copies the buffer's bytes (the child's parameters) and gives the block back.

use crate::exec::ctx::{self, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::exec::heap::DeviceHeap;
use crate::ir::{CdpFn, FuncId, IdxVec, InstId, Space};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The deepest grid that may launch: grids nest at most 24 levels (CUDA programming
/// guide, "Nesting and Synchronization Depth").
pub const MAX_DEPTH: u32 = 24;
/// `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT` unless set (as on a GPU).
pub const DEFAULT_PENDING_LAUNCHES: u64 = 2048;
/// Pool bytes per pending launch (the classic 4 KiB kernel parameter limit).
pub const PARAM_SLOT_BYTES: u64 = 4096;

/// `cudaError_t` values (CUDA 12.9 `driver_types.h`).
pub mod err {
    pub const SUCCESS: u32 = 0;
    pub const INVALID_VALUE: u32 = 1;
    pub const INVALID_CONFIGURATION: u32 = 9;
    pub const LAUNCH_MAX_DEPTH_EXCEEDED: u32 = 65;
    pub const LAUNCH_PENDING_COUNT_EXCEEDED: u32 = 69;
    pub const INVALID_DEVICE_FUNCTION: u32 = 98;
    pub const INVALID_RESOURCE_HANDLE: u32 = 400;
    pub const LAUNCH_OUT_OF_RESOURCES: u32 = 701;
}

/// The named streams of `driver_types.h` / `cuda_device_runtime_api.h`.
const STREAM_PER_THREAD: u64 = 2;
const STREAM_TAIL_LAUNCH: u64 = 3;
const STREAM_FIRE_AND_FORGET: u64 = 4;
/// `cudaStreamNonBlocking`, the one flag device-side streams take.
const STREAM_NON_BLOCKING: u64 = 1;

/// Device-wide state: the parameter-buffer pool and the pending-launch count.
pub struct CdpDevice {
    /// `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT`.
    pub pending_limit: u64,
    pending: AtomicU64,
    pool: DeviceHeap,
    next_handle: AtomicU64,
}

impl CdpDevice {
    /// A device whose parameter buffers come from `[pool_base, pool_base + pool_size)`.
    pub fn new(pool_base: u64, pool_size: u64, pending_limit: u64) -> CdpDevice {
        CdpDevice {
            pending_limit,
            pending: AtomicU64::new(0),
            pool: DeviceHeap::new(pool_base, pool_size),
            next_handle: AtomicU64::new(0x100),
        }
    }

    /// Launches not yet completed.
    pub fn pending(&self) -> u64 {
        self.pending.load(Ordering::Relaxed)
    }

    /// Counts one launch as pending unless the limit is reached.
    fn reserve(&self) -> bool {
        self.pending
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |p| {
                (p < self.pending_limit).then_some(p + 1)
            })
            .is_ok()
    }

    fn handle(&self) -> u64 {
        self.next_handle.fetch_add(0x10, Ordering::Relaxed)
    }
}

/// Every function's [`KernelSig`] (`None`: not a kernel).
pub type KernelSigs = IdxVec<FuncId, Option<KernelSig>>;

/// A kernel's parameter buffer shape (for `cudaGetParameterBufferV2`).
#[derive(Clone, Copy, Debug)]
pub struct KernelSig {
    pub param_size: u32,
    pub param_align: u32,
}

/// A child grid to run: its kernel, shape and parameter bytes. Counted as pending
/// until dropped (after it has run, or when its parent failed).
pub struct ChildLaunch {
    pub func: FuncId,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub params: Vec<u8>,
    /// Launched into `cudaStreamTailLaunch`.
    pub tail: bool,
    /// The launching CTA (children run in CTA order).
    cta: u64,
    dev: Arc<CdpDevice>,
}

impl Drop for ChildLaunch {
    fn drop(&mut self) {
        self.dev.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A parameter buffer handed out and not yet launched.
struct Buf {
    /// The pool block it lies in.
    block: u64,
    len: u64,
    /// `cudaGetParameterBufferV2`'s kernel and shape.
    v2: Option<(FuncId, [u32; 3], [u32; 3], u32)>,
}

#[derive(Default)]
struct GridState {
    children: Vec<ChildLaunch>,
    bufs: HashMap<u64, Buf>,
    streams: HashSet<u64>,
    events: HashSet<u64>,
    /// Per thread (see [`thread_key`]): the last error, when not `cudaSuccess`.
    last_error: HashMap<u64, u32>,
}

/// One grid's device-runtime state, shared by its warps.
pub struct CdpGrid {
    pub dev: Arc<CdpDevice>,
    /// Nesting depth: 0 for a grid the host launched.
    pub depth: u32,
    /// Entry kernels of the module by `FuncId` (`None`: not a kernel).
    kernels: Arc<KernelSigs>,
    /// `CU_LIMIT_MALLOC_HEAP_SIZE` (for `cudaDeviceGetLimit`).
    heap_size: u64,
    /// The conditional handles of the graph the grid was launched from
    /// (`cudaGraphSetConditional`, see `crate::exec::graphcond`).
    pub conditions: Option<Arc<crate::exec::graphcond::GraphConditions>>,
    st: Mutex<GridState>,
}

impl CdpGrid {
    pub fn new(
        dev: Arc<CdpDevice>,
        depth: u32,
        kernels: Arc<KernelSigs>,
        heap_size: u64,
    ) -> CdpGrid {
        CdpGrid {
            dev,
            depth,
            kernels,
            heap_size,
            conditions: None,
            st: Mutex::new(GridState::default()),
        }
    }

    fn st(&self) -> std::sync::MutexGuard<'_, GridState> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The grid's children in the order they run: by launching CTA and launch order,
    /// tail launches last. Parameter buffers never launched go back to the pool.
    pub fn take_children(&self) -> Vec<ChildLaunch> {
        let mut st = self.st();
        for (_, b) in st.bufs.drain() {
            let _ = self.dev.pool.free(b.block);
        }
        let mut c = std::mem::take(&mut st.children);
        c.sort_by_key(|l| (l.tail, l.cta));
        c
    }

    /// The pool block for a buffer of `len` bytes aligned to `align`: `(block, start)`.
    fn alloc_buf(&self, len: u64, align: u64) -> Option<(u64, u64)> {
        let extra = align.saturating_sub(crate::exec::heap::HEAP_ALIGN);
        let block = self.dev.pool.malloc(len.max(1).checked_add(extra)?);
        (block != 0).then(|| (block, block.next_multiple_of(align)))
    }

    fn get_buffer(
        &self,
        key: u64,
        len: u64,
        align: u64,
        v2: Option<(FuncId, [u32; 3], [u32; 3], u32)>,
    ) -> u64 {
        if self.dev.pending() >= self.dev.pending_limit {
            return self.fail_null(key, err::LAUNCH_PENDING_COUNT_EXCEEDED);
        }
        if !align.is_power_of_two() || align > 4096 || len > PARAM_SLOT_BYTES * 8 {
            return self.fail_null(key, err::INVALID_VALUE);
        }
        let Some((block, start)) = self.alloc_buf(len, align) else {
            return self.fail_null(key, err::LAUNCH_OUT_OF_RESOURCES);
        };
        self.st().bufs.insert(start, Buf { block, len, v2 });
        start
    }

    /// Records `e` as thread `key`'s last error and returns it.
    fn fail(&self, key: u64, e: u32) -> u64 {
        self.st().last_error.insert(key, e);
        e as u64
    }

    /// Records `e` as thread `key`'s last error; returns NULL (a failed buffer request).
    fn fail_null(&self, key: u64, e: u32) -> u64 {
        self.fail(key, e);
        0
    }

    /// Checks and queues a launch of the buffer at `buf`; returns the `cudaError_t`.
    fn launch(
        &self,
        key: u64,
        cta: u64,
        buf: u64,
        cfg: Option<(u64, [u32; 3], [u32; 3], u32)>,
        stream: u64,
        m: &mut Lane,
    ) -> Result<u64, Stopped> {
        let Some(b) = self.st().bufs.remove(&buf) else {
            return Ok(self.fail(key, err::INVALID_VALUE));
        };
        // SAFETY: the buffer lies in the pool, device memory the caller's env maps.
        let bytes = unsafe { m.read_bytes(buf, b.len) };
        let _ = self.dev.pool.free(b.block);
        let bytes = bytes?;
        let (func, grid, block, smem) = match (cfg, b.v2) {
            (Some((f, g, bl, s)), _) => match self.kernel_of(f) {
                Some(id) => (id, g, bl, s),
                None => return Ok(self.fail(key, err::INVALID_DEVICE_FUNCTION)),
            },
            (None, Some(v)) => v,
            (None, None) => return Ok(self.fail(key, err::INVALID_VALUE)),
        };
        let tail = stream == STREAM_TAIL_LAUNCH;
        if stream > STREAM_FIRE_AND_FORGET && !self.st().streams.contains(&stream) {
            return Ok(self.fail(key, err::INVALID_RESOURCE_HANDLE));
        }
        if let Some(e) = bad_shape(grid, block) {
            return Ok(self.fail(key, e));
        }
        if self.depth >= MAX_DEPTH {
            return Ok(self.fail(key, err::LAUNCH_MAX_DEPTH_EXCEEDED));
        }
        if !self.dev.reserve() {
            return Ok(self.fail(key, err::LAUNCH_PENDING_COUNT_EXCEEDED));
        }
        let size = self.kernels.get(func).copied().flatten();
        let mut params = bytes;
        params.resize(size.map_or(0, |s| s.param_size as usize), 0);
        self.st().children.push(ChildLaunch {
            func,
            grid,
            block,
            shared_bytes: smem,
            params,
            tail,
            cta,
            dev: self.dev.clone(),
        });
        Ok(err::SUCCESS as u64)
    }

    /// The kernel a function address names.
    fn kernel_of(&self, addr: u64) -> Option<FuncId> {
        let id = addr.checked_sub(crate::exec::call::FUNC_ADDR_BASE)?;
        let id = u32::try_from(id).ok()?;
        self.kernels.get(FuncId(id))?.map(|_| FuncId(id))
    }
}

/// `cudaErrorInvalidConfiguration` for a shape no launch may have.
fn bad_shape(grid: [u32; 3], block: [u32; 3]) -> Option<u32> {
    let threads = block.iter().map(|&b| b as u64).product::<u64>();
    let bad = grid.contains(&0)
        || block.contains(&0)
        || threads > 1024
        || block[2] > 64
        || grid[0] > i32::MAX as u32
        || grid[1] > 65535
        || grid[2] > 65535;
    bad.then_some(err::INVALID_CONFIGURATION)
}

/// The thread a lane runs: its CTA's linear index and its linear thread index.
fn thread_key(ctx: &WarpCtx, lane: usize) -> (u64, u64) {
    let [cx, cy, cz] = ctx.ctaid.map(|v| v as u64);
    let [nx, ny, _] = ctx.nctaid.map(|v| v as u64);
    let cta = cx + nx * (cy + ny * cz);
    let [tx, ty, tz] = [0, 1, 2].map(|d| ctx.tid[d][lane] as u64);
    let [bx, by, _] = ctx.ntid.map(|v| v as u64);
    (cta, cta << 11 | (tx + bx * (ty + by * tz)))
}

/// Checked accesses of one lane's memory.
struct Lane<'a> {
    ctx: &'a mut WarpCtx,
    inst: InstId,
    lane: usize,
}

impl Lane<'_> {
    /// Reads (`val` `None`) or writes `bytes` (1, 4 or 8) at `a` in `space`.
    unsafe fn access(
        &mut self,
        space: Space,
        a: u64,
        bytes: u32,
        val: Option<u64>,
    ) -> Result<u64, Stopped> {
        let req = AccessReq {
            space,
            elem_bytes: bytes,
            nvec: 1,
            slot_bytes: 8,
            write: val.is_some(),
            mask: 1 << self.lane,
            inst: self.inst,
        };
        let mut addrs = [0u64; WARP_SIZE];
        addrs[self.lane] = a;
        let mut data = [0u64; WARP_SIZE];
        data[self.lane] = val.unwrap_or(0);
        // SAFETY: `data` holds 32 slots of 8 bytes; env per the caller's contract.
        unsafe { ctx::access(self.ctx, &req, &addrs, data.as_mut_ptr() as *mut u8)? };
        Ok(data[self.lane])
    }

    /// The `dim3` at `.local` address `a` (a call-site `.param` variable).
    unsafe fn dim3(&mut self, a: u64) -> Result<[u32; 3], Stopped> {
        let mut d = [0u32; 3];
        for (k, v) in d.iter_mut().enumerate() {
            // SAFETY: the caller's contract.
            *v = unsafe { self.access(Space::Local, a + 4 * k as u64, 4, None)? } as u32;
        }
        Ok(d)
    }

    /// `len` bytes at generic address `a`.
    unsafe fn read_bytes(&mut self, a: u64, len: u64) -> Result<Vec<u8>, Stopped> {
        (0..len)
            // SAFETY: the caller's contract.
            .map(|i| unsafe { self.access(Space::Generic, a + i, 1, None) }.map(|b| b as u8))
            .collect()
    }

    /// Stores `v` (`bytes` wide) at generic address `a`.
    unsafe fn store(&mut self, a: u64, bytes: u32, v: u64) -> Result<(), Stopped> {
        // SAFETY: the caller's contract.
        unsafe { self.access(Space::Generic, a, bytes, Some(v)) }.map(|_| ())
    }
}

/// Runs device-runtime function `f` for the lanes in `mask` (ascending), `args[k][lane]`
/// being operand `k` (see [`CdpFn::params`]); returns each lane's result.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    f: CdpFn,
    mask: u32,
    inst: InstId,
    args: &[[u64; WARP_SIZE]],
) -> Result<[u64; WARP_SIZE], Stopped> {
    // SAFETY: the caller's contract.
    let Some(g) = (unsafe { (*ctx.env).cdp.clone() }) else {
        let msg = "a device runtime call in a launch without device-runtime state".to_string();
        // SAFETY: the caller's contract.
        unsafe { ctx::stop_with_error_at(ctx, msg, inst, mask.trailing_zeros()) };
        return Err(Stopped);
    };
    let mut out = [0u64; WARP_SIZE];
    for lane in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        let a = |k: usize| args.get(k).map_or(0, |v| v[lane]);
        let (cta, key) = thread_key(ctx, lane);
        let mut m = Lane { ctx, inst, lane };
        // SAFETY: the caller's contract (every access below).
        out[lane] = unsafe { call(&g, f, &a, cta, key, &mut m)? };
        // A parameter buffer may reuse a launched one's memory: a new object to racecheck.
        let buf = matches!(f, CdpFn::GetParameterBuffer | CdpFn::GetParameterBufferV2);
        // SAFETY: the caller's contract.
        if let (true, Some(s)) = (buf && out[lane] != 0, unsafe { &(*ctx.env).san }) {
            let len = g.st().bufs.get(&out[lane]).map_or(0, |b| b.len);
            s.new_object(out[lane], len);
        }
    }
    Ok(out)
}

/// One lane's call of `f`.
unsafe fn call(
    g: &CdpGrid,
    f: CdpFn,
    a: &dyn Fn(usize) -> u64,
    cta: u64,
    key: u64,
    m: &mut Lane,
) -> Result<u64, Stopped> {
    use err::*;
    let ok = SUCCESS as u64;
    Ok(match f {
        CdpFn::GetParameterBuffer => g.get_buffer(key, a(1), a(0).max(1), None),
        CdpFn::GetParameterBufferV2 => {
            // SAFETY: the caller's contract.
            let (grid, block) = unsafe { (m.dim3(a(1))?, m.dim3(a(2))?) };
            match g.kernel_of(a(0)) {
                None => g.fail_null(key, INVALID_DEVICE_FUNCTION),
                Some(id) => {
                    let sig = g.kernels.get(id).copied().flatten();
                    let (len, align) = sig.map_or((0, 16), |s| {
                        (s.param_size as u64, (s.param_align as u64).max(16))
                    });
                    g.get_buffer(key, len, align, Some((id, grid, block, a(3) as u32)))
                }
            }
        }
        CdpFn::LaunchDevice => {
            // SAFETY: the caller's contract.
            let (grid, block) = unsafe { (m.dim3(a(2))?, m.dim3(a(3))?) };
            let cfg = Some((a(0), grid, block, a(4) as u32));
            g.launch(key, cta, a(1), cfg, a(5), m)?
        }
        CdpFn::LaunchDeviceV2 => g.launch(key, cta, a(0), None, a(1), m)?,
        CdpFn::StreamCreateWithFlags | CdpFn::EventCreateWithFlags => {
            let stream = f == CdpFn::StreamCreateWithFlags;
            if stream && a(1) != STREAM_NON_BLOCKING {
                return Ok(g.fail(key, INVALID_VALUE));
            }
            let h = g.dev.handle();
            // SAFETY: the caller's contract.
            unsafe { m.store(a(0), 8, h)? };
            let mut st = g.st();
            match stream {
                true => st.streams.insert(h),
                false => st.events.insert(h),
            };
            ok
        }
        CdpFn::StreamDestroy | CdpFn::EventDestroy => {
            let mut st = g.st();
            let set = match f == CdpFn::StreamDestroy {
                true => &mut st.streams,
                false => &mut st.events,
            };
            if set.remove(&a(0)) {
                ok
            } else {
                drop(st);
                g.fail(key, INVALID_RESOURCE_HANDLE)
            }
        }
        CdpFn::EventRecord | CdpFn::EventRecordWithFlags | CdpFn::StreamWaitEvent => {
            let (ev, stream) = match f {
                CdpFn::StreamWaitEvent => (a(1), a(0)),
                _ => (a(0), a(1)),
            };
            let st = g.st();
            let valid = st.events.contains(&ev)
                && (stream <= STREAM_PER_THREAD || st.streams.contains(&stream));
            drop(st);
            // Events only order work that this schedule already runs in launch order.
            match valid {
                true => ok,
                false => g.fail(key, INVALID_RESOURCE_HANDLE),
            }
        }
        CdpFn::GraphSetConditional => {
            let (h, v) = (a(0), a(1) as u32);
            if !g.conditions.as_ref().is_some_and(|c| c.set(h, v)) {
                let msg = format!(
                    "cudaGraphSetConditional: {h:#x} is not a conditional handle of the graph this kernel was launched from"
                );
                // SAFETY: the caller's contract.
                unsafe { ctx::stop_with_error_at(m.ctx, msg, m.inst, m.lane as u32) };
                return Err(Stopped);
            }
            0
        }
        CdpFn::GetDevice | CdpFn::GetDeviceCount => {
            let v = (f == CdpFn::GetDeviceCount) as u64;
            // SAFETY: the caller's contract.
            unsafe { m.store(a(0), 4, v)? };
            ok
        }
        CdpFn::GetLastError => g.st().last_error.remove(&key).unwrap_or(SUCCESS) as u64,
        CdpFn::PeekAtLastError => g.st().last_error.get(&key).copied().unwrap_or(SUCCESS) as u64,
        CdpFn::DeviceGetLimit => {
            // cudaLimit: the values cuCtxGetLimit reports (crates/libcuda).
            let v = match a(1) {
                0 => 1024,
                1 => 1 << 20,
                2 => g.heap_size,
                3 => 2,
                4 => g.dev.pending_limit,
                5 => 32,
                6 => 0,
                _ => return Ok(g.fail(key, INVALID_VALUE)),
            };
            // SAFETY: the caller's contract.
            unsafe { m.store(a(0), 8, v)? };
            ok
        }
        CdpFn::CgsGetIntrinsicHandle | CdpFn::CgsSync => {
            // `crate::exec::printf::exec` hands these to `crate::exec::gridsync`.
            let msg = format!("internal error: {f:?} reached the device-runtime dispatcher");
            // SAFETY: the caller's contract.
            unsafe { ctx::stop_with_error_at(m.ctx, msg, m.inst, m.lane as u32) };
            return Err(Stopped);
        }
    })
}
