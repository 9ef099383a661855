//! Semantics of the video instructions ([`VideoOp`]), as an NVIDIA GPU computes them.
//!
//! Since Maxwell the video instructions have no hardware of their own: `ptxas` expands
//! each into integer code, and where the ISA's pseudocode leaves a detail open (or the
//! expansion differs from it) the GPU's result is what that code computes. The rules
//! below reproduce an H100's results for all 836 forms of `tests/golden/cases_future.txt`
//! (321,024 lanes: special values and random words, every type combination, selectors,
//! saturation, secondary operations, merges, `vmad` negations/scales/`.po`), and were
//! read from `ptxas --gpu-name sm_90` code (`cuobjdump -sass`):
//!
//! - The SIMD forms (`vadd2` ... `vset4`) follow the ISA's pseudocode exactly.
//! - Scalar `vadd vsub vabsdiff vmin vmax vset`: the operands are selected and sign- or
//!   zero-extended by type and the operation is exact. `.sat` without a destination
//!   selector clamps a `.s32` result to the s32 range, and a `.u32` result only below
//!   (a negative result gives 0; an unsigned sum past `U32_MAX` wraps). The secondary
//!   `.add/.min/.max` works on 64 bits: the (saturated) result sign-extended from 32 bits
//!   for `vadd`/`vsub`, exact for `vabsdiff/vmin/vmax`, `c` extended by the destination
//!   type (`vset`: by `atype`), compared signed or unsigned by that type.
//! - A destination selector merges into `c` with `ptxas`'s byte permutations: `.b0`-`.b3`
//!   and `.h0` place the result's low byte/half-word there, but `.h1` keeps the result's
//!   high half-word (`prmt(r, c, 0x3254)`). With `.sat`, the exact result is first
//!   clamped: anything outside `[0, 2^32)` (negative included) becomes `0xffffffff`, then
//!   the unsigned minimum with the selector's maximum (`0x7f`/`0xff`, `0x7fff`/`0xffff`)
//!   is taken, sign-extended for `.s32` (so a negative result saturates to the maximum).
//! - `vshl`/`vshr`: the shift is computed on 34 bits (the extended operand as a 64-bit
//!   value, shifted, its bits 33..32 sign-extended); `.sat` clamps to the 32-bit range of
//!   the destination type (an unsigned negative result gives 0), also with a destination
//!   selector, which then only places the result.
//! - `vmad`: the product is a signed 32 × 32 → 64-bit multiply of the selected operands
//!   (even for `.u32`), `c` is sign-extended, negations and `.po` as the ISA says; the
//!   scale shifts the 64-bit sum arithmetically when the result is signed, logically
//!   otherwise; `.sat` clamps to the s32 range (signed results) or, unsigned, a negative
//!   sum to 0 and one past 32 bits to `0xffffffff`.

use crate::ir::{VideoCmp, VideoKind, VideoOp, VideoOp2, VideoSel};

/// `d = op(a, b, c)` (`c` is ignored by the forms without it).
pub fn eval(op: &VideoOp, a: u32, b: u32, c: u32) -> u32 {
    if op.lanes > 1 {
        simd(op, a, b, c)
    } else if op.kind == VideoKind::Mad {
        mad(op, a, b, c)
    } else {
        scalar(op, a, b, c)
    }
}

fn sext32(v: u32) -> i64 {
    v as i32 as i64
}

/// Byte or half-word `sel` of `v` (the whole word without one), extended by `signed`.
fn select(v: u32, sel: Option<VideoSel>, signed: bool) -> i64 {
    match sel {
        None if signed => sext32(v),
        None => v as i64,
        Some(VideoSel::Byte(k)) => {
            let x = (v >> (8 * k)) as u8;
            if signed {
                x as i8 as i64
            } else {
                x as i64
            }
        }
        Some(VideoSel::Half(k)) => {
            let x = (v >> (16 * k)) as u16;
            if signed {
                x as i16 as i64
            } else {
                x as i64
            }
        }
    }
}

/// PTX `prmt.b32 d, r, c, sel` (default mode): byte i of `d` is byte `sel[i]` of `{c, r}`.
fn prmt(r: u32, c: u32, sel: u32) -> u32 {
    let bytes = (r as u64) | (c as u64) << 32;
    (0..4).fold(0, |d, i| {
        let k = sel >> (4 * i) & 7;
        d | ((bytes >> (8 * k)) as u8 as u32) << (8 * i)
    })
}

