//! NVIDIA's CUB and cooperative groups as real projects use them
//! (`tests/kernels/cub_blocks.cu`, compiled by NVRTC with the CCCL headers): block
//! reductions, scans, radix sorts, histograms, load/store transposes, discontinuity
//! flags, logical-warp reduce/scan and cooperative-groups tiles, each on both backends
//! against a Rust reference written here. 4 blocks of 128 threads.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const T: usize = 128;
const B: usize = 4;
const FILE: &str = "cub_blocks.nvrtc.ptx";

fn lib() -> &'static (ptxjit::Device, ptxjit::Module, ptxjit::Module) {
    static LIB: std::sync::OnceLock<(ptxjit::Device, ptxjit::Module, ptxjit::Module)> =
        std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let dev = device();
        let jit = module(&dev, FILE, Backend::Jit);
        let interp = module(&dev, FILE, Backend::Interp);
        (dev, jit, interp)
    })
}

/// Launches `kernel` (B blocks of T threads) with `input` and output buffers of the
/// given element counts on both backends; returns each output (JIT), after checking
/// that the interpreter wrote the same bytes.
fn run<I: ptxjit::DeviceCopy>(kernel: &str, input: &[I], outs: &[usize]) -> Vec<Vec<u32>> {
    let (dev, jit, interp) = lib();
    let mut all = Vec::new();
    for (backend, m) in [(Backend::Jit, jit), (Backend::Interp, interp)] {
        let inb = dev.alloc_from(input).unwrap();
        let bufs: Vec<_> = outs.iter().map(|&n| zeroed(dev, n * 4)).collect();
        let mut args = vec![arg(&inb)];
        args.extend(bufs.iter().map(arg));
        let c = cfg([B as u32, 1, 1], [T as u32, 1, 1], backend);
        launch(dev, m, kernel, &c, &args, kernel);
        all.push(
            bufs.iter()
                .map(|b| dev.read::<u32>(b).unwrap())
                .collect::<Vec<_>>(),
        );
    }
    let interp = all.pop().unwrap();
    let jit = all.pop().unwrap();
    for (k, (j, i)) in jit.iter().zip(&interp).enumerate() {
        assert_slice_eq(j, i, &format!("{kernel} output {k}: JIT vs interpreter"));
    }
    jit
}

fn ints(seed: u64, n: usize, lo: i32, hi: i32) -> Vec<i32> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| r.range(0, (hi - lo) as u32) as i32 + lo)
        .collect()
}

fn as_u32(v: &[i32]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

#[test]
fn block_reduce_all_algorithms() {
    let x = ints(1, B * T, -1000, 1000);
    let mut want = Vec::new();
    for b in x.chunks(T) {
        want.push(b.iter().sum::<i32>());
        want.push(*b.iter().max().unwrap());
    }
    for k in ["reduce_warp", "reduce_raking", "reduce_commutative"] {
        let got = run(k, &x, &[2 * B]);
        assert_slice_eq(&got[0], &as_u32(&want), k);
    }
}

#[test]
fn block_scan_all_algorithms() {
    let x = ints(2, B * T, -50, 100);
    let mut want = Vec::new();
    for b in x.chunks(T) {
        let total: i32 = b.iter().sum();
        let (mut ex, mut mx) = (0i32, i32::MIN);
        for &v in b {
            mx = mx.max(v);
            want.extend([ex, mx, total]);
            ex += v;
        }
    }
    for k in ["scan_raking", "scan_memoize", "scan_warp"] {
        let got = run(k, &x, &[3 * B * T]);
        assert_slice_eq(&got[0], &as_u32(&want), k);
    }
}

#[test]
fn radix_sorts() {
    let n = B * T * 4;
    let mut r = Rng::new(3);
    // Keys with duplicates (the low 10 bits) and full-range ones.
    let keys: Vec<u32> = (0..n)
        .map(|i| if i % 3 == 0 { r.u32() } else { r.u32() & 0x3ff })
        .collect();
    let mut want = keys.clone();
    want.chunks_mut(4 * T).for_each(|c| c.sort_unstable());
    assert_slice_eq(&run("sort_keys", &keys, &[n])[0], &want, "sort_keys");

    // Descending pairs: radix sort is stable, so equal keys keep their input order.
    let got = run("sort_pairs_desc", &keys, &[n, n]);
    let (mut wk, mut wv) = (Vec::new(), Vec::new());
    for (c, chunk) in keys.chunks(4 * T).enumerate() {
        let mut p: Vec<(u32, u32)> = chunk
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, (c * 4 * T + i) as u32))
            .collect();
        p.sort_by_key(|x| std::cmp::Reverse(x.0));
        wk.extend(p.iter().map(|x| x.0));
        wv.extend(p.iter().map(|x| x.1));
    }
    assert_slice_eq(&got[0], &wk, "sort_pairs_desc keys");
    assert_slice_eq(&got[1], &wv, "sort_pairs_desc values");

    let s = ints(4, n, -100_000, 100_000);
    let mut ws = s.clone();
    ws.chunks_mut(4 * T).for_each(|c| c.sort_unstable());
    assert_slice_eq(
        &run("sort_signed", &s, &[n])[0],
        &as_u32(&ws),
        "sort_signed",
    );

    // Floats with ±0, infinities and subnormals (no NaN): CUB orders by the bits,
    // except that -0 and +0 are equal (its documentation), and the sort is stable.
    let mut f: Vec<f32> = (0..n)
        .map(|_| (r.range(0, 2_000_000) as f32 - 1e6) * 1e-3)
        .collect();
    f[..6].copy_from_slice(&[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-40, -1e-40]);
    let key = |x: &f32| {
        let b = if *x == 0.0 { 0 } else { x.to_bits() };
        if b >> 31 == 1 {
            !b
        } else {
            b ^ 0x8000_0000
        }
    };
    let mut wf = f.clone();
    wf.chunks_mut(4 * T).for_each(|c| c.sort_by_key(key));
    let wf: Vec<u32> = wf.iter().map(|x| x.to_bits()).collect();
    assert_slice_eq(&run("sort_floats", &f, &[n])[0], &wf, "sort_floats");
}

