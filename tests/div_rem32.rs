//! 32-bit integer `div` and `rem` (tests/ptx/div_rem32.ptx, hand-written, passes ptxas
//! 12.9): `.u32` and `.s32`, by registers, by an immediate under a guard, and the thread
//! index by a register, on the interpreter and both JIT tiers (the optimized tier divides
//! in `f64` vectors, the quick tier calls the helper), against Rust's integer division
//! with the PTX rules for the cases Rust panics on: `x / 0` and `x % 0` are all ones (an
//! H100's result, tests/golden), `i32::MIN / -1` wraps to `i32::MIN`, `i32::MIN % -1` is 0.
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

fn div_u(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}
fn rem_u(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(u32::MAX)
}
fn div_s(a: u32, b: u32) -> u32 {
    match b {
        0 => u32::MAX,
        _ => (a as i32).wrapping_div(b as i32) as u32,
    }
}
fn rem_s(a: u32, b: u32) -> u32 {
    match b {
        0 => u32::MAX,
        _ => (a as i32).wrapping_rem(b as i32) as u32,
    }
}

/// Pairs that stress the conversion and the rounding: zero and one divisors, the
/// extremes of both types, quotients just below, at and above integers with large
/// quotients, and random pairs of every magnitude.
fn pairs() -> Vec<(u32, u32)> {
    let mut p = vec![
        (0, 0),
        (7, 0),
        (u32::MAX, 0),
        (i32::MIN as u32, u32::MAX), // i32::MIN / -1
        (i32::MIN as u32, 1),
        (i32::MAX as u32, u32::MAX),
        (u32::MAX, 1),
        (u32::MAX, u32::MAX),
        (u32::MAX, 2),
        (u32::MAX - 1, u32::MAX),
        (0, 5),
        (-7i32 as u32, 2),
        (7, -2i32 as u32),
        (-7i32 as u32, -2i32 as u32),
        (i32::MIN as u32, 2),
        (i32::MIN as u32, i32::MIN as u32),
        (0x8000_0000, 0x7fff_ffff),
        (0xffff_fffe, 0x7fff_ffff),
    ];
    let mut rng = Rng::new(32);
    for b in [
        3u32,
        7,
        10,
        641,
        65_537,
        0x0001_0001,
        0x7fff_ffff,
        0xffff_fff1,
    ] {
        let k = u32::MAX / b;
        for q in [k, k.saturating_sub(1), k / 2 + 1] {
            let m = q.wrapping_mul(b);
            p.extend([(m, b), (m.wrapping_sub(1), b), (m.wrapping_add(1), b)]);
        }
    }
    while p.len() < 1000 {
        let a = rng.u32() >> (rng.u32() % 32);
        let b = rng.u32() >> (rng.u32() % 32);
        let b = if rng.u32().is_multiple_of(4) {
            (b as i32).wrapping_neg() as u32
        } else {
            b
        };
        p.push((a, b));
    }
    p
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/div_rem32.ptx", backend);
    let p = pairs();
    let n = p.len();
    let input: Vec<u32> = p.iter().flat_map(|&(a, b)| [a, b]).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![0u32; 6 * n]).unwrap();
    launch(
        dev,
        &m,
        "divrem",
        &cfg([blocks(n, 96), 1, 1], [96, 1, 1], backend),
        &[arg(&inb), arg(&out), KernelArg::U32(n as u32)],
        what,
    );
    let want: Vec<u32> = (p.iter().enumerate())
        .flat_map(|(t, &(a, b))| {
            let guarded = if a & 1 == 1 {
                div_s(a, -7i32 as u32)
            } else {
                0xdead
            };
            [
                div_u(a, b),
                rem_u(a, b),
                div_s(a, b),
                rem_s(a, b),
                guarded,
                rem_u(t as u32, b),
            ]
        })
        .collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, what);
}

interp_and_tiers!(run_on, "div_rem32");
