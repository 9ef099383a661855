//! Tensor copies through tensor maps, shared by both backends
//! (`crate::exec::asyncop::exec` dispatches here): `cp.async.bulk.tensor` loads
//! ([`AsyncOp::CpTensorLoad`]: global memory to shared memory, then a complete-tx of the
//! box's bytes on the mbarrier), stores and `cp.reduce.async.bulk.tensor` reductions
//! ([`AsyncOp::CpTensorStore`]: shared memory to global memory, `.bulk_group`), in
//! `.tile` mode. The box geometry, the out-of-bound fill and the swizzle are
//! `crate::exec::tensormap`'s.
//!
//! As for the other bulk copies (`crate::exec::asyncop`), the data moves when the
//! instruction runs and the complete-tx follows at once (after letting the CTA's other
//! warps run once, as arrivals do). The shared-memory box must be 128-byte aligned (the
//! ISA's requirement for `cp.async.bulk.tensor`); the tensor map is read through its
//! generic address (a kernel parameter, `.const` or `.global`), 128 bytes. Each lane's
//! ranges are checked (shared memory: the box; global memory: each row's in-bound
//! part) before its bytes move. A reduction applies one host atomic per in-bound element
//! (`.relaxed.gpu` each, as the ISA says). Interleaved and im2col maps are errors at
//! run time naming the map's mode.
//!
//! `tensormap.replace` ([`AsyncOp::TensormapReplace`]) decodes the map at its address,
//! sets the field and encodes it again (the ISA numbers `.elemtype` its own way: u8 u16
//! u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz; `.rank` takes the rank minus
//! one). A value the encoding cannot hold (a box size outside 1..=256, an element
//! stride outside 1..=8) is an error.

use super::asyncop::{complete_tx_by, lanes, yield_first, AddrArg, Call};
use super::atomic::{atomic, AtomReq};
use super::ctx::{stop_with_error_at, Stopped, WarpCtx, WARP_SIZE};
use super::tensormap::{self, TensorMap, MAX_RANK, TENSOR_MAP_BYTES};
use crate::ir::{AsyncOp, AtomOp, Space, Type};

type Rows = Vec<[u64; WARP_SIZE]>;

/// Runs a tensor copy for the lanes of `c`.
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
    let coords = |lane: usize| -> [i64; MAX_RANK] {
        std::array::from_fn(|i| srcs.get(i).map_or(0, |v| v[lane] as u32 as i32 as i64))
    };
    // SAFETY (all calls below): the caller's contract.
    match op {
        AsyncOp::CpTensorLoad { dim } => unsafe {
            let mut bytes = [0u64; WARP_SIZE];
            for lane in lanes(c.mask) {
                let map = read_map(ctx, c, a(1), lane, dim, "cp.async.bulk.tensor")?;
                let lc = Call {
                    mask: 1 << lane,
                    inst: c.inst,
                };
                lc.tensor_load(ctx, lane, &map, coords(lane), a(0))?;
                bytes[lane] = map.box_bytes();
            }
            yield_first(ctx)?;
            let mut out = [0u64; WARP_SIZE];
            c.update(ctx, a(2), &mut out, |m, l| complete_tx_by(m, bytes[l]))?;
        },
        AsyncOp::CpTensorStore { dim, red } => unsafe {
            let what = match red {
                Some(_) => "cp.reduce.async.bulk.tensor",
                None => "cp.async.bulk.tensor",
            };
            for lane in lanes(c.mask) {
                let map = read_map(ctx, c, a(0), lane, dim, what)?;
                let lc = Call {
                    mask: 1 << lane,
                    inst: c.inst,
                };
                let ty = match red {
                    Some(op) => Some((op, reduce_ty(ctx, &lc, lane, &map, op)?)),
                    None => None,
                };
                lc.tensor_store(ctx, lane, &map, coords(lane), a(1), ty)?;
            }
        },
        AsyncOp::TensormapReplace { field, ord } => unsafe {
            for lane in lanes(c.mask) {
                let v = srcs.first().map_or(0, |v| v[lane]);
                replace(ctx, c, a(0), lane, field, ord as usize, v)?;
            }
        },
        _ => {
            let msg = format!("{op:?} is not a tensor copy");
            // SAFETY: the caller's contract.
            unsafe { stop_with_error_at(ctx, msg, c.inst, 0) };
            return Err(Stopped);
        }
    }
    Ok(vec![])
}

