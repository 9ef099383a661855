//! Helpers for the client tests: the directory holding the freshly built `libcuda.so`
//! (built if missing) with its `libcuda.so.1` link, and paths of test inputs.

#![allow(dead_code)]

pub mod venv;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The crate's directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The test kernels' PTX file.
pub fn kernels_ptx() -> PathBuf {
    crate_dir().join("tests/ptx/kernels.ptx")
}

/// The directory with `libcuda.so` and `libcuda.so.1` from this build's profile
/// (`target/<profile>`, next to the test executable's `deps/`), brought up to date with
/// `cargo build -p ptxjit-cuda` (a no-op when it is fresh).
pub fn lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable");
        let dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>/deps")
            .to_path_buf();
        let so = dir.join("libcuda.so");
        {
            let release = dir.file_name().is_some_and(|n| n == "release");
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "-p", "ptxjit-cuda"]);
            if release {
                cmd.arg("--release");
            }
            if let Some(target) = dir.parent() {
                cmd.env("CARGO_TARGET_DIR", target);
            }
            let st = cmd.status().expect("run cargo build");
            assert!(st.success(), "cargo build -p ptxjit-cuda failed");
            assert!(so.exists(), "{} missing", so.display());
        }
        let link = dir.join("libcuda.so.1");
        if std::fs::symlink_metadata(&link).is_err() {
            // Another test process may create it at the same time.
            let _ = std::os::unix::fs::symlink("libcuda.so", &link);
        }
        assert!(link.exists(), "{} missing", link.display());
        dir
    })
}

/// Runs client program `cmd` (`what` in messages), prints its output, checks that it
/// exited with success and returns its stdout and stderr.
pub fn run_client(cmd: &mut Command, what: &str) -> (String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    println!("{stdout}{stderr}");
    assert!(out.status.success(), "{what} failed:\n{stdout}\n{stderr}");
    (stdout, stderr)
}

/// A finished program's exit status, stdout and stderr, for messages.
pub fn show(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A fresh scratch directory under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = lib_dir().join("libcuda-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Launches `saxpy(n, a, x, y)` of tests/ptx/kernels.ptx (or a fat binary holding it) as
/// `f` on x = y = [1, 2, 3, 4] in one block of 32 threads, and returns the device
/// address of y and its contents a·x + y.
///
/// # Safety
/// `f` must be a function or kernel handle of a loaded saxpy with a current context.
pub unsafe fn launch_saxpy4(f: cuda::CUfunction, a: f32) -> (u64, [f32; 4]) {
    use cuda::*;
    use std::ffi::c_void;
    use std::ptr::null_mut;
    let (mut x, mut y) = (0u64, 0u64);
    assert_eq!(cuMemAlloc_v2(&mut x, 16), 0);
    assert_eq!(cuMemAlloc_v2(&mut y, 16), 0);
    let xs = [1f32, 2., 3., 4.];
    assert_eq!(cuMemcpyHtoD_v2(x, xs.as_ptr() as *const c_void, 16), 0);
    assert_eq!(cuMemcpyHtoD_v2(y, xs.as_ptr() as *const c_void, 16), 0);
    let (mut n, mut a) = (4u32, a);
    let mut params = [
        &mut n as *mut u32 as *mut c_void,
        &mut a as *mut f32 as *mut c_void,
        &mut x as *mut u64 as *mut c_void,
        &mut y as *mut u64 as *mut c_void,
    ];
    let r = cuLaunchKernel(
        f,
        1,
        1,
        1,
        32,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut(),
    );
    assert_eq!(r, 0);
    let mut out = [0f32; 4];
    assert_eq!(cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, y, 16), 0);
    (y, out)
}

/// The `ptxjit` command-line tool of this build's profile, next to the library (built
/// with `cargo build -p ptxjit --bin ptxjit`, a no-op when it is fresh).
pub fn ptxjit_cli() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = lib_dir();
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "-p", "ptxjit", "--bin", "ptxjit"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        if let Some(target) = dir.parent() {
            cmd.env("CARGO_TARGET_DIR", target);
        }
        let st = cmd.status().expect("run cargo build");
        assert!(st.success(), "cargo build -p ptxjit --bin ptxjit failed");
        let exe = dir.join("ptxjit");
        assert!(exe.exists(), "{} missing", exe.display());
        exe
    })
    .clone()
}

/// A numba-cuda kernel for `python -c`: a vector add checked against numpy; prints the
/// device name and `numba kernel ok`.
pub const NUMBA_SNIPPET: &str = r#"
import numpy as np
from numba import cuda

@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

a = np.arange(1000, dtype=np.float32)
b = a * 2 + 1
out = np.zeros_like(a)
add[8, 128](a, b, out)
print("device:", cuda.get_current_device().name)
print("numba kernel ok" if np.array_equal(out, a + b) else "numba kernel WRONG")
"#;
