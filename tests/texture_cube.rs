//! Cubemap and cubemap-array textures (`tex.cube`, `tex.acube`, `tex.level.cube`,
//! `tld4.r.cube`/`.acube`, and `tld4.r.a2d` on the layered array;
//! `tests/kernels/texture_cube.ptx`, which ptxas accepts for sm_90) and pitch-2D linear
//! resources, through the Rust API on both backends. The reference is this file's own
//! reading of the CUDA programming guide: the cubemap table (the major axis picks the
//! face; the face coordinate is `((s/m + 1)/2, (t/m + 1)/2)`), then point sampling
//! (texel `floor(u * width)`) or linear filtering (`u * width - 0.5` in fixed point with
//! 8 fractional bits) with clamp addressing.

use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TexResource, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/texture_cube.ptx");
const N: usize = 4;

/// Texel (i, j) of layer `l`: 100 l + 10 j + i.
fn texel(l: u32, i: i64, j: i64) -> f32 {
    let (i, j) = (i.clamp(0, N as i64 - 1), j.clamp(0, N as i64 - 1));
    (100 * l as i64 + 10 * j + i) as f32
}

/// The guide's cubemap table: (face, s, t, m).
fn face(x: f32, y: f32, z: f32) -> (u32, f32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, x)
        } else {
            (1, z, -y, -x)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, y)
        } else {
            (3, x, -z, -y)
        }
    } else if z >= 0.0 {
        (4, x, -y, z)
    } else {
        (5, -x, -y, -z)
    }
}