/// The byte permutation `ptxas` merges a result into `c` with, per destination selector.
fn merge(r: u32, c: u32, dsel: VideoSel) -> u32 {
    let sel = match dsel {
        VideoSel::Byte(0) => 0x7650,
        VideoSel::Byte(1) => 0x7604,
        VideoSel::Byte(2) => 0x7054,
        VideoSel::Byte(_) => 0x0654,
        VideoSel::Half(0) => 0x7610,
        VideoSel::Half(_) => 0x3254,
    };
    prmt(r, c, sel)
}

fn compare(cmp: VideoCmp, x: i64, y: i64) -> bool {
    match cmp {
        VideoCmp::Eq => x == y,
        VideoCmp::Ne => x != y,
        VideoCmp::Lt => x < y,
        VideoCmp::Le => x <= y,
        VideoCmp::Gt => x > y,
        VideoCmp::Ge => x >= y,
    }
}

/// `.sat` without a destination selector: the s32 range, or (unsigned) 0 below.
fn sat_word(t: i64, signed: bool) -> i64 {
    if signed {
        t.clamp(i32::MIN as i64, i32::MAX as i64)
    } else {
        t.max(0)
    }
}

/// The secondary operation on 64 bits: `t` and `c` extended as the module doc says.
fn secondary(op2: VideoOp2, t: i64, c: u32, signed: bool) -> u32 {
    let c = if signed { sext32(c) } else { c as i64 };
    let r = match op2 {
        VideoOp2::Add => t.wrapping_add(c),
        VideoOp2::Min if signed => t.min(c),
        VideoOp2::Max if signed => t.max(c),
        VideoOp2::Min => (t as u64).min(c as u64) as i64,
        VideoOp2::Max => (t as u64).max(c as u64) as i64,
    };
    r as u32
}

fn scalar(op: &VideoOp, a: u32, b: u32, c: u32) -> u32 {
    let shift = matches!(op.kind, VideoKind::Shl | VideoKind::Shr);
    let ta = select(a, op.asel, op.asigned);
    let tb = select(b, op.bsel, op.bsigned && !shift);
    let t: i64 = match op.kind {
        VideoKind::Add => ta + tb,
        VideoKind::Sub => ta - tb,
        VideoKind::Absdiff => (ta - tb).abs(),
        VideoKind::Min => ta.min(tb),
        VideoKind::Max => ta.max(tb),
        VideoKind::Set(cmp) => compare(cmp, ta, tb) as i64,
        VideoKind::Shl | VideoKind::Shr => return shift_op(op, ta, tb, c),
        VideoKind::Avrg | VideoKind::Mad => 0,
    };
    if let Some(op2) = op.op2 {
        let t = if op.sat { sat_word(t, op.dsigned) } else { t };
        let t = match op.kind {
            VideoKind::Add | VideoKind::Sub | VideoKind::Set(_) => sext32(t as u32),
            _ => t,
        };
        return secondary(op2, t, c, op.dsigned);
    }
    match op.dsel {
        None if op.sat => sat_word(t, op.dsigned) as u32,
        None => t as u32,
        Some(dsel) => {
            let r = if op.sat {
                sat_sub(t, dsel, op.dsigned)
            } else {
                t as u32
            };
            merge(r, c, dsel)
        }
    }
}

/// `.sat` with destination selector `dsel` (see the module doc).
fn sat_sub(t: i64, dsel: VideoSel, signed: bool) -> u32 {
    let bits = match dsel {
        VideoSel::Byte(_) => 8,
        VideoSel::Half(_) => 16,
    };
    let lo = if (t as u64) >> 32 != 0 {
        u32::MAX
    } else {
        t as u32
    };
    let max = if signed {
        (1u32 << (bits - 1)) - 1
    } else {
        (1u32 << bits) - 1
    };
    let r = lo.min(max);
    if signed {
        ((r << (32 - bits)) as i32 >> (32 - bits)) as u32
    } else {
        r
    }
}

