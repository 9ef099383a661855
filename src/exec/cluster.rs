//! Thread block clusters (sm_90), warp side: `.shared::cluster` addresses, `mapa`,
//! `getctarank`, `cvta{.to}.shared::cluster` and `barrier.cluster.{arrive,wait}`, for both
//! backends (the interpreter and the JIT's `ptxjit_async` helper call [`exec`]).
//!
//! **Shared memory of a cluster.** The runtime runs the CTAs of a cluster together on
//! one worker thread, each with its own shared window (`WarpCtx::cluster_shared` lists
//! their host addresses by rank). A `.shared::cluster` address is 32 bits:
//! - below 2^24 it is an offset in the executing CTA's own window, so every `.shared`
//!   (`.shared::cta`) address is also the `.shared::cluster` address of the same byte,
//!   as the ISA requires;
//! - otherwise bits 24 and up hold the rank plus one and bits 0-23 the offset in that
//!   rank's window ([`encode`]; `mapa.shared::cluster` returns this form, also for the
//!   executing CTA's own rank).
//!
//! Generic addresses of shared memory are host addresses of the windows (as for a
//! single CTA), so a generic load, store or atomic reaches another CTA's shared memory
//! through the address `mapa` (generic) or `cvta.shared::cluster` returns. A CTA's
//! windows hold at most 227 KiB, well below 2^24.
//!
//! **Cluster barrier.** `barrier.cluster.arrive` records the lanes' arrival with the
//! scheduler ([`CLUSTER_BARRIER`] in the warp's arrivals, not waiting);
//! `barrier.cluster.wait` suspends the warp until the phase its lanes arrived in has
//! completed: every non-exited thread of every CTA of the cluster arrived
//! (`runtime::cluster` counts). A wait can therefore not return before the other CTAs'
//! threads arrived, and everything they wrote before arriving is visible after it (one
//! OS thread runs the whole cluster).

use crate::exec::barrier::{Arrival, WarpYield};
use crate::exec::ctx::{stop_with_error_at, Stopped, WarpCtx, STATUS_OK, WARP_SIZE};
use crate::ir::{AsyncOp, InstId, Space};

/// The barrier id of `barrier.cluster` in a warp's arrivals (the CTA barriers are 0-15).
pub const CLUSTER_BARRIER: u32 = 16;
/// Bits of a `.shared::cluster` address below its rank field.
pub const RANK_SHIFT: u32 = 24;
const OFFSET_MASK: u64 = (1 << RANK_SHIFT) - 1;

/// The `.shared::cluster` address of byte `off` of rank `rank`'s window.
pub fn encode(rank: u32, off: u64) -> u64 {
    (rank as u64 + 1) << RANK_SHIFT | (off & OFFSET_MASK)
}

/// (rank, offset) of a `.shared::cluster` address (not checked against the cluster).
pub fn decode(ctx: &WarpCtx, addr: u64) -> (u64, u64) {
    match addr >> RANK_SHIFT {
        0 => (ctx.sreg.cluster_ctarank as u64, addr),
        hi => (hi - 1, addr & OFFSET_MASK),
    }
}

/// Host address of rank `rank`'s shared window, if the cluster has that rank.
pub fn window(ctx: &WarpCtx, rank: u64) -> Option<u64> {
    if ctx.cluster_shared.is_null() {
        return (rank == ctx.sreg.cluster_ctarank as u64).then_some(ctx.shared_base);
    }
    if rank >= ctx.sreg.cluster_nctarank as u64 {
        return None;
    }
    // SAFETY: the runtime's table holds cluster_nctarank entries while the warp runs.
    Some(unsafe { *ctx.cluster_shared.add(rank as usize) })
}

/// Host address of the `len` bytes at `.shared::cluster` address `addr`, or `None`
/// when they are not inside one window of the cluster.
pub fn translate(ctx: &WarpCtx, addr: u64, len: u64) -> Option<u64> {
    let (rank, off) = decode(ctx, addr);
    let base = window(ctx, rank)?;
    if off.checked_add(len)? > ctx.shared_size {
        return None;
    }
    Some(base + off)
}

