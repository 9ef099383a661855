//! Tensor maps (`CUtensorMap`): the 128-byte object `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col` write on the host and `cp.async.bulk.tensor`,
//! `cp.reduce.async.bulk.tensor` and `tensormap.replace` read on the device. The driver
//! API calls the object opaque, so its encoding is ptxjit's own ([`TensorMap::encode`]);
//! the validation of [`TensorMap::validate`] is the list of requirements of the CUDA
//! driver API's documentation of `cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col`
//! (CUDA 12.9 `cuda.h`), for a compute capability 9.0 device (the packed 4/6-bit data
//! types and the `128B_ATOM_*` swizzles are the 10.0 additions, refused).
//!
//! **Geometry** ([`TensorMap::box_elems`], [`swizzle`]), from the PTX ISA's "Tensors"
//! section (5.5: tensor, bounding box, traversal stride, out-of-bound access) and its
//! "Tensor swizzling modes" section (5.5.6 in PTX ISA 8.5):
//! - along dimension `i` a copy visits `ceil(boxDim[i] / elementStrides[i])` elements,
//!   at tensor coordinates `c[i] + k * elementStrides[i]` (the driver: with no interleave
//!   the stride of dimension 0 is ignored, taken as 1);
//! - in shared memory the visited elements are packed densely, dimension 0 fastest;
//! - an element whose coordinates fall outside `[0, globalDim[i])` in any dimension is
//!   out of bounds: a load fills it with zero, or with a NaN when the map asks for the
//!   NaN fill ([`nan_fill`]), and a store or reduction skips it;
//! - swizzling permutes the 16-byte chunks of shared memory: with swizzle width `W`
//!   (32, 64 or 128 bytes) the pattern repeats after 8 lines of `W` bytes (256, 512,
//!   1024 bytes), and chunk `j` of line `r` of that pattern goes to chunk `j ^ (r mod
//!   8) / (8 / (W / 16))`, the ISA's tables (32B: lines 4-7 swap their two chunks; 64B:
//!   lines 2k and 2k+1 XOR their four chunk numbers with k; 128B: line r XORs its eight
//!   with r). As an address function: bits [4, 4 + log2(W/16)) of the shared-memory
//!   address XOR bits [7, 7 + log2(W/16)), so a box that does not start on a
//!   pattern boundary continues the pattern where its address is.

use crate::ir::Type;

/// Bytes of a `CUtensorMap`.
pub const TENSOR_MAP_BYTES: usize = 128;
/// The most dimensions a tensor map has.
pub const MAX_RANK: usize = 5;
/// Marks an encoded map (bytes 120..128), so that a kernel handed other bytes gets an
/// error instead of a copy from a wild address.
const MAGIC: u64 = u64::from_le_bytes(*b"ptxjTMap");

/// `CUtensorMapDataType` values a compute capability 9.0 device accepts (0..=12).
pub const DTYPE_NAMES: [&str; 13] = [
    "UINT8",
    "UINT16",
    "UINT32",
    "INT32",
    "UINT64",
    "INT64",
    "FLOAT16",
    "FLOAT32",
    "FLOAT64",
    "BFLOAT16",
    "FLOAT32_FTZ",
    "TFLOAT32",
    "TFLOAT32_FTZ",
];

/// Bytes of one element of data type `dtype` (`CUtensorMapDataType`), if it is one of
/// [`DTYPE_NAMES`].
pub fn elem_bytes(dtype: u32) -> Option<u32> {
    Some(match dtype {
        0 => 1,
        1 | 6 | 9 => 2,
        2 | 3 | 7 | 10 | 11 | 12 => 4,
        4 | 5 | 8 => 8,
        _ => return None,
    })
}

/// Whether `dtype` is a floating-point type (the NaN fill needs one).
pub fn is_float(dtype: u32) -> bool {
    matches!(dtype, 6..=12)
}

/// The bits an out-of-bound element gets under `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_
/// REQUEST_ZERO_FMA`. The driver documents "a special NaN constant" without its bits;
/// ptxjit uses the positive quiet NaN with every payload bit set.
pub fn nan_fill(dtype: u32) -> u64 {
    match elem_bytes(dtype) {
        Some(2) => 0x7fff,
        Some(4) => 0x7fff_ffff,
        _ => 0x7fff_ffff_ffff_ffff,
    }
}

