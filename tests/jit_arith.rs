//! Differential tests of every arithmetic, comparison, selection and conversion family:
//! for each (operation, type, modifiers) a kernel loads per-lane operands (edge values:
//! NaN payloads, infinities, subnormals, ±0, integer extremes, random bits), runs the
//! instruction under a partial guard, and stores the result; the JIT and the
//! interpreter must leave identical memory.

mod jit_util;

use jit_util::*;
use ptxjit::ir::*;
use Operand::{Imm, Reg};

const N: usize = 64;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Interesting bit patterns for a type, padded with random values.
fn values(ty: Type, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let special: Vec<u64> = match ty {
        Type::F32 => vec![
            0,
            0x8000_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x7f80_0001,
            0x0000_0001,
            0x807f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0x3f00_0000,
            0x4b00_0001,
            0x4f00_0000,
            0xcf00_0001,
            0x3fc0_0000,
            0x4020_0000,
            0xbfc0_0000,
            0x3f7f_ffff,
        ],
        Type::F64 => vec![
            0,
            1 << 63,
            0x3ff0_0000_0000_0000,
            0xbff0_0000_0000_0000,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0001,
            0x7ff0_0000_0000_0001,
            1,
            0x800f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x3fe0_0000_0000_0000,
            0x41e0_0000_0000_0000,
            0xc1e0_0000_0020_0000,
            0x43e0_0000_0000_0000,
            0x3ff8_0000_0000_0000,
            0x36a0_0000_0000_0000,
            0x47f0_0000_0000_0000,
        ],
        _ => {
            let w = ty.bits().min(64);
            let m = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            vec![
                0,
                1,
                2,
                m,
                m >> 1,
                (m >> 1) + 1,
                3,
                m - 1,
                31,
                32,
                33,
                63,
                64,
                7,
                8,
                16,
                5,
            ]
        }
    };
    let mut v = special;
    while v.len() < N {
        let x = r.next();
        v.push(match ty {
            // Mostly ordinary floats, some random bit patterns.
            Type::F32 if !v.len().is_multiple_of(3) => {
                (((x >> 40) as f32 / 1e3) - 5000.0).to_bits() as u64
            }
            Type::F64 if !v.len().is_multiple_of(3) => (((x >> 20) as f64 / 1e7) - 5e5).to_bits(),
            _ => x,
        });
    }
    // Rotate so that operands pair special values differently.
    v.rotate_left((seed % N as u64) as usize);
    v
}

fn ld_ty(ty: Type) -> Type {
    ty
}

/// Builds `out[i] = @p op(a[i], b[i], c[i])` (out keeps its value where p is false).
/// `b_mode`: 0 = per-lane register, 1 = immediate `imm`, 2 = uniform register (param).
fn arith_kernel(op: ArithOp, ty: Type, fm: FloatMode, b_mode: u8, imm: u64) -> Module {
    let wide = ty.widened().unwrap_or(ty);
    let (ta, tb, tc, to) = match op {
        ArithOp::Shl | ArithOp::Shr => (ty, Type::U32, ty, ty),
        ArithOp::Mul(MulMode::Wide) => (ty, ty, ty, wide),
        ArithOp::Mad(MulMode::Wide) => (ty, ty, wide, wide),
        _ => (ty, ty, ty, ty),
    };
    let mut k = KB::new("k");
    let pa = k.param("a", Type::U64);
    let pb = k.param("b", Type::U64);
    let pc = k.param("c", Type::U64);
    let po = k.param("o", Type::U64);
    let pu = k.param("u", Type::U32);
    let aa = k.elem_addr(pa, 8);
    let ab = k.elem_addr(pb, 8);
    let ac = k.elem_addr(pc, 8);
    let ao = k.elem_addr(po, 8);
    let a = k.reg(ta);
    let b = k.reg(tb);
    let c = k.reg(tc);
    let d = k.reg(to);
    k.ld(Space::Global, ld_ty(ta), a, aa, 0);
    k.ld(Space::Global, ld_ty(tc), c, ac, 0);
    k.ld(Space::Global, ld_ty(to), d, ao, 0);
    let bop = match b_mode {
        0 => {
            k.ld(Space::Global, ld_ty(tb), b, ab, 0);
            Reg(b)
        }
        1 => Imm(imm),
        _ => {
            k.ld_param(Type::U32, b, pu);
            Reg(b)
        }
    };
    let t = k.tid();
    let t3 = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, t3, &[Reg(t), Imm(3)]);
    let p = k.reg(Type::Pred);
    k.setp(CmpOp::Ne, Type::U32, p, Reg(t3), Imm(0));
    let srcs: Vec<Operand> = [Reg(a), bop, Reg(c)][..op.arity()].to_vec();
    k.push_g(
        Some(Guard {
            pred: p,
            negate: false,
        }),
        InstKind::Arith {
            op,
            ty,
            fmode: fm,
            dst: d,
            srcs,
        },
    );
    k.st(Space::Global, ld_ty(to), ao, 0, Reg(d));
    k.finish()
}

