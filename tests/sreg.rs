//! Special registers on both backends (`tests/ptx/sreg.ptx`, ptxas-validated for
//! sm_90), against values computed here from the launch configuration: lane masks from
//! the lane index, cluster registers from the grid and the cluster shape, shared sizes
//! from the declared arrays, and the timers against the host's `CLOCK_MONOTONIC` read
//! around the launch. Wrong-width reads are located load-time errors, as with ptxas.

#[macro_use]
mod common;

use ptxjit::check::parse_and_check;
use ptxjit::{Backend, Device, DeviceOptions, LaunchConfig};

const SRC: &str = include_str!("ptx/sreg.ptx");

fn host_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn device(threads: usize) -> Device {
    Device::with_options(DeviceOptions {
        threads,
        ..DeviceOptions::default()
    })
    .unwrap()
}

fn load(dev: &Device, b: Backend) -> ptxjit::Module {
    dev.load_ptx_with(SRC, "sreg.ptx", b == Backend::Jit)
        .unwrap()
}

/// `x` lies in `[lo, hi]` modulo 2^32 (a 32-bit reading of a 64-bit counter read
/// between `lo` and `hi`).
fn low32_between(x: u32, lo: u64, hi: u64) -> bool {
    (x.wrapping_sub(lo as u32) as u64) <= hi - lo
}

fn sregs(b: Backend) {
    let dev = device(2);
    let m = load(&dev, b);
    let (grid, block) = ([2u32, 3, 2], [40u32, 1, 1]);
    let nthreads = 12 * 40;
    let o32 = dev.alloc_zeroed(nthreads * 192).unwrap();
    let o64 = dev.alloc_zeroed(nthreads * 64).unwrap();
    for gridid in 1..=2u64 {
        let cfg = LaunchConfig::new(grid, block).shared_bytes(100).backend(b);
        let before = host_ns();
        dev.launch(&m, "sregs", &cfg, &[(&o32).into(), (&o64).into()])
            .unwrap();
        let after = host_ns();
        let r32: Vec<u32> = dev.read(&o32).unwrap();
        let r64: Vec<u64> = dev.read(&o64).unwrap();
        let mut smid_of_cta = [u32::MAX; 12];
        for t in 0..nthreads {
            let g = |k: usize| r32[t * 48 + k];
            let g64 = |k: usize| r64[t * 8 + k];
            let (tid, cta) = (t % 40, t / 40);
            let ctaid = [cta % 2, (cta / 2) % 3, cta / 6].map(|x| x as u32);
            let (lane, warp) = (tid as u32 % 32, tid as u32 / 32);
            let ctx = format!("{b:?} launch {gridid} thread {t} (lane {lane})");
            // Lane masks from their definitions.
            let below = (1u64 << lane) as u32 - 1;
            let bit = 1u32 << lane;
            assert_eq!(g(0), lane, "%laneid {ctx}");
            assert_eq!(g(1), bit, "%lanemask_eq {ctx}");
            assert_eq!(g(2), below | bit, "%lanemask_le {ctx}");
            assert_eq!(g(3), below, "%lanemask_lt {ctx}");
            assert_eq!(g(4), !below, "%lanemask_ge {ctx}");
            assert_eq!(g(5), !(below | bit), "%lanemask_gt {ctx}");
            assert_eq!((g(6), g(7)), (warp, 2), "%warpid %nwarpid {ctx}");
            // Two worker threads: %nsmid = 2, %smid one of them, the same in a CTA.
            assert_eq!(g(9), 2, "%nsmid {ctx}");
            assert!(g(8) < 2, "%smid {ctx}");
            if smid_of_cta[cta] == u32::MAX {
                smid_of_cta[cta] = g(8);
            }
            assert_eq!(g(8), smid_of_cta[cta], "%smid differs inside a CTA: {ctx}");
            // 48 static + 100 dynamic bytes = 148, reported in 128-byte units: 256.
            assert_eq!((g(10), g(11), g(12)), (100, 256, 256), "smem sizes {ctx}");
            // No clusters: every CTA is a 1x1x1 cluster.
            assert_eq!([g(13), g(14), g(15)], ctaid, "%clusterid {ctx}");
            assert_eq!([g(16), g(17), g(18)], grid, "%nclusterid {ctx}");
            assert_eq!([g(19), g(20), g(21)], [0, 0, 0], "%cluster_ctaid {ctx}");
            assert_eq!([g(22), g(23), g(24)], [1, 1, 1], "%cluster_nctaid {ctx}");
            assert_eq!((g(25), g(26), g(27)), (0, 1, 0), "cluster rank {ctx}");
            assert_eq!(g(28), 0, "%envreg %pm %reserved_smem_offset_* {ctx}");
            assert_eq!(g(29), 40, "mov.u16 %ntid.x {ctx}");
            assert_eq!(g(30), !below & 0xff, "cvt.u32.u8 %lanemask_ge {ctx}");
            assert_eq!(g(31), gridid as u32, "mov.u32 %gridid {ctx}");
            assert_eq!(g(37), 48, "mov.u32 of shared variables' addresses {ctx}");
            assert_eq!(
                [g(40), g(41), g(42), g(43)],
                [ctaid[0], ctaid[1], ctaid[2], 0]
            );
            assert_eq!(
                [g(44), g(45), g(46), g(47)],
                [2, 3, 2, 0],
                "mov.v4 %nctaid {ctx}"
            );
            assert_eq!(g64(4), gridid, "%gridid {ctx}");
            assert_eq!(g64(5), 0, "%current_graph_exec %pm0_64 %pm7_64 {ctx}");
            let sext16 = (!below & 0xffff) as u16 as i16 as i64 as u64;
            assert_eq!(g64(6), sext16, "cvt.s64.s16 %lanemask_ge {ctx}");
            // Timers: %clock64 counts nanoseconds from the launch's start.
            let (t1, t2) = (g64(0), g64(1));
            let span = after - before;
            assert!(
                t1 <= t2 && t2 <= span,
                "%clock64 {t1} {t2} span {span} {ctx}"
            );
            assert!(low32_between(g(32), t1, t2), "%clock {} {ctx}", g(32));
            assert!(
                (t1 >> 32..=t2 >> 32).contains(&(g(33) as u64)),
                "%clock_hi {ctx}"
            );
            assert!(low32_between(g(36), t2, span), "cvt %clock64 {ctx}");
            let (g1, g2) = (g64(2), g64(3));
            assert!(
                before <= g1 && g1 <= g2 && g2 <= after,
                "%globaltimer {before} {g1} {g2} {after} {ctx}"
            );
            assert!(low32_between(g(34), g1, g2), "%globaltimer_lo {ctx}");
            assert!(
                (g1 >> 32..=g2 >> 32).contains(&(g(35) as u64)),
                "%globaltimer_hi {ctx}"
            );
        }
    }
    // Without dynamic shared memory, %total_smem_size is the 48 static bytes rounded
    // up to 128.
    let cfg = LaunchConfig::new(1, 32).backend(b);
    dev.launch(&m, "sregs", &cfg, &[(&o32).into(), (&o64).into()])
        .unwrap();
    let r32: Vec<u32> = dev.read(&o32).unwrap();
    assert_eq!((r32[10], r32[11], r32[12]), (0, 128, 128), "{b:?}");
    assert_eq!(r32[31], 3, "third launch {b:?}");
}

