//! Compare trees in a loop the JIT runs lane by lane (`src/jit/control/serial/switch.rs`:
//! a tree of `setp` + `bra` on an `and`-masked register becomes one jump table), on both
//! backends against a Rust reference (tests/kernels/switch_tree.cu, compiled by NVRTC):
//! every case of a 16-way switch on `w & 15` (the last at the table's end), an 8-way
//! switch with missing cases (the default at both ends of the masked range), and a
//! switch on an unmasked value (values past the cases take the default; the tree stays,
//! and the JIT runs this loop warp-wide).
#[macro_use]
mod common;
use common::*;

const PTX: &str = "tests/kernels/switch_tree.nvrtc.ptx";

/// switch_tree.cu's `tree16` for thread `i`.
fn tree16(code: &[u32], len: u32, i: u32, x0: u32) -> u32 {
    let (mut x, mut acc) = (x0, x0 ^ 0x5bd1e995);
    for s in (x0 & 3)..len {
        let w = code[((s + i) % 64) as usize];
        let imm = w >> 8;
        match w & 15 {
            0 => acc = acc.wrapping_add(imm),
            1 => acc ^= x,
            2 => acc = acc.wrapping_sub(x),
            3 => acc = acc.wrapping_mul(3),
            4 => acc = (acc << 3) ^ (acc >> 7),
            5 => acc = acc.wrapping_add(x.wrapping_mul(imm)),
            6 => acc ^= imm << 4,
            7 => acc = !acc,
            8 => acc = acc.wrapping_add(0x9e3779b9),
            9 => acc ^= acc >> 7,
            10 => x = x.wrapping_mul(1103515245).wrapping_add(12345),
            11 => acc = acc.wrapping_sub(imm),
            12 => acc &= x | imm,
            13 => acc |= imm,
            14 => x ^= acc,
            _ => acc = acc.wrapping_mul(5).wrapping_add(1),
        }
    }
    acc ^ x
}

/// switch_tree.cu's `tree8` for thread `i`.
fn tree8(code: &[u32], len: u32, i: u32, x0: u32) -> u32 {
    let (mut x, mut acc) = (x0, x0 ^ 0x5bd1e995);
    for s in (x0 & 3)..len {
        let w = code[((s.wrapping_mul(3).wrapping_add(i)) % 64) as usize];
        match w & 7 {
            1 => acc = acc.wrapping_add(w >> 8),
            2 => acc ^= x,
            3 => acc = acc.wrapping_mul(7),
            5 => acc = acc.wrapping_sub(x),
            6 => x = x.wrapping_mul(69069).wrapping_add(1),
            _ => acc = acc.wrapping_add(11),
        }
    }
    acc ^ x
}

/// switch_tree.cu's `tree_unmasked` for thread `i`.
fn tree_unmasked(code: &[u32], len: u32, _i: u32, x0: u32) -> u32 {
    let (mut x, mut acc) = (x0, x0 ^ 0x5bd1e995);
    for s in (x0 & 3)..len {
        let w = code[((s.wrapping_add(x0 >> 8)) % 64) as usize];
        match w >> 4 {
            0 => acc = acc.wrapping_add(1),
            1 => acc ^= x,
            2 => acc = acc.wrapping_sub(x),
            3 => acc = acc.wrapping_mul(3),
            4 => acc ^= acc >> 5,
            5 => acc = acc.wrapping_add(x),
            6 => x = x.wrapping_mul(1103515245).wrapping_add(12345),
            7 => acc = !acc,
            _ => acc = acc.wrapping_add(w),
        }
    }
    acc ^ x
}

type Reference = fn(&[u32], u32, u32, u32) -> u32;

/// Runs `kernel` on programs from `code` (64 words) for full and partial warps.
fn run(backend: Backend, kernel: &str, code: &[u32], reference: Reference) {
    let mut rng = Rng::new(0x5317);
    for (n, block, len) in [(64u32, 64u32, 200u32), (96, 32, 77), (40, 40, 131)] {
        let input = rng.vec_u32(n as usize);
        let dev = device();
        let m = module_at(&dev, PTX, backend);
        let bcode = dev.alloc_from(code).unwrap();
        let bin = dev.alloc_from(&input).unwrap();
        let out = zeroed(&dev, n as usize * 4);
        dev.launch(
            &m,
            kernel,
            &cfg([n.div_ceil(block), 1, 1], [block, 1, 1], backend),
            &[
                arg(&bcode),
                KernelArg::U32(len),
                arg(&bin),
                arg(&out),
                KernelArg::U32(n),
            ],
        )
        .unwrap_or_else(|e| panic!("{kernel} {backend:?}: {e}"));
        let got = dev.read::<u32>(&out).unwrap();
        let want: Vec<u32> = (input.iter().enumerate())
            .map(|(t, &x)| reference(code, len, t as u32, x))
            .collect();
        assert_slice_eq(&got, &want, &format!("{kernel} {n} {backend:?}"));
    }
}

/// Every opcode 0..15 four times (15, the table's last entry, included), the bits above
/// the mask random.
fn switch16(backend: Backend) {
    let mut rng = Rng::new(0x1616);
    let code: Vec<u32> = (0..64u32)
        .map(|k| (k & 15) | (rng.range(0, 1 << 20) << 8) | (rng.range(0, 16) << 4))
        .collect();
    run(backend, "tree16", &code, tree16);
}

/// Every value 0..7 of the mask eight times: 0, 4 and 7 reach the default.
fn switch8(backend: Backend) {
    let mut rng = Rng::new(0x0808);
    let code: Vec<u32> = (0..64u32)
        .map(|k| (k & 7) | (rng.range(0, 1 << 16) << 8) | (rng.range(0, 32) << 3))
        .collect();
    run(backend, "tree8", &code, tree8);
}

/// Values 0..7 (the cases) and 8..=u32::MAX >> 4 (the default), unmasked.
fn switch_unmasked(backend: Backend) {
    let mut rng = Rng::new(0x7777);
    let code: Vec<u32> = (0..64u32)
        .map(|k| match k % 4 {
            0 | 1 => (k % 8) << 4 | rng.range(0, 16),
            2 => (8 + k) << 4,
            _ => rng.range(0, u32::MAX),
        })
        .collect();
    run(backend, "tree_unmasked", &code, tree_unmasked);
}

both_backends!(switch16, switch8, switch_unmasked);
