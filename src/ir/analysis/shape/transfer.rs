//! The transfer functions of the shape analysis: the fact of each operand, and the
//! facts each instruction writes.

use super::{Fact, Shape, Shapes, State};
use crate::ir::{
    AddrBase, Address, ArithOp, CallDst, CmpOp, Function, Inst, InstKind, MulMode, Operand, RegId,
    Space, SpecialReg, Terminator, Type, VarRef, WarpOp,
};

/// Width in bits of values of `ty` (1 for predicates).
fn width(ty: Type) -> u32 {
    if ty == Type::Pred {
        1
    } else {
        ty.bits().min(64)
    }
}

/// `a + b` of known-trailing-zero counts, capped at 64.
fn tz_add(a: u8, b: u8) -> u32 {
    (u32::from(a) + u32::from(b)).min(64)
}

impl Shapes {
    /// The fact of a source operand read as type `ty`.
    pub(super) fn operand(&self, st: &State, op: &Operand, ty: Type) -> Fact {
        let tb = width(ty);
        match *op {
            Operand::Reg(r) => {
                let x = st.get(r).copied().unwrap_or(Fact::VARYING);
                let rb = self.bits.get(r).copied().unwrap_or(64);
                match x.shape {
                    Shape::Varying => Fact::VARYING,
                    Shape::Uniform => Fact {
                        tz: x.tz.min(tb as u8),
                        ..Fact::UNIFORM
                    },
                    // A guarded value's wrap (a multiple of 2^32) may vanish when truncated.
                    Shape::Affine(_) if x.guarded && rb == tb => x,
                    Shape::Affine(_) if x.guarded => Fact::VARYING,
                    // A wider register read as a narrower type: truncation keeps it affine.
                    Shape::Affine(s) if rb >= tb && tb > 1 => Fact::affine(s, x.tz.into(), tb),
                    Shape::Affine(_) => Fact::VARYING,
                }
            }
            Operand::Imm(v) => Fact::constant(v, tb),
            Operand::VarAddr(..) | Operand::FuncAddr(_) => Fact::UNIFORM,
            Operand::Special(s) => self.special(s),
        }
    }

    fn special(&self, s: SpecialReg) -> Fact {
        use crate::ir::Dim;
        use SpecialReg::*;
        if let Some(c) = s.constant() {
            return Fact::constant(c, 64);
        }
        let rows = self.launch.rows_whole_warps;
        if self.launch.half_rows {
            // (See `LaunchShape::HALF_ROWS`.)
            return match s {
                Tid(Dim::X) => Fact {
                    shape: Shape::Affine(1),
                    tz: 64,
                    guarded: false,
                },
                Tid(_) => Fact::UNIFORM,
                Ntid(Dim::X) => Fact::constant(16, 64),
                LaneId | LaneMask(_) | Clock | ClockHi | Clock64 | GlobalTimer | GlobalTimerLo
                | GlobalTimerHi => Fact::VARYING,
                _ => Fact::UNIFORM,
            };
        }
        match s {
            LaneId => Fact {
                shape: Shape::Affine(1),
                tz: 64,
                guarded: false,
            },
            // Warps start at multiples of 32 of the linear thread index.
            Tid(Dim::X) if rows => Fact {
                shape: Shape::Affine(1),
                tz: 5,
                guarded: false,
            },
            Tid(_) if rows => Fact::UNIFORM,
            Ntid(Dim::X) if self.launch.ntid_x_mult32 => Fact {
                tz: 5,
                ..Fact::UNIFORM
            },
            // Read per lane, at different times for the clocks.
            Tid(_) | LaneMask(_) | Clock | ClockHi | Clock64 | GlobalTimer | GlobalTimerLo
            | GlobalTimerHi => Fact::VARYING,
            _ => Fact::UNIFORM,
        }
    }

