//! The memory-pool calls `cuda.core` makes (numba-cuda allocates through them) and
//! `cuStreamIsCapturing`, in-process: one default pool whose used bytes follow the live
//! allocations (512-byte granules).

use cuda::*;
use std::ffi::c_void;
use std::ptr::null_mut;

#[test]
fn default_pool_allocates_and_reports_usage() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let (mut pool, mut def) = (null_mut(), null_mut());
        assert_eq!(cuDeviceGetMemPool(&mut pool, 0), 0);
        assert_eq!(cuDeviceGetDefaultMemPool(&mut def, 0), 0);
        assert_eq!(pool, def);
        assert_eq!(cuDeviceGetMemPool(&mut pool, 1), CUDA_ERROR_INVALID_DEVICE);
        assert_eq!(cuDeviceSetMemPool(0, pool), 0);
        let mut before = 0u64;
        assert_eq!(
            cuMemPoolGetAttribute(pool, 7, &mut before as *mut u64 as *mut c_void),
            0
        );
        let mut p = 0u64;
        assert_eq!(cuMemAllocFromPoolAsync(&mut p, 1000, pool, null_mut()), 0);
        let mut now = 0u64;
        assert_eq!(
            cuMemPoolGetAttribute(pool, 7, &mut now as *mut u64 as *mut c_void),
            0
        );
        // 1000 bytes take two 512-byte granules (other tests may allocate meanwhile).
        assert!(now >= before + 1024, "{before} -> {now}");
        let mut data = [7u8; 1000];
        assert_eq!(cuMemcpyHtoD_v2(p, data.as_ptr() as *const c_void, 1000), 0);
        data.fill(0);
        assert_eq!(
            cuMemcpyDtoH_v2(data.as_mut_ptr() as *mut c_void, p, 1000),
            0
        );
        assert!(data.iter().all(|&b| b == 7));
        assert_eq!(cuMemFreeAsync(p, null_mut()), 0);
        let mut threshold = 1u64;
        assert_eq!(
            cuMemPoolGetAttribute(pool, 4, &mut threshold as *mut u64 as *mut c_void),
            0
        );
        assert_eq!(threshold, 0);
        let mut zero = 0u64;
        assert_eq!(
            cuMemPoolSetAttribute(pool, 8, &mut zero as *mut u64 as *mut c_void),
            0
        );
        assert_eq!(
            cuMemPoolGetAttribute(null_mut(), 7, &mut now as *mut u64 as *mut c_void),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemPoolTrimTo(pool, 0), 0);
        let mut status = 9u32;
        assert_eq!(cuStreamIsCapturing(null_mut(), &mut status), 0);
        assert_eq!(status, 0);
    }
}
