//! Kernel-fuzzing throughput (issue 19): `cargo bench --bench fuzz` (`-- --quick` for
//! fewer inputs).
//!
//! The example's record parser (examples/fuzz-kernel/records.ptx: one CTA of 32 threads,
//! 290 lines of NVRTC PTX, a shared-memory table, a barrier and three decoder loops) runs
//! through `ptxjit::fuzz::Harness::run` on a fixed set of inputs: random bytes behind a
//! valid header (so the records are parsed and decoded), 16 to 256 bytes, no input
//! faulting (odd-length 'W' records are made even). Each configuration reports inputs
//! per second of wall time and per second of this thread's CPU time (the per-core rate,
//! which does not depend on what else the machine runs): JIT and interpreter, kernel
//! coverage on and off, with and without the oracle reading the outputs back.

use ptxjit::fuzz::{Harness, Len};
use ptxjit::{Backend, LaunchConfig};
use std::time::Instant;

const PTX: &str = include_str!("../examples/fuzz-kernel/records.ptx");

/// This thread's CPU time in seconds.
fn cpu_now() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Deterministic inputs: "PK\x02" and records with random types among A/W/X/other and
/// random payloads; 'W' lengths even.
fn inputs(count: usize) -> Vec<Vec<u8>> {
    let mut s = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..count)
        .map(|_| {
            let target = 16 + (next() % 241) as usize;
            let mut d = vec![b'P', b'K', 2];
            while d.len() + 2 < target {
                let ty = [b'A', b'W', b'X', b'Z'][(next() % 4) as usize];
                let room = target - d.len() - 2;
                let mut len = (next() % 24) as usize % (room + 1);
                if ty == b'W' {
                    len &= !1;
                }
                d.push(ty);
                d.push(len as u8);
                for _ in 0..len {
                    d.push((next() % 128) as u8);
                }
            }
            d
        })
        .collect()
}

fn harness(backend: Backend, coverage: bool, oracle: bool) -> Harness {
    let mut b = Harness::builder(PTX, "records.ptx", "parse_records")
        .launch(LaunchConfig::new(1, 32).backend(backend))
        .input_buffer::<u8>(Len::Rest { max: 4096 })
        .len_of::<u32>(0)
        .output::<u32>(Len::Fixed(33))
        .coverage(coverage);
    if oracle {
        // Reads the outputs back; the check itself is trivial.
        b = b.oracle(|o| match o.output::<u32>(2).len() {
            33 => Ok(()),
            n => Err(format!("{n} outputs")),
        });
    }
    b.build().expect("records harness")
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let data = inputs(1000);
    let rounds = if quick { 3 } else { 20 };
    println!(
        "kernel fuzzing throughput: records.ptx (1 CTA x 32 threads), {} inputs x {rounds}",
        data.len()
    );
    println!(
        "{:<34} {:>12} {:>14}",
        "configuration", "inputs/s", "inputs/CPU-s"
    );
    for (backend, coverage, oracle) in [
        (Backend::Jit, false, false),
        (Backend::Jit, true, false),
        (Backend::Jit, true, true),
        (Backend::Interp, true, false),
    ] {
        let h = harness(backend, coverage, oracle);
        // Warm up (first launches, page faults), and check that no input is a finding.
        for d in &data {
            h.run(d).expect("bench inputs must not be findings");
        }
        let rounds = if backend == Backend::Interp {
            1
        } else {
            rounds
        };
        let (t0, c0) = (Instant::now(), cpu_now());
        for _ in 0..rounds {
            for d in &data {
                let _ = h.run(d);
            }
        }
        let n = (rounds * data.len()) as f64;
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_now() - c0);
        let name = format!(
            "{:?}, coverage {}, oracle {}",
            backend,
            if coverage { "on" } else { "off" },
            if oracle { "on" } else { "off" }
        );
        println!("{name:<34} {:>12.0} {:>14.0}", n / wall, n / cpu);
    }
}
