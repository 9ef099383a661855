//! Per-lane loads outside shared memory (tests/ptx/global_gather.ptx, passes ptxas 12.9):
//! random indices into a global buffer with u8, s16, u32 and u64 elements and a generic
//! load, partial masks in the last warp, lanes split between two allocations, an index
//! past the end and a misaligned base. The optimized JIT tier loads such lanes in a loop
//! inside the instruction's cached region (`jit::lower::mem_gather::region_gather`), the
//! quick tier (but for the generic load) and the interpreter through the checked access
//! helper; values come from
//! Rust indexing the same bytes, faults must read the same on every backend.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/global_gather.ptx";
const IN_BYTES: usize = 8192;
const C_BYTES: usize = 4096;

fn u8s(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.u32() as u8).collect()
}

fn le(b: &[u8], at: usize, len: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..len].copy_from_slice(&b[at..at + len]);
    u64::from_le_bytes(x)
}

/// The five values of thread t (see the PTX).
fn reference(inb: &[u8], c: &[u8], i: u32) -> [u64; 5] {
    let x = i as usize;
    let (i, j) = (x & 0xffff, x & 0xffff);
    let generic = match x & 0x10000 {
        0 => le(inb, 4 * j, 4),
        _ => le(c, 4 * j, 4),
    };
    [
        inb[i] as u64,
        le(inb, 2 * i, 2) as u16 as i16 as i64 as u64,
        le(inb, 4 * i, 4),
        le(inb, 8 * i, 8),
        generic,
    ]
}

struct Run {
    out: Vec<u64>,
    helper_calls: u64,
}

/// Launches `gather` over `idx` (block 128) with `in` at `in_off` bytes into its buffer
/// and thread `skew.0`'s u32 address `skew.1` bytes further.
fn run(
    dev: &Device,
    m: &ptxjit::Module,
    backend: Backend,
    bufs: (&[u8], &[u8]),
    idx: &[u32],
    (in_off, skew): (u64, (u32, u32)),
) -> Result<Run, String> {
    let n = idx.len();
    let inb = dev.alloc_from(bufs.0).unwrap();
    let cb = dev.alloc_from(bufs.1).unwrap();
    let ib = dev.alloc_from(idx).unwrap();
    let out = zeroed(dev, 40 * n);
    let args = [
        KernelArg::Ptr(inb.ptr() + in_off),
        arg(&ib),
        arg(&out),
        arg(&cb),
        KernelArg::U32(n as u32),
        KernelArg::U32(skew.0),
        KernelArg::U32(skew.1),
    ];
    let c = cfg([blocks(n, 128), 1, 1], [128, 1, 1], backend);
    let mut result = Ok(());
    let helper_calls = access_calls(|| result = dev.launch(m, "gather", &c, &args));
    let r = result
        .map(|()| Run {
            out: dev.read::<u64>(&out).unwrap(),
            helper_calls,
        })
        .map_err(|e| e.to_string());
    for b in [inb, cb, ib, out] {
        dev.free(b).unwrap();
    }
    r
}

#[test]
fn gathers_and_faults() {
    gathers_match_rust_indexing();
    faults_read_the_same_on_every_backend();
}

fn gathers_match_rust_indexing() {
    let mut calls: Vec<(String, u64)> = Vec::new();
    let mut rng = Rng::new(21);
    let inb = u8s(&mut rng, IN_BYTES);
    let c = u8s(&mut rng, C_BYTES);
    // One region: 1000 threads (the last warp has 8 lanes); two regions: every third
    // lane's generic load in `c`.
    let one: Vec<u32> = (0..1000).map(|_| rng.range(0, 1024)).collect();
    let two: Vec<u32> = (0..1000)
        .map(|t| rng.range(0, 1024) | if t % 3 == 0 { 0x10000 } else { 0 })
        .collect();
    for (backend, tier) in backends_and_tiers() {
        // One worker: the launching thread runs every CTA, so the helper-call counts
        // (per thread) are the launch's.
        let dev = device_one_worker(tier);
        let m = module_at(&dev, FILE, backend);
        for (name, idx) in [("one region", &one), ("two regions", &two)] {
            let what = format!("{backend:?} {tier:?}, {name}");
            let (inb, c) = (&inb, &c);
            let want: Vec<u64> = (0..5)
                .flat_map(|k| idx.iter().map(move |&i| reference(inb, c, i)[k]))
                .collect();
            // Twice: the second launch finds the region caches filled.
            let first = run(&dev, &m, backend, (inb, c), idx, (0, (0, 0)))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&first.out, &want, &what);
            let again = run(&dev, &m, backend, (inb, c), idx, (0, (0, 0)))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&again.out, &want, &what);
            calls.push((format!("{backend:?} {tier:?} {name}"), again.helper_calls));
        }
    }
    // The optimized tier's gathers call the helper only where a warp's lanes leave the
    // instruction's cached region (lanes in `c`, a first access) and for the last
    // warp's partial stores; the quick tier for every gather.
    let of = |key: &str| calls.iter().find(|c| c.0 == key).map(|c| c.1);
    let quick = of("Jit Quick one region").unwrap();
    let optimized = of("Jit Optimized one region").unwrap();
    assert!(
        quick >= 32 * 4 && optimized <= 16,
        "access helper calls on the second launch: quick {quick}, optimized {optimized}"
    );
}

fn faults_read_the_same_on_every_backend() {
    let mut rng = Rng::new(22);
    let inb = u8s(&mut rng, IN_BYTES);
    let c = u8s(&mut rng, C_BYTES);
    let mut idx: Vec<u32> = (0..200).map(|_| rng.range(0, 1024)).collect();
    for tier in [JitTier::Quick, JitTier::Optimized] {
        // One device per tier, so that both backends see the same addresses.
        let dev = device_tier(tier);
        let mut past_end = Vec::new();
        let mut misaligned = Vec::new();
        for backend in [Backend::Interp, Backend::Jit] {
            let m = module_at(&dev, FILE, backend);
            // Thread 77's u64 element at byte 8192: past the buffer's end.
            idx[77] = 1024;
            let e = run(&dev, &m, backend, (&inb, &c), &idx, (0, (0, 0))).err();
            past_end.push(e.expect("past the end"));
            idx[77] = 5;
            // Thread 101's u32 element two bytes off its alignment.
            let e = run(&dev, &m, backend, (&inb, &c), &idx, (0, (101, 2))).err();
            misaligned.push(e.expect("misaligned"));
            // A base one byte in: every lane's s16 element is misaligned.
            let e = run(&dev, &m, backend, (&inb, &c), &idx, (1, (0, 0))).err();
            misaligned.push(e.expect("misaligned base"));
        }
        assert_eq!(
            past_end[0], past_end[1],
            "{tier:?}: interpreter and JIT differ"
        );
        assert_eq!(
            misaligned[0], misaligned[2],
            "{tier:?}: interpreter and JIT differ"
        );
        assert_eq!(
            misaligned[1], misaligned[3],
            "{tier:?}: interpreter and JIT differ"
        );
        assert!(past_end[0].contains("ld.global.u64"), "{}", past_end[0]);
        assert!(misaligned[0].contains("ld.global.u32"), "{}", misaligned[0]);
        assert!(misaligned[1].contains("ld.global.s16"), "{}", misaligned[1]);
    }
}