fn cube_ref(layer0: u32, d: [f32; 3], linear: bool) -> f32 {
    let (f, s, t, m) = face(d[0], d[1], d[2]);
    let (u, v) = ((s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0);
    let l = layer0 + f;
    if !linear {
        let i = (u as f64 * N as f64).floor() as i64;
        let j = (v as f64 * N as f64).floor() as i64;
        return texel(l, i, j);
    }
    let sp = |c: f32| {
        let q = ((c as f64 * N as f64 - 0.5) * 256.0).round() as i64;
        (q.div_euclid(256), q.rem_euclid(256) as f64 / 256.0)
    };
    let ((i, a), (j, b)) = (sp(u), sp(v));
    ((1.0 - a) * (1.0 - b) * texel(l, i, j) as f64
        + a * (1.0 - b) * texel(l, i + 1, j) as f64
        + (1.0 - a) * b * texel(l, i, j + 1) as f64
        + a * b * texel(l, i + 1, j + 1) as f64) as f32
}

/// `tld4.r` at normalised (u, v) of layer `l`: texels (i, j+1), (i+1, j+1), (i+1, j),
/// (i, j) with i, j the lower texels of linear filtering (clamped).
fn gather_ref(l: u32, u: f32, v: f32) -> [f32; 4] {
    let lo = |c: f32| (((c as f64 * N as f64 - 0.5) * 256.0).round() as i64).div_euclid(256);
    let (i, j) = (lo(u), lo(v));
    [
        texel(l, i, j + 1),
        texel(l, i + 1, j + 1),
        texel(l, i + 1, j),
        texel(l, i, j),
    ]
}

fn gather_cube_ref(layer0: u32, d: [f32; 3]) -> [f32; 4] {
    let (f, s, t, m) = face(d[0], d[1], d[2]);
    gather_ref(layer0 + f, (s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0)
}

fn desc(linear: bool) -> TextureDesc {
    TextureDesc {
        address: [AddressMode::Clamp; 3],
        linear,
        normalized: false,
        read_as_integer: false,
        border: [0.0; 4],
    }
}

fn run(
    dev: &Device,
    m: &ptxjit::Module,
    k: &str,
    tex: u64,
    words: &[[u32; 4]],
    b: Backend,
) -> Vec<f32> {
    let flat: Vec<u32> = words.iter().flatten().copied().collect();
    let input = dev.alloc_from(&flat).expect("in");
    let out = dev.alloc_zeroed(16 * words.len()).expect("out");
    dev.launch(
        m,
        k,
        &LaunchConfig::new(1, words.len() as u32).backend(b),
        &[KernelArg::from(tex), (&input).into(), (&out).into()],
    )
    .unwrap_or_else(|e| panic!("{b:?} {k}: {e}"));
    dev.read::<f32>(&out).expect("read")
}

/// Directions on every face, off-centre, with ties between axes.
const DIRS: [[f32; 3]; 10] = [
    [1.0, 0.2, -0.3],
    [-1.0, 0.5, 0.45],
    [0.1, 1.0, 0.9],
    [0.3, -1.0, -0.2],
    [0.25, -0.5, 1.0],
    [-0.7, 0.1, -1.0],
    [2.0, -1.5, 0.5],
    [-3.0, -2.9, 2.0],
    [1.0, 1.0, 0.5],
    [0.0, 0.0, -7.0],
];

fn cube_array(dev: &Device, cubes: usize) -> ptxjit::runtime::texture::CudaArray {
    let a = dev
        .create_array(ArrayDesc {
            width: N,
            height: N,
            depth: 6 * cubes,
            format: ArrayFormat::F32,
            channels: 1,
            layered: cubes > 1,
            surface: false,
            cubemap: true,
        })
        .expect("cubemap array");
    let data: Vec<u8> = (0..6 * cubes as u32)
        .flat_map(|l| (0..N as i64).flat_map(move |j| (0..N as i64).map(move |i| texel(l, i, j))))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    dev.write_array(&a, &data).expect("write");
    a
}

#[test]
fn cubemaps_on_both_backends() {
    let dev = Device::new().expect("device");
    let one = cube_array(&dev, 1);
    let two = cube_array(&dev, 2);
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "texture_cube.ptx", b == Backend::Jit)
            .expect("load");
        for linear in [false, true] {
            let t = dev
                .create_texture_object(one.resource(), desc(linear))
                .expect("tex");
            let words: Vec<[u32; 4]> = DIRS
                .iter()
                .map(|d| {
                    [
                        d[0].to_bits(),
                        d[1].to_bits(),
                        d[2].to_bits(),
                        3.0f32.to_bits(),
                    ]
                })
                .collect();
            for k in ["cube", "cube_level"] {
                let got = run(&dev, &m, k, t, &words, b);
                for (n, d) in DIRS.iter().enumerate() {
                    let want = [cube_ref(0, *d, linear), 0.0, 0.0, 0.0];
                    assert_eq!(
                        &got[4 * n..4 * n + 4],
                        &want,
                        "{b:?} {k} lin {linear} {d:?}"
                    );
                }
            }
            let t2 = dev
                .create_texture_object(two.resource(), desc(linear))
                .expect("tex");
            // Cube index 1 picks layers 6..12; an index past the last cube clamps to
            // the last layer (the layer is unsigned and clamped, as for .a2d).
            let words: Vec<[u32; 4]> = DIRS
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    [
                        (k % 2) as u32,
                        d[0].to_bits(),
                        d[1].to_bits(),
                        d[2].to_bits(),
                    ]
                })
                .collect();
            let got = run(&dev, &m, "acube", t2, &words, b);
            for (n, d) in DIRS.iter().enumerate() {
                let want = [cube_ref(6 * (n % 2) as u32, *d, linear), 0.0, 0.0, 0.0];
                assert_eq!(
                    &got[4 * n..4 * n + 4],
                    &want,
                    "{b:?} acube lin {linear} {d:?}"
                );
            }
            // tld4 on the cubemap, the cubemap array and the layered array (whatever
            // the filter mode).
            let words: Vec<[u32; 4]> = DIRS
                .iter()
                .map(|d| [d[0].to_bits(), d[1].to_bits(), d[2].to_bits(), 0])
                .collect();
            let got = run(&dev, &m, "tld4_cube", t, &words, b);
            for (n, d) in DIRS.iter().enumerate() {
                let want = gather_cube_ref(0, *d);
                assert_eq!(&got[4 * n..4 * n + 4], &want, "{b:?} tld4 cube {d:?}");
            }
            let words: Vec<[u32; 4]> = DIRS
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    [
                        (k % 2) as u32,
                        d[0].to_bits(),
                        d[1].to_bits(),
                        d[2].to_bits(),
                    ]
                })
                .collect();
            let got = run(&dev, &m, "tld4_acube", t2, &words, b);
            for (n, d) in DIRS.iter().enumerate() {
                let want = gather_cube_ref(6 * (n % 2) as u32, *d);
                assert_eq!(&got[4 * n..4 * n + 4], &want, "{b:?} tld4 acube {d:?}");
            }
            // .a2d: layer, unnormalised x, y; layers past the last clamp to it.
            let pts: [(u32, f32, f32); 5] = [
                (0, 1.5, 1.5),
                (3, 0.2, 3.9),
                (11, 2.75, 0.6),
                (40, 1.0, 2.0),
                (7, -1.0, 5.0),
            ];
            let words: Vec<[u32; 4]> = pts
                .iter()
                .map(|(l, x, y)| [*l, x.to_bits(), y.to_bits(), 0])
                .collect();
            let got = run(&dev, &m, "tld4_a2d", t2, &words, b);
            for (n, (l, x, y)) in pts.iter().enumerate() {
                let want = gather_ref((*l).min(11), x / N as f32, y / N as f32);
                assert_eq!(&got[4 * n..4 * n + 4], &want, "{b:?} tld4 a2d {:?}", pts[n]);
            }
            dev.destroy_tex_object(t).expect("destroy");
            dev.destroy_tex_object(t2).expect("destroy");
        }
    }
    // Non-square faces or a depth other than 6 are refused.
    let bad = ArrayDesc {
        width: 4,
        height: 3,
        depth: 6,
        format: ArrayFormat::F32,
        channels: 1,
        layered: false,
        surface: false,
        cubemap: true,
    };
    assert!(dev.create_array(bad).is_err());
    assert!(dev
        .create_array(ArrayDesc {
            height: 4,
            depth: 5,
            ..bad
        })
        .is_err());
}

