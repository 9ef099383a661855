//! Launch configurations whose dimension products overflow 64 bits are refused, never
//! run (a fuzzing finding: block [2^31, 2^31, 4] has 2^64 threads, which wrapped to 0
//! and passed the 1,024-thread limit).

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use std::time::Duration;

fn check(backend: Backend) {
    let dev = Device::new().unwrap();
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/saxpy.ptx"))
        .unwrap();
    let m = dev.load_ptx(&src, "saxpy.ptx").unwrap();
    let x = dev.alloc_zeroed(64).unwrap();
    let y = dev.alloc_zeroed(64).unwrap();
    let args = [
        KernelArg::U32(16),
        KernelArg::F32(2.0),
        KernelArg::from(&x),
        KernelArg::from(&y),
    ];
    for block in [
        [1 << 31, 1 << 31, 4],
        [u32::MAX, u32::MAX, 64],
        [1 << 16, 1 << 16, 1 << 16],
    ] {
        let cfg = LaunchConfig::new(1, block)
            .backend(backend)
            .timeout(Some(Duration::from_secs(5)));
        let e = dev
            .launch(&m, "saxpy", &cfg, &args)
            .unwrap_err()
            .to_string();
        assert!(e.contains("invalid launch"), "block {block:?}: {e}");
    }
}

#[test]
fn overflowing_block_is_refused_jit() {
    check(Backend::Jit)
}

#[test]
fn overflowing_block_is_refused_interp() {
    check(Backend::Interp)
}
