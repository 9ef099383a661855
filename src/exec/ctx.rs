//! The warp context: the one structure generated code and the interpreter share with the
//! runtime, and the runtime services both backends call (checked memory access, barriers).
//!
//! [`WarpCtx`] is `#[repr(C)]`; the JIT reads its fields at `std::mem::offset_of!` offsets.
//! Both backends access memory only through [`access`] (the JIT inlines a fast path for
//! coalesced accesses inside the cached region and calls [`access`] otherwise), so faults
//! are detected and reported identically: the lowest active lane whose access is bad
//! decides the fault, and nothing is written by an instruction that faults.

use crate::exec::barrier::{Arrival, WarpYield};
use crate::exec::region::RegionTable;
use crate::exec::sanitize::{AccessShape, FindingKind, Sanitizer, WarpView};
use crate::exec::sreg::SregCtx;
use crate::ir::{InstId, Space};
use std::sync::Arc;

mod run;

/// Number of lanes in a warp.
pub const WARP_SIZE: usize = 32;

/// Value of [`WarpCtx::status`] while the warp may run on.
pub const STATUS_OK: u32 = 0;
/// The warp stopped on a fault recorded in its [`WarpEnv`].
pub const STATUS_FAULT: u32 = 1;

/// Per-warp state visible to generated code. The fields the CTA loop sets for every
/// CTA (`live` .. `sreg.clusterid`, `runtime::launch::reset_warps`) come first and lie
/// in one 64-byte line.
#[repr(C, align(64))]
pub struct WarpCtx {
    /// Lanes that have not exited (bit i = lane i). Generated code clears bits on `exit`.
    pub live: u32,
    /// [`STATUS_OK`] or [`STATUS_FAULT`]; generated code returns as soon as it is not OK.
    pub status: u32,
    pub ctaid: [u32; 3],
    /// Number of call frames entered below the kernel (see `exec::call`).
    pub call_depth: u32,
    /// A kernel whose barriers are continuations: the block to continue at plus one (0:
    /// start at the entry; see `cont_regs`).
    pub resume: u32,
    pub _pad0: u32,
    /// The next warp a kernel's code runs when this one returns OK (null: return). The
    /// CTA loop chains the warps of a barrier-free kernel this way so that one call of
    /// the generated code runs them all (`jit::translate`: every kernel but those whose
    /// barriers are continuations); [`WarpCtx::status`] tells which warp stopped.
    pub next: *mut WarpCtx,
    /// Launch- and CTA-dependent special-register values (`clusterid` first).
    pub sreg: SregCtx,
    /// `%tid.{x,y,z}` of each lane.
    pub tid: [[u32; WARP_SIZE]; 3],
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    /// `%warpid`: index of this warp in its CTA.
    pub warpid: u32,
    /// `%nwarpid`: number of warps in the CTA.
    pub nwarpid: u32,
    /// Host address of the launch's kernel-parameter buffer.
    pub param_base: u64,
    /// Host address of this CTA's shared window and its size in bytes.
    pub shared_base: u64,
    pub shared_size: u64,
    /// Host address of each lane's `.local` frame, and the frame size.
    pub local_base: [u64; WARP_SIZE],
    pub local_size: u64,
    /// Per-instruction region cache, indexed by `InstId`: entry `[lo, hi)` is a host
    /// range known to lie inside one region that instruction may access (readable for
    /// loads, writable for stores); `[0, 0)` when unknown. Shared by the warps a worker
    /// thread runs during one launch and updated by [`access`], so a memory instruction
    /// looks its region up once per launch, not once per warp.
    pub inst_cache: *mut [u64; 2],
    /// Number of entries in `inst_cache`.
    pub inst_cache_len: u64,
    /// Always `[0, 0]`: generated code reads it instead of `inst_cache` when an
    /// instruction has no cache entry (an empty range, so the fast path is not taken).
    pub no_cache: [u64; 2],
    /// Runtime-side state of this warp (fault record, barrier hook).
    pub env: *mut WarpEnv,
    /// Nonzero when the launch checks `.uni` assertions ([`not_uniform`]).
    pub check_uniform: u32,
    /// Nonzero when the interpreter checks the shape analysis's claims
    /// (`LaunchConfig::check_shapes`).
    pub check_shapes: u32,
    /// The launch's stop flag, nonzero once the watchdog's time limit has passed:
    /// generated code reads it at every loop header and the interpreter at every block
    /// ([`timed_out`]).
    pub stop: *const std::sync::atomic::AtomicU32,
    /// Host address of the shared window of each CTA of the cluster, indexed by
    /// `%cluster_ctarank` (`sreg.cluster_nctarank` entries), each `shared_size` bytes;
    /// null: only this CTA's (`crate::exec::cluster`).
    pub cluster_shared: *const u64,
    /// A kernel whose barriers are continuations (`jit::control::cont`): host address
    /// of this warp's register file (0: the kernel does not run so); `resume` holds
    /// the block to continue at.
    pub cont_regs: u64,
    /// The arrival of a continuation kernel's warp that returned `RET_BARRIER`, stored
    /// by the generated code (`jit::control::cont`) for the CTA loop
    /// (`runtime::launch::cont`): the barrier id (0..15), the thread count (0: all live
    /// threads), the arriving lanes and their number, the instruction, and for
    /// `bar.red` the arriving lanes whose predicate is true with bit 32 set (0: not a
    /// `bar.red`); see `exec::barrier::cont_arrival`.
    pub bar_id: u32,
    pub bar_count: u32,
    pub bar_mask: u32,
    pub bar_lanes: u32,
    pub bar_inst: u32,
    pub bar_red: u64,
    /// Warps chained in one call (the continuation CTA loop's in-order fast path,
    /// `runtime::launch::cont`): a warp of a continuation kernel whose whole-warp
    /// arrival at barrier `chain_id` (no thread count, not `bar.red`, no lane exited in
    /// the step) leaves it incomplete goes on, in the same call, with the context
    /// `chain_next` (the next warp of its CTA), at most `chain_left` times. These fields
    /// are read in the context the kernel was called with: `chain_need` holds the
    /// threads the barrier still waits for (each chained arrival lowers it; a warp whose
    /// lanes would reach it returns instead), and the code counts the chained warps in
    /// `chain_ran`. `chain_left` 0: no chaining (every other caller).
    pub chain_next: *mut WarpCtx,
    pub chain_left: u32,
    pub chain_id: u32,
    pub chain_need: u32,
    pub chain_ran: u32,
    /// Rounds wrapped in the same call: when the chain is the whole (only) CTA of the
    /// unit from its first warp, `chain_wrap` is its `chain_left` (0: no wrapping) and
    /// `chain_need0` its `chain_need`; the last warp's arrival, completing barrier
    /// `chain_id`, then starts the next round at the first warp (the called context)
    /// with both restored and `chain_ran` 0, instead of returning, and the code counts
    /// the completions in `chain_wraps`.
    pub chain_wrap: u32,
    pub chain_need0: u32,
    pub chain_wraps: u32,
}

