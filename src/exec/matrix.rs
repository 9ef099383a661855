//! The runtime side of the warp-level matrix instructions ([`InstKind::Matrix`]:
//! `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync`, `wmma`), shared by both backends:
//! the whole-warp requirement, the memory accesses of `ldmatrix`/`stmatrix` and
//! `wmma.load/store` through the checked access path, the `mma.sp` sparsity selectors
//! the ISA leaves undefined, then `crate::ops::matrix` for the data.
//!
//! [`InstKind::Matrix`]: crate::ir::InstKind::Matrix

use crate::exec::ctx::{self, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{InstId, MatrixOp, Space, WmmaFrag};
use crate::ops::matrix as matrix_ops;

/// Stops the warp with `msg` at `lane`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn fail<T>(ctx: &mut WarpCtx, msg: String, inst: InstId, lane: usize) -> Result<T, Stopped> {
    // SAFETY: the caller's contract.
    unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane as u32) };
    Err(Stopped)
}

/// Runs a matrix instruction for the warp. `mask` is the lanes that run it (active and
/// guard true); `addrs` are the lane addresses in `space` (`ldmatrix`, `stmatrix`,
/// `wmma.load/store`); `srcs` the source registers of all 32 lanes (zero-extended
/// 64-bit containers). Returns the destination registers of all 32 lanes (none when no
/// lane runs it).
///
/// These instructions are `.sync.aligned`: the ISA leaves them undefined unless every
/// thread of the warp runs them, and each lane's result depends on the others' operands,
/// so a warp where some lane does not run it (exited, inactive, guarded off, or past the
/// CTA's thread count) stops with an error naming the instruction and the first such
/// lane. A generic `ldmatrix`/`stmatrix` address outside the CTA's shared window is an
/// error, and so is a `wmma.load/store` whose address or stride differs between lanes.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: MatrixOp,
    mask: u32,
    inst: InstId,
    space: Space,
    addrs: &[u64; WARP_SIZE],
    srcs: &[[u64; WARP_SIZE]],
) -> Result<Vec<[u64; WARP_SIZE]>, Stopped> {
    if mask == 0 {
        return Ok(Vec::new());
    }
    if mask != u32::MAX {
        let lane = (!mask).trailing_zeros();
        let msg = format!(
            "warp-level matrix instruction run by lanes {mask:#010x} of warp {}: `.sync.aligned` needs all 32 lanes of the warp (lane {lane} does not run it)",
            ctx.warpid
        );
        // SAFETY: the caller's contract.
        return unsafe { fail(ctx, msg, inst, lane as usize) };
    }
    let Some(sig) = op.signature() else {
        // SAFETY: the caller's contract.
        return unsafe { fail(ctx, format!("unsupported matrix operation {op:?}"), inst, 0) };
    };
    let words = matrix_ops::to_words(&sig.srcs, srcs);
    let mut rows = [[0u16; 8]; WARP_SIZE];
    // SAFETY (all blocks below): the caller's contract.
    let out = match op {
        MatrixOp::Ldmatrix { num, .. } => {
            unsafe { rows_access(ctx, num, inst, space, addrs, &mut rows, false)? };
            matrix_ops::eval(op, &words, &rows)
        }
        MatrixOp::Stmatrix { num, trans } => {
            rows = matrix_ops::stmatrix_rows(num, trans, &words);
            unsafe { rows_access(ctx, num, inst, space, addrs, &mut rows, true)? };
            vec![]
        }
        MatrixOp::WmmaLoad(f) => {
            let (base, stride) = unsafe { uniform(ctx, inst, addrs, &words)? };
            let mut mat = vec![];
            unsafe { wmma_access(ctx, f, inst, space, base, stride, &mut mat, false)? };
            matrix_ops::wmma_load(f, &mat)
        }
        MatrixOp::WmmaStore(f) => {
            let (base, stride) = unsafe { uniform(ctx, inst, addrs, &words)? };
            let mut mat = matrix_ops::wmma_store(f, &words);
            unsafe { wmma_access(ctx, f, inst, space, base, stride, &mut mat, true)? };
            vec![]
        }
        MatrixOp::Wgmma(w) => unsafe { crate::exec::wgmma::exec(ctx, w, inst, &words)? },
        MatrixOp::Mma(m) if m.sparse => {
            // The selector is the last source (an immediate: the same in every lane).
            let sel = words.last().map_or(0, |w| w[0]);
            let n = matrix_ops::sparse_selectors(m).unwrap_or(1);
            if sel >= n {
                let msg = format!(
                    "mma.sp sparsity selector {sel} of {} .{}: the PTX ISA defines only 0..={} (ptxas accepts it; the result is undefined)",
                    m.shape.name(),
                    m.atype.name(),
                    n - 1,
                );
                // SAFETY: the caller's contract.
                return unsafe { fail(ctx, msg, inst, 0) };
            }
            matrix_ops::eval(op, &words, &rows)
        }
        _ => matrix_ops::eval(op, &words, &rows),
    };
    Ok(matrix_ops::from_words(sig.dtype, sig.dsts, &out))
}