/// The 64-bit value `t` saturated to 32 bits: signed (s32 range) or unsigned (0 below,
/// all ones above), judged by its high word `hi` as `ptxas` does.
fn sat_hi_lo(t: i64, signed: bool) -> u32 {
    let (hi, lo) = ((t >> 32) as i32, t as u32);
    if signed {
        if hi != (lo as i32) >> 31 {
            if hi >= 0 {
                i32::MAX as u32
            } else {
                i32::MIN as u32
            }
        } else {
            lo
        }
    } else if hi > 0 {
        u32::MAX
    } else if hi < 0 {
        0
    } else {
        lo
    }
}

fn shift_op(op: &VideoOp, ta: i64, tb: i64, c: u32) -> u32 {
    let n = if op.clamp { tb.min(32) } else { tb & 31 } as u32;
    let t = if op.kind == VideoKind::Shl {
        ta.wrapping_shl(n)
    } else {
        ta >> n
    };
    // The 34-bit intermediate: bits 33..32 sign-extended.
    let t34 = (t << 30) >> 30;
    let r = if op.sat {
        sat_hi_lo(t34, op.dsigned)
    } else {
        t34 as u32
    };
    match (op.dsel, op.op2) {
        (Some(dsel), _) => merge(r, c, dsel),
        (None, Some(op2)) => secondary(op2, sext32(r), c, op.dsigned),
        (None, None) => r,
    }
}

fn mad(op: &VideoOp, a: u32, b: u32, c: u32) -> u32 {
    let ta = select(a, op.asel, op.asigned) as u32;
    let tb = select(b, op.bsel, op.bsigned) as u32;
    let signed = op.asigned || op.bsigned || op.neg_prod || op.neg_c;
    let mut prod = sext32(ta).wrapping_mul(sext32(tb));
    let mut c = c;
    let lsb = if op.po {
        1
    } else if op.neg_prod {
        prod = !prod;
        1
    } else if op.neg_c {
        c = !c;
        1
    } else {
        0
    };
    let mut t = prod.wrapping_add(sext32(c)).wrapping_add(lsb);
    if op.scale > 0 {
        t = if signed {
            t >> op.scale
        } else {
            ((t as u64) >> op.scale) as i64
        };
    }
    if op.sat {
        sat_hi_lo(t, signed)
    } else {
        t as u32
    }
}

fn simd(op: &VideoOp, a: u32, b: u32, c: u32) -> u32 {
    let n = op.lanes as u32;
    let w = 32 / n;
    let src = (a as u64) | (b as u64) << 32;
    let elem = |sel: u16, i: u32, signed: bool| -> i64 {
        let k = (sel >> (4 * i) & 7) as u32;
        let x = (src >> (w * k)) & ((1u64 << w) - 1);
        if signed {
            ((x << (64 - w)) as i64) >> (64 - w)
        } else {
            x as i64
        }
    };
    let (lo, hi) = if op.dsigned {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    };
    let mut d = if op.op2.is_some() { c } else { 0 };
    for i in 0..n {
        let (x, y) = (
            elem(op.simd_asel, i, op.asigned),
            elem(op.simd_bsel, i, op.bsigned),
        );
        let mut t = match op.kind {
            VideoKind::Add => x + y,
            VideoKind::Sub => x - y,
            VideoKind::Avrg if x + y >= 0 => (x + y + 1) >> 1,
            VideoKind::Avrg => (x + y) >> 1,
            VideoKind::Absdiff => (x - y).abs(),
            VideoKind::Min => x.min(y),
            VideoKind::Max => x.max(y),
            VideoKind::Set(cmp) => compare(cmp, x, y) as i64,
            VideoKind::Shl | VideoKind::Shr | VideoKind::Mad => 0,
        };
        if op.sat {
            t = t.clamp(lo, hi);
        }
        let on = op.simd_mask >> i & 1 != 0;
        let field = ((1u64 << w) - 1) as u32;
        if op.op2.is_some() {
            if on {
                d = d.wrapping_add(t as u32);
            }
        } else {
            let v = if on { t as u32 } else { c >> (w * i) };
            d |= (v & field) << (w * i);
        }
    }
    d
}

