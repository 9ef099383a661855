//! Shared-memory stores of consecutive lanes under partial masks (branches, guards, a
//! tree reduction's `if (t < s)` steps; 4- and 8-byte and f32 elements; a warp whose 32
//! elements end at the window's end and one whose 32 elements run past it), which the
//! JIT performs as one masked read-modify-write of the warp's 32 elements where they
//! lie in the window, else lane by lane (`jit/lower/mem_gather.rs`): both backends, both
//! JIT tiers, 1 and 2 worker threads, against a Rust model of the kernel
//! (`tests/ptx/shared_masked.ptx`); and stores whose lanes leave the window or are
//! misaligned, which must report the same fault on both backends.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/shared_masked.ptx";
const CTAS: u32 = 29;
const BLOCK: u32 = 64;
const WORDS: usize = 384;

/// The kernel's 384 output words (its shared window at the end) in CTA `c`.
fn model(c: u32) -> Vec<u32> {
    let mut w = vec![0u32; WORDS];
    let put64 = |w: &mut [u32], i: usize, v: u64| {
        w[128 + 2 * i] = v as u32;
        w[128 + 2 * i + 1] = (v >> 32) as u32;
    };
    for t in 0..BLOCK {
        let i = t as usize;
        w[i] = 0xa000 + t + 256 * c;
        w[64 + i] = !t;
        put64(&mut w, i, (t as u64) << 32 | t as u64);
        w[256 + i] = 0;
        w[320 + i] = t;
    }
    for t in 0..BLOCK {
        let (i, l) = (t as usize, t % 32);
        if l < 13 {
            w[i] = 3 * t + c;
        }
        if t % 2 == 1 {
            w[64 + i] = 11 * t + c;
        }
        if l % 5 == 0 {
            put64(&mut w, i, (t as u64) << 32 | (c as u64 + 7));
        }
        if l >= 20 {
            w[256 + i] = (t as f32 * 0.5 + c as f32).to_bits();
        }
        if t >= 48 {
            w[352 + l as usize] = 100 * l + c;
        }
    }
    for l in 0..16 {
        w[360 + l] = 1000 + l as u32;
    }
    let mut s = 32;
    while s > 0 {
        for t in 0..s {
            w[t] = w[t].wrapping_add(w[t + s]);
        }
        s /= 2;
    }
    w
}

#[test]
fn masked_consecutive_shared_stores_match_the_model() {
    let want: Vec<u32> = (0..CTAS).flat_map(model).collect();
    // Hand check of the model: CTA 0's word 372 (E[20]) is lane 20's 100 × 20 = 2,000
    // from warp 1, then lane 12's 1,000 + 12 = 1,012 from warp 0; word 65 (B[1]) is
    // 11 × 1 + 0 = 11, word 66 (B[2]) is !2.
    assert_eq!((want[372], want[65], want[66]), (1012, 11, !2));
    for threads in [1, 2] {
        for backend in [Backend::Jit, Backend::Interp] {
            for &tier in tiers(backend) {
                let dev = device_threads_tier(threads, tier);
                let m = module_at(&dev, FILE, backend);
                let out = zeroed(&dev, CTAS as usize * WORDS * 4);
                let c = cfg([CTAS, 1, 1], [BLOCK, 1, 1], backend);
                let args = [arg(&out), KernelArg::U32(0)];
                let calls = access_calls(|| launch(&dev, &m, "masked", &c, &args, "masked"));
                let what = format!("{backend:?} {tier:?} on {threads} worker(s)");
                assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
                if backend == Backend::Jit && threads == 1 && tier == JitTier::Optimized {
                    // (Counted on the launching thread, which runs every CTA here. The
                    // quick tier stores through the helper: `mem_quick`.)
                    assert_eq!(calls, 0, "{what}: access helper calls");
                }
            }
        }
    }
}

#[test]
fn consecutive_lanes_past_the_window_fault_as_the_helper_reports_them() {
    // bad = 36: lane 15's store starts at byte 1,536, the window's end (lanes 0-14 are
    // inside); bad = 2: every lane's store is misaligned, lane 0 the first.
    for (bad, kind, thread) in [(36u32, "outside-window", 15), (2, "misaligned", 0)] {
        let mut msgs = Vec::new();
        for backend in [Backend::Jit, Backend::Interp] {
            for &tier in tiers(backend) {
                let dev = device_threads_tier(1, tier);
                let m = module_at(&dev, FILE, backend);
                let out = zeroed(&dev, WORDS * 4);
                let c = cfg([1, 1, 1], [BLOCK, 1, 1], backend);
                let args = [arg(&out), KernelArg::U32(bad)];
                let err = dev.launch(&m, "masked", &c, &args).expect_err("a bad lane");
                let msg = err.to_string();
                assert!(
                    msg.contains("st.shared.u32")
                        && msg.contains(kind)
                        && msg.contains(&format!("thread ({thread},0,0)")),
                    "{backend:?} {tier:?}, bad = {bad} ({kind}): {msg}"
                );
                msgs.push(msg);
            }
        }
        assert!(
            msgs.iter().all(|m| *m == msgs[0]),
            "bad = {bad}: JIT tiers and interpreter report the same fault: {msgs:?}"
        );
    }
}
