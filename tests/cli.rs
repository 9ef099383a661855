//! The CLI contract: subcommands, argument specs, exit codes and messages.

use std::process::{Command, Output};

fn ptxjit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run ptxjit")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_reports_kernels_or_a_located_error() {
    let o = ptxjit(&["check", "examples/saxpy.ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "examples/saxpy.ptx: ok (1 kernel: saxpy)\n"
    );
    let o = ptxjit(&["check", "tests/kernels/spec_brx.ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = ptxjit(&["check", "tests/frontend_ptx/atomic.nvrtc.ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Its `.texref` (the last form it held that ptxjit rejected) loads now.
    let o = ptxjit(&["check", "tests/frontend_ptx/instructions.ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "tests/frontend_ptx/instructions.ptx: ok (3 kernels: instrs, clus, clus2)\n"
    );
    // A located error: a module `.samplerref` without `.target texmode_independent`.
    let o = ptxjit(&["check", "tests/frontend_ptx/invalid/samplerref_unified.ptx"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("tests/frontend_ptx/invalid/samplerref_unified.ptx:7:9: error:")
            && stderr(&o).contains(".samplerref"),
        "{}",
        stderr(&o)
    );
    let o = ptxjit(&["check", "no/such/file.ptx"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no/such/file.ptx"), "{}", stderr(&o));
}

#[test]
fn dump_prints_clif_and_machine_code() {
    let o = ptxjit(&["dump", "examples/saxpy.ptx", "--clif"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("; kernel saxpy") && text.contains("function") && text.contains("fma"),
        "{text}"
    );
    let o = ptxjit(&["dump", "examples/saxpy.ptx", "--kernel", "saxpy", "--asm"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("vfmadd") && text.contains("ret"),
        "{}",
        &text[..text.len().min(2000)]
    );
    let o = ptxjit(&["dump", "examples/saxpy.ptx", "--kernel", "nope", "--asm"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no kernel named 'nope'"),
        "{}",
        stderr(&o)
    );
    // One of --clif / --asm is required.
    assert_ne!(
        ptxjit(&["dump", "examples/saxpy.ptx"]).status.code(),
        Some(0)
    );
}

/// `dump --stats`: a row per kernel with the functions it reaches (tests/ptx/lazy_kernels.ptx:
/// `direct` calls `twice`, `table` the three functions of its call table), positive
/// instruction counts and times, then the totals.
#[test]
fn dump_stats_reports_each_kernel() {
    let o = ptxjit(&["dump", "tests/ptx/lazy_kernels.ptx", "--stats"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0][..3], ["kernel", "funcs", "PTX"], "{text}");
    assert_eq!(rows.len(), 1 + 8 + 1, "{text}");
    for (row, (name, funcs)) in rows[1..9].iter().zip([
        ("direct", "1"),
        ("table", "3"),
        ("add0", "0"),
        ("add1", "0"),
        ("add2", "0"),
        ("add3", "0"),
        ("add4", "0"),
        ("add5", "0"),
    ]) {
        assert_eq!(row[..2], [name, funcs], "{text}");
        let nums: Vec<f64> = row[2..]
            .iter()
            .map(|v| v.parse().expect("number"))
            .collect();
        assert_eq!(nums.len(), 8, "{text}");
        assert!(nums.iter().all(|&v| v > 0.0), "{text}");
        // More CLIF than PTX instructions (a warp-wide instruction is many).
        assert!(nums[1] > nums[0], "{text}");
    }
    assert_eq!(rows[9][..3], ["total", "(8", "kernels)"], "{text}");
    let o = ptxjit(&[
        "dump",
        "tests/ptx/lazy_kernels.ptx",
        "--stats",
        "--kernel",
        "table",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().nth(1).is_some_and(|l| l.starts_with("table ")),
        "{text}"
    );
}

/// `dump --stats --by-opcode`: after the kernel table, one row per PTX opcode of the
/// kernel (examples/saxpy.ptx: the 12 opcodes of its body, terminators aside), each with
/// at least as many translations as the source has instructions, the costliest first,
/// shares summing to 100%, and CLIF counts that add up to about the kernel's (the
/// clean-ups after translation are not attributed). Without `--stats` it is refused.
#[test]
fn dump_by_opcode_attributes_the_clif() {
    let o = ptxjit(&["dump", "examples/saxpy.ptx", "--stats", "--by-opcode"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let total_clif: usize = lines[1][3].parse().expect("CLIF");
    let head = lines
        .iter()
        .position(|l| l.first() == Some(&"opcode"))
        .expect("opcode table");
    let rows: Vec<(&str, usize, usize, f64)> = lines[head + 1..]
        .iter()
        .map(|l| {
            (
                l[0],
                l[1].parse().expect("count"),
                l[2].parse().expect("CLIF"),
                l[4].trim_end_matches('%').parse().expect("share"),
            )
        })
        .collect();
    // The body's instructions, counted by hand from examples/saxpy.ptx.
    let source = [
        ("ld.param.u32", 1),
        ("ld.param.f32", 1),
        ("ld.param.u64", 2),
        ("mov.u32", 3),
        ("mad.lo.s32", 1),
        ("setp.ge.u32", 1),
        ("cvta.to.global.u64", 2),
        ("mul.wide.u32", 1),
        ("add.s64", 2),
        ("ld.global.f32", 2),
        ("fma.rn.f32", 1),
        ("st.global.f32", 1),
    ];
    let mut got: Vec<&str> = rows.iter().map(|r| r.0).collect();
    got.sort_unstable();
    let mut want: Vec<&str> = source.iter().map(|s| s.0).collect();
    want.sort_unstable();
    assert_eq!(got, want, "{text}");
    for (op, n) in source {
        let r = rows.iter().find(|r| r.0 == op).expect("row");
        assert!(
            r.1 >= n,
            "{op}: {} translations for {n} instructions\n{text}",
            r.1
        );
    }
    assert!(rows.windows(2).all(|w| w[0].2 >= w[1].2), "{text}");
    let share: f64 = rows.iter().map(|r| r.3).sum();
    assert!((share - 100.0).abs() < 0.5, "{text}");
    // The memory accesses are the costliest (their fast path and the helper's).
    assert!(rows[0].0.starts_with("ld.global") || rows[0].0.starts_with("st.global"));
    let sum: usize = rows.iter().map(|r| r.2).sum();
    assert!(
        sum * 2 > total_clif && sum < total_clif * 2,
        "{sum} attributed of {total_clif}\n{text}"
    );
    let o = ptxjit(&["dump", "examples/saxpy.ptx", "--by-opcode"]);
    assert_ne!(o.status.code(), Some(0), "--by-opcode without --stats");
}

#[test]
fn run_validates_arguments() {
    let base = [
        "run",
        "examples/saxpy.ptx",
        "--kernel",
        "saxpy",
        "--grid",
        "4",
        "--block",
        "256",
    ];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        ptxjit(&a)
    };
    let o = with(&["--threads", "0", "--arg", "u32:1000"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--threads must be at least 1"),
        "{}",
        stderr(&o)
    );
    let o = with(&["--arg", "u32:1000"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("takes 4 parameters") && stderr(&o).contains("but 1 --arg"),
        "{}",
        stderr(&o)
    );
    let o = with(&[
        "--arg",
        "u32:1000",
        "--arg",
        "f32:2",
        "--arg",
        "buf:examples/x.bin",
        "--arg",
        "u32:5",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("argument 3"), "{}", stderr(&o));
    let o = with(&[
        "--arg",
        "u32:1000",
        "--arg",
        "f32:2",
        "--arg",
        "buf:examples/x.bin",
        "--arg",
        "zeros:4000",
        "--out",
        "1=/tmp/x",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("argument 1 is not a buf: or zeros: buffer"),
        "{}",
        stderr(&o)
    );
    let o = with(&[
        "--arg",
        "u8:300",
        "--arg",
        "f32:2",
        "--arg",
        "buf:examples/x.bin",
        "--arg",
        "zeros:8",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
    let o = with(&[
        "--arg",
        "u32:1000",
        "--arg",
        "f32:2",
        "--arg",
        "buf:examples/x.bin",
        "--arg",
        "zeros:8",
    ]);
    assert_eq!(o.status.code(), Some(1), "a fault is an error");
    assert!(
        stderr(&o).contains("faulted at examples/saxpy.ptx:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn run_writes_outputs_on_both_backends_with_hex_and_zeros_args() {
    for backend in ["jit", "interp"] {
        let out =
            std::env::temp_dir().join(format!("ptxjit_cli_{backend}_{}.bin", std::process::id()));
        let outs = format!("3={}", out.display());
        // a = 0x40000000 = 2.0f32; y starts as zeros, so y = 2 * x.
        let o = ptxjit(&[
            "run",
            "examples/saxpy.ptx",
            "--kernel",
            "saxpy",
            "--grid",
            "8,1",
            "--block",
            "128,1,1",
            "--backend",
            backend,
            "--threads",
            if backend == "jit" { "2" } else { "1" },
            "--arg",
            "u32:0x3e8",
            "--arg",
            "f32:0x40000000",
            "--arg",
            "buf:examples/x.bin",
            "--arg",
            "zeros:4000",
            "--out",
            &outs,
        ]);
        assert_eq!(o.status.code(), Some(0), "{backend}: {}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        let y: Vec<f32> = bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // x[i] = i*0.25 - 100 (examples/README.md), so y[i] = i*0.5 - 200 exactly.
        let want: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 200.0).collect();
        assert_eq!(y, want, "{backend}");
    }
}

/// `ptxjit run` prints kernel `printf` output on stdout (lanes in order), and a failed
/// device `assert` is an error naming file, line, function and thread.
#[test]
fn run_prints_printf_output_and_reports_asserts() {
    for backend in ["jit", "interp"] {
        let o = ptxjit(&[
            "run",
            "tests/ptx/printf.ptx",
            "--kernel",
            "hello",
            "--grid",
            "1",
            "--block",
            "3",
            "--backend",
            backend,
            "--threads",
            "1",
        ]);
        assert_eq!(o.status.code(), Some(0), "{backend}: {}", stderr(&o));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "thread 0 of 3: hi\nthread 1 of 3: hi\nthread 2 of 3: hi\n",
            "{backend}"
        );
        let o = ptxjit(&[
            "run",
            "tests/kernels/printf.nvrtc.ptx",
            "--kernel",
            "assertk",
            "--grid",
            "1",
            "--block",
            "4",
            "--backend",
            backend,
            "--arg",
            "zeros:64",
            "--arg",
            "u32:0",
        ]);
        assert_eq!(o.status.code(), Some(1), "{backend}");
        let e = stderr(&o);
        assert!(
            e.contains("thread (0,0,0): assertion failed: a[t] != bad at printf.cu:21 in assertk"),
            "{backend}: {e}"
        );
    }
}
