//! Memory helpers: the `ld`/`st` slow path (`ptxjit_access`), the region lookup of
//! coalesced accesses that missed their cached region (`ptxjit_region`) and atomics
//! (`ptxjit_atom`, with its descriptor encoding).

use super::*;
use crate::exec::atomic::{atomic, AtomReq};
use crate::exec::ctx;
use crate::exec::ctx::{AccessReq, WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{AtomOp, InstId, Space, Type};
use crate::jit::helpers::{rd, slot_bytes, wr};

/// `ld`/`st` slow path: `exec::ctx::access` for the lanes in `mask`. Returns 0, or the
/// warp's (nonzero) status after a fault.
///
/// # Safety
/// `ctx` must be the running warp's context (with a valid `env`), `addrs` 32 u64 lane
/// addresses, `data` the slots described by `shape`.
pub unsafe extern "C" fn ptxjit_access(
    ctx: *mut WarpCtx,
    shape: u64,
    mask: u32,
    inst: u32,
    addrs: *const u64,
    data: *mut u8,
) -> u32 {
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    // SAFETY: the caller's contract.
    unsafe {
        checked(ctx, shape, mask, inst, |ctx, req| {
            ctx::access(ctx, req, addrs, data)
        })
    }
}

/// The access helpers' common frame: counts the call, unpacks the access `shape` (a
/// malformed one is a fault), runs `access` and returns 0 or the warp's nonzero status
/// after a fault.
///
/// # Safety
/// `ctx` must be the running warp's context; `access` must be safe to run with it.
unsafe fn checked(
    ctx: *mut WarpCtx,
    shape: u64,
    mask: u32,
    inst: u32,
    access: impl FnOnce(&mut WarpCtx, &AccessReq) -> Result<(), ctx::Stopped>,
) -> u32 {
    count(|c| c.access += 1);
    let ctx = unsafe { &mut *ctx };
    let Some(req) = AccessReq::unpack_shape(shape, mask, InstId(inst)) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    match access(ctx, &req) {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// `ld`/`st` slow path of an access through an affine address register (lane `l` at
/// `a0 + l * stride`, wrapping in `bits` = 32 or 64 bits, zero-extended from 32): the
/// lane addresses are built here instead of spilled by the generated code, then
/// exactly as [`ptxjit_access`] with them. Returns as [`ptxjit_access`].
///
/// # Safety
/// `ctx` must be the running warp's context (with a valid `env`), `data` the slots
/// described by `shape`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ptxjit_access_affine(
    ctx: *mut WarpCtx,
    shape: u64,
    mask: u32,
    inst: u32,
    a0: u64,
    stride: u64,
    bits: u32,
    data: *mut u8,
) -> u32 {
    let addrs = affine_addrs(a0, stride, bits);
    // SAFETY: the caller's contract.
    unsafe {
        checked(ctx, shape, mask, inst, |ctx, req| {
            ctx::access(ctx, req, &addrs, data)
        })
    }
}

/// The 32 lane addresses `a0 + l * stride`, wrapping in `bits` (32: each zero-extended
/// from 32 bits, as the generated code widens a 32-bit address register's lanes).
pub(crate) fn affine_addrs(a0: u64, stride: u64, bits: u32) -> [u64; WARP_SIZE] {
    let mut addrs = [0u64; WARP_SIZE];
    for (l, a) in addrs.iter_mut().enumerate() {
        let x = a0.wrapping_add((l as u64).wrapping_mul(stride));
        *a = if bits == 32 { x as u32 as u64 } else { x };
    }
    addrs
}

/// The instrumented variant's contiguous `ld`/`st`: `exec::ctx::access_affine` for the
/// lanes in `mask`, lane `l` at `a0 + l * element size`. Returns as [`ptxjit_access`].
///
/// # Safety
/// `ctx` must be the running warp's context (with a valid `env`), `data` the slots
/// described by `shape`.
pub unsafe extern "C" fn ptxjit_access_run(
    ctx: *mut WarpCtx,
    shape: u64,
    mask: u32,
    inst: u32,
    a0: u64,
    data: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        checked(ctx, shape, mask, inst, |ctx, req| {
            ctx::access_affine(ctx, req, a0, data)
        })
    }
}

/// Whether `[addr, addr+len)` lies inside one region (a writable one if `write != 0`);
/// if so, stores the region in instruction `inst`'s entry of the per-instruction region
/// cache (as `access` does) and returns 1, otherwise 0.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env` (and an `inst_cache` of
/// `inst_cache_len` entries).
pub unsafe extern "C" fn ptxjit_region(
    ctx: *mut WarpCtx,
    addr: u64,
    len: u64,
    write: u32,
    inst: u32,
) -> u32 {
    count(|c| c.region += 1);
    let ctx = unsafe { &mut *ctx };
    if ctx.env.is_null() {
        return 0;
    }
    let env = unsafe { &*ctx.env };
    match env.regions.find(addr, len) {
        Some(r) if (write == 0 || r.writable) && env.regions.cacheable(&r) => {
            if (inst as u64) < ctx.inst_cache_len && !ctx.inst_cache.is_null() {
                // SAFETY: inst_cache holds inst_cache_len entries (runtime contract).
                unsafe { *ctx.inst_cache.add(inst as usize) = [r.lo, r.hi] };
            }
            1
        }
        _ => 0,
    }
}

const SPACES: [Space; 4] = [
    Space::Global,
    Space::Shared,
    Space::Generic,
    Space::SharedCluster,
];

pub(crate) fn encode(op: AtomOp, ty: Type, space: Space) -> u64 {
    let pos = |i: Option<usize>| i.unwrap_or(0xff) as u64;
    op.code() | ty.code() << 8 | pos(SPACES.iter().position(|&s| s == space)) << 16
}

fn decode(d: u64) -> Option<(AtomOp, Type, Space)> {
    Some((
        AtomOp::from_code(d & 0xff)?,
        Type::from_code(d >> 8 & 0xff)?,
        *SPACES.get((d >> 16 & 0xff) as usize)?,
    ))
}

/// Runs an `atom`/`red` for the lanes in `mask`; returns 0, or the warp's nonzero status
/// after a fault.
///
/// # Safety
/// `ctx` must be the running warp's context; `addrs` 32 u64 lane addresses; `b`, `c`,
/// `out` slots of 32 lanes of the operation type's container width.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ptxjit_atom(
    ctx: *mut WarpCtx,
    desc: u64,
    mask: u32,
    inst: u32,
    addrs: *const u64,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some((op, ty, space)) = decode(desc) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let sb = slot_bytes(ty);
    let slots = |p: *const u8| {
        let mut v = [0u64; WARP_SIZE];
        for (l, x) in v.iter_mut().enumerate() {
            // SAFETY: slots of 32 lanes (caller's contract).
            *x = unsafe { rd(p, l, sb, 64) };
        }
        v
    };
    let (bv, cv) = (slots(b), slots(c));
    // SAFETY: 32 lane addresses (caller's contract).
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    let req = AtomReq {
        op,
        ty,
        space,
        mask,
        inst: InstId(inst),
    };
    let mut old = [0u64; WARP_SIZE];
    // SAFETY: ctx is the running warp's context.
    if unsafe { atomic(ctx, &req, addrs, &bv, &cv, &mut old) }.is_err() {
        return ctx.status.max(STATUS_FAULT);
    }
    for l in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        // SAFETY: the result slot holds 32 lanes.
        unsafe { wr(out, l, sb, old[l]) };
    }
    STATUS_OK
}

#[cfg(test)]
mod tests {
    use crate::ir::{AtomOp, Type};

    #[test]
    fn affine_addrs_wrap_in_their_width() {
        // 64 bits: lane 31 at 2^64 - 8 + 31 * 4 = 116 (mod 2^64).
        let a = super::affine_addrs(u64::MAX - 7, 4, 64);
        assert_eq!(
            (a[0], a[1], a[2], a[31]),
            (u64::MAX - 7, u64::MAX - 3, 0, 116)
        );
        // 32 bits: lane 2 at 0xffff_fff8 + 2 * 8 = 2^32 + 8, kept as 8 (zero-extended).
        let a = super::affine_addrs(0xffff_fff8, 8, 32);
        assert_eq!((a[0], a[1], a[2], a[31]), (0xffff_fff8, 0, 8, 240));
    }

    #[test]
    fn encode_round_trips() {
        for op in (0..).map_while(AtomOp::from_code) {
            for ty in (0..).map_while(Type::from_code) {
                for sp in super::SPACES {
                    assert_eq!(super::decode(super::encode(op, ty, sp)), Some((op, ty, sp)));
                }
            }
        }
    }
}
