//! Bulk copies and stores into the shared memory of other CTAs of a cluster, and bulk
//! reductions, shared by both backends (`crate::exec::asyncop::exec` dispatches here):
//!
//! - `cp.async.bulk...multicast::cluster` ([`AsyncOp::CpBulkMulticast`]): the bytes go
//!   to the same CTA-relative offset in every CTA whose rank (`%cluster_ctarank`) is set
//!   in the 16-bit `ctaMask`, and the complete-tx of `size` bytes to the mbarrier at the
//!   same offset as `mbar` in each of those CTAs;
//! - `cp.reduce.async.bulk` ([`AsyncOp::CpReduceBulk`]): element `k` of the destination
//!   becomes `op(dst[k], src[k])` (`crate::ops::atomic::apply`), one host atomic per
//!   element as the ISA gives each element `.relaxed.gpu` semantics (so `.add.f32` into
//!   global memory flushes subnormals, as the ISA says the hardware does);
//! - `st.async` and `red.async` ([`AsyncOp::StAsync`], [`AsyncOp::RedAsync`]): a store or
//!   an atomic of the lane's value, then a complete-tx of its size in bytes on `mbar`.
//!
//! As for the other copies (`crate::exec::asyncop`), the data moves when the instruction
//! runs, and the complete-tx follows at once (after letting the unit's other warps run
//! once, as arrivals do). Every lane's ranges are checked before any byte is written.

use super::asyncop::{complete_tx_by, lanes, yield_first, AddrArg, Call};
use super::atomic::{atomic, AtomReq};
use super::cluster;
use super::ctx::{stop_with_error_at, Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{AsyncOp, AtomOp, Space, Type};

type Rows = Vec<[u64; WARP_SIZE]>;

/// Runs one of the operations above for the lanes of `c`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub(super) unsafe fn exec(
    ctx: &mut WarpCtx,
    op: AsyncOp,
    c: &Call,
    spaces: &[Space],
    addrs: &[[u64; WARP_SIZE]],
    srcs: &[[u64; WARP_SIZE]],
) -> Result<Rows, Stopped> {
    let a = |k: usize| -> AddrArg { (spaces.get(k).copied(), addrs.get(k)) };
    let s = |k: usize, lane: usize| srcs.get(k).map_or(0, |v| v[lane]);
    let mut out = [0u64; WARP_SIZE];
    // SAFETY (all calls below): the caller's contract.
    match op {
        AsyncOp::CpBulkMulticast => unsafe {
            sizes_ok(ctx, c, "cp.async.bulk", |l| s(0, l))?;
            multicast(ctx, c, [a(0), a(1), a(2)], |l| s(0, l), |l| s(1, l))?;
        },
        AsyncOp::CpReduceBulk {
            op,
            ty,
            complete_tx,
        } => unsafe {
            sizes_ok(ctx, c, "cp.reduce.async.bulk", |l| s(0, l))?;
            reduce(ctx, c, op, ty, a(0), a(1), |l| s(0, l))?;
            if complete_tx {
                yield_first(ctx)?;
                c.update(ctx, a(2), &mut out, |m, l| complete_tx_by(m, s(0, l)))?;
            }
        },
        AsyncOp::StAsync { ty, nvec } => unsafe {
            let eb = ty.bytes() as u64;
            let len = eb * nvec as u64;
            let (Some(space), Some(av)) = a(0) else {
                return Err(Stopped);
            };
            let mut host = [0u64; WARP_SIZE];
            for lane in lanes(c.mask) {
                host[lane] = c.check(ctx, space, lane, av[lane], len, len, true)?;
            }
            for lane in lanes(c.mask) {
                for k in 0..nvec as usize {
                    let bytes = s(k, lane).to_le_bytes();
                    let dst = (host[lane] + k as u64 * eb) as *mut u8;
                    // `check` found `len` writable bytes at host[lane].
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, eb as usize);
                }
            }
            if let Some(san) = (*ctx.env).san.as_ref() {
                for lane in lanes(c.mask) {
                    san.async_written(&super::ctx::view(ctx), host[lane], len);
                }
            }
            yield_first(ctx)?;
            c.update(ctx, a(1), &mut out, |m, _| complete_tx_by(m, len))?;
        },
        AsyncOp::RedAsync { op, ty } => unsafe {
            let (Some(space), Some(av)) = a(0) else {
                return Err(Stopped);
            };
            let req = AtomReq {
                op,
                ty,
                space,
                mask: c.mask,
                inst: c.inst,
            };
            let b: [u64; WARP_SIZE] = std::array::from_fn(|l| s(0, l));
            let mut old = [0u64; WARP_SIZE];
            atomic(ctx, &req, av, &b, &[0; WARP_SIZE], &mut old)?;
            yield_first(ctx)?;
            let n = ty.bytes() as u64;
            c.update(ctx, a(1), &mut out, |m, _| complete_tx_by(m, n))?;
        },
        _ => {
            let msg = format!("{op:?} is not a bulk operation");
            // SAFETY: the caller's contract.
            unsafe { stop_with_error_at(ctx, msg, c.inst, 0) };
            return Err(Stopped);
        }
    }
    Ok(vec![])
}

