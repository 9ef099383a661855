//! Unit tests of `ops::matrix`: fragment layouts cover their matrices, descriptors round
//! trip, and whole-warp products equal a plain reference matrix product.

use super::*;

/// Every op the ISA lists (and ptxjit runs), from all shape and type combinations.
fn all_ops() -> Vec<(bool, MmaOp)> {
    let mut v = Vec::new();
    for wmma in [false, true] {
        for shape in MmaShape::ALL {
            for a in ElemType::ALL {
                for b in ElemType::ALL {
                    for c in ElemType::ALL {
                        for d in ElemType::ALL {
                            let op = MmaOp {
                                shape,
                                dtype: d,
                                atype: a,
                                btype: b,
                                ctype: c,
                                arow: true,
                                brow: false,
                                satfinite: false,
                                bop: (a == ElemType::B1).then_some(PopcOp::Xor),
                                rnd: None,
                                sparse: false,
                            };
                            // m8n8k4 .f16 (quad pairs) has its own positions.
                            let quad = !wmma && shape == MmaShape::M8n8k4 && a == ElemType::F16;
                            if mma_supported(wmma, op) && !quad {
                                v.push((wmma, op));
                            }
                        }
                    }
                }
            }
        }
    }
    v
}

#[test]
fn layouts_cover_every_element_once() {
    let ops = all_ops();
    assert!(ops.len() > 40, "{} ops", ops.len());
    for (wmma, op) in ops {
        let (m, n, k) = op.shape.mnk();
        for (frag, ty, rows, cols) in [
            (Frag::A, op.atype, m, k),
            (Frag::B, op.btype, k, n),
            (Frag::C, op.ctype, m, n),
            (Frag::D, op.dtype, m, n),
        ] {
            let lay = layout(wmma, op.shape, frag, ty).expect("layout");
            let mut seen = vec![0; rows * cols];
            for l in 0..WARP {
                for i in (0..lay.elems()).filter(|&i| !lay.is_copy(i)) {
                    let (r, c) = lay.pos(l, i);
                    assert!(r < rows && c < cols, "{op:?} {frag:?} lane {l} elem {i}");
                    seen[r * cols + c] += 1;
                }
            }
            assert!(seen.iter().all(|&x| x == 1), "{wmma} {op:?} {frag:?}");
        }
    }
}

