//! Per-lane stack frames reached through generic addresses (tests/ptx/generic_stack.ptx,
//! passes ptxas 12.9): the frame's `cvta.local` address (`%SP`, as clang `-O0` and
//! `nvcc -G` write it), stored and loaded as u8, u16, u32, u64 and v2.u32, a store and a
//! load under a divergent guard, a partial last warp. Both JIT tiers access such lanes
//! in a loop inside the instruction's cached region (`jit::lower::mem_gather`; the quick
//! tier since session 28, where they took the checked access helper); values come from
//! the same arithmetic in Rust, and a lane past its frame's window faults with the same
//! report on every backend.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/generic_stack.ptx";
/// 32-bit words each thread writes.
const WORDS: usize = 9;

/// Thread `i`'s words, as the kernel computes them.
fn reference(i: u32) -> [u32; WORDS] {
    let a = i.wrapping_mul(3).wrapping_add(1);
    let d = (i as u64).wrapping_mul(0x1_0000_0001).wrapping_add(7);
    let odd = i & 1 == 1;
    [
        a,
        (i ^ 0x5a5a) & 0xffff,
        i & 0xff,
        d as u32,
        (d >> 32) as u32,
        i,
        !i,
        if odd { a } else { 0 },
        if odd { 0xdead_beef } else { a },
    ]
}

#[test]
fn frames_through_generic_addresses() {
    // 1000 threads in blocks of 128: the last warp has 8 lanes.
    let n = 1000usize;
    // Word k of thread i at k * n + i.
    let want: Vec<u32> = (0..WORDS)
        .flat_map(|k| (0..n as u32).map(move |i| reference(i)[k]))
        .collect();
    let mut calls = Vec::new();
    for (backend, tier) in backends_and_tiers() {
        // One worker: the helper-call counts (per thread) are the launch's.
        let dev = device_one_worker(tier);
        let m = module_at(&dev, FILE, backend);
        let out = zeroed(&dev, 4 * WORDS * n);
        let args = [arg(&out), KernelArg::U32(n as u32)];
        let c = cfg([blocks(n, 128), 1, 1], [128, 1, 1], backend);
        let what = format!("{backend:?} {tier:?}");
        // Twice: the second launch finds the region caches filled.
        let mut n_calls = 0;
        for _ in 0..2 {
            let mut r = Ok(());
            n_calls = access_calls(|| r = dev.launch(&m, "stack", &c, &args));
            r.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
        calls.push((what, n_calls));
        dev.free(out).unwrap();
    }
    // 32 warps of 14 generic accesses each (448 helper calls when each took it): the
    // JIT's lane loops leave for the helper only on a region-cache miss (at most once
    // per instruction, 14), and the last warp's 9 partial stores to `out` take it.
    for (what, n_calls) in &calls[1..] {
        assert!(
            *n_calls <= 14 + 9,
            "{what}: {n_calls} access helper calls on the second launch"
        );
    }
}

#[test]
fn a_lane_past_its_frame_faults_alike() {
    faults_alike(FILE, |dev, m, backend| {
        let out = zeroed(dev, 4 * 32);
        let c = cfg([1, 1, 1], [32, 1, 1], backend);
        // In the frame: every lane reads its own word 0, its %tid.x.
        let args = [arg(&out), KernelArg::U64(0)];
        dev.launch(m, "stack_oob", &c, &args)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        let want: Vec<u32> = (0..32).collect();
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "in the frame");
        // Lane 5 reads 1 MiB above its frame.
        let args = [arg(&out), KernelArg::U64(1 << 20)];
        let e = dev.launch(m, "stack_oob", &c, &args).err();
        let e = e.expect("a fault").to_string();
        assert!(e.contains("ld.u32"), "{e}");
        dev.free(out).unwrap();
        vec![e]
    });
}
