//! Control flow on the JIT: uniform and divergent branches, reconvergence, loops with
//! per-lane trip counts, unstructured CFGs, `exit` under divergence; every kernel is also
//! run on the interpreter and must leave the same memory and live masks.
#![allow(clippy::needless_range_loop)]

mod jit_util;

use jit_util::*;
use ptxjit::ir::*;
use Operand::{Imm, Reg};

fn setp_and(k: &mut KB, t: RegId, mask: u64, cmp: CmpOp, val: u64) -> RegId {
    let x = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, x, &[Reg(t), Imm(mask)]);
    let p = k.reg(Type::Pred);
    k.setp(cmp, Type::U32, p, Reg(x), Imm(val));
    p
}

fn run_out(m: &Module, n: u32) -> Vec<u32> {
    let dev = Dev::new();
    let layout = dev.layout(m);
    let out = dev.alloc_u32(&vec![0xdead; 128]);
    let (o, mem) = run_both(
        &dev,
        m,
        &layout,
        "k",
        &Launch::threads(n, params_u64(&[out])),
        &[(out, 512)],
    );
    assert!(
        o.statuses.iter().all(|&s| s == 0),
        "statuses {:?}",
        o.statuses
    );
    assert!(o.live.iter().all(|&l| l == 0), "live {:?}", o.live);
    mem[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn divergent_if_else_reconverges() {
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let even = setp_and(&mut k, t, 1, CmpOp::Eq, 0);
    let v = k.reg(Type::U32);
    k.mov(Type::U32, v, Imm(0));
    let b_odd = k.block();
    let b_even = k.block();
    let b_join = k.block();
    k.branch(even, false, b_even, b_odd);
    k.switch(b_odd);
    k.op(ArithOp::Mul(MulMode::Lo), Type::U32, v, &[Reg(t), Imm(3)]);
    k.jump(b_join);
    k.switch(b_even);
    k.op(ArithOp::Add, Type::U32, v, &[Reg(t), Imm(100)]);
    k.jump(b_join);
    k.switch(b_join);
    // After reconvergence every lane is active again: a coalesced store.
    k.st(Space::Global, Type::U32, a, 0, Reg(v));
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 64);
    for i in 0..64 {
        assert_eq!(
            got[i],
            if i % 2 == 0 {
                i as u32 + 100
            } else {
                3 * i as u32
            },
            "lane {i}"
        );
    }
}

#[test]
fn uniform_branches_take_the_fast_path() {
    // Every lane takes the same way: the branch condition depends on ctaid only.
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.reg(Type::U32);
    k.mov(Type::U32, t, Operand::Special(SpecialReg::Ntid(Dim::X)));
    let q = k.reg(Type::Pred);
    k.setp(CmpOp::Gt, Type::U32, q, Reg(t), Imm(16));
    let v = k.reg(Type::U32);
    let b1 = k.block();
    let b2 = k.block();
    let b3 = k.block();
    k.branch(q, false, b2, b1);
    k.switch(b1);
    k.mov(Type::U32, v, Imm(1));
    k.jump(b3);
    k.switch(b2);
    k.mov(Type::U32, v, Imm(2));
    k.jump(b3);
    k.switch(b3);
    k.st(Space::Global, Type::U32, a, 0, Reg(v));
    k.exit();
    let m = k.finish();
    assert_eq!(run_out(&m, 64)[..64], [2; 64]);
    assert_eq!(run_out(&m, 16)[..16], [1; 16]);
}

#[test]
fn loop_with_per_lane_trip_counts() {
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let n = k.reg(Type::U32);
    k.op(ArithOp::Rem, Type::U32, n, &[Reg(t), Imm(7)]);
    let i = k.reg(Type::U32);
    let s = k.reg(Type::U32);
    k.mov(Type::U32, i, Imm(0));
    k.mov(Type::U32, s, Imm(0));
    let head = k.block();
    let body = k.block();
    let done = k.block();
    k.jump(head);
    k.switch(head);
    let c = k.reg(Type::Pred);
    k.setp(CmpOp::Lt, Type::U32, c, Reg(i), Reg(n));
    k.branch(c, true, done, body);
    k.switch(body);
    let sq = k.reg(Type::U32);
    k.push(InstKind::Arith {
        op: ArithOp::Mad(MulMode::Lo),
        ty: Type::U32,
        fmode: FloatMode::default(),
        dst: sq,
        srcs: vec![Reg(i), Reg(i), Reg(t)],
    });
    k.op(ArithOp::Add, Type::U32, s, &[Reg(s), Reg(sq)]);
    k.op(ArithOp::Add, Type::U32, i, &[Reg(i), Imm(1)]);
    k.jump(head);
    k.switch(done);
    k.st(Space::Global, Type::U32, a, 0, Reg(s));
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 64);
    for t in 0..64u32 {
        let want: u32 = (0..t % 7).map(|i| i * i + t).sum();
        assert_eq!(got[t as usize], want, "lane {t}");
    }
}

