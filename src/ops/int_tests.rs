//! Tests of the bit-manipulation operations of `ops::int`.

//! The oracle: literal transcriptions of the PTX ISA pseudocode (bit loops), compared
//! with the implementations above over exhaustive small ranges and pseudo-random values.
use super::*;

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn samples() -> Vec<u64> {
    let mut r = rng(42);
    let mut v = vec![
        0,
        1,
        2,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        u64::MAX,
        1 << 63,
        0x8000_0000_0000_0001,
    ];
    v.extend((0..200).map(|_| r()));
    v
}

fn bit(x: u64, i: u32) -> u64 {
    if i >= 64 {
        0
    } else {
        (x >> i) & 1
    }
}

/// ISA: bfe semantics, verbatim.
fn bfe_spec(w: u32, signed: bool, a: u64, b: u32, c: u32) -> u64 {
    let msb = w - 1;
    let pos = b & 0xff;
    let len = c & 0xff;
    let sbit = if !signed || len == 0 {
        0
    } else {
        bit(a, (pos + len - 1).min(msb))
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let v = if i < len && pos + i <= msb {
            bit(a, pos + i)
        } else {
            sbit
        };
        d |= v << i;
    }
    d
}

/// ISA: bfi semantics, verbatim.
fn bfi_spec(w: u32, a: u64, b: u64, c: u32, d: u32) -> u64 {
    let msb = w - 1;
    let pos = c & 0xff;
    let len = d & 0xff;
    let mut f = b & mask(w);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (bit(a, i) << (pos + i));
        i += 1;
    }
    f
}

#[test]
fn bfe_and_bfi_match_the_isa_pseudocode() {
    for &a in &samples()[..40] {
        for w in [32, 64] {
            for pos in (0..300u32).step_by(3).chain([31, 32, 63, 64, 255, 256 + 5]) {
                for len in (0..300u32).step_by(7).chain([0, 1, 32, 33, 64, 255]) {
                    for signed in [false, true] {
                        assert_eq!(
                            bfe(w, signed, a, pos, len),
                            bfe_spec(w, signed, a & mask(w), pos, len),
                            "bfe w{w} s{signed} a{a:#x} pos{pos} len{len}"
                        );
                    }
                    let b = a.rotate_left(17) ^ 0x5555_5555_5555_5555;
                    assert_eq!(
                        bfi(w, a, b, pos, len),
                        bfi_spec(w, a, b, pos, len),
                        "bfi w{w} a{a:#x} pos{pos} len{len}"
                    );
                }
            }
        }
    }
    // Hand-checked: bfe.s32 of 0xf0 at pos 4, len 4 is 0xf sign-extended = -1.
    assert_eq!(bfe(32, true, 0xf0, 4, 4), 0xffff_ffff);
    assert_eq!(bfe(32, false, 0xf0, 4, 4), 0xf);
}

#[test]
fn bfind_brev_clz_popc_cnot() {
    for &a in &samples() {
        for w in [32u32, 64] {
            let x = a & mask(w);
            // bfind spec: negate negative signed inputs, then the highest set bit.
            for signed in [false, true] {
                let mut y = x;
                if signed && bit(y, w - 1) == 1 {
                    y = !y & mask(w);
                }
                let mut d = u32::MAX;
                for i in (0..w).rev() {
                    if bit(y, i) == 1 {
                        d = i;
                        break;
                    }
                }
                assert_eq!(bfind(w, signed, false, x), d);
                let sa = if d == u32::MAX { d } else { w - 1 - d };
                assert_eq!(bfind(w, signed, true, x), sa);
            }
            let mut r = 0u64;
            for i in 0..w {
                r |= bit(x, i) << (w - 1 - i);
            }
            assert_eq!(brev(w, x), r);
            let lz = (0..w).rev().take_while(|&i| bit(x, i) == 0).count() as u32;
            assert_eq!(clz(w, x), lz);
            assert_eq!(popc(w, x), (0..w).map(|i| bit(x, i) as u32).sum::<u32>());
            assert_eq!(cnot(w, x), (x == 0) as u64);
        }
    }
    assert_eq!(
        bfind(32, true, false, 0xffff_ffff),
        u32::MAX,
        "-1 has no non-sign bit"
    );
    assert_eq!(clz(32, 0), 32);
}