#[test]
fn cube_forms_with_integer_coordinates_or_offsets_are_load_errors() {
    let dev = Device::new().expect("device");
    for inst in [
        "tex.cube.v4.f32.s32 {%f, %f, %f, %f}, [%t, {%r, %r, %r, %r}];",
        "tex.cube.v4.f32.f32 {%f, %f, %f, %f}, [%t, {%f, %f, %f, %f}], {%r, %r, %r, %r};",
    ] {
        let src = format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .u64 %t;\n\t.reg .u32 %r;\n\t.reg .f32 %f;\n\tld.param.u64 %t, [p];\n\t{inst}\n\tret;\n}}\n"
        );
        let e = dev.load_ptx(&src, "k.ptx").expect_err(inst).to_string();
        assert!(
            e.contains("cubemap lookups") && e.contains("k.ptx:10:"),
            "{inst}: {e}"
        );
    }
}

#[test]
fn pitch_2d_linear_resources_on_both_backends() {
    // A 5 x 3 f32 image in rows 32 bytes apart (3 padding texels of NaN per row), read
    // through tex.2d at texel centres and outside (clamp).
    let dev = Device::new().expect("device");
    let (w, h, pitch) = (5usize, 3usize, 8usize);
    let val = |i: usize, j: usize| (i * 3 + j * 50) as f32;
    let mut img = vec![f32::NAN; pitch * h];
    for j in 0..h {
        for i in 0..w {
            img[j * pitch + i] = val(i, j);
        }
    }
    let buf = dev.alloc_from(&img).expect("img");
    let res = TexResource {
        base: buf.ptr(),
        format: ArrayFormat::F32,
        channels: 1,
        width: w,
        height: h,
        depth: 0,
        layered: false,
        linear: true,
        pitch: pitch * 4,
    };
    let t = dev.create_texture_object(res, desc(false)).expect("tex");
    let src = include_str!("kernels/texture_forms.ptx");
    let pts: [(f32, f32); 6] = [
        (0.5, 0.5),
        (4.5, 2.5),
        (2.2, 1.9),
        (7.0, 1.0),
        (-1.0, 9.0),
        (3.99, 0.0),
    ];
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(src, "texture_forms.ptx", b == Backend::Jit)
            .expect("load");
        // texture_forms.ptx's base2d reads 8 words per thread: x, y, then unused here.
        let words: Vec<u32> = pts
            .iter()
            .flat_map(|(x, y)| [x.to_bits(), y.to_bits(), 0, 0, 0, 0, 0, 0])
            .collect();
        let input = dev.alloc_from(&words).expect("in");
        let out = dev.alloc_zeroed(16 * pts.len()).expect("out");
        dev.launch(
            &m,
            "base2d",
            &LaunchConfig::new(1, pts.len() as u32).backend(b),
            &[KernelArg::from(t), (&input).into(), (&out).into()],
        )
        .expect("launch");
        let got = dev.read::<f32>(&out).expect("read");
        for (k, (x, y)) in pts.iter().enumerate() {
            let i = (x.floor() as i64).clamp(0, w as i64 - 1) as usize;
            let j = (y.floor() as i64).clamp(0, h as i64 - 1) as usize;
            assert_eq!(got[4 * k], val(i, j), "{b:?} ({x}, {y})");
        }
    }
}
