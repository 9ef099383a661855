//! The mutation helpers of `frontend_mutations*.rs` (and the runs of `frontend_public.rs`): the one-instruction test module,
//! the "ptxas rejects the mutant" and "ptxas accepts both" checks, and runs on both
//! backends that must agree.
#![allow(dead_code)]

use super::common::*;
use ptxjit::check::parse_and_check;
use ptxjit::Backend;

pub const HEAD: &str = ".version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
	ld.param.u64 %rd1, [p];
";

pub fn module(line: &str) -> String {
    format!("{HEAD}\t{line}\n\tret;\n}}\n")
}

/// The original loads, the mutant fails with `m.ptx:<want>`.
pub fn rejects(original: &str, mutant: &str, want: &str) {
    if let Err(e) = parse_and_check(&module(original), "m.ptx") {
        panic!("original '{original}' must load: {e}");
    }
    match parse_and_check(&module(mutant), "m.ptx") {
        Ok(_) => panic!("mutant '{mutant}' must be rejected"),
        Err(e) => assert_eq!(e.to_string(), format!("m.ptx:{want}"), "{mutant}"),
    }
}

/// ptxas accepts both forms.
pub fn accepts(original: &str, mutant: &str) {
    for l in [original, mutant] {
        if let Err(e) = parse_and_check(&module(l), "m.ptx") {
            panic!("'{l}' must load: {e}");
        }
    }
}

/// Loads `src` on both backends and launches kernel `k` once with `threads` threads per
/// block, a buffer holding `init` as its first argument and `extra(device)` after it;
/// the backends must agree; returns the buffer's contents afterwards.
pub fn run_both_on<T: ptxjit::DeviceCopy + PartialEq + std::fmt::Debug>(
    src: &str,
    threads: u32,
    init: &[T],
    extra: impl Fn(&ptxjit::Device) -> Vec<ptxjit::KernelArg>,
) -> Vec<T> {
    run_kernel_both(src, "k", threads, init, extra)
}

/// [`run_both_on`] for kernel `kernel`.
pub fn run_kernel_both<T: ptxjit::DeviceCopy + PartialEq + std::fmt::Debug>(
    src: &str,
    kernel: &str,
    threads: u32,
    init: &[T],
    extra: impl Fn(&ptxjit::Device) -> Vec<ptxjit::KernelArg>,
) -> Vec<T> {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = dev
            .load_ptx_with(src, "m.ptx", backend == Backend::Jit)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        let buf = dev.alloc_from(init).expect("alloc");
        let mut args = vec![arg(&buf)];
        args.extend(extra(&dev));
        launch(
            &dev,
            &m,
            kernel,
            &cfg([1, 1, 1], [threads, 1, 1], backend),
            &args,
            kernel,
        );
        got.push(dev.read::<T>(&buf).expect("read"));
    }
    assert_eq!(got[0], got[1], "interpreter vs JIT");
    got.swap_remove(0)
}

/// `run_both_on` with the same `extra` arguments on each device.
pub fn run_both_with<T: ptxjit::DeviceCopy + PartialEq + std::fmt::Debug>(
    src: &str,
    threads: u32,
    init: &[T],
    extra: &[ptxjit::KernelArg],
) -> Vec<T> {
    run_both_on(src, threads, init, |_| extra.to_vec())
}

/// `run_both_with` with a zeroed buffer of `bytes` bytes, read back as `.u32` words.
pub fn run_both(src: &str, threads: u32, bytes: usize) -> Vec<u32> {
    run_both_with(src, threads, &vec![0u32; bytes / 4], &[])
}

/// Runs `body` (after `ld.param.u64 %rd1, [p]`) on both backends with `data` at `p`;
/// the backends must agree; returns the words at `p` afterwards.
pub fn run(body: &str, data: &[u64]) -> Vec<u64> {
    run_both_with(&module(body), 1, data, &[])
}