/// The helper descriptor of a video form (the JIT passes it to `ptxjit_video`).
pub fn encode(op: &VideoOp) -> u64 {
    let kind = match op.kind {
        VideoKind::Add => 0,
        VideoKind::Sub => 1,
        VideoKind::Absdiff => 2,
        VideoKind::Min => 3,
        VideoKind::Max => 4,
        VideoKind::Avrg => 5,
        VideoKind::Shl => 6,
        VideoKind::Shr => 7,
        VideoKind::Mad => 8,
        VideoKind::Set(c) => 9 + c as u64,
    };
    let sel = |s: Option<VideoSel>| match s {
        None => 0u64,
        Some(VideoSel::Byte(k)) => 1 + k as u64,
        Some(VideoSel::Half(k)) => 5 + k as u64,
    };
    let op2 = match op.op2 {
        None => 0u64,
        Some(VideoOp2::Add) => 1,
        Some(VideoOp2::Min) => 2,
        Some(VideoOp2::Max) => 3,
    };
    let flags = [
        op.dsigned,
        op.asigned,
        op.bsigned,
        op.sat,
        op.clamp,
        op.po,
        op.neg_prod,
        op.neg_c,
    ]
    .iter()
    .enumerate()
    .fold(0u64, |f, (i, &b)| f | (b as u64) << i);
    kind | (op.lanes as u64) << 4
        | flags << 7
        | op2 << 15
        | sel(op.dsel) << 17
        | sel(op.asel) << 20
        | sel(op.bsel) << 23
        | (op.scale as u64) << 26
        | (op.simd_mask as u64) << 31
        | pack_simd_sel(op.simd_asel) << 35
        | pack_simd_sel(op.simd_bsel) << 47
}

/// A SIMD selector (4 nibbles of element indices 0-7) in 12 bits.
fn pack_simd_sel(sel: u16) -> u64 {
    (0..4).fold(0, |p, i| p | ((sel >> (4 * i) & 7) as u64) << (3 * i))
}

fn unpack_simd_sel(p: u64) -> u16 {
    (0..4).fold(0, |s, i| s | ((p >> (3 * i) & 7) as u16) << (4 * i))
}

