//! Mipmapped CUDA arrays: `cuMipmappedArrayCreate`, `cuMipmappedArrayGetLevel` and
//! `cuMipmappedArrayDestroy` over `ptxjit::runtime::mipmap`. Level `k` has extent
//! `max(1, e >> k)` in each dimension the array has (a layered array keeps its layer
//! count). A `CUmipmappedArray` is an opaque handle of its own; each level is a
//! `CUarray` registered with [`crate::texture`]'s array table, so `cuMemcpy2D`/`3D`
//! copy into and out of it and a texture object can read it alone. Destroying the
//! mipmapped array frees its levels. Texture objects and references over one:
//! `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY` in [`crate::texture`], `cuTexRefSetMipmappedArray`
//! in [`crate::texref`].

use crate::*;
use ptxjit::runtime::mipmap::MipmappedArray;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

static MIPMAPS: Mutex<Option<HashMap<u64, MipmappedArray>>> = Mutex::new(None);
/// Handles count up from a tag that no device address or array handle has.
static NEXT: AtomicU64 = AtomicU64::new(0x6d69_7000_0000_0000);

fn mipmaps() -> MutexGuard<'static, Option<HashMap<u64, MipmappedArray>>> {
    MIPMAPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The mipmapped array of a handle.
pub(crate) fn mipmapped(h: u64) -> Res<MipmappedArray> {
    mipmaps()
        .as_ref()
        .and_then(|m| m.get(&h).cloned())
        .ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// # Safety
/// `p` and `desc` valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuMipmappedArrayCreate(
    p: *mut *mut c_void,
    desc: *const crate::texture::CudaArray3dDescriptor,
    levels: u32,
) -> CUresult {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(dd) = (unsafe { desc.as_ref() }) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        let desc = dd.desc()?;
        with_ctx(|d, _, _| {
            let m = d
                .device
                .create_mipmapped_array(desc, levels)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            for a in &m.levels {
                crate::texture::register_array(*a);
            }
            let h = NEXT.fetch_add(1, Ordering::Relaxed);
            mipmaps().get_or_insert_with(HashMap::new).insert(h, m);
            // SAFETY: `out` checks for null.
            unsafe { out(p, h as *mut c_void) }
        })
    })
}

/// # Safety
/// `p` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMipmappedArrayGetLevel(
    p: *mut *mut c_void,
    h: *mut c_void,
    level: u32,
) -> CUresult {
    guard(|| {
        let m = mipmapped(h as u64)?;
        let a = m.level(level as usize).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: `out` checks for null.
        unsafe { out(p, a.ptr as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cuMipmappedArrayDestroy(h: *mut c_void) -> CUresult {
    guard(|| {
        let m = mipmapped(h as u64)?;
        with_ctx(|d, _, _| {
            for a in &m.levels {
                crate::texture::unregister_array(a.ptr);
            }
            d.device
                .destroy_mipmapped_array(m)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            if let Some(t) = mipmaps().as_mut() {
                t.remove(&(h as u64));
            }
            Ok(())
        })
    })
}
