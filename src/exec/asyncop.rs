//! Asynchronous copies and mbarriers ([`InstKind::Async`]), shared by both backends.
//!
//! **Copies complete at issue.** `cp.async` and `cp.async.bulk` copy their bytes when
//! the instruction runs (a legal schedule: the ISA only promises completion by the
//! matching `wait_group`/`wait_all`/mbarrier phase), so `commit_group` and `wait_group`
//! have nothing left to wait for, a `cp.async.mbarrier.arrive` signals at once, and a
//! bulk copy's `complete_tx` follows its copy immediately.
//!
//! **mbarrier objects** live in the 8 bytes of shared memory the program gives them, in
//! this layout (the ISA calls the object opaque; the `state` that `mbarrier.arrive`
//! returns is the object's value before the warp's arrival):
//! bits 0-20 the pending arrival count, 21-41 the expected count, 42-62 the tx-count (21
//! bits, two's complement), bit 63 the phase parity. A phase completes when pending
//! arrivals and tx-count are both zero: the parity flips, pending becomes the expected
//! count. A CTA's warps run on one OS thread, so the read-modify-writes need no host
//! atomics. A warp's arrivals at one object are one operation (the hardware aggregates
//! them per warp: every lane gets the state before the warp's first arrival there, as an
//! H100 answers `mbarrier.pending_count`).
//!
//! **Arrivals** (`mbarrier.arrive{_drop}`, `complete_tx`, `cp.async.mbarrier.arrive.noinc`,
//! a bulk copy's `complete_tx`) first let the CTA's other warps run once, so that what
//! those do before their own arrival happens before this one, as with warps running side
//! by side on a GPU (an H100 answers the phase tests of `tests/golden`'s
//! `mbarrier_phases` that way).
//!
//! **Waits.** `test_wait` answers with the state it sees; when a lane's phase is not
//! complete the warp then yields ([`WarpYield::Poll`]) so that the CTA's other warps run
//! before the program polls again. `try_wait` yields first and answers with the state it
//! sees when it resumes (a suspension the ISA allows). The scheduler reports a deadlock
//! when its warps keep polling while no mbarrier of the CTA changes ([`MbarEnv`]).
//!
//! [`InstKind::Async`]: crate::ir::InstKind::Async

use crate::exec::barrier::WarpYield;
use crate::exec::ctx::{
    self, record_fault, stop_with_error_at, FaultKind, FaultRecord, Stopped, WarpCtx, STATUS_OK,
    WARP_SIZE,
};
use crate::ir::{AsyncOp, InstId, Space};

/// The largest expected arrival count (and pending count, and tx-count magnitude).
pub const MAX_COUNT: u64 = (1 << 20) - 1;
const FIELD: u64 = (1 << 21) - 1;

/// Per-warp mbarrier bookkeeping the CTA scheduler reads after each run of the warp.
#[derive(Clone, Debug, Default)]
pub struct MbarEnv {
    /// State changes of mbarrier objects (init, arrivals, tx) since the scheduler last
    /// looked; it resets the count.
    pub changes: u64,
    /// The last wait that found its phase incomplete: instruction, lane, address.
    pub poll_at: Option<(InstId, u32, u64)>,
}

/// The decoded fields of an mbarrier object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Mbar {
    pending: u64,
    expected: u64,
    tx: i64,
    phase: u64,
}

impl Mbar {
    fn unpack(v: u64) -> Mbar {
        let tx = (v >> 42 & FIELD) as i64;
        Mbar {
            pending: v & FIELD,
            expected: v >> 21 & FIELD,
            tx: (tx << 43) >> 43,
            phase: v >> 63,
        }
    }
    fn pack(self) -> u64 {
        (self.pending & FIELD)
            | (self.expected & FIELD) << 21
            | (self.tx as u64 & FIELD) << 42
            | (self.phase & 1) << 63
    }
    /// Completes the phase if nothing is pending.
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase ^= 1;
            self.pending = self.expected;
        }
    }
}

/// `mbarrier.pending_count` of a state value.
pub fn pending_count(state: u64) -> u32 {
    Mbar::unpack(state).pending as u32
}

