//! Helpers for the client tests: the directory holding the freshly built `libcuda.so`
//! (built if missing) with its `libcuda.so.1` link, and paths of test inputs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// A fresh scratch directory under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = lib_dir().join("libcuda-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
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
