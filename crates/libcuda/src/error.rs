//! `cuGetErrorName` and `cuGetErrorString`, from the header's `CUresult` enumeration.
//!
//! `cuGetErrorString` gives the driver's short messages ("invalid argument", "named
//! symbol not found"), which clients match against (CuPy's tests do); every message in
//! [`DRIVER_MESSAGES`] is one NVIDIA's CUDA runtime (`libcudart.so.12`) also carries for the
//! error of the same number. Codes without a known short message fall back to the
//! description in `cuda.h`.

use crate::*;
use std::ffi::c_char;
use std::sync::OnceLock;

/// The driver's short message per `CUresult` (see the module doc).
const DRIVER_MESSAGES: &[(CUresult, &str)] = &[
    (0, "no error"),
    (1, "invalid argument"),
    (2, "out of memory"),
    (3, "initialization error"),
    (4, "driver shutting down"),
    (34, "CUDA driver is a stub library"),
    (100, "no CUDA-capable device is detected"),
    (101, "invalid device ordinal"),
    (200, "device kernel image is invalid"),
    (201, "invalid device context"),
    (207, "array is mapped"),
    (208, "resource already mapped"),
    (
        209,
        "no kernel image is available for execution on the device",
    ),
    (210, "resource already acquired"),
    (211, "resource not mapped"),
    (
        216,
        "exclusive-thread device already in use by a different thread",
    ),
    (
        217,
        "peer access is not supported between these two devices",
    ),
    (218, "a PTX JIT compilation failed"),
    (
        222,
        "the provided PTX was compiled with an unsupported toolchain.",
    ),
    (301, "file not found"),
    (303, "shared object initialization failed"),
    (304, "OS call failed or operation not supported on this OS"),
    (400, "invalid resource handle"),
    (500, "named symbol not found"),
    (600, "device not ready"),
    (700, "an illegal memory access was encountered"),
    (701, "too many resources requested for launch"),
    (702, "the launch timed out and was terminated"),
    (704, "peer access is already enabled"),
    (705, "peer access has not been enabled"),
    (709, "context is destroyed"),
    (710, "device-side assert triggered"),
    (714, "hardware stack error"),
    (715, "an illegal instruction was encountered"),
    (716, "misaligned address"),
    (
        717,
        "operation not supported on global/shared address space",
    ),
    (718, "invalid program counter"),
    (719, "unspecified launch failure"),
    (800, "operation not permitted"),
    (801, "operation not supported"),
    (999, "unknown error"),
];

/// NUL-terminated (name, message) for each `CUresult`, built once.
fn table() -> &'static Vec<(u32, std::ffi::CString, std::ffi::CString)> {
    static T: OnceLock<Vec<(u32, std::ffi::CString, std::ffi::CString)>> = OnceLock::new();
    T.get_or_init(|| {
        ERRORS
            .iter()
            .filter_map(|&(v, n, d)| {
                let d = DRIVER_MESSAGES.iter().find(|m| m.0 == v).map_or(d, |m| m.1);
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
