//! `tex`/`tld4` forms beyond the plain lookup, on both backends
//! (`tests/kernels/texture_forms.ptx`, which ptxas accepts for sm_90): the offset vector
//! (`tex.1d/.2d ..., {ox, oy}`, float and integer coordinates, `tld4`), `tex.base`,
//! `tex.level` and `tex.grad` on non-mipmapped textures (level 0 whatever the level of
//! detail or gradients), and the depth-compare operand (a located run-time error: CUDA
//! texture objects define no comparison function).
//!
//! The reference is this file's own implementation of the CUDA programming guide's
//! texture-fetching formulas (nearest point: texel `floor(x)`; linear: `x - 0.5` in
//! fixed point with 8 fractional bits, texels `i`, `i + 1` with weight `frac`; clamp
//! addressing), with the offset added to the unnormalised coordinate. An offset counts
//! with its low 4 bits, sign-extended: ptxas (CUDA 13, sm_90) packs the elements into
//! 4-bit fields (`LOP3.LUT R7, R3, 0xf0, R2, 0xe2` before `TEX.LL.AOFFI`).

use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/texture_forms.ptx");
const W: usize = 5;
const H: usize = 4;

/// Texel (i, j) of the 2D test texture: i + 10 j (exact in f32).
fn texel(i: i64, j: i64) -> f32 {
    let i = i.clamp(0, W as i64 - 1);
    let j = j.clamp(0, H as i64 - 1);
    (i + 10 * j) as f32
}

/// The low 4 bits of an offset operand, sign-extended.
fn nibble(o: i32) -> i64 {
    let n = (o & 15) as i64;
    if n >= 8 {
        n - 16
    } else {
        n
    }
}

/// Linear filtering's lower texel and weight (in 1/256) at unnormalised `x`.
fn lin_split(x: f64) -> (i64, f64) {
    let q = ((x - 0.5) * 256.0).round() as i64;
    (q.div_euclid(256), q.rem_euclid(256) as f64 / 256.0)
}

fn point_ref(x: f32, y: f32, ox: i32, oy: i32) -> f32 {
    let i = (x as f64 + nibble(ox) as f64).floor() as i64;
    let j = (y as f64 + nibble(oy) as f64).floor() as i64;
    texel(i, j)
}

fn linear_ref(x: f32, y: f32, ox: i32, oy: i32) -> f32 {
    let (i, a) = lin_split(x as f64 + nibble(ox) as f64);
    let (j, b) = lin_split(y as f64 + nibble(oy) as f64);
    let v = (1.0 - a) * (1.0 - b) * texel(i, j) as f64
        + a * (1.0 - b) * texel(i + 1, j) as f64
        + (1.0 - a) * b * texel(i, j + 1) as f64
        + a * b * texel(i + 1, j + 1) as f64;
    v as f32
}

/// One thread's input: x, y, ox, oy, lod, gx, gy (8 words).
#[derive(Clone, Copy)]
struct In {
    x: u32,
    y: u32,
    ox: i32,
    oy: i32,
    lod: f32,
}

impl In {
    fn f(x: f32, y: f32, ox: i32, oy: i32, lod: f32) -> In {
        In {
            x: x.to_bits(),
            y: y.to_bits(),
            ox,
            oy,
            lod,
        }
    }
    fn xf(&self) -> f32 {
        f32::from_bits(self.x)
    }
    fn yf(&self) -> f32 {
        f32::from_bits(self.y)
    }
    fn words(&self) -> [u32; 8] {
        let (gx, gy) = (0.75f32, -3.5f32);
        [
            self.x,
            self.y,
            self.ox as u32,
            self.oy as u32,
            self.lod.to_bits(),
            gx.to_bits(),
            gy.to_bits(),
            0,
        ]
    }
}

