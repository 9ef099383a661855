//! Mipmapped textures: level selection and filtering between levels for `tex.base` and
//! `tex.level` (both backends: [`crate::exec::texture`]'s lane loop calls [`fetch`] for
//! a handle with a [`MipChain`]).
//!
//! The ISA (texture instructions, `tex`, "Mipmaps") says what picks the level of detail
//! (LOD) but not how a LOD picks texels: "`.base` (lod zero) Pick level 0 (base level)";
//! "`.level` (lod explicit) Requires an additional 32-bit scalar argument, `lod`, which
//! contains the LOD to fetch from. The type of `lod` follows `.ctype`". CUDA's texture
//! descriptor adds `mipmapLevelBias`, `minMipmapLevelClamp`, `maxMipmapLevelClamp` and
//! `mipmapFilterMode`. ptxjit's rule (not checked against a GPU, none here): the LOD
//! plus the bias, clamped to [min, max] and to the levels there are (a NaN LOD is 0;
//! `.base` reads level 0 whatever the bias and clamps);
//! point mipmap filtering takes the nearest level (a LOD halfway between two takes the
//! lower one: `ceil(lod + 1/2) - 1`, OpenGL's rule); linear mipmap filtering blends
//! level `floor(lod)` and the next with weight `frac(lod)` in 8-bit fixed point (as the
//! spatial weights), the sum of the two float fetches rounded once. Each level is
//! sampled with the texture's filter and address modes, normalised coordinates scaling
//! by that level's extent. Integer reads use point mipmap filtering. `tld4` reads
//! level 0, as the ISA's `tld4` has no level operand.
//!
//! `.grad` (lod gradient) "Requires two `.f32` vectors, `dPdx` and `dPdy`, that specify
//! the partials" (ISA). The LOD is OpenGL's (OpenGL 4.6 core profile, section 8.14.1
//! "Scale Factor and Level of Detail", equations 8.7 and 8.8 with isotropic filtering;
//! CUDA's `tex2DGrad` names the gradients but gives no formula): the gradients are
//! scaled into level-0 texels (`du/dx = dPdx.x * width` with normalised coordinates,
//! the gradient itself otherwise), `rho = max(|dP/dx|, |dP/dy|)` over the texture's
//! dimensions (Euclidean lengths), `lod = log2(rho)` (so `rho` 0 gives -inf, clamped
//! to level 0), then the bias, clamps and level filtering above. Anisotropic filtering
//! (`maxAnisotropy` > 1) is not modelled: the isotropic LOD is used. A mipmapped
//! cubemap's `tex.grad` (direction-vector gradients) is a located run-time error.
//! `txq` ([`query`]) counts the levels and answers `txq.level` for each.

use crate::exec::texture::{fetch as fetch_level, TexObject, TexResource};
use crate::ir::{TexMip, TexOp, Type};

/// The levels of a mipmapped texture (level 0 first, each half the previous extent,
/// at least 1) and its mipmap sampler state.
#[derive(Clone, Debug, PartialEq)]
pub struct MipChain {
    pub levels: Vec<TexResource>,
    /// `CU_TR_FILTER_MODE_LINEAR` between levels (else point).
    pub linear: bool,
    pub bias: f32,
    pub min_clamp: f32,
    pub max_clamp: f32,
}

impl MipChain {
    /// The levels to blend for level of detail `lod`: (lower, upper, weight of the upper
    /// in 1/256).
    pub fn select(&self, lod: f32, linear: bool) -> (usize, usize, u32) {
        let top = self.levels.len().saturating_sub(1) as f32;
        let lod = if lod.is_nan() { 0.0 } else { lod };
        let l = (lod + self.bias)
            .max(self.min_clamp)
            .min(self.max_clamp)
            .clamp(0.0, top);
        if !linear {
            let d = if l <= 0.5 {
                0.0
            } else {
                (l + 0.5).ceil() - 1.0
            };
            let d = d as usize;
            return (d, d, 0);
        }
        let q = (l as f64 * 256.0).round() as u64;
        let lo = (q / 256) as usize;
        let hi = (lo + 1).min(self.levels.len() - 1);
        (lo, hi, (q % 256) as u32)
    }
}

