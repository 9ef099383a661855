//! Global loads at `base + s·x` in a loop the JIT runs lane by lane, checked by their
//! index (`src/jit/control/serial/indexed.rs`), on both backends against a Rust model
//! (tests/ptx/serial_indexed.ptx): a base that differs by lane (two buffers, so a
//! lane's first load often misses the cached region and the limit is computed again
//! after the region lookup), an offset in the address, full and partial warps; and a
//! thread whose base is misaligned or outside every buffer, or whose index leaves its
//! buffer after three steps, faults exactly as on the interpreter (thread, line,
//! instruction, kind).
#[macro_use]
mod common;
use common::*;

const PTX: &str = "tests/ptx/serial_indexed.ptx";

/// tests/ptx/serial_indexed.ptx's `idx_load` in Rust for thread `t`.
fn idx_ref(a: &[u32], b: &[u32], t: u32, steps: u32) -> u32 {
    let n = a.len() as u32;
    let buf = if t & 1 != 0 { b } else { a };
    let (mut x, mut acc) = (t, 0u32);
    let steps = steps - (t & 3);
    for s in 0..steps {
        let w = buf[((x.wrapping_add(s) & (n / 2 - 1)) + 1) as usize];
        serial_step(w, &mut acc, &mut x);
    }
    acc ^ x ^ steps
}

/// Runs `idx_load` over `threads` threads in blocks of `block`.
#[allow(clippy::result_large_err)]
fn run(
    backend: Backend,
    (a, b): (&[u32], &[u32]),
    (threads, block, steps): (u32, u32, u32),
    (bad_t, bad_off, bad_idx): (u32, u32, u32),
) -> (Result<(), ptxjit::Error>, Vec<u32>) {
    let extra = &[steps, bad_t, bad_off, bad_idx];
    run_two_bufs((PTX, "idx_load"), backend, (a, b), (threads, block), extra)
}

/// Lanes of both buffers, full and partial warps, against the model.
fn indexed(backend: Backend) {
    let cases = [
        (64, 64, 300, 64),
        (40, 40, 77, 16),
        (96, 32, 5, 256),
        (33, 33, 1000, 4),
    ];
    let clean = [u32::MAX, 0, 0];
    two_bufs_against_model(
        (PTX, "idx_load"),
        backend,
        0x1d_e8ed,
        &cases,
        &clean,
        idx_ref,
    );
}

/// Thread `t`'s base misaligned (2 bytes) or far outside both buffers, or its index
/// outside its buffer from step 3 on: the fault names it, the line, instruction and
/// kind as on the interpreter.
fn faults(backend: Backend) {
    let mut rng = Rng::new(0xfa18);
    let a = rng.vec_u32(64);
    let b = rng.vec_u32(64);
    for (t, off, idx) in [
        (0u32, 2u32, 0u32),
        (13, 1 << 30, 0),
        (31, 1, 0),
        (45, 0, 1 << 20),
        (63, 0, 1 << 24),
        (6, 0, 1 << 31),
    ] {
        let (r, _) = run(backend, (&a, &b), (64, 64, 50), (t, off, idx));
        let (ri, _) = run(Backend::Interp, (&a, &b), (64, 64, 50), (t, off, idx));
        assert_same_fault(r, ri, t, &format!("{backend:?}"));
    }
}

both_backends!(indexed, faults);
