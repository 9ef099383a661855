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

#[test]
fn large_kernels_use_the_fast_compile_tier() {
    // More than 1500 instructions: compiled with the single-pass register allocator,
    // with the same results.
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let v = k.reg(Type::U32);
    k.mov(Type::U32, v, Reg(t));
    let odd = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, odd, &[Reg(t), Imm(1)]);
    let q = k.reg(Type::Pred);
    k.setp(CmpOp::Ne, Type::U32, q, Reg(odd), Imm(0));
    for i in 0..1600u64 {
        let g = (i % 7 == 3).then_some(Guard {
            pred: q,
            negate: i % 2 == 0,
        });
        let op = [ArithOp::Add, ArithOp::Xor, ArithOp::Mul(MulMode::Lo)][(i % 3) as usize];
        k.push_g(
            g,
            InstKind::Arith {
                op,
                ty: Type::U32,
                fmode: FloatMode::default(),
                dst: v,
                srcs: vec![Reg(v), Imm(i * 2 + 1)],
            },
        );
    }
    k.st(Space::Global, Type::U32, a, 0, Reg(v));
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let out = dev.alloc_u32(&[0; 64]);
    let (o, mem) = run_both(
        &dev,
        &m,
        &layout,
        "k",
        &Launch::threads(64, params_u64(&[out])),
        &[(out, 256)],
    );
    assert_eq!(o.statuses, vec![0, 0]);
    for t in 0..64u32 {
        let mut v = t;
        for i in 0..1600u32 {
            if i % 7 == 3 && ((t & 1 != 0) == (i % 2 == 0)) {
                continue;
            }
            let c = i * 2 + 1;
            v = match i % 3 {
                0 => v.wrapping_add(c),
                1 => v ^ c,
                _ => v.wrapping_mul(c),
            };
        }
        assert_eq!(
            u32::from_le_bytes(
                mem[0][4 * t as usize..4 * t as usize + 4]
                    .try_into()
                    .unwrap()
            ),
            v,
            "t={t}"
        );
    }
}
