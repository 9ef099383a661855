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
        .args([
            "run",
            "examples/saxpy.ptx",
            "--kernel",
            "saxpy",
            "--grid",
            "4",
            "--block",
            "256",
        ])
        .args([
            "--arg",
            "u32:1000",
            "--arg",
            "f32:2.0",
            "--arg",
            "buf:examples/x.bin",
            "--arg",
            "buf:examples/y.bin",
        ])
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
    let got = f32s(&bytes);
    // examples/README.md: x[k] = k*0.25 - 100, y[k] = 1000 - k*0.25, so with a = 2,
    // y_out[k] = fma(2, x[k], y[k]) = 800 + k*0.25 exactly (all values are f32s).
    let x = f32s(&std::fs::read(format!("{root}/examples/x.bin")).unwrap());
    let y = f32s(&std::fs::read(format!("{root}/examples/y.bin")).unwrap());
    assert_eq!(x[3], 3.0 * 0.25 - 100.0, "examples/x.bin as documented");
    assert_eq!(y[3], 1000.0 - 3.0 * 0.25, "examples/y.bin as documented");
    let want: Vec<f32> = (0..1000).map(|k| 2.0f32.mul_add(x[k], y[k])).collect();
    assert_eq!(want[999], 800.0 + 999.0 * 0.25);
    assert_eq!(got.len(), want.len(), "output length");
    for k in 0..1000 {
        assert_eq!(
            got[k].to_bits(),
            want[k].to_bits(),
            "y[{k}]: got {}, want {}",
            got[k],
            want[k]
        );
    }
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
