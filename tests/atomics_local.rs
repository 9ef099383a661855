//! Shared atomics whose address register is block-local (computed by an unguarded
//! instruction in the atom's own block, read by nothing else): in the divergent variant
//! the JIT writes such a register without keeping the inactive lanes' old values
//! (`block_local_regs` in src/jit/translate/regfile.rs), so the inactive lanes' entries
//! hold addresses outside the window and misaligned; the atom must use the active lanes'
//! only (tests/ptx/atomics_local.ptx). Both backends (the JIT in both tiers) against a
//! Rust model of the warp performing each `atom` lane by lane in ascending lane order:
//! every old value and the final window; an active lane one word past the window faults
//! with the interpreter's message and nothing stored; the histogram's grid-stride loop
//! with lanes leaving it at different trips. `span_b{0,64,65}`: the range fact's
//! addresses `s + 4 b + (v & 252)` (src/jit/lower/atomic_range.rs) with all lanes and with every
//! fourth lane inactive, the highest mask value at the window's last word (b = 64), a
//! bound past the window's end reached only by inactive lanes (b = 65: no fault), and
//! by an active lane 0, 13 or 31 (the interpreter's fault, nothing stored).
#[macro_use]
mod common;
use common::*;

const PTX: &str = "tests/ptx/atomics_local.ptx";

/// (out) after `local_atom`: lanes `t % 4 != 2` add v[t] at word v[t] & 63 (old value
/// to out[t]), then 1 there; out[32..96] the window. out starts as 7s.
fn model_atom(v: &[u32]) -> Vec<u32> {
    let mut s = [0u32; 64];
    let mut out = vec![7u32; 96];
    let active = || (0..32usize).filter(|t| t % 4 != 2);
    for t in active() {
        let at = (v[t] & 63) as usize;
        out[t] = s[at];
        s[at] = s[at].wrapping_add(v[t]);
    }
    for t in active() {
        let at = (v[t] & 63) as usize;
        s[at] = s[at].wrapping_add(1);
    }
    out[32..].copy_from_slice(&s);
    out
}

/// `local_atom` with lane `bad` (32: none) at the window's end: the error, if any, and out.
fn atom_run(
    backend: Backend,
    tier: ptxjit::jit::JitTier,
    v: &[u32],
    bad: u32,
) -> (Option<String>, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let bv = dev.alloc_from(v).unwrap();
    let out = dev.alloc_from(&[7u32; 96]).unwrap();
    let args = [arg(&bv), arg(&out), KernelArg::U32(bad)];
    let lc = cfg([1, 1, 1], [32, 1, 1], backend);
    let r = dev.launch(&m, "local_atom", &lc, &args);
    (
        r.err().map(|e| e.to_string()),
        dev.read::<u32>(&out).unwrap(),
    )
}

fn local_atom(backend: Backend) {
    let mut rng = Rng::new(1701);
    for round in 0..3 {
        // Round 0: every lane on word 63 (the window's last), then random words.
        let v: Vec<u32> = (0..32)
            .map(|_| {
                if round == 0 {
                    63 | rng.u32() << 6
                } else {
                    rng.u32()
                }
            })
            .collect();
        let want = model_atom(&v);
        for &tier in tiers(backend) {
            let (e, got) = atom_run(backend, tier, &v, 32);
            assert_eq!(e, None, "{backend:?} {tier:?} round {round}");
            assert_slice_eq(&got, &want, &format!("{backend:?} {tier:?} round {round}"));
        }
    }
}

fn local_fault(backend: Backend) {
    let v: Vec<u32> = (0..32u32).map(|t| 5 * t + 1).collect();
    for &tier in tiers(backend) {
        for bad in [0u32, 13, 31] {
            let (e, out) = atom_run(backend, tier, &v, bad);
            let e = e.expect("a shared atom one word past the window must fault");
            assert!(e.contains("atom."), "lane {bad}: {e}");
            // Stopped at the first atom: nothing stored to out.
            assert_eq!(out, [7u32; 96], "lane {bad} {backend:?} {tier:?}: {e}");
            if backend == Backend::Jit {
                let (ie, _) = atom_run(Backend::Interp, ptxjit::jit::JitTier::Quick, &v, bad);
                assert_eq!(
                    Some(e),
                    ie,
                    "lane {bad}: JIT and interpreter messages differ"
                );
            }
        }
    }
}

