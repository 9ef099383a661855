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
//! contents: the ISA leaves them unpredictable), each converted as [`store_channel`]
//! says into every channel format of a CUDA array. `sured.p.b32` reduces a
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
            let n = geom.ncoords();
            let mut c = ops.to_vec();
            for v in c.iter_mut().skip(n) {
                *v = store_channel(res.format, *v as u32);
            }
            let sub = TexOp::Sust {
                geom,
                bytes: res.format.bytes() as u8,
                vec: vec.min(res.channels as u8),
                clamp,
                formatted: false,
            };
            return Ok(sample_access(obj, sub, c));
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
    Ok(sample_access(obj, sub, ops.to_vec()))
}

/// [`access`] with x a sample index: `c`'s x becomes a byte offset (saturated to the
/// 32-bit coordinate range: still outside if it was); `.clamp` clamps the sample index
/// to the last texel.
fn sample_access(obj: &TexObject, sub: TexOp, mut c: Vec<u64>) -> Result<[u64; 4], SurfFault> {
    let res = &obj.res;
    // x in bytes (saturated to the 32-bit coordinate range: still outside if it was);
    // `.clamp` clamps the sample index to the last texel.
    let mut x = c[0] as u32 as i32 as i64;
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
    access(obj, sub, &c)
}

/// The bits `sust.p` stores into a channel of format `f` for source value `v`. The ISA
/// (surface instructions, `sust`): "If the surface format contains `UNORM`, `SNORM`, or
/// `FLOAT` data, then `.f32` is assumed; if the surface format contains `UINT` data,
/// then `.u32` is assumed; if the surface format contains `SINT` data, then `.s32` is
/// assumed. The source data is then converted from this type to the surface sample
/// format." It does not say how; ptxjit converts as `cvt` would (not checked against a
/// GPU): 32-bit formats store `v` as is; `u8`/`u16` as `cvt.sat.u8.u32`/`.u16.u32`,
/// `s8`/`s16` as `cvt.sat.s8.s32`/`.s16.s32` (saturating); `f16` as `cvt.rn.f16.f32`;
/// the normalised formats clamp the float to [0, 1] (UNORM) or [-1, 1] (SNORM), scale
/// it by 2^n - 1 or 2^(n-1) - 1 and round to nearest even (a NaN stores 0), the inverse
/// of the reads' `v / (2^n - 1)`.
pub fn store_channel(f: crate::exec::texture::ArrayFormat, v: u32) -> u64 {
    use crate::exec::texture::ArrayFormat as F;
    use crate::ir::{Rnd, Type};
    use crate::ops::convert::cvt;
    let sat = |dst: Type, src: Type| cvt(dst, src, None, false, true, v as u64);
    let norm = |lo: f64, max: f64, bits: u32| {
        let x = f32::from_bits(v) as f64;
        let q = if x.is_nan() {
            0.0
        } else {
            (x.clamp(lo, 1.0) * max).round_ties_even()
        };
        q as i64 as u64 & ((1u64 << bits) - 1)
    };
    match f {
        F::U32 | F::S32 | F::F32 => v as u64,
        F::U8 => sat(Type::U8, Type::U32),
        F::U16 => sat(Type::U16, Type::U32),
        F::S8 => sat(Type::S8, Type::S32) & 0xff,
        F::S16 => sat(Type::S16, Type::S32) & 0xffff,
        F::F16 => cvt(Type::F16, Type::F32, Some(Rnd::Rn), false, false, v as u64),
        F::Unorm8 => norm(0.0, 255.0, 8),
        F::Unorm16 => norm(0.0, 65535.0, 16),
        F::Snorm8 => norm(-1.0, 127.0, 8),
        F::Snorm16 => norm(-1.0, 32767.0, 16),
    }
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

#[cfg(test)]
mod tests {
    use crate::exec::texture::ArrayFormat;

    #[test]
    fn normalised_format_codes_round_trip() {
        // cuda.h: CU_AD_FORMAT_UNORM_INT8X1 = 0xc0 ... CU_AD_FORMAT_SNORM_INT16X4 = 0xcb,
        // in the order UNORM8, UNORM16, SNORM8, SNORM16, each with 1, 2, 4 channels.
        let want = [
            ArrayFormat::Unorm8,
            ArrayFormat::Unorm16,
            ArrayFormat::Snorm8,
            ArrayFormat::Snorm16,
        ];
        for c in 0xc0..=0xcbu32 {
            let f = ArrayFormat::from_code(c).expect("a normalised code");
            let ch = ArrayFormat::code_channels(c).expect("channels");
            assert_eq!(f, want[(c - 0xc0) as usize / 3], "{c:#x}");
            assert_eq!(ch, [1, 2, 4][(c - 0xc0) as usize % 3], "{c:#x}");
            assert_eq!(f.code(ch), c, "{c:#x}");
        }
        assert_eq!(ArrayFormat::code_channels(0x01), None);
        assert_eq!(ArrayFormat::U8.code(4), 0x01);
        assert_eq!(ArrayFormat::from_code(0xcc), None);
        assert_eq!(ArrayFormat::from_code(0x50), None, "UNORM_INT_101010_2");
    }
}
