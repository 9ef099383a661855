//! Loop-free kernels with vectors live across the slow-path helper calls of later loads
//! (`ptxjit_region`, `ptxjit_access`): saxpy's `y` across the `x` load's region lookup;
//! `y` across an index load and a gathered load's checked access; partial last warps;
//! against Rust's `f32::mul_add`, and faults of either load (an address outside every
//! allocation) reported as the interpreter reports them. Both backends, both JIT tiers.
//! (Written for the `preserve_all` wrappers of these calls in loop-free kernels tried on
//! branch sx21, f8378d8..2d1aca0, and not kept: see the session report.)
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const SAXPY: &str = "examples/saxpy.ptx";
const GATHER: &str = "tests/ptx/cold_straight.ptx";
/// Far past every allocation of a fresh device.
const BAD: u64 = 1 << 46;

/// Every (backend, tier) pair.
fn runs() -> Vec<(Backend, JitTier)> {
    [Backend::Interp, Backend::Jit]
        .iter()
        .flat_map(|&b| tiers(b).iter().map(move |&t| (b, t)))
        .collect()
}

/// saxpy over `n` elements, `y` and `x` given by address (`None`: a buffer of `n`
/// values); the result or the error message.
fn saxpy(
    (backend, tier): (Backend, JitTier),
    n: usize,
    x_at: Option<u64>,
    y_at: Option<u64>,
) -> Result<Vec<u32>, String> {
    let dev = device_one_worker(tier);
    let m = module_at(&dev, SAXPY, backend);
    let bx = dev.alloc_from(&sixty_fourths(n, 1)).unwrap();
    let by = dev.alloc_from(&sixty_fourths(n, 2)).unwrap();
    let ptr = |b: &Buffer, at: Option<u64>| at.map_or_else(|| arg(b), KernelArg::from);
    let args = [
        KernelArg::U32(n as u32),
        KernelArg::F32(1.5),
        ptr(&bx, x_at),
        ptr(&by, y_at),
    ];
    let lc = cfg([(n as u32).div_ceil(128), 1, 1], [128, 1, 1], backend);
    dev.launch(&m, "saxpy", &lc, &args)
        .map_err(|e| e.to_string())?;
    Ok(f32_bits(&dev.read::<f32>(&by).unwrap()))
}

#[test]
fn saxpy_keeps_y_across_the_x_load() {
    for n in [1usize, 31, 32, 1000, 4096] {
        let (x, y) = (sixty_fourths(n, 1), sixty_fourths(n, 2));
        let want: Vec<f32> = (0..n).map(|i| 1.5f32.mul_add(x[i], y[i])).collect();
        for run in runs() {
            let what = format!("{run:?} n {n}");
            let got = saxpy(run, n, None, None).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&got, &f32_bits(&want), &what);
        }
    }
}

#[test]
fn saxpy_faults_of_either_load_match_the_interpreter() {
    for (x_at, y_at) in [(Some(BAD), None), (None, Some(BAD))] {
        let what = format!("x at {x_at:?}, y at {y_at:?}");
        let interp = saxpy((Backend::Interp, JitTier::Quick), 1000, x_at, y_at)
            .expect_err(&format!("{what}: the interpreter ran"));
        assert!(interp.contains("ld.global.f32"), "{what}: {interp}");
        for &tier in tiers(Backend::Jit) {
            let jit = saxpy((Backend::Jit, tier), 1000, x_at, y_at)
                .expect_err(&format!("{what}: {tier:?} ran"));
            assert_eq!(jit, interp, "{what}: {tier:?}");
        }
    }
}

/// The buffers of gather_axpy: x (`m` values), y (`n` values) and the indices.
fn gather_bufs(dev: &Device, n: usize, m: usize, idx: &[u32]) -> [Buffer; 3] {
    [
        dev.alloc_from(&sixty_fourths(m, 3)).unwrap(),
        dev.alloc_from(&sixty_fourths(n, 4)).unwrap(),
        dev.alloc_from(idx).unwrap(),
    ]
}

/// gather_axpy over `n` elements on `dev` with buffers `b` (x, y, indices).
fn gather_on(
    dev: &Device,
    backend: Backend,
    n: usize,
    b: &[Buffer; 3],
) -> Result<Vec<u32>, String> {
    let md = module_at(dev, GATHER, backend);
    let args = [
        KernelArg::U32(n as u32),
        KernelArg::F32(-0.75),
        arg(&b[0]),
        arg(&b[1]),
        arg(&b[2]),
    ];
    let lc = cfg([(n as u32).div_ceil(96), 1, 1], [96, 1, 1], backend);
    dev.launch(&md, "gather_axpy", &lc, &args)
        .map_err(|e| e.to_string())?;
    Ok(f32_bits(&dev.read::<f32>(&b[1]).unwrap()))
}

#[test]
fn gathered_loads_keep_y_across_the_checked_access() {
    let m = 777usize;
    for n in [5usize, 96, 1000] {
        // Scattered indices, and every lane of a warp at one index in the second warp.
        let idx: Vec<u32> = (0..n as u32)
            .map(|i| match i / 32 {
                1 => 17,
                _ => i.wrapping_mul(7919) % m as u32,
            })
            .collect();
        let (x, y) = (sixty_fourths(m, 3), sixty_fourths(n, 4));
        let want: Vec<f32> = (0..n)
            .map(|i| (-0.75f32).mul_add(x[idx[i] as usize], y[i]))
            .collect();
        for run in runs() {
            let what = format!("{run:?} n {n}");
            let dev = device_one_worker(run.1);
            let b = gather_bufs(&dev, n, m, &idx);
            let got = gather_on(&dev, run.0, n, &b).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_slice_eq(&got, &f32_bits(&want), &what);
        }
    }
}

#[test]
fn gathered_load_faults_match_the_interpreter() {
    let (n, m) = (300usize, 64usize);
    // One lane of the third CTA's second warp reads far past x.
    let idx: Vec<u32> = (0..n as u32)
        .map(|i| if i == 230 { 1 << 30 } else { i % m as u32 })
        .collect();
    for &tier in tiers(Backend::Jit) {
        // The fault's address depends on where x lies: both backends on one device
        // and the same buffers.
        let dev = device_one_worker(tier);
        let b = gather_bufs(&dev, n, m, &idx);
        let interp = gather_on(&dev, Backend::Interp, n, &b).expect_err("interpreter ran");
        assert!(interp.contains("ld.global.f32"), "{interp}");
        let jit = gather_on(&dev, Backend::Jit, n, &b).expect_err("the JIT ran");
        assert_eq!(jit, interp, "{tier:?}");
    }
}
