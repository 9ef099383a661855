//! Registers start at zero and keep their values across blocks, branches and loops,
//! whatever the JIT's register file does (zeroing only registers live at entry,
//! deleting stores no load reads, reusing values within a block and after a
//! branching lowering): tests/ptx/regfile.ptx (ptxas-validated) on both backends, after
//! a kernel that leaves non-zero values on the stack the register file may occupy. Expected values are integer arithmetic written
//! out here from the PTX.
#[macro_use]
mod common;
use common::*;

const N: usize = 64;

/// Runs `dirty`, then `kernel`, on one worker thread (the launching thread: both use the
/// same stack) with one block of 64 threads; returns 3 × 64 words of output, which
/// start as 0xdeadbeef.
fn run(backend: Backend, kernel: &str) -> Vec<u32> {
    let dev = Device::with_options(ptxjit::DeviceOptions {
        threads: 1,
        ..Default::default()
    })
    .unwrap();
    let m = module_at(&dev, "tests/ptx/regfile.ptx", backend);
    let scratch = zeroed(&dev, 4 * N);
    let c = cfg([1, 1, 1], [N as u32, 1, 1], backend);
    launch(&dev, &m, "dirty", &c, &[arg(&scratch)], "dirty");
    let out = dev.alloc_from(&[0xdeadbeefu32; 3 * N]).unwrap();
    launch(&dev, &m, kernel, &c, &[arg(&out)], kernel);
    dev.read::<u32>(&out).unwrap()
}

fn check(backend: Backend, kernel: &str, want: impl Fn(usize) -> [Option<u32>; 3]) {
    let got = run(backend, kernel);
    for t in 0..N {
        for (k, w) in want(t).iter().enumerate() {
            let w = w.unwrap_or(0xdeadbeef);
            assert_eq!(
                got[k * N + t],
                w,
                "{kernel} {backend:?}: word {k} of thread {t}"
            );
        }
    }
}

fn never_written(backend: Backend) {
    // r1 = 0: 0 + 5; rd1 = 0: 0 + 9; p1 = false: selp gives 2.
    check(backend, "never_written", |_| [Some(5), Some(9), Some(2)]);
}

fn partial(backend: Backend) {
    // r3 = 7 only for tid < 10; r4 = tid * 3 only for odd tid.
    check(backend, "partial", |t| {
        let r3 = if t < 10 { 7 } else { 0 };
        let r4 = if t % 2 == 1 { t as u32 * 3 } else { 0 };
        [Some(r3), Some(r4), None]
    });
}

fn loop_acc(backend: Backend) {
    // sum_{i < k} (2i + 1) = k^2 with k = tid % 5.
    check(backend, "loop_acc", |t| {
        let k = (t % 5) as u32;
        [Some(k * k), None, None]
    });
}

fn paths(backend: Backend) {
    // r10 = tid + 1 and the chain to r19 adds 1 nine times: tid + 10; then r19 += r10
    // (2 tid + 11), -= tid (tid + 11), -= 1: tid + 10.
    check(backend, "paths", |t| {
        let t = t as u32;
        let r2 = if t < 20 { t + 100 } else { 2 * t + 1 };
        [Some(r2), Some(t + 10), None]
    });
}

fn many(backend: Backend) {
    check(backend, "many", |t| [Some(t as u32), None, None]);
}

fn across_loads(backend: Backend) {
    // sh[t] = 7t; r3 = 7t, r4 = sh[2] = 14, r5 = 7t + 14; lanes t < 16 load r3 = sh[3]
    // = 21; r6 = r3 + r5; r8 = 7t + r3 + 14.
    check(backend, "across_loads", |t| {
        let t = t as u32;
        let r3 = if t < 16 { 21 } else { 7 * t };
        [
            Some(7 * t + 14),
            Some(r3 + 7 * t + 14),
            Some(7 * t + r3 + 14),
        ]
    });
}

both_backends!(never_written, partial, loop_acc, paths, many, across_loads);
