//! `ptxjit exec -- CMD` runs unmodified GPU programs on the built library, found next to
//! the `ptxjit` executable, with no `LD_LIBRARY_PATH` or other setting from the caller:
//! a numba-cuda kernel (`python -c`, in the numba test's venv) and a CUDA runtime
//! program built by NVIDIA's nvcc 13 with its default flags (in the nvcc test's venv).
//! Also: the exit status passes through, the flags and defaults reach the environment,
//! a caller's setting is kept, a missing library is an error. The venv tests are skipped,
//! with a message, when the packages cannot be had.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `ptxjit exec ARGS` with a clean environment for the variables it sets.
fn ptxjit_exec(args: &[&str]) -> Command {
    let mut cmd = Command::new(common::ptxjit_cli());
    cmd.arg("exec").args(args);
    for v in [
        "LD_LIBRARY_PATH",
        "PTXJIT_LIBCUDA",
        "NUMBA_CUDA_DRIVER",
        "CUPY_COMPILE_WITH_PTX",
        "CUPY_ACCELERATORS",
        "PTXJIT_SANITIZE",
        "PTXJIT_CUDA_BACKEND",
    ] {
        cmd.env_remove(v);
    }
    cmd
}

fn show(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn exec_sets_the_environment_and_passes_the_exit_status() {
    let lib = std::fs::canonicalize(common::lib_dir().join("libcuda.so")).expect("lib");
    let out = ptxjit_exec(&["--", "sh", "-c", "exit 7"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(7), "{}", show(&out));

    let script = "echo LD=$LD_LIBRARY_PATH; echo LIB=$PTXJIT_LIBCUDA; \
                  echo PTX=$CUPY_COMPILE_WITH_PTX; echo ACC=${CUPY_ACCELERATORS-unset}; \
                  echo SAN=$PTXJIT_SANITIZE; echo BE=$PTXJIT_CUDA_BACKEND; \
                  echo OCC=$NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS";
    let out = ptxjit_exec(&["--sanitize", "memcheck", "--backend", "interp"])
        .args(["sh", "-c", script])
        .env("LD_LIBRARY_PATH", "/opt/other")
        .env("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "1")
        .output()
        .expect("run");
    let s = show(&out);
    assert!(out.status.success(), "{s}");
    // The library next to the executable is target/<profile>/libcuda.so, reached
    // through its libcuda.so.1 link in the same directory.
    let dir = lib.parent().expect("dir").display().to_string();
    assert!(s.contains(&format!("LD={dir}:/opt/other\n")), "{s}");
    assert!(s.contains(&format!("LIB={}\n", lib.display())), "{s}");
    assert!(s.contains("PTX=1\nACC=\nSAN=memcheck\nBE=interp\n"), "{s}");
    assert!(s.contains("OCC=1\n"), "the caller's setting is kept: {s}");

    // --lib with a file of another name and no libcuda.so.1 beside it (a hard link of
    // the library): reached through a libcuda.so.1 link in a directory of its own.
    let other = common::scratch("exec-lib").join("libptxjit-cuda.so");
    std::fs::hard_link(&lib, &other).expect("hard link");
    let out = ptxjit_exec(&["--lib", &other.display().to_string()])
        .args([
            "sh",
            "-c",
            "readlink -f ${LD_LIBRARY_PATH%%:*}/libcuda.so.1",
        ])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        other.display().to_string()
    );

    let out = ptxjit_exec(&["--", "true"])
        .env("PTXJIT_LIBCUDA", "/nonexistent/dir")
        .output()
        .expect("run");
    let s = show(&out);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(
        s.contains("PTXJIT_LIBCUDA /nonexistent/dir: no libcuda.so.1 or libcuda.so there"),
        "{s}"
    );
    let out = ptxjit_exec(&["--", "/nonexistent/program"])
        .output()
        .expect("run");
    let s = show(&out);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(s.contains("cannot run '/nonexistent/program'"), "{s}");
}

#[test]
fn exec_runs_a_numba_kernel() {
    let lib = common::lib_dir();
    let py = match common::venv_with_numba(&lib.join("libcuda-tests/numbavenv")) {
        Ok(py) => py,
        Err(e) => {
            eprintln!("SKIPPED exec_runs_a_numba_kernel: {e}");
            return;
        }
    };
    let cache = common::scratch("exec-numba");
    let out = ptxjit_exec(&["--"])
        .arg(&py)
        .args(["-c", common::NUMBA_SNIPPET])
        .current_dir(&cache)
        .env("NUMBA_CACHE_DIR", &cache)
        .output()
        .expect("run");
    let s = show(&out);
    println!("{s}");
    assert!(out.status.success(), "{s}");
    assert!(s.contains("ptxjit CPU device"), "{s}");
    assert!(s.contains("numba kernel ok"), "{s}");
}

/// The CUDA 13 toolkit of the nvcc test's venv (`.../site-packages/nvidia/cu13`).
fn cuda13_toolkit() -> Result<PathBuf, String> {
    const PACKAGES: [&str; 4] = [
        "nvidia-cuda-nvcc==13.*",
        "nvidia-cuda-crt==13.*",
        "nvidia-cuda-runtime==13.*",
        "nvidia-nvvm==13.*",
    ];
    fn toolkit(venv: &Path) -> Option<PathBuf> {
        let lib = std::fs::read_dir(venv.join("lib"))
            .ok()?
            .flatten()
            .next()?
            .path();
        let cu13 = lib.join("site-packages/nvidia/cu13");
        cu13.join("bin/nvcc").exists().then_some(cu13)
    }
    let dir = common::lib_dir().join("libcuda-tests/nvccvenv");
    common::venv_with(&dir, &PACKAGES, |d| toolkit(d).is_some())?;
    toolkit(&dir).ok_or_else(|| "nvcc missing after install".into())
}

#[test]
fn exec_runs_an_nvcc_built_program() {
    let toolkit = match cuda13_toolkit() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("SKIPPED exec_runs_an_nvcc_built_program: {e}");
            return;
        }
    };
    let dir = common::scratch("exec-nvcc");
    let exe = dir.join("prog");
    let path = format!(
        "{}:{}",
        toolkit.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // nvcc's default flags: the static runtime, a compressed fat binary.
    let out = Command::new(toolkit.join("bin/nvcc"))
        .arg("-o")
        .arg(&exe)
        .arg(common::crate_dir().join("tests/cuda/runtime_prog.cu"))
        .env("PATH", path)
        .output()
        .expect("run nvcc");
    if !out.status.success() {
        let s = show(&out);
        if s.contains("gcc") || s.contains("g++") {
            eprintln!("SKIPPED exec_runs_an_nvcc_built_program: {s}");
            return;
        }
        panic!("nvcc failed: {s}");
    }
    let out = ptxjit_exec(&["--"]).arg(&exe).output().expect("run");
    let s = show(&out);
    println!("{s}");
    assert!(out.status.success(), "{s}");
    assert!(s.contains("nvcc program: PASS"), "{s}");
    assert!(s.contains("hello from block 0 thread 0"), "{s}");
}
