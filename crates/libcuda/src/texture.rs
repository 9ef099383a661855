//! CUDA arrays, array copies and texture/surface objects: `cuArrayCreate_v2`,
//! `cuArray3DCreate_v2`, `cuArrayDestroy`, `cuMemcpy2D_v2`/`cuMemcpy3D_v2` (host, device
//! and array operands), `cuTexObjectCreate`/`Destroy` (array, linear and pitch-2D
//! resources), `cuTexObjectGetResourceDesc`, `cuSurfObjectCreate`/`Destroy` and
//! `cuSurfObjectGetResourceDesc` over `ptxjit::runtime::texture`. A `CUarray` is the array's device address (its
//! texels live in device memory); the table below maps it to the array. A texture
//! object over a mipmapped array (`CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`, [`crate::mipmap`])
//! takes the descriptor's `mipmapFilterMode`, `mipmapLevelBias` and
//! `min`/`maxMipmapLevelClamp`; `maxAnisotropy` is kept and read back (sampling is
//! isotropic: `ptxjit::exec::mipmap`).

use crate::*;
use ptxjit::runtime::mipmap::MipmapDesc;
use ptxjit::runtime::texture::{
    AddressMode, ArrayDesc, ArrayFormat, CudaArray, TexResource, TextureDesc,
};
use std::collections::HashMap;

static ARRAYS: Mutex<Option<HashMap<u64, CudaArray>>> = Mutex::new(None);

fn arrays() -> MutexGuard<'static, Option<HashMap<u64, CudaArray>>> {
    ARRAYS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers an array made elsewhere (a mipmapped array's level).
pub(crate) fn register_array(a: CudaArray) {
    arrays().get_or_insert_with(HashMap::new).insert(a.ptr, a);
}

/// Forgets an array handle.
pub(crate) fn unregister_array(ptr: u64) {
    if let Some(m) = arrays().as_mut() {
        m.remove(&ptr);
    }
}

/// The descriptor fields of a texture object that its sampler state does not hold:
/// the mipmapped array it reads (if any), the mipmap state and `maxAnisotropy`.
#[derive(Clone, Copy)]
struct Extra {
    mipmapped: Option<u64>,
    mip_filter: u32,
    bias: f32,
    min_clamp: f32,
    max_clamp: f32,
    max_anisotropy: u32,
}

static EXTRAS: Mutex<Option<HashMap<u64, Extra>>> = Mutex::new(None);

fn extras() -> MutexGuard<'static, Option<HashMap<u64, Extra>>> {
    EXTRAS.lock().unwrap_or_else(|e| e.into_inner())
}

fn extra(h: u64) -> Option<Extra> {
    extras().as_ref().and_then(|m| m.get(&h).copied())
}

pub(crate) fn array(h: *mut c_void) -> Res<CudaArray> {
    arrays()
        .as_ref()
        .and_then(|m| m.get(&(h as u64)).copied())
        .ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
pub struct CudaArray3dDescriptor {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: u32,
    pub num_channels: u32,
    pub flags: u32,
}

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
pub struct CudaArrayDescriptor {
    pub width: usize,
    pub height: usize,
    pub format: u32,
    pub num_channels: u32,
}

const ARRAY3D_LAYERED: u32 = 1;
const ARRAY3D_SURFACE_LDST: u32 = 2;
const ARRAY3D_CUBEMAP: u32 = 4;

fn create(p: *mut *mut c_void, desc: ArrayDesc) -> Res {
    with_ctx(|d, _, _| {
        let a = d
            .device
            .create_array(desc)
            .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        arrays().get_or_insert_with(HashMap::new).insert(a.ptr, a);
        // SAFETY: `out` checks for null.
        unsafe { out(p, a.ptr as *mut c_void) }
    })
}

/// The format of `CUarray_format` code `f` and its channel count: the one a normalised
/// format's code names (`CU_AD_FORMAT_UNORM_INT8X2`: 2), else `channels`.
fn format(f: u32, channels: u32) -> Res<(ArrayFormat, u32)> {
    let fmt = ArrayFormat::from_code(f).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    Ok((fmt, ArrayFormat::code_channels(f).unwrap_or(channels)))
}

impl CudaArray3dDescriptor {
    /// The array this descriptor asks for.
    pub(crate) fn desc(&self) -> Res<ArrayDesc> {
        let (format, channels) = format(self.format, self.num_channels)?;
        Ok(ArrayDesc {
            width: self.width,
            height: self.height,
            depth: self.depth,
            format,
            channels,
            layered: self.flags & ARRAY3D_LAYERED != 0,
            surface: self.flags & ARRAY3D_SURFACE_LDST != 0,
            cubemap: self.flags & ARRAY3D_CUBEMAP != 0,
        })
    }
}

impl CudaArrayDescriptor {
    /// The same array as a 3-D descriptor (depth 0, no flags).
    fn as_3d(&self) -> CudaArray3dDescriptor {
        CudaArray3dDescriptor {
            width: self.width,
            height: self.height,
            depth: 0,
            format: self.format,
            num_channels: self.num_channels,
            flags: 0,
        }
    }
}

/// # Safety
/// `p` and `desc` valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuArray3DCreate_v2(
    p: *mut *mut c_void,
    desc: *const CudaArray3dDescriptor,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(dd) = (unsafe { desc.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        create(p, dd.desc()?)
    })
}

