//! Shared-memory atomics with every lane of the warp active (the JIT performs them in
//! straight-line code, lanes 0 to 31 with no lane loop: `src/jit/lower/atomic_inline.rs`)
//! and with lane 0, 13 or 31 inactive (the lane loop), on both backends against a Rust
//! model of the warp performing every `atom` lane by lane in ascending lane order
//! (tests/ptx/atomics_full.ptx): 32-bit add (immediate and register, live and dead),
//! exch, cas, inc, dec, min.s32, max.u32, and, a dead xor, `.f32` add (no flush in
//! shared memory, canonical NaN), 64-bit add (live and dead), max.s64, exch, min.u64;
//! lanes share words, the last word and doubleword end at the window's end; 1 and 2
//! CTAs; every old value and the final memory. The same on global memory (the
//! all-lanes range check there too; no f32 add), the last word at the buffer's end. A full-warp add whose lane 0, 13 or 31
//! addresses the first word past the window faults with the interpreter's message and
//! writes nothing. The JIT runs in both tiers (the quick tier keeps the lane loop for
//! every mask; the optimized tier has the straight-line form).
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const PTX: &str = "tests/ptx/atomics_full.ptx";
/// The shared words the lanes choose from (doubleword `w & 63`): 255 is the window's
/// last word, 63 (from 63, 127 and 255) its last doubleword.
const WORDS: [u32; 9] = [0, 1, 3, 63, 100, 127, 200, 254, 255];
/// Words of g per CTA (the shared window) and of out per CTA.
const G: usize = 384;
const OUT: usize = 640;

/// (sel, val, g) for `ctas` CTAs. Small values make cas, inc and dec take both of
/// their branches; val holds a subnormal, a NaN, an infinity and a negative zero for
/// the f32 add.
fn inputs(ctas: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(1601);
    let sel: Vec<u32> = (0..32)
        .map(|_| WORDS[rng.range(0, WORDS.len() as u32) as usize])
        .collect();
    let small_or_any = |rng: &mut Rng, i: usize| {
        if i.is_multiple_of(3) {
            rng.range(0, 10)
        } else {
            rng.u32()
        }
    };
    let mut val: Vec<u32> = (0..32).map(|i| small_or_any(&mut rng, i)).collect();
    val[5] = 1;
    val[9] = 0x7FC0_0001;
    val[17] = 0xFF80_0000;
    val[22] = 0x8000_0000;
    let g = (0..G * ctas).map(|i| small_or_any(&mut rng, i)).collect();
    (sel, val, g)
}

/// `.f32` add as `ops::atomic` applies it in shared memory: no flush, a NaN result is
/// the canonical NaN.
fn fadd(x: u32, y: u32) -> u32 {
    let s = f32::from_bits(x) + f32::from_bits(y);
    if s.is_nan() {
        0x7FFF_FFFF
    } else {
        s.to_bits()
    }
}

