//! Shifts and predicate logic inside a loop the JIT runs lane by lane
//! (`src/jit/control/serial.rs` with `src/jit/lower/scalar.rs`'s scalar lowerings), on
//! both backends against a Rust reference (tests/ptx/serial_shift.ptx): shift amounts
//! below, at and beyond the width, as a register, an immediate and `and`-masked
//! (the ISA: `shl` and `shr.u` by an amount >= width give 0, `shr.s` the sign fill),
//! 32- and 64-bit, and predicates from `setp` with a combining predicate and both
//! destinations, `and`/`or`/`xor`/`not.pred`, `selp` and negated guards.
#[macro_use]
mod common;
use common::*;

const PTX: &str = "tests/ptx/serial_shift.ptx";

fn shl32(x: u32, a: u32) -> u32 {
    x.checked_shl(a).unwrap_or(0)
}
fn shr32(x: u32, a: u32) -> u32 {
    x.checked_shr(a).unwrap_or(0)
}
fn sar32(x: u32, a: u32) -> u32 {
    ((x as i32) >> a.min(31)) as u32
}
fn shl64(x: u64, a: u32) -> u64 {
    x.checked_shl(a).unwrap_or(0)
}
fn shr64(x: u64, a: u32) -> u64 {
    x.checked_shr(a).unwrap_or(0)
}
fn sar64(x: u64, a: u32) -> u64 {
    ((x as i64) >> a.min(63)) as u64
}

/// One step of tests/ptx/serial_shift.ptx: opcode `op`, amount `a`, on `x` and `acc`.
fn step(op: u32, a: u32, x: u32, acc: u32) -> u32 {
    let mut acc = acc;
    match op {
        0 => acc ^= shl32(x, a),
        1 => acc = acc.wrapping_add(shr32(x, a)),
        2 => acc ^= sar32(x, a),
        3 => {
            let m = a & 31;
            acc = acc.wrapping_add(shl32(x, m));
            acc ^= shr32(x, m);
            acc = acc.wrapping_add(sar32(acc, m));
            acc ^= shl32(x, a & 63);
        }
        4 => {
            acc = acc.wrapping_add(x << 5);
            acc = acc.wrapping_add(shl32(x, 32));
            acc ^= shr32(x, 40);
            acc ^= sar32(x, 35);
            acc = acc.wrapping_add(x >> 31);
        }
        5 => {
            let y = (x as u64) << 32 | acc as u64;
            let mut r = shl64(y, a) ^ shr64(y, a);
            r = r.wrapping_add(sar64(y, a));
            r ^= shl64(y, a & 63);
            r = r.wrapping_add(y >> 50);
            r ^= sar64(y, 70);
            acc = r as u32 ^ (r >> 32) as u32;
        }
        6 => {
            let p5 = x < acc;
            let (p6, p7) = (a != 7 && p5, a == 7 && p5);
            let p8 = p6 ^ p7;
            let p10 = !p6 || p7;
            acc = acc.wrapping_add(if p10 { 3 } else { 5 });
            if !p8 {
                acc ^= x;
            }
            if p7 {
                acc = acc.wrapping_add(1);
            }
        }
        _ => {
            let p11 = (x as i32) > -1;
            let p12 = a >= 40 || !p11;
            let p13 = p12 && p11;
            if p12 {
                acc = shl32(acc, a);
            }
            if !p13 {
                acc >>= 1;
            }
            if p13 {
                acc = acc.wrapping_add(7);
            }
        }
    }
    acc
}

/// tests/ptx/serial_shift.ptx's `lanes_shift` in Rust for thread `t`.
fn shift_ref(code: &[u32], t: usize, x0: u32, len: u32) -> u32 {
    let (mut x, mut acc) = (x0, 0u32);
    let steps = len - (t as u32 & 3);
    for s in 0..steps as usize {
        let w = code[(s + t) % 64];
        acc = step(w & 7, w >> 8, x, acc);
        x = x.wrapping_mul(1103515245).wrapping_add(12345);
    }
    acc.wrapping_add(steps)
}

/// Random programs (each opcode 8 times, amounts 0..80: below, at and past 32 and 64),
/// full and partial warps.
fn shifts(backend: Backend) {
    let mut rng = Rng::new(0x5417);
    for (n, block, len) in [(64u32, 64u32, 300u32), (96, 32, 77), (40, 40, 130)] {
        let code: Vec<u32> = (0..64)
            .map(|k| (k as u32 & 7) | (rng.range(0, 80) << 8))
            .collect();
        let input = rng.vec_u32(n as usize);
        let dev = device();
        let m = module_at(&dev, PTX, backend);
        let bcode = dev.alloc_from(&code).unwrap();
        let bin = dev.alloc_from(&input).unwrap();
        let out = zeroed(&dev, n as usize * 4);
        dev.launch(
            &m,
            "lanes_shift",
            &cfg([n.div_ceil(block), 1, 1], [block, 1, 1], backend),
            &[arg(&bcode), KernelArg::U32(len), arg(&bin), arg(&out)],
        )
        .unwrap_or_else(|e| panic!("lanes_shift {backend:?}: {e}"));
        let got = dev.read::<u32>(&out).unwrap();
        let want: Vec<u32> = (input.iter().enumerate())
            .map(|(t, &x)| shift_ref(&code, t, x, len))
            .collect();
        assert_slice_eq(&got, &want, &format!("lanes_shift {n} {backend:?}"));
    }
}

both_backends!(shifts);
