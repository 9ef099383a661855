//! Tests of the narrow-format conversions of `ops::convert`.

use super::*;

fn op_f32(fmt: MiniFmt, relu: bool) -> CvtXOp {
    CvtXOp::FromF32 {
        fmt,
        pair: true,
        rnd: CvtXRnd::Rn,
        relu,
        satfinite: true,
    }
}

#[test]
fn descriptors_round_trip() {
    for fmt in FMTS {
        for rnd in RNDS {
            for (relu, satfinite, pair) in [(false, true, true), (true, false, false)] {
                let ops = [
                    CvtXOp::FromF32 {
                        fmt,
                        pair,
                        rnd,
                        relu,
                        satfinite,
                    },
                    CvtXOp::FromX2 {
                        fmt,
                        rnd,
                        relu,
                        satfinite,
                    },
                    CvtXOp::ToX2 { fmt, relu },
                ];
                for op in ops {
                    assert_eq!(decode(encode(op)), Some(op));
                }
            }
        }
    }
    for bits in [2u8, 4, 8, 16] {
        let op = CvtXOp::Pack {
            bits,
            signed: true,
            with_c: bits != 16,
        };
        assert_eq!(decode(encode(op)), Some(op));
    }
}

#[test]
fn fp8_hand_cases() {
    let e4 = |x: f32| eval(op_f32(MiniFmt::E4m3, false), &[0, x.to_bits() as u64]);
    let e5 = |x: f32| eval(op_f32(MiniFmt::E5m2, false), &[0, x.to_bits() as u64]);
    assert_eq!(e4(1.0), 0x38); // exponent 7 (bias 7), mantissa 0
    assert_eq!(e4(448.0), 0x7e);
    assert_eq!(e4(1e9), 0x7e);
    assert_eq!(e4(f32::NEG_INFINITY), 0xfe);
    assert_eq!(e4(f32::NAN), 0x7f);
    assert_eq!(e4(-f32::NAN), 0x7f);
    assert_eq!(e4(2f32.powi(-9)), 0x01); // smallest subnormal
    assert_eq!(e4(2f32.powi(-10)), 0x00); // tie with 0: even
    assert_eq!(e4(1.0625), 0x38); // 1 + 1/16: tie between 1.0 and 1.125, even
    assert_eq!(e4(1.1875), 0x3a); // tie between 1.125 and 1.25, even = 1.25
    assert_eq!(e5(57344.0), 0x7b);
    assert_eq!(e5(f32::INFINITY), 0x7b);
    assert_eq!(e5(1.0), 0x3c);
    assert_eq!(e5(-0.0), 0x80);
    assert_eq!(
        eval(
            op_f32(MiniFmt::E5m2, true),
            &[0, (-1.0f32).to_bits() as u64]
        ),
        0
    );
}

#[test]
fn pack_cases() {
    assert_eq!(
        pack(16, true, false, 40000, (-40000i32) as u32 as u64, 0),
        0x7fff_8000
    );
    assert_eq!(
        pack(8, false, true, 300, (-5i32) as u32 as u64, 0xabcd),
        0xabcd_ff00
    );
    assert_eq!(
        pack(4, true, true, 3, (-9i32) as u32 as u64, 0xfff_ffff),
        0xffff_ff38
    );
}
