//! The driver's linker called in-process: PTX modules of tests/ptx_link/ (the crate
//! root's, each `ptxas -c` clean) linked with `cuLinkCreate` … `cuLinkComplete`, the
//! image loaded with `cuModuleLoadDataEx` and `cuLibraryLoadData` and run; link errors
//! reach the `CU_JIT_ERROR_LOG_BUFFER`. Expected values are hand-computed formulas.

use cuda::*;
use std::ffi::{c_void, CStr, CString};
use std::ptr::null_mut;

fn src(name: &str) -> Vec<u8> {
    let p = format!("{}/../../tests/ptx_link/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

unsafe fn setup() {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
}

const CU_JIT_ERROR_LOG_BUFFER: u32 = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: u32 = 6;
const CU_JIT_INPUT_PTX: u32 = 1;

/// Links `names` with an error log; `Ok(image bytes)` or `Err((code, log))`.
unsafe fn link(names: &[&str]) -> Result<Vec<u8>, (CUresult, String)> {
    let mut log = vec![0u8; 1024];
    let mut opts = [CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    let mut vals = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    let mut st = null_mut();
    assert_eq!(
        cuLinkCreate_v2(2, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut st),
        0
    );
    for n in names {
        let mut text = src(n);
        let name = CString::new(*n).unwrap();
        let r = cuLinkAddData_v2(
            st,
            CU_JIT_INPUT_PTX,
            text.as_mut_ptr() as *mut c_void,
            text.len(),
            name.as_ptr(),
            0,
            null_mut(),
            null_mut(),
        );
        assert_eq!(r, 0, "{n}");
    }
    let (mut img, mut size) = (std::ptr::null_mut(), 0usize);
    let r = cuLinkComplete(st, &mut img, &mut size);
    let res = if r == 0 {
        // The image is the caller's to copy; it dies with the link state.
        Ok(std::slice::from_raw_parts(img as *const u8, size).to_vec())
    } else {
        let msg = CStr::from_bytes_until_nul(&log)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        Err((r, msg))
    };
    assert_eq!(cuLinkDestroy(st), 0);
    assert_eq!(cuLinkDestroy(st), CUDA_ERROR_INVALID_HANDLE);
    res
}

/// out[i] = i*i + (i + 1) + 7 + table[i & 3], table = {10, 20, 30, 40} (see
/// tests/ptx_link/main.ptx).
fn expected(i: u32) -> u32 {
    i * i + (i + 1) + 7 + [10, 20, 30, 40][(i & 3) as usize]
}

unsafe fn run(f: CUfunction, n: u32) -> Vec<u32> {
    let mut d = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut d, 4 * n as usize), 0);
    let mut nn = n;
    let mut params = [
        &mut d as *mut u64 as *mut c_void,
        &mut nn as *mut u32 as *mut c_void,
    ];
    let r = cuLaunchKernel(
        f,
        n.div_ceil(64),
        1,
        1,
        64,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut(),
    );
    assert_eq!(r, 0);
    let mut out = vec![0u32; n as usize];
    assert_eq!(
        cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d, 4 * n as usize),
        0
    );
    assert_eq!(cuMemFree_v2(d), 0);
    out
}

#[test]
fn linked_ptx_loads_and_runs() {
    unsafe {
        setup();
        let image = link(&["main.ptx", "lib.ptx", "table.ptx"]).expect("link");
        let want: Vec<u32> = (0..100).map(expected).collect();
        let name = CString::new("apply").unwrap();
        // cuModuleLoadDataEx with no options.
        let mut m = null_mut();
        assert_eq!(
            cuModuleLoadDataEx(
                &mut m,
                image.as_ptr() as *const c_void,
                0,
                null_mut(),
                null_mut()
            ),
            0
        );
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, name.as_ptr()), 0);
        assert_eq!(run(f, 100), want);
        let counter = CString::new("counter").unwrap();
        let (mut p, mut bytes) = (0u64, 0usize);
        assert_eq!(
            cuModuleGetGlobal_v2(&mut p, &mut bytes, m, counter.as_ptr()),
            0
        );
        let mut c = 0u32;
        assert_eq!(cuMemcpyDtoH_v2(&mut c as *mut u32 as *mut c_void, p, 4), 0);
        assert_eq!((bytes, c), (4, 5 + 100));
        assert_eq!(cuModuleUnload(m), 0);
        // cuLibraryLoadData.
        let mut lib = null_mut();
        let r = cuLibraryLoadData(
            &mut lib,
            image.as_ptr() as *const c_void,
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        assert_eq!(r, 0);
        let mut k = null_mut();
        assert_eq!(cuLibraryGetKernel(&mut k, lib, name.as_ptr()), 0);
        assert_eq!(run(k, 70), want[..70]);
        assert_eq!(cuLibraryUnload(lib), 0);
    }
}

#[test]
fn link_errors_fill_the_error_log() {
    unsafe {
        setup();
        let (code, log) = link(&["main.ptx"]).expect_err("square is undefined");
        assert_eq!(code, CUDA_ERROR_INVALID_PTX);
        assert!(
            log.starts_with("main.ptx:7:31: error: link error: undefined symbol 'square'"),
            "{log}"
        );
        let (code, log) =
            link(&["main.ptx", "lib.ptx", "table.ptx", "dup.ptx"]).expect_err("bias twice");
        assert_eq!(code, CUDA_ERROR_INVALID_PTX);
        assert!(
            log.starts_with(
                "dup.ptx:6:32: error: link error: duplicate definition of symbol 'bias'"
            ),
            "{log}"
        );
        // A handle that is not a link state.
        let (mut img, mut size) = (null_mut(), 0usize);
        assert_eq!(
            cuLinkComplete(0x1234 as *mut c_void, &mut img, &mut size),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
}
