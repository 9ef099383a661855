//! Module texture and surface references through the Rust API on both backends
//! (`tests/kernels/texref.ptx`, hand-written because CUDA 12/13's headers no longer
//! declare `texture<T, N>` references: NVRTC 12.9 answers "texture is not a template";
//! ptxas accepts the file for sm_52 and sm_90). `Module::tex_ref` finds a `.texref` or
//! `.surfref`; `Device::bind_tex_ref` / `bind_surf_ref` bind it (what `cuTexRefSet*` and
//! `cuSurfRefSetArray` do). Expected values come from this file's implementation of the
//! CUDA programming guide's fetch formulas (linear: `x - 0.5` in fixed point with 8
//! fractional bits; clamp addressing; normalised coordinates scaled by the extent).

use ptxjit::runtime::texture::{
    AddressMode, ArrayDesc, ArrayFormat, TexRefKind, TexResource, TextureDesc,
};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/texref.ptx");
const W: usize = 6;
const H: usize = 4;

fn texel(i: i64, j: i64) -> f32 {
    let (i, j) = (i.clamp(0, W as i64 - 1), j.clamp(0, H as i64 - 1));
    (i * i + 3 * j) as f32 * 0.5
}

fn split(x: f32) -> (i64, f64) {
    let q = ((x as f64 - 0.5) * 256.0).round() as i64;
    (q.div_euclid(256), q.rem_euclid(256) as f64 / 256.0)
}

