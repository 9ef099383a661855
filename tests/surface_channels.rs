//! `sust.p` (formatted surface stores) into every channel format of a CUDA array, on
//! both backends (`tests/kernels/surf_channels.ptx`, hand-written: ptxas accepts it for
//! sm_52 and sm_90), and fetches of the normalised formats.
//!
//! The ISA (surface instructions, `sust`): "If the surface format contains `UNORM`,
//! `SNORM`, or `FLOAT` data, then `.f32` is assumed; if the surface format contains
//! `UINT` data, then `.u32` is assumed; if the surface format contains `SINT` data, then
//! `.s32` is assumed. The source data is then converted from this type to the surface
//! sample format." and "Source elements that do not occur in the surface sample are
//! ignored." How it converts is not said; ptxjit's documented choice (README, "Textures
//! and surfaces on a CPU") is `cvt`'s: integers saturate (`cvt.sat`), `f16` rounds to
//! nearest even (`cvt.rn.f16.f32`), normalised formats clamp, scale by `2^n - 1`
//! (UNORM) or `2^(n-1) - 1` (SNORM) and round to nearest even, a NaN storing 0. The
//! expected bytes below are worked out by hand in the comments (f16: the `half` crate).
//! Not checked against a GPU (none here).

use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, CudaArray, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/surf_channels.ptx");
const TEX: &str = include_str!("kernels/texture.ptx");