/// Runs an asynchronous-copy or mbarrier operation for the lanes in `mask`. `spaces`
/// and `addrs` are the operation's addresses (per lane, in their state spaces), `srcs`
/// its sources (per lane, zero-extended). Returns the results ([`AsyncOp::dst_types`]),
/// each for all lanes.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: AsyncOp,
    mask: u32,
    inst: InstId,
    spaces: &[Space],
    addrs: &[[u64; WARP_SIZE]],
    srcs: &[[u64; WARP_SIZE]],
) -> Result<Vec<[u64; WARP_SIZE]>, Stopped> {
    let mut out = [0u64; WARP_SIZE];
    if mask == 0 {
        return Ok(vec![out; op.dst_types().len()]);
    }
    let a = |k: usize| (spaces.get(k).copied(), addrs.get(k));
    let s = |k: usize, lane: usize| srcs.get(k).map_or(0, |v| v[lane]);
    let c = Call { mask, inst };
    // SAFETY (all calls below): the caller's contract.
    match op {
        AsyncOp::CpAsync {
            size,
            src_size,
            ignore_src,
        } => {
            let n = |lane: usize| match (src_size, ignore_src) {
                (true, _) => s(0, lane).min(size as u64),
                (_, true) if s(0, lane) != 0 => 0,
                _ => size as u64,
            };
            unsafe { c.copy(ctx, a(0), a(1), |_| size as u64, n, size as u64)? };
        }
        AsyncOp::CpBulk { complete_tx } => {
            let size = |lane: usize| s(0, lane);
            for lane in lanes(mask) {
                if size(lane) % 16 != 0 {
                    let msg = format!(
                        "cp.async.bulk size {} is not a multiple of 16 bytes",
                        size(lane)
                    );
                    unsafe { stop_with_error_at(ctx, msg, inst, lane as u32) };
                    return Err(Stopped);
                }
            }
            unsafe { c.copy(ctx, a(0), a(1), size, size, 16)? };
            if complete_tx {
                unsafe { yield_first(ctx)? };
                unsafe { c.update(ctx, a(2), &mut out, |m, l| complete_tx_by(m, s(0, l)))? };
            }
        }
        AsyncOp::CpAsyncArrive { noinc } => {
            // Without `.noinc` the pending count goes up by one before the arrival the
            // (already complete) copies trigger: no net change.
            if noinc {
                unsafe { yield_first(ctx)? };
            }
            unsafe { c.update(ctx, a(0), &mut out, |m, _| arrive(m, noinc as u64, 0))? };
        }
        AsyncOp::Init => unsafe { mbar_init(ctx, &c, a(0), |l| s(0, l), &mut out)? },
        AsyncOp::Inval => unsafe { c.store(ctx, a(0), 0)? },
        AsyncOp::Arrive { drop, expect_tx } => {
            let count_tx = |l: usize| {
                if expect_tx {
                    (1, s(0, l))
                } else {
                    (s(0, l), 0)
                }
            };
            unsafe { yield_first(ctx)? };
            unsafe {
                c.update(ctx, a(0), &mut out, |m, l| {
                    let (n, t) = count_tx(l);
                    if drop {
                        if n > m.expected {
                            return Err(format!(
                                "mbarrier.arrive_drop of {n} exceeds the expected count {}",
                                m.expected
                            ));
                        }
                        m.expected -= n;
                    }
                    arrive(m, n, t)
                })?
            };
        }
        AsyncOp::ExpectTx => unsafe {
            c.update(ctx, a(0), &mut out, |m, l| {
                m.tx += s(0, l) as i64;
                check_tx(m)
            })?
        },
        AsyncOp::CompleteTx => unsafe {
            yield_first(ctx)?;
            c.update(ctx, a(0), &mut out, |m, l| complete_tx_by(m, s(0, l)))?
        },
        AsyncOp::Wait { parity, try_wait } => {
            let want = |l: usize| if parity { s(0, l) & 1 } else { s(0, l) >> 63 };
            unsafe { c.wait(ctx, a(0), try_wait, want, &mut out)? };
        }
        AsyncOp::PendingCount => {
            for lane in lanes(mask) {
                out[lane] = pending_count(s(0, lane)) as u64;
            }
        }
        AsyncOp::Atom128 { cas } => {
            let wide = |k: usize, l: usize| (s(k + 1, l) as u128) << 64 | s(k, l) as u128;
            let (b, n) = (|l| wide(0, l), |l| wide(2, l));
            return unsafe { c.atom128(ctx, a(0), cas, b, n) };
        }
        AsyncOp::Mapa { .. }
        | AsyncOp::GetCtaRank
        | AsyncOp::ClusterCvta { .. }
        | AsyncOp::ClusterArrive
        | AsyncOp::ClusterWait => {
            return unsafe { crate::exec::cluster::exec(ctx, op, mask, inst, spaces, addrs, srcs) };
        }
        AsyncOp::CpBulkMulticast
        | AsyncOp::CpReduceBulk { .. }
        | AsyncOp::StAsync { .. }
        | AsyncOp::RedAsync { .. } => {
            return unsafe { crate::exec::bulk::exec(ctx, op, &c, spaces, addrs, srcs) };
        }
        AsyncOp::CpTensorLoad { .. }
        | AsyncOp::CpTensorStore { .. }
        | AsyncOp::TensormapReplace { .. } => {
            return unsafe { crate::exec::tma::exec(ctx, op, &c, spaces, addrs, srcs) };
        }
    }
    Ok(if op.dst_types().is_empty() {
        vec![]
    } else {
        vec![out]
    })
}

