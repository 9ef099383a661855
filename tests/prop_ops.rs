//! Property tests: every scalar operation family the front end accepts, applied to
//! per-lane inputs biased to special values, runs on both backends (JIT and interpreter)
//! and is checked bit for bit against the public `ptxjit::ops` function evaluated here
//! and, where one is written in `prop/`, an independent reference. See `prop/mod.rs`
//! for the harness and `prop/gen.rs` for the inputs.

#[allow(unused_macros)]
mod common;
mod prop;

use prop::{run, try_run, Plan};

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

#[test]
fn bits() {
    run("bits", prop::bits::bit_forms(), Plan::new(8));
}

#[test]
fn int_minmax_ext() {
    run("int_minmax_ext", prop::bits::int_minmax_forms(), Plan::new(9));
}

#[test]
fn carry_chain() {
    run("carry_chain", prop::bits::carry_forms(), Plan::new(10));
}

#[test]
fn half_arith() {
    run("half_arith", prop::half::arith_forms(), Plan::new(11));
}

#[test]
fn half_compare() {
    run("half_compare", prop::half::compare_forms(), Plan::new(12));
}

#[test]
fn cvt() {
    run("cvt", prop::cvt::main_forms(), Plan::new(13));
}

/// `cvt` to and from `.f16`/`.bf16`: the front end does not take these yet (a located
/// "not supported" error); once it does, they are checked like every other pair.
#[test]
fn cvt_half() {
    match try_run("cvt_half", prop::cvt::half_forms(), Plan::new(14)) {
        Ok(()) => {}
        Err(e) if e.contains("not supported") && e.contains("prop_cvt_half.ptx:") => {
            eprintln!("cvt_half: skipped, the front end rejects half conversions: {e}")
        }
        Err(e) => panic!("cvt_half: {e}"),
    }
}