    /// Applies instruction `inst` to the state `st`. `strong`: a strong load (see
    /// [`strong_load`]), which other threads' stores may race with.
    pub fn step(&self, f: &Function, st: &mut State, inst: &Inst, strong: bool) {
        let guard = inst
            .guard
            .map(|g| st.get(g.pred).map_or(Shape::Varying, |x| x.shape));
        for (r, ty, x) in self.results(f, st, &inst.kind, strong) {
            let rb = self.bits.get(r).copied().unwrap_or(64);
            let tb = width(ty);
            // The value written: `ty`'s value extended or truncated to the register.
            let x = match x.shape {
                Shape::Uniform if rb == 1 => Fact::UNIFORM,
                _ if rb == 1 => Fact::VARYING,
                Shape::Affine(_) if rb > tb => Fact::VARYING,
                Shape::Affine(_) if x.guarded && rb < tb => Fact::VARYING,
                Shape::Affine(s) if x.guarded => Fact::affine_guarded(s, x.tz.into(), rb),
                Shape::Affine(s) => Fact::affine(s, x.tz.into(), rb),
                Shape::Uniform => Fact {
                    tz: if rb < tb { x.tz.min(rb as u8) } else { x.tz },
                    ..Fact::UNIFORM
                },
                Shape::Varying => Fact::VARYING,
            };
            let new = match guard {
                None => x,
                Some(Shape::Uniform) => st.get(r).map_or(Fact::VARYING, |old| old.meet(x)),
                Some(_) => Fact::VARYING,
            };
            st.set(r, new);
        }
    }

    /// The registers `k` writes, each with the type it writes and the value's fact.
    fn results(
        &self,
        f: &Function,
        st: &State,
        k: &InstKind,
        strong: bool,
    ) -> Vec<(RegId, Type, Fact)> {
        use InstKind::*;
        let Ok(ops) = k.operands() else {
            return k
                .defs()
                .into_iter()
                .map(|r| (r, Type::B64, Fact::VARYING))
                .collect();
        };
        let src = |i: usize| {
            ops.srcs
                .get(i)
                .map_or(Fact::VARYING, |(o, t, _)| self.operand(st, o, *t))
        };
        let all_uniform = (0..ops.srcs.len()).all(|i| src(i).shape == Shape::Uniform);
        let same = |x: Fact| -> Vec<(RegId, Type, Fact)> {
            ops.dsts
                .iter()
                .filter_map(|(r, t, _)| r.map(|r| (r, *t, x)))
                .collect()
        };
        let lanewise = if all_uniform {
            Fact::UNIFORM
        } else {
            Fact::VARYING
        };
        match k {
            Mov { .. } => same(src(0)),
            Arith { op, ty, srcs, .. } if ty.is_int() || ty.is_bits() => {
                let half = self.launch.half_rows;
                same(arith(*op, *ty, srcs, &src, half).unwrap_or(lanewise))
            }
            Selp { .. } if src(2).shape == Shape::Uniform => same(src(0).meet(src(1))),
            // A compare of a run of lanes in one aligned block against a bound the block
            // cannot straddle; the combined predicate (if any) uniform too.
            Setp { cmp, ty, a, b, .. }
                if (2..ops.srcs.len()).all(|i| src(i).shape == Shape::Uniform)
                    && setp_uniform(*cmp, *ty, (src(0), a), (src(1), b)) =>
            {
                same(Fact::UNIFORM)
            }
            // The result is the source plus or minus a uniform base (each lane's own base
            // for `.local`; 0 for `.global`), wrapped to the type.
            Cvta { space, .. } => same(match (space, src(0)) {
                (Space::Local, _) => Fact::VARYING,
                (Space::Global, x) => x,
                (_, x) if x.shape == Shape::Varying => Fact::VARYING,
                (_, x) => Fact { tz: 0, ..x },
            }),
            Cvt {
                dst_ty,
                src_ty,
                sat,
                ..
            } if !*sat && (dst_ty.is_int() || dst_ty.is_bits()) && src_ty.is_int() => {
                same(convert_int(src(0), *src_ty, *dst_ty, self.launch.half_rows))
            }
            Isspacep { space, .. } if *space == Space::Local => same(Fact::VARYING),
            Ld { space, addr, .. } => {
                let a = self.address(f, st, *space, addr);
                same(if a.shape == Shape::Uniform && !strong {
                    Fact::UNIFORM
                } else {
                    Fact::VARYING
                })
            }
            Warp { op, dst, pred, .. } => {
                // The member mask is the last value source.
                let nval = ops.srcs.len() - usize::from(op.reads_pred());
                let mm = if nval == 0 {
                    Shape::Uniform
                } else {
                    src(nval - 1).shape
                };
                let (d, p) = match op {
                    WarpOp::Vote(_) | WarpOp::Ballot if mm == Shape::Uniform => {
                        (Fact::UNIFORM, Fact::UNIFORM)
                    }
                    // Every member gets the reduction of the same lanes / the same leader.
                    WarpOp::Redux(_) | WarpOp::Elect if mm == Shape::Uniform => {
                        (Fact::UNIFORM, Fact::VARYING)
                    }
                    WarpOp::Activemask => (Fact::UNIFORM, Fact::VARYING),
                    _ => (Fact::VARYING, Fact::VARYING),
                };
                ops.dsts
                    .iter()
                    .filter_map(|(r, t, _)| {
                        let r = (*r)?;
                        let x = if Some(r) == *pred && Some(r) != *dst {
                            p
                        } else {
                            d
                        };
                        Some((r, *t, x))
                    })
                    .collect()
            }
            BarRedResult { .. } => same(Fact::UNIFORM),
            // Results that depend on memory another lane or warp may change in between, or
            // on the order lanes run in.
            Atom { .. } | Matrix { .. } | Builtin { .. } | Async { .. } | Texture { .. } => {
                same(Fact::VARYING)
            }
            _ => same(lanewise),
        }
    }

