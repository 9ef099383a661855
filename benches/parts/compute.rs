//! Benchmarks of the compute kernels added for issue 7's table, each written once in
//! CUDA C (tests/kernels/*.cu, clang's PTX is launched) and once in OpenCL C
//! (benches/opencl/kernels.cl), with a native Rust version of the same algorithm whose
//! results are bit-identical (checked here; tests/perf_kernels.rs checks both backends):
//! - `sgemm`: tiled 512 x 512 f32 matrix multiply, 16 x 16 tiles in shared memory; an
//!   element is one multiply-add (n^3 of them);
//! - `nbody`: accelerations of 4096 f32 bodies from all pairs (one step); an element is
//!   one pair interaction (n^2);
//! - `scan`: block-wide inclusive u32 scan with `shfl.sync.up` per warp and a shared
//!   combine of the warp totals, 256 threads per block, 2^22 elements.
//!
//! Included by `kernels.rs` (one bench binary).

use super::pocl::{bytes, f32s, u32s, Arg, Pocl};
use super::{best_of, per_elem, report};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use rayon::prelude::*;

fn load(dev: &Device, src: &str, name: &str) -> ptxjit::Module {
    dev.load_ptx(src, name)
        .unwrap_or_else(|e| panic!("load {name}: {e}"))
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Rows `first_row..` of `c = a * b` (n x n): c[i][j] = fma(a[i][k], b[k][j], c[i][j]) for
/// k = 0..n in order, as each thread of `sgemm_tiled` accumulates; the j loop is
/// innermost so that it vectorises (the order per element is unchanged).
#[target_feature(enable = "avx2,fma")]
fn sgemm_rows(a: &[f32], b: &[f32], c: &mut [f32], first_row: usize, n: usize) {
    for (r, crow) in c.chunks_mut(n).enumerate() {
        let arow = &a[(first_row + r) * n..(first_row + r + 1) * n];
        crow.fill(0.0);
        for (k, &aik) in arow.iter().enumerate() {
            for (cj, &bj) in crow.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *cj = aik.mul_add(bj, *cj);
            }
        }
    }
}

fn sgemm_native(a: &[f32], b: &[f32], c: &mut [f32], n: usize, parallel: bool) {
    // SAFETY (both): main() checked for AVX2 and FMA.
    if parallel {
        c.par_chunks_mut(8 * n)
            .enumerate()
            .for_each(|(i, rows)| unsafe { sgemm_rows(a, b, rows, 8 * i, n) });
    } else {
        unsafe { sgemm_rows(a, b, c, 0, n) }
    }
}

pub fn bench_sgemm(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
    let m = load(
        dev,
        include_str!("../../tests/kernels/sgemm.clang.ptx"),
        "sgemm.clang.ptx",
    );
    let input = |n: usize, seed: u32| -> Vec<f32> {
        (0..(n * n) as u32)
            .map(|i| ((i.wrapping_mul(2654435761) ^ seed) >> 16) as f32 / 32768.0 - 1.0)
            .collect()
    };
    let run = |n: usize, backend: Backend, reps: usize| {
        let (a, b) = (input(n, 0x1234), input(n, 0xbeef));
        let mut want = vec![0.0f32; n * n];
        sgemm_native(&a, &b, &mut want, n, true);
        let (ba, bb) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&b).unwrap());
        let bc = dev.alloc_zeroed(n * n * 4).unwrap();
        let t = (n / 16) as u32;
        let cfg = LaunchConfig::new((t, t), (16, 16)).backend(backend);
        let args = [
            KernelArg::from(&ba),
            KernelArg::from(&bb),
            KernelArg::from(&bc),
            KernelArg::I32(n as i32),
        ];
        let d = best_of(reps, || dev.launch(&m, "sgemm_tiled", &cfg, &args).unwrap());
        assert!(
            same_bits(&dev.read::<f32>(&bc).unwrap(), &want),
            "sgemm {backend:?} differs from native"
        );
        (per_elem(d, n * n * n), a, b, want)
    };
    let n = 512usize;
    let (interp, ..) = run(64, Backend::Interp, reps.min(2));
    let (jit, a, b, want) = run(n, Backend::Jit, reps);
    let mut c = vec![0.0f32; n * n];
    let t1 = best_of(reps, || sgemm_native(&a, &b, &mut c, n, false));
    let tn = best_of(reps, || sgemm_native(&a, &b, &mut c, n, true));
    assert!(same_bits(&c, &want));
    let p = pocl.map(|cl| {
        let r = cl.run(
            "sgemm_tiled",
            &[n, n],
            &[16, 16],
            &[
                Arg::Buf(&bytes(&a)),
                Arg::Buf(&bytes(&b)),
                Arg::Zeroed(n * n * 4),
                Arg::I32(n as i32),
            ],
            reps,
        );
        assert!(same_bits(&f32s(&r.buffers[2]), &want), "POCL sgemm differs");
        per_elem(r.best, n * n * n)
    });
    println!(
        "sgemm_tiled 512x512 f32, 16x16 shared-memory tiles; per multiply-add (interpreter: 64x64)"
    );
    report(
        "sgemm 512², 16×16 tiles (per multiply-add)",
        threads,
        per_elem(t1, n * n * n),
        per_elem(tn, n * n * n),
        jit,
        interp,
        p,
    );
}