#[test]
fn histograms() {
    let n = B * T * 4;
    let mut r = Rng::new(5);
    // Skewed bytes: many in a few bins.
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            if r.u32().is_multiple_of(2) {
                (r.u32() % 8) as u8
            } else {
                r.u32() as u8
            }
        })
        .collect();
    let mut want = vec![0u32; B * 256];
    for (i, &x) in bytes.iter().enumerate() {
        want[i / (4 * T) * 256 + x as usize] += 1;
    }
    for k in ["histo_atomic", "histo_sort"] {
        assert_slice_eq(&run(k, &bytes, &[B * 256])[0], &want, k);
    }
}

#[test]
fn load_store_and_discontinuities() {
    let n = B * T * 4;
    let x = ints(6, n, -1000, 1000);
    let want: Vec<i32> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| v + 1000 * (i % 4) as i32)
        .collect();
    assert_slice_eq(
        &run("load_store", &x, &[n])[0],
        &as_u32(&want),
        "load_store",
    );

    let runs = ints(7, n, 0, 3);
    let want: Vec<u32> = (0..n)
        .map(|i| (i % (4 * T) == 0 || runs[i] != runs[i - 1]) as u32)
        .collect();
    assert_slice_eq(&run("heads", &runs, &[n])[0], &want, "heads");
}

#[test]
fn logical_warps_and_cooperative_groups() {
    let x = ints(8, B * T, -100, 100);
    let mut want = Vec::new();
    for g in x.chunks(16) {
        let sum: i32 = g.iter().sum();
        let mut inc = 0;
        for (l, &v) in g.iter().enumerate() {
            inc += v;
            want.extend([if l == 0 { sum } else { -1 }, inc]);
        }
    }
    assert_slice_eq(
        &run("warp16", &x, &[2 * B * T])[0],
        &as_u32(&want),
        "warp16",
    );

    let mut want = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        let t32 = &x[i / 32 * 32..i / 32 * 32 + 32];
        let t8 = &x[i / 8 * 8..i / 8 * 8 + 8];
        let ballot = t32
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, &u)| m | ((u & 1 != 0) as u32) << l);
        let matched = t32
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, &u)| m | ((u & 3 == v & 3) as u32) << l);
        want.extend([
            t32.iter().sum::<i32>() as u32,
            *t8.iter().max().unwrap() as u32,
            t8[..=i % 8].iter().sum::<i32>() as u32,
            ballot,
            matched,
        ]);
    }
    assert_slice_eq(&run("cg_tiles", &x, &[5 * B * T])[0], &want, "cg_tiles");
}
