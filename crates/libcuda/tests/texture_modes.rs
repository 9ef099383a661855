//! Address modes at the edges and mipmapped arrays through the driver API, in process,
//! on both backends (`PTXJIT_CUDA_BACKEND`), with `tests/kernels/tex_modes.ptx`
//! (hand-written; ptxas accepts it for sm_52 and sm_90). Expected values are worked out
//! by hand in the comments: float coordinates follow the CUDA programming guide's
//! texture-fetching appendix (point sampling reads texel `floor(x)`, clamp keeps it in
//! `[0, N-1]`, border gives the border colour); integer coordinates read 0 outside the
//! texture whatever the address mode, as an H100 does (`tests/golden`, see
//! `tests/texture_modes.rs`). Mipmapped arrays: `cuMipmappedArrayCreate`/`GetLevel`/
//! `Destroy`, level copies with `cuMemcpy2D`, texture objects over
//! `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY` and a texref with `cuTexRefSetMipmappedArray`;
//! `tex.level` and `tex.grad` pick levels by ptxjit's documented rule
//! (`src/exec/mipmap.rs`).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

fn ptx() -> CString {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/kernels/tex_modes.ptx"
    );
    CString::new(std::fs::read_to_string(p).unwrap()).unwrap()
}

unsafe fn setup() -> CUmodule {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
    let mut m = null_mut();
    let src = ptx();
    assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
    m
}

/// Runs `name` on the 8-word records `recs` (with texture object `tex` as the first
/// argument unless `None`): the red channel of each result.
unsafe fn run(m: CUmodule, name: &str, tex: Option<u64>, recs: &[[f32; 8]]) -> Vec<f32> {
    let n = recs.len();
    let input: Vec<f32> = recs.iter().flatten().copied().collect();
    let mut din = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut din, 32 * n), 0);
    assert_eq!(
        cuMemcpyHtoD_v2(din, input.as_ptr() as *const c_void, 32 * n),
        0
    );
    let mut dout = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut dout, 16 * n), 0);
    let mut f = null_mut();
    let cname = CString::new(name).unwrap();
    assert_eq!(cuModuleGetFunction(&mut f, m, cname.as_ptr()), 0);
    let mut vals: Vec<u64> = tex.into_iter().chain([din, dout]).collect();
    let mut ptrs: Vec<*mut c_void> = vals
        .iter_mut()
        .map(|v| v as *mut u64 as *mut c_void)
        .collect();
    let r = cuLaunchKernel(
        f,
        1,
        1,
        1,
        n as u32,
        1,
        1,
        0,
        null_mut(),
        ptrs.as_mut_ptr(),
        null_mut(),
    );
    assert_eq!(r, 0, "{name}");
    assert_eq!(cuCtxSynchronize(), 0, "{name}");
    let mut out = vec![0f32; 4 * n];
    assert_eq!(
        cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, dout, 16 * n),
        0
    );
    assert_eq!(cuMemFree_v2(din), 0);
    assert_eq!(cuMemFree_v2(dout), 0);
    out.chunks(4).map(|c| c[0]).collect()
}

/// A record from coordinates (integers pass as their bits).
fn rec(c: &[f32]) -> [f32; 8] {
    let mut r = [0f32; 8];
    r[..c.len()].copy_from_slice(c);
    r
}

fn irec(c: &[i32]) -> [f32; 8] {
    let mut r = [0f32; 8];
    for (k, v) in c.iter().enumerate() {
        r[k] = f32::from_bits(*v as u32);
    }
    r
}

/// Copies `w x h` f32 texels from the host into array `a` with `cuMemcpy2D`.
unsafe fn fill(a: *mut c_void, w: usize, h: usize, v: &[f32]) {
    let cp = CudaMemcpy2d {
        src_x_in_bytes: 0,
        src_y: 0,
        src_memory_type: 1,
        src_host: v.as_ptr() as *const c_void,
        src_device: 0,
        src_array: null_mut(),
        src_pitch: 4 * w,
        dst_x_in_bytes: 0,
        dst_y: 0,
        dst_memory_type: 3,
        dst_host: null_mut(),
        dst_device: 0,
        dst_array: a,
        dst_pitch: 0,
        width_in_bytes: 4 * w,
        height: h.max(1),
    };
    assert_eq!(cuMemcpy2D_v2(&cp), 0);
}

fn tex_desc(mode: u32, flags: u32, mip_filter: u32, max_clamp: f32) -> CudaTextureDesc {
    CudaTextureDesc {
        address_mode: [mode; 3],
        filter_mode: 0,
        flags,
        max_anisotropy: 4,
        mipmap_filter_mode: mip_filter,
        mipmap_level_bias: 0.0,
        min_mipmap_level_clamp: 0.0,
        max_mipmap_level_clamp: max_clamp,
        border_color: [0.25, 0.5, 0.75, 1.0],
        reserved: [0; 12],
    }
}

fn array_res(a: *mut c_void, ty: u32) -> CudaResourceDesc {
    let mut rd = CudaResourceDesc {
        res_type: ty,
        res: [0; 16],
        flags: 0,
    };
    rd.res[0] = a as u64;
    rd
}

