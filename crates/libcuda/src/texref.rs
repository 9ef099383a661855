//! Module texture and surface references (the legacy driver API): `cuModuleGetTexRef`,
//! `cuModuleGetSurfRef`, `cuTexRefSetArray`, `cuTexRefSetAddress_v2`,
//! `cuTexRefSetAddress2D_v3`, `cuTexRefSetFormat`, `cuTexRefSetAddressMode`,
//! `cuTexRefSetFilterMode`, `cuTexRefSetFlags`, `cuTexRefSetBorderColor`, the mipmap
//! calls (`cuTexRefSetMipmappedArray`, `cuTexRefSetMipmapFilterMode`,
//! `cuTexRefSetMipmapLevelBias`, `cuTexRefSetMipmapLevelClamp`,
//! `cuTexRefSetMaxAnisotropy`), their `cuTexRefGet*` counterparts, and
//! `cuSurfRefSetArray`/`cuSurfRefGetArray`. A new reference's mipmap state is CUDA's
//! `texture<>` default: point filtering between levels, bias 0, both clamps 0 (so a
//! mipmapped array reads level 0 until `cuTexRefSetMipmapLevelClamp` widens them).
//!
//! A `CUtexref`/`CUsurfref` is the device address of the module's reference variable
//! (`ptxjit::runtime::texture::TexRef`). The state the `Set` calls build up is kept
//! here; after each call a texture reference with texels (an array or an address) is
//! bound again with `Device::bind_tex_ref`, so the next launch samples it as set.

use crate::texture::{array, CudaArrayDescriptor};
use crate::*;
use ptxjit::runtime::mipmap::MipmapDesc;
use ptxjit::runtime::texture::{
    AddressMode, ArrayFormat, CudaArray, TexRef, TexRefKind, TexResource, TextureDesc,
};
use std::collections::HashMap;
use std::ffi::c_char;

/// What a texture reference reads.
#[derive(Clone, Copy)]
enum Source {
    None,
    Array(CudaArray),
    /// `cuTexRefSetAddress`: `bytes` of linear memory.
    Linear {
        base: u64,
        bytes: usize,
    },
    /// `cuTexRefSetAddress2D`: `width` x `height` texels, rows `pitch` bytes apart.
    Pitch2d {
        base: u64,
        width: usize,
        height: usize,
        pitch: usize,
    },
    /// `cuTexRefSetMipmappedArray`: the `CUmipmappedArray` handle.
    Mipmapped(u64),
}

/// A reference's state.
#[derive(Clone, Copy)]
struct RefState {
    r: TexRef,
    src: Source,
    format: ArrayFormat,
    channels: u32,
    address: [u32; 3],
    filter: u32,
    flags: u32,
    border: [f32; 4],
    mip_filter: u32,
    bias: f32,
    min_clamp: f32,
    max_clamp: f32,
    max_anisotropy: u32,
}

static REFS: Mutex<Option<HashMap<u64, RefState>>> = Mutex::new(None);

fn refs() -> MutexGuard<'static, Option<HashMap<u64, RefState>>> {
    REFS.lock().unwrap_or_else(|e| e.into_inner())
}

const TRSF_READ_AS_INTEGER: u32 = 1;
const TRSF_NORMALIZED_COORDINATES: u32 = 2;

impl RefState {
    /// The texels and sampler state to bind, if the reference has texels.
    fn binding(&self) -> Res<Option<(TexResource, TextureDesc)>> {
        let linear = |base, width, height, pitch| TexResource {
            base,
            format: self.format,
            channels: self.channels,
            width,
            height,
            depth: 0,
            layered: false,
            linear: true,
            pitch,
        };
        let res = match self.src {
            Source::None => return Ok(None),
            Source::Array(a) => a.resource(),
            Source::Mipmapped(h) => {
                let m = crate::mipmap::mipmapped(h)?;
                m.levels.first().ok_or(CUDA_ERROR_INVALID_VALUE)?.resource()
            }
            Source::Linear { base, bytes } => {
                let texel = self.format.bytes() * self.channels.max(1) as usize;
                linear(base, bytes / texel, 0, 0)
            }
            Source::Pitch2d {
                base,
                width,
                height,
                pitch,
            } => linear(base, width, height, pitch),
        };
        let mode = |m: u32| AddressMode::from_code(m).ok_or(CUDA_ERROR_INVALID_VALUE);
        let desc = TextureDesc {
            address: [
                mode(self.address[0])?,
                mode(self.address[1])?,
                mode(self.address[2])?,
            ],
            linear: self.filter == 1,
            normalized: self.flags & TRSF_NORMALIZED_COORDINATES != 0,
            read_as_integer: self.flags & TRSF_READ_AS_INTEGER != 0,
            border: self.border,
        };
        Ok(Some((res, desc)))
    }
    /// The mipmap state set with the `cuTexRefSetMipmap*` calls.
    fn mip(&self) -> MipmapDesc {
        MipmapDesc {
            linear: self.mip_filter == 1,
            bias: self.bias,
            min_clamp: self.min_clamp,
            max_clamp: self.max_clamp,
        }
    }
}

