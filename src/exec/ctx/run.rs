//! The checked access path's run entry: a sanitized warp's plain `ld`/`st` whose active
//! lanes are consecutive and whose addresses follow each other (lane `l0 + j` at
//! `a + j * size`: a coalesced access) is checked as one range — the window, the
//! alignment and the region once for the whole range, initcheck and racecheck through
//! `exec::sanitize`'s range path — and then copied in one piece, with no per-lane work.
//!
//! The run entry only ever takes the clean case. It changes nothing until every check
//! has passed for the whole range (the region cache entry it fills is the one the
//! per-lane path would fill), and anything else — a lane outside the window, a
//! misaligned range, a range not inside one cacheable region (the device heap,
//! freed or unmapped memory), a read-only store, a `used_bytes_mask` load, an
//! unwritten or racy byte — leaves the access to the per-lane path of [`access`](super::access),
//! which then reports exactly what it always did (same first lane, address, finding).
//!
//! A load whose active lanes all read one address (`ld.param`, a pointer every lane
//! follows) takes the uniform entry when the sanitizers look at none of its bytes (the
//! `.param` space, or neither initcheck nor racecheck on): the same checks once, and one
//! copy per lane.

use super::{view, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::exec::sanitize::AccessShape;
use crate::ir::Space;

/// A run of lanes: lanes `l0 .. l0 + n`, lane `l0`'s state-space address `lo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LaneRun {
    pub l0: u32,
    pub n: u32,
    pub lo: u64,
}

impl LaneRun {
    /// The run of the lanes in `mask` at state-space addresses `addrs`, `len` bytes each
    /// (a power of two), if the active lanes are consecutive and each lane's address is
    /// the previous lane's plus `len` (without wrapping).
    pub fn of(mask: u32, addrs: &[u64; WARP_SIZE], len: u64) -> Option<LaneRun> {
        // The same test as the sanitizers' range path (on host addresses there).
        crate::exec::sanitize::lane_run(mask, addrs, len).map(|(l0, n, lo)| LaneRun { l0, n, lo })
    }
}

/// [`access`](super::access) of a sanitized launch: the uniform entry for a load whose
/// active lanes use one address, the run entry when they form a [`LaneRun`]; `None`
/// (nothing done) when neither applies or the access is not clean: the per-lane path.
///
/// # Safety
/// As [`access`](super::access).
pub(super) unsafe fn access_or_run(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    addrs: &[u64; WARP_SIZE],
    data: *mut u8,
) -> Option<Result<(), Stopped>> {
    let len = req.elem_bytes as u64;
    if let Some(a) = uniform(req.mask, addrs).filter(|_| !req.write) {
        // SAFETY: the caller's contract.
        if unsafe { try_uniform(ctx, req, a, data) } {
            return Some(Ok(()));
        }
    }
    if req.nvec != 1 || len > 8 {
        return None;
    }
    let run = LaneRun::of(req.mask, addrs, len)?;
    // SAFETY: the caller's contract.
    unsafe { try_run(ctx, req, &run, data) }.then_some(Ok(()))
}

/// [`access`](super::access) of an access whose lane `l` uses state-space address
/// `a0 + l * req.elem_bytes` (wrapping), given as lane 0's address: the contiguous entry
/// of the JIT's instrumented variant (`ptxjit_access_run`), for accesses whose shape the
/// JIT proved affine with a stride of the element size. Consecutive active lanes of a
/// sanitized one-element access take the run entry with no lane test; anything else
/// (and a run that is not clean) the per-lane path, with the lane addresses rebuilt:
/// the same checks and reports as [`access`](super::access) with those addresses.
///
/// # Safety
/// As [`access`](super::access).
pub unsafe fn access_affine(
    ctx: &mut WarpCtx,
    req: &AccessReq,
    a0: u64,
    data: *mut u8,
) -> Result<(), Stopped> {
    let len = req.elem_bytes as u64;
    let mut addrs = [0u64; WARP_SIZE];
    for (l, a) in addrs.iter_mut().enumerate() {
        *a = a0.wrapping_add(l as u64 * len);
    }
    // SAFETY: the caller's contract (env valid).
    let san = unsafe { (*ctx.env).san.is_some() };
    if !san || req.nvec != 1 || len > 8 || !len.is_power_of_two() || req.mask == 0 {
        // SAFETY: the caller's contract.
        return unsafe { super::access(ctx, req, &addrs, data) };
    }
    let l0 = req.mask.trailing_zeros();
    let m = (req.mask >> l0) as u64;
    if m & (m + 1) == 0 {
        // Consecutive lanes l0 .. l0 + n: a run unless its bytes wrap around.
        let (n, lo) = (m.count_ones(), addrs[l0 as usize]);
        if lo.checked_add(n as u64 * len).is_some() {
            let run = LaneRun { l0, n, lo };
            // SAFETY: the caller's contract.
            if unsafe { try_run(ctx, req, &run, data) } {
                return Ok(());
            }
        }
    }
    // SAFETY: the caller's contract.
    unsafe { super::access_lanes(ctx, req, &addrs, data) }
}

/// The one address every lane in `mask` uses, if they all use one.
fn uniform(mask: u32, addrs: &[u64; WARP_SIZE]) -> Option<u64> {
    let a = addrs[(mask.trailing_zeros() as usize).min(WARP_SIZE - 1)];
    let mut m = mask;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        if addrs[lane] != a {
            return None;
        }
    }
    (mask != 0).then_some(a)
}

