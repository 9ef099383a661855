//! Loads whose addresses are per-half affine 32- or 16-bit indices widened to 64 bits
//! (`tests/ptx/halves_wrap.ptx`): the per-half shape analysis of launches whose
//! `%ntid.x` is 16 calls them 4-byte affine only where a half's first and last lanes
//! are 15 words apart (`Fact::guarded`), which the optimized tier tests before
//! `mem_halves::halves_known`'s loads. With 16-bit indices that wrap at every lane of a
//! half (sign extension at 2^15, zero extension at 2^16, inside the buffer), the JIT's
//! values must be the interpreter's, which checks every shape claim
//! (`check_shapes`); a 32-bit index that wraps at 2^31 inside a half must fault at the
//! same lane on both backends. Both JIT tiers.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/halves_wrap.ptx";

/// Word `i` of the input buffer.
fn word(i: u64) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761).rotate_left(7) ^ 0x5bd1_e995
}

/// `out[t]` of the kernel (see the PTX's comment), where the 32-bit index does not
/// wrap and `wbase + 4 woff` is the buffer.
fn want(t: u32, off: u32) -> u32 {
    let v = (4 * t).wrapping_add(off) & 0xffff;
    let s = (0x10000 + i64::from(v as u16 as i16)) as u64;
    let a = word(s / 4);
    let b = word(u64::from(v) / 4);
    let c = word(u64::from(t));
    a.wrapping_add(b.wrapping_mul(3))
        .wrapping_add(c.wrapping_mul(5))
}

#[test]
fn widened_indices_that_wrap_inside_a_half() {
    for tier in [ptxjit::jit::JitTier::Quick, ptxjit::jit::JitTier::Optimized] {
        wrap_on(tier);
    }
}

fn wrap_on(tier: ptxjit::jit::JitTier) {
    let dev = device_tier(tier);
    let input: Vec<u32> = (0..1u64 << 15).map(word).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let base = inb.ptr();
    // Where 4t + off crosses 2^15 (sign extension) or 2^16 (zero extension): at lanes
    // 1, 5, 15 (inside half 0), 16 (at the halves' boundary: each half affine), 17,
    // 31 (inside half 1) and in later warps; none for 0 and 0x100.
    let offs: Vec<u32> = [0u32, 0x100]
        .into_iter()
        .chain(
            [1u32, 5, 15, 16, 17, 31, 40, 100]
                .iter()
                .flat_map(|&k| [0x8000 - 4 * k, 0x1_0000 - 4 * k, 0x1_8000 - 4 * k]),
        )
        .collect();
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, FILE, backend);
        let out = zeroed(&dev, 128 * 4);
        for block in [[16, 8, 1], [32, 4, 1], [128, 1, 1], [8, 16, 1]] {
            let c = cfg([1, 1, 1], block, backend).check_shapes(backend == Backend::Interp);
            for &off in &offs {
                let args = [
                    arg(&inb),
                    arg(&out),
                    KernelArg::U32(off),
                    KernelArg::U64(base),
                    KernelArg::U32(0),
                ];
                launch(&dev, &m, "halves_wrap", &c, &args, "halves_wrap");
                let want: Vec<u32> = (0..128).map(|t| want(t, off)).collect();
                assert_slice_eq(
                    &dev.read::<u32>(&out).unwrap(),
                    &want,
                    &format!("{tier:?} {backend:?} block {block:?} off {off:#x}"),
                );
            }
        }
        // w = t + woff passes 2^31 - 1 at lane 21 (half 1 of warp 0) or 3 (half 0):
        // the lanes before it read the buffer, those after it 16 GiB below it.
        let c = cfg([1, 1, 1], [16, 8, 1], backend).check_shapes(backend == Backend::Interp);
        for k in [21u32, 3] {
            let woff = 0x7fff_ffff - (k - 1);
            let wbase = base.wrapping_sub(4 * u64::from(woff));
            let args = [
                arg(&inb),
                arg(&out),
                KernelArg::U32(0),
                KernelArg::U64(wbase),
                KernelArg::U32(woff),
            ];
            let err = dev
                .launch(&m, "halves_wrap", &c, &args)
                .expect_err("a wrapped index faults");
            let msg = err.to_string();
            assert!(msg.contains("ld.global.u32"), "{tier:?} {backend:?}: {msg}");
            msgs.push(msg);
        }
    }
    let n = msgs.len() / 2;
    assert_eq!(
        msgs[..n],
        msgs[n..],
        "JIT and interpreter report the same faults"
    );
}
