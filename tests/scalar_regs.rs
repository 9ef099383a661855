//! Registers the JIT keeps as scalars (`jit::translate::scalar`) and registers that only
//! look uniform: a value written in divergent code and read after the join, loop
//! counters (uniform and with a divergent exit), a register redefined with a varying
//! value (guarded and unguarded), uniform values computed after lane 0 exited (the
//! vector path keeps an active lane's value), and uniform values feeding varying ones.
//! Kernels: `tests/ptx/scalar_regs.ptx` (ptxas-validated). Expected values are computed
//! here from the formulas in the kernels' comments (Rust integer and `f32` arithmetic);
//! both backends run every case, the interpreter with the shape checker on.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const N: u32 = 64;

fn run(dev: &Device, kernel: &str, words: usize, args: &[KernelArg], b: Backend) -> Vec<u32> {
    let m = dev
        .load_ptx(include_str!("ptx/scalar_regs.ptx"), "scalar_regs.ptx")
        .unwrap_or_else(|e| panic!("load: {e}"));
    let out = dev.alloc_zeroed(words * 4).unwrap();
    let mut all: Vec<KernelArg> = vec![(&out).into()];
    all.extend_from_slice(args);
    let cfg = LaunchConfig::new(1, N)
        .backend(b)
        .check_shapes(b == Backend::Interp);
    dev.launch(&m, kernel, &cfg, &all)
        .unwrap_or_else(|e| panic!("{kernel} {b:?}: {e}"));
    dev.read(&out).unwrap()
}

const BACKENDS: [Backend; 2] = [Backend::Jit, Backend::Interp];

#[test]
fn value_written_in_divergent_code_is_read_after_the_join() {
    let dev = Device::new().unwrap();
    for k in [0u32, 9] {
        let want: Vec<u32> = (0..N).map(|t| if t < 16 { 7 } else { 100 + k }).collect();
        for b in BACKENDS {
            assert_eq!(
                run(&dev, "div_def_join", N as usize, &[k.into()], b),
                want,
                "{b:?} k={k}"
            );
        }
    }
}

#[test]
fn uniform_loop_counter_and_loop_with_divergent_exit() {
    let dev = Device::new().unwrap();
    for n in [0u32, 1, 5] {
        let want: Vec<u32> = (0..N)
            .map(|t| t + n * n.saturating_sub(1) / 2 + n.min(t % 4))
            .collect();
        for b in BACKENDS {
            assert_eq!(
                run(&dev, "loops", N as usize, &[n.into()], b),
                want,
                "{b:?} n={n}"
            );
        }
    }
}

#[test]
fn uniform_register_redefined_with_varying_values() {
    let dev = Device::new().unwrap();
    let a = 1000u32;
    let mut want = Vec::new();
    for t in 0..N {
        want.push(if t & 1 != 0 { t } else { a });
        want.push(a + t + 3 * t);
    }
    for b in BACKENDS {
        assert_eq!(
            run(&dev, "redef", 2 * N as usize, &[a.into()], b),
            want,
            "{b:?}"
        );
    }
}

/// The 16 words `ops` stores for thread `t` (block of `N` threads, `%ctaid.x` = 0).
fn ops_want(t: u32, a: u32, s: u32, f: f32) -> [u32; 16] {
    let w0 = a.wrapping_mul(N).wrapping_sub(5);
    let shl = |x: u32| if s >= 32 { 0 } else { x << s };
    let p2 = (a as i32) > (s as i32);
    let p3 = s != 0 && p2;
    let rd4 = a as i32 as i64;
    let rd5 = (a as i32 as i64).wrapping_mul(12).wrapping_add(rd4);
    [
        w0,
        shl(a),
        ((a as i32) >> s.min(31)) as u32,
        if s >= 32 { 0 } else { a >> s },
        (!(a ^ s) | 0x10) & 0xff0f,
        (a as i32).min(s as i32) as u32,
        (((a as i32 as i64) * 0x12345) >> 32) as u32,
        if p3 { 11 } else { 22 },
        if p2 { 33 } else { 44 },
        rd4 as u32,
        (rd4 >> 32) as u32,
        a as u16 as i16 as i32 as u32,
        rd5 as u32,
        ((a as f32) + f).to_bits(),
        w0.wrapping_add(t),
        shl(t),
    ]
}

#[test]
fn uniform_values_in_every_family_after_lanes_exited() {
    let dev = Device::new().unwrap();
    let cases: [(u32, u32, u32, f32); 4] = [
        (0, 5, 3, 1.5),
        (8, 0x8000_0123, 31, -2.25),
        (13, 0xffff_fff0, 40, 1e10),
        (31, 77, 0, 0.1),
    ];
    for (e, a, s, f) in cases {
        let mut want = vec![0u32; 16 * N as usize];
        for t in e..N {
            want[16 * t as usize..16 * (t as usize + 1)].copy_from_slice(&ops_want(t, a, s, f));
        }
        for b in BACKENDS {
            let got = run(
                &dev,
                "ops",
                16 * N as usize,
                &[e.into(), a.into(), s.into(), f.into()],
                b,
            );
            for t in 0..N as usize {
                assert_eq!(
                    got[16 * t..16 * t + 16],
                    want[16 * t..16 * t + 16],
                    "{b:?} e={e} a={a:#x} s={s} thread {t}"
                );
            }
        }
    }
}

/// `if (tid >= k) return;` then a uniform loop (its counter and sum are scalars while
/// the returned lanes wait), and the same loop while the other lanes wait at a block
/// that reads the sum (it keeps a value per lane). S = 0 + 1 + ... + (n - 1).
#[test]
fn uniform_loop_after_early_return() {
    let dev = Device::new().unwrap();
    for (k, n) in [(0u32, 3u32), (5, 0), (20, 7), (N, 4), (33, 1)] {
        let s = n * n.saturating_sub(1) / 2;
        let ret: Vec<u32> = (0..N).map(|t| if t < k { t + 4 * s } else { 0 }).collect();
        let live: Vec<u32> = (0..N)
            .map(|t| if t < k { t + 4 * s + 5 } else { 5 })
            .collect();
        for b in BACKENDS {
            let args = [k.into(), n.into()];
            let got = run(&dev, "early_ret_loop", N as usize, &args, b);
            assert_eq!(got, ret, "early_ret_loop {b:?} k={k} n={n}");
            let got = run(&dev, "early_ret_live", N as usize, &args, b);
            assert_eq!(got, live, "early_ret_live {b:?} k={k} n={n}");
        }
    }
}
