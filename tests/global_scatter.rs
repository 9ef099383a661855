//! Per-lane stores outside shared memory (tests/ptx/global_scatter.ptx, passes ptxas
//! 12.9): u8, u16, u32 and u64 elements and a generic store at indices that are a
//! permutation of each warp's own range with repeats (lanes of one warp storing to one
//! address: the highest active lane's value stays, as on the interpreter), a partial
//! last warp, an index past the end and a misaligned lane (nothing written by the
//! faulting store, the same fault on every backend). The optimized JIT tier stores such
//! lanes in a loop inside the instruction's cached region
//! (`jit::lower::mem_gather::region_scatter`), the quick tier and the interpreter
//! through the checked access helper. Expected memory: Rust applying the stores in
//! thread order to zeroed buffers.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/global_scatter.ptx";
/// Elements per output buffer (the u32 buffer holds twice as many: the generic stores
/// go to its second half).
const ELEMS: usize = 1024;
const THREADS: usize = 1000;

fn value(t: usize) -> u64 {
    (t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The four buffers after the stores of threads `0..idx.len()`, in thread order.
fn reference(idx: &[u32]) -> (Vec<u8>, Vec<u16>, Vec<u32>, Vec<u64>) {
    let (mut o8, mut o16, mut o32, mut o64) = (
        vec![0u8; ELEMS],
        vec![0u16; ELEMS],
        vec![0u32; 2 * ELEMS],
        vec![0u64; ELEMS],
    );
    for (t, &i) in idx.iter().enumerate() {
        let (i, v) = (i as usize, value(t));
        o8[i] = v as u8;
        o16[i] = v as u16;
        o32[i] = v as u32;
        o64[i] = v;
        o32[ELEMS + i] = (v >> 32) as u32;
    }
    (o8, o16, o32, o64)
}

type Outputs = (Vec<u8>, Vec<u16>, Vec<u32>, Vec<u64>);

/// Launches `scatter` (block 128) with thread `skew.0`'s u32 address `skew.1` bytes on.
fn run(
    dev: &Device,
    m: &ptxjit::Module,
    backend: Backend,
    idx: &[u32],
    skew: (u32, u32),
) -> Result<Outputs, String> {
    let bufs = [
        zeroed(dev, ELEMS),
        zeroed(dev, 2 * ELEMS),
        zeroed(dev, 8 * ELEMS),
        zeroed(dev, 8 * ELEMS),
    ];
    let ib = dev.alloc_from(idx).unwrap();
    let mut args: Vec<KernelArg> = bufs.iter().map(arg).collect();
    args.extend([
        arg(&ib),
        KernelArg::U32(idx.len() as u32),
        KernelArg::U32(skew.0),
        KernelArg::U32(skew.1),
    ]);
    let c = cfg([blocks(idx.len(), 128), 1, 1], [128, 1, 1], backend);
    let r = dev
        .launch(m, "scatter", &c, &args)
        .map_err(|e| e.to_string());
    let out = r.map(|()| {
        (
            dev.read::<u8>(&bufs[0]).unwrap(),
            dev.read::<u16>(&bufs[1]).unwrap(),
            dev.read::<u32>(&bufs[2]).unwrap(),
            dev.read::<u64>(&bufs[3]).unwrap(),
        )
    });
    for b in bufs {
        dev.free(b).unwrap();
    }
    dev.free(ib).unwrap();
    out
}

/// Thread t's index: in its warp's own 32 elements, with repeats.
fn indices(seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..THREADS)
        .map(|t| (t / 32 * 32) as u32 + rng.range(0, 32))
        .collect()
}

#[test]
fn scatters_and_faults() {
    let idx = indices(31);
    let want = reference(&idx);
    for (backend, tier) in backends_and_tiers() {
        let dev = device_tier(tier);
        let m = module_at(&dev, FILE, backend);
        let what = format!("{backend:?} {tier:?}");
        for _ in 0..2 {
            let got =
                run(&dev, &m, backend, &idx, (0, 0)).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&got.0, &want.0, &format!("{what} u8"));
            assert_slice_eq(&got.1, &want.1, &format!("{what} u16"));
            assert_slice_eq(&got.2, &want.2, &format!("{what} u32 + generic"));
            assert_slice_eq(&got.3, &want.3, &format!("{what} u64"));
        }
    }
    faults_alike(FILE, |dev, m, backend| {
        let mut bad = idx.clone();
        // Thread 77's index 1024: past the end of every buffer (the u8 store faults).
        bad[77] = ELEMS as u32;
        let e1 = run(dev, m, backend, &bad, (0, 0)).expect_err("past the end");
        assert!(e1.contains("st.global.u8"), "{e1}");
        // Thread 101's u32 element two bytes off its alignment.
        let e2 = run(dev, m, backend, &idx, (101, 2)).expect_err("misaligned");
        assert!(e2.contains("st.global.u32"), "{e2}");
        vec![e1, e2]
    });
}
