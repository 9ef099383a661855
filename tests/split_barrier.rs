//! Barriers inside functions that only some lanes of a warp call, while the warp's other
//! lanes reach the same barrier elsewhere (sm_70 per-thread arrival; split calls,
//! `exec::split`): one and three barriers in the callee, a split call inside a split
//! call, calls in a loop with a different lane subset each iteration, `exit` inside the
//! callee, indirect calls, `bar.arrive` inside the callee, and a genuine deadlock that
//! must still be reported. Kernels: `tests/ptx/split_barrier.ptx` (passes ptxas). The
//! expected values come from the per-thread program written out here (each barrier
//! separates the shared-memory phases, so a thread's values do not depend on the order
//! in which threads run); every kernel runs on both backends, on 1 and 2 worker
//! threads, with 1 to 3 CTAs of 64 threads (two warps).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::DeviceOptions;

const FILE: &str = "tests/ptx/split_barrier.ptx";
const N: usize = 64;

/// Initial shared value of thread t.
fn s0(t: usize) -> u32 {
    3 * t as u32 + 1
}

fn run(
    kernel: &str,
    words_per_thread: usize,
    grid: u32,
    backend: Backend,
    threads: usize,
) -> Vec<u32> {
    let dev = ptxjit::Device::with_options(DeviceOptions {
        threads,
        ..Default::default()
    })
    .unwrap();
    let m = module_at(&dev, FILE, backend);
    let out = zeroed(&dev, grid as usize * N * words_per_thread * 4);
    let what = format!("{kernel} {backend:?} {threads}T grid {grid}");
    let c = cfg([grid, 1, 1], [N as u32, 1, 1], backend);
    launch(&dev, &m, kernel, &c, &[arg(&out)], &what);
    dev.read::<u32>(&out).unwrap()
}

/// Runs `kernel` in every configuration and compares with `want` (one CTA's words,
/// repeated for each CTA).
fn check(kernel: &str, words_per_thread: usize, want: &[u32]) {
    for backend in [Backend::Jit, Backend::Interp] {
        for threads in [1, 2] {
            for grid in [1u32, 3] {
                let got = run(kernel, words_per_thread, grid, backend, threads);
                let all: Vec<u32> = (0..grid).flat_map(|_| want.iter().copied()).collect();
                let what = format!("{kernel} {backend:?} {threads}T grid {grid}");
                assert_slice_eq(&got, &all, &what);
            }
        }
    }
}

#[test]
fn one_and_three_barriers_in_the_callee() {
    // Phase 1: v = s[(t+5)%64]. Phase 2 (three barriers): x_t = s[(t+7)%64];
    // s[t] = 2 x_t; result s[(t+1)%64] = 2 x_{(t+1)%64}.
    let x = |t: usize| s0((t + 7) % N);
    let mut want = Vec::new();
    for t in 0..N {
        want.push(s0((t + 5) % N));
        want.push(2 * x((t + 1) % N));
    }
    check("split_basic", 2, &want);
}

#[test]
fn split_call_inside_a_split_call() {
    let want: Vec<u32> = (0..N).map(|t| s0((t + 9) % N)).collect();
    check("split_nested", 1, &want);
}

#[test]
fn split_calls_in_a_loop() {
    let want: Vec<u32> = (0..N)
        .map(|t| (0..4).map(|i| s0((t + i + 1) % N)).sum())
        .collect();
    check("split_loop", 1, &want);
}

#[test]
fn exit_inside_the_callee_stops_counting() {
    let want: Vec<u32> = (0..N)
        .map(|t| {
            if t % 2 == 1 && t % 3 == 0 {
                0
            } else {
                s0((t + 5) % N)
            }
        })
        .collect();
    check("split_exit", 1, &want);
}

#[test]
fn indirect_split_calls() {
    let want: Vec<u32> = (0..N)
        .map(|t| match t % 3 {
            1 => s0((t + 5) % N) + 1000,
            _ => s0((t + 5) % N),
        })
        .collect();
    check("split_indirect", 1, &want);
}

#[test]
fn bar_arrive_inside_a_split_call() {
    // Warp 0 writes s[t] = 5t + 3 (odd lanes in `produce`) and arrives at barrier 1;
    // warp 1 waits there and reads s[t - 32].
    let want: Vec<u32> = (0..N).map(|t| 5 * (t % 32) as u32 + 3).collect();
    for backend in [Backend::Jit, Backend::Interp] {
        for threads in [1, 2] {
            let got = run("split_arrive", 1, 1, backend, threads);
            assert_slice_eq(&got, &want, &format!("split_arrive {backend:?} {threads}T"));
        }
    }
}

#[test]
fn deadlock_inside_a_split_call_is_reported() {
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = ptxjit::Device::with_options(DeviceOptions {
            threads: 1,
            ..Default::default()
        })
        .unwrap();
        let m = module_at(&dev, FILE, backend);
        let out = zeroed(&dev, N * 4);
        let c = cfg([1, 1, 1], [N as u32, 1, 1], backend);
        let err = dev
            .launch(&m, "split_deadlock", &c, &[arg(&out)])
            .expect_err("the launch must fail");
        let msg = err.to_string();
        assert!(
            msg.contains("deadlock in kernel 'split_deadlock' block (0,0,0)")
                && msg.contains("barrier 0")
                && msg.contains("barrier 1"),
            "{backend:?}: {msg}"
        );
    }
}

#[test]
fn lanes_reconverge_after_a_split_call() {
    // Every thread of a warp gets the warp's sum of s[(t+5)%64] (butterfly shuffles
    // with a full mask after the join).
    let want: Vec<u32> = (0..N)
        .map(|t| {
            let w = t / 32 * 32;
            (w..w + 32).map(|u| s0((u + 5) % N)).sum()
        })
        .collect();
    check("split_shfl", 1, &want);
}

#[test]
fn barrier_completed_by_the_warps_own_bar_arrive() {
    let want: Vec<u32> = (1..=N as u32).collect();
    for backend in [Backend::Jit, Backend::Interp] {
        for threads in [1, 2] {
            let got = run("arrive_completes_while_running", 1, 1, backend, threads);
            let what = format!("arrive_completes_while_running {backend:?} {threads}T");
            assert_slice_eq(&got, &want, &what);
        }
    }
}
