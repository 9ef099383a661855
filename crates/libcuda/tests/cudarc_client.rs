//! cudarc (pinned, crates/libcuda-cudarc-test) running saxpy, a shared-memory reduction
//! on a slice at an offset, an atomics histogram on a second stream ordered by events,
//! a faulting kernel and a kernel that calls `printf`, against the freshly built
//! libcuda.so.1 via LD_LIBRARY_PATH.
//! The client is a separate cargo project (its own lock file), built here into
//! `target/<profile>/libcuda-tests/cudarc-target` (about 15 s the first time).
//! `PTXJIT_SKIP_CUDARC=1` skips this test.

mod common;

use std::process::Command;

#[test]
fn cudarc_runs_against_libcuda() {
    if std::env::var_os("PTXJIT_SKIP_CUDARC").is_some() {
        eprintln!("SKIPPED cudarc_runs_against_libcuda: PTXJIT_SKIP_CUDARC is set");
        return;
    }
    let lib = common::lib_dir();
    let project = common::crate_dir().join("../libcuda-cudarc-test");
    let target = lib.join("libcuda-tests/cudarc-target");
    let st = Command::new(env!("CARGO"))
        .args(["build", "--release", "--locked", "--manifest-path"])
        .arg(project.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("run cargo");
    assert!(st.success(), "building the cudarc client failed");
    let dir = common::scratch("cudarc");
    let out = Command::new(target.join("release/ptxjit-cudarc-client"))
        .arg(common::kernels_ptx())
        .env("LD_LIBRARY_PATH", lib)
        .env("PTXJIT_CUDA_LOG", dir.join("log.txt"))
        .output()
        .expect("run the cudarc client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "cudarc client failed:\n{stdout}");
    assert!(stdout.contains("device: ptxjit CPU device"), "{stdout}");
    assert!(
        stdout.contains("cudarc client: 6 passed, 0 failed"),
        "{stdout}"
    );
    // The printf kernel's lines, in thread order, before the summary line.
    let want = "thread 0 k=42\nthread 1 k=42\nthread 2 k=42\nthread 3 k=42\n";
    assert!(stdout.contains(want), "printf output missing:\n{stdout}");
    let log = std::fs::read_to_string(dir.join("log.txt")).expect("log");
    assert!(log.contains("kernel 'oob' faulted at"), "{log}");
}
