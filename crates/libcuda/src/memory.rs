//! Memory: device allocations (sync and stream-ordered), page-locked host allocations,
//! memset and memcpy in every direction, and pointer queries.
//!
//! Device memory is ptxjit's device range, which is host memory: after checking that a
//! device range lies inside one live allocation (or module variable), copies are plain
//! `memmove`s. Every copy has completed when the call returns, async ones included.

use crate::*;

/// Checks that `[p, p+n)` is device memory a copy may touch.
fn dev_range(d: &Driver, p: CUdeviceptr, n: usize) -> Res {
    if n == 0 {
        return Ok(());
    }
    d.device
        .check_range(p, n as u64)
        .map_err(|_| CUDA_ERROR_INVALID_VALUE)
}

/// A host pointer that must not be null when `n > 0`.
fn host_ptr<T>(p: *const T, n: usize) -> Res {
    if p.is_null() && n > 0 {
        Err(CUDA_ERROR_INVALID_VALUE)
    } else {
        Ok(())
    }
}

/// Whether `p` lies in the device address range.
fn is_device(d: &Driver, p: u64) -> bool {
    let (lo, hi) = d.device.address_range();
    (lo..hi).contains(&p)
}

fn alloc(p: *mut CUdeviceptr, bytes: usize) -> Res {
    if p.is_null() || bytes == 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    with_ctx(|d, t, _| {
        let b = if crate::sanitize::initcheck(d) {
            d.device.alloc_uninit(bytes)
        } else {
            d.device.alloc_zeroed(bytes)
        }
        .map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
        t.allocs.insert(b.ptr(), b);
        // SAFETY: checked non-null.
        unsafe { out(p, b.ptr()) }
    })
}

