//! Global integer atomics whose lanes hit the same words (the JIT combines a 64-byte
//! line's lanes per word where they outnumber its words, `src/jit/lower/atomic_inline.rs`),
//! on both backends and both JIT tiers, against a Rust model of each warp performing every
//! `atom`/`red` lane by lane in ascending lane order (tests/ptx/atomics_combine.ptx):
//! the final memory after add/and/or/xor/min/max, signed and unsigned, 32 and 64 bits,
//! with dead destinations (`combine`) and every active lane's old value where they are
//! live (`combine_live`). Address patterns: a histogram's bins (6 to 11 lanes on each
//! of 4 lines), 2 lines of 16 lanes, one line's words (more lanes than words) with
//! duplicates at lanes 0, 13 and 31, with lanes inactive, with a word only inactive
//! lanes hit; the same duplicates among distinct words on 3 lines, all lanes at one word
//! (not provably uniform: loaded), all distinct over 6 lines, random words with
//! inactive lanes sharing words with active ones, and a word whose only lanes are
//! inactive; 1 and 2 CTAs.
#[macro_use]
mod common;
use common::*;

const PTX: &str = "tests/ptx/atomics_combine.ptx";
/// 32-bit words per CTA (16 KiB).
const AREA: usize = 4096;

/// `op` (k = 0..7 as the kernel numbers them) on `bits`-wide values.
fn apply(k: usize, old: u64, v: u64, bits: u32) -> u64 {
    let m = if bits == 64 {
        u64::MAX
    } else {
        u32::MAX as u64
    };
    let s = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
    let r = match k {
        0 => old.wrapping_add(v),
        1 => old & v,
        2 => old | v,
        3 => old ^ v,
        4 => s(old).min(s(v)) as u64,
        5 => s(old).max(s(v)) as u64,
        6 => old.min(v),
        _ => old.max(v),
    };
    r & m
}

/// Words of `out` per CTA (`combine_live`).
const OUT: usize = 768;

/// (final g, out) after every CTA's warp ran the kernel lane by lane; `out` holds the
/// old values `combine_live` stores (inactive lanes 0).
fn model(sel: &[u32], vals: &[u32], act: &[u32], g: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut g = g.to_vec();
    let ctas = g.len() / AREA;
    let mut out = vec![0u32; OUT * ctas];
    for c in 0..ctas {
        let lanes = || (0..32usize).filter(|&t| act[t] != 0);
        for k in 0..8 {
            for t in lanes() {
                let at = AREA * c + 256 * k + sel[t] as usize;
                out[OUT * c + 32 * k + t] = g[at];
                g[at] = apply(k, g[at] as u64, vals[t] as u64, 32) as u32;
            }
        }
        for k in 0..8 {
            for t in lanes() {
                let at = AREA * c + 256 * (k + 8) + 2 * (sel[t] & 127) as usize;
                let old = g[at] as u64 | (g[at + 1] as u64) << 32;
                let o = OUT * c + 256 + 64 * k + 2 * t;
                out[o] = old as u32;
                out[o + 1] = (old >> 32) as u32;
                let v = (vals[t] as u64 * 65537).wrapping_sub(1 << 40);
                let new = apply(k, old, v, 64);
                g[at] = new as u32;
                g[at + 1] = (new >> 32) as u32;
            }
        }
    }
    (g, out)
}