fn linear_ref(x: f32, y: f32) -> f32 {
    let ((i, a), (j, b)) = (split(x), split(y));
    ((1.0 - a) * (1.0 - b) * texel(i, j) as f64
        + a * (1.0 - b) * texel(i + 1, j) as f64
        + (1.0 - a) * b * texel(i, j + 1) as f64
        + a * b * texel(i + 1, j + 1) as f64) as f32
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

fn array(
    dev: &Device,
    w: usize,
    h: usize,
    format: ArrayFormat,
    surface: bool,
) -> ptxjit::runtime::texture::CudaArray {
    dev.create_array(ArrayDesc {
        width: w,
        height: h,
        depth: 0,
        format,
        channels: 1,
        layered: false,
        surface,
        cubemap: false,
    })
    .expect("array")
}

#[test]
fn texture_and_surface_references_on_both_backends() {
    let dev = Device::new().expect("device");
    let a = array(&dev, W, H, ArrayFormat::F32, false);
    let data: Vec<u8> = (0..H as i64)
        .flat_map(|j| (0..W as i64).map(move |i| texel(i, j)))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    dev.write_array(&a, &data).expect("write");
    let s = array(&dev, 5, 3, ArrayFormat::U32, true);
    let vals: Vec<u8> = (0..15u32).flat_map(|v| (7 * v).to_le_bytes()).collect();
    dev.write_array(&s, &vals).expect("write");
    let line: Vec<f32> = (0..8).map(|k| k as f32 + 0.25).collect();
    let line_buf = dev.alloc_from(&line).expect("line");
    let xs: Vec<f32> = vec![
        0.5,
        0.5,
        1.25,
        2.0,
        5.9,
        3.6,
        -1.0,
        0.2,
        3.0 + 1.0 / 1024.0,
        1.75,
        2.5,
        4.5,
    ];
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "texref.ptx", b == Backend::Jit)
            .expect("load");
        let img = m.tex_ref("img").expect("img");
        assert_eq!(img.kind, TexRefKind::Texture);
        let acc = m.tex_ref("acc").expect("acc");
        assert_eq!(acc.kind, TexRefKind::Surface);
        assert!(m.tex_ref("nothing").is_none());
        // Not bound yet: a located run-time error.
        let input = dev.alloc_from(&xs).expect("in");
        let out = dev.alloc_zeroed(32 * xs.len() / 2).expect("out");
        let args = [KernelArg::from(&input), (&out).into()];
        let e = dev
            .launch(&m, "fetch2d", &LaunchConfig::new(1, 1).backend(b), &args)
            .expect_err("unbound texref");
        assert!(e.to_string().contains("not bound"), "{b:?}: {e}");
        // Bound to the array: linear filtering, clamp, unnormalised coordinates.
        dev.bind_tex_ref(&img, a.resource(), desc(AddressMode::Clamp, true, false))
            .expect("bind");
        let n = xs.len() / 2;
        dev.launch(
            &m,
            "fetch2d",
            &LaunchConfig::new(1, n as u32).backend(b),
            &args,
        )
        .expect("launch");
        let got = dev.read::<f32>(&out).expect("read");
        for k in 0..n {
            let v = linear_ref(xs[2 * k], xs[2 * k + 1]);
            let want = [v, 0.0, 0.0, 0.0, v, 0.0, 0.0, 0.0];
            let got_bits: Vec<u32> = got[8 * k..8 * k + 8].iter().map(|f| f.to_bits()).collect();
            let want_bits: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(
                got_bits,
                want_bits,
                "{b:?} lane {k} at {:?}",
                &xs[2 * k..2 * k + 2]
            );
        }
        // Rebinding replaces the sampler state: point sampling now.
        dev.bind_tex_ref(&img, a.resource(), desc(AddressMode::Clamp, false, false))
            .expect("rebind");
        dev.launch(
            &m,
            "fetch2d",
            &LaunchConfig::new(1, n as u32).backend(b),
            &args,
        )
        .expect("launch");
        let got = dev.read::<f32>(&out).expect("read");
        for k in 0..n {
            let (x, y) = (xs[2 * k].floor() as i64, xs[2 * k + 1].floor() as i64);
            assert_eq!(got[8 * k], texel(x, y), "{b:?} point lane {k}");
            assert_eq!(got[8 * k + 4], texel(x, y), "{b:?} point lane {k}");
        }
        // `line`: linear memory (8 f32), point sampling, normalised coordinates, clamp:
        // texel floor(8 x) clamped to 0..7.
        let lin = linear_res(&line_buf, 8);
        let line_ref = m.tex_ref("line").expect("line");
        dev.bind_tex_ref(&line_ref, lin, desc(AddressMode::Clamp, false, true))
            .expect("bind line");
        let out1 = dev.alloc_zeroed(16 * xs.len()).expect("out");
        dev.launch(
            &m,
            "fetch1d",
            &LaunchConfig::new(1, xs.len() as u32).backend(b),
            &[KernelArg::from(&input), (&out1).into()],
        )
        .expect("launch");
        let got = dev.read::<f32>(&out1).expect("read");
        for (k, x) in xs.iter().enumerate() {
            let t = ((*x as f64 * 8.0).floor() as i64).clamp(0, 7);
            assert_eq!(
                &got[4 * k..4 * k + 4],
                &[line[t as usize], 0.0, 0.0, 0.0],
                "{b:?} 1d {x}"
            );
        }
        // Surface reference: each texel + 1; txq/suq through the references.
        dev.bind_surf_ref(&acc, &s).expect("bind surface");
        dev.launch(
            &m,
            "add_surf",
            &LaunchConfig::new(1, (5, 3, 1)).backend(b),
            &[],
        )
        .expect("launch");
        let sizes = dev.alloc_zeroed(16).expect("sizes");
        dev.launch(
            &m,
            "sizes",
            &LaunchConfig::new(1, 1).backend(b),
            &[KernelArg::from(&sizes)],
        )
        .expect("launch");
        assert_eq!(
            dev.read::<u32>(&sizes).expect("read"),
            vec![6, 4, 5, 3],
            "{b:?}"
        );
        // The wrong kind of reference is refused.
        assert!(dev.bind_surf_ref(&img, &s).is_err());
        assert!(dev
            .bind_tex_ref(&acc, a.resource(), desc(AddressMode::Clamp, false, false))
            .is_err());
        dev.unbind_ref(&img);
        let e = dev
            .launch(&m, "fetch2d", &LaunchConfig::new(1, 1).backend(b), &args)
            .expect_err("unbound again");
        assert!(e.to_string().contains("not bound"), "{b:?}: {e}");
    }
    // Two launches (one per backend) each added 1.
    let back = dev.read_array(&s).expect("read array");
    let got: Vec<u32> = back
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, (0..15u32).map(|v| 7 * v + 2).collect::<Vec<_>>());
}

