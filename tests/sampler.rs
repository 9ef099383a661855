//! The independent texturing mode on both backends (`tests/kernels/sampler.ptx`,
//! hand-written: ptxas accepts it for sm_52 and sm_90; NVRTC emits no `.samplerref`):
//! module `.samplerref` variables with initializers, `.texref`/`.samplerref` kernel
//! parameters, `tex`/`tld4 [t, s, c]` and `txq` on samplers. Expected values come from
//! this file's implementation of the CUDA programming guide's fetch formulas with the
//! sampler's modes: normalised coordinates scaled by the extent; point sampling takes
//! texel `floor(x)`; linear filtering and `tld4` take `x - 0.5` in fixed point with 8
//! fractional bits; wrap/mirror only with normalised coordinates (clamp otherwise);
//! border texels read 0.

use ptxjit::runtime::texture::{
    AddressMode, ArrayDesc, ArrayFormat, CudaArray, Sampler, TexRefKind, TextureDesc,
};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/sampler.ptx");
const W: i64 = 6;
const H: i64 = 4;

fn texel(i: i64, j: i64) -> f32 {
    (i * i + 3 * j) as f32 * 0.5
}

/// A texel index after address mode `m` over `n` texels (`None`: the border).
fn addr(i: i64, n: i64, m: AddressMode, normalized: bool) -> Option<i64> {
    let m = match m {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::Clamp,
        m => m,
    };
    match m {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Border => (0..n).contains(&i).then_some(i),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let k = i.rem_euclid(2 * n);
            Some(if k >= n { 2 * n - 1 - k } else { k })
        }
    }
}

fn value(i: i64, j: i64, m: [AddressMode; 2], normalized: bool) -> f32 {
    match (addr(i, W, m[0], normalized), addr(j, H, m[1], normalized)) {
        (Some(i), Some(j)) => texel(i, j),
        _ => 0.0,
    }
}

/// `x - 0.5` in fixed point with 8 fractional bits: (integer part, fraction).
fn split(x: f64) -> (i64, f64) {
    let q = ((x - 0.5) * 256.0).round() as i64;
    (q.div_euclid(256), q.rem_euclid(256) as f64 / 256.0)
}

fn scale(x: f32, y: f32, normalized: bool) -> (f64, f64) {
    if normalized {
        (x as f64 * W as f64, y as f64 * H as f64)
    } else {
        (x as f64, y as f64)
    }
}

fn fetch_ref(x: f32, y: f32, m: [AddressMode; 2], linear: bool, normalized: bool) -> f32 {
    let (x, y) = scale(x, y, normalized);
    if !linear {
        return value(x.floor() as i64, y.floor() as i64, m, normalized);
    }
    let ((i, a), (j, b)) = (split(x), split(y));
    let v = |di, dj| value(i + di, j + dj, m, normalized) as f64;
    ((1.0 - a) * (1.0 - b) * v(0, 0)
        + a * (1.0 - b) * v(1, 0)
        + (1.0 - a) * b * v(0, 1)
        + a * b * v(1, 1)) as f32
}

/// `tld4.r`: texels (i, j+1), (i+1, j+1), (i+1, j), (i, j) of the bilinear footprint.
fn gather_ref(x: f32, y: f32, m: [AddressMode; 2], normalized: bool) -> [f32; 4] {
    let (x, y) = scale(x, y, normalized);
    let ((i, _), (j, _)) = (split(x), split(y));
    [(0, 1), (1, 1), (1, 0), (0, 0)].map(|(di, dj)| value(i + di, j + dj, m, normalized))
}

fn desc(mode: AddressMode, linear: bool, normalized: bool) -> TextureDesc {
    TextureDesc {
        address: [mode; 3],
        linear,
        normalized,
        read_as_integer: false,
        border: [0.0; 4],
    }
}

fn image(dev: &Device) -> CudaArray {
    let a = dev
        .create_array(ArrayDesc {
            width: W as usize,
            height: H as usize,
            depth: 0,
            format: ArrayFormat::F32,
            channels: 1,
            layered: false,
            surface: false,
            cubemap: false,
        })
        .expect("array");
    let data: Vec<u8> = (0..H)
        .flat_map(|j| (0..W).map(move |i| texel(i, j)))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    dev.write_array(&a, &data).expect("write");
    a
}

const XY: [(f32, f32); 10] = [
    (0.3, 0.6),
    (-0.2, 1.3),
    (1.7, -0.45),
    (2.5, 3.5),
    (0.0, 0.0),
    (5.9, 3.9),
    (-1.5, 0.1),
    (0.99, 0.01),
    (0.5, 0.5),
    (3.25, 2.75),
];

