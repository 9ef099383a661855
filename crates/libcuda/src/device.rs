//! Initialization, versions and the one device: its name, UUID, memory size and
//! attributes (a compute-capability-9.0 GPU whose limits are ptxjit's).

use crate::*;

/// The device's name (`cuDeviceGetName`).
pub const DEVICE_NAME: &str = "ptxjit CPU device";
/// Compute capability: ptxjit accepts PTX up to sm_90 features (clusters, mma).
pub const CC: (i32, i32) = (9, 0);

#[no_mangle]
pub unsafe extern "C" fn cuInit(flags: u32) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        init().map(|_| ())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut i32) -> CUresult {
    guard(|| out(version, DRIVER_VERSION))
}

pub(crate) fn check_dev(dev: CUdevice) -> Res {
    driver()?;
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(dev: *mut CUdevice, ordinal: i32) -> CUresult {
    guard(|| {
        driver()?;
        if dev.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if ordinal != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        out(dev, 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut i32) -> CUresult {
    guard(|| {
        driver()?;
        out(count, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(
    name: *mut std::ffi::c_char,
    len: i32,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        check_dev(dev)?;
        if name.is_null() || len <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let bytes = DEVICE_NAME.as_bytes();
        let n = bytes.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), name as *mut u8, n);
        *name.add(n) = 0;
        Ok(())
    })
}

/// Bytes of device memory: the size of ptxjit's reserved device range.
pub fn total_mem() -> Res<usize> {
    let (lo, hi) = driver()?.device.address_range();
    Ok((hi - lo) as usize)
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    guard(|| {
        check_dev(dev)?;
        out(bytes, total_mem()?)
    })
}

/// A fixed UUID ("ptxjit-cpu-dev-0" in ASCII).
pub const UUID: [u8; 16] = *b"ptxjit-cpu-dev-0";

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    guard(|| {
        check_dev(dev)?;
        out(uuid, UUID)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    cuDeviceGetUuid(uuid, dev)
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut i32,
    minor: *mut i32,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        check_dev(dev)?;
        if major.is_null() || minor.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        out(major, CC.0)?;
        out(minor, CC.1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    id: *mut std::ffi::c_char,
    len: i32,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        check_dev(dev)?;
        if id.is_null() || len <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let s = b"0000:00:00.0";
        let n = s.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(s.as_ptr(), id as *mut u8, n);
        *id.add(n) = 0;
        Ok(())
    })
}

/// The value of device attribute `attr` (a `CUdevice_attribute`), or `None` for a
/// value outside the enumeration.
pub fn attribute(attr: i32) -> Option<i32> {
    let sms = driver()
        .map(|d| d.device.options().threads as i32)
        .unwrap_or(1);
    Some(match attr {
        1 => 1024,        // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,    // MAX_BLOCK_DIM_X/Y
        4 => 64,          // MAX_BLOCK_DIM_Z
        5 => i32::MAX,    // MAX_GRID_DIM_X
        6 | 7 => 65535,   // MAX_GRID_DIM_Y/Z
        8 => 48 * 1024,   // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,   // TOTAL_CONSTANT_MEMORY
        10 => 32,         // WARP_SIZE
        11 => i32::MAX,   // MAX_PITCH
        12 => 65536,      // MAX_REGISTERS_PER_BLOCK
        13 => 1_000_000,  // CLOCK_RATE (kHz)
        14 => 512,        // TEXTURE_ALIGNMENT
        15 => 1,          // GPU_OVERLAP
        16 => sms,        // MULTIPROCESSOR_COUNT (worker threads)
        17 => 0,          // KERNEL_EXEC_TIMEOUT
        18 => 1,          // INTEGRATED (host memory is device memory)
        19 => 1,          // CAN_MAP_HOST_MEMORY (page-locked memory is device memory)
        20 => 0,          // COMPUTE_MODE default
        31 => 1,          // CONCURRENT_KERNELS
        36 => 1_000_000,  // MEMORY_CLOCK_RATE
        37 => 64,         // GLOBAL_MEMORY_BUS_WIDTH
        38 => 4 << 20,    // L2_CACHE_SIZE
        39 => 2048,       // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 1,          // ASYNC_ENGINE_COUNT
        41 => 1,          // UNIFIED_ADDRESSING
        75 => CC.0,       // COMPUTE_CAPABILITY_MAJOR
        76 => CC.1,       // COMPUTE_CAPABILITY_MINOR
        78 => 1,          // STREAM_PRIORITIES_SUPPORTED
        79 | 80 => 1,     // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
        81 => 228 * 1024, // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        83 => 1,          // MANAGED_MEMORY (cuMemAllocManaged)
        82 => 65536,      // MAX_REGISTERS_PER_MULTIPROCESSOR
        95 => 1,          // COOPERATIVE_LAUNCH
        97 => 227 * 1024, // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => 32,        // MAX_BLOCKS_PER_MULTIPROCESSOR
        111 => 1024,      // RESERVED_SHARED_MEMORY_PER_BLOCK
        115 => 1,         // MEMORY_POOLS_SUPPORTED
        125 => 1,         // IPC_EVENT_SUPPORTED (crate::ipc)
        // The other attributes of CUDA 13.5's header (api/attributes.txt).
        a if (0..162).contains(&a) => 0,
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(pi: *mut i32, attr: i32, dev: CUdevice) -> CUresult {
    guard(|| {
        check_dev(dev)?;
        if pi.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        out(pi, attribute(attr).ok_or(CUDA_ERROR_INVALID_VALUE)?)
    })
}
