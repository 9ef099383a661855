//! `cuGetProcAddress`: a driver function by base name and CUDA version, from the
//! table generated from NVIDIA's headers (`api/procs.txt`). Per-thread-default-stream
//! variants are returned when asked for; where such a variant has no implementation the
//! plain one is returned, which is equivalent here (every stream is always idle).

use crate::*;
use std::ffi::c_char;

const CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: u64 = 2;
const SYMBOL_SUCCESS: i32 = 0;
const SYMBOL_NOT_FOUND: i32 = 1;
const VERSION_NOT_SUFFICIENT: i32 = 2;

/// The symbol for `base` at `version`: `Err(true)` if the name exists only for newer
/// versions, `Err(false)` if it is unknown.
pub fn resolve(base: &str, version: i32, per_thread: bool) -> Result<&'static str, bool> {
    let best = |pt: bool| {
        PROCS
            .iter()
            .filter(|e| e.0 == base && e.2 == pt && e.1 <= version)
            .max_by_key(|e| e.1)
            .map(|e| e.3)
    };
    let plain = best(false);
    if per_thread {
        if let Some(s) =
            best(true).filter(|s| is_implemented(s) || plain.is_none_or(|p| !is_implemented(p)))
        {
            return Ok(s);
        }
    }
    match plain {
        Some(s) => Ok(s),
        None if PROCS.iter().any(|e| e.0 == base) => Err(true),
        None => Err(false),
    }
}

unsafe fn get_proc(
    sym: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
    found: *mut i32,
) -> CUresult {
    guard(|| {
        if pfn.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let name = cstr(sym)?;
        let per_thread = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM != 0;
        let r = resolve(&name, version, per_thread);
        let status = match r {
            Ok(_) => SYMBOL_SUCCESS,
            Err(true) => VERSION_NOT_SUFFICIENT,
            Err(false) => SYMBOL_NOT_FOUND,
        };
        if !found.is_null() {
            out(found, status)?;
        }
        match r.ok().and_then(symbol_addr) {
            Some(p) => out(pfn, p as *mut c_void),
            None => {
                out(pfn, std::ptr::null_mut())?;
                Err(CUDA_ERROR_NOT_FOUND)
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    sym: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
    found: *mut i32,
) -> CUresult {
    get_proc(sym, pfn, version, flags, found)
}

#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    sym: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
) -> CUresult {
    get_proc(sym, pfn, version, flags, std::ptr::null_mut())
}
