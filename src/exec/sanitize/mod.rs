//! The sanitizers' shadow state and checks, called by both backends through the checked
//! access path (`exec::ctx::access`/`resolve`, atomics), the warp-synchronous
//! instructions and the CTA scheduler's barriers:
//!
//! - **memcheck**: every fault of the access path (byte-exact bounds against each
//!   allocation's requested size, misaligned, `.const` stores, `.local`/`.shared`
//!   windows) becomes a finding; an address in a recently freed allocation is a
//!   use-after-free; live allocations at device destruction are leaks (runtime side).
//!   Device-heap (`malloc`) accesses are checked against the heap's blocks
//!   ([`Sanitizer::heap_access`]); bad `free`s are findings; the `malloc` sites of blocks
//!   are kept for leak reports ([`Sanitizer::heap_malloc`]).
//! - **initcheck** ([`shadow`]): a bit per byte of device allocations that started
//!   uninitialised (`cuMemAlloc`), of the CTA's shared window and of each thread's
//!   `.local` frame; loads and atomics of bytes never written are findings.
//! - **racecheck** ([`race`]): per byte of shared memory (and of global memory within a
//!   CTA) the last write and reads with their barrier epochs.
//! - **synccheck**: `membermask`s of `shfl/vote/match/redux/elect.sync` and
//!   `bar.warp.sync` against the executing lanes here; barriers in `runtime::launch`.
//!
//! A launch with any checker runs its CTAs one after the other on one worker, so the
//! state is behind one uncontended mutex. Findings stop the warp unless the options say
//! `report_only`; then a bad load reads zeros, a bad store is dropped, and the launch goes on.
//! This folder sees a warp through [`WarpView`] (it imports nothing of `exec::ctx`, which
//! calls it and stops the warp where a method says so).

/// What the checks need of a warp (built by `exec::ctx` from its `WarpCtx`).
pub struct WarpView<'a> {
    pub ctaid: [u32; 3],
    /// The CTA's rank in its cluster (`%cluster_ctarank`; 0 without clusters).
    pub rank: u32,
    pub warpid: u32,
    /// `%tid.{x,y,z}` of each lane.
    pub tid: &'a [[u32; 32]; 3],
    pub shared_base: u64,
    pub shared_size: u64,
    pub local_base: &'a [u64; 32],
    pub local_size: u64,
}

impl WarpView<'_> {
    fn thread(&self, lane: usize) -> [u32; 3] {
        let l = lane.min(31);
        [self.tid[0][l], self.tid[1][l], self.tid[2][l]]
    }
}

/// One instruction's access, as the checks see it.
#[derive(Clone, Copy, Debug)]
pub struct AccessShape {
    pub space: Space,
    /// Bytes per lane.
    pub len: u64,
    pub write: bool,
    pub inst: InstId,
}

/// A fault of the access path, as memcheck sees it.
#[derive(Clone, Copy, Debug)]
pub struct Fault {
    /// `OutOfBounds` (refined to `UseAfterFree` in a freed allocation), `Misaligned`,
    /// `ReadOnlyStore`, `LocalOverflow` or `SharedOverflow`.
    pub kind: FindingKind,
    pub inst: InstId,
    pub lane: u32,
    pub addr: u64,
    pub space: Space,
    pub size: u32,
    pub write: bool,
    /// The host address, where the state-space address translated.
    pub host: Option<u64>,
}

mod asyncw;
mod cluster;
pub mod ctarace;
pub mod finding;
mod heapcheck;
mod mbar;
mod paged;
pub mod race;
mod range;
pub mod shadow;

pub use crate::config::SanitizeOptions;

/// Lanes `mask` at addresses `addrs`, `len` bytes each, as one run (first lane, lane
/// count, first lane's address) when the active lanes are consecutive and each lane's
/// bytes follow the previous lane's (`len` a power of two). Shared with
/// `exec::ctx::run`, which tests state-space addresses the same way.
pub fn lane_run(mask: u32, addrs: &[u64; 32], len: u64) -> Option<(u32, u32, u64)> {
    range::Run::of(mask, addrs, len).map(|r| (r.l0, r.n, r.h))
}
pub use cluster::UnitCta;
pub use finding::{FindingKind, OtherAccess, RawFinding};
pub use heapcheck::{FreeError, HeapAccess, HeapBlocks, MallocSite};