/// Accelerations of bodies `first..first + out.len()` from all of `pos`, 16 bodies at a
/// time (the lane loop vectorises), each in the kernel's operation order.
#[target_feature(enable = "avx2,fma")]
fn nbody_part(pos: &[[f32; 4]], first: usize, out: &mut [[f32; 4]], eps2: f32) {
    const L: usize = 16;
    for (bi, ob) in out.chunks_mut(L).enumerate() {
        let base = first + bi * L;
        let (mut px, mut py, mut pz) = ([0.0f32; L], [0.0f32; L], [0.0f32; L]);
        for (l, p) in pos[base..base + ob.len()].iter().enumerate() {
            [px[l], py[l], pz[l]] = [p[0], p[1], p[2]];
        }
        let (mut ax, mut ay, mut az) = ([0.0f32; L], [0.0f32; L], [0.0f32; L]);
        for pj in pos {
            for l in 0..L {
                let (dx, dy, dz) = (pj[0] - px[l], pj[1] - py[l], pj[2] - pz[l]);
                let d2 = dz.mul_add(dz, dy.mul_add(dy, dx.mul_add(dx, eps2)));
                let inv = 1.0 / d2.sqrt();
                let s = pj[3] * inv * inv * inv;
                ax[l] = dx.mul_add(s, ax[l]);
                ay[l] = dy.mul_add(s, ay[l]);
                az[l] = dz.mul_add(s, az[l]);
            }
        }
        for (l, o) in ob.iter_mut().enumerate() {
            *o = [ax[l], ay[l], az[l], 0.0];
        }
    }
}

fn nbody_native(pos: &[[f32; 4]], out: &mut [[f32; 4]], eps2: f32, parallel: bool) {
    // SAFETY (both): main() checked for AVX2 and FMA.
    if parallel {
        out.par_chunks_mut(64)
            .enumerate()
            .for_each(|(i, o)| unsafe { nbody_part(pos, 64 * i, o, eps2) });
    } else {
        unsafe { nbody_part(pos, 0, out, eps2) }
    }
}

