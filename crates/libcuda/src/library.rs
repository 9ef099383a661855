//! The library API (`cuLibraryLoadData`, `cuLibraryGetKernel`, ...), context-independent
//! modules in CUDA 12. Here a `CUlibrary` is a module that belongs to no context (no
//! context's destruction unloads it, and it loads without a current context, as the
//! CUDA runtime loads its fat binaries), and a `CUkernel` is that module's function
//! handle, so a `CUkernel` can be passed to `cuLaunchKernel` as a `CUfunction`, as the
//! driver allows. The other library calls work without a current context too: they
//! run with the primary context current for their duration.

use crate::*;
use std::ffi::c_char;

/// Runs `f` with a current context: the thread's, or else the primary context, made
/// current for the call.
fn any_ctx(f: impl FnOnce() -> CUresult) -> CUresult {
    let has = driver().is_ok_and(|d| ctx::current_checked(&d.lock()).is_ok());
    if has {
        return f();
    }
    let primary = match ctx::primary_unretained(0) {
        Ok(c) => c,
        Err(e) => return e,
    };
    // SAFETY: a live context handle; popped again below.
    let r = unsafe { cuCtxPushCurrent_v2(primary) };
    if r != CUDA_SUCCESS {
        return r;
    }
    let result = f();
    let mut popped = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe { cuCtxPopCurrent_v2(&mut popped) };
    result
}

/// `cuLibraryLoadData`: JIT and library options are ignored.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLibraryLoadData(
    lib: *mut *mut c_void,
    code: *const c_void,
    _jit_opts: *mut u32,
    _jit_vals: *mut *mut c_void,
    _n_jit: u32,
    _lib_opts: *mut u32,
    _lib_vals: *mut *mut c_void,
    _n_lib: u32,
) -> CUresult {
    guard(|| {
        let srcs = module::image_sources(code as *const u8, "library.ptx")?;
        module::load_into(lib, &srcs, false).map_err(|e| e.0)
    })
}

/// `cuLibraryLoadFromFile`: as `cuLibraryLoadData` with the file's contents; options
/// are ignored.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    lib: *mut *mut c_void,
    file: *const c_char,
    _jit_opts: *mut u32,
    _jit_vals: *mut *mut c_void,
    _n_jit: u32,
    _lib_opts: *mut u32,
    _lib_vals: *mut *mut c_void,
    _n_lib: u32,
) -> CUresult {
    guard(|| {
        let path = cstr(file)?;
        let mut bytes = std::fs::read(&path).map_err(|_| CUDA_ERROR_FILE_NOT_FOUND)?;
        bytes.push(0);
        let srcs = module::image_sources(bytes.as_ptr(), &path)?;
        module::load_into(lib, &srcs, false).map_err(|e| e.0)
    })
}

/// `cuLibraryUnload`: needs no context, not even the calling thread's context stack
/// (the CUDA runtime unloads its libraries from exit handlers, after the thread's
/// locals are gone).
#[no_mangle]
pub unsafe extern "C" fn cuLibraryUnload(lib: *mut c_void) -> CUresult {
    guard(|| module::unload(&mut driver()?.lock(), lib))
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut *mut c_void,
    lib: *mut c_void,
    name: *const c_char,
) -> CUresult {
    any_ctx(|| cuModuleGetFunction(kernel, lib, name))
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetModule(m: *mut CUmodule, lib: *mut c_void) -> CUresult {
    any_ctx(|| {
        guard(|| {
            with_ctx(|_, t, _| match handle_id(Kind::Module, lib) {
                Some(id) if t.modules.contains_key(&id) => Ok(()),
                _ => Err(CUDA_ERROR_INVALID_HANDLE),
            })?;
            out(m, lib)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    lib: *mut c_void,
    name: *const c_char,
) -> CUresult {
    any_ctx(|| cuModuleGetGlobal_v2(dptr, bytes, lib, name))
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetFunction(f: *mut CUfunction, kernel: *mut c_void) -> CUresult {
    any_ctx(|| {
        guard(|| {
            module::with_function(kernel, |_, _| Ok(()))?;
            out(f, kernel)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetAttribute(
    pi: *mut i32,
    attr: u32,
    kernel: *mut c_void,
    dev: CUdevice,
) -> CUresult {
    any_ctx(|| {
        if dev != 0 {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        cuFuncGetAttribute(pi, attr, kernel)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: u32,
    value: i32,
    kernel: *mut c_void,
    dev: CUdevice,
) -> CUresult {
    any_ctx(|| {
        if dev != 0 {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        cuFuncSetAttribute(kernel, attr, value)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetName(
    name: *mut *const c_char,
    kernel: *mut c_void,
) -> CUresult {
    any_ctx(|| cuFuncGetName(name, kernel))
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetParamInfo(
    kernel: *mut c_void,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    any_ctx(|| cuFuncGetParamInfo(kernel, index, offset, size))
}

/// `cuKernelSetCacheConfig`: the cache preference has no effect on the CPU.
#[no_mangle]
pub unsafe extern "C" fn cuKernelSetCacheConfig(
    kernel: *mut c_void,
    config: u32,
    dev: CUdevice,
) -> CUresult {
    if dev != 0 {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    if config > 3 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    any_ctx(|| cuFuncSetCacheConfig(kernel, config))
}