/// The stop flag of contexts that belong to no launch: never set.
pub static NEVER_STOP: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Whether the launch's time limit has passed.
#[inline]
pub fn stop_requested(ctx: &WarpCtx) -> bool {
    // SAFETY: `stop` points to NEVER_STOP or to the launch's flag, which outlives its
    // warps.
    unsafe { (*ctx.stop).load(std::sync::atomic::Ordering::Relaxed) != 0 }
}

/// Stops the warp because the launch ran past its time limit, naming instruction
/// `inst` (where the warp was) and its first live lane.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`].
pub unsafe fn timed_out(ctx: &mut WarpCtx, inst: InstId) {
    let lane = ctx.live.trailing_zeros().min(31);
    unsafe {
        stop_with_error_at(
            ctx,
            "the launch ran past its time limit (LaunchConfig::timeout, --timeout) and was \
             stopped here"
                .into(),
            inst,
            lane,
        )
    };
}

// `WarpCtx::restart_clean` writes these neighbours as single stores.
const _: () = {
    use std::mem::offset_of;
    assert!(offset_of!(WarpCtx, status) == offset_of!(WarpCtx, live) + 4);
    assert!(offset_of!(WarpCtx, call_depth) == offset_of!(WarpCtx, ctaid) + 12);
    assert!(offset_of!(SregCtx, smid) == offset_of!(SregCtx, clusterid) + 12);
};

