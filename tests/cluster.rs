//! Thread block clusters (sm_90): CUDA C++ kernels written against cooperative groups'
//! cluster API and compiled by NVRTC (`tests/kernels/cluster/cluster.cu`, `regen.sh`
//! there) — the CUDA Programming Guide's distributed-shared-memory histogram, a
//! cluster-wide sum through `map_shared_rank`, a ring exchange in a 2-D cluster — and
//! hand-written PTX (`cluster_ops.ptx`, accepted by ptxas) for `ld`/`st`/`atom`/`red`
//! on `.shared::cluster`, `mapa`, `getctarank`, `cvta{.to}.shared::cluster`,
//! `isspacep.shared::cluster`, `barrier.cluster` and its misuses, and `cvta.to.shared` of
//! another CTA's window (`remote_cvta.ptx`). Cluster shapes come
//! from `.reqnctapercluster` or from `LaunchConfig::cluster`. Every output is compared
//! with a Rust reference computed here, on both backends.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const CU: &str = "cluster/cluster.sm_90.ptx";
const OPS: &str = "cluster/cluster_ops.ptx";

fn hist(backend: Backend) {
    let dev = device();
    let m = module(&dev, CU, backend);
    const NBINS: i32 = 96;
    let mut rng = Rng::new(7);
    let input: Vec<i32> = (0..5000)
        .map(|_| rng.range(0, NBINS as u32 + 10) as i32 - 5)
        .collect();
    let mut want = vec![0u32; NBINS as usize];
    for &x in &input {
        want[x.clamp(0, NBINS - 1) as usize] += 1;
    }
    for csize in [2u32, 4] {
        let per = NBINS / csize as i32;
        let bins = zeroed(&dev, NBINS as usize * 4);
        let inp = dev.alloc_from(&input).unwrap();
        let c = cfg([8, 1, 1], [128, 1, 1], backend)
            .cluster([csize, 1, 1])
            .shared_bytes(per as u32 * 4);
        let args = [
            arg(&bins),
            KernelArg::from(NBINS),
            KernelArg::from(per),
            arg(&inp),
            KernelArg::U64(input.len() as u64),
        ];
        launch(&dev, &m, "clusterHist_kernel", &c, &args, "hist");
        // Each of the 8 / csize clusters counts every bin over its share of the input.
        assert_eq!(dev.read::<u32>(&bins).unwrap(), want, "clusters of {csize}");
    }
}

fn cluster_sum(backend: Backend) {
    let dev = device();
    let m = module(&dev, CU, backend);
    let x = Rng::new(3).vec_u32(8 * 256);
    let inp = dev.alloc_from(&x).unwrap();
    let out = zeroed(&dev, 2 * 4);
    // .reqnctapercluster 4: blocks 0-3 and 4-7.
    let c = cfg([8, 1, 1], [256, 1, 1], backend);
    launch(&dev, &m, "cluster_sum", &c, &[arg(&inp), arg(&out)], "sum");
    let want: Vec<u32> = x
        .chunks(4 * 256)
        .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
        .collect();
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
    // A cluster shape that differs from .reqnctapercluster is a launch error.
    let bad = cfg([8, 1, 1], [256, 1, 1], backend).cluster([2, 1, 1]);
    let e = dev
        .launch(&m, "cluster_sum", &bad, &[arg(&inp), arg(&out)])
        .unwrap_err()
        .to_string();
    assert!(e.contains(".reqnctapercluster"), "{e}");
}

/// The ring kernel's outputs for a grid `[gx, gy, 1]` of 64-thread blocks in clusters
/// of `[cx, cy, 1]`: (values read, cluster registers per block).
fn ring_reference(g: [u32; 2], c: [u32; 2]) -> (Vec<u32>, Vec<u32>) {
    let nb = (g[0] * g[1]) as usize;
    let n = c[0] * c[1];
    let (mut out, mut info) = (vec![0u32; nb * 64], vec![0u32; nb * 8]);
    for by in 0..g[1] {
        for bx in 0..g[0] {
            let block = bx + g[0] * by;
            let (ix, iy) = (bx % c[0], by % c[1]);
            let rank = ix + c[0] * iy;
            let prev = (rank + n - 1) % n;
            // The block of rank `prev` in the same cluster.
            let pbx = bx - ix + prev % c[0];
            let pby = by - iy + prev / c[0];
            let pblock = pbx + g[0] * pby;
            for t in 0..64 {
                out[block as usize * 64 + t as usize] = pblock * 1000 + t;
            }
            let r = [rank, n, ix, iy, c[0], c[1], (rank + 1) % n, rank];
            info[block as usize * 8..][..8].copy_from_slice(&r);
        }
    }
    (out, info)
}

