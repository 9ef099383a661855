//! Barrier cost (issue 14.5): `cargo bench --bench barrier` (`-- --quick` for fewer
//! repetitions; row names filter: `-- --quick continuation`; `PTXJIT_BENCH_CPU=1`: CPU
//! time).
//!
//! `benches/ptx/bar_loop.ptx` loops `k` times over `bar.sync 0` with two additions per
//! iteration, in CTAs of 256 threads (8 warps). The figure is the time per warp per
//! barrier: (time with `k` iterations − time with none) / (CTAs × 8 × k), on one worker
//! thread (so it is CPU time) and on the device's default worker threads (wall time).
//! Every launch's output is checked: each thread stores Σ i for i < k = k(k−1)/2.
//!
//! Kernel `bar_loop` runs its barrier as a continuation in the JIT (`jit::control::cont`);
//! `bar_loop_co`, the same loop with the barrier under an always-true uniform guard,
//! keeps the coroutine switch per warp and barrier: the two JIT rows side by side give
//! the gain on the same machine in the same run.

use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig};

const WARPS_PER_CTA: u32 = 8;

#[path = "parts/timing.rs"]
mod timing;
use timing::best_of;

/// Nanoseconds per warp per barrier of `backend` with `threads` workers.
fn measure(kernel: &str, threads: usize, backend: Backend, ctas: u32, k: u32, reps: usize) -> f64 {
    let opts = DeviceOptions {
        threads,
        ..Default::default()
    };
    let dev = Device::with_options(opts).expect("device");
    let m = dev
        .load_ptx(include_str!("ptx/bar_loop.ptx"), "bar_loop.ptx")
        .expect("load bar_loop");
    let n = (ctas * 32 * WARPS_PER_CTA) as usize;
    let out = dev.alloc_zeroed(n * 4).expect("alloc");
    let cfg = LaunchConfig::new(ctas, 32 * WARPS_PER_CTA).backend(backend);
    let run = |iters: u32| {
        let args = [KernelArg::from(&out), KernelArg::U32(iters)];
        let t = best_of(reps, || {
            dev.launch(&m, kernel, &cfg, &args).expect("launch")
        });
        // k(k-1)/2 in u32 arithmetic, as the kernel's additions wrap.
        let want = (0..iters).fold(0u32, |s, i| s.wrapping_add(i));
        let got: Vec<u32> = dev.read(&out).expect("read");
        assert!(got.iter().all(|&v| v == want), "bar_loop result");
        t
    };
    let empty = run(0);
    let full = run(k);
    let per = full.saturating_sub(empty).as_secs_f64() * 1e9;
    per / (ctas as f64 * WARPS_PER_CTA as f64 * k as f64)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    // Optional filters on the row names: `-- --quick continuation`.
    let names: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let reps = if quick { 3 } else { 7 };
    let all = DeviceOptions::default().threads;
    println!(
        "bar.sync cost, CTAs of 256 threads (8 warps), ns per warp per barrier (best of {reps})"
    );
    for (kernel, name, backend, ctas, k) in [
        (
            "bar_loop",
            "JIT, continuation",
            Backend::Jit,
            64u32,
            2000u32,
        ),
        ("bar_loop_co", "JIT, coroutine", Backend::Jit, 64, 2000),
        ("bar_loop", "interpreter", Backend::Interp, 16, 100),
    ] {
        if !names.is_empty() && !names.iter().any(|n| name.contains(n.as_str())) {
            continue;
        }
        for threads in [1, all] {
            let ns = measure(kernel, threads, backend, ctas, k, reps);
            println!("  {name:<18} {threads} worker thread(s): {ns:8.2} ns");
        }
    }
}
