//! The sanitizers on correct kernels and through every way of selecting them: the CI
//! subset of the repository's correct kernels has no finding under every mode on both
//! backends (and computes the same as without); report-only deduplicates and goes on;
//! JSON; leaks; replayable random schedules; the CLI and `PTXJIT_SANITIZE`. The buggy
//! kernels are in tests/sanitize.rs.

use ptxjit::{
    Backend, Buffer, Device, DeviceOptions, FindingKind, KernelArg, LaunchConfig, Module,
    SanitizeOptions,
};

const BUGS: &str = include_str!("sanitize/bugs.nvrtc.ptx");
const HAND: &str = include_str!("sanitize/bugs_hand.ptx");

fn f32s(d: &Device, n: usize) -> Buffer {
    d.alloc_from(&(0..n).map(|i| i as f32).collect::<Vec<f32>>())
        .unwrap()
}
fn out(d: &Device, bytes: usize) -> Buffer {
    d.alloc_zeroed(bytes).unwrap()
}
fn ptrs(bufs: &[Buffer]) -> Vec<KernelArg> {
    bufs.iter().map(KernelArg::from).collect()
}

fn device() -> Device {
    Device::with_options(DeviceOptions {
        sanitize: Some(SanitizeOptions::parse("memcheck").unwrap()),
        ..Default::default()
    })
    .unwrap()
}

/// A correct kernel of the repository's tests and benchmarks, with its launch.
struct Correct {
    file: &'static str,
    src: &'static str,
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: fn(&Device) -> (Vec<KernelArg>, Vec<Buffer>),
}

fn u32s(d: &Device, n: usize, seed: u32) -> Buffer {
    let v: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 7)
        .collect();
    d.alloc_from(&v).unwrap()
}

/// The CI subset: the benchmark kernels (tiled GEMM, block scan, n-body), the block
/// reductions (static and dynamic shared memory), named-barrier producer/consumer and
/// `bar.red` with exited threads, and a warp exchange ordered by `bar.warp.sync`.
fn correct_kernels() -> Vec<Correct> {
    let k = |file, src, kernel, grid, block, args| Correct {
        file,
        src,
        kernel,
        grid,
        block,
        shared: 0,
        args,
    };
    let sgemm = |d: &Device| {
        let b = vec![f32s(d, 1024), f32s(d, 1024), d.alloc_uninit(4096).unwrap()];
        let mut a = ptrs(&b);
        a.push(KernelArg::I32(32));
        (a, b)
    };
    let scan = |d: &Device| {
        let b = vec![u32s(d, 1000, 1), d.alloc_uninit(4096).unwrap()];
        let mut a = ptrs(&b);
        a.push(KernelArg::U32(1000));
        (a, b)
    };
    let reduce = |d: &Device| {
        let b = vec![u32s(d, 1000, 2), d.alloc_uninit(64).unwrap()];
        let mut a = ptrs(&b);
        a.push(KernelArg::U32(1000));
        (a, b)
    };
    let nbody = |d: &Device| {
        let b = vec![f32s(d, 4 * 96), d.alloc_uninit(16 * 96).unwrap()];
        let mut a = ptrs(&b);
        a.extend([KernelArg::I32(96), KernelArg::F32(0.01)]);
        (a, b)
    };
    let pipeline = |d: &Device| {
        let b = vec![
            u32s(d, 2 * 3 * 64, 3),
            d.alloc_uninit(4 * 2 * 3 * 64).unwrap(),
        ];
        let mut a = ptrs(&b);
        a.push(KernelArg::I32(3));
        (a, b)
    };
    let red = |d: &Device| {
        let v: Vec<u32> = (0..96u32)
            .map(|i| if i % 7 == 3 { 0xdead } else { i * 5 })
            .collect();
        let b = vec![d.alloc_from(&v).unwrap(), out(d, 12 * 96)];
        (ptrs(&b), b)
    };
    const SGEMM_N: &str = include_str!("kernels/sgemm.nvrtc.ptx");
    const SGEMM_C: &str = include_str!("kernels/sgemm.clang.ptx");
    const SCAN_N: &str = include_str!("kernels/scan.nvrtc.ptx");
    const REDUCE_N: &str = include_str!("kernels/reduce.nvrtc.ptx");
    const REDUCE_C: &str = include_str!("kernels/reduce.clang.ptx");
    const NBODY_N: &str = include_str!("kernels/nbody.nvrtc.ptx");
    const BARRIERS_N: &str = include_str!("kernels/barriers.nvrtc.ptx");
    const BARRIERS_C: &str = include_str!("kernels/barriers.clang.ptx");
    let g = |x| [x, 1, 1];
    vec![
        k(
            "sgemm.nvrtc.ptx",
            SGEMM_N,
            "sgemm_tiled",
            [2, 2, 1],
            [16, 16, 1],
            sgemm,
        ),
        k(
            "sgemm.clang.ptx",
            SGEMM_C,
            "sgemm_tiled",
            [2, 2, 1],
            [16, 16, 1],
            sgemm,
        ),
        k("scan.nvrtc.ptx", SCAN_N, "block_scan", g(4), g(256), scan),
        k(
            "reduce.nvrtc.ptx",
            REDUCE_N,
            "block_sum_u32",
            g(4),
            g(256),
            reduce,
        ),
        k(
            "reduce.clang.ptx",
            REDUCE_C,
            "block_sum_u32",
            g(4),
            g(256),
            reduce,
        ),
        Correct {
            shared: 256 * 8,
            ..k(
                "reduce.nvrtc.ptx",
                REDUCE_N,
                "block_sum_dyn_u64",
                g(4),
                g(256),
                reduce,
            )
        },
        k("nbody.nvrtc.ptx", NBODY_N, "nbody_acc", g(3), g(32), nbody),
        k(
            "barriers.nvrtc.ptx",
            BARRIERS_N,
            "pipeline",
            g(2),
            g(128),
            pipeline,
        ),
        k(
            "barriers.clang.ptx",
            BARRIERS_C,
            "pipeline",
            g(2),
            g(128),
            pipeline,
        ),
        k("barriers.nvrtc.ptx", BARRIERS_N, "red", g(1), g(96), red),
        k(
            "bugs_hand.ptx",
            HAND,
            "warp_exchange_syncwarp",
            g(1),
            g(32),
            |d| {
                let b = vec![out(d, 128)];
                (ptrs(&b), b)
            },
        ),
    ]
}

