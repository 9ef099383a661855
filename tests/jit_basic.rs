//! Basic JIT tests on hand-built IR: moves, special registers, parameters, coalesced
//! stores, predication.

mod jit_util;

use jit_util::*;
use ptxjit::ir::*;
use Operand::{Imm, Reg};

#[test]
fn store_tid_times_two() {
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let v = k.reg(Type::U32);
    k.op(ArithOp::Add, Type::U32, v, &[Reg(t), Reg(t)]);
    k.st(Space::Global, Type::U32, a, 0, Reg(v));
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let jit = compile(&m, &layout);
    let out = dev.alloc_u32(&[0; 64]);
    let o = run(
        &dev,
        &jit,
        &m,
        "k",
        &Launch::threads(64, params_u64(&[out])),
    );
    assert_eq!(o.statuses, vec![0, 0]);
    let got = dev.read_u32(out, 64);
    assert_eq!(got, (0..64).map(|i| 2 * i).collect::<Vec<u32>>());
}

#[test]
fn partial_warp_and_guard() {
    // 40 threads: warp 1 has 8 live lanes. Odd threads store 1, even ones 2.
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let odd = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, odd, &[Reg(t), Imm(1)]);
    let q = k.reg(Type::Pred);
    k.setp(CmpOp::Ne, Type::U32, q, Reg(odd), Imm(0));
    let v = k.reg(Type::U32);
    k.mov(Type::U32, v, Imm(2));
    k.push_g(
        Some(Guard {
            pred: q,
            negate: false,
        }),
        InstKind::Mov {
            ty: Type::U32,
            dst: v,
            src: Imm(1),
        },
    );
    k.st(Space::Global, Type::U32, a, 0, Reg(v));
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let jit = compile(&m, &layout);
    let out = dev.alloc_u32(&[7; 64]);
    let o = run(
        &dev,
        &jit,
        &m,
        "k",
        &Launch::threads(40, params_u64(&[out])),
    );
    assert_eq!(o.statuses, vec![0, 0]);
    let got = dev.read_u32(out, 64);
    for (i, &g) in got.iter().enumerate() {
        let want = if i >= 40 {
            7
        } else if i % 2 == 1 {
            1
        } else {
            2
        };
        assert_eq!(g, want, "thread {i}");
    }
    assert_eq!(o.live, vec![0, 0]);
}
