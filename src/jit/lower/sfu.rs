//! The special functions ([`InstKind::Sfu`]: `sqrt rcp rsqrt sin cos lg2 ex2 tanh`).
//!
//! Vector code where it gives `crate::ops::float`'s bits:
//! - `sqrt`/`rcp` rounded to nearest (`.rn`, or `.approx.f32`, which `ops::float` also
//!   computes correctly rounded): the host's IEEE `sqrtps`/`divps` (and the f64 forms);
//! - `rsqrt.approx.f32`: 1/sqrt in f64 (`sqrtpd`, `divpd`), rounded once to f32, as
//!   `ops::float::approx_f32`;
//! - `ex2.approx.f32` and `lg2.approx.f32`: the fixed f64 operation sequences of
//!   `crate::ops::approx`, emitted in the same order on f64x2 vectors (in the quick
//!   tier once, in a loop over the vectors: `FuncTranslator::vector_loop`).
//!
//! The canonical NaN and `.ftz` are applied as there. The rest (sin, cos, tanh, the
//! directed roundings, the f64 `.approx` forms) goes lane by lane through the
//! `ptxjit_sfu` helper.
//!
//! [`InstKind::Sfu`]: crate::ir::InstKind::Sfu

use crate::ir::{Operand, RegId, Rnd, SfuOp, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{lanes, FuncTranslator, Mask};
use crate::jit::JitError;
use crate::ops::approx;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, F64X2, I64X2, I8X16};
use cranelift_codegen::ir::{ConstantData, InstBuilder, Value};

