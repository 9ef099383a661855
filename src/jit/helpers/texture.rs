//! The texture/surface helper (`ptxjit_texture`) over `crate::exec::texture::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{AtomOp, InstId, SurfClamp, TexGeom, TexMip, TexOp, Type};

/// The data-area offsets of operands of types `tys` (4 bytes per lane for 32-bit and
/// narrower types, 8 for 64-bit), one after the other from 0; and the total size.
pub(crate) fn layout(tys: &[Type]) -> (Vec<i32>, i32) {
    let mut offs = Vec::with_capacity(tys.len());
    let mut off = 0;
    for t in tys {
        offs.push(off);
        off += if t.bits() == 64 { 8 } else { 4 } * WARP_SIZE as i32;
    }
    (offs, off)
}

/// Runs texture instruction `op` (a `TexOp` packed by [`encode`]) for the lanes in `mask`: `data` holds
/// the sources as [`layout`] places them; the results are written from its start in the
/// same way. Returns 0, or the warp's nonzero status after an error.
///
/// # Safety
/// `ctx` must be the running warp's context; `data`
/// valid as described.
pub unsafe extern "C" fn ptxjit_texture(
    ctx: *mut WarpCtx,
    op: u64,
    mask: u32,
    inst: u32,
    data: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some(op) = decode(op) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let sig = op.signature();
    let (offs, _) = layout(&sig.srcs);
    let mut srcs = vec![[0u64; WARP_SIZE]; sig.srcs.len()];
    for ((s, t), off) in srcs.iter_mut().zip(&sig.srcs).zip(&offs) {
        for (l, v) in s.iter_mut().enumerate() {
            // SAFETY: `data` holds the sources (caller's contract).
            *v = unsafe {
                let p = data.add(*off as usize);
                if t.bits() == 64 {
                    (p.add(8 * l) as *const u64).read_unaligned()
                } else {
                    (p.add(4 * l) as *const u32).read_unaligned() as u64
                }
            };
        }
    }
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe { crate::exec::texture::exec(ctx, op, mask, InstId(inst), &srcs) } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    let (offs, _) = layout(&sig.dsts);
    for ((r, t), off) in out.iter().zip(&sig.dsts).zip(&offs) {
        for (l, v) in r.iter().enumerate() {
            // SAFETY: room for the results (caller's contract).
            unsafe {
                let p = data.add(*off as usize);
                if t.bits() == 64 {
                    (p.add(8 * l) as *mut u64).write_unaligned(*v)
                } else {
                    (p.add(4 * l) as *mut u32).write_unaligned(*v as u32)
                }
            };
        }
    }
    STATUS_OK
}

const GEOMS: [TexGeom; 7] = [
    TexGeom::D1,
    TexGeom::D2,
    TexGeom::D3,
    TexGeom::A1d,
    TexGeom::A2d,
    TexGeom::Cube,
    TexGeom::Acube,
];
const TYPES: [Type; 5] = [Type::F32, Type::S32, Type::U32, Type::F16, Type::F16x2];
const CLAMPS: [SurfClamp; 3] = [SurfClamp::Trap, SurfClamp::Clamp, SurfClamp::Zero];
const RED_OPS: [AtomOp; 5] = [
    AtomOp::Add,
    AtomOp::Min,
    AtomOp::Max,
    AtomOp::And,
    AtomOp::Or,
];
const RED_TYPES: [Type; 6] = [
    Type::U32,
    Type::S32,
    Type::B32,
    Type::U64,
    Type::S64,
    Type::B64,
];

fn idx<T: PartialEq>(list: &[T], v: &T) -> u64 {
    list.iter().position(|x| x == v).unwrap_or(0) as u64
}

/// Packs a `TexOp` into the helper's 64-bit descriptor.
pub(crate) fn encode(op: TexOp) -> u64 {
    match op {
        TexOp::Tex {
            geom,
            dtype,
            ctype,
            mip,
            offset,
            depth,
            sampler,
        } => {
            idx(&GEOMS, &geom) << 4
                | idx(&TYPES, &dtype) << 8
                | idx(&TYPES, &ctype) << 12
                | idx(&MIPS, &mip) << 44
                | extra_bits(offset, depth, sampler)
        }
        TexOp::Tld4 {
            comp,
            geom,
            dtype,
            offset,
            depth,
            sampler,
        } => {
            1 | idx(&GEOMS, &geom) << 4
                | (comp as u64) << 16
                | idx(&TYPES, &dtype) << 8
                | extra_bits(offset, depth, sampler)
        }
        TexOp::Suld {
            geom,
            bytes,
            vec,
            clamp,
        } => 2 | idx(&GEOMS, &geom) << 4 | surf_bits(bytes, vec, clamp),
        TexOp::Sust {
            geom,
            bytes,
            vec,
            clamp,
            formatted,
        } => 3 | idx(&GEOMS, &geom) << 4 | surf_bits(bytes, vec, clamp) | (formatted as u64) << 40,
        TexOp::Sured {
            geom,
            op,
            ty,
            clamp,
            formatted,
        } => {
            4 | idx(&GEOMS, &geom) << 4
                | idx(&RED_OPS, &op) << 8
                | idx(&RED_TYPES, &ty) << 12
                | idx(&CLAMPS, &clamp) << 36
                | (formatted as u64) << 40
        }
        TexOp::Query {
            query,
            surface,
            level,
        } => {
            5 | idx(&crate::ir::TEX_QUERIES, &query) << 8
                | (surface as u64) << 16
                | (level as u64) << 17
        }
    }
}

