//! Dynamic parallelism through the driver API (in-process, through the crate's rlib):
//! the NVRTC-compiled CDP kernels of the main crate's tests/kernels/cdp/cdp.nvrtc.ptx
//! loaded with `cuModuleLoadData` and launched with `cuLaunchKernel`. The pending-launch
//! limit is `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT` (2048 by default, settable before
//! the first device-side launch, `CUDA_ERROR_INVALID_VALUE` after). Expected values: the
//! quicksort against Rust's sort; 40 launches succeeding under a limit of 40 and the rest
//! failing with cudaErrorLaunchPendingCountExceeded (69, `driver_types.h`). The limit
//! leaves the quicksort room: its grids at depth d < 16 each launch at most 2 children,
//! so at most 2 x 16 launches are pending at once (run depth first).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

const CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: u32 = 4;

fn ptx() -> CString {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/kernels/cdp/cdp.nvrtc.ptx"
    );
    CString::new(std::fs::read_to_string(p).unwrap()).unwrap()
}

unsafe fn launch(f: CUfunction, threads: u32, params: &mut [*mut c_void]) -> CUresult {
    cuLaunchKernel(
        f,
        1,
        1,
        1,
        threads,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut(),
    )
}

#[test]
fn quicksort_and_pending_limit_through_the_driver_api() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut v = 0usize;
        assert_eq!(
            cuCtxGetLimit(&mut v, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT),
            0
        );
        assert_eq!(v, 2048);
        assert_eq!(
            cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 40),
            0
        );
        let mut m = null_mut();
        let src = ptx();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);

        // A recursive quicksort of 3000 pseudo-random u32 (xorshift32).
        let mut x = 2463534242u32;
        let mut data: Vec<u32> = (0..3000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x
            })
            .collect();
        let bytes = data.len() * 4;
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, bytes), 0);
        assert_eq!(cuMemcpyHtoD_v2(d, data.as_ptr() as *const c_void, bytes), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"quicksort".as_ptr()), 0);
        let (mut left, mut right, mut depth) = (0i32, data.len() as i32 - 1, 0i32);
        let mut params = [
            &mut d as *mut u64 as *mut c_void,
            &mut left as *mut i32 as *mut c_void,
            &mut right as *mut i32 as *mut c_void,
            &mut depth as *mut i32 as *mut c_void,
        ];
        assert_eq!(launch(f, 1, &mut params), 0);
        let mut got = vec![0u32; data.len()];
        assert_eq!(
            cuMemcpyDtoH_v2(got.as_mut_ptr() as *mut c_void, d, bytes),
            0
        );
        data.sort();
        assert!(got == data, "the sorted data differ from Rust's sort");

        // 64 threads each launch one child; 40 may be pending.
        let (mut counter, mut errs) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut counter, 4), 0);
        assert_eq!(cuMemAlloc_v2(&mut errs, 256), 0);
        assert_eq!(cuMemsetD32_v2(counter, 0, 1), 0);
        assert_eq!(cuModuleGetFunction(&mut f, m, c"many".as_ptr()), 0);
        let mut params = [
            &mut counter as *mut u64 as *mut c_void,
            &mut errs as *mut u64 as *mut c_void,
        ];
        assert_eq!(launch(f, 64, &mut params), 0);
        let mut e = [0i32; 64];
        assert_eq!(cuMemcpyDtoH_v2(e.as_mut_ptr() as *mut c_void, errs, 256), 0);
        let want: Vec<i32> = (0..64).map(|t| if t < 40 { 0 } else { 69 }).collect();
        assert_eq!(e.to_vec(), want);
        assert_eq!(
            cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 64),
            CUDA_ERROR_INVALID_VALUE,
            "fixed once a kernel used the device runtime"
        );
    }
}
