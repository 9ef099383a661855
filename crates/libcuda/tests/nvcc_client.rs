//! Programs built by NVIDIA's nvcc 13 run unmodified on the built library: a virtual
//! environment under the target directory gets the CUDA 13 toolchain from PyPI
//! (`nvidia-cuda-nvcc`, `nvidia-cuda-crt`, `nvidia-cuda-runtime`, `nvidia-nvvm`; kept for
//! later runs), nvcc builds tests/cuda/runtime_prog.cu with its default flags (the
//! static runtime, Zstd-compressed fat binary, the default architecture's PTX) and with
//! `-cudart shared`, and both run with `LD_LIBRARY_PATH` at the library. Skipped, with
//! a message, when Python, the packages or a host compiler cannot be had.

mod common;

use std::path::Path;
use std::process::Command;

/// Builds the program with nvcc and `flags` into `exe`.
fn nvcc(toolkit: &Path, flags: &[&str], libdir: &Path, exe: &Path) -> Result<(), String> {
    let out = common::venv::nvcc(toolkit)
        .args(flags)
        .arg(format!("-L{}", libdir.display()))
        .arg("-o")
        .arg(exe)
        .arg(common::crate_dir().join("tests/cuda/runtime_prog.cu"))
        .output()
        .map_err(|e| format!("nvcc: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "nvcc {flags:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn nvcc_built_runtime_programs_run_against_libcuda() {
    let lib = common::lib_dir();
    let test = "nvcc_built_runtime_programs_run_against_libcuda";
    let Some(toolkit) = common::venv::or_skip(test, common::venv::cuda13_toolkit()) else {
        return;
    };
    let dir = common::scratch("nvcc_client");
    // The wheel ships libcudart.so.13 without the libcudart.so link `-lcudart` needs.
    let rt = toolkit.join("lib");
    let _ = std::os::unix::fs::symlink(rt.join("libcudart.so.13"), dir.join("libcudart.so"));
    for (name, flags) in [("default", &[][..]), ("shared", &["-cudart", "shared"][..])] {
        let exe = dir.join(format!("prog_{name}"));
        if let Err(e) = nvcc(&toolkit, flags, &dir, &exe) {
            if e.contains("gcc") || e.contains("g++") {
                eprintln!("SKIPPED {test}: {e}");
                return;
            }
            panic!("{e}");
        }
        let out = Command::new(&exe)
            .env(
                "LD_LIBRARY_PATH",
                format!("{}:{}", lib.display(), rt.display()),
            )
            .output()
            .expect("run the program");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        println!("{name}: {stdout}{stderr}");
        assert!(out.status.success(), "{name}:\n{stdout}\n{stderr}");
        assert!(stdout.contains("nvcc program: PASS"), "{name}: {stdout}");
        assert!(
            stdout.contains("hello from block 0 thread 0"),
            "{name}: {stdout}"
        );
    }
}