fn to_bytes(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn check_arith(op: ArithOp, ty: Type, fm: FloatMode, b_mode: u8, imm: u64, seed: u64) {
    let m = arith_kernel(op, ty, fm, b_mode, imm);
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let bty = if matches!(op, ArithOp::Shl | ArithOp::Shr) {
        Type::U32
    } else {
        ty
    };
    let a = dev.alloc(&to_bytes(&values(ty, seed)));
    let mut bv = values(bty, seed + 1);
    if matches!(op, ArithOp::Shl | ArithOp::Shr) {
        for (i, x) in bv.iter_mut().enumerate() {
            *x = if i % 5 == 0 { *x } else { *x % 70 };
        }
    }
    let b = dev.alloc(&to_bytes(&bv));
    let c = dev.alloc(&to_bytes(&values(ty.widened().unwrap_or(ty), seed + 2)));
    let o = dev.alloc(&to_bytes(&values(Type::U64, seed + 3)));
    let mut params = params_u64(&[a, b, c, o]);
    params.extend_from_slice(&(imm as u32).to_le_bytes());
    params.extend_from_slice(&[0; 4]);
    for n in [N as u32, 45] {
        let l = Launch::threads(n, params.clone());
        let (out, _) = run_both(&dev, &m, &layout, "k", &l, &[(o, N * 8)]);
        assert!(
            out.statuses.iter().all(|&s| s == 0),
            "{op:?} {ty:?} {fm:?}: status {:?}",
            out.statuses
        );
    }
}

const INT_TYPES: [Type; 11] = [
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::B16,
    Type::B32,
    Type::B64,
];

#[test]
fn integer_ops_match_interpreter() {
    use ArithOp::*;
    let ops = [
        Add,
        Sub,
        Mul(MulMode::Lo),
        Mul(MulMode::Hi),
        Mul(MulMode::Wide),
        Mad(MulMode::Lo),
        Mad(MulMode::Hi),
        Mad(MulMode::Wide),
        Div(DivMode::Ieee),
        Rem,
        Min,
        Max,
        Neg,
        Abs,
        And,
        Or,
        Xor,
        Not,
    ];
    for (i, &ty) in INT_TYPES.iter().enumerate() {
        for (j, &op) in ops.iter().enumerate() {
            let wide = matches!(op, Mul(MulMode::Wide) | Mad(MulMode::Wide));
            if wide && (ty.bits() == 64 || ty.is_bits()) {
                continue;
            }
            check_arith(op, ty, FloatMode::default(), 0, 0, (i * 100 + j) as u64);
        }
    }
}

#[test]
fn shifts_match_interpreter() {
    for (i, &ty) in INT_TYPES.iter().enumerate() {
        for op in [ArithOp::Shl, ArithOp::Shr] {
            // Per-lane amounts (helper path or uniform check), immediates, uniform registers.
            check_arith(op, ty, FloatMode::default(), 0, 0, i as u64);
            for imm in [0u64, 1, 7, 15, 16, 31, 32, 33, 63, 64, 100, 0xffff_ffff] {
                check_arith(op, ty, FloatMode::default(), 1, imm, i as u64 + imm);
                check_arith(op, ty, FloatMode::default(), 2, imm, i as u64 + imm);
            }
        }
    }
}

fn float_modes(f32: bool) -> Vec<FloatMode> {
    let mut v = vec![];
    for rnd in [
        None,
        Some(Rnd::Rn),
        Some(Rnd::Rz),
        Some(Rnd::Rm),
        Some(Rnd::Rp),
    ] {
        for ftz in if f32 { vec![false, true] } else { vec![false] } {
            for sat in [false, true] {
                v.push(FloatMode { rnd, ftz, sat });
            }
        }
    }
    v
}

#[test]
fn float_ops_match_interpreter() {
    use ArithOp::*;
    for ty in [Type::F32, Type::F64] {
        for (j, op) in [
            Add,
            Sub,
            Mul(MulMode::Lo),
            Fma,
            Mad(MulMode::Lo),
            Div(DivMode::Ieee),
            Div(DivMode::Full),
            Div(DivMode::Approx),
            Min,
            Max,
            Neg,
            Abs,
        ]
        .into_iter()
        .enumerate()
        {
            for (i, fm) in float_modes(ty == Type::F32).into_iter().enumerate() {
                if matches!(op, Min | Max | Neg | Abs) && (fm.rnd.is_some() || fm.sat) {
                    continue;
                }
                check_arith(op, ty, fm, 0, 0, (j * 50 + i) as u64);
            }
        }
    }
}

#[test]
fn float_immediate_operands() {
    // add.f32 d, a, 0f3F800000 and friends.
    check_arith(
        ArithOp::Add,
        Type::F32,
        FloatMode::default(),
        1,
        0x3f80_0000,
        3,
    );
    check_arith(
        ArithOp::Mul(MulMode::Lo),
        Type::F64,
        FloatMode::default(),
        1,
        0x4000_0000_0000_0000,
        4,
    );
    check_arith(
        ArithOp::Max,
        Type::F32,
        FloatMode::default(),
        1,
        0x7fc0_0000,
        5,
    );
}

// ---------------------------------------------------------------------------------------
// setp / selp

fn setp_kernel(cmp: CmpOp, ty: Type, ftz: bool, combine: Option<(BoolOp, bool)>) -> Module {
    let mut k = KB::new("k");
    let pa = k.param("a", Type::U64);
    let pb = k.param("b", Type::U64);
    let po = k.param("o", Type::U64);
    let aa = k.elem_addr(pa, 8);
    let ab = k.elem_addr(pb, 8);
    let ao = k.elem_addr(po, 8);
    let a = k.reg(ty);
    let b = k.reg(ty);
    k.ld(Space::Global, ty, a, aa, 0);
    k.ld(Space::Global, ty, b, ab, 0);
    let t = k.tid();
    let t1 = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, t1, &[Reg(t), Imm(1)]);
    let c = k.reg(Type::Pred);
    k.setp(CmpOp::Eq, Type::U32, c, Reg(t1), Imm(0));
    let p = k.reg(Type::Pred);
    let q = k.reg(Type::Pred);
    // Start p and q from known values so that merging under the guard is visible.
    k.mov(Type::Pred, p, Imm(1));
    k.mov(Type::Pred, q, Imm(0));
    let t3 = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, t3, &[Reg(t), Imm(3)]);
    let g = k.reg(Type::Pred);
    k.setp(CmpOp::Ne, Type::U32, g, Reg(t3), Imm(3));
    k.push_g(
        Some(Guard {
            pred: g,
            negate: false,
        }),
        InstKind::Setp {
            cmp,
            ty,
            ftz,
            dst: Some(p),
            dst_neg: Some(q),
            a: Reg(a),
            b: Reg(b),
            combine: combine.map(|(op, neg)| {
                (
                    op,
                    PredSrc {
                        reg: c,
                        negate: neg,
                    },
                )
            }),
        },
    );
    let r = k.reg(Type::U32);
    k.push(InstKind::Selp {
        ty: Type::U32,
        dst: r,
        a: Imm(1),
        b: Imm(0),
        cond: PredSrc {
            reg: p,
            negate: false,
        },
    });
    let r2 = k.reg(Type::U32);
    k.push(InstKind::Selp {
        ty: Type::U32,
        dst: r2,
        a: Imm(2),
        b: Imm(0),
        cond: PredSrc {
            reg: q,
            negate: true,
        },
    });
    k.op(ArithOp::Or, Type::B32, r, &[Reg(r), Reg(r2)]);
    k.st(Space::Global, Type::U32, ao, 0, Reg(r));
    k.finish()
}

