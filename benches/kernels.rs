//! Benchmarks: JIT vs interpreter vs native Rust doing the same work, printed as ratios
//! measured in one run. `cargo bench` (or `cargo bench -- --quick` for fewer repetitions).
//!
//! - saxpy over 2^24 floats (`examples/saxpy.ptx`, NVRTC output);
//! - block-sum reduction of 2^22 u32 values, 256 threads per block with shared memory and
//!   `bar.sync` (`tests/kernels/reduce.nvrtc.ptx`);
//! - mandelbrot escape counts on a 512x512 grid, maxit 256: a per-lane divergent loop
//!   (`tests/kernels/mandelbrot.nvrtc.ptx`);
//! - a stack-machine bytecode interpreter, one `switch` dispatch per step, ~1M steps per
//!   launch (`tests/kernels/spec_bytecode.ptx`: NVRTC's output with the switch turned into
//!   one `brx.idx`; `tests/kernels/bytecode.nvrtc.ptx`: as NVRTC emits it, a compare tree).
//!
//! - histograms with global and shared atomics and a warp-shuffle reduction
//!   (`collectives.rs`), also on 1 worker thread for the scaling ratio;
//! - tiled sgemm, n-body and a warp-shuffle block scan (`compute.rs`).
//!
//! The interpreter runs a smaller problem (it is ~1000x slower) and is compared per
//! element. Native Rust runs single-threaded and on all cores (rayon), as ptxjit uses one
//! OS thread per core. With `--features pocl` every kernel but warp_reduce also runs in
//! its OpenCL C version (`opencl/kernels.cl`) on POCL (`pocl.rs`). The run ends with one
//! Markdown table of all the kernels (`table.rs`). The numbers in README.md were taken
//! with `RUSTFLAGS="-C target-cpu=native" cargo bench --features pocl --bench kernels`.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use std::time::Duration;

#[path = "parts/bytecode.rs"]
mod bytecode;
#[path = "parts/collectives.rs"]
mod collectives;
#[path = "parts/compute.rs"]
mod compute;
#[path = "parts/pocl.rs"]
mod pocl;
#[path = "parts/table.rs"]
mod table;
#[path = "parts/timing.rs"]
mod timing;
use bytecode::*;
use timing::best_of;

use pocl::{bytes, f32s, u32s, Arg, Pocl};
use rayon::prelude::*;

fn per_elem(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e9 / n as f64
}

fn row(name: &str, ns: f64, base: f64) {
    println!(
        "  {name:<34} {ns:>9.3} ns/elem   {:>8.2}x native-1T",
        ns / base
    );
}

/// The standard rows (ns per element) and the ratios of one benchmark, also recorded as
/// the row `kernel` of the summary table.
fn report(
    kernel: &str,
    threads: usize,
    native_1t: f64,
    native_mt: f64,
    jit: f64,
    interp: f64,
    pocl: Option<f64>,
) {
    row("native Rust, 1 thread", native_1t, native_1t);
    row(
        &format!("native Rust, {threads} threads"),
        native_mt,
        native_1t,
    );
    row("ptxjit JIT", jit, native_1t);
    row("ptxjit interpreter", interp, native_1t);
    if let Some(p) = pocl {
        row("POCL", p, native_1t);
    }
    println!(
        "  ratios: JIT/native-{threads}T = {:.2}, interpreter/JIT = {:.0}{}",
        jit / native_mt,
        interp / jit,
        pocl.map(|p| format!(", JIT/POCL = {:.2}", jit / p))
            .unwrap_or_default()
    );
    table::record(kernel, native_1t, native_mt, jit, interp, pocl);
}

