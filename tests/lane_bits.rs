//! Lane bits of vector predicates (`jit::translate::lanes::bits_from_mask`: a warp's 8
//! lane-mask vectors narrowed to one 32-bit mask, which every branch, ballot and
//! guard on a predicate held as vectors goes through): `tests/ptx/lane_bits.ptx`
//! ballots of a predicate read from memory and its negation, and a branch on it, for
//! warps whose lanes are set in every position and pattern (none, all, one lane in
//! each position, one 4-lane group, alternating, random) and a partial last warp, on
//! both backends and both JIT tiers, against the reference written here.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::jit::JitTier;

/// The words of warp `w`'s lanes: bit 0 of lane `l` is bit `l` of the warp's pattern.
fn patterns(warps: usize) -> Vec<u32> {
    let mut fixed: Vec<u32> = vec![
        0,
        u32::MAX,
        0x0000_000F,
        0xF000_0000,
        0x8000_0001,
        0x5555_5555,
        0xAAAA_AAAA,
        0x00FF_FF00,
        0x0001_0000,
        0x0000_8000,
    ];
    fixed.extend((0..32).map(|j| 1u32 << j));
    fixed.extend((0..32).map(|j| !(1u32 << j)));
    let mut rng = Rng::new(24);
    (0..warps)
        .map(|w| fixed.get(w).copied().unwrap_or_else(|| rng.u32()))
        .collect()
}

/// The reference: per thread (ballot of p, ballot of !p, branch word) over the threads
/// below `n` of each warp of 32 consecutive threads.
fn reference(input: &[u32], n: usize) -> Vec<u32> {
    let mut out = vec![FILL; 3 * input.len()];
    for (w, lanes) in input[..n].chunks(32).enumerate() {
        let mut yes = 0u32;
        let mut no = 0u32;
        for (l, &x) in lanes.iter().enumerate() {
            match x & 1 {
                1 => yes |= 1 << l,
                _ => no |= 1 << l,
            }
        }
        for (l, &x) in lanes.iter().enumerate() {
            let t = 32 * w + l;
            out[3 * t] = yes;
            out[3 * t + 1] = no;
            out[3 * t + 2] = match x & 1 {
                1 => (yes.count_ones() << 8) | 1,
                _ => (no.count_ones() << 8) | 2,
            };
        }
    }
    out
}

const FILL: u32 = 0xDEAD_BEEF;

/// The interpreter and both JIT tiers.
const RUNS: [(Backend, JitTier); 3] = [
    (Backend::Interp, JitTier::Quick),
    (Backend::Jit, JitTier::Quick),
    (Backend::Jit, JitTier::Optimized),
];

#[test]
fn lane_bits_of_vector_predicates() {
    let warps = 96usize;
    let pats = patterns(warps);
    let mut rng = Rng::new(7);
    // Lane l of warp w: bit 0 from the pattern, the other bits random.
    let input: Vec<u32> = (0..32 * warps)
        .map(|t| (rng.u32() & !1) | ((pats[t / 32] >> (t % 32)) & 1))
        .collect();
    for n in [32 * warps, 32 * warps - 5, 32 * warps - 31] {
        let want = reference(&input, n);
        for (backend, tier) in RUNS {
            let dev = device_tier(tier);
            let m = module_at(&dev, "tests/ptx/lane_bits.ptx", backend);
            let what = format!("lane_bits {backend:?} {tier:?} n={n}");
            let inb = dev.alloc_from(&input).unwrap();
            let out = dev.alloc_from(&vec![FILL; 3 * input.len()]).unwrap();
            let args = [arg(&inb), arg(&out), KernelArg::U32(n as u32)];
            let c = cfg([(warps / 3) as u32, 1, 1], [96, 1, 1], backend);
            launch(&dev, &m, "lane_bits", &c, &args, &what);
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}

/// `affine_preds`' reference for a CTA of `n` threads: (out, out2) per thread.
fn preds_reference(n: u32, a: u32, b: u32, c: u32, d: u32) -> (Vec<u32>, Vec<u32>) {
    (0..n)
        .map(|t| {
            let p1 = t < a;
            let p2 = t != b;
            let p3 = if t & 4 != 0 { t > c } else { t <= d };
            let out = u32::from(p1) | u32::from(p2) << 1 | u32::from(p3) << 2;
            (out, if p1 { t } else { FILL })
        })
        .unzip()
}

/// Predicates the JIT computes as lane bits from a run of `%tid.x` (`lower::compare`:
/// their vector form, which the register file keeps across the barrier, built from the
/// bits), one of them overwritten in a divergent region, read after the barrier by
/// `selp` and a guard: both backends and both JIT tiers against the reference, blocks
/// of whole warps and a partial one, bounds below, inside and past the block.
#[test]
fn predicates_from_lane_runs_across_a_barrier() {
    for block in [96u32, 80, 32] {
        for (a, b, c, d) in [
            (0u32, 0u32, 0u32, 0u32),
            (5, 17, 40, 3),
            (33, 63, 95, 64),
            (64, 31, 31, 32),
            (96, 95, 7, 200),
            (1000, 1000, 1000, 1000),
        ] {
            let grid = 3u32;
            let (one, two) = preds_reference(block, a, b, c, d);
            let want: Vec<u32> = (0..grid).flat_map(|_| one.clone()).collect();
            let want2: Vec<u32> = (0..grid).flat_map(|_| two.clone()).collect();
            for (backend, tier) in RUNS {
                let dev = device_tier(tier);
                let m = module_at(&dev, "tests/ptx/lane_bits.ptx", backend);
                let what = format!("affine_preds {backend:?} {tier:?} {block} {a} {b} {c} {d}");
                let n = (grid * block) as usize;
                let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                let out2 = dev.alloc_from(&vec![FILL; n]).unwrap();
                let args = [
                    arg(&out),
                    arg(&out2),
                    KernelArg::U32(a),
                    KernelArg::U32(b),
                    KernelArg::U32(c),
                    KernelArg::U32(d),
                ];
                let cf = cfg([grid, 1, 1], [block, 1, 1], backend);
                launch(&dev, &m, "affine_preds", &cf, &args, &what);
                assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
                assert_slice_eq(&dev.read::<u32>(&out2).unwrap(), &want2, &what);
            }
        }
    }
}
