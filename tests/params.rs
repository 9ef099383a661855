//! A struct passed by value as a kernel parameter (tests/kernels/params.cu): the
//! `.param .align 16 .b8 p[32]` bytes come from KernelArg::Bytes; clang reads the fields
//! through the parameter's address (`mov.b64 %rd, param; ld.param.v4.f32 [%rd+16]`),
//! NVRTC with ld.param at constant offsets.
#[macro_use]
mod common;
use common::*;

/// struct Params { float scale; float bias; unsigned n; int shift; float4 mix; }
fn params_bytes(scale: f32, bias: f32, n: u32, shift: i32, mix: [f32; 4]) -> Vec<u8> {
    let mut b = Vec::with_capacity(32);
    b.extend_from_slice(&scale.to_le_bytes());
    b.extend_from_slice(&bias.to_le_bytes());
    b.extend_from_slice(&n.to_le_bytes());
    b.extend_from_slice(&shift.to_le_bytes());
    for m in mix {
        b.extend_from_slice(&m.to_le_bytes());
    }
    b
}

fn param_struct(backend: Backend) {
    let dev = device();
    for file in variants("params") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block, shift)) in [(1usize, 32u32, 0i32), (100, 64, 3), (1000, 256, 31)]
            .iter()
            .enumerate()
        {
            let mut rng = Rng::new(700 + s as u64);
            let (scale, bias) = (rng.f32(), rng.f32());
            let mix = [rng.f32(), rng.f32(), rng.f32(), rng.f32()];
            let x = rng.vec_f32(n);
            let total = (blocks(n, block) * block) as usize;
            let x_buf = dev.alloc_from(&x).unwrap();
            let y_buf = dev.alloc_from(&vec![-1.0f32; total]).unwrap();
            let z_buf = dev.alloc_from(&vec![-2.0f32; 4 * total]).unwrap();
            let what = format!("{file} param_struct n={n} shift={shift} {backend:?}");
            launch(
                &dev,
                &m,
                "param_struct",
                &cfg([blocks(n, block), 1, 1], [block, 1, 1], backend),
                &[
                    KernelArg::Bytes(params_bytes(scale, bias, n as u32, shift, mix)),
                    arg(&x_buf),
                    arg(&y_buf),
                    arg(&z_buf),
                ],
                &what,
            );
            let mut want_y = vec![-1.0f32; total];
            let mut want_z = vec![-2.0f32; 4 * total];
            for i in 0..n {
                let v = x[i];
                want_y[i] = v * scale + bias; // __fmul_rn then __fadd_rn
                want_z[4 * i..4 * i + 4].copy_from_slice(&[
                    v * mix[0],
                    v + mix[1],
                    v - mix[2],
                    ((i as i32) >> shift) as f32 * mix[3],
                ]);
            }
            assert_f32_bits(
                &dev.read::<f32>(&y_buf).unwrap(),
                &want_y,
                &format!("{what} y"),
            );
            assert_f32_bits(
                &dev.read::<f32>(&z_buf).unwrap(),
                &want_z,
                &format!("{what} z"),
            );
        }
    }
}

both_backends!(param_struct);