/// The PTX type an element of `dtype` reduces as (`cp.reduce.async.bulk.tensor`); the
/// `.f32.ftz`/`.tf32` flavours as `.f32`.
pub fn reduce_type(dtype: u32) -> Option<Type> {
    Some(match dtype {
        0 => Type::U8,
        1 => Type::U16,
        2 => Type::U32,
        3 => Type::S32,
        4 => Type::U64,
        5 => Type::S64,
        6 => Type::F16,
        7 | 10 | 11 | 12 => Type::F32,
        8 => Type::F64,
        9 => Type::BF16,
        _ => return None,
    })
}

/// The im2col part of a map (`cuTensorMapEncodeIm2col`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Im2col {
    /// `pixelBoxLowerCorner` ({D, H, W}, `rank - 2` of them).
    pub lower: [i32; 3],
    /// `pixelBoxUpperCorner`.
    pub upper: [i32; 3],
    pub channels_per_pixel: u32,
    pub pixels_per_column: u32,
}

/// A decoded tensor map. Dimension 0 is the innermost (contiguous) one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TensorMap {
    /// `CUtensorMapDataType`.
    pub dtype: u32,
    pub rank: u32,
    pub global_address: u64,
    pub global_dim: [u64; MAX_RANK],
    /// Byte stride of each dimension; `global_strides[0]` is unused (the element size):
    /// `globalStrides[i]` of the driver API is `global_strides[i + 1]` here.
    pub global_strides: [u64; MAX_RANK],
    /// Box size per dimension (tiled maps; an im2col map's box is its pixels and
    /// channels).
    pub box_dim: [u32; MAX_RANK],
    pub element_strides: [u32; MAX_RANK],
    /// `CUtensorMapInterleave`: 0 none, 1 16B, 2 32B.
    pub interleave: u32,
    /// `CUtensorMapSwizzle`: 0 none, 1 32B, 2 64B, 3 128B.
    pub swizzle: u32,
    /// `CUtensorMapL2promotion` (a performance hint: kept, not used).
    pub l2_promotion: u32,
    /// `CUtensorMapFloatOOBfill`: 0 zeros, 1 NaN.
    pub oob_fill: u32,
    pub im2col: Option<Im2col>,
}

/// Why a map was refused (the driver answers `CUDA_ERROR_INVALID_VALUE`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid tensor map: {0}")]
pub struct TensorMapError(pub String);

fn bad<T>(msg: impl Into<String>) -> Result<T, TensorMapError> {
    Err(TensorMapError(msg.into()))
}

impl TensorMap {
    /// Bytes of one element.
    pub fn elem_bytes(&self) -> u32 {
        elem_bytes(self.dtype).unwrap_or(1)
    }

    /// Swizzle width in bytes (0: none).
    pub fn swizzle_bytes(&self) -> u32 {
        match self.swizzle {
            1 => 32,
            2 => 64,
            3 => 128,
            _ => 0,
        }
    }

    /// Elements a copy visits along each dimension (module documentation); 1 beyond the
    /// rank.
    pub fn box_elems(&self) -> [u32; MAX_RANK] {
        std::array::from_fn(|i| {
            if i >= self.rank as usize {
                return 1;
            }
            let es = if i == 0 && self.interleave == 0 {
                1
            } else {
                self.element_strides[i].max(1)
            };
            self.box_dim[i].div_ceil(es)
        })
    }

    /// The traversal stride of dimension `i` in elements (module documentation).
    pub fn traversal_stride(&self, i: usize) -> u32 {
        if i == 0 && self.interleave == 0 {
            1
        } else {
            self.element_strides[i].max(1)
        }
    }

    /// Bytes a copy of one box moves to or from shared memory (the complete-tx count).
    pub fn box_bytes(&self) -> u64 {
        let n: u64 = self.box_elems().iter().map(|&e| e as u64).product();
        n * self.elem_bytes() as u64
    }

