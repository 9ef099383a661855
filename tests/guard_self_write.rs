//! Guarded instructions that also write their guard predicate
//! (`@%p2 setp.lt.xor.s32 %p2|%p3, a, b, %p3`, `tests/ptx/guard_self_write.ptx`): both
//! destinations are written where the guard held BEFORE the instruction. The JIT's
//! scalar writes (uniform registers, and the lane-by-lane form of loops with a divergent
//! `brx.idx`) read the guard again for the second destination, after the first had
//! changed it (found by the `differential` fuzzer, fz18's seeds 307790, 309697, 400426,
//! 400943). Both backends and both JIT tiers against the Rust model below.
#[allow(unused_macros)]
mod common;
use common::*;

const PTX: &str = "tests/ptx/guard_self_write.ptx";

/// `@p2 setp.lt.xor.s32 p2|p3, a, b, p3` on one thread's predicates (the second
/// destination gets the complement of the comparison, combined the same way).
fn setp_lt_xor(p2: bool, p3: bool, a: i32, b: i32) -> (bool, bool) {
    let lt = a < b;
    match p2 {
        true => (lt ^ p3, !lt ^ p3),
        false => (p2, p3),
    }
}

/// Kernel `serial`'s output for thread `t` (see the PTX).
fn serial_reference(t: u32) -> u32 {
    let (mut p2, mut p3) = (t % 32 < 16, t & 2 != 0);
    let (r3, mut fuel, mut acc) = ((t & 7) as i32, (t & 3) + 3, 0u32);
    loop {
        fuel -= 1;
        if fuel == 0 {
            break;
        }
        (p2, p3) = setp_lt_xor(p2, p3, r3, fuel as i32);
        if (t + fuel) & 1 == 1 {
            acc += 1;
        }
    }
    u32::from(p2) | u32::from(p3) << 1 | acc << 2
}

#[test]
fn a_guard_written_by_its_own_instruction_is_tested_as_it_was() {
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, PTX, backend);
            let out = zeroed(&dev, 64 * 4);
            let c = cfg([1, 1, 1], [64, 1, 1], backend);
            for (a, g, cv) in [(1i32, 0u32, 0u32), (1, 1, 0), (1, 1, 1), (5, 0, 1)]
                .into_iter()
                .chain([(5, 1, 0), (5, 1, 1), (-7, 1, 0), (3, 1, 1)])
            {
                let args = [
                    arg(&out),
                    ptxjit::KernelArg::U32(a as u32),
                    ptxjit::KernelArg::U32(3),
                    ptxjit::KernelArg::U32(g),
                    ptxjit::KernelArg::U32(cv),
                ];
                launch(&dev, &m, "uniform", &c, &args, "uniform");
                let (p2, p3) = setp_lt_xor(g != 0, cv != 0, a, 3);
                let want = vec![u32::from(p2) | u32::from(p3) << 1; 64];
                assert_slice_eq(
                    &dev.read::<u32>(&out).unwrap(),
                    &want,
                    &format!("{backend:?} {tier:?} uniform a={a} g={g} c={cv}"),
                );
            }
            launch(&dev, &m, "serial", &c, &[arg(&out)], "serial");
            let want: Vec<u32> = (0..64).map(serial_reference).collect();
            assert_slice_eq(
                &dev.read::<u32>(&out).unwrap(),
                &want,
                &format!("{backend:?} {tier:?} serial"),
            );
        }
    }
}
