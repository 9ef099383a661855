//! `ptxjit fuzz`: the CLI's mutation loop finds the off-by-one read of `peek`
//! (tests/kernels/fuzz_findings.cu), writes the crashing input and a reproducer command
//! that replays it; the coverage-guided loop grows a corpus on `branches`; spec errors
//! are reported, not panics.

use std::process::{Command, Output};

fn ptxjit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .args(args)
        .output()
        .expect("run ptxjit")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const PTX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/kernels/fuzz_findings.nvrtc.ptx"
);

#[test]
fn finds_the_fault_writes_the_input_and_a_working_reproducer() {
    let dir = std::env::temp_dir().join(format!("ptxjit_fuzz_cli_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let art = dir.to_string_lossy().into_owned();
    for backend in ["jit", "interp"] {
        // peek(data, n, idx, out): idx in 0..=8 against 0..4 bytes of data; idx == n
        // reads one byte past the buffer.
        let o = ptxjit(&[
            "fuzz",
            PTX,
            "--kernel",
            "peek",
            "--input",
            "u8[rest:4]",
            "--input",
            "u32=len(0)",
            "--input",
            "u32=0..8",
            "--input",
            "out:u32[1]",
            "--runs",
            "20000",
            "--stop-at-first",
            "--artifacts",
            &art,
            "--backend",
            backend,
        ]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains("ptxjit fuzz: Fault: kernel 'peek' faulted at"),
            "{out}"
        );
        assert!(out.contains("1 finding"), "{out}");
        let line = out
            .lines()
            .find_map(|l| l.trim().strip_prefix("reproduce: "))
            .expect("a reproducer line");
        // Replay it (the line is shell-quoted: run it through sh).
        let bin = env!("CARGO_BIN_EXE_ptxjit");
        let cmd = line.replacen("ptxjit", &format!("'{bin}'"), 1);
        let r = Command::new("sh").arg("-c").arg(&cmd).output().expect("sh");
        let rout = text(&r);
        assert_eq!(r.status.code(), Some(1), "{cmd}\n{rout}");
        assert!(rout.contains("Fault: kernel 'peek' faulted at"), "{rout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn coverage_grows_the_corpus_and_clean_kernels_pass() {
    let o = ptxjit(&[
        "fuzz",
        PTX,
        "--kernel",
        "branches",
        "--input",
        "i32[rest:32]",
        "--input",
        "out:i32[=0]",
        "--input",
        "u32=len(0)",
        "--runs",
        "3000",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let corpus: usize = out
        .split("corpus ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.parse().ok())
        .expect("corpus size in the summary");
    // The empty seed plus inputs that reached new blocks or partial-warp blocks.
    assert!(corpus > 1, "{out}");
    assert!(
        out.contains("3000 inputs") && out.contains("0 findings"),
        "{out}"
    );
}

#[test]
fn bad_specs_are_errors() {
    let o = ptxjit(&["fuzz", PTX, "--kernel", "peek", "--input", "u8[rest"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("lacks its closing ']'"), "{}", text(&o));
    let o = ptxjit(&["fuzz", PTX, "--kernel", "peek", "--input", "u8[rest]"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("takes 4 parameters but the harness describes 1"),
        "{}",
        text(&o)
    );
}
