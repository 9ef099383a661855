//! Barrier-free kernels in large grids: a worker runs several CTAs (a chunk of the
//! launch's counter) from one call of the JIT's code, their warps chained CTA by CTA
//! (`runtime::launch`, `batch_size`). Grids that are not a multiple of the batch,
//! one-CTA grids, 2-D and 3-D grids (`%ctaid.y`/`.z` carried inside a batch), early
//! exits and a divergent branch, a fault in a middle CTA of a batch (its CTA and thread
//! named, earlier CTAs done), each CTA's own zeroed `.shared` window and `.local`
//! frame, random schedules, and the time limit's stop between batches. Both backends,
//! one and two workers; expected values from the Rust references below.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::Schedule;
use std::time::Duration;

const PTX: &str = "tests/ptx/cta_batch.ptx";

/// `out` as kernel `ids` writes it for `grid` × `block` threads (1-D blocks), 0 where a
/// lane exits (tid % 5 == 4).
fn ids_reference(grid: [u32; 3], block: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                let c = (z * grid[1] + y) * grid[0] + x;
                for t in 0..block {
                    out.push(match (t % 5, t % 2) {
                        (4, _) => 0,
                        (_, 0) => c.wrapping_mul(5).wrapping_add(t),
                        _ => (c.wrapping_mul(3) + 1) ^ (y << 16) ^ (z << 24),
                    });
                }
            }
        }
    }
    out
}

/// (grid, block): batches of 8 CTAs on one worker (1001, 1073 and 1085 CTAs: not
/// multiples of 8; 7 × 5 = 35 CTAs per z-slice: y and z carry inside batches), a chunk
/// of 3 (200 CTAs on one worker), batches of 4 in chunks of 8 (8-warp CTAs: at most 32
/// warps per batch), one CTA, and blocks with a partial last warp (48 threads: a
/// partial warp followed by the next CTA's full warp in one chain).
const SHAPES: [([u32; 3], u32); 7] = [
    ([601, 1, 1], 256),
    ([1001, 1, 1], 64),
    ([37, 29, 1], 64),
    ([7, 5, 31], 32),
    ([200, 1, 1], 96),
    ([1, 1, 1], 200),
    ([1001, 1, 1], 48),
];

#[test]
fn ctaid_outputs_match_the_reference() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Interp, Backend::Jit] {
            let m = module_at(&dev, PTX, backend);
            for (grid, block) in SHAPES {
                for schedule in [Schedule::InOrder, Schedule::Random(7)] {
                    let what =
                        format!("{threads} workers {backend:?} {grid:?}x{block} {schedule:?}");
                    let want = ids_reference(grid, block);
                    let out = zeroed(&dev, want.len() * 4);
                    let c = cfg(grid, [block, 1, 1], backend).schedule(schedule);
                    let args = [arg(&out), KernelArg::U32(u32::MAX), KernelArg::U32(0)];
                    launch(&dev, &m, "ids", &c, &args, &what);
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    assert_slice_eq(&got, &want, &what);
                }
            }
        }
    }
}

