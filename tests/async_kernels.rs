//! Client kernels of the asynchronous-copy features, compiled by NVRTC from CUDA C++
//! (`tests/kernels/async/*.cu`, `regen.sh` there): libcu++'s `cuda::pipeline` /
//! `cuda::memcpy_async` (per-thread and block-scope pipelines: `cp.async` groups,
//! mbarriers) and `cuda::barrier` (arrive/wait, tokens, `memcpy_async` completed through
//! the barrier: `cp.async.mbarrier.arrive` on sm_80, `cp.async.bulk` with
//! `complete_tx` on sm_90), each for compute_80 and compute_90, and a CUTLASS-style GEMM
//! (3-stage `cp.async` pipeline, `ldmatrix`, `mma.sync` m16n8k16) for compute_80. Every
//! output is compared with a Rust reference computed here, on both backends.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const T: usize = 128;

/// Runs `kernel` of `tests/kernels/async/<file>` on `backend` with `blocks` blocks of
/// [`T`] threads: the input buffers, an output of `out` u32 words, then `ints`.
fn run(
    file: &str,
    kernel: &str,
    backend: Backend,
    blocks: u32,
    inputs: &[&[u32]],
    out: usize,
    ints: &[i32],
) -> Vec<u32> {
    let dev = device();
    let m = module(&dev, &format!("async/{file}"), backend);
    let ins: Vec<_> = inputs.iter().map(|v| dev.alloc_from(v).unwrap()).collect();
    let o = zeroed(&dev, out * 4);
    let mut args: Vec<KernelArg> = ins.iter().map(arg).collect();
    args.push(arg(&o));
    args.extend(ints.iter().map(|&i| KernelArg::from(i)));
    let c = cfg([blocks, 1, 1], [T as u32, 1, 1], backend);
    launch(&dev, &m, kernel, &c, &args, &format!("{file} {kernel}"));
    dev.read::<u32>(&o).unwrap()
}

fn input(seed: u64, n: usize) -> Vec<u32> {
    Rng::new(seed).vec_u32(n)
}

fn pipelines(backend: Backend) {
    const B: usize = 3;
    const TILES: usize = 7;
    let x = input(17, B * TILES * T * 4);
    for file in ["pipeline.sm_80.ptx", "pipeline.sm_90.ptx"] {
        // pipe_thread: out = sum_k (k+1) * (x0 + 2 x1 + 3 x2 + 4 x3) of the thread's words.
        let mut want = vec![0u32; B * T];
        for b in 0..B {
            for t in 0..T {
                let mut acc = 0u32;
                for k in 0..TILES {
                    let w = &x[((b * TILES + k) * T + t) * 4..][..4];
                    let s = w[0]
                        .wrapping_add(w[1].wrapping_mul(2))
                        .wrapping_add(w[2].wrapping_mul(3))
                        .wrapping_add(w[3].wrapping_mul(4));
                    acc = acc.wrapping_add((k as u32 + 1).wrapping_mul(s));
                }
                want[b * T + t] = acc;
            }
        }
        let got = run(
            file,
            "pipe_thread",
            backend,
            B as u32,
            &[&x],
            B * T,
            &[TILES as i32],
        );
        assert_slice_eq(&got, &want, &format!("{file} pipe_thread"));
        // pipe_block: out = sum_k (x[(t+1)%T][0] ^ x[t][3]) + k over the block's tiles.
        for b in 0..B {
            for t in 0..T {
                let mut acc = 0u32;
                for k in 0..TILES {
                    let tile = &x[(b * TILES + k) * T * 4..][..T * 4];
                    acc = acc
                        .wrapping_add(tile[((t + 1) % T) * 4] ^ tile[t * 4 + 3])
                        .wrapping_add(k as u32);
                }
                want[b * T + t] = acc;
            }
        }
        let got = run(
            file,
            "pipe_block",
            backend,
            B as u32,
            &[&x],
            B * T,
            &[TILES as i32],
        );
        assert_slice_eq(&got, &want, &format!("{file} pipe_block"));
    }
}

fn barriers(backend: Backend) {
    const B: usize = 2;
    const ROUNDS: usize = 5;
    let x = input(23, B * T);
    for file in ["barrier.sm_80.ptx", "barrier.sm_90.ptx"] {
        let mut want = vec![0u32; B * T];
        for b in 0..B {
            let mut v: Vec<u32> = x[b * T..][..T].to_vec();
            for r in 0..ROUNDS {
                let w = v.clone();
                for t in 0..T {
                    v[t] = w[t].wrapping_mul(3).wrapping_add(w[(t + r + 1) % T]);
                }
            }
            want[b * T..][..T].copy_from_slice(&v);
        }
        let got = run(
            file,
            "bar_rounds",
            backend,
            B as u32,
            &[&x],
            B * T,
            &[ROUNDS as i32],
        );
        assert_slice_eq(&got, &want, &format!("{file} bar_rounds"));
        for b in 0..B {
            let s = &x[b * T..][..T];
            for t in 0..T {
                want[b * T + t] = s[T - 1 - t].wrapping_add(s[t].wrapping_mul(7));
            }
        }
        let got = run(file, "bar_copy", backend, B as u32, &[&x], B * T, &[]);
        assert_slice_eq(&got, &want, &format!("{file} bar_copy"));
    }
}

/// The GEMM on small integers in f16 (|a|, |b| <= 4, K = 96: every product and partial
/// sum is an integer below 2^11, so the mma's f32 accumulation is exact whatever its
/// order and truncation) against the exact integer product.
fn gemm(backend: Backend) {
    let (m, n, k) = (128usize, 192usize, 96usize);
    let mut r = Rng::new(5);
    let a: Vec<i32> = (0..m * k).map(|_| r.range(0, 9) as i32 - 4).collect();
    let b: Vec<i32> = (0..k * n).map(|_| r.range(0, 9) as i32 - 4).collect();
    let f16 = |v: &[i32]| -> Vec<u16> {
        v.iter()
            .map(|&x| half::f16::from_f32(x as f32).to_bits())
            .collect()
    };
    let (ah, bh) = (f16(&a), f16(&b));
    let mut want = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum::<i32>() as f32;
        }
    }
    let dev = device();
    let md = module(&dev, "async/gemm.sm_80.ptx", backend);
    let (da, db) = (dev.alloc_from(&ah).unwrap(), dev.alloc_from(&bh).unwrap());
    let dc = zeroed(&dev, m * n * 4);
    let args = [
        arg(&da),
        arg(&db),
        arg(&dc),
        KernelArg::from(m as i32),
        KernelArg::from(n as i32),
        KernelArg::from(k as i32),
    ];
    let c = cfg([(n / 64) as u32, (m / 64) as u32, 1], [128, 1, 1], backend);
    launch(&dev, &md, "gemm", &c, &args, "gemm");
    let got = dev.read::<f32>(&dc).unwrap();
    assert_f32_bits(&got, &want, "gemm");
}

both_backends!(pipelines, barriers, gemm);
