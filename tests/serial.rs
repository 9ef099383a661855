//! Loops the JIT runs lane by lane (`src/jit/control/serial.rs`), on both backends,
//! against Rust references: random bytecode programs on the benchmark's interpreter
//! (its `brx.idx` version and NVRTC's compare tree), a `switch` loop with nested
//! divergence, local memory and warp-level operations after the loop
//! (tests/kernels/serial.cu, NVRTC and clang), partial warps, and a fault inside the
//! loop that must name the same thread as the interpreter does.
#[macro_use]
mod common;
use common::*;

#[path = "../benches/parts/bytecode.rs"]
mod bytecode;
use bytecode::*;

/// tests/kernels/bytecode.cu's `bytecode` in Rust: out = top + 0x9e3779b9 × steps.
fn bytecode_ref(code: &[u32], input: u32, max_steps: u32) -> u32 {
    bytecode::run(code, input, max_steps).0
}

/// A random program of `len` instructions: every opcode, jumps anywhere (past the end
/// too), small immediates.
fn random_program(rng: &mut Rng, len: u32) -> Vec<u32> {
    (0..len)
        .map(|_| {
            let op = rng.range(0, 16);
            let imm = match op {
                OP_JNZ | OP_JMP => rng.range(0, len + 2),
                _ => rng.range(0, 40),
            };
            op | (imm << 8)
        })
        .collect()
}

/// Runs `bytecode` of `file` over `n` threads (blocks of `block`) and compares it with
/// the reference, for several random programs.
fn bytecode_random(file: &str, backend: Backend) {
    let dev = device();
    let m = module(&dev, file, backend);
    let mut rng = Rng::new(0x5e71a1);
    for (round, (n, block, max_steps)) in [
        (64u32, 32u32, 300u32),
        (100, 64, 200),
        (96, 96, 500),
        (33, 32, 100),
    ]
    .into_iter()
    .enumerate()
    {
        let len = rng.range(4, 40);
        let code = random_program(&mut rng, len);
        let input = rng.vec_u32(n as usize);
        let want: Vec<u32> = input
            .iter()
            .map(|&x| bytecode_ref(&code, x, max_steps))
            .collect();
        let bcode = dev.alloc_from(&code).unwrap();
        let bin = dev.alloc_from(&input).unwrap();
        let out = zeroed(&dev, n as usize * 4);
        launch(
            &dev,
            &m,
            "bytecode",
            &cfg([n.div_ceil(block), 1, 1], [block, 1, 1], backend),
            &[
                arg(&bcode),
                KernelArg::U32(len),
                arg(&bin),
                arg(&out),
                KernelArg::U32(n),
                KernelArg::U32(max_steps),
            ],
            "bytecode",
        );
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &want,
            &format!("{file} round {round} n={n} {backend:?}"),
        );
    }
}

/// tests/kernels/serial.cu's `lanes_nested` in Rust, for the whole launch (the ballot
/// and shuffle read other lanes of the warp).
fn nested_ref(code: &[u32], input: &[u32], max_steps: u32) -> Vec<u32> {
    let len = code.len() as u32;
    let acc: Vec<u32> = (0..input.len() as u32)
        .map(|t| {
            let (mut x, mut acc, mut pc) = (input[t as usize], t, t % len);
            let mut st = [0u32; 4];
            let mut s = 0;
            while s < max_steps && pc < len {
                let ins = code[pc as usize];
                pc += 1;
                match ins & 7 {
                    0 => acc = acc.wrapping_add(x),
                    1 if x & 1 != 0 => acc ^= x.wrapping_mul(3),
                    1 => acc = acc.wrapping_sub(7),
                    2 => {
                        for k in 0..(x & 7) {
                            acc = acc.wrapping_mul(5).wrapping_add(k);
                        }
                    }
                    3 => st[(acc & 3) as usize] = x,
                    4 => x = x.wrapping_mul(1103515245).wrapping_add(12345),
                    5 => acc = acc.wrapping_add(st[(x & 3) as usize]),
                    6 => pc += (ins >> 3) & 3,
                    _ => x ^= acc >> 3,
                }
                s += 1;
            }
            acc
        })
        .collect();
    (0..acc.len())
        .map(|t| {
            let w = t / 32 * 32;
            let ballot = (0..32).fold(0u32, |b, l| b | ((acc[w + l] & 1) << l));
            let o = acc[w + (t + 1) % 32];
            acc[t]
                .wrapping_add(ballot.wrapping_mul(3))
                .wrapping_add(o << 1)
        })
        .collect()
}

fn nested(file: &str, backend: Backend) {
    let dev = device();
    let m = module(&dev, file, backend);
    let mut rng = Rng::new(0xe57ed);
    for (round, (n, block, max_steps)) in [(64u32, 64u32, 200u32), (128, 32, 50), (96, 96, 400)]
        .into_iter()
        .enumerate()
    {
        let len = rng.range(3, 30);
        let code = rng.vec_u32(len as usize);
        let input = rng.vec_u32(n as usize);
        let want = nested_ref(&code, &input, max_steps);
        let bcode = dev.alloc_from(&code).unwrap();
        let bin = dev.alloc_from(&input).unwrap();
        let out = zeroed(&dev, n as usize * 4);
        launch(
            &dev,
            &m,
            "lanes_nested",
            &cfg([n / block, 1, 1], [block, 1, 1], backend),
            &[
                arg(&bcode),
                KernelArg::U32(len),
                arg(&bin),
                arg(&out),
                KernelArg::U32(max_steps),
            ],
            "lanes_nested",
        );
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &want,
            &format!("{file} lanes_nested round {round} {backend:?}"),
        );
    }
}

