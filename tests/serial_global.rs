//! Global loads in a loop the JIT runs lane by lane (`src/jit/control/serial.rs`), on
//! both backends against a Rust model (tests/ptx/serial_global.ptx): one `ld.global`
//! that alternates between two buffers, so that its cached region misses at every step
//! and the region lookup's call runs between the loop's steps (the loop's counters are
//! stored and reloaded around it; the values it never changes live across it), full
//! and partial warps; and a
//! thread whose addresses are misaligned or outside every buffer faults exactly as on
//! the interpreter (thread, line, instruction, kind).
#[macro_use]
mod common;
use common::*;

const PTX: &str = "tests/ptx/serial_global.ptx";

/// tests/ptx/serial_global.ptx's `two_bufs` in Rust for thread `t`.
fn two_ref(a: &[u32], b: &[u32], t: u32, steps: u32) -> u32 {
    let n = a.len() as u32;
    let (mut x, mut acc) = (t, 0u32);
    let steps = steps - (t & 3);
    for s in 0..steps {
        let buf = if s & 1 != 0 { b } else { a };
        let w = buf[(x.wrapping_add(s) & (n - 1)) as usize];
        serial_step(w, &mut acc, &mut x);
    }
    acc ^ x ^ steps
}

/// Runs `two_bufs` over `threads` threads in blocks of `block`.
#[allow(clippy::result_large_err)]
fn run(
    backend: Backend,
    (a, b): (&[u32], &[u32]),
    (threads, block, steps): (u32, u32, u32),
    (bad_t, bad_off): (u32, u32),
) -> (Result<(), ptxjit::Error>, Vec<u32>) {
    let extra = &[steps, bad_t, bad_off];
    run_two_bufs((PTX, "two_bufs"), backend, (a, b), (threads, block), extra)
}

/// Every step's load misses the instruction's cached region (the other buffer).
fn alternating(backend: Backend) {
    let cases = [(64, 64, 300, 64), (40, 40, 77, 16), (96, 32, 5, 256)];
    two_bufs_against_model(
        (PTX, "two_bufs"),
        backend,
        0x61_0ba1,
        &cases,
        &[u32::MAX, 0],
        two_ref,
    );
}

/// Thread `t`'s addresses misaligned (2 bytes) or far outside both buffers: the fault
/// names it, the line, instruction and kind as on the interpreter.
fn faults(backend: Backend) {
    let mut rng = Rng::new(0xfa17);
    let a = rng.vec_u32(64);
    let b = rng.vec_u32(64);
    for (t, off) in [(0u32, 2u32), (13, 1 << 30), (31, 1), (45, 2), (63, 1 << 30)] {
        let (r, _) = run(backend, (&a, &b), (64, 64, 50), (t, off));
        let (ri, _) = run(Backend::Interp, (&a, &b), (64, 64, 50), (t, off));
        assert_same_fault(r, ri, t, &format!("{backend:?}"));
    }
}

both_backends!(alternating, faults);
