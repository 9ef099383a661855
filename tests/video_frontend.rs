//! The video instructions' front end against `ptxas` (12.9, `--gpu-name sm_90`): forms it
//! accepts load, forms it rejects are located errors. (Their semantics are checked
//! against an H100 by tests/golden.rs, all 836 forms of `future_video.ptx`.)

use ptxjit::check::parse_and_check;

fn kernel(inst: &str) -> String {
    format!(".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<8>;\n{inst}\nret;\n}}\n")
}

#[test]
fn accepted_as_ptxas_accepts() {
    for inst in [
        "vadd4.u32.u32.u32.add %r1.b20, %r2.b0000, %r3.b7777, %r4;",
        "vset.u32.u32.lt.add %r1, %r2.b0, %r3, %r4;",
        "vadd.u32.u32.u32 %r1, %r2, 5;",
        "vmad.u32.u32.u32 %r1, %r2.h0, %r3, -%r4;",
        "vmad.s32.s32.u32.sat %r0, %r1, %r2, -%r3;",
        "vmad.u32.u32.u32.shr15 %r0, %r1.h0, %r2.h0, %r3;",
        "vsub2.s32.s32.s32.sat %r1.h0, %r2.h10, %r3.h32, %r1;",
        "vshr.u32.u32.u32.wrap %r1, %r2, %r3.h1;",
        "vabsdiff.s32.s32.s32.sat %r1.h0, %r2.b0, %r3.b2, %r4;",
    ] {
        if let Err(e) = parse_and_check(&kernel(inst), "v.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

#[test]
fn rejected_as_ptxas_rejects() {
    for (inst, msg) in [
        (
            "vadd2.s32.s32.s32.sat.add %r1, %r2, %r3, %r4;",
            "v.ptx:7:1: error: 'vadd2.s32.s32.s32.sat.add': '.sat' cannot be used with '.add'",
        ),
        (
            "vmad.u32.u32.u32.po %r1, -%r2, %r3, %r4;",
            "v.ptx:7:27: error: this operand cannot be negated",
        ),
        (
            "vadd.u32.u32.u32.sat.add %r1.h0, %r2, %r3, %r4;",
            "v.ptx:7:1: error: 'vadd.u32.u32.u32.sat.add': a destination selector excludes a secondary operation",
        ),
        (
            "vshl.u32.u32.s32.wrap %r1, %r2, %r3;",
            "v.ptx:7:1: error: 'vshl.u32.u32.s32.wrap': the shift amount's type must be .u32",
        ),
        (
            "vmin.u32.u32.u32.max %r1, %r2, %r3, %r4.b1;",
            "v.ptx:7:37: error: this operand takes no selector",
        ),
        (
            "vadd4.u32.u32.u32 %r1, %r2.b01, %r3, %r4;",
            "v.ptx:7:24: error: '.b01' is not a 4-element selector",
        ),
    ] {
        match parse_and_check(&kernel(inst), "v.ptx") {
            Ok(_) => panic!("accepted: {inst}"),
            Err(e) => assert_eq!(e.to_string(), msg, "{inst}"),
        }
    }
}
