//! Tensor maps through the driver API, in-process: `cuTensorMapEncodeTiled` with the
//! driver documentation's argument rules (each refusal is `CUDA_ERROR_INVALID_VALUE`),
//! `cuTensorMapEncodeIm2col`, `cuTensorMapReplaceAddress`, and the CUTLASS-style
//! `tma_load_2d` kernel of `tests/kernels/tma/tma.cu` (NVRTC, compute_90) launched with the
//! map as its `__grid_constant__` parameter. The expected box is computed here from the
//! PTX ISA's 128B swizzle table (chunk j of line r of 128 bytes goes to chunk j ^ (r mod 8)).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

const U32: u32 = 2;
const F32: u32 = 7;
const SWIZZLE_128B: u32 = 3;

/// Initializes and makes the primary context current on this thread.
unsafe fn setup() {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
}

#[repr(C, align(64))]
struct Map([u8; 128]);

/// `cuTensorMapEncodeTiled` of a 2-d tensor with the given box and modes.
#[allow(clippy::too_many_arguments)]
unsafe fn tiled(
    map: &mut Map,
    dtype: u32,
    addr: u64,
    dims: [u64; 2],
    stride: u64,
    boxd: [u32; 2],
    estr: [u32; 2],
    swizzle: u32,
    oob: u32,
) -> CUresult {
    let strides = [stride];
    cuTensorMapEncodeTiled(
        &mut map.0,
        dtype,
        2,
        addr as *mut c_void,
        dims.as_ptr(),
        strides.as_ptr(),
        boxd.as_ptr(),
        estr.as_ptr(),
        0,
        swizzle,
        0,
        oob,
    )
}

