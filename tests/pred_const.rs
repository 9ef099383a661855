//! Predicate constants: `mov.pred %p, -1` (what nvcc emits for true) and any nonzero
//! integer are true. Oracle: ptxas (CUDA 12.9, sm_70) compiles `mov.pred %p, -1` and
//! `mov.pred %p, 2` to the same cubin, byte for byte, as `mov.pred %p, 1`, and `0` to
//! another. Both backends.
#[allow(unused_macros)]
#[macro_use]
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

/// `tests/ptx/pred_imm_add16x2.ptx` (passes ptxas 12.9 for sm_90): constant predicate
/// sources of `selp`, `vote` and `setp`'s combining operand, and `add.u16x2`/`add.s16x2`.
/// Reference: plain Rust per the ISA (half-words added apart and wrapped; the signed form
/// gives the same bits).
fn pred_imm_add16x2(backend: Backend) {
    let src = load_root("tests/ptx/pred_imm_add16x2.ptx");
    let dev = device();
    let m = dev
        .load_ptx_with(&src, "pred_imm_add16x2.ptx", backend == Backend::Jit)
        .unwrap_or_else(|e| panic!("{e}"));
    let n = 32usize;
    let mut rng = Rng::new(7);
    let mut a = rng.vec_u32(n);
    let b = rng.vec_u32(n);
    // Edge half-words: carries out of each half must not cross into the other.
    a[0] = 0xffff_ffff;
    a[1] = 0x8000_7fff;
    let (da, db) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&b).unwrap());
    let out = zeroed(&dev, n * 24);
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&da), arg(&db), arg(&out)],
        "pred_imm_add16x2",
    );
    let got: Vec<u32> = dev.read(&out).expect("read");
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let lo = (x as u16).wrapping_add(y as u16) as u32;
        let hi = ((x >> 16) as u16).wrapping_add((y >> 16) as u16) as u32;
        let sum = hi << 16 | lo;
        let lt = x < y;
        let flags = 1 | (lt as u32) << 2 | (lt as u32) << 3;
        let want = [sum, sum, y, x, u32::MAX, flags];
        assert_eq!(&got[6 * i..6 * i + 6], &want, "lane {i} on {backend:?}");
    }
}
both_backends!(pred_imm_add16x2);