fn free(p: CUdeviceptr) -> Res {
    with_ctx(|d, t, _| {
        if let Some(r) = crate::graph_nodes::free_graph_alloc(d, t, p) {
            return r;
        }
        let b = t.allocs.remove(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        crate::ipc::unshare(t, &b)?;
        d.device.free(b).map_err(|_| CUDA_ERROR_INVALID_VALUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(p: *mut CUdeviceptr, bytes: usize) -> CUresult {
    guard(|| alloc(p, bytes))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(
    p: *mut CUdeviceptr,
    bytes: usize,
    s: CUstream,
) -> CUresult {
    guard(|| {
        stream::check(s)?;
        alloc(p, bytes)
    })
}

/// Pitched allocation: rows padded to 512 bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    p: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    elem: u32,
) -> CUresult {
    guard(|| {
        if pitch.is_null() || !matches!(elem, 4 | 8 | 16) || width == 0 || height == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let pw = width.next_multiple_of(512);
        alloc(p, pw.checked_mul(height).ok_or(CUDA_ERROR_INVALID_VALUE)?)?;
        out(pitch, pw)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFree_v2(p: CUdeviceptr) -> CUresult {
    guard(|| free(p))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFreeAsync(p: CUdeviceptr, s: CUstream) -> CUresult {
    guard(|| {
        stream::check(s)?;
        free(p)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    guard(|| {
        if free.is_null() || total.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let used: usize = with_ctx(|_, t, _| {
            Ok(t.allocs
                .values()
                .map(|b| b.len().next_multiple_of(512))
                .sum())
        })?;
        let tot = device::total_mem()?;
        out(free, tot.saturating_sub(used))?;
        out(total, tot)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut CUdeviceptr,
    size: *mut usize,
    p: CUdeviceptr,
) -> CUresult {
    guard(|| {
        // Device allocations, then page-locked host allocations and registered host
        // ranges (mapped: their device address is their host address), as numba's
        // `device_memory_size` asks of both.
        let (b, n) = with_ctx(|d, t, _| {
            let dev = t
                .allocs
                .range(..=p)
                .next_back()
                .map(|(_, b)| (b.ptr(), b.len()));
            let host = host_range(d, t, p);
            [dev, host, crate::ipc::imported_range(t, p)]
                .into_iter()
                .flatten()
                .find(|&(s, n)| p < s + n as u64)
                .ok_or(CUDA_ERROR_NOT_FOUND)
        })?;
        if !base.is_null() {
            out(base, b)?;
        }
        if !size.is_null() {
            out(size, n)?;
        }
        Ok(())
    })
}

fn host_alloc(pp: *mut *mut c_void, bytes: usize) -> Res {
    if pp.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    with_ctx(|d, t, _| {
        // Page-locked host memory is device memory (a device address is a host address),
        // so it is mapped: kernels reach it at the same address.
        let b = d
            .device
            .alloc_zeroed(bytes.max(1))
            .map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
        t.host_allocs.insert(b.ptr(), bytes.max(1));
        t.host_bufs.insert(b.ptr(), b);
        // SAFETY: checked non-null.
        unsafe { out(pp, b.ptr() as *mut c_void) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult {
    guard(|| host_alloc(pp, bytes))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    bytes: usize,
    _flags: u32,
) -> CUresult {
    guard(|| host_alloc(pp, bytes))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    guard(|| {
        with_ctx(|d, t, _| {
            t.host_allocs
                .remove(&(p as u64))
                .ok_or(CUDA_ERROR_INVALID_VALUE)?;
            let b = t
                .host_bufs
                .remove(&(p as u64))
                .ok_or(CUDA_ERROR_INVALID_VALUE)?;
            d.device.free(b).map_err(|_| CUDA_ERROR_INVALID_VALUE)
        })
    })
}

/// `CU_MEMHOSTREGISTER_PORTABLE | DEVICEMAP | IOMEMORY | READ_ONLY`.
const HOST_REGISTER_FLAGS: u32 = 0x1 | 0x2 | 0x4 | 0x8;
/// `CU_MEMHOSTREGISTER_IOMEMORY`: the range is device I/O memory (mmapped from a PCI
/// device), which ptxjit has none of.
const HOST_REGISTER_IOMEMORY: u32 = 0x4;

/// `cuMemHostRegister`: the host range becomes reachable by kernels at its own address
/// (as with unified addressing on a GPU, where the device pointer of registered memory
/// is its host pointer): launches' region tables and copies' range checks include it
/// until `cuMemHostUnregister`. Every registration is mapped (`DEVICEMAP` implied).
#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister_v2(
    p: *mut c_void,
    bytes: usize,
    flags: u32,
) -> CUresult {
    guard(|| {
        let d = with_ctx(|d, _, _| Ok(d))?;
        if p.is_null() || bytes == 0 || flags & !HOST_REGISTER_FLAGS != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if flags & HOST_REGISTER_IOMEMORY != 0 {
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        // SAFETY: the caller keeps the memory valid until it unregisters it, as CUDA
        // requires of registered memory.
        unsafe { d.device.register_host(p as *mut u8, bytes) }
            .map_err(|_| CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister(p: *mut c_void, bytes: usize, flags: u32) -> CUresult {
    cuMemHostRegister_v2(p, bytes, flags)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    guard(|| {
        let d = with_ctx(|d, _, _| Ok(d))?;
        if p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        d.device
            .unregister_host(p as *mut u8)
            .map_err(|_| CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    })
}

/// The page-locked host range holding `p`: a `cuMemHostAlloc` allocation of this
/// context or a registered range. (start, bytes).
fn host_range(d: &Driver, t: &Tables, p: u64) -> Option<(u64, usize)> {
    t.host_allocs
        .range(..=p)
        .next_back()
        .map(|(&s, &n)| (s, n))
        .filter(|&(s, n)| p < s + n as u64)
        .or_else(|| d.device.registered_range(p))
}

/// Fills `n` elements of `size` bytes at device address `dst` with `pattern` (recorded
/// instead when `s` is capturing).
pub(crate) fn memset(dst: CUdeviceptr, pattern: &[u8], n: usize, s: Option<CUstream>) -> Res {
    if let Some(s) = s {
        stream::check(s)?;
        if let Some(g) = graph::capturing(s)? {
            let pattern = pattern.to_vec();
            let op: graph::Op = std::sync::Arc::new(move || memset(dst, &pattern, n, None));
            return graph::record(g, graph::NODE_MEMSET, op);
        }
    }
    let d = with_ctx(|d, _, _| Ok(d))?;
    let size = pattern.len();
    if !dst.is_multiple_of(size as u64) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let bytes = n.checked_mul(size).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    dev_range(d, dst, bytes)?;
    // SAFETY: checked to be inside one live device allocation.
    unsafe {
        if pattern.iter().all(|&b| b == pattern[0]) {
            std::ptr::write_bytes(dst as *mut u8, pattern[0], bytes);
        } else {
            for i in 0..n {
                std::ptr::copy_nonoverlapping(
                    pattern.as_ptr(),
                    (dst as *mut u8).add(i * size),
                    size,
                );
            }
        }
    }
    d.device.mark_written(dst, bytes as u64);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult {
    guard(|| memset(dst, &[v], n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) -> CUresult {
    guard(|| memset(dst, &v.to_le_bytes(), n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize) -> CUresult {
    guard(|| memset(dst, &v.to_le_bytes(), n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(
    dst: CUdeviceptr,
    v: u8,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| memset(dst, &[v], n, Some(s)))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16Async(
    dst: CUdeviceptr,
    v: u16,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| memset(dst, &v.to_le_bytes(), n, Some(s)))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: CUdeviceptr,
    v: u32,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| memset(dst, &v.to_le_bytes(), n, Some(s)))
}

/// Where a copy's end lies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Host,
    Device,
    /// Unified addressing: device if inside the device range.
    Any,
}

/// Copies `n` bytes from `src` to `dst` (overlap allowed), checking device ranges
/// (recorded instead when `s` is capturing: the graph copies at each launch).
fn copy(dst: u64, dst_side: Side, src: u64, src_side: Side, n: usize, s: Option<CUstream>) -> Res {
    if let Some(s) = s {
        stream::check(s)?;
        if let Some(g) = graph::capturing(s)? {
            let op: graph::Op =
                std::sync::Arc::new(move || copy(dst, dst_side, src, src_side, n, None));
            return graph::record(g, graph::NODE_MEMCPY, op);
        }
    }
    let d = with_ctx(|d, _, _| Ok(d))?;
    if n == 0 {
        return Ok(());
    }
    for (p, side) in [(dst, dst_side), (src, src_side)] {
        let dev = match side {
            Side::Device => true,
            Side::Host => false,
            Side::Any => is_device(d, p),
        };
        if dev {
            dev_range(d, p, n)?;
        } else {
            host_ptr(p as *const u8, n)?;
            if p.checked_add(n as u64).is_none() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
    }
    // SAFETY: device ends are inside live allocations; host ends are the caller's.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
    d.device.mark_written(dst, n as u64);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
) -> CUresult {
    guard(|| copy(dst, Side::Device, src as u64, Side::Host, n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult {
    guard(|| copy(dst as u64, Side::Host, src, Side::Device, n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    guard(|| copy(dst, Side::Device, src, Side::Device, n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| copy(dst, Side::Device, src as u64, Side::Host, n, Some(s)))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| copy(dst as u64, Side::Host, src, Side::Device, n, Some(s)))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| copy(dst, Side::Device, src, Side::Device, n, Some(s)))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    guard(|| copy(dst, Side::Any, src, Side::Any, n, None))
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: CUstream,
) -> CUresult {
    guard(|| copy(dst, Side::Any, src, Side::Any, n, Some(s)))
}

/// `cuPointerGetAttribute` for context, memory type, device/host pointer, ordinal,
/// range start and size, and mapped.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attr: u32,
    p: CUdeviceptr,
) -> CUresult {
    guard(|| {
        if data.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let (ctx, alloc, host) = with_ctx(|d, t, c| {
            let a = t
                .allocs
                .range(..=p)
                .next_back()
                .map(|(_, b)| *b)
                .filter(|b| p < b.ptr() + b.len().max(1) as u64)
                .map(|b| (b.ptr(), b.len()))
                .or_else(|| crate::ipc::imported_range(t, p));
            Ok((c, a, host_range(d, t, p)))
        })?;
        let range = match (alloc, host) {
            (Some((s, n)), _) => (s, n as u64, 2u32),
            (None, Some((s, n))) => (s, n as u64, 1u32),
            (None, None) => return Err(CUDA_ERROR_INVALID_VALUE),
        };
        match attr {
            1 => out(data as *mut CUcontext, handle(Kind::Context, ctx)),
            2 => out(data as *mut u32, range.2),
            3 | 4 => out(data as *mut u64, p),
            8 => out(data as *mut u32, 0),
            9 => out(data as *mut i32, 0),
            11 => out(data as *mut u64, range.0),
            12 => out(data as *mut usize, range.1 as usize),
            13 => out(data as *mut u32, 1),
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

/// `cuPointerGetAttributes`: several attributes at once. As the driver documents, a
/// pointer this driver did not allocate is not an error: its attributes read as zero
/// (NULL context, memory type 0), its device ordinal as -2.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttributes(
    n: u32,
    attrs: *const u32,
    data: *mut *mut c_void,
    p: CUdeviceptr,
) -> CUresult {
    guard(|| {
        if n > 0 && (attrs.is_null() || data.is_null()) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // The allocation's range, if `p` is inside one (memory type 2 or host 1).
        let mut start = 0u64;
        let known =
            cuPointerGetAttribute(&mut start as *mut u64 as *mut c_void, 11, p) == CUDA_SUCCESS;
        let mut size = 0usize;
        if known {
            cuPointerGetAttribute(&mut size as *mut usize as *mut c_void, 12, p);
        }
        for i in 0..n as usize {
            let attr = *attrs.add(i);
            let dst = *data.add(i);
            if dst.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            match attr {
                1..=4 | 8 | 9 | 11..=13 if known => {
                    let r = cuPointerGetAttribute(dst, attr, p);
                    if r != CUDA_SUCCESS {
                        return Err(r);
                    }
                }
                1 | 3 | 4 | 11 | 17 => out(dst as *mut u64, 0)?,
                12 => out(dst as *mut usize, 0)?,
                2 | 8 | 13 => out(dst as *mut u32, 0)?,
                9 => out(dst as *mut i32, -2)?,
                // SYNC_MEMOPS: every operation is synchronous.
                6 => out(dst as *mut u32, known as u32)?,
                // BUFFER_ID: the allocation's start is unique while it lives.
                7 => out(dst as *mut u64, start)?,
                10 | 15 => out(dst as *mut u32, 0)?,
                14 | 20 => out(dst as *mut u64, 0)?,
                // ACCESS_FLAGS: read-write (CU_POINTER_ACCESS_FLAG_READWRITE = 3).
                16 => out(dst as *mut u64, if known { 3 } else { 0 })?,
                18 => out(dst as *mut u64, size as u64)?,
                19 => out(dst as *mut u64, start)?,
                _ => return Err(CUDA_ERROR_INVALID_VALUE),
            }
        }
        Ok(())
    })
}

/// `cuMemHostGetDevicePointer`: page-locked memory from `cuMemHostAlloc` is device
/// memory, and registered memory (`cuMemHostRegister`) is reachable by kernels at its
/// host address, so the device address of either is its host address.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    dptr: *mut CUdeviceptr,
    p: *mut c_void,
    flags: u32,
) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let a = p as u64;
        if with_ctx(|d, t, _| Ok(host_range(d, t, a)))?.is_none() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        out(dptr, a)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetDevicePointer(
    dptr: *mut CUdeviceptr,
    p: *mut c_void,
    flags: u32,
) -> CUresult {
    cuMemHostGetDevicePointer_v2(dptr, p, flags)
}

/// `cuMemAllocManaged`: device memory is host memory, reachable from both sides at
/// the same address, so managed memory is an ordinary allocation.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocManaged(
    p: *mut CUdeviceptr,
    bytes: usize,
    flags: u32,
) -> CUresult {
    // CU_MEM_ATTACH_GLOBAL = 1, CU_MEM_ATTACH_HOST = 2.
    if flags != 1 && flags != 2 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    cuMemAlloc_v2(p, bytes)
}
