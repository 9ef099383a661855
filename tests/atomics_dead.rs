//! Global integer atomics whose lanes hit a few words on a few 64-byte lines, some
//! with dead destinations (the JIT gathers no old value for those,
//! `src/jit/lower/atomic.rs`), on both backends against a Rust
//! model of each warp performing every `atom` lane by lane in ascending lane order
//! (tests/ptx/atomics_dead.ptx): every live old value and the final memory, lanes
//! `t % 4 == 2` inactive, duplicate addresses, 1 and 2 CTAs; and an out-of-range lane
//! (0, 13 or 31) under a dead destination faults with the interpreter's message before
//! any lane writes.
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const PTX: &str = "tests/ptx/atomics_dead.ptx";
/// The words the lanes choose from: lines 0, 1, 2, 6 and 15 of each 1 KiB area.
const WORDS: [u32; 10] = [0, 1, 3, 15, 16, 17, 33, 100, 101, 255];
/// The 32-bit operations, at g + 1024 k (k = 6, 7: dead results).
const OPS32: [&str; 8] = ["add", "min.s", "max.u", "and", "or", "xor", "add", "max.s"];

fn apply32(op: &str, old: u32, v: u32) -> u32 {
    match op {
        "add" => old.wrapping_add(v),
        "min.s" => (old as i32).min(v as i32) as u32,
        "max.s" => (old as i32).max(v as i32) as u32,
        "max.u" => old.max(v),
        "and" => old & v,
        "or" => old | v,
        _ => old ^ v,
    }
}

/// (sel, vals, g) for `ctas` CTAs: g holds 2,560 words per CTA.
fn inputs(ctas: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(1515);
    let sel: Vec<u32> = (0..32)
        .map(|_| WORDS[rng.range(0, WORDS.len() as u32) as usize])
        .collect();
    // Mixed signs and magnitudes (min/max and wrapping adds depend on them).
    let vals: Vec<u32> = (0..32).map(|_| rng.u32()).collect();
    let g: Vec<u32> = (0..2560 * ctas).map(|_| rng.u32()).collect();
    (sel, vals, g)
}

/// Each CTA count on each JIT tier (the quick tier takes the `ptxjit_atom` call, the
/// optimized tier the inline forms).
fn cases(backend: Backend) -> Vec<(u32, JitTier)> {
    [1u32, 2]
        .iter()
        .flat_map(|&c| tiers(backend).iter().map(move |&t| (c, t)))
        .collect()
}

/// (final g, out) after every CTA's warp ran the kernel lane by lane.
fn model(sel: &[u32], vals: &[u32], g: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let ctas = g.len() / 2560;
    let mut g = g.to_vec();
    let mut out = vec![0u32; 320 * ctas];
    let lanes = || (0..32usize).filter(|t| t % 4 != 2);
    for c in 0..ctas {
        for (k, op) in OPS32.iter().enumerate() {
            for t in lanes() {
                let at = 2560 * c + 256 * k + sel[t] as usize;
                if k < 6 {
                    out[320 * c + 32 * k + t] = g[at];
                }
                g[at] = apply32(op, g[at], vals[t]);
            }
        }
        // 64-bit words at g_c + 8192 (add) and g_c + 9216 (min.s64, dead).
        for (k, base) in [(0, 2048), (1, 2304)] {
            for t in lanes() {
                let at = 2560 * c + base + 2 * (sel[t] & 127) as usize;
                let old = g[at] as u64 | (g[at + 1] as u64) << 32;
                let v = (vals[t] as u64 * 65537).wrapping_sub(1 << 40);
                let new = if k == 0 {
                    out[320 * c + 256 + 2 * t] = old as u32;
                    out[320 * c + 256 + 2 * t + 1] = (old >> 32) as u32;
                    old.wrapping_add(v)
                } else {
                    (old as i64).min(v as i64) as u64
                };
                g[at] = new as u32;
                g[at + 1] = (new >> 32) as u32;
            }
        }
    }
    (g, out)
}

fn dead_global(backend: Backend) {
    for (ctas, tier) in cases(backend) {
        let dev = device_tier(tier);
        let m = module_at(&dev, PTX, backend);
        let (sel, vals, g0) = inputs(ctas as usize);
        let (want_g, want_out) = model(&sel, &vals, &g0);
        let bsel = dev.alloc_from(&sel).unwrap();
        let bvals = dev.alloc_from(&vals).unwrap();
        let g = dev.alloc_from(&g0).unwrap();
        let out = zeroed(&dev, 1280 * ctas as usize);
        let what = format!("dead_global {backend:?} {tier:?}, {ctas} CTAs");
        let lc = cfg([ctas, 1, 1], [32, 1, 1], backend);
        // Twice: the second launch finds the region cache filled.
        for rep in 0..2 {
            dev.write(&g, &g0).unwrap();
            dev.write(&out, &vec![0u32; 320 * ctas as usize]).unwrap();
            let args = [arg(&bsel), arg(&bvals), arg(&g), arg(&out)];
            launch(&dev, &m, "dead_global", &lc, &args, &what);
            let got_out = dev.read::<u32>(&out).unwrap();
            assert_slice_eq(
                &got_out,
                &want_out,
                &format!("{what} rep {rep}: old values"),
            );
            let got_g = dev.read::<u32>(&g).unwrap();
            assert_slice_eq(&got_g, &want_g, &format!("{what} rep {rep}: final memory"));
        }
    }
}

/// The error of `dead_fault` with lane `bad` out of range, the fault address replaced
/// by a placeholder, and the words after the launch.
fn fault_error(backend: Backend, tier: JitTier, bad: u32) -> (String, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let g = dev.alloc_from(&[0u32; 5]).unwrap();
    let args = [arg(&g), KernelArg::U32(bad)];
    let e = dev
        .launch(
            &m,
            "dead_fault",
            &cfg([1, 1, 1], [32, 1, 1], backend),
            &args,
        )
        .expect_err("an out-of-range atom must fault")
        .to_string();
    let e = e.replace(&format!("{:x}", g.ptr() + (1u64 << 40)), "ADDR");
    (e, dev.read::<u32>(&g).unwrap())
}

fn faults(backend: Backend) {
    for (bad, &tier) in [0, 13, 31].into_iter().zip(tiers(backend).iter().cycle()) {
        let (e, g) = fault_error(backend, tier, bad);
        assert!(e.contains("atom.") && e.contains("ADDR"), "lane {bad}: {e}");
        // Every lane is checked before any lane's atomic: nothing was added.
        assert_eq!(g, [0; 5], "lane {bad} {backend:?} {tier:?}: {e}");
        if backend == Backend::Jit {
            let (ie, _) = fault_error(Backend::Interp, JitTier::Quick, bad);
            assert_eq!(
                e, ie,
                "lane {bad} {tier:?}: JIT and interpreter messages differ"
            );
        }
    }
}

both_backends!(dead_global, faults);
