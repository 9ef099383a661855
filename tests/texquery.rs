//! `txq` and `suq` on texture and surface objects made through the Rust API
//! (`tests/kernels/texquery.ptx`, accepted by ptxas), on both backends. The expected
//! words follow from the objects' descriptors and the encodings of the ISA's `txq`/`suq`
//! tables (`.filter_mode`: nearest 0, linear 1; `.addr_mode_N`: wrap 0, mirror 1,
//! clamp_ogl 2, clamp_to_edge 3, clamp_to_border 4). No GPU recording exists: the
//! H100 run of `tests/golden` could not launch its txq/suq kernels (tests/golden/README.md).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};

const PTX: &str = "texquery.ptx";

fn queries(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    // A 7 x 5 f32 array sampled with wrap / mirror / border, linear, normalised.
    let a = dev
        .create_array(ArrayDesc {
            width: 7,
            height: 5,
            depth: 0,
            format: ArrayFormat::F32,
            channels: 1,
            layered: false,
            surface: false,
            cubemap: false,
        })
        .unwrap();
    let desc = TextureDesc {
        address: [AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border],
        linear: true,
        normalized: true,
        read_as_integer: false,
        border: [0.0; 4],
    };
    let t = dev.create_texture_object(a.resource(), desc).unwrap();
    // A layered 2D surface of 4 x 3 texels and 2 layers.
    let sa = dev
        .create_array(ArrayDesc {
            width: 4,
            height: 3,
            depth: 2,
            format: ArrayFormat::U32,
            channels: 4,
            layered: true,
            surface: true,
            cubemap: false,
        })
        .unwrap();
    let s = dev.create_surface_object(&sa).unwrap();
    let out = zeroed(&dev, 19 * 4);
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    let args = [KernelArg::from(t), KernelArg::from(s), arg(&out)];
    launch(&dev, &m, "q", &c, &args, "q");
    let want = vec![
        7, 5, 0, // width, height, depth (a 2D array has no depth)
        1, 0, 0, 0, 0, // normalized, array_size, mipmap levels, samples, force_unnormalized
        1, 0, 1, 4, // linear filter; wrap, mirror, clamp_to_border
        7, // txq.level.width at level 0
        4, 3, 0, 2, 0, // suq: width, height, depth (layered: 0), 2 layers, array layout
        0, // not written (the buffer's last word)
    ];
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
    // Level 1 does not exist; a surface object has no sampler state.
    let e = dev
        .launch(&m, "bad_level", &c, &[KernelArg::from(t), arg(&out)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("level 1 does not exist") && e.contains("texquery.ptx:"),
        "{e}"
    );
    let e = dev
        .launch(
            &m,
            "sampler_of_surface",
            &c,
            &[KernelArg::from(s), arg(&out)],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("no sampler state"), "{e}");
}

/// The channel queries (a source language's enumeration) and `.texref` operands are
/// located load-time errors.
fn unsupported(backend: Backend) {
    let dev = device();
    for (inst, want) in [
        ("txq.channel_order.b32 %r, [%t];", "txq.channel_order.b32"),
        (
            "suq.channel_data_type.b32 %r, [%t];",
            "suq.channel_data_type.b32",
        ),
    ] {
        let src = format!(
            ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n\
             {{\n.reg .u64 %t;\n.reg .b32 %r;\nld.param.u64 %t, [p];\n{inst}\nret;\n}}\n"
        );
        let e = match backend {
            Backend::Jit => dev.load_ptx(&src, "k.ptx"),
            Backend::Interp => dev.load_ptx_with(&src, "k.ptx", false),
        }
        .err()
        .unwrap_or_else(|| panic!("{inst} loaded"))
        .to_string();
        assert!(e.contains("k.ptx:9:") && e.contains(want), "{e}");
    }
}

both_backends!(queries, unsupported);