    /// The fact of the state-space address `[addr]` of a memory instruction in `space`
    /// right before it runs (state `st`), in the address register's width: uniform,
    /// affine (lane stride in bytes) or varying. `.local` addresses (and a `.func`'s
    /// `.param` frame) name each lane's own memory: varying.
    pub fn address(&self, f: &Function, st: &State, space: Space, addr: &Address) -> Fact {
        let func_param = space == Space::Param
            && f.kind == crate::ir::FuncKind::Func
            && !matches!(addr.base, AddrBase::Var(VarRef::KernelParam(_)));
        if space == Space::Local || func_param {
            return Fact::VARYING;
        }
        let off = Fact::constant(addr.offset as u64, 64);
        match addr.base {
            AddrBase::Reg(r) => {
                let x = st.get(r).copied().unwrap_or(Fact::VARYING);
                if x.shape == Shape::Varying {
                    return Fact::VARYING;
                }
                Fact {
                    tz: x.tz.min(off.tz),
                    ..x
                }
            }
            AddrBase::Var(VarRef::Local(_)) => Fact::VARYING,
            AddrBase::Var(_) | AddrBase::Abs => Fact::UNIFORM,
        }
    }
}

/// A uniform or affine `bits`-bit value widened (zero- or sign-extended) to 64 bits:
/// `(stride, tz)`, when every lane's value lies in one block of `32 × stride` values,
/// which neither 2^(bits-1) nor 2^bits splits (see the module doc).
fn widen(x: Fact, bits: u32) -> Option<(u64, u32)> {
    match x.shape {
        Shape::Uniform => Some((0, x.tz.into())),
        Shape::Affine(s) if s.is_power_of_two() => {
            let k = s.trailing_zeros() + 5;
            (k < bits && u32::from(x.tz) >= k).then_some((s, x.tz.into()))
        }
        _ => None,
    }
}