impl WarpCtx {
    /// Starts the warp in CTA `ctaid` (also its `%clusterid`: single-CTA clusters) with
    /// lanes `live`, for a barrier-free launch whose warps end with status OK and no
    /// call frame: `live`/`status`, `ctaid`/`call_depth` and `clusterid`/`smid` are
    /// written as one 8-byte and two 16-byte stores (the CTA loop runs this for every
    /// warp; field by field it was five stores and five reloads of the ids). `smid` must
    /// be the warp's.
    #[inline]
    pub fn restart_clean(&mut self, live: u32, ctaid: [u32; 3], smid: u32) {
        use std::mem::offset_of;
        let [x, y, z] = ctaid;
        let base = (self as *mut WarpCtx).cast::<u8>();
        let ids = offset_of!(WarpCtx, ctaid);
        let cluster = offset_of!(WarpCtx, sreg) + offset_of!(SregCtx, clusterid);
        // SAFETY: each write covers neighbouring plain integer fields of `*self` (the
        // asserts above), unaligned stores; `base` comes from the whole `&mut self`.
        unsafe {
            base.add(offset_of!(WarpCtx, live))
                .cast::<u64>()
                .write_unaligned(u64::from(live) | u64::from(STATUS_OK) << 32);
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::x86_64::{__m128i, _mm_set_epi32, _mm_storeu_si128};
                let (x, y, z, smid) = (x as i32, y as i32, z as i32, smid as i32);
                _mm_storeu_si128(base.add(ids).cast::<__m128i>(), _mm_set_epi32(0, z, y, x));
                let c = _mm_set_epi32(smid, z, y, x);
                _mm_storeu_si128(base.add(cluster).cast::<__m128i>(), c);
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                base.add(ids)
                    .cast::<[u32; 4]>()
                    .write_unaligned([x, y, z, 0]);
                base.add(cluster)
                    .cast::<[u32; 4]>()
                    .write_unaligned([x, y, z, smid]);
            }
        }
    }

    /// A context for warp `warpid` of a CTA of `ntid` threads. Lanes past the CTA's
    /// thread count are not live.
    pub fn new(ntid: [u32; 3], ctaid: [u32; 3], nctaid: [u32; 3], warpid: u32) -> WarpCtx {
        let nthreads = ntid[0] * ntid[1] * ntid[2];
        let nwarps = nthreads.div_ceil(WARP_SIZE as u32);
        let mut tid = [[0u32; WARP_SIZE]; 3];
        let mut live = 0u32;
        let t0 = warpid * WARP_SIZE as u32;
        let (nx, ny) = (ntid[0].max(1), ntid[1].max(1));
        let (mut x, mut y, mut z) = (t0 % nx, (t0 / nx) % ny, t0 / (nx * ny));
        let [tx, ty, tz] = &mut tid;
        for lane in 0..WARP_SIZE {
            if t0 + (lane as u32) < nthreads {
                live |= 1 << lane;
                tx[lane] = x;
                ty[lane] = y;
                tz[lane] = z;
            }
            x += 1;
            if x == nx {
                x = 0;
                y += 1;
                if y == ny {
                    y = 0;
                    z += 1;
                }
            }
        }
        let mut sreg = SregCtx::default();
        sreg.set_cluster(ctaid, nctaid, [1, 1, 1]);
        WarpCtx {
            live,
            status: STATUS_OK,
            tid,
            ntid,
            ctaid,
            nctaid,
            warpid,
            nwarpid: nwarps,
            _pad0: 0,
            param_base: 0,
            shared_base: 0,
            shared_size: 0,
            local_base: [0; WARP_SIZE],
            local_size: 0,
            inst_cache: std::ptr::null_mut(),
            inst_cache_len: 0,
            no_cache: [0, 0],
            env: std::ptr::null_mut(),
            call_depth: 0,
            check_uniform: 0,
            check_shapes: 0,
            sreg,
            stop: &NEVER_STOP,
            cluster_shared: std::ptr::null(),
            cont_regs: 0,
            resume: 0,
            bar_id: 0,
            bar_count: 0,
            bar_mask: 0,
            bar_lanes: 0,
            bar_inst: 0,
            bar_red: 0,
            chain_next: std::ptr::null_mut(),
            chain_left: 0,
            chain_id: 0,
            chain_need: 0,
            chain_ran: 0,
            chain_wrap: 0,
            chain_need0: 0,
            chain_wraps: 0,
            next: std::ptr::null_mut(),
        }
    }
}

/// What went wrong in a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The address is in no allocation, variable or window the kernel may access.
    OutOfBounds,
    /// The address is not a multiple of the access size.
    Misaligned,
    /// A store to read-only memory (`.const`, kernel parameters).
    ReadOnly,
    /// A `.shared`/`.local` state-space offset outside its window.
    OutsideWindow,
    /// `brx.idx` with an index at or past the end of its `.branchtargets` list (not a
    /// memory access: [`FaultRecord::addr`] holds the index, `size` the list's length).
    BadBranchIndex,
}

