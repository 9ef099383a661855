//! The runtime side of `wgmma.mma_async` (one warp of the warpgroup, both backends through
//! `crate::exec::matrix::exec`): the warp-uniform matrix descriptors, the reads of A
//! (descriptor form) and B from the CTA's shared memory through the checked access path,
//! then `crate::ops::wgmma` for the product.
//!
//! The instruction is asynchronous: the ISA defines the accumulator registers only after
//! `wgmma.wait_group`, and the shared memory it reads must not change before then, so
//! computing the result when the warp issues it (here) is one of the executions the ISA
//! allows; `wgmma.fence`, `commit_group` and `wait_group` then have nothing left to do.

use crate::exec::ctx::{self, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{InstId, Space, WgmmaOp};
use crate::ops::wgmma::{self as ops, Desc};
use std::collections::BTreeMap;

/// Stops the warp with `msg` at `lane`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn fail<T>(ctx: &mut WarpCtx, msg: String, inst: InstId, lane: usize) -> Result<T, Stopped> {
    // SAFETY: the caller's contract.
    unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane as u32) };
    Err(Stopped)
}

/// The 64-bit descriptor in words `k`, `k + 1`, which must be the same in every lane.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn desc(
    ctx: &mut WarpCtx,
    inst: InstId,
    words: &[[u32; WARP_SIZE]],
    k: usize,
    what: &str,
) -> Result<Desc, Stopped> {
    let w = |j: usize, l: usize| words.get(j).map_or(0, |x| x[l]) as u64;
    let v = |l: usize| w(k, l) | w(k + 1, l) << 32;
    if let Some(l) = (1..WARP_SIZE).find(|&l| v(l) != v(0)) {
        let msg = format!(
            "wgmma.mma_async: lane {l}'s {what} descriptor {:#x} differs from lane 0's ({:#x}): it must be the same in every lane",
            v(l),
            v(0)
        );
        // SAFETY: the caller's contract.
        return unsafe { fail(ctx, msg, inst, l) };
    }
    Ok(ops::decode_desc(v(0)))
}

/// Reads the elements at `bit_addrs` (shared-space bit addresses) of a `bits`-bit type,
/// 16-byte chunk by chunk.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn read_elems(
    ctx: &mut WarpCtx,
    inst: InstId,
    bits: u64,
    bit_addrs: &[u64],
) -> Result<Vec<u64>, Stopped> {
    let mut chunks: BTreeMap<u64, [u8; 16]> = BTreeMap::new();
    for &a in bit_addrs {
        chunks.insert(a / 128 * 16, [0; 16]);
    }
    let keys: Vec<u64> = chunks.keys().copied().collect();
    for group in keys.chunks(WARP_SIZE) {
        let mut addrs = [0u64; WARP_SIZE];
        addrs[..group.len()].copy_from_slice(group);
        let req = AccessReq {
            space: Space::Shared,
            elem_bytes: 4,
            nvec: 4,
            slot_bytes: 4,
            write: false,
            mask: (u64::MAX >> (64 - group.len())) as u32,
            inst,
        };
        let mut data = [0u32; 4 * WARP_SIZE];
        // SAFETY: `data` holds 4 * 32 slots of 4 bytes; the caller's contract for env.
        unsafe { ctx::access(ctx, &req, &addrs, data.as_mut_ptr() as *mut u8)? };
        for (l, a) in group.iter().enumerate() {
            if let Some(c) = chunks.get_mut(a) {
                for e in 0..4 {
                    c[4 * e..4 * e + 4].copy_from_slice(&data[e * WARP_SIZE + l].to_le_bytes());
                }
            }
        }
    }
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    Ok(bit_addrs
        .iter()
        .map(|&a| {
            let c = chunks.get(&(a / 128 * 16)).copied().unwrap_or([0; 16]);
            let v = u128::from_le_bytes(c);
            (v >> (a % 128)) as u64 & mask
        })
        .collect())
}

/// One warp's `wgmma.mma_async`: `words` are the source words (A, B's descriptor, the
/// accumulators, scale-d; 64-bit registers as two words); returns the accumulator words.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: WgmmaOp,
    inst: InstId,
    words: &[[u32; WARP_SIZE]],
) -> Result<Vec<[u32; WARP_SIZE]>, Stopped> {
    let (n, k) = (op.n as u64, op.k() as u64);
    let w = (ctx.warpid % 4) as u64;
    let (abits, bbits) = (op.atype.bits() as u64, op.btype.bits() as u64);
    let a_words = if op.a_desc { 2 } else { 4 };
    // SAFETY (all blocks below): the caller's contract.
    let a = if op.a_desc {
        let d = unsafe { desc(ctx, inst, words, 0, "A")? };
        let addrs: Vec<u64> = (0..16 * k)
            .map(|e| ops::elem_bit_addr(&d, abits, op.trans_a, 16 * w + e / k, e % k))
            .collect();
        unsafe { read_elems(ctx, inst, abits, &addrs)? }
    } else {
        ops::a_from_regs(op, &words[..4.min(words.len())])
    };
    let bd = unsafe { desc(ctx, inst, words, a_words, "B")? };
    let addrs: Vec<u64> = (0..k * n)
        .map(|e| ops::elem_bit_addr(&bd, bbits, op.trans_b, e % n, e / n))
        .collect();
    let b = unsafe { read_elems(ctx, inst, bbits, &addrs)? };
    let c0 = a_words + 2;
    let c = words.get(c0..c0 + op.d_regs()).unwrap_or(&[]);
    let scale = words
        .get(c0 + op.d_regs())
        .copied()
        .unwrap_or([0; WARP_SIZE]);
    if let Some(l) = (1..WARP_SIZE).find(|&l| (scale[l] != 0) != (scale[0] != 0)) {
        let msg = format!(
            "wgmma.mma_async: lane {l}'s scale-d ({}) differs from lane 0's ({}): it must be the same in every lane",
            scale[l], scale[0]
        );
        // SAFETY: the caller's contract.
        return unsafe { fail(ctx, msg, inst, l) };
    }
    Ok(ops::warp_mma(op, &a, &b, c, scale[0] != 0))
}
