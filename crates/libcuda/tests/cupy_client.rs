//! CuPy on the built library: a virtual environment under the target directory gets
//! `cupy-cuda12x` with NVIDIA's CUDA 12 runtime and NVRTC from PyPI (kept for later
//! runs) and runs tests/python/cupy_client.py on the library through `ptxjit exec`:
//! elementwise operations and reductions, `RawKernel`, `RawModule` from a PTX file,
//! `ElementwiseKernel`, `ReductionKernel`, streams and events, each against numpy.
//! CuPy compiles to PTX (`CUPY_COMPILE_WITH_PTX=1`: ptxjit runs PTX, not SASS) and its
//! CUB accelerator is off (`CUPY_ACCELERATORS=`: that library's precompiled PTX is 22
//! MB for sm_100, loaded by each process on its first CUB call), as `ptxjit exec` sets
//! them. Skipped, with a message, when Python or the packages cannot be had.

mod common;

use std::process::Command;

#[test]
fn cupy_runs_against_libcuda() {
    let Some(py) = common::venv::or_skip("cupy_runs_against_libcuda", common::venv::cupy()) else {
        return;
    };
    let cache = common::scratch("cupy-cache");
    // Through `ptxjit exec`, which finds the library next to itself and sets
    // LD_LIBRARY_PATH, CUPY_COMPILE_WITH_PTX=1 and CUPY_ACCELERATORS=.
    let (stdout, _) = common::run_client(
        Command::new(common::ptxjit_cli())
            .args(["exec", "--"])
            .arg(py)
            .arg(common::crate_dir().join("tests/python/cupy_client.py"))
            .arg(common::kernels_ptx())
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("CUPY_COMPILE_WITH_PTX")
            .env_remove("CUPY_ACCELERATORS")
            .env("CUPY_CACHE_DIR", &cache),
        "cupy client",
    );
    assert!(stdout.contains("device: ptxjit CPU device"), "{stdout}");
    assert!(
        stdout.contains("cupy client: 14 passed, 0 failed"),
        "{stdout}"
    );
}