/// # Safety
/// `p` and `desc` valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuArrayCreate_v2(
    p: *mut *mut c_void,
    desc: *const CudaArrayDescriptor,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(dd) = (unsafe { desc.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        create(p, dd.as_3d().desc()?)
    })
}

/// # Safety
/// `a` is an array handle or anything (checked).
#[no_mangle]
pub unsafe extern "C" fn cuArrayDestroy(a: *mut c_void) -> CUresult {
    guard(|| {
        let arr = array(a)?;
        with_ctx(|d, _, _| {
            d.device
                .destroy_array(arr)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            if let Some(m) = arrays().as_mut() {
                m.remove(&arr.ptr);
            }
            Ok(())
        })
    })
}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
pub struct CudaMemcpy3d {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_z: usize,
    pub src_lod: usize,
    pub src_memory_type: u32,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: *mut c_void,
    pub reserved0: *mut c_void,
    pub src_pitch: usize,
    pub src_height: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_z: usize,
    pub dst_lod: usize,
    pub dst_memory_type: u32,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: *mut c_void,
    pub reserved1: *mut c_void,
    pub dst_pitch: usize,
    pub dst_height: usize,
    pub width_in_bytes: usize,
    pub height: usize,
    pub depth: usize,
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
pub struct CudaMemcpy2d {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_memory_type: u32,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: *mut c_void,
    pub src_pitch: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_memory_type: u32,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: *mut c_void,
    pub dst_pitch: usize,
    pub width_in_bytes: usize,
    pub height: usize,
}

/// One side of a copy: base address, row pitch, rows per slice, and the device range it
/// may touch (`None` for host memory).
struct Side {
    base: u64,
    pitch: usize,
    rows: usize,
    device: bool,
}

const MEM_HOST: u32 = 1;
const MEM_DEVICE: u32 = 2;
const MEM_ARRAY: u32 = 3;
const MEM_UNIFIED: u32 = 4;

fn side(kind: u32, host: u64, dev: u64, arr: *mut c_void, pitch: usize, rows: usize) -> Res<Side> {
    Ok(match kind {
        MEM_HOST => Side {
            base: host,
            pitch,
            rows,
            device: false,
        },
        MEM_DEVICE | MEM_UNIFIED => Side {
            base: dev,
            pitch,
            rows,
            device: true,
        },
        MEM_ARRAY => {
            let a = array(arr)?;
            Side {
                base: a.ptr,
                pitch: a.desc.width * a.resource().texel_bytes(),
                rows: a.desc.height.max(1),
                device: true,
            }
        }
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    })
}

/// Copies `depth` slices of `height` rows of `width` bytes, row by row.
#[allow(clippy::too_many_arguments)]
fn copy(
    s: &Side,
    (sx, sy, sz): (usize, usize, usize),
    t: &Side,
    (tx, ty, tz): (usize, usize, usize),
    width: usize,
    height: usize,
    depth: usize,
) -> Res {
    with_ctx(|d, _, _| {
        for z in 0..depth {
            for y in 0..height {
                let so = s.base + ((sz + z) * s.rows * s.pitch + (sy + y) * s.pitch + sx) as u64;
                let to = t.base + ((tz + z) * t.rows * t.pitch + (ty + y) * t.pitch + tx) as u64;
                for (side, a) in [(s, so), (t, to)] {
                    if side.device && width > 0 {
                        d.device
                            .check_range(a, width as u64)
                            .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
                    }
                }
                if so == 0 || to == 0 {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                // SAFETY: device ranges were checked (device addresses are host
                // addresses); host pointers are the caller's contract.
                unsafe { std::ptr::copy(so as *const u8, to as *mut u8, width) };
            }
        }
        Ok(())
    })
}

impl CudaMemcpy3d {
    /// Runs the copy this descriptor describes.
    fn run(&self) -> Res {
        let s = side(
            self.src_memory_type,
            self.src_host as u64,
            self.src_device,
            self.src_array,
            self.src_pitch.max(self.width_in_bytes),
            self.src_height.max(self.height),
        )?;
        let t = side(
            self.dst_memory_type,
            self.dst_host as u64,
            self.dst_device,
            self.dst_array,
            self.dst_pitch.max(self.width_in_bytes),
            self.dst_height.max(self.height),
        )?;
        copy(
            &s,
            (self.src_x_in_bytes, self.src_y, self.src_z),
            &t,
            (self.dst_x_in_bytes, self.dst_y, self.dst_z),
            self.width_in_bytes,
            self.height.max(1),
            self.depth.max(1),
        )
    }
}

impl CudaMemcpy2d {
    /// The same copy as a 3-D one: one slice at z = 0.
    fn as_3d(&self) -> CudaMemcpy3d {
        CudaMemcpy3d {
            src_x_in_bytes: self.src_x_in_bytes,
            src_y: self.src_y,
            src_z: 0,
            src_lod: 0,
            src_memory_type: self.src_memory_type,
            src_host: self.src_host,
            src_device: self.src_device,
            src_array: self.src_array,
            reserved0: std::ptr::null_mut(),
            src_pitch: self.src_pitch,
            src_height: self.height,
            dst_x_in_bytes: self.dst_x_in_bytes,
            dst_y: self.dst_y,
            dst_z: 0,
            dst_lod: 0,
            dst_memory_type: self.dst_memory_type,
            dst_host: self.dst_host,
            dst_device: self.dst_device,
            dst_array: self.dst_array,
            reserved1: std::ptr::null_mut(),
            dst_pitch: self.dst_pitch,
            dst_height: self.height,
            width_in_bytes: self.width_in_bytes,
            height: self.height,
            depth: 1,
        }
    }
}

/// # Safety
/// `c` valid as the driver API documents (host pointers included).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3D_v2(c: *const CudaMemcpy3d) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(c) = (unsafe { c.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        c.run()
    })
}

