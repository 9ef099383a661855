//! Texture and surface objects and the fetch arithmetic of `tex` and `tld4`, shared by
//! both backends ([`crate::ir::InstKind::Texture`]).
//!
//! A texture or surface object is a nonzero 64-bit handle that the device's
//! [`TextureTable`] maps to a [`TexObject`]: the texels (a CUDA array or a linear buffer:
//! a device-memory range, x fastest, then y, then z or the layer), their [`ArrayFormat`]
//! and channel count, and for textures the sampler state ([`TextureDesc`]). The runtime
//! hands the table to every warp of a launch (`WarpEnv::textures`).
//!
//! Fetches follow the CUDA programming guide's texture-fetching appendix: a normalised
//! coordinate is scaled by the extent; nearest-point sampling takes texel `floor(x)`;
//! linear filtering takes texels `i = floor(x - 0.5)` and `i + 1` with weight
//! `frac(x - 0.5)` held in 9-bit fixed point (8 fractional bits: multiples of 1/256), as
//! the hardware does. Address modes apply to the integer texel index: clamp to the edge,
//! border (the border colour), wrap and mirror (normalised coordinates only; with
//! unnormalised ones they clamp, as on a GPU). Integer formats read as normalised floats
//! map `[0, 2^n - 1]` to `[0, 1]` (signed: `[-(2^(n-1) - 1), 2^(n-1) - 1]` to `[-1, 1]`,
//! the most negative value to -1).

use crate::exec::ctx::{self, Stopped, WarpCtx, WARP_SIZE};
use crate::exec::sampler::Sampler;
pub use crate::ir::sampler::AddressMode;
use crate::ir::{InstId, TexGeom, TexMip, TexOp, Type};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Element formats of CUDA arrays (`CUarray_format`, with the driver's codes). The
/// normalised formats (`CU_AD_FORMAT_{UNORM,SNORM}_INT{8,16}X{1,2,4}`, whose codes name
/// the channel count too) always read as normalised floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayFormat {
    U8,
    U16,
    U32,
    S8,
    S16,
    S32,
    F16,
    F32,
    Unorm8,
    Unorm16,
    Snorm8,
    Snorm16,
}

/// The normalised formats in `CUarray_format` order from code 0xc0: three codes (1, 2
/// and 4 channels) each.
const NORM_FORMATS: [ArrayFormat; 4] = [
    ArrayFormat::Unorm8,
    ArrayFormat::Unorm16,
    ArrayFormat::Snorm8,
    ArrayFormat::Snorm16,
];

impl ArrayFormat {
    /// The format of a `CUarray_format` code.
    pub fn from_code(c: u32) -> Option<ArrayFormat> {
        Some(match c {
            0x01 => ArrayFormat::U8,
            0x02 => ArrayFormat::U16,
            0x03 => ArrayFormat::U32,
            0x08 => ArrayFormat::S8,
            0x09 => ArrayFormat::S16,
            0x0a => ArrayFormat::S32,
            0x10 => ArrayFormat::F16,
            0x20 => ArrayFormat::F32,
            0xc0..=0xcb => NORM_FORMATS[(c - 0xc0) as usize / 3],
            _ => return None,
        })
    }
    /// The channel count a normalised format's code names (`None` for the others,
    /// whose count is `NumChannels`).
    pub fn code_channels(c: u32) -> Option<u32> {
        match c {
            0xc0..=0xcb => Some([1, 2, 4][(c - 0xc0) as usize % 3]),
            _ => None,
        }
    }
    /// The `CUarray_format` code of this format with `channels` channels (1, 2 or 4).
    pub fn code(self, channels: u32) -> u32 {
        if let Some(i) = NORM_FORMATS.iter().position(|f| *f == self) {
            let k = match channels {
                1 => 0,
                2 => 1,
                _ => 2,
            };
            return 0xc0 + 3 * i as u32 + k;
        }
        match self {
            ArrayFormat::U8 => 0x01,
            ArrayFormat::U16 => 0x02,
            ArrayFormat::U32 => 0x03,
            ArrayFormat::S8 => 0x08,
            ArrayFormat::S16 => 0x09,
            ArrayFormat::S32 => 0x0a,
            ArrayFormat::F16 => 0x10,
            ArrayFormat::F32 => 0x20,
            _ => unreachable!("normalised formats return above"),
        }
    }
    /// Bytes of one channel.
    pub fn bytes(self) -> usize {
        match self {
            ArrayFormat::U8 | ArrayFormat::S8 | ArrayFormat::Unorm8 | ArrayFormat::Snorm8 => 1,
            ArrayFormat::U16
            | ArrayFormat::S16
            | ArrayFormat::F16
            | ArrayFormat::Unorm16
            | ArrayFormat::Snorm16 => 2,
            _ => 4,
        }
    }
    /// Formats whose fetches return floats whatever the read mode: the float and the
    /// normalised formats.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ArrayFormat::F16
                | ArrayFormat::F32
                | ArrayFormat::Unorm8
                | ArrayFormat::Unorm16
                | ArrayFormat::Snorm8
                | ArrayFormat::Snorm16
        )
    }
}

