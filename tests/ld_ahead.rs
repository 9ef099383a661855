//! Loads ahead (`jit/lower/mem_ahead.rs`): a grid-stride loop whose coalesced global
//! load sits in the loop header touches the next run's bytes early. The touch never
//! changes a result: the kernel (`tests/ptx/ld_ahead.ptx`) on both backends and both JIT
//! tiers against a Rust reference, with a constant step, a step that changes, a loop
//! that walks down (the predicted address leaves the buffer below), a last iteration
//! with a partial mask, input buffers that end right after the last element (the
//! predicted address leaves them above), and reads past the input that must fault
//! alike on both backends and tiers.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/ld_ahead.ptx";

/// What `ahead` writes for `threads` threads (the reference).
fn reference_up(input: &[u32], n: u32, threads: u32, step: u32, wobble: u32) -> Vec<u32> {
    let mut out = vec![0u32; input.len()];
    for t in 0..threads {
        let (mut i, mut k) = (t, 0u32);
        while i < n {
            out[i as usize] = input[i as usize].wrapping_mul(3).wrapping_add(1);
            i = i.wrapping_add(step).wrapping_add((k & 1) * wobble);
            k += 1;
        }
    }
    out
}

fn devices(backend: Backend) -> Vec<ptxjit::Device> {
    match backend {
        Backend::Jit => vec![device_tier(JitTier::Quick), device_tier(JitTier::Optimized)],
        Backend::Interp => vec![device()],
    }
}

/// Runs `kernel` on every backend and tier over `input` (a buffer of exactly its
/// length, so that a touch past the last element would leave the region) with the
/// scalar arguments `tail`, and compares the output with `want`.
fn check(kernel: &str, grid: u32, block: u32, input: &[u32], tail: &[u32], want: &[u32]) {
    for backend in [Backend::Jit, Backend::Interp] {
        for dev in devices(backend) {
            let m = module_at(&dev, FILE, backend);
            let inb = dev.alloc_from(input).unwrap();
            let out = zeroed(&dev, 4 * input.len());
            let c = cfg([grid, 1, 1], [block, 1, 1], backend);
            let mut args = vec![arg(&inb), arg(&out)];
            args.extend(tail.iter().map(|&x| KernelArg::U32(x)));
            let what = format!("{kernel} {backend:?} {grid} x {block} {tail:?}");
            launch(&dev, &m, kernel, &c, &args, &what);
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), want, &what);
        }
    }
}

#[test]
fn grid_stride_loads_ahead() {
    // (n, grid, block, step / 32, wobble / 32): a constant step, a changing one, a
    // last iteration with a partial mask (n not a multiple of 32).
    let cases = [
        (1000u32, 3u32, 64u32, 6u32, 0u32),
        (5000, 3, 64, 6, 2),
        (4096, 4, 128, 16, 0),
        (777, 1, 32, 1, 1),
    ];
    for &(n, grid, block, step32, wobble32) in &cases {
        let input = Rng::new(u64::from(n) * 31 + u64::from(step32)).vec_u32(n as usize);
        let want = reference_up(&input, n, grid * block, 32 * step32, 32 * wobble32);
        check("ahead", grid, block, &input, &[n, step32, wobble32], &want);
    }
}

#[test]
fn loads_ahead_walking_down() {
    // i = k * threads + t for k = top, ..., 0: every element of (top + 1) * threads.
    for &(grid, block, top) in &[(2u32, 64u32, 9u32), (3, 96, 4), (1, 32, 0)] {
        let threads = grid * block;
        let n = (top + 1) * threads;
        let input = Rng::new(u64::from(n)).vec_u32(n as usize);
        let want: Vec<u32> = input
            .iter()
            .map(|x| x.wrapping_mul(3).wrapping_add(1))
            .collect();
        check("ahead_down", grid, block, &input, &[top], &want);
    }
}

/// `msg` with every hexadecimal number (`0x...`: device addresses, which differ between
/// devices) replaced by `0x_`.
fn without_hex(msg: &str) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(k) = rest.find("0x") {
        out.push_str(&rest[..k]);
        out.push_str("0x_");
        rest = rest[k + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out.push_str(rest);
    out
}

#[test]
fn reads_past_the_input_fault_alike() {
    // n = 3000 over an input of 1000 words: the loop reads past the buffer.
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        for tier in tiers(backend) {
            let dev = device_one_worker(*tier);
            let input: Vec<u32> = (0..1000).collect();
            let inb = dev.alloc_from(&input).unwrap();
            let out = zeroed(&dev, 4 * 3000);
            let m = module_at(&dev, FILE, backend);
            let c = cfg([2, 1, 1], [64, 1, 1], backend);
            let args = [
                arg(&inb),
                arg(&out),
                KernelArg::U32(3000),
                KernelArg::U32(4),
                KernelArg::U32(0),
            ];
            let err = dev
                .launch(&m, "ahead", &c, &args)
                .expect_err("reads past the input");
            let msg = err.to_string();
            assert!(msg.contains("ld.global.u32"), "{backend:?} {tier:?}: {msg}");
            msgs.push(without_hex(&msg));
        }
    }
    for w in msgs.windows(2) {
        assert_eq!(w[0], w[1], "every backend and tier reports the same fault");
    }
}