/// Stops the warp with `msg` located at the instruction and `lane`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn fail(ctx: &mut WarpCtx, c: &Call, lane: usize, msg: String) -> Stopped {
    // SAFETY: the caller's contract.
    unsafe { stop_with_error_at(ctx, msg, c.inst, lane as u32) };
    Stopped
}

/// Reads and decodes lane `lane`'s tensor map; a map of another rank than the
/// instruction's `.Nd`, or of a mode ptxjit does not copy, is an error.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn read_map(
    ctx: &mut WarpCtx,
    c: &Call,
    arg: AddrArg,
    lane: usize,
    dim: u8,
    what: &str,
) -> Result<TensorMap, Stopped> {
    let (Some(space), Some(av)) = arg else {
        return Err(Stopped);
    };
    let addr = av[lane];
    let n = TENSOR_MAP_BYTES as u64;
    // SAFETY: the caller's contract.
    let h = unsafe { c.check(ctx, space, lane, addr, n, 1, false)? };
    let mut b = [0u8; TENSOR_MAP_BYTES];
    // SAFETY: `check` found the 128 bytes readable.
    unsafe { std::ptr::copy_nonoverlapping(h as *const u8, b.as_mut_ptr(), b.len()) };
    let err = |m: String| format!("{what}: the tensor map at {addr:#x} {m}");
    let map = match TensorMap::decode(&b) {
        Ok(m) => m,
        // SAFETY: the caller's contract.
        Err(e) => return Err(unsafe { fail(ctx, c, lane, err(format!("is invalid ({e})"))) }),
    };
    let problem = if map.rank != dim as u32 {
        Some(format!("has rank {}, not {dim} (.{dim}d)", map.rank))
    } else if map.im2col.is_some() {
        Some("is an im2col map, which ptxjit does not copy yet".to_string())
    } else if map.interleave != 0 {
        Some("has an interleaved layout, which ptxjit does not copy yet".to_string())
    } else {
        None
    };
    match problem {
        // SAFETY: the caller's contract.
        Some(p) => Err(unsafe { fail(ctx, c, lane, err(p)) }),
        None => Ok(map),
    }
}

