//! The texture and surface instructions ([`InstKind::Texture`]: `tex`, `tld4`, `suld.b`,
//! `sust.b`/`sust.p`, `sured.b`): the operation enum and its operand signature. Every form takes the
//! 64-bit texture or surface object handle as its first source, then the coordinates
//! (the array layer first for layered geometries), then `sust`'s values.
//!
//! [`InstKind::Texture`]: super::InstKind::Texture

use super::Type;

/// The geometry of a texture or surface access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    /// `.a1d`: layer, x.
    A1d,
    /// `.a2d`: layer, x, y (and an unused fourth element).
    A2d,
    /// `.cube`: direction x, y, z (and an unused fourth element); `tex` only.
    Cube,
    /// `.acube`: cubemap index, direction x, y, z; `tex` only.
    Acube,
}

impl TexGeom {
    /// Number of coordinate operands (`.3d` and `.a2d` take a vector of four).
    pub fn ncoords(self) -> usize {
        match self {
            TexGeom::D1 => 1,
            TexGeom::D2 | TexGeom::A1d => 2,
            TexGeom::D3 | TexGeom::A2d | TexGeom::Cube | TexGeom::Acube => 4,
        }
    }
    /// Number of elements of `tex`'s offset vector (`.3d`: four, the last ignored).
    pub fn noffsets(self) -> usize {
        match self.dims() {
            3 => 4,
            n => n,
        }
    }
    pub fn layered(self) -> bool {
        matches!(self, TexGeom::A1d | TexGeom::A2d | TexGeom::Acube)
    }
    /// `.cube` or `.acube`.
    pub fn cube(self) -> bool {
        matches!(self, TexGeom::Cube | TexGeom::Acube)
    }
    /// Number of spatial dimensions.
    pub fn dims(self) -> usize {
        match self {
            TexGeom::D1 | TexGeom::A1d => 1,
            TexGeom::D2 | TexGeom::A2d => 2,
            TexGeom::D3 | TexGeom::Cube | TexGeom::Acube => 3,
        }
    }
}

/// The kind of a module-scope opaque reference variable (`.global .texref`,
/// `.samplerref`, `.surfref`). Each is an 8-byte module variable whose device address
/// is its handle: the runtime binds a texture or surface to that address in the
/// device's texture table, and instructions naming the variable use its address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexRefKind {
    Texture,
    Sampler,
    Surface,
}

impl TexRefKind {
    /// The kind of a type name (`texref`, `samplerref`, `surfref`).
    pub fn from_name(n: &str) -> Option<TexRefKind> {
        Some(match n {
            "texref" => TexRefKind::Texture,
            "samplerref" => TexRefKind::Sampler,
            "surfref" => TexRefKind::Surface,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            TexRefKind::Texture => "texref",
            TexRefKind::Sampler => "samplerref",
            TexRefKind::Surface => "surfref",
        }
    }
}

/// What a surface access does outside the surface (`.trap`, `.clamp`, `.zero`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfClamp {
    Trap,
    Clamp,
    Zero,
}

/// The attributes `txq` and `suq` query (`crate::exec::texquery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexQuery {
    Width,
    Height,
    Depth,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    ForceUnnormalizedCoords,
    FilterMode,
    /// `.addr_mode_0` .. `.addr_mode_2`.
    AddrMode(u8),
    /// `suq.memory_layout`.
    MemoryLayout,
}

/// Every [`TexQuery`], in descriptor order.
pub const TEX_QUERIES: [TexQuery; 13] = [
    TexQuery::Width,
    TexQuery::Height,
    TexQuery::Depth,
    TexQuery::NormalizedCoords,
    TexQuery::ArraySize,
    TexQuery::NumMipmapLevels,
    TexQuery::NumSamples,
    TexQuery::ForceUnnormalizedCoords,
    TexQuery::FilterMode,
    TexQuery::AddrMode(0),
    TexQuery::AddrMode(1),
    TexQuery::AddrMode(2),
    TexQuery::MemoryLayout,
];

/// The level-of-detail mode of `tex` (`.base`, `.level`, `.grad`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexMip {
    /// Level 0 (`.base`, the default).
    Base,
    /// `.level`: an explicit level of detail operand (of the coordinate type).
    Level,
    /// `.grad`: the `dPdx` and `dPdy` gradient vectors (`.f32`).
    Grad,
}