/// Runs `f(start, chunk)` on `threads` equal chunks of `data` in parallel (rayon).
fn split_threads<T: Send>(data: &mut [T], threads: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let chunk = data.len().div_ceil(threads).max(1);
    data.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(i, c)| f(i * chunk, c));
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
    // Optional filters: `cargo bench -- saxpy` (also reduce, mandelbrot, bytecode,
    // histogram, warp_reduce, sgemm, nbody, scan).
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let want = |k: &str| names.is_empty() || names.iter().any(|n| k.contains(n.as_str()));
    let reps = if quick { 2 } else { 5 };
    let dev = Device::new().expect("device");
    let threads = dev.options().threads;
    println!(
        "ptxjit benchmarks ({threads} worker threads, rayon on {} threads, best of {reps})",
        rayon::current_num_threads()
    );
    let cl = Pocl::new();
    let pocl = cl.as_ref();
    if let Some(p) = pocl {
        println!("POCL: {}", p.name());
    }

    if want("saxpy") {
        bench_saxpy(&dev, pocl, reps, threads);
    }
    if want("reduce") {
        bench_reduce(&dev, pocl, reps, threads);
    }
    if want("mandelbrot") {
        bench_mandelbrot(&dev, pocl, reps, threads);
    }
    if want("bytecode") {
        bench_bytecode(&dev, pocl, reps, threads);
    }
    if want("histogram") {
        collectives::bench_histogram(pocl, reps, threads);
    }
    if want("warp_reduce") {
        collectives::bench_warp_reduce(reps, threads);
    }
    if want("sgemm") {
        compute::bench_sgemm(&dev, pocl, reps, threads);
    }
    if want("nbody") {
        compute::bench_nbody(&dev, pocl, reps, threads);
    }
    if want("scan") {
        compute::bench_scan(&dev, pocl, reps, threads);
    }
    table::print(threads, pocl.map(|p| p.name()));
}

fn bench_saxpy(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
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
    // The per-warp overhead alone: the same grid with `n = 0`, where every warp only
    // computes its mask and exits (best of 15 launches, ns per warp).
    let args0 = [
        KernelArg::U32(0),
        KernelArg::F32(a),
        KernelArg::from(&bx),
        KernelArg::from(&by),
    ];
    let t_zero = best_of(15, || dev.launch(&saxpy, "saxpy", &cfg, &args0).unwrap());
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
    let p = pocl.map(|cl| {
        let r = cl.run(
            "saxpy",
            &[n],
            &[256],
            &[
                Arg::U32(n as u32),
                Arg::F32(a),
                Arg::Buf(&bytes(&x)),
                Arg::Buf(&bytes(&y0)),
            ],
            reps,
        );
        let want = y0.iter().zip(&x).map(|(y, x)| a.mul_add(*x, *y).to_bits());
        assert!(
            f32s(&r.buffers[1]).iter().map(|v| v.to_bits()).eq(want),
            "POCL saxpy differs"
        );
        per_elem(r.best, n)
    });
    let base = per_elem(t_native, n);
    println!("saxpy, n = 2^24 (interpreter: 2^18)");
    println!(
        "  JIT per-warp overhead (n = 0)      {:>9.3} ns/warp",
        per_elem(t_zero, n / 32)
    );
    report(
        "saxpy, 2^24 f32",
        threads,
        base,
        per_elem(t_native_mt, n),
        per_elem(t_jit, n),
        per_elem(t_interp, ni),
        p,
    );
}

fn bench_reduce(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
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
    let p = pocl.map(|cl| {
        let r = cl.run(
            "block_sum_u32",
            &[n],
            &[256],
            &[
                Arg::Buf(&bytes(&input)),
                Arg::Zeroed(blocks * 4),
                Arg::U32(n as u32),
            ],
            reps,
        );
        assert!(u32s(&r.buffers[1]) == expect, "POCL reduction differs");
        per_elem(r.best, n)
    });
    let base = per_elem(t_native, n);
    println!("block_sum_u32, n = 2^22, 256 threads/block (interpreter: 2^16)");
    report(
        "block_sum_u32 (shared memory + bar.sync), 2^22",
        threads,
        base,
        per_elem(t_native_mt, n),
        per_elem(t_jit, n),
        per_elem(t_interp, ni),
        p,
    );
}

