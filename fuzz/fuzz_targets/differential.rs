//! A generated well-defined kernel (see `src/gen.rs`) runs on the interpreter and on the
//! JIT: both must leave the same memory and report the same error (or none).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxjit_fuzz::gen::Program;

fuzz_target!(|p: Program| ptxjit_fuzz::harness::differential(&p));
