//! Lazy per-kernel compilation (issue 14 item 8): a module load parses and checks the
//! whole module but compiles no kernel; each kernel is compiled, with the functions it
//! reaches (direct calls and call tables), at its first launch, once, also when several
//! threads launch it (or other kernels of the module) for the first time at once.
//! `DeviceOptions::jit_eager` compiles everything at load.
//!
//! The module is tests/ptx/lazy_kernels.ptx (eight kernels, four functions); expected
//! outputs are computed here in plain Rust from the formulas in its header, and every
//! kernel also runs on the interpreter.

use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig, Module};

const SRC: &str = include_str!("ptx/lazy_kernels.ptx");
const N: u32 = 96;
const KERNELS: [&str; 8] = [
    "direct", "table", "add0", "add1", "add2", "add3", "add4", "add5",
];

/// The reference output of `kernel` for thread `t` (the header of lazy_kernels.ptx).
fn want(kernel: &str, t: u32) -> u32 {
    match kernel {
        "direct" => 2 * t + 1,
        "table" => match t % 3 {
            0 => (t + 7) + 5,
            1 => (t + 7) - 5,
            _ => (t + 7) * 5,
        },
        k => {
            let j: u32 = k.trim_start_matches("add").parse().expect("add<j>");
            t * (j + 1) + 100 * j
        }
    }
}

fn device(eager: bool) -> Device {
    Device::with_options(DeviceOptions {
        threads: 2,
        jit_eager: eager,
        ..DeviceOptions::default()
    })
    .expect("device")
}

/// Launches `kernel` (one CTA of N threads) on `backend` and checks its output.
fn run(dev: &Device, m: &Module, kernel: &str, backend: Backend) {
    let out = dev.alloc_zeroed(4 * N as usize).expect("alloc");
    let cfg = LaunchConfig::new(1, N).backend(backend);
    dev.launch(m, kernel, &cfg, &[KernelArg::Ptr(out.ptr())])
        .unwrap_or_else(|e| panic!("{kernel} on {backend:?}: {e}"));
    let got: Vec<u32> = dev.read(&out).expect("read");
    let exp: Vec<u32> = (0..N).map(|t| want(kernel, t)).collect();
    assert_eq!(got, exp, "{kernel} on {backend:?}");
    dev.free(out).expect("free");
}

/// Functions compiled so far (kernels and `.func`s).
fn compiled_functions(m: &Module) -> usize {
    m.compile_stats().expect("JIT module").functions
}

#[test]
fn a_load_compiles_nothing_and_a_launch_compiles_its_kernel_and_callees() {
    let dev = device(false);
    let m = dev.load_ptx(SRC, "lazy_kernels.ptx").expect("load");
    assert_eq!(m.kernels().len(), 8);
    assert_eq!(m.compiled_kernels(), 0);
    assert_eq!(compiled_functions(&m), 0);
    // The interpreter needs no JIT code.
    for k in KERNELS {
        run(&dev, &m, k, Backend::Interp);
    }
    assert_eq!(m.compiled_kernels(), 0);
    // `direct` and `twice`.
    run(&dev, &m, "direct", Backend::Jit);
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (1, 2));
    run(&dev, &m, "direct", Backend::Jit);
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (1, 2));
    // `table` and the three functions of its call table.
    run(&dev, &m, "table", Backend::Jit);
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (2, 6));
    run(&dev, &m, "add3", Backend::Jit);
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (3, 7));
    let st = m.compile_stats().expect("stats");
    assert!(st.ir_insts > 0 && st.clif_insts > st.ir_insts, "{st:?}");
}

#[test]
fn eager_compiles_every_kernel_and_function_at_load() {
    let dev = device(true);
    let m = dev.load_ptx(SRC, "lazy_kernels.ptx").expect("load");
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (8, 12));
    for k in KERNELS {
        run(&dev, &m, k, Backend::Jit);
    }
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (8, 12));
}

/// Sixteen threads launch the eight kernels (two threads each) for the first time at
/// once: every result is right and every kernel was compiled once.
#[test]
fn concurrent_first_launches_compile_each_kernel_once() {
    let dev = device(false);
    let m = dev.load_ptx(SRC, "lazy_kernels.ptx").expect("load");
    let start = std::sync::Barrier::new(16);
    std::thread::scope(|s| {
        for i in 0..16 {
            let (dev, m, start) = (&dev, &m, &start);
            s.spawn(move || {
                start.wait();
                run(dev, m, KERNELS[i % 8], Backend::Jit);
            });
        }
    });
    assert_eq!((m.compiled_kernels(), compiled_functions(&m)), (8, 12));
    for k in KERNELS {
        run(&dev, &m, k, Backend::Jit);
    }
}

/// The sanitizer variant is compiled kernel by kernel too.
#[test]
fn sanitized_launches_compile_lazily() {
    let dev = device(false);
    let m = dev.load_ptx(SRC, "lazy_kernels.ptx").expect("load");
    let san = ptxjit::SanitizeOptions {
        racecheck: true,
        synccheck: true,
        ..Default::default()
    };
    for k in ["table", "direct"] {
        let out = dev.alloc_zeroed(4 * N as usize).expect("alloc");
        let cfg = LaunchConfig::new(1, N).sanitize(san);
        dev.launch(&m, k, &cfg, &[KernelArg::Ptr(out.ptr())])
            .unwrap_or_else(|e| panic!("{k}: {e}"));
        let got: Vec<u32> = dev.read(&out).expect("read");
        assert_eq!(got, (0..N).map(|t| want(k, t)).collect::<Vec<_>>(), "{k}");
    }
    // Only the instrumented code was compiled.
    assert_eq!(m.compiled_kernels(), 0);
}