fn surface(dev: &Device, w: usize, h: usize, d: usize, format: ArrayFormat, ch: u32) -> CudaArray {
    dev.create_array(ArrayDesc {
        width: w,
        height: h,
        depth: d,
        format,
        channels: ch,
        layered: false,
        surface: true,
        cubemap: false,
    })
    .expect("array")
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

/// Two texels of four channels each: the eight source words and the stored channels.
struct Case {
    format: ArrayFormat,
    vals: [u32; 8],
    want: [u32; 8],
}

fn cases() -> Vec<Case> {
    use ArrayFormat::*;
    let i = |v: i32| v as u32;
    let h = |v: f32| half::f16::from_f32(v).to_bits() as u32;
    let nan = f32::NAN.to_bits();
    vec![
        // u8 (`.u32` sources, saturating): 256, 0xffffffff and 1000 become 255.
        Case {
            format: U8,
            vals: [0, 1, 255, 256, u32::MAX, 77, 128, 1000],
            want: [0, 1, 255, 255, 255, 77, 128, 255],
        },
        // s8 (`.s32` sources): -129 and i32::MIN give -128 (0x80), 128 and i32::MAX 127.
        Case {
            format: S8,
            vals: [
                i(-128),
                127,
                i(-129),
                128,
                i(-1),
                0,
                i(i32::MIN),
                i32::MAX as u32,
            ],
            want: [0x80, 0x7f, 0x80, 0x7f, 0xff, 0, 0x80, 0x7f],
        },
        Case {
            format: U16,
            vals: [65535, 65536, 3, 0x1234_5678, 40000, 0, 1, 65534],
            want: [0xffff, 0xffff, 3, 0xffff, 40000, 0, 1, 65534],
        },
        // s16: -40000 -> -32768 (0x8000), 40000 -> 32767, -2 -> 0xfffe, -32767 -> 0x8001.
        Case {
            format: S16,
            vals: [i(-32768), 32767, i(-40000), 40000, i(-2), 2, 0, i(-32767)],
            want: [0x8000, 0x7fff, 0x8000, 0x7fff, 0xfffe, 2, 0, 0x8001],
        },
        // f16, round to nearest even: 65520 (halfway between 65504 and 65536) and 1e6
        // overflow to infinity; 2^-25 is half the smallest subnormal (a tie: 0), 3 *
        // 2^-25 a tie between 1 and 2 subnormal units (2).
        Case {
            format: F16,
            vals: [
                f(1.0),
                f(-2.5),
                f(65504.0),
                f(65520.0),
                f(0.1),
                f(2f32.powi(-25)),
                f(3.0 * 2f32.powi(-25)),
                f(1e6),
            ],
            want: [h(1.0), h(-2.5), 0x7bff, 0x7c00, h(0.1), 0, 2, 0x7c00],
        },
        // f32, u32, s32: stored as they are (a NaN's payload too).
        Case {
            format: F32,
            vals: [0x7fc0_0001, f(-0.0), 1, 2, 3, 4, 5, 6],
            want: [0x7fc0_0001, f(-0.0), 1, 2, 3, 4, 5, 6],
        },
        Case {
            format: S32,
            vals: [i(-5), 6, 7, 8, 9, 10, 11, i(i32::MIN)],
            want: [i(-5), 6, 7, 8, 9, 10, 11, i(i32::MIN)],
        },
        // unorm8: 0.5 * 255 = 127.5 -> 128 (even); 0.25 * 255 = 63.75 -> 64; 2 clamps
        // to 1 (255), -0.25 to 0; (1/255 as f32) * 255 = 1.00000001 -> 1; NaN -> 0.
        Case {
            format: Unorm8,
            vals: [
                f(0.0),
                f(1.0),
                f(0.5),
                f(-0.25),
                f(2.0),
                nan,
                f(1.0 / 255.0),
                f(0.25),
            ],
            want: [0, 255, 128, 0, 255, 0, 1, 64],
        },
        // unorm16: 0.5 * 65535 = 32767.5 -> 32768; 0.25 * 65535 = 16383.75 -> 16384;
        // 0.75 * 65535 = 49151.25 -> 49151; 1.5 * 2^-16 * 65535 = 1.49998 -> 1.
        Case {
            format: Unorm16,
            vals: [
                f(0.5),
                f(1.0),
                f(0.25),
                f(-1.0),
                f(0.75),
                f(f32::INFINITY),
                f(1.5 * 2f32.powi(-16)),
                f(f32::NEG_INFINITY),
            ],
            want: [32768, 65535, 16384, 0, 49151, 65535, 1, 0],
        },
        // snorm8: -1 -> -127 (0x81), -2 clamps to -1 (0x81), 0.5 * 127 = 63.5 -> 64
        // (0x40), -0.5 -> -63.5 -> -64 (0xc0), 1.5 clamps to 127; NaN -> 0.
        Case {
            format: Snorm8,
            vals: [
                f(-1.0),
                f(1.0),
                f(-2.0),
                f(0.5),
                f(-0.5),
                nan,
                f(0.0),
                f(1.5),
            ],
            want: [0x81, 0x7f, 0x81, 0x40, 0xc0, 0, 0, 0x7f],
        },
        // snorm16: -1 -> -32767 (0x8001); 0.5 * 32767 = 16383.5 -> 16384 (0x4000);
        // -0.5 -> -16384 (0xc000); 0.25 * 32767 = 8191.75 -> 8192 (0x2000).
        Case {
            format: Snorm16,
            vals: [
                f(-1.0),
                f(0.5),
                f(1.5),
                f(-0.5),
                f(0.25),
                f(-0.0),
                nan,
                f(-3.0),
            ],
            want: [0x8001, 0x4000, 0x7fff, 0xc000, 0x2000, 0, 0, 0x8001],
        },
    ]
}

/// The channels of `bytes` as little-endian values of `size` bytes.
fn channels(bytes: &[u8], size: usize) -> Vec<u32> {
    bytes
        .chunks(size)
        .map(|c| c.iter().rev().fold(0u32, |a, b| a << 8 | *b as u32))
        .collect()
}

fn launch(
    dev: &Device,
    m: &ptxjit::Module,
    k: &str,
    s: u64,
    vals: &[u32],
    block: (u32, u32, u32),
    b: Backend,
) {
    let buf = dev.alloc_from(vals).expect("vals");
    dev.launch(
        m,
        k,
        &LaunchConfig::new(1, block).backend(b),
        &[KernelArg::U64(s), (&buf).into()],
    )
    .expect(k);
}

#[test]
fn sust_p_converts_into_every_channel_format_on_both_backends() {
    let dev = Device::new().expect("device");
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "surf_channels.ptx", b == Backend::Jit)
            .expect("load");
        for c in cases() {
            let size = c.format.bytes();
            // Four channels: every value lands.
            let a = surface(&dev, 2, 0, 0, c.format, 4);
            let s = dev.create_surface_object(&a).expect("surface");
            launch(&dev, &m, "store1d", s, &c.vals, (2, 1, 1), b);
            let got = channels(&dev.read_array(&a).expect("read"), size);
            assert_eq!(got, c.want, "{b:?} {:?} x4", c.format);
            // Two channels: values 3 and 4 of each texel are ignored.
            let a2 = surface(&dev, 2, 0, 0, c.format, 2);
            let s2 = dev.create_surface_object(&a2).expect("surface");
            launch(&dev, &m, "store1d", s2, &c.vals, (2, 1, 1), b);
            let got = channels(&dev.read_array(&a2).expect("read"), size);
            let want = [c.want[0], c.want[1], c.want[4], c.want[5]];
            assert_eq!(got, want, "{b:?} {:?} x2", c.format);
        }
    }
}

