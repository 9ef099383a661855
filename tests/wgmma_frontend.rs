//! Front-end checks of `wgmma`: the forms ptxas rejects and the one ptxjit does not
//! implement (`.sp`) are located errors; an immediate scale-d loads.

/// A kernel around one instruction (for the front-end checks).
fn one_inst(inst: &str) -> String {
    format!(
        ".version 8.4\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n\t{inst}\n\tret;\n}}\n"
    )
}

fn check_err(inst: &str) -> String {
    match ptxjit::check::parse_and_check(&one_inst(inst), "e.ptx") {
        Ok(_) => panic!("no error for {inst}"),
        Err(e) => e.to_string(),
    }
}

/// Forms ptxas rejects (each checked with ptxas -arch sm_90a) and the sparse form
/// ptxjit does not implement are located errors; an immediate scale-d loads.
#[test]
fn unsupported_and_invalid_forms_are_located_errors() {
    let acc4 = "{%r0, %r1, %r2, %r3}";
    let cases = [
        (
            format!("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {acc4}, %rd1, %rd2, %p1;"),
            "e.ptx:9:2: error: instruction 'wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc' is not supported yet",
        ),
        (
            "wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r0, %r1}, %rd1, %rd2, %p1, 1, 1, 0, 0;".to_string(),
            "e.ptx:9:2: error: instruction 'wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16' is not supported yet",
        ),
        (
            format!("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc4}, %rd1, %rd2, %p1, 2, 1, 0, 0;"),
            "e.ptx:9:91: error: wgmma.mma_async: imm-scale-a/b must be 1 or -1",
        ),
        (
            format!("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {acc4}, %rd1, %rd2, %p1, 1, 1, 0, 0;"),
            "e.ptx:9:98: error: instruction 'wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32' takes 6 operands, not 8",
        ),
        (
            format!("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {acc4}, %rd1, %rd2, %r5, 0, %p1, 1, 1, 0, 0;"),
            "e.ptx:9:2: error: instruction 'wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16' is not supported yet",
        ),
        (
            "wgmma.wait_group.sync.aligned %r1;".to_string(),
            "e.ptx:9:32: error: wgmma.wait_group needs an integer constant",
        ),
    ];
    let got: Vec<String> = cases.iter().map(|(inst, _)| check_err(inst)).collect();
    let want: Vec<&str> = cases.iter().map(|(_, w)| *w).collect();
    assert_eq!(got, want);
    // The n = 40 integer shape does not exist (ptxas: "Illegal matrix shape").
    let regs: Vec<String> = (0..20).map(|i| format!("%r{i}")).collect();
    let e = check_err(&format!(
        "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {{{}}}, %rd1, %rd2, %p1;",
        regs.join(", ")
    ));
    assert!(e.starts_with("e.ptx:9:2: error: instruction 'wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8' is not supported yet"), "{e}");
    let imm = format!(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc4}, %rd1, %rd2, 1, 1, 1, 0, 0;"
    );
    ptxjit::check::parse_and_check(&one_inst(&imm), "e.ptx").unwrap();
}