    /// Checks the driver API's requirements (module documentation); `map_addr` is the
    /// address of the `CUtensorMap` being written (64-byte aligned).
    pub fn validate(&self, map_addr: u64) -> Result<(), TensorMapError> {
        if !map_addr.is_multiple_of(64) {
            return bad(format!(
                "the tensor map address {map_addr:#x} is not 64-byte aligned"
            ));
        }
        let Some(es) = elem_bytes(self.dtype) else {
            return bad(format!(
                "data type {} is not one of a compute capability 9.0 device (0..=12)",
                self.dtype
            ));
        };
        let rank = self.rank as usize;
        let im2col = self.im2col.is_some();
        match (im2col, rank) {
            (false, 1..=5) | (true, 3..=5) => {}
            (false, _) => return bad(format!("rank {rank} is not in 1..=5")),
            (true, _) => return bad(format!("an im2col map's rank {rank} is not 3, 4 or 5")),
        }
        if self.interleave > 2 {
            return bad(format!("interleave {} is not 0, 1 or 2", self.interleave));
        }
        if self.interleave != 0 && rank < 3 {
            return bad("an interleaved layout needs rank 3 or more");
        }
        let align = if self.interleave == 2 { 32 } else { 16 };
        if !self.global_address.is_multiple_of(align) {
            return bad(format!(
                "global address {:#x} is not {align}-byte aligned",
                self.global_address
            ));
        }
        for (i, &d) in self.global_dim[..rank].iter().enumerate() {
            if d == 0 || d > 1 << 32 {
                return bad(format!("globalDim[{i}] = {d} is not in 1..=2^32"));
            }
        }
        for (i, &s) in self.global_strides[1..rank].iter().enumerate() {
            if !s.is_multiple_of(align) || s >= 1 << 40 {
                return bad(format!(
                    "globalStrides[{i}] = {s} is not a multiple of {align} below 2^40"
                ));
            }
        }
        for (i, &e) in self.element_strides[..rank].iter().enumerate() {
            if !(1..=8).contains(&e) {
                return bad(format!("elementStrides[{i}] = {e} is not in 1..=8"));
            }
        }
        let inner = match self.im2col {
            None => {
                for (i, &b) in self.box_dim[..rank].iter().enumerate() {
                    if !(1..=256).contains(&b) {
                        return bad(format!("boxDim[{i}] = {b} is not in 1..=256"));
                    }
                }
                if self.interleave == 0 && !(self.box_dim[0] * es).is_multiple_of(16) {
                    return bad(format!(
                        "boxDim[0] * {es} bytes = {} is not a multiple of 16",
                        self.box_dim[0] * es
                    ));
                }
                self.box_dim[0] * es
            }
            Some(ic) => {
                ic.validate(rank)?;
                ic.channels_per_pixel * es
            }
        };
        if self.swizzle > 3 {
            return bad(format!(
                "swizzle {} is not 0..=3 (the 128B_ATOM modes need compute capability 10.0)",
                self.swizzle
            ));
        }
        if self.interleave == 2 && self.swizzle != 1 {
            return bad("a 32B interleave needs the 32B swizzle");
        }
        let width = self.swizzle_bytes();
        if self.interleave == 0 && width != 0 && inner > width {
            return bad(format!(
                "the box's inner dimension ({inner} bytes) exceeds the {width}-byte swizzle"
            ));
        }
        if self.l2_promotion > 3 {
            return bad(format!("L2 promotion {} is not 0..=3", self.l2_promotion));
        }
        if self.oob_fill > 1 {
            return bad(format!("OOB fill {} is not 0 or 1", self.oob_fill));
        }
        if self.oob_fill == 1 && !is_float(self.dtype) {
            return bad("the NaN fill needs a floating-point data type");
        }
        Ok(())
    }