/// (name, sel, act) for each address pattern.
fn patterns() -> Vec<(&'static str, Vec<u32>, Vec<u32>)> {
    let mut rng = Rng::new(1717);
    let all = vec![1u32; 32];
    let mut dup: Vec<u32> = (0..32).map(|t| 40 + t).collect();
    for t in [0, 13, 31] {
        dup[t] = 61;
    }
    // Words on lines 0, 1, 2, 6 and 15 of a 1 KiB area (16 words per line).
    const WORDS: [u32; 10] = [0, 1, 3, 15, 16, 17, 33, 100, 101, 255];
    let random: Vec<u32> = (0..32)
        .map(|_| WORDS[rng.range(0, WORDS.len() as u32) as usize])
        .collect();
    let some: Vec<u32> = (0..32).map(|t| (t % 3 != 1) as u32).collect();
    // Word 200 is hit only by inactive lanes 1, 4 and 7.
    let mut lonely = random.clone();
    for t in [1, 4, 7] {
        lonely[t] = 200;
    }
    // One line's 16 words (the JIT combines: more lanes than words), lanes 0, 13 and 31
    // at word 61; 64-bit: 2 lines of 8 words.
    let mut dense: Vec<u32> = (0..32).map(|t| 48 + t % 16).collect();
    for t in [0, 13, 31] {
        dense[t] = 61;
    }
    // Words 48..62 and word 63 hit only by inactive lanes 1, 4 and 7.
    let mut dense_lonely: Vec<u32> = (0..32).map(|t| 48 + t % 15).collect();
    for t in [1, 4, 7] {
        dense_lonely[t] = 63;
    }
    // A histogram's bins: words 0..63 (4 lines, 6 to 11 lanes each; 64-bit: 8 lines), the
    // order consecutive inputs give them, with duplicates (lanes one by one on each line).
    let bins: Vec<u32> = (0..32).map(|t| (51 * t + t / 3) % 64).collect();
    // Two lines (64-bit: 4), 16 lanes each, words hit unevenly (lanes one by one).
    let two: Vec<u32> = (0..32).map(|t| (7 * t + t * t / 9) % 32).collect();
    vec![
        ("histogram bins", bins.clone(), all.clone()),
        (
            "histogram bins, lanes t % 3 == 1 inactive",
            bins,
            some.clone(),
        ),
        ("two lines", two.clone(), all.clone()),
        ("two lines, lanes t % 3 == 1 inactive", two, some.clone()),
        (
            "one line, duplicates at lanes 0, 13, 31",
            dense.clone(),
            all.clone(),
        ),
        ("one line, lanes t % 3 == 1 inactive", dense, some.clone()),
        (
            "one line, inactive lanes alone at a word",
            dense_lonely,
            some.clone(),
        ),
        ("duplicates at lanes 0, 13, 31", dup.clone(), all.clone()),
        ("one word", vec![77; 32], all.clone()),
        (
            "one word, lanes t % 3 == 1 inactive",
            vec![77; 32],
            some.clone(),
        ),
        (
            "all distinct",
            (0..32).map(|t| 3 * t).collect(),
            all.clone(),
        ),
        ("random words", random.clone(), all),
        (
            "random words, lanes t % 3 == 1 inactive",
            random,
            some.clone(),
        ),
        ("inactive lanes alone at a word", lonely, some.clone()),
        ("duplicates, lanes t % 3 == 1 inactive", dup, some),
    ]
}

/// `kernel` (`combine`: dead results; `combine_live`: old values to out) against the
/// model for every pattern, both tiers, 1 and 2 CTAs.
fn run(backend: Backend, kernel: &str) {
    let live = kernel == "combine_live";
    let mut rng = Rng::new(1718);
    // Mixed signs and magnitudes (min/max and wrapping adds depend on them); a few
    // lanes all-ones so that and/or chains keep some bits.
    let vals: Vec<u32> = (0..32)
        .map(|t| if t % 7 == 3 { u32::MAX } else { rng.u32() })
        .collect();
    for (&tier, ctas) in tiers(backend).iter().flat_map(|t| [(t, 1u32), (t, 2)]) {
        for (name, sel, act) in patterns() {
            let dev = device_tier(tier);
            let m = module_at(&dev, PTX, backend);
            let g0: Vec<u32> = (0..AREA * ctas as usize).map(|_| rng.u32()).collect();
            let (want_g, want_out) = model(&sel, &vals, &act, &g0);
            let bsel = dev.alloc_from(&sel).unwrap();
            let bvals = dev.alloc_from(&vals).unwrap();
            let bact = dev.alloc_from(&act).unwrap();
            let g = dev.alloc_from(&g0).unwrap();
            let out = zeroed(&dev, 4 * OUT * ctas as usize);
            let what = format!("{kernel}, {name}: {backend:?} {tier:?}, {ctas} CTAs");
            let lc = cfg([ctas, 1, 1], [32, 1, 1], backend);
            let mut args = vec![arg(&bsel), arg(&bvals), arg(&bact), arg(&g)];
            if live {
                args.push(arg(&out));
            }
            launch(&dev, &m, kernel, &lc, &args, &what);
            let got = dev.read::<u32>(&g).unwrap();
            assert_slice_eq(&got, &want_g, &format!("{what}: final memory"));
            if live {
                let got = dev.read::<u32>(&out).unwrap();
                assert_slice_eq(&got, &want_out, &format!("{what}: old values"));
            }
        }
    }
}

fn combine(backend: Backend) {
    run(backend, "combine");
}

fn combine_live(backend: Backend) {
    run(backend, "combine_live");
}

both_backends!(combine, combine_live);
