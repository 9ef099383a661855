//! 32-bit address registers: `[%r+off]` wraps in 32 bits, as ptxas computes it
//! (tests/ptx/addr32.ptx, ptxas-validated), on both backends.
#[macro_use]
mod common;
use common::*;

fn wrap(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/addr32.ptx", backend);
    let out = zeroed(&dev, 4);
    // One thread: it stores tid + 100 = 100 through the wrapped address, then reads it.
    launch(
        &dev,
        &m,
        "wrap",
        &cfg([1, 1, 1], [1, 1, 1], backend),
        &[arg(&out)],
        "wrap",
    );
    assert_eq!(dev.read::<u32>(&out).unwrap(), vec![100]);
}

both_backends!(wrap);
