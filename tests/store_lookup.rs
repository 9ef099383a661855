//! Coalesced global stores whose cached region misses (`jit::lower::mem::st`,
//! `mem_fast::StoreMiss`): the data is read once, stored from registers on the fast
//! path, spilled before the region lookup and read back after it. One store instruction
//! writes three buffers in turn (a lookup at each change) while an accumulator stays
//! live across it, with NaN inputs (the stored value is the canonical NaN); a store whose
//! last warp runs past its allocation's end (the lookup finds no region: the helper's
//! fault, located as the interpreter reports it). Both backends, both JIT tiers, one worker,
//! against Rust's `f32::mul_add` with PTX's canonical NaN (`0x7fffffff`).
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::jit::{helper_calls, JitTier};
use ptxjit::Fault;

const PTX: &str = "tests/ptx/store_lookup.ptx";
const BLOCK: u32 = 96;
const GRID: u32 = 3;
const N: usize = (BLOCK * GRID) as usize;
/// Block shapes of `N` threads: whole-warp rows (the store's lanes proven consecutive
/// for such launches) and rows of 48 (compiled apart: the lanes compared).
const SHAPES: [(u32, u32); 2] = [(GRID, BLOCK), (6, 48)];
/// What the three store buffers hold before the launch.
const SENTINEL: u32 = 0x5a5a_5a5a;

/// Values in [-15, 16) with 1/64 steps, and a NaN with a payload in every 37th element.
fn values(seed: u32) -> Vec<f32> {
    (0..N as u32)
        .map(|i| match i % 37 == 5 {
            true => f32::from_bits(0x7fa0_0001 ^ seed),
            false => ((i ^ seed).wrapping_mul(2654435761) >> 21) as f32 / 64.0 - 15.0,
        })
        .collect()
}

/// PTX's f32 results: a NaN is the canonical NaN.
fn canon(x: f32) -> u32 {
    match x.is_nan() {
        true => 0x7fff_ffff,
        false => x.to_bits(),
    }
}

/// The three store buffers, `out` and the region lookups of a launch.
type Stored = (Vec<Vec<u32>>, Vec<u32>, u64);

/// `alt_stores` with `iters` and `off`: the three store buffers (each `N` elements, read
/// back) and `out`, or the launch's fault.
fn run(
    backend: Backend,
    tier: JitTier,
    (a, b): (&[f32], &[f32]),
    iters: u32,
    off: u32,
    (grid, block): (u32, u32),
) -> Result<Stored, Box<(Fault, Vec<u64>)>> {
    let dev = device_one_worker(tier);
    let m = module_at(&dev, PTX, backend);
    let pa = dev.alloc_from(a).unwrap();
    let pb = dev.alloc_from(b).unwrap();
    let out = zeroed(&dev, 4 * N);
    // (Allocated last: nothing follows buffer 2.)
    let ps: Vec<_> = (0..3)
        .map(|_| dev.alloc_from(&vec![SENTINEL; N]).unwrap())
        .collect();
    let args = [
        arg(&pa),
        arg(&pb),
        arg(&ps[0]),
        arg(&ps[1]),
        arg(&ps[2]),
        arg(&out),
        KernelArg::U32(iters),
        KernelArg::U32(off),
    ];
    let lc = cfg([grid, 1, 1], [block, 1, 1], backend);
    let before = helper_calls().region;
    match dev.launch(&m, "alt_stores", &lc, &args) {
        Ok(()) => {}
        Err(Error::Fault(f)) => return Err(Box::new((f, ps.iter().map(|p| p.ptr()).collect()))),
        Err(e) => panic!("{backend:?} {tier:?}: {e}"),
    }
    let lookups = helper_calls().region - before;
    let bufs = ps.iter().map(|p| dev.read::<u32>(p).unwrap()).collect();
    Ok((bufs, dev.read::<u32>(&out).unwrap(), lookups))
}

#[test]
fn stores_whose_region_misses_keep_their_data_and_live_values() {
    let (a, b) = (values(1), values(2));
    for iters in [0u32, 1, 7] {
        // Buffer j holds the last step k with k % 3 == j: fma(a, k, b).
        let mut want_bufs = vec![vec![SENTINEL; N]; 3];
        let mut want_out = vec![0u32; N];
        for i in 0..N {
            let mut acc = 0f32;
            for k in 0..iters {
                let v = f32::from_bits(canon(a[i].mul_add(k as f32, b[i])));
                want_bufs[k as usize % 3][i] = v.to_bits();
                acc = f32::from_bits(canon(acc.mul_add(b[i], v)));
            }
            want_out[i] = acc.to_bits();
        }
        for (backend, shape) in [Backend::Interp, Backend::Jit]
            .into_iter()
            .flat_map(|b| SHAPES.map(|s| (b, s)))
        {
            for &tier in tiers(backend) {
                let what = format!("{backend:?} {tier:?} {shape:?} iters {iters}");
                let (bufs, out, lookups) = run(backend, tier, (&a, &b), iters, 0, shape)
                    .unwrap_or_else(|e| panic!("{what}: {}", e.0));
                for (j, (got, want)) in bufs.iter().zip(&want_bufs).enumerate() {
                    assert_slice_eq(got, want, &format!("{what} buffer {j}"));
                }
                assert_slice_eq(&out, &want_out, &format!("{what} out"));
                if backend == Backend::Jit && iters == 7 && tier == JitTier::Optimized {
                    // (The quick tier stores an address it does not prove contiguous
                    // through the helper, with no lookup: `mem_quick`.)
                    // Each whole warp (9; 6 of 48-thread blocks, whose other warps
                    // have 16 lanes: the helper) looks the store up again at least on
                    // every change of buffer (6 changes in 7 iterations).
                    let whole = (shape.0 * (shape.1 / 32)) as u64;
                    assert!(lookups >= whole * 6, "{what}: {lookups} region lookups");
                }
            }
        }
    }
}

#[test]
fn a_store_past_its_buffer_faults_where_the_interpreter_does() {
    let (a, b) = (values(3), values(4));
    // Element i + 40 of each buffer: an allocation of 4N = 1,152 bytes holds 1,280 (the
    // runtime rounds allocations to 256 bytes), 320 elements; the last warp (i = 256..287)
    // stores elements 296..327, across that end: no region holds the range (the lookup
    // misses) and its first lane past the end, thread 88 of CTA 2 (i = 280), faults in
    // the first step (buffer 0).
    let end = (4 * N as u64).next_multiple_of(256);
    let mut faults = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        for &tier in tiers(backend) {
            let what = format!("{backend:?} {tier:?}");
            let Err(e) = run(backend, tier, (&a, &b), 4, 40, (GRID, BLOCK)) else {
                panic!("{what}: the launch succeeded");
            };
            let (mut f, ptrs) = *e;
            assert_eq!(f.inst, "st.global.f32", "{what}: {f}");
            assert!(f.write, "{what}: {f}");
            assert_eq!((f.block, f.thread), ([2, 0, 0], [88, 0, 0]), "{what}: {f}");
            assert_eq!(f.addr, ptrs[0] + end, "{what}: {f}");
            f.addr -= ptrs[0];
            faults.push(f);
        }
    }
    for f in &faults[1..] {
        assert_eq!(*f, faults[0], "faults of the interpreter and the JIT");
    }
}
