//! Any bytes -> parse + check + JIT compile: a module that checks compiles or returns an
//! error; never a panic, never a Cranelift verifier failure.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ptxjit_fuzz::harness::compile(data));
