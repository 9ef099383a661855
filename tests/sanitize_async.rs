//! The sanitizers on asynchronous copies and mbarriers (issue 18), on both backends:
//! initcheck counts shared bytes written by `cp.async` / `cp.async.bulk` as written
//! (libcu++ pipelines and `memcpy_async`, the CUTLASS-style GEMM's `ldmatrix` reads);
//! racecheck orders accesses by mbarrier phases (release at arrive, acquire at a wait
//! that saw the phase complete) and still reports an access the phase does not order;
//! memcheck on the device heap's linked list of `tests/kernels/heap.cu`.

use ptxjit::{Backend, Device, FindingKind, KernelArg, LaunchConfig, Module, SanitizeOptions};

const BACKENDS: [Backend; 2] = [Backend::Interp, Backend::Jit];

fn load(dev: &Device, path: &str) -> Module {
    let full = format!("{}/tests/{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    dev.load_ptx(&src, path)
        .unwrap_or_else(|e| panic!("load_ptx({path}): {e}"))
}

/// Runs `kernel` with `grid` blocks of `block` threads on the input `x` (u32 words), an
/// output of `out` words and `ints`, under `opts`; returns the output or the error.
#[allow(clippy::too_many_arguments)]
fn run(
    dev: &Device,
    m: &Module,
    kernel: &str,
    grid: [u32; 3],
    block: u32,
    inputs: &[Vec<u8>],
    out: usize,
    ints: &[i32],
    backend: Backend,
    opts: SanitizeOptions,
) -> Result<Vec<u8>, String> {
    let ins: Vec<_> = inputs.iter().map(|v| dev.alloc_from(v).unwrap()).collect();
    let o = dev.alloc_zeroed(out).unwrap();
    let mut args: Vec<KernelArg> = ins.iter().map(KernelArg::from).collect();
    args.push((&o).into());
    args.extend(ints.iter().map(|&i| KernelArg::from(i)));
    let cfg = LaunchConfig::new(grid, [block, 1, 1])
        .backend(backend)
        .sanitize(opts);
    let r = dev.launch(m, kernel, &cfg, &args);
    let got = dev.read::<u8>(&o).unwrap();
    for b in ins.into_iter().chain([o]) {
        dev.free(b).unwrap();
    }
    r.map(|_| got).map_err(|e| e.to_string())
}

fn words(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) ^ seed).to_le_bytes())
        .collect()
}

