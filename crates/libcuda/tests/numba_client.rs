//! numba-cuda on the built library: a virtual environment under the target directory
//! gets `numba-cuda` with NVIDIA's CUDA 12 PyPI components it needs (libNVVM from
//! `nvidia-cuda-nvcc-cu12`, NVRTC, the runtime), kept for later runs, and runs
//! tests/python/numba_client.py with `LD_LIBRARY_PATH` at the library: `@cuda.jit`
//! kernels (elementwise, device functions, a shared-memory reduction with
//! `cuda.syncthreads`, atomics, `cuda.local.array`, a 2-D grid, streams, `debug=True`,
//! `lineinfo=True`, libdevice math) checked against numpy. numba links every kernel
//! with the driver's linker (`cuLinkCreate` …), so this exercises it end to end; and
//! `cuda-bindings` 13 (numba-cuda's dependency) must not warn about the driver version.
//! A second test runs numba-cuda's IPC API between two processes
//! (tests/python/numba_ipc.py). Skipped, with a message, when Python or the packages
//! cannot be had.

mod common;

use std::process::Command;

#[test]
fn numba_cuda_kernels_run_against_libcuda() {
    let lib = common::lib_dir();
    let venv = common::venv::numba(&common::venv::dir("numbavenv"));
    let Some(py) = common::venv::or_skip("numba_cuda_kernels_run_against_libcuda", venv) else {
        return;
    };
    let script = common::crate_dir().join("tests/python/numba_client.py");
    let cache = common::scratch("numba-cache");
    let (stdout, _) = common::run_client(
        Command::new(py)
            .arg(script)
            .current_dir(&cache)
            .env("LD_LIBRARY_PATH", lib)
            .env("NUMBA_CACHE_DIR", &cache)
            .env("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0"),
        "numba client",
    );
    assert!(stdout.contains("device: ptxjit CPU device"), "{stdout}");
    assert!(
        stdout.contains("numba client: 8 passed, 0 failed"),
        "{stdout}"
    );
}

/// numba-cuda's IPC API between two processes (tests/python/numba_ipc.py): the parent
/// exports a slice with numba's context, a spawned child opens it through numba's
/// `IpcHandle`, runs a kernel on it, and the parent sees the writes.
#[test]
fn numba_cuda_ipc_between_processes() {
    let lib = common::lib_dir();
    let venv = common::venv::numba(&common::venv::dir("numbavenv"));
    let Some(py) = common::venv::or_skip("numba_cuda_ipc_between_processes", venv) else {
        return;
    };
    let script = common::crate_dir().join("tests/python/numba_ipc.py");
    let cache = common::scratch("numba-ipc-cache");
    let (stdout, _) = common::run_client(
        Command::new(py)
            .arg(script)
            .current_dir(&cache)
            .env("LD_LIBRARY_PATH", lib)
            .env("NUMBA_CUDA_DRIVER", lib.join("libcuda.so.1"))
            .env("NUMBA_CACHE_DIR", &cache)
            .env("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0"),
        "numba IPC client",
    );
    assert!(stdout.contains("numba IPC: 4 passed, 0 failed"), "{stdout}");
}
