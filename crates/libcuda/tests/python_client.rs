//! NVIDIA's cuda-python bindings (`cuda.bindings.driver`, which resolve every driver
//! function through `cuGetProcAddress`) running PTX kernels on the built library: the
//! test makes a virtual environment under the target directory, `pip install`s
//! `cuda-bindings` 12.x into it (kept for later runs) and runs
//! tests/python/driver_client.py. Skipped, with a message, when Python or the package
//! cannot be had.

mod common;

use std::path::Path;
use std::process::Command;

fn venv_with_bindings(dir: &Path) -> Result<std::path::PathBuf, String> {
    common::venv_with(dir, &["cuda-bindings>=12.8,<13"], |d| {
        common::python_imports(&d.join("bin/python"), "cuda.bindings.driver")
    })
}

#[test]
fn cuda_python_runs_against_libcuda() {
    let lib = common::lib_dir();
    let venv = lib.join("libcuda-tests/pyvenv");
    let py = match venv_with_bindings(&venv) {
        Ok(py) => py,
        Err(e) => {
            eprintln!("SKIPPED cuda_python_runs_against_libcuda: {e}");
            return;
        }
    };
    let script = common::crate_dir().join("tests/python/driver_client.py");
    let out = Command::new(py)
        .arg(script)
        .arg(common::kernels_ptx())
        .env("LD_LIBRARY_PATH", lib)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(
        out.status.success(),
        "python client failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("device: ptxjit CPU device"), "{stdout}");
    assert!(
        stdout.contains("python client: 31 passed, 0 failed"),
        "{stdout}"
    );
}