use crate::ir::{InstId, Space};
use race::{Acc, ByteRec, Hazard, Now};
use shadow::{Bits, InitMap};
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;
use std::sync::{Arc, Mutex, MutexGuard};

/// The sanitizer state of one launch.
pub struct Sanitizer {
    pub opts: SanitizeOptions,
    /// The device's initcheck shadow of its allocations.
    init: Arc<Mutex<InitMap>>,
    /// Freed allocations not yet reused, sorted: `(start, size)`.
    freed: Vec<(u64, u64)>,
    shared_size: u64,
    local_size: u64,
    state: Mutex<State>,
    /// The device heap, checked block by block under memcheck.
    heap: Option<Arc<dyn HeapBlocks>>,
    /// `malloc`s of this launch (memcheck): block start -> site.
    mallocs: Mutex<HashMap<u64, MallocSite>>,
    /// The kernel module's `used_bytes_mask` pragmas (`ir::Module::used_bytes`).
    used_bytes: std::collections::BTreeMap<InstId, u32>,
}

#[derive(Default)]
struct State {
    findings: Vec<RawFinding>,
    seen: HashSet<(FindingKind, Option<InstId>, Option<InstId>)>,
    counter: u32,
    /// Serial number of the instruction execution being checked (see `race::Acc::exec`).
    exec: u32,
    /// Each CTA's barrier epoch, by rank in the running cluster (one CTA without
    /// clusters), and the epoch of the cluster's last `barrier.cluster` (see `race`).
    epochs: Vec<u32>,
    cluster_epoch: u32,
    /// Per warp of the running cluster (warp `rank * nwarps + warpid`).
    warp_epochs: Vec<u32>,
    /// racecheck's mbarrier ordering between warps (`race::Now::mbar`).
    mbar_acq: Vec<u32>,
    /// racecheck's mbarrier objects (`mbar`): host address -> release clocks.
    mbars: HashMap<u64, mbar::Clocks>,
    ntid: [u32; 3],
    /// Warps per CTA.
    nwarps: u32,
    /// The running cluster's CTAs, by rank (see `cluster`).
    ctas: Vec<UnitCta>,
    /// Offset between two ranks' windows in the shared shadows (the window size rounded
    /// up to a page): rank r's byte o is `r * shared_stride + o`.
    shared_stride: u64,
    shared_init: Bits,
    local_init: Bits,
    /// The CTA's shared window, by granule (see `paged`).
    shared_race: paged::WindowRecs,
    /// Global bytes the CTA touched, by page.
    global_race: paged::PagedRecs,
    /// Global memory across the launch's CTAs.
    cta_race: ctarace::CtaShadow,
    /// The running cluster's CTAs' indices in `cta_race`, by rank.
    race_ctas: Vec<u32>,
}

/// A multiplicative hash of a byte address (std's SipHash is several times slower, and
/// addresses need no protection against collisions chosen by an attacker).
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl State {
    fn tick(&mut self) -> u32 {
        self.counter = self.counter.wrapping_add(1).max(1);
        self.counter
    }
    /// `%tid` of thread `t` (numbered across the cluster: its CTA's own number).
    fn thread3(&self, t: u32) -> [u32; 3] {
        let t = t % (self.nwarps.max(1) * 32);
        let (nx, ny) = (self.ntid[0].max(1), self.ntid[1].max(1));
        [t % nx, (t / nx) % ny, t / (nx * ny)]
    }
    /// The running cluster's warp number of warp `w`.
    fn warp_of(&self, w: &WarpView) -> u32 {
        w.rank * self.nwarps + w.warpid
    }
    /// The running cluster's number of lane `lane` of warp `w`.
    fn tid_of(&self, w: &WarpView, lane: usize) -> u32 {
        self.warp_of(w) * 32 + lane as u32
    }
    /// The barrier epoch of rank `rank`'s CTA.
    fn epoch(&self, rank: u32) -> u32 {
        self.epochs.get(rank as usize).copied().unwrap_or(0)
    }
    /// Threads per CTA in the cluster's numbering; 0 for one CTA (`race::Now`).
    fn cta_threads(&self) -> u32 {
        match self.ctas.len() {
            0 | 1 => 0,
            _ => self.nwarps * 32,
        }
    }
    /// Records a finding unless one with the same key was recorded.
    fn push(&mut self, f: RawFinding) {
        if self.seen.insert(f.key()) {
            self.findings.push(f);
        }
    }
}

