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
//!
//! The formatted forms ([`formatted`]: `sust.p`, `sured.p`) address samples (texels):
//! x counts texels. `sust.p` writes its 32-bit values into the first channels of the
//! texel (values past the channel count are ignored, channels past the values keep their
//! contents: the ISA leaves them unpredictable); ptxjit does this only for 32-bit
//! channel formats, where the value is stored as is (the conversion into narrower
//! formats is not defined by the ISA: a located run-time error). `sured.p.b32` reduces a
//! one-channel `u32` or `s32` texel as that type, as the ISA says; `.b64` needs a 64-bit
//! integer format, which CUDA arrays do not have (an error).

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

/// Runs one lane's surface access ([`access`]), the formatted forms (`sust.p`,
/// `sured.p`) first turned into the byte-addressed access they make; `Err` is an
/// unsupported format (a message).
pub fn formatted(
    obj: &TexObject,
    op: TexOp,
    ops: &[u64],
) -> Result<Result<[u64; 4], SurfFault>, String> {
    let res = &obj.res;
    let sub = match op {
        TexOp::Sust {
            geom,
            vec,
            clamp,
            formatted: true,
            ..
        } => {
            if res.format.bytes() != 4 {
                return Err(format!(
                    "sust.p on a surface of {:?} channels: formatted stores are supported into 32-bit channels only (f32, u32, s32)",
                    res.format
                ));
            }
            TexOp::Sust {
                geom,
                bytes: 4,
                vec: vec.min(res.channels as u8),
                clamp,
                formatted: false,
            }
        }
        TexOp::Sured {
            geom,
            op: rop,
            ty,
            clamp,
            formatted: true,
        } => {
            use crate::exec::texture::ArrayFormat;
            let ty = match (res.format, res.channels, ty) {
                (ArrayFormat::U32, 1, crate::ir::Type::B32) => crate::ir::Type::U32,
                (ArrayFormat::S32, 1, crate::ir::Type::B32) => crate::ir::Type::S32,
                _ => {
                    return Err(format!(
                        "sured.p.{} on a surface of {} {:?} channel(s): needs one 32-bit integer channel (.b32) or a 64-bit integer format (.b64, which CUDA arrays do not have)",
                        ty.name(),
                        res.channels,
                        res.format
                    ))
                }
            };
            TexOp::Sured {
                geom,
                op: rop,
                ty,
                clamp,
                formatted: false,
            }
        }
        _ => return Ok(access(obj, op, ops)),
    };
    // x in bytes (saturated to the 32-bit coordinate range: still outside if it was);
    // `.clamp` clamps the sample index to the last texel.
    let mut c = ops.to_vec();
    let mut x = ops[0] as u32 as i32 as i64;
    if matches!(
        sub,
        TexOp::Sust {
            clamp: SurfClamp::Clamp,
            ..
        } | TexOp::Sured {
            clamp: SurfClamp::Clamp,
            ..
        }
    ) {
        x = x.clamp(0, res.width.max(1) as i64 - 1);
    }
    let xb = x * res.texel_bytes() as i64;
    c[0] = xb.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64;
    Ok(access(obj, sub, &c))
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