/// Looks up a module's reference `name` of `kind`, registers its state (once) and
/// returns its handle.
fn get_ref(p: *mut *mut c_void, h: CUmodule, name: *const c_char, kind: TexRefKind) -> Res {
    // SAFETY: the caller's contract (checked for null).
    let name = unsafe { cstr(name) }?;
    let r = with_ctx(|_, t, _| {
        let mid = crate::module::module_id(t, h)?;
        t.modules[&mid]
            .module
            .tex_ref(&name)
            .filter(|r| r.kind == kind)
            .ok_or(CUDA_ERROR_NOT_FOUND)
    })?;
    refs()
        .get_or_insert_with(HashMap::new)
        .entry(r.addr)
        .or_insert(RefState {
            r,
            src: Source::None,
            format: ArrayFormat::F32,
            channels: 1,
            address: [0; 3],
            filter: 0,
            flags: 0,
            border: [0.0; 4],
            mip_filter: 0,
            bias: 0.0,
            min_clamp: 0.0,
            max_clamp: 0.0,
            max_anisotropy: 0,
        })
        .r = r;
    // SAFETY: `out` checks for null.
    unsafe { out(p, r.addr as *mut c_void) }
}

/// Drops the state of module `m`'s reference variables (at `cuModuleUnload`).
pub(crate) fn forget(m: &ptxjit::Module) {
    let mut g = refs();
    let Some(map) = g.as_mut() else { return };
    for name in m.ir().tex_refs.keys() {
        if let Some(r) = m.tex_ref(name) {
            map.remove(&r.addr);
        }
    }
}

/// Runs `f` on a texture reference's state, then binds it again.
fn update(h: *mut c_void, f: impl FnOnce(&mut RefState) -> Res) -> Res {
    let st = {
        let mut g = refs();
        let st = g
            .as_mut()
            .and_then(|m| m.get_mut(&(h as u64)))
            .filter(|s| s.r.kind == TexRefKind::Texture)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        f(st)?;
        *st
    };
    let binding = st.binding()?;
    let mm = match st.src {
        Source::Mipmapped(h) => Some(crate::mipmap::mipmapped(h)?),
        _ => None,
    };
    with_ctx(|d, _, _| {
        match (binding, mm) {
            (Some((_, desc)), Some(m)) => d
                .device
                .bind_mipmapped_tex_ref(&st.r, &m, desc, st.mip())
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)?,
            (Some((res, desc)), None) => d
                .device
                .bind_tex_ref(&st.r, res, desc)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)?,
            (None, _) => d.device.unbind_ref(&st.r),
        }
        Ok(())
    })
}

/// Reads a texture reference's state.
fn state(h: *mut c_void, kind: TexRefKind) -> Res<RefState> {
    refs()
        .as_ref()
        .and_then(|m| m.get(&(h as u64)).copied())
        .filter(|s| s.r.kind == kind)
        .ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// # Safety
/// Pointers valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetTexRef(
    p: *mut *mut c_void,
    h: CUmodule,
    name: *const c_char,
) -> CUresult {
    guard(|| get_ref(p, h, name, TexRefKind::Texture))
}

/// # Safety
/// Pointers valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetSurfRef(
    p: *mut *mut c_void,
    h: CUmodule,
    name: *const c_char,
) -> CUresult {
    guard(|| get_ref(p, h, name, TexRefKind::Surface))
}

