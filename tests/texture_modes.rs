//! Address modes at and beyond the edges, with float and integer coordinates, on 1D,
//! 2D, 3D and layered CUDA arrays, through texture objects and a module `.texref`, on
//! both backends (`tests/kernels/tex_modes.ptx`). Expected values are worked out by hand
//! (comments) from the CUDA programming guide's texture-fetching appendix for float
//! coordinates: point sampling reads texel `floor(x)` (normalised: `floor(x N)`), clamp
//! takes it into `[0, N-1]`, border gives the border colour outside; wrap and mirror
//! are supported with normalised coordinates only (the guide's address-mode section),
//! and with unnormalised ones ptxjit clamps (`exec::texture`'s rule; no H100 recording
//! covers that combination).
//!
//! Integer (`.s32`) coordinates have no address modes. The guide does not cover them
//! (CUDA C++ reaches them only through `tex1Dfetch`); the oracle is the H100 recording of
//! `tests/golden` (`future_tex.ptx`, cases `tex_2d_f32x1_point_clamp_n0_elem_s32`,
//! `tex_3d_f32x2_point_clamp_n0_elem_s32`, `tex_1d_f16x2_point_clamp_n0_elem_s32`): with
//! address mode clamp, all 351 (2D) and 370 (3D) out-of-range lanes read 0, not the edge
//! texel, and a 1D CUDA array reads 0 at every integer coordinate; a 1D linear buffer
//! (`tex1Dfetch`) reads its texels inside and 0 outside. These tests pin that.
//!
//! `tex.grad` on mipmapped textures: the level of detail is OpenGL's (`src/exec/mipmap.rs`
//! gives the rule and its source): `log2(max(|dP/dx|, |dP/dy|))` with the gradients in
//! level-0 texels, then ptxjit's level selection (point: nearest level, `ceil(lod +
//! 1/2) - 1`; linear: blend `floor(lod)` and the next with weight `frac(lod)`).

use ptxjit::runtime::mipmap::MipmapDesc;
use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TexResource, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig, Module};

const SRC: &str = include_str!("kernels/tex_modes.ptx");

fn desc(mode: AddressMode, linear: bool, normalized: bool) -> TextureDesc {
    TextureDesc {
        address: [mode; 3],
        linear,
        normalized,
        read_as_integer: false,
        border: [0.25, 0.5, 0.75, 1.0],
    }
}

/// A one-channel f32 CUDA array of `w x h x d` texels (`d` layers with `layered`),
/// texel (i, j, k) = `100 k + 10 j + i`.
fn array(dev: &Device, w: usize, h: usize, d: usize, layered: bool) -> TexResource {
    let a = dev
        .create_array(ArrayDesc {
            width: w,
            height: h,
            depth: d,
            format: ArrayFormat::F32,
            channels: 1,
            layered,
            surface: false,
            cubemap: false,
        })
        .expect("array");
    let mut bytes = vec![];
    for k in 0..d.max(1) {
        for j in 0..h.max(1) {
            for i in 0..w {
                bytes.extend_from_slice(&((100 * k + 10 * j + i) as f32).to_le_bytes());
            }
        }
    }
    dev.write_array(&a, &bytes).expect("write");
    a.resource()
}

/// A record of the kernel's 8 input words from f32 coordinates.
fn f(c: &[f32]) -> [u32; 8] {
    let mut r = [0u32; 8];
    for (k, v) in c.iter().enumerate() {
        r[k] = v.to_bits();
    }
    r
}

/// A record from integer coordinates (and layer indices).
fn i(c: &[i32]) -> [u32; 8] {
    let mut r = [0u32; 8];
    for (k, v) in c.iter().enumerate() {
        r[k] = *v as u32;
    }
    r
}

/// Runs `kernel` (a texture-object kernel, or a texref kernel with `tex` `None`) on
/// `recs` on both backends: the 4 result words of each record, or each backend's error.
fn try_run(
    dev: &Device,
    ms: &[Module; 2],
    kernel: &str,
    tex: Option<u64>,
    recs: &[[u32; 8]],
) -> [Result<Vec<u32>, String>; 2] {
    let input: Vec<u32> = recs.iter().flatten().copied().collect();
    let one = |m: &Module, b: Backend| -> Result<Vec<u32>, String> {
        let inp = dev.alloc_from(&input).expect("in");
        let out = dev.alloc_zeroed(16 * recs.len()).expect("out");
        let mut args: Vec<KernelArg> = tex.map(KernelArg::from).into_iter().collect();
        args.push((&inp).into());
        args.push((&out).into());
        let cfg = LaunchConfig::new(1, recs.len() as u32).backend(b);
        dev.launch(m, kernel, &cfg, &args)
            .map_err(|e| e.to_string())?;
        Ok(dev.read::<u32>(&out).expect("read"))
    };
    [one(&ms[0], Backend::Interp), one(&ms[1], Backend::Jit)]
}