/// Escape count of pixel (px, py) of a w x h grid over [-2, 1] x [-1.5, 1.5]: the same f32
/// operations in the same order as `mandel` in tests/kernels/mandelbrot.cu (which uses
/// `__fmul_rn`/`__fadd_rn`, so nothing is contracted into an FMA), hence bit-identical.
fn mandel_pixel(px: i32, py: i32, w: i32, h: i32, maxit: i32) -> u32 {
    let sx = 3.0f32 / w as f32;
    let sy = 3.0f32 / h as f32;
    let cx = -2.0f32 + px as f32 * sx;
    let cy = -1.5f32 + py as f32 * sy;
    let (mut x, mut y, mut xx, mut yy) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let mut it = 0;
    while xx + yy <= 4.0 && it < maxit {
        y = (x + x) * y + cy;
        x = (xx - yy) + cx; // the kernel's xx + (-yy): the same IEEE result
        xx = x * x;
        yy = y * y;
        it += 1;
    }
    it as u32
}

fn mandel_rows(out: &mut [u32], first_row: usize, w: usize, h: usize, maxit: i32) {
    for (r, row) in out.chunks_mut(w).enumerate() {
        for (px, o) in row.iter_mut().enumerate() {
            *o = mandel_pixel(px as i32, (first_row + r) as i32, w as i32, h as i32, maxit);
        }
    }
}

fn bench_mandelbrot(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
    let m = dev
        .load_ptx(
            include_str!("../tests/kernels/mandelbrot.nvrtc.ptx"),
            "mandelbrot.nvrtc.ptx",
        )
        .expect("load mandelbrot");
    let (w, h, maxit) = (512usize, 512usize, 256i32);
    let n = w * h;
    let mut expect = vec![0u32; n];
    mandel_rows(&mut expect, 0, w, h, maxit);
    let bout = dev.alloc_zeroed(n * 4).unwrap();
    // Block 32 x 4: each warp is 32 neighbouring pixels of one row.
    let cfg = LaunchConfig::new(((w / 32) as u32, (h / 4) as u32), (32, 4));
    let args = [
        KernelArg::from(&bout),
        KernelArg::U32(w as u32),
        KernelArg::U32(h as u32),
        KernelArg::U32(maxit as u32),
    ];
    dev.launch(&m, "mandel", &cfg, &args).unwrap();
    assert!(
        dev.read::<u32>(&bout).unwrap() == expect,
        "JIT mandelbrot differs from native"
    );
    let t_jit = best_of(reps, || dev.launch(&m, "mandel", &cfg, &args).unwrap());

    let (wi, hi) = (64usize, 64usize);
    let ni = wi * hi;
    let mut expect_i = vec![0u32; ni];
    mandel_rows(&mut expect_i, 0, wi, hi, maxit);
    let bout_i = dev.alloc_zeroed(ni * 4).unwrap();
    let cfg_i =
        LaunchConfig::new(((wi / 32) as u32, (hi / 4) as u32), (32, 4)).backend(Backend::Interp);
    let args_i = [
        KernelArg::from(&bout_i),
        KernelArg::U32(wi as u32),
        KernelArg::U32(hi as u32),
        KernelArg::U32(maxit as u32),
    ];
    let t_interp = best_of(reps.min(2), || {
        dev.launch(&m, "mandel", &cfg_i, &args_i).unwrap()
    });
    assert!(
        dev.read::<u32>(&bout_i).unwrap() == expect_i,
        "interpreter mandelbrot differs from native"
    );

    let mut out = vec![0u32; n];
    let t_native = best_of(reps, || {
        mandel_rows(&mut out, 0, w, h, maxit);
        std::hint::black_box(&mut out);
    });
    // One rayon task per row (the middle rows cost far more than the edges).
    let t_native_mt = best_of(reps, || {
        out.par_chunks_mut(w)
            .enumerate()
            .for_each(|(y, row)| mandel_rows(row, y, w, h, maxit));
        std::hint::black_box(&mut out);
    });
    assert!(out == expect);
    let p = pocl.map(|cl| {
        let r = cl.run(
            "mandel",
            &[w, h],
            &[32, 4],
            &[
                Arg::Zeroed(n * 4),
                Arg::I32(w as i32),
                Arg::I32(h as i32),
                Arg::I32(maxit),
            ],
            reps,
        );
        assert!(u32s(&r.buffers[0]) == expect, "POCL mandelbrot differs");
        per_elem(r.best, n)
    });
    let mean = |v: &[u32]| v.iter().map(|&i| i as f64).sum::<f64>() / v.len() as f64;
    let base = per_elem(t_native, n);
    println!(
        "mandelbrot, {w}x{h} pixels, maxit {maxit}, {:.1} iterations/pixel (interpreter: {wi}x{hi}, {:.1})",
        mean(&expect),
        mean(&expect_i)
    );
    report(
        "mandelbrot 512², maxit 256 (per pixel)",
        threads,
        base,
        per_elem(t_native_mt, n),
        per_elem(t_jit, n),
        per_elem(t_interp, ni),
        p,
    );
}