/// An affine `bits`-bit value (not itself guarded) widened to more bits where it may
/// wrap (see [`Fact::guarded`]), in the per-half analysis (`half`): the stride
/// sign-extended, when 15 strides span less than 2^(bits-1), so that a half's 16 lanes
/// cross the extension's wrapping point (2^(bits-1) signed, 2^bits unsigned) at most
/// once, which then changes the last lane's value against the first one's by ±2^bits.
fn widen_guarded(x: Fact, bits: u32, half: bool) -> Option<(u64, u32)> {
    let Shape::Affine(s) = x.shape else {
        return None;
    };
    if !half || x.guarded || !(2..64).contains(&bits) {
        return None;
    }
    let ss = crate::ops::sext(s, bits);
    (ss.unsigned_abs().checked_mul(15)? < 1u64 << (bits - 1)).then_some((ss as u64, x.tz.into()))
}

/// `cvt` between integer types.
fn convert_int(x: Fact, from: Type, to: Type, half: bool) -> Fact {
    let (sb, db) = (width(from), width(to));
    if x.shape == Shape::Varying {
        return Fact::VARYING;
    }
    if x.guarded {
        // Only the same width keeps the wrap visible.
        return if db == sb { x } else { Fact::VARYING };
    }
    if db <= sb {
        // Same width, or truncation.
        return Fact::affine(x.shape.stride().unwrap_or(0), x.tz.into(), db);
    }
    match (widen(x, sb), widen_guarded(x, sb, half)) {
        (Some((s, tz)), _) => Fact::affine(s, tz, db),
        (None, Some((s, tz))) => Fact::affine_guarded(s, tz, db),
        _ => Fact::VARYING,
    }
}