/// (rank, offset) of generic address `addr` if it lies in a shared window of the
/// cluster.
pub fn locate(ctx: &WarpCtx, addr: u64) -> Option<(u64, u64)> {
    let n = if ctx.cluster_shared.is_null() {
        1
    } else {
        ctx.sreg.cluster_nctarank as u64
    };
    let own = ctx.sreg.cluster_ctarank as u64;
    (0..n)
        .map(|k| if ctx.cluster_shared.is_null() { own } else { k })
        .find_map(|rank| {
            let base = window(ctx, rank)?;
            let off = addr.wrapping_sub(base);
            (off < ctx.shared_size).then_some((rank, off))
        })
}

/// (rank, offset) of lane `lane`'s address `addr` in `space` (`.shared::cluster` or
/// generic), or the error message when it is no shared memory of the cluster.
fn place(
    ctx: &WarpCtx,
    what: &str,
    space: Space,
    addr: u64,
    lane: usize,
) -> Result<(u64, u64), String> {
    let found = match space {
        Space::Generic => locate(ctx, addr),
        _ => {
            let (rank, off) = decode(ctx, addr);
            (window(ctx, rank).is_some() && off < ctx.shared_size).then_some((rank, off))
        }
    };
    found.ok_or_else(|| {
        let sp = if space == Space::Generic {
            "generic address"
        } else {
            ".shared::cluster address"
        };
        format!(
            "{what}: {sp} {addr:#x} (lane {lane}) is not in the shared memory of a CTA of the \
             cluster ({} CTAs of {} bytes)",
            ctx.sreg.cluster_nctarank.max(1),
            ctx.shared_size
        )
    })
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask >> l & 1 != 0)
}

