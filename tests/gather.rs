//! Loads that are neither coalesced nor helper calls in the JIT (`jit/lower/mem.rs`): every
//! active lane at one address (a broadcast, also `ld.v4` and under divergence) and
//! shared-memory rows narrower than a warp (lane-by-lane loads), on both backends
//! against values computed here, and the same loads with a bad address, which must
//! report the same fault on both backends (`tests/ptx/gather.ptx`).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const FILE: &str = "tests/ptx/gather.ptx";

/// On both JIT tiers: the quick tier takes the helper for these loads, the optimized
/// tier the inline paths.
const TIERS: [JitTier; 2] = [JitTier::Quick, JitTier::Optimized];

#[test]
fn broadcast_loads() {
    for tier in TIERS {
        broadcast_loads_on(tier);
    }
}

fn broadcast_loads_on(tier: JitTier) {
    let mut msgs = Vec::new();
    let input: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 + 1.0).collect();
    // One device, so that both backends fault at the same address.
    let dev = device_tier(tier);
    let small = dev.alloc_from(&input[..4]).unwrap();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, FILE, backend);
        let inb = dev.alloc_from(&input).unwrap();
        let out = zeroed(&dev, 32 * 4);
        let c = cfg([1, 1, 1], [32, 1, 1], backend);
        let args = [arg(&inb), arg(&out), ptxjit::KernelArg::U32(3)];
        launch(&dev, &m, "uniform_loads", &c, &args, "uniform_loads");
        let v4: f32 = input[12] + input[13] + input[14] + input[15];
        let want: Vec<f32> = (0..32)
            .map(|t| v4 + if t < 16 { input[1] } else { input[2] })
            .collect();
        assert_f32_bits(
            &dev.read::<f32>(&out).unwrap(),
            &want,
            &format!("{backend:?} {tier:?}"),
        );
        // A buffer of 4 floats and k = 2^20: far past the allocation, a fault.
        let args = [arg(&small), arg(&out), ptxjit::KernelArg::U32(1 << 20)];
        let err = dev
            .launch(&m, "uniform_loads", &c, &args)
            .expect_err("out of bounds");
        let msg = err.to_string();
        assert!(
            msg.contains("uniform_loads") && msg.contains("ld.global.v4.f32"),
            "{backend:?} {tier:?}: {msg}"
        );
        msgs.push(msg);
    }
    assert_eq!(
        msgs[0], msgs[1],
        "{tier:?}: JIT and interpreter report the same fault"
    );
}

#[test]
fn shared_rows_narrower_than_a_warp() {
    for tier in TIERS {
        shared_rows_on(tier);
    }
}

fn shared_rows_on(tier: JitTier) {
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = device_tier(tier);
        let m = module_at(&dev, FILE, backend);
        let out = zeroed(&dev, 128 * 4);
        let c = cfg([1, 1, 1], [128, 1, 1], backend);
        let args = [arg(&out), ptxjit::KernelArg::U32(0)];
        launch(&dev, &m, "shared_rows", &c, &args, "shared_rows");
        let want: Vec<u32> = (0..128u32).map(|t| ((t % 16) * 8 + t / 16) * 7).collect();
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &want,
            &format!("{backend:?} {tier:?}"),
        );
        // off = 8: thread 127 reads word 15*8+7+8 = 135, past the 128-word tile.
        let args = [arg(&out), ptxjit::KernelArg::U32(8)];
        let err = dev
            .launch(&m, "shared_rows", &c, &args)
            .expect_err("outside the shared window");
        let msg = err.to_string();
        assert!(msg.contains("ld.shared.u32"), "{backend:?} {tier:?}: {msg}");
        msgs.push(msg);
    }
    assert_eq!(
        msgs[0], msgs[1],
        "{tier:?}: JIT and interpreter report the same fault"
    );
}
