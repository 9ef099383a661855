//! Inline vector code for the common f16/bf16 <-> f32 conversions (`cvt.f32.f16`,
//! `cvt.rn.f16.f32`, `cvt.f32.bf16`, `cvt.rn.bf16.f32`, `cvt.rn.f16x2.f32`,
//! `cvt.rn.bf16x2.f32`), on i32x4 lanes holding the 16-bit values zero-extended. Same
//! bits as `crate::ops` (NaN results are the canonical NaNs `0x7fffffff` / `0x7fff`);
//! every other form goes through the `ptxjit_cvt` / `ptxjit_cvtx` helpers.

use crate::jit::translate::lanes;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

/// f16 (low 16 bits of each lane) -> f32 bits: exact; NaN -> 0x7fffffff.
pub fn f16_to_f32(b: &mut FunctionBuilder, x: Value) -> Value {
    let x = lanes::bitcast(b, I32X4, x);
    let c = |b: &mut FunctionBuilder, v: u32| lanes::splat32(b, v);
    let (m7fff, m8000) = (c(b, 0x7fff), c(b, 0x8000));
    let em = b.ins().band(x, m7fff);
    let sign = b.ins().band(x, m8000);
    let sign = b.ins().ishl_imm_u(sign, 16);
    // Normal: exponent and mantissa move up 13 bits, the bias grows by 127 - 15.
    let o = b.ins().ishl_imm_u(em, 13);
    let bias = c(b, (127 - 15) << 23);
    let normal = b.ins().iadd(o, bias);
    // Subnormal (and zero): em * 2^-24, exact in f32.
    let f = b.ins().fcvt_from_sint(F32X4, em);
    let scale = c(b, 0x3380_0000); // 2^-24
    let scale = lanes::bitcast(b, F32X4, scale);
    let sub = b.ins().fmul(f, scale);
    let sub = lanes::bitcast(b, I32X4, sub);
    let (min_normal, inf16) = (c(b, 0x0400), c(b, 0x7c00));
    let is_sub = b.ins().icmp(IntCC::SignedLessThan, em, min_normal);
    let r = b.ins().bitselect(is_sub, sub, normal);
    let is_inf = b.ins().icmp(IntCC::Equal, em, inf16);
    let inf = c(b, 0x7f80_0000);
    let r = b.ins().bitselect(is_inf, inf, r);
    let r = b.ins().bor(r, sign);
    let is_nan = b.ins().icmp(IntCC::SignedGreaterThan, em, inf16);
    let nan = c(b, 0x7fff_ffff);
    b.ins().bitselect(is_nan, nan, r)
}

/// f32 bits -> f16, rounded to nearest even (zero-extended in the lane); NaN -> 0x7fff.
pub fn f32_to_f16_rn(b: &mut FunctionBuilder, x: Value) -> Value {
    let x = lanes::bitcast(b, I32X4, x);
    let c = |b: &mut FunctionBuilder, v: u32| lanes::splat32(b, v);
    let m = c(b, 0x7fff_ffff);
    let a = b.ins().band(x, m);
    let sign = b.ins().bxor(x, a);
    let sign = b.ins().ushr_imm_u(sign, 16);
    // Normal results: rebias, add just under half an f16 ulp plus the ulp's parity
    // (ties to even), truncate; a carry out of the mantissa steps the exponent, up to
    // infinity.
    let odd = b.ins().ushr_imm_u(a, 13);
    let one = c(b, 1);
    let odd = b.ins().band(odd, one);
    let rebias = c(b, ((15u32.wrapping_sub(127)) << 23).wrapping_add(0xfff));
    let n = b.ins().iadd(a, rebias);
    let n = b.ins().iadd(n, odd);
    let normal = b.ins().ushr_imm_u(n, 13);
    // Subnormal results: adding 0.5 makes the f32 ulp the f16 subnormal step (2^-24),
    // so the host's round-to-nearest-even addition rounds exactly as f16 does.
    let half = c(b, 0x3f00_0000);
    let fa = lanes::bitcast(b, F32X4, a);
    let fh = lanes::bitcast(b, F32X4, half);
    let s = b.ins().fadd(fa, fh);
    let s = lanes::bitcast(b, I32X4, s);
    let sub = b.ins().isub(s, half);
    let min_normal = c(b, 0x3880_0000); // 2^-14
    let is_sub = b.ins().icmp(IntCC::SignedLessThan, a, min_normal);
    let r = b.ins().bitselect(is_sub, sub, normal);
    let big = c(b, 0x4780_0000); // 65536: infinity (and inf/NaN inputs)
    let is_big = b.ins().icmp(IntCC::SignedGreaterThanOrEqual, a, big);
    let inf = c(b, 0x7c00);
    let r = b.ins().bitselect(is_big, inf, r);
    let r = b.ins().bor(r, sign);
    let inf32 = c(b, 0x7f80_0000);
    let is_nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf32);
    let nan = c(b, 0x7fff);
    b.ins().bitselect(is_nan, nan, r)
}

/// bf16 (low 16 bits) -> f32 bits: exact; NaN -> 0x7fffffff.
pub fn bf16_to_f32(b: &mut FunctionBuilder, x: Value) -> Value {
    let x = lanes::bitcast(b, I32X4, x);
    let r = b.ins().ishl_imm_u(x, 16);
    let m = lanes::splat32(b, 0x7fff_ffff);
    let a = b.ins().band(r, m);
    let inf = lanes::splat32(b, 0x7f80_0000);
    let is_nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf);
    b.ins().bitselect(is_nan, m, r)
}

/// f32 bits -> bf16, rounded to nearest even; NaN -> 0x7fff.
pub fn f32_to_bf16_rn(b: &mut FunctionBuilder, x: Value) -> Value {
    let x = lanes::bitcast(b, I32X4, x);
    let odd = b.ins().ushr_imm_u(x, 16);
    let one = lanes::splat32(b, 1);
    let odd = b.ins().band(odd, one);
    let h = lanes::splat32(b, 0x7fff);
    let n = b.ins().iadd(x, h);
    let n = b.ins().iadd(n, odd);
    let r = b.ins().ushr_imm_u(n, 16);
    let m = lanes::splat32(b, 0x7fff_ffff);
    let a = b.ins().band(x, m);
    let inf = lanes::splat32(b, 0x7f80_0000);
    let is_nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf);
    b.ins().bitselect(is_nan, h, r)
}