/// Texel storage of a texture or surface object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexResource {
    /// Device address of texel (0, 0, 0).
    pub base: u64,
    pub format: ArrayFormat,
    /// 1, 2 or 4.
    pub channels: u32,
    /// Extent in texels; `height`/`depth` 0 when the geometry lacks that dimension
    /// (`depth` of a layered array is its layer count).
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub layered: bool,
    /// A linear-memory (`CU_RESOURCE_TYPE_LINEAR` or `PITCH2D`) texture.
    pub linear: bool,
    /// Bytes from one row to the next (`CU_RESOURCE_TYPE_PITCH2D`); 0 for packed rows
    /// (`width` texels).
    pub pitch: usize,
}

impl TexResource {
    /// Bytes of one texel.
    pub fn texel_bytes(&self) -> usize {
        self.format.bytes() * self.channels as usize
    }
    /// Bytes from one row to the next.
    pub fn row_bytes(&self) -> usize {
        if self.pitch == 0 {
            self.texel_bytes() * self.width
        } else {
            self.pitch
        }
    }
    /// Bytes of all texels (the last row ends after its `width` texels).
    pub fn bytes(&self) -> usize {
        let rows = self.height.max(1) * self.depth.max(1);
        self.row_bytes() * (rows - 1) + self.texel_bytes() * self.width
    }
    /// Number of spatial dimensions.
    fn dims(&self) -> usize {
        if self.height == 0 {
            1
        } else if self.depth == 0 || self.layered {
            2
        } else {
            3
        }
    }
    /// Layers of a layered resource (1 otherwise).
    pub fn layers(&self) -> usize {
        if self.layered {
            self.depth.max(1)
        } else {
            1
        }
    }
}

/// Sampler state of a texture object (`CUDA_TEXTURE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureDesc {
    pub address: [AddressMode; 3],
    /// Linear filtering (else nearest point).
    pub linear: bool,
    /// `CU_TRSF_NORMALIZED_COORDINATES`.
    pub normalized: bool,
    /// `CU_TRSF_READ_AS_INTEGER`: integer formats return their values (else normalised
    /// floats for 8- and 16-bit integer formats).
    pub read_as_integer: bool,
    pub border: [f32; 4],
}

/// A texture (with sampler state) or surface object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexObject {
    pub res: TexResource,
    /// `None` for a surface object.
    pub tex: Option<TextureDesc>,
}

/// The device's texture and surface objects by handle.
#[derive(Debug, Default)]
pub struct TextureTable {
    objects: RwLock<HashMap<u64, TexObject>>,
    /// Samplers of the independent texturing mode (`crate::exec::sampler`).
    samplers: RwLock<HashMap<u64, Sampler>>,
    /// The levels of mipmapped texture objects (`crate::exec::mipmap`).
    mips: RwLock<HashMap<u64, Arc<crate::exec::mipmap::MipChain>>>,
    next: AtomicU64,
}

