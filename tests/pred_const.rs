//! Predicate constants: `mov.pred %p, -1` (what nvcc emits for true) and any nonzero
//! integer are true. Oracle: ptxas (CUDA 12.9, sm_70) compiles `mov.pred %p, -1` and
//! `mov.pred %p, 2` to the same cubin, byte for byte, as `mov.pred %p, 1`, and `0` to
//! another. Both backends.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::Backend;

#[test]
fn nonzero_predicate_constants_are_true() {
    for (v, want) in [("-1", 1u32), ("2", 1), ("1", 1), ("0", 0)] {
        let src = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 o)\n{{\n .reg .pred %p;\n .reg .b32 %r;\n .reg .b64 %rd;\n mov.pred %p, {v};\n selp.u32 %r, 1, 0, %p;\n ld.param.u64 %rd, [o];\n st.global.u32 [%rd], %r;\n ret;\n}}\n"
        );
        for backend in [Backend::Interp, Backend::Jit] {
            let dev = device();
            let m = dev
                .load_ptx_with(&src, "pred.ptx", backend == Backend::Jit)
                .unwrap_or_else(|e| panic!("{v}: {e}"));
            let out = zeroed(&dev, 4);
            launch(
                &dev,
                &m,
                "k",
                &cfg([1, 1, 1], [1, 1, 1], backend),
                &[arg(&out)],
                v,
            );
            let got: Vec<u32> = dev.read(&out).expect("read");
            assert_eq!(got, vec![want], "mov.pred {v} on {backend:?}");
        }
    }
}
