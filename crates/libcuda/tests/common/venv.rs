//! The Python virtual environments of the client tests, each made once from PyPI under
//! `target/<profile>/libcuda-tests/<name>` and kept for later runs, and the rule they
//! share when one cannot be had (no python3, PyPI out of reach): the test prints
//! `SKIPPED <test>: <why>` and passes ([`or_skip`]).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv directory `name` under `target/<profile>/libcuda-tests`.
pub fn dir(name: &str) -> PathBuf {
    super::lib_dir().join("libcuda-tests").join(name)
}

/// `r`'s value, or `None` after printing why test `test` is skipped.
pub fn or_skip<T>(test: &str, r: Result<T, String>) -> Option<T> {
    r.map_err(|e| eprintln!("SKIPPED {test}: {e}")).ok()
}

/// The venv's `lib/python3.X/site-packages`, if it has one.
pub fn site_packages(venv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .next()?
        .path();
    Some(lib.join("site-packages"))
}

/// Whether `python` can import `modules` (a comma-separated Python import list).
pub fn python_imports(python: &Path, modules: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A Python venv at `dir` with `packages` pip-installed, made once and reused while
/// `ready(dir)` holds. Returns the venv's `bin/python`, or why it could not be made (no
/// python3, or pip could not install the packages: PyPI out of reach).
pub fn venv_with(
    dir: &Path,
    packages: &[&str],
    ready: impl Fn(&Path) -> bool,
) -> Result<PathBuf, String> {
    let py = dir.join("bin/python");
    if py.exists() && ready(dir) {
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
        .args(packages)
        .output()
        .map_err(|e| format!("pip: {e}"))?;
    if !out.status.success() || !ready(dir) {
        return Err(format!(
            "pip install {} failed (is PyPI reachable?): {}",
            packages.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(py)
}

/// A venv at `dir` with `packages`, ready when its python imports `modules`.
fn venv_importing(dir: &Path, packages: &[&str], modules: &str) -> Result<PathBuf, String> {
    venv_with(dir, packages, |d| {
        python_imports(&d.join("bin/python"), modules)
    })
}

/// The numba-cuda stack the numba tests install: numba-cuda with NVIDIA's CUDA 12
/// libNVVM, NVRTC and runtime from PyPI.
pub const NUMBA_PACKAGES: [&str; 4] = [
    "numba-cuda==0.30.*",
    "nvidia-cuda-nvcc-cu12==12.*",
    "nvidia-cuda-nvrtc-cu12==12.*",
    "nvidia-cuda-runtime-cu12==12.*",
];

/// A venv at `dir` with [`NUMBA_PACKAGES`] (the numba test's is `dir("numbavenv")`).
pub fn numba(dir: &Path) -> Result<PathBuf, String> {
    venv_importing(
        dir,
        &NUMBA_PACKAGES,
        "numba.cuda, nvidia.cuda_nvcc, nvidia.cuda_nvrtc",
    )
}

/// The CuPy stack the CuPy tests install: `cupy-cuda12x` with NVIDIA's CUDA 12 runtime
/// and NVRTC from PyPI.
pub const CUPY_PACKAGES: [&str; 3] = [
    "cupy-cuda12x",
    "nvidia-cuda-runtime-cu12==12.*",
    "nvidia-cuda-nvrtc-cu12==12.*",
];

/// The CuPy test's venv (`cupyvenv`) with [`CUPY_PACKAGES`].
pub fn cupy() -> Result<PathBuf, String> {
    venv_importing(
        &dir("cupyvenv"),
        &CUPY_PACKAGES,
        "cupy, nvidia.cuda_runtime, nvidia.cuda_nvrtc",
    )
}

/// The cuda-python test's venv (`pyvenv`) with NVIDIA's `cuda-bindings` 12.x.
pub fn cuda_bindings() -> Result<PathBuf, String> {
    venv_importing(
        &dir("pyvenv"),
        &["cuda-bindings>=12.8,<13"],
        "cuda.bindings.driver",
    )
}

/// The `libcudart.so.12` of a venv with `nvidia-cuda-runtime-cu12`.
fn cudart_so(venv: &Path) -> Option<PathBuf> {
    let so = site_packages(venv)?.join("nvidia/cuda_runtime/lib/libcudart.so.12");
    so.exists().then_some(so)
}

/// The cudart test's venv (`cudartvenv`) with PyPI's CUDA 12 runtime: its python and
/// its `libcudart.so.12`.
pub fn cudart() -> Result<(PathBuf, PathBuf), String> {
    let dir = dir("cudartvenv");
    let py = venv_with(&dir, &["nvidia-cuda-runtime-cu12==12.*"], |d| {
        cudart_so(d).is_some()
    })?;
    let so = cudart_so(&dir).ok_or("libcudart.so.12 missing after install")?;
    Ok((py, so))
}

/// The CUDA 13 toolchain the nvcc tests install.
const NVCC_PACKAGES: [&str; 4] = [
    "nvidia-cuda-nvcc==13.*",
    "nvidia-cuda-crt==13.*",
    "nvidia-cuda-runtime==13.*",
    "nvidia-nvvm==13.*",
];

/// The toolkit directory (`.../site-packages/nvidia/cu13`) of a venv, if nvcc is there.
fn cu13(venv: &Path) -> Option<PathBuf> {
    let cu13 = site_packages(venv)?.join("nvidia/cu13");
    cu13.join("bin/nvcc").exists().then_some(cu13)
}

/// The CUDA 13 toolkit (`.../site-packages/nvidia/cu13`) of the nvcc tests' venv
/// (`nvccvenv`), with [`NVCC_PACKAGES`].
pub fn cuda13_toolkit() -> Result<PathBuf, String> {
    let dir = dir("nvccvenv");
    venv_with(&dir, &NVCC_PACKAGES, |d| cu13(d).is_some())?;
    cu13(&dir).ok_or_else(|| "nvcc missing after install".into())
}

/// `toolkit`'s nvcc, with the toolkit's `bin` first in `PATH` (nvcc runs its tools from
/// there).
pub fn nvcc(toolkit: &Path) -> Command {
    let path = format!(
        "{}:{}",
        toolkit.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(toolkit.join("bin/nvcc"));
    cmd.env("PATH", path);
    cmd
}
