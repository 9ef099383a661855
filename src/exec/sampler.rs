//! Samplers of the independent texturing mode: `tex`/`tld4 d, [t, s, c]` take the
//! texels of texture `t` and the sampler state of `s` (the ISA's `.samplerref`).
//!
//! A sampler is an entry of the device's [`TextureTable`] (a module `.samplerref`, keyed
//! by its variable's address, or a `Device::create_sampler` handle); a texture object's
//! handle also serves as a sampler (its own address and filter modes). A module
//! `.samplerref`'s initializer (`{ addr_mode_0 = clamp_to_border, filter_mode = linear,
//! force_unnormalized_coords = 1 }`) is packed into the variable's 8 bytes by the checker
//! ([`Sampler::to_bytes`]) and registered at module load. Fields an initializer leaves
//! out take the values of a zero-initialised CUDA texture descriptor: wrap, nearest
//! point, coordinates as the texture says.
//!
//! In a fetch, the sampler replaces the texture's address modes and filter mode;
//! `force_unnormalized_coords` turns normalised coordinates off (the ISA: it "overrides
//! the `normalized_coords` field of a `.texref`"). The texture keeps its border colour
//! and its integer/normalised-float read mode.
//!
//! [`TextureTable`]: crate::exec::texture::TextureTable

use crate::exec::texture::TextureDesc;
pub use crate::ir::sampler::{addr_code, Sampler};

impl Sampler {
    /// The sampler state of a texture object's descriptor.
    pub fn of_texture(td: &TextureDesc) -> Sampler {
        Sampler {
            address: td.address,
            linear: td.linear,
            force_unnormalized: false,
        }
    }

    /// The texture's sampler state with this sampler's modes.
    pub fn apply(&self, td: TextureDesc) -> TextureDesc {
        TextureDesc {
            address: self.address,
            linear: self.linear,
            normalized: td.normalized && !self.force_unnormalized,
            ..td
        }
    }
}
