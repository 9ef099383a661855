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
        // 1000 bytes take two 512-byte granules. Other tests of this process allocate and
        // free meanwhile (one freeing its 512 bytes between the two reads made `before +
        // 1024` fail once), so only the live allocation's own granules are certain.
        assert!(now >= 1024, "{before} -> {now}");
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

/// `cuPointerGetAttributes`: device memory answers like `cuPointerGetAttribute`; a host
/// pointer the driver does not know reads as unregistered (type 0, ordinal -2).
#[test]
fn pointer_attributes_in_bulk() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut p = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut p, 256), 0);
        let (mut ty, mut ord, mut start, mut size) = (9u32, 9i32, 0u64, 0usize);
        let attrs = [2u32, 9, 11, 12];
        let mut data = [
            &mut ty as *mut u32 as *mut c_void,
            &mut ord as *mut i32 as *mut c_void,
            &mut start as *mut u64 as *mut c_void,
            &mut size as *mut usize as *mut c_void,
        ];
        assert_eq!(
            cuPointerGetAttributes(4, attrs.as_ptr(), data.as_mut_ptr(), p + 16),
            0
        );
        // CU_MEMORYTYPE_DEVICE = 2, device 0, the allocation's range.
        assert_eq!((ty, ord, start, size), (2, 0, p, 256));
        let host = [0u8; 8];
        assert_eq!(
            cuPointerGetAttributes(4, attrs.as_ptr(), data.as_mut_ptr(), host.as_ptr() as u64),
            0
        );
        assert_eq!((ty, ord, start, size), (0, -2, 0, 0));
        let bad = [99u32];
        assert_eq!(
            cuPointerGetAttributes(1, bad.as_ptr(), data.as_mut_ptr(), p),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemFree_v2(p), 0);
    }
}

/// Page-locked memory is mapped (its device pointer is its address, and a kernel
/// writes it), managed memory is plain device memory, and the device says so.
#[test]
fn mapped_and_managed_memory() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut v = 0;
        assert_eq!(
            cuDeviceGetAttribute(&mut v, 19, 0),
            0,
            "CAN_MAP_HOST_MEMORY"
        );
        assert_eq!(v, 1);
        assert_eq!(cuDeviceGetAttribute(&mut v, 83, 0), 0, "MANAGED_MEMORY");
        assert_eq!(v, 1);
        let mut h = null_mut();
        // CU_MEMHOSTALLOC_DEVICEMAP = 2.
        assert_eq!(cuMemHostAlloc(&mut h, 64, 2), 0);
        let mut d = 0u64;
        assert_eq!(cuMemHostGetDevicePointer_v2(&mut d, h, 0), 0);
        assert_eq!(d, h as u64);
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut d, (h as *mut u8).add(8) as *mut c_void, 0),
            0
        );
        assert_eq!(d, h as u64 + 8);
        // cuMemsetD32 through the device pointer is seen through the host pointer.
        assert_eq!(cuMemsetD32_v2(h as u64, 0x0102_0304, 16), 0);
        assert_eq!(*(h as *const u32).add(15), 0x0102_0304);
        let stack = 0u64;
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut d, &stack as *const u64 as *mut c_void, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemFreeHost(h), 0);
        assert_eq!(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
        let mut m = 0u64;
        assert_eq!(cuMemAllocManaged(&mut m, 32, 1), 0);
        *(m as *mut u32) = 7;
        let mut back = 0u32;
        assert_eq!(
            cuMemcpyDtoH_v2(&mut back as *mut u32 as *mut c_void, m, 4),
            0
        );
        assert_eq!(back, 7);
        assert_eq!(cuMemFree_v2(m), 0);
        assert_eq!(cuMemAllocManaged(&mut m, 32, 0), CUDA_ERROR_INVALID_VALUE);
    }
}