/// Stops with a located error when a lane's size is not a multiple of 16 bytes.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn sizes_ok(
    ctx: &mut WarpCtx,
    c: &Call,
    what: &str,
    size: impl Fn(usize) -> u64,
) -> Result<(), Stopped> {
    for lane in lanes(c.mask) {
        if !size(lane).is_multiple_of(16) {
            let msg = format!("{what} size {} is not a multiple of 16 bytes", size(lane));
            // SAFETY: the caller's contract.
            unsafe { stop_with_error_at(ctx, msg, c.inst, lane as u32) };
            return Err(Stopped);
        }
    }
    Ok(())
}

/// For each cluster rank 0..16 some lane's `cta_mask` names, that rank and the call
/// restricted to those lanes.
fn per_rank<'a>(
    c: &'a Call,
    cta_mask: &'a impl Fn(usize) -> u64,
) -> impl Iterator<Item = (u32, Call)> + 'a {
    (0..16u32).filter_map(move |r| {
        let mask = lanes(c.mask)
            .filter(|&l| cta_mask(l) >> r & 1 != 0)
            .fold(0u32, |m, l| m | 1 << l);
        (mask != 0).then_some((r, Call { mask, inst: c.inst }))
    })
}

/// The multicast copy: for each lane, `size` bytes from its source to its destination's
/// offset in each CTA of its mask, then a complete-tx of `size` on the mbarrier at its
/// `mbar`'s offset in each of them.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn multicast(
    ctx: &mut WarpCtx,
    c: &Call,
    [dst, src, mbar]: [AddrArg; 3],
    size: impl Fn(usize) -> u64,
    cta_mask: impl Fn(usize) -> u64,
) -> Result<(), Stopped> {
    let (Some(da), Some(ma)) = (dst.1, mbar.1) else {
        return Err(Stopped);
    };
    let mut out = [0u64; WARP_SIZE];
    // Rank `r`'s copy of each lane's cluster address `v`: the same offset in rank `r`.
    let at = |ctx: &WarpCtx, v: &[u64; WARP_SIZE], r: u32| {
        std::array::from_fn::<u64, WARP_SIZE, _>(|l| {
            cluster::encode(r, cluster::decode(ctx, v[l]).1)
        })
    };
    for (r, cr) in per_rank(c, &cta_mask) {
        let d = at(ctx, da, r);
        // SAFETY: the caller's contract.
        unsafe { cr.copy(ctx, (dst.0, Some(&d)), src, &size, &size, 16)? };
    }
    // SAFETY: the caller's contract.
    unsafe { yield_first(ctx)? };
    for (r, cr) in per_rank(c, &cta_mask) {
        let m = at(ctx, ma, r);
        // SAFETY: the caller's contract.
        unsafe {
            cr.update(ctx, (mbar.0, Some(&m)), &mut out, |m, l| {
                complete_tx_by(m, size(l))
            })?
        };
    }
    Ok(())
}

/// The bulk reduction: every lane's ranges are checked, then element `k` of each lane
/// is reduced with one host atomic (lanes in ascending order per element).
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn reduce(
    ctx: &mut WarpCtx,
    c: &Call,
    op: AtomOp,
    ty: Type,
    dst: AddrArg,
    src: AddrArg,
    size: impl Fn(usize) -> u64,
) -> Result<(), Stopped> {
    let (Some(ds), Some(da)) = dst else {
        return Err(Stopped);
    };
    let (Some(ss), Some(sa)) = src else {
        return Err(Stopped);
    };
    let mut shost = [0u64; WARP_SIZE];
    let mut most = 0u64;
    for lane in lanes(c.mask) {
        // SAFETY: the caller's contract.
        unsafe {
            c.check(ctx, ds, lane, da[lane], size(lane), 16, true)?;
            shost[lane] = c.check(ctx, ss, lane, sa[lane], size(lane), 16, false)?;
        }
        most = most.max(size(lane));
    }
    let eb = ty.bytes() as u64;
    let mut addrs = [0u64; WARP_SIZE];
    let mut b = [0u64; WARP_SIZE];
    let mut old = [0u64; WARP_SIZE];
    for k in 0..most / eb {
        let off = k * eb;
        let mut mask = 0u32;
        for lane in lanes(c.mask).filter(|&l| off < size(l)) {
            mask |= 1 << lane;
            addrs[lane] = da[lane] + off;
            let mut v = [0u8; 8];
            // SAFETY: `check` found the lane's `size` source bytes.
            unsafe {
                let p = (shost[lane] + off) as *const u8;
                std::ptr::copy_nonoverlapping(p, v.as_mut_ptr(), eb as usize);
            }
            b[lane] = u64::from_le_bytes(v);
        }
        let req = AtomReq {
            op,
            ty,
            space: ds,
            mask,
            inst: c.inst,
        };
        // SAFETY: the caller's contract.
        unsafe { atomic(ctx, &req, &addrs, &b, &[0; WARP_SIZE], &mut old)? };
    }
    Ok(())
}