impl TextureTable {
    /// Registers `obj` and returns its handle (nonzero).
    pub fn insert(&self, obj: TexObject) -> u64 {
        let h = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.write().insert(h, obj);
        h
    }
    /// Registers `obj` under `key`, replacing any object there: the binding of a
    /// module `.texref`/`.surfref`, keyed by the reference variable's device address
    /// (far above the handles [`TextureTable::insert`] hands out).
    pub fn insert_at(&self, key: u64, obj: TexObject) {
        self.mips
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        self.write().insert(key, obj);
    }
    /// Registers a mipmapped texture (`obj` level 0, `chain` its levels) under `key`, as
    /// [`TextureTable::insert_at`] does.
    pub fn insert_mip_at(&self, key: u64, obj: TexObject, chain: crate::exec::mipmap::MipChain) {
        self.write().insert(key, obj);
        self.mips
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::new(chain));
    }
    /// Registers sampler `s` under `key` (a module `.samplerref`'s address), or under a
    /// new handle with `key` `None`; returns the key.
    pub fn insert_sampler(&self, key: Option<u64>, s: Sampler) -> u64 {
        let k = key.unwrap_or_else(|| self.next.fetch_add(1, Ordering::Relaxed) + 1);
        self.samplers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k, s);
        k
    }
    /// The sampler of a handle: a registered sampler, or a texture object's modes.
    pub fn sampler(&self, handle: u64) -> Option<Sampler> {
        let s = self.samplers.read().unwrap_or_else(|e| e.into_inner());
        match s.get(&handle) {
            Some(s) => Some(*s),
            None => self.get(handle)?.tex.as_ref().map(Sampler::of_texture),
        }
    }
    /// Registers a mipmapped texture: `obj` (level 0) and its levels.
    pub fn insert_mip(&self, obj: TexObject, chain: crate::exec::mipmap::MipChain) -> u64 {
        let h = self.insert(obj);
        self.mips
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(h, Arc::new(chain));
        h
    }
    /// The levels of a mipmapped texture object.
    pub fn mip(&self, handle: u64) -> Option<Arc<crate::exec::mipmap::MipChain>> {
        let m = self.mips.read().unwrap_or_else(|e| e.into_inner());
        m.get(&handle).cloned()
    }
    /// Removes an object or sampler; false if `handle` is not live.
    pub fn remove(&self, handle: u64) -> bool {
        self.mips
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&handle);
        let s = self
            .samplers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&handle)
            .is_some();
        self.write().remove(&handle).is_some() || s
    }
    pub fn get(&self, handle: u64) -> Option<TexObject> {
        self.objects
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&handle)
            .copied()
    }
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<u64, TexObject>> {
        self.objects.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// One texel's channels as raw bits (missing channels 0).
fn load_texel(res: &TexResource, x: usize, y: usize, z: usize) -> [u32; 4] {
    let tb = res.texel_bytes();
    let row = z * res.height.max(1) + y;
    let p = res.base as usize + row * res.row_bytes() + x * tb;
    let mut out = [0u32; 4];
    let cb = res.format.bytes();
    for (c, o) in out.iter_mut().enumerate().take(res.channels as usize) {
        let a = (p + c * cb) as *const u8;
        // SAFETY: the resource range was checked when the object was created and device
        // memory stays mapped for the device's lifetime (a freed range reads as zeros).
        *o = unsafe {
            match cb {
                1 => a.read() as u32,
                2 => (a as *const u16).read_unaligned() as u32,
                _ => (a as *const u32).read_unaligned(),
            }
        };
    }
    out
}

fn f16_to_f32(h: u32) -> f32 {
    crate::ops::half::f16_to_f64(h as u16) as f32
}

/// A channel value as the float a filtered fetch computes with.
fn channel_float(f: ArrayFormat, v: u32) -> f32 {
    match f {
        // Subnormal texels read as zero (an H100 flushes them).
        ArrayFormat::F32 if v & 0x7f80_0000 == 0 => f32::from_bits(v & 0x8000_0000),
        ArrayFormat::F32 => f32::from_bits(v),
        ArrayFormat::F16 => f16_to_f32(v),
        ArrayFormat::U8 | ArrayFormat::Unorm8 => v as f32 / 255.0,
        ArrayFormat::U16 | ArrayFormat::Unorm16 => v as f32 / 65535.0,
        ArrayFormat::S8 | ArrayFormat::Snorm8 => (v as u8 as i8 as f32 / 127.0).max(-1.0),
        ArrayFormat::S16 | ArrayFormat::Snorm16 => (v as u16 as i16 as f32 / 32767.0).max(-1.0),
        ArrayFormat::U32 => v as f32,
        ArrayFormat::S32 => v as i32 as f32,
    }
}

/// Whether fetches return floats (the filtered path) rather than integers.
fn float_read(res: &TexResource, td: &TextureDesc) -> bool {
    res.format.is_float() || !td.read_as_integer && res.format.bytes() < 4
}

/// An integer texel index after the address mode, or `None` for the border.
fn address(i: i64, n: usize, mode: AddressMode, normalized: bool) -> Option<usize> {
    let n = n.max(1) as i64;
    let mode = match mode {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::Clamp,
        m => m,
    };
    Some(match mode {
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Border => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
    } as usize)
}

/// Float coordinate to (texel index of the lower texel, weight of the upper in 1/256);
/// `off` is a texel offset added after scaling (`tex`'s offset operand).
fn split(x: f32, n: usize, normalized: bool, linear: bool, off: i64) -> (i64, u32) {
    let x = x as f64;
    let x = if normalized { x * n as f64 } else { x } + off as f64;
    if linear {
        // `x - 0.5` in fixed point with 8 fractional bits (rounded to nearest): its
        // integer part picks the texels (so a coordinate just below a texel centre
        // rounds up to it, as on an H100), its fraction is the weight.
        let q = ((x - 0.5) * 256.0).round() as i64;
        (q.div_euclid(256), q.rem_euclid(256) as u32)
    } else {
        (x.floor() as i64, 0)
    }
}

/// The raw channels of texel `idx` (per dimension, before address modes), or the border.
fn texel_at(res: &TexResource, td: &TextureDesc, idx: &[i64; 3], layer: usize) -> [u32; 4] {
    let ext = [res.width, res.height, res.depth];
    let mut p = [0usize; 3];
    for d in 0..res.dims() {
        match address(idx[d], ext[d], td.address[d], td.normalized) {
            Some(v) => p[d] = v,
            None => return border_bits(res, td),
        }
    }
    let z = if res.layered { layer } else { p[2] };
    load_texel(res, p[0], p[1], z)
}

/// The border colour's bits. For normalised-float reads of 8- and 16-bit integer
/// formats the colour is first stored in the texel format (rounded to the nearest
/// representable value, as an H100 returns 16384/65535 for 0.25 in a `u16` texture).
fn border_bits(res: &TexResource, td: &TextureDesc) -> [u32; 4] {
    let (lo, max) = match res.format {
        ArrayFormat::U8 | ArrayFormat::Unorm8 => (0.0, 255.0),
        ArrayFormat::U16 | ArrayFormat::Unorm16 => (0.0, 65535.0),
        ArrayFormat::S8 | ArrayFormat::Snorm8 => (-127.0, 127.0),
        ArrayFormat::S16 | ArrayFormat::Snorm16 => (-32767.0, 32767.0),
        _ => return td.border.map(f32::to_bits),
    };
    if td.read_as_integer && !res.format.is_float() {
        return td.border.map(f32::to_bits);
    }
    td.border
        .map(|b| ((b as f64 * max).round().clamp(lo, max) / max) as f32)
        .map(f32::to_bits)
}

/// Converts raw channels to the fetch result's float values (border texels carry float
/// bits already).
fn to_float(res: &TexResource, raw: [u32; 4], is_border: bool) -> [f32; 4] {
    let mut out = [0f32; 4];
    for c in 0..4 {
        out[c] = if c >= res.channels as usize {
            0.0
        } else if is_border {
            f32::from_bits(raw[c])
        } else {
            channel_float(res.format, raw[c])
        };
    }
    out
}

/// Integer reads of signed 8- and 16-bit formats return the sign-extended value.
fn sign_extend(f: ArrayFormat, raw: [u32; 4]) -> [u32; 4] {
    raw.map(|v| match f {
        ArrayFormat::S8 => v as u8 as i8 as i32 as u32,
        ArrayFormat::S16 => v as u16 as i16 as i32 as u32,
        _ => v,
    })
}

/// A texel offset of `tex`/`tld4`'s offset vector: ptxas packs each element into a
/// 4-bit field of the hardware's offset register (`LOP3 ... 0xf0` before `TEX.AOFFI` in
/// its sm_90 output), so only the low 4 bits count, sign-extended (the ISA's range
/// -8..7).
pub fn texel_offset(v: u64) -> i64 {
    ((v as u8) << 4) as i8 as i64 >> 4
}

/// One lane's `tex` result (4 words); `off` holds the texel offsets per spatial
/// dimension (zeros without an offset operand).
pub fn fetch(
    obj: &TexObject,
    geom: TexGeom,
    ctype: Type,
    coords: &[u64],
    off: [i64; 3],
) -> [u32; 4] {
    let Some(td) = obj.tex else { return [0; 4] };
    let res = &obj.res;
    let (layer, c) = if geom.layered() {
        // The layer is unsigned: -1 is past the last layer and clamps to it.
        let l = (coords[0] as u32).min(res.layers() as u32 - 1) as usize;
        (l, &coords[1..])
    } else {
        (0, coords)
    };
    let dims = geom.dims().min(res.dims());
    let ext = [res.width, res.height, res.depth];
    let fl = float_read(res, &td);
    let linear = td.linear && fl && ctype == Type::F32;
    let mut base = [0i64; 3];
    let mut w = [0u32; 3];
    for d in 0..dims {
        if ctype == Type::F32 {
            let x = f32::from_bits(c[d] as u32);
            let (i, a) = split(x, ext[d], td.normalized, linear, off[d]);
            base[d] = i;
            w[d] = a;
        } else {
            base[d] = c[d] as u32 as i32 as i64 + off[d];
        }
    }
    let sample = |idx: &[i64; 3]| -> [f32; 4] {
        let raw = texel_at(res, &td, idx, layer);
        let border =
            (0..dims).any(|d| address(idx[d], ext[d], td.address[d], td.normalized).is_none());
        to_float(res, raw, border)
    };
    if ctype != Type::F32 {
        // Integer coordinates: no address modes; outside the texture (and on 1D CUDA
        // arrays, where an H100 returns zeros for every coordinate) the result is 0.
        let outside = (0..dims).any(|d| base[d] < 0 || base[d] >= ext[d].max(1) as i64)
            || geom.layered() && coords[0] as u32 as usize >= res.layers();
        if outside || (res.dims() == 1 && !res.linear) {
            return [0; 4];
        }
        let p = [base[0] as usize, base[1] as usize, base[2] as usize];
        let z = if res.layered { layer } else { p[2] };
        let raw = load_texel(res, p[0], p[1], z);
        return if fl {
            to_float(res, raw, false).map(f32::to_bits)
        } else {
            sign_extend(res.format, raw)
        };
    }
    if !fl {
        let raw = texel_at(res, &td, &base, layer);
        let border =
            (0..dims).any(|d| address(base[d], ext[d], td.address[d], td.normalized).is_none());
        return if border {
            raw
        } else {
            sign_extend(res.format, raw)
        };
    }
    if !linear {
        return sample(&base).map(f32::to_bits);
    }
    // Linear: the weighted sum over the 2^dims corners (weights are multiples of
    // 2^-(8 dims), products with f32 texels are exact in f64), rounded once to f32.
    let mut acc = [0f64; 4];
    for corner in 0..(1usize << dims) {
        let mut idx = base;
        let mut wt = 1f64;
        for d in 0..dims {
            let a = w[d] as f64 / 256.0;
            if corner >> d & 1 == 1 {
                idx[d] += 1;
                wt *= a;
            } else {
                wt *= 1.0 - a;
            }
        }
        let v = sample(&idx);
        for c in 0..4 {
            acc[c] += wt * v[c] as f64;
        }
    }
    acc.map(|v| (v as f32).to_bits())
}

/// One lane's `tld4` result: component `comp` of texels (i, j+1), (i+1, j+1), (i+1, j),
/// (i, j) of the bilinear footprint in `layer` (0 unless layered); `coords` x, y;
/// `off` the texel offsets as for [`fetch`].
pub fn gather(obj: &TexObject, comp: u8, layer: usize, coords: &[u64], off: [i64; 2]) -> [u32; 4] {
    let Some(td) = obj.tex else { return [0; 4] };
    let res = &obj.res;
    let ext = [res.width, res.height, res.depth];
    let coord = |d: usize| f32::from_bits(coords[d] as u32);
    let (i, _) = split(coord(0), ext[0], td.normalized, true, off[0]);
    let (j, _) = split(coord(1), ext[1], td.normalized, true, off[1]);
    let fl = float_read(res, &td);
    let mut out = [0u32; 4];
    for (k, (dx, dy)) in [(0, 1), (1, 1), (1, 0), (0, 0)].into_iter().enumerate() {
        let idx = [i + dx, j + dy, 0];
        let raw = texel_at(res, &td, &idx, layer);
        let border =
            (0..2).any(|d| address(idx[d], ext[d], td.address[d], td.normalized).is_none());
        out[k] = if fl {
            to_float(res, raw, border)[comp as usize].to_bits()
        } else if border {
            raw[comp as usize]
        } else {
            sign_extend(res.format, raw)[comp as usize]
        };
    }
    out
}

/// Runs a texture or surface instruction for the lanes in `mask`: `srcs` are the
/// operands of all 32 lanes as `TexOp::signature` lists them (zero-extended to 64 bits).
/// Returns the result registers of all 32 lanes. An unknown handle stops the warp.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: TexOp,
    mask: u32,
    inst: InstId,
    srcs: &[[u64; WARP_SIZE]],
) -> Result<Vec<[u64; WARP_SIZE]>, Stopped> {
    let sig = op.signature();
    let mut out = vec![[0u64; WARP_SIZE]; sig.dsts.len()];
    // SAFETY: the caller's contract.
    let table: Option<Arc<TextureTable>> = unsafe { (*ctx.env).textures.clone() };
    for lane in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        let h = srcs[0][lane];
        let obj = table.as_ref().and_then(|t| t.get(h));
        if obj.is_none() {
            if let TexOp::Query { query, .. } = op {
                // `txq` on a `.samplerref` (or a sampler handle).
                if let Some(v) = table.as_ref().and_then(|t| t.sampler(h)?.query(query)) {
                    out[0][lane] = v as u64;
                    continue;
                }
            }
        }
        let Some(mut obj) = obj else {
            let msg = format!(
                "texture or surface handle {h:#x} of lane {lane} is not a live object (or a texture or surface reference that is not bound)"
            );
            // SAFETY: the caller's contract.
            unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane as u32) };
            return Err(Stopped);
        };
        if op.has_sampler() {
            let sh = srcs[1][lane];
            let Some(smp) = table.as_ref().and_then(|t| t.sampler(sh)) else {
                let msg = format!(
                    "sampler handle {sh:#x} of lane {lane} is not a live sampler or texture object"
                );
                return stop(ctx, inst, lane, &msg);
            };
            obj.tex = obj.tex.map(|td| smp.apply(td));
        }
        let coords: Vec<u64> = srcs[op.first_coord()..].iter().map(|s| s[lane]).collect();
        let r = match op {
            TexOp::Query {
                query,
                surface,
                level,
            } => {
                let lod = if level { coords[0] as u32 as i32 } else { 0 };
                let chain = table.as_ref().and_then(|t| t.mip(h)).filter(|_| !surface);
                let r = match chain {
                    Some(c) => crate::exec::mipmap::query(&c, &obj, query, lod),
                    None => crate::exec::texquery::query(&obj, query, surface, lod),
                };
                match r {
                    Ok(v) => [v as u64, 0, 0, 0],
                    Err(msg) => return stop(ctx, inst, lane, &msg),
                }
            }
            TexOp::Tex {
                geom, ctype, dtype, ..
            } => {
                if obj.tex.is_none() {
                    return stop(ctx, inst, lane, "tex on a surface object");
                }
                let off = match lookup_extras(op, &coords) {
                    Ok(off) => off,
                    Err(msg) => return stop(ctx, inst, lane, msg),
                };
                let chain = table.as_ref().and_then(|t| t.mip(h));
                let r = if let Some(chain) = chain {
                    match crate::exec::mipmap::fetch(&chain, &obj, op, &coords, off) {
                        Ok(r) => r,
                        Err(msg) => return stop(ctx, inst, lane, msg),
                    }
                } else if geom.cube() {
                    crate::exec::texcube::fetch_cube(&obj, geom, &coords)
                } else {
                    fetch(&obj, geom, ctype, &coords, off)
                };
                half_results(dtype, r)
            }
            TexOp::Tld4 { comp, geom, .. } => {
                if obj.tex.is_none() {
                    return stop(ctx, inst, lane, "tld4 on a surface object");
                }
                let off = match lookup_extras(op, &coords) {
                    Ok(off) => off,
                    Err(msg) => return stop(ctx, inst, lane, msg),
                };
                if geom.cube() {
                    crate::exec::texcube::gather_cube(&obj, geom, comp, &coords).map(u64::from)
                } else if geom.layered() {
                    let layer = (coords[0] as u32).min(obj.res.layers() as u32 - 1) as usize;
                    gather(&obj, comp, layer, &coords[1..], [off[0], off[1]]).map(u64::from)
                } else {
                    gather(&obj, comp, 0, &coords, [off[0], off[1]]).map(u64::from)
                }
            }
            TexOp::Suld { .. } | TexOp::Sust { .. } | TexOp::Sured { .. } => {
                if obj.tex.is_some() {
                    return stop(ctx, inst, lane, "surface instruction on a texture object");
                }
                let r = match crate::exec::surface::formatted(&obj, op, &coords) {
                    Ok(r) => r,
                    Err(msg) => return stop(ctx, inst, lane, &msg),
                };
                match r {
                    Ok(v) => v,
                    Err(f) => {
                        // SAFETY: the caller's contract.
                        let env = unsafe { &mut *ctx.env };
                        if env.fault.is_none() && env.error.is_none() {
                            env.fault = Some(ctx::FaultRecord {
                                kind: f.kind,
                                inst,
                                lane: lane as u32,
                                addr: f.addr,
                                space: crate::ir::Space::Global,
                                size: f.size,
                                write: f.write,
                            });
                        }
                        ctx.status = ctx::STATUS_FAULT;
                        return Err(Stopped);
                    }
                }
            }
        };
        for (k, o) in out.iter_mut().enumerate() {
            o[lane] = r[k];
        }
    }
    Ok(out)
}

