//! Benchmarks of issue 6's kernels: a 64-bin histogram with global atomics and with a
//! shared-memory histogram per CTA (`tests/kernels/atomics.nvrtc.ptx`), and a warp-shuffle
//! reduction (`tests/kernels/warp.nvrtc.ptx`, `warp_reduce`: per-warp sums with
//! `shfl.down` and all-lanes maxima with `shfl.bfly`). JIT on 1 and on all worker threads
//! (the scaling ratio), interpreter, native Rust single-threaded and on all cores, and the
//! histograms' OpenCL C versions on POCL (`--features pocl`).
//! Included by `kernels.rs` (one bench binary).

use super::pocl::{bytes, u32s, Arg, Pocl};
use super::{best_of, per_elem, report, split_threads};
use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

fn device(threads: usize) -> Device {
    Device::with_options(DeviceOptions {
        threads,
        ..DeviceOptions::default()
    })
    .expect("device")
}

pub fn bench_histogram(pocl: Option<&Pocl>, reps: usize, threads: usize) {
    let n = 1usize << 22;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let mut want = vec![0u32; 64];
    for x in &input {
        want[(x % 64) as usize] += 1;
    }
    for kernel in ["hist_global", "hist_shared"] {
        let mut jit_by_threads = Vec::new();
        let mut interp = 0.0;
        let ni = 1usize << 16;
        for t in [1, threads] {
            let dev = device(t);
            let m = dev
                .load_ptx(
                    include_str!("../../tests/kernels/atomics.nvrtc.ptx"),
                    "atomics.nvrtc.ptx",
                )
                .expect("load atomics");
            let bin = dev.alloc_from(&input).unwrap();
            let bins = dev.alloc_zeroed(64 * 4).unwrap();
            let args = [
                KernelArg::from(&bin),
                KernelArg::from(&bins),
                KernelArg::I32(n as i32),
            ];
            // 4 CTAs per worker thread's worth of work, grid-stride loops inside.
            let cfg = LaunchConfig::new(64, 256);
            let d = best_of(reps, || {
                dev.write(&bins, &[0u32; 64]).unwrap();
                dev.launch(&m, kernel, &cfg, &args).unwrap();
            });
            assert_eq!(dev.read::<u32>(&bins).unwrap(), want, "{kernel} result");
            jit_by_threads.push(per_elem(d, n));
            if t == 1 {
                let args_i = [
                    KernelArg::from(&bin),
                    KernelArg::from(&bins),
                    KernelArg::I32(ni as i32),
                ];
                let cfg_i = LaunchConfig::new(16, 256).backend(Backend::Interp);
                let d = best_of(reps.min(2), || {
                    dev.launch(&m, kernel, &cfg_i, &args_i).unwrap()
                });
                interp = per_elem(d, ni);
            }
        }
        let mut bins = [0u32; 64];
        let t_native = best_of(reps, || {
            bins = [0; 64];
            for x in &input {
                bins[(x % 64) as usize] += 1;
            }
            std::hint::black_box(&mut bins);
        });
        // All cores, the kernel's algorithm: one shared atomic add per element.
        let atomic_bins: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
        let mut dummy = vec![0u8; threads];
        let t_native_mt = best_of(reps, || {
            split_threads(&mut dummy, threads, |start, _| {
                let chunk = n.div_ceil(threads);
                let lo = (start * chunk).min(n);
                let hi = (lo + chunk).min(n);
                for x in &input[lo..hi] {
                    atomic_bins[(x % 64) as usize].fetch_add(1, Ordering::Relaxed);
                }
            });
        });
        let p = pocl.map(|cl| {
            let r = cl.run(
                kernel,
                &[64 * 256],
                &[256],
                &[
                    Arg::Buf(&bytes(&input)),
                    Arg::Zeroed(64 * 4),
                    Arg::I32(n as i32),
                ],
                reps,
            );
            assert!(u32s(&r.buffers[1]) == want, "POCL {kernel} differs");
            per_elem(r.best, n)
        });
        println!("{kernel}, n = 2^22, 64 bins (interpreter: 2^16)");
        report(
            &format!(
                "{kernel}: 64 bins, {} atomics, 2^22",
                if kernel == "hist_global" {
                    "global"
                } else {
                    "shared"
                }
            ),
            threads,
            per_elem(t_native, n),
            per_elem(t_native_mt, n),
            jit_by_threads[1],
            interp,
            p,
        );
        println!(
            "  JIT on 1 thread: {:.3} ns/elem; scaling 1 -> {threads} threads: {:.2}x",
            jit_by_threads[0],
            jit_by_threads[0] / jit_by_threads[1]
        );
    }
}

