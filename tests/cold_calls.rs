//! The slow paths of memory accesses (calls of `ptxjit_region` and `ptxjit_access`)
//! with vector values live across the calls: global loads whose cached region misses
//! on every iteration (three buffers in turn), shared and generic loads that take the
//! checked access helper, and shared loads whose lanes run past the window (the fault,
//! located, as the interpreter reports it). Both backends, both JIT tiers, against
//! Rust's `f32::mul_add`. (Written for the `preserve_all` helper trampolines tried on
//! branch sg18 and not kept: README, "Cold helper calls".)
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::jit::{helper_calls, JitTier};

const PTX: &str = "tests/ptx/cold_calls.ptx";

#[test]
fn global_loads_whose_region_misses_keep_live_values() {
    const BLOCK: u32 = 96;
    const GRID: u32 = 3;
    let n = (BLOCK * GRID) as usize;
    let (a, b, c) = (
        sixty_fourths(n, 1),
        sixty_fourths(n, 2),
        sixty_fourths(n, 3),
    );
    for iters in [0u32, 1, 7] {
        let mut want = vec![0f32; 2 * n];
        for i in 0..n {
            let (y, z) = (a[i], b[i]);
            let (mut acc, mut acc2) = (0f32, 1f32);
            for k in 0..iters {
                let x = [a[i], b[i], c[i]][k as usize % 3];
                acc = x.mul_add(y, acc);
                acc2 = acc2.mul_add(z, x);
            }
            want[i] = acc;
            want[n + i] = acc2;
        }
        for backend in [Backend::Interp, Backend::Jit] {
            for &tier in tiers(backend) {
                let what = format!("{backend:?} {tier:?} iters {iters}");
                let dev = device_one_worker(tier);
                let m = module_at(&dev, PTX, backend);
                let bufs: Vec<_> = [&a, &b, &c]
                    .iter()
                    .map(|v| dev.alloc_from(v).unwrap())
                    .collect();
                let out = zeroed(&dev, 8 * n);
                let args = [
                    arg(&bufs[0]),
                    arg(&bufs[1]),
                    arg(&bufs[2]),
                    arg(&out),
                    KernelArg::U32(iters),
                ];
                let lc = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
                let before = helper_calls().region;
                launch(&dev, &m, "alt_regions", &lc, &args, &what);
                let lookups = helper_calls().region - before;
                let got = dev.read::<f32>(&out).unwrap();
                assert_slice_eq(&f32_bits(&got), &f32_bits(&want), &what);
                if backend == Backend::Jit && iters == 7 {
                    // Each of the 9 warps looks the loop's load up again at least on
                    // every change of buffer (6 changes in 7 iterations).
                    assert!(lookups >= 9 * 6, "{what}: {lookups} region lookups");
                }
            }
        }
    }
}

#[test]
fn checked_shared_and_generic_loads_keep_live_values() {
    const GRID: u32 = 5;
    let n = 64 * GRID as usize;
    let input = sixty_fourths(n, 9);
    let mut want = vec![0f32; 2 * n];
    for i in 0..n {
        let (c, t) = (i / 64 * 64, i % 64);
        let (v0, v1, v2) = (input[i], input[c + (t + 1) % 64], input[i ^ 1]);
        want[i] = v0.mul_add(v1, v2);
        want[n + i] = v2.mul_add(v0, v1);
    }
    for backend in [Backend::Interp, Backend::Jit] {
        for &tier in tiers(backend) {
            let what = format!("{backend:?} {tier:?}");
            let dev = device_one_worker(tier);
            let m = module_at(&dev, PTX, backend);
            let inb = dev.alloc_from(&input).unwrap();
            let out = zeroed(&dev, 8 * n);
            let lc = cfg([GRID, 1, 1], [64, 1, 1], backend);
            let calls = access_calls(|| {
                launch(&dev, &m, "shared_mix", &lc, &[arg(&inb), arg(&out)], &what)
            });
            let got = dev.read::<f32>(&out).unwrap();
            assert_slice_eq(&f32_bits(&got), &f32_bits(&want), &what);
            if backend == Backend::Jit {
                // At least the generic load of every warp (shared and global lanes
                // mixed) is checked lane by lane.
                assert!(calls >= 2 * GRID as u64, "{what}: {calls} access calls");
            }
        }
    }
}

/// `shared_past` with byte offset `off`: the result or the error message.
fn past(backend: Backend, tier: JitTier, input: &[f32], off: u32) -> Result<Vec<u32>, String> {
    let dev = device_one_worker(tier);
    let m = module_at(&dev, PTX, backend);
    let inb = dev.alloc_from(input).unwrap();
    let out = dev.alloc_from(&[7f32; 32]).unwrap();
    let lc = cfg([1, 1, 1], [32, 1, 1], backend);
    let args = [arg(&inb), arg(&out), KernelArg::U32(off)];
    dev.launch(&m, "shared_past", &lc, &args)
        .map_err(|e| e.to_string())?;
    Ok(f32_bits(&dev.read::<f32>(&out).unwrap()))
}

#[test]
fn shared_loads_past_the_window_fault_where_the_interpreter_does() {
    let input = sixty_fourths(32, 5);
    let ptx = load_root(PTX);
    let line = line_of(&ptx, "shared_past", "ld.shared.f32 \t%f3");
    // The window is the kernel's 128-byte tile: offset 0 stays in it, out[t] =
    // fma(v0, v0, v0).
    let want: Vec<u32> = input.iter().map(|&v| v.mul_add(v, v).to_bits()).collect();
    for off in [0u32, 8, 64, 124, 128, 4096] {
        let ir = past(Backend::Interp, JitTier::Quick, &input, off);
        for &tier in tiers(Backend::Jit) {
            let jr = past(Backend::Jit, tier, &input, off);
            assert_eq!(jr, ir, "{tier:?} off {off}: JIT and interpreter differ");
        }
        match ir {
            Ok(got) => {
                assert_eq!(off, 0, "off {off}: no fault");
                assert_slice_eq(&got, &want, "off 0");
            }
            Err(e) => {
                assert_ne!(off, 0, "off 0: {e}");
                // The lowest lane past the window faults: lane 32 - off / 4 at byte 128
                // (lane 0 at byte 4096 for the largest offset).
                let lane = 32u32.saturating_sub(off / 4);
                let addr = (4 * lane + off) as u64;
                assert_fault_message(
                    &e,
                    "shared_past",
                    PTX,
                    "ld.shared",
                    line,
                    [0, 0, 0],
                    [lane, 0, 0],
                    addr,
                );
            }
        }
    }
}
