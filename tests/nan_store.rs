//! Coalesced stores of a register whose NaNs are made canonical where it is read
//! (`ir::analysis::nan::nan_lazy`): the JIT tests the stored warp value for a NaN once
//! and fixes NaN lanes in a cold block (`jit::lower::nan_store`). `tests/ptx/nan_store.ptx`
//! (ptxas-validated for sm_70): out[i] = fma(a, x[i], y[i]), f32 and f64, with warps
//! without NaN, with one NaN lane (a NaN operand with a payload and its sign, and an
//! invalid `inf - inf`), with every other lane NaN and partial last warps; against a
//! Rust reference of the GPU rule (an f32/f64 arithmetic NaN result is `0x7fffffff` /
//! `0x7fffffffffffffff`), on both backends and both JIT tiers; faults of the store
//! (outside every allocation, misaligned, leaving its buffer mid-grid) reported as the
//! interpreter reports them.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const PTX: &str = "tests/ptx/nan_store.ptx";
/// Far past every allocation of a fresh device.
const BAD: u64 = 1 << 46;
/// What `out` holds before a launch (elements past `n` must keep it).
const FILL: u64 = 0x5a5a_5a5a_5a5a_5a5a;

/// Every (backend, tier) pair.
fn runs() -> Vec<(Backend, JitTier)> {
    [Backend::Interp, Backend::Jit]
        .iter()
        .flat_map(|&b| tiers(b).iter().map(move |&t| (b, t)))
        .collect()
}

/// Inputs x and y (as f64) for `n` elements: warp 0 without NaN, warp 1 with a NaN x
/// (payload, sign set) in lane 3, warp 2 with `inf * a + -inf` in lane 30, warp 3 with
/// a NaN y in every other lane, later warps alternating between those patterns.
fn inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let (xs, ys) = (sixty_fourths(n, 5), sixty_fourths(n, 6));
    let mut x: Vec<f64> = xs.iter().map(|&v| v as f64).collect();
    let mut y: Vec<f64> = ys.iter().map(|&v| v as f64).collect();
    for i in 0..n {
        let (w, l) = (i / 32 % 4, i % 32);
        match (w, l) {
            (1, 3) => x[i] = -f64::NAN,
            (2, 30) => {
                x[i] = f64::INFINITY;
                y[i] = f64::NEG_INFINITY;
            }
            (3, l) if l % 2 == 1 => y[i] = f64::NAN,
            _ => {}
        }
    }
    (x, y)
}

/// A NaN with a payload and its sign kept (the host's fma quiets and keeps it).
fn payload_f32(v: f64) -> f32 {
    if v.is_nan() {
        f32::from_bits(0xffa1_2345)
    } else {
        v as f32
    }
}

fn payload_f64(v: f64) -> f64 {
    if v.is_nan() {
        f64::from_bits(0xfff4_0000_0000_1234)
    } else {
        v
    }
}

/// Buffers x, y (`n` elements, `inputs` with NaN payloads) and `out` (`out_len`
/// elements of `FILL`) of the f32 (`wide` false) or f64 kernel.
fn bufs(dev: &Device, wide: bool, n: usize, out_len: usize) -> [Buffer; 3] {
    let (x, y) = inputs(n);
    let r = if wide {
        let px: Vec<f64> = x.iter().map(|&v| payload_f64(v)).collect();
        let py: Vec<f64> = y.iter().map(|&v| payload_f64(v)).collect();
        let fill = vec![f64::from_bits(FILL); out_len];
        [
            dev.alloc_from(&px),
            dev.alloc_from(&py),
            dev.alloc_from(&fill),
        ]
    } else {
        let px: Vec<f32> = x.iter().map(|&v| payload_f32(v)).collect();
        let py: Vec<f32> = y.iter().map(|&v| payload_f32(v)).collect();
        let fill = vec![f32::from_bits(FILL as u32); out_len];
        [
            dev.alloc_from(&px),
            dev.alloc_from(&py),
            dev.alloc_from(&fill),
        ]
    };
    r.map(|b| b.unwrap())
}

