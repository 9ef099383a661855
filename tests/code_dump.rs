//! `PTXJIT_CODE_DUMP=DIR`: the JIT writes each finalized function's machine code, as
//! loaded, to `DIR/<symbol>.bin` and its load address to `DIR/<symbol>.addr`. The oracle
//! is cranelift-jit's own perf map (`/tmp/perf-<pid>.map`, written when
//! `PERF_BUILDID_DIR` is set): one `address size symbol` line per function it loads.
//! This file holds one test, as it sets environment variables for its whole process.

use ptxjit::jit::JitTier;
use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig};
use std::collections::HashMap;

const SRC: &str = include_str!("ptx/lazy_kernels.ptx");

#[test]
fn code_dump_writes_each_function_as_loaded() {
    let dir = std::env::temp_dir().join(format!("ptxjit-code-dump-{}", std::process::id()));
    let map = format!("/tmp/perf-{}.map", std::process::id());
    let _ = std::fs::remove_file(&map);
    std::env::set_var("PTXJIT_CODE_DUMP", &dir);
    std::env::set_var("PERF_BUILDID_DIR", std::env::temp_dir());
    let dev = Device::with_options(DeviceOptions {
        threads: 1,
        jit_tier: JitTier::Optimized,
        jit_eager: true,
        ..DeviceOptions::default()
    })
    .expect("device");
    let m = dev.load_ptx(SRC, "lazy_kernels.ptx").expect("load");
    // The code runs as dumped: `direct` writes 2t + 1 (tests/lazy_compile.rs).
    let out = dev.alloc_zeroed(4 * 32).expect("alloc");
    dev.launch(
        &m,
        "direct",
        &LaunchConfig::new(1, 32).backend(Backend::Jit),
        &[KernelArg::Ptr(out.ptr())],
    )
    .expect("launch");
    let got: Vec<u32> = dev.read(&out).expect("read");
    assert_eq!(got, (0..32).map(|t| 2 * t + 1).collect::<Vec<u32>>());

    let text = std::fs::read_to_string(&map).expect("perf map");
    let loaded: HashMap<String, (usize, usize)> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.splitn(3, ' ');
            let a = usize::from_str_radix(w.next()?, 16).ok()?;
            let n = usize::from_str_radix(w.next()?, 16).ok()?;
            Some((w.next()?.to_string(), (a, n)))
        })
        .collect();
    // lazy_kernels.ptx: eight kernels and four functions.
    let kernels = loaded
        .keys()
        .filter(|s| s.starts_with("ptxjit_kernel_"))
        .count();
    let funcs = loaded
        .keys()
        .filter(|s| s.starts_with("ptxjit_func_"))
        .count();
    assert_eq!((kernels, funcs), (8, 4), "{text}");
    for (sym, &(addr, size)) in &loaded {
        let bin = std::fs::read(dir.join(format!("{sym}.bin"))).expect("dumped code");
        assert_eq!(bin.len(), size, "{sym}: code size");
        let a = std::fs::read_to_string(dir.join(format!("{sym}.addr"))).expect("address");
        let a = usize::from_str_radix(a.trim().trim_start_matches("0x"), 16).expect("hex");
        assert_eq!(a, addr, "{sym}: load address");
        // SAFETY: the module is loaded, so its code is `size` readable bytes at `addr`.
        let live = unsafe { std::slice::from_raw_parts(addr as *const u8, size) };
        assert_eq!(bin, live, "{sym}: bytes as loaded");
    }
    drop(m);
    let _ = std::fs::remove_file(&map);
    let _ = std::fs::remove_dir_all(&dir);
}
