//! Device-side `malloc`/`free`, `trap`, `brkpt` and `pmevent` (tests/kernels/heap.cu,
//! compiled by clang and NVRTC), on both backends. The expected behaviour is what an
//! H100 did with the same CUDA code (tests/golden/misc_run/probe.out): blocks 16-byte
//! aligned, a request larger than the heap returns NULL while half the heap succeeds,
//! `free(NULL)` is a no-op, a double free, `trap` and `brkpt` fail the launch
//! (CUDA_ERROR_LAUNCH_FAILED), `pmevent` does nothing.
#[macro_use]
mod common;
use common::*;

/// Sum of `t*1000 + i` over `i < n`: `n*t*1000 + n(n-1)/2`.
fn fill_sum_of(t: i64, n: i64) -> i32 {
    (n * t * 1000 + n * (n - 1) / 2) as i32
}

fn malloc_free(backend: Backend) {
    for file in variants("heap") {
        let dev = device();
        let m = module(&dev, &file, backend);
        let what = format!("{file} {backend:?}");
        let (threads, n) = (256usize, 100i32);
        let out = zeroed(&dev, threads * 4);
        let flags = dev.alloc_from(&vec![-1i32; threads]).unwrap();
        launch(
            &dev,
            &m,
            "fill_sum",
            &cfg([4, 1, 1], [64, 1, 1], backend),
            &[arg(&out), arg(&flags), KernelArg::from(n)],
            &what,
        );
        let got: Vec<i32> = dev.read(&out).unwrap();
        let want: Vec<i32> = (0..threads as i64)
            .map(|t| fill_sum_of(t, n as i64))
            .collect();
        assert_eq!(got, want, "{what}");
        let flags: Vec<i32> = dev.read(&flags).unwrap();
        assert!(
            flags.iter().all(|&f| f == 0),
            "{what}: 16-byte alignment {flags:?}"
        );

        // Blocks live across threads and barriers: sum of i*i for i < 50 = 49*50*99/6.
        let out = zeroed(&dev, 3 * 4);
        launch(
            &dev,
            &m,
            "list",
            &cfg([3, 1, 1], [32, 1, 1], backend),
            &[arg(&out), KernelArg::from(50i32)],
            &what,
        );
        assert_eq!(dev.read::<i32>(&out).unwrap(), vec![40425; 3], "{what}");

        // The heap limit: all of it fails (the GPU keeps some for itself, and so does
        // the request's rounding here), half of it succeeds; everything was freed above.
        let limit = dev.malloc_heap_size();
        assert_eq!(limit, 8 << 20, "the GPU's default heap");
        let out = zeroed(&dev, 4);
        for (bytes, ok) in [(limit + 1, 0), (limit / 2, 1), (u64::MAX, 0)] {
            launch(
                &dev,
                &m,
                "one",
                &cfg([1, 1, 1], [1, 1, 1], backend),
                &[arg(&out), KernelArg::from(bytes)],
                &what,
            );
            assert_eq!(dev.read::<i32>(&out).unwrap(), vec![ok], "{what}: {bytes}");
        }
        // The heap size cannot change once used.
        assert!(dev.set_malloc_heap_size(1 << 20).is_err(), "{what}");
    }
}

/// A smaller heap set before the first use: the 32 lanes of a warp (which allocate
/// before any of them frees) cannot all get 64 KiB out of 1 MiB (16 at most), and those
/// that got one computed the right sum.
fn small_heap(backend: Backend) {
    let file = &variants("heap")[0];
    let dev = device();
    dev.set_malloc_heap_size(1 << 20).unwrap();
    let m = module(&dev, file, backend);
    let (threads, n) = (64usize, 16 * 1024i32);
    let out = zeroed(&dev, threads * 4);
    let flags = zeroed(&dev, threads * 4);
    launch(
        &dev,
        &m,
        "fill_sum",
        &cfg([1, 1, 1], [64, 1, 1], backend),
        &[arg(&out), arg(&flags), KernelArg::from(n)],
        file,
    );
    let got: Vec<i32> = dev.read(&out).unwrap();
    for warp in got.chunks(32) {
        let granted = warp.iter().filter(|&&s| s != -1).count();
        assert!((1..=16).contains(&granted), "{file}: {granted} blocks");
    }
    for (t, &s) in got.iter().enumerate() {
        assert!(
            s == -1 || s == fill_sum_of(t as i64, n as i64),
            "{file}: thread {t}"
        );
    }
}

/// Launches `kernel` (one warp) expecting an error of thread `thread` containing
/// `needle`.
fn expect_kernel_error(
    (dev, m, backend): (&Device, &ptxjit::Module, Backend),
    kernel: &str,
    args: &[KernelArg],
    thread: u32,
    needle: &str,
    what: &str,
) {
    let e = dev
        .launch(m, kernel, &cfg([1, 1, 1], [32, 1, 1], backend), args)
        .expect_err(what);
    match &e {
        Error::Kernel {
            kernel: k,
            thread: t,
            msg,
            ..
        } => {
            assert_eq!(k, kernel, "{what}");
            assert_eq!(*t, [thread, 0, 0], "{what}: {e}");
            assert!(msg.contains(needle), "{what}: {e}");
        }
        _ => panic!("{what}: {e}"),
    }
}

fn faults(backend: Backend) {
    for file in variants("heap") {
        let dev = device();
        let m = module(&dev, &file, backend);
        let what = format!("{file} {backend:?}");
        let out = zeroed(&dev, 32 * 4);
        let o = arg(&out);
        let at = (&dev, &m, backend);
        let double = std::slice::from_ref(&o);
        expect_kernel_error(at, "double_free", double, 0, "freed twice", &what);
        expect_kernel_error(
            at,
            "trap_at",
            &[o.clone(), KernelArg::from(5i32)],
            5,
            "executed `trap`",
            &what,
        );
        expect_kernel_error(
            at,
            "brkpt_at",
            &[o.clone(), KernelArg::from(9i32)],
            9,
            "executed `brkpt`",
            &what,
        );
        // Not reached: no error; pmevent is a no-op.
        for (k, v) in [("trap_at", 1i32), ("brkpt_at", 2)] {
            launch(
                &dev,
                &m,
                k,
                &cfg([1, 1, 1], [32, 1, 1], backend),
                &[o.clone(), KernelArg::from(99i32)],
                &what,
            );
            assert_eq!(dev.read::<i32>(&out).unwrap(), vec![v; 32], "{what}");
        }
    }
}

both_backends!(malloc_free, small_heap, faults);
