//! The library API (`cuLibraryLoadData`, `cuLibraryGetKernel`, ...), context-independent
//! modules in CUDA 12. Here a `CUlibrary` is a module of the context current at load
//! time and a `CUkernel` is that module's function handle, so a `CUkernel` can be passed
//! to `cuLaunchKernel` as a `CUfunction`, as the driver allows.

use crate::*;
use std::ffi::c_char;

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
    cuModuleLoadData(lib, code)
}

/// `cuLibraryLoadFromFile`: options are ignored.
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
    cuModuleLoad(lib, file)
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryUnload(lib: *mut c_void) -> CUresult {
    cuModuleUnload(lib)
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut *mut c_void,
    lib: *mut c_void,
    name: *const c_char,
) -> CUresult {
    cuModuleGetFunction(kernel, lib, name)
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetModule(m: *mut CUmodule, lib: *mut c_void) -> CUresult {
    guard(|| {
        with_ctx(|_, t, _| match handle_id(Kind::Module, lib) {
            Some(id) if t.modules.contains_key(&id) => Ok(()),
            _ => Err(CUDA_ERROR_INVALID_HANDLE),
        })?;
        out(m, lib)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    lib: *mut c_void,
    name: *const c_char,
) -> CUresult {
    cuModuleGetGlobal_v2(dptr, bytes, lib, name)
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetFunction(f: *mut CUfunction, kernel: *mut c_void) -> CUresult {
    guard(|| {
        module::with_function(kernel, |_, _| Ok(()))?;
        out(f, kernel)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetAttribute(
    pi: *mut i32,
    attr: u32,
    kernel: *mut c_void,
    dev: CUdevice,
) -> CUresult {
    if dev != 0 {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    cuFuncGetAttribute(pi, attr, kernel)
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: u32,
    value: i32,
    kernel: *mut c_void,
    dev: CUdevice,
) -> CUresult {
    if dev != 0 {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    cuFuncSetAttribute(kernel, attr, value)
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetName(
    name: *mut *const c_char,
    kernel: *mut c_void,
) -> CUresult {
    cuFuncGetName(name, kernel)
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetParamInfo(
    kernel: *mut c_void,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    cuFuncGetParamInfo(kernel, index, offset, size)
}
