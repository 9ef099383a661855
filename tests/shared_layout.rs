//! Per-kernel shared memory layout: each kernel's shared window holds only the
//! `.shared` variables it (and the functions it can call) reaches, so variables of
//! different kernels may share offsets and a module may declare more than 1 MiB of
//! shared memory in total (CuPy's thrust modules).
//!
//! The expected per-kernel sizes are `ptxas -v -arch sm_80`'s "bytes smem" for each
//! kernel of the committed PTX (k0, k1: 41984; k2: 43008; every kernel of the 30-kernel
//! module: 40960). Expected outputs come from the Rust reference below.
#[macro_use]
mod common;
use common::*;

/// u32 elements of each kernel's 40 KiB array.
const N: u32 = 10240;

/// What kernel `k` writes: its array read in reverse (element i was `i * (k + 1) +
/// seed`), then (`tail`) 256 values read back in reverse from a second array.
fn reference(k: u32, seed: u32, tail: Option<&dyn Fn(u32) -> u32>) -> Vec<u32> {
    let mut v: Vec<u32> = (0..N)
        .map(|i| (N - 1 - i).wrapping_mul(k + 1).wrapping_add(seed))
        .collect();
    if let Some(t) = tail {
        v.extend((0..256).map(|tid| t(255 - tid)));
    }
    v
}

fn run(dev: &Device, m: &ptxjit::Module, k: u32, words: usize, backend: Backend) -> Vec<u32> {
    let out = zeroed(dev, words * 4);
    let seed = 0x1234_5678u32.wrapping_mul(k + 3);
    launch(
        dev,
        m,
        &format!("k{k}"),
        &cfg([2, 1, 1], [256, 1, 1], backend),
        &[arg(&out), KernelArg::from(seed)],
        &format!("k{k} {backend:?}"),
    );
    dev.read::<u32>(&out).unwrap()
}

fn three_kernels(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/shared_layout.ptx", backend);
    let ir = m.ir();
    // ptxas -v: k0 and k1 reach arr0/arr1 and the helper's `common`; k2 reaches arr2
    // and its own function-scope `loc2`.
    assert_eq!(ir.kernel_shared_size("k0"), 41984);
    assert_eq!(ir.kernel_shared_size("k1"), 41984);
    assert_eq!(ir.kernel_shared_size("k2"), 43008);
    assert_eq!(ir.shared_static_size, 43008);
    let static_sum: u32 = ir.shared_vars.iter().map(|v| v.size).sum();
    assert_eq!(static_sum, 3 * 40960 + 1024 + 2048);
    for k in 0..3 {
        let seed = 0x1234_5678u32.wrapping_mul(k + 3);
        let got = run(&dev, &m, k, (N + 256) as usize, backend);
        let want = if k < 2 {
            // helper(tid * 7 + k) stores into common[tid].
            reference(k, seed, Some(&|t| t * 7 + k))
        } else {
            // loc2[tid] = tid * 3 + 1000 (a u64; the low word is stored).
            reference(k, seed, Some(&|t| t * 3 + 1000))
        };
        assert_slice_eq(&got, &want, &format!("k{k} {backend:?}"));
    }
}

fn thirty_kernels(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/shared_layout_many.ptx", backend);
    let ir = m.ir();
    let static_sum: u32 = ir.shared_vars.iter().map(|v| v.size).sum();
    assert_eq!(static_sum, 30 * 40960);
    assert!(static_sum > ptxjit::check::MAX_SHARED_STATIC);
    assert_eq!(ir.shared_static_size, 40960);
    for k in 0..30 {
        assert_eq!(ir.kernel_shared_size(&format!("k{k}")), 40960, "k{k}");
    }
    for k in [0, 17, 29] {
        let seed = 0x1234_5678u32.wrapping_mul(k + 3);
        let got = run(&dev, &m, k, N as usize, backend);
        assert_slice_eq(
            &got,
            &reference(k, seed, None),
            &format!("k{k} {backend:?}"),
        );
    }
}

/// The launch limit counts the kernel's own static bytes plus the dynamic bytes (ptxas
/// -v: kdyn 16 bytes smem, kbig 204800), although kdyn's dynamic array starts after
/// kbig's 200 KiB in the module-wide layout.
fn dynamic_after_other_kernels_static(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/shared_layout_dyn.ptx", backend);
    assert_eq!(m.ir().kernel_shared_size("kdyn"), 16);
    assert_eq!(m.ir().kernel_shared_size("kbig"), 204800);
    let out = zeroed(&dev, 4);
    launch(
        &dev,
        &m,
        "kbig",
        &cfg([1, 1, 1], [1, 1, 1], backend),
        &[arg(&out)],
        "kbig",
    );
    assert_eq!(dev.read::<u32>(&out).unwrap(), vec![0]);
    // 227 KiB - 16 bytes of dynamic shared memory: the most kdyn may have.
    let n: u32 = (227 * 1024 - 16) / 4;
    let out = zeroed(&dev, n as usize * 4);
    let args = [arg(&out), KernelArg::from(n)];
    let c = cfg([1, 1, 1], [256, 1, 1], backend).shared_bytes(n * 4);
    launch(&dev, &m, "kdyn", &c, &args, "kdyn");
    // dyn[i] = i * 5 + 3, read in reverse, plus small[0] = 77.
    let want: Vec<u32> = (0..n).map(|i| (n - 1 - i) * 5 + 3 + 77).collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "kdyn");
    let c = cfg([1, 1, 1], [256, 1, 1], backend).shared_bytes(n * 4 + 16);
    let err = dev.launch(&m, "kdyn", &c, &args);
    assert!(
        err.as_ref()
            .is_err_and(|e| e.to_string().contains("exceed the limit")),
        "{err:?}"
    );
}

both_backends!(
    three_kernels,
    thirty_kernels,
    dynamic_after_other_kernels_static
);
