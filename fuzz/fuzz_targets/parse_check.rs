//! Any bytes -> parse + check: must never panic; every error is located.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if let Err(e) = ptxjit::check::parse_and_check(&src, "fuzz.ptx") {
        // Errors must carry a position inside (or just past) the input.
        assert!(e.line >= 1 && e.col >= 1, "unlocated error: {e}");
    }
});