/// The operations of [`super::InstKind::Texture`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexOp {
    /// `tex{.mip}.geom.v4.dtype.ctype d, [t, c]{, lod | dPdx, dPdy}{, e}{, f}` (sources:
    /// see [`TexOp::signature`]): `dtype` `F32`/`S32`/`U32`, `F16` (`.v4.f16`)
    /// or `F16x2` (`.v2.f16x2`: two results), `ctype` `F32`/`S32`; `offset`: the `.s32`
    /// offset vector `e`;
    /// `depth`: the `.f32` depth-compare operand `f`; `sampler`: the independent
    /// mode's `[t, s, c]` (a second `U64` source, the sampler, after the handle).
    Tex {
        geom: TexGeom,
        dtype: Type,
        ctype: Type,
        mip: TexMip,
        offset: bool,
        depth: bool,
        sampler: bool,
    },
    /// `tld4.comp.geom.v4.dtype.f32 d, [t, c]{, e}{, f}` (`geom` `.2d .a2d .cube .acube`):
    /// component `comp` (0 r .. 3 a) of the four texels of the bilinear footprint;
    /// `offset`, `depth` and `sampler` as for `Tex`.
    Tld4 {
        comp: u8,
        geom: TexGeom,
        dtype: Type,
        offset: bool,
        depth: bool,
        sampler: bool,
    },
    /// `suld.b.geom{.vN}.bB.clamp d, [s, c]`: `bytes` per element (1, 2, 4, 8), `vec`
    /// elements; the x coordinate is in bytes.
    Suld {
        geom: TexGeom,
        bytes: u8,
        vec: u8,
        clamp: SurfClamp,
    },
    /// `sust.{b,p}.geom{.vN}.bB.clamp [s, c], v`.
    Sust {
        geom: TexGeom,
        bytes: u8,
        vec: u8,
        clamp: SurfClamp,
        formatted: bool,
    },
    /// `sured.b.op.geom.ctype.clamp [s, c], v`: an atomic reduction `op` (`Add`, `Min`,
    /// `Max`, `And`, `Or`) of `v` (type `ty`: `U32 S32 B32 U64 S64`) into the surface
    /// element at byte coordinate x (1d, 2d, 3d); `formatted` (`sured.p`, `ty` `B32` or
    /// `B64`): x is a sample index and the element's signedness is the format's.
    Sured {
        geom: TexGeom,
        op: super::AtomOp,
        ty: Type,
        clamp: SurfClamp,
        formatted: bool,
    },
    /// `txq{.level}.query.b32 d, [t]{, lod}` (`surface` false) and `suq.query.b32 d, [s]`:
    /// sources the handle and, with `level`, the `.s32` level of detail; one `.b32` result.
    Query {
        query: TexQuery,
        surface: bool,
        level: bool,
    },
}

/// The operand types of a [`TexOp`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexSignature {
    /// Result registers, in order.
    pub dsts: Vec<Type>,
    /// Sources: the handle (`U64`), the sampler (`U64`, independent mode), the
    /// coordinates, then `tex`'s level of detail or gradients, offsets and depth-compare
    /// value, or `sust`/`sured`'s values.
    pub srcs: Vec<Type>,
}

fn elem_type(bytes: u8) -> Type {
    match bytes {
        1 => Type::B8,
        2 => Type::B16,
        4 => Type::B32,
        _ => Type::B64,
    }
}

impl TexOp {
    pub fn geom(self) -> TexGeom {
        match self {
            TexOp::Tex { geom, .. }
            | TexOp::Suld { geom, .. }
            | TexOp::Sust { geom, .. }
            | TexOp::Sured { geom, .. } => geom,
            TexOp::Tld4 { geom, .. } => geom,
            TexOp::Query { .. } => TexGeom::D1,
        }
    }

    /// Whether the op takes a sampler (independent mode): its handle is source 1.
    pub fn has_sampler(self) -> bool {
        matches!(
            self,
            TexOp::Tex { sampler: true, .. } | TexOp::Tld4 { sampler: true, .. }
        )
    }

    /// The index of the first coordinate source (after the handle and any sampler).
    pub fn first_coord(self) -> usize {
        1 + self.has_sampler() as usize
    }

    pub fn signature(self) -> TexSignature {
        if let TexOp::Query { level, .. } = self {
            let mut srcs = vec![Type::U64];
            if level {
                srcs.push(Type::S32);
            }
            return TexSignature {
                dsts: vec![Type::B32],
                srcs,
            };
        }
        let geom = self.geom();
        let coord = match self {
            TexOp::Tex { ctype, .. } => ctype,
            TexOp::Tld4 { .. } => Type::F32,
            _ => Type::S32,
        };
        let mut srcs = vec![Type::U64; self.first_coord()];
        for k in 0..geom.ncoords() {
            srcs.push(if geom.layered() && k == 0 {
                Type::U32
            } else {
                coord
            });
        }
        let (mip, offset, depth) = match self {
            TexOp::Tex {
                mip, offset, depth, ..
            } => (mip, offset, depth),
            TexOp::Tld4 { offset, depth, .. } => (TexMip::Base, offset, depth),
            _ => (TexMip::Base, false, false),
        };
        match mip {
            TexMip::Base => {}
            TexMip::Level => srcs.push(coord),
            // dPdx then dPdy, `dims` elements each (the ISA's fourth element of a 3d or
            // cube gradient is ignored and not a source).
            TexMip::Grad => srcs.extend(std::iter::repeat_n(Type::F32, 2 * geom.dims())),
        }
        if offset {
            srcs.extend(std::iter::repeat_n(Type::S32, geom.noffsets()));
        }
        if depth {
            srcs.push(Type::F32);
        }
        let dsts = match self {
            // `.v2.f16x2`: (r, g) and (b, a) packed, the first in the low half.
            TexOp::Tex {
                dtype: Type::F16x2, ..
            } => vec![Type::F16x2; 2],
            TexOp::Tex { dtype, .. } | TexOp::Tld4 { dtype, .. } => vec![dtype; 4],
            TexOp::Suld { bytes, vec, .. } => vec![elem_type(bytes); vec as usize],
            TexOp::Sust { bytes, vec, .. } => {
                srcs.extend(std::iter::repeat_n(elem_type(bytes), vec as usize));
                vec![]
            }
            TexOp::Sured { ty, .. } => {
                srcs.push(ty);
                vec![]
            }
            TexOp::Query { .. } => vec![Type::B32],
        };
        TexSignature { dsts, srcs }
    }
}
