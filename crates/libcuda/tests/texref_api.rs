//! Module texture and surface references through the driver API, in process:
//! `cuModuleGetTexRef`/`cuModuleGetSurfRef` on `tests/kernels/texref.ptx` (hand-written;
//! ptxas accepts it for sm_52 and sm_90), a pitched 2D range bound with
//! `cuTexRefSetAddress2D_v3`, linear memory with `cuTexRefSetAddress_v2`, the sampler
//! state set with `cuTexRefSetFilterMode`/`SetAddressMode`/`SetFlags`/`SetFormat` and read
//! back with the `Get` calls, a surface array with `cuSurfRefSetArray`; and pitch-2D
//! texture objects with `cuTexObjectGetResourceDesc`. Expected values come from the
//! CUDA programming guide's point-sampling formula (texel `floor(x)`, clamped), computed
//! here.

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

fn ptx() -> CString {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/kernels/texref.ptx"
    );
    CString::new(std::fs::read_to_string(p).unwrap()).unwrap()
}

unsafe fn setup() {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
}

/// Launches `name` with 1 block of `threads` and 64-bit pointer arguments.
unsafe fn launch(m: CUmodule, name: &str, threads: (u32, u32), args: &[u64]) -> CUresult {
    let mut f = null_mut();
    let n = CString::new(name).unwrap();
    assert_eq!(cuModuleGetFunction(&mut f, m, n.as_ptr()), 0);
    let mut vals = args.to_vec();
    let mut ptrs: Vec<*mut c_void> = vals
        .iter_mut()
        .map(|v| v as *mut u64 as *mut c_void)
        .collect();
    let r = cuLaunchKernel(
        f,
        1,
        1,
        1,
        threads.0,
        threads.1,
        1,
        0,
        null_mut(),
        ptrs.as_mut_ptr(),
        null_mut(),
    );
    if r != 0 {
        return r;
    }
    cuCtxSynchronize()
}

unsafe fn upload<T>(data: &[T]) -> u64 {
    let bytes = std::mem::size_of_val(data);
    let mut p = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut p, bytes), 0);
    assert_eq!(cuMemcpyHtoD_v2(p, data.as_ptr() as *const c_void, bytes), 0);
    p
}

unsafe fn download<T: Copy + Default>(p: u64, n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    assert_eq!(
        cuMemcpyDtoH_v2(
            v.as_mut_ptr() as *mut c_void,
            p,
            n * std::mem::size_of::<T>()
        ),
        0
    );
    v
}

const W: usize = 6;
const H: usize = 4;
/// Row pitch of the pitched image in f32s (bytes: 40 > 6 * 4).
const PITCH: usize = 10;

fn texel(i: i64, j: i64) -> f32 {
    let (i, j) = (i.clamp(0, W as i64 - 1), j.clamp(0, H as i64 - 1));
    (i * 7 + j * 100) as f32
}

