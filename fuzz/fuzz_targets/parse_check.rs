//! Any bytes -> parse + check: must never panic; every error is located.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ptxjit_fuzz::harness::parse_check(data));