/// Runs `axpy_out_<f32|f64>` over `n` elements with buffers `b` (see [`bufs`]), `out`
/// at `out_at` bytes past its buffer's start (`BAD`: that address itself); `out`'s bits
/// or the error.
fn run(
    dev: &Device,
    backend: Backend,
    wide: bool,
    n: usize,
    b: &[Buffer; 3],
    out_at: u64,
) -> Result<Vec<u64>, String> {
    let m = module_at(dev, PTX, backend);
    let lc = cfg(
        [(n as u32).div_ceil(128).max(1), 1, 1],
        [128, 1, 1],
        backend,
    );
    let (kernel, a) = if wide {
        ("axpy_out_f64", KernelArg::F64(1.5))
    } else {
        ("axpy_out_f32", KernelArg::F32(1.5))
    };
    let out = if out_at == BAD {
        KernelArg::Ptr(BAD)
    } else {
        KernelArg::Ptr(b[2].ptr() + out_at)
    };
    let args = [KernelArg::U32(n as u32), a, arg(&b[0]), arg(&b[1]), out];
    dev.launch(&m, kernel, &lc, &args)
        .map_err(|e| e.to_string())?;
    Ok(if wide {
        let v = dev.read::<f64>(&b[2]).unwrap();
        v.iter().map(|x| x.to_bits()).collect()
    } else {
        let v = dev.read::<f32>(&b[2]).unwrap();
        v.iter().map(|x| x.to_bits() as u64).collect()
    })
}

/// The GPU's results: fma, a NaN result as the canonical NaN; `FILL` past `n`.
fn want(wide: bool, n: usize, len: usize) -> Vec<u64> {
    let (x, y) = inputs(n);
    (0..len)
        .map(|i| match (i < n, wide) {
            (false, true) => FILL,
            (false, false) => FILL & 0xffff_ffff,
            (true, true) => {
                let r = 1.5f64.mul_add(payload_f64(x[i]), payload_f64(y[i]));
                if r.is_nan() {
                    0x7fff_ffff_ffff_ffff
                } else {
                    r.to_bits()
                }
            }
            (true, false) => {
                let r = 1.5f32.mul_add(payload_f32(x[i]), payload_f32(y[i]));
                if r.is_nan() {
                    0x7fff_ffff
                } else {
                    r.to_bits() as u64
                }
            }
        })
        .collect()
}

#[test]
fn stored_nans_are_canonical() {
    for wide in [false, true] {
        for n in [1usize, 31, 32, 64, 128, 256, 512 + 7, 1000] {
            let len = n + 40;
            let w = want(wide, n, len);
            if n >= 128 {
                // The inputs reach every pattern: a NaN result in warps 1, 2 and 3.
                let canon = if wide {
                    0x7fff_ffff_ffff_ffff
                } else {
                    0x7fff_ffff
                };
                for i in [32 + 3, 64 + 30, 96 + 1] {
                    assert_eq!(w[i], canon, "reference at {i}");
                }
            }
            for (backend, tier) in runs() {
                let what = format!("{backend:?} {tier:?} wide {wide} n {n}");
                let dev = device_one_worker(tier);
                let mut got = Err(String::new());
                let b = bufs(&dev, wide, n, len);
                let calls = access_calls(|| got = run(&dev, backend, wide, n, &b, 0));
                let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_slice_eq(&got, &w, &what);
                if backend == Backend::Jit && tier == JitTier::Optimized && n % 32 == 0 {
                    // Whole warps: every store (NaN or not) on the vector path.
                    assert_eq!(calls, 0, "{what}: checked accesses");
                }
            }
        }
    }
}

#[test]
fn store_faults_match_the_interpreter() {
    // Outside every allocation; misaligned by 2 bytes; `out` of 100 elements for 300
    // (the store leaves its buffer in the fourth warp, a NaN warp).
    let cases = [(1000usize, 1000usize, BAD), (1000, 1000, 2), (300, 100, 0)];
    for wide in [false, true] {
        let op = if wide {
            "st.global.f64"
        } else {
            "st.global.f32"
        };
        for &(n, len, at) in &cases {
            for &tier in tiers(Backend::Jit) {
                let what = format!("wide {wide} n {n} len {len} at {at:#x} {tier:?}");
                // The fault's address depends on where `out` lies: both backends on one
                // device and the same buffers.
                let dev = device_one_worker(tier);
                let b = bufs(&dev, wide, n, len);
                let interp = run(&dev, Backend::Interp, wide, n, &b, at)
                    .expect_err(&format!("{what}: the interpreter ran"));
                assert!(interp.contains(op), "{what}: {interp}");
                let jit = run(&dev, Backend::Jit, wide, n, &b, at)
                    .expect_err(&format!("{what}: the JIT ran"));
                assert_eq!(jit, interp, "{what}");
            }
        }
    }
}
