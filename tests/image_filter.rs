//! A texture-sampling image filter as a client would write it (issue 17): a CUDA C++
//! 3x3 binomial blur and a Sobel gradient magnitude reading a float image through a 2D
//! texture object (point sampling, clamp addressing), compiled by NVRTC with
//! `-fmad=false` (`tests/kernels/image/`, `regen.sh`), on both backends. The reference is
//! plain Rust doing the same IEEE operations in the same order (the clamped neighbour
//! is what point sampling at `x + 0.5` with clamp addressing returns, per the CUDA
//! programming guide's texture-fetching appendix); results are compared bit for bit.
#[macro_use]
mod common;
use common::*;
use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};

const W: usize = 67;
const H: usize = 45;

/// The image: smooth gradients plus noise, so every pixel differs.
fn image() -> Vec<f32> {
    let mut rng = Rng::new(17);
    (0..W * H)
        .map(|i| {
            let (x, y) = ((i % W) as f32, (i / W) as f32);
            0.01 * x + 0.02 * y + rng.f32()
        })
        .collect()
}

/// Point sampling with clamp addressing at texel `(x, y)`.
fn at(img: &[f32], x: i64, y: i64) -> f32 {
    let x = x.clamp(0, W as i64 - 1) as usize;
    let y = y.clamp(0, H as i64 - 1) as usize;
    img[y * W + x]
}

fn blur_ref(img: &[f32]) -> Vec<f32> {
    let k = [1.0f32, 2.0, 1.0];
    let mut out = vec![0.0; W * H];
    for y in 0..H as i64 {
        for x in 0..W as i64 {
            let mut acc = 0.0f32;
            for dy in -1..=1i64 {
                for dx in -1..=1i64 {
                    let w = k[(dy + 1) as usize] * k[(dx + 1) as usize];
                    acc += w * at(img, x + dx, y + dy);
                }
            }
            out[y as usize * W + x as usize] = acc * 0.0625;
        }
    }
    out
}

fn sobel_ref(img: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0; W * H];
    for y in 0..H as i64 {
        for x in 0..W as i64 {
            let p = |dx: i64, dy: i64| at(img, x + dx, y + dy);
            let (a, b, c) = (p(-1, -1), p(0, -1), p(1, -1));
            let (d, f) = (p(-1, 0), p(1, 0));
            let (g, h, i) = (p(-1, 1), p(0, 1), p(1, 1));
            let gx = (c + 2.0 * f + i) - (a + 2.0 * d + g);
            let gy = (g + 2.0 * h + i) - (a + 2.0 * b + c);
            out[y as usize * W + x as usize] = (gx * gx + gy * gy).sqrt();
        }
    }
    out
}

fn image_filter(backend: Backend) {
    let dev = device();
    let src = load("image/image_filter.nvrtc.ptx");
    let m = dev
        .load_ptx_with(&src, "image_filter.nvrtc.ptx", backend == Backend::Jit)
        .unwrap_or_else(|e| panic!("{e}"));
    let img = image();
    let arr = dev
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
    let bytes: Vec<u8> = img.iter().flat_map(|v| v.to_le_bytes()).collect();
    dev.write_array(&arr, &bytes).expect("write array");
    let tex = dev
        .create_texture_object(
            arr.resource(),
            TextureDesc {
                address: [AddressMode::Clamp; 3],
                linear: false,
                normalized: false,
                read_as_integer: false,
                border: [0.0; 4],
            },
        )
        .expect("texture object");
    for (kernel, want) in [("blur3x3", blur_ref(&img)), ("sobel", sobel_ref(&img))] {
        let out = zeroed(&dev, W * H * 4);
        let cfg = cfg(
            [W.div_ceil(16) as u32, H.div_ceil(8) as u32, 1],
            [16, 8, 1],
            backend,
        );
        let args = [
            KernelArg::from(tex),
            arg(&out),
            KernelArg::from(W as i32),
            KernelArg::from(H as i32),
        ];
        launch(&dev, &m, kernel, &cfg, &args, kernel);
        let got: Vec<f32> = dev.read(&out).expect("read");
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_slice_eq(
            &bits(&got),
            &bits(&want),
            &format!("{kernel} on {backend:?}"),
        );
    }
}
both_backends!(image_filter);