/// `tensormap.replace` of field `field` (`crate::ir::TENSORMAP_FIELDS`) of lane `lane`'s
/// map.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn replace(
    ctx: &mut WarpCtx,
    c: &Call,
    arg: AddrArg,
    lane: usize,
    field: u8,
    ord: usize,
    v: u64,
) -> Result<(), Stopped> {
    let (Some(space), Some(av)) = arg else {
        return Err(Stopped);
    };
    let n = TENSOR_MAP_BYTES as u64;
    // SAFETY: the caller's contract.
    let h = unsafe { c.check(ctx, space, lane, av[lane], n, 1, true)? } as *mut u8;
    let mut b = [0u8; TENSOR_MAP_BYTES];
    // SAFETY: `check` found the 128 bytes writable.
    unsafe { std::ptr::copy_nonoverlapping(h, b.as_mut_ptr(), b.len()) };
    let name = crate::ir::TENSORMAP_FIELDS
        .get(field as usize)
        .unwrap_or(&"?");
    let mut m = match TensorMap::decode(&b) {
        Ok(m) => m,
        Err(e) => {
            let msg = format!("tensormap.replace.{name}: {e}");
            // SAFETY: the caller's contract.
            return Err(unsafe { fail(ctx, c, lane, msg) });
        }
    };
    // PTX's `.elemtype` numbers in CUDA's `CUtensorMapDataType` numbering.
    const ELEMTYPE: [u32; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12];
    let ord = ord.min(MAX_RANK - 1);
    let fits = |lo: u64, hi: u64| (lo..=hi).contains(&v);
    let ok = match field {
        0 => {
            m.global_address = v;
            true
        }
        1 => {
            m.rank = v as u32 + 1;
            fits(0, MAX_RANK as u64 - 1)
        }
        2 => {
            m.box_dim[ord] = v as u32;
            fits(1, 256)
        }
        3 => {
            m.global_dim[ord] = v as u32 as u64;
            true
        }
        4 => {
            m.global_strides[(ord + 1).min(MAX_RANK - 1)] = v;
            true
        }
        5 => {
            m.element_strides[ord] = v as u32;
            fits(1, 8)
        }
        6 => {
            m.dtype = ELEMTYPE.get(v as usize).copied().unwrap_or(0);
            fits(0, 12)
        }
        7 => {
            m.interleave = v as u32;
            fits(0, 2)
        }
        8 => {
            m.swizzle = v as u32;
            fits(0, 3)
        }
        _ => {
            m.oob_fill = v as u32;
            fits(0, 1)
        }
    };
    if !ok {
        let msg = format!("tensormap.replace.{name}: the value {v} does not fit the field");
        // SAFETY: the caller's contract.
        return Err(unsafe { fail(ctx, c, lane, msg) });
    }
    let out = m.encode();
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), h, out.len()) };
    Ok(())
}

/// The PTX type `op` reduces the map's elements as, from the ISA's table of
/// `cp.reduce.async.bulk.tensor` (`.add`: u32 s32 u64 f32 f16 bf16; `.min`/`.max`: u32
/// s32 u64 s64 f16 bf16; `.inc`/`.dec`: u32; `.and`/`.or`/`.xor`: b32 b64).
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
unsafe fn reduce_ty(
    ctx: &mut WarpCtx,
    c: &Call,
    lane: usize,
    map: &TensorMap,
    op: AtomOp,
) -> Result<Type, Stopped> {
    use Type::*;
    let t = tensormap::reduce_type(map.dtype).unwrap_or(U8);
    let ok = match op {
        AtomOp::Add => matches!(t, U32 | S32 | U64 | F32 | F16 | BF16),
        AtomOp::Min | AtomOp::Max => matches!(t, U32 | S32 | U64 | S64 | F16 | BF16),
        AtomOp::Inc | AtomOp::Dec => t == U32,
        _ => matches!(t.bits(), 32 | 64) && !t.is_float(),
    };
    if !ok {
        let name = tensormap::DTYPE_NAMES
            .get(map.dtype as usize)
            .unwrap_or(&"?");
        let msg = format!("cp.reduce.async.bulk.tensor: .{op:?} does not reduce {name} elements")
            .to_lowercase();
        // SAFETY: the caller's contract.
        return Err(unsafe { fail(ctx, c, lane, msg) });
    }
    Ok(match (op, t.bits()) {
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, 32) => B32,
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, _) => B64,
        _ => t,
    })
}

/// One row of a box: the elements along dimension 0 at fixed coordinates in the other
/// dimensions.
struct Row {
    /// Byte offset of the row's first element in the shared-memory box.
    smem: u64,
    /// Global address of the element at dimension-0 coordinate 0 (wrapping; only
    /// in-bound elements are accessed).
    global: u64,
    /// The in-bound elements: `k0` in `lo..hi` (empty when another coordinate is out).
    lo: u64,
    hi: u64,
}