/// The inverse of [`encode`].
pub fn decode(d: u64) -> Option<VideoOp> {
    const CMPS: [VideoCmp; 6] = [
        VideoCmp::Eq,
        VideoCmp::Ne,
        VideoCmp::Lt,
        VideoCmp::Le,
        VideoCmp::Gt,
        VideoCmp::Ge,
    ];
    let kind = match d & 15 {
        0 => VideoKind::Add,
        1 => VideoKind::Sub,
        2 => VideoKind::Absdiff,
        3 => VideoKind::Min,
        4 => VideoKind::Max,
        5 => VideoKind::Avrg,
        6 => VideoKind::Shl,
        7 => VideoKind::Shr,
        8 => VideoKind::Mad,
        k => VideoKind::Set(*CMPS.get(k as usize - 9)?),
    };
    let sel = |v: u64| match v & 7 {
        0 => None,
        k @ 1..=4 => Some(VideoSel::Byte(k as u8 - 1)),
        k => Some(VideoSel::Half((k as u8 - 5) & 1)),
    };
    let flag = |i: u32| d >> (7 + i) & 1 != 0;
    Some(VideoOp {
        kind,
        lanes: (d >> 4 & 7) as u8,
        dsigned: flag(0),
        asigned: flag(1),
        bsigned: flag(2),
        sat: flag(3),
        clamp: flag(4),
        po: flag(5),
        neg_prod: flag(6),
        neg_c: flag(7),
        op2: match d >> 15 & 3 {
            0 => None,
            1 => Some(VideoOp2::Add),
            2 => Some(VideoOp2::Min),
            _ => Some(VideoOp2::Max),
        },
        dsel: sel(d >> 17),
        asel: sel(d >> 20),
        bsel: sel(d >> 23),
        scale: (d >> 26 & 31) as u8,
        simd_mask: (d >> 31 & 15) as u8,
        simd_asel: unpack_simd_sel(d >> 35),
        simd_bsel: unpack_simd_sel(d >> 47),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar_op(kind: VideoKind, signed: bool) -> VideoOp {
        VideoOp {
            kind,
            lanes: 1,
            dsigned: signed,
            asigned: signed,
            bsigned: signed,
            sat: false,
            op2: None,
            dsel: None,
            asel: None,
            bsel: None,
            simd_asel: 0,
            simd_bsel: 0,
            simd_mask: 0,
            clamp: false,
            scale: 0,
            po: false,
            neg_prod: false,
            neg_c: false,
        }
    }

    /// Values from the H100 run (tests/golden/out_future/video_*.bin), worked by hand.
    #[test]
    fn gpu_rules() {
        let mut op = scalar_op(VideoKind::Add, false);
        op.sat = true;
        // vadd.u32.u32.u32.sat 1 + 0xffffffff: unsigned .sat does not clamp above.
        assert_eq!(eval(&op, 1, 0xffff_ffff, 0), 0);
        // vsub.u32.u32.u32.sat 0 - 1 = -1: clamped to 0.
        op.kind = VideoKind::Sub;
        assert_eq!(eval(&op, 0, 1, 0), 0);
        // vadd.u32.u32.u32.min: t = 0x80000000 sign-extended is above c = 0x80808080
        // zero-extended, so c is the minimum.
        let mut op = scalar_op(VideoKind::Add, false);
        op.op2 = Some(VideoOp2::Min);
        assert_eq!(eval(&op, 0, 0x8000_0000, 0x8080_8080), 0x8080_8080);
        // vadd.u32.u32.u32 d.h1, 0, 1, c=0x8000: d.h1 takes the result's high half (0).
        let mut op = scalar_op(VideoKind::Add, false);
        op.dsel = Some(VideoSel::Half(1));
        assert_eq!(eval(&op, 0, 1, 0x8000), 0x8000);
        // vmin.s32.s32.s32.sat d.b1, 0, 0x80000000, c=0x80808080: a negative result
        // saturates to 0x7f in byte 1.
        let mut op = scalar_op(VideoKind::Min, true);
        op.sat = true;
        op.dsel = Some(VideoSel::Byte(1));
        assert_eq!(eval(&op, 0, 0x8000_0000, 0x8080_8080), 0x8080_7f80);
        // vmad.u32.u32.u32.shr7 0 * 0x80 + c=0x80000000: c sign-extended, shifted
        // logically: 0xffffffff80000000 >> 7 = 0x01ffffffff000000.
        let mut op = scalar_op(VideoKind::Mad, false);
        op.scale = 7;
        assert_eq!(eval(&op, 0, 0x80, 0x8000_0000), 0xff00_0000);
    }

    #[test]
    fn simd_isa_examples() {
        // vadd4.u32.u32.u32.sat: bytewise saturating add of a and b, all lanes.
        let mut op = scalar_op(VideoKind::Add, false);
        op.lanes = 4;
        op.sat = true;
        op.simd_asel = 0x3210;
        op.simd_bsel = 0x7654;
        op.simd_mask = 0xf;
        assert_eq!(eval(&op, 0x01ff_80f0, 0x0101_8020, 0), 0x02ff_ffff);
        // vavrg2.s32.s32.s32: (-3 + 0 + 1) >> 1 = -1 is not how negative sums round:
        // (-3 + 0) >> 1 = -2; (5 + 2 + 1) >> 1 = 4.
        let mut op = scalar_op(VideoKind::Avrg, true);
        op.lanes = 2;
        op.simd_asel = 0x10;
        op.simd_bsel = 0x32;
        op.simd_mask = 3;
        assert_eq!(eval(&op, 0x0005_fffd, 0x0002_0000, 0), 0x0004_fffe);
    }

    #[test]
    fn codec_round_trips() {
        let mut op = scalar_op(VideoKind::Set(VideoCmp::Ge), true);
        op.lanes = 4;
        op.simd_asel = 0x4052;
        op.simd_bsel = 0x7654;
        op.simd_mask = 0b1010;
        assert_eq!(decode(encode(&op)), Some(op));
        op.simd_asel = 0x7777;
        op.simd_bsel = 0x0707;
        op.op2 = Some(VideoOp2::Add);
        assert_eq!(decode(encode(&op)), Some(op));
        let mut op = scalar_op(VideoKind::Mad, false);
        op.scale = 15;
        op.neg_c = true;
        op.asel = Some(VideoSel::Half(1));
        op.bsel = Some(VideoSel::Byte(3));
        assert_eq!(decode(encode(&op)), Some(op));
        let mut op = scalar_op(VideoKind::Shr, true);
        op.clamp = true;
        op.sat = true;
        op.dsel = Some(VideoSel::Byte(2));
        op.op2 = Some(VideoOp2::Max);
        assert_eq!(decode(encode(&op)), Some(op));
    }
}
