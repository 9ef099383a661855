//! Registers the JIT keeps as their affine base (`jit::translate::affine`): values
//! `base + lane × stride` from `%laneid` with 32-bit wrap-around (4l − 64), products,
//! negations, selects and guarded updates of them, compares with a uniform value,
//! widenings the shape analysis must call varying (they wrap in some lanes only), values
//! used both as affine and as varying ones, affine addresses (contiguous loads and
//! stores with 4- and 8-byte strides), a loop-carried affine index, and an affine-looking
//! value defined in divergent code. Blocks of 64, 50 (not a multiple of 32: the last
//! warp is partial), 96, 33 and 34 threads (a last warp of one lane and of two: the
//! load through an affine address with one lane, or two distinct lanes, active). Kernels: `tests/ptx/affine_regs.ptx`
//! (ptxas-validated). Expected values come from the formulas in the kernel's comments,
//! computed here with Rust's wrapping integer arithmetic; both backends run every case,
//! the interpreter with the shape checker on.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const BACKENDS: [Backend; 2] = [Backend::Jit, Backend::Interp];

fn launch(dev: &Device, kernel: &str, threads: u32, args: &[KernelArg], b: Backend) {
    let m = dev
        .load_ptx(include_str!("ptx/affine_regs.ptx"), "affine_regs.ptx")
        .unwrap_or_else(|e| panic!("load: {e}"));
    let cfg = LaunchConfig::new(1, threads)
        .backend(b)
        .check_shapes(b == Backend::Interp);
    dev.launch(&m, kernel, &cfg, args)
        .unwrap_or_else(|e| panic!("{kernel} {b:?}: {e}"));
}

/// The ten u32 values and the u64 value of thread `t` (lane `t % 32`) for `n`.
fn values(t: u32, n: u32) -> ([u32; 10], u64) {
    let l = t % 32;
    let v0 = (4 * l).wrapping_sub(64);
    let v = [
        v0,
        v0.wrapping_mul(3),
        !l,
        n.wrapping_sub(l),
        if n != 0 { v0 } else { 4 * l },
        l + if n != 0 { 7 } else { 0 },
        u32::from(v0 < n),
        (t * t).wrapping_add(v0),
        ((u64::from(v0) + 64) >> 32) as u32,
        n.wrapping_sub(3 * l),
    ];
    let w = (u64::from(l) * 4097)
        .wrapping_add(u64::from(n) << 32)
        .wrapping_sub(5);
    (v, w)
}

#[test]
fn affine_values_wrap_and_mix_with_varying_ones() {
    let dev = Device::new().unwrap();
    for nt in [64u32, 50, 96, 33, 34] {
        for n in [0u32, 5, 0xFFFF_FFF0] {
            let mut want_out = vec![0u32; 12 * nt as usize];
            let mut want_aux = vec![0u32; 32 * 4];
            for t in 0..nt {
                let (v, w) = values(t, n);
                for (k, x) in v.iter().enumerate() {
                    want_out[k * nt as usize + t as usize] = *x;
                }
                let i = 10 * nt as usize + 2 * t as usize;
                want_out[i] = w as u32;
                want_out[i + 1] = (w >> 32) as u32;
                let l = (t % 32) as usize;
                let a = v[1].wrapping_add(v[9]);
                want_aux[l] = a;
                want_aux[32 + 2 * l] = w as u32;
                want_aux[33 + 2 * l] = (w >> 32) as u32;
                want_aux[96 + l] = a.wrapping_add(1);
            }
            for b in BACKENDS {
                let out = dev.alloc_zeroed(want_out.len() * 4).unwrap();
                let aux = dev.alloc_zeroed(want_aux.len() * 4).unwrap();
                launch(
                    &dev,
                    "affine_ops",
                    nt,
                    &[(&out).into(), (&aux).into(), n.into()],
                    b,
                );
                let got: Vec<u32> = dev.read(&out).unwrap();
                assert_eq!(got, want_out, "{b:?} nt={nt} n={n:#x}");
                let got: Vec<u32> = dev.read(&aux).unwrap();
                assert_eq!(got, want_aux, "{b:?} nt={nt} n={n:#x} aux");
            }
        }
    }
}

#[test]
fn loop_carried_affine_index_and_divergent_definition() {
    let dev = Device::new().unwrap();
    for n in [0u32, 1, 3] {
        let len = 32 * n as usize + 32;
        let mut want = vec![0u32; len];
        for (j, w) in want.iter_mut().enumerate().take(32 * n as usize) {
            *w = j as u32 * 3 + n;
        }
        for l in 0..32u32 {
            want[32 * n as usize + l as usize] = if l % 2 == 1 { l + 100 } else { 2 * l };
        }
        for b in BACKENDS {
            let out = dev.alloc_zeroed(len * 4).unwrap();
            launch(&dev, "affine_loop", 32, &[(&out).into(), n.into()], b);
            let got: Vec<u32> = dev.read(&out).unwrap();
            assert_eq!(got, want, "{b:?} n={n}");
        }
    }
}

#[test]
fn tid_x_is_affine_only_in_launches_of_whole_rows_of_warps() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/affine_regs.ptx"), "affine_regs.ptx")
        .unwrap_or_else(|e| panic!("load: {e}"));
    // ntid.x a multiple of 32 (the JIT's code for such launches), then not.
    for (bx, by) in [(64u32, 1u32), (32, 2), (16, 4), (48, 1), (33, 3)] {
        for n in [3u32, 40] {
            let per = bx * by;
            let mut want = vec![0u32; 2 * per as usize];
            for c in 0..2 {
                for ty in 0..by {
                    for tx in 0..bx {
                        let g = c * per + ty * bx + tx;
                        want[g as usize] = (7 * g)
                            .wrapping_add(tx << 30)
                            .wrapping_add(n)
                            .wrapping_add(if tx < n { 1 } else { 2 });
                    }
                }
            }
            for b in BACKENDS {
                let out = dev.alloc_zeroed(want.len() * 4).unwrap();
                let cfg = LaunchConfig::new(2, (bx, by))
                    .backend(b)
                    .check_shapes(b == Backend::Interp);
                dev.launch(&m, "affine_tid", &cfg, &[(&out).into(), n.into()])
                    .unwrap_or_else(|e| panic!("{b:?}: {e}"));
                let got: Vec<u32> = dev.read(&out).unwrap();
                assert_eq!(got, want, "{b:?} block {bx}x{by} n={n}");
            }
        }
    }
}
