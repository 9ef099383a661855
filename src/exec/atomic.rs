//! `atom` and `red`: per lane, in ascending lane order, one host atomic read-modify-write
//! at the lane's address (checked like any access, and it must be writable). The
//! operations come from `crate::ops::atomic`; integer add, exchange, bitwise and min/max
//! use the host's fetch-and-op instructions, the others a compare-exchange loop. Every
//! host atomic is sequentially consistent, which is at least as strong as any `.sem` and
//! `.scope` the ISA allows, so those qualifiers need nothing more. Atomics on `.shared`
//! are host atomics too (a CTA's warps run on one OS thread, so they never race there).

use super::ctx::{self, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{AtomOp, InstId, Space, Type};
use crate::ops::atomic::apply;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::SeqCst};

/// One `atom`/`red` instruction of a warp.
pub struct AtomReq {
    pub op: AtomOp,
    pub ty: Type,
    pub space: Space,
    pub mask: u32,
    pub inst: InstId,
}

/// Performs the atomic for every lane in `req.mask`: `b[lane]`, `c[lane]` are the
/// operands, `old[lane]` receives the value the location held before.
///
/// # Safety
/// `ctx.env` must point to this warp's live [`super::ctx::WarpEnv`].
pub unsafe fn atomic(
    ctx: &mut WarpCtx,
    req: &AtomReq,
    addrs: &[u64; WARP_SIZE],
    b: &[u64; WARP_SIZE],
    c: &[u64; WARP_SIZE],
    old: &mut [u64; WARP_SIZE],
) -> Result<(), Stopped> {
    let bytes = req.ty.bytes();
    let access = AccessReq {
        space: req.space,
        elem_bytes: bytes,
        nvec: 1,
        slot_bytes: 8,
        write: true,
        mask: req.mask,
        inst: req.inst,
    };
    // SAFETY: the caller's contract.
    let host = unsafe { ctx::resolve_atomic(ctx, &access, addrs)? };
    let mut mask = req.mask;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let h = host[lane];
        // `atom.add.f32` flushes subnormals on global memory, not on shared memory.
        let ftz = !super::cluster::is_shared_host(ctx, h);
        let f = |v: u64| apply(req.op, req.ty, v, b[lane], c[lane], ftz);
        // SAFETY: `resolve` checked that h..h+bytes is an aligned, writable part of a
        // mapped region.
        old[lane] = unsafe {
            match bytes {
                2 => rmw16(AtomicU16::from_ptr(h as *mut u16), f),
                4 => rmw32(AtomicU32::from_ptr(h as *mut u32), req, b[lane], c[lane], f),
                _ => rmw64(AtomicU64::from_ptr(h as *mut u64), req, b[lane], c[lane], f),
            }
        };
    }
    Ok(())
}

fn cas_loop<T: Copy + PartialEq>(
    load: impl Fn() -> T,
    cas: impl Fn(T, T) -> Result<T, T>,
    to: impl Fn(T) -> u64,
    from: impl Fn(u64) -> T,
    f: impl Fn(u64) -> u64,
) -> u64 {
    let mut cur = load();
    loop {
        let new = from(f(to(cur)));
        if new == cur {
            // Nothing to store (a failed cas, min/max that keeps the old value): the
            // load was the atomic read.
            return to(cur);
        }
        match cas(cur, new) {
            Ok(_) => return to(cur),
            Err(now) => cur = now,
        }
    }
}

fn rmw16(a: &AtomicU16, f: impl Fn(u64) -> u64) -> u64 {
    cas_loop(
        || a.load(SeqCst),
        |x, y| a.compare_exchange_weak(x, y, SeqCst, SeqCst),
        |x| x as u64,
        |x| x as u16,
        f,
    )
}

fn rmw32(a: &AtomicU32, req: &AtomReq, b: u64, c: u64, f: impl Fn(u64) -> u64) -> u64 {
    let (b32, int) = (
        b as u32,
        matches!(req.ty, Type::U32 | Type::S32 | Type::B32),
    );
    // SAFETY (for the signed view): AtomicI32 has the same layout as AtomicU32.
    let signed = || unsafe { &*(a as *const AtomicU32 as *const std::sync::atomic::AtomicI32) };
    match (req.op, int) {
        (AtomOp::Add, true) => a.fetch_add(b32, SeqCst) as u64,
        (AtomOp::Exch, _) => a.swap(b32, SeqCst) as u64,
        (AtomOp::And, _) => a.fetch_and(b32, SeqCst) as u64,
        (AtomOp::Or, _) => a.fetch_or(b32, SeqCst) as u64,
        (AtomOp::Xor, _) => a.fetch_xor(b32, SeqCst) as u64,
        (AtomOp::Min, true) if req.ty == Type::S32 => {
            signed().fetch_min(b32 as i32, SeqCst) as u32 as u64
        }
        (AtomOp::Max, true) if req.ty == Type::S32 => {
            signed().fetch_max(b32 as i32, SeqCst) as u32 as u64
        }
        (AtomOp::Min, true) => a.fetch_min(b32, SeqCst) as u64,
        (AtomOp::Max, true) => a.fetch_max(b32, SeqCst) as u64,
        (AtomOp::Cas, _) => match a.compare_exchange(b32, c as u32, SeqCst, SeqCst) {
            Ok(v) | Err(v) => v as u64,
        },
        _ => cas_loop(
            || a.load(SeqCst),
            |x, y| a.compare_exchange_weak(x, y, SeqCst, SeqCst),
            |x| x as u64,
            |x| x as u32,
            f,
        ),
    }
}

fn rmw64(a: &AtomicU64, req: &AtomReq, b: u64, c: u64, f: impl Fn(u64) -> u64) -> u64 {
    let int = matches!(req.ty, Type::U64 | Type::S64 | Type::B64);
    // SAFETY (for the signed view): AtomicI64 has the same layout as AtomicU64.
    let signed = || unsafe { &*(a as *const AtomicU64 as *const std::sync::atomic::AtomicI64) };
    match (req.op, int) {
        (AtomOp::Add, true) => a.fetch_add(b, SeqCst),
        (AtomOp::Exch, _) => a.swap(b, SeqCst),
        (AtomOp::And, _) => a.fetch_and(b, SeqCst),
        (AtomOp::Or, _) => a.fetch_or(b, SeqCst),
        (AtomOp::Xor, _) => a.fetch_xor(b, SeqCst),
        (AtomOp::Min, true) if req.ty == Type::S64 => signed().fetch_min(b as i64, SeqCst) as u64,
        (AtomOp::Max, true) if req.ty == Type::S64 => signed().fetch_max(b as i64, SeqCst) as u64,
        (AtomOp::Min, true) => a.fetch_min(b, SeqCst),
        (AtomOp::Max, true) => a.fetch_max(b, SeqCst),
        (AtomOp::Cas, _) => match a.compare_exchange(b, c, SeqCst, SeqCst) {
            Ok(v) | Err(v) => v,
        },
        _ => cas_loop(
            || a.load(SeqCst),
            |x, y| a.compare_exchange_weak(x, y, SeqCst, SeqCst),
            |x| x,
            |x| x,
            f,
        ),
    }
}
