//! Host memory registered with `cuMemHostRegister` (numba's `mempin(mapped=True)`):
//! its device pointer is its host address, kernels read and write it there, copies
//! and pointer queries accept it, and `cuMemHostUnregister` ends all of that. Expected
//! values are computed in the test (f32 `mul_add`, the kernel's `fma.rn.f32`).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

unsafe fn setup() {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
}

unsafe fn saxpy() -> CUfunction {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/kernels.ptx");
    let src = CString::new(std::fs::read_to_string(p).unwrap()).unwrap();
    let mut m = null_mut();
    assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
    let mut f = null_mut();
    assert_eq!(cuModuleGetFunction(&mut f, m, c"saxpy".as_ptr()), 0);
    f
}

/// `CU_MEMHOSTREGISTER_DEVICEMAP`.
const DEVICEMAP: u32 = 2;

#[test]
fn kernels_reach_registered_host_memory() {
    unsafe {
        setup();
        let f = saxpy();
        let n = 1000usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let mut y: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let want: Vec<f32> = x
            .iter()
            .zip(&y)
            .map(|(&x, &y)| 2.5f32.mul_add(x, y))
            .collect();
        let (xb, yb) = (x.len() * 4, y.len() * 4);
        let xp = x.as_ptr() as *mut c_void;
        let yp = y.as_mut_ptr() as *mut c_void;
        assert_eq!(cuMemHostRegister_v2(xp, xb, DEVICEMAP), 0);
        assert_eq!(cuMemHostRegister_v2(yp, yb, 0), 0);
        assert_eq!(
            cuMemHostRegister_v2(yp.add(8), 4, 0),
            CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        );
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut dx, xp, 0), 0);
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut dy, yp, 0), 0);
        assert_eq!((dx, dy), (xp as u64, yp as u64), "unified addressing");
        let mut inner = 0u64;
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut inner, yp.add(40), 0), 0);
        assert_eq!(inner, yp as u64 + 40);
        // Pointer queries: host memory, the registered range.
        let (mut ty, mut base, mut size) = (0u32, 0u64, 0usize);
        assert_eq!(
            cuPointerGetAttribute(&mut ty as *mut u32 as *mut c_void, 2, dy + 12),
            0
        );
        assert_eq!(ty, 1, "CU_MEMORYTYPE_HOST");
        assert_eq!(cuMemGetAddressRange_v2(&mut base, &mut size, dy + 12), 0);
        assert_eq!((base, size), (dy, yb));

        let mut nn = n as u32;
        let mut a = 2.5f32;
        let mut params = [
            &mut nn as *mut u32 as *mut c_void,
            &mut a as *mut f32 as *mut c_void,
            &mut dx as *mut u64 as *mut c_void,
            &mut dy as *mut u64 as *mut c_void,
        ];
        let grid = n.div_ceil(128) as u32;
        let launch = |params: &mut [*mut c_void; 4]| {
            cuLaunchKernel(
                f,
                grid,
                1,
                1,
                128,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(launch(&mut params), 0);
        assert_eq!(y, want);

        // Copies treat the range as device memory (DtoD between registered ranges).
        let mut dev = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut dev, yb), 0);
        assert_eq!(cuMemcpyDtoD_v2(dev, dy, yb), 0);
        let mut back = vec![0f32; n];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, dev, yb),
            0
        );
        assert_eq!(back, want);
        assert_eq!(cuMemFree_v2(dev), 0);

        // One element past the registered end is outside every region: the launch
        // faults instead of touching memory ptxjit does not own.
        let mut over = n as u32 + 1;
        params[0] = &mut over as *mut u32 as *mut c_void;
        assert_eq!(launch(&mut params), CUDA_ERROR_ILLEGAL_ADDRESS);

        assert_eq!(cuMemHostUnregister(yp), 0);
        assert_eq!(
            cuMemHostUnregister(yp),
            CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut dy, yp, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        params[0] = &mut nn as *mut u32 as *mut c_void;
        assert_eq!(
            launch(&mut params),
            CUDA_ERROR_ILLEGAL_ADDRESS,
            "unregistered memory is not reachable"
        );
        // Registered again (numba's `cuda.mapped` twice in a row).
        assert_eq!(cuMemHostRegister_v2(yp, yb, DEVICEMAP), 0);
        assert_eq!(cuMemHostUnregister(yp), 0);
        assert_eq!(cuMemHostUnregister(xp), 0);
        assert_eq!(
            cuMemHostRegister_v2(null_mut(), 4, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemHostRegister_v2(xp, 0, 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemHostRegister_v2(xp, 4, 0x100), CUDA_ERROR_INVALID_VALUE);
    }
}