/// tests/kernels/serial.cu's `lanes_fault` in Rust, for threads with `bad[t] == 0`.
fn fault_ref(code: &[u32], t: usize, x0: u32, table: &[u32], max_steps: u32) -> u32 {
    let (mut x, mut acc) = (x0, 0u32);
    for (s, &ins) in code[t % code.len()..].iter().enumerate() {
        if s as u32 >= max_steps {
            break;
        }
        match ins & 3 {
            0 => acc = acc.wrapping_add(x),
            1 => acc = acc.wrapping_mul(3).wrapping_add(table[(x & 15) as usize]),
            2 => x = x.wrapping_mul(1103515245).wrapping_add(12345),
            _ => acc ^= x >> 5,
        }
    }
    acc
}

/// Runs `lanes_fault` with thread `bad_thread` (if any) reading far past `table`.
#[allow(clippy::result_large_err)]
fn run_fault(
    file: &str,
    backend: Backend,
    code: &[u32],
    input: &[u32],
    bad_thread: Option<usize>,
) -> (Result<(), ptxjit::Error>, Vec<u32>) {
    let dev = device();
    let m = module(&dev, file, backend);
    let n = input.len() as u32;
    let table: Vec<u32> = (0..16).map(|k| k * 7 + 1).collect();
    let mut bad = vec![0u32; n as usize];
    if let Some(t) = bad_thread {
        bad[t] = 1 << 28;
    }
    let bcode = dev.alloc_from(code).unwrap();
    let bin = dev.alloc_from(input).unwrap();
    let btable = dev.alloc_from(&table).unwrap();
    let bbad = dev.alloc_from(&bad).unwrap();
    let out = zeroed(&dev, n as usize * 4);
    let r = dev.launch(
        &m,
        "lanes_fault",
        &cfg([n / 32, 1, 1], [32, 1, 1], backend),
        &[
            arg(&bcode),
            KernelArg::U32(code.len() as u32),
            arg(&bin),
            arg(&out),
            arg(&btable),
            arg(&bbad),
            KernelArg::U32(1000),
        ],
    );
    let got = dev.read::<u32>(&out).unwrap();
    (r, got)
}

fn fault(file: &str, backend: Backend) {
    let mut rng = Rng::new(0xfa17);
    // Loads from the table at several points of the program.
    let code: Vec<u32> = (0..40)
        .map(|k| if k % 5 == 3 { 1 } else { rng.range(0, 4) })
        .collect();
    let input = rng.vec_u32(64);
    let table: Vec<u32> = (0..16).map(|k| k * 7 + 1).collect();
    // No bad thread: the reference.
    let (r, got) = run_fault(file, backend, &code, &input, None);
    r.unwrap_or_else(|e| panic!("{file} lanes_fault {backend:?}: {e}"));
    let want: Vec<u32> = (input.iter().enumerate())
        .map(|(t, &x)| fault_ref(&code, t, x, &table, 1000))
        .collect();
    assert_slice_eq(&got, &want, &format!("{file} lanes_fault {backend:?}"));
    // One bad thread: the fault names it, on both backends alike.
    for t in [0usize, 13, 31, 45] {
        let (r, _) = run_fault(file, backend, &code, &input, Some(t));
        let (ri, _) = run_fault(file, Backend::Interp, &code, &input, Some(t));
        match (r, ri) {
            (Err(ptxjit::Error::Fault(f)), Err(ptxjit::Error::Fault(fi))) => {
                assert_eq!(f.thread, [t as u32 % 32, 0, 0], "{file} thread {t}: {f}");
                assert_eq!(f.block, [t as u32 / 32, 0, 0], "{file} thread {t}: {f}");
                // (The address may differ: each run has its own device.)
                let key =
                    |f: &ptxjit::Fault| (f.line, f.col, f.inst.clone(), f.block, f.thread, f.kind);
                assert_eq!(key(&f), key(&fi), "{file} thread {t}: {f} / {fi}");
            }
            (r, ri) => panic!("{file} thread {t} {backend:?}: expected faults, got {r:?} / {ri:?}"),
        }
    }
}

fn bytecode_brx(b: Backend) {
    bytecode_random("spec_bytecode.ptx", b)
}
fn bytecode_tree(b: Backend) {
    bytecode_random("bytecode.nvrtc.ptx", b)
}
fn bytecode_clang(b: Backend) {
    bytecode_random("bytecode.clang.ptx", b)
}
fn nested_nvrtc(b: Backend) {
    nested("serial.nvrtc.ptx", b)
}
fn nested_clang(b: Backend) {
    nested("serial.clang.ptx", b)
}
fn fault_nvrtc(b: Backend) {
    fault("serial.nvrtc.ptx", b)
}
fn fault_clang(b: Backend) {
    fault("serial.clang.ptx", b)
}

both_backends!(
    bytecode_brx,
    bytecode_tree,
    bytecode_clang,
    nested_nvrtc,
    nested_clang,
    fault_nvrtc,
    fault_clang
);