/// One lane's `tex` on a mipmapped texture (`obj` is level 0 with the sampler state in
/// effect); `Err` for `tex.grad` on a cubemap.
pub fn fetch(
    chain: &MipChain,
    obj: &TexObject,
    op: TexOp,
    coords: &[u64],
    off: [i64; 3],
) -> Result<[u32; 4], &'static str> {
    let TexOp::Tex {
        geom, ctype, mip, ..
    } = op
    else {
        return Ok([0; 4]);
    };
    let at = |level: usize| {
        let o = TexObject {
            res: chain.levels[level],
            tex: obj.tex,
        };
        if geom.cube() {
            crate::exec::texcube::fetch_cube(&o, geom, coords)
        } else {
            fetch_level(&o, geom, ctype, coords, off)
        }
    };
    let lod = match mip {
        // "Pick level 0": no bias or clamps.
        TexMip::Base => return Ok(at(0)),
        TexMip::Level => {
            let v = coords[geom.ncoords()] as u32;
            if ctype == Type::F32 {
                f32::from_bits(v)
            } else {
                v as i32 as f32
            }
        }
        TexMip::Grad => grad_lod(obj, geom, &coords[geom.ncoords()..])?,
    };
    let Some(td) = obj.tex else { return Ok([0; 4]) };
    let float = obj.res.format.is_float() || !td.read_as_integer && obj.res.format.bytes() < 4;
    let linear = chain.linear && float && ctype == Type::F32;
    let (lo, hi, w) = chain.select(lod, linear);
    if w == 0 {
        return Ok(at(lo));
    }
    let (a, b) = (at(lo), at(hi));
    let wt = w as f64 / 256.0;
    let mut out = [0u32; 4];
    for c in 0..4 {
        let v = (1.0 - wt) * f32::from_bits(a[c]) as f64 + wt * f32::from_bits(b[c]) as f64;
        out[c] = (v as f32).to_bits();
    }
    Ok(out)
}

/// The level of detail of `tex.grad`'s gradients `g` (dPdx then dPdy, `dims` elements
/// each) on level 0 of `obj`, before bias and clamps (the module doc gives the rule).
fn grad_lod(obj: &TexObject, geom: crate::ir::TexGeom, g: &[u64]) -> Result<f32, &'static str> {
    if geom.cube() {
        return Err("tex.grad on a mipmapped cubemap: the level of detail from direction-vector gradients is not supported (tex.level and tex.base are)");
    }
    let n = geom.dims();
    let normalized = obj.tex.is_some_and(|t| t.normalized);
    let ext = [obj.res.width, obj.res.height, obj.res.depth];
    // The gradient in texels of level 0: normalised coordinates scale by the extent.
    let len = |v: &[u64]| -> f64 {
        let mut sq = 0f64;
        for (d, w) in v.iter().enumerate() {
            let x = f32::from_bits(*w as u32) as f64;
            let x = if normalized {
                x * ext[d].max(1) as f64
            } else {
                x
            };
            sq += x * x;
        }
        sq.sqrt()
    };
    let rho = len(&g[..n]).max(len(&g[n..2 * n]));
    Ok(rho.log2() as f32)
}

/// `txq` on a mipmapped texture: `.num_mipmap_levels` counts the levels, the other
/// queries answer for level `lod` (`txq.level`; 0 otherwise) as
/// [`crate::exec::texquery::query`] does for a texture of that level alone.
pub fn query(
    chain: &MipChain,
    obj: &TexObject,
    query: crate::ir::TexQuery,
    lod: i32,
) -> Result<u32, String> {
    if query == crate::ir::TexQuery::NumMipmapLevels {
        return Ok(chain.levels.len() as u32);
    }
    let n = chain.levels.len();
    let Some(res) = usize::try_from(lod).ok().and_then(|l| chain.levels.get(l)) else {
        return Err(format!(
            "txq.level: level {lod} does not exist (the texture has {n} mipmap levels)"
        ));
    };
    let o = TexObject {
        res: *res,
        tex: obj.tex,
    };
    crate::exec::texquery::query(&o, query, false, 0)
}