    /// The 128 bytes of the map: address (0..8), globalDim (8..48, u64 each), the
    /// strides of dimensions 1..5 (48..80), box sizes minus one (80..85), element
    /// strides (85..90), rank, data type, interleave, swizzle, L2 promotion, OOB fill,
    /// im2col flag (90..97), im2col corners (98..110, i16 each), channels per pixel and
    /// pixels per column (110..114, u16 each), the marker (120..128).
    pub fn encode(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut b = [0u8; TENSOR_MAP_BYTES];
        b[0..8].copy_from_slice(&self.global_address.to_le_bytes());
        for i in 0..MAX_RANK {
            let o = 8 + 8 * i;
            b[o..o + 8].copy_from_slice(&self.global_dim[i].to_le_bytes());
        }
        for i in 1..MAX_RANK {
            let o = 48 + 8 * (i - 1);
            b[o..o + 8].copy_from_slice(&self.global_strides[i].to_le_bytes());
        }
        for i in 0..MAX_RANK {
            b[80 + i] = self.box_dim[i].saturating_sub(1) as u8;
            b[85 + i] = self.element_strides[i] as u8;
        }
        let small = [
            self.rank,
            self.dtype,
            self.interleave,
            self.swizzle,
            self.l2_promotion,
            self.oob_fill,
            self.im2col.is_some() as u32,
        ];
        for (k, v) in small.iter().enumerate() {
            b[90 + k] = *v as u8;
        }
        if let Some(ic) = self.im2col {
            for k in 0..3 {
                let (lo, hi) = (98 + 2 * k, 104 + 2 * k);
                b[lo..lo + 2].copy_from_slice(&(ic.lower[k] as i16).to_le_bytes());
                b[hi..hi + 2].copy_from_slice(&(ic.upper[k] as i16).to_le_bytes());
            }
            b[110..112].copy_from_slice(&(ic.channels_per_pixel as u16).to_le_bytes());
            b[112..114].copy_from_slice(&(ic.pixels_per_column as u16).to_le_bytes());
        }
        b[120..128].copy_from_slice(&MAGIC.to_le_bytes());
        b
    }

    /// Inverse of [`TensorMap::encode`]; an error for bytes no encode wrote.
    pub fn decode(b: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMap, TensorMapError> {
        let u64_at = |o: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(w)
        };
        let i16_at = |o: usize| i16::from_le_bytes([b[o], b[o + 1]]) as i32;
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as u32;
        if u64_at(120) != MAGIC {
            return bad("the 128 bytes are not a tensor map cuTensorMapEncode* wrote");
        }
        let mut m = TensorMap {
            global_address: u64_at(0),
            rank: b[90] as u32,
            dtype: b[91] as u32,
            interleave: b[92] as u32,
            swizzle: b[93] as u32,
            l2_promotion: b[94] as u32,
            oob_fill: b[95] as u32,
            ..TensorMap::default()
        };
        for i in 0..MAX_RANK {
            m.global_dim[i] = u64_at(8 + 8 * i);
            m.box_dim[i] = b[80 + i] as u32 + 1;
            m.element_strides[i] = b[85 + i] as u32;
        }
        for i in 1..MAX_RANK {
            m.global_strides[i] = u64_at(48 + 8 * (i - 1));
        }
        if b[96] != 0 {
            m.im2col = Some(Im2col {
                lower: std::array::from_fn(|k| i16_at(98 + 2 * k)),
                upper: std::array::from_fn(|k| i16_at(104 + 2 * k)),
                channels_per_pixel: u16_at(110),
                pixels_per_column: u16_at(112),
            });
        }
        if m.rank == 0 || m.rank as usize > MAX_RANK || elem_bytes(m.dtype).is_none() {
            return bad("the tensor map's rank or data type is out of range");
        }
        Ok(m)
    }
}

impl Im2col {
    /// The driver's requirements on the im2col bounding box of a rank-`rank` map.
    fn validate(&self, rank: usize) -> Result<(), TensorMapError> {
        let n = rank - 2;
        let lim = match rank {
            3 => 32768,
            4 => 128,
            _ => 16,
        };
        for (k, &v) in self.lower[..n].iter().chain(&self.upper[..n]).enumerate() {
            if v < -lim || v >= lim {
                return bad(format!(
                    "im2col corner offset {k} = {v} is outside [-{lim}, {}]",
                    lim - 1
                ));
            }
        }
        if !(1..=256).contains(&self.channels_per_pixel) {
            return bad(format!(
                "channelsPerPixel {} is not in 1..=256",
                self.channels_per_pixel
            ));
        }
        if !(1..=1024).contains(&self.pixels_per_column) {
            return bad(format!(
                "pixelsPerColumn {} is not in 1..=1024",
                self.pixels_per_column
            ));
        }
        Ok(())
    }
}

