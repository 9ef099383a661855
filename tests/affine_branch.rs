//! Branches on `setp` of an affine register against a uniform value (the JIT takes the
//! lane bits from the scalars, `jit::lower::affine::affine_cmp_bits`, when the affine
//! operand is a run of 32 consecutive values whose base is a multiple of 32, and keeps
//! the vector compare otherwise). Kernel
//! `tests/ptx/affine_branch.ptx` (ptxas-validated): `a = %tid.x + x` against a uniform
//! register `y` and against immediates (37 unsigned, -3 signed), `lt le gt ge eq ne` in
//! `u32` and `s32`, each a divergent `@p bra`; bases at and around the no-wrap limits
//! (`0xFFFF_FFE0`, `0x7FFF_FFE0` and one above each, where the lanes wrap in the
//! compare's order), bases that are not multiples of 32 (vector compare) and the comparands around them.
//! Expected values: Rust's `u32`/`i32` comparisons of `t.wrapping_add(x)`; both backends,
//! blocks of 64 (whole warps: `%tid.x` affine), 96 and 50 (a partial warp), the
//! interpreter with the shape checker on.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const CASES: usize = 24;

/// Whether case `k` holds for `a` against `y`.
fn holds(k: usize, a: u32, y: u32) -> bool {
    let (u, s) = if k < 12 { (y, y as i32) } else { (37, -3) };
    let ord = if k % 12 < 6 {
        a.cmp(&u)
    } else {
        (a as i32).cmp(&s)
    };
    use std::cmp::Ordering::*;
    match k % 6 {
        0 => ord == Less,
        1 => ord != Greater,
        2 => ord == Greater,
        3 => ord != Less,
        4 => ord == Equal,
        _ => ord != Equal,
    }
}

#[test]
fn affine_compares_branch_like_the_lanes() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/affine_branch.ptx"), "affine_branch.ptx")
        .unwrap_or_else(|e| panic!("load: {e}"));
    let xs = [
        0u32,
        5,
        0xFFFF_FFE0,
        0xFFFF_FFE1,
        0xFFFF_FFF0,
        0x7FFF_FFE0,
        0x7FFF_FFE1,
        0x7FFF_FFF0,
        0x8000_0000,
        0xFFFF_FFC0,
    ];
    for nt in [64u32, 96, 50] {
        for &x in &xs {
            let ys = [
                0u32,
                7,
                31,
                40,
                x.wrapping_add(3),
                x,
                x.wrapping_sub(1),
                x.wrapping_add(33),
                x.wrapping_add(63),
                u32::MAX,
                0x7FFF_FFFF,
                0x8000_0000,
            ];
            for &y in &ys {
                let want: Vec<u32> = (0..CASES)
                    .flat_map(|k| {
                        (0..nt).map(move |t| match holds(k, t.wrapping_add(x), y) {
                            true => 1,
                            false => 2,
                        })
                    })
                    .collect();
                for b in [Backend::Jit, Backend::Interp] {
                    let out = dev.alloc_zeroed(want.len() * 4).unwrap();
                    let cfg = LaunchConfig::new(1, nt)
                        .backend(b)
                        .check_shapes(b == Backend::Interp);
                    let args: [KernelArg; 3] = [(&out).into(), x.into(), y.into()];
                    dev.launch(&m, "affine_branch", &cfg, &args)
                        .unwrap_or_else(|e| panic!("{b:?} {nt} {x:#x} {y:#x}: {e}"));
                    let got = dev.read::<u32>(&out).unwrap();
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(
                            g,
                            w,
                            "{b:?} ntid {nt} x {x:#x} y {y:#x}: case {} thread {}",
                            i / nt as usize,
                            i % nt as usize
                        );
                    }
                }
            }
        }
    }
}
