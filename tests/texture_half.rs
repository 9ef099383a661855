//! `.f16`/`.f16x2` texture results and `tex`'s optional predicate result on both
//! backends (`tests/kernels/tex_half.ptx`, hand-written: ptxas accepts it for sm_60 and
//! sm_90). Expected values: the texel (point sampling, unnormalised coordinates, clamp:
//! texel `floor(x), floor(y)` clamped to the extent) rounded to f16 by the `half` crate
//! (round to nearest even; the ISA's `.f16` results), `.f16x2` packing (r, g) and
//! (b, a) with the first in the low half; the predicate is true (texels are always
//! resident in ptxjit's memory).

use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/tex_half.ptx");
const W: i64 = 4;
const H: i64 = 3;

/// Channel values that round in f16: thirds, an f16 subnormal, a value past f16's
/// range (inf) and negatives.
fn texel(i: i64, j: i64) -> [f32; 4] {
    let k = (i + W * j) as f32;
    [
        k / 3.0,
        1e-5 * (k + 1.0),
        70000.0 - 5000.0 * k,
        -2.5 - k / 7.0,
    ]
}

fn h(v: f32) -> u16 {
    half::f16::from_f32(v).to_bits()
}

#[test]
fn half_results_and_predicate_on_both_backends() {
    let dev = Device::new().expect("device");
    let a = dev
        .create_array(ArrayDesc {
            width: W as usize,
            height: H as usize,
            depth: 0,
            format: ArrayFormat::F32,
            channels: 4,
            layered: false,
            surface: false,
            cubemap: false,
        })
        .expect("array");
    let data: Vec<u8> = (0..H)
        .flat_map(|j| (0..W).flat_map(move |i| texel(i, j)))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    dev.write_array(&a, &data).expect("write");
    let t = dev
        .create_texture_object(
            a.resource(),
            TextureDesc {
                address: [AddressMode::Clamp; 3],
                linear: false,
                normalized: false,
                read_as_integer: false,
                border: [0.0; 4],
            },
        )
        .expect("texture");
    let xy: [(f32, f32); 6] = [
        (0.5, 0.5),
        (3.9, 2.1),
        (1.2, 1.7),
        (-3.0, 9.0),
        (2.0, 0.0),
        (7.5, -0.5),
    ];
    let xs: Vec<f32> = xy.iter().flat_map(|&(x, y)| [x, y]).collect();
    let input = dev.alloc_from(&xs).expect("in");
    let n = xy.len();
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "tex_half.ptx", b == Backend::Jit)
            .expect("load");
        let out = dev.alloc_zeroed(32 * n).expect("out");
        let outp = dev.alloc_zeroed(4 * n).expect("outp");
        dev.launch(
            &m,
            "fetch",
            &LaunchConfig::new(1, n as u32).backend(b),
            &[
                KernelArg::from(&input),
                (&out).into(),
                (&outp).into(),
                KernelArg::U64(t),
            ],
        )
        .expect("launch");
        let got = dev.read::<u8>(&out).expect("read");
        let p = dev.read::<u32>(&outp).expect("read p");
        for (k, &(x, y)) in xy.iter().enumerate() {
            let (i, j) = (
                (x.floor() as i64).clamp(0, W - 1),
                (y.floor() as i64).clamp(0, H - 1),
            );
            let v = texel(i, j);
            let hs = v.map(h);
            let mut want = Vec::new();
            for x in hs {
                want.extend(x.to_le_bytes());
            }
            for pair in [[hs[0], hs[1]], [hs[2], hs[3]]] {
                want.extend((pair[0] as u32 | (pair[1] as u32) << 16).to_le_bytes());
            }
            for c in v {
                want.extend(c.to_le_bytes());
            }
            assert_eq!(&got[32 * k..32 * k + 32], &want[..], "{b:?} at ({x}, {y})");
            assert_eq!(p[k], 1, "{b:?} predicate at ({x}, {y})");
        }
    }
}
