//! Tensor maps: `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col` and
//! `cuTensorMapReplaceAddress` over `ptxjit::runtime::tensormap` (the 128-byte
//! `CUtensorMap` is ptxjit's own encoding; the driver documentation's requirements are
//! checked, a refusal is `CUDA_ERROR_INVALID_VALUE`). `cp.async.bulk.tensor` in a kernel
//! reads the map from its `__grid_constant__` parameter or from device memory.

use crate::*;
use ptxjit::runtime::tensormap::{Im2col, TensorMap, TENSOR_MAP_BYTES};

/// Reads `n` values from `p` (null with `n > 0`: `CUDA_ERROR_INVALID_VALUE`).
///
/// # Safety
/// `p` valid for `n` reads when not null.
unsafe fn slice<T: Copy>(p: *const T, n: usize) -> Res<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
}

/// The map's common fields from the driver arguments (`rank` already bounded by 5).
///
/// # Safety
/// Pointers valid for `rank` (strides: `rank - 1`) elements.
#[allow(clippy::too_many_arguments)]
unsafe fn common(
    dtype: u32,
    rank: u32,
    addr: *mut c_void,
    dims: *const u64,
    strides: *const u64,
    estr: *const u32,
    modes: [u32; 4],
) -> Res<TensorMap> {
    let n = rank as usize;
    if !(1..=5).contains(&n) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let mut m = TensorMap {
        dtype,
        rank,
        global_address: addr as u64,
        interleave: modes[0],
        swizzle: modes[1],
        l2_promotion: modes[2],
        oob_fill: modes[3],
        ..TensorMap::default()
    };
    // SAFETY: the caller's contract.
    let (d, s, e) = unsafe { (slice(dims, n)?, slice(strides, n - 1)?, slice(estr, n)?) };
    m.global_dim[..n].copy_from_slice(&d);
    m.global_strides[1..n].copy_from_slice(&s);
    m.element_strides[..n].copy_from_slice(&e);
    Ok(m)
}

/// Validates `m` for the map at `p` and writes it there.
///
/// # Safety
/// `p` valid for 128 bytes when not null.
unsafe fn write(p: *mut [u8; TENSOR_MAP_BYTES], m: &TensorMap) -> Res {
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    with_ctx(|_, _, _| Ok(()))?;
    m.validate(p as u64).map_err(|e| {
        if tracing() {
            log(&format!("ptxjit-cuda: {e}"));
        }
        CUDA_ERROR_INVALID_VALUE
    })?;
    // SAFETY: the caller's contract.
    unsafe { p.write_unaligned(m.encode()) };
    Ok(())
}

/// # Safety
/// Pointers valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuTensorMapEncodeTiled(
    tensor_map: *mut [u8; TENSOR_MAP_BYTES],
    dtype: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    box_dim: *const u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    guard(|| {
        let modes = [interleave, swizzle, l2_promotion, oob_fill];
        // SAFETY: the caller's contract.
        let mut m = unsafe {
            common(
                dtype,
                rank,
                global_address,
                global_dim,
                global_strides,
                element_strides,
                modes,
            )?
        };
        let n = rank as usize;
        // SAFETY: the caller's contract.
        m.box_dim[..n].copy_from_slice(&unsafe { slice(box_dim, n)? });
        // SAFETY: the caller's contract.
        unsafe { write(tensor_map, &m) }
    })
}

/// # Safety
/// Pointers valid as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuTensorMapEncodeIm2col(
    tensor_map: *mut [u8; TENSOR_MAP_BYTES],
    dtype: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    lower: *const i32,
    upper: *const i32,
    channels_per_pixel: u32,
    pixels_per_column: u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    guard(|| {
        if !(3..=5).contains(&rank) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let modes = [interleave, swizzle, l2_promotion, oob_fill];
        // SAFETY: the caller's contract.
        let mut m = unsafe {
            common(
                dtype,
                rank,
                global_address,
                global_dim,
                global_strides,
                element_strides,
                modes,
            )?
        };
        let k = rank as usize - 2;
        let mut ic = Im2col {
            channels_per_pixel,
            pixels_per_column,
            ..Im2col::default()
        };
        // SAFETY: the caller's contract.
        unsafe {
            ic.lower[..k].copy_from_slice(&slice(lower, k)?);
            ic.upper[..k].copy_from_slice(&slice(upper, k)?);
        }
        m.im2col = Some(ic);
        // SAFETY: the caller's contract.
        unsafe { write(tensor_map, &m) }
    })
}

/// # Safety
/// `tensor_map` valid for 128 bytes, as the driver API documents.
#[no_mangle]
pub unsafe extern "C" fn cuTensorMapReplaceAddress(
    tensor_map: *mut [u8; TENSOR_MAP_BYTES],
    global_address: *mut c_void,
) -> CUresult {
    guard(|| {
        if tensor_map.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the caller's contract.
        let bytes = unsafe { tensor_map.read_unaligned() };
        let mut m = TensorMap::decode(&bytes).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        m.global_address = global_address as u64;
        // SAFETY: the caller's contract.
        unsafe { write(tensor_map, &m) }
    })
}