pub fn bench_warp_reduce(reps: usize, threads: usize) {
    let n = 1usize << 22;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 9)
        .collect();
    let want_sums: Vec<u32> = input
        .chunks(32)
        .map(|c| c.iter().fold(0u32, |s, v| s.wrapping_add(*v)))
        .collect();
    let mut jit_by_threads = Vec::new();
    let mut interp = 0.0;
    let ni = 1usize << 16;
    for t in [1, threads] {
        let dev = device(t);
        let m = dev
            .load_ptx(
                include_str!("../../tests/kernels/warp.nvrtc.ptx"),
                "warp.nvrtc.ptx",
            )
            .expect("load warp");
        let bin = dev.alloc_from(&input).unwrap();
        let sums = dev.alloc_zeroed(n / 32 * 4).unwrap();
        let maxs = dev.alloc_zeroed(n * 4).unwrap();
        let args = [
            KernelArg::from(&bin),
            KernelArg::from(&sums),
            KernelArg::from(&maxs),
            KernelArg::I32(n as i32),
        ];
        let cfg = LaunchConfig::new((n / 256) as u32, 256);
        let d = best_of(reps, || dev.launch(&m, "warp_reduce", &cfg, &args).unwrap());
        assert_eq!(dev.read::<u32>(&sums).unwrap(), want_sums, "warp sums");
        jit_by_threads.push(per_elem(d, n));
        if t == 1 {
            let args_i = [
                KernelArg::from(&bin),
                KernelArg::from(&sums),
                KernelArg::from(&maxs),
                KernelArg::I32(ni as i32),
            ];
            let cfg_i = LaunchConfig::new((ni / 256) as u32, 256).backend(Backend::Interp);
            let d = best_of(reps.min(2), || {
                dev.launch(&m, "warp_reduce", &cfg_i, &args_i).unwrap()
            });
            interp = per_elem(d, ni);
        }
    }
    let native = |sums: &mut [u32], maxs: &mut [u32], first_warp: usize| {
        for (k, s) in sums.iter_mut().enumerate() {
            let w = first_warp + k;
            let c = &input[32 * w..32 * w + 32];
            *s = c.iter().fold(0u32, |a, v| a.wrapping_add(*v));
            let m = c.iter().copied().max().unwrap_or(0);
            maxs[32 * k..32 * k + 32].fill(m);
        }
    };
    let mut sums = vec![0u32; n / 32];
    let mut maxs = vec![0u32; n];
    let t_native = best_of(reps, || {
        native(&mut sums, &mut maxs, 0);
        std::hint::black_box((&mut sums, &mut maxs));
    });
    let t_native_mt = best_of(reps, || {
        let per = (n / 32).div_ceil(threads);
        sums.par_chunks_mut(per)
            .zip(maxs.par_chunks_mut(per * 32))
            .enumerate()
            .for_each(|(i, (sc, mc))| native(sc, mc, i * per));
    });
    println!("warp_reduce (shfl.down sums + shfl.bfly maxima), n = 2^22 (interpreter: 2^16)");
    report(
        "warp_reduce: shfl.down sums + shfl.bfly maxima, 2^22",
        threads,
        per_elem(t_native, n),
        per_elem(t_native_mt, n),
        jit_by_threads[1],
        interp,
        None,
    );
    println!(
        "  JIT on 1 thread: {:.3} ns/elem; scaling 1 -> {threads} threads: {:.2}x",
        jit_by_threads[0],
        jit_by_threads[0] / jit_by_threads[1]
    );
}
