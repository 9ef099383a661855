//! A C program linked with `-lcuda` against the built library (no CUDA headers): saxpy,
//! a shared-memory reduction, a histogram, streams, events, faults and API misuse, each
//! checked by the program against a C reference (see tests/c/client.c).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Compiles tests/c/client.c into `dir` against the built library; returns the program.
fn build_client(dir: &Path) -> PathBuf {
    let exe = dir.join("client");
    let src = common::crate_dir().join("tests/c/client.c");
    let out = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-L{}", common::lib_dir().display()))
        .args(["-lcuda", "-lm"])
        .output()
        .expect("run gcc (install it: apt-get install gcc)");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

#[test]
fn c_client_runs_against_libcuda() {
    let lib = common::lib_dir();
    let dir = common::scratch("c_client");
    let exe = build_client(&dir);
    // Unsanitized whatever the caller's environment: the sanitized runs are
    // c_client_under_memcheck_finishes_and_passes.
    let out = Command::new(&exe)
        .arg(common::kernels_ptx())
        .env_remove("PTXJIT_SANITIZE")
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

/// The same client under `PTXJIT_SANITIZE=memcheck`, `all` and `memcheck,report-only`,
/// each run under a 60 s watchdog (it takes well under a second; a hang fails the test
/// instead of stalling the suite): every check passes, the deliberate fault being the
/// memcheck finding client.c expects in each mode, logged with its PTX location (or
/// reported at exit with `report-only`), and the program's four leaks are reported.
#[test]
fn c_client_under_memcheck_finishes_and_passes() {
    let lib = common::lib_dir();
    let dir = common::scratch("c_client_memcheck");
    let exe = build_client(&dir);
    for mode in ["memcheck", "all", "memcheck,report-only"] {
        let (out_path, log_path) = (dir.join("out.txt"), dir.join("log.txt"));
        let _ = std::fs::remove_file(&log_path);
        let out = std::fs::File::create(&out_path).expect("output file");
        let mut child = Command::new(&exe)
            .arg(common::kernels_ptx())
            .env("LD_LIBRARY_PATH", lib)
            .env("PTXJIT_SANITIZE", mode)
            .env("PTXJIT_CUDA_LOG", &log_path)
            .stdout(Stdio::from(out.try_clone().expect("output file")))
            .stderr(Stdio::from(out))
            .spawn()
            .expect("run client");
        let start = Instant::now();
        let status = loop {
            if let Some(st) = child.try_wait().expect("wait for client") {
                break st;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("client under PTXJIT_SANITIZE={mode} did not finish in 60 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = std::fs::read_to_string(&out_path).expect("client output");
        let log = std::fs::read_to_string(&log_path).expect("log file");
        println!("[{mode}] {stdout}\n{log}");
        assert!(status.success(), "[{mode}] client failed:\n{stdout}");
        assert!(stdout.contains("C client: 90 passed, 0 failed"), "{stdout}");
        assert!(
            log.contains("memcheck: out-of-bounds in kernel 'oob' at")
                && log.contains("kernels.ptx:122:5"),
            "[{mode}] {log}"
        );
        // client.c never frees dy (1000 floats), din (100000 u32), dout (one u32) and
        // dbins (37 u32): four leaks, each its own finding at exit.
        let mut leaks: Vec<&str> = log
            .lines()
            .filter_map(|l| l.strip_prefix("memcheck: leak: "))
            .filter_map(|l| l.split(" bytes").next())
            .collect();
        leaks.sort_unstable();
        assert_eq!(leaks, ["148", "4", "4000", "400000"], "[{mode}] {log}");
    }
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

/// Graph topology from C (tests/c/graph_topo.c): the CUDA 12.9 layouts of
/// `CUgraphEdgeData` and the memset/host node parameters; host nodes chained backwards by
/// `cuGraphAddDependencies_v2` run in reverse insertion order; a disabled memset node
/// leaves memory as it was (the program's hand-computed values).
#[test]
fn c_graph_topology() {
    let lib = common::lib_dir();
    let dir = common::scratch("c_graph_topo");
    let exe = dir.join("graph_topo");
    let src = common::crate_dir().join("tests/c/graph_topo.c");
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
        .env("LD_LIBRARY_PATH", lib)
        .output()
        .expect("run graph_topo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "graph_topo failed:\n{stdout}");
    assert!(
        stdout.contains("C graph_topo: ") && stdout.contains(" passed, 0 failed"),
        "{stdout}"
    );
}
