//! The checks of loops the JIT runs lane by lane (`src/jit/control/serial.rs`), on both
//! backends: local loads and stores of every size at program-chosen offsets
//! (tests/ptx/serial_local.ptx) against a Rust model, a thread that accesses outside
//! its window or misaligned (the fault names the same thread, line and kind as the
//! interpreter's), a `brx.idx` index out of range (the same error as the
//! interpreter's), and the watchdog stopping an endless lane-by-lane loop
//! (tests/kernels/spec_bytecode.ptx).
#[macro_use]
mod common;
use common::*;
use std::time::{Duration, Instant};

#[path = "../benches/parts/bytecode.rs"]
mod bytecode;

const PTX: &str = "tests/ptx/serial_local.ptx";

/// tests/ptx/serial_local.ptx's `lanes_local` in Rust for thread `t` (with `bad[t] == 0`).
fn local_ref(code: &[u32], t: usize, x0: u32, len: u32, max_steps: u32) -> u32 {
    let mut mem = [0u8; 64];
    let (mut x, mut acc) = (x0, 0u32);
    let steps = len.min(max_steps - (t as u32 & 3));
    for s in 0..steps as usize {
        let w = code[(s + t) % 64];
        let o = (w >> 8) as usize;
        let mut load = |v: u32| acc = acc.wrapping_mul(31).wrapping_add(v);
        match w & 15 {
            0 => mem[o] = x as u8,
            1 => mem[o..o + 2].copy_from_slice(&(x as u16).to_le_bytes()),
            2 => mem[o..o + 4].copy_from_slice(&x.to_le_bytes()),
            3 => mem[o..o + 8].copy_from_slice(&((acc as u64) << 32 | x as u64).to_le_bytes()),
            4 => load(mem[o] as u32),
            5 => load(u16::from_le_bytes([mem[o], mem[o + 1]]) as u32),
            6 => load(u32::from_le_bytes([
                mem[o],
                mem[o + 1],
                mem[o + 2],
                mem[o + 3],
            ])),
            _ => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&mem[o..o + 8]);
                let v = u64::from_le_bytes(b);
                load(v as u32 ^ (v >> 32) as u32)
            }
        }
        x = x.wrapping_mul(1103515245).wrapping_add(12345);
    }
    let first = u32::from_le_bytes([mem[0], mem[1], mem[2], mem[3]]);
    (acc ^ first).wrapping_add(steps)
}

/// A 64-word program of opcodes 0..7, each at a random offset aligned to its size.
fn local_program(rng: &mut Rng) -> Vec<u32> {
    (0..64)
        .map(|_| {
            let op = rng.range(0, 8);
            let eb = 1u32 << (op & 3);
            op | (rng.range(0, 64 / eb) * eb) << 8
        })
        .collect()
}

/// Runs `lanes_local` over `n` threads in blocks of `block`.
#[allow(clippy::result_large_err, clippy::too_many_arguments)]
fn run_local(
    backend: Backend,
    code: &[u32],
    input: &[u32],
    bad: &[u32],
    block: u32,
    len: u32,
    max_steps: u32,
) -> (Result<(), ptxjit::Error>, Vec<u32>) {
    let dev = device();
    let m = module_at(&dev, PTX, backend);
    let n = input.len() as u32;
    let bcode = dev.alloc_from(code).unwrap();
    let bin = dev.alloc_from(input).unwrap();
    let bbad = dev.alloc_from(bad).unwrap();
    let out = zeroed(&dev, n as usize * 4);
    let r = dev.launch(
        &m,
        "lanes_local",
        &cfg([n.div_ceil(block), 1, 1], [block, 1, 1], backend),
        &[
            arg(&bcode),
            KernelArg::U32(len),
            arg(&bin),
            arg(&out),
            arg(&bbad),
            KernelArg::U32(max_steps),
        ],
    );
    let got = dev.read::<u32>(&out).unwrap();
    (r, got)
}

/// Random programs, full and partial warps: every size of local load and store.
fn local_sizes(backend: Backend) {
    let mut rng = Rng::new(0x10ca1);
    for (n, block, len, max_steps) in [
        (64u32, 64u32, 200u32, 150u32),
        (96, 32, 64, 1000),
        (40, 40, 90, 97),
    ] {
        let code = local_program(&mut rng);
        let input = rng.vec_u32(n as usize);
        let (r, got) = run_local(
            backend,
            &code,
            &input,
            &vec![0; n as usize],
            block,
            len,
            max_steps,
        );
        r.unwrap_or_else(|e| panic!("lanes_local {backend:?}: {e}"));
        let want: Vec<u32> = (input.iter().enumerate())
            .map(|(t, &x)| local_ref(&code, t, x, len, max_steps))
            .collect();
        assert_slice_eq(&got, &want, &format!("lanes_local {n} {backend:?}"));
    }
}