/// As [`try_run`]; checks that both backends succeed and agree on every result bit,
/// and returns the red channels.
fn run(
    dev: &Device,
    ms: &[Module; 2],
    kernel: &str,
    tex: Option<u64>,
    recs: &[[u32; 8]],
) -> Vec<f32> {
    let [a, b] = try_run(dev, ms, kernel, tex, recs);
    let a = a.unwrap_or_else(|e| panic!("{kernel} (interpreter): {e}"));
    let b = b.unwrap_or_else(|e| panic!("{kernel} (JIT): {e}"));
    assert_eq!(a, b, "{kernel}: interpreter and JIT differ");
    a.chunks(4).map(|c| f32::from_bits(c[0])).collect()
}

fn modules(dev: &Device) -> [Module; 2] {
    [
        dev.load_ptx_with(SRC, "tex_modes.ptx", false)
            .expect("load"),
        dev.load_ptx_with(SRC, "tex_modes.ptx", true)
            .expect("load jit"),
    ]
}

#[test]
fn two_d_clamp_border_wrap_mirror_with_float_and_integer_coordinates() {
    let dev = Device::new().expect("device");
    let ms = modules(&dev);
    // 3 x 2 texels: row 0 = 0 1 2, row 1 = 10 11 12.
    let res = array(&dev, 3, 2, 0, false);
    let clamp = dev
        .create_texture_object(res, desc(AddressMode::Clamp, false, false))
        .expect("tex");
    let pts = [
        f(&[-3.0, 0.5]),  // x floor -3 -> 0, y 0: texel (0, 0) = 0
        f(&[5.5, 1.5]),   // x 5 -> 2, y 1: 12
        f(&[1.5, -7.0]),  // x 1, y -7 -> 0: 1
        f(&[2.99, 9.0]),  // x 2, y 9 -> 1: 12
        f(&[-0.01, 1.0]), // x floor(-0.01) = -1 -> 0, y 1: 10
    ];
    assert_eq!(
        run(&dev, &ms, "obj2d_f", Some(clamp), &pts),
        [0.0, 12.0, 1.0, 12.0, 10.0]
    );
    // Integer coordinates: inside the texel, outside 0 whatever the address mode (H100).
    let ipts = [
        i(&[1, 1]),
        i(&[2, 0]),
        i(&[-1, 0]),
        i(&[3, 1]),
        i(&[0, 2]),
        i(&[0, -5]),
    ];
    let want_i = [11.0, 2.0, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(run(&dev, &ms, "obj2d_i", Some(clamp), &ipts), want_i);
    // Border: the border colour's red (0.25) outside, the texel inside.
    let border = dev
        .create_texture_object(res, desc(AddressMode::Border, false, false))
        .expect("tex");
    assert_eq!(
        run(&dev, &ms, "obj2d_f", Some(border), &pts),
        [0.25, 0.25, 0.25, 0.25, 0.25]
    );
    assert_eq!(run(&dev, &ms, "obj2d_i", Some(border), &ipts), want_i);
    // Wrap and mirror with unnormalised coordinates clamp: the clamp results.
    for mode in [AddressMode::Wrap, AddressMode::Mirror] {
        let t = dev
            .create_texture_object(res, desc(mode, false, false))
            .expect("tex");
        assert_eq!(
            run(&dev, &ms, "obj2d_f", Some(t), &pts),
            [0.0, 12.0, 1.0, 12.0, 10.0]
        );
        assert_eq!(run(&dev, &ms, "obj2d_i", Some(t), &ipts), want_i);
    }
    // Normalised wrap: x -0.25 * 3 = -0.75 -> -1 -> wrap 2; y 0.25 * 2 = 0.5 -> 0:
    // texel 2. x 1.5 * 3 = 4.5 -> 4 -> 1; y 1.75 * 2 = 3.5 -> 3 -> 1: 11.
    let wrap = dev
        .create_texture_object(res, desc(AddressMode::Wrap, false, true))
        .expect("tex");
    let npts = [f(&[-0.25, 0.25]), f(&[1.5, 1.75])];
    assert_eq!(run(&dev, &ms, "obj2d_f", Some(wrap), &npts), [2.0, 11.0]);
    // Normalised mirror: x -0.75 -> -1 -> mirrored 0 (period 6: 5 -> 6 - 1 - 5 = 0);
    // y 0.5 -> 0: 0. x 4.5 -> 4 -> 6 - 1 - 4 = 1; y 3.5 -> 3 -> 4 - 1 - 3 = 0: 1.
    let mirror = dev
        .create_texture_object(res, desc(AddressMode::Mirror, false, true))
        .expect("tex");
    assert_eq!(run(&dev, &ms, "obj2d_f", Some(mirror), &npts), [0.0, 1.0]);
    // Linear filtering, clamp: x 0.5, y 1.75: y - 0.5 = 1.25 -> rows 1 and 2 -> 1 (both
    // row 1): 10. x -1.0: x - 0.5 = -1.5 -> texels -2, -1 -> 0 and 0, y 0.5: 0.
    // x 2.75, y 0.5: 2.25 -> texels 2 and 3 -> 2: 2.
    let lin = dev
        .create_texture_object(res, desc(AddressMode::Clamp, true, false))
        .expect("tex");
    let lpts = [f(&[0.5, 1.75]), f(&[-1.0, 0.5]), f(&[2.75, 0.5])];
    assert_eq!(
        run(&dev, &ms, "obj2d_f", Some(lin), &lpts),
        [10.0, 0.0, 2.0]
    );
    // Linear, border: x 0.5, y 1.75: 0.75 x texel (0, 1) + 0.25 x border = 7.5 + 0.0625
    // = 7.5625.
    let linb = dev
        .create_texture_object(res, desc(AddressMode::Border, true, false))
        .expect("tex");
    assert_eq!(run(&dev, &ms, "obj2d_f", Some(linb), &lpts[..1]), [7.5625]);
}

#[test]
fn one_d_three_d_and_layered_edges() {
    let dev = Device::new().expect("device");
    let ms = modules(&dev);
    // 1D array 0 1 2 3.
    let a1 = array(&dev, 4, 0, 0, false);
    let t1 = dev
        .create_texture_object(a1, desc(AddressMode::Clamp, false, false))
        .expect("tex");
    // x -2 -> 0: 0; 7 -> 3: 3; 2.5 -> 2: 2.
    assert_eq!(
        run(
            &dev,
            &ms,
            "obj1d_f",
            Some(t1),
            &[f(&[-2.0]), f(&[7.0]), f(&[2.5])]
        ),
        [0.0, 3.0, 2.0]
    );
    // Integer coordinates on a 1D CUDA array: 0 everywhere (H100).
    assert_eq!(
        run(
            &dev,
            &ms,
            "obj1d_i",
            Some(t1),
            &[i(&[1]), i(&[-1]), i(&[9])]
        ),
        [0.0, 0.0, 0.0]
    );
    // A 1D linear buffer (tex1Dfetch) of 5 f32: 3 -> 3.0, -1 and 5 -> 0.
    let buf = dev.alloc_from(&[0f32, 1.0, 2.0, 3.0, 4.0]).expect("buf");
    let lres = TexResource {
        base: buf.ptr(),
        format: ArrayFormat::F32,
        channels: 1,
        width: 5,
        height: 0,
        depth: 0,
        layered: false,
        linear: true,
        pitch: 0,
    };
    let tl = dev
        .create_texture_object(lres, desc(AddressMode::Clamp, false, false))
        .expect("tex");
    assert_eq!(
        run(
            &dev,
            &ms,
            "obj1d_i",
            Some(tl),
            &[i(&[3]), i(&[-1]), i(&[5])]
        ),
        [3.0, 0.0, 0.0]
    );
    // 3D 2 x 2 x 2: texel (i, j, k) = 100 k + 10 j + i.
    let a3 = array(&dev, 2, 2, 2, false);
    let t3 = dev
        .create_texture_object(a3, desc(AddressMode::Clamp, false, false))
        .expect("tex");
    // (-1, 0.5, 5) -> (0, 0, 1): 100; (2.5, 2.5, -0.5) -> (1, 1, 0): 11.
    assert_eq!(
        run(
            &dev,
            &ms,
            "obj3d_f",
            Some(t3),
            &[f(&[-1.0, 0.5, 5.0]), f(&[2.5, 2.5, -0.5])]
        ),
        [100.0, 11.0]
    );
    // Integer: (1, 1, 1) -> 111; (2, 0, 0) and (0, 0, -1) outside -> 0.
    assert_eq!(
        run(
            &dev,
            &ms,
            "obj3d_i",
            Some(t3),
            &[i(&[1, 1, 1]), i(&[2, 0, 0]), i(&[0, 0, -1])]
        ),
        [111.0, 0.0, 0.0]
    );
    // Layered 2D, 2 layers of 2 x 2 (texel = 100 layer + 10 j + i). The layer index is
    // unsigned and clamps to the last layer for float coordinates: layer 5, (-1, -1)
    // -> layer 1, (0, 0): 100; layer 0, (3, 0.5) -> (1, 0): 1.
    let a2 = array(&dev, 2, 2, 2, true);
    let ta = dev
        .create_texture_object(a2, desc(AddressMode::Clamp, false, false))
        .expect("tex");
    let lay = |l: i32, x: f32, y: f32| {
        let mut r = f(&[0.0, x, y]);
        r[0] = l as u32;
        r
    };
    assert_eq!(
        run(
            &dev,
            &ms,
            "obja2d_f",
            Some(ta),
            &[lay(5, -1.0, -1.0), lay(0, 3.0, 0.5)]
        ),
        [100.0, 1.0]
    );
    // Integer: layer 1, (1, 0) -> 101; layer 2 (past the last), (0, 0) -> 0 (H100's
    // `tex_a2d_f32x1_point_border_n0_elem_s32`); layer 0, (0, 2) -> 0.
    assert_eq!(
        run(
            &dev,
            &ms,
            "obja2d_i",
            Some(ta),
            &[i(&[1, 1, 0]), i(&[2, 0, 0]), i(&[0, 0, 2])]
        ),
        [101.0, 0.0, 0.0]
    );
}

#[test]
fn texref_edges_match_texture_objects() {
    let dev = Device::new().expect("device");
    let ms = modules(&dev);
    let res = array(&dev, 3, 2, 0, false);
    for m in &ms {
        let r = m.tex_ref("rimg").expect("rimg");
        dev.bind_tex_ref(&r, res, desc(AddressMode::Clamp, false, false))
            .expect("bind");
    }
    // As `obj2d_f`/`obj2d_i` with clamp: (-3, 0.5) -> 0; (5.5, 1.5) -> 12; integer
    // (1, 1) -> 11, (-1, 0) -> 0.
    assert_eq!(
        run(
            &dev,
            &ms,
            "ref2d_f",
            None,
            &[f(&[-3.0, 0.5]), f(&[5.5, 1.5])]
        ),
        [0.0, 12.0]
    );
    assert_eq!(
        run(&dev, &ms, "ref2d_i", None, &[i(&[1, 1]), i(&[-1, 0])]),
        [11.0, 0.0]
    );
}

/// A one-channel f32 mipmapped array of `levels` levels over level 0 `w x h x d`
/// (0 for a missing dimension); texel (i, j, k) of level `l` = `1000 l + 100 k + 10 j +
/// i`.
fn mip_array(
    dev: &Device,
    w: usize,
    h: usize,
    d: usize,
    levels: u32,
    cubemap: bool,
) -> ptxjit::runtime::mipmap::MipmappedArray {
    let desc = ArrayDesc {
        width: w,
        height: h,
        depth: d,
        format: ArrayFormat::F32,
        channels: 1,
        layered: false,
        surface: false,
        cubemap,
    };
    let m = dev.create_mipmapped_array(desc, levels).expect("mipmapped");
    for (l, a) in m.levels.iter().enumerate() {
        let ad = a.desc;
        let mut bytes = vec![];
        for k in 0..ad.depth.max(1) {
            for j in 0..ad.height.max(1) {
                for i in 0..ad.width {
                    let v = (1000 * l + 100 * k + 10 * j + i) as f32;
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        dev.write_array(a, &bytes).expect("write level");
    }
    m
}

fn mip(linear: bool) -> MipmapDesc {
    MipmapDesc {
        linear,
        bias: 0.0,
        min_clamp: 0.0,
        max_clamp: 16.0,
    }
}

#[test]
fn tex_grad_picks_levels_from_the_gradients() {
    let dev = Device::new().expect("device");
    let ms = modules(&dev);
    let norm = desc(AddressMode::Clamp, false, true);
    // 2D, level 0 8 x 4, level 1 4 x 2, level 2 2 x 1. At normalised (0.3, 0.6): level 0
    // (2.4, 2.4) -> (2, 2) = 22; level 1 (1.2, 1.2) -> (1, 1) = 1011; level 2 (0.6,
    // 0.6) -> (0, 0) = 2000.
    let m2 = mip_array(&dev, 8, 4, 0, 3, false);
    let point = dev
        .create_mipmapped_texture_object(&m2, norm, mip(false))
        .expect("tex");
    let g = |dx: [f32; 2], dy: [f32; 2]| f(&[0.3, 0.6, 0.0, 0.0, dx[0], dx[1], dy[0], dy[1]]);
    let recs = [
        // dPdx (0.125, 0) -> (1, 0) texels, dPdy (0, 0.25) -> (0, 1): rho 1, lod 0: 22.
        g([0.125, 0.0], [0.0, 0.25]),
        // dPdx (0.25, 0) -> (2, 0): rho max(2, 1) = 2, lod 1: 1011.
        g([0.25, 0.0], [0.0, 0.25]),
        // dPdy (0.3, 0.8) -> (2.4, 3.2): |.| = 4, lod 2: 2000.
        g([0.0, 0.0], [0.3, 0.8]),
        // Negative gradients count by length: dPdx (-0.25, 0): lod 1: 1011.
        g([-0.25, 0.0], [0.0, 0.0]),
        // Zero gradients: log2(0) = -inf, clamped to level 0: 22.
        g([0.0, 0.0], [0.0, 0.0]),
        // Huge ones clamp to the last level: dPdx (100, 0): lod 9.6 -> 2: 2000.
        g([100.0, 0.0], [0.0, 0.0]),
    ];
    assert_eq!(
        run(&dev, &ms, "grad2d", Some(point), &recs),
        [22.0, 1011.0, 2000.0, 1011.0, 22.0, 2000.0]
    );
    // Linear between levels: dPdx (sqrt(2)/4, 0) -> 8 x 0.35355338 = 2.828427 texels,
    // lod = log2 = 1.5 (to 2^-8): (1011 + 2000) / 2 = 1505.5.
    let lin = dev
        .create_mipmapped_texture_object(&m2, norm, mip(true))
        .expect("tex");
    let h = std::f32::consts::SQRT_2 / 4.0;
    assert_eq!(
        run(&dev, &ms, "grad2d", Some(lin), &[g([h, 0.0], [0.0, 0.0])]),
        [1505.5]
    );
    // Unnormalised coordinates: gradients are in texels already; dPdx (2, 0): lod 1;
    // (1.5, 0.5) in level 1's texels -> (1, 0) = 1000 + 1 = 1001.
    let texels = dev
        .create_mipmapped_texture_object(&m2, desc(AddressMode::Clamp, false, false), mip(false))
        .expect("tex");
    let r = f(&[1.5, 0.5, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
    assert_eq!(run(&dev, &ms, "grad2d", Some(texels), &[r]), [1001.0]);
    // 1D, 8 -> 4 -> 2 -> 1 wide, texel 1000 l + i. At x 0.3: level 0 2.4 -> 2; level 2
    // 0.6 -> 0 = 2000. dPdx 0.5 -> 4 texels, dPdy 0.25 -> 2: rho 4, lod 2: 2000;
    // dPdx -0.125 -> 1: lod 0: 2.
    let m1 = mip_array(&dev, 8, 0, 0, 4, false);
    let t1 = dev
        .create_mipmapped_texture_object(&m1, norm, mip(false))
        .expect("tex");
    let recs = [
        f(&[0.3, 0.0, 0.0, 0.0, 0.5, 0.0, 0.25, 0.0]),
        f(&[0.3, 0.0, 0.0, 0.0, -0.125, 0.0, 0.0, 0.0]),
    ];
    assert_eq!(run(&dev, &ms, "grad1d", Some(t1), &recs), [2000.0, 2.0]);
    // 3D 4 x 4 x 4 -> 2 -> 1. At (0.3, 0.6, 0.9): level 0 (1.2, 2.4, 3.6) -> (1, 2, 3) =
    // 321; level 1 (0.6, 1.2, 1.8) -> (0, 1, 1) = 1110; level 2: 2000. The kernel's z
    // gradients are word 3 (both dPdx.z and dPdy.z). (0.25, 0.25, 0.25) -> (1, 1, 1):
    // rho sqrt(3), lod 0.79 -> ceil(1.29) - 1 = 1: 1110. (0, 0, 1) -> 4: lod 2: 2000.
    // (0, 0, 0.125) -> 0.5: lod -1 -> 0: 321.
    let m3 = mip_array(&dev, 4, 4, 4, 3, false);
    let t3 = dev
        .create_mipmapped_texture_object(&m3, norm, mip(false))
        .expect("tex");
    let recs = [
        f(&[0.3, 0.6, 0.9, 0.25, 0.25, 0.25, 0.0, 0.0]),
        f(&[0.3, 0.6, 0.9, 1.0, 0.0, 0.0, 0.0, 0.0]),
        f(&[0.3, 0.6, 0.9, 0.125, 0.0, 0.0, 0.0, 0.0]),
    ];
    assert_eq!(
        run(&dev, &ms, "grad3d", Some(t3), &recs),
        [1110.0, 2000.0, 321.0]
    );
    // A texture without mipmaps has level 0 alone: the gradients do not matter.
    // 3 x 2 array (texel 10 j + i), unnormalised (1.5, 1.5) -> (1, 1) = 11.
    let flat = dev
        .create_texture_object(
            array(&dev, 3, 2, 0, false),
            desc(AddressMode::Clamp, false, false),
        )
        .expect("tex");
    let r = f(&[1.5, 1.5, 0.0, 0.0, 64.0, 0.0, 0.0, 64.0]);
    assert_eq!(run(&dev, &ms, "grad2d", Some(flat), &[r]), [11.0]);
    // A mipmapped cubemap: a located run-time error on both backends.
    let mc = mip_array(&dev, 2, 2, 6, 2, true);
    let tc = dev
        .create_mipmapped_texture_object(&mc, norm, mip(false))
        .expect("tex");
    for e in try_run(&dev, &ms, "gradcube", Some(tc), &[f(&[1.0, 0.0, 0.0, 0.5])]) {
        let e = e.expect_err("cube grad");
        assert!(e.contains("tex.grad on a mipmapped cubemap"), "{e}");
        assert!(e.contains("tex_modes.ptx:"), "{e}");
    }
}

#[test]
fn tex_grad_3d_with_sampler_and_offsets_on_both_backends() {
    // The largest texture instruction (2304 bytes of sources in the JIT's scratch
    // area): tex.grad.3d, independent mode, offsets (1, 0, -1).
    let dev = Device::new().expect("device");
    let src = include_str!("kernels/tex_grad_independent.ptx");
    let m3 = mip_array(&dev, 4, 4, 4, 3, false);
    let t = dev
        .create_mipmapped_texture_object(&m3, desc(AddressMode::Clamp, false, true), mip(false))
        .expect("tex");
    // Gradients (0, 0, dz), level 0 4 x 4 x 4. dz 0.125 -> 0.5 texels: lod -1 -> level
    // 0; (0.3, 0.6, 0.9) -> (1.2, 2.4, 3.6) + (1, 0, -1) = (2.2, 2.4, 2.6) -> (2, 2, 2)
    // = 222. dz 0.5 -> 2: lod 1, level 1 (2 x 2 x 2): (0.6, 1.2, 1.8) + (1, 0, -1) ->
    // (1, 1, 0) = 1000 + 10 + 1 = 1011. dz 1 -> 4: lod 2, level 2 (1 x 1 x 1): clamps to
    // (0, 0, 0) = 2000.
    let input: Vec<f32> = [0.125f32, 0.5, 1.0]
        .iter()
        .flat_map(|dz| [0.3, 0.6, 0.9, *dz])
        .collect();
    let mut outs = vec![];
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(src, "tex_grad_independent.ptx", b == Backend::Jit)
            .expect("load");
        let inp = dev.alloc_from(&input).expect("in");
        let out = dev.alloc_zeroed(16 * 3).expect("out");
        let cfg = LaunchConfig::new(1, 3).backend(b);
        let args = [KernelArg::from(t), (&inp).into(), (&out).into()];
        dev.launch(&m, "grad3d_offset", &cfg, &args)
            .unwrap_or_else(|e| panic!("{b:?}: {e}"));
        outs.push(dev.read::<u32>(&out).expect("read"));
    }
    assert_eq!(outs[0], outs[1], "interpreter and JIT differ");
    let red: Vec<f32> = outs[0].chunks(4).map(|c| f32::from_bits(c[0])).collect();
    assert_eq!(red, [222.0, 1011.0, 2000.0]);
}
