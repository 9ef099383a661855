//! Benchmarks: JIT vs interpreter vs native Rust doing the same work, printed as ratios
//! measured in one run. `cargo bench` (or `cargo bench -- --quick` for fewer repetitions).
//!
//! - saxpy over 2^24 floats (`examples/saxpy.ptx`, NVRTC output);
//! - block-sum reduction of 2^22 u32 values, 256 threads per block with shared memory and
//!   `bar.sync` (`tests/kernels/reduce.nvrtc.ptx`).
//!
//! The interpreter runs a smaller problem (it is ~1000x slower) and is compared per
//! element. Native Rust runs single-threaded and on all cores (std threads), as ptxjit
//! uses one OS thread per core.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use std::time::{Duration, Instant};

fn best_of(reps: usize, mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
    }
    best
}

fn per_elem(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e9 / n as f64
}

fn row(name: &str, ns: f64, base: f64) {
    println!(
        "  {name:<34} {ns:>9.3} ns/elem   {:>8.2}x native-1T",
        ns / base
    );
}

fn split_threads<T: Send>(data: &mut [T], threads: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let chunk = data.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (i, c) in data.chunks_mut(chunk).enumerate() {
            let f = &f;
            s.spawn(move || f(i * chunk, c));
        }
    });
}

/// Native saxpy with hardware FMA (the host has it: ptxjit's JIT requires it too).
#[target_feature(enable = "avx2,fma")]
fn saxpy_native(a: f32, x: &[f32], y: &mut [f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi = a.mul_add(*xi, *yi);
    }
}

fn main() {
    assert!(
        std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2"),
        "the benchmarks need AVX2 and FMA"
    );
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let quick = args.iter().any(|a| a == "--quick");
    // Optional filters: `cargo bench -- saxpy` or `cargo bench -- reduce`.
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let want = |k: &str| names.is_empty() || names.iter().any(|n| k.contains(n.as_str()));
    let reps = if quick { 2 } else { 5 };
    let dev = Device::new().expect("device");
    let threads = dev.options().threads;
    println!("ptxjit benchmarks ({threads} worker threads, best of {reps})");

    if want("saxpy") {
        bench_saxpy(&dev, reps, threads);
    }
    if want("reduce") {
        bench_reduce(&dev, reps, threads);
    }
}

fn bench_saxpy(dev: &Device, reps: usize, threads: usize) {
    let saxpy = dev
        .load_ptx(include_str!("../examples/saxpy.ptx"), "saxpy.ptx")
        .expect("load saxpy");
    let n = 1usize << 24;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 777) as f32).collect();
    let a = 2.0f32;
    let bx = dev.alloc_from(&x).unwrap();
    let by = dev.alloc_from(&y0).unwrap();
    let cfg = LaunchConfig::new((n as u32).div_ceil(256), 256);
    let args = [
        KernelArg::U32(n as u32),
        KernelArg::F32(a),
        KernelArg::from(&bx),
        KernelArg::from(&by),
    ];
    let t_jit = best_of(reps, || dev.launch(&saxpy, "saxpy", &cfg, &args).unwrap());
    let ni = 1usize << 18;
    let cfg_i = LaunchConfig::new((ni as u32).div_ceil(256), 256).backend(Backend::Interp);
    let args_i = [
        KernelArg::U32(ni as u32),
        KernelArg::F32(a),
        KernelArg::from(&bx),
        KernelArg::from(&by),
    ];
    let t_interp = best_of(reps.min(2), || {
        dev.launch(&saxpy, "saxpy", &cfg_i, &args_i).unwrap()
    });
    let mut y = y0.clone();
    // SAFETY (both calls): AVX2 and FMA were detected above.
    let t_native = best_of(reps, || {
        unsafe { saxpy_native(a, &x, &mut y) };
        std::hint::black_box(&mut y);
    });
    let t_native_mt = best_of(reps, || {
        split_threads(&mut y, threads, |start, c| unsafe {
            saxpy_native(a, &x[start..start + c.len()], c)
        });
        std::hint::black_box(&mut y);
    });
    let base = per_elem(t_native, n);
    println!("saxpy, n = 2^24 (interpreter: 2^18)");
    row("native Rust, 1 thread", base, base);
    row(
        &format!("native Rust, {threads} threads"),
        per_elem(t_native_mt, n),
        base,
    );
    row("ptxjit JIT", per_elem(t_jit, n), base);
    row("ptxjit interpreter", per_elem(t_interp, ni), base);
    println!(
        "  ratios: JIT/native-{threads}T = {:.2}, interpreter/JIT = {:.0}",
        per_elem(t_jit, n) / per_elem(t_native_mt, n),
        per_elem(t_interp, ni) / per_elem(t_jit, n)
    );
}

fn bench_reduce(dev: &Device, reps: usize, threads: usize) {
    let reduce = dev
        .load_ptx(
            include_str!("../tests/kernels/reduce.nvrtc.ptx"),
            "reduce.nvrtc.ptx",
        )
        .expect("load reduce");
    let n = 1usize << 22;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 8)
        .collect();
    let blocks = n.div_ceil(256);
    let bin = dev.alloc_from(&input).unwrap();
    let bout = dev.alloc_zeroed(blocks * 4).unwrap();
    let cfg = LaunchConfig::new(blocks as u32, 256);
    let args = [
        KernelArg::from(&bin),
        KernelArg::from(&bout),
        KernelArg::U32(n as u32),
    ];
    let t_jit = best_of(reps, || {
        dev.launch(&reduce, "block_sum_u32", &cfg, &args).unwrap()
    });
    let expect: Vec<u32> = input
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |s, v| s.wrapping_add(*v)))
        .collect();
    assert_eq!(
        dev.read::<u32>(&bout).unwrap(),
        expect,
        "JIT reduction result"
    );
    let ni = 1usize << 16;
    let cfg_i = LaunchConfig::new((ni / 256) as u32, 256).backend(Backend::Interp);
    let args_i = [
        KernelArg::from(&bin),
        KernelArg::from(&bout),
        KernelArg::U32(ni as u32),
    ];
    let t_interp = best_of(reps.min(2), || {
        dev.launch(&reduce, "block_sum_u32", &cfg_i, &args_i)
            .unwrap()
    });
    let mut partial = vec![0u32; blocks];
    let t_native = best_of(reps, || {
        for (p, c) in partial.iter_mut().zip(input.chunks(256)) {
            *p = c.iter().fold(0u32, |s, v| s.wrapping_add(*v));
        }
        std::hint::black_box(&mut partial);
    });
    let t_native_mt = best_of(reps, || {
        split_threads(&mut partial, threads, |start, ps| {
            for (k, p) in ps.iter_mut().enumerate() {
                let b = start + k;
                *p = input[b * 256..(b + 1) * 256]
                    .iter()
                    .fold(0u32, |s, v| s.wrapping_add(*v));
            }
        });
        std::hint::black_box(&mut partial);
    });
    let base = per_elem(t_native, n);
    println!("block_sum_u32, n = 2^22, 256 threads/block (interpreter: 2^16)");
    row("native Rust, 1 thread", base, base);
    row(
        &format!("native Rust, {threads} threads"),
        per_elem(t_native_mt, n),
        base,
    );
    row("ptxjit JIT", per_elem(t_jit, n), base);
    row("ptxjit interpreter", per_elem(t_interp, ni), base);
    println!(
        "  ratios: JIT/native-{threads}T = {:.2}, interpreter/JIT = {:.0}",
        per_elem(t_jit, n) / per_elem(t_native_mt, n),
        per_elem(t_interp, ni) / per_elem(t_jit, n)
    );
}
