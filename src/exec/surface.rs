//! Surface loads and stores (`suld.b`, `sust.b`) on surface objects
//! ([`crate::exec::texture::TexObject`] without sampler state), for both backends.
//!
//! The x coordinate is in bytes. An access of `bytes * vec` bytes must be aligned to its
//! size and no larger than a texel (an H100 reports `CUDA_ERROR_MISALIGNED_ADDRESS` for
//! both). Outside the surface, `.trap` stops the launch, `.clamp` moves each coordinate
//! to the nearest edge (x to the last whole access of the row; the layer is unsigned, so
//! a negative layer clamps to the last one) and `.zero` reads zeros and drops stores.
//! Checked against an H100 on every `suld.b`/`sust.b` case of
//! `tests/golden/cases_future.txt` (bit-exact, misaligned forms included).

use crate::exec::ctx::FaultKind;
use crate::exec::texture::TexObject;
use crate::ir::{SurfClamp, TexOp};

/// Why a surface access faults: the kind, the byte address it computed and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfFault {
    pub kind: FaultKind,
    pub addr: u64,
    pub size: u32,
    pub write: bool,
}

/// Runs one lane's `suld`/`sust`: `ops` are the coordinates (then `sust`'s values);
/// returns `suld`'s elements (zero-extended), or the fault.
pub fn access(obj: &TexObject, op: TexOp, ops: &[u64]) -> Result<[u64; 4], SurfFault> {
    let (geom, bytes, vec, clamp, store) = match op {
        TexOp::Suld {
            geom,
            bytes,
            vec,
            clamp,
        } => (geom, bytes, vec, clamp, false),
        TexOp::Sust {
            geom,
            bytes,
            vec,
            clamp,
            ..
        } => (geom, bytes, vec, clamp, true),
        TexOp::Sured {
            geom, ty, clamp, ..
        } => (geom, ty.bytes() as u8, 1, clamp, true),
        _ => {
            return Err(SurfFault {
                kind: FaultKind::OutOfBounds,
                addr: 0,
                size: 0,
                write: false,
            })
        }
    };
    let res = &obj.res;
    let n = geom.ncoords();
    let c: Vec<i64> = ops[..n].iter().map(|v| *v as u32 as i32 as i64).collect();
    let (layer, xyz) = if geom.layered() {
        (c[0], &c[1..])
    } else {
        (0, &c[..])
    };
    let size = bytes as i64 * vec as i64;
    let tb = res.texel_bytes() as i64;
    let mut x = xyz[0];
    let fault = |kind, x: i64| SurfFault {
        kind,
        addr: res.base.wrapping_add(x as u64),
        size: size as u32,
        write: store,
    };
    if size > tb || x.rem_euclid(size) != 0 {
        return Err(fault(FaultKind::Misaligned, x));
    }
    let row = res.width as i64 * tb;
    let h = res.height.max(1) as i64;
    let d = if res.layered {
        1
    } else {
        res.depth.max(1) as i64
    };
    let layers = if res.layered {
        res.depth.max(1) as i64
    } else {
        1
    };
    let mut y = if geom.dims() >= 2 { xyz[1] } else { 0 };
    let mut z = if geom.dims() >= 3 { xyz[2] } else { 0 };
    let mut l = layer;
    let outside =
        x < 0 || x + size > row || y < 0 || y >= h || z < 0 || z >= d || l < 0 || l >= layers;
    if outside {
        match clamp {
            SurfClamp::Trap => return Err(fault(FaultKind::OutOfBounds, x)),
            SurfClamp::Zero => return Ok([0; 4]),
            SurfClamp::Clamp => {
                x = x.clamp(0, row - size);
                y = y.clamp(0, h - 1);
                z = z.clamp(0, d - 1);
                // The layer is unsigned: a negative one clamps to the last layer.
                l = (l as u32 as i64).min(layers - 1);
            }
        }
    }
    let plane = if res.layered { l } else { z };
    let off = (plane * h + y) * row + x;
    let p = res.base as usize + off as usize;
    let mut out = [0u64; 4];
    if let TexOp::Sured { op, ty, .. } = op {
        reduce(p, op, ty, ops[n]);
        return Ok([0; 4]);
    }
    for k in 0..vec as usize {
        let a = p + k * bytes as usize;
        let b = bytes as usize;
        if store {
            let v = ops[n + k].to_le_bytes();
            // SAFETY: inside the surface's device range (checked at creation; device
            // memory stays mapped).
            unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), a as *mut u8, b) };
        } else {
            let mut v = [0u8; 8];
            // SAFETY: as above.
            unsafe { std::ptr::copy_nonoverlapping(a as *const u8, v.as_mut_ptr(), b) };
            out[k] = u64::from_le_bytes(v);
        }
    }
    Ok(out)
}

/// `sured`: one atomic read-modify-write of the element at host address `p` (aligned to
/// its size: `access` checked it), with `crate::ops::atomic`'s operation, as `red` does.
fn reduce(p: usize, op: crate::ir::AtomOp, ty: crate::ir::Type, v: u64) {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
    let f = |old: u64| crate::ops::atomic::apply(op, ty, old, v, 0, false);
    if ty.bits() == 64 {
        // SAFETY: `p` is an aligned 8-byte element inside the surface's device range.
        let a = unsafe { AtomicU64::from_ptr(p as *mut u64) };
        let _ = a.fetch_update(SeqCst, SeqCst, |o| Some(f(o)));
    } else {
        // SAFETY: as above, 4 bytes.
        let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
        let _ = a.fetch_update(SeqCst, SeqCst, |o| Some(f(o as u64) as u32));
    }
}
