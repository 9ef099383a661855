//! The per-launch watchdog (`LaunchConfig::timeout`, `--timeout`): kernels that never
//! finish (tests/ptx/watchdog.ptx, ptxas-validated) end with an error naming the kernel,
//! where a warp was and the limit, on both backends and within a bounded time.
#[macro_use]
mod common;
use common::*;
use std::time::{Duration, Instant};

fn watchdog(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/watchdog.ptx", backend);
    let out = zeroed(&dev, 4);
    let limit = Duration::from_millis(200);
    for (k, line) in [("spin", 16), ("spin_some", 31), ("spin_call", 41)] {
        let c = cfg([3, 1, 1], [64, 1, 1], backend).timeout(Some(limit));
        let t0 = Instant::now();
        let e = dev
            .launch(&m, k, &c, &[arg(&out)])
            .expect_err("an endless kernel must be stopped")
            .to_string();
        let took = t0.elapsed();
        assert!(
            e.contains(&format!("kernel '{k}'"))
                && e.contains(&format!("watchdog.ptx:{line}"))
                && e.contains("time limit"),
            "{k} {backend:?}: {e}"
        );
        assert!(took < Duration::from_secs(20), "{k} took {took:?}");
    }
}

both_backends!(watchdog);

/// A kernel that finishes is unaffected, with and without a limit.
#[test]
fn finishing_kernels_are_not_stopped() {
    let dev = device();
    let m = dev
        .load_ptx(&load_root("examples/saxpy.ptx"), "saxpy.ptx")
        .unwrap();
    let n = 4096usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y = vec![1.0f32; n];
    for limit in [None, Some(Duration::from_secs(60))] {
        let xb = dev.alloc_from(&x).unwrap();
        let yb = dev.alloc_from(&y).unwrap();
        let c = cfg([16, 1, 1], [256, 1, 1], Backend::Jit).timeout(limit);
        let args = [
            KernelArg::from(n as u32),
            KernelArg::from(2.0f32),
            arg(&xb),
            arg(&yb),
        ];
        launch(&dev, &m, "saxpy", &c, &args, "saxpy");
        let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        assert_f32_bits(&dev.read::<f32>(&yb).unwrap(), &want, "saxpy");
    }
}