fn ring(backend: Backend) {
    let dev = device();
    let m = module(&dev, CU, backend);
    for (c, set) in [([2, 2], true), ([4, 1], true), ([1, 1], false)] {
        let g = [4u32, 2];
        let out = zeroed(&dev, 8 * 64 * 4);
        let info = zeroed(&dev, 8 * 8 * 4);
        let mut lc = cfg([g[0], g[1], 1], [64, 1, 1], backend);
        if set {
            lc = lc.cluster([c[0], c[1], 1]);
        }
        launch(&dev, &m, "ring", &lc, &[arg(&out), arg(&info)], "ring");
        let (want_out, want_info) = ring_reference(g, c);
        assert_eq!(dev.read::<u32>(&out).unwrap(), want_out, "cluster {c:?}");
        assert_eq!(dev.read::<u32>(&info).unwrap(), want_info, "cluster {c:?}");
    }
    // Too large a cluster, and one that does not divide the grid.
    for (g, c, what) in [
        ([8, 2, 2], [8, 2, 2], "at most 16"),
        ([4, 2, 1], [3, 1, 1], "multiple"),
    ] {
        let lc = cfg(g, [64, 1, 1], backend).cluster(c);
        let (out, info) = (zeroed(&dev, 4), zeroed(&dev, 4));
        let e = dev
            .launch(&m, "ring", &lc, &[arg(&out), arg(&info)])
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{e}");
    }
}

fn ops(backend: Backend) {
    let dev = device();
    let m = module(&dev, OPS, backend);
    let out = zeroed(&dev, 4 * 32 * 8 * 4);
    let out2 = zeroed(&dev, 4 * 2 * 4);
    let c = cfg([4, 1, 1], [32, 1, 1], backend);
    launch(&dev, &m, "ops", &c, &[arg(&out), arg(&out2)], "ops");
    let mut want = Vec::new();
    for cta in 0..4u32 {
        let (rank, other) = (cta % 2, (cta % 2) ^ 1);
        for t in 0..32 {
            // remote ld, its rank, own rank, generic ld, generic rank, cvta ld,
            // cvta.to round trip, isspacep.shared::cluster (1) | isspacep.shared (0).
            let v = other * 100 + t;
            want.extend([v, other, rank, v, other, v, 1, 1]);
        }
    }
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
    // Rank 0's sh[32] counts the 64 threads of the cluster; rank 1's sh[33] is the
    // largest rank * 100 + tid: 131.
    assert_eq!(
        dev.read::<u32>(&out2).unwrap(),
        vec![64, 0, 0, 131, 64, 0, 0, 131]
    );
}

fn errors(backend: Backend) {
    let dev = device();
    let m = module(&dev, OPS, backend);
    let err = |kernel: &str, block: u32, args: &[KernelArg]| {
        let c = cfg([2, 1, 1], [block, 1, 1], backend);
        dev.launch(&m, kernel, &c, args).unwrap_err().to_string()
    };
    let e = err("wait_no_arrive", 32, &[]);
    assert!(
        e.contains("without a preceding barrier.cluster.arrive"),
        "{e}"
    );
    assert!(e.contains("cluster_ops.ptx:"), "{e}");
    let e = err("arrive_twice", 32, &[]);
    assert!(e.contains("already arrived"), "{e}");
    let o = zeroed(&dev, 4);
    let e = err("mapa_bad_rank", 32, &[arg(&o)]);
    assert!(
        e.contains("rank 5") && e.contains("cluster of 2 CTAs"),
        "{e}"
    );
    let e = err("deadlock", 64, &[]);
    assert!(
        e.contains("deadlock") && e.contains("barrier.cluster"),
        "{e}"
    );
    // Threads that exited do not count: the 32 threads of each even rank finish.
    let out = zeroed(&dev, 4);
    let c4 = cfg([4, 1, 1], [32, 1, 1], backend);
    launch(&dev, &m, "early_exit", &c4, &[arg(&out)], "early_exit");
    assert_eq!(dev.read::<u32>(&out).unwrap(), vec![64]);
}

/// `cvta.to.shared` of another CTA's window (a generic address from `mapa`) gives that
/// window's `.shared::cluster` address; of the own window, the plain offset.
fn remote_cvta(backend: Backend) {
    let dev = device();
    let m = module(&dev, "cluster/remote_cvta.ptx", backend);
    let out = zeroed(&dev, 4 * 64 * 4);
    let c = cfg([4, 1, 1], [32, 1, 1], backend).cluster([2, 1, 1]);
    launch(&dev, &m, "remote_cvta", &c, &[arg(&out)], "remote_cvta");
    // Block b has rank b % 2; its partner is rank (b % 2) ^ 1. Each thread t of rank r
    // wrote r * 100 + t.
    let mut want = vec![0u32; 4 * 64];
    for b in 0..4u32 {
        let rank = b % 2;
        for t in 0..32u32 {
            want[(b * 64 + t) as usize] = (rank ^ 1) * 100 + t;
            want[(b * 64 + 32 + t) as usize] = rank * 100 + t;
        }
    }
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
}

both_backends!(hist, cluster_sum, ring, ops, errors, remote_cvta);