#[test]
fn a_fault_in_a_middle_cta_of_a_batch_names_its_cta_and_thread() {
    // CTA 11 is the fourth of the batch 8..16 (1001 CTAs on one worker: batches of 8);
    // linear CTA 100 of the 3-D grid is [100 % 7, 100 / 7 % 5, 100 / 35] = [2, 4, 2],
    // the fifth of the batch 96..104. Thread 41 is lane 9 of warp 1, thread 23 lane
    // 23 of the only warp; both store.
    for (grid, block, bad_cta, bad_ctaid, bad_tid) in [
        ([1001, 1, 1], 64, 11u32, [11, 0, 0], 41u32),
        ([7, 5, 31], 32, 100, [2, 4, 2], 23),
    ] {
        for threads in [1, 2] {
            let dev = device_threads(threads);
            for backend in [Backend::Interp, Backend::Jit] {
                let what = format!("{threads} workers {backend:?} {grid:?}");
                let m = module_at(&dev, PTX, backend);
                let want = ids_reference(grid, block);
                let out = zeroed(&dev, want.len() * 4);
                let c = cfg(grid, [block, 1, 1], backend);
                let args = [arg(&out), KernelArg::U32(bad_cta), KernelArg::U32(bad_tid)];
                match dev.launch(&m, "ids", &c, &args) {
                    Err(Error::Fault(f)) => {
                        assert_eq!(f.block, bad_ctaid, "{what}: {f}");
                        assert_eq!(f.thread, [bad_tid, 0, 0], "{what}: {f}");
                        assert_eq!(f.inst, "st.global.u32", "{what}: {f}");
                        assert_eq!(f.addr, 0, "{what}: {f}");
                    }
                    other => panic!("{what}: expected the fault, got {other:?}"),
                }
                if threads == 1 {
                    // In order on one worker: every CTA before the faulting one (the
                    // batch's first three or four included) ran to its end.
                    let done = (bad_cta * block) as usize;
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    assert_slice_eq(&got[..done], &want[..done], &what);
                }
            }
        }
    }
}

#[test]
fn each_cta_of_a_batch_has_its_own_zeroed_shared_window_and_local_frame() {
    // `mem` stores gid + 1 read back through .shared and .local, plus 1000 times what
    // it read there before writing (0 in a fresh CTA).
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Interp, Backend::Jit] {
            let m = module_at(&dev, PTX, backend);
            for (grid, block) in [
                ([1001, 1, 1], 64u32),
                ([37, 29, 1], 32),
                ([1, 1, 1], 40),
                ([1001, 1, 1], 48),
            ] {
                let what = format!("{threads} workers {backend:?} {grid:?}x{block}");
                let n = (grid[0] * grid[1] * block) as usize;
                let want: Vec<u32> = (1..=n as u32).collect();
                let out = zeroed(&dev, n * 4);
                let c = cfg(grid, [block, 1, 1], backend);
                launch(&dev, &m, "mem", &c, &[arg(&out)], &what);
                let got: Vec<u32> = dev.read(&out).unwrap();
                assert_slice_eq(&got, &want, &what);
            }
        }
    }
}

#[test]
fn the_time_limit_stops_a_grid_of_short_ctas_between_batches() {
    // 2^24 one-warp CTAs of a kernel without loops take far longer than 20 ms (about
    // 150 ms on one worker at 9 ns per warp): the workers see the stop flag between
    // batches and name the CTAs not started. (With 1 ms, a worker the loaded machine
    // scheduled late could see the flag before its first batch: all CTAs not started.)
    let total = 1u64 << 24;
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{threads} workers {backend:?}");
            let m = module_at(&dev, PTX, backend);
            let out = zeroed(&dev, 4);
            let c = cfg([total as u32, 1, 1], [32, 1, 1], backend)
                .timeout(Some(Duration::from_millis(20)));
            let msg = match dev.launch(&m, "idle", &c, &[arg(&out)]) {
                Err(Error::Launch { msg, .. }) => msg,
                // The interpreter also checks the flag as a warp starts.
                Err(Error::Kernel { msg, .. }) if backend == Backend::Interp => {
                    assert!(msg.contains("time limit"), "{what}: {msg}");
                    continue;
                }
                other => panic!("{what}: expected the time limit, got {other:?}"),
            };
            let tail = msg
                .split("with ")
                .nth(1)
                .unwrap_or_else(|| panic!("{what}: {msg}"));
            let nums: Vec<u64> = tail.split(' ').filter_map(|w| w.parse().ok()).collect();
            assert_eq!(nums.len(), 2, "{what}: {msg}");
            assert_eq!(nums[1], total, "{what}: {msg}");
            assert!(nums[0] > 0 && nums[0] < total, "{what}: {msg}");
            assert!(msg.contains("CTAs not yet started"), "{what}: {msg}");
        }
    }
}