/// Runs `c` (fresh buffers) with `opts` on `backend`; returns its buffers' bytes.
fn run_correct(
    dev: &Device,
    m: &Module,
    c: &Correct,
    backend: Backend,
    opts: SanitizeOptions,
) -> Result<Vec<Vec<u8>>, String> {
    let (args, bufs) = (c.args)(dev);
    let cfg = LaunchConfig::new(c.grid, c.block)
        .shared_bytes(c.shared)
        .backend(backend)
        .sanitize(opts);
    let r = dev.launch(m, c.kernel, &cfg, &args);
    let outs = bufs.iter().map(|b| dev.read::<u8>(b).unwrap()).collect();
    for b in bufs {
        dev.free(b).unwrap();
    }
    r.map(|_| outs).map_err(|e| e.to_string())
}

#[test]
fn correct_kernels_have_no_findings_under_every_mode() {
    let dev = device();
    for c in correct_kernels() {
        let m = dev.load_ptx(c.src, c.file).unwrap();
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{} {} on {backend:?}", c.file, c.kernel);
            let plain = run_correct(&dev, &m, &c, backend, SanitizeOptions::default())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let checked = run_correct(&dev, &m, &c, backend, SanitizeOptions::ALL)
                .unwrap_or_else(|e| panic!("{what} under every sanitizer: {e}"));
            assert_eq!(
                plain, checked,
                "{what}: the sanitized run computes the same"
            );
        }
    }
    assert!(dev.take_sanitizer_report().is_empty());
    assert!(dev.leaks().is_empty(), "{}", dev.leaks());
}

#[test]
fn report_only_collects_every_finding_once_and_goes_on() {
    let dev = device();
    let m = dev.load_ptx(BUGS, "bugs.nvrtc.ptx").unwrap();
    let opts = SanitizeOptions::parse("racecheck,initcheck,report-only").unwrap();
    for backend in [Backend::Interp, Backend::Jit] {
        // reduce_no_sync: races at every stride, in two launches: deduplicated by
        // instruction pair, and the launch completes.
        let input = f32s(&dev, 128);
        let o = out(&dev, 4);
        let cfg = LaunchConfig::new(1, 128).backend(backend).sanitize(opts);
        for _ in 0..2 {
            dev.launch(&m, "reduce_no_sync", &cfg, &[(&input).into(), (&o).into()])
                .unwrap();
        }
        let rep = dev.take_sanitizer_report();
        assert!(rep.findings.len() > 1, "{rep}");
        assert!(
            rep.findings.iter().all(|f| f.kind.checker() == "racecheck"),
            "{rep}"
        );
        let mut keys: Vec<_> = rep
            .findings
            .iter()
            .map(|f| (f.at.clone(), f.other.as_ref().map(|o| o.at.clone())))
            .collect();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "deduplicated: {rep}");
        let json = rep.to_json();
        assert!(
            json.starts_with("{\"findings\":[{\"checker\":\"racecheck\""),
            "{json}"
        );
        assert!(
            json.contains("\"other\":{\"at\":{\"file\":\"bugs.nvrtc.ptx\""),
            "{json}"
        );
        // Report-only memcheck: the bad load reads zero and the launch goes on.
        let inb = f32s(&dev, 64);
        let ob = out(&dev, 256);
        let cfg = LaunchConfig::new(1, 64)
            .backend(backend)
            .sanitize(SanitizeOptions::parse("memcheck,report-only").unwrap());
        let args = [(&inb).into(), (&ob).into(), KernelArg::I32(64)];
        dev.launch(&m, "oob_next_elem", &cfg, &args).unwrap();
        let got: Vec<f32> = dev.read(&ob).unwrap();
        // out[i] = in[i] + in[i+1] = 2i + 1, and in[64] reads 0: out[63] = 63.
        assert_eq!(got[62], 125.0);
        assert_eq!(got[63], 63.0);
        let rep = dev.take_sanitizer_report();
        assert_eq!(rep.findings.len(), 1, "{rep}");
        assert_eq!(rep.findings[0].kind, FindingKind::OutOfBounds);
        for b in [input, o, inb, ob] {
            dev.free(b).unwrap();
        }
    }
}

