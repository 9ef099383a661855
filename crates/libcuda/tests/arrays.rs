//! CUDA arrays through the 2-D entry points (`cuArrayCreate_v2`, `cuMemcpy2D_v2`) and a
//! 3-D copy into one slice of a 3-D array (`cuArray3DCreate_v2`, `cuMemcpy3D_v2`), called
//! in-process: sub-rectangles between pitched host buffers, device memory and arrays.
//! The expected contents come from a plain nested-loop copy in the test.

use cuda::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

const MEM_HOST: u32 = 1;
const MEM_DEVICE: u32 = 2;
const MEM_ARRAY: u32 = 3;
/// `CU_AD_FORMAT_UNSIGNED_INT32`.
const FORMAT_U32: u32 = 0x03;

/// Initializes and makes the primary context current on this thread.
unsafe fn setup() {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
}

/// A 2-D copy of `w` bytes × `h` rows with every operand zero: the caller sets the sides.
fn memcpy2d(w: usize, h: usize) -> CudaMemcpy2d {
    CudaMemcpy2d {
        src_x_in_bytes: 0,
        src_y: 0,
        src_memory_type: 0,
        src_host: null(),
        src_device: 0,
        src_array: null_mut(),
        src_pitch: 0,
        dst_x_in_bytes: 0,
        dst_y: 0,
        dst_memory_type: 0,
        dst_host: null_mut(),
        dst_device: 0,
        dst_array: null_mut(),
        dst_pitch: 0,
        width_in_bytes: w,
        height: h,
    }
}

/// Copies the `w` × `h` words at (`sx`, `sy`) of `src` (`sp` words a row) to (`dx`, `dy`)
/// of `dst` (`dp` words a row): the reference for the driver's copies.
#[allow(clippy::too_many_arguments)]
fn reference(
    src: &[u32],
    sp: usize,
    (sx, sy): (usize, usize),
    dst: &mut [u32],
    dp: usize,
    (dx, dy): (usize, usize),
    w: usize,
    h: usize,
) {
    for y in 0..h {
        for x in 0..w {
            dst[(dy + y) * dp + dx + x] = src[(sy + y) * sp + sx + x];
        }
    }
}

#[test]
fn memcpy2d_moves_rectangles_between_host_device_and_arrays() {
    unsafe {
        setup();
        // A 5 × 3 array of u32: rows of 20 bytes.
        let desc = CudaArrayDescriptor {
            width: 5,
            height: 3,
            format: FORMAT_U32,
            num_channels: 1,
        };
        let mut arr = null_mut();
        assert_eq!(cuArrayCreate_v2(&mut arr, &desc), 0);
        let zeros = [0u32; 15];
        let mut c = memcpy2d(20, 3);
        c.src_memory_type = MEM_HOST;
        c.src_host = zeros.as_ptr() as *const c_void;
        c.src_pitch = 20;
        c.dst_memory_type = MEM_ARRAY;
        c.dst_array = arr;
        assert_eq!(cuMemcpy2D_v2(&c), 0);
        // Host rows of 6 words, 4 rows: 3 words × 2 rows from (1, 1) to the array at (2, 0).
        let host: Vec<u32> = (0..24).map(|i| (i / 6) * 100 + i % 6).collect();
        let mut c = memcpy2d(12, 2);
        c.src_memory_type = MEM_HOST;
        c.src_host = host.as_ptr() as *const c_void;
        c.src_pitch = 24;
        (c.src_x_in_bytes, c.src_y) = (4, 1);
        c.dst_memory_type = MEM_ARRAY;
        c.dst_array = arr;
        c.dst_x_in_bytes = 8;
        assert_eq!(cuMemcpy2D_v2(&c), 0);
        let mut want = [0u32; 15];
        reference(&host, 6, (1, 1), &mut want, 5, (2, 0), 3, 2);
        // The whole array to device memory with rows of 32 bytes, then back to the host.
        let mut dev = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut dev, 32 * 3), 0);
        let mut c = memcpy2d(20, 3);
        c.src_memory_type = MEM_ARRAY;
        c.src_array = arr;
        c.dst_memory_type = MEM_DEVICE;
        c.dst_device = dev;
        c.dst_pitch = 32;
        assert_eq!(cuMemcpy2D_v2(&c), 0);
        let mut got = [0u32; 15];
        let mut c = memcpy2d(20, 3);
        c.src_memory_type = MEM_DEVICE;
        c.src_device = dev;
        c.src_pitch = 32;
        c.dst_memory_type = MEM_HOST;
        c.dst_host = got.as_mut_ptr() as *mut c_void;
        c.dst_pitch = 20;
        assert_eq!(cuMemcpy2D_v2(&c), 0);
        assert_eq!(got, want);
        // A rectangle past the array's end is an error.
        let mut c = memcpy2d(24, 1);
        c.src_memory_type = MEM_ARRAY;
        c.src_array = arr;
        c.src_y = 3;
        c.dst_memory_type = MEM_HOST;
        c.dst_host = got.as_mut_ptr() as *mut c_void;
        assert_ne!(cuMemcpy2D_v2(&c), 0);
        assert_eq!(cuMemFree_v2(dev), 0);
        assert_eq!(cuArrayDestroy(arr), 0);
    }
}