/// Integer `add sub neg not mul.lo mad.lo shl mul.wide mad.wide`, `shr` by a constant,
/// `and or xor` with a uniform value (and `div.u`/`rem.u` by a power of two) of uniform
/// and affine sources (`None`: not shape-preserving here). `half`: the per-half
/// analysis, which may widen to guarded facts ([`widen_guarded`]).
fn arith(
    op: ArithOp,
    ty: Type,
    srcs: &[Operand],
    src: &dyn Fn(usize) -> Fact,
    half: bool,
) -> Option<Fact> {
    let w = width(ty);
    let guarded = (0..srcs.len()).filter(|&i| src(i).guarded).count();
    if guarded > 0 {
        // A guarded source's possible wrap (a nonzero multiple of 2^32 in one lane's
        // value) stays visible through adding or subtracting values that are exact;
        // two wraps could cancel, products and shifts could clear it.
        let s = match op {
            ArithOp::Add if guarded == 1 => {
                src(0).shape.stride()?.wrapping_add(src(1).shape.stride()?)
            }
            ArithOp::Sub if guarded == 1 => {
                src(0).shape.stride()?.wrapping_sub(src(1).shape.stride()?)
            }
            _ => return Some(Fact::VARYING),
        };
        return Some(Fact::affine_guarded(s, src(0).tz.min(src(1).tz).into(), w));
    }
    let st = |i: usize| src(i).shape.stride();
    let tz = |i: usize| src(i).tz;
    let wide = matches!(
        op,
        ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide)
    );
    // An immediate source; `mul.wide.s*` multiplies it sign-extended to 2 × w bits.
    let imm = |i: usize| match srcs.get(i) {
        Some(Operand::Imm(v)) if wide && ty.is_signed() && w < 64 => {
            Some(crate::ops::extend(*v, ty))
        }
        Some(Operand::Imm(v)) => Some(*v),
        _ => None,
    };
    // Stride of a * b when one side is uniform (and a constant if the other is not).
    let mul = |a: usize, b: usize, sa: u64, sb: u64| -> Option<u64> {
        match (sa, sb) {
            (0, 0) => Some(0),
            (_, 0) => Some(sa.wrapping_mul(imm(b)?)),
            (0, _) => Some(sb.wrapping_mul(imm(a)?)),
            _ => None,
        }
    };
    let fact = match op {
        ArithOp::Add => Fact::affine(st(0)?.wrapping_add(st(1)?), tz(0).min(tz(1)).into(), w),
        ArithOp::Sub => Fact::affine(st(0)?.wrapping_sub(st(1)?), tz(0).min(tz(1)).into(), w),
        ArithOp::Neg => Fact::affine(st(0)?.wrapping_neg(), tz(0).into(), w),
        // !x = -x - 1.
        ArithOp::Not => Fact::affine(st(0)?.wrapping_neg(), 0, w),
        ArithOp::Mul(MulMode::Lo) => {
            Fact::affine(mul(0, 1, st(0)?, st(1)?)?, tz_add(tz(0), tz(1)), w)
        }
        ArithOp::Mad(MulMode::Lo) => Fact::affine(
            mul(0, 1, st(0)?, st(1)?)?.wrapping_add(st(2)?),
            tz_add(tz(0), tz(1)).min(tz(2).into()),
            w,
        ),
        ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide) => {
            let (s, tz, g) = match (widen(src(0), w), widen(src(1), w)) {
                (Some(a), Some(b)) => (mul(0, 1, a.0, b.0)?, (a.1 + b.1).min(64), false),
                // One side affine and possibly wrapping, the other a constant whose low
                // `w` bits are not all zero (so that a wrap of 2^w stays nonzero in 2w
                // bits).
                (a, b) => {
                    let g = widen_guarded(src(0), w, half).zip(b).map(|x| (x, 1));
                    let g = g.or_else(|| widen_guarded(src(1), w, half).zip(a).map(|x| (x, 0)));
                    let ((x, u), c) = g?;
                    let k = imm(c)?;
                    if k & crate::ops::mask(w) == 0 || u.0 != 0 {
                        return None;
                    }
                    (x.0.wrapping_mul(k), (x.1 + u.1).min(64), true)
                }
            };
            let make = |s, tz| {
                if g {
                    Fact::affine_guarded(s, tz, 2 * w)
                } else {
                    Fact::affine(s, tz, 2 * w)
                }
            };
            let mut f = make(s, tz);
            if op == ArithOp::Mad(MulMode::Wide) {
                let c = src(2);
                f = make(
                    s.wrapping_add(c.shape.stride()?),
                    u32::from(f.tz).min(c.tz.into()),
                );
            }
            f
        }
        ArithOp::Shl => match (st(0)?, st(1)?, imm(1)) {
            (_, _, Some(k)) if k >= u64::from(w) => Fact::constant(0, w),
            (s, _, Some(k)) => Fact::affine(s << k, (u32::from(tz(0)) + k as u32).min(64), w),
            (0, 0, None) => Fact::UNIFORM,
            _ => return None,
        },
        ArithOp::Shr => shr_fact(src(0), imm(1)?, w, ty.is_signed())?,
        // `div.u`/`rem.u` by a power of two are `shr`/`and`.
        ArithOp::Div(_) if ty.is_unsigned() && imm(1)?.is_power_of_two() => {
            shr_fact(src(0), u64::from(imm(1)?.trailing_zeros()), w, false)?
        }
        ArithOp::Rem if ty.is_unsigned() && imm(1)?.is_power_of_two() => {
            let m = imm(1)? - 1;
            bitwise_fact(BitOp::And, src(0), Fact::constant(m, w), Some(m), w)?
        }
        ArithOp::And | ArithOp::Or | ArithOp::Xor => {
            let bop = match op {
                ArithOp::And => BitOp::And,
                ArithOp::Or => BitOp::Or,
                _ => BitOp::Xor,
            };
            // The affine (or first) side, then the other.
            let (x, u) = if src(1).shape == Shape::Uniform {
                (0, 1)
            } else {
                (1, 0)
            };
            bitwise_fact(bop, src(x), src(u), imm(u), w)?
        }
        _ => return None,
    };
    Some(fact)
}

