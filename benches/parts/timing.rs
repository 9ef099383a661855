//! Timing of the benchmarks: the best of several runs, in wall time or, with
//! `PTXJIT_BENCH_CPU=1`, in CPU time of all the process's threads.

use std::time::{Duration, Instant};

/// The CPU time all threads of this process have run so far, exited threads included
/// (`CLOCK_PROCESS_CPUTIME_ID`; zero where it cannot be read). Summing
/// `/proc/self/task/*/schedstat` instead lost the whole time of a thread that exited
/// between the two readings (a launch's or native run's short-lived threads), which read
/// as about half the CPU time or zero.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
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
