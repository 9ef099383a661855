//! `cuGetErrorName` and `cuGetErrorString`, from the header's `CUresult` enumeration.

use crate::*;
use std::ffi::c_char;
use std::sync::OnceLock;

/// NUL-terminated (name, description) for each `CUresult`, built once.
fn table() -> &'static Vec<(u32, std::ffi::CString, std::ffi::CString)> {
    static T: OnceLock<Vec<(u32, std::ffi::CString, std::ffi::CString)>> = OnceLock::new();
    T.get_or_init(|| {
        ERRORS
            .iter()
            .filter_map(|&(v, n, d)| {
                Some((
                    v,
                    std::ffi::CString::new(n).ok()?,
                    std::ffi::CString::new(d).ok()?,
                ))
            })
            .collect()
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(e: CUresult, p: *mut *const c_char) -> CUresult {
    guard(|| {
        if p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match table().iter().find(|x| x.0 == e) {
            Some(x) => out(p, x.1.as_ptr()),
            None => {
                out(p, std::ptr::null())?;
                Err(CUDA_ERROR_INVALID_VALUE)
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(e: CUresult, p: *mut *const c_char) -> CUresult {
    guard(|| {
        if p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match table().iter().find(|x| x.0 == e) {
            Some(x) => out(p, x.2.as_ptr()),
            None => {
                out(p, std::ptr::null())?;
                Err(CUDA_ERROR_INVALID_VALUE)
            }
        }
    })
}
