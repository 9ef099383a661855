//! The README's first command, run through the CLI binary: examples/saxpy.ptx on
//! examples/x.bin and examples/y.bin, output buffer 3 written to a file.
use std::process::Command;

#[test]
fn readme_saxpy_command() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::env::temp_dir().join(format!("ptxjit_y_out_{}.bin", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let status = Command::new(env!("CARGO_BIN_EXE_ptxjit"))
        .current_dir(root)
        .args(["run", "examples/saxpy.ptx", "--kernel", "saxpy", "--grid", "4", "--block", "256"])
        .args(["--arg", "u32:1000", "--arg", "f32:2.0", "--arg", "buf:examples/x.bin", "--arg", "buf:examples/y.bin"])
        .arg("--out")
        .arg(format!("3={}", out.display()))
        .output()
        .expect("run the ptxjit binary");
    assert!(
        status.status.success(),
        "ptxjit run failed ({}):\nstdout:\n{}\nstderr:\n{}",
        status.status,
        String::from_utf8_lossy(&status.stdout),
        String::from_utf8_lossy(&status.stderr)
    );
    let bytes = std::fs::read(&out).expect("output file written");
    let _ = std::fs::remove_file(&out);
    let got: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // x[k] = k, y[k] = 0.5, a = 2: y[k] = fma(2, k, 0.5) = 2k + 0.5 exactly.
    let want: Vec<f32> = (0..1000).map(|k| 2.0 * k as f32 + 0.5).collect();
    assert_eq!(got.len(), want.len(), "output length");
    for k in 0..1000 {
        assert_eq!(got[k].to_bits(), want[k].to_bits(), "y[{k}]: got {}, want {}", got[k], want[k]);
    }
}