#[test]
fn bmsk_szext_examples_and_ranges() {
    // ISA example: bmsk.wrap.b32 rd, 1, 2 creates 0x00000006.
    assert_eq!(bmsk(false, 1, 2), 6);
    assert_eq!(bmsk(true, 32, 4), 0);
    assert_eq!(bmsk(true, 0, 32), u32::MAX);
    assert_eq!(bmsk(false, 4, 0), 0);
    assert_eq!(bmsk(false, 28, 8), 0xf000_0000);
    // szext: low 8 bits of 0x1f0 as signed = 0xf0 -> 0xfffffff0; unsigned -> 0xf0.
    assert_eq!(szext(false, true, 0x1f0, 8), 0xffff_fff0);
    assert_eq!(szext(false, false, 0x1f0, 8), 0xf0);
    assert_eq!(
        szext(true, true, 0x1234, 40),
        0x1234,
        "clamp with N >= 32 returns a"
    );
    assert_eq!(szext(false, true, 0x1234, 0), 0);
    assert_eq!(
        szext(false, true, 0xffff_ffff, 33),
        0xffff_ffff,
        "wrap: N = 1, sign bit set"
    );
}

#[test]
fn encode_decode_round_trip() {
    let ops = [
        BitOp::Popc,
        BitOp::Bfind { shiftamt: true },
        BitOp::Prmt(Some(PrmtMode::Rc16)),
        BitOp::Lop3 { lut: 0x96 },
        BitOp::Shf {
            left: false,
            clamp: true,
        },
        BitOp::Mad24 {
            hi: true,
            sat: true,
        },
        BitOp::Dp2a {
            hi: true,
            a_signed: false,
            b_signed: true,
        },
        BitOp::Szext { clamp: true },
        BitOp::SubSat,
    ];
    for op in ops {
        for ty in [Type::B32, Type::U64, Type::S32, Type::S64, Type::U16] {
            assert_eq!(decode(encode(op, ty)), Some((op, ty)));
        }
    }
}

#[test]
fn lop3_reproduces_its_lut() {
    for lut in 0..=255u8 {
        // The defining property holds on the 8 bits the constants populate.
        assert_eq!(
            lop3(0xF0, 0xCC, 0xAA, lut) & 0xff,
            lut as u32,
            "F(0xF0, 0xCC, 0xAA) must be the LUT"
        );
    }
    let mut r = rng(7);
    for _ in 0..500 {
        let (a, b, c) = (r() as u32, r() as u32, r() as u32);
        assert_eq!(lop3(a, b, c, 0x80), a & b & c);
        assert_eq!(lop3(a, b, c, 0xFE), a | b | c);
        assert_eq!(lop3(a, b, c, 0x1A), (a & b | c) ^ a);
        assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
    }
}

#[test]
fn shf_matches_the_isa_formula() {
    let mut r = rng(9);
    for _ in 0..300 {
        let (a, b) = (r() as u32, r() as u32);
        for c in (0..70u32).chain([u32::MAX, 1 << 31]) {
            for clamp in [false, true] {
                let n = if clamp { c.min(32) } else { c & 0x1f };
                // ISA: d = (b << n) | (a >> (32-n)) for .l; (b << (32-n)) | (a >> n) for .r,
                // with shifts of 32 producing 0.
                let sh = |x: u32, s: u32, left: bool| -> u32 {
                    if s >= 32 {
                        0
                    } else if left {
                        x << s
                    } else {
                        x >> s
                    }
                };
                assert_eq!(
                    shf(true, clamp, a, b, c),
                    sh(b, n, true) | sh(a, 32 - n, false)
                );
                assert_eq!(
                    shf(false, clamp, a, b, c),
                    sh(b, 32 - n, true) | sh(a, n, false)
                );
            }
        }
    }
    // Rotate left by 8 with a == b.
    assert_eq!(shf(true, false, 0x1234_5678, 0x1234_5678, 8), 0x3456_7812);
}

