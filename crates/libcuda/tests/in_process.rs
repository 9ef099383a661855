//! The driver API called in-process (through the crate's rlib): context rules per host
//! thread, memory operations at offsets, memset patterns, launch parameter buffers,
//! module images, function attributes and API misuse, each with the error code a CUDA
//! driver returns. Expected values are computed independently in the test.

// CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE are the pointers 1 and 2.
#![allow(clippy::manual_dangling_ptr)]

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

fn ptx() -> CString {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/kernels.ptx");
    CString::new(std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Initializes and makes the primary context current on this thread.
unsafe fn setup() -> CUcontext {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
    ctx
}

#[test]
fn contexts_are_per_thread() {
    unsafe {
        let ctx = setup();
        let mut other = null_mut();
        assert_eq!(cuCtxCreate_v2(&mut other, 0, 0), 0);
        let mut cur = null_mut();
        assert_eq!(cuCtxGetCurrent(&mut cur), 0);
        assert_eq!(cur, other);
        // Another thread has no current context until it sets one.
        let h = other as usize;
        std::thread::spawn(move || {
            let mut cur = 1 as CUcontext;
            assert_eq!(cuCtxGetCurrent(&mut cur), 0);
            assert!(cur.is_null());
            let mut p = 0;
            assert_eq!(cuMemAlloc_v2(&mut p, 16), CUDA_ERROR_INVALID_CONTEXT);
            assert_eq!(cuCtxSetCurrent(h as CUcontext), 0);
            assert_eq!(cuMemAlloc_v2(&mut p, 16), 0);
            assert_eq!(cuMemFree_v2(p), 0);
        })
        .join()
        .unwrap();
        let mut popped = null_mut();
        assert_eq!(cuCtxPopCurrent_v2(&mut popped), 0);
        assert_eq!(popped, other);
        assert_eq!(cuCtxPushCurrent_v2(other), 0);
        assert_eq!(cuCtxDestroy_v2(other), 0);
        assert_eq!(cuCtxGetCurrent(&mut cur), 0);
        assert_eq!(cur, ctx, "the primary context is current again");
        assert_eq!(cuCtxSetCurrent(other), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(cuCtxDestroy_v2(other), CUDA_ERROR_INVALID_CONTEXT);
        assert_eq!(
            cuCtxDestroy_v2(0x1234 as CUcontext),
            CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(cuCtxGetCurrent(null_mut()), CUDA_ERROR_INVALID_VALUE);
        let (mut flags, mut active) = (0u32, 0i32);
        assert_eq!(cuDevicePrimaryCtxGetState(0, &mut flags, &mut active), 0);
        assert_eq!(active, 1);
        assert_eq!(
            cuDevicePrimaryCtxRetain(null_mut(), 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuDevicePrimaryCtxRetain(&mut cur, 3),
            CUDA_ERROR_INVALID_DEVICE
        );
    }
}

#[test]
fn memory_copies_memsets_and_queries() {
    unsafe {
        setup();
        let mut d = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d, 64), 0);
        assert_eq!(cuMemAlloc_v2(&mut d, 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemAlloc_v2(&mut d, 64), 0);
        // Memset patterns at an offset.
        assert_eq!(cuMemsetD8_v2(d, 0xab, 64), 0);
        assert_eq!(cuMemsetD16_v2(d + 2, 0x1234, 3), 0);
        assert_eq!(cuMemsetD32_v2(d + 8, 0xdeadbeef, 2), 0);
        assert_eq!(
            cuMemsetD16_v2(d + 1, 0, 1),
            CUDA_ERROR_INVALID_VALUE,
            "misaligned"
        );
        assert_eq!(
            cuMemsetD32_v2(d + 60, 0, 2),
            CUDA_ERROR_INVALID_VALUE,
            "past the end"
        );
        let mut h = [0u8; 16];
        assert_eq!(cuMemcpyDtoH_v2(h.as_mut_ptr() as *mut c_void, d, 16), 0);
        let want = [
            0xab, 0xab, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0xef, 0xbe, 0xad, 0xde, 0xef, 0xbe,
            0xad, 0xde,
        ];
        assert_eq!(h, want);
        // Device-to-device at offsets, overlapping, and cuMemcpy with unified addresses.
        assert_eq!(cuMemcpyDtoD_v2(d + 1, d, 8), 0);
        let mut g = [0u8; 9];
        assert_eq!(cuMemcpy(g.as_mut_ptr() as u64, d, 9), 0);
        assert_eq!(g, [0xab, 0xab, 0xab, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12]);
        let src = [9u8; 4];
        assert_eq!(cuMemcpy(d + 60, src.as_ptr() as u64, 4), 0);
        assert_eq!(
            cuMemcpy(d + 61, src.as_ptr() as u64, 4),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuMemcpyHtoD_v2(d, src.as_ptr() as *const c_void, 0),
            0,
            "empty copy"
        );
        // Address range and pointer attributes of an interior pointer.
        let (mut base, mut size) = (0u64, 0usize);
        assert_eq!(cuMemGetAddressRange_v2(&mut base, &mut size, d + 10), 0);
        assert_eq!((base, size), (d, 64));
        let mut ty = 0u32;
        assert_eq!(
            cuPointerGetAttribute(&mut ty as *mut u32 as *mut c_void, 2, d + 3),
            0
        );
        assert_eq!(ty, 2, "CU_MEMORYTYPE_DEVICE");
        let (mut free, mut total) = (0usize, 0usize);
        assert_eq!(cuMemGetInfo_v2(&mut free, &mut total), 0);
        assert!(free < total && total >= 256 << 20);
        // Host allocations.
        let mut hp = null_mut();
        assert_eq!(cuMemAllocHost_v2(&mut hp, 100), 0);
        assert_eq!(cuMemcpyDtoH_v2(hp, d, 64), 0);
        // Mapped host memory has an address range too (numba's `mapped_array` memset).
        let (mut base, mut size) = (0u64, 0usize);
        let mid = hp as u64 + 50;
        assert_eq!(cuMemGetAddressRange_v2(&mut base, &mut size, mid), 0);
        assert_eq!((base, size), (hp as u64, 100));
        assert_eq!(cuMemsetD8_v2(mid, 7, 50), 0);
        assert_eq!(*(hp as *const u8).add(99), 7);
        assert_eq!(
            cuMemGetAddressRange_v2(&mut base, &mut size, hp as u64 + 100),
            CUDA_ERROR_NOT_FOUND
        );
        assert_eq!(cuMemFreeHost(hp), 0);
        assert_eq!(cuMemFreeHost(hp), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemFree_v2(d), 0);
        assert_eq!(cuMemFree_v2(d), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemFree_v2(0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemsetD8_v2(d, 0, 1), CUDA_ERROR_INVALID_VALUE, "freed");
        assert_eq!(
            cuMemcpyHtoD_v2(0x10, src.as_ptr() as *const c_void, 4),
            CUDA_ERROR_INVALID_VALUE
        );
        // Async forms on a bad stream.
        assert_eq!(
            cuMemcpyHtoDAsync_v2(d, src.as_ptr() as *const c_void, 4, 0x77 as CUstream),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
}

#[test]
fn launches_with_params_extra_and_attributes() {
    unsafe {
        setup();
        let mut m = null_mut();
        let src = ptx();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"block_sum".as_ptr()), 0);
        let mut f2 = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f2, m, c"block_sum".as_ptr()), 0);
        assert_eq!(f, f2, "one handle per kernel");
        let (mut off, mut size) = (0usize, 0usize);
        assert_eq!(cuFuncGetParamInfo(f, 2, &mut off, &mut size), 0);
        assert_eq!((off, size), (16, 4));
        assert_eq!(
            cuFuncGetParamInfo(f, 3, &mut off, &mut size),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut v = 0i32;
        assert_eq!(cuFuncGetAttribute(&mut v, 1, f), 0);
        assert_eq!(v, 1024, "static shared bytes: 256 u32");
        assert_eq!(cuFuncSetAttribute(f, 8, 100 * 1024), 0);
        assert_eq!(cuFuncGetAttribute(&mut v, 8, f), 0);
        assert_eq!(v, 100 * 1024);
        assert_eq!(
            cuFuncSetAttribute(f, 8, 227 * 1024),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuFuncSetAttribute(f, 4, 1),
            CUDA_ERROR_INVALID_VALUE,
            "read-only"
        );
        // Data: 1..=1000, sum 500500.
        let data: Vec<u32> = (1..=1000).collect();
        let (mut din, mut dout) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut din, 4000), 0);
        assert_eq!(cuMemAlloc_v2(&mut dout, 4), 0);
        assert_eq!(
            cuMemcpyHtoD_v2(din, data.as_ptr() as *const c_void, 4000),
            0
        );
        let mut buf = [0u8; 20];
        buf[0..8].copy_from_slice(&din.to_le_bytes());
        buf[8..16].copy_from_slice(&dout.to_le_bytes());
        buf[16..20].copy_from_slice(&1000u32.to_le_bytes());
        let mut n = 20usize;
        let mut extra = [
            1 as *mut c_void,
            buf.as_mut_ptr() as *mut c_void,
            2 as *mut c_void,
            &mut n as *mut usize as *mut c_void,
            null_mut(),
        ];
        assert_eq!(
            cuLaunchKernel(
                f,
                4,
                1,
                1,
                256,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                extra.as_mut_ptr()
            ),
            0
        );
        let mut sum = 0u32;
        assert_eq!(
            cuMemcpyDtoH_v2(&mut sum as *mut u32 as *mut c_void, dout, 4),
            0
        );
        assert_eq!(sum, 500500);
        *(extra[3] as *mut usize) = 19;
        assert_eq!(
            cuLaunchKernel(
                f,
                4,
                1,
                1,
                256,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                extra.as_mut_ptr()
            ),
            CUDA_ERROR_INVALID_VALUE,
            "buffer too small"
        );
        // kernelParams and extra together, a null parameter pointer, a zero grid.
        let mut cnt = 1000u32;
        let mut params = [
            &mut din as *mut u64 as *mut c_void,
            &mut dout as *mut u64 as *mut c_void,
            &mut cnt as *mut u32 as *mut c_void,
        ];
        assert_eq!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                extra.as_mut_ptr()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        params[1] = null_mut();
        assert_eq!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        params[1] = &mut dout as *mut u64 as *mut c_void;
        assert_eq!(
            cuLaunchKernel(
                f,
                0,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        // Dynamic shared memory above the function's limit.
        assert_eq!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                200 * 1024,
                null_mut(),
                params.as_mut_ptr(),
                null_mut()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        // cuLaunchKernelEx with the legacy stream handle.
        let cfg = CUlaunchConfig {
            grid: [4, 1, 1],
            block: [256, 1, 1],
            shared: 0,
            stream: 1 as CUstream,
            attrs: null_mut(),
            num_attrs: 0,
        };
        assert_eq!(
            cuLaunchKernelEx(&cfg, f, params.as_mut_ptr(), null_mut()),
            0
        );
        assert_eq!(
            cuMemcpyDtoH_v2(&mut sum as *mut u32 as *mut c_void, dout, 4),
            0
        );
        assert_eq!(sum, 1001000);
        let (mut grid, mut block) = (0, 0);
        assert_eq!(
            cuOccupancyMaxPotentialBlockSize(&mut grid, &mut block, f, None, 0, 0),
            0
        );
        assert_eq!(block, 1024);
        assert!(grid >= 1);
        assert_eq!(cuModuleUnload(m), 0);
        assert_eq!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut()
            ),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    }
}

#[test]
fn library_api_kernels_launch_as_functions() {
    unsafe {
        setup();
        let src = ptx();
        let mut lib = null_mut();
        let n = null_mut();
        assert_eq!(
            cuLibraryLoadData(
                &mut lib,
                src.as_ptr() as *const c_void,
                n as _,
                n,
                0,
                n as _,
                n,
                0
            ),
            0
        );
        let mut k = null_mut();
        assert_eq!(cuLibraryGetKernel(&mut k, lib, c"bump".as_ptr()), 0);
        let mut f = null_mut();
        assert_eq!(cuKernelGetFunction(&mut f, k), 0);
        let (mut g, mut size) = (0u64, 0usize);
        assert_eq!(
            cuLibraryGetGlobal(&mut g, &mut size, lib, c"counter".as_ptr()),
            0
        );
        assert_eq!(size, 4);
        // counter starts at 5; 2 blocks of 64 threads add 1 each.
        assert_eq!(
            cuLaunchKernel(
                k,
                2,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                [].as_mut_ptr(),
                null_mut()
            ),
            0
        );
        let mut c = 0u32;
        assert_eq!(cuMemcpyDtoH_v2(&mut c as *mut u32 as *mut c_void, g, 4), 0);
        assert_eq!(c, 133);
        assert_eq!(cuLibraryUnload(lib), 0);
        assert_eq!(cuKernelGetFunction(&mut f, k), CUDA_ERROR_INVALID_HANDLE);
    }
}

#[test]
fn module_images_and_load_errors() {
    unsafe {
        setup();
        let src = ptx();
        // A fatbinary holding the PTX uncompressed (header: magic, version, header size,
        // then the size of what follows; one entry: kind 1 = PTX, its header size, the
        // payload size, sm_70), and a wrapper pointing at it.
        let mut fat = Vec::new();
        fat.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
        fat.extend_from_slice(&1u16.to_le_bytes());
        fat.extend_from_slice(&16u16.to_le_bytes());
        let mut entry = [0u8; 64];
        entry[0..2].copy_from_slice(&1u16.to_le_bytes());
        entry[4..8].copy_from_slice(&64u32.to_le_bytes());
        let payload = src.as_bytes_with_nul().len() as u64;
        entry[8..16].copy_from_slice(&payload.to_le_bytes());
        entry[28..32].copy_from_slice(&70u32.to_le_bytes());
        let body = [&entry[..], src.as_bytes_with_nul()].concat();
        fat.extend_from_slice(&(body.len() as u64).to_le_bytes());
        fat.extend_from_slice(&body);
        let mut m = null_mut();
        assert_eq!(cuModuleLoadData(&mut m, fat.as_ptr() as *const c_void), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"histogram".as_ptr()), 0);
        #[repr(C)]
        struct Wrapper(u32, u32, *const u8, *const u8);
        let w = Wrapper(0x4662_43B1, 1, fat.as_ptr(), null());
        assert_eq!(
            cuModuleLoadFatBinary(&mut m, &w as *const Wrapper as *const c_void),
            0
        );
        // A fatbinary without PTX.
        let mut nofat = fat[..16].to_vec();
        nofat[8..16].copy_from_slice(&0u64.to_le_bytes());
        assert_eq!(
            cuModuleLoadData(&mut m, nofat.as_ptr() as *const c_void),
            CUDA_ERROR_NO_BINARY_FOR_GPU
        );
        // The error log option receives the located message.
        let bad = c".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() { frob.u32 %r1; }\n";
        let mut log = [0u8; 256];
        let mut opts = [5u32, 6u32];
        let mut vals = [log.as_mut_ptr() as *mut c_void, 256usize as *mut c_void];
        assert_eq!(
            cuModuleLoadDataEx(
                &mut m,
                bad.as_ptr() as *const c_void,
                2,
                opts.as_mut_ptr(),
                vals.as_mut_ptr()
            ),
            CUDA_ERROR_INVALID_PTX
        );
        let text = std::ffi::CStr::from_bytes_until_nul(&log)
            .unwrap()
            .to_str()
            .unwrap();
        assert!(text.starts_with("module.ptx:4:"), "{text}");
        assert_eq!(vals[1] as usize, text.len());
        assert_eq!(cuModuleLoadData(&mut m, null()), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            cuModuleLoadData(null_mut(), src.as_ptr() as *const c_void),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuModuleGetFunction(&mut f, 0x55 as CUmodule, c"saxpy".as_ptr()),
            CUDA_ERROR_INVALID_HANDLE
        );
        let mut g = 0u64;
        assert_eq!(
            cuModuleGetGlobal_v2(&mut g, null_mut(), 0x55 as CUmodule, c"counter".as_ptr()),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
}

#[test]
fn streams_events_and_devices() {
    unsafe {
        setup();
        let (mut s, mut e0, mut e1) = (null_mut(), null_mut(), null_mut());
        assert_eq!(cuStreamCreateWithPriority(&mut s, 1, -3), 0);
        let mut p = 0;
        assert_eq!(cuStreamGetPriority(s, &mut p), 0);
        assert_eq!(p, -3);
        assert_eq!(cuStreamQuery(s), 0);
        assert_eq!(cuEventCreate(&mut e0, 0), 0);
        assert_eq!(cuEventCreate(&mut e1, 2), 0, "CU_EVENT_DISABLE_TIMING");
        let mut ms = 0f32;
        assert_eq!(
            cuEventElapsedTime(&mut ms, e0, e0),
            CUDA_ERROR_INVALID_HANDLE,
            "not recorded"
        );
        assert_eq!(cuEventRecord(e0, s), 0);
        assert_eq!(cuEventRecord(e1, null_mut()), 0);
        assert_eq!(cuEventQuery(e0), 0);
        assert_eq!(cuEventElapsedTime(&mut ms, e0, e0), 0);
        assert_eq!(ms, 0.0);
        assert_eq!(
            cuEventElapsedTime(&mut ms, e0, e1),
            CUDA_ERROR_INVALID_HANDLE,
            "timing disabled"
        );
        assert_eq!(
            cuEventRecord(e0, 0x88 as CUstream),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(cuStreamWaitEvent(s, e1, 0), 0);
        assert_eq!(cuEventDestroy_v2(e1), 0);
        assert_eq!(cuEventSynchronize(e1), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuStreamDestroy_v2(s), 0);
        assert_eq!(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuStreamDestroy_v2(null_mut()), CUDA_ERROR_INVALID_HANDLE);
        // Device queries.
        let mut name = [0i8; 8];
        assert_eq!(cuDeviceGetName(name.as_mut_ptr(), 8, 0), 0);
        assert_eq!(
            std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap(),
            "ptxjit "
        );
        let mut v = 0;
        for (attr, want) in [
            (1, 1024),
            (10, 32),
            (8, 48 * 1024),
            (97, 227 * 1024),
            (75, 9),
            (76, 0),
            (41, 1),
        ] {
            assert_eq!(cuDeviceGetAttribute(&mut v, attr, 0), 0);
            assert_eq!(v, want, "attribute {attr}");
        }
        assert_eq!(
            cuDeviceGetAttribute(&mut v, 100000, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuDeviceGetAttribute(&mut v, 1, 1),
            CUDA_ERROR_INVALID_DEVICE
        );
        let mut uuid = [0u8; 16];
        assert_eq!(cuDeviceGetUuid_v2(&mut uuid, 0), 0);
        assert_eq!(&uuid, b"ptxjit-cpu-dev-0");
        assert_eq!(cuInit(1), CUDA_ERROR_INVALID_VALUE);
        let mut ver = 0;
        assert_eq!(cuDriverGetVersion(&mut ver), 0);
        assert_eq!(ver, 13050);
        assert_eq!(cuDriverGetVersion(null_mut()), CUDA_ERROR_INVALID_VALUE);
        let mut pfn = null_mut();
        let mut found = 0;
        assert_eq!(
            cuGetProcAddress_v2(c"cuLaunchKernel".as_ptr(), &mut pfn, 12080, 0, &mut found),
            0
        );
        assert_eq!(pfn, cuLaunchKernel as *mut c_void);
        assert_eq!(
            cuGetProcAddress_v2(c"cuLaunchKernelEx".as_ptr(), &mut pfn, 11000, 0, &mut found),
            CUDA_ERROR_NOT_FOUND
        );
        assert_eq!(found, 2, "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT");
        assert_eq!(
            cuGetProcAddress_v2(null(), &mut pfn, 12080, 0, &mut found),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

/// `CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES` (2) counts the module's `.const` variables
/// (numba's `get_const_mem_size`): 80 bytes at offset 0, a `.u32` at 80, 2 bytes at 84
/// with `.align 8` moved to 88: 88 + 2 = 90 (`ptxas -v` on this PTX: "90 bytes
/// cmem[3]"). A module without `.const` reports 0.
#[test]
fn const_size_attribute_counts_const_variables() {
    unsafe {
        setup();
        let src = c".version 7.0
.target sm_70
.address_size 64
.const .align 8 .b8 table[80];
.const .u32 x = 5;
.const .align 8 .b8 y[2];
.visible .entry k(.param .u64 out)
{
    .reg .u64 %rd<3>;
    .reg .u32 %r<2>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.const.u32 %r1, [x];
    st.global.u32 [%rd2], %r1;
    ret;
}
";
        let mut m = null_mut();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"k".as_ptr()), 0);
        let mut v = -1;
        assert_eq!(cuFuncGetAttribute(&mut v, 2, f), 0);
        assert_eq!(v, 90);
        let plain = ptx();
        let mut m2 = null_mut();
        assert_eq!(
            cuModuleLoadData(&mut m2, plain.as_ptr() as *const c_void),
            0
        );
        assert_eq!(cuModuleGetFunction(&mut f, m2, c"histogram".as_ptr()), 0);
        assert_eq!(cuFuncGetAttribute(&mut v, 2, f), 0);
        assert_eq!(v, 0);
        assert_eq!(cuModuleUnload(m), 0);
        assert_eq!(cuModuleUnload(m2), 0);
    }
}

/// `CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES` is per kernel: the `.shared` variables that
/// kernel can reach (ptxas -v: k0 and k1 41984 bytes smem, k2 43008), not the module's
/// sum; the dynamic maximum is what the kernel's static part leaves of 227 KiB.
#[test]
fn shared_size_attribute_is_per_kernel() {
    unsafe {
        setup();
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/ptx/shared_layout.ptx"
        );
        let src = CString::new(std::fs::read_to_string(p).unwrap()).unwrap();
        let mut m = null_mut();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
        for (name, want) in [(c"k0", 41984), (c"k1", 41984), (c"k2", 43008)] {
            let mut f = null_mut();
            assert_eq!(cuModuleGetFunction(&mut f, m, name.as_ptr()), 0);
            let mut v = -1;
            assert_eq!(cuFuncGetAttribute(&mut v, 1, f), 0);
            assert_eq!(v, want, "{name:?}");
            let max = 227 * 1024 - want;
            assert_eq!(cuFuncSetAttribute(f, 8, max), 0, "{name:?}");
            assert_eq!(
                cuFuncSetAttribute(f, 8, max + 1),
                CUDA_ERROR_INVALID_VALUE,
                "{name:?}"
            );
        }
        assert_eq!(cuModuleUnload(m), 0);
    }
}

/// `CU_FUNC_ATTRIBUTE_PTX_VERSION` is the virtual architecture of the function's PTX
/// (`.target`, major × 10 + minor), not the `.version` of the PTX ISA: CUB multiplies
/// it by 10 and compares it with the `__CUDA_ARCH__` values its kernels were compiled
/// for (thrust in CuPy's sort fails with `cudaErrorInvalidDeviceFunction` on 88 for
/// `.version 8.8`/`.target sm_100` PTX). `BINARY_VERSION` stays the device's 9.0.
/// Each module passes ptxas 12.9 (`ptxas -arch=<target>`).
#[test]
fn ptx_version_attribute_is_the_target_arch() {
    unsafe {
        setup();
        for (version, target, want) in [
            ("8.8", "sm_100", 100),
            ("7.0", "sm_70", 70),
            ("8.0", "sm_90a", 90),
        ] {
            let src = CString::new(format!(
                ".version {version}\n.target {target}\n.address_size 64\n\
                 .visible .entry e()\n{{\n    ret;\n}}\n"
            ))
            .unwrap();
            let mut m = null_mut();
            assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
            let mut f = null_mut();
            assert_eq!(cuModuleGetFunction(&mut f, m, c"e".as_ptr()), 0);
            let mut v = -1;
            assert_eq!(cuFuncGetAttribute(&mut v, 5, f), 0);
            assert_eq!(v, want, "{target}");
            assert_eq!(cuFuncGetAttribute(&mut v, 6, f), 0);
            assert_eq!(v, 90, "{target}: binary version");
            assert_eq!(cuModuleUnload(m), 0);
        }
    }
}