/// (final g, out) after every CTA's warp ran `full_ops` (`global`: `full_global`, no
/// f32 add) lane by lane, lane `skip` inactive (32: none).
fn model(sel: &[u32], val: &[u32], g: &[u32], skip: usize, global: bool) -> (Vec<u32>, Vec<u32>) {
    let ctas = g.len() / G;
    let mut g = g.to_vec();
    let mut out = vec![0u32; OUT * ctas];
    let lanes = || (0..32usize).filter(move |&t| t != skip);
    type Op = fn(u32, u32, usize) -> u32;
    // (old value's out row or None for a dead one, the new value of (r, v, t)).
    let ops32: [(Option<usize>, Op); 13] = [
        (Some(0), |r, _, _| r.wrapping_add(1)),
        (None, |r, _, _| r.wrapping_add(1)),
        (Some(1), |r, v, _| r.wrapping_add(v)),
        (None, |r, v, _| r.wrapping_add(v)),
        (Some(2), |_, _, t| t as u32),
        (Some(3), |r, v, t| if r == v & 7 { t as u32 } else { r }),
        (Some(4), |r, _, _| if r >= 20 { 0 } else { r + 1 }),
        (Some(5), |r, v, _| (r as i32).min(v as i32) as u32),
        (None, |r, v, _| r ^ v),
        (Some(6), |r, v, _| fadd(r, v)),
        (Some(7), |r, v, _| r.max(v)),
        (Some(8), |r, _, _| if r == 0 || r > 9 { 9 } else { r - 1 }),
        (Some(9), |r, v, _| r & v),
    ];
    type Op64 = fn(u64, u64) -> u64;
    let ops64: [(Option<usize>, Op64); 6] = [
        (Some(0), |r, v| r.wrapping_add(v)),
        (None, |r, _| r.wrapping_add(0x123_4567_89AB)),
        (Some(1), |r, v| (r as i64).max(v as i64) as u64),
        (Some(2), |_, v| v),
        (Some(3), |r, v| r.min(v)),
        (Some(4), |r, _| r.wrapping_add(0xFFFF_FFFF_FFFF_FFF9)),
    ];
    let seq32 = |g: &mut [u32], out: &mut [u32]| {
        for (row, op) in ops32 {
            if global && row == Some(6) {
                continue;
            }
            for t in lanes() {
                let at = sel[t] as usize;
                if let Some(k) = row {
                    out[32 * k + t] = g[at];
                }
                g[at] = op(g[at], val[t], t);
            }
        }
    };
    let seq64 = |g: &mut [u32], out: &mut [u32]| {
        for (row, op) in ops64 {
            for t in lanes() {
                let at = 256 + 2 * (sel[t] & 63) as usize;
                let v64 = (val[t] as u64).wrapping_mul(0x1_0000_0001) + t as u64;
                let old = g[at] as u64 | (g[at + 1] as u64) << 32;
                if let Some(j) = row {
                    out[320 + 64 * j + 2 * t] = old as u32;
                    out[320 + 64 * j + 2 * t + 1] = (old >> 32) as u32;
                }
                let new = op(old, v64);
                g[at] = new as u32;
                g[at + 1] = (new >> 32) as u32;
            }
        }
    };
    // full_global performs the sequence twice (the old values of the second time).
    let reps = if global { 2 } else { 1 };
    for c in 0..ctas {
        let (gc, oc) = (G * c, OUT * c);
        for _ in 0..reps {
            seq32(&mut g[gc..], &mut out[oc..]);
            seq64(&mut g[gc..], &mut out[oc..]);
        }
    }
    (g, out)
}

/// `kernel` (`full_ops` or `full_global`) against the model, lane 0, 13, 31 or none
/// inactive, 1 and 2 CTAs.
fn run_ops(backend: Backend, kernel: &str) {
    let global = kernel == "full_global";
    for (&tier, ctas) in tiers(backend).iter().flat_map(|t| [(t, 1u32), (t, 2)]) {
        for skip in [32u32, 0, 13, 31] {
            let dev = device_tier(tier);
            let m = module_at(&dev, PTX, backend);
            let (sel, val, g0) = inputs(ctas as usize);
            let (want_g, want_out) = model(&sel, &val, &g0, skip as usize, global);
            let bsel = dev.alloc_from(&sel).unwrap();
            let bval = dev.alloc_from(&val).unwrap();
            let g = dev.alloc_from(&g0).unwrap();
            let out = zeroed(&dev, 4 * OUT * ctas as usize);
            let what = format!("{kernel} {backend:?} {tier:?}, {ctas} CTAs, lane {skip} inactive");
            let lc = cfg([ctas, 1, 1], [32, 1, 1], backend);
            let args = [
                arg(&bsel),
                arg(&bval),
                arg(&g),
                arg(&out),
                KernelArg::U32(skip),
            ];
            launch(&dev, &m, kernel, &lc, &args, &what);
            let got_out = dev.read::<u32>(&out).unwrap();
            assert_slice_eq(&got_out, &want_out, &format!("{what}: old values"));
            let got_g = dev.read::<u32>(&g).unwrap();
            assert_slice_eq(&got_g, &want_g, &format!("{what}: final memory"));
        }
    }
}

fn full_ops(backend: Backend) {
    run_ops(backend, "full_ops");
}