#[test]
fn prmt_tables() {
    let (a, b) = (0x3322_1100u32, 0x7766_5544u32); // byte i of {b, a} is 0xii
    assert_eq!(prmt(None, a, b, 0x3210), a);
    assert_eq!(prmt(None, a, b, 0x7654), b);
    assert_eq!(prmt(None, a, b, 0x0123), 0x0011_2233);
    // Sign replication: selector 8 = byte 0 (0x80) with its sign replicated -> 0xff;
    // selectors 4 pick byte 4 (b's low byte, 0) for d.b1..d.b3.
    assert_eq!(prmt(None, 0x80, 0, 0x4448), 0x0000_00ff);
    // Selector 0 copies byte 0 literally: 0x80 in d.b1..d.b3.
    assert_eq!(prmt(None, 0x80, 0, 0x0008), 0x8080_80ff);
    // The ISA's mode tables, rows for c[1:0] = 0..3 as (b3, b2, b1, b0).
    let table = |m, rows: [[u32; 4]; 4]| {
        for (s, row) in rows.iter().enumerate() {
            let want = row.iter().fold(0u32, |d, &i| (d << 8) | (i * 0x11));
            assert_eq!(prmt(Some(m), a, b, s as u32), want, "{m:?} c={s}");
        }
    };
    table(
        PrmtMode::F4e,
        [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
    );
    table(
        PrmtMode::B4e,
        [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
    );
    table(
        PrmtMode::Rc8,
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
    );
    table(
        PrmtMode::Ecl,
        [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
    );
    table(
        PrmtMode::Ecr,
        [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
    );
    table(
        PrmtMode::Rc16,
        [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    );
}

#[test]
fn fns_dp_mul24_sad_sat_carry() {
    // fns: set bits of 0b1011_0100 are 2, 4, 5, 7.
    let m = 0b1011_0100;
    assert_eq!(fns(m, 0, 1), 2);
    assert_eq!(fns(m, 0, 3), 5);
    assert_eq!(fns(m, 0, 5), u32::MAX);
    assert_eq!(fns(m, 7, -1), 7);
    assert_eq!(fns(m, 6, -2), 4);
    assert_eq!(fns(m, 4, 0), 4);
    assert_eq!(fns(m, 3, 0), u32::MAX);
    // dp4a.s32.s32: bytes (-1, 2, 3, 4) . (5, -6, 7, 8) = -5 - 12 + 21 + 32 = 36, + 100.
    let a = u32::from_le_bytes([0xff, 2, 3, 4]);
    let b = u32::from_le_bytes([5, 0xfa, 7, 8]);
    assert_eq!(dp4a(true, true, a, b, 100), 136);
    // unsigned: 255*5 + 2*250 + 21 + 32 = 1275 + 500 + 53 = 1828.
    assert_eq!(dp4a(false, false, a, b, 0), 1828);
    // dp2a.lo.s32.s32: a halves (-1, 3) . b bytes 0,1 (5, -6) = -5 - 18 = -23.
    let a2 = 0x0003_ffff;
    assert_eq!(dp2a(false, true, true, a2, b, 0) as i32, -23);
    // .hi uses bytes 2,3 (7, 8): -7 + 24 = 17.
    assert_eq!(dp2a(true, true, true, a2, b, 0), 17);
    // mul24: 0x00ffffff as s24 is -1; (-1) * 2 = -2.
    assert_eq!(mul24(false, true, 0xffff_ffff, 2) as i32, -2);
    assert_eq!(
        mul24(false, false, 0x0100_0003, 5),
        15,
        "bits above 24 ignored"
    );
    // 0xffffff * 0xffffff = 0xfffffe000001; bits 47..16 = 0xfffffe00.
    assert_eq!(mul24(true, false, 0xff_ffff, 0xff_ffff), 0xffff_fe00);
    assert_eq!(mad24(false, false, false, 3, 4, 5), 17);
    assert_eq!(
        mad24(true, true, true, 0x7f_ffff, 0x7f_ffff, 0x7fff_ffff),
        0x7fff_ffff
    );
    assert_eq!(sad(32, true, 0xffff_fffe, 3, 10), 15, "|-2 - 3| + 10");
    assert_eq!(
        sad(32, false, 0xffff_fffe, 3, 10),
        (0xffff_fffbu64 + 10) & 0xffff_ffff
    );
    assert_eq!(sad(16, false, 2, 9, 1), 8);
    assert_eq!(add_sat_s32(0x7fff_ffff, 1), 0x7fff_ffff);
    assert_eq!(sub_sat_s32(0x8000_0000, 1), 0x8000_0000);
    assert_eq!(add_carry(32, 0xffff_ffff, 1, false), (0, true));
    assert_eq!(add_carry(32, 0xffff_ffff, 0, true), (0, true));
    assert_eq!(add_carry(64, 5, 6, true), (12, false));
    assert_eq!(sub_borrow(32, 0, 1, false), (0xffff_ffff, true));
    assert_eq!(sub_borrow(32, 5, 5, true), (0xffff_ffff, true));
    assert_eq!(sub_borrow(64, 7, 5, false), (2, false));
}
