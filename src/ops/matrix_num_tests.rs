//! Unit tests of `ops::matrix_num` (hand-checked arithmetic in the comments).

use super::*;
use crate::ir::MmaShape;

fn f32_dot(ty: ElemType, a: &[u32], b: &[u32], c: f32) -> f32 {
    let op = MmaOp {
        shape: MmaShape::M16n8k16,
        dtype: ElemType::F32,
        atype: ty,
        btype: ty,
        ctype: ElemType::F32,
        arow: true,
        brow: false,
        satfinite: false,
        bop: None,
        rnd: None,
        sparse: false,
    };
    let w = |v: &[u32]| v.iter().map(|&x| x as u64).collect::<Vec<_>>();
    f32::from_bits(dot(op, &w(a), &w(b), c.to_bits() as u64) as u32)
}

const ONE_F16: u32 = 0x3c00;
const ONE_BF16: u32 = 0x3f80;

#[test]
fn aligned_then_truncated() {
    // bf16 2^-40 = 0x2b80 (exponent 127 - 40 = 87 = 0x57: 0x57 << 7 = 0x2b80).
    // bf16 2^-12 = (127 - 12) << 7 = 0x3980: 2^-12 * 2^-12 = 2^-24.
    // c = 1: E = 0, terms are cut to multiples of 2^-25: 2^-24 stays, 2^-80 goes;
    // 1 + 2^-24 truncates to 1 (an exact sum rounded to nearest would give 1 + 2^-23).
    let a = [0x3980, 0x2b80];
    let b = [0x3980, 0x2b80];
    assert_eq!(f32_dot(ElemType::BF16, &a, &b, 1.0), 1.0);
    assert_eq!(f32_dot(ElemType::BF16, &a[..1], &b[..1], 1.0), 1.0);
    // -2 + 2^-24 truncates toward zero: -(2 - 2^-23), not the nearest -2 (as the H100
    // gives: tests/golden, mma "ones" inputs).
    assert_eq!(
        f32_dot(ElemType::BF16, &a[..1], &b[..1], -2.0).to_bits(),
        0xbfff_ffff
    );
    // 2^30 - 2^30 + 2^-48 (f16 2^15 = 0x7800, 2^-24 = 0x0001): E = 30, so 2^-48 is
    // cut away before the sum: +0.
    let a = [0x7800, 0xf800, 0x0001];
    let b = [0x7800, 0x7800, 0x0001];
    assert_eq!(f32_dot(ElemType::F16, &a, &b, 0.0).to_bits(), 0);
    // Without the large terms the small product is exact.
    assert_eq!(
        f32_dot(ElemType::F16, &a[2..], &b[2..], 0.0),
        2f32.powi(-48)
    );
}

#[test]
fn alignment_uses_the_factors_exponents() {
    // f16 1.5 = 0x3e00, -1.5 = 0xbe00: products +-2.25, whose alignment exponent is
    // 0 + 0 (not 1, the product's): c = 3 * 2^-26 is cut to a multiple of 2^-25.
    let c = 3.0 * 2f32.powi(-26);
    let r = f32_dot(ElemType::F16, &[0x3e00, 0xbe00], &[0x3e00, 0x3e00], c);
    assert_eq!(r, 2f32.powi(-25));
}

#[test]
fn cancellation_across_limbs() {
    // f16 2^15 = 0x7800, 2^5 = 0x5000, -2^15 = 0xf800, 2^-24 = 0x0001.
    // -2^20 + 2^-48: the small term is cut (E = 20): -2^20.
    let a = [0xf800, 0x0001];
    let b = [0x5000, 0x0001];
    assert_eq!(f32_dot(ElemType::F16, &a, &b, 0.0), -(2f32.powi(20)));
    // -2^20 + 2^20 (c) + 2^-48 (cut): +0.
    assert_eq!(f32_dot(ElemType::F16, &a, &b, 2f32.powi(20)).to_bits(), 0);
    // -2^20 + (2^20 + 2^-3) (c): the negative sum's highest limb is above the
    // positive one's until the subtraction: 2^-3.
    let c = 2f32.powi(20) + 0.125;
    assert_eq!(f32_dot(ElemType::F16, &a[..1], &b[..1], c), 0.125);
}

#[test]
fn specials() {
    let inf = 0x7c00; // f16 +inf
    assert_eq!(
        f32_dot(ElemType::F16, &[inf], &[ONE_F16], 1.0),
        f32::INFINITY
    );
    assert_eq!(
        f32_dot(ElemType::F16, &[inf, inf], &[ONE_F16, 0xbc00], 1.0).to_bits(),
        0x7fff_ffff
    );
    assert_eq!(
        f32_dot(ElemType::F16, &[inf], &[0], 1.0).to_bits(),
        0x7fff_ffff
    );
    assert_eq!(
        f32_dot(ElemType::F16, &[ONE_F16], &[ONE_F16], f32::NAN).to_bits(),
        0x7fff_ffff
    );
    // Signed zeros: -0 + (+1 * -0) = -0; -0 + (+0 * +0) = +0; 1 - 1 = +0.
    assert_eq!(
        f32_dot(ElemType::F16, &[0], &[0x8000], -0.0).to_bits(),
        0x8000_0000
    );
    assert_eq!(f32_dot(ElemType::F16, &[0], &[0], -0.0).to_bits(), 0);
    assert_eq!(
        f32_dot(ElemType::BF16, &[ONE_BF16], &[0xbf80], 1.0).to_bits(),
        0
    );
    // Overflow: bf16 2^127 (0x7f00) squared -> +inf; and -inf below.
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x7f00], &[0x7f00], 0.0),
        f32::INFINITY
    );
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x7f00], &[0xff00], 0.0),
        f32::NEG_INFINITY
    );
    // 2^127 * 2^0 + 2^127 (from c) = 2^128: overflows.
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x7f00], &[ONE_BF16], 2f32.powi(127)),
        f32::INFINITY
    );
}

#[test]
fn subnormal_results() {
    // bf16 2^-70 = (127 - 70) << 7 = 0x1c80. 2^-70 * 2^-70 = 2^-140 (an f32 subnormal).
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x1c80], &[0x1c80], 0.0),
        2f32.powi(-140)
    );
    // 2^-75 * 2^-75 = 2^-150: below the smallest subnormal, truncates to 0.
    // bf16 2^-75 = 52 << 7 = 0x1a00.
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x1a00], &[0x1a00], 0.0).to_bits(),
        0
    );
    // Plus 2^-160 (2^-80 * 2^-80, 0x1780): still below 2^-149: 0.
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x1a00, 0x1780], &[0x1a00, 0x1780], 0.0).to_bits(),
        0
    );
    // c = 2^-149 (bits 1) plus 2^-150: 1.5 * 2^-149 truncates to 2^-149.
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x1a00], &[0x1a00], f32::from_bits(1)).to_bits(),
        1
    );
    // c = -2^-149 plus 2^-150: -2^-150 truncates to zero, +0 (as the H100 gives).
    assert_eq!(
        f32_dot(ElemType::BF16, &[0x1a00], &[0x1a00], -f32::from_bits(1)).to_bits(),
        0
    );
}
