//! Atomics whose first operand is an immediate (the JIT keeps it a constant in the
//! access loop instead of loading it per lane: `src/jit/lower/atomic_inline.rs`), on
//! both backends against a Rust model of each warp performing every `atom` lane by lane
//! in ascending lane order (tests/ptx/atomics_imm.ptx): shared add (1 and 0xFFFFFFFD),
//! max.s32 -5, and, inc, cas with an immediate compare value, a uniform-address add,
//! a dead xor, 64-bit add and min.s64, a global add; every old value and the final
//! memory, lanes `t % 4 == 2` inactive, duplicate addresses, 1 and 2 CTAs; a shared
//! add of an immediate whose lane 0, 13 or 31 is out of range faults with the
//! interpreter's message, and one whose inactive lane 0, 13 or 31 has an out-of-range,
//! misaligned address runs the other lanes.
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const PTX: &str = "tests/ptx/atomics_imm.ptx";
/// The shared words the lanes choose from (duplicates across lanes are the point).
const WORDS: [u32; 9] = [0, 1, 3, 15, 16, 100, 129, 200, 255];

/// (sel, g) for `ctas` CTAs: g holds 768 words per CTA. Small values in g make inc
/// and cas take both of their branches.
fn inputs(ctas: usize) -> (Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(1402);
    let sel: Vec<u32> = (0..32)
        .map(|_| WORDS[rng.range(0, WORDS.len() as u32) as usize])
        .collect();
    let g: Vec<u32> = (0..768 * ctas)
        .map(|i| {
            if i % 3 == 0 {
                rng.range(0, 20)
            } else {
                rng.u32()
            }
        })
        .collect();
    (sel, g)
}

/// Each CTA count on each JIT tier (the quick tier takes the `ptxjit_atom` call, the
/// optimized tier the inline forms).
fn cases(backend: Backend) -> Vec<(u32, JitTier)> {
    [1u32, 2]
        .iter()
        .flat_map(|&c| tiers(backend).iter().map(move |&t| (c, t)))
        .collect()
}

/// (final g, out) after every CTA's warp ran `imm_ops` lane by lane.
fn model(sel: &[u32], g: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let ctas = g.len() / 768;
    let mut g = g.to_vec();
    let mut out = vec![0u32; 416 * ctas];
    let lanes = || (0..32usize).filter(|t| t % 4 != 2);
    for c in 0..ctas {
        let (gc, oc) = (768 * c, 416 * c);
        // Shared memory: g_c[0..512], written back at the end (same words).
        type Op = fn(u32, usize) -> u32;
        let ops: [Op; 6] = [
            |r, _| r.wrapping_add(1),
            |r, _| r.wrapping_add(0xFFFF_FFFD),
            |r, _| (r as i32).max(-5) as u32,
            |r, _| r & 0xF0F0_F0F0,
            |r, _| if r >= 16 { 0 } else { r + 1 },
            |r, t| if r == 2 { t as u32 } else { r },
        ];
        for (k, op) in ops.iter().enumerate() {
            for t in lanes() {
                let at = gc + sel[t] as usize;
                out[oc + 32 * k + t] = g[at];
                g[at] = op(g[at], t);
            }
        }
        for t in lanes() {
            out[oc + 192 + t] = g[gc + 255];
            g[gc + 255] = g[gc + 255].wrapping_add(5);
        }
        for t in lanes() {
            g[gc + sel[t] as usize] ^= 0x5A5A_5A5A;
        }
        for t in lanes() {
            let at = gc + 512 + sel[t] as usize;
            out[oc + 224 + t] = g[at];
            g[at] = g[at].wrapping_add(0xFFFF_FFF0);
        }
        for (k, base) in [(0usize, 288usize), (1, 352)] {
            for t in lanes() {
                let at = gc + 256 + 2 * (sel[t] & 127) as usize;
                let old = g[at] as u64 | (g[at + 1] as u64) << 32;
                out[oc + base + 2 * t] = old as u32;
                out[oc + base + 2 * t + 1] = (old >> 32) as u32;
                let new = if k == 0 {
                    old.wrapping_add(0x123_4567_89AB)
                } else {
                    (old as i64).min(-7) as u64
                };
                g[at] = new as u32;
                g[at + 1] = (new >> 32) as u32;
            }
        }
    }
    (g, out)
}

fn imm_ops(backend: Backend) {
    for (ctas, tier) in cases(backend) {
        let dev = device_tier(tier);
        let m = module_at(&dev, PTX, backend);
        let (sel, g0) = inputs(ctas as usize);
        let (want_g, want_out) = model(&sel, &g0);
        let bsel = dev.alloc_from(&sel).unwrap();
        let g = dev.alloc_from(&g0).unwrap();
        let out = zeroed(&dev, 1664 * ctas as usize);
        let what = format!("imm_ops {backend:?} {tier:?}, {ctas} CTAs");
        let lc = cfg([ctas, 1, 1], [32, 1, 1], backend);
        launch(
            &dev,
            &m,
            "imm_ops",
            &lc,
            &[arg(&bsel), arg(&g), arg(&out)],
            &what,
        );
        let got_out = dev.read::<u32>(&out).unwrap();
        assert_slice_eq(&got_out, &want_out, &format!("{what}: old values"));
        let got_g = dev.read::<u32>(&g).unwrap();
        assert_slice_eq(&got_g, &want_g, &format!("{what}: final memory"));
    }
}

/// `imm_fault` with lane `bad` out of range and lane `skip` inactive (its address out
/// of range and misaligned): the error, if any, and the 64 words of out after it.
fn fault_run(backend: Backend, tier: JitTier, bad: u32, skip: u32) -> (Option<String>, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let out = dev.alloc_from(&[7u32; 64]).unwrap();
    let args = [arg(&out), KernelArg::U32(bad), KernelArg::U32(skip)];
    let r = dev.launch(&m, "imm_fault", &cfg([1, 1, 1], [32, 1, 1], backend), &args);
    (
        r.err().map(|e| e.to_string()),
        dev.read::<u32>(&out).unwrap(),
    )
}

fn faults(backend: Backend) {
    for (bad, &tier) in [0, 13, 31].into_iter().zip(tiers(backend).iter().cycle()) {
        let (e, out) = fault_run(backend, tier, bad, 40);
        let e = e.expect("an out-of-range shared atom must fault");
        assert!(e.contains("atom."), "lane {bad}: {e}");
        // The kernel stopped at the atom: no lane stored anything.
        assert_eq!(out, [7; 64], "lane {bad} {backend:?} {tier:?}: {e}");
        if backend == Backend::Jit {
            let (ie, _) = fault_run(Backend::Interp, JitTier::Quick, bad, 40);
            assert_eq!(
                Some(e),
                ie,
                "lane {bad}: JIT and interpreter messages differ"
            );
        }
    }
    // An inactive lane's bad address is not checked: every active lane adds 1 to its
    // own zeroed word (old value 0); the inactive lane's word stays 0, its out 7.
    for (skip, &tier) in [0, 13, 31].into_iter().zip(tiers(backend).iter().cycle()) {
        let (e, out) = fault_run(backend, tier, 40, skip);
        assert_eq!(e, None, "skip {skip} {backend:?} {tier:?}");
        let want: Vec<u32> = (0..64u32)
            .map(|i| match (i < 32, i % 32 == skip) {
                (true, true) => 7,
                (true, false) => 0,
                (false, true) => 0,
                (false, false) => 1,
            })
            .collect();
        assert_eq!(out, want, "skip {skip} {backend:?} {tier:?}");
    }
}

both_backends!(imm_ops, faults);