#[test]
fn exit_under_divergence() {
    // Lanes t%3==0 exit at once (guarded exit); the rest diverge; odd ones exit inside
    // their arm while the even ones are still pending; the survivors store.
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let three = k.reg(Type::U32);
    k.op(ArithOp::Rem, Type::U32, three, &[Reg(t), Imm(3)]);
    let z = k.reg(Type::Pred);
    k.setp(CmpOp::Eq, Type::U32, z, Reg(three), Imm(0));
    let b1 = k.block();
    let b_odd = k.block();
    let b_even = k.block();
    let b_join = k.block();
    k.exit_if(z, false, b1);
    k.switch(b1);
    let even = setp_and(&mut k, t, 1, CmpOp::Eq, 0);
    k.branch(even, false, b_even, b_odd);
    k.switch(b_odd);
    k.st(Space::Global, Type::U32, a, 0, Imm(1));
    k.exit();
    k.switch(b_even);
    k.st(Space::Global, Type::U32, a, 0, Imm(2));
    k.jump(b_join);
    k.switch(b_join);
    k.st(Space::Global, Type::U32, a, 128, Imm(3));
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 32);
    for t in 0..32 {
        let want = if t % 3 == 0 {
            0xdead
        } else if t % 2 == 1 {
            1
        } else {
            2
        };
        assert_eq!(got[t], want, "lane {t}");
        let want2 = if t % 3 != 0 && t % 2 == 0 { 3 } else { 0xdead };
        assert_eq!(got[t + 32], want2, "lane {t} (join)");
    }
}

#[test]
fn every_lane_exits_by_guarded_exit() {
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let q = k.reg(Type::Pred);
    k.setp(CmpOp::Ge, Type::U32, q, Reg(t), Imm(0));
    let b1 = k.block();
    k.exit_if(q, false, b1);
    k.switch(b1);
    k.st(Space::Global, Type::U32, a, 0, Imm(1));
    k.exit();
    let m = k.finish();
    assert_eq!(run_out(&m, 40)[..64], [0xdead; 64]);
}

#[test]
fn unstructured_cfg_with_irreducible_loop() {
    // b0 -> b1 | b2 ; b1 -> b2 | b3 ; b2 -> b3 ; b3 -> b1 (while x < 60) | b4.
    // The loop b1 -> b3 -> b1 is entered both at b1 and (through b2) at b3.
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let x = k.reg(Type::U32);
    k.mov(Type::U32, x, Reg(t));
    let b1 = k.block();
    let b2 = k.block();
    let b3 = k.block();
    let b4 = k.block();
    let odd = setp_and(&mut k, t, 1, CmpOp::Ne, 0);
    k.branch(odd, false, b2, b1);
    k.switch(b1);
    k.op(ArithOp::Add, Type::U32, x, &[Reg(x), Imm(1)]);
    let q = setp_and(&mut k, x, 2, CmpOp::Ne, 0);
    k.branch(q, false, b3, b2);
    k.switch(b2);
    k.op(ArithOp::Mul(MulMode::Lo), Type::U32, x, &[Reg(x), Imm(3)]);
    k.jump(b3);
    k.switch(b3);
    k.op(ArithOp::Add, Type::U32, x, &[Reg(x), Reg(t)]);
    let r = k.reg(Type::Pred);
    k.setp(CmpOp::Lt, Type::U32, r, Reg(x), Imm(60));
    k.branch(r, false, b1, b4);
    k.switch(b4);
    k.st(Space::Global, Type::U32, a, 0, Reg(x));
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 64);
    // Scalar reference.
    for t in 0..64u32 {
        let mut x = t;
        let mut blk = if t & 1 != 0 { 2 } else { 1 };
        loop {
            match blk {
                1 => {
                    x += 1;
                    blk = if x & 2 != 0 { 3 } else { 2 };
                }
                2 => {
                    x = x.wrapping_mul(3);
                    blk = 3;
                }
                3 => {
                    x = x.wrapping_add(t);
                    if x < 60 {
                        blk = 1;
                    } else {
                        break;
                    }
                }
                _ => unreachable!(),
            }
        }
        assert_eq!(got[t as usize], x, "lane {t}");
    }
}

