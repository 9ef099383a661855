//! `PTXJIT_SANITIZE` under `libcuda.so` (in-process, through the crate's rlib; a test
//! binary of its own, as the variable is read when the driver's device is created):
//! with initcheck, `cuMemAlloc` memory is unwritten until a copy or memset writes it, and
//! a kernel reading it fails with `CUDA_ERROR_LAUNCH_FAILED`.

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

#[test]
fn initcheck_fails_a_launch_that_reads_unwritten_cumemalloc_memory() {
    std::env::set_var("PTXJIT_SANITIZE", "initcheck");
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/kernels.ptx");
    let src = CString::new(std::fs::read_to_string(p).unwrap()).unwrap();
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut m = null_mut();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"saxpy".as_ptr()), 0);
        let n = 64u32;
        let (mut x, mut y) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut x, 4 * n as usize), 0);
        assert_eq!(cuMemAlloc_v2(&mut y, 4 * n as usize), 0);
        let ones = vec![1.0f32; n as usize];
        // y is written by the host; x is not: saxpy reads x first.
        assert_eq!(
            cuMemcpyHtoD_v2(y, ones.as_ptr() as *const c_void, 4 * n as usize),
            0
        );
        let a = 2.0f32;
        let mut args: [*mut c_void; 4] = [
            &n as *const u32 as *mut c_void,
            &a as *const f32 as *mut c_void,
            &mut x as *mut u64 as *mut c_void,
            &mut y as *mut u64 as *mut c_void,
        ];
        let launch = |args: &mut [*mut c_void; 4]| {
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                args.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(launch(&mut args), CUDA_ERROR_LAUNCH_FAILED);
        // After a memset of x, the same launch is clean.
        assert_eq!(cuMemsetD32_v2(x, 0x3f80_0000, n as usize), 0);
        assert_eq!(launch(&mut args), 0);
        assert_eq!(cuMemFree_v2(x), 0);
        assert_eq!(cuMemFree_v2(y), 0);
    }
}
