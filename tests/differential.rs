//! Differential test: every kernel of every committed PTX file runs on the JIT and on the
//! interpreter with the same inputs; both must leave bit-identical memory and report the
//! same error (or none).
//!
//! Inputs: each 8-byte integer parameter is a pointer to its own 64 KiB buffer of
//! pseudo-random bytes (floats in those bytes include NaNs, infinities and subnormals);
//! f32/f64 parameters are 1.5/2.5; other integer parameters are 200. Each kernel runs
//! with a few grid shapes, including ragged ones.

use ptxjit::ir::Type;
use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig};
use std::path::{Path, PathBuf};

const BUF_BYTES: usize = 64 * 1024;

fn ptx_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/kernels", "tests/ptx", "examples"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "ptx") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// xorshift64* bytes, deterministic per buffer.
fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        out.extend_from_slice(&s.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(n);
    out
}

struct Outcome {
    buffers: Vec<Vec<u8>>,
    error: Option<String>,
}

fn run(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    grid: u32,
    block: u32,
    backend: Backend,
) -> Outcome {
    let params = m.kernel_params(kernel).unwrap().to_vec();
    let mut bufs = Vec::new();
    let mut args = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let arg = match (p.ty, p.size) {
            (Type::F32, 4) => KernelArg::F32(1.5),
            (Type::F64, 8) => KernelArg::F64(2.5),
            (_, 8) => {
                let b = dev
                    .alloc_from(&random_bytes(i as u64 + 1, BUF_BYTES))
                    .unwrap();
                bufs.push(b);
                KernelArg::from(&b)
            }
            (_, 4) => KernelArg::U32(200),
            (_, 2) => KernelArg::U16(200),
            (_, 1) => KernelArg::U8(200),
            (_, n) => KernelArg::Bytes(random_bytes(99, n as usize)),
        };
        args.push(arg);
    }
    // A kernel that never ends here (waiting on other CTAs' flags) fails, never hangs.
    let cfg = LaunchConfig::new(grid, block)
        .shared_bytes(1024)
        .backend(backend)
        .timeout(Some(std::time::Duration::from_secs(30)));
    let error = dev
        .launch(m, kernel, &cfg, &args)
        .err()
        .map(|e| e.to_string());
    let buffers = bufs.iter().map(|b| dev.read::<u8>(b).unwrap()).collect();
    for b in bufs {
        dev.free(b).unwrap();
    }
    Outcome { buffers, error }
}

#[test]
fn jit_and_interpreter_agree_on_every_committed_kernel() {
    // One worker thread: CTAs run in order, so the first fault and the memory it leaves
    // behind are deterministic.
    let dev = Device::with_options(DeviceOptions {
        threads: 1,
        ..Default::default()
    })
    .unwrap();
    let mut checked = 0;
    for file in ptx_files() {
        let src = std::fs::read_to_string(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let m = match dev.load_ptx(&src, &name) {
            Ok(m) => m,
            // Files that test load-time errors are covered elsewhere.
            Err(_) => continue,
        };
        // Kernels whose results legitimately differ between two launches (timers,
        // launch counters, module variables they update, per-launch addresses) are
        // listed in a `// differential: skip NAME...` line of their file.
        let skip: Vec<&str> = src
            .lines()
            .filter_map(|l| l.trim().strip_prefix("// differential: skip "))
            .flat_map(str::split_whitespace)
            .collect();
        for kernel in m.kernels() {
            if skip.contains(&kernel) {
                continue;
            }
            for (grid, block) in [(1, 32), (3, 96), (2, 256)] {
                let jit = run(&dev, &m, kernel, grid, block, Backend::Jit);
                let interp = run(&dev, &m, kernel, grid, block, Backend::Interp);
                assert_eq!(
                    jit.error, interp.error,
                    "{name} {kernel} grid {grid} block {block}: errors differ"
                );
                for (i, (a, b)) in jit.buffers.iter().zip(&interp.buffers).enumerate() {
                    if a != b {
                        let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap();
                        panic!("{name} {kernel} grid {grid} block {block}: buffer {i} differs first at byte {at}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 30,
        "only {checked} kernel launches were compared"
    );
}
