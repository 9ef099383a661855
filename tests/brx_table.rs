//! `brx.idx` whose lanes take different entries (the per-lane record of targets,
//! `jit::control::brx`: a byte-table lookup for lists of up to 16 entries) where the
//! targets' block numbers need more than one byte: 300 blocks come before them. Both
//! backends, against values computed by hand in the comments.
#[macro_use]
mod common;
use common::*;

/// 300 filler blocks (each adds 1 to `%r2`; the guarded branches are never taken), then
/// `brx.idx` on `tid & 3` to blocks that set 10, 20, 30, 40; thread `t` writes that plus
/// 300.
fn ptx() -> String {
    let mut s = String::from(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry big(.param .u64 big_out)\n{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [big_out];\ncvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 99;\nmov.u32 %r2, 0;\n",
    );
    for i in 0..300 {
        s += &format!("@%p1 bra F{i};\nF{i}:\nadd.u32 %r2, %r2, 1;\n");
    }
    s += "and.b32 %r3, %r1, 3;\nts: .branchtargets T0, T1, T2, T3;\nbrx.idx %r3, ts;\n";
    for (i, v) in [10, 20, 30, 40].iter().enumerate() {
        s += &format!("T{i}:\nmov.u32 %r4, {v};\nbra.uni D;\n");
    }
    s += "D:\nadd.u32 %r4, %r4, %r2;\nmul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd2, %rd1, %rd2;\n\
          st.global.u32 [%rd2], %r4;\nret;\n}\n";
    s
}

fn big(backend: Backend) {
    let dev = device();
    let src = ptx();
    let m = match backend {
        Backend::Jit => dev.load_ptx(&src, "brx_table.ptx"),
        Backend::Interp => dev.load_ptx_with(&src, "brx_table.ptx", false),
    }
    .unwrap_or_else(|e| panic!("load: {e}"));
    let out = zeroed(&dev, 4 * 48);
    let c = cfg([1, 1, 1], [48, 1, 1], backend);
    launch(&dev, &m, "big", &c, &[arg(&out)], "big");
    let want: Vec<u32> = (0..48u32)
        .map(|t| [10, 20, 30, 40][(t & 3) as usize] + 300)
        .collect();
    assert_slice_eq(
        &dev.read::<u32>(&out).unwrap(),
        &want,
        &format!("big {backend:?}"),
    );
}

both_backends!(big);