/// Every async-copy kernel of tests/async_kernels.rs runs clean under initcheck and
/// racecheck and computes what it computes without them (whose results that test
/// checks against Rust references).
#[test]
fn async_copies_and_mbarriers_have_no_findings() {
    let dev = Device::new().unwrap();
    let opts = SanitizeOptions::parse("initcheck,racecheck").unwrap();
    let x = words(3 * 7 * 128 * 4, 17);
    // (file, kernel, blocks, output words, ints)
    let cases: [(&str, &str, u32, usize, &[i32]); 8] = [
        ("barrier.sm_80.ptx", "bar_copy", 2, 256, &[]),
        ("barrier.sm_90.ptx", "bar_copy", 2, 256, &[]),
        ("barrier.sm_80.ptx", "bar_rounds", 2, 256, &[5]),
        ("barrier.sm_90.ptx", "bar_rounds", 2, 256, &[5]),
        ("pipeline.sm_80.ptx", "pipe_block", 3, 384, &[7]),
        ("pipeline.sm_90.ptx", "pipe_block", 3, 384, &[7]),
        ("pipeline.sm_80.ptx", "pipe_thread", 3, 384, &[7]),
        ("pipeline.sm_90.ptx", "pipe_thread", 3, 384, &[7]),
    ];
    for (file, kernel, blocks, n, ints) in cases {
        let m = load(&dev, &format!("kernels/async/{file}"));
        for backend in BACKENDS {
            let what = format!("{file} {kernel} on {backend:?}");
            let go = |o| {
                let g = [blocks, 1, 1];
                run(
                    &dev,
                    &m,
                    kernel,
                    g,
                    128,
                    std::slice::from_ref(&x),
                    n * 4,
                    ints,
                    backend,
                    o,
                )
            };
            let plain = go(SanitizeOptions::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
            let checked = go(opts).unwrap_or_else(|e| panic!("{what} sanitized: {e}"));
            assert_eq!(plain, checked, "{what}");
        }
    }
    // The GEMM: cp.async tiles read back by ldmatrix (f16 operands of small integers).
    let m = load(&dev, "kernels/async/gemm.sm_80.ptx");
    let (mm, nn, kk) = (128usize, 192usize, 96usize);
    let f16s = |n: usize, s: usize| -> Vec<u8> {
        (0..n)
            .flat_map(|i| half_bits(((i * 7 + s) % 9) as i32 - 4).to_le_bytes())
            .collect()
    };
    for backend in BACKENDS {
        let ins = [f16s(mm * kk, 1), f16s(kk * nn, 2)];
        let ints = [mm as i32, nn as i32, kk as i32];
        let grid = [(nn / 64) as u32, (mm / 64) as u32, 1];
        let go = |o| {
            run(
                &dev,
                &m,
                "gemm",
                grid,
                128,
                &ins,
                mm * nn * 4,
                &ints,
                backend,
                o,
            )
        };
        let plain = go(SanitizeOptions::default()).unwrap();
        let checked = go(opts).unwrap_or_else(|e| panic!("gemm on {backend:?}: {e}"));
        assert_eq!(plain, checked, "gemm on {backend:?}");
    }
    assert!(dev.take_sanitizer_report().is_empty());
}

/// The f16 bits of a small integer `v` (|v| <= 4): exponent 15 + e, 10-bit mantissa.
fn half_bits(v: i32) -> u16 {
    if v == 0 {
        return 0;
    }
    let (s, a) = ((v < 0) as u16, v.unsigned_abs());
    let e = 31 - a.leading_zeros(); // a = 2^e * (1 + f)
    let mant = ((a - (1 << e)) << (10 - e)) as u16;
    s << 15 | ((15 + e) as u16) << 10 | mant
}

#[test]
fn half_bits_of_small_integers() {
    // IEEE binary16: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 4.0 = 0x4400, -1 = 0xbc00.
    assert_eq!(
        [1, 2, 3, 4, -1, 0].map(half_bits),
        [0x3c00, 0x4000, 0x4200, 0x4400, 0xbc00, 0]
    );
}

/// An mbarrier phase orders a write before one warp's arrival with a read after another
/// warp's successful wait; a write after the arrival races with the read.
#[test]
fn mbarrier_phases_order_accesses_and_real_races_are_reported() {
    let dev = Device::new().unwrap();
    let m = load(&dev, "sanitize/mbar_race.ptx");
    let race = SanitizeOptions::parse("racecheck").unwrap();
    let report = SanitizeOptions::parse("racecheck,report-only").unwrap();
    for backend in BACKENDS {
        let got = run(
            &dev,
            &m,
            "mbar_ordered",
            [1, 1, 1],
            64,
            &[],
            4,
            &[],
            backend,
            race,
        )
        .unwrap_or_else(|e| panic!("mbar_ordered on {backend:?}: {e}"));
        assert_eq!(got, 7u32.to_le_bytes(), "mbar_ordered on {backend:?}");
        assert!(dev.take_sanitizer_report().is_empty());
        run(
            &dev,
            &m,
            "mbar_racy",
            [1, 1, 1],
            64,
            &[],
            4,
            &[],
            backend,
            report,
        )
        .unwrap();
        let rep = dev.take_sanitizer_report();
        assert_eq!(rep.findings.len(), 1, "mbar_racy on {backend:?}: {rep}");
        let f = &rep.findings[0];
        assert!(
            matches!(f.kind, FindingKind::RaceRaw | FindingKind::RaceWar),
            "mbar_racy on {backend:?}: {rep}"
        );
    }
}

/// memcheck on the device heap: `list` of tests/kernels/heap.cu (thread 0 builds a
/// linked list of 50 malloc'd nodes, thread 1 walks and frees it after a barrier) runs
/// clean and sums i*i for i < 50 = 49*50*99/6 = 40425 in each of 3 blocks, whatever
/// the compiler and backend.
#[test]
fn heap_list_is_clean_under_memcheck() {
    let dev = Device::new().unwrap();
    let opts = SanitizeOptions::parse("memcheck").unwrap();
    for file in ["heap.nvrtc.ptx", "heap.clang.ptx"] {
        let m = load(&dev, &format!("kernels/{file}"));
        for backend in BACKENDS {
            for _ in 0..2 {
                let got = run(
                    &dev,
                    &m,
                    "list",
                    [3, 1, 1],
                    32,
                    &[],
                    12,
                    &[50],
                    backend,
                    opts,
                )
                .unwrap_or_else(|e| panic!("{file} list on {backend:?}: {e}"));
                let want: Vec<u8> = [40425u32; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
                assert_eq!(got, want, "{file} list on {backend:?}");
            }
            let rep = dev.take_sanitizer_report();
            assert!(rep.is_empty(), "{file} list on {backend:?}: {rep}");
        }
    }
}