pub fn bench_nbody(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
    let m = load(
        dev,
        include_str!("../../tests/kernels/nbody.clang.ptx"),
        "nbody.clang.ptx",
    );
    let eps2 = 1.0e-3f32;
    let bodies = |n: usize| -> Vec<[f32; 4]> {
        let mut s = 0x2545_f491u32;
        let mut unit = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        };
        (0..n)
            .map(|_| [unit(), unit(), unit(), unit() * 0.5 + 1.0])
            .collect()
    };
    let run = |n: usize, backend: Backend, reps: usize| {
        let pos = bodies(n);
        let mut want = vec![[0.0f32; 4]; n];
        nbody_native(&pos, &mut want, eps2, true);
        let flat: Vec<f32> = pos.iter().flatten().copied().collect();
        let bp = dev.alloc_from(&flat).unwrap();
        let ba = dev.alloc_zeroed(n * 16).unwrap();
        let cfg = LaunchConfig::new((n as u32).div_ceil(128), 128).backend(backend);
        let args = [
            KernelArg::from(&bp),
            KernelArg::from(&ba),
            KernelArg::I32(n as i32),
            KernelArg::F32(eps2),
        ];
        let d = best_of(reps, || dev.launch(&m, "nbody_acc", &cfg, &args).unwrap());
        let want_flat: Vec<f32> = want.iter().flatten().copied().collect();
        assert!(
            same_bits(&dev.read::<f32>(&ba).unwrap(), &want_flat),
            "nbody {backend:?} differs from native"
        );
        (per_elem(d, n * n), pos, flat, want_flat)
    };
    let n = 4096usize;
    let (interp, ..) = run(256, Backend::Interp, reps.min(2));
    let (jit, pos, flat, want) = run(n, Backend::Jit, reps);
    let mut out = vec![[0.0f32; 4]; n];
    let t1 = best_of(reps, || nbody_native(&pos, &mut out, eps2, false));
    let tn = best_of(reps, || nbody_native(&pos, &mut out, eps2, true));
    let p = pocl.map(|cl| {
        let r = cl.run(
            "nbody_acc",
            &[n],
            &[128],
            &[
                Arg::Buf(&bytes(&flat)),
                Arg::Zeroed(n * 16),
                Arg::I32(n as i32),
                Arg::F32(eps2),
            ],
            reps,
        );
        assert!(same_bits(&f32s(&r.buffers[1]), &want), "POCL nbody differs");
        per_elem(r.best, n * n)
    });
    println!(
        "nbody_acc, 4096 f32 bodies, all pairs; per pair interaction (interpreter: 256 bodies)"
    );
    report(
        "n-body, 4096 bodies (per pair)",
        threads,
        per_elem(t1, n * n),
        per_elem(tn, n * n),
        jit,
        interp,
        p,
    );
}

/// Inclusive wrapping scan of each `block`-element chunk.
fn scan_native(input: &[u32], out: &mut [u32], block: usize, parallel: bool) {
    let one = |(i, o): (&[u32], &mut [u32])| {
        let mut acc = 0u32;
        for (x, y) in i.iter().zip(o) {
            acc = acc.wrapping_add(*x);
            *y = acc;
        }
    };
    if parallel {
        input
            .par_chunks(block)
            .zip(out.par_chunks_mut(block))
            .for_each(one);
    } else {
        input.chunks(block).zip(out.chunks_mut(block)).for_each(one);
    }
}

pub fn bench_scan(dev: &Device, pocl: Option<&Pocl>, reps: usize, threads: usize) {
    let m = load(
        dev,
        include_str!("../../tests/kernels/scan.clang.ptx"),
        "scan.clang.ptx",
    );
    let n = 1usize << 22;
    let block = 256usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 3)
        .collect();
    let mut want = vec![0u32; n];
    scan_native(&input, &mut want, block, true);
    let bin = dev.alloc_from(&input).unwrap();
    let bout = dev.alloc_zeroed(n * 4).unwrap();
    let run = |count: usize, backend: Backend, reps: usize| {
        let cfg = LaunchConfig::new((count / block) as u32, block as u32).backend(backend);
        let args = [
            KernelArg::from(&bin),
            KernelArg::from(&bout),
            KernelArg::U32(count as u32),
        ];
        let d = best_of(reps, || dev.launch(&m, "block_scan", &cfg, &args).unwrap());
        assert!(
            dev.read::<u32>(&bout).unwrap()[..count] == want[..count],
            "scan {backend:?} differs from native"
        );
        per_elem(d, count)
    };
    let ni = 1usize << 16;
    let interp = run(ni, Backend::Interp, reps.min(2));
    let jit = run(n, Backend::Jit, reps);
    let mut out = vec![0u32; n];
    let t1 = best_of(reps, || scan_native(&input, &mut out, block, false));
    let tn = best_of(reps, || scan_native(&input, &mut out, block, true));
    let p = pocl.map(|cl| {
        let r = cl.run(
            "block_scan",
            &[n],
            &[block],
            &[
                Arg::Buf(&bytes(&input)),
                Arg::Zeroed(n * 4),
                Arg::U32(n as u32),
            ],
            reps,
        );
        assert!(u32s(&r.buffers[1]) == want, "POCL scan differs");
        per_elem(r.best, n)
    });
    println!("block_scan (shfl.sync.up per warp + shared combine), 256 threads/block, n = 2^22 (interpreter: 2^16)");
    report(
        "warp-shuffle block scan, 2^22 u32",
        threads,
        per_elem(t1, n),
        per_elem(tn, n),
        jit,
        interp,
        p,
    );
}
