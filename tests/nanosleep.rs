//! `nanosleep.u32` (tests/kernels/nanosleep.ptx): runs on both backends, sleeps once per
//! warp-instruction for the smallest delay of its lanes, capped at 1 ms.
#[macro_use]
mod common;
use common::*;
use std::time::{Duration, Instant};

fn run(backend: Backend, t0: u32, iters: u32) -> Duration {
    let dev = device();
    let m = module(&dev, "nanosleep.ptx", backend);
    let out = zeroed(&dev, 32 * 4);
    let start = Instant::now();
    launch(
        &dev,
        &m,
        "sleepy",
        &cfg([1, 1, 1], [32, 1, 1], backend),
        &[arg(&out), KernelArg::from(t0), KernelArg::from(iters)],
        "sleepy",
    );
    let took = start.elapsed();
    let want: Vec<u32> = (0..32).map(|t| iters * 3 + t).collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "sleepy");
    took
}

/// Every lane asks for 0xffffffff ns: each of the 20 iterations sleeps the 1 ms cap.
fn capped_at_one_millisecond(backend: Backend) {
    let took = run(backend, u32::MAX, 20);
    assert!(took >= Duration::from_millis(20), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// Lane 0 asks for 0 ns: the warp wakes with it (no lane sleeps past 2t), so 300
/// iterations take far less than the 300 ms they would at the cap.
fn lanes_wake_together(backend: Backend) {
    let took = run(backend, 0, 300);
    assert!(took < Duration::from_millis(200), "{took:?}");
}

both_backends!(capped_at_one_millisecond, lanes_wake_together);

#[test]
fn nanosleep_needs_u32() {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\tnanosleep.u64 5;\n\tret;\n}\n";
    assert_eq!(
        ptxjit::check::parse_and_check(src, "e.ptx")
            .unwrap_err()
            .to_string(),
        "e.ptx:6:2: error: 'nanosleep.u64' needs the type .u32"
    );
}
