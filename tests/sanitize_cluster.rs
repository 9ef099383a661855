//! The sanitizers on thread block clusters (issue 18), on both backends: the correct
//! cluster kernels of `tests/sanitize/cluster_hand.ptx` (distributed shared memory
//! through `ld.shared::cluster` and generic `mapa` addresses, `atom/red.shared::cluster`
//! on another CTA's counter, a remote mbarrier handoff) and of the NVRTC-compiled
//! `tests/kernels/cluster/cluster.sm_90.ptx` (the programming guide's histogram, a
//! cluster sum through `map_shared_rank`) have no finding under every mode at once and
//! compute what they compute without; the buggy ones are each reported exactly: a
//! `bar.sync` where `barrier.cluster` is needed (racecheck), a read of another CTA's
//! unwritten shared memory (initcheck), a read past another CTA's window (memcheck), a
//! store after the remote mbarrier arrival (racecheck); global memory passed between the
//! cluster's CTAs is clean across a `barrier.cluster` and a race across a `bar.sync`
//! only. Expected values are derived by
//! hand in the comments (the kernels' header says what each computes).

use ptxjit::ir::Space;
use ptxjit::{Backend, Device, FindingKind, KernelArg, LaunchConfig, Module, SanitizeOptions};

const BACKENDS: [Backend; 2] = [Backend::Interp, Backend::Jit];
const HAND: &str = "sanitize/cluster_hand.ptx";

