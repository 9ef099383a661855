//! Texture and surface objects through the Rust API on both backends
//! (`tests/kernels/texture.ptx`), with expected values worked out by hand from the CUDA
//! programming guide's texture-fetching formulas (comments show the arithmetic), and the
//! texture/surface forms that stay load-time errors. The H100 comparison of every form
//! is `tests/golden.rs` (`future_tex.ptx`, `future_suld_*.ptx`, `future_sust.ptx`).

use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/texture.ptx");

fn desc(mode: AddressMode, linear: bool, normalized: bool) -> TextureDesc {
    TextureDesc {
        address: [mode; 3],
        linear,
        normalized,
        read_as_integer: false,
        border: [0.25, 0.5, 0.75, 1.0],
    }
}

fn array(
    dev: &Device,
    w: usize,
    h: usize,
    format: ArrayFormat,
    ch: u32,
    surface: bool,
    data: &[u8],
) -> ptxjit::runtime::texture::CudaArray {
    let a = dev
        .create_array(ArrayDesc {
            width: w,
            height: h,
            depth: 0,
            format,
            channels: ch,
            layered: false,
            surface,
            cubemap: false,
        })
        .expect("array");
    dev.write_array(&a, data).expect("write array");
    a
}

fn fetch(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    tex: u64,
    coords: &[f32],
    n: usize,
    b: Backend,
) -> Vec<f32> {
    let input = dev.alloc_from(coords).expect("in");
    let out = dev.alloc_zeroed(16 * n).expect("out");
    dev.launch(
        m,
        kernel,
        &LaunchConfig::new(1, n as u32).backend(b),
        &[KernelArg::from(tex), (&input).into(), (&out).into()],
    )
    .expect("launch");
    dev.read::<f32>(&out).expect("read")
}

#[test]
fn fetches_and_surface_round_trip_on_both_backends() {
    let dev = Device::new().expect("device");
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "texture.ptx", b == Backend::Jit)
            .expect("load");
        // 1D f32 texels [0, 1, 2, 4].
        let texels: Vec<u8> = [0f32, 1.0, 2.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let a = array(&dev, 4, 0, ArrayFormat::F32, 1, false, &texels);
        let lin = dev
            .create_texture_object(a.resource(), desc(AddressMode::Clamp, true, false))
            .expect("texture");
        // Linear: i = floor(x - 0.5), weight a = frac(x - 0.5) in 1/256 steps, clamp.
        // 1.25: i 0, a 0.75 -> 0.75; 2.5: i 2, a 0 -> 2; 3.75: i 3, a 0.25 -> 4 (clamped
        // neighbour 4); 0: i -1, a 0.5 -> 0; 3: i 2, a 0.5 -> (2 + 4) / 2 = 3;
        // 1 + 2^-10: x - 0.5 = 0.5009765625 = 128.25/256 rounds to 128/256 -> 0.5.
        let xs = [1.25f32, 2.5, 3.75, 0.0, 3.0, 1.0 + 1.0 / 1024.0];
        let r = fetch(&dev, &m, "fetch1d", lin, &xs, xs.len(), b);
        let want = [0.75f32, 2.0, 4.0, 0.0, 3.0, 0.5];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(
                &r[4 * k..4 * k + 4],
                &[*w, 0.0, 0.0, 0.0],
                "{b:?} linear x = {}",
                xs[k]
            );
        }
        // Point, border: x -0.5 -> texel -1 -> border red 0.25 (one channel: the others
        // read 0); 1.9 -> texel 1.
        let pt = dev
            .create_texture_object(a.resource(), desc(AddressMode::Border, false, false))
            .expect("texture");
        let r = fetch(&dev, &m, "fetch1d", pt, &[-0.5, 1.9], 2, b);
        assert_eq!(
            r,
            vec![0.25, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            "{b:?} point border"
        );
        // 2D u8x4, normalised coordinates and normalised-float reads, point, wrap: texel
        // (1, 0) holds (255, 0, 51, 102) -> (1, 0, 0.2, 0.4); (0.75, 0.25) * 2 = (1.5,
        // 0.5) -> texel (1, 0); (-0.25, 1.25) * 2 = (-0.5, 2.5) -> (-1, 2) wraps to (1, 0).
        let t2: Vec<u8> = vec![1, 2, 3, 4, 255, 0, 51, 102, 9, 10, 11, 12, 13, 14, 15, 16];
        let a2 = array(&dev, 2, 2, ArrayFormat::U8, 4, false, &t2);
        let t = dev
            .create_texture_object(a2.resource(), desc(AddressMode::Wrap, false, true))
            .expect("texture");
        let r = fetch(&dev, &m, "fetch2d", t, &[0.75, 0.25, -0.25, 1.25], 2, b);
        assert_eq!(&r[..4], &[1.0, 0.0, 0.2, 0.4], "{b:?} u8 normalised");
        assert_eq!(&r[4..], &[1.0, 0.0, 0.2, 0.4], "{b:?} u8 wrap");
        // Surface: each of the 4 x 2 u32 texels (10 i) becomes 10 i + 1.
        let vals: Vec<u8> = (0..8u32).flat_map(|i| (10 * i).to_le_bytes()).collect();
        let s = array(&dev, 4, 2, ArrayFormat::U32, 1, true, &vals);
        let h = dev.create_surface_object(&s).expect("surface");
        dev.launch(
            &m,
            "copy_surf",
            &LaunchConfig::new(1, (4, 2, 1)).backend(b),
            &[KernelArg::from(h)],
        )
        .expect("launch");
        let back = dev.read_array(&s).expect("read array");
        let got: Vec<u32> = back
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(
            got,
            (0..8u32).map(|i| 10 * i + 1).collect::<Vec<_>>(),
            "{b:?} surface"
        );
        for o in [lin, pt, t, h] {
            dev.destroy_tex_object(o).expect("destroy");
        }
        for arr in [a, a2, s] {
            dev.destroy_array(arr).expect("destroy array");
        }
    }
}

#[test]
fn unsupported_texture_forms_are_load_errors() {
    let dev = Device::new().expect("device");
    let forms = [
        // The ISA's `sust.p` has no layered geometries.
        (
            "sust.p.a1d.b32.trap [%t, {%r, %r}], %r;",
            "sust.p.a1d.b32.trap",
        ),
        (
            "tex.2dms.v4.f32.s32 {%f, %f, %f, %f}, [%t, {%r, %r, %r, %r}];",
            "tex.2dms.v4.f32.s32",
        ),
    ];
    for (inst, name) in forms {
        let src = format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .u64 %t;\n\t.reg .u32 %r;\n\t.reg .f32 %f;\n\tld.param.u64 %t, [p];\n\tmov.u32 %r, 0;\n\tmov.f32 %f, 0f00000000;\n\t{inst}\n\tret;\n}}\n"
        );
        let e = match dev.load_ptx(&src, "k.ptx") {
            Ok(_) => panic!("{inst} must not load"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(&format!("instruction '{name}' is not supported yet"))
                && e.contains("k.ptx:12:"),
            "{inst}: {e}"
        );
    }
}