#[test]
fn nested_divergence_and_jumps_while_pending() {
    // if (t&1) { if (t&2) x=1 else x=2 } else { x=3 }; x += t  (join after nested join)
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let x = k.reg(Type::U32);
    let b_odd = k.block(); // 1
    let b_o2 = k.block(); // 2: t&2 == 0
    let b_o1 = k.block(); // 3: t&2 != 0
    let b_ojoin = k.block(); // 4
    let b_even = k.block(); // 5
    let b_join = k.block(); // 6
    let odd = setp_and(&mut k, t, 1, CmpOp::Ne, 0);
    k.branch(odd, true, b_even, b_odd);
    k.switch(b_odd);
    let q = setp_and(&mut k, t, 2, CmpOp::Ne, 0);
    k.branch(q, false, b_o1, b_o2);
    k.switch(b_o2);
    k.mov(Type::U32, x, Imm(2));
    k.jump(b_ojoin);
    k.switch(b_o1);
    k.mov(Type::U32, x, Imm(1));
    k.jump(b_ojoin);
    k.switch(b_ojoin);
    k.op(ArithOp::Mul(MulMode::Lo), Type::U32, x, &[Reg(x), Imm(10)]);
    k.jump(b_join);
    k.switch(b_even);
    k.mov(Type::U32, x, Imm(3));
    k.jump(b_join);
    k.switch(b_join);
    k.op(ArithOp::Add, Type::U32, x, &[Reg(x), Reg(t)]);
    k.st(Space::Global, Type::U32, a, 0, Reg(x));
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 50);
    for t in 0..50u32 {
        let x = if t & 1 != 0 {
            if t & 2 != 0 {
                10
            } else {
                20
            }
        } else {
            3
        };
        assert_eq!(got[t as usize], x + t, "lane {t}");
    }
}

#[test]
fn ret_in_kernel_is_exit() {
    let mut k = KB::new("k");
    let p = k.param("out", Type::U64);
    let a = k.elem_addr(p, 4);
    let t = k.tid();
    let q = setp_and(&mut k, t, 4, CmpOp::Ne, 0);
    let b1 = k.block();
    let id = k.m.inst_info.len() as u32;
    k.m.inst_info.push(InstInfo {
        loc: Loc { line: 99, col: 1 },
        text: "ret".into(),
        func: FuncId(0),
    });
    k.f.blocks[BlockId(0)].term = Terminator::Ret {
        guard: Some(Guard {
            pred: q,
            negate: false,
        }),
        next: Some(b1),
        inst: InstId(id),
    };
    k.switch(b1);
    k.st(Space::Global, Type::U32, a, 0, Imm(5));
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 32);
    for t in 0..32 {
        assert_eq!(got[t], if t & 4 != 0 { 0xdead } else { 5 });
    }
}

#[test]
fn predicate_logic_and_guards() {
    // p = t&1, q = t&2; r = (p xor q) or !p ; @!r store
    let mut k = KB::new("k");
    let p0 = k.param("out", Type::U64);
    let a = k.elem_addr(p0, 4);
    let t = k.tid();
    let p = setp_and(&mut k, t, 1, CmpOp::Ne, 0);
    let q = setp_and(&mut k, t, 2, CmpOp::Ne, 0);
    let x = k.reg(Type::Pred);
    k.op(ArithOp::Xor, Type::Pred, x, &[Reg(p), Reg(q)]);
    let np = k.reg(Type::Pred);
    k.op(ArithOp::Not, Type::Pred, np, &[Reg(p)]);
    let r = k.reg(Type::Pred);
    k.op(ArithOp::Or, Type::Pred, r, &[Reg(x), Reg(np)]);
    let r2 = k.reg(Type::Pred);
    k.op(ArithOp::And, Type::Pred, r2, &[Reg(r), Reg(q)]);
    k.push_g(
        Some(Guard {
            pred: r,
            negate: true,
        }),
        InstKind::St {
            space: Space::Global,
            ty: Type::U32,
            srcs: vec![Imm(7)],
            addr: Address {
                base: AddrBase::Reg(a),
                offset: 0,
            },
        },
    );
    k.push_g(
        Some(Guard {
            pred: r2,
            negate: false,
        }),
        InstKind::St {
            space: Space::Global,
            ty: Type::U32,
            srcs: vec![Imm(9)],
            addr: Address {
                base: AddrBase::Reg(a),
                offset: 128,
            },
        },
    );
    k.exit();
    let m = k.finish();
    let got = run_out(&m, 32);
    for t in 0..32 {
        let (p, q) = (t & 1 != 0, t & 2 != 0);
        let r = (p ^ q) || !p;
        assert_eq!(got[t], if !r { 7 } else { 0xdead }, "lane {t}");
        assert_eq!(got[t + 32], if r && q { 9 } else { 0xdead }, "lane {t}");
    }
}