/// A fault as recorded by the warp that hit it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRecord {
    pub kind: FaultKind,
    pub inst: InstId,
    pub lane: u32,
    /// The address as the instruction computed it (state-space address).
    pub addr: u64,
    pub space: Space,
    pub size: u32,
    pub write: bool,
}

/// Runtime-side state of a warp; generated code only passes its pointer around.
pub struct WarpEnv {
    pub regions: Arc<RegionTable>,
    pub fault: Option<FaultRecord>,
    /// Suspends the warp's coroutine (set by the scheduler before the warp runs).
    pub yielder: Option<*const corosensei::Yielder<(), WarpYield>>,
    /// Barrier arrivals not yet seen by the scheduler.
    pub arrivals: Vec<Arrival>,
    /// The `bar.red` predicate bits of the next arrival ([`bar_arrive`] takes them).
    pub pending_red: Option<u32>,
    /// Per barrier: (threads whose `bar.red` predicate was true, threads that arrived) in
    /// the last generation this warp waited for; set by the scheduler on wake-up.
    pub red_results: [(u32, u32); 16],
    /// Set when an error other than a memory fault stopped the warp (e.g. a bad barrier
    /// operand); reported by the scheduler.
    pub error: Option<String>,
    /// The instruction and lane `error` is about, when known (else the report names the
    /// warp's first thread and no instruction).
    pub error_at: Option<(InstId, u32)>,
    /// Lowest host stack address a call may start below (0: not checked); set by the
    /// scheduler for warps that run in a coroutine.
    pub stack_limit: usize,
    /// Host stack a call needs beyond `stack_limit` for the callee's frame: the largest
    /// stack frame of the module's JIT code (0 for the interpreter).
    pub frame_margin: usize,
    /// Where `printf` output goes (the launch's buffer; `None`: straight to stdout).
    pub output: Option<Arc<std::sync::Mutex<Vec<u8>>>>,
    /// Split calls: the lanes the running coroutine owns and the suspended children.
    pub split: crate::exec::split::SplitState,
    /// The device heap of `malloc`/`free` (set by the runtime when the kernel's module
    /// calls them).
    pub heap: Option<Arc<crate::exec::heap::DeviceHeap>>,
    /// mbarrier bookkeeping for the scheduler (`exec::asyncop`).
    pub mbar: crate::exec::asyncop::MbarEnv,
    /// The launch's sanitizers (`None`: the launch runs without; see
    /// `crate::exec::sanitize`).
    pub san: Option<Arc<crate::exec::sanitize::Sanitizer>>,
    /// The device's texture and surface objects (`tex`, `suld`, ...).
    pub textures: Option<Arc<crate::exec::texture::TextureTable>>,
    /// The grid's device-runtime state (dynamic parallelism; set when the module calls
    /// the device runtime, see `crate::exec::cdp`).
    pub cdp: Option<Arc<crate::exec::cdp::CdpGrid>>,
    /// Bytes at the end of each thread's `.local` area kept for `alloca`
    /// (`crate::exec::stack`; 0 when the module does not use it).
    pub alloca_bytes: u64,
    /// Per lane: bytes of that stack in use.
    pub alloca_used: [u64; WARP_SIZE],
    /// The launch is cooperative: its grid group has a handle (`crate::exec::gridsync`).
    pub cooperative: bool,
}

impl WarpEnv {
    pub fn new(regions: Arc<RegionTable>) -> WarpEnv {
        WarpEnv {
            regions,
            fault: None,
            yielder: None,
            arrivals: Vec::new(),
            pending_red: None,
            red_results: [(0, 0); 16],
            error: None,
            error_at: None,
            stack_limit: 0,
            frame_margin: 0,
            output: None,
            split: Default::default(),
            heap: None,
            mbar: Default::default(),
            san: None,
            textures: None,
            cdp: None,
            alloca_bytes: 0,
            alloca_used: [0; WARP_SIZE],
            cooperative: false,
        }
    }
}

/// The warp must stop: `ctx.status` is not OK and the reason is recorded in its env.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// Describes one memory instruction's per-lane access.
#[derive(Clone, Copy, Debug)]
pub struct AccessReq {
    /// State space of the instruction (addresses are state-space addresses).
    pub space: Space,
    /// Bytes per element in memory: 1, 2, 4 or 8.
    pub elem_bytes: u32,
    /// Elements per lane: 1, 2, 4 or 8 (`.v2`, `.v4`, `.v8`), consecutive in memory.
    pub nvec: u32,
    /// Bytes per slot in the data buffer: 4 or 8.
    pub slot_bytes: u32,
    pub write: bool,
    /// Lanes that access memory.
    pub mask: u32,
    pub inst: InstId,
}