/// `mbarrier.init`: every active lane's object at `a0` gets `count(lane)` pending and
/// expected arrivals, phase 0 (a count outside `1..MAX_COUNT` stops the kernel).
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn mbar_init(
    ctx: &mut WarpCtx,
    c: &Call,
    a0: AddrArg,
    count: impl Fn(usize) -> u64,
    out: &mut [u64; WARP_SIZE],
) -> Result<(), Stopped> {
    for lane in lanes(c.mask) {
        if !(1..=MAX_COUNT).contains(&count(lane)) {
            let msg = format!(
                "mbarrier.init count {} is outside 1..{MAX_COUNT}",
                count(lane)
            );
            unsafe { stop_with_error_at(ctx, msg, c.inst, lane as u32) };
            return Err(Stopped);
        }
    }
    unsafe {
        c.update(ctx, a0, out, |m, l| {
            *m = Mbar {
                pending: count(l),
                expected: count(l),
                tx: 0,
                phase: 0,
            };
            Ok(())
        })?
    };
    // racecheck: the new object's phases order nothing yet.
    if let Some(san) = unsafe { (*ctx.env).san.clone() } {
        for lane in lanes(c.mask) {
            let p = unsafe { c.object(ctx, a0, lane)? };
            san.mbar_init(p as u64);
        }
    }
    Ok(())
}

/// 128-bit host atomics: `lock cmpxchg16b` where the CPU has it, else one process-wide
/// lock (no other access to those bytes is atomic with respect to it then).
mod atomic128 {
    use std::sync::Mutex;

    static LOCK: Mutex<()> = Mutex::new(());

