//! Property tests: every scalar operation family the front end accepts, applied to
//! per-lane inputs biased to special values, runs on both backends (JIT and interpreter)
//! and is checked bit for bit against the public `ptxjit::ops` function evaluated here
//! and, where one is written in `prop/`, an independent reference. See `prop/mod.rs`
//! for the harness and `prop/gen.rs` for the inputs.

mod common;
mod prop;

use prop::{run, Plan};

#[test]
fn int_arith() {
    run("int_arith", prop::int::arith_forms(), Plan::new(1));
}

#[test]
fn int_logic_shift() {
    run("int_logic_shift", prop::int::logic_shift_forms(), Plan::new(2));
}

#[test]
fn int_compare_select() {
    run("int_compare_select", prop::int::compare_forms(), Plan::new(3));
}

#[test]
fn float_arith() {
    run("float_arith", prop::float::arith_forms(), Plan::new(4));
}

#[test]
fn float_sfu() {
    run("float_sfu", prop::float::sfu_forms(), Plan::new(5));
}

#[test]
fn float_sign_minmax() {
    run("float_sign_minmax", prop::float::sign_minmax_forms(), Plan::new(6));
}

#[test]
fn float_compare() {
    run("float_compare", prop::float::compare_forms(), Plan::new(7));
}