fn local_loop(backend: Backend) {
    let mut rng = Rng::new(1702);
    // 5 full trips, then 13 lanes (n = 173), or all 32 lanes every trip (n = 192).
    for n in [173usize, 192] {
        let input: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
        let mut want = vec![0u32; 64];
        for x in &input {
            want[(x & 63) as usize] += 1;
        }
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, PTX, backend);
            let bin = dev.alloc_from(&input).unwrap();
            let out = zeroed(&dev, 4 * 64);
            let args = [arg(&bin), arg(&out), KernelArg::U32(n as u32)];
            let what = format!("local_loop {backend:?} {tier:?}, n = {n}");
            launch(
                &dev,
                &m,
                "local_loop",
                &cfg([1, 1, 1], [32, 1, 1], backend),
                &args,
                &what,
            );
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}

/// out after `span_b{b}` (div) lane by lane, or None where an active lane's word is
/// past the window (the instruction faults before any lane's access).
fn model_span(v: &[u32], b: u32, div: bool) -> Option<Vec<u32>> {
    let mut s = [0u32; 128];
    let mut out = vec![7u32; 160];
    let active: Vec<usize> = (0..32).filter(|t| !div || t % 4 != 2).collect();
    let word = |t: usize| (b + (v[t] & 252) / 4) as usize;
    if active.iter().any(|&t| word(t) >= 128) {
        return None;
    }
    for &t in &active {
        out[t] = s[word(t)];
        s[word(t)] = s[word(t)].wrapping_add(v[t]);
    }
    out[32..].copy_from_slice(&s);
    Some(out)
}

fn span_run(
    backend: Backend,
    tier: ptxjit::jit::JitTier,
    v: &[u32],
    b: u32,
    div: bool,
) -> (Option<String>, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let bv = dev.alloc_from(v).unwrap();
    let out = dev.alloc_from(&[7u32; 160]).unwrap();
    let args = [arg(&bv), arg(&out), KernelArg::U32(div as u32)];
    let lc = cfg([1, 1, 1], [32, 1, 1], backend);
    let r = dev.launch(&m, &format!("span_b{b}"), &lc, &args);
    (
        r.err().map(|e| e.to_string()),
        dev.read::<u32>(&out).unwrap(),
    )
}

fn span_atom(backend: Backend) {
    let mut rng = Rng::new(1703);
    let mut cases: Vec<(Vec<u32>, u32, bool)> = Vec::new();
    for b in [0u32, 64] {
        for div in [false, true] {
            let mut v: Vec<u32> = (0..32).map(|_| rng.u32()).collect();
            // The highest mask value in lane 5 (active either way): the last word at b = 64.
            v[5] |= 252;
            cases.push((v, b, div));
        }
    }
    // b = 65: lanes t % 4 == 2 (inactive) past the end, the others below it.
    let v: Vec<u32> = (0..32u32)
        .map(|t| {
            if t % 4 == 2 {
                252 | t << 8
            } else {
                4 * (t % 63) + (t << 8)
            }
        })
        .collect();
    cases.push((v.clone(), 65, true));
    // ... and an active lane past the end.
    for bad in [0usize, 13, 31] {
        for div in [false, true] {
            let mut w = v.clone();
            w[bad] |= 252;
            cases.push((w, 65, div));
        }
    }
    for (v, b, div) in &cases {
        let want = model_span(v, *b, *div);
        for &tier in tiers(backend) {
            let what = format!("span_b{b} {backend:?} {tier:?}, b = {b}, div = {div}");
            let (e, got) = span_run(backend, tier, v, *b, *div);
            match &want {
                Some(w) => {
                    assert_eq!(e, None, "{what}");
                    assert_slice_eq(&got, w, &what);
                }
                None => {
                    let e = e.expect("an active lane past the window must fault");
                    assert!(e.contains("atom."), "{what}: {e}");
                    assert_eq!(got, [7u32; 160], "{what}: {e}");
                    if backend == Backend::Jit {
                        let (ie, _) =
                            span_run(Backend::Interp, ptxjit::jit::JitTier::Quick, v, *b, *div);
                        assert_eq!(Some(e), ie, "{what}: JIT and interpreter messages differ");
                    }
                }
            }
        }
    }
    // The cases cover both outcomes.
    assert!(cases
        .iter()
        .any(|(v, b, d)| model_span(v, *b, *d).is_none()));
}

both_backends!(local_atom, local_fault, local_loop, span_atom);