    /// Compare-and-swap: stores `new` if `*p == expect`; returns the old value.
    ///
    /// # Safety
    /// `p` valid for 16 bytes, 16-byte aligned.
    pub unsafe fn cas(p: *mut u128, expect: u128, new: u128) -> u128 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("cmpxchg16b") {
            // SAFETY: the caller's contract; the CPU has the instruction.
            return unsafe { cmpxchg16b(p, expect, new) };
        }
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the caller's contract.
        unsafe {
            let old = p.read_volatile();
            if old == expect {
                p.write_volatile(new);
            }
            old
        }
    }

    /// Exchange: stores `new`; returns the old value.
    ///
    /// # Safety
    /// As [`cas`].
    pub unsafe fn exch(p: *mut u128, new: u128) -> u128 {
        // SAFETY: the caller's contract (a torn first guess only costs a retry).
        let mut guess = unsafe { p.read_volatile() };
        loop {
            // SAFETY: as above.
            let old = unsafe { cas(p, guess, new) };
            if old == guess {
                return old;
            }
            guess = old;
        }
    }

    /// `lock cmpxchg16b [p]` (rbx is reserved by LLVM, so the low half of `new` goes
    /// through another register and is swapped in around the instruction).
    ///
    /// # Safety
    /// As [`cas`], and the CPU supports `cmpxchg16b`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn cmpxchg16b(p: *mut u128, expect: u128, new: u128) -> u128 {
        let (mut lo, mut hi) = (expect as u64, (expect >> 64) as u64);
        // SAFETY: the caller's contract; rbx is restored before the block ends.
        unsafe {
            std::arch::asm!(
                "xchg {b}, rbx",
                "lock cmpxchg16b xmmword ptr [{p}]",
                "mov rbx, {b}",
                p = in(reg) p,
                b = inout(reg) new as u64 => _,
                in("rcx") (new >> 64) as u64,
                inout("rax") lo,
                inout("rdx") hi,
                options(nostack),
            );
        }
        (hi as u128) << 64 | lo as u128
    }
}

pub(super) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask >> l & 1 != 0)
}

fn check_tx(m: &Mbar) -> Result<(), String> {
    if m.tx.unsigned_abs() > MAX_COUNT {
        return Err(format!(
            "mbarrier tx-count {} is outside +-{MAX_COUNT}",
            m.tx
        ));
    }
    Ok(())
}

/// An arrive-on operation of `count` arrivals, after an expect-tx of `tx`.
fn arrive(m: &mut Mbar, count: u64, tx: u64) -> Result<(), String> {
    m.tx += tx as i64;
    check_tx(m)?;
    if count > m.pending {
        return Err(format!(
            "mbarrier arrival of {count} exceeds the {} pending arrivals of the phase",
            m.pending
        ));
    }
    m.pending -= count;
    m.settle();
    Ok(())
}

pub(super) fn complete_tx_by(m: &mut Mbar, n: u64) -> Result<(), String> {
    m.tx -= n as i64;
    check_tx(m)?;
    m.settle();
    Ok(())
}

/// Lets the CTA's other warps run once before an arrival (if the warp runs in a
/// coroutine): they catch up to it, so that what they do before their own arrival (a
/// test of the phase this arrival may complete, say) happens before it, as on a GPU
/// whose warps run side by side.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub(super) unsafe fn yield_first(ctx: &mut WarpCtx) -> Result<(), Stopped> {
    // SAFETY: the caller's contract.
    let Some(y) = (unsafe { (*ctx.env).yielder }) else {
        return Ok(());
    };
    // SAFETY: the scheduler keeps the yielder alive while the coroutine runs.
    unsafe { (*y).suspend(WarpYield::Poll) };
    if ctx.status != STATUS_OK {
        return Err(Stopped);
    }
    Ok(())
}

/// Lets the CTA's other warps run once (if the warp runs in a coroutine), recording
/// where it polled for the scheduler's deadlock report.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn poll(ctx: &mut WarpCtx, inst: InstId, lane: usize, addr: u64) -> Result<(), Stopped> {
    // SAFETY: the caller's contract.
    let env = unsafe { &mut *ctx.env };
    env.mbar.poll_at = Some((inst, lane as u32, addr));
    let Some(y) = env.yielder else {
        return Ok(());
    };
    // SAFETY: the scheduler keeps the yielder alive while the coroutine runs.
    unsafe { (*y).suspend(WarpYield::Poll) };
    if ctx.status != STATUS_OK {
        return Err(Stopped);
    }
    Ok(())
}

/// The lanes and instruction of one operation.
#[derive(Clone, Copy)]
pub(super) struct Call {
    pub(super) mask: u32,
    pub(super) inst: InstId,
}

pub(super) type AddrArg<'a> = (Option<Space>, Option<&'a [u64; WARP_SIZE]>);