/// `tex`'s results as registers: `.f16` results are the float results rounded to
/// nearest even; `.f16x2` packs (r, g) and (b, a), the first in the low half.
fn half_results(dtype: Type, r: [u32; 4]) -> [u64; 4] {
    let h = |v: u32| {
        let rn = Some(crate::ir::Rnd::Rn);
        crate::ops::convert::cvt(Type::F16, Type::F32, rn, false, false, v as u64)
    };
    match dtype {
        Type::F16 => r.map(h),
        Type::F16x2 => [h(r[0]) | h(r[1]) << 16, h(r[2]) | h(r[3]) << 16, 0, 0],
        _ => r.map(u64::from),
    }
}

/// The texel offsets of a `tex`/`tld4` lane's operands (after the coordinates and any
/// level of detail or gradients, which a texture without mipmaps ignores: it has level
/// 0 alone); a depth-compare operand is an error: its comparison function is sampler
/// state that CUDA texture objects do not define.
fn lookup_extras(op: TexOp, ops: &[u64]) -> Result<[i64; 3], &'static str> {
    let (geom, mip, offset, depth) = match op {
        TexOp::Tex {
            geom,
            mip,
            offset,
            depth,
            ..
        } => (geom, mip, offset, depth),
        TexOp::Tld4 {
            geom,
            offset,
            depth,
            ..
        } => (geom, TexMip::Base, offset, depth),
        _ => return Ok([0; 3]),
    };
    if depth {
        return Err("depth compare: the comparison function is sampler state that CUDA texture objects do not define (not supported)");
    }
    let mut off = [0i64; 3];
    if offset {
        let at = geom.ncoords()
            + match mip {
                TexMip::Base => 0,
                TexMip::Level => 1,
                TexMip::Grad => 2 * geom.dims(),
            };
        for (d, o) in off.iter_mut().enumerate().take(geom.dims()) {
            *o = texel_offset(ops[at + d]);
        }
    }
    Ok(off)
}

fn stop<T>(ctx: &mut WarpCtx, inst: InstId, lane: usize, msg: &str) -> Result<T, Stopped> {
    // SAFETY: only called from `exec`, under its contract.
    unsafe { ctx::stop_with_error_at(ctx, msg.to_string(), inst, lane as u32) };
    Err(Stopped)
}