#[test]
fn reference_misuse_is_a_load_error() {
    let dev = Device::new().expect("device");
    let cases = [
        (
            ".global .samplerref smp;\n",
            "ret;",
            "'.samplerref' variables need '.target texmode_independent'",
        ),
        (
            ".global .surfref s;\n",
            "tex.1d.v4.f32.f32 {%f, %f, %f, %f}, [s, {%f}];",
            "needs a '.texref' here, not a '.surfref'",
        ),
        (
            ".global .texref t;\n",
            "suld.b.1d.b32.trap {%r}, [t, {%r}];",
            "needs a '.surfref' here, not a '.texref'",
        ),
        (
            ".global .texref t[2];\n",
            "ret;",
            "arrays of '.texref' are not supported yet",
        ),
    ];
    for (decl, inst, want) in cases {
        let src = format!(
            ".version 7.0\n.target sm_52\n.address_size 64\n{decl}.visible .entry k()\n{{\n\t.reg .u32 %r;\n\t.reg .f32 %f;\n\tmov.u32 %r, 0;\n\tmov.f32 %f, 0f00000000;\n\t{inst}\n\tret;\n}}\n"
        );
        let e = match dev.load_ptx(&src, "k.ptx") {
            Ok(_) => panic!("{decl}{inst} must not load"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(want) && e.contains("k.ptx:"),
            "{decl}{inst}: {e}"
        );
    }
}

/// `.tex .u32 line;` / `.tex .u64 img;` (`tests/kernels/tex_legacy.ptx`, PTX ISA 1.4,
/// passes ptxas): each is a `.global .texref`, found by `Module::tex_ref` and bound the
/// same way. Point sampling, unnormalised integer coordinates, all in range: thread
/// `t` (0..6) reads `line[t]` and `img(t, 1)`.
#[test]
fn legacy_tex_variables_are_texrefs_on_both_backends() {
    let dev = Device::new().expect("device");
    let a = array(&dev, W, H, ArrayFormat::F32, false);
    let data: Vec<u8> = (0..H as i64)
        .flat_map(|j| (0..W as i64).map(move |i| texel(i, j)))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    dev.write_array(&a, &data).expect("write");
    // line[k] = 1.5 k + 0.25: 0.25, 1.75, 3.25, 4.75, 6.25, 7.75, 9.25, 10.75.
    let line: Vec<f32> = (0..8).map(|k| 1.5 * k as f32 + 0.25).collect();
    let line_buf = dev.alloc_from(&line).expect("line");
    // Hand-computed: (line[t], (t^2 + 3) * 0.5) for t = 0..6.
    let want: [f32; 12] = [
        0.25, 1.5, 1.75, 2.0, 3.25, 3.5, 4.75, 6.0, 6.25, 9.5, 7.75, 14.0,
    ];
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(
                include_str!("kernels/tex_legacy.ptx"),
                "tex_legacy.ptx",
                b == Backend::Jit,
            )
            .expect("load");
        let lr = m.tex_ref("line").expect("line");
        let ir = m.tex_ref("img").expect("img");
        assert_eq!(
            (lr.kind, ir.kind),
            (TexRefKind::Texture, TexRefKind::Texture)
        );
        dev.bind_tex_ref(
            &lr,
            linear_res(&line_buf, 8),
            desc(AddressMode::Clamp, false, false),
        )
        .expect("bind line");
        dev.bind_tex_ref(&ir, a.resource(), desc(AddressMode::Clamp, false, false))
            .expect("bind img");
        let out = dev.alloc_zeroed(4 * want.len()).expect("out");
        dev.launch(
            &m,
            "fetch",
            &LaunchConfig::new(1, 6).backend(b),
            &[KernelArg::from(&out)],
        )
        .expect("launch");
        assert_eq!(dev.read::<f32>(&out).expect("read"), want, "{b:?}");
    }
    // As ptxas: only `.u32`/`.u64`, and only before PTX ISA 1.5.
    let bad = [
        (
            ".version 1.4\n.target sm_10\n.tex .f32 t;\n",
            "must be type '.u32' or '.u64'",
        ),
        (
            ".version 1.5\n.target sm_10\n.tex .u32 t;\n",
            "not supported as of PTX ISA 1.5",
        ),
    ];
    for (head, msg) in bad {
        let src = format!("{head}.entry k ()\n{{\n\texit;\n}}\n");
        let e = match dev.load_ptx(&src, "k.ptx") {
            Ok(_) => panic!("{head} must not load"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(msg) && e.contains("k.ptx:3:"), "{head}: {e}");
    }
}

/// A linear-memory resource of `n` f32 texels over `buf`.
fn linear_res(buf: &ptxjit::Buffer, n: usize) -> TexResource {
    TexResource {
        base: buf.ptr(),
        format: ArrayFormat::F32,
        channels: 1,
        width: n,
        height: 0,
        depth: 0,
        layered: false,
        linear: true,
        pitch: 0,
    }
}