impl AccessReq {
    /// Packs the request's shape into one integer (for passing to a JIT helper):
    /// space | elem_bytes << 8 | nvec << 16 | slot_bytes << 24 | write << 32.
    pub fn pack_shape(&self) -> u64 {
        space_code(self.space) as u64
            | (self.elem_bytes as u64) << 8
            | (self.nvec as u64) << 16
            | (self.slot_bytes as u64) << 24
            | (self.write as u64) << 32
    }
    /// Inverse of [`AccessReq::pack_shape`].
    pub fn unpack_shape(shape: u64, mask: u32, inst: InstId) -> Option<AccessReq> {
        Some(AccessReq {
            space: space_from_code((shape & 0xff) as u8)?,
            elem_bytes: ((shape >> 8) & 0xff) as u32,
            nvec: ((shape >> 16) & 0xff) as u32,
            slot_bytes: ((shape >> 24) & 0xff) as u32,
            write: (shape >> 32) & 1 != 0,
            mask,
            inst,
        })
    }
}

fn space_code(s: Space) -> u8 {
    match s {
        Space::Global => 0,
        Space::Shared => 1,
        Space::Local => 2,
        Space::Const => 3,
        Space::Param => 4,
        Space::Generic => 5,
        Space::SharedCluster => 6,
    }
}

fn space_from_code(c: u8) -> Option<Space> {
    Some(match c {
        0 => Space::Global,
        1 => Space::Shared,
        2 => Space::Local,
        3 => Space::Const,
        4 => Space::Param,
        5 => Space::Generic,
        6 => Space::SharedCluster,
        _ => return None,
    })
}

/// Translates a state-space address of `lane` to a host address, or `None` when a
/// window offset is outside its window.
#[inline]
pub fn translate(ctx: &WarpCtx, space: Space, lane: usize, addr: u64, len: u64) -> Option<u64> {
    match space {
        Space::Shared => {
            if addr.checked_add(len)? > ctx.shared_size {
                return None;
            }
            Some(ctx.shared_base + addr)
        }
        Space::Local => {
            if addr.checked_add(len)? > ctx.local_size {
                return None;
            }
            Some(ctx.local_base[lane] + addr)
        }
        Space::SharedCluster => crate::exec::cluster::translate(ctx, addr, len),
        Space::Global | Space::Const | Space::Param | Space::Generic => Some(addr),
    }
}

/// Performs one instruction's memory access for every lane in `req.mask`.
///
/// `addrs[lane]` is the lane's state-space address. `data` holds `req.nvec * 32` slots of
/// `req.slot_bytes` bytes, slot `e * 32 + lane` for element `e` of `lane`; loads store
/// the loaded bits zero-extended into the slot, stores write the slot's low
/// `req.elem_bytes` bytes. All lanes are checked before any lane is accessed. On a fault
/// the fault is recorded in the warp's env, `ctx.status` becomes [`STATUS_FAULT`] and
/// `Err(Stopped)` is returned.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`] and `data` must be valid for
/// `req.nvec * 32 * req.slot_bytes` bytes.
pub unsafe fn access(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    addrs: &[u64; WARP_SIZE],
    data: *mut u8,
) -> Result<(), Stopped> {
    // A sanitized coalesced access: checked and copied as one range when it is clean.
    // SAFETY: the caller's contract (env valid).
    if unsafe { (*ctx.env).san.is_some() } {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { run::access_or_run(ctx, req, addrs, data) } {
            return r;
        }
    }
    // SAFETY: the caller's contract.
    unsafe { access_lanes(ctx, req, addrs, data) }
}

pub use run::access_affine;

/// [`access`] lane by lane (no run entry).
///
/// # Safety
/// As [`access`].
unsafe fn access_lanes(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    addrs: &[u64; WARP_SIZE],
    data: *mut u8,
) -> Result<(), Stopped> {
    // SAFETY: the caller's contract.
    let host = unsafe { resolve_with(ctx, req, addrs, false)? };
    let mut mask = req.mask;
    let eb = req.elem_bytes as usize;
    let sb = req.slot_bytes as usize;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        if host[lane] == 0 {
            // Report-only sanitizer mode skipped the lane's bad access: a load reads 0.
            if !req.write {
                for e in 0..req.nvec as usize {
                    // SAFETY: data is valid per the caller's contract.
                    unsafe { std::ptr::write_bytes(data.add((e * WARP_SIZE + lane) * sb), 0, sb) };
                }
            }
            continue;
        }
        for e in 0..req.nvec as usize {
            let h = (host[lane] + (e * eb) as u64) as *mut u8;
            // SAFETY: h..h+eb lies in a mapped region (checked by `resolve`); data is
            // valid per the caller's contract.
            unsafe {
                let slot = data.add((e * WARP_SIZE + lane) * sb);
                if req.write {
                    copy_elem(slot, h, eb);
                } else {
                    load_elem(h, slot, eb, sb);
                }
            }
        }
    }
    Ok(())
}