fn run(dev: &Device, m: &ptxjit::Module, k: &str, tex: u64, ins: &[In], b: Backend) -> Vec<u32> {
    let words: Vec<u32> = ins.iter().flat_map(In::words).collect();
    let input = dev.alloc_from(&words).expect("in");
    let out = dev.alloc_zeroed(16 * ins.len()).expect("out");
    dev.launch(
        m,
        k,
        &LaunchConfig::new(1, ins.len() as u32).backend(b),
        &[KernelArg::from(tex), (&input).into(), (&out).into()],
    )
    .unwrap_or_else(|e| panic!("{b:?} {k}: {e}"));
    dev.read::<u32>(&out).expect("read")
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

/// Lanes of the float-coordinate kernels: inside, near edges, offsets -8..7 and values
/// outside that range (whose low 4 bits count).
fn float_inputs() -> Vec<In> {
    vec![
        In::f(1.5, 1.5, 1, 2, 0.0),
        In::f(0.2, 3.9, -1, -8, 3.0),
        In::f(2.5, 0.5, 7, 0, -1.0),
        In::f(1.5, 1.5, 9, 0, 100.0),
        In::f(1.25, 2.0, 1, -1, 0.5),
        In::f(3.7, 0.3, -3, 2, 2.0),
        In::f(2.0 + 1.0 / 1024.0, 1.75, 0, 1, 0.0),
        In::f(0.9, 2.6, 16, -17, 0.0),
    ]
}

fn bits4(v: [f32; 4]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

#[test]
fn offsets_levels_and_gradients_on_both_backends() {
    let dev = Device::new().expect("device");
    let data: Vec<u8> = (0..H as i64)
        .flat_map(|j| (0..W as i64).map(move |i| texel(i, j)))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let a = dev
        .create_array(ArrayDesc {
            width: W,
            height: H,
            depth: 0,
            format: ArrayFormat::F32,
            channels: 1,
            layered: false,
            surface: false,
            cubemap: false,
        })
        .expect("array");
    dev.write_array(&a, &data).expect("write");
    let point = dev
        .create_texture_object(a.resource(), desc(false))
        .expect("tex");
    let linear = dev
        .create_texture_object(a.resource(), desc(true))
        .expect("tex");
    let ins = float_inputs();
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "texture_forms.ptx", b == Backend::Jit)
            .expect("load");
        for (tex, lin) in [(point, false), (linear, true)] {
            let f = |i: &In, ox: i32, oy: i32| {
                if lin {
                    linear_ref(i.xf(), i.yf(), ox, oy)
                } else {
                    point_ref(i.xf(), i.yf(), ox, oy)
                }
            };
            for k in ["off2d", "level2d"] {
                let got = run(&dev, &m, k, tex, &ins, b);
                for (n, i) in ins.iter().enumerate() {
                    let want = bits4([f(i, i.ox, i.oy), 0.0, 0.0, 0.0]);
                    assert_eq!(&got[4 * n..4 * n + 4], want, "{b:?} {k} lin {lin} lane {n}");
                }
            }
            for k in ["base2d", "grad2d"] {
                let got = run(&dev, &m, k, tex, &ins, b);
                for (n, i) in ins.iter().enumerate() {
                    let want = bits4([f(i, 0, 0), 0.0, 0.0, 0.0]);
                    assert_eq!(&got[4 * n..4 * n + 4], want, "{b:?} {k} lin {lin} lane {n}");
                }
            }
            // tld4.r: texels (i, j+1), (i+1, j+1), (i+1, j), (i, j) of the bilinear
            // footprint at the offset coordinate, whatever the filter mode.
            let got = run(&dev, &m, "tld4_off", tex, &ins, b);
            for (n, i) in ins.iter().enumerate() {
                let (x, _) = lin_split(i.xf() as f64 + nibble(i.ox) as f64);
                let (y, _) = lin_split(i.yf() as f64 + nibble(i.oy) as f64);
                let want = bits4([
                    texel(x, y + 1),
                    texel(x + 1, y + 1),
                    texel(x + 1, y),
                    texel(x, y),
                ]);
                assert_eq!(
                    &got[4 * n..4 * n + 4],
                    want,
                    "{b:?} tld4 lin {lin} lane {n}"
                );
            }
        }
        // Integer coordinates: texel (x + ox, y + oy); outside the texture the result
        // is 0 (integer coordinates ignore the address mode; see tests/texture.rs).
        let int_ins: Vec<In> = [(1, 1, 1, 2), (0, 0, -1, 0), (4, 3, 0, 0), (2, 1, 9, 0)]
            .iter()
            .map(|&(x, y, ox, oy)| In {
                x: x as u32,
                y: y as u32,
                ox,
                oy,
                lod: 0.0,
            })
            .collect();
        let got = run(&dev, &m, "off2d_s32", point, &int_ins, b);
        for (n, i) in int_ins.iter().enumerate() {
            let (x, y) = (i.x as i64 + nibble(i.ox), i.y as i64 + nibble(i.oy));
            let inside = (0..W as i64).contains(&x) && (0..H as i64).contains(&y);
            let v = if inside { texel(x, y) } else { 0.0 };
            assert_eq!(
                &got[4 * n..4 * n + 4],
                bits4([v, 0.0, 0.0, 0.0]),
                "{b:?} s32 lane {n}"
            );
        }
        // tex.level with integer coordinates: the level (here the `ox` word) picks level 0.
        let got = run(&dev, &m, "level2d_s32", point, &int_ins, b);
        for (n, i) in int_ins.iter().enumerate() {
            let v = texel(i.x as i64, i.y as i64);
            assert_eq!(
                &got[4 * n..4 * n + 4],
                bits4([v, 0.0, 0.0, 0.0]),
                "{b:?} level s32 {n}"
            );
        }
        // 1D with an offset: the 2D texture's first row is not what a 1D array holds, so
        // a 1D array of its own: texels k^2 for k in 0..8, linear.
        let a1 = dev
            .create_array(ArrayDesc {
                width: 8,
                height: 0,
                depth: 0,
                format: ArrayFormat::F32,
                channels: 1,
                layered: false,
                surface: false,
                cubemap: false,
            })
            .expect("array");
        let sq: Vec<u8> = (0..8)
            .flat_map(|k| ((k * k) as f32).to_le_bytes())
            .collect();
        dev.write_array(&a1, &sq).expect("write");
        let t1 = dev
            .create_texture_object(a1.resource(), desc(true))
            .expect("tex");
        let got = run(&dev, &m, "off1d", t1, &ins, b);
        for (n, i) in ins.iter().enumerate() {
            let (k, w) = lin_split(i.xf() as f64 + nibble(i.ox) as f64);
            let t = |k: i64| (k.clamp(0, 7) * k.clamp(0, 7)) as f64;
            let v = ((1.0 - w) * t(k) + w * t(k + 1)) as f32;
            assert_eq!(
                &got[4 * n..4 * n + 4],
                bits4([v, 0.0, 0.0, 0.0]),
                "{b:?} 1d lane {n}"
            );
        }
        dev.destroy_tex_object(t1).expect("destroy");
        dev.destroy_array(a1).expect("destroy");
    }
}

#[test]
fn depth_compare_is_a_located_run_time_error() {
    let dev = Device::new().expect("device");
    let a = dev
        .create_array(ArrayDesc {
            width: 4,
            height: 0,
            depth: 0,
            format: ArrayFormat::F32,
            channels: 1,
            layered: false,
            surface: false,
            cubemap: false,
        })
        .expect("array");
    let t = dev
        .create_texture_object(a.resource(), desc(false))
        .expect("tex");
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "texture_forms.ptx", b == Backend::Jit)
            .expect("load");
        let words: Vec<u32> = In::f(1.0, 0.0, 0, 0, 0.5).words().to_vec();
        let input = dev.alloc_from(&words).expect("in");
        let out = dev.alloc_zeroed(16).expect("out");
        let e = dev
            .launch(
                &m,
                "depth1d",
                &LaunchConfig::new(1, 1).backend(b),
                &[KernelArg::from(t), (&input).into(), (&out).into()],
            )
            .expect_err("depth compare must stop");
        let e = e.to_string();
        assert!(
            e.contains("depth compare") && e.contains("texture_forms.ptx:"),
            "{b:?}: {e}"
        );
    }
}