#[test]
fn samplers_choose_the_modes_on_both_backends() {
    use AddressMode::*;
    let dev = Device::new().expect("device");
    let a = image(&dev);
    let xs: Vec<f32> = XY.iter().flat_map(|&(x, y)| [x, y]).collect();
    let input = dev.alloc_from(&xs).expect("in");
    // `t`: unnormalised coordinates, clamp, point; `ps`: linear, clamp.
    let t = dev
        .create_texture_object(a.resource(), desc(Clamp, false, false))
        .expect("texture object");
    let ps = dev.create_sampler(Sampler {
        address: [Clamp; 3],
        linear: true,
        force_unnormalized: false,
    });
    let n = XY.len();
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "sampler.ptx", b == Backend::Jit)
            .expect("load");
        let img = m.tex_ref("img").expect("img");
        assert_eq!(
            m.tex_ref("s_wrap").expect("s_wrap").kind,
            TexRefKind::Sampler
        );
        // `img`: normalised coordinates, clamp, point (the samplers replace the modes).
        dev.bind_tex_ref(&img, a.resource(), desc(Clamp, false, true))
            .expect("bind");
        // The second run passes the texture object itself as the sampler.
        for (run, smp) in [ps, t].into_iter().enumerate() {
            let out = dev.alloc_zeroed(48 * n).expect("out");
            let args = [
                KernelArg::from(&input),
                (&out).into(),
                KernelArg::U64(t),
                KernelArg::U64(smp),
            ];
            dev.launch(
                &m,
                "fetch",
                &LaunchConfig::new(1, n as u32).backend(b),
                &args,
            )
            .expect("launch");
            let got = dev.read::<f32>(&out).expect("read");
            for (k, &(x, y)) in XY.iter().enumerate() {
                let g = gather_ref(x, y, [Wrap, Mirror], true);
                let want = [
                    fetch_ref(x, y, [Border, Border], true, true),
                    fetch_ref(x, y, [Wrap, Mirror], false, true),
                    // force_unnormalized_coords: the default modes (wrap, so clamp).
                    fetch_ref(x, y, [Wrap, Wrap], false, false),
                    // `t` with `ps` (linear, clamp), or with itself (point, clamp).
                    fetch_ref(x, y, [Clamp, Clamp], run == 0, false),
                    g[0],
                    g[1],
                    g[2],
                    g[3],
                    // s_default: wrap, nearest, the texture's normalised coordinates.
                    fetch_ref(x, y, [Wrap, Wrap], false, true),
                ];
                let got_bits: Vec<u32> = got[12 * k..12 * k + 9]
                    .iter()
                    .map(|f| f.to_bits())
                    .collect();
                let want_bits: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
                assert_eq!(got_bits, want_bits, "{b:?} run {run} at ({x}, {y})");
            }
        }
        // txq on samplers: clamp_to_border 4, mirror 1, linear 1, forced 1, `ps` linear
        // 1, wrap 0 (the ISA's encodings).
        let q = dev.alloc_zeroed(24).expect("q");
        dev.launch(
            &m,
            "query",
            &LaunchConfig::new(1, 1).backend(b),
            &[KernelArg::from(&q), KernelArg::U64(ps)],
        )
        .expect("query");
        assert_eq!(
            dev.read::<u32>(&q).expect("read"),
            [4, 1, 1, 1, 1, 0],
            "{b:?}"
        );
        // A sampler parameter that is no sampler: a located run-time error.
        let out = dev.alloc_zeroed(48 * n).expect("out");
        let args = [
            KernelArg::from(&input),
            (&out).into(),
            KernelArg::U64(t),
            KernelArg::U64(0x1234_5678),
        ];
        let e = dev
            .launch(&m, "fetch", &LaunchConfig::new(1, 1).backend(b), &args)
            .expect_err("bad sampler");
        assert!(e.to_string().contains("not a live sampler"), "{b:?}: {e}");
    }
}

#[test]
fn sampler_forms_that_do_not_load() {
    let dev = Device::new().expect("device");
    let head = ".version 7.0\n.target sm_52, texmode_independent\n.address_size 64\n";
    let cases = [
        // ptxas: module samplers need the independent mode.
        (
            SRC.replace(", texmode_independent", ""),
            "need '.target texmode_independent'",
        ),
        (
            format!("{head}.global .samplerref s = {{ addr_mode_0 = clamp_ogl }};\n"),
            "address mode 'clamp_ogl' is not supported yet",
        ),
        (
            format!("{head}.global .samplerref s = {{ width = 4 }};\n"),
            "'width' is not a '.samplerref' field",
        ),
        (
            format!("{head}.global .samplerref s = {{ filter_mode = cubic }};\n"),
            "'cubic' is not a filter mode",
        ),
        (
            format!("{head}.global .u32 v = {{ filter_mode = linear }};\n"),
            "a field initializer needs an opaque type",
        ),
        // Independent mode: tex names a sampler.
        (
            format!(
                "{head}.global .texref t;\n.entry k() {{\n .reg .f32 %f<5>;\n tex.1d.v4.f32.f32 {{%f1, %f2, %f3, %f4}}, [t, {{%f0}}];\n ret;\n}}\n"
            ),
            "needs '[texture, sampler, {coordinates}]' in independent texturing mode",
        ),
        // A texture where the sampler goes.
        (
            format!(
                "{head}.global .texref t;\n.entry k() {{\n .reg .f32 %f<5>;\n tex.1d.v4.f32.f32 {{%f1, %f2, %f3, %f4}}, [t, t, {{%f0}}];\n ret;\n}}\n"
            ),
            "needs a '.samplerref' here, not a '.texref'",
        ),
        (
            format!(
                "{head}.entry k(.param .samplerref s) {{\n .reg .f32 %f<5>;\n tex.1d.v4.f32.f32 {{%f1, %f2, %f3, %f4}}, [s, s, {{%f0}}];\n ret;\n}}\n"
            ),
            "needs a '.texref' here, not a '.samplerref'",
        ),
    ];
    for (src, want) in cases {
        let e = dev.load_ptx(&src, "sampler.ptx").expect_err(want);
        assert!(e.to_string().contains(want), "{want}: {e}");
        // Located: the clamp_ogl value is at line 4, column 41.
        if want.contains("clamp_ogl") {
            assert!(e.to_string().contains("sampler.ptx:4:41"), "{e}");
        }
    }
}