/// The rows of `map`'s box at `coords`, in shared-memory order.
fn rows(map: &TensorMap, coords: [i64; MAX_RANK]) -> impl Iterator<Item = Row> + '_ {
    let n = map.box_elems();
    let eb = map.elem_bytes() as u64;
    let nrows: u64 = n[1..].iter().map(|&e| e as u64).product();
    let row_bytes = n[0] as u64 * eb;
    let c0 = coords[0];
    let d0 = map.global_dim[0] as i64;
    let (lo, hi) = ((-c0).clamp(0, n[0] as i64), (d0 - c0).clamp(0, n[0] as i64));
    (0..nrows).map(move |r| {
        let mut rest = r;
        let mut inside = true;
        let mut global = map
            .global_address
            .wrapping_add((c0 as u64).wrapping_mul(eb));
        for i in 1..MAX_RANK {
            let k = rest % n[i] as u64;
            rest /= n[i] as u64;
            if i >= map.rank as usize {
                continue;
            }
            let g = coords[i] + k as i64 * map.traversal_stride(i) as i64;
            inside &= g >= 0 && g < map.global_dim[i] as i64;
            global = global.wrapping_add((g as u64).wrapping_mul(map.global_strides[i]));
        }
        let (lo, hi) = if inside && lo < hi {
            (lo as u64, hi as u64)
        } else {
            (0, 0)
        };
        Row {
            smem: r * row_bytes,
            global,
            lo,
            hi,
        }
    })
}

impl Call {
    /// Checks the shared-memory box of `bytes` at `arg`'s lane address (128-byte aligned;
    /// a swizzled box up to the end of its last 128-byte line) and returns (the state-space
    /// address, its host address).
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn smem_box(
        &self,
        ctx: &mut WarpCtx,
        lane: usize,
        arg: AddrArg,
        map: &TensorMap,
        write: bool,
    ) -> Result<(u64, u64), Stopped> {
        let (Some(space), Some(av)) = arg else {
            return Err(Stopped);
        };
        let addr = av[lane];
        if !addr.is_multiple_of(128) {
            let msg = format!(
                "cp.async.bulk.tensor: the shared-memory address {addr:#x} is not 128-byte aligned"
            );
            // SAFETY: the caller's contract.
            return Err(unsafe { fail(ctx, self, lane, msg) });
        }
        let mut len = map.box_bytes();
        if map.swizzle_bytes() != 0 {
            len = len.next_multiple_of(128);
        }
        // SAFETY: the caller's contract.
        let h = unsafe { self.check(ctx, space, lane, addr, len, 1, write)? };
        Ok((addr, h))
    }

