//! Loads through addresses no analysis can prove (indices read from memory): the JIT
//! tests whether every active lane uses one address (then one scalar load and a splat),
//! comparing the highest active lane's address with the lowest's first
//! (`jit/lower/mem.rs`, `uniform_lane_values`), and with all lanes active whether each
//! half-warp reads one address or 16 consecutive words (`jit/lower/mem_halves.rs`, which
//! picks the shape to test from a half's first two lanes). Cases where all active lanes
//! agree (full and partial masks, one lane), where the first and last agree but a middle
//! lane differs, where the last differs, no lane active, half-warp rows and near misses
//! of them; `ld.global.u32`, `ld.global.v2.u32` and `ld.shared.u32`; both backends and
//! JIT tiers against the indexing done here (`tests/ptx/lanes_agree.ptx`).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const FILE: &str = "tests/ptx/lanes_agree.ptx";

/// Indices `f0(l)` for lanes l = 0..16 of half 0 and `f1(l)` for half 1.
fn halves(f0: impl Fn(u32) -> u32, f1: impl Fn(u32) -> u32) -> [u32; 32] {
    std::array::from_fn(|l| match l < 16 {
        true => f0(l as u32),
        false => f1(l as u32 - 16),
    })
}

/// `x` with lanes set.
fn with_lanes(mut x: [u32; 32], set: &[(usize, u32)]) -> [u32; 32] {
    for &(l, v) in set {
        x[l] = v;
    }
    x
}

/// Each case: the 32 lanes' indices and the active lanes `lo..=hi`.
fn cases() -> Vec<([u32; 32], u32, u32)> {
    let with = |base: u32, set: &[(usize, u32)]| {
        let mut x = [base; 32];
        for &(l, v) in set {
            x[l] = v;
        }
        x
    };
    let distinct: [u32; 32] = std::array::from_fn(|l| l as u32);
    let mut partial = distinct;
    partial[3..=20].fill(7);
    vec![
        // Every lane at index 5.
        (with(5, &[]), 0, 31),
        // Lanes 0 and 31 agree, lane 17 does not.
        (with(5, &[(17, 6)]), 0, 31),
        // Every lane its own index.
        (distinct, 0, 31),
        // Lane 31 differs.
        (with(5, &[(31, 9)]), 0, 31),
        // Lanes 3-20 active and agreeing; the inactive lanes differ.
        (partial, 3, 20),
        // Lanes 3 and 20 agree, lane 10 does not.
        (with(7, &[(10, 8)]), 3, 20),
        // Lane 20, the highest active one, differs.
        (with(7, &[(20, 8)]), 3, 20),
        // Lane 12 only.
        (with(2, &[(12, 3)]), 12, 12),
        // No lane active.
        (distinct, 1, 0),
        // Half-warp rows: half 0 consecutive from 10, half 1 at index 40.
        (halves(|l| 10 + l, |_| 40), 0, 31),
        // Both halves the same 16 consecutive words (a tile row read by both).
        (halves(|l| 20 + l, |l| 20 + l), 0, 31),
        // Near misses: half 0 consecutive but for lane 9.
        (
            with_lanes(halves(|l| 10 + l, |l| 30 + l), &[(9, 50)]),
            0,
            31,
        ),
        // Half 0 at one index but for lane 14.
        (with_lanes(halves(|_| 3, |_| 3), &[(14, 4)]), 0, 31),
        // Every lane two words after the one before.
        (std::array::from_fn(|l| 2 * l as u32), 0, 31),
        // Half 0's first two lanes agree, the rest consecutive.
        (with_lanes(halves(|l| 5 + l, |l| 40 + l), &[(0, 6)]), 0, 31),
        // Half 1's first two lanes consecutive, the rest at one index.
        (with_lanes(halves(|l| 10 + l, |_| 33), &[(17, 34)]), 0, 31),
    ]
}

#[test]
fn loads_whose_active_lanes_may_agree_match_the_indexing() {
    let cases = cases();
    let data: Vec<u32> = (0..64).map(|i| i * 17 + 3).collect();
    let data2: Vec<u32> = (0..64).flat_map(|i| [i * 1000 + 1, i * 1000 + 2]).collect();
    let idx: Vec<u32> = cases.iter().flat_map(|c| c.0).collect();
    let bounds: Vec<u32> = cases.iter().flat_map(|c| [c.1, c.2]).collect();
    let mut want = Vec::new();
    for (ix, lo, hi) in &cases {
        let on = |l: usize| (*lo as usize..=*hi as usize).contains(&l);
        let pick =
            |l: usize, f: &dyn Fn(usize) -> u32| if on(l) { f(ix[l] as usize) } else { 0xdead };
        want.extend((0..32).map(|l| pick(l, &|i| data[i])));
        want.extend((0..32).map(|l| pick(l, &|i| data2[2 * i])));
        want.extend((0..32).map(|l| pick(l, &|i| data2[2 * i + 1])));
        want.extend((0..32).map(|l| pick(l, &|i| data[i])));
    }
    // Hand check: case 1, lane 17 reads data[6] = 6 × 17 + 3 = 105; case 4, lane 2 is
    // inactive; case 11, lane 9 reads data[50] = 853 from shared memory.
    assert_eq!(
        (want[128 + 17], want[4 * 128 + 2], want[11 * 128 + 96 + 9]),
        (105, 0xdead, 853)
    );
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, FILE, backend);
            let bufs = [&idx, &bounds, &data, &data2].map(|v| dev.alloc_from(v).unwrap());
            let out = zeroed(&dev, want.len() * 4);
            let c = cfg([cases.len() as u32, 1, 1], [32, 1, 1], backend);
            let mut args: Vec<_> = bufs.iter().map(arg).collect();
            args.push(arg(&out));
            launch(&dev, &m, "agree", &c, &args, "agree");
            let what = format!("{backend:?} {tier:?}");
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}