/// `ldmatrix`/`stmatrix`: reads or writes the 16-byte row of each lane `0..8 * num`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn rows_access(
    ctx: &mut WarpCtx,
    num: u8,
    inst: InstId,
    space: Space,
    addrs: &[u64; WARP_SIZE],
    rows: &mut [[u16; 8]; WARP_SIZE],
    write: bool,
) -> Result<(), Stopped> {
    let lanes = matrix_ops::ldmatrix_row_lanes(num);
    let name = if write { "stmatrix" } else { "ldmatrix" };
    if space == Space::Generic {
        for l in (0..WARP_SIZE).filter(|l| lanes >> l & 1 != 0) {
            let a = addrs[l];
            let off = a.wrapping_sub(ctx.shared_base);
            if off >= ctx.shared_size || ctx.shared_size - off < 16 {
                let msg = format!(
                    "{name}: generic address {a:#x} of lane {l} is not in the CTA's shared memory"
                );
                // SAFETY: the caller's contract.
                return unsafe { fail(ctx, msg, inst, l) };
            }
        }
    }
    let req = AccessReq {
        space,
        elem_bytes: 2,
        nvec: 8,
        slot_bytes: 4,
        write,
        mask: lanes,
        inst,
    };
    let mut data = [0u32; 8 * WARP_SIZE];
    if write {
        for (l, row) in rows.iter().enumerate() {
            for (e, &x) in row.iter().enumerate() {
                data[e * WARP_SIZE + l] = x as u32;
            }
        }
    }
    // SAFETY: `data` holds 8 * 32 slots of 4 bytes; the caller's contract for env.
    unsafe { ctx::access(ctx, &req, addrs, data.as_mut_ptr() as *mut u8)? };
    if !write {
        for (l, row) in rows.iter_mut().enumerate() {
            for (e, x) in row.iter_mut().enumerate() {
                *x = data[e * WARP_SIZE + l] as u16;
            }
        }
    }
    Ok(())
}

/// The warp-uniform address and stride (the last source word) of a `wmma.load/store`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn uniform(
    ctx: &mut WarpCtx,
    inst: InstId,
    addrs: &[u64; WARP_SIZE],
    words: &[[u32; WARP_SIZE]],
) -> Result<(u64, u64), Stopped> {
    let stride = words.last().copied().unwrap_or([0; WARP_SIZE]);
    for l in 1..WARP_SIZE {
        if addrs[l] != addrs[0] || stride[l] != stride[0] {
            let msg = format!(
                "wmma: lane {l}'s address {:#x} and stride {} differ from lane 0's ({:#x}, {}): they must be the same in every lane of the warp",
                addrs[l], stride[l], addrs[0], stride[0]
            );
            // SAFETY: the caller's contract.
            return unsafe { fail(ctx, msg, inst, l) };
        }
    }
    Ok((addrs[0], stride[0] as u64))
}

/// Reads (`write` false: into `mat`, row-major element bits) or writes the matrix of a
/// `wmma` fragment at `base`, lines (`rows` for `.row`, columns for `.col`) `stride`
/// elements apart. Elements of 8 bits or more are accessed one by one; sub-byte types
/// (`.s4`, `.u4`, `.b1`, whose lines are whole bytes) byte by byte.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
#[allow(clippy::too_many_arguments)]
unsafe fn wmma_access(
    ctx: &mut WarpCtx,
    f: WmmaFrag,
    inst: InstId,
    space: Space,
    base: u64,
    stride: u64,
    mat: &mut Vec<u64>,
    write: bool,
) -> Result<(), Stopped> {
    let (rows, cols) = matrix_ops::wmma_dims(f);
    let bits = f.ty.bits() as u64;
    let (lines, len) = if f.row { (rows, cols) } else { (cols, rows) };
    // Units: (byte address, bytes, line, first element of the line).
    let unit_bytes = bits.div_ceil(8);
    let per_unit = if bits < 8 { 8 / bits } else { 1 } as usize;
    let mut units = Vec::new();
    for line in 0..lines {
        let line_addr = base.wrapping_add(line as u64 * stride * bits / 8);
        for u in 0..len.div_ceil(per_unit) {
            units.push((
                line_addr.wrapping_add(u as u64 * unit_bytes),
                line,
                u * per_unit,
            ));
        }
    }
    if !write {
        *mat = vec![0; rows * cols];
    }
    let at = |line: usize, i: usize| {
        if f.row {
            line * cols + i
        } else {
            i * cols + line
        }
    };
    let emask = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    for chunk in units.chunks(WARP_SIZE) {
        let mut a = [0u64; WARP_SIZE];
        let mut data = [0u64; WARP_SIZE];
        for (l, &(addr, line, first)) in chunk.iter().enumerate() {
            a[l] = addr;
            if write {
                data[l] = (0..per_unit).filter(|j| first + j < len).fold(0, |v, j| {
                    v | (mat[at(line, first + j)] & emask) << (j as u64 * bits)
                });
            }
        }
        let req = AccessReq {
            space,
            elem_bytes: unit_bytes as u32,
            nvec: 1,
            slot_bytes: 8,
            write,
            mask: (u64::MAX >> (64 - chunk.len())) as u32,
            inst,
        };
        // SAFETY: `data` holds 32 slots of 8 bytes; the caller's contract for env.
        unsafe { ctx::access(ctx, &req, &a, data.as_mut_ptr() as *mut u8)? };
        if !write {
            for (l, &(_, line, first)) in chunk.iter().enumerate() {
                for j in (0..per_unit).filter(|j| first + j < len) {
                    mat[at(line, first + j)] = data[l] >> (j as u64 * bits) & emask;
                }
            }
        }
    }
    Ok(())
}