#[test]
fn leaks_and_schedules() {
    let dev = device();
    let b = dev.alloc_zeroed(100).unwrap();
    let leaks = dev.leaks();
    assert_eq!(leaks.findings.len(), 1);
    assert_eq!(leaks.findings[0].kind, FindingKind::Leak);
    assert_eq!(leaks.findings[0].addr, b.ptr());
    assert_eq!(leaks.findings[0].size, 100);
    // Each live allocation is its own leak (unlocated leaks are not merged).
    let c = dev.alloc_zeroed(200).unwrap();
    let mut got: Vec<(u64, u32)> = dev
        .leaks()
        .findings
        .iter()
        .map(|f| (f.addr, f.size))
        .collect();
    got.sort_unstable();
    let mut want = vec![(b.ptr(), 100), (c.ptr(), 200)];
    want.sort_unstable();
    assert_eq!(got, want);
    dev.free(c).unwrap();
    dev.free(b).unwrap();
    assert!(dev.leaks().is_empty());
    // A racy kernel under random schedules: the same seed gives the same output, and
    // some seed changes it (shared_flag_waw keeps the last writer's id).
    let m = dev.load_ptx(BUGS, "bugs.nvrtc.ptx").unwrap();
    let run = |s: ptxjit::Schedule, backend| {
        let o = out(&dev, 256);
        let cfg = LaunchConfig::new(1, 64).backend(backend).schedule(s);
        dev.launch(&m, "shared_flag_waw", &cfg, &[(&o).into()])
            .unwrap();
        let v: Vec<i32> = dev.read(&o).unwrap();
        dev.free(o).unwrap();
        v[0]
    };
    for backend in [Backend::Interp, Backend::Jit] {
        assert_eq!(run(ptxjit::Schedule::InOrder, backend), 63);
        let seeds: Vec<i32> = (1..=8)
            .map(|s| run(ptxjit::Schedule::Random(s), backend))
            .collect();
        let again: Vec<i32> = (1..=8)
            .map(|s| run(ptxjit::Schedule::Random(s), backend))
            .collect();
        assert_eq!(seeds, again, "replayable");
        assert!(
            seeds.contains(&31),
            "some seed runs warp 1 first: {seeds:?}"
        );
    }
}

#[test]
fn cli_and_environment_select_the_sanitizers() {
    let exe = env!("CARGO_BIN_EXE_ptxjit");
    let ptx = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sanitize/bugs.nvrtc.ptx");
    let json = std::env::temp_dir().join(format!("ptxjit-sanitize-{}.json", std::process::id()));
    let base = [
        "run",
        ptx,
        "--kernel",
        "scale",
        "--block",
        "32",
        "--arg",
        "uninit:128",
        "--arg",
        "zeros:128",
        "--arg",
        "f32:2",
    ];
    // --sanitize with a JSON report.
    let o = std::process::Command::new(exe)
        .args(base)
        .args(["--sanitize", "initcheck", "--sanitize-json"])
        .arg(&json)
        .env_remove("PTXJIT_SANITIZE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("initcheck: uninitialized-read in kernel 'scale' at ")
            && err.contains("(`ld.global"),
        "{err}"
    );
    let j = std::fs::read_to_string(&json).unwrap();
    let _ = std::fs::remove_file(&json);
    assert!(j.contains("\"kind\":\"uninitialized-read\""), "{j}");
    // PTXJIT_SANITIZE (EnvConfig, as libcuda.so reads it) without --sanitize.
    let o = std::process::Command::new(exe)
        .args(base)
        .env("PTXJIT_SANITIZE", "initcheck")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("uninitialized-read"),
        "{err}"
    );
    // report-only: the run succeeds and prints the finding.
    let o = std::process::Command::new(exe)
        .args(base)
        .args(["--sanitize", "initcheck,report-only"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("ptxjit sanitizer: 1 finding(s)"), "{err}");
    // Without sanitizers the same run succeeds silently.
    let o = std::process::Command::new(exe)
        .args(base)
        .env_remove("PTXJIT_SANITIZE")
        .output()
        .unwrap();
    assert!(o.status.success() && o.stderr.is_empty());
    // explore: a racy kernel whose output depends on the warp order.
    let o = std::process::Command::new(exe)
        .args(["run", ptx, "--kernel", "shared_flag_waw", "--block", "64"])
        .args(["--backend", "interp"])
        .args(["--arg", "zeros:256", "--out"])
        .arg(format!("0={}", json.display()))
        .args(["--schedule", "explore:8"])
        .env_remove("PTXJIT_SANITIZE")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&json);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("changes the output"),
        "{err}"
    );
}