/// Copies one element of `eb` bytes (1, 2, 4 or 8: fixed-size moves, not `memmove`).
///
/// # Safety
/// Both pointers valid for `eb` bytes.
#[inline(always)]
unsafe fn copy_elem(src: *const u8, dst: *mut u8, eb: usize) {
    // SAFETY: the caller's contract; unaligned accesses are allowed.
    unsafe {
        match eb {
            1 => dst.write(src.read()),
            2 => (dst as *mut u16).write_unaligned((src as *const u16).read_unaligned()),
            4 => (dst as *mut u32).write_unaligned((src as *const u32).read_unaligned()),
            8 => (dst as *mut u64).write_unaligned((src as *const u64).read_unaligned()),
            _ => std::ptr::copy_nonoverlapping(src, dst, eb),
        }
    }
}

/// Loads one element of `eb` bytes from `src` into a container slot of `sb` bytes (4 or
/// 8), zero-extended.
///
/// # Safety
/// `src` valid for `eb` bytes, `slot` for `sb` bytes.
#[inline(always)]
unsafe fn load_elem(src: *const u8, slot: *mut u8, eb: usize, sb: usize) {
    // SAFETY: the caller's contract; unaligned accesses are allowed.
    unsafe {
        let v: u64 = match eb {
            1 => src.read() as u64,
            2 => (src as *const u16).read_unaligned() as u64,
            4 => (src as *const u32).read_unaligned() as u64,
            8 => (src as *const u64).read_unaligned(),
            _ => {
                std::ptr::write_bytes(slot, 0, sb);
                std::ptr::copy_nonoverlapping(src, slot, eb.min(sb));
                return;
            }
        };
        if sb == 8 {
            (slot as *mut u64).write_unaligned(v);
        } else {
            (slot as *mut u32).write_unaligned(v as u32);
        }
    }
}

/// Checks the access of every lane in `req.mask` (window, alignment, region, and
/// writability for `req.write`) and returns the lanes' host addresses; on the first bad
/// lane, records the fault and stops the warp.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`].
pub unsafe fn resolve(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    addrs: &[u64; WARP_SIZE],
) -> Result<[u64; WARP_SIZE], Stopped> {
    unsafe { resolve_with(ctx, req, addrs, false) }
}

/// [`resolve`] for a read-modify-write atomic (the sanitizers see both a read and a
/// write; a report-only memcheck finding still stops the warp).
///
/// # Safety
/// As [`resolve`].
pub unsafe fn resolve_atomic(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    addrs: &[u64; WARP_SIZE],
) -> Result<[u64; WARP_SIZE], Stopped> {
    unsafe { resolve_with(ctx, req, addrs, true) }
}