#[test]
fn texrefs_and_surfrefs_through_the_driver_api() {
    unsafe {
        setup();
        let mut m = null_mut();
        let src = ptx();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
        let mut tr = null_mut();
        assert_eq!(cuModuleGetTexRef(&mut tr, m, c"img".as_ptr()), 0);
        let mut bad = null_mut();
        assert_eq!(
            cuModuleGetTexRef(&mut bad, m, c"acc".as_ptr()),
            CUDA_ERROR_NOT_FOUND,
            "a surfref is not a texref"
        );
        // The image in pitched rows (the padding holds -1).
        let mut img = vec![-1f32; PITCH * H];
        for j in 0..H {
            for i in 0..W {
                img[j * PITCH + i] = texel(i as i64, j as i64);
            }
        }
        let dimg = upload(&img);
        let desc = CudaArrayDescriptor {
            width: W,
            height: H,
            format: 0x20,
            num_channels: 1,
        };
        assert_eq!(cuTexRefSetAddress2D_v3(tr, &desc, dimg, PITCH * 4), 0);
        assert_eq!(cuTexRefSetFilterMode(tr, 0), 0);
        assert_eq!(cuTexRefSetAddressMode(tr, 0, 1), 0);
        assert_eq!(cuTexRefSetAddressMode(tr, 1, 1), 0);
        assert_eq!(cuTexRefSetFlags(tr, 0), 0);
        let (mut fmt, mut ch, mut mode, mut addr) = (0u32, 0i32, 0u32, 0u64);
        assert_eq!(cuTexRefGetFormat(&mut fmt, &mut ch, tr), 0);
        assert_eq!((fmt, ch), (0x20, 1));
        assert_eq!(cuTexRefGetAddressMode(&mut mode, tr, 1), 0);
        assert_eq!(mode, 1);
        assert_eq!(cuTexRefGetAddress_v2(&mut addr, tr), 0);
        assert_eq!(addr, dimg);
        let xs: Vec<f32> = vec![0.5, 0.5, 5.9, 3.2, -2.0, 1.5, 2.7, 9.0, 3.0, 2.0];
        let n = xs.len() / 2;
        let din = upload(&xs);
        let mut dout = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut dout, 32 * n), 0);
        assert_eq!(launch(m, "fetch2d", (n as u32, 1), &[din, dout]), 0);
        let got: Vec<f32> = download(dout, 8 * n);
        for k in 0..n {
            let v = texel(xs[2 * k].floor() as i64, xs[2 * k + 1].floor() as i64);
            assert_eq!(
                &got[8 * k..8 * k + 8],
                &[v, 0.0, 0.0, 0.0, v, 0.0, 0.0, 0.0],
                "lane {k}"
            );
        }
        // `line`: 8 f32 of linear memory, normalised coordinates.
        let mut lr = null_mut();
        assert_eq!(cuModuleGetTexRef(&mut lr, m, c"line".as_ptr()), 0);
        let line: Vec<f32> = (0..8).map(|k| 1.5 * k as f32).collect();
        let dline = upload(&line);
        let mut off = 99usize;
        assert_eq!(cuTexRefSetAddress_v2(&mut off, lr, dline, 32), 0);
        assert_eq!(off, 0);
        assert_eq!(cuTexRefSetFormat(lr, 0x20, 1), 0);
        assert_eq!(cuTexRefSetFlags(lr, 2), 0);
        assert_eq!(cuTexRefSetAddressMode(lr, 0, 1), 0);
        let mut flags = 0u32;
        assert_eq!(cuTexRefGetFlags(&mut flags, lr), 0);
        assert_eq!(flags, 2);
        let mut d1 = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut d1, 16 * xs.len()), 0);
        assert_eq!(launch(m, "fetch1d", (xs.len() as u32, 1), &[din, d1]), 0);
        let got: Vec<f32> = download(d1, 4 * xs.len());
        for (k, x) in xs.iter().enumerate() {
            let t = ((*x as f64 * 8.0).floor() as i64).clamp(0, 7) as usize;
            assert_eq!(got[4 * k], line[t], "1d x = {x}");
        }
        // Surface reference over a 5 x 3 u32 surface array.
        let mut sr = null_mut();
        assert_eq!(cuModuleGetSurfRef(&mut sr, m, c"acc".as_ptr()), 0);
        let mut arr = null_mut();
        let ad = CudaArray3dDescriptor {
            width: 5,
            height: 3,
            depth: 0,
            format: 0x03,
            num_channels: 1,
            flags: 2,
        };
        assert_eq!(cuArray3DCreate_v2(&mut arr, &ad), 0);
        let vals: Vec<u32> = (0..15).map(|v| 3 * v).collect();
        let mut cp = CudaMemcpy2d {
            src_x_in_bytes: 0,
            src_y: 0,
            src_memory_type: 1,
            src_host: vals.as_ptr() as *const c_void,
            src_device: 0,
            src_array: null_mut(),
            src_pitch: 20,
            dst_x_in_bytes: 0,
            dst_y: 0,
            dst_memory_type: 3,
            dst_host: null_mut(),
            dst_device: 0,
            dst_array: arr,
            dst_pitch: 0,
            width_in_bytes: 20,
            height: 3,
        };
        assert_eq!(cuMemcpy2D_v2(&cp), 0);
        assert_eq!(cuSurfRefSetArray(sr, arr, 0), 0);
        let mut back = null_mut();
        assert_eq!(cuSurfRefGetArray(&mut back, sr), 0);
        assert_eq!(back, arr);
        assert_eq!(launch(m, "add_surf", (5, 3), &[]), 0);
        let mut res = vec![0u32; 15];
        cp.src_memory_type = 3;
        cp.src_array = arr;
        cp.src_host = std::ptr::null();
        cp.dst_memory_type = 1;
        cp.dst_array = null_mut();
        cp.dst_host = res.as_mut_ptr() as *mut c_void;
        cp.dst_pitch = 20;
        assert_eq!(cuMemcpy2D_v2(&cp), 0);
        assert_eq!(res, (0..15).map(|v| 3 * v + 1).collect::<Vec<u32>>());
        let mut sizes = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut sizes, 16), 0);
        assert_eq!(launch(m, "sizes", (1, 1), &[sizes]), 0);
        assert_eq!(download::<u32>(sizes, 4), vec![6, 4, 5, 3]);
        // A pitch-2D texture object over the same pitched image; its resource
        // description reads back.
        let mut rd = CudaResourceDesc {
            res_type: 3,
            res: [0; 16],
            flags: 0,
        };
        rd.res[0] = dimg;
        rd.res[1] = 0x20 | 1 << 32;
        rd.res[2] = W as u64;
        rd.res[3] = H as u64;
        rd.res[4] = (PITCH * 4) as u64;
        let td = CudaTextureDesc {
            address_mode: [1, 3, 2],
            filter_mode: 1,
            flags: 2,
            max_anisotropy: 0,
            mipmap_filter_mode: 0,
            mipmap_level_bias: 0.0,
            min_mipmap_level_clamp: 0.0,
            max_mipmap_level_clamp: 0.0,
            border_color: [0.25, 0.0, 0.0, 1.0],
            reserved: [0; 12],
        };
        let mut obj = 0u64;
        assert_eq!(cuTexObjectCreate(&mut obj, &rd, &td, std::ptr::null()), 0);
        // The sampler state reads back as it was given.
        let mut got_td = CudaTextureDesc {
            address_mode: [9; 3],
            filter_mode: 9,
            flags: 9,
            max_anisotropy: 9,
            mipmap_filter_mode: 9,
            mipmap_level_bias: 9.0,
            min_mipmap_level_clamp: 9.0,
            max_mipmap_level_clamp: 9.0,
            border_color: [9.0; 4],
            reserved: [9; 12],
        };
        assert_eq!(cuTexObjectGetTextureDesc(&mut got_td, obj), 0);
        assert_eq!(got_td.address_mode, [1, 3, 2]);
        assert_eq!((got_td.filter_mode, got_td.flags), (1, 2));
        assert_eq!(got_td.border_color, [0.25, 0.0, 0.0, 1.0]);
        assert_eq!(got_td.max_anisotropy, 0);
        let mut got_rd = CudaResourceDesc {
            res_type: 0,
            res: [0; 16],
            flags: 0,
        };
        assert_eq!(cuTexObjectGetResourceDesc(&mut got_rd, obj), 0);
        assert_eq!(got_rd.res_type, 3);
        assert_eq!(&got_rd.res[..5], &rd.res[..5]);
        assert_eq!(cuTexObjectDestroy(obj), 0);
        assert_eq!(
            cuTexObjectGetResourceDesc(&mut got_rd, obj),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            cuTexObjectGetTextureDesc(&mut got_td, obj),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(cuModuleUnload(m), 0);
    }
}
