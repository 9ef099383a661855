//! `setp` of a run of 32 consecutive values against a uniform value
//! (`jit::lower::affine::affine_cmp_bits`: the JIT computes such a compare's lane bits
//! from the run's base and the uniform value, and branches and guards in the block use
//! them): every integer compare, signed and unsigned, 32 and 64 bits, the uniform
//! operand first or second, a negated guard and a second destination, `%laneid`, and a
//! branch. The runs start next to the ends of the signed and unsigned ranges (the last
//! lane at `u32::MAX`, at `i32::MAX`, the first at `i32::MIN`), and `n` falls below,
//! inside and above them. Blocks of 64 threads (whole rows: the JIT's scalar form) and
//! 50 (the vector form). Kernel: `tests/ptx/affine_setp.ptx` (ptxas-validated). The
//! oracle is the PTX ISA's compare, evaluated here per thread with Rust's integer
//! comparisons; both backends run every case, the interpreter with the shape checker.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

/// The expected word of thread `t` (see the kernel's comment for the bits).
fn expected(t: u32, base: u32, n: u32, base64: u64, n64: u64) -> u32 {
    let x = (base << 5).wrapping_add(t);
    let (xs, ns) = (x as i32, n as i32);
    let x64 = (base64 << 5).wrapping_add(u64::from(t));
    let (x64s, n64s) = (x64 as i64, n64 as i64);
    let lane = t % 32;
    let bits = [
        x < n,
        x <= n,
        x > n,
        x >= n,
        x == n,
        x != n,
        xs < ns,
        xs <= ns,
        xs > ns,
        xs >= ns,
        x == n,
        x != n,
        n < x,
        ns >= xs,
        n <= x,
        ns > xs,
        x >= n, // `@!%p1` after `setp.lt`
        x >= n, // `%p2`, the complement of `x < n`
        lane <= n,
        x64 < n64,
        x64s >= n64s,
        x64 == n64,
        x64s > n64s,
    ];
    let mut w = 0u32;
    for (k, &b) in bits.iter().enumerate() {
        w |= u32::from(b) << k;
    }
    w | u32::from(x < n) << 30
}

#[test]
fn setp_of_a_run_of_32_values_matches_the_isa() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/affine_setp.ptx"), "affine_setp.ptx")
        .unwrap();
    // Bases of the 32-bit run (times 32): 0, 32, the last warp ending at i32::MAX,
    // starting at i32::MIN, ending at u32::MAX.
    let bases = [0u32, 1, 0x03FF_FFFE, 0x03FF_FFFF, 0x0400_0000, 0x07FF_FFFF];
    let bases64 = [
        0u64,
        0x03FF_FFFF_FFFF_FFFF,
        0x0400_0000_0000_0000,
        u64::MAX >> 5,
    ];
    for (i, &base) in bases.iter().enumerate() {
        let b = base << 5;
        let ns = [
            0,
            5,
            b,
            b.wrapping_add(3),
            b.wrapping_add(31),
            b.wrapping_add(32),
            b.wrapping_add(40),
            b.wrapping_sub(1),
            0x7FFF_FFFF,
            0x8000_0000,
            u32::MAX,
        ];
        for (j, &n) in ns.iter().enumerate() {
            let base64 = bases64[(i + j) % bases64.len()];
            let b64 = base64 << 5;
            let n64 = match j % 4 {
                0 => b64.wrapping_add(7),
                1 => b64.wrapping_sub(1),
                2 => b64.wrapping_add(40),
                _ => u64::from(n),
            };
            for nt in [64u32, 50] {
                let want: Vec<u32> = (0..nt).map(|t| expected(t, base, n, base64, n64)).collect();
                for bk in [Backend::Jit, Backend::Interp] {
                    let out = dev.alloc_zeroed(4 * nt as usize).unwrap();
                    let cfg = LaunchConfig::new(1, nt)
                        .backend(bk)
                        .check_shapes(bk == Backend::Interp);
                    let args = [
                        KernelArg::from(&out),
                        KernelArg::U32(base),
                        KernelArg::U32(n),
                        KernelArg::U64(base64),
                        KernelArg::U64(n64),
                    ];
                    dev.launch(&m, "cmp_run", &cfg, &args)
                        .unwrap_or_else(|e| panic!("{bk:?}: {e}"));
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    assert_eq!(
                        got, want,
                        "{bk:?} base {base:#x} n {n:#x} base64 {base64:#x} n64 {n64:#x} block {nt}"
                    );
                }
            }
        }
    }
}