#[test]
fn setp_matches_interpreter() {
    use CmpOp::*;
    let all = [
        Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
    ];
    let tys = [
        Type::U16,
        Type::S16,
        Type::U32,
        Type::S32,
        Type::U64,
        Type::S64,
        Type::B32,
        Type::F32,
        Type::F64,
    ];
    for (i, &ty) in tys.iter().enumerate() {
        for (j, &cmp) in all.iter().enumerate() {
            if !ty.is_float() && j >= 6 {
                continue;
            }
            for ftz in if ty == Type::F32 {
                vec![false, true]
            } else {
                vec![false]
            } {
                for combine in [
                    None,
                    Some((BoolOp::And, false)),
                    Some((BoolOp::Or, true)),
                    Some((BoolOp::Xor, false)),
                ] {
                    let m = setp_kernel(cmp, ty, ftz, combine);
                    let dev = Dev::new();
                    let layout = dev.layout(&m);
                    let seed = (i * 20 + j) as u64;
                    let mut av = values(ty, seed);
                    let bv = values(ty, seed + 7);
                    // Some equal pairs.
                    for x in 0..8 {
                        av[x * 5] = bv[x * 5];
                    }
                    let a = dev.alloc(&to_bytes(&av));
                    let b = dev.alloc(&to_bytes(&bv));
                    let o = dev.alloc(&[0xee; N * 8]);
                    let l = Launch::threads(N as u32, params_u64(&[a, b, o]));
                    run_both(&dev, &m, &layout, "k", &l, &[(o, N * 8)]);
                }
            }
        }
    }
}