/// Whether integer `setp` `a cmp b` gives every lane the same result: one side affine
/// (not guarded) with lane offsets of `n` bits (`31 × s < 2^n`, `n < w`) and a base
/// whose low `n` bits are zero, so that every lane's value lies in one aligned block
/// of `2^n` values, which neither 2^(w-1) nor 2^w splits (signed and unsigned order
/// agree within it); the other side uniform and a multiple of `2^n` (`lt`, `ge`: the
/// block is wholly below or wholly at or above it), or a constant `c` with `c + 1` a
/// multiple of `2^n` or `c` the type's maximum (`le`, `gt`: `v <= c` is `v < c + 1`).
pub(super) fn setp_uniform(cmp: CmpOp, ty: Type, a: (Fact, &Operand), b: (Fact, &Operand)) -> bool {
    let w = width(ty);
    if !ty.is_int() || w < 2 {
        return false;
    }
    let ((x, _), (u, uop), cmp) = match (a.0.shape, b.0.shape) {
        (Shape::Uniform, Shape::Uniform) => return true,
        (Shape::Affine(_), Shape::Uniform) => (a, b, cmp),
        (Shape::Uniform, Shape::Affine(_)) => match cmp {
            CmpOp::Lt => (b, a, CmpOp::Gt),
            CmpOp::Le => (b, a, CmpOp::Ge),
            CmpOp::Gt => (b, a, CmpOp::Lt),
            CmpOp::Ge => (b, a, CmpOp::Le),
            _ => return false,
        },
        _ => return false,
    };
    let Some(s) = x.shape.stride() else {
        return false;
    };
    let n = lane_span_bits(s);
    if x.guarded || n >= w || n > u32::from(x.tz) {
        return false;
    }
    match cmp {
        CmpOp::Lt | CmpOp::Ge => u32::from(u.tz) >= n,
        CmpOp::Le | CmpOp::Gt => {
            let Operand::Imm(c) = *uop else {
                return false;
            };
            let m = crate::ops::mask(w);
            let c = c & m;
            let max = if ty.is_signed() { m >> 1 } else { m };
            c == max || c.wrapping_add(1) & crate::ops::mask(n) == 0
        }
        _ => false,
    }
}

/// Known trailing zeros of a `w`-bit value with `tz` known zeros shifted right by
/// `k < w` (64: the value is 0).
fn tz_shr(tz: u32, k: u32, w: u32) -> u32 {
    if tz >= w {
        64
    } else {
        tz - tz.min(k)
    }
}

/// Bits that lane offsets `l × s` (`l < 32`, `s` as a `w`-bit unsigned stride) can
/// occupy: the bit length of `31 × s`.
fn lane_span_bits(s: u64) -> u32 {
    128 - (31u128 * u128::from(s)).leading_zeros()
}

/// `shr` by the constant `k` of a uniform or affine `w`-bit value `x` (`signed`: an
/// arithmetic shift). Lane `l` holds `v_l = base + l × s`:
/// - when the lane offsets need `n <= k` bits (`31 × s < 2^n`) and the base's low `n`
///   bits are zero, every `v_l` is `base | l × s` (no carry, no wrap) and has the
///   base's bits from `n` up: the result is uniform (either shift);
/// - when `s = 2^j` with `j >= k` and the base is a multiple of `32 × s`, the 32 values
///   lie in one aligned block of `32 × s` values that neither 2^w nor (for a signed
///   shift, `j + 5 < w`) 2^(w-1) splits, so `v_l >> k = (base >> k) + l × (s >> k)`
///   exactly: affine with stride `s >> k`.
pub(super) fn shr_fact(x: Fact, k: u64, w: u32, signed: bool) -> Option<Fact> {
    let s = x.shape.stride()?;
    if x.guarded || k >= u64::from(w) {
        return None;
    }
    let (k, tz) = (k as u32, u32::from(x.tz));
    let uniform = Fact {
        tz: tz_shr(tz, k, w) as u8,
        ..Fact::UNIFORM
    };
    let n = lane_span_bits(s);
    if s == 0 || (n <= k && n <= tz) {
        return Some(uniform);
    }
    let j = s.trailing_zeros();
    let block = j + 5;
    let fits = if signed { block < w } else { block <= w };
    (s.is_power_of_two() && j >= k && tz >= block && fits)
        .then(|| Fact::affine(s >> k, tz_shr(tz, k, w), w))
}