#[test]
fn encode_round_trips() {
    let mut ops = vec![
        MatrixOp::Ldmatrix {
            num: 4,
            trans: true,
        },
        MatrixOp::Stmatrix {
            num: 2,
            trans: false,
        },
        MatrixOp::Movmatrix,
    ];
    for (wmma, mut op) in all_ops() {
        op.satfinite = op.atype.is_int();
        if wmma {
            op.brow = true;
            if op.atype == ElemType::F64 {
                op.rnd = Some(2);
            }
            ops.push(MatrixOp::WmmaMma(op));
            for (frag, row) in [(Frag::A, true), (Frag::C, false)] {
                let f = WmmaFrag {
                    frag,
                    shape: op.shape,
                    ty: op.atype,
                    row,
                };
                ops.push(MatrixOp::WmmaLoad(f));
                ops.push(MatrixOp::WmmaStore(f));
            }
        } else {
            ops.push(MatrixOp::Mma(op));
        }
    }
    for op in ops {
        assert_eq!(decode_op(encode(op)), Some(op));
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Signed or unsigned value of an integer element.
fn int_val(ty: ElemType, v: u64) -> i64 {
    let bits = ty.bits();
    match ty {
        ElemType::S8 | ElemType::S4 => ((v << (64 - bits)) as i64) >> (64 - bits),
        _ => (v & ((1 << bits) - 1)) as i64,
    }
}

/// Runs `op` through the fragments (distribute A, B, C, evaluate, collect D) and
/// compares with a plain triple loop in i64 / f64.
#[test]
fn products_equal_a_plain_reference() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut checked = 0;
    for (wmma, op) in all_ops() {
        let int = op.atype.is_int() || op.atype == ElemType::B1;
        if !int && op.atype != ElemType::F64 {
            continue;
        }
        let (m, n, k) = op.shape.mnk();
        let mask = |ty: ElemType| (1u64 << ty.bits().min(63)) - 1;
        let a: Vec<u64> = (0..m * k).map(|_| rng.next() & mask(op.atype)).collect();
        let b: Vec<u64> = (0..k * n).map(|_| rng.next() & mask(op.btype)).collect();
        // f64: small integers, so every sum is exact.
        let small = |x: u64| ((x % 17) as f64 - 8.0).to_bits();
        let (a, b) = if op.atype == ElemType::F64 {
            (
                a.into_iter().map(small).collect(),
                b.into_iter().map(small).collect(),
            )
        } else {
            (a, b)
        };
        let c: Vec<u64> = (0..m * n)
            .map(|_| match op.ctype {
                ElemType::F64 => small(rng.next()),
                _ => rng.next() & 0xffff_ffff,
            })
            .collect();
        let la = layout(wmma, op.shape, Frag::A, op.atype).unwrap();
        let lb = layout(wmma, op.shape, Frag::B, op.btype).unwrap();
        let lc = layout(wmma, op.shape, Frag::C, op.ctype).unwrap();
        let ld = layout(wmma, op.shape, Frag::D, op.dtype).unwrap();
        let mut words = scatter(&la, op.atype, &a, k);
        words.extend(scatter(&lb, op.btype, &b, n));
        words.extend(scatter(&lc, op.ctype, &c, n));
        let mop = if wmma {
            MatrixOp::WmmaMma(op)
        } else {
            MatrixOp::Mma(op)
        };
        let out = eval(mop, &words, &[[0; 8]; WARP]);
        let d = gather(&ld, op.dtype, &out, n, m * n);
        for i in 0..m {
            for j in 0..n {
                let want = if op.atype == ElemType::F64 {
                    let s: f64 = (0..k)
                        .map(|kk| f64::from_bits(a[i * k + kk]) * f64::from_bits(b[kk * n + j]))
                        .sum();
                    (s + f64::from_bits(c[i * n + j])).to_bits()
                } else if op.atype == ElemType::B1 {
                    let p = (0..k)
                        .filter(|&kk| (a[i * k + kk] ^ b[kk * n + j]) & 1 != 0)
                        .count();
                    (c[i * n + j] as u32).wrapping_add(p as u32) as u64
                } else {
                    let s: i64 = (0..k)
                        .map(|kk| {
                            int_val(op.atype, a[i * k + kk]) * int_val(op.btype, b[kk * n + j])
                        })
                        .sum();
                    (s + c[i * n + j] as u32 as i32 as i64) as u32 as u64
                };
                assert_eq!(d[i * n + j], want, "{wmma} {op:?} D[{i}][{j}]");
            }
        }
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

/// `mma.sp` `.s8` m16n8k32 with every metadata nibble `0x9` (indices 1 and 2: the kept
/// elements of each group of 4 are its second and third): D equals a plain product with
/// A rebuilt by hand, whatever lane holds which nibble.
#[test]
fn sparse_product_with_uniform_metadata() {
    let op = MmaOp {
        shape: MmaShape::M16n8k32,
        dtype: ElemType::S32,
        atype: ElemType::S8,
        btype: ElemType::S8,
        ctype: ElemType::S32,
        arow: true,
        brow: false,
        satfinite: false,
        bop: None,
        rnd: None,
        sparse: true,
    };
    let (m, n, k) = op.shape.mnk();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let comp: Vec<u64> = (0..m * k / 2).map(|_| rng.next() & 0xff).collect();
    let b: Vec<u64> = (0..k * n).map(|_| rng.next() & 0xff).collect();
    let c: Vec<u64> = (0..m * n).map(|_| rng.next() & 0xffff).collect();
    let la = layout(false, MmaShape::M16n8k16, Frag::A, ElemType::S8).unwrap();
    let lb = layout(false, op.shape, Frag::B, ElemType::S8).unwrap();
    let lc = layout(false, op.shape, Frag::C, ElemType::S32).unwrap();
    let mut words = scatter(&la, ElemType::S8, &comp, k / 2);
    words.extend(scatter(&lb, ElemType::S8, &b, n));
    words.extend(scatter(&lc, ElemType::S32, &c, n));
    words.push([0x9999_9999; WARP]);
    words.push([0; WARP]);
    let out = eval(MatrixOp::Mma(op), &words, &[[0; 8]; WARP]);
    let d = gather(&lc, ElemType::S32, &out, n, m * n);
    for i in 0..m {
        for j in 0..n {
            // Compressed element 2q + h of row i is A[i][4q + 1 + h].
            let s: i64 = (0..k / 2)
                .map(|c2| {
                    let kk = 4 * (c2 / 2) + 1 + c2 % 2;
                    int_val(ElemType::S8, comp[i * k / 2 + c2])
                        * int_val(ElemType::S8, b[kk * n + j])
                })
                .sum();
            let want = (s + c[i * n + j] as u32 as i32 as i64) as u32 as u64;
            assert_eq!(d[i * n + j], want, "D[{i}][{j}]");
        }
    }
}

#[test]
fn ldmatrix_and_stmatrix_are_inverse() {
    let mut rows = [[0u16; 8]; WARP];
    for (l, r) in rows.iter_mut().enumerate() {
        for (c, x) in r.iter_mut().enumerate() {
            *x = (l * 8 + c) as u16;
        }
    }
    for trans in [false, true] {
        let regs = eval(MatrixOp::Ldmatrix { num: 4, trans }, &[], &rows);
        assert_eq!(stmatrix_rows(4, trans, &regs), rows);
    }
    // Without .trans lane 5 holds row 1, columns 2 and 3 of matrix 0: elements 10, 11.
    let regs = eval(
        MatrixOp::Ldmatrix {
            num: 1,
            trans: false,
        },
        &[],
        &rows,
    );
    assert_eq!(regs[0][5], 10 | 11 << 16);
}
