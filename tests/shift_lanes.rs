//! `shl`/`shr` of 32-bit values by per-lane register amounts (tests/ptx/shift_lanes.ptx,
//! hand-written, passes ptxas 12.9): every amount 0..=40 and extremes, `.b32`, `.u32`,
//! `.s32`, and `1 << (x & 31)`, on the interpreter and both JIT tiers (warps whose amounts
//! differ take the JIT's lane-wise vector form; warp 3's amounts are all equal, the scalar
//! form), against Rust with PTX's clamping (amounts past 31 give 0, or the sign for `.s32`).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

fn reference(x: u32, n: u32) -> [u32; 4] {
    [
        if n >= 32 { 0 } else { x << n },
        if n >= 32 { 0 } else { x >> n },
        ((x as i32) >> n.min(31)) as u32,
        1u32 << (x & 31),
    ]
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/shift_lanes.ptx", backend);
    let n = 128usize;
    let mut rng = Rng::new(5);
    let mut input = Vec::with_capacity(2 * n);
    let xs = [
        0u32,
        1,
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        0x8000_0001,
        0xdead_beef,
    ];
    for t in 0..n {
        let x = if t % 9 < xs.len() {
            xs[t % 9]
        } else {
            rng.u32()
        };
        let amount = match t {
            0..=40 => t as u32,
            41..=63 => [u32::MAX, 0x8000_0000, 63, 64, 255, 256, 1 << 20][t % 7],
            64..=95 => rng.u32() % 40,
            _ => 13, // one amount for the whole warp
        };
        input.extend([x, amount]);
    }
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![0u32; 4 * n]).unwrap();
    launch(
        dev,
        &m,
        "shifts",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        what,
    );
    let want: Vec<u32> = (0..n)
        .flat_map(|t| reference(input[2 * t], input[2 * t + 1]))
        .collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, what);
}

interp_and_tiers!(run_on, "shift_lanes");
