//! The front end of the carry chain, the extended `min`/`max` forms, `copysign`, `testp`
//! and `lop3.{and,or}`: each invalid form is a located load-time error, and the hidden
//! `CC.CF` register is one predicate per function.

use ptxjit::check::parse_and_check;
use ptxjit::ir::{InstKind, Type};

fn kernel(body: &str) -> String {
    format!(
        ".version 8.2\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
         \t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n{body}\n\tret;\n}}\n"
    )
}

fn err(body: &str) -> String {
    match parse_and_check(&kernel(body), "e.ptx") {
        Ok(_) => panic!("no error for {body}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn invalid_forms_are_located_errors() {
    let cases = [
        ("\tadd.cc.u16 %r1, %r2, %r3;", "e.ptx:11:2: error: type .u16 is not valid for 'add.cc.u16'"),
        ("\tsub.cc.f32 %f1, %f2, %f3;", "e.ptx:11:2: error: type .f32 is not valid for 'sub.cc.f32'"),
        ("\tadd.cc.b32 %r1, %r2, %r3;", "e.ptx:11:2: error: type .b32 is not valid for 'add.cc.b32'"),
        (
            "\taddc.sat.s32 %r1, %r2, %r3;",
            "e.ptx:11:6: error: instruction 'addc.sat.s32' is not supported yet (modifier '.sat')",
        ),
        ("\tmadc.cc.u32 %r1, %r2, %r3, %r4;", "e.ptx:11:2: error: 'madc.cc.u32' needs '.lo' or '.hi'"),
        (
            "\tmad.lo.cc.u32 %r1, %r2, %r3;",
            "e.ptx:11:2: error: instruction 'mad.lo.cc.u32' takes 4 operands, not 3",
        ),
        (
            "\tsubc.cc.u64 %r1, %rd2, %rd3;",
            "e.ptx:11:14: error: register '%r1' has type .b32, which does not fit instruction type .u64",
        ),
        ("\tmin.NaN.f64 %fd1, %fd2, %fd3;", "e.ptx:11:2: error: '.NaN' is not valid for this type in 'min.NaN.f64'"),
        ("\tmin.relu.u32 %r1, %r2, %r3;", "e.ptx:11:2: error: type .u32 is not valid for 'min.relu.u32'"),
        ("\tmax.relu.s64 %rd1, %rd2, %rd3;", "e.ptx:11:2: error: type .s64 is not valid for 'max.relu.s64'"),
        ("\tmax.relu.f32 %f1, %f2, %f3;", "e.ptx:11:2: error: '.relu' is not valid for this type in 'max.relu.f32'"),
        (
            "\tmin.xorsign.f32 %f1, %f2, %f3;",
            "e.ptx:11:2: error: '.xorsign' and '.abs' go together in 'min.xorsign.f32'",
        ),
        ("\tmin.abs.f32 %f1, %f2, %f3;", "e.ptx:11:2: error: '.xorsign' and '.abs' go together in 'min.abs.f32'"),
        (
            "\tmin.u16x2.relu %r1, %r2, %r3;",
            "e.ptx:11:2: error: '.relu' is not valid for this type in 'min.u16x2.relu'",
        ),
        ("\tmin.ftz.s16x2 %r1, %r2, %r3;", "e.ptx:11:2: error: '.ftz' is not valid for this type in 'min.ftz.s16x2'"),
        ("\tmin.u16x2.u32 %r1, %r2, %r3;", "e.ptx:11:11: error: 'min.u16x2.u32' has too many types"),
        // Three-input min/max (PTX 8.8) exists for .f32 only (tests/minmax3.rs).
        ("\tmin.f64 %fd1, %fd2, %fd3, %fd1;", "e.ptx:11:2: error: instruction 'min.f64' is not supported yet"),
        (
            "\tcopysign.ftz.f32 %f1, %f2, %f3;",
            "e.ptx:11:10: error: instruction 'copysign.ftz.f32' is not supported yet (modifier '.ftz')",
        ),
        ("\tcopysign.s32 %r1, %r2, %r3;", "e.ptx:11:2: error: type .s32 is not valid for 'copysign.s32'"),
        ("\ttestp.f32 %p1, %f1;", "e.ptx:11:2: error: 'testp.f32' needs a test (.finite ...)"),
        ("\ttestp.normal.s32 %p1, %r1;", "e.ptx:11:2: error: type .s32 is not valid for 'testp.normal.s32'"),
        (
            "\ttestp.normal.f32 %r1, %f1;",
            "e.ptx:11:19: error: register '%r1' has type .b32, which does not fit instruction type .pred",
        ),
        (
            "\tlop3.or.b32 %r1, %r2, %r3, %r4, 0x3f, %p1;",
            "e.ptx:11:14: error: 'lop3.or.b32' needs a destination pair 'd|p'",
        ),
        ("\tlop3.or.b32 %r1|_, %r2, %r3, %r4, 0x3f, %p1;", "e.ptx:11:18: error: expected a destination register"),
        (
            "\tlop3.or.b32 %r1|%p2, %r2, %r3, %r4, %r5, %p1;",
            "e.ptx:11:38: error: the lop3 look-up table must be an integer immediate",
        ),
        ("\tlop3.or.b32 %r1|%p2, %r2, %r3, %r4, 0x3f, 2;", "e.ptx:11:44: error: expected a predicate or 0 or 1"),
        (
            "\tlop3.and.b32 %r1|%p2, %r2, %r3, %r4, 0x3f, %r1;",
            "e.ptx:11:45: error: '%r1' is not a predicate register",
        ),
        (
            "\tlop3.xor.b32 %r1|%p2, %r2, %r3, %r4, 0x3f, %p1;",
            "e.ptx:11:2: error: the BoolOp of 'lop3.xor.b32' must be '.and' or '.or'",
        ),
        ("\tabs.ftz.f64 %fd1, %fd2;", "e.ptx:11:2: error: '.ftz' and '.sat' are only valid for .f32 in 'abs.ftz.f64'"),
        ("\tneg.u32 %r1, %r2;", "e.ptx:11:2: error: type .u32 is not valid for 'neg.u32'"),
    ];
    let mut bad = Vec::new();
    for (body, want) in cases {
        let got = err(body);
        if got != want {
            bad.push(format!("{body}\n  got:  {got}\n  want: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every carry instruction of a function uses the same hidden predicate register; each
/// function has its own; instructions without carry-in or carry-out leave it alone.
#[test]
fn one_hidden_cc_register_per_function() {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .func (.reg .u32 r) f(.reg .u32 a)\n{\n\tadd.cc.u32 r, a, a;\n\taddc.u32 r, r, 0;\n\tret;\n}\n\
        .visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
        \tadd.cc.u32 %r1, %r2, %r3;\n\tsubc.cc.u32 %r1, %r2, %r3;\n\
        \tmad.hi.cc.s64 %rd1, %rd2, %rd3, %rd1;\n\tmadc.lo.u64 %rd1, %rd2, %rd3, %rd1;\n\
        \tcall.uni (%r1), f, (%r2);\n\tret;\n}\n";
    let m = parse_and_check(src, "cc.ptx").unwrap_or_else(|e| panic!("{e}"));
    for f in &m.functions {
        let mut cc = Vec::new();
        for b in &f.blocks {
            for i in &b.insts {
                if let InstKind::Carry { cc_in, cc_out, .. } = &i.kind {
                    cc.push((*cc_in, *cc_out));
                }
            }
        }
        let regs: Vec<_> = cc.iter().flat_map(|(i, o)| i.iter().chain(o)).collect();
        assert!(!regs.is_empty(), "{}", f.name);
        assert!(regs.iter().all(|r| r == &regs[0]), "{}: {cc:?}", f.name);
        assert_eq!(f.regs[*regs[0]].ty, Type::Pred);
        assert_eq!(f.regs.iter().filter(|r| r.name == "%CC.CF").count(), 1);
        if f.name == "k" {
            // add.cc: out only; subc.cc: both; mad.hi.cc: out only; madc.lo: in only.
            let shape: Vec<(bool, bool)> =
                cc.iter().map(|(i, o)| (i.is_some(), o.is_some())).collect();
            assert_eq!(
                shape,
                [(false, true), (true, true), (false, true), (true, false)]
            );
        }
    }
}
