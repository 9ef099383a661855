//! cudarc's usual flow on ptxjit's libcuda.so.1: `CudaContext::new(0)`,
//! `load_module(Ptx::from_src(..))`, `alloc_zeros`, `memcpy_stod`,
//! `launch_builder(..).arg(..).launch(cfg)`, `memcpy_dtov`, on saxpy, a shared-memory
//! reduction with barriers and an atomics histogram, plus two streams with events.
//! Every result is compared with a Rust reference (`f32::mul_add` is a correctly rounded
//! fma; integer sums wrap). Usage: ptxjit-cudarc-client kernels.ptx. Prints
//! "cudarc client: N passed, 0 failed" and exits non-zero on the first failure.

#![allow(deprecated)] // memcpy_stod/memcpy_dtov: the flow the brief names; clone_htod/clone_dtoh are the new names

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use std::sync::atomic::{AtomicU32, Ordering};

static PASSED: AtomicU32 = AtomicU32::new(0);

fn check(cond: bool, what: &str) {
    if !cond {
        println!("FAIL: {what}");
        std::process::exit(1);
    }
    PASSED.fetch_add(1, Ordering::Relaxed);
}

fn lcg(s: &mut u32) -> u32 {
    *s = s.wrapping_mul(1664525).wrapping_add(1013904223);
    *s
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: client kernels.ptx")?;
    let src = std::fs::read_to_string(path)?;
    let ctx = CudaContext::new(0)?;
    println!("device: {}", ctx.name()?);
    check(ctx.compute_capability()? == (9, 0), "compute capability");
    let module = ctx.load_module(Ptx::from_src(src))?;
    let saxpy = module.load_function("saxpy")?;
    let block_sum = module.load_function("block_sum")?;
    let histogram = module.load_function("histogram")?;
    let oob = module.load_function("oob")?;
    let hello = module.load_function("hello")?;
    let stream = ctx.default_stream();

    // saxpy.
    let n = 10_000usize;
    let mut seed = 7;
    let x: Vec<f32> = (0..n)
        .map(|_| (lcg(&mut seed) % 2001) as f32 / 7.0 - 100.0)
        .collect();
    let y: Vec<f32> = (0..n)
        .map(|_| (lcg(&mut seed) % 2001) as f32 / 3.0 - 300.0)
        .collect();
    let a = 1.25f32;
    let dx = stream.memcpy_stod(&x)?;
    let mut dy = stream.memcpy_stod(&y)?;
    let n32 = n as u32;
    let mut b = stream.launch_builder(&saxpy);
    b.arg(&n32).arg(&a).arg(&dx).arg(&mut dy);
    unsafe { b.launch(LaunchConfig::for_num_elems(n32)) }?;
    let out = stream.memcpy_dtov(&dy)?;
    let bad = (0..n)
        .filter(|&i| out[i].to_bits() != a.mul_add(x[i], y[i]).to_bits())
        .count();
    check(bad == 0, &format!("saxpy: {bad} mismatches"));

    // Reduction over a slice at an offset (cudarc passes the view's address).
    let m = 200_000usize;
    let data: Vec<u32> = (0..m).map(|_| lcg(&mut seed)).collect();
    let ddata = stream.memcpy_stod(&data)?;
    let mut dsum = stream.alloc_zeros::<u32>(1)?;
    let off = 1000usize;
    let view = ddata.slice(off..);
    let cnt = (m - off) as u32;
    let mut b = stream.launch_builder(&block_sum);
    b.arg(&view).arg(&mut dsum).arg(&cnt);
    let cfg = LaunchConfig {
        grid_dim: (cnt.div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe { b.launch(cfg) }?;
    let got = stream.memcpy_dtov(&dsum)?[0];
    let want = data[off..].iter().fold(0u32, |s, &v| s.wrapping_add(v));
    check(got == want, &format!("block_sum {got} != {want}"));

    // Histogram on a second stream, ordered after the first with an event; timed.
    let s2 = ctx.new_stream()?;
    let nbins = 61u32;
    let mut dbins = s2.alloc_zeros::<u32>(nbins as usize)?;
    let start = s2.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let ready = stream.record_event(None)?;
    s2.wait(&ready)?;
    let mm = m as u32;
    let mut b = s2.launch_builder(&histogram);
    b.arg(&ddata).arg(&mm).arg(&mut dbins).arg(&nbins);
    unsafe { b.launch(LaunchConfig::for_num_elems(mm)) }?;
    let end = s2.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)?;
    check(ms >= 0.0, "elapsed time");
    let bins = s2.memcpy_dtov(&dbins)?;
    let mut want = vec![0u32; nbins as usize];
    for &v in &data {
        want[(v % nbins) as usize] += 1;
    }
    check(bins == want, "histogram");
    stream.join(&s2)?;

    // A fault is reported as CUDA_ERROR_ILLEGAL_ADDRESS.
    let probe = stream.alloc_zeros::<u32>(4)?;
    let mut b = stream.launch_builder(&oob);
    b.arg(&probe);
    let r = unsafe { b.launch(LaunchConfig::for_num_elems(1)) };
    let msg = format!("{r:?}");
    check(
        msg.contains("CUDA_ERROR_ILLEGAL_ADDRESS"),
        &format!("fault: {msg}"),
    );

    // Kernel printf: four lines on stdout, in thread order (the test checks them).
    let k = 42u32;
    let mut b = stream.launch_builder(&hello);
    b.arg(&k);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (4, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe { b.launch(cfg) }?;
    stream.synchronize()?;

    println!(
        "cudarc client: {} passed, 0 failed",
        PASSED.load(Ordering::Relaxed)
    );
    Ok(())
}
