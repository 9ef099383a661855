//! NVIDIA's CUDA runtime on the built library: a virtual environment under the target
//! directory gets PyPI's `nvidia-cuda-runtime-cu12` (kept for later runs), and
//! tests/python/cudart_client.py drives its `libcudart.so.12` through ctypes: the
//! runtime's initialisation through `cuGetExportTable` (including its integrity
//! challenge), device queries, `cudaMalloc`/`cudaMemcpy`/`cudaMemset`, streams, and a
//! kernel registered from a fat binary with `__cudaRegisterFatBinary` and launched with
//! `cudaLaunchKernel`, as nvcc's host code does. Skipped, with a message, when Python
//! or the package cannot be had.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn nvidia_cuda_runtime_runs_against_libcuda() {
    let lib = common::lib_dir();
    let test = "nvidia_cuda_runtime_runs_against_libcuda";
    let Some((py, so)) = common::venv::or_skip(test, common::venv::cudart()) else {
        return;
    };
    let script = common::crate_dir().join("tests/python/cudart_client.py");
    let (stdout, stderr) = common::run_client(
        Command::new(py)
            .arg(script)
            .arg(&so)
            .arg(common::kernels_ptx())
            .env("LD_LIBRARY_PATH", lib)
            .env("PTXJIT_CUDA_TRACE", "1"),
        "cudart client",
    );
    assert!(
        stdout.contains("cudart client: 24 passed, 0 failed"),
        "{stdout}"
    );
    // The runtime challenged the driver and accepted its answers.
    assert!(
        stderr.contains("integrity check, challenge version"),
        "{stderr}"
    );
    assert!(!stderr.contains("panic"), "{stderr}");
}

/// The venv's `libcudart_static.a` (next to `libcudart.so.12`).
fn static_runtime(so: &Path) -> Option<PathBuf> {
    let a = so.with_file_name("libcudart_static.a");
    a.exists().then_some(a)
}

/// tests/c/cudart_static.c, linked by gcc with NVIDIA's static runtime (what nvcc links
/// by default), registers a fat binary and launches kernels from it.
#[test]
fn static_runtime_program_runs_against_libcuda() {
    let lib = common::lib_dir();
    let runtime = common::venv::cudart()
        .and_then(|(_, so)| static_runtime(&so).ok_or_else(|| "no libcudart_static.a".into()));
    let test = "static_runtime_program_runs_against_libcuda";
    let Some(archive) = common::venv::or_skip(test, runtime) else {
        return;
    };
    let dir = common::scratch("cudart_static");
    let exe = dir.join("cudart_static");
    let out = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(common::crate_dir().join("tests/c/cudart_static.c"))
        .arg(&archive)
        .args(["-ldl", "-lpthread", "-lrt", "-lm"])
        .output()
        .expect("run gcc (install it: apt-get install gcc)");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe)
        .arg(common::kernels_ptx())
        .env("LD_LIBRARY_PATH", lib)
        .output()
        .expect("run the program");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(out.status.success(), "program failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("cudart static client: 21 passed, 0 failed"),
        "{stdout}"
    );
}