/// The shared-memory address of the byte at `addr` under swizzle width `width` (0, 32,
/// 64 or 128 bytes; module documentation).
pub fn swizzle(addr: u64, width: u32) -> u64 {
    let mask = match width {
        32 => 1,
        64 => 3,
        128 => 7,
        _ => return addr,
    };
    addr ^ ((addr >> 7) & mask) << 4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiled() -> TensorMap {
        TensorMap {
            dtype: 7,
            rank: 2,
            global_address: 0x1000,
            global_dim: [100, 50, 1, 1, 1],
            global_strides: [0, 512, 0, 0, 0],
            box_dim: [32, 8, 1, 1, 1],
            element_strides: [1, 1, 1, 1, 1],
            swizzle: 3,
            ..TensorMap::default()
        }
    }

    #[test]
    fn encode_round_trips() {
        let mut m = tiled();
        assert_eq!(TensorMap::decode(&m.encode()), Ok(m));
        m.rank = 4;
        m.im2col = Some(Im2col {
            lower: [-3, 2, 0],
            upper: [1, -1, 0],
            channels_per_pixel: 64,
            pixels_per_column: 1024,
        });
        m.box_dim[4] = 256;
        assert_eq!(TensorMap::decode(&m.encode()), Ok(m));
        assert!(TensorMap::decode(&[0; TENSOR_MAP_BYTES]).is_err());
    }

    /// The driver documentation's requirements, one broken at a time.
    #[test]
    fn validation_follows_the_driver_documentation() {
        assert_eq!(tiled().validate(0x40), Ok(()));
        assert!(tiled().validate(0x20).is_err());
        let broken: [fn(&mut TensorMap); 12] = [
            |m| m.rank = 6,
            |m| m.dtype = 13,
            |m| m.global_address = 0x1008,
            |m| m.global_dim[1] = 0,
            |m| m.global_strides[1] = 520,
            |m| m.box_dim[1] = 257,
            // 4 f32 = 16 bytes is fine; 3 are 12.
            |m| m.box_dim[0] = 3,
            |m| m.element_strides[1] = 9,
            // 64 f32 = 256 bytes exceed the 128-byte swizzle.
            |m| m.box_dim[0] = 64,
            |m| m.swizzle = 4,
            |m| {
                m.dtype = 2;
                m.oob_fill = 1
            },
            |m| m.interleave = 1,
        ];
        for (k, f) in broken.iter().enumerate() {
            let mut m = tiled();
            f(&mut m);
            assert!(m.validate(0x40).is_err(), "case {k} must be refused");
        }
    }

    /// The ISA's 128B table: line r of 128 bytes XORs its chunk numbers with r mod 8;
    /// 64B: lines of 64 bytes, chunk j of line r goes to j ^ (r / 2 mod 4); 32B: lines
    /// of 32 bytes, lines 4..8 of each 256 bytes swap their chunks.
    #[test]
    fn swizzle_tables() {
        for r in 0..16u64 {
            for j in 0..8u64 {
                assert_eq!(
                    swizzle(r * 128 + j * 16 + 3, 128),
                    r * 128 + (j ^ (r % 8)) * 16 + 3
                );
            }
            for j in 0..4u64 {
                assert_eq!(
                    swizzle(r * 64 + j * 16, 64),
                    r * 64 + (j ^ ((r / 2) % 4)) * 16
                );
            }
            for j in 0..2u64 {
                let want = if r % 8 >= 4 { j ^ 1 } else { j };
                assert_eq!(swizzle(r * 32 + j * 16, 32), r * 32 + want * 16);
            }
        }
        assert_eq!(swizzle(0x3f0, 0), 0x3f0);
    }

    #[test]
    fn box_geometry() {
        let mut m = tiled();
        m.element_strides = [4, 3, 1, 1, 1];
        // Dimension 0 ignores its stride without interleave; ceil(8 / 3) = 3.
        assert_eq!(m.box_elems(), [32, 3, 1, 1, 1]);
        assert_eq!(m.box_bytes(), 32 * 3 * 4);
    }
}
