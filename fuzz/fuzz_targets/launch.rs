//! Arbitrary launch configurations, arguments and buffer contents against the committed
//! kernels (see `src/launch.rs`): never a panic, crash or hang; faults are errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxjit_fuzz::launch::LaunchInput;

fuzz_target!(|input: LaunchInput| ptxjit_fuzz::harness::launch(&input));
