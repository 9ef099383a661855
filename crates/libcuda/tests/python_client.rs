//! NVIDIA's cuda-python bindings (`cuda.bindings.driver`, which resolve every driver
//! function through `cuGetProcAddress`) running PTX kernels on the built library: the
//! test makes a virtual environment under the target directory, `pip install`s
//! `cuda-bindings` 12.x into it (kept for later runs) and runs
//! tests/python/driver_client.py. Skipped, with a message, when Python or the package
//! cannot be had.

mod common;

use std::process::Command;

#[test]
fn cuda_python_runs_against_libcuda() {
    let lib = common::lib_dir();
    let venv = common::venv::cuda_bindings();
    let Some(py) = common::venv::or_skip("cuda_python_runs_against_libcuda", venv) else {
        return;
    };
    let script = common::crate_dir().join("tests/python/driver_client.py");
    let (stdout, _) = common::run_client(
        Command::new(py)
            .arg(script)
            .arg(common::kernels_ptx())
            .env("LD_LIBRARY_PATH", lib),
        "python client",
    );
    assert!(stdout.contains("device: ptxjit CPU device"), "{stdout}");
    assert!(
        stdout.contains("python client: 31 passed, 0 failed"),
        "{stdout}"
    );
}
