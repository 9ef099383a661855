//! Atomics (tests/kernels/atomics.cu, compiled by clang and NVRTC; hand-written
//! tests/ptx/atomics.ptx for the forms CUDA C does not emit for sm_70) on both backends,
//! with 1 and 2 worker threads, against order-independent references written here.
#[macro_use]
mod common;
use common::*;
use ptxjit::DeviceOptions;

fn device_with(threads: usize) -> Device {
    Device::with_options(DeviceOptions {
        threads,
        ..DeviceOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn histograms(backend: Backend) {
    let n = 20_000usize;
    let mut input = Rng::new(21).vec_u32(n);
    input[..3000].iter_mut().for_each(|x| *x = 7); // a hot bin
    let mut want = vec![0u32; 64];
    for x in &input {
        want[(*x % 64) as usize] += 1;
    }
    for threads in [1, 2] {
        let dev = device_with(threads);
        for file in variants("atomics") {
            let m = module(&dev, &file, backend);
            let inb = dev.alloc_from(&input).unwrap();
            for k in ["hist_global", "hist_shared"] {
                let bins = zeroed(&dev, 64 * 4);
                let what = format!("{file} {k} threads={threads} {backend:?}");
                let args = [arg(&inb), arg(&bins), KernelArg::from(n as i32)];
                launch(
                    &dev,
                    &m,
                    k,
                    &cfg([24, 1, 1], [128, 1, 1], backend),
                    &args,
                    &what,
                );
                assert_slice_eq(&dev.read::<u32>(&bins).unwrap(), &want, &what);
            }
        }
    }
}

fn ops(backend: Backend) {
    let n = 64 * 40usize;
    let mut input = Rng::new(22).vec_u32(n);
    input[100] = 0x8000_0000; // INT_MIN
    input[101] = 0x7fff_ffff; // INT_MAX
    let init_st: [u32; 11] = [
        0x8000_0000,
        0x7fff_ffff,
        0,
        u32::MAX,
        0,
        0,
        0,
        u32::MAX,
        0,
        0xabc,
        0,
    ];
    for threads in [1, 2] {
        let dev = device_with(threads);
        for file in variants("atomics") {
            let m = module(&dev, &file, backend);
            let inb = dev.alloc_from(&input).unwrap();
            let st = dev.alloc_from(&init_st).unwrap();
            let wide = dev.alloc_from(&[0u64, 0x8000_0000_0000_0000]).unwrap();
            let f = dev.alloc_from(&[0.5f32]).unwrap();
            let d = dev.alloc_from(&[0.0f64]).unwrap();
            let exch_old = zeroed(&dev, 4 * n);
            let ticket = zeroed(&dev, 4 * n);
            let what = format!("{file} ops threads={threads} {backend:?}");
            let args = [
                arg(&inb),
                arg(&st),
                arg(&wide),
                arg(&f),
                arg(&d),
                arg(&exch_old),
                arg(&ticket),
            ];
            launch(
                &dev,
                &m,
                "ops",
                &cfg([40, 1, 1], [64, 1, 1], backend),
                &args,
                &what,
            );
            let got = dev.read::<u32>(&st).unwrap();
            let ints = input.iter().map(|&x| x as i32);
            let want: [u32; 9] = [
                ints.clone().max().unwrap() as u32,
                ints.min().unwrap() as u32,
                *input.iter().max().unwrap(),
                *input.iter().min().unwrap(),
                // inc with limit 16 counts modulo 17; dec from 0 wraps to 16 first.
                (n % 17) as u32,
                ((17 - n % 17) % 17) as u32,
                input.iter().fold(0, |s, x| s | 1 << (x % 32)),
                input.iter().fold(u32::MAX, |s, x| s & !(1 << (x % 31))),
                input.iter().fold(0, |s, x| s ^ x),
            ];
            assert_slice_eq(&got[..9], &want, &what);
            // exch: the old values and the final value are the initial value and every
            // thread's value, in some order.
            let mut seen = dev.read::<u32>(&exch_old).unwrap();
            seen.push(got[9]);
            seen.sort_unstable();
            let mut all = input.clone();
            all.push(0xabc);
            all.sort_unstable();
            assert_slice_eq(&seen, &all, &format!("{what} exch"));
            // CAS tickets: a permutation of 0..n, and the counter at n.
            let mut t = dev.read::<u32>(&ticket).unwrap();
            t.sort_unstable();
            assert_slice_eq(
                &t,
                &(0..n as u32).collect::<Vec<_>>(),
                &format!("{what} cas"),
            );
            assert_eq!(got[10], n as u32, "{what} cas counter");
            let w = dev.read::<u64>(&wide).unwrap();
            let sum = input
                .iter()
                .fold(0u64, |s, &x| s.wrapping_add((x as u64) << 20));
            let max = input.iter().map(|&x| x as i32 as i64).max().unwrap() as u64;
            assert_eq!(w, vec![sum, max], "{what} 64-bit");
            // Sums of integers below 2^24 (f32) and 2^53 (f64): exact in any order.
            let fs = 0.5 + input.iter().map(|&x| (x % 1024) as f64).sum::<f64>();
            assert_eq!(
                dev.read::<f32>(&f).unwrap()[0].to_bits(),
                (fs as f32).to_bits(),
                "{what} f32"
            );
            let ds: f64 = input.iter().map(|&x| x as f64).sum();
            assert_eq!(
                dev.read::<f64>(&d).unwrap()[0].to_bits(),
                ds.to_bits(),
                "{what} f64"
            );
        }
    }
}

both_backends!(histograms, ops);

fn forms(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/atomics.ptx", backend);
    let g = zeroed(&dev, 16);
    let g64 = zeroed(&dev, 32);
    let h = dev.alloc_from(&[0u16, 0x1234, 0, 0]).unwrap();
    let outp = zeroed(&dev, 64 * 4);
    let fout = zeroed(&dev, 8);
    let what = format!("atomics.ptx forms {backend:?}");
    let args = [
        arg(&g),
        arg(&g64),
        arg(&h),
        arg(&outp),
        arg(&fout),
        KernelArg::from(0u64),
    ];
    launch(
        &dev,
        &m,
        "forms",
        &cfg([1, 1, 1], [64, 1, 1], backend),
        &args,
        &what,
    );
    // 64 threads; inc with limit 9 counts modulo 10; 32 unguarded lanes add to g[3].
    assert_slice_eq(
        &dev.read::<u32>(&g).unwrap(),
        &[64, u32::MAX, 64 % 10, 32],
        &what,
    );
    let mut olds = dev.read::<u32>(&outp).unwrap();
    olds.sort_unstable();
    let mut want: Vec<u32> = (0..64).map(|i| i % 10).collect();
    want.sort_unstable();
    assert_slice_eq(&olds, &want, &format!("{what} inc olds"));
    let xor = (0..64u64).fold(0, |s, t| s ^ t.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    assert_slice_eq(
        &dev.read::<u64>(&g64).unwrap(),
        &[2016, 63 << 33, xor, 0x77],
        &what,
    );
    // f16: 64 x 1.0 = 64.0 (0x5400); cas.b16 0x1234 -> 0xbeef; bf16x2: 64 x {1.0, 2.0} =
    // {64.0 = 0x4280, 128.0 = 0x4300} (exact: bf16 holds integers up to 256).
    assert_slice_eq(
        &dev.read::<u16>(&h).unwrap(),
        &[0x5400, 0xbeef, 0x4300, 0x4280],
        &what,
    );
    // The smallest subnormal, 64 times: flushed on global memory, kept on shared.
    assert_slice_eq(&dev.read::<u32>(&fout).unwrap(), &[0, 64], &what);
}

fn misaligned(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/atomics.ptx", backend);
    let g = zeroed(&dev, 16);
    let e = dev
        .launch(
            &m,
            "misaligned",
            &cfg([1, 1, 1], [32, 1, 1], backend),
            &[arg(&g)],
        )
        .expect_err("a misaligned atom must fault")
        .to_string();
    assert!(
        e.contains("misaligned") && e.contains("atom.global.add.u32"),
        "{e}"
    );
}

/// Vector atomics: one atomic per element at consecutive addresses.
fn vector(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/atomics.ptx", backend);
    let vf = zeroed(&dev, 6 * 4);
    let vh = zeroed(&dev, 8 * 2);
    let vm = zeroed(&dev, 2 * 4);
    let what = format!("atomics.ptx vec {backend:?}");
    let args = [arg(&vf), arg(&vh), arg(&vm)];
    launch(
        &dev,
        &m,
        "vec",
        &cfg([1, 1, 1], [64, 1, 1], backend),
        &args,
        &what,
    );
    // 64 threads: {1,2,3,4} * 64, 0.5 * 64 = 32 (all exact in f32).
    let want_f = [64.0f32, 128.0, 192.0, 256.0, 32.0, 32.0].map(f32::to_bits);
    assert_slice_eq(&dev.read::<u32>(&vf).unwrap(), &want_f, &what);
    // 64 x f16 1.0 = 64.0 = 0x5400 in each of the eight halves.
    assert_slice_eq(&dev.read::<u16>(&vh).unwrap(), &[0x5400; 8], &what);
    // bf16x2 max of {hi: 64 - tid, lo: tid}: {64.0 = 0x4280, 63.0 = 0x427c}.
    assert_slice_eq(&dev.read::<u32>(&vm).unwrap(), &[0x4280_427c; 2], &what);
}

both_backends!(forms, misaligned, vector);
