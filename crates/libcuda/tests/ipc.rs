//! CUDA IPC between two real processes: tests/c/ipc.c, linked with `-lcuda` against the
//! built library, exports device memory and an event, starts itself again as the child
//! (fork + exec) with the handles, and each side checks what the other wrote (kernels on
//! imported memory, a page shared with an allocation that is not exported, repeated
//! opens, the driver's errors). See crates/libcuda/src/ipc.rs.

mod common;

use std::process::Command;

#[test]
fn ipc_memory_and_events_cross_processes() {
    let lib = common::lib_dir();
    let dir = common::scratch("ipc_client");
    let exe = dir.join("ipc");
    let src = common::crate_dir().join("tests/c/ipc.c");
    let out = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .arg("-lcuda")
        .output()
        .expect("run gcc (install it: apt-get install gcc)");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (stdout, _) = common::run_client(
        Command::new(&exe)
            .arg(common::kernels_ptx())
            .env("LD_LIBRARY_PATH", lib)
            .env("PTXJIT_CUDA_LOG", dir.join("log.txt")),
        "IPC client",
    );
    assert!(
        stdout.contains("IPC child: 37 passed, 0 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("IPC parent: 55 passed, 0 failed"),
        "{stdout}"
    );
}
