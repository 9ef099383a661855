//! Mipmapped CUDA arrays and texture objects over them on a [`Device`] (what
//! `cuMipmappedArrayCreate`, `cuMipmappedArrayGetLevel` and a `cuTexObjectCreate` with a
//! `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY` resource do): each level is a [`CudaArray`] of its
//! own allocation, level `l` of extent `max(1, e >> l)` in each dimension the array has
//! (the layer count of a layered array stays). Sampling: [`crate::exec::mipmap`].

use super::device::Device;
use super::error::{Error, Result};
use super::texture::{ArrayDesc, CudaArray, TexRef, TexRefKind, TextureDesc};
use crate::exec::mipmap::MipChain;
use crate::exec::texture::TexObject;

/// A mipmapped array: its levels, level 0 first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MipmappedArray {
    pub levels: Vec<CudaArray>,
}

impl MipmappedArray {
    /// Level `l` (`cuMipmappedArrayGetLevel`).
    pub fn level(&self, l: usize) -> Option<CudaArray> {
        self.levels.get(l).copied()
    }
}

/// The mipmap sampler state of a texture descriptor (`CUDA_TEXTURE_DESC`'s
/// `mipmapFilterMode`, `mipmapLevelBias`, `minMipmapLevelClamp`, `maxMipmapLevelClamp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MipmapDesc {
    /// Linear filtering between levels (else the nearest level).
    pub linear: bool,
    pub bias: f32,
    pub min_clamp: f32,
    pub max_clamp: f32,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Texture(msg.into())
}

impl Device {
    /// Creates a mipmapped array of `levels` levels whose level 0 is `desc`; more
    /// levels than halving the largest extent down to 1 gives is an error, as the
    /// driver's `cuMipmappedArrayCreate` says.
    pub fn create_mipmapped_array(&self, desc: ArrayDesc, levels: u32) -> Result<MipmappedArray> {
        let spatial = |d: &ArrayDesc| {
            let depth = if d.layered || d.cubemap { 0 } else { d.depth };
            d.width.max(d.height).max(depth)
        };
        let most = usize::BITS - spatial(&desc).max(1).leading_zeros();
        if levels == 0 || levels > most {
            return Err(bad(format!(
                "{levels} mipmap levels for an array of largest extent {} (1..={most})",
                spatial(&desc)
            )));
        }
        let mut out = MipmappedArray { levels: vec![] };
        for l in 0..levels {
            let half = |e: usize| if e == 0 { 0 } else { (e >> l).max(1) };
            let mut d = desc;
            d.width = half(desc.width);
            d.height = half(desc.height);
            if !(desc.layered || desc.cubemap) {
                d.depth = half(desc.depth);
            }
            match self.create_array(d) {
                Ok(a) => out.levels.push(a),
                Err(e) => {
                    let _ = self.destroy_mipmapped_array(out);
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Frees every level (`cuMipmappedArrayDestroy`).
    pub fn destroy_mipmapped_array(&self, m: MipmappedArray) -> Result<()> {
        for a in m.levels {
            self.destroy_array(a)?;
        }
        Ok(())
    }

    /// Creates a texture object over every level of `m` with sampler state `desc` and
    /// mipmap state `mip`; returns its handle.
    pub fn create_mipmapped_texture_object(
        &self,
        m: &MipmappedArray,
        desc: TextureDesc,
        mip: MipmapDesc,
    ) -> Result<u64> {
        let (obj, chain) = self.mip_chain(m, desc, mip)?;
        Ok(self.inner.textures.insert_mip(obj, chain))
    }

    /// Binds a `.texref` to every level of `m` (what `cuTexRefSetMipmappedArray` and
    /// the `cuTexRefSetMipmap*` calls set up), replacing any binding.
    pub fn bind_mipmapped_tex_ref(
        &self,
        r: &TexRef,
        m: &MipmappedArray,
        desc: TextureDesc,
        mip: MipmapDesc,
    ) -> Result<()> {
        if r.kind != TexRefKind::Texture {
            return Err(bad(format!(
                "bind_mipmapped_tex_ref on a .{}",
                r.kind.name()
            )));
        }
        let (obj, chain) = self.mip_chain(m, desc, mip)?;
        self.inner.textures.insert_mip_at(r.addr, obj, chain);
        Ok(())
    }

    /// Level 0 as a texture object with sampler state `desc`, and the levels.
    fn mip_chain(
        &self,
        m: &MipmappedArray,
        desc: TextureDesc,
        mip: MipmapDesc,
    ) -> Result<(TexObject, MipChain)> {
        let Some(first) = m.levels.first() else {
            return Err(bad("a mipmapped array without levels"));
        };
        let levels: Vec<_> = m.levels.iter().map(|a| a.resource()).collect();
        for r in &levels {
            self.check_resource(r)?;
        }
        let chain = MipChain {
            levels,
            linear: mip.linear,
            bias: mip.bias,
            min_clamp: mip.min_clamp,
            max_clamp: mip.max_clamp,
        };
        let obj = TexObject {
            res: first.resource(),
            tex: Some(desc),
        };
        Ok((obj, chain))
    }
}