#[no_mangle]
pub extern "C" fn cuTexRefSetArray(h: *mut c_void, a: *mut c_void, _flags: u32) -> CUresult {
    guard(|| {
        let a = array(a)?;
        update(h, |s| {
            s.src = Source::Array(a);
            s.format = a.desc.format;
            s.channels = a.desc.channels;
            Ok(())
        })
    })
}

/// # Safety
/// `offset` null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefSetAddress_v2(
    offset: *mut usize,
    h: *mut c_void,
    dptr: u64,
    bytes: usize,
) -> CUresult {
    guard(|| {
        update(h, |s| {
            s.src = if dptr == 0 {
                Source::None
            } else {
                Source::Linear { base: dptr, bytes }
            };
            Ok(())
        })?;
        if !offset.is_null() {
            // SAFETY: the caller's contract. Any address is usable: no offset.
            unsafe { out(offset, 0) }?;
        }
        Ok(())
    })
}

/// # Safety
/// `desc` valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefSetAddress2D_v3(
    h: *mut c_void,
    desc: *const CudaArrayDescriptor,
    dptr: u64,
    pitch: usize,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(d) = (unsafe { desc.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        let format = ArrayFormat::from_code(d.format).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let channels = ArrayFormat::code_channels(d.format).unwrap_or(d.num_channels);
        let texel = format.bytes() * channels as usize;
        if !matches!(channels, 1 | 2 | 4) || pitch < d.width * texel {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        update(h, |s| {
            s.src = Source::Pitch2d {
                base: dptr,
                width: d.width,
                height: d.height,
                pitch,
            };
            s.format = format;
            s.channels = channels;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetFormat(h: *mut c_void, fmt: u32, channels: i32) -> CUresult {
    guard(|| {
        let f = ArrayFormat::from_code(fmt).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let channels = ArrayFormat::code_channels(fmt).map_or(channels, |c| c as i32);
        if !matches!(channels, 1 | 2 | 4) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        update(h, |s| {
            s.format = f;
            s.channels = channels as u32;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetAddressMode(h: *mut c_void, dim: i32, mode: u32) -> CUresult {
    guard(|| {
        if !(0..3).contains(&dim) || AddressMode::from_code(mode).is_none() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        update(h, |s| {
            s.address[dim as usize] = mode;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetFilterMode(h: *mut c_void, mode: u32) -> CUresult {
    guard(|| {
        if mode > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        update(h, |s| {
            s.filter = mode;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetFlags(h: *mut c_void, flags: u32) -> CUresult {
    guard(|| {
        update(h, |s| {
            s.flags = flags;
            Ok(())
        })
    })
}

/// # Safety
/// `c` points to 4 floats.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefSetBorderColor(h: *mut c_void, c: *const f32) -> CUresult {
    guard(|| {
        if c.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the caller's contract.
        let border = unsafe { [c.read(), c.add(1).read(), c.add(2).read(), c.add(3).read()] };
        update(h, |s| {
            s.border = border;
            Ok(())
        })
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetAddress_v2(p: *mut u64, h: *mut c_void) -> CUresult {
    guard(|| {
        let base = match state(h, TexRefKind::Texture)?.src {
            Source::Linear { base, .. } | Source::Pitch2d { base, .. } => base,
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        };
        // SAFETY: `out` checks for null.
        unsafe { out(p, base) }
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetArray(p: *mut *mut c_void, h: *mut c_void) -> CUresult {
    guard(|| {
        let Source::Array(a) = state(h, TexRefKind::Texture)?.src else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        // SAFETY: `out` checks for null.
        unsafe { out(p, a.ptr as *mut c_void) }
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetAddressMode(p: *mut u32, h: *mut c_void, dim: i32) -> CUresult {
    guard(|| {
        let s = state(h, TexRefKind::Texture)?;
        let m = *s
            .address
            .get(dim as usize)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: `out` checks for null.
        unsafe { out(p, m) }
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetFilterMode(p: *mut u32, h: *mut c_void) -> CUresult {
    // SAFETY: `out` checks for null.
    guard(|| unsafe { out(p, state(h, TexRefKind::Texture)?.filter) })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetFlags(p: *mut u32, h: *mut c_void) -> CUresult {
    // SAFETY: `out` checks for null.
    guard(|| unsafe { out(p, state(h, TexRefKind::Texture)?.flags) })
}

/// # Safety
/// `fmt` and `channels` null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetFormat(
    fmt: *mut u32,
    channels: *mut i32,
    h: *mut c_void,
) -> CUresult {
    guard(|| {
        let s = state(h, TexRefKind::Texture)?;
        // SAFETY: the caller's contract; `out` checks for null.
        unsafe {
            if !fmt.is_null() {
                out(fmt, s.format.code(s.channels))?;
            }
            if !channels.is_null() {
                out(channels, s.channels as i32)?;
            }
        }
        Ok(())
    })
}

/// # Safety
/// `c` valid for 4 floats.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetBorderColor(c: *mut f32, h: *mut c_void) -> CUresult {
    guard(|| {
        let s = state(h, TexRefKind::Texture)?;
        if c.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        for (k, v) in s.border.iter().enumerate() {
            // SAFETY: the caller's contract.
            unsafe { c.add(k).write(*v) };
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuSurfRefSetArray(h: *mut c_void, a: *mut c_void, _flags: u32) -> CUresult {
    guard(|| {
        let a = array(a)?;
        let r = {
            let mut g = refs();
            let s = g
                .as_mut()
                .and_then(|m| m.get_mut(&(h as u64)))
                .filter(|s| s.r.kind == TexRefKind::Surface)
                .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            s.src = Source::Array(a);
            s.r
        };
        with_ctx(|d, _, _| {
            d.device
                .bind_surf_ref(&r, &a)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)
        })
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuSurfRefGetArray(p: *mut *mut c_void, h: *mut c_void) -> CUresult {
    guard(|| {
        let Source::Array(a) = state(h, TexRefKind::Surface)?.src else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        // SAFETY: `out` checks for null.
        unsafe { out(p, a.ptr as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetMipmappedArray(
    h: *mut c_void,
    m: *mut c_void,
    _flags: u32,
) -> CUresult {
    guard(|| {
        let mm = crate::mipmap::mipmapped(m as u64)?;
        let l0 = mm.levels.first().ok_or(CUDA_ERROR_INVALID_VALUE)?.desc;
        update(h, |s| {
            s.src = Source::Mipmapped(m as u64);
            s.format = l0.format;
            s.channels = l0.channels;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetMipmapFilterMode(h: *mut c_void, mode: u32) -> CUresult {
    guard(|| {
        if mode > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        update(h, |s| {
            s.mip_filter = mode;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetMipmapLevelBias(h: *mut c_void, bias: f32) -> CUresult {
    guard(|| {
        update(h, |s| {
            s.bias = bias;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetMipmapLevelClamp(h: *mut c_void, min: f32, max: f32) -> CUresult {
    guard(|| {
        update(h, |s| {
            s.min_clamp = min;
            s.max_clamp = max;
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuTexRefSetMaxAnisotropy(h: *mut c_void, max: u32) -> CUresult {
    guard(|| {
        update(h, |s| {
            s.max_anisotropy = max;
            Ok(())
        })
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetMipmappedArray(
    p: *mut *mut c_void,
    h: *mut c_void,
) -> CUresult {
    guard(|| {
        let Source::Mipmapped(m) = state(h, TexRefKind::Texture)?.src else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        // SAFETY: `out` checks for null.
        unsafe { out(p, m as *mut c_void) }
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetMipmapFilterMode(p: *mut u32, h: *mut c_void) -> CUresult {
    // SAFETY: `out` checks for null.
    guard(|| unsafe { out(p, state(h, TexRefKind::Texture)?.mip_filter) })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetMipmapLevelBias(p: *mut f32, h: *mut c_void) -> CUresult {
    // SAFETY: `out` checks for null.
    guard(|| unsafe { out(p, state(h, TexRefKind::Texture)?.bias) })
}

/// # Safety
/// `min` and `max` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetMipmapLevelClamp(
    min: *mut f32,
    max: *mut f32,
    h: *mut c_void,
) -> CUresult {
    guard(|| {
        let s = state(h, TexRefKind::Texture)?;
        // SAFETY: `out` checks for null.
        unsafe {
            out(min, s.min_clamp)?;
            out(max, s.max_clamp)
        }
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuTexRefGetMaxAnisotropy(p: *mut i32, h: *mut c_void) -> CUresult {
    // SAFETY: `out` checks for null.
    guard(|| unsafe { out(p, state(h, TexRefKind::Texture)?.max_anisotropy as i32) })
}