fn full_global(backend: Backend) {
    run_ops(backend, "full_global");
}

/// `full_fault` with lane `bad` past the window: the error, if any, and out after it.
fn fault_run(backend: Backend, tier: JitTier, bad: u32) -> (Option<String>, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let val: Vec<u32> = (0..32).map(|t| 3 * t + 1).collect();
    let bval = dev.alloc_from(&val).unwrap();
    let out = dev.alloc_from(&[7u32; 32]).unwrap();
    let args = [arg(&bval), arg(&out), KernelArg::U32(bad)];
    let lc = cfg([1, 1, 1], [32, 1, 1], backend);
    let r = dev.launch(&m, "full_fault", &lc, &args);
    (
        r.err().map(|e| e.to_string()),
        dev.read::<u32>(&out).unwrap(),
    )
}

fn faults(backend: Backend) {
    for (&tier, bad) in tiers(backend)
        .iter()
        .flat_map(|t| [(t, 0), (t, 13), (t, 31)])
    {
        let (e, out) = fault_run(backend, tier, bad);
        let e = e.expect("a shared atom one word past the window must fault");
        assert!(e.contains("atom."), "lane {bad}: {e}");
        // The kernel stopped at the atom: no lane stored anything.
        assert_eq!(out, [7; 32], "lane {bad} {backend:?} {tier:?}: {e}");
        if backend == Backend::Jit {
            let (ie, _) = fault_run(Backend::Interp, JitTier::Quick, bad);
            assert_eq!(
                Some(e),
                ie,
                "lane {bad}: JIT and interpreter messages differ"
            );
        }
    }
}

/// `full_gfault` with lane `bad` out of range the second time: the error and g after.
fn gfault_run(backend: Backend, tier: JitTier, bad: u32) -> (String, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let g = zeroed(&dev, 4 * 32);
    let args = [arg(&g), KernelArg::U32(bad)];
    let lc = cfg([1, 1, 1], [32, 1, 1], backend);
    let e = dev
        .launch(&m, "full_gfault", &lc, &args)
        .expect_err("a global atom 12 GiB past the buffer must fault");
    (
        relative_to(&e.to_string(), g.ptr()),
        dev.read::<u32>(&g).unwrap(),
    )
}

/// `msg` with every hexadecimal number within 16 GiB of `base` written as `base+0x..`:
/// the JIT's and the interpreter's runs are on devices of their own, whose memory
/// ranges (and so the faulting addresses) differ.
fn relative_to(msg: &str, base: u64) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i]);
        let digits = rest[i + 2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .map_or(rest.len() - i - 2, |n| n);
        let hex = &rest[i + 2..i + 2 + digits];
        match u64::from_str_radix(hex, 16) {
            Ok(v) if v.abs_diff(base) < 16 << 30 => {
                let d = v as i128 - base as i128;
                out.push_str(&format!(
                    "base{}{:#x}",
                    if d < 0 { '-' } else { '+' },
                    d.abs()
                ));
            }
            _ => out.push_str(&rest[i..i + 2 + digits]),
        }
        rest = &rest[i + 2 + digits..];
    }
    out.push_str(rest);
    out
}

fn global_faults(backend: Backend) {
    // The first time every lane t added t + 1 to its zeroed word; the second time
    // (the region cached, the all-lanes check taken) nothing.
    let want: Vec<u32> = (1..=32).collect();
    for (&tier, bad) in tiers(backend)
        .iter()
        .flat_map(|t| [(t, 0), (t, 13), (t, 31)])
    {
        let (e, g) = gfault_run(backend, tier, bad);
        assert!(e.contains("atom."), "lane {bad}: {e}");
        assert!(
            e.contains("base+0x3"),
            "lane {bad}: the address 12 GiB past g: {e}"
        );
        assert_eq!(g, want, "lane {bad} {backend:?} {tier:?}: {e}");
        if backend == Backend::Jit {
            let (ie, _) = gfault_run(Backend::Interp, JitTier::Quick, bad);
            assert_eq!(e, ie, "lane {bad}: JIT and interpreter messages differ");
        }
    }
}

both_backends!(full_ops, full_global, faults, global_faults);