impl Call {
    fn fault(
        &self,
        lane: usize,
        kind: FaultKind,
        addr: u64,
        space: Space,
        size: u64,
        write: bool,
    ) -> FaultRecord {
        FaultRecord {
            kind,
            inst: self.inst,
            lane: lane as u32,
            addr,
            space,
            size: size as u32,
            write,
        }
    }

    /// Checks `len` bytes at `addr` of `lane` (a `space` address aligned to `align`)
    /// and returns the host address; on a bad access records the fault.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn check(
        &self,
        ctx: &mut WarpCtx,
        space: Space,
        lane: usize,
        addr: u64,
        len: u64,
        align: u64,
        write: bool,
    ) -> Result<u64, Stopped> {
        if len == 0 {
            return Ok(0);
        }
        let f = |kind| self.fault(lane, kind, addr, space, len, write);
        let Some(h) = ctx::translate(ctx, space, lane, addr, len) else {
            record_fault(ctx, f(FaultKind::OutsideWindow));
            return Err(Stopped);
        };
        if h % align != 0 {
            record_fault(ctx, f(FaultKind::Misaligned));
            return Err(Stopped);
        }
        // SAFETY: the caller's contract.
        let env = unsafe { &*ctx.env };
        match env.regions.find(h, len) {
            Some(r) if write && !r.writable => {
                record_fault(ctx, f(FaultKind::ReadOnly));
                Err(Stopped)
            }
            Some(_) => Ok(h),
            None => {
                record_fault(ctx, f(FaultKind::OutOfBounds));
                Err(Stopped)
            }
        }
    }

    /// Copies, for every lane, `n(lane)` bytes from `src` to `dst` and zero-fills the
    /// rest of `size(lane)` bytes; both addresses aligned to `align`. Every lane is
    /// checked before any byte is written.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    pub(super) unsafe fn copy(
        &self,
        ctx: &mut WarpCtx,
        dst: AddrArg,
        src: AddrArg,
        size: impl Fn(usize) -> u64,
        n: impl Fn(usize) -> u64,
        align: u64,
    ) -> Result<(), Stopped> {
        let (Some(ds), Some(da)) = dst else {
            return Err(Stopped);
        };
        let (Some(ss), Some(sa)) = src else {
            return Err(Stopped);
        };
        let mut host = [(0u64, 0u64); WARP_SIZE];
        for lane in lanes(self.mask) {
            // SAFETY: the caller's contract.
            let d = unsafe { self.check(ctx, ds, lane, da[lane], size(lane), align, true)? };
            let s = unsafe { self.check(ctx, ss, lane, sa[lane], n(lane), align, false)? };
            host[lane] = (d, s);
        }
        for lane in lanes(self.mask) {
            let (d, s) = host[lane];
            let (len, total) = (n(lane) as usize, size(lane) as usize);
            // SAFETY: both ranges were checked above; `copy` handles overlap.
            unsafe {
                std::ptr::copy(s as *const u8, d as *mut u8, len);
                std::ptr::write_bytes((d as *mut u8).add(len), 0, total - len);
            }
        }
        // SAFETY: the caller's contract.
        if let Some(san) = unsafe { (*ctx.env).san.as_ref() } {
            for lane in lanes(self.mask) {
                san.async_written(&ctx::view(ctx), host[lane].0, size(lane));
            }
        }
        Ok(())
    }

    /// An mbarrier wait: each lane's result is 1 when the phase `want(lane)` names (its
    /// parity) has completed. `test_wait` answers with the state it sees and then lets
    /// the other warps run if a phase is open; `try_wait` lets them run first and answers
    /// with the state it sees afterwards.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn wait(
        &self,
        ctx: &mut WarpCtx,
        arg: AddrArg,
        try_wait: bool,
        want: impl Fn(usize) -> u64,
        out: &mut [u64; WARP_SIZE],
    ) -> Result<(), Stopped> {
        let test = |ctx: &mut WarpCtx, out: &mut [u64; WARP_SIZE]| {
            // SAFETY: the caller's contract.
            unsafe { self.read(ctx, arg, out)? };
            let mut open = None;
            for lane in lanes(self.mask) {
                let done = Mbar::unpack(out[lane]).phase != want(lane);
                if !done && open.is_none() {
                    open = Some(lane);
                }
                out[lane] = done as u64;
            }
            Ok::<_, Stopped>(open)
        };
        let addr = |l: usize| arg.1.map_or(0, |v| v[l]);
        if let Some(l) = test(ctx, out)? {
            // SAFETY: the caller's contract.
            unsafe { poll(ctx, self.inst, l, addr(l))? };
            if try_wait {
                test(ctx, out)?;
            }
        }
        // racecheck: a wait that saw its phase complete acquires the phase's arrivals.
        // SAFETY: the caller's contract.
        if let Some(san) = unsafe { (*ctx.env).san.clone() } {
            for lane in lanes(self.mask).filter(|&l| out[l] == 1) {
                // SAFETY: the caller's contract.
                let p = unsafe { self.object(ctx, arg, lane)? };
                san.mbar_acquire(&ctx::view(ctx), p as u64, want(lane));
            }
        }
        Ok(())
    }

    /// `atom.{cas,exch}.b128`: per lane in ascending order, one 128-bit host atomic;
    /// `b(lane)` is compared (cas) or stored (exch), `n(lane)` stored by cas. Returns the
    /// old values' low and high halves.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn atom128(
        &self,
        ctx: &mut WarpCtx,
        arg: AddrArg,
        cas: bool,
        b: impl Fn(usize) -> u128,
        n: impl Fn(usize) -> u128,
    ) -> Result<Vec<[u64; WARP_SIZE]>, Stopped> {
        let (Some(space), Some(av)) = arg else {
            return Err(Stopped);
        };
        let mut host = [0u64; WARP_SIZE];
        for lane in lanes(self.mask) {
            // SAFETY: the caller's contract.
            host[lane] = unsafe { self.check(ctx, space, lane, av[lane], 16, 16, true)? };
        }
        let (mut lo, mut hi) = ([0u64; WARP_SIZE], [0u64; WARP_SIZE]);
        for lane in lanes(self.mask) {
            let p = host[lane] as *mut u128;
            // SAFETY: `check` found 16 writable, 16-byte aligned bytes there.
            let old = unsafe {
                if cas {
                    atomic128::cas(p, b(lane), n(lane))
                } else {
                    atomic128::exch(p, b(lane))
                }
            };
            lo[lane] = old as u64;
            hi[lane] = (old >> 64) as u64;
        }
        Ok(vec![lo, hi])
    }

    /// The host address of lane `lane`'s mbarrier object: 8-byte aligned, in the CTA's
    /// shared memory (a generic address must point there).
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn object(
        &self,
        ctx: &mut WarpCtx,
        arg: AddrArg,
        lane: usize,
    ) -> Result<*mut u64, Stopped> {
        let (Some(space), Some(a)) = arg else {
            return Err(Stopped);
        };
        let addr = a[lane];
        // A generic address may point into another CTA's window of the cluster.
        let (space, win) = match space {
            Space::Generic => match crate::exec::cluster::locate(ctx, addr) {
                Some((rank, off)) if ctx.shared_size - off >= 8 => {
                    let own = rank == ctx.sreg.cluster_ctarank as u64;
                    match own {
                        true => (Space::Shared, off),
                        false => (
                            Space::SharedCluster,
                            crate::exec::cluster::encode(rank as u32, off),
                        ),
                    }
                }
                _ => {
                    let msg = format!(
                        "mbarrier object at generic address {addr:#x} (lane {lane}) is not in the CTA's shared memory"
                    );
                    // SAFETY: the caller's contract.
                    unsafe { stop_with_error_at(ctx, msg, self.inst, lane as u32) };
                    return Err(Stopped);
                }
            },
            Space::SharedCluster => (Space::SharedCluster, addr),
            _ => (Space::Shared, addr),
        };
        // SAFETY: the caller's contract.
        let h = unsafe { self.check(ctx, space, lane, win, 8, 8, true)? };
        Ok(h as *mut u64)
    }

    /// Reads every lane's mbarrier object into `out`.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn read(
        &self,
        ctx: &mut WarpCtx,
        arg: AddrArg,
        out: &mut [u64; WARP_SIZE],
    ) -> Result<(), Stopped> {
        for lane in lanes(self.mask) {
            // SAFETY: the caller's contract; `object` checked the 8 bytes.
            out[lane] = unsafe { self.object(ctx, arg, lane)?.read() };
        }
        Ok(())
    }

    /// Writes `v` to every lane's mbarrier object (`mbarrier.inval`).
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn store(&self, ctx: &mut WarpCtx, arg: AddrArg, v: u64) -> Result<(), Stopped> {
        for lane in lanes(self.mask) {
            // SAFETY: the caller's contract; `object` checked the 8 bytes.
            let p = unsafe { self.object(ctx, arg, lane)? };
            // SAFETY: as above.
            unsafe { p.write(v) };
            // SAFETY: the caller's contract.
            if let Some(san) = unsafe { (*ctx.env).san.as_ref() } {
                san.mbar_init(p as u64);
            }
        }
        // SAFETY: the caller's contract.
        unsafe { (*ctx.env).mbar.changes += 1 };
        Ok(())
    }

    /// Applies `f` to every lane's mbarrier object in lane order; each lane's result is
    /// the object's value before the warp's first update of that object.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    pub(super) unsafe fn update(
        &self,
        ctx: &mut WarpCtx,
        arg: AddrArg,
        out: &mut [u64; WARP_SIZE],
        mut f: impl FnMut(&mut Mbar, usize) -> Result<(), String>,
    ) -> Result<(), Stopped> {
        let mut before: Vec<(*mut u64, u64)> = Vec::new();
        for lane in lanes(self.mask) {
            // SAFETY: the caller's contract.
            let p = unsafe { self.object(ctx, arg, lane)? };
            // SAFETY: `object` checked the 8 bytes.
            let v = unsafe { p.read() };
            out[lane] = match before.iter().find(|(q, _)| *q == p) {
                Some(&(_, b)) => b,
                None => {
                    before.push((p, v));
                    v
                }
            };
            let mut m = Mbar::unpack(v);
            if let Err(msg) = f(&mut m, lane) {
                // SAFETY: the caller's contract.
                unsafe { stop_with_error_at(ctx, msg, self.inst, lane as u32) };
                return Err(Stopped);
            }
            // SAFETY: as above.
            unsafe { p.write(m.pack()) };
            // SAFETY: the caller's contract.
            if let Some(san) = unsafe { (*ctx.env).san.as_ref() } {
                // racecheck: an arrival releases, a completion publishes the phase.
                let old = Mbar::unpack(v);
                let flipped = m.phase != old.phase;
                let arrived = m.pending < old.pending || (flipped && old.pending > 0);
                let done = flipped.then_some(old.phase);
                san.mbar_update(&ctx::view(ctx), p as u64, arrived, done);
            }
        }
        // SAFETY: the caller's contract.
        unsafe { (*ctx.env).mbar.changes += 1 };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_fields_round_trip() {
        let m = Mbar {
            pending: 5,
            expected: MAX_COUNT,
            tx: -(MAX_COUNT as i64),
            phase: 1,
        };
        assert_eq!(Mbar::unpack(m.pack()), m);
    }

    /// The ISA's phase rules (9.7.14.15.6): a phase completes when pending arrivals and
    /// tx-count are both zero; the pending count is then the expected count again.
    #[test]
    fn phases_complete_on_arrivals_and_transactions() {
        let mut m = Mbar {
            pending: 2,
            expected: 2,
            tx: 0,
            phase: 0,
        };
        arrive(&mut m, 1, 8).unwrap();
        assert_eq!((m.pending, m.tx, m.phase), (1, 8, 0));
        arrive(&mut m, 1, 0).unwrap();
        assert_eq!((m.pending, m.tx, m.phase), (0, 8, 0));
        complete_tx_by(&mut m, 8).unwrap();
        assert_eq!((m.pending, m.tx, m.phase), (2, 0, 1));
        assert!(arrive(&mut m, 3, 0).is_err());
    }
}
