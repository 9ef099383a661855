//! CuPy on the built library: a virtual environment under the target directory gets
//! `cupy-cuda12x` with NVIDIA's CUDA 12 runtime and NVRTC from PyPI (kept for later
//! runs) and runs tests/python/cupy_client.py with `LD_LIBRARY_PATH` at the library:
//! elementwise operations and reductions, `RawKernel`, `RawModule` from a PTX file,
//! `ElementwiseKernel`, `ReductionKernel`, streams and events, each against numpy.
//! CuPy compiles to PTX (`CUPY_COMPILE_WITH_PTX=1`: ptxjit runs PTX, not SASS) and its
//! CUB accelerator is off (`CUPY_ACCELERATORS=`: that library's precompiled PTX is 22
//! MB for sm_100 and takes minutes to load). Skipped, with a message, when Python or
//! the packages cannot be had.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGES: [&str; 3] = [
    "cupy-cuda12x",
    "nvidia-cuda-runtime-cu12==12.*",
    "nvidia-cuda-nvrtc-cu12==12.*",
];

fn venv_with_cupy(dir: &Path) -> Result<PathBuf, String> {
    let py = dir.join("bin/python");
    let has = |py: &Path| {
        Command::new(py)
            .args(["-c", "import cupy, nvidia.cuda_runtime, nvidia.cuda_nvrtc"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if py.exists() && has(&py) {
        return Ok(py);
    }
    let _ = std::fs::remove_dir_all(dir);
    let out = Command::new("python3")
        .args(["-m", "venv"])
        .arg(dir)
        .output()
        .map_err(|e| format!("python3 not available: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "python3 -m venv failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let out = Command::new(&py)
        .args(["-m", "pip", "install", "-q"])
        .args(PACKAGES)
        .output()
        .map_err(|e| format!("pip: {e}"))?;
    if !out.status.success() || !has(&py) {
        return Err(format!(
            "pip install {} failed (is PyPI reachable?): {}",
            PACKAGES.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(py)
}

#[test]
fn cupy_runs_against_libcuda() {
    let lib = common::lib_dir();
    let py = match venv_with_cupy(&lib.join("libcuda-tests/cupyvenv")) {
        Ok(py) => py,
        Err(e) => {
            eprintln!("SKIPPED cupy_runs_against_libcuda: {e}");
            return;
        }
    };
    let cache = common::scratch("cupy-cache");
    let out = Command::new(py)
        .arg(common::crate_dir().join("tests/python/cupy_client.py"))
        .arg(common::kernels_ptx())
        .env("LD_LIBRARY_PATH", lib)
        .env("CUPY_COMPILE_WITH_PTX", "1")
        .env("CUPY_ACCELERATORS", "")
        .env("CUPY_CACHE_DIR", &cache)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(
        out.status.success(),
        "cupy client failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("device: ptxjit CPU device"), "{stdout}");
    assert!(
        stdout.contains("cupy client: 14 passed, 0 failed"),
        "{stdout}"
    );
}
