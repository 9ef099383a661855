//! `ptxjit exec -- CMD` runs unmodified GPU programs on the built library, found next to
//! the `ptxjit` executable, with no `LD_LIBRARY_PATH` or other setting from the caller:
//! a numba-cuda kernel (`python -c`, in the numba test's venv) and a CUDA runtime
//! program built by NVIDIA's nvcc 13 with its default flags (in the nvcc test's venv).
//! Also: the exit status passes through, the flags and defaults reach the environment,
//! a caller's setting is kept, a missing library is an error. The venv tests are skipped,
//! with a message, when the packages cannot be had.

mod common;

use std::process::Command;

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

#[test]
fn exec_sets_the_environment_and_passes_the_exit_status() {
    let lib = std::fs::canonicalize(common::lib_dir().join("libcuda.so")).expect("lib");
    let out = ptxjit_exec(&["--", "sh", "-c", "exit 7"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(7), "{}", common::show(&out));

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
    let s = common::show(&out);
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
    assert!(out.status.success(), "{}", common::show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        other.display().to_string()
    );

    let out = ptxjit_exec(&["--", "true"])
        .env("PTXJIT_LIBCUDA", "/nonexistent/dir")
        .output()
        .expect("run");
    let s = common::show(&out);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(
        s.contains("PTXJIT_LIBCUDA /nonexistent/dir: no libcuda.so.1 or libcuda.so there"),
        "{s}"
    );
    let out = ptxjit_exec(&["--", "/nonexistent/program"])
        .output()
        .expect("run");
    let s = common::show(&out);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(s.contains("cannot run '/nonexistent/program'"), "{s}");
}

#[test]
fn exec_runs_a_numba_kernel() {
    let venv = common::venv::numba(&common::venv::dir("numbavenv"));
    let Some(py) = common::venv::or_skip("exec_runs_a_numba_kernel", venv) else {
        return;
    };
    let cache = common::scratch("exec-numba");
    let out = ptxjit_exec(&["--"])
        .arg(&py)
        .args(["-c", common::NUMBA_SNIPPET])
        .current_dir(&cache)
        .env("NUMBA_CACHE_DIR", &cache)
        .output()
        .expect("run");
    let s = common::show(&out);
    println!("{s}");
    assert!(out.status.success(), "{s}");
    assert!(s.contains("ptxjit CPU device"), "{s}");
    assert!(s.contains("numba kernel ok"), "{s}");
}

#[test]
fn exec_runs_an_nvcc_built_program() {
    let test = "exec_runs_an_nvcc_built_program";
    let Some(toolkit) = common::venv::or_skip(test, common::venv::cuda13_toolkit()) else {
        return;
    };
    let dir = common::scratch("exec-nvcc");
    let exe = dir.join("prog");
    // nvcc's default flags: the static runtime, a compressed fat binary.
    let out = common::venv::nvcc(&toolkit)
        .arg("-o")
        .arg(&exe)
        .arg(common::crate_dir().join("tests/cuda/runtime_prog.cu"))
        .output()
        .expect("run nvcc");
    if !out.status.success() {
        let s = common::show(&out);
        if s.contains("gcc") || s.contains("g++") {
            eprintln!("SKIPPED {test}: {s}");
            return;
        }
        panic!("nvcc failed: {s}");
    }
    let out = ptxjit_exec(&["--"]).arg(&exe).output().expect("run");
    let s = common::show(&out);
    println!("{s}");
    assert!(out.status.success(), "{s}");
    assert!(s.contains("nvcc program: PASS"), "{s}");
    assert!(s.contains("hello from block 0 thread 0"), "{s}");
}
