//! Shared code of the fuzz targets: the program generator of `differential` ([`gen`]),
//! the launch inputs of `launch` ([`launch`]) and the property every target checks
//! ([`harness`]). `tests/fuzz_replay.rs` in the main crate includes these files with
//! `#[path]` to replay the committed inputs without a fuzzer.

pub mod gen;
pub mod harness;
pub mod launch;