const MIPS: [TexMip; 3] = [TexMip::Base, TexMip::Level, TexMip::Grad];

fn extra_bits(offset: bool, depth: bool, sampler: bool) -> u64 {
    (offset as u64) << 48 | (depth as u64) << 49 | (sampler as u64) << 50
}

fn surf_bits(bytes: u8, vec: u8, clamp: SurfClamp) -> u64 {
    (bytes as u64) << 20 | (vec as u64) << 28 | idx(&CLAMPS, &clamp) << 36
}

/// The inverse of [`encode`].
pub(crate) fn decode(c: u64) -> Option<TexOp> {
    let geom = *GEOMS.get((c >> 4 & 15) as usize)?;
    let ty = |s: u32| TYPES.get((c >> s & 15) as usize).copied();
    let bytes = (c >> 20 & 255) as u8;
    let vec = (c >> 28 & 255) as u8;
    let clamp = CLAMPS.get((c >> 36 & 15) as usize).copied();
    let (offset, depth) = (c >> 48 & 1 != 0, c >> 49 & 1 != 0);
    let sampler = c >> 50 & 1 != 0;
    Some(match c & 15 {
        0 => TexOp::Tex {
            geom,
            dtype: ty(8)?,
            ctype: ty(12)?,
            mip: *MIPS.get((c >> 44 & 3) as usize)?,
            offset,
            depth,
            sampler,
        },
        1 => TexOp::Tld4 {
            comp: (c >> 16 & 3) as u8,
            geom,
            dtype: ty(8)?,
            offset,
            depth,
            sampler,
        },
        2 => TexOp::Suld {
            geom,
            bytes,
            vec,
            clamp: clamp?,
        },
        3 => TexOp::Sust {
            geom,
            bytes,
            vec,
            clamp: clamp?,
            formatted: c >> 40 & 1 != 0,
        },
        4 => TexOp::Sured {
            geom,
            op: *RED_OPS.get((c >> 8 & 15) as usize)?,
            ty: *RED_TYPES.get((c >> 12 & 15) as usize)?,
            clamp: clamp?,
            formatted: c >> 40 & 1 != 0,
        },
        5 => TexOp::Query {
            query: *crate::ir::TEX_QUERIES.get((c >> 8 & 255) as usize)?,
            surface: c >> 16 & 1 != 0,
            level: c >> 17 & 1 != 0,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_round_trip() {
        let ops = [
            TexOp::Tex {
                geom: TexGeom::A2d,
                dtype: Type::U32,
                ctype: Type::S32,
                mip: TexMip::Base,
                offset: false,
                depth: false,
                sampler: false,
            },
            TexOp::Tex {
                geom: TexGeom::Acube,
                dtype: Type::F32,
                ctype: Type::F32,
                mip: TexMip::Grad,
                offset: true,
                depth: true,
                sampler: true,
            },
            TexOp::Tld4 {
                comp: 3,
                geom: TexGeom::A2d,
                dtype: Type::F32,
                offset: true,
                depth: false,
                sampler: true,
            },
            TexOp::Suld {
                geom: TexGeom::D3,
                bytes: 8,
                vec: 2,
                clamp: SurfClamp::Zero,
            },
            TexOp::Sured {
                geom: TexGeom::D2,
                op: AtomOp::Max,
                ty: Type::S64,
                clamp: SurfClamp::Clamp,
                formatted: false,
            },
            TexOp::Sured {
                geom: TexGeom::D3,
                op: AtomOp::Min,
                ty: Type::B64,
                clamp: SurfClamp::Zero,
                formatted: true,
            },
            TexOp::Sust {
                geom: TexGeom::A1d,
                bytes: 2,
                vec: 4,
                clamp: SurfClamp::Clamp,
                formatted: false,
            },
            TexOp::Query {
                query: crate::ir::TexQuery::AddrMode(2),
                surface: false,
                level: true,
            },
            TexOp::Query {
                query: crate::ir::TexQuery::MemoryLayout,
                surface: true,
                level: false,
            },
        ];
        for op in ops {
            assert_eq!(decode(encode(op)), Some(op));
        }
    }
}