#[test]
fn selp_all_widths() {
    for (i, ty) in [
        Type::U8,
        Type::S16,
        Type::U32,
        Type::S32,
        Type::F32,
        Type::U64,
        Type::F64,
        Type::S64,
    ]
    .into_iter()
    .enumerate()
    {
        let mut k = KB::new("k");
        let pa = k.param("a", Type::U64);
        let pb = k.param("b", Type::U64);
        let po = k.param("o", Type::U64);
        let aa = k.elem_addr(pa, 8);
        let ab = k.elem_addr(pb, 8);
        let ao = k.elem_addr(po, 8);
        let a = k.reg(ty);
        let b = k.reg(ty);
        k.ld(Space::Global, ty, a, aa, 0);
        k.ld(Space::Global, ty, b, ab, 0);
        let p = k.reg(Type::Pred);
        k.setp(CmpOp::Lt, ty, p, Reg(a), Reg(b));
        let d = k.reg(if ty.bits() == 64 {
            Type::B64
        } else {
            Type::B32
        });
        k.push(InstKind::Selp {
            ty,
            dst: d,
            a: Reg(a),
            b: Reg(b),
            cond: PredSrc {
                reg: p,
                negate: i % 2 == 1,
            },
        });
        k.st(
            Space::Global,
            if ty.bits() == 64 {
                Type::B64
            } else {
                Type::B32
            },
            ao,
            0,
            Reg(d),
        );
        let m = k.finish();
        let dev = Dev::new();
        let layout = dev.layout(&m);
        let a = dev.alloc(&to_bytes(&values(ty, i as u64)));
        let b = dev.alloc(&to_bytes(&values(ty, i as u64 + 9)));
        let o = dev.alloc(&[0; N * 8]);
        run_both(
            &dev,
            &m,
            &layout,
            "k",
            &Launch::threads(N as u32, params_u64(&[a, b, o])),
            &[(o, N * 8)],
        );
    }
}

// ---------------------------------------------------------------------------------------
// cvt

fn cvt_kernel(
    dst_ty: Type,
    src_ty: Type,
    rnd: Option<Rnd>,
    ftz: bool,
    sat: bool,
    dreg: Type,
) -> Module {
    let mut k = KB::new("k");
    let pa = k.param("a", Type::U64);
    let po = k.param("o", Type::U64);
    let aa = k.elem_addr(pa, 8);
    let ao = k.elem_addr(po, 8);
    let a = k.reg(src_ty);
    k.ld(Space::Global, src_ty, a, aa, 0);
    let d = k.reg(dreg);
    k.ld(Space::Global, dreg, d, ao, 0);
    let t = k.tid();
    let t3 = k.reg(Type::U32);
    k.op(ArithOp::And, Type::B32, t3, &[Reg(t), Imm(7)]);
    let g = k.reg(Type::Pred);
    k.setp(CmpOp::Ne, Type::U32, g, Reg(t3), Imm(5));
    k.push_g(
        Some(Guard {
            pred: g,
            negate: false,
        }),
        InstKind::Cvt {
            dst_ty,
            src_ty,
            rnd,
            ftz,
            sat,
            dst: d,
            src: Reg(a),
        },
    );
    k.st(Space::Global, dreg, ao, 0, Reg(d));
    k.finish()
}

