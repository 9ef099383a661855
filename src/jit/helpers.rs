//! `extern "C"` host helpers called by generated code, and the encodings of their
//! arguments.
//!
//! Memory and barriers go through the runtime's `access` / `bar_sync` so both backends
//! behave identically. Operations Cranelift cannot do exactly in vectors are applied lane
//! by lane with the same scalar semantics the interpreter uses (`crate::ops`), one call
//! per warp-wide instruction: operands are passed in stack slots of 32 lanes (4 bytes per
//! lane for 32-bit containers, 8 bytes for 64-bit ones).
//!
//! Helpers never unwind: they return a status (nonzero = stop the warp) where something
//! can fail, and decode errors of their descriptors (which the JIT builds) do nothing.

use crate::ir::{ArithOp, CmpOp, DivMode, FloatMode, InstId, MulMode, Rnd, Type};
use crate::runtime::ctx::{self, AccessReq, WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, Type as CType};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;

use super::JitError;

/// The helpers generated code can call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Helper {
    Access,
    BarArrive,
    BarWait,
    Arith,
    Cvt,
    Setp,
}

pub(crate) struct HelperDef {
    pub h: Helper,
    pub name: &'static str,
    pub params: &'static [CType],
    pub ret: Option<CType>,
}

/// Every helper with its symbol name and signature.
pub(crate) const HELPERS: &[HelperDef] = &[
    HelperDef {
        h: Helper::Access,
        name: "ptxjit_access",
        params: &[I64, I64, I32, I32, I64, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::BarArrive,
        name: "ptxjit_bar_arrive",
        params: &[I64, I32, I64, I32, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::BarWait,
        name: "ptxjit_bar_wait",
        params: &[I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Arith,
        name: "ptxjit_arith",
        params: &[I64, I32, I64, I64, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Cvt,
        name: "ptxjit_cvt",
        params: &[I64, I32, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Setp,
        name: "ptxjit_setp",
        params: &[I64, I32, I64, I64, I64],
        ret: None,
    },
];

impl HelperDef {
    pub fn ptr(&self) -> *const u8 {
        match self.h {
            Helper::Access => ptxjit_access as *const u8,
            Helper::BarArrive => ptxjit_bar_arrive as *const u8,
            Helper::BarWait => ptxjit_bar_wait as *const u8,
            Helper::Arith => ptxjit_arith as *const u8,
            Helper::Cvt => ptxjit_cvt as *const u8,
            Helper::Setp => ptxjit_setp as *const u8,
        }
    }
}

/// The helpers declared (imported) in a Cranelift module.
pub(crate) struct HelperIds {
    ids: HashMap<Helper, cranelift_module::FuncId>,
}

impl HelperIds {
    pub fn get(&self, h: Helper) -> Option<cranelift_module::FuncId> {
        self.ids.get(&h).copied()
    }
}

/// Declares every helper as an import of `cm`.
pub(crate) fn declare(cm: &mut JITModule) -> Result<HelperIds, JitError> {
    let mut ids = HashMap::new();
    for h in HELPERS {
        let mut sig = cm.make_signature();
        sig.params
            .extend(h.params.iter().map(|&t| AbiParam::new(t)));
        if let Some(r) = h.ret {
            sig.returns.push(AbiParam::new(r));
        }
        let id = cm
            .declare_function(h.name, Linkage::Import, &sig)
            .map_err(|e| JitError::Codegen(format!("declare helper {}: {e}", h.name)))?;
        ids.insert(h.h, id);
    }
    Ok(HelperIds { ids })
}

// ---------------------------------------------------------------------------------------
// Descriptor encodings.

const TYPES: [Type; 20] = [
    Type::Pred,
    Type::B8,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F16,
    Type::F16x2,
    Type::BF16,
    Type::BF16x2,
    Type::F32,
    Type::F64,
];

pub(crate) fn type_code(t: Type) -> u64 {
    TYPES.iter().position(|&x| x == t).unwrap_or(0) as u64
}

fn type_from(c: u64) -> Option<Type> {
    TYPES.get(c as usize).copied()
}

const RNDS: [Rnd; 8] = [
    Rnd::Rn,
    Rnd::Rz,
    Rnd::Rm,
    Rnd::Rp,
    Rnd::Rni,
    Rnd::Rzi,
    Rnd::Rmi,
    Rnd::Rpi,
];

fn rnd_code(r: Option<Rnd>) -> u64 {
    match r {
        None => 0,
        Some(r) => RNDS
            .iter()
            .position(|&x| x == r)
            .map_or(0, |i| i as u64 + 1),
    }
}

fn rnd_from(c: u64) -> Option<Rnd> {
    if c == 0 {
        None
    } else {
        RNDS.get(c as usize - 1).copied()
    }
}

fn arith_code(op: ArithOp) -> u64 {
    use ArithOp::*;
    let mm = |m: MulMode| match m {
        MulMode::Lo => 0,
        MulMode::Hi => 1,
        MulMode::Wide => 2,
    };
    match op {
        Add => 0,
        Sub => 1,
        Mul(m) => 2 + mm(m),
        Mad(m) => 5 + mm(m),
        Fma => 8,
        Div(DivMode::Ieee) => 9,
        Div(DivMode::Full) => 10,
        Div(DivMode::Approx) => 11,
        Rem => 12,
        Min => 13,
        Max => 14,
        Neg => 15,
        Abs => 16,
        And => 17,
        Or => 18,
        Xor => 19,
        Not => 20,
        Shl => 21,
        Shr => 22,
    }
}

fn arith_from(c: u64) -> Option<ArithOp> {
    use ArithOp::*;
    const MM: [MulMode; 3] = [MulMode::Lo, MulMode::Hi, MulMode::Wide];
    Some(match c {
        0 => Add,
        1 => Sub,
        2..=4 => Mul(MM[c as usize - 2]),
        5..=7 => Mad(MM[c as usize - 5]),
        8 => Fma,
        9 => Div(DivMode::Ieee),
        10 => Div(DivMode::Full),
        11 => Div(DivMode::Approx),
        12 => Rem,
        13 => Min,
        14 => Max,
        15 => Neg,
        16 => Abs,
        17 => And,
        18 => Or,
        19 => Xor,
        20 => Not,
        21 => Shl,
        22 => Shr,
        _ => return None,
    })
}

const CMPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

/// Descriptor of an `arith` helper call.
pub(crate) fn arith_desc(op: ArithOp, ty: Type, fm: FloatMode) -> u64 {
    arith_code(op)
        | type_code(ty) << 8
        | rnd_code(fm.rnd) << 16
        | (fm.ftz as u64) << 20
        | (fm.sat as u64) << 21
}

/// Descriptor of a `cvt` helper call.
pub(crate) fn cvt_desc(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool) -> u64 {
    type_code(dst)
        | type_code(src) << 8
        | rnd_code(rnd) << 16
        | (ftz as u64) << 20
        | (sat as u64) << 21
}

/// Descriptor of a `setp` helper call.
pub(crate) fn setp_desc(cmp: CmpOp, ty: Type, ftz: bool) -> u64 {
    CMPS.iter().position(|&c| c == cmp).unwrap_or(0) as u64
        | type_code(ty) << 8
        | (ftz as u64) << 20
}

/// Bytes per lane in a helper operand slot for a value of type `t`.
pub(crate) fn slot_bytes(t: Type) -> usize {
    if t.bits() > 32 {
        8
    } else {
        4
    }
}

/// The operand and result types of an arithmetic helper call: (a, b, c, out).
pub(crate) fn arith_types(op: ArithOp, ty: Type) -> (Type, Type, Type, Type) {
    let wide = ty.widened().unwrap_or(ty);
    match op {
        ArithOp::Shl | ArithOp::Shr => (ty, Type::U32, ty, ty),
        ArithOp::Mul(MulMode::Wide) => (ty, ty, ty, wide),
        ArithOp::Mad(MulMode::Wide) => (ty, ty, wide, wide),
        _ => (ty, ty, ty, ty),
    }
}

// ---------------------------------------------------------------------------------------
// Scalar semantics: the interpreter's (`crate::ops`) once it lands; a local equivalent
// until then.

#[inline]
fn mask_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[inline]
fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// The canonical NaN a GPU float operation returns (f32 or f64 bits).
pub(crate) fn canonical_nan(bits: u32) -> u64 {
    if bits == 32 {
        0x7fff_ffff
    } else {
        0x7fff_ffff_ffff_ffff
    }
}

/// Whether the helpers implement `op` on `ty` with `fm` (directed float rounding needs
/// `crate::ops`).
pub(crate) fn scalar_arith_supported(_op: ArithOp, ty: Type, fm: FloatMode) -> bool {
    !ty.is_float() || matches!(fm.rnd, None | Some(Rnd::Rn)) && matches!(ty, Type::F32 | Type::F64)
}

/// Whether the helpers implement this `cvt`.
pub(crate) fn scalar_cvt_supported(dst: Type, src: Type, rnd: Option<Rnd>) -> bool {
    let ok_ty =
        |t: Type| t.is_int() || t.is_bits() && t.bits() <= 64 || matches!(t, Type::F32 | Type::F64);
    if !ok_ty(dst) || !ok_ty(src) {
        return false;
    }
    // Float results with directed rounding need a soft-float implementation.
    !(dst.is_float() && matches!(rnd, Some(Rnd::Rz | Rnd::Rm | Rnd::Rp)))
}

mod scalar {
    use super::*;

    fn flush(x: u32) -> u32 {
        if x & 0x7f80_0000 == 0 {
            x & 0x8000_0000
        } else {
            x
        }
    }

    fn minmax(is_max: bool, a: f64, b: f64, ab: u64, bb: u64, nan: u64) -> u64 {
        match (a.is_nan(), b.is_nan()) {
            (true, true) => nan,
            (true, false) => bb,
            (false, true) => ab,
            _ => {
                let a_less = a < b || (a == b && a.is_sign_negative() && !b.is_sign_negative());
                let b_less = b < a || (a == b && b.is_sign_negative() && !a.is_sign_negative());
                if is_max {
                    if b_less || !a_less {
                        ab
                    } else {
                        bb
                    }
                } else if a_less || !b_less {
                    ab
                } else {
                    bb
                }
            }
        }
    }

    fn int(op: ArithOp, ty: Type, a: u64, b: u64, c: u64) -> u64 {
        let w = ty.bits().min(64);
        let m = mask_bits(w);
        let signed = ty.is_signed();
        let (sa, sb) = (sext(a, w), sext(b, w));
        let (ua, ub) = (a & m, b & m);
        let prod = |mode: MulMode| -> u64 {
            let p = if signed {
                (sa as i128 * sb as i128) as u128
            } else {
                ua as u128 * ub as u128
            };
            match mode {
                MulMode::Lo => (p as u64) & m,
                MulMode::Hi => ((p >> w) as u64) & m,
                MulMode::Wide => (p as u64) & mask_bits(2 * w),
            }
        };
        let r = match op {
            ArithOp::Add => ua.wrapping_add(ub),
            ArithOp::Sub => ua.wrapping_sub(ub),
            ArithOp::Mul(mode) => return prod(mode),
            ArithOp::Mad(MulMode::Wide) => {
                return prod(MulMode::Wide).wrapping_add(c) & mask_bits(2 * w)
            }
            ArithOp::Mad(mode) => prod(mode).wrapping_add(c),
            ArithOp::Fma => ua.wrapping_mul(ub).wrapping_add(c),
            ArithOp::Div(_) => {
                if ub == 0 {
                    m
                } else if signed {
                    sa.wrapping_div(sb) as u64
                } else {
                    ua / ub
                }
            }
            ArithOp::Rem => {
                if ub == 0 {
                    ua
                } else if signed {
                    sa.wrapping_rem(sb) as u64
                } else {
                    ua % ub
                }
            }
            ArithOp::Min => {
                if signed {
                    sa.min(sb) as u64
                } else {
                    ua.min(ub)
                }
            }
            ArithOp::Max => {
                if signed {
                    sa.max(sb) as u64
                } else {
                    ua.max(ub)
                }
            }
            ArithOp::Neg => 0u64.wrapping_sub(ua),
            ArithOp::Abs => {
                if signed {
                    sa.wrapping_abs() as u64
                } else {
                    ua
                }
            }
            ArithOp::And => ua & ub,
            ArithOp::Or => ua | ub,
            ArithOp::Xor => ua ^ ub,
            ArithOp::Not => !ua,
            ArithOp::Shl => {
                let s = b & 0xffff_ffff;
                if s >= w as u64 {
                    0
                } else {
                    ua << s
                }
            }
            ArithOp::Shr => {
                let s = b & 0xffff_ffff;
                if signed {
                    (sa >> s.min(63)) as u64
                } else if s >= w as u64 {
                    0
                } else {
                    ua >> s
                }
            }
        };
        r & m
    }

    fn f32op(op: ArithOp, fm: FloatMode, a: u32, b: u32, c: u32) -> u32 {
        let (a, b, c) = if fm.ftz {
            (flush(a), flush(b), flush(c))
        } else {
            (a, b, c)
        };
        let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        let r = match op {
            ArithOp::Add => x + y,
            ArithOp::Sub => x - y,
            ArithOp::Mul(_) => x * y,
            ArithOp::Fma | ArithOp::Mad(_) => x.mul_add(y, z),
            ArithOp::Div(_) => x / y,
            ArithOp::Min | ArithOp::Max => {
                let r = minmax(
                    op == ArithOp::Max,
                    x as f64,
                    y as f64,
                    a as u64,
                    b as u64,
                    canonical_nan(32),
                ) as u32;
                return if fm.ftz { flush(r) } else { r };
            }
            ArithOp::Neg => return a ^ 0x8000_0000,
            ArithOp::Abs => return a & 0x7fff_ffff,
            ArithOp::And => return a & b,
            ArithOp::Or => return a | b,
            ArithOp::Xor => return a ^ b,
            ArithOp::Not => return !a,
            ArithOp::Rem | ArithOp::Shl | ArithOp::Shr => return canonical_nan(32) as u32,
        };
        let r = if fm.sat {
            if r.is_nan() {
                0.0
            } else {
                r.clamp(0.0, 1.0)
            }
        } else {
            r
        };
        if r.is_nan() {
            return canonical_nan(32) as u32;
        }
        if fm.ftz {
            flush(r.to_bits())
        } else {
            r.to_bits()
        }
    }

    fn f64op(op: ArithOp, fm: FloatMode, a: u64, b: u64, c: u64) -> u64 {
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let r = match op {
            ArithOp::Add => x + y,
            ArithOp::Sub => x - y,
            ArithOp::Mul(_) => x * y,
            ArithOp::Fma | ArithOp::Mad(_) => x.mul_add(y, z),
            ArithOp::Div(_) => x / y,
            ArithOp::Min | ArithOp::Max => {
                return minmax(op == ArithOp::Max, x, y, a, b, canonical_nan(64))
            }
            ArithOp::Neg => return a ^ (1 << 63),
            ArithOp::Abs => return a & !(1 << 63),
            ArithOp::And => return a & b,
            ArithOp::Or => return a | b,
            ArithOp::Xor => return a ^ b,
            ArithOp::Not => return !a,
            ArithOp::Rem | ArithOp::Shl | ArithOp::Shr => return canonical_nan(64),
        };
        let r = if fm.sat {
            if r.is_nan() {
                0.0
            } else {
                r.clamp(0.0, 1.0)
            }
        } else {
            r
        };
        if r.is_nan() {
            canonical_nan(64)
        } else {
            r.to_bits()
        }
    }

    pub fn arith(op: ArithOp, ty: Type, fm: FloatMode, a: u64, b: u64, c: u64) -> u64 {
        match ty {
            Type::F32 => f32op(op, fm, a as u32, b as u32, c as u32) as u64,
            Type::F64 => f64op(op, fm, a, b, c),
            _ => int(op, ty, a, b, c),
        }
    }

    fn fcmp(cmp: CmpOp, a: f64, b: f64) -> bool {
        let un = a.is_nan() || b.is_nan();
        match cmp {
            CmpOp::Eq => a == b,
            CmpOp::Ne => !un && a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Equ => un || a == b,
            CmpOp::Neu => a != b,
            CmpOp::Ltu => un || a < b,
            CmpOp::Leu => un || a <= b,
            CmpOp::Gtu => un || a > b,
            CmpOp::Geu => un || a >= b,
            CmpOp::Num => !un,
            CmpOp::Nan => un,
        }
    }

    pub fn setp(cmp: CmpOp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
        use std::cmp::Ordering::*;
        match ty {
            Type::F32 => {
                let (x, y) = if ftz {
                    (flush(a as u32), flush(b as u32))
                } else {
                    (a as u32, b as u32)
                };
                fcmp(cmp, f32::from_bits(x) as f64, f32::from_bits(y) as f64)
            }
            Type::F64 => fcmp(cmp, f64::from_bits(a), f64::from_bits(b)),
            _ => {
                let w = ty.bits().min(64);
                let o = if ty.is_signed() {
                    sext(a, w).cmp(&sext(b, w))
                } else {
                    (a & mask_bits(w)).cmp(&(b & mask_bits(w)))
                };
                match cmp {
                    CmpOp::Eq | CmpOp::Equ => o == Equal,
                    CmpOp::Ne | CmpOp::Neu => o != Equal,
                    CmpOp::Lt | CmpOp::Ltu => o == Less,
                    CmpOp::Le | CmpOp::Leu => o != Greater,
                    CmpOp::Gt | CmpOp::Gtu => o == Greater,
                    CmpOp::Ge | CmpOp::Geu => o != Less,
                    CmpOp::Num => true,
                    CmpOp::Nan => false,
                }
            }
        }
    }

    /// Rounds a float to an integral value per an integer rounding modifier.
    fn round_int(x: f64, rnd: Option<Rnd>) -> f64 {
        match rnd {
            Some(Rnd::Rzi) | Some(Rnd::Rz) => x.trunc(),
            Some(Rnd::Rmi) | Some(Rnd::Rm) => x.floor(),
            Some(Rnd::Rpi) | Some(Rnd::Rp) => x.ceil(),
            _ => x.round_ties_even(),
        }
    }

    pub fn cvt(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool, a: u64) -> u64 {
        let dw = dst.bits().min(64);
        let sw = src.bits().min(64);
        if src.is_float() {
            let x = if src == Type::F32 {
                let b = a as u32;
                let b = if ftz { flush(b) } else { b };
                f32::from_bits(b) as f64
            } else {
                f64::from_bits(a)
            };
            if dst.is_float() {
                let r = if matches!(rnd, Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi)) {
                    round_int(x, rnd)
                } else {
                    x
                };
                if r.is_nan() {
                    return canonical_nan(dw);
                }
                let r = if sat { r.clamp(0.0, 1.0) } else { r };
                return if dst == Type::F32 {
                    let bits = (r as f32).to_bits();
                    (if ftz { flush(bits) } else { bits }) as u64
                } else {
                    r.to_bits()
                };
            }
            // float -> int: round, saturate to the destination range, NaN -> 0.
            if x.is_nan() {
                return 0;
            }
            let r = round_int(x, rnd);
            return if dst.is_signed() {
                let lo = -(2f64.powi(dw as i32 - 1));
                let hi = 2f64.powi(dw as i32 - 1);
                let v = if r < lo {
                    sext(1u64 << (dw - 1), dw)
                } else if r >= hi {
                    (mask_bits(dw) >> 1) as i64
                } else {
                    r as i64
                };
                v as u64 & mask_bits(dw)
            } else {
                let hi = 2f64.powi(dw as i32);
                if r <= 0.0 {
                    0
                } else if r >= hi {
                    mask_bits(dw)
                } else {
                    r as u64
                }
            };
        }
        // Integer source.
        let v: i128 = if src.is_signed() {
            sext(a, sw) as i128
        } else {
            (a & mask_bits(sw)) as i128
        };
        if dst.is_float() {
            return match dst {
                Type::F32 => (v as f32).to_bits() as u64,
                _ => (v as f64).to_bits(),
            };
        }
        if sat && (dst.is_signed() || dst.is_unsigned()) {
            let (lo, hi): (i128, i128) = if dst.is_signed() {
                (-(1i128 << (dw - 1)), (1i128 << (dw - 1)) - 1)
            } else {
                (0, (1i128 << dw) - 1)
            };
            return (v.clamp(lo, hi) as u64) & mask_bits(dw);
        }
        (v as u64) & mask_bits(dw)
    }
}

/// The scalar semantics the helpers apply (the interpreter's once `crate::ops` lands).
pub(crate) use scalar::{arith as scalar_arith, cvt as scalar_cvt, setp as scalar_setp};

// ---------------------------------------------------------------------------------------
// The helpers.

/// Reads lane `lane` of a slot array of `sb`-byte slots, masked to `bits`.
///
/// # Safety
/// `p` must be valid for `32 * sb` bytes.
#[inline]
unsafe fn rd(p: *const u8, lane: usize, sb: usize, bits: u32) -> u64 {
    let v = unsafe {
        if sb == 8 {
            (p as *const u64).add(lane).read_unaligned()
        } else {
            (p as *const u32).add(lane).read_unaligned() as u64
        }
    };
    v & mask_bits(bits)
}

/// # Safety
/// `p` must be valid for `32 * sb` bytes.
#[inline]
unsafe fn wr(p: *mut u8, lane: usize, sb: usize, v: u64) {
    unsafe {
        if sb == 8 {
            (p as *mut u64).add(lane).write_unaligned(v)
        } else {
            (p as *mut u32).add(lane).write_unaligned(v as u32)
        }
    }
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask >> l & 1 != 0)
}

/// `ld`/`st` slow path: `runtime::ctx::access` for the lanes in `mask`. Returns 0, or the
/// warp's (nonzero) status after a fault.
///
/// # Safety
/// `ctx` must be the running warp's context (with a valid `env`), `addrs` 32 u64 lane
/// addresses, `data` the slots described by `shape`.
pub unsafe extern "C" fn ptxjit_access(
    ctx: *mut WarpCtx,
    shape: u64,
    mask: u32,
    inst: u32,
    addrs: *const u64,
    data: *mut u8,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let Some(req) = AccessReq::unpack_shape(shape, mask, InstId(inst)) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    match unsafe { ctx::access(ctx, &req, addrs, data) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Lanes `mask` arrive at barrier `id` (`count == u64::MAX`: no count); non-blocking.
/// Returns 0, or the warp's nonzero status.
///
/// # Safety
/// As `runtime::ctx::bar_arrive`.
pub unsafe extern "C" fn ptxjit_bar_arrive(
    ctx: *mut WarpCtx,
    id: u32,
    count: u64,
    mask: u32,
    inst: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let count = if count == u64::MAX {
        None
    } else {
        Some(count as u32)
    };
    match unsafe { ctx::bar_arrive(ctx, id, count, mask, InstId(inst)) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Suspends the warp until the barriers its lanes arrived at complete. Returns 0, or the
/// warp's nonzero status.
///
/// # Safety
/// As `runtime::ctx::bar_wait`.
pub unsafe extern "C" fn ptxjit_bar_wait(ctx: *mut WarpCtx) -> u32 {
    let ctx = unsafe { &mut *ctx };
    match unsafe { ctx::bar_wait(ctx) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// `out[l] = arith(op, ty, fm, a[l], b[l], c[l])` for the lanes in `mask`.
///
/// # Safety
/// The pointers must be valid slot arrays for the types `arith_types` gives.
pub unsafe extern "C" fn ptxjit_arith(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) {
    let (Some(op), Some(ty)) = (arith_from(desc & 0xff), type_from(desc >> 8 & 0xff)) else {
        return;
    };
    let fm = FloatMode {
        rnd: rnd_from(desc >> 16 & 0xf),
        ftz: desc >> 20 & 1 != 0,
        sat: desc >> 21 & 1 != 0,
    };
    let (ta, tb, tc, to) = arith_types(op, ty);
    let arity = op.arity();
    for l in lanes(mask) {
        unsafe {
            let x = rd(a, l, slot_bytes(ta), ta.bits());
            let y = if arity >= 2 {
                rd(b, l, slot_bytes(tb), tb.bits())
            } else {
                0
            };
            let z = if arity >= 3 {
                rd(c, l, slot_bytes(tc), tc.bits())
            } else {
                0
            };
            wr(out, l, slot_bytes(to), scalar_arith(op, ty, fm, x, y, z));
        }
    }
}

/// `out[l] = cvt(dst, src, rnd, ftz, sat, a[l])` for the lanes in `mask`.
///
/// # Safety
/// The pointers must be valid slot arrays for the source and destination types.
pub unsafe extern "C" fn ptxjit_cvt(desc: u64, mask: u32, a: *const u8, out: *mut u8) {
    let (Some(dst), Some(src)) = (type_from(desc & 0xff), type_from(desc >> 8 & 0xff)) else {
        return;
    };
    let rnd = rnd_from(desc >> 16 & 0xf);
    let (ftz, sat) = (desc >> 20 & 1 != 0, desc >> 21 & 1 != 0);
    for l in lanes(mask) {
        unsafe {
            let x = rd(a, l, slot_bytes(src), src.bits());
            wr(
                out,
                l,
                slot_bytes(dst),
                scalar_cvt(dst, src, rnd, ftz, sat, x),
            );
        }
    }
}

/// `out[l] = setp(cmp, ty, ftz, a[l], b[l]) ? -1 : 0` (i32 lane masks) for every lane
/// (lanes outside `mask` get 0).
///
/// # Safety
/// `a`, `b` must be valid slot arrays for `ty`; `out` 32 × i32.
pub unsafe extern "C" fn ptxjit_setp(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    out: *mut u8,
) {
    let (Some(&cmp), Some(ty)) = (
        CMPS.get((desc & 0xff) as usize),
        type_from(desc >> 8 & 0xff),
    ) else {
        return;
    };
    let ftz = desc >> 20 & 1 != 0;
    let sb = slot_bytes(ty);
    for l in 0..WARP_SIZE {
        unsafe {
            let r = if mask >> l & 1 != 0 {
                scalar_setp(
                    cmp,
                    ty,
                    ftz,
                    rd(a, l, sb, ty.bits()),
                    rd(b, l, sb, ty.bits()),
                )
            } else {
                false
            };
            wr(out, l, 4, if r { u32::MAX as u64 } else { 0 });
        }
    }
}
