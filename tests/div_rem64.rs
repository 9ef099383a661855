//! 64-bit integer `div` and `rem` (tests/ptx/div_rem64.ptx, hand-written, passes ptxas
//! 12.9), `.u64` and `.s64`, on the interpreter and both JIT tiers, against Rust's integer
//! division with the PTX rules where Rust panics (`x / 0` and `x % 0` all ones,
//! `i64::MIN / -1` wraps). The optimized tier divides a warp in `f64` vectors when every
//! lane's operands lie in [-2^51, 2^51) and calls the helper otherwise: warps 0 and 1 hold
//! only such pairs (at the range's ends, near-integer quotients, zero divisors), warp 2
//! the same but one lane past the range (the whole warp takes the helper), warp 3 pairs
//! of every magnitude.
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

fn reference(a: u64, b: u64) -> [u64; 4] {
    let (sa, sb) = (a as i64, b as i64);
    [
        a.checked_div(b).unwrap_or(u64::MAX),
        a.checked_rem(b).unwrap_or(u64::MAX),
        if b == 0 {
            u64::MAX
        } else {
            sa.wrapping_div(sb) as u64
        },
        if b == 0 {
            u64::MAX
        } else {
            sa.wrapping_rem(sb) as u64
        },
    ]
}

/// 128 pairs: warps 0..2 in the vector form's range (warp 2 with one lane outside),
/// warp 3 anything.
fn pairs() -> Vec<(u64, u64)> {
    const LIM: i64 = 1 << 51;
    let mut rng = Rng::new(64);
    let mut p: Vec<(u64, u64)> = vec![
        (0, 0),
        (5, 0),
        ((LIM - 1) as u64, 1),
        ((LIM - 1) as u64, (LIM - 1) as u64),
        ((LIM - 1) as u64, 3),
        ((-LIM) as u64, 1),
        ((-LIM) as u64, (-1i64) as u64),
        ((-LIM) as u64, (LIM - 1) as u64),
        ((-7i64) as u64, 2),
        (7, (-2i64) as u64),
        ((-7i64) as u64, (-2i64) as u64),
        (0, (-5i64) as u64),
    ];
    // Quotients just below, at and above an integer, with large dividends.
    for b in [3u64, 7, 641, 65_537, 0x1_0000_0001, (LIM / 3) as u64] {
        let q = (LIM as u64 - 1) / b;
        let m = q * b;
        p.extend([(m, b), (m - 1, b), (m.min(LIM as u64 - 2) + 1, b)]);
    }
    while p.len() < 96 {
        let a = (rng.u64() % (2 * LIM as u64)) as i64 - LIM;
        let b = ((rng.u64() >> (rng.u32() % 64)) % (2 * LIM as u64)) as i64 - LIM;
        p.push((a as u64, b as u64));
    }
    p[64 + 17].0 = 1 << 60; // warp 2: one lane's dividend out of range
    for _ in 96..128 {
        let a = rng.u64() >> (rng.u32() % 64);
        let b = rng.u64() >> (rng.u32() % 64);
        p.push((a, b));
    }
    p[100] = (i64::MIN as u64, (-1i64) as u64);
    p[101] = (u64::MAX, u64::MAX);
    p[102] = (u64::MAX, 0);
    p[103] = (i64::MIN as u64, 1);
    p
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/div_rem64.ptx", backend);
    let p = pairs();
    let n = p.len();
    let input: Vec<u64> = p.iter().flat_map(|&(a, b)| [a, b]).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![0u64; 4 * n]).unwrap();
    launch(
        dev,
        &m,
        "divrem64",
        &cfg([blocks(n, 64), 1, 1], [64, 1, 1], backend),
        &[arg(&inb), arg(&out), KernelArg::U32(n as u32)],
        what,
    );
    let want: Vec<u64> = p.iter().flat_map(|&(a, b)| reference(a, b)).collect();
    assert_slice_eq(&dev.read::<u64>(&out).unwrap(), &want, what);
}

interp_and_tiers!(run_on, "div_rem64");