#[test]
fn encode_rules() {
    unsafe {
        setup();
        let mut m = Map([0; 128]);
        let ok = |m: &mut Map| tiled(m, F32, 0x1000, [64, 64], 256, [32, 8], [1, 1], 3, 0);
        assert_eq!(ok(&mut m), 0);
        // One rule broken at a time (cuda.h's documentation of cuTensorMapEncodeTiled).
        let cases: [(&str, CUresult); 9] = [
            (
                "address not 16-byte aligned",
                tiled(&mut m, F32, 0x1008, [64, 64], 256, [32, 8], [1, 1], 3, 0),
            ),
            (
                "stride not a multiple of 16",
                tiled(&mut m, F32, 0x1000, [64, 64], 260, [32, 8], [1, 1], 3, 0),
            ),
            (
                "box above 256",
                tiled(&mut m, F32, 0x1000, [64, 64], 256, [32, 257], [1, 1], 0, 0),
            ),
            (
                "box inner bytes not a multiple of 16",
                tiled(&mut m, F32, 0x1000, [64, 64], 256, [3, 8], [1, 1], 0, 0),
            ),
            (
                "inner box wider than the swizzle",
                tiled(&mut m, F32, 0x1000, [64, 64], 256, [64, 8], [1, 1], 3, 0),
            ),
            (
                "element stride 9",
                tiled(&mut m, F32, 0x1000, [64, 64], 256, [32, 8], [1, 9], 3, 0),
            ),
            (
                "NaN fill of an integer type",
                tiled(&mut m, U32, 0x1000, [64, 64], 256, [32, 8], [1, 1], 3, 1),
            ),
            (
                "dimension 0",
                tiled(&mut m, F32, 0x1000, [64, 0], 256, [32, 8], [1, 1], 3, 0),
            ),
            (
                "swizzle 7",
                tiled(&mut m, F32, 0x1000, [64, 64], 256, [32, 8], [1, 1], 7, 0),
            ),
        ];
        for (what, r) in cases {
            assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "{what}");
        }
        // A map that is not 64-byte aligned.
        let mut raw = [0u8; 192];
        let p = raw.as_mut_ptr().add(8) as *mut [u8; 128];
        let (dims, strides, boxd, estr) = ([64u64, 64], [256u64], [32u32, 8], [1u32, 1]);
        let r = cuTensorMapEncodeTiled(
            p,
            F32,
            2,
            0x1000 as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxd.as_ptr(),
            estr.as_ptr(),
            0,
            0,
            0,
            0,
        );
        if !(p as usize).is_multiple_of(64) {
            assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "unaligned map");
        }
        // Rank 6.
        let six = [1u64; 6];
        let r = cuTensorMapEncodeTiled(
            &mut m.0,
            F32,
            6,
            0x1000 as *mut c_void,
            six.as_ptr(),
            six.as_ptr(),
            [16u32; 6].as_ptr(),
            [1u32; 6].as_ptr(),
            0,
            0,
            0,
            0,
        );
        assert_eq!(r, CUDA_ERROR_INVALID_VALUE, "rank 6");
        // im2col: rank 4 allows corner offsets in [-128, 127].
        let (d4, s4) = ([8u64, 16, 16, 2], [16u64, 256, 4096]);
        let e4 = [1u32; 4];
        let mut im2col = |lo: i32| {
            let (lower, upper) = ([lo, 0], [0, 0]);
            cuTensorMapEncodeIm2col(
                &mut m.0,
                F32,
                4,
                0x1000 as *mut c_void,
                d4.as_ptr(),
                s4.as_ptr(),
                lower.as_ptr(),
                upper.as_ptr(),
                4,
                64,
                e4.as_ptr(),
                0,
                0,
                0,
                0,
            )
        };
        assert_eq!(im2col(-128), 0);
        assert_eq!(im2col(-129), CUDA_ERROR_INVALID_VALUE);
        // Replacing the address keeps the rules.
        assert_eq!(ok(&mut m), 0);
        assert_eq!(
            cuTensorMapReplaceAddress(&mut m.0, 0x2000 as *mut c_void),
            0
        );
        assert_eq!(
            cuTensorMapReplaceAddress(&mut m.0, 0x2004 as *mut c_void),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn load_kernel_with_swizzle() {
    unsafe {
        setup();
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/kernels/tma/tma.sm_90.ptx"
        );
        let src = CString::new(std::fs::read_to_string(p).unwrap()).unwrap();
        let mut module = null_mut();
        assert_eq!(
            cuModuleLoadData(&mut module, src.as_ptr() as *const c_void),
            0
        );
        let mut f = null_mut();
        assert_eq!(
            cuModuleGetFunction(&mut f, module, c"tma_load_2d".as_ptr()),
            0
        );
        // A 64 x 48 f32 tensor, element (x, y) = y * 1000 + x.
        let (w, h) = (64usize, 48usize);
        let host: Vec<f32> = (0..w * h)
            .map(|i| ((i / w) * 1000 + i % w) as f32)
            .collect();
        let mut t = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut t, host.len() * 4), 0);
        let bytes = host.len() * 4;
        assert_eq!(cuMemcpyHtoD_v2(t, host.as_ptr() as *const c_void, bytes), 0);
        let mut map = Map([0; 128]);
        let r = tiled(
            &mut map,
            F32,
            t,
            [w as u64, h as u64],
            (w * 4) as u64,
            [32, 8],
            [1, 1],
            SWIZZLE_128B,
            0,
        );
        assert_eq!(r, 0);
        let box_bytes = 32u32 * 8 * 4;
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, box_bytes as usize), 0);
        let (mut c0, mut c1, mut n) = (16i32, 40i32, box_bytes);
        let mut params = [
            map.0.as_mut_ptr() as *mut c_void,
            &mut out as *mut u64 as *mut c_void,
            &mut c0 as *mut i32 as *mut c_void,
            &mut c1 as *mut i32 as *mut c_void,
            &mut n as *mut u32 as *mut c_void,
        ];
        let r = cuLaunchKernel(
            f,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, 0);
        assert_eq!(cuCtxSynchronize(), 0);
        let mut got = vec![0f32; 32 * 8];
        let gp = got.as_mut_ptr() as *mut c_void;
        assert_eq!(cuMemcpyDtoH_v2(gp, out, box_bytes as usize), 0);
        // Box row r (y = 40 + r; rows 8.. of the tensor end at 47, so every row is
        // inside) is line r of 128 bytes; its 16-byte chunk j (x = 16 + 4j ..) is at
        // chunk j ^ r.
        let mut want = vec![0f32; 32 * 8];
        for r in 0..8usize {
            for x in 0..32usize {
                let (j, e) = (x / 4, x % 4);
                let at = r * 32 + (j ^ r) * 4 + e;
                want[at] = ((40 + r) * 1000 + 16 + x) as f32;
            }
        }
        assert_eq!(got, want);
        assert_eq!(cuMemFree_v2(t), 0);
        assert_eq!(cuMemFree_v2(out), 0);
    }
}
