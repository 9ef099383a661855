//! Mipmapped arrays and texture objects over them through the Rust API, on both
//! backends (`tests/kernels/tex_mipmap.ptx`, hand-written: ptxas accepts it for sm_52
//! and sm_90). The level rule is ptxjit's documented one (`src/exec/mipmap.rs`: the ISA
//! and the programming guide do not give it): LOD + bias clamped to [min, max] and to
//! the levels; point mipmap filtering takes `ceil(lod + 1/2) - 1` (0 up to 1/2), linear
//! blends `floor(lod)` and the next level with weight `frac(lod)` in 1/256. Expected
//! values are worked out by hand in the comments. `tex.grad`'s level of detail is
//! OpenGL's `log2(max(|dP/dx|, |dP/dy|))` in level-0 texels. Not checked against a GPU.

use ptxjit::runtime::mipmap::MipmapDesc;
use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/tex_mipmap.ptx");

fn desc(normalized: bool) -> TextureDesc {
    TextureDesc {
        address: [AddressMode::Clamp; 3],
        linear: false,
        normalized,
        read_as_integer: false,
        border: [0.0; 4],
    }
}

fn mip(linear: bool, bias: f32, min_clamp: f32, max_clamp: f32) -> MipmapDesc {
    MipmapDesc {
        linear,
        bias,
        min_clamp,
        max_clamp,
    }
}

/// Runs `kernel` on the (x, y, lod) triples `input` (f32 bits or s32 values).
fn run(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    t: u64,
    input: &[u32],
    b: Backend,
) -> Result<Vec<f32>, String> {
    let n = input.len() / 3;
    let i = dev.alloc_from(input).expect("in");
    let o = dev.alloc_zeroed(4 * n).expect("out");
    dev.launch(
        m,
        kernel,
        &LaunchConfig::new(1, n as u32).backend(b),
        &[KernelArg::from(t), (&i).into(), (&o).into()],
    )
    .map_err(|e| e.to_string())?;
    Ok(dev.read::<f32>(&o).expect("read"))
}