/// Runs the cluster operation `op` (`mapa`, `getctarank`, `cvta`, `barrier.cluster`) for
/// the lanes in `mask`; returns its results (one row of 32 lanes per result).
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`; the barrier operations must run
/// inside the warp's scheduler coroutine.
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
    let space = spaces.first().copied().unwrap_or(Space::Generic);
    let a = |lane: usize| addrs.first().map_or(0, |v| v[lane]);
    let fail = |ctx: &mut WarpCtx, msg: String, lane: usize| {
        // SAFETY: the caller's contract.
        unsafe { stop_with_error_at(ctx, msg, inst, lane as u32) };
        Err(Stopped)
    };
    match op {
        AsyncOp::Mapa { wide } => {
            for lane in lanes(mask) {
                let (_, off) = match place(ctx, "mapa", space, a(lane), lane) {
                    Ok(p) => p,
                    Err(msg) => return fail(ctx, msg, lane),
                };
                let rank = srcs.first().map_or(0, |v| v[lane]) & 0xffff_ffff;
                let Some(base) = window(ctx, rank) else {
                    let msg = format!(
                        "mapa: rank {rank} (lane {lane}) is not in the cluster of {} CTAs",
                        ctx.sreg.cluster_nctarank.max(1)
                    );
                    return fail(ctx, msg, lane);
                };
                let v = match space {
                    Space::Generic => base + off,
                    _ => encode(rank as u32, off),
                };
                out[lane] = if wide { v } else { v & 0xffff_ffff };
            }
        }
        AsyncOp::GetCtaRank => {
            for lane in lanes(mask) {
                match place(ctx, "getctarank", space, a(lane), lane) {
                    Ok((rank, _)) => out[lane] = rank,
                    Err(msg) => return fail(ctx, msg, lane),
                }
            }
        }
        AsyncOp::ClusterCvta { to_generic, wide } => {
            for lane in lanes(mask) {
                let v = if to_generic {
                    match place(ctx, "cvta.shared::cluster", space, a(lane), lane) {
                        Ok((rank, off)) => window(ctx, rank).map_or(0, |b| b + off),
                        Err(msg) => return fail(ctx, msg, lane),
                    }
                } else {
                    // Like `cvta.to.shared`, an address outside every window converts
                    // to an offset that is (almost always) outside the own window.
                    match locate(ctx, a(lane)) {
                        Some((rank, off)) if rank == ctx.sreg.cluster_ctarank as u64 => off,
                        Some((rank, off)) => encode(rank as u32, off),
                        None => a(lane).wrapping_sub(ctx.shared_base),
                    }
                };
                out[lane] = if wide { v } else { v & 0xffff_ffff };
            }
        }
        AsyncOp::ClusterArrive => unsafe { arrive(ctx, mask, inst, false)? },
        AsyncOp::ClusterWait => unsafe { arrive(ctx, mask, inst, true)? },
        _ => return fail(ctx, format!("{op:?} is not a cluster operation"), 0),
    }
    Ok(vec![out; op.dst_types().len()])
}

/// `barrier.cluster.arrive` (`wait` false: the lanes arrive and go on) or
/// `barrier.cluster.wait` (`wait` true: the warp suspends until the phase the lanes
/// arrived in completes).
///
/// # Safety
/// As [`exec`].
unsafe fn arrive(ctx: &mut WarpCtx, mask: u32, inst: InstId, wait: bool) -> Result<(), Stopped> {
    // SAFETY: the caller's contract.
    let env = unsafe { &mut *ctx.env };
    let Some(y) = env.yielder else {
        let msg = "barrier.cluster outside a scheduled warp".to_string();
        let lane = mask.trailing_zeros().min(31);
        unsafe { stop_with_error_at(ctx, msg, inst, lane) };
        return Err(Stopped);
    };
    env.arrivals.push(Arrival {
        id: CLUSTER_BARRIER,
        count: None,
        mask,
        inst,
        wait,
        red: None,
    });
    // SAFETY: the scheduler keeps the yielder alive while the coroutine runs.
    let y = unsafe { &*y };
    y.suspend(if wait {
        WarpYield::Wait
    } else {
        WarpYield::Arrive
    });
    if ctx.status != STATUS_OK {
        return Err(Stopped);
    }
    Ok(())
}

/// Whether host address `h` lies in a shared window of the cluster (atomics on shared
/// memory do not flush subnormals).
pub fn is_shared_host(ctx: &WarpCtx, h: u64) -> bool {
    locate(ctx, h).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_through_ranks() {
        let bases = [0x1000u64, 0x9000, 0x5000, 0x20000];
        let mut ctx = WarpCtx::new([32, 1, 1], [1, 0, 0], [4, 1, 1], 0);
        ctx.sreg.set_cluster([1, 0, 0], [4, 1, 1], [4, 1, 1]);
        ctx.shared_base = bases[1];
        ctx.shared_size = 0x100;
        ctx.cluster_shared = bases.as_ptr();
        // Own offsets are cluster addresses of the own window.
        assert_eq!(decode(&ctx, 0x10), (1, 0x10));
        assert_eq!(translate(&ctx, 0x10, 4), Some(0x9010));
        // Rank 3's byte 0x20: (3 + 1) << 24 | 0x20.
        assert_eq!(encode(3, 0x20), 0x0400_0020);
        assert_eq!(translate(&ctx, 0x0400_0020, 4), Some(0x20020));
        assert_eq!(translate(&ctx, 0x0100_0000, 4), Some(0x1000)); // rank 0
        assert_eq!(translate(&ctx, 0x0400_00fe, 4), None); // past the window
        assert_eq!(translate(&ctx, 0x0500_0000, 4), None); // no rank 4
        assert_eq!(locate(&ctx, 0x5004), Some((2, 4)));
        assert_eq!(locate(&ctx, 0x5100), None);
        assert!(is_shared_host(&ctx, 0x10ff));
        // Without a table only the own window exists.
        ctx.cluster_shared = std::ptr::null();
        assert_eq!(translate(&ctx, 0x0100_0000, 4), None);
        assert_eq!(translate(&ctx, 0x0200_0008, 4), Some(0x9008));
        assert_eq!(locate(&ctx, 0x9000), Some((1, 0)));
    }
}
