//! The asynchronous-copy and mbarrier helper (`ptxjit_async`) over
//! `crate::exec::asyncop::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{AsyncOp, InstId, Space};

/// The code of an address's state space in the helper's `spaces` argument (4 bits per
/// address, first address lowest).
pub(crate) fn space_code(s: Space) -> u32 {
    match s {
        Space::Global => 0,
        Space::Shared => 1,
        Space::SharedCluster => 3,
        _ => 2,
    }
}

fn space_from(c: u32) -> Space {
    match c & 0xf {
        0 => Space::Global,
        1 => Space::Shared,
        3 => Space::SharedCluster,
        _ => Space::Generic,
    }
}

/// Runs operation `desc` ([`AsyncOp::encode`]) for the lanes in `mask`: `data` holds
/// the operation's addresses, then its sources, each as 32 u64 lanes; the results
/// (32 u64 lanes each) are written at its start. Returns 0, or the warp's nonzero status after an
/// error.
///
/// # Safety
/// `ctx` must be the running warp's context; `data` valid as described (at least one
/// slot of 32 lanes).
pub unsafe extern "C" fn ptxjit_async(
    ctx: *mut WarpCtx,
    desc: u64,
    spaces: u32,
    mask: u32,
    inst: u32,
    data: *mut u64,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some(op) = AsyncOp::decode(desc) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let (na, ns) = (op.naddrs(), op.src_types().len());
    let mut vals = vec![[0u64; WARP_SIZE]; na + ns];
    for (k, v) in vals.iter_mut().enumerate() {
        for (l, x) in v.iter_mut().enumerate() {
            // SAFETY: `data` holds the operands (caller's contract).
            *x = unsafe { data.add(k * WARP_SIZE + l).read_unaligned() };
        }
    }
    let sp: Vec<Space> = (0..na).map(|k| space_from(spaces >> (4 * k))).collect();
    let (addrs, srcs) = vals.split_at(na);
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe {
        crate::exec::asyncop::exec(ctx, op, mask, InstId(inst), &sp, addrs, srcs)
    } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    for (k, r) in out.iter().enumerate() {
        for (l, v) in r.iter().enumerate() {
            // SAFETY: room for the results (caller's contract).
            unsafe { data.add(k * WARP_SIZE + l).write_unaligned(*v) };
        }
    }
    STATUS_OK
}