/// `iters` rounds of: xorshift the value, then (data-dependent branch) either add and
/// shift it or multiply and xor it; a counter on the stack drives the loop.
fn bytecode_program(iters: u32) -> Vec<u32> {
    let e = |op: u32, imm: u32| op | (imm << 8);
    let mut p = vec![e(OP_IN, 0), e(OP_PUSH, iters)]; // [x c]
    let top = p.len() as u32;
    p.push(e(OP_SWAP, 0)); // [c x]
    for sh in [(OP_SHL, 13), (OP_SHR, 17), (OP_SHL, 5)] {
        p.extend([e(OP_DUP, 0), e(OP_PUSH, sh.1), e(sh.0, 0), e(OP_XOR, 0)]);
    }
    p.extend([e(OP_DUP, 0), e(OP_PUSH, 1), e(OP_AND, 0)]); // [c x x&1]
    let jnz_odd = p.len();
    p.push(0); // JNZ odd, patched below
    p.extend([
        e(OP_PUSH, 0x9e37),
        e(OP_ADD, 0),
        e(OP_PUSH, 0x3ff),
        e(OP_SUB, 0),
    ]);
    let jmp_join = p.len();
    p.push(0); // JMP join, patched below
    let odd = p.len() as u32;
    p.extend([
        e(OP_PUSH, 0x2b),
        e(OP_MUL, 0),
        e(OP_PUSH, 0x55aa),
        e(OP_XOR, 0),
    ]);
    let join = p.len() as u32;
    p[jnz_odd] = e(OP_JNZ, odd);
    p[jmp_join] = e(OP_JMP, join);
    // [c x] -> [x c-1], loop while c-1 != 0
    p.extend([e(OP_SWAP, 0), e(OP_DEC, 0), e(OP_DUP, 0), e(OP_JNZ, top)]);
    p.extend([e(OP_DROP, 0), e(OP_HALT, 0)]);
    p
}

