//! Stream-ordered memory pools (`cuDeviceGetMemPool`, `cuMemAllocFromPoolAsync`,
//! `cuMemPoolGetAttribute`, …), as `cuda.core` (and so numba-cuda) allocates.
//!
//! The device has one pool, its default and current one. Every stream operation runs
//! when it is enqueued, so a pool allocation is an ordinary allocation made at once and
//! `cuMemFreeAsync` frees at once; the pool's reserved and used memory are the bytes of
//! all live allocations (512-byte granules, as `cuMemGetInfo` counts them).

use crate::*;

/// The one pool's handle id.
const POOL: u64 = 1;

fn check_pool(pool: *mut c_void) -> Res {
    match handle_id(Kind::MemPool, pool) {
        Some(POOL) => Ok(()),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

/// High watermark of the bytes in use, reset by the `*_HIGH` attributes.
static HIGH: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn used() -> Res<u64> {
    let u: u64 = with_ctx(|_, t, _| {
        Ok(t.allocs
            .values()
            .map(|b| b.len().next_multiple_of(512) as u64)
            .sum())
    })?;
    HIGH.fetch_max(u, std::sync::atomic::Ordering::SeqCst);
    Ok(u)
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetMemPool(pool: *mut *mut c_void, dev: CUdevice) -> CUresult {
    guard(|| {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        driver()?;
        out(pool, handle(Kind::MemPool, POOL))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(
    pool: *mut *mut c_void,
    dev: CUdevice,
) -> CUresult {
    cuDeviceGetMemPool(pool, dev)
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceSetMemPool(dev: CUdevice, pool: *mut c_void) -> CUresult {
    guard(|| {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        check_pool(pool)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocFromPoolAsync(
    p: *mut CUdeviceptr,
    bytes: usize,
    pool: *mut c_void,
    s: CUstream,
) -> CUresult {
    if let Err(e) = check_pool(pool) {
        return e;
    }
    let r = cuMemAllocAsync(p, bytes, s);
    if r == CUDA_SUCCESS {
        let _ = used();
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolTrimTo(pool: *mut c_void, _keep: usize) -> CUresult {
    guard(|| check_pool(pool))
}

// CUmemPool_attribute values.
const REUSE_FOLLOW_EVENT_DEPENDENCIES: u32 = 1;
const REUSE_INTERNAL_DEPENDENCIES: u32 = 3;
const RELEASE_THRESHOLD: u32 = 4;
const RESERVED_MEM_CURRENT: u32 = 5;
const RESERVED_MEM_HIGH: u32 = 6;
const USED_MEM_CURRENT: u32 = 7;
const USED_MEM_HIGH: u32 = 8;

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolGetAttribute(
    pool: *mut c_void,
    attr: u32,
    value: *mut c_void,
) -> CUresult {
    guard(|| {
        check_pool(pool)?;
        match attr {
            // The reuse policies are all on, as on a CUDA device.
            REUSE_FOLLOW_EVENT_DEPENDENCIES..=REUSE_INTERNAL_DEPENDENCIES => {
                out(value as *mut i32, 1)
            }
            // Freed memory goes back at once: the threshold is 0.
            RELEASE_THRESHOLD => out(value as *mut u64, 0),
            RESERVED_MEM_CURRENT | USED_MEM_CURRENT => out(value as *mut u64, used()?),
            RESERVED_MEM_HIGH | USED_MEM_HIGH => {
                used()?;
                out(
                    value as *mut u64,
                    HIGH.load(std::sync::atomic::Ordering::SeqCst),
                )
            }
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolSetAttribute(
    pool: *mut c_void,
    attr: u32,
    value: *mut c_void,
) -> CUresult {
    guard(|| {
        check_pool(pool)?;
        if value.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match attr {
            REUSE_FOLLOW_EVENT_DEPENDENCIES..=REUSE_INTERNAL_DEPENDENCIES | RELEASE_THRESHOLD => {
                Ok(())
            }
            // Only a reset (to 0) of the watermarks is allowed.
            RESERVED_MEM_HIGH | USED_MEM_HIGH if *(value as *const u64) == 0 => {
                HIGH.store(used()?, std::sync::atomic::Ordering::SeqCst);
                Ok(())
            }
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}