/// The bits lane offsets `l × s` (`l < 32`) can set.
fn lane_bits(s: u64) -> u64 {
    (0..32u64).fold(0, |a, l| a | l.wrapping_mul(s))
}

/// A bitwise `and`, `or` or `xor` ([`BitOp`]) of a uniform or affine `w`-bit value `x`
/// and a uniform one `u` (the constant `c` when it is an immediate). When the lane
/// offsets `l × s` fit in the base's known zero low bits (`31 × s < 2^n`, `n` of them
/// needed), `v_l = base | l × s`, and with `L` the bits the offsets can set:
/// - `u & L = 0` (a constant without those bits, or a uniform value with `n` known zero
///   bits): `v_l & u = base & u` (uniform), `v_l | u = (base | u) + l × s` and
///   `v_l ^ u = (base ^ u) + l × s` (affine, same stride);
/// - `c & L = L`: `v_l & c = (base & c) + l × s` (affine), `v_l | c = base | c`
///   (uniform).
pub(super) fn bitwise_fact(op: BitOp, x: Fact, u: Fact, c: Option<u64>, w: u32) -> Option<Fact> {
    let s = x.shape.stride()?;
    if x.guarded || u.shape != Shape::Uniform {
        return None;
    }
    let m = crate::ops::mask(w);
    let c = c.map(|c| c & m);
    let (tx, tu) = (u32::from(x.tz).min(64), u32::from(u.tz).min(64));
    // Known trailing zeros of `base op u`.
    let tz_of = |op: BitOp| match op {
        BitOp::And => match c {
            Some(c) if c == 0 || tx >= 64 || c >> tx == 0 => 64,
            _ => tx.max(tu),
        },
        BitOp::Or | BitOp::Xor => tx.min(tu),
    };
    if s == 0 {
        return Some(Fact {
            tz: tz_of(op) as u8,
            ..Fact::UNIFORM
        });
    }
    let n = lane_span_bits(s);
    if n > tx || n > w {
        return None;
    }
    let l = lane_bits(s);
    let clear = match c {
        Some(c) => c & l == 0,
        None => tu >= n,
    };
    let full = c.is_some_and(|c| c & l == l);
    let uniform = Fact {
        tz: tz_of(op) as u8,
        ..Fact::UNIFORM
    };
    match op {
        BitOp::And if clear => Some(uniform),
        BitOp::And if full => Some(Fact::affine(s, tz_of(op), w)),
        BitOp::Or | BitOp::Xor if clear => Some(Fact::affine(s, tz_of(op), w)),
        BitOp::Or if full => Some(uniform),
        _ => None,
    }
}

/// The bitwise operations of [`bitwise_fact`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BitOp {
    And,
    Or,
    Xor,
}

/// Registers written by a terminator (call results: varying).
pub(super) fn term_writes(t: &Terminator) -> Vec<RegId> {
    match t {
        Terminator::Call { rets, .. } | Terminator::CallIndirect { rets, .. } => rets
            .iter()
            .filter_map(|r| match r.dst {
                CallDst::Reg(d, _) => Some(d),
                CallDst::Local(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether instruction `i` of block `blk` is a strong load (`check` puts an ordering
/// point right after each): other threads' stores may race with it.
pub fn strong_load(blk: &crate::ir::Block, i: usize) -> bool {
    matches!(blk.insts.get(i).map(|x| &x.kind), Some(InstKind::Ld { .. }))
        && matches!(
            blk.insts.get(i + 1).map(|x| &x.kind),
            Some(InstKind::OrderPoint)
        )
}
