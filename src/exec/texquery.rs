//! `txq` and `suq`: the attributes of a texture or surface object, from the resource and
//! sampler state ptxjit keeps for it (`crate::exec::texture::TexObject`), in the
//! encodings of the ISA's tables:
//! - `.width`/`.height`/`.depth` in elements (0 for a dimension the resource lacks; the
//!   layers of a layered array are its `.array_size`, not its depth);
//! - `.filter_mode`: `enum { nearest, linear }`; `.addr_mode_N`: `enum { wrap, mirror,
//!   clamp_ogl, clamp_to_edge, clamp_to_border }` (CUDA's clamp is clamp-to-edge);
//! - `.normalized_coords` 1 or 0; `.force_unnormalized_coords` 0 (texture objects carry
//!   no separate sampler); `.num_mipmap_levels` and `.num_samples` 0 (a texture that is
//!   not mipmapped; mipmapped ones: `crate::exec::mipmap::query`; ptxjit has no
//!   multisample textures); `suq.memory_layout` 1 for linear memory.
//!
//! `txq.level` answers for level 0 (the only level of a texture that is not mipmapped);
//! another level is a located error.
//! Sampler queries on a surface object are errors too.

use crate::exec::texture::{AddressMode, TexObject};
use crate::ir::TexQuery;

/// The value of `query` for `obj` (`surface`: `suq`, else `txq`), at level `lod`.
pub fn query(obj: &TexObject, query: TexQuery, surface: bool, lod: i32) -> Result<u32, String> {
    let what = if surface { "suq" } else { "txq" };
    if lod != 0 {
        return Err(format!(
            "txq.level: level {lod} does not exist (the texture has no mipmap levels)"
        ));
    }
    let r = &obj.res;
    let dim = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    let sampler = || {
        obj.tex
            .ok_or_else(|| format!("{what}.{query:?}: a surface object has no sampler state"))
    };
    Ok(match query {
        TexQuery::Width => dim(r.width),
        TexQuery::Height => dim(r.height),
        TexQuery::Depth if r.layered => 0,
        TexQuery::Depth => dim(r.depth),
        TexQuery::ArraySize if r.layered => dim(r.depth.max(1)),
        TexQuery::ArraySize => 0,
        TexQuery::NumMipmapLevels | TexQuery::NumSamples => 0,
        TexQuery::MemoryLayout => r.linear as u32,
        TexQuery::NormalizedCoords => sampler()?.normalized as u32,
        TexQuery::ForceUnnormalizedCoords => {
            sampler()?;
            0
        }
        TexQuery::FilterMode => sampler()?.linear as u32,
        TexQuery::AddrMode(k) => match sampler()?.address[k.min(2) as usize] {
            AddressMode::Wrap => 0,
            AddressMode::Mirror => 1,
            AddressMode::Clamp => 3,
            AddressMode::Border => 4,
        },
    })
}
