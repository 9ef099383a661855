//! A C program linked with `-lcuda` against the built library (no CUDA headers): saxpy,
//! a shared-memory reduction, a histogram, streams, events, faults and API misuse, each
//! checked by the program against a C reference (see tests/c/client.c).

mod common;

use std::process::Command;

#[test]
fn c_client_runs_against_libcuda() {
    let lib = common::lib_dir();
    let dir = common::scratch("c_client");
    let exe = dir.join("client");
    let src = common::crate_dir().join("tests/c/client.c");
    let out = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .args(["-lcuda", "-lm"])
        .output()
        .expect("run gcc (install it: apt-get install gcc)");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe)
        .arg(common::kernels_ptx())
        .env("LD_LIBRARY_PATH", lib)
        .env("PTXJIT_CUDA_LOG", dir.join("log.txt"))
        .output()
        .expect("run client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "client failed:\n{stdout}");
    assert!(stdout.contains("C client: 90 passed, 0 failed"), "{stdout}");
    // The launch fault's located message went to the log file.
    let log = std::fs::read_to_string(dir.join("log.txt")).expect("log file");
    assert!(
        log.contains("kernel 'oob' faulted at") && log.contains("kernels.ptx:122:5"),
        "{log}"
    );
}

/// Conditional graph nodes from C (tests/c/graph_cond.c): the CUDA 12.9 struct layouts
/// of `CUgraphNodeParams` reach `cuGraphAddNode_v2`, and WHILE, IF/ELSE and SWITCH
/// graphs give the program's hand-computed values.
#[test]
fn c_conditional_graph_nodes() {
    let lib = common::lib_dir();
    let dir = common::scratch("c_graph_cond");
    let exe = dir.join("graph_cond");
    let src = common::crate_dir().join("tests/c/graph_cond.c");
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
    let out = Command::new(&exe)
        .arg(common::crate_dir().join("tests/ptx/graph_cond.ptx"))
        .env("LD_LIBRARY_PATH", lib)
        .env("PTXJIT_CUDA_LOG", dir.join("log.txt"))
        .output()
        .expect("run graph_cond");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "graph_cond failed:\n{stdout}");
    assert!(
        stdout.contains("C graph_cond: ") && stdout.contains(" passed, 0 failed"),
        "{stdout}"
    );
}