/// Where a host address lies, for the shadow state.
enum Place {
    Shared(u64),
    Local(u64),
    Global,
}

impl Sanitizer {
    /// The state of a launch with `shared_size` bytes of shared memory per CTA and
    /// `local_size` bytes of `.local` memory per thread. `freed`: the device's freed,
    /// not yet reused allocations.
    pub fn new(
        opts: SanitizeOptions,
        init: Arc<Mutex<InitMap>>,
        mut freed: Vec<(u64, u64)>,
        shared_size: u64,
        local_size: u64,
    ) -> Sanitizer {
        freed.sort_unstable();
        Sanitizer {
            opts,
            init,
            freed,
            shared_size,
            local_size,
            state: Mutex::new(State::default()),
            heap: None,
            mallocs: Mutex::default(),
            used_bytes: Default::default(),
        }
    }

    /// The module's `used_bytes_mask` pragmas, honoured by memcheck and initcheck.
    pub fn with_used_bytes(mut self, m: std::collections::BTreeMap<InstId, u32>) -> Sanitizer {
        self.used_bytes = m;
        self
    }

    /// The bytes `(first, count)` of instruction `inst`'s `len`-byte access its
    /// `used_bytes_mask` says are used, if it has one that leaves some out.
    pub fn used_span(&self, inst: InstId, len: u64) -> Option<(u64, u64)> {
        let m = *self.used_bytes.get(&inst)? & ((1u64 << len.min(32)) - 1) as u32;
        if m == 0 {
            return None;
        }
        let lo = m.trailing_zeros() as u64;
        let hi = 32 - m.leading_zeros() as u64;
        (hi - lo < len).then_some((lo, hi - lo))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A CTA of `ntid` threads in `nwarps` warps starts (a cluster of one CTA: see
    /// [`Sanitizer::unit_start`]). `local_root`: host address of thread 0's `.local`
    /// area (thread t's is `local_size` bytes at `local_root + t * local_size`, whatever
    /// call frames are pushed).
    pub fn cta_start(&self, ntid: [u32; 3], nwarps: usize, local_root: u64) {
        let cta = UnitCta {
            ctaid: [0; 3],
            shared_base: 0,
            local_root,
        };
        self.unit_start(ntid, nwarps, &[cta]);
    }

    /// Records a finding found outside an instruction's execution (barriers, leaks).
    pub fn report(&self, f: RawFinding) {
        self.state().push(f);
    }

    /// Whether anything was found so far.
    pub fn found(&self) -> bool {
        !self.state().findings.is_empty()
    }

    /// The findings so far (deduplicated by kind and instruction pair), in order.
    pub fn take_findings(&self) -> Vec<RawFinding> {
        std::mem::take(&mut self.state().findings)
    }

    /// The allocation a freed address was in, if it is a freed one.
    fn freed_alloc(&self, h: u64) -> Option<(u64, u64)> {
        let i = self.freed.partition_point(|&(lo, _)| lo <= h);
        let (lo, len) = *self.freed.get(i.checked_sub(1)?)?;
        (h < lo + len.max(1)).then_some((lo, len))
    }

    /// memcheck: turns a fault of the access path into a finding. Returns whether the
    /// lane's access is to be skipped (report-only) rather than stop the warp.
    pub fn fault(&self, w: &WarpView, f: &Fault) -> bool {
        if !self.opts.memcheck {
            return false;
        }
        let mut detail = String::new();
        let mut kind = f.kind;
        if kind == FindingKind::OutOfBounds {
            if let Some((k, d)) = f.host.and_then(|h| self.heap_detail(h, f.size as u64)) {
                (kind, detail) = (k, d);
            } else if let Some((lo, len)) = f.host.and_then(|h| self.freed_alloc(h)) {
                detail = format!("in freed allocation [{lo:#x}, +{len})");
                kind = FindingKind::UseAfterFree;
            }
        }
        self.state().push(RawFinding {
            kind,
            inst: Some(f.inst),
            block: w.ctaid,
            thread: w.thread(f.lane as usize),
            addr: f.addr,
            space: f.space,
            size: f.size,
            write: f.write,
            atomic: false,
            other: None,
            detail,
        });
        self.opts.report_only
    }

    fn place(&self, s: &State, w: &WarpView, lane: usize, h: u64) -> Place {
        if h >= w.shared_base && h < w.shared_base + w.shared_size {
            return Place::Shared(w.rank as u64 * s.shared_stride + h - w.shared_base);
        }
        let root = s.ctas.get(w.rank as usize).map_or(0, |c| c.local_root);
        let lo = root + (w.warpid as u64 * 32 + lane as u64) * self.local_size;
        if self.local_size > 0 && h >= lo && h < lo + self.local_size {
            Place::Local(h - lo)
        } else if let Some(o) = s.remote_shared(w, h) {
            Place::Shared(o)
        } else {
            Place::Global
        }
    }

    /// A call set up bytes `[off, off+len)` relative to the lanes' current `.local`
    /// windows (a pushed frame's parameters and locals, or a return value copied back
    /// into the caller's frame): they count as written for initcheck.
    pub fn local_written(&self, w: &WarpView, mask: u32, off: i64, len: u64) {
        if !self.opts.initcheck {
            return;
        }
        let mut s = self.state();
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            if let Place::Local(o) =
                self.place(&s, w, lane, w.local_base[lane].wrapping_add_signed(off))
            {
                let t = s.tid_of(w, lane) as u64;
                let bit = t * self.local_size + o;
                s.local_init.set(bit, len.min(self.local_size - o));
            }
        }
    }

    /// initcheck and racecheck of one instruction's accesses: lanes `mask` at host
    /// addresses `host` (checked to be valid). `atomic`: a read-modify-write. Returns the
    /// lane whose finding must stop the warp (`None`: none, or report-only).
    pub fn accesses(
        &self,
        w: &WarpView,
        req: &AccessShape,
        addrs: &[u64; 32],
        host: &[u64; 32],
        mask: u32,
        atomic: bool,
    ) -> Option<u32> {
        self.accesses_with(w, req, addrs, host, mask, atomic, true)
    }

    /// [`Sanitizer::accesses`]; `ranges`: a contiguous access may take the range path
    /// (`range`; false only in its tests, which compare the two).
    #[allow(clippy::too_many_arguments)]
    fn accesses_with(
        &self,
        w: &WarpView,
        req: &AccessShape,
        addrs: &[u64; 32],
        host: &[u64; 32],
        mask: u32,
        atomic: bool,
        ranges: bool,
    ) -> Option<u32> {
        if !(self.opts.initcheck || self.opts.racecheck) || matches!(req.space, Space::Param) {
            return None;
        }
        let mut s = self.state();
        s.exec = s.exec.wrapping_add(1);
        let mut init = self
            .opts
            .initcheck
            .then(|| self.init.lock().unwrap_or_else(|e| e.into_inner()));
        // A coalesced plain access is checked as one range when it is clean.
        if ranges && !atomic && (req.write || self.used_span(req.inst, req.len).is_none()) {
            if let Some(r) = range::Run::of(mask, host, req.len) {
                if self.run_access(&mut s, init.as_deref_mut(), w, req, &r) {
                    return None;
                }
            }
        }
        let before = s.findings.len();
        let mut first_lane = None;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let h = host[lane];
            let place = self.place(&s, w, lane, h);
            let n = s.findings.len();
            if let Some(init) = init.as_deref_mut() {
                let a = addrs[lane];
                self.init_check(&mut s, init, w, req, lane, a, h, &place, atomic);
            }
            if self.opts.racecheck {
                self.race_check(&mut s, w, req, lane, addrs[lane], h, &place, atomic);
            }
            if s.findings.len() > n && first_lane.is_none() {
                first_lane = Some(lane);
            }
        }
        let found = s.findings.len() > before;
        first_lane
            .filter(|_| found && !self.opts.report_only)
            .map(|l| l as u32)
    }

