//! Tensor maps on a [`Device`]: what `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`
//! and `cuTensorMapReplaceAddress` do. A map is 128 bytes (ptxjit's own encoding,
//! [`TensorMap::encode`]) that a kernel takes as a `.param .align 64 .b8 tmap[128]`
//! argument ([`KernelArg::Bytes`]) or reads from device memory; the driver API's
//! requirements are checked by [`TensorMap::validate`].

use super::device::{Device, KernelArg};
use super::error::Result;
pub use crate::exec::tensormap::{Im2col, TensorMap, TensorMapError, TENSOR_MAP_BYTES};

/// The arguments of `cuTensorMapEncodeTiled`, dimension 0 (the contiguous one) first.
#[derive(Clone, Debug, Default)]
pub struct TiledDesc {
    /// `CUtensorMapDataType` (0 `UINT8` .. 12 `TFLOAT32_FTZ`).
    pub dtype: u32,
    /// Device address of the tensor's first element.
    pub global_address: u64,
    /// Elements per dimension (the rank is its length).
    pub global_dim: Vec<u64>,
    /// Byte strides of dimensions 1.. (`rank - 1` of them).
    pub global_strides: Vec<u64>,
    pub box_dim: Vec<u32>,
    pub element_strides: Vec<u32>,
    /// `CUtensorMapInterleave`, `CUtensorMapSwizzle`, `CUtensorMapL2promotion`,
    /// `CUtensorMapFloatOOBfill`.
    pub interleave: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

impl TiledDesc {
    /// The map these arguments describe (not validated); arrays shorter than the rank
    /// leave zeros, which validation refuses.
    pub fn to_map(&self) -> TensorMap {
        let rank = self.global_dim.len().min(5);
        let mut m = TensorMap {
            dtype: self.dtype,
            rank: self.global_dim.len() as u32,
            global_address: self.global_address,
            interleave: self.interleave,
            swizzle: self.swizzle,
            l2_promotion: self.l2_promotion,
            oob_fill: self.oob_fill,
            ..TensorMap::default()
        };
        for i in 0..rank {
            m.global_dim[i] = self.global_dim[i];
            m.box_dim[i] = self.box_dim.get(i).copied().unwrap_or(0);
            m.element_strides[i] = self.element_strides.get(i).copied().unwrap_or(0);
            if i > 0 {
                m.global_strides[i] = self.global_strides.get(i - 1).copied().unwrap_or(0);
            }
        }
        m
    }
}

impl Device {
    /// `cuTensorMapEncodeTiled`: the 128 bytes of a tiled tensor map, or the driver's
    /// refusal (`CUDA_ERROR_INVALID_VALUE`) with the rule broken.
    pub fn encode_tensor_map_tiled(&self, d: &TiledDesc) -> Result<[u8; TENSOR_MAP_BYTES]> {
        self.encode_tensor_map(&d.to_map())
    }

    /// Validates and encodes any map (tiled or im2col).
    pub fn encode_tensor_map(&self, m: &TensorMap) -> Result<[u8; TENSOR_MAP_BYTES]> {
        m.validate(0)?;
        Ok(m.encode())
    }

    /// `cuTensorMapReplaceAddress`: `map` with a new global address (16-byte aligned, 32
    /// with the 32B interleave).
    pub fn tensor_map_replace_address(
        &self,
        map: &[u8; TENSOR_MAP_BYTES],
        addr: u64,
    ) -> Result<[u8; TENSOR_MAP_BYTES]> {
        let mut m = TensorMap::decode(map)?;
        m.global_address = addr;
        self.encode_tensor_map(&m)
    }
}

impl From<[u8; TENSOR_MAP_BYTES]> for KernelArg {
    fn from(b: [u8; TENSOR_MAP_BYTES]) -> Self {
        KernelArg::Bytes(b.to_vec())
    }
}