#[test]
fn sust_p_2d_and_3d_address_samples_on_both_backends() {
    let dev = Device::new().expect("device");
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "surf_channels.ptx", b == Backend::Jit)
            .expect("load");
        // store2d on a 2x2 four-channel u8 surface holding 0xee: thread (x, y) writes
        // r, g = vals[2(x + 2y)], vals[2(x + 2y) + 1] (300 saturates to 255); b and a
        // keep 0xee.
        let a = surface(&dev, 2, 2, 0, ArrayFormat::U8, 4);
        dev.write_array(&a, &[0xee; 16]).expect("write");
        let s = dev.create_surface_object(&a).expect("surface");
        let vals = [1, 2, 3, 300, 5, 6, 7, 8];
        launch(&dev, &m, "store2d", s, &vals, (2, 2, 1), b);
        let want: Vec<u8> = [1, 2, 3, 255, 5, 6, 7, 8]
            .chunks(2)
            .flat_map(|rg| [rg[0], rg[1], 0xee, 0xee])
            .collect();
        assert_eq!(dev.read_array(&a).expect("read"), want, "{b:?} store2d");
        // store3d on a 3x2x2 one-channel s16 surface: texel (x, y, z) = vals[x + 3(y +
        // 2z)] saturated: -70000 -> -32768, 70000 -> 32767.
        let a = surface(&dev, 3, 2, 2, ArrayFormat::S16, 1);
        let s = dev.create_surface_object(&a).expect("surface");
        let vals: Vec<u32> = (0..12).map(|k: i32| (k * 10_000 - 70_000) as u32).collect();
        launch(&dev, &m, "store3d", s, &vals, (3, 2, 2), b);
        let want: Vec<u32> = (0..12)
            .map(|k| (k * 10_000 - 70_000).clamp(-32768, 32767) as i16 as u16 as u32)
            .collect();
        let got = channels(&dev.read_array(&a).expect("read"), 2);
        assert_eq!(got, want, "{b:?} store3d");
    }
}

#[test]
fn normalised_formats_read_as_floats_on_both_backends() {
    // A normalised format reads v / (2^n - 1) (SNORM: v / (2^(n-1) - 1), -2^(n-1) as -1)
    // whatever the read mode: texels written through sust.p from the surface test's
    // values read back here (point sampling, unnormalised coordinates).
    let dev = Device::new().expect("device");
    for b in [Backend::Interp, Backend::Jit] {
        let ms = dev
            .load_ptx_with(SRC, "surf_channels.ptx", b == Backend::Jit)
            .expect("load");
        let mt = dev
            .load_ptx_with(TEX, "texture.ptx", b == Backend::Jit)
            .expect("load");
        for (format, vals, want) in [
            // unorm8 [0, 255, 128, 0, 255, 0, 1, 64] / 255.
            (
                ArrayFormat::Unorm8,
                [0.0f32, 1.0, 0.5, -0.25, 2.0, 0.0, 1.0 / 255.0, 0.25],
                [
                    0.0,
                    1.0,
                    128.0 / 255.0,
                    0.0,
                    1.0,
                    0.0,
                    1.0 / 255.0,
                    64.0 / 255.0,
                ],
            ),
            // snorm16 [-32767, 16384, 32767, -16384, ...] / 32767; 0x8000 (-32768) is
            // not storable through sust.p, so -1 is the smallest read here.
            (
                ArrayFormat::Snorm16,
                [-1.0, 0.5, 1.5, -0.5, 0.25, 0.0, 0.0, -3.0],
                [
                    -1.0,
                    16384.0 / 32767.0,
                    1.0,
                    -16384.0 / 32767.0,
                    8192.0 / 32767.0,
                    0.0,
                    0.0,
                    -1.0,
                ],
            ),
        ] {
            let a = surface(&dev, 2, 0, 0, format, 4);
            let s = dev.create_surface_object(&a).expect("surface");
            let bits: Vec<u32> = vals.iter().map(|v| v.to_bits()).collect();
            launch(&dev, &ms, "store1d", s, &bits, (2, 1, 1), b);
            let t = dev
                .create_texture_object(
                    a.resource(),
                    TextureDesc {
                        address: [AddressMode::Clamp; 3],
                        linear: false,
                        normalized: false,
                        // Ignored by the normalised formats.
                        read_as_integer: true,
                        border: [0.0; 4],
                    },
                )
                .expect("texture");
            let coords = dev.alloc_from(&[0.5f32, 1.5]).expect("in");
            let out = dev.alloc_zeroed(32).expect("out");
            dev.launch(
                &mt,
                "fetch1d",
                &LaunchConfig::new(1, 2).backend(b),
                &[KernelArg::from(t), (&coords).into(), (&out).into()],
            )
            .expect("fetch1d");
            let got = dev.read::<f32>(&out).expect("read");
            assert_eq!(got, want, "{b:?} {format:?}");
        }
    }
}