    #[allow(clippy::too_many_arguments)]
    fn init_check(
        &self,
        s: &mut State,
        init: &mut InitMap,
        w: &WarpView,
        req: &AccessShape,
        lane: usize,
        addr: u64,
        h: u64,
        place: &Place,
        atomic: bool,
    ) {
        let len = req.len;
        let t = s.tid_of(w, lane) as u64;
        // Only the bytes a `used_bytes_mask` names are read.
        let (ulo, ulen) = match req.write {
            false => self.used_span(req.inst, len).unwrap_or((0, len)),
            true => (0, len),
        };
        let uninit = if req.write && !atomic {
            None
        } else {
            match *place {
                Place::Shared(o) => s.shared_init.first_clear(o + ulo, ulen).map(|i| i - o),
                Place::Local(o) => {
                    let base = t * self.local_size;
                    s.local_init
                        .first_clear(base + o + ulo, ulen)
                        .map(|i| i - base - o)
                }
                Place::Global => init.first_uninit(h + ulo, ulen).map(|i| i - h),
            }
        };
        if let Some(off) = uninit {
            let what = match *place {
                Place::Shared(o) if o / s.shared_stride.max(1) != w.rank as u64 => s.remote_what(o),
                Place::Shared(_) => "shared memory not written by any thread of this CTA".into(),
                Place::Local(_) => "local memory not written by this thread".into(),
                Place::Global => "global memory not written since it was allocated".into(),
            };
            s.push(RawFinding {
                kind: FindingKind::Uninit,
                inst: Some(req.inst),
                block: w.ctaid,
                thread: w.thread(lane),
                addr,
                space: req.space,
                size: len as u32,
                write: req.write,
                atomic,
                other: None,
                detail: format!("{what} (first unwritten byte at offset {off})"),
            });
        }
        if req.write {
            match *place {
                Place::Shared(o) => s.shared_init.set(o, len),
                Place::Local(o) => s.local_init.set(t * self.local_size + o, len),
                Place::Global => init.mark(h, len),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn race_check(
        &self,
        s: &mut State,
        view: &WarpView,
        req: &AccessShape,
        lane: usize,
        addr: u64,
        h: u64,
        place: &Place,
        atomic: bool,
    ) {
        let len = req.len;
        let tid = s.tid_of(view, lane);
        let w = s.warp_of(view) as usize;
        let epoch = s.epoch(view.rank);
        let cta_threads = s.cta_threads();
        let cur = Acc {
            tid,
            inst: req.inst.0,
            epoch,
            wepoch: s.warp_epochs.get(w).copied().unwrap_or(0),
            exec: s.exec,
            atomic,
        };
        let write = req.write;
        let mut hit = None;
        {
            let State {
                cluster_epoch,
                warp_epochs,
                mbar_acq,
                shared_race,
                global_race,
                ..
            } = &mut *s;
            let now = Now {
                epoch,
                warp_epochs,
                mbar: mbar_acq,
                cluster_epoch: *cluster_epoch,
                cta_threads,
                other_ctas: matches!(place, Place::Shared(_)),
            };
            // (Copies the hazard only when there is one: copying the `None` of every
            // byte, as `hit = r` did, stalled on store forwarding.)
            let mut check = |rec: &mut ByteRec| {
                if let Some(r) = now.access(rec, cur, write) {
                    hit.get_or_insert(r);
                }
            };
            match *place {
                // (One thread's access: each granule inside it is this thread's.)
                Place::Shared(o) => shared_race.each_mut(o, o + len, true, |_, rec| check(rec)),
                Place::Local(_) => return,
                Place::Global => global_race.each_mut(h, h + len, true, |_, rec| check(rec)),
            }
        }
        if hit.is_none() && matches!(place, Place::Global) {
            self.cta_race_check(s, view, req, lane, addr, h, atomic);
            return;
        }
        let Some(hz) = hit else { return };
        let (kind, prev, prev_write) = match hz {
            Hazard::Raw(p) => (FindingKind::RaceRaw, p, true),
            Hazard::War(p) => (FindingKind::RaceWar, p, false),
            Hazard::Waw(p) => (FindingKind::RaceWaw, p, true),
        };
        let other = OtherAccess {
            inst: InstId(prev.inst),
            thread: s.thread3(prev.tid),
            write: prev_write,
            atomic: prev.atomic,
        };
        let same_warp = prev.tid / 32 == tid / 32;
        let other_cta = s.other_block(prev.tid, tid);
        s.push(RawFinding {
            kind,
            inst: Some(req.inst),
            block: view.ctaid,
            thread: view.thread(lane),
            addr,
            space: req.space,
            size: len as u32,
            write,
            atomic,
            other: Some(other),
            detail: match other_cta {
                Some(b) => format!(
                    "the other access is by block ({},{},{}) of the cluster, and no \
                     barrier.cluster or mbarrier phase orders the accesses",
                    b[0], b[1], b[2]
                ),
                None if same_warp => "both threads are in one warp and no \
                                      __syncwarp/bar.warp.sync or barrier orders the accesses"
                    .into(),
                None => "no barrier between the accesses".into(),
            },
        });
    }

    /// racecheck of a global access against the launch's other CTAs.
    #[allow(clippy::too_many_arguments)]
    fn cta_race_check(
        &self,
        s: &mut State,
        view: &WarpView,
        req: &AccessShape,
        lane: usize,
        addr: u64,
        h: u64,
        atomic: bool,
    ) {
        let cta = s.race_cta(view);
        let cur = ctarace::CtaAcc {
            cta,
            tid: view.warpid * 32 + lane as u32,
            inst: req.inst.0,
            time: s.exec,
            atomic,
        };
        let hit = s.cta_race.access(h, req.len, cur, req.write);
        if atomic {
            s.cta_race.atomic(cta, s.exec);
        }
        let Some(hz) = hit else { return };
        let kind = match (hz.prev_write, req.write) {
            (true, false) => FindingKind::RaceRaw,
            (true, true) => FindingKind::RaceWaw,
            (false, _) => FindingKind::RaceWar,
        };
        let b = s.cta_race.ctaid(hz.prev.cta);
        let other = OtherAccess {
            inst: InstId(hz.prev.inst),
            thread: s.thread3(hz.prev.tid),
            write: hz.prev_write,
            atomic: hz.prev.atomic,
        };
        s.push(RawFinding {
            kind,
            inst: Some(req.inst),
            block: view.ctaid,
            thread: view.thread(lane),
            addr,
            space: req.space,
            size: req.len as u32,
            write: req.write,
            atomic,
            other: Some(other),
            detail: format!(
                "the other access is by block ({},{},{}): CTAs of a launch run \
                 concurrently, and no atomic orders the accesses",
                b[0], b[1], b[2]
            ),
        });
    }

    /// synccheck (and racecheck's warp epochs) for a warp-synchronous instruction:
    /// `members[l]` is lane l's `membermask`, `active` the lanes executing it;
    /// `warp_sync`: `bar.warp.sync`, which also orders the lanes' memory accesses.
    /// Returns the lane whose finding must stop the warp.
    pub fn warp_sync(
        &self,
        w: &WarpView,
        inst: InstId,
        active: u32,
        members: &[u32; 32],
        warp_sync: bool,
    ) -> Option<u32> {
        let mut s = self.state();
        if warp_sync {
            let e = s.tick();
            let v = s.warp_of(w) as usize;
            if let Some(x) = s.warp_epochs.get_mut(v) {
                *x = e;
            }
        }
        if !self.opts.synccheck {
            return None;
        }
        let mut m = active;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let mm = members[lane];
            let (kind, detail) = if mm >> lane & 1 == 0 {
                (
                    FindingKind::MaskExcludesSelf,
                    format!("membermask {mm:#010x} does not include the executing lane {lane}"),
                )
            } else if mm & !active != 0 {
                (
                    FindingKind::MaskNamesInactive,
                    format!(
                        "membermask {mm:#010x} names lanes {:#010x} that do not execute this \
                         instruction with lane {lane} (executing lanes {active:#010x})",
                        mm & !active
                    ),
                )
            } else {
                continue;
            };
            s.push(RawFinding {
                kind,
                inst: Some(inst),
                block: w.ctaid,
                thread: w.thread(lane),
                addr: 0,
                space: Space::Generic,
                size: 0,
                write: false,
                atomic: false,
                other: None,
                detail,
            });
            return (!self.opts.report_only).then_some(lane as u32);
        }
        None
    }
}