/// [`resolve`]; with a sanitizer, also its checks. A lane whose bad access a
/// report-only memcheck skips gets host address 0 (never for `atomic`).
///
/// # Safety
/// As [`resolve`].
unsafe fn resolve_with(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    addrs: &[u64; WARP_SIZE],
    atomic: bool,
) -> Result<[u64; WARP_SIZE], Stopped> {
    // SAFETY: the caller guarantees env is valid.
    let san = unsafe { (*ctx.env).san.clone() };
    let mut skipped = 0u32;
    let len = (req.elem_bytes * req.nvec) as u64;
    let mut host = [0u64; WARP_SIZE];
    let mut mask = req.mask;
    // A load whose `used_bytes_mask` leaves bytes out: memcheck checks the used ones.
    let used = san
        .as_ref()
        .filter(|_| !req.write)
        .and_then(|s| s.used_span(req.inst, len));
    let (ulo, ulen) = used.unwrap_or((0, len));
    // Check every lane first.
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let addr = addrs[lane];
        let fault = |kind| FaultRecord {
            kind,
            inst: req.inst,
            lane: lane as u32,
            addr,
            space: req.space,
            size: len as u32,
            write: req.write,
        };
        // With a sanitizer, a fault is a memcheck finding; report-only skips the lane.
        macro_rules! bad {
            ($kind:expr, $host:expr) => {{
                let f = fault($kind);
                if san
                    .as_ref()
                    .is_some_and(|s| sanitize_fault(s, ctx, &f, $host))
                    && !atomic
                {
                    skipped |= 1 << lane;
                    continue;
                }
                record_fault(ctx, f);
                return Err(Stopped);
            }};
        }
        let in_window = translate(ctx, req.space, lane, addr, len).or_else(|| {
            let h = translate(ctx, req.space, lane, addr.wrapping_add(ulo), ulen)?;
            used.map(|_| h.wrapping_sub(ulo))
        });
        let Some(h) = in_window else {
            bad!(FaultKind::OutsideWindow, None)
        };
        // (A mask where the size is a power of two, as all but `.v3` sizes are.)
        let off = match len.is_power_of_two() {
            true => h & (len - 1),
            false => h % len,
        };
        if off != 0 {
            bad!(FaultKind::Misaligned, Some(h))
        }
        let end = h.wrapping_add(len);
        let slot = if (req.inst.0 as u64) < ctx.inst_cache_len {
            // SAFETY: inst_cache holds inst_cache_len entries (runtime contract).
            // A raw array of the warp ABI, indexed by instruction number.
            Some(unsafe { &mut *ctx.inst_cache.add(crate::ir::Idx::index(req.inst)) })
        } else {
            None
        };
        let cached = slot
            .as_ref()
            .is_some_and(|c| h >= c[0] && end <= c[1] && end >= h);
        if !cached {
            // SAFETY: the caller guarantees env is valid.
            let env = unsafe { &*ctx.env };
            match env.regions.find(h, len) {
                Some(r) if req.write && !r.writable => bad!(FaultKind::ReadOnly, Some(h)),
                Some(r) if env.regions.cacheable(&r) => {
                    if let Some(c) = slot {
                        *c = [r.lo, r.hi];
                    }
                }
                // The device heap under memcheck: checked against its blocks.
                Some(_) if san.as_ref().is_some_and(|s| s.heap_fault(h + ulo, ulen)) => {
                    bad!(FaultKind::OutOfBounds, Some(h))
                }
                Some(_) => {}
                None if used.is_some() && env.regions.find(h + ulo, ulen).is_some() => {
                    if san.as_ref().is_some_and(|s| s.heap_fault(h + ulo, ulen)) {
                        bad!(FaultKind::OutOfBounds, Some(h))
                    }
                }
                None => bad!(FaultKind::OutOfBounds, Some(h)),
            }
        }
        host[lane] = h;
    }
    if let Some(san) = san {
        let shape = AccessShape {
            space: req.space,
            len,
            write: req.write,
            inst: req.inst,
        };
        let mask = req.mask & !skipped;
        if let Some(lane) = san.accesses(&view(ctx), &shape, addrs, &host, mask, atomic) {
            // SAFETY: the caller's contract.
            unsafe { stop_with_error_at(ctx, SANITIZER_STOP.into(), req.inst, lane) };
            return Err(Stopped);
        }
    }
    Ok(host)
}

/// The message of a warp a sanitizer finding stopped (the launch reports the finding).
pub const SANITIZER_STOP: &str = "stopped by a sanitizer finding";

/// The sanitizers' view of a warp.
pub(crate) fn view(ctx: &WarpCtx) -> WarpView<'_> {
    WarpView {
        ctaid: ctx.ctaid,
        rank: ctx.sreg.cluster_ctarank,
        warpid: ctx.warpid,
        tid: &ctx.tid,
        shared_base: ctx.shared_base,
        shared_size: ctx.shared_size,
        local_base: &ctx.local_base,
        local_size: ctx.local_size,
    }
}

/// memcheck's view of fault `f` (see [`Sanitizer::fault`]).
fn sanitize_fault(san: &Sanitizer, ctx: &WarpCtx, f: &FaultRecord, host: Option<u64>) -> bool {
    let kind = match (f.kind, f.space) {
        (FaultKind::OutsideWindow, Space::Local) => FindingKind::LocalOverflow,
        (FaultKind::OutsideWindow, _) => FindingKind::SharedOverflow,
        (FaultKind::Misaligned, _) => FindingKind::Misaligned,
        (FaultKind::ReadOnly, _) => FindingKind::ReadOnlyStore,
        (FaultKind::OutOfBounds, _) => FindingKind::OutOfBounds,
        (FaultKind::BadBranchIndex, _) => return false,
    };
    let sf = crate::exec::sanitize::Fault {
        kind,
        inst: f.inst,
        lane: f.lane,
        addr: f.addr,
        space: f.space,
        size: f.size,
        write: f.write,
        host,
    };
    san.fault(&view(ctx), &sf)
}

