//! `redux.sync` with constant membermasks (tests/ptx/redux_masks.ptx, hand-written, passes
//! ptxas 12.9 for sm_80): the whole warp and guarded subsets whose guard is exactly the
//! membermask (lanes 0..15, the odd lanes, lane 7 alone, lanes 8..23, lanes 16..31 inside
//! a branch; and the whole warp with the membermask in a parameter), every operation and type, on the interpreter and on both JIT tiers (the
//! JIT reduces constant-membermask forms in vectors, the others in the `ptxjit_warp`
//! helper), against a per-warp reference written here.
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const DEAD: u32 = 0xdead;

/// What lane `l` of the warp holding `x` (its 32 inputs) writes at `out[9 * t + k]`.
fn reference(x: &[u32], l: usize) -> [u32; 9] {
    let over = |member: u32| {
        x.iter()
            .enumerate()
            .filter(move |(k, _)| member >> k & 1 != 0)
    };
    let s = |v: &u32| *v as i32;
    let mut o = [DEAD; 9];
    o[0] = *x.iter().min().unwrap();
    o[1] = x.iter().map(s).max().unwrap() as u32;
    o[2] = x.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    if l < 16 {
        o[3] = over(0x0000_ffff).map(|(_, v)| s(v)).min().unwrap() as u32;
    }
    if l % 2 == 1 {
        o[4] = over(0xaaaa_aaaa).fold(0u32, |a, (_, v)| a.wrapping_add(*v));
    }
    if l == 7 {
        o[5] = x[7];
    }
    if (8..24).contains(&l) {
        o[6] = over(0x00ff_ff00).fold(0u32, |a, (_, v)| a ^ v);
    }
    if l >= 16 {
        let and = over(0xffff_0000).fold(u32::MAX, |a, (_, v)| a & v);
        let or = over(0xffff_0000).fold(0u32, |a, (_, v)| a | v);
        o[7] = (and & 0xffff_0000) | (or & 0xffff);
    }
    o[8] = o[1];
    o
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/redux_masks.ptx", backend);
    let n = 128usize; // 2 CTAs of 64 threads: 4 warps
    let mut x = Rng::new(26).vec_u32(n);
    // Extremes: i32::MIN/MAX, 0, u32::MAX; warp 3 all equal (every reduction is x).
    x[3] = i32::MIN as u32;
    x[9] = i32::MAX as u32;
    x[40] = 0;
    x[41] = u32::MAX;
    x[60] = 0x8000_0001;
    for v in &mut x[96..128] {
        *v = 0x1234_5678;
    }
    let inb = dev.alloc_from(&x).unwrap();
    let out = dev.alloc_from(&vec![0u32; 9 * n]).unwrap();
    launch(
        dev,
        &m,
        "rmask",
        &cfg([2, 1, 1], [64, 1, 1], backend),
        &[arg(&inb), arg(&out), KernelArg::U32(u32::MAX)],
        what,
    );
    let want: Vec<u32> = (0..n)
        .flat_map(|t| reference(&x[t / 32 * 32..t / 32 * 32 + 32], t % 32))
        .collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, what);
}

interp_and_tiers!(run_on, "redux_masks");