fn bench_bytecode(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
    let brx = dev
        .load_ptx(
            include_str!("../tests/kernels/spec_bytecode.ptx"),
            "spec_bytecode.ptx",
        )
        .expect("load spec_bytecode");
    let tree = dev
        .load_ptx(
            include_str!("../tests/kernels/bytecode.nvrtc.ptx"),
            "bytecode.nvrtc.ptx",
        )
        .expect("load bytecode");
    assert!(include_str!("../tests/kernels/spec_bytecode.ptx").contains("brx.idx"));
    let code = bytecode_program(10);
    let max_steps = 1u32 << 20;
    let n = 4096usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) ^ 0x5bd1_e995)
        .collect();
    let expect: Vec<(u32, u32)> = input
        .iter()
        .map(|&x| bytecode::run(&code, x, max_steps))
        .collect();
    let steps_of = |k: usize| expect[..k].iter().map(|e| e.1 as usize).sum::<usize>();
    let steps = steps_of(n);
    let expect_out: Vec<u32> = expect.iter().map(|e| e.0).collect();
    let bcode = dev.alloc_from(&code).unwrap();
    let bin = dev.alloc_from(&input).unwrap();
    let bout = dev.alloc_zeroed(n * 4).unwrap();
    let launch = |m: &ptxjit::Module, count: usize, backend: Backend| {
        let cfg = LaunchConfig::new((count as u32).div_ceil(128), 128).backend(backend);
        let args = [
            KernelArg::from(&bcode),
            KernelArg::U32(code.len() as u32),
            KernelArg::from(&bin),
            KernelArg::from(&bout),
            KernelArg::U32(count as u32),
            KernelArg::U32(max_steps),
        ];
        dev.launch(m, "bytecode", &cfg, &args).unwrap();
    };
    let mut t_jit = [Duration::ZERO; 2];
    for (t, m) in t_jit.iter_mut().zip([&brx, &tree]) {
        dev.write(&bout, &vec![0u32; n]).unwrap();
        launch(m, n, Backend::Jit);
        assert!(
            dev.read::<u32>(&bout).unwrap() == expect_out,
            "JIT bytecode output differs from native"
        );
        *t = best_of(reps, || launch(m, n, Backend::Jit));
    }
    let ni = 256usize;
    let steps_i = steps_of(ni);
    dev.write(&bout, &vec![0u32; n]).unwrap();
    let t_interp = best_of(reps.min(2), || launch(&brx, ni, Backend::Interp));
    assert!(dev.read::<u32>(&bout).unwrap()[..ni] == expect_out[..ni]);

    let mut out = vec![0u32; n];
    let t_native = best_of(reps, || {
        for (o, &x) in out.iter_mut().zip(&input) {
            *o = bytecode::run(std::hint::black_box(&code), x, max_steps).0;
        }
        std::hint::black_box(&mut out);
    });
    let t_native_mt = best_of(reps, || {
        split_threads(&mut out, threads, |start, c| {
            for (o, &x) in c.iter_mut().zip(&input[start..]) {
                *o = bytecode::run(std::hint::black_box(&code), x, max_steps).0;
            }
        });
        std::hint::black_box(&mut out);
    });
    assert!(out == expect_out);
    let p = pocl.map(|cl| {
        let r = cl.run(
            "bytecode",
            &[n],
            &[128],
            &[
                Arg::Buf(&bytes(&code)),
                Arg::U32(code.len() as u32),
                Arg::Buf(&bytes(&input)),
                Arg::Zeroed(n * 4),
                Arg::U32(n as u32),
                Arg::U32(max_steps),
            ],
            reps,
        );
        assert!(u32s(&r.buffers[2]) == expect_out, "POCL bytecode differs");
        per_elem(r.best, steps)
    });
    let base = per_elem(t_native, steps);
    println!(
        "bytecode, {n} threads x {} steps ({steps} steps, {}-instruction program; interpreter: {ni} threads); per elem = per step",
        steps / n,
        code.len()
    );
    row("native Rust (match), 1 thread", base, base);
    row(
        &format!("native Rust (match), {threads} threads"),
        per_elem(t_native_mt, steps),
        base,
    );
    row("ptxjit JIT, brx.idx", per_elem(t_jit[0], steps), base);
    row(
        "ptxjit JIT, NVRTC compare tree",
        per_elem(t_jit[1], steps),
        base,
    );
    row(
        "ptxjit interpreter, brx.idx",
        per_elem(t_interp, steps_i),
        base,
    );
    if let Some(p) = p {
        row("POCL (switch)", p, base);
    }
    println!(
        "  ratios: JIT/native-{threads}T = {:.2} (tree: {:.2}), interpreter/JIT = {:.0}",
        per_elem(t_jit[0], steps) / per_elem(t_native_mt, steps),
        per_elem(t_jit[1], steps) / per_elem(t_native_mt, steps),
        per_elem(t_interp, steps_i) / per_elem(t_jit[0], steps)
    );
    table::record(
        "bytecode interpreter, brx.idx (per step)",
        base,
        per_elem(t_native_mt, steps),
        per_elem(t_jit[0], steps),
        per_elem(t_interp, steps_i),
        p,
    );
}