/// A warp-synchronous instruction `inst` run by lanes `active` with `membermask`s
/// `members`, under the warp's sanitizer if any (`sync`: `bar.warp.sync`): synccheck
/// (and racecheck's warp epochs). Both backends call this.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`].
pub unsafe fn sanitize_warp_sync(
    ctx: &mut WarpCtx,
    inst: InstId,
    active: u32,
    members: &[u32; WARP_SIZE],
    sync: bool,
) -> Result<(), Stopped> {
    let Some(san) = (unsafe { (*ctx.env).san.clone() }) else {
        return Ok(());
    };
    if let Some(lane) = san.warp_sync(&view(ctx), inst, active, members, sync) {
        unsafe { stop_with_error_at(ctx, SANITIZER_STOP.into(), inst, lane) };
        return Err(Stopped);
    }
    Ok(())
}

/// A call set up `[off, off+len)` relative to the lanes' (`mask`) current `.local`
/// windows: initcheck counts it as written (see `Sanitizer::local_written`).
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`].
pub unsafe fn sanitize_local_written(ctx: &WarpCtx, mask: u32, off: i64, len: u64) {
    if let Some(san) = unsafe { (*ctx.env).san.as_ref() } {
        san.local_written(&view(ctx), mask, off, len);
    }
}

/// Records a `brx.idx` whose index (of lane `lane`) is not below `len`, the length of
/// its target list, and stops the warp.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`].
pub unsafe fn bad_branch_index(ctx: &mut WarpCtx, inst: InstId, lane: u32, index: u32, len: u32) {
    record_fault(
        ctx,
        FaultRecord {
            kind: FaultKind::BadBranchIndex,
            inst,
            lane,
            addr: index as u64,
            space: Space::Generic,
            size: len,
            write: false,
        },
    );
}

/// Longest `nanosleep` in nanoseconds (PTX: 1 ms).
pub const NANOSLEEP_MAX_NS: u32 = 1_000_000;

/// `nanosleep` for a warp: sleeps once for the smallest of the lanes' delays `ts` (in
/// nanoseconds), capped at [`NANOSLEEP_MAX_NS`]; nothing when `ts` is empty.
pub fn nanosleep(ts: impl Iterator<Item = u32>) {
    if let Some(ns) = ts.min() {
        let ns = ns.min(NANOSLEEP_MAX_NS);
        if ns > 0 {
            std::thread::sleep(std::time::Duration::from_nanos(ns as u64));
        }
    }
}

pub(crate) fn record_fault(ctx: &mut WarpCtx, f: FaultRecord) {
    ctx.status = STATUS_FAULT;
    // SAFETY: see `access`.
    let env = unsafe { &mut *ctx.env };
    if env.fault.is_none() {
        env.fault = Some(f);
    }
}

/// Records a non-memory error (e.g. an invalid barrier) and stops the warp.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`WarpEnv`].
pub unsafe fn stop_with_error(ctx: &mut WarpCtx, msg: String) {
    ctx.status = STATUS_FAULT;
    let env = unsafe { &mut *ctx.env };
    if env.error.is_none() && env.fault.is_none() {
        env.error = Some(msg);
    }
}

/// [`stop_with_error`] about instruction `inst` of lane `lane`.
///
/// # Safety
/// As [`stop_with_error`].
pub unsafe fn stop_with_error_at(ctx: &mut WarpCtx, msg: String, inst: InstId, lane: u32) {
    let first = unsafe { (*ctx.env).error.is_none() && (*ctx.env).fault.is_none() };
    unsafe { stop_with_error(ctx, msg) };
    if first {
        unsafe { (*ctx.env).error_at = Some((inst, lane)) };
    }
}

/// `--check-uniform`: the `.uni` instruction `inst` found its active lanes disagreeing
/// (`lanes`: the lanes that differ from the lowest active lane); stops the warp with an
/// error naming the instruction and the first such lane.
///
/// # Safety
/// As [`stop_with_error`].
pub unsafe fn not_uniform(ctx: &mut WarpCtx, inst: InstId, lanes: u32) {
    let lane = lanes.trailing_zeros().min(WARP_SIZE as u32 - 1);
    let msg = format!(
        "`.uni` instruction is divergent: lanes {lanes:#010x} of warp {} disagree with the warp's first active lane (checked because of --check-uniform)",
        ctx.warpid
    );
    unsafe { stop_with_error_at(ctx, msg, inst, lane) };
}