#[test]
fn cvt_matches_interpreter() {
    let ints = [
        Type::U8,
        Type::S8,
        Type::U16,
        Type::S16,
        Type::U32,
        Type::S32,
        Type::U64,
        Type::S64,
    ];
    let floats = [Type::F32, Type::F64];
    let mut n = 0u64;
    let mut run = |dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool| {
        n += 1;
        // Destination registers: the type's own width and a wider one.
        for dreg in [
            dst,
            if dst.bits() <= 32 {
                if dst.is_signed() {
                    Type::S64
                } else {
                    Type::U64
                }
            } else {
                dst
            },
        ] {
            if dst.is_float() && dreg != dst {
                continue;
            }
            let m = cvt_kernel(dst, src, rnd, ftz, sat, dreg);
            let dev = Dev::new();
            let layout = dev.layout(&m);
            let a = dev.alloc(&to_bytes(&values(src, n)));
            let o = dev.alloc(&to_bytes(&values(Type::U64, n + 1)));
            let l = Launch::threads(N as u32, params_u64(&[a, o]));
            run_both(&dev, &m, &layout, "k", &l, &[(o, N * 8)]);
        }
    };
    for &d in &ints {
        for &s in &ints {
            run(d, s, None, false, false);
            run(d, s, None, false, true);
        }
    }
    for &d in &floats {
        for &s in &ints {
            for rnd in [
                None,
                Some(Rnd::Rn),
                Some(Rnd::Rz),
                Some(Rnd::Rm),
                Some(Rnd::Rp),
            ] {
                run(d, s, rnd, false, false);
            }
            run(d, s, None, false, true);
        }
    }
    for &d in &ints {
        for &s in &floats {
            for rnd in [
                None,
                Some(Rnd::Rni),
                Some(Rnd::Rzi),
                Some(Rnd::Rmi),
                Some(Rnd::Rpi),
            ] {
                run(d, s, rnd, false, false);
                if s == Type::F32 {
                    run(d, s, rnd, true, false);
                }
            }
        }
    }
    for &d in &floats {
        for &s in &floats {
            for rnd in [
                None,
                Some(Rnd::Rn),
                Some(Rnd::Rz),
                Some(Rnd::Rm),
                Some(Rnd::Rp),
                Some(Rnd::Rni),
                Some(Rnd::Rzi),
                Some(Rnd::Rmi),
                Some(Rnd::Rpi),
            ] {
                if d != s
                    && rnd.is_some_and(|r| matches!(r, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi))
                {
                    continue;
                }
                for ftz in [false, true] {
                    for sat in [false, true] {
                        run(d, s, rnd, ftz, sat);
                    }
                }
            }
        }
    }
}

#[test]
fn multiply_by_immediates() {
    // Powers of two become shifts; others (and negative powers for signed types) multiply.
    for (i, &ty) in INT_TYPES.iter().enumerate() {
        for op in [
            ArithOp::Mul(MulMode::Lo),
            ArithOp::Mad(MulMode::Lo),
            ArithOp::Mul(MulMode::Wide),
            ArithOp::Mad(MulMode::Wide),
        ] {
            let wide = matches!(
                op,
                ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide)
            );
            if wide && (ty.bits() == 64 || ty.is_bits()) {
                continue;
            }
            for imm in [
                1u64,
                2,
                4,
                3,
                0x80,
                0x8000,
                0x8000_0000,
                1 << 63,
                0xffff_ffff,
            ] {
                let w = ty.bits();
                let imm = if w == 64 { imm } else { imm & ((1 << w) - 1) };
                check_arith(op, ty, FloatMode::default(), 1, imm, i as u64 + imm);
            }
        }
    }
}