fn f(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn mipmapped_array_levels_halve_down_to_one() {
    let dev = Device::new().expect("device");
    let d = ArrayDesc {
        width: 5,
        height: 0,
        depth: 0,
        format: ArrayFormat::U8,
        channels: 2,
        layered: false,
        surface: false,
        cubemap: false,
    };
    // 5 -> 2 -> 1: three levels at most (5 has 3 significant bits).
    let m = dev.create_mipmapped_array(d, 3).expect("mipmapped");
    let w: Vec<usize> = m.levels.iter().map(|a| a.desc.width).collect();
    assert_eq!(w, [5, 2, 1]);
    assert!(m.level(3).is_none());
    dev.destroy_mipmapped_array(m).expect("destroy");
    assert!(
        dev.create_mipmapped_array(d, 4).is_err(),
        "a fourth level of width 0"
    );
    assert!(dev.create_mipmapped_array(d, 0).is_err(), "no levels");
    // 3-D 8x2x4: 4 levels (8, 4, 2, 1 wide; height 2, 1, 1, 1; depth 4, 2, 1, 1); a
    // layered array keeps its layers.
    let d3 = ArrayDesc {
        width: 8,
        height: 2,
        depth: 4,
        ..d
    };
    let m = dev.create_mipmapped_array(d3, 4).expect("3d");
    let e: Vec<(usize, usize, usize)> = m
        .levels
        .iter()
        .map(|a| (a.desc.width, a.desc.height, a.desc.depth))
        .collect();
    assert_eq!(e, [(8, 2, 4), (4, 1, 2), (2, 1, 1), (1, 1, 1)]);
    let m = dev
        .create_mipmapped_array(
            ArrayDesc {
                layered: true,
                ..d3
            },
            4,
        )
        .expect("layered");
    assert_eq!(m.levels[3].desc.depth, 4, "layers stay");
}

#[test]
fn tex_level_picks_and_blends_levels_on_both_backends() {
    let dev = Device::new().expect("device");
    let d = ArrayDesc {
        width: 4,
        height: 4,
        depth: 0,
        format: ArrayFormat::F32,
        channels: 1,
        layered: false,
        surface: false,
        cubemap: false,
    };
    // Level 0 (4x4): x + 4y; level 1 (2x2): 100 + x + 2y; level 2 (1x1): 1000.
    let arr = dev.create_mipmapped_array(d, 3).expect("mipmapped");
    let l0: Vec<f32> = (0..16).map(|k| k as f32).collect();
    let l1: Vec<f32> = (0..4).map(|k| 100.0 + k as f32).collect();
    for (a, v) in arr.levels.iter().zip([l0, l1, vec![1000.0]]) {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        dev.write_array(a, &bytes).expect("write");
    }
    let point = dev
        .create_mipmapped_texture_object(&arr, desc(true), mip(false, 0.0, 0.0, 10.0))
        .expect("point");
    let linear = dev
        .create_mipmapped_texture_object(&arr, desc(true), mip(true, 0.0, 0.0, 10.0))
        .expect("linear");
    let biased = dev
        .create_mipmapped_texture_object(&arr, desc(true), mip(false, 1.0, 0.5, 1.5))
        .expect("biased");
    let texel = dev
        .create_mipmapped_texture_object(&arr, desc(false), mip(false, 0.0, 0.0, 10.0))
        .expect("texel");
    // At normalised (0.3, 0.6): level 0 texel (1.2, 2.4) -> (1, 2) = 9; level 1 texel
    // (0.6, 1.2) -> (0, 1) = 102; level 2: 1000.
    let at = |lods: &[f32]| -> Vec<u32> { lods.iter().flat_map(|l| f(&[0.3, 0.6, *l])).collect() };
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "tex_mipmap.ptx", b == Backend::Jit)
            .expect("load");
        // Point: 0 and 0.5 -> level 0; 0.75 -> ceil(1.25) - 1 = 1; 1.5 -> ceil(2) - 1 =
        // 1; 1.6 -> ceil(2.1) - 1 = 2; 7 clamps to 2; -3 to 0; NaN is 0.
        let lods = [0.0, 0.5, 0.75, 1.5, 1.6, 7.0, -3.0, f32::NAN];
        let r = run(&dev, &m, "lod2d", point, &at(&lods), b).expect("point");
        assert_eq!(
            r,
            [9.0, 9.0, 102.0, 102.0, 1000.0, 1000.0, 9.0, 9.0],
            "{b:?} point"
        );
        // Linear: 0.25 -> 0.75 * 9 + 0.25 * 102 = 32.25; 1.5 -> (102 + 1000) / 2 = 551;
        // 2 -> level 2 alone; 0.1 -> weight round(25.6) = 26/256: (230 * 9 + 26 * 102) /
        // 256 = 4722/256 = 18.4453125.
        let r = run(&dev, &m, "lod2d", linear, &at(&[0.25, 1.5, 2.0, 0.1]), b).expect("linear");
        assert_eq!(r, [32.25, 551.0, 1000.0, 4722.0 / 256.0], "{b:?} linear");
        // Bias 1, clamps [0.5, 1.5]: 0 -> 1 -> level 1; -2 -> -1 -> 0.5 -> level 0;
        // 5 -> 6 -> 1.5 -> level 1.
        let r = run(&dev, &m, "lod2d", biased, &at(&[0.0, -2.0, 5.0]), b).expect("biased");
        assert_eq!(r, [102.0, 9.0, 102.0], "{b:?} bias and clamps");
        // .base: level 0 whatever the descriptor's bias.
        let r = run(&dev, &m, "base2d", biased, &at(&[3.0]), b).expect("base");
        assert_eq!(r, [9.0], "{b:?} base");
        // .s32 coordinates and level: texel (1, 1) of level 1 = 103, of level 0 = 5;
        // (3, 0) of level 2 is outside its 1x1 extent: 0.
        let r = run(&dev, &m, "ilod2d", texel, &[1, 1, 1, 1, 1, 0, 3, 0, 2], b).expect("s32");
        assert_eq!(r, [103.0, 5.0, 0.0], "{b:?} s32");
        // txq: 3 levels; level 1 is 2 wide, level 2 is 1 high; .width is level 0's.
        let o = dev.alloc_zeroed(16).expect("out");
        let cfg = LaunchConfig::new(1, 1).backend(b);
        dev.launch(&m, "query", &cfg, &[KernelArg::from(point), (&o).into()])
            .expect("query");
        assert_eq!(
            dev.read::<u32>(&o).expect("read"),
            [3, 2, 1, 4],
            "{b:?} txq"
        );
        // tex.grad, dPdx = (g, g), dPdy = 0 (normalised; level 0 is 4 x 4): rho = 4 g
        // sqrt(2), lod = log2(rho). g 0.25: sqrt(2) -> 0.5 -> level 0 (up to 1/2): 9;
        // g 0.5: 2 sqrt(2) -> 1.5 -> ceil(2) - 1 = 1: 102; g 1: 4 sqrt(2) -> 2.5 ->
        // ceil(3) - 1 = 2: 1000; g 0: log2(0) = -inf -> level 0: 9.
        let r = run(&dev, &m, "grad2d", point, &at(&[0.25, 0.5, 1.0, 0.0]), b).expect("grad");
        assert_eq!(r, [9.0, 102.0, 1000.0, 9.0], "{b:?} grad");
    }
}