impl FuncTranslator<'_> {
    /// `sqrt rcp rsqrt sin cos lg2 ex2 tanh`: vector code where [`Self::sfu_vector`]
    /// has it, else through the `ptxjit_sfu` helper (one call per warp instruction,
    /// `crate::ops::float` per lane).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sfu(
        &mut self,
        op: SfuOp,
        ty: Type,
        approx: bool,
        rnd: Option<Rnd>,
        ftz: bool,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let canon = !self.nan_blind.contains(dst);
        if let Some(r) = self.sfu_vector(op, ty, approx, rnd, ftz, src, canon)? {
            return self.write(dst, ty, r, mask);
        }
        let w = self.read(src, ty, false)?;
        let desc = crate::ops::float::sfu_encode(op, ty, approx, rnd, ftz);
        self.call_lanewise_desc(Helper::Sfu, desc, mask, &[w], 1)?;
        let r = self.lanewise_result(ty.bits() > 32);
        self.write(dst, ty, r, mask)
    }

    /// The vector forms (see the module doc); `None`: use the helper.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sfu_vector(
        &mut self,
        op: SfuOp,
        ty: Type,
        approx: bool,
        rnd: Option<Rnd>,
        ftz: bool,
        src: &Operand,
        canon: bool,
    ) -> Result<Option<WarpValue>, JitError> {
        let f32 = ty == Type::F32;
        let nearest = matches!(rnd, None | Some(Rnd::Rn));
        // (`ex2`/`lg2` in both tiers although each is about 600 CLIF instructions
        // against a helper call's 40: the helper evaluates the same polynomial lane by
        // lane, a chain of dependent operations, and made the quick tier's softmax and
        // GELU 1.5 times slower than with the host library's `exp2`.)
        let via_f64 = approx && f32 && matches!(op, SfuOp::Rsqrt | SfuOp::Ex2 | SfuOp::Lg2);
        // f64 `.approx` forms are upper-word approximations (helper).
        let direct = matches!(op, SfuOp::Sqrt | SfuOp::Rcp) && nearest && (f32 || !approx);
        if !via_f64 && !direct {
            return Ok(None);
        }
        let ftz = ftz && f32;
        let w = self.read_float(src, ty)?;
        let fty = if f32 { F32X4 } else { F64X2 };
        let nan = crate::jit::helpers::canonical_nan(ty.bits());
        let each = |t: &mut Self, x: Value| {
            let x = if ftz {
                lanes::flush_f32(&mut t.b, x)
            } else {
                x
            };
            let x = lanes::bitcast(&mut t.b, fty, x);
            let r = match op {
                _ if via_f64 => t.f32_via_f64(x, |t, d| match op {
                    SfuOp::Rsqrt => t.rsqrt_f64x2(d),
                    SfuOp::Ex2 => t.ex2_f64x2(d),
                    _ => t.lg2_f64x2(d),
                }),
                SfuOp::Sqrt => t.b.ins().sqrt(x),
                _ => {
                    let one = if f32 {
                        lanes::splat32(&mut t.b, 1.0f32.to_bits())
                    } else {
                        lanes::splat64(&mut t.b, 1.0f64.to_bits())
                    };
                    let one = lanes::bitcast(&mut t.b, fty, one);
                    t.b.ins().fdiv(one, x)
                }
            };
            t.float_result(r, fty, false, ftz, canon.then_some(nan))
        };
        // ex2/lg2 are 170 to 190 CLIF instructions per vector: the quick tier loops
        // over the vectors (about 220 CLIF instructions per warp instruction instead of
        // 1,350 to 1,550). Not rsqrt (60 per vector): looped, n-body's inner loop ran
        // twice as long in the quick tier.
        if self.quick && matches!(op, SfuOp::Ex2 | SfuOp::Lg2) && via_f64 {
            return Ok(Some(self.vector_loop(&[&w], |t, x| each(t, x[0]))));
        }
        let v = w.v.iter().map(|&x| each(self, x)).collect();
        Ok(Some(WarpValue { wide: !f32, v }))
    }

    /// `f` (f64x2 to f64x2) applied to the four lanes of the f32x4 `x` as doubles, each
    /// result rounded once to f32 (nearest even, as Rust's `as f32`).
    fn f32_via_f64(&mut self, x: Value, f: impl Fn(&mut Self, Value) -> Value) -> Value {
        let high = self.byte_shuffle((8u8..16).chain(8..16));
        let lo = self.b.ins().fvpromote_low(x);
        let b8 = lanes::bitcast(&mut self.b, I8X16, x);
        let hi = self.b.ins().shuffle(b8, b8, high);
        let hi = lanes::bitcast(&mut self.b, F32X4, hi);
        let hi = self.b.ins().fvpromote_low(hi);
        let (rl, rh) = (f(self, lo), f(self, hi));
        let (dl, dh) = (self.b.ins().fvdemote(rl), self.b.ins().fvdemote(rh));
        let both = self.byte_shuffle((0u8..8).chain(16..24));
        let bl = lanes::bitcast(&mut self.b, I8X16, dl);
        let bh = lanes::bitcast(&mut self.b, I8X16, dh);
        let c = self.b.ins().shuffle(bl, bh, both);
        lanes::bitcast(&mut self.b, F32X4, c)
    }

    /// A `shuffle` immediate of the 16 byte indices `ix`.
    fn byte_shuffle(&mut self, ix: impl Iterator<Item = u8>) -> cranelift_codegen::ir::Immediate {
        let bytes: Vec<u8> = ix.collect();
        self.b.func.dfg.immediates.push(ConstantData::from(bytes))
    }

    /// An f64x2 splat of `x`.
    fn f64s(&mut self, x: f64) -> Value {
        let c = lanes::splat64(&mut self.b, x.to_bits());
        lanes::bitcast(&mut self.b, F64X2, c)
    }

    /// 1/sqrt(d) (f64x2), as `ops::float::approx_f32`'s `Rsqrt`: infinities of the
    /// zero's sign at zeros, NaN below zero.
    fn rsqrt_f64x2(&mut self, d: Value) -> Value {
        let one = self.f64s(1.0);
        let s = self.b.ins().sqrt(d);
        self.b.ins().fdiv(one, s)
    }

    /// The polynomial with coefficients `poly` (highest first) at `x` (f64x2), by Horner's
    /// rule with separate multiplications and additions, as `ops::approx` evaluates it.
    fn horner_f64x2(&mut self, poly: &[f64], x: Value) -> Value {
        let mut p = self.f64s(poly[0]);
        for &c in &poly[1..] {
            let c = self.f64s(c);
            let px = self.b.ins().fmul(p, x);
            p = self.b.ins().fadd(px, c);
        }
        p
    }

    /// `b ? t : e` for an f64x2 comparison mask `b`.
    fn select_f64x2(&mut self, b: Value, t: Value, e: Value) -> Value {
        let b = lanes::bitcast(&mut self.b, F64X2, b);
        self.b.ins().bitselect(b, t, e)
    }

    /// `ops::approx::ex2` on f64x2, operation for operation.
    fn ex2_f64x2(&mut self, x: Value) -> Value {
        let hi = self.f64s(approx::EX2_CLAMP);
        let lo = self.f64s(-approx::EX2_CLAMP);
        let over = self.b.ins().fcmp(FloatCC::GreaterThan, x, hi);
        let x = self.select_f64x2(over, hi, x);
        let under = self.b.ins().fcmp(FloatCC::LessThan, x, lo);
        let x = self.select_f64x2(under, lo, x);
        let magic = self.f64s(approx::ROUND_MAGIC);
        let t = self.b.ins().fadd(x, magic);
        let n = self.b.ins().fsub(t, magic);
        let f = self.b.ins().fsub(x, n);
        let p = self.horner_f64x2(&approx::EX2_POLY, f);
        let tb = lanes::bitcast(&mut self.b, I64X2, t);
        let bias = lanes::splat64(
            &mut self.b,
            1023u64.wrapping_sub(approx::ROUND_MAGIC.to_bits()),
        );
        let e = self.b.ins().iadd(tb, bias);
        let e = self.b.ins().ishl_imm_u(e, 52);
        let scale = lanes::bitcast(&mut self.b, F64X2, e);
        self.b.ins().fmul(p, scale)
    }

    /// `ops::approx::lg2` on f64x2, operation for operation (the special values chosen
    /// at the end, the computation done on whatever bits every lane holds).
    fn lg2_f64x2(&mut self, x: Value) -> Value {
        let bits = lanes::bitcast(&mut self.b, I64X2, x);
        let e = self.b.ins().ushr_imm_u(bits, 52);
        let bias = lanes::splat64(&mut self.b, (-1023i64) as u64);
        let e = self.b.ins().iadd(e, bias);
        let frac = lanes::splat64(&mut self.b, (1 << 52) - 1);
        let unit = lanes::splat64(&mut self.b, 1023 << 52);
        let m = self.b.ins().band(bits, frac);
        let m = self.b.ins().bor(m, unit);
        let m = lanes::bitcast(&mut self.b, F64X2, m);
        let sqrt2 = self.f64s(approx::SQRT2);
        let big = self.b.ins().fcmp(FloatCC::GreaterThan, m, sqrt2);
        let half = self.f64s(0.5);
        let mh = self.b.ins().fmul(m, half);
        let m = self.select_f64x2(big, mh, m);
        // The mask is all ones (-1) where `big`: subtracting it adds 1.
        let big = lanes::bitcast(&mut self.b, I64X2, big);
        let e = self.b.ins().isub(e, big);
        let one = self.f64s(1.0);
        let num = self.b.ins().fsub(m, one);
        let den = self.b.ins().fadd(m, one);
        let s = self.b.ins().fdiv(num, den);
        let z = self.b.ins().fmul(s, s);
        let q = self.horner_f64x2(&approx::LG2_POLY, z);
        let magic_bits = lanes::splat64(&mut self.b, approx::ROUND_MAGIC.to_bits());
        let eb = self.b.ins().iadd(e, magic_bits);
        let eb = lanes::bitcast(&mut self.b, F64X2, eb);
        let magic = self.f64s(approx::ROUND_MAGIC);
        let ef = self.b.ins().fsub(eb, magic);
        let sq = self.b.ins().fmul(s, q);
        let scale = self.f64s(approx::LG2_SCALE);
        let r = self.b.ins().fmul(sq, scale);
        let r = self.b.ins().fadd(r, ef);
        // +inf at +inf, -inf at zeros, NaN below zero and at NaN.
        let inf = self.f64s(f64::INFINITY);
        let is_inf = self.b.ins().fcmp(FloatCC::Equal, x, inf);
        let r = self.select_f64x2(is_inf, inf, r);
        let zero = self.f64s(0.0);
        let ninf = self.f64s(f64::NEG_INFINITY);
        let is_zero = self.b.ins().fcmp(FloatCC::Equal, x, zero);
        let r = self.select_f64x2(is_zero, ninf, r);
        let nan = self.f64s(f64::NAN);
        let bad = self.b.ins().fcmp(FloatCC::UnorderedOrLessThan, x, zero);
        self.select_f64x2(bad, nan, r)
    }
}
