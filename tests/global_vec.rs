//! `ld.v2/.v4` and `st.v2/.v4` at per-lane global addresses (tests/ptx/global_vec.ptx,
//! passes ptxas 12.9): 16-byte records gathered by random indices and scattered to a
//! permutation, u32, u64 and u16 elements, a partial last warp, a misaligned lane and an
//! index past the end (the same fault on every backend, nothing stored by the faulting
//! store). The optimized JIT tier runs each lane's elements in a loop inside the
//! instruction's cached region (`jit::lower::mem_gather`), the quick tier and the
//! interpreter through the checked helper; expected values from Rust on the same bytes.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/global_vec.ptx";
const RECORDS: usize = 512;
const THREADS: usize = 500;

fn word(b: &[u8], at: usize, len: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..len].copy_from_slice(&b[at..at + len]);
    u64::from_le_bytes(x)
}

/// `out` (u32 words) and `out2` (u64 words) after every thread's stores.
fn reference(inb: &[u8], idx: &[u32], dst: &[u32]) -> (Vec<u32>, Vec<u64>) {
    let mut out = vec![0u32; 4 * RECORDS];
    let mut out2 = vec![0u64; 2 * RECORDS];
    for t in 0..idx.len() {
        let (i, j) = (16 * idx[t] as usize, dst[t] as usize);
        let x: Vec<u32> = (0..4).map(|k| word(inb, i + 4 * k, 4) as u32).collect();
        let y = [word(inb, i, 8), word(inb, i + 8, 8)];
        let h = [word(inb, i + 4, 2), word(inb, i + 6, 2)];
        out[4 * j..4 * j + 4].copy_from_slice(&[x[3], x[2], x[1], x[0].wrapping_add(t as u32)]);
        out2[2 * j] = y[1];
        out2[2 * j + 1] = y[0] ^ h[0] ^ (h[1] << 16);
    }
    (out, out2)
}

type Outputs = (Vec<u32>, Vec<u64>);

fn run(
    dev: &Device,
    m: &ptxjit::Module,
    backend: Backend,
    (inb, idx, dst): (&[u8], &[u32], &[u32]),
    skew: (u32, u32),
) -> Result<Outputs, String> {
    let bufs = [
        dev.alloc_from(inb).unwrap(),
        dev.alloc_from(idx).unwrap(),
        dev.alloc_from(dst).unwrap(),
        zeroed(dev, 16 * RECORDS),
        zeroed(dev, 16 * RECORDS),
    ];
    let mut args: Vec<KernelArg> = bufs.iter().map(arg).collect();
    args.extend([
        KernelArg::U32(idx.len() as u32),
        KernelArg::U32(skew.0),
        KernelArg::U32(skew.1),
    ]);
    let c = cfg([blocks(idx.len(), 128), 1, 1], [128, 1, 1], backend);
    let r = dev.launch(m, "vec", &c, &args).map_err(|e| e.to_string());
    let out = r.map(|()| {
        (
            dev.read::<u32>(&bufs[3]).unwrap(),
            dev.read::<u64>(&bufs[4]).unwrap(),
        )
    });
    for b in bufs {
        dev.free(b).unwrap();
    }
    out
}

#[test]
fn vector_gathers_scatters_and_faults() {
    let mut rng = Rng::new(44);
    let inb: Vec<u8> = (0..16 * RECORDS).map(|_| rng.u32() as u8).collect();
    let idx: Vec<u32> = (0..THREADS).map(|_| rng.range(0, RECORDS as u32)).collect();
    // A permutation of the first THREADS records.
    let mut dst: Vec<u32> = (0..THREADS as u32).collect();
    for k in (1..dst.len()).rev() {
        dst.swap(k, rng.range(0, k as u32 + 1) as usize);
    }
    let want = reference(&inb, &idx, &dst);
    for (backend, tier) in backends_and_tiers() {
        let dev = device_tier(tier);
        let m = module_at(&dev, FILE, backend);
        let what = format!("{backend:?} {tier:?}");
        for _ in 0..2 {
            let got = run(&dev, &m, backend, (&inb, &idx, &dst), (0, 0))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&got.0, &want.0, &format!("{what} v4.u32"));
            assert_slice_eq(&got.1, &want.1, &format!("{what} v2.u64"));
        }
    }
    faults_alike(FILE, |dev, m, backend| {
        // Thread 70's v4 load 8 bytes off its 16-byte alignment.
        let e1 = run(dev, m, backend, (&inb, &idx, &dst), (70, 8)).expect_err("misaligned");
        assert!(e1.contains("ld.global.v4.u32"), "{e1}");
        // Thread 90's store past the end of `out` (record RECORDS).
        let mut bad = dst.clone();
        bad[90] = RECORDS as u32;
        let e2 = run(dev, m, backend, (&inb, &idx, &bad), (0, 0)).expect_err("past the end");
        assert!(e2.contains("st.global.v4.u32"), "{e2}");
        vec![e1, e2]
    });
}