/// The window, alignment and region checks of every lane's access inside the
/// state-space range `[lo, lo + total)`, each lane's address a multiple of `align`
/// bytes past `lo` (as `resolve` checks each lane): the host address of `lo` when every
/// lane's access is valid (the instruction's region cache entry filled as the per-lane
/// lookups would fill it); `None` when any might not be.
///
/// # Safety
/// As [`access`](super::access).
unsafe fn check_range(
    ctx: &WarpCtx,
    req: &AccessReq,
    lo: u64,
    total: u64,
    align: u64,
) -> Option<u64> {
    // SAFETY: the caller guarantees env is valid.
    let env = unsafe { &*ctx.env };
    // The window (as `translate` does for each lane).
    let end = lo.checked_add(total)?;
    let h = match req.space {
        Space::Shared if end <= ctx.shared_size => ctx.shared_base + lo,
        Space::Global | Space::Const | Space::Param | Space::Generic => lo,
        _ => return None,
    };
    // Alignment: every lane's address is `h` plus a multiple of `align`.
    if align == 0 || h % align != 0 {
        return None;
    }
    let hend = h.checked_add(total)?;
    // The region: a range inside one cacheable region puts every lane in it.
    let slot = if (req.inst.0 as u64) < ctx.inst_cache_len {
        // SAFETY: inst_cache holds inst_cache_len entries (runtime contract).
        // A raw array of the warp ABI, indexed by instruction number.
        Some(unsafe { &mut *ctx.inst_cache.add(crate::ir::Idx::index(req.inst)) })
    } else {
        None
    };
    let cached = slot.as_ref().is_some_and(|c| h >= c[0] && hend <= c[1]);
    if !cached {
        match env.regions.find(h, total) {
            Some(r) if (r.writable || !req.write) && env.regions.cacheable(&r) => {
                // (Every lane's lookup would find `r` and fill the entry with it.)
                if let Some(c) = slot {
                    *c = [r.lo, r.hi];
                }
            }
            _ => return None,
        }
    }
    Some(h)
}

/// The uniform entry: a load whose active lanes all read one address `a`, in a launch
/// whose sanitizers check no byte of it (`Sanitizer::checks_accesses`: `ld.param`, or
/// memcheck or synccheck alone): checked once and copied to every lane's slots.
///
/// # Safety
/// As [`access`](super::access).
unsafe fn try_uniform(ctx: &mut WarpCtx, req: &AccessReq, a: u64, data: *mut u8) -> bool {
    let (eb, nvec) = (req.elem_bytes as usize, req.nvec as usize);
    let len = (eb * nvec) as u64;
    // SAFETY: the caller guarantees env is valid.
    let san = unsafe { &*ctx.env }.san.as_deref();
    if san.is_some_and(|s| s.checks_accesses(req.space) || s.used_span(req.inst, len).is_some()) {
        return false;
    }
    // SAFETY: the caller's contract.
    let Some(h) = (unsafe { check_range(ctx, req, a, len, len) }) else {
        return false;
    };
    let sb = req.slot_bytes as usize;
    let mut m = req.mask;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        for e in 0..nvec {
            // SAFETY: `[h, h + len)` lies in a mapped region (checked above); `data`
            // holds `nvec * 32` slots (the caller's contract).
            unsafe {
                let slot = data.add((e * WARP_SIZE + lane) * sb);
                super::load_elem((h as *const u8).add(e * eb), slot, eb, sb);
            }
        }
    }
    true
}

/// The run entry for `run` (of a one-element access): when every lane's access is valid
/// and gives no sanitizer finding, performs the access and returns true; otherwise
/// changes nothing the per-lane path would not change the same way and returns false.
///
/// # Safety
/// As [`access`](super::access).
unsafe fn try_run(ctx: &mut WarpCtx, req: &AccessReq, run: &LaneRun, data: *mut u8) -> bool {
    let len = req.elem_bytes as u64;
    let total = run.n as u64 * len;
    // SAFETY: the caller guarantees env is valid (not borrowed from `ctx`).
    let env = unsafe { &*ctx.env };
    let san = env.san.as_deref();
    // A load whose `used_bytes_mask` leaves bytes out is checked byte-exactly per lane.
    if !req.write && san.is_some_and(|s| s.used_span(req.inst, len).is_some()) {
        return false;
    }
    // SAFETY: the caller's contract.
    let Some(h) = (unsafe { check_range(ctx, req, run.lo, total, len) }) else {
        return false;
    };
    if let Some(san) = san {
        let shape = AccessShape {
            space: req.space,
            len,
            write: req.write,
            inst: req.inst,
        };
        if !san.run_accesses(&view(ctx), &shape, run.l0, run.n, h) {
            return false;
        }
    }
    let sb = req.slot_bytes as usize;
    // SAFETY: `data` holds 32 slots (the caller's contract); `[h, h + total)` lies in a
    // mapped region (checked above).
    unsafe {
        let slots = data.add(run.l0 as usize * sb);
        let mem = h as *mut u8;
        if sb as u64 == len {
            // Slots as wide as the elements: the lanes' slots are the range's bytes.
            if req.write {
                std::ptr::copy_nonoverlapping(slots, mem, total as usize);
            } else {
                std::ptr::copy_nonoverlapping(mem, slots, total as usize);
            }
        } else {
            let eb = len as usize;
            for j in 0..run.n as usize {
                let (slot, m) = (slots.add(j * sb), mem.add(j * eb));
                if req.write {
                    super::copy_elem(slot, m, eb);
                } else {
                    super::load_elem(m, slot, eb, sb);
                }
            }
        }
    }
    true
}