/// # Safety
/// `c` valid as the driver API documents (host pointers included).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(c: *const CudaMemcpy2d) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(c) = (unsafe { c.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        c.as_3d().run()
    })
}

/// `CUDA_RESOURCE_DESC` (the array and linear members of its union).
#[repr(C)]
pub struct CudaResourceDesc {
    pub res_type: u32,
    pub res: [u64; 16],
    pub flags: u32,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
pub struct CudaTextureDesc {
    pub address_mode: [u32; 3],
    pub filter_mode: u32,
    pub flags: u32,
    pub max_anisotropy: u32,
    pub mipmap_filter_mode: u32,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub border_color: [f32; 4],
    pub reserved: [i32; 12],
}

const RESOURCE_TYPE_ARRAY: u32 = 0;
const RESOURCE_TYPE_MIPMAPPED_ARRAY: u32 = 1;
const RESOURCE_TYPE_LINEAR: u32 = 2;
const RESOURCE_TYPE_PITCH2D: u32 = 3;
const TRSF_READ_AS_INTEGER: u32 = 1;
const TRSF_NORMALIZED_COORDINATES: u32 = 2;

impl CudaTextureDesc {
    /// The sampling this descriptor asks for.
    fn desc(&self) -> Res<TextureDesc> {
        let mode = |m: u32| AddressMode::from_code(m).ok_or(CUDA_ERROR_INVALID_VALUE);
        Ok(TextureDesc {
            address: [
                mode(self.address_mode[0])?,
                mode(self.address_mode[1])?,
                mode(self.address_mode[2])?,
            ],
            linear: self.filter_mode == 1,
            normalized: self.flags & TRSF_NORMALIZED_COORDINATES != 0,
            read_as_integer: self.flags & TRSF_READ_AS_INTEGER != 0,
            border: self.border_color,
        })
    }
    /// The mipmap state this descriptor asks for (`CU_TR_FILTER_MODE_POINT` 0 or
    /// `LINEAR` 1 between levels).
    fn mip(&self) -> Res<MipmapDesc> {
        if self.mipmap_filter_mode > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(MipmapDesc {
            linear: self.mipmap_filter_mode == 1,
            bias: self.mipmap_level_bias,
            min_clamp: self.min_mipmap_level_clamp,
            max_clamp: self.max_mipmap_level_clamp,
        })
    }
}

fn resource(r: &CudaResourceDesc) -> Res<(TexResource, Option<CudaArray>)> {
    match r.res_type {
        RESOURCE_TYPE_ARRAY => {
            let a = array(r.res[0] as *mut c_void)?;
            Ok((a.resource(), Some(a)))
        }
        RESOURCE_TYPE_LINEAR => {
            let (fmt, channels) = format(r.res[1] as u32, (r.res[1] >> 32) as u32)?;
            let bytes = r.res[2] as usize;
            let texel = fmt.bytes() * channels.max(1) as usize;
            Ok((
                TexResource {
                    base: r.res[0],
                    format: fmt,
                    channels,
                    width: bytes / texel,
                    height: 0,
                    depth: 0,
                    layered: false,
                    linear: true,
                    pitch: 0,
                },
                None,
            ))
        }
        RESOURCE_TYPE_PITCH2D => {
            let (fmt, channels) = format(r.res[1] as u32, (r.res[1] >> 32) as u32)?;
            let (width, height, pitch) = (r.res[2] as usize, r.res[3] as usize, r.res[4] as usize);
            if pitch < width.saturating_mul(fmt.bytes() * channels as usize) || height == 0 {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            Ok((
                TexResource {
                    base: r.res[0],
                    format: fmt,
                    channels,
                    width,
                    height,
                    depth: 0,
                    layered: false,
                    linear: true,
                    pitch,
                },
                None,
            ))
        }
        _ => Err(CUDA_ERROR_NOT_SUPPORTED),
    }
}

/// The `CUDA_RESOURCE_DESC` of an object's texels: its array (a `CUarray` is the
/// array's address), a linear range or a pitched 2D range.
fn resource_desc(res: &TexResource) -> CudaResourceDesc {
    let mut d = CudaResourceDesc {
        res_type: RESOURCE_TYPE_ARRAY,
        res: [0; 16],
        flags: 0,
    };
    d.res[0] = res.base;
    if res.linear {
        d.res[1] = res.format.code(res.channels) as u64 | (res.channels as u64) << 32;
        if res.pitch != 0 || res.height != 0 {
            d.res_type = RESOURCE_TYPE_PITCH2D;
            d.res[2] = res.width as u64;
            d.res[3] = res.height as u64;
            d.res[4] = res.row_bytes() as u64;
        } else {
            d.res_type = RESOURCE_TYPE_LINEAR;
            d.res[2] = res.bytes() as u64;
        }
    }
    d
}

/// # Safety
/// `p` valid for a write of a `CUDA_RESOURCE_DESC`.
#[no_mangle]
pub unsafe extern "C" fn cuTexObjectGetResourceDesc(p: *mut CudaResourceDesc, h: u64) -> CUresult {
    guard(|| {
        let obj = with_ctx(|d, _, _| {
            d.device
                .tex_object(h)
                .filter(|o| o.tex.is_some())
                .ok_or(CUDA_ERROR_INVALID_HANDLE)
        })?;
        let mut rd = resource_desc(&obj.res);
        if let Some(m) = extra(h).and_then(|e| e.mipmapped) {
            rd.res_type = RESOURCE_TYPE_MIPMAPPED_ARRAY;
            rd.res[0] = m;
        }
        // SAFETY: `out` checks for null.
        unsafe { out(p, rd) }
    })
}

/// The `CUDA_TEXTURE_DESC` of a texture object.
///
/// # Safety
/// `p` valid for a write of a `CUDA_TEXTURE_DESC`.
#[no_mangle]
pub unsafe extern "C" fn cuTexObjectGetTextureDesc(p: *mut CudaTextureDesc, h: u64) -> CUresult {
    guard(|| {
        let td = with_ctx(|d, _, _| {
            d.device
                .tex_object(h)
                .and_then(|o| o.tex)
                .ok_or(CUDA_ERROR_INVALID_HANDLE)
        })?;
        let flags = if td.read_as_integer {
            TRSF_READ_AS_INTEGER
        } else {
            0
        } | if td.normalized {
            TRSF_NORMALIZED_COORDINATES
        } else {
            0
        };
        let e = extra(h).unwrap_or(Extra {
            mipmapped: None,
            mip_filter: 0,
            bias: 0.0,
            min_clamp: 0.0,
            max_clamp: 0.0,
            max_anisotropy: 0,
        });
        let desc = CudaTextureDesc {
            address_mode: td.address.map(|m| m as u32),
            filter_mode: td.linear as u32,
            flags,
            max_anisotropy: e.max_anisotropy,
            mipmap_filter_mode: e.mip_filter,
            mipmap_level_bias: e.bias,
            min_mipmap_level_clamp: e.min_clamp,
            max_mipmap_level_clamp: e.max_clamp,
            border_color: td.border,
            reserved: [0; 12],
        };
        // SAFETY: `out` checks for null.
        unsafe { out(p, desc) }
    })
}

/// # Safety
/// `p` valid for a write of a `CUDA_RESOURCE_DESC`.
#[no_mangle]
pub unsafe extern "C" fn cuSurfObjectGetResourceDesc(p: *mut CudaResourceDesc, h: u64) -> CUresult {
    guard(|| {
        let obj = with_ctx(|d, _, _| {
            d.device
                .tex_object(h)
                .filter(|o| o.tex.is_none())
                .ok_or(CUDA_ERROR_INVALID_HANDLE)
        })?;
        // SAFETY: `out` checks for null.
        unsafe { out(p, resource_desc(&obj.res)) }
    })
}

/// # Safety
/// Pointers valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuTexObjectCreate(
    p: *mut u64,
    res: *const CudaResourceDesc,
    tex: *const CudaTextureDesc,
    view: *const c_void,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (Some(r), Some(t)) = (unsafe { res.as_ref() }, unsafe { tex.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        if !view.is_null() {
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let desc = t.desc()?;
        let mip = t.mip()?;
        let mm = if r.res_type == RESOURCE_TYPE_MIPMAPPED_ARRAY {
            Some((r.res[0], crate::mipmap::mipmapped(r.res[0])?))
        } else {
            None
        };
        let res = match mm {
            Some(_) => None,
            None => Some(resource(r)?.0),
        };
        let h = with_ctx(|d, _, _| {
            match (&mm, res) {
                (Some((_, m)), _) => d.device.create_mipmapped_texture_object(m, desc, mip),
                (None, Some(res)) => d.device.create_texture_object(res, desc),
                (None, None) => return Err(CUDA_ERROR_INVALID_VALUE),
            }
            .map_err(|_| CUDA_ERROR_INVALID_VALUE)
        })?;
        extras().get_or_insert_with(HashMap::new).insert(
            h,
            Extra {
                mipmapped: mm.map(|(k, _)| k),
                mip_filter: t.mipmap_filter_mode,
                bias: mip.bias,
                min_clamp: mip.min_clamp,
                max_clamp: mip.max_clamp,
                max_anisotropy: t.max_anisotropy,
            },
        );
        // SAFETY: `out` checks for null.
        unsafe { out(p, h) }
    })
}

#[no_mangle]
pub extern "C" fn cuTexObjectDestroy(h: u64) -> CUresult {
    guard(|| {
        with_ctx(|d, _, _| {
            d.device
                .destroy_tex_object(h)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)
        })?;
        if let Some(m) = extras().as_mut() {
            m.remove(&h);
        }
        Ok(())
    })
}

/// # Safety
/// Pointers valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuSurfObjectCreate(p: *mut u64, res: *const CudaResourceDesc) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(r) = (unsafe { res.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        let (_, Some(a)) = resource(r)? else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        with_ctx(|d, _, _| {
            let h = d
                .device
                .create_surface_object(&a)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            // SAFETY: `out` checks for null.
            unsafe { out(p, h) }
        })
    })
}

#[no_mangle]
pub extern "C" fn cuSurfObjectDestroy(h: u64) -> CUresult {
    cuTexObjectDestroy(h)
}