fn load(dev: &Device, path: &str) -> Module {
    let full = format!("{}/tests/{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    dev.load_ptx(&src, path)
        .unwrap_or_else(|e| panic!("load_ptx({path}): {e}"))
}

/// Runs hand kernel `kernel` on `grid` blocks of 32 threads (clusters of 2) with an
/// output of `grid * 32` words under `opts`; returns the output or the error.
fn run(
    dev: &Device,
    m: &Module,
    kernel: &str,
    grid: u32,
    backend: Backend,
    opts: SanitizeOptions,
) -> Result<Vec<u32>, String> {
    let o = dev.alloc_zeroed(grid as usize * 32 * 4).unwrap();
    let cfg = LaunchConfig::new([grid, 1, 1], [32, 1, 1])
        .backend(backend)
        .sanitize(opts);
    let r = dev.launch(m, kernel, &cfg, &[KernelArg::from(&o)]);
    let got = dev.read::<u32>(&o).unwrap();
    dev.free(o).unwrap();
    r.map(|_| got).map_err(|e| e.to_string())
}

fn all() -> SanitizeOptions {
    SanitizeOptions::parse("memcheck,initcheck,racecheck,synccheck").unwrap()
}

#[test]
fn correct_cluster_kernels_have_no_findings() {
    let dev = Device::new().unwrap();
    let m = load(&dev, HAND);
    for backend in BACKENDS {
        // dsmem_ok: block c thread t (rank r = c % 2) reads the other rank's
        // buf[t] = (r ^ 1) * 100 + t twice (two clusters: grid 4).
        let want: Vec<u32> = (0..4 * 32)
            .map(|i| 2 * ((((i / 32) % 2) ^ 1) * 100 + i % 32))
            .collect();
        let got = run(&dev, &m, "dsmem_ok", 4, backend, all());
        assert_eq!(got.as_ref(), Ok(&want), "dsmem_ok on {backend:?}");
        // remote_atomic_ok: 64 threads each add 1 twice to rank 0's counter: 128 at
        // out[c * 32] of each cluster's rank 0 (blocks 0 and 2).
        let mut want = vec![0u32; 4 * 32];
        want[0] = 128;
        want[64] = 128;
        let got = run(&dev, &m, "remote_atomic_ok", 4, backend, all());
        assert_eq!(got.as_ref(), Ok(&want), "remote_atomic_ok on {backend:?}");
        // mbar_remote_ok: rank 1 stores t + 7 into rank 0's buf[t]; rank 0 (block 0)
        // copies it out.
        let mut want = vec![0u32; 2 * 32];
        for t in 0..32 {
            want[t as usize] = t + 7;
        }
        let got = run(&dev, &m, "mbar_remote_ok", 2, backend, all());
        assert_eq!(got.as_ref(), Ok(&want), "mbar_remote_ok on {backend:?}");
        // global_cluster_ok: rank 1 stores t + 3 to out[32 + t], rank 0 copies it to
        // out[t] after the cluster barrier.
        let want: Vec<u32> = (0..64).map(|i| i % 32 + 3).collect();
        let got = run(&dev, &m, "global_cluster_ok", 2, backend, all());
        assert_eq!(got.as_ref(), Ok(&want), "global_cluster_ok on {backend:?}");
    }
    assert!(dev.take_sanitizer_report().is_empty());

    // The NVRTC kernels: the same results sanitized as not (tests/cluster.rs checks
    // those against Rust references).
    let m = load(&dev, "kernels/cluster/cluster.sm_90.ptx");
    let input: Vec<i32> = (0..3000).map(|i| (i * 37 % 107) - 5).collect();
    for backend in BACKENDS {
        for csize in [2u32, 4] {
            let nbins = 96i32;
            let per = nbins / csize as i32;
            let go = |o: SanitizeOptions| {
                let bins = dev.alloc_zeroed(nbins as usize * 4).unwrap();
                let inp = dev.alloc_from(&input).unwrap();
                let c = LaunchConfig::new([8, 1, 1], [128, 1, 1])
                    .backend(backend)
                    .cluster([csize, 1, 1])
                    .shared_bytes(per as u32 * 4)
                    .sanitize(o);
                let args = [
                    KernelArg::from(&bins),
                    KernelArg::from(nbins),
                    KernelArg::from(per),
                    KernelArg::from(&inp),
                    KernelArg::U64(input.len() as u64),
                ];
                let r = dev.launch(&m, "clusterHist_kernel", &c, &args);
                let got = dev.read::<u32>(&bins).unwrap();
                dev.free(bins).unwrap();
                dev.free(inp).unwrap();
                r.map(|_| got).map_err(|e| e.to_string())
            };
            let plain = go(SanitizeOptions::default()).unwrap();
            let checked = go(all());
            assert_eq!(checked, Ok(plain), "hist {csize} on {backend:?}");
        }
        let x: Vec<u32> = (0..8 * 256u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let go = |o: SanitizeOptions| {
            let inp = dev.alloc_from(&x).unwrap();
            let out = dev.alloc_zeroed(8).unwrap();
            let c = LaunchConfig::new([8, 1, 1], [256, 1, 1])
                .backend(backend)
                .sanitize(o);
            let r = dev.launch(
                &m,
                "cluster_sum",
                &c,
                &[KernelArg::from(&inp), KernelArg::from(&out)],
            );
            let got = dev.read::<u32>(&out).unwrap();
            dev.free(inp).unwrap();
            dev.free(out).unwrap();
            r.map(|_| got).map_err(|e| e.to_string())
        };
        let plain = go(SanitizeOptions::default()).unwrap();
        assert_eq!(go(all()), Ok(plain), "cluster_sum on {backend:?}");
    }
    assert!(dev.take_sanitizer_report().is_empty());
}

/// One expected finding: kind, block, thread, address, its line, and the other access
/// (line, thread, write) for races.
struct Want {
    kernel: &'static str,
    mode: &'static str,
    kind: FindingKind,
    thread: [u32; 3],
    addr: u64,
    space: Space,
    line: u32,
    other: Option<(u32, [u32; 3], bool)>,
    detail: &'static str,
}

#[test]
fn cluster_bugs_are_reported_exactly() {
    // The `.shared::cluster` address of byte `off` of rank `r`'s window: (r + 1) << 24
    // | off (README, "Thread block clusters on a CPU"); buf is the kernels' only shared
    // variable (offset 0) but in the mbarrier kernels, where it follows the 8-byte bar.
    let remote = |r: u64, off: u64| (r + 1) << 24 | off;
    let cases = [
        // Block 0's thread 0 reads rank 1's buf[0] after only a bar.sync; rank 1's
        // thread 0 wrote it (each CTA's warp runs to its bar.sync in turn).
        Want {
            kernel: "dsmem_cta_sync",
            mode: "racecheck",
            kind: FindingKind::RaceRaw,
            thread: [0, 0, 0],
            addr: remote(1, 0),
            space: Space::SharedCluster,
            line: 120,
            other: Some((117, [0, 0, 0], true)),
            detail: "the other access is by block (1,0,0) of the cluster, and no \
                     barrier.cluster or mbarrier phase orders the accesses",
        },
        // Thread 16 reads rank 1's buf[16], which no thread of rank 1 wrote.
        Want {
            kernel: "dsmem_uninit",
            mode: "initcheck",
            kind: FindingKind::Uninit,
            thread: [16, 0, 0],
            addr: remote(1, 64),
            space: Space::SharedCluster,
            line: 152,
            other: None,
            detail: "shared memory of block (1,0,0) of the cluster not written by any \
                     thread of that CTA (first unwritten byte at offset 0)",
        },
        // Thread 31 reads rank 1's bytes 128..132 of a 128-byte window.
        Want {
            kernel: "dsmem_oob",
            mode: "memcheck",
            kind: FindingKind::SharedOverflow,
            thread: [31, 0, 0],
            addr: remote(1, 128),
            space: Space::SharedCluster,
            line: 182,
            other: None,
            detail: "",
        },
        // Rank 0's thread 0 reads its buf[0] (shared offset 8) after the phase, which
        // does not order rank 1's thread 0's store after its arrival.
        Want {
            kernel: "mbar_remote_racy",
            mode: "racecheck",
            kind: FindingKind::RaceRaw,
            thread: [0, 0, 0],
            addr: 8,
            space: Space::Shared,
            line: 267,
            other: Some((260, [0, 0, 0], true)),
            detail: "the other access is by block (1,0,0) of the cluster, and no \
                     barrier.cluster or mbarrier phase orders the accesses",
        },
    ];
    let dev = Device::new().unwrap();
    let m = load(&dev, HAND);
    for w in &cases {
        for backend in BACKENDS {
            let who = format!("{} under {} on {backend:?}", w.kernel, w.mode);
            let opts = SanitizeOptions::parse(&format!("{},report-only", w.mode)).unwrap();
            run(&dev, &m, w.kernel, 2, backend, opts).unwrap_or_else(|e| panic!("{who}: {e}"));
            let rep = dev.take_sanitizer_report();
            assert_eq!(rep.findings.len(), 1, "{who}: {rep}");
            let f = &rep.findings[0];
            assert_eq!(f.kind, w.kind, "{who}: {rep}");
            assert_eq!(f.kernel, w.kernel, "{who}");
            assert_eq!(f.block, [0, 0, 0], "{who}: {rep}");
            assert_eq!(f.thread, w.thread, "{who}: {rep}");
            assert_eq!(f.addr, w.addr, "{who}: {rep}");
            assert_eq!(f.space, w.space, "{who}: {rep}");
            assert_eq!(f.at.as_ref().map(|a| a.line), Some(w.line), "{who}: {rep}");
            let other = f.other.as_ref().map(|o| (o.at.line, o.thread, o.write));
            assert_eq!(other, w.other, "{who}: {rep}");
            assert_eq!(f.detail, w.detail, "{who}: {rep}");
            // Stopped at the finding without report-only.
            let opts = SanitizeOptions::parse(w.mode).unwrap();
            let e = run(&dev, &m, w.kernel, 2, backend, opts).unwrap_err();
            assert!(e.contains(w.kernel), "{who}: {e}");
            dev.take_sanitizer_report();
        }
    }
}

/// Global memory between the CTAs of a cluster ordered by a `bar.sync` only: block 0's
/// thread 0 reads out[32] (byte 128 of the output) that block 1's thread 0 wrote.
#[test]
fn cluster_global_race_is_reported() {
    let dev = Device::new().unwrap();
    let m = load(&dev, HAND);
    for backend in BACKENDS {
        let o = dev.alloc_zeroed(64 * 4).unwrap();
        let opts = SanitizeOptions::parse("racecheck,report-only").unwrap();
        let cfg = LaunchConfig::new([2, 1, 1], [32, 1, 1])
            .backend(backend)
            .sanitize(opts);
        dev.launch(&m, "global_cta_sync", &cfg, &[KernelArg::from(&o)])
            .unwrap();
        let rep = dev.take_sanitizer_report();
        assert_eq!(rep.findings.len(), 1, "{backend:?}: {rep}");
        let f = &rep.findings[0];
        assert_eq!(f.kind, FindingKind::RaceRaw, "{backend:?}: {rep}");
        assert_eq!((f.block, f.thread), ([0; 3], [0; 3]), "{backend:?}: {rep}");
        assert_eq!(f.addr, o.ptr() + 128, "{backend:?}: {rep}");
        assert_eq!(f.at.as_ref().map(|a| a.line), Some(328), "{backend:?}");
        let other = f.other.as_ref().map(|o| (o.at.line, o.thread, o.write));
        assert_eq!(other, Some((325, [0, 0, 0], true)), "{backend:?}: {rep}");
        assert_eq!(
            f.detail,
            "the other access is by block (1,0,0): CTAs of a launch run concurrently, and \
             no atomic orders the accesses",
            "{backend:?}"
        );
        dev.free(o).unwrap();
    }
}
