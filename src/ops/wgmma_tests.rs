//! Hand-checked examples of the descriptor, swizzle and fragment formulas (the kernel
//! tests against a Rust reference are in `tests/wgmma.rs`).

use super::*;

#[test]
fn descriptor_fields() {
    // Triton's `or.b64 %rd, %rd, 4611686293305294848` = 2^62 | 2^38: 128-byte swizzle,
    // SBO field 64 (1024 bytes); a start address of 0x1230 bytes is field 0x123.
    let d = decode_desc(4611686293305294848 | 0x123 | 2 << 16 | 5 << 49);
    assert_eq!(
        d,
        Desc {
            start: 0x1230,
            lbo: 32,
            sbo: 1024,
            base: 5,
            swizzle: 128
        }
    );
    assert_eq!(decode_desc(2 << 62).swizzle, 64);
    assert_eq!(decode_desc(3 << 62).swizzle, 32);
    assert_eq!(decode_desc(0).swizzle, 0);
}

#[test]
fn swizzle_xors_the_chunk_with_the_line() {
    // 0x390 = 0b11_1001_0000: line (a >> 7) = 7, chunk (a >> 4 & 7) = 1.
    assert_eq!(swizzle(0x390, 128, 0), 0x390 ^ (7 << 4)); // chunk 1 ^ 7 = 6: 0x3e0
    assert_eq!(swizzle(0x390, 64, 0), 0x390 ^ (3 << 4)); // 2 bits: 1 ^ 3 = 2: 0x3a0
    assert_eq!(swizzle(0x390, 32, 0), 0x390 ^ (1 << 4)); // 1 bit: 1 ^ 1 = 0: 0x380
    assert_eq!(swizzle(0x390, 0, 0), 0x390);
    // Base offset 3: line 7 is the pattern's line 4.
    assert_eq!(swizzle(0x390, 128, 3), 0x390 ^ (4 << 4));
}

#[test]
fn element_addresses() {
    let d = Desc {
        start: 0x100,
        lbo: 256,
        sbo: 128,
        base: 0,
        swizzle: 0,
    };
    // K-major f16 (T = 8), mn 9, k 11: (9 % 8) * 16 + (9 / 8) * 128 + (11 / 8) * 256 +
    // (11 % 8) * 2 = 16 + 128 + 256 + 6 = 406 bytes past 0x100.
    assert_eq!(elem_bit_addr(&d, 16, false, 9, 11), (0x100 + 406) * 8);
    // MN-major f16, mn 9, k 11: (9 % 8) * 2 + (9 / 8) * 128 + (11 % 8) * 16 + (11 / 8) *
    // 256 = 2 + 128 + 48 + 256 = 434.
    assert_eq!(elem_bit_addr(&d, 16, true, 9, 11), (0x100 + 434) * 8);
    // .b1 K-major (T = 128), mn 1, k 200: 16 + (200 / 128) * 256 bytes, bit 72 of the
    // 16-byte chunk: byte 9, bit 0.
    assert_eq!(
        elem_bit_addr(&d, 1, false, 1, 200),
        (0x100 + 16 + 256 + 9) * 8
    );
    // 128-byte swizzle K-major f16, start 0, SBO 1024: mn 3, k 12 at 3 * 128 + 24 = 408
    // = 0x198: chunk 1 ^ line 3 = 2: 0x1a8.
    let s = Desc {
        start: 0,
        lbo: 16,
        sbo: 1024,
        base: 0,
        swizzle: 128,
    };
    assert_eq!(elem_bit_addr(&s, 16, false, 3, 12), 0x1a8 * 8);
    // 64-byte swizzle MN-major tf32 (an atom line holds 64 / 4 = 16 elements), LBO 512,
    // SBO 2048: mn 17, k 9: (17 % 16) * 4 +
    // (17 / 16) * 512 + (9 % 8) * 64 + (9 / 8) * 2048 = 4 + 512 + 64 + 2048 = 2628 =
    // 0xa44: line (0xa44 >> 7) & 3 = 20 & 3 = 0: unchanged.
    let m = Desc {
        start: 0,
        lbo: 512,
        sbo: 2048,
        base: 0,
        swizzle: 64,
    };
    assert_eq!(elem_bit_addr(&m, 32, true, 17, 9), 0xa44 * 8);
    // mn 17, k 10: + 64 = 0xa84: line 21 & 3 = 1, chunk (0xa84 >> 4) & 3 = 0 -> 1: 0xa94.
    assert_eq!(elem_bit_addr(&m, 32, true, 17, 10), 0xa94 * 8);
}

#[test]
fn accumulator_and_a_fragments() {
    // D: lane 6 (g 1, t 2), element 5: column block 5 / 4 = 1, row g + 8 * (5 / 2 % 2)
    // = 1, column 8 + 2t + 5 % 2 = 13; element 2: row g + 8 = 9, column 2t = 4.
    assert_eq!(d_pos(6, 5), (1, 13));
    assert_eq!(d_pos(6, 2), (9, 4));
    // f16 A from registers: register 1 of lane 5 (g 1, t 1) holds a2, a3: row 9, columns
    // 2, 3.
    let op = WgmmaOp {
        n: 8,
        dtype: ElemType::F32,
        atype: ElemType::F16,
        btype: ElemType::F16,
        a_desc: false,
        neg_a: false,
        neg_b: false,
        trans_a: false,
        trans_b: false,
        satfinite: false,
        bop: None,
    };
    let mut words = vec![[0u32; WARP]; 4];
    words[1][5] = 0xbbbb_aaaa;
    let a = a_from_regs(op, &words);
    assert_eq!((a[9 * 16 + 2], a[9 * 16 + 3]), (0xaaaa, 0xbbbb));
}

#[test]
fn jit_descriptor_round_trip() {
    use crate::ir::{MatrixOp, PopcOp};
    use crate::ops::matrix::{decode_op, encode};
    let base = WgmmaOp {
        n: 256,
        dtype: ElemType::F16,
        atype: ElemType::E5M2,
        btype: ElemType::E4M3,
        a_desc: true,
        neg_a: true,
        neg_b: false,
        trans_a: false,
        trans_b: true,
        satfinite: false,
        bop: None,
    };
    let ops = [
        base,
        WgmmaOp {
            n: 8,
            dtype: ElemType::S32,
            atype: ElemType::B1,
            btype: ElemType::B1,
            a_desc: false,
            neg_a: false,
            trans_a: true,
            satfinite: true,
            bop: Some(PopcOp::And),
            ..base
        },
    ];
    for w in ops {
        assert_eq!(
            decode_op(encode(MatrixOp::Wgmma(w))),
            Some(MatrixOp::Wgmma(w))
        );
    }
}
