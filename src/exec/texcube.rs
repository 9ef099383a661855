//! Cubemap fetches (`tex.cube`, `tex.acube`, `tld4.cube`, `tld4.acube`): the direction (x, y, z) picks a face by its
//! major axis and the two minor coordinates, divided by the major one's magnitude, give
//! the face coordinate, as the CUDA programming guide's cubemap table says:
//!
//! | face | major axis | m | s | t |
//! |---|---|---|---|---|
//! | 0 | +x | x | -z | -y |
//! | 1 | -x | -x | z | -y |
//! | 2 | +y | y | x | z |
//! | 3 | -y | -y | x | -z |
//! | 4 | +z | z | x | -y |
//! | 5 | -z | -z | -x | -y |
//!
//! and the texel is fetched at the normalised coordinate `((s/m + 1)/2, (t/m + 1)/2)`
//! of layer `face` (`6 * cube + face` for a cubemap array) with the texture's filter
//! and address modes. A tie between axes of equal magnitude (which the guide leaves
//! open) goes to x, then y, as Mesa's software rasteriser does.

use crate::exec::texture::{fetch, gather, TexObject};
use crate::ir::{TexGeom, Type};

/// The face and its normalised (u, v) coordinate of direction (x, y, z).
pub fn cube_face(x: f32, y: f32, z: f32) -> (u32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, m, s, t) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, ax, -z, -y)
        } else {
            (1, ax, z, -y)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, ay, x, z)
        } else {
            (3, ay, x, -z)
        }
    } else if z >= 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    (face, (s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0)
}

/// One lane's `tex.cube` (`coords`: x, y, z, ignored) or `tex.acube` (cube index, x,
/// y, z) result on a layered 2D texture whose layers are the faces.
pub fn fetch_cube(obj: &TexObject, geom: TexGeom, coords: &[u64]) -> [u32; 4] {
    let (cube, dir) = match geom {
        TexGeom::Acube => (coords[0] as u32, &coords[1..4]),
        _ => (0, &coords[0..3]),
    };
    let f = |k: usize| f32::from_bits(dir[k] as u32);
    let (face, u, v) = cube_face(f(0), f(1), f(2));
    let mut o = *obj;
    if let Some(td) = o.tex.as_mut() {
        // Face coordinates are normalised whatever the texture's flag says.
        td.normalized = true;
    }
    let layer = cube.saturating_mul(6).saturating_add(face);
    let c = [layer as u64, u.to_bits() as u64, v.to_bits() as u64];
    fetch(&o, TexGeom::A2d, Type::F32, &c, [0; 3])
}

/// One lane's `tld4.cube`/`tld4.acube` result: the bilinear footprint of the face
/// coordinate (see [`fetch_cube`]).
pub fn gather_cube(obj: &TexObject, geom: TexGeom, comp: u8, coords: &[u64]) -> [u32; 4] {
    let (cube, dir) = match geom {
        TexGeom::Acube => (coords[0] as u32, &coords[1..4]),
        _ => (0, &coords[0..3]),
    };
    let f = |k: usize| f32::from_bits(dir[k] as u32);
    let (face, u, v) = cube_face(f(0), f(1), f(2));
    let mut o = *obj;
    if let Some(td) = o.tex.as_mut() {
        td.normalized = true;
    }
    let layer = cube.saturating_mul(6).saturating_add(face);
    let layer = layer.min(obj.res.layers() as u32 - 1) as usize;
    let c = [u.to_bits() as u64, v.to_bits() as u64];
    gather(&o, comp, layer, &c, [0; 2])
}

#[cfg(test)]
mod tests {
    use super::cube_face;

    #[test]
    fn faces_follow_the_guide_table() {
        // +x major: s = -z, t = -y over m = 2: (-(-1)/2 + 1)/2 = 0.75, (-(1)/2 + 1)/2 = 0.25.
        assert_eq!(cube_face(2.0, 1.0, -1.0), (0, 0.75, 0.25));
        // -x: s = z = 1 -> 0.75, t = -y = -1 -> 0.25.
        assert_eq!(cube_face(-2.0, 1.0, 1.0), (1, 0.75, 0.25));
        // +y: s = x = 1 -> 0.75, t = z = -1 -> 0.25.
        assert_eq!(cube_face(1.0, 2.0, -1.0), (2, 0.75, 0.25));
        // -y: s = x = -1 -> 0.25, t = -z = -1 -> 0.25.
        assert_eq!(cube_face(-1.0, -2.0, 1.0), (3, 0.25, 0.25));
        // +z: s = x = 0 -> 0.5, t = -y = 2/4 -> 0.75.
        assert_eq!(cube_face(0.0, -2.0, 4.0), (4, 0.5, 0.75));
        // -z: s = -x = -1/4 -> 0.375, t = -y = 1/4 -> 0.625.
        assert_eq!(cube_face(1.0, -1.0, -4.0), (5, 0.375, 0.625));
    }
}