/// A thread whose offsets are shifted by `bad` (misaligned: 1, 2; outside the window:
/// 64, 1 << 20) faults; the fault names it, as on the interpreter.
fn local_faults(backend: Backend) {
    let mut rng = Rng::new(0xbad10c);
    let code = local_program(&mut rng);
    let input = rng.vec_u32(64);
    for (t, shift) in [(0usize, 1u32), (13, 64), (31, 2), (45, 1 << 20), (63, 64)] {
        let mut bad = vec![0u32; 64];
        bad[t] = shift;
        let (r, _) = run_local(backend, &code, &input, &bad, 64, 100, 100);
        let (ri, _) = run_local(Backend::Interp, &code, &input, &bad, 64, 100, 100);
        match (r, ri) {
            (Err(ptxjit::Error::Fault(f)), Err(ptxjit::Error::Fault(fi))) => {
                assert_eq!(f.thread, [t as u32, 0, 0], "thread {t}: {f}");
                let key =
                    |f: &ptxjit::Fault| (f.line, f.col, f.inst.clone(), f.block, f.thread, f.kind);
                assert_eq!(key(&f), key(&fi), "thread {t}: {f} / {fi}");
            }
            (r, ri) => panic!("thread {t} {backend:?}: expected faults, got {r:?} / {ri:?}"),
        }
    }
    // Programs of one access each, which thread 13 makes reach exactly one element
    // past the window's end (and nothing else wrong): a check one element too lax
    // would let it through.
    for (word, shift) in [
        (2u32, 64u32),
        (7 | 56 << 8, 8),
        (63 << 8, 1),
        (5 | 62 << 8, 2),
    ] {
        let code = vec![word; 64];
        let mut bad = vec![0u32; 64];
        bad[13] = shift;
        let (r, _) = run_local(backend, &code, &input, &bad, 64, 10, 10);
        match r {
            Err(ptxjit::Error::Fault(f)) => assert_eq!(f.thread, [13, 0, 0], "{word:#x}: {f}"),
            r => panic!("{word:#x} {backend:?}: expected a fault, got {r:?}"),
        }
    }
}

/// An opcode of 8..15 is a `brx.idx` index past the 8-entry list: the lane-by-lane form
/// gives the error of the warp-wide path, which is the interpreter's.
fn brx_out_of_range(backend: Backend) {
    let mut rng = Rng::new(0xb7c);
    let mut code = local_program(&mut rng);
    // Threads 43..50 reach word 50 within their 8 steps; thread 50 first (step 0).
    code[50] = 9 | 4 << 8;
    let input = rng.vec_u32(64);
    let bad = vec![0u32; 64];
    let (r, _) = run_local(backend, &code, &input, &bad, 64, 8, 100);
    let (ri, _) = run_local(Backend::Interp, &code, &input, &bad, 64, 8, 100);
    let (e, ei) = match (r, ri) {
        (Err(e), Err(ei)) => (e.to_string(), ei.to_string()),
        (r, ri) => panic!("{backend:?}: expected errors, got {r:?} / {ri:?}"),
    };
    assert_eq!(e, ei, "{backend:?}");
    assert!(e.contains("serial_local.ptx:"), "{e}");
    // The same program without the bad word runs to the end.
    code[50] = 4 | 4 << 8;
    let (r, got) = run_local(backend, &code, &input, &bad, 64, 8, 100);
    r.unwrap_or_else(|e| panic!("lanes_local {backend:?}: {e}"));
    let want: Vec<u32> = (input.iter().enumerate())
        .map(|(t, &x)| local_ref(&code, t, x, 8, 100))
        .collect();
    assert_slice_eq(&got, &want, &format!("lanes_local brx {backend:?}"));
}

/// An endless bytecode program (`JMP 0`) on the `brx.idx` interpreter: the watchdog
/// stops the lane-by-lane loop and names its header's first instruction (line 70 of
/// tests/kernels/spec_bytecode.ptx, `mul.wide.u32 %rd14, %r79, 4`), as it does
/// warp-wide.
fn watchdog_serial(backend: Backend) {
    let dev = device();
    let m = module(&dev, "spec_bytecode.ptx", backend);
    let code = [bytecode::OP_JMP];
    let n = 64usize;
    let bcode = dev.alloc_from(&code).unwrap();
    let bin = dev.alloc_from(&vec![7u32; n]).unwrap();
    let out = zeroed(&dev, n * 4);
    let c = cfg([2, 1, 1], [32, 1, 1], backend).timeout(Some(Duration::from_millis(200)));
    let t0 = Instant::now();
    let e = dev
        .launch(
            &m,
            "bytecode",
            &c,
            &[
                arg(&bcode),
                KernelArg::U32(1),
                arg(&bin),
                arg(&out),
                KernelArg::U32(n as u32),
                KernelArg::U32(u32::MAX),
            ],
        )
        .expect_err("an endless program must be stopped")
        .to_string();
    let took = t0.elapsed();
    assert!(e.contains("time limit"), "{backend:?}: {e}");
    if backend == Backend::Jit {
        assert!(e.contains("spec_bytecode.ptx:70"), "{e}");
    }
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

both_backends!(local_sizes, local_faults, brx_out_of_range, watchdog_serial);
