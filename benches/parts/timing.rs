//! Timing of the benchmarks: the best of several runs, in wall time or, with
//! `PTXJIT_BENCH_CPU=1`, in CPU time of all the process's threads.

use std::time::{Duration, Instant};

/// The CPU time all threads of this process have run so far (the sum of
/// `/proc/self/task/*/schedstat`'s first field, in ns; zero where it cannot be read).
fn cpu_time() -> Duration {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    let ns: u64 = dir
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

/// The best of `reps` runs of `f`: wall time, or with `PTXJIT_BENCH_CPU=1` the CPU time
/// of all the process's threads (worker threads included), which a loaded machine
/// disturbs far less.
pub fn best_of(reps: usize, mut f: impl FnMut()) -> Duration {
    let cpu = std::env::var_os("PTXJIT_BENCH_CPU").is_some();
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let (t, c) = (
            Instant::now(),
            if cpu { cpu_time() } else { Duration::ZERO },
        );
        f();
        let took = match cpu {
            true => cpu_time().saturating_sub(c),
            false => t.elapsed(),
        };
        best = best.min(took);
    }
    best
}
