//! Funnel shifts `shf.{l,r}.{wrap,clamp}.b32` (tests/ptx/shf.ptx, hand-written, passes
//! ptxas 12.9) by per-lane register amounts (0..=40 and extremes, random; one warp with
//! one amount for all lanes) and by immediates, on the interpreter and both JIT tiers
//! (the JIT's vector forms, `jit::lower::logic`), against the ISA's definition written
//! here with Rust's u64 shifts: the 64-bit `{b, a}` shifted left by `n` and its high
//! word taken, or shifted right and its low word taken, `n = c & 31` (`.wrap`) or
//! `min(c, 32)` (`.clamp`).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

fn shf(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if clamp { c.min(32) } else { c % 32 };
    let v = (b as u64) << 32 | a as u64;
    match left {
        true => ((v << n) >> 32) as u32,
        false => (v >> n) as u32,
    }
}

fn reference(a: u32, b: u32, c: u32) -> [u32; 12] {
    [
        shf(true, false, a, b, c),
        shf(false, false, a, b, c),
        shf(true, true, a, b, c),
        shf(false, true, a, b, c),
        shf(true, false, a, b, 13),
        shf(false, false, a, b, 7),
        shf(true, true, a, b, 32),
        shf(false, true, a, b, 40),
        shf(true, false, a, b, 0),
        shf(false, false, a, b, 37),
        shf(true, true, a, b, 0),
        shf(false, true, a, b, 31),
    ]
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/shf.ptx", backend);
    let n = 128usize;
    let mut rng = Rng::new(9);
    let mut input = Vec::with_capacity(3 * n);
    for t in 0..n {
        let (a, b) = match t % 5 {
            0 => (u32::MAX, 0),
            1 => (0x8000_0001, 0xdead_beef),
            _ => (rng.u32(), rng.u32()),
        };
        let c = match t {
            0..=40 => t as u32,
            41..=63 => [u32::MAX, 0x8000_0000, 63, 64, 255, 256, 1 << 20][t % 7],
            64..=95 => rng.u32(),
            _ => 19, // one amount for the whole warp
        };
        input.extend([a, b, c]);
    }
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![0u32; 12 * n]).unwrap();
    launch(
        dev,
        &m,
        "shf",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        what,
    );
    let want: Vec<u32> = (0..n)
        .flat_map(|t| reference(input[3 * t], input[3 * t + 1], input[3 * t + 2]))
        .collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, what);
    dev.free(inb).unwrap();
    dev.free(out).unwrap();
}

interp_and_tiers!(run_on, "shf");
