//! Any bytes -> parse + check + JIT compile: a module that checks compiles or returns an
//! error; never a panic, never a Cranelift verifier failure.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn device() -> &'static ptxjit::Device {
    static DEV: OnceLock<ptxjit::Device> = OnceLock::new();
    DEV.get_or_init(|| {
        ptxjit::Device::with_options(ptxjit::DeviceOptions {
            threads: 1,
            memory_bytes: 256 << 20,
            // PTXJIT_JIT_TIER picks the tier compiled (default: the quick tier).
            ..Default::default()
        })
        .expect("device")
    })
}

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if ptxjit::check::parse_and_check(&src, "fuzz.ptx").is_err() {
        return;
    }
    if let Err(e) = device().load_ptx(&src, "fuzz.ptx") {
        let msg = e.to_string();
        assert!(!msg.contains("Verifier"), "Cranelift verifier failure: {msg}");
    }
});
