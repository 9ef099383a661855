//! Shared-memory stores that are not one whole-warp vector store (partial masks, 1- to
//! 8-byte elements, lanes storing to one address, a variable at a constant offset) and
//! uniform `ld.shared` of a variable, which the JIT runs lane by lane or as one scalar
//! load instead of calling the access helper (`jit/lower/mem_gather.rs`,
//! `jit/lower/mem.rs`) in the optimized tier (the quick tier calls the helper): both
//! backends and both tiers, on 1 and 2 worker threads, against a Rust model of the
//! kernel (`tests/ptx/shared_scatter.ptx`), and a bad later lane, which must report the
//! same fault on both backends.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/shared_scatter.ptx";
const CTAS: u32 = 37;
const BLOCK: u32 = 64;

/// The kernel's shared bytes at the barrier in CTA `c`, and its 192 output words.
fn model(c: u32) -> Vec<u32> {
    let mut s = [0u8; 1024];
    let put = |s: &mut [u8; 1024], at: usize, bytes: &[u8]| {
        s[at..at + bytes.len()].copy_from_slice(bytes);
    };
    // Each warp runs its steps in order, lanes ascending (no two warps share an address).
    for warp in 0..BLOCK / 32 {
        let tids = (0..32).map(|l| warp * 32 + l);
        for t in tids.clone().filter(|t| t % 32 <= 20) {
            put(
                &mut s,
                (((t * 37) & 63) * 4) as usize,
                &(t * 3 + c).to_le_bytes(),
            );
        }
        for t in tids.clone().filter(|t| t % 2 == 1) {
            let v = (t + c) as u16;
            put(&mut s, (256 + (t / 4) * 2) as usize, &v.to_le_bytes());
        }
        for t in tids.clone().filter(|t| t % 3 == 0) {
            put(&mut s, (320 + t) as usize, &[(t ^ c) as u8]);
        }
        for t in tids.clone().filter(|&t| t < 8) {
            let v = (t as u64) << 40 | (c as u64 + 1);
            put(&mut s, (384 + t * 8) as usize, &v.to_le_bytes());
        }
        for t in tids.filter(|&t| (5..9).contains(&t)) {
            put(&mut s, 448, &(t * 1000).to_le_bytes());
        }
    }
    let word = |at: usize| u32::from_le_bytes([s[at], s[at + 1], s[at + 2], s[at + 3]]);
    let c64 = u64::from_le_bytes(s[400..408].try_into().unwrap_or([0; 8]));
    let common = word(448) ^ word(452) ^ c64 as u32 ^ (c64 >> 32) as u32 ^ word(4);
    let mut out = vec![0u32; 192];
    for t in 0..64usize {
        out[t] = word(4 * t);
        out[64 + t] = word(256 + 4 * t);
        out[128 + t] = common ^ t as u32;
    }
    out
}

#[test]
fn partial_and_uniform_shared_accesses_match_the_model() {
    let want: Vec<u32> = (0..CTAS).flat_map(model).collect();
    // Hand check of the model: CTA 0, word 1 holds thread t with (37 t) & 63 == 1, i.e.
    // t = 45 (37 * 45 = 1665 = 26 * 64 + 1), lane 13 <= 20: 45 * 3 + 0 = 135.
    assert_eq!(want[1], 135);
    // The quick tier takes the helper for these stores, the optimized tier the scatter.
    for (threads, tier) in [
        (1, JitTier::Optimized),
        (2, JitTier::Optimized),
        (1, JitTier::Quick),
    ] {
        let dev = device_threads_tier(threads, tier);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, FILE, backend);
            let out = zeroed(&dev, (CTAS * 192 * 4) as usize);
            let c = cfg([CTAS, 1, 1], [BLOCK, 1, 1], backend);
            let args = [arg(&out), KernelArg::U32(0)];
            let calls = access_calls(|| launch(&dev, &m, "scatter", &c, &args, "scatter"));
            let what = format!("{backend:?} {tier:?} on {threads} worker(s)");
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
            if backend == Backend::Jit && threads == 1 && tier == JitTier::Optimized {
                // (Counted on the launching thread, which runs every CTA here.)
                assert_eq!(calls, 0, "{what}: access helper calls");
            }
        }
    }
}

#[test]
fn a_bad_later_lane_faults_as_the_helper_reports_it() {
    // bad = 4096: lane 20's store lies past the 1,024-byte window; bad = 2: misaligned.
    let cases = [(4096u32, "outside-window"), (2, "misaligned")];
    for ((bad, kind), tier) in cases
        .into_iter()
        .flat_map(|c| [JitTier::Quick, JitTier::Optimized].map(|t| (c, t)))
    {
        let mut msgs = Vec::new();
        for backend in [Backend::Jit, Backend::Interp] {
            let dev = device_threads_tier(1, tier);
            let m = module_at(&dev, FILE, backend);
            let out = zeroed(&dev, 192 * 4);
            let c = cfg([1, 1, 1], [BLOCK, 1, 1], backend);
            let args = [arg(&out), KernelArg::U32(bad)];
            let err = dev
                .launch(&m, "scatter", &c, &args)
                .expect_err("a bad lane");
            let msg = err.to_string();
            assert!(
                msg.contains("st.shared.u32")
                    && msg.contains(kind)
                    && msg.contains("thread (20,0,0)"),
                "{backend:?} {tier:?}, bad = {bad} ({kind}): {msg}"
            );
            msgs.push(msg);
        }
        assert_eq!(
            msgs[0], msgs[1],
            "{tier:?} bad = {bad}: JIT and interpreter report the same fault"
        );
    }
}
