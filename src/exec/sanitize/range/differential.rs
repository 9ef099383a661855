//! The range path against the per-lane path: two sanitizers see the same random
//! sequence of accesses, barriers and host writes, one with the range path and one
//! lane by lane only, and must report the same findings (same lanes, addresses, bytes
//! and other accesses, in the same order) and return the same stopping lane.

use super::super::shadow::InitMap;
use super::super::{AccessShape, RawFinding, SanitizeOptions, Sanitizer, WarpView};
use super::Run;
use crate::ir::{InstId, Space};
use std::sync::{Arc, Mutex};

const SHARED_BASE: u64 = 0x1_0000;
const SHARED_SIZE: u64 = 384;
/// A tracked (uninitialised) global allocation, then untracked memory after it.
const GLOBAL: u64 = 0x10_0000;
const GLOBAL_SIZE: u64 = 640;
const LOCAL_ROOT: u64 = 0x20_0000;
const LOCAL_SIZE: u64 = 16;
const WARPS: u32 = 4;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn sanitizer(opts: SanitizeOptions) -> Sanitizer {
    let init = Arc::new(Mutex::new(InitMap::default()));
    init.lock().unwrap().add_uninit(GLOBAL, GLOBAL_SIZE);
    Sanitizer::new(opts, init, Vec::new(), SHARED_SIZE, LOCAL_SIZE)
}

/// One random access: (shape, state-space addresses, host addresses, mask, atomic).
fn access(rng: &mut Rng, inst: InstId) -> (AccessShape, [u64; 32], [u64; 32], u32, bool) {
    let len = [1u64, 2, 4, 8][rng.below(4) as usize];
    let write = rng.below(2) == 0;
    let (space, base, size) = match rng.below(8) {
        0..=2 => (Space::Shared, SHARED_BASE, SHARED_SIZE),
        3..=5 => (Space::Global, GLOBAL, GLOBAL_SIZE),
        6 => (Space::Global, GLOBAL + GLOBAL_SIZE - 64, 256),
        _ => (Space::Global, LOCAL_ROOT, LOCAL_SIZE * 32 * WARPS as u64),
    };
    let slots = size / len;
    let first = rng.below(slots.saturating_sub(32).max(1));
    let mut host = [0u64; 32];
    for (l, h) in host.iter_mut().enumerate() {
        let slot = match rng.below(16) {
            // Now and then a lane out of line (not a run).
            0 => rng.below(slots),
            _ => first + l as u64,
        };
        *h = base + (slot % slots) * len;
    }
    let mask = match rng.below(4) {
        0 => u32::MAX,
        1 => {
            let (l0, n) = (rng.below(32) as u32, rng.below(32) as u32 + 1);
            (((1u64 << n) - 1) << l0) as u32
        }
        2 => rng.next() as u32,
        _ => u32::MAX >> rng.below(32),
    };
    let mut addrs = host;
    if space == Space::Shared {
        addrs.iter_mut().for_each(|a| *a -= SHARED_BASE);
    }
    let shape = AccessShape {
        space,
        len,
        write,
        inst,
    };
    (shape, addrs, host, mask, rng.below(24) == 0)
}

/// Runs `steps` random events on both sanitizers; returns how many findings were seen
/// and how many accesses were clean runs (taken by the range path unless not in one
/// place).
fn differential(opts: SanitizeOptions, seed: u64, steps: usize) -> (usize, usize) {
    let (ranged, lanes) = (sanitizer(opts), sanitizer(opts));
    let mut rng = Rng(seed);
    let tid = {
        let mut t = [[0u32; 32]; 3];
        for (l, x) in t[0].iter_mut().enumerate() {
            *x = l as u32;
        }
        t
    };
    let local_base = [0u64; 32];
    let mut ctaid = [0u32; 3];
    let (mut seen, mut runs) = (0, 0);
    for s in [&ranged, &lanes] {
        s.cta_start([32 * WARPS, 1, 1], WARPS as usize, LOCAL_ROOT);
    }
    for step in 0..steps {
        let warpid = rng.below(WARPS as u64) as u32;
        let view = WarpView {
            ctaid,
            rank: 0,
            warpid,
            tid: &tid,
            shared_base: SHARED_BASE,
            shared_size: SHARED_SIZE,
            local_base: &local_base,
            local_size: LOCAL_SIZE,
        };
        let mut run = false;
        let both = |f: &dyn Fn(&Sanitizer)| [&ranged, &lanes].into_iter().for_each(f);
        match rng.below(40) {
            0 | 1 => both(&|s| s.barrier_completed(ctaid)),
            2 => {
                let members = [u32::MAX; 32];
                let r = [&ranged, &lanes]
                    .map(|s| s.warp_sync(&view, InstId(1 << 20), u32::MAX, &members, true));
                assert_eq!(r[0], r[1]);
            }
            3 => {
                ctaid[0] += 1;
                both(&|s| s.cta_start([32 * WARPS, 1, 1], WARPS as usize, LOCAL_ROOT));
            }
            4 => {
                let (a, n) = (GLOBAL + rng.below(GLOBAL_SIZE), rng.below(64));
                both(&|s| s.init.lock().unwrap().mark(a, n));
            }
            _ => {
                // Each access its own instruction: no finding is hidden as a duplicate.
                let (req, addrs, host, mask, atomic) = access(&mut rng, InstId(step as u32));
                let a = ranged.accesses(&view, &req, &addrs, &host, mask, atomic);
                let b = lanes.accesses_with(&view, &req, &addrs, &host, mask, atomic, false);
                assert_eq!(a, b, "step {step}: stopping lane of {req:?} mask {mask:#x}");
                run = a.is_none() && !atomic && Run::of(mask, &host, req.len).is_some();
            }
        }
        let (fa, fb): (Vec<RawFinding>, Vec<RawFinding>) =
            (ranged.take_findings(), lanes.take_findings());
        assert_eq!(fa, fb, "step {step}: findings");
        seen += fa.len();
        runs += (run && fa.is_empty()) as usize;
    }
    (seen, runs)
}

#[test]
fn range_path_reports_what_the_lane_path_reports() {
    let modes = [
        "initcheck",
        "racecheck",
        "initcheck,racecheck",
        "initcheck,racecheck,report-only",
    ];
    for (k, m) in modes.iter().enumerate() {
        let opts = SanitizeOptions::parse(m).unwrap();
        let (mut found, mut runs) = (0, 0);
        for seed in 1..=6u64 {
            let (f, r) = differential(opts, seed * 7919 + k as u64, 1500);
            (found, runs) = (found + f, runs + r);
        }
        // The random accesses find things, and many are clean runs (the comparison is
        // not vacuous on either side).
        assert!(found > 10, "{m}: only {found} findings");
        assert!(runs > 100, "{m}: only {runs} clean runs");
    }
}