#[test]
fn memcpy3d_fills_one_slice_of_a_3d_array() {
    unsafe {
        setup();
        // 4 × 2 × 3 words: slices of 2 rows of 16 bytes.
        let desc = CudaArray3dDescriptor {
            width: 4,
            height: 2,
            depth: 3,
            format: FORMAT_U32,
            num_channels: 1,
            flags: 0,
        };
        let mut arr = null_mut();
        assert_eq!(cuArray3DCreate_v2(&mut arr, &desc), 0);
        let copy =
            |src_host: *const c_void, src_array, dst_host: *mut c_void, dst_array| CudaMemcpy3d {
                src_x_in_bytes: 0,
                src_y: 0,
                src_z: 0,
                src_lod: 0,
                src_memory_type: if src_host.is_null() {
                    MEM_ARRAY
                } else {
                    MEM_HOST
                },
                src_host,
                src_device: 0,
                src_array,
                reserved0: null_mut(),
                src_pitch: 16,
                src_height: 2,
                dst_x_in_bytes: 0,
                dst_y: 0,
                dst_z: 0,
                dst_lod: 0,
                dst_memory_type: if dst_host.is_null() {
                    MEM_ARRAY
                } else {
                    MEM_HOST
                },
                dst_host,
                dst_device: 0,
                dst_array,
                reserved1: null_mut(),
                dst_pitch: 16,
                dst_height: 2,
                width_in_bytes: 16,
                height: 2,
                depth: 3,
            };
        let zeros = [0u32; 24];
        let c = copy(zeros.as_ptr() as *const c_void, null_mut(), null_mut(), arr);
        assert_eq!(cuMemcpy3D_v2(&c), 0);
        // One slice of 8 words into slice 1 (z = 1).
        let slice: Vec<u32> = (1..=8).collect();
        let mut c = copy(slice.as_ptr() as *const c_void, null_mut(), null_mut(), arr);
        (c.depth, c.dst_z) = (1, 1);
        assert_eq!(cuMemcpy3D_v2(&c), 0);
        let mut got = [0u32; 24];
        let c = copy(null(), arr, got.as_mut_ptr() as *mut c_void, null_mut());
        assert_eq!(cuMemcpy3D_v2(&c), 0);
        let mut want = [0u32; 24];
        // The array as 6 rows of 4 words: slice 1 is rows 2 and 3.
        reference(&slice, 4, (0, 0), &mut want, 4, (0, 2), 4, 2);
        assert_eq!(got, want);
        assert_eq!(cuArrayDestroy(arr), 0);
    }
}