/// Clamp and border at the edges of a 3 x 2 array (texel 10 j + i) through a texture
/// object and the module texref `rimg`.
unsafe fn edges(m: CUmodule) {
    let mut a = null_mut();
    let ad = CudaArrayDescriptor {
        width: 3,
        height: 2,
        format: 0x20,
        num_channels: 1,
    };
    assert_eq!(cuArrayCreate_v2(&mut a, &ad), 0);
    fill(a, 3, 2, &[0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    // CU_TR_ADDRESS_MODE_CLAMP = 1, BORDER = 3.
    let mut clamp = 0u64;
    let rd = array_res(a, 0);
    assert_eq!(
        cuTexObjectCreate(&mut clamp, &rd, &tex_desc(1, 0, 0, 0.0), null()),
        0
    );
    // (-3, 0.5) -> (0, 0) = 0; (5.5, 1.5) -> (2, 1) = 12; (1.5, -7) -> (1, 0) = 1.
    let pts = [rec(&[-3.0, 0.5]), rec(&[5.5, 1.5]), rec(&[1.5, -7.0])];
    assert_eq!(run(m, "obj2d_f", Some(clamp), &pts), [0.0, 12.0, 1.0]);
    // Integer: (1, 1) = 11; (-1, 0), (3, 1), (0, 2) outside: 0.
    let ipts = [irec(&[1, 1]), irec(&[-1, 0]), irec(&[3, 1]), irec(&[0, 2])];
    assert_eq!(run(m, "obj2d_i", Some(clamp), &ipts), [11.0, 0.0, 0.0, 0.0]);
    let mut border = 0u64;
    assert_eq!(
        cuTexObjectCreate(&mut border, &rd, &tex_desc(3, 0, 0, 0.0), null()),
        0
    );
    assert_eq!(run(m, "obj2d_f", Some(border), &pts), [0.25, 0.25, 0.25]);
    assert_eq!(
        run(m, "obj2d_i", Some(border), &ipts),
        [11.0, 0.0, 0.0, 0.0]
    );
    // The texref, clamp in both dimensions: the texture object's results.
    let mut r = null_mut();
    assert_eq!(cuModuleGetTexRef(&mut r, m, c"rimg".as_ptr()), 0);
    assert_eq!(cuTexRefSetArray(r, a, 0), 0);
    assert_eq!(cuTexRefSetAddressMode(r, 0, 1), 0);
    assert_eq!(cuTexRefSetAddressMode(r, 1, 1), 0);
    assert_eq!(run(m, "ref2d_f", None, &pts), [0.0, 12.0, 1.0]);
    assert_eq!(run(m, "ref2d_i", None, &ipts), [11.0, 0.0, 0.0, 0.0]);
    assert_eq!(cuTexObjectDestroy(clamp), 0);
    assert_eq!(cuTexObjectDestroy(border), 0);
}

/// Mipmapped 4 x 4 f32, 3 levels; texel (i, j) of level l = 1000 l + 10 j + i.
unsafe fn mipmaps(m: CUmodule) {
    let ad = CudaArray3dDescriptor {
        width: 4,
        height: 4,
        depth: 0,
        format: 0x20,
        num_channels: 1,
        flags: 0,
    };
    let mut mm = null_mut();
    assert_eq!(
        cuMipmappedArrayCreate(&mut mm, &ad, 4),
        CUDA_ERROR_INVALID_VALUE,
        "4 -> 2 -> 1: 3 levels at most"
    );
    assert_eq!(cuMipmappedArrayCreate(&mut mm, &ad, 3), 0);
    for l in 0..3u32 {
        let mut a = null_mut();
        assert_eq!(cuMipmappedArrayGetLevel(&mut a, mm, l), 0);
        // Level l is max(1, 4 >> l) square.
        let w = (4usize >> l).max(1);
        let v: Vec<f32> = (0..w * w)
            .map(|k| (1000 * l as usize + 10 * (k / w) + k % w) as f32)
            .collect();
        fill(a, w, w, &v);
    }
    let mut a = null_mut();
    assert_eq!(
        cuMipmappedArrayGetLevel(&mut a, mm, 3),
        CUDA_ERROR_INVALID_VALUE
    );
    // Normalised coordinates (flag 2), clamp, point between levels, clamps [0, 10].
    let rd = array_res(mm, 1);
    let mut t = 0u64;
    assert_eq!(
        cuTexObjectCreate(&mut t, &rd, &tex_desc(1, 2, 0, 10.0), null()),
        0
    );
    // At (0.3, 0.6): level 0 (1.2, 2.4) -> (1, 2) = 21; level 1 (0.6, 1.2) -> (0, 1) =
    // 1010; level 2 (0.3, 0.6) -> (0, 0) = 2000. tex.level lod 0, 1, 2, 0.75 (nearest:
    // ceil(1.25) - 1 = 1).
    let lv = |lod: f32| rec(&[0.3, 0.6, 0.0, 0.0, lod]);
    let got = run(
        m,
        "level2d",
        Some(t),
        &[lv(0.0), lv(1.0), lv(2.0), lv(0.75)],
    );
    assert_eq!(got, [21.0, 1010.0, 2000.0, 1010.0]);
    // tex.grad: dPdx (0.5, 0) -> 2 texels of level 0: lod 1: 1010; dPdy (0.15, 0.2) ->
    // (0.6, 0.8): rho 1, lod 0: 21; dPdx (1, 0) -> 4: lod 2: 2000.
    let gr = |dx: [f32; 2], dy: [f32; 2]| rec(&[0.3, 0.6, 0.0, 0.0, dx[0], dx[1], dy[0], dy[1]]);
    let grads = [
        gr([0.5, 0.0], [0.0, 0.0]),
        gr([0.0, 0.0], [0.15, 0.2]),
        gr([1.0, 0.0], [0.0, 0.0]),
    ];
    assert_eq!(run(m, "grad2d", Some(t), &grads), [1010.0, 21.0, 2000.0]);
    // Linear between levels: lod 0.25 -> 0.75 x 21 + 0.25 x 1010 = 15.75 + 252.5 = 268.25.
    let mut tl = 0u64;
    assert_eq!(
        cuTexObjectCreate(&mut tl, &rd, &tex_desc(1, 2, 1, 10.0), null()),
        0
    );
    assert_eq!(run(m, "level2d", Some(tl), &[lv(0.25)]), [268.25]);
    // The descriptors read back.
    let mut back = array_res(null_mut(), 9);
    assert_eq!(cuTexObjectGetResourceDesc(&mut back, tl), 0);
    assert_eq!((back.res_type, back.res[0]), (1, mm as u64));
    let mut td = tex_desc(0, 0, 0, 0.0);
    assert_eq!(cuTexObjectGetTextureDesc(&mut td, tl), 0);
    assert_eq!(
        (
            td.mipmap_filter_mode,
            td.max_mipmap_level_clamp,
            td.max_anisotropy
        ),
        (1, 10.0, 4)
    );
    // A texref over the mipmapped array: CUDA's default clamps [0, 0] read level 0 (21
    // for dPdx (0.5, 0)); after cuTexRefSetMipmapLevelClamp(0, 10): level 1, 1010.
    let mut r = null_mut();
    assert_eq!(cuModuleGetTexRef(&mut r, m, c"rimg".as_ptr()), 0);
    assert_eq!(cuTexRefSetMipmappedArray(r, mm, 0), 0);
    assert_eq!(cuTexRefSetFlags(r, 2), 0);
    assert_eq!(cuTexRefSetAddressMode(r, 0, 1), 0);
    assert_eq!(cuTexRefSetAddressMode(r, 1, 1), 0);
    assert_eq!(run(m, "grad2d_ref", None, &grads[..1]), [21.0]);
    assert_eq!(cuTexRefSetMipmapLevelClamp(r, 0.0, 10.0), 0);
    assert_eq!(run(m, "grad2d_ref", None, &grads[..1]), [1010.0]);
    // Bias -1: lod 1 - 1 = 0: 21.
    assert_eq!(cuTexRefSetMipmapLevelBias(r, -1.0), 0);
    assert_eq!(run(m, "grad2d_ref", None, &grads[..1]), [21.0]);
    assert_eq!(cuTexRefSetMipmapFilterMode(r, 1), 0);
    assert_eq!(cuTexRefSetMaxAnisotropy(r, 8), 0);
    let (mut got_mm, mut fm, mut bias, mut lo, mut hi, mut an) =
        (null_mut(), 9u32, 9f32, 9f32, 9f32, 0i32);
    assert_eq!(cuTexRefGetMipmappedArray(&mut got_mm, r), 0);
    assert_eq!(cuTexRefGetMipmapFilterMode(&mut fm, r), 0);
    assert_eq!(cuTexRefGetMipmapLevelBias(&mut bias, r), 0);
    assert_eq!(cuTexRefGetMipmapLevelClamp(&mut lo, &mut hi, r), 0);
    assert_eq!(cuTexRefGetMaxAnisotropy(&mut an, r), 0);
    assert_eq!((got_mm, fm, bias, lo, hi, an), (mm, 1, -1.0, 0.0, 10.0, 8));
    assert_eq!(cuTexObjectDestroy(t), 0);
    assert_eq!(cuTexObjectDestroy(tl), 0);
    assert_eq!(cuMipmappedArrayDestroy(mm), 0);
    assert_eq!(cuMipmappedArrayDestroy(mm), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(cuModuleUnload(m), 0);
}

#[test]
fn edges_and_mipmaps_through_the_driver_api_on_both_backends() {
    unsafe {
        for backend in ["jit", "interp"] {
            std::env::set_var("PTXJIT_CUDA_BACKEND", backend);
            let m = setup();
            edges(m);
            let m = setup();
            mipmaps(m);
        }
        std::env::remove_var("PTXJIT_CUDA_BACKEND");
    }
}
