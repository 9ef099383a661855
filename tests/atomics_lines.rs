//! Inline atomics whose lanes hit a few words spread over several 64-byte lines in an
//! interleaved lane order (the JIT takes global lanes line by line and performs shared
//! ones as plain read-modify-writes, `src/jit/lower/atomic_inline.rs`), on both
//! backends against a Rust model of each warp performing every `atom` lane by lane in
//! ascending lane order (tests/ptx/atomics_lines.ptx): the old value every lane gets
//! from exch, add, inc, cas and `.f32` add (each depends on the order of the lanes at
//! its word) and the final memory, with a partial mask (lanes 2, 6, 10, ... inactive),
//! for one CTA and for two CTAs (on shared memory also as one cluster of two).
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const PTX: &str = "tests/ptx/atomics_lines.ptx";
/// The words the lanes choose from: lines 0, 1, 2, 6 and 15 of each 1 KiB area.
const WORDS: [u32; 10] = [0, 1, 3, 15, 16, 17, 33, 100, 101, 255];
const OPS: [&str; 5] = ["exch", "add", "inc", "cas", "addf"];

fn flush(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The ISA's new value of a word holding `old` after lane operand `v` (inc wraps to 0
/// at `v & 15`, cas stores `v` where `old == v & 3`, `.f32` add flushes subnormals on
/// global memory only and gives the canonical NaN).
fn apply(op: &str, old: u32, v: u32, global: bool) -> u32 {
    match op {
        "exch" => v,
        "add" => old.wrapping_add(v),
        "inc" => {
            if old >= v & 15 {
                0
            } else {
                old + 1
            }
        }
        "cas" => {
            if old == v & 3 {
                v
            } else {
                old
            }
        }
        _ => {
            let (x, y) = if global {
                (flush(old), flush(v))
            } else {
                (old, v)
            };
            let s = f32::from_bits(x) + f32::from_bits(y);
            let r = if s.is_nan() { 0x7fff_ffff } else { s.to_bits() };
            if global {
                flush(r)
            } else {
                r
            }
        }
    }
}

/// (sel, vals, g) for `ctas` CTAs: g holds 1,280 words per CTA.
fn inputs(ctas: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(1414);
    let sel: Vec<u32> = (0..32)
        .map(|_| WORDS[rng.range(0, WORDS.len() as u32) as usize])
        .collect();
    let vals: Vec<u32> = (0..32u32)
        .map(|t| match t % 4 {
            // Small values: inc wraps, cas matches.
            0 => rng.range(0, 16),
            // Floats of mixed magnitude (the sum depends on the order) and subnormals.
            1 => (rng.f32() * 1.0e7).to_bits(),
            3 if t % 8 == 3 => 0x0000_0100 + t,
            _ => rng.u32(),
        })
        .collect();
    let g: Vec<u32> = (0..1280 * ctas)
        .map(|i| match i % 1280 / 256 {
            2 => rng.range(0, 12),
            3 => rng.range(0, 4),
            4 => (rng.f32() * 100.0).to_bits(),
            _ => rng.u32(),
        })
        .collect();
    (sel, vals, g)
}

/// (final g, out) after every CTA's warp ran the kernel lane by lane.
fn model(sel: &[u32], vals: &[u32], g: &[u32], global: bool) -> (Vec<u32>, Vec<u32>) {
    let ctas = g.len() / 1280;
    let mut g = g.to_vec();
    let mut out = vec![0u32; 160 * ctas];
    for c in 0..ctas {
        for (k, op) in OPS.iter().enumerate() {
            for t in (0..32).filter(|t| t % 4 != 2) {
                let at = 1280 * c + 256 * k + sel[t] as usize;
                out[160 * c + 32 * k + t] = g[at];
                g[at] = apply(op, g[at], vals[t], global);
            }
        }
    }
    (g, out)
}

/// On both JIT tiers (the quick tier takes the `ptxjit_atom` call, the optimized tier
/// the inline forms).
fn run(backend: Backend, kernel: &str, ctas: u32, cluster: bool) {
    for &tier in tiers(backend) {
        run_tier(backend, tier, kernel, ctas, cluster);
    }
}

fn run_tier(backend: Backend, tier: JitTier, kernel: &str, ctas: u32, cluster: bool) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let (sel, vals, g0) = inputs(ctas as usize);
    let global = kernel == "lines_global";
    let (want_g, want_out) = model(&sel, &vals, &g0, global);
    let bsel = dev.alloc_from(&sel).unwrap();
    let bvals = dev.alloc_from(&vals).unwrap();
    let g = dev.alloc_from(&g0).unwrap();
    let out = zeroed(&dev, 640 * ctas as usize);
    let what = format!("{kernel} {backend:?} {tier:?}, {ctas} CTAs, cluster {cluster}");
    let mut lc = cfg([ctas, 1, 1], [32, 1, 1], backend);
    if cluster {
        lc = lc.cluster([ctas, 1, 1]);
    }
    // Twice: the second launch finds the region cache filled.
    for rep in 0..2 {
        dev.write(&g, &g0).unwrap();
        dev.write(&out, &vec![0u32; 160 * ctas as usize]).unwrap();
        launch(
            &dev,
            &m,
            kernel,
            &lc,
            &[arg(&bsel), arg(&bvals), arg(&g), arg(&out)],
            &what,
        );
        let got_out = dev.read::<u32>(&out).unwrap();
        for c in 0..ctas as usize {
            for (k, op) in OPS.iter().enumerate() {
                let r = 160 * c + 32 * k..160 * c + 32 * (k + 1);
                assert_slice_eq(
                    &got_out[r.clone()],
                    &want_out[r],
                    &format!("{what} rep {rep}: CTA {c}'s old values of {op}"),
                );
            }
        }
        let got_g = dev.read::<u32>(&g).unwrap();
        assert_slice_eq(&got_g, &want_g, &format!("{what} rep {rep}: final memory"));
    }
}

fn lines_global(backend: Backend) {
    run(backend, "lines_global", 1, false);
    run(backend, "lines_global", 2, false);
}

fn lines_shared(backend: Backend) {
    run(backend, "lines_shared", 1, false);
    run(backend, "lines_shared", 2, false);
    run(backend, "lines_shared", 2, true);
}

both_backends!(lines_global, lines_shared);

/// The model itself: lanes at one word see each other's writes in ascending order.
#[test]
fn model_orders_lanes_at_one_word() {
    let sel = vec![5u32; 32];
    let vals: Vec<u32> = (0..32).collect();
    let g = vec![0u32; 1280];
    let (g2, out) = model(&sel, &vals, &g, true);
    // exch: lane 1 gets lane 0's operand, lane 3 lane 1's (lane 2 is inactive, its
    // out word stays 0); the word ends with lane 31's.
    assert_eq!(&out[..4], &[0, 0, 0, 1]);
    assert_eq!(g2[5], 31);
    // add: 0 + 0 (lane 0), + 1 (lane 1), + 3 (lane 3): lane 3 sees 1, lane 4 sees 4.
    assert_eq!(&out[32..36], &[0, 0, 0, 1]);
    assert_eq!(out[36], 4);
}