fn one_worker(b: Backend) {
    let dev = device(1);
    let m = load(&dev, b);
    let o32 = dev.alloc_zeroed(64 * 192).unwrap();
    let o64 = dev.alloc_zeroed(64 * 64).unwrap();
    let cfg = LaunchConfig::new(2, 32).backend(b);
    dev.launch(&m, "sregs", &cfg, &[(&o32).into(), (&o64).into()])
        .unwrap();
    let r32: Vec<u32> = dev.read(&o32).unwrap();
    for t in 0..64 {
        assert_eq!((r32[t * 48 + 8], r32[t * 48 + 9]), (0, 1), "{b:?} {t}");
    }
}

fn clusters(b: Backend) {
    let dev = device(2);
    let m = load(&dev, b);
    let grid = [4u32, 2, 2];
    let out = dev.alloc_zeroed(16 * 64).unwrap();
    let cfg = LaunchConfig::new(grid, 1).backend(b);
    dev.launch(&m, "clusters", &cfg, &[(&out).into()]).unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    let shape = [2u32, 2, 1];
    for c in 0..16u32 {
        let ctaid = [c % 4, (c / 4) % 2, c / 8];
        let g = |k: usize| r[c as usize * 16 + k];
        let ctx = format!("{b:?} cta {ctaid:?}");
        let cid: Vec<u32> = (0..3).map(|d| ctaid[d] / shape[d]).collect();
        let ncid: Vec<u32> = (0..3).map(|d| grid[d] / shape[d]).collect();
        let in_c: Vec<u32> = (0..3).map(|d| ctaid[d] % shape[d]).collect();
        assert_eq!(vec![g(0), g(1), g(2)], cid, "%clusterid {ctx}");
        assert_eq!(vec![g(3), g(4), g(5)], ncid, "%nclusterid {ctx}");
        assert_eq!(vec![g(6), g(7), g(8)], in_c, "%cluster_ctaid {ctx}");
        assert_eq!([g(9), g(10), g(11)], shape, "%cluster_nctaid {ctx}");
        // Rank: x fastest within the cluster.
        assert_eq!(g(12), in_c[0] + 2 * in_c[1], "%cluster_ctarank {ctx}");
        assert_eq!((g(13), g(14)), (4, 1), "%cluster_nctarank, explicit {ctx}");
    }
    let bad = LaunchConfig::new([3, 2, 2], 1).backend(b);
    let e = dev
        .launch(&m, "clusters", &bad, &[(&out).into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a multiple of the cluster shape"), "{e}");
    let e = dev
        .launch(&m, "explicit_only", &cfg, &[(&out).into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains(".explicitcluster"), "{e}");
}

fn monotonic(b: Backend) {
    let dev = device(2);
    let m = load(&dev, b);
    let out = dev.alloc_from(&[7u32; 64]).unwrap();
    let n = if b == Backend::Jit { 20_000u32 } else { 2_000 };
    let cfg = LaunchConfig::new(1, 64).backend(b);
    dev.launch(&m, "monotonic", &cfg, &[(&out).into(), n.into()])
        .unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    assert_eq!(r, vec![0; 64], "{b:?}: timers went backwards");
}

both_backends!(sregs, one_worker, clusters, monotonic);

/// A module whose kernel body is `body` (registers %h, %r, %rd, %p declared).
fn kernel(body: &str) -> String {
    format!(
        ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
         \t.reg .b16 %h<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n\
         {body}\n\tret;\n}}\n"
    )
}

fn err(body: &str) -> String {
    match parse_and_check(&kernel(body), "e.ptx") {
        Ok(_) => panic!("no error for {body}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn wrong_widths_are_load_time_errors() {
    // Each pair was checked with ptxas 12.9 ("Arguments mismatch for instruction").
    let cases = [
        (
            "\tmov.u32 %r1, %clock64;",
            "e.ptx:10:15: error: special register '%clock64' (64-bit) cannot be read with type .u32",
        ),
        (
            "\tmov.u64 %rd1, %clock;",
            "e.ptx:10:16: error: special register '%clock' (32-bit) cannot be read with type .u64",
        ),
        (
            "\tmov.u16 %h1, %laneid;",
            "e.ptx:10:15: error: special register '%laneid' (32-bit) cannot be read with type .u16",
        ),
        (
            "\tmov.b64 %rd1, %lanemask_lt;",
            "e.ptx:10:16: error: special register '%lanemask_lt' (32-bit) cannot be read with type .b64",
        ),
        (
            "\tmov.u32 %r1, %globaltimer;",
            "e.ptx:10:15: error: special register '%globaltimer' (64-bit) cannot be read with type .u32",
        ),
        (
            "\tmov.u32 %r1, %current_graph_exec;",
            "e.ptx:10:15: error: special register '%current_graph_exec' (64-bit) cannot be read with type .u32",
        ),
        (
            "\tmov.u32 %r1, %pm0_64;",
            "e.ptx:10:15: error: special register '%pm0_64' (64-bit) cannot be read with type .u32",
        ),
        (
            "\tmov.u16 %h1, %cluster_nctaid.x;",
            "e.ptx:10:15: error: special register '%cluster_nctaid.x' (32-bit) cannot be read with type .u16",
        ),
        (
            "\tmov.u32 %r1, %is_explicit_cluster;",
            "e.ptx:10:15: error: special register '%is_explicit_cluster' (.pred) cannot be read with type .u32",
        ),
        (
            "\tcvt.u64.u64 %rd1, %clock;",
            "e.ptx:10:20: error: special register '%clock' (32-bit) cannot be read with type .u64 by cvt",
        ),
        (
            "\tcvt.u64.u64 %rd1, %tid.x;",
            "e.ptx:10:20: error: special register '%tid.x' (32-bit) cannot be read with type .u64 by cvt",
        ),
        ("\tmov.u32 %r1, %envreg32;", "e.ptx:10:15: error: unknown register '%envreg32'"),
        ("\tmov.u32 %r1, %pm8;", "e.ptx:10:15: error: unknown register '%pm8'"),
        (
            "\tmov.u32 %r1, %reserved_smem_offset_2;",
            "e.ptx:10:15: error: unknown register '%reserved_smem_offset_2'",
        ),
        ("\tmov.u32 %r1, %clock_lo;", "e.ptx:10:15: error: unknown register '%clock_lo'"),
    ];
    for (body, want) in cases {
        assert_eq!(err(body), want, "{body}");
    }
    // What ptxas accepts: legacy widths and narrower cvt sources.
    for ok in [
        "\tmov.u16 %h1, %tid.x;",
        "\tmov.u16 %h1, %gridid;",
        "\tmov.u32 %r1, %gridid;",
        "\tmov.u64 %rd1, %gridid;",
        "\tmov.s32 %r1, %smid;",
        "\tcvt.u32.u64 %r1, %clock64;",
        "\tcvt.u64.u32 %rd1, %clock64;",
        "\tcvt.u32.u8 %r1, %laneid;",
        "\tcvt.u16.u64 %h1, %globaltimer;",
        "\tmov.pred %p1, %is_explicit_cluster;",
    ] {
        parse_and_check(&kernel(ok), "ok.ptx").unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}