    /// The load of one lane: every element of the box from global memory (or the fill
    /// value) to its swizzled place in shared memory.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn tensor_load(
        &self,
        ctx: &mut WarpCtx,
        lane: usize,
        map: &TensorMap,
        coords: [i64; MAX_RANK],
        dst: AddrArg,
    ) -> Result<(), Stopped> {
        // SAFETY: the caller's contract.
        let (addr, host) = unsafe { self.smem_box(ctx, lane, dst, map, true)? };
        let eb = map.elem_bytes() as u64;
        let n0 = map.box_elems()[0] as u64;
        let width = map.swizzle_bytes();
        let fill = match map.oob_fill {
            1 => tensormap::nan_fill(map.dtype).to_le_bytes(),
            _ => [0u8; 8],
        };
        for row in rows(map, coords) {
            let src = if row.lo < row.hi {
                let start = row.global.wrapping_add(row.lo * eb);
                let len = (row.hi - row.lo) * eb;
                // SAFETY: the caller's contract.
                let h = unsafe { self.check(ctx, Space::Global, lane, start, len, 1, false)? };
                h.wrapping_sub(row.lo * eb)
            } else {
                0
            };
            for k in 0..n0 {
                let at = tensormap::swizzle(addr + row.smem + k * eb, width) - addr;
                let d = (host + at) as *mut u8;
                // SAFETY: `smem_box` checked the box's bytes, `check` the row's
                // in-bound source bytes.
                unsafe {
                    if (row.lo..row.hi).contains(&k) {
                        let s = (src + k * eb) as *const u8;
                        std::ptr::copy(s, d, eb as usize);
                    } else {
                        std::ptr::copy_nonoverlapping(fill.as_ptr(), d, eb as usize);
                    }
                }
            }
        }
        Ok(())
    }

    /// The store (or, with `red`, the reduction) of one lane: every in-bound element of
    /// the box from its swizzled place in shared memory to global memory.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn tensor_store(
        &self,
        ctx: &mut WarpCtx,
        lane: usize,
        map: &TensorMap,
        coords: [i64; MAX_RANK],
        src: AddrArg,
        red: Option<(AtomOp, Type)>,
    ) -> Result<(), Stopped> {
        // SAFETY: the caller's contract.
        let (addr, host) = unsafe { self.smem_box(ctx, lane, src, map, false)? };
        let eb = map.elem_bytes() as u64;
        let width = map.swizzle_bytes();
        let mut batch = Batch::default();
        for row in rows(map, coords) {
            if row.lo >= row.hi {
                continue;
            }
            let start = row.global.wrapping_add(row.lo * eb);
            let len = (row.hi - row.lo) * eb;
            // SAFETY: the caller's contract.
            let g = unsafe { self.check(ctx, Space::Global, lane, start, len, 1, true)? };
            for k in row.lo..row.hi {
                let at = tensormap::swizzle(addr + row.smem + k * eb, width) - addr;
                let s = (host + at) as *const u8;
                let d = g + (k - row.lo) * eb;
                match red {
                    // SAFETY: both ranges were checked above.
                    None => unsafe { std::ptr::copy(s, d as *mut u8, eb as usize) },
                    Some((op, ty)) => {
                        let mut v = [0u8; 8];
                        // SAFETY: as above.
                        unsafe { std::ptr::copy_nonoverlapping(s, v.as_mut_ptr(), eb as usize) };
                        batch.push(d, u64::from_le_bytes(v));
                        if batch.n == WARP_SIZE {
                            // SAFETY: the caller's contract.
                            unsafe { batch.flush(ctx, self, op, ty)? };
                        }
                    }
                }
            }
        }
        if let Some((op, ty)) = red {
            // SAFETY: the caller's contract.
            unsafe { batch.flush(ctx, self, op, ty)? };
        }
        Ok(())
    }
}

/// Up to 32 pending element reductions, run as one atomic call (one "lane" each, in
/// element order).
struct Batch {
    addrs: [u64; WARP_SIZE],
    vals: [u64; WARP_SIZE],
    n: usize,
}

impl Default for Batch {
    fn default() -> Self {
        Batch {
            addrs: [0; WARP_SIZE],
            vals: [0; WARP_SIZE],
            n: 0,
        }
    }
}

impl Batch {
    fn push(&mut self, addr: u64, v: u64) {
        self.addrs[self.n] = addr;
        self.vals[self.n] = v;
        self.n += 1;
    }

    /// Runs the pending reductions.
    ///
    /// # Safety
    /// `ctx.env` must point to this warp's live `WarpEnv`.
    unsafe fn flush(
        &mut self,
        ctx: &mut WarpCtx,
        c: &Call,
        op: AtomOp,
        ty: Type,
    ) -> Result<(), Stopped> {
        if self.n == 0 {
            return Ok(());
        }
        let req = AtomReq {
            op,
            ty,
            space: Space::Global,
            mask: (((1u64 << self.n) - 1) & 0xffff_ffff) as u32,
            inst: c.inst,
        };
        let mut old = [0u64; WARP_SIZE];
        // SAFETY: the caller's contract.
        unsafe {
            atomic(
                ctx,
                &req,
                &self.addrs,
                &self.vals,
                &[0; WARP_SIZE],
                &mut old,
            )?
        };
        self.n = 0;
        Ok(())
    }
}
