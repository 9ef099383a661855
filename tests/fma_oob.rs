//! `fma.oob` on both backends against an H100: for every 16-bit pattern x, the six
//! forms of tests/golden/oob_run/probe.cu (`fma.rn.oob{.relu}.{f16,bf16}` with x as `a`
//! or as `c`, and `f16x2` with x in the low half), compared bit for bit with the GPU's
//! `probe.bin` (see tests/golden/oob_run/README.md).
#[macro_use]
mod common;
use common::*;

fn fma_oob(backend: Backend) {
    let path = format!(
        "{}/tests/golden/oob_run/probe.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    let gpu: Vec<u16> = std::fs::read(path)
        .unwrap()
        .chunks(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(gpu.len(), 65536 * 6);
    let dev = device();
    let m = module_at(&dev, "tests/ptx/fma_oob.ptx", backend);
    let out = zeroed(&dev, 65536 * 12);
    launch(
        &dev,
        &m,
        "k",
        &cfg([256, 1, 1], [256, 1, 1], backend),
        &[arg(&out)],
        "fma_oob",
    );
    let got: Vec<u16> = dev.read(&out).unwrap();
    let mut bad = Vec::new();
    for (i, (g, w)) in got.iter().zip(&gpu).enumerate() {
        if g != w {
            bad.push(format!(
                "x={:04x} col {}: ptxjit {g:04x} GPU {w:04x}",
                i / 6,
                i % 6
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{backend:?}: {} differ: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

both_backends!(fma_oob);
