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

const PACKAGE: &str = "nvidia-cuda-runtime-cu12==12.*";

/// The venv's `libcudart.so.12`.
fn runtime(venv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .next()?
        .path();
    let so = lib.join("site-packages/nvidia/cuda_runtime/lib/libcudart.so.12");
    so.exists().then_some(so)
}

fn venv_with_cudart(dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let py = common::venv_with(dir, &[PACKAGE], |d| runtime(d).is_some())?;
    let so = runtime(dir).ok_or("libcudart.so.12 missing after install")?;
    Ok((py, so))
}

#[test]
fn nvidia_cuda_runtime_runs_against_libcuda() {
    let lib = common::lib_dir();
    let (py, so) = match venv_with_cudart(&lib.join("libcuda-tests/cudartvenv")) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("SKIPPED nvidia_cuda_runtime_runs_against_libcuda: {e}");
            return;
        }
    };
    let script = common::crate_dir().join("tests/python/cudart_client.py");
    let out = Command::new(py)
        .arg(script)
        .arg(&so)
        .arg(common::kernels_ptx())
        .env("LD_LIBRARY_PATH", lib)
        .env("PTXJIT_CUDA_TRACE", "1")
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(
        out.status.success(),
        "cudart client failed:\n{stdout}\n{stderr}"
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
    let runtime = venv_with_cudart(&lib.join("libcuda-tests/cudartvenv"))
        .map_err(|e| e.to_string())
        .and_then(|(_, so)| static_runtime(&so).ok_or_else(|| "no libcudart_static.a".into()));
    let archive = match runtime {
        Ok(a) => a,
        Err(e) => {
            eprintln!("SKIPPED static_runtime_program_runs_against_libcuda: {e}");
            return;
        }
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
