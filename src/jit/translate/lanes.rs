//! Warp-wide values and lane masks as Cranelift SIMD vectors.
//!
//! A 32-lane value of a 32-bit container is 8 × `i32x4` (vector `k` holds lanes
//! `4k..4k+3`), of a 64-bit container 16 × `i64x2` (vector `k` holds lanes `2k, 2k+1`).
//! A lane mask is 8 × `i32x4` of all-ones / all-zeros lanes; its 64-bit form (for merging
//! 64-bit values) is 16 × `i64x2`. These helpers are free functions over a
//! [`FunctionBuilder`] so every lowering module can use them.

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, F64X2, I32, I32X4, I64, I64X2, I8X16};
use cranelift_codegen::ir::{
    ConstantData, Endianness, Inst, InstBuilder, InstructionData, MemFlagsData, Opcode,
    Type as CType, Value, ValueDef,
};
use cranelift_frontend::FunctionBuilder;

/// Vectors in a 32-bit-container warp value (8 × i32x4).
pub const N32: usize = 8;
/// Vectors in a 64-bit-container warp value (16 × i64x2).
pub const N64: usize = 16;

/// A warp-wide value: `wide == false`: 8 × i32x4, `wide == true`: 16 × i64x2.
#[derive(Clone, Debug)]
pub struct WarpValue {
    pub wide: bool,
    pub v: Vec<Value>,
}

impl WarpValue {
    pub fn narrow(v: Vec<Value>) -> WarpValue {
        WarpValue { wide: false, v }
    }
    pub fn wide(v: Vec<Value>) -> WarpValue {
        WarpValue { wide: true, v }
    }
    /// The Cranelift vector type of one part.
    pub fn vty(&self) -> CType {
        if self.wide {
            I64X2
        } else {
            I32X4
        }
    }
}

/// Memory flags for lane-count-changing bitcasts (and any other bitcast).
pub fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

pub fn bitcast(b: &mut FunctionBuilder, ty: CType, v: Value) -> Value {
    if b.func.dfg.value_type(v) == ty {
        return v;
    }
    // A bitcast back to the type a bitcast came from is that bitcast's operand (a float
    // result read again as integer bits and back: half the bitcasts of float code).
    if let ValueDef::Result(inst, 0) = b.func.dfg.value_def(v) {
        if let InstructionData::LoadNoOffset {
            opcode: Opcode::Bitcast,
            arg,
            ..
        } = b.func.dfg.insts[inst]
        {
            if b.func.dfg.value_type(arg) == ty {
                return arg;
            }
        }
    }
    // The same bitcast among the current block's last instructions (a mask used by
    // several float merges, a value read by several float operations): the bitcasts
    // made recently are remembered by operand and type (a hit is checked against the
    // function, so an entry left by another function is never wrong, only missed).
    let key = (v.as_u32() as usize ^ (ty.bits() as usize ^ ty.lane_count() as usize) << 8)
        % RECENT_BITCASTS;
    if let Some(blk) = b.current_block() {
        let dfg = &b.func.dfg;
        let n = dfg.num_insts();
        let found = RECENT.with(|r| r.borrow()[key]).filter(|&inst| {
            inst.index() < n
                && n - inst.index() <= BITCAST_WINDOW
                && b.func.layout.inst_block(inst) == Some(blk)
                && matches!(dfg.insts[inst], InstructionData::LoadNoOffset {
                    opcode: Opcode::Bitcast,
                    arg,
                    ..
                } if arg == v)
                && dfg.value_type(dfg.first_result(inst)) == ty
        });
        if let Some(inst) = found {
            return b.func.dfg.first_result(inst);
        }
    }
    let r = b.ins().bitcast(ty, le(), v);
    if let ValueDef::Result(inst, _) = b.func.dfg.value_def(r) {
        RECENT.with(|c| c.borrow_mut()[key] = Some(inst));
    }
    r
}

/// Slots of [`bitcast`]'s table of recent bitcasts (by operand and type).
const RECENT_BITCASTS: usize = 256;

thread_local! {
    /// [`bitcast`]'s recent bitcasts, by operand and type.
    static RECENT: std::cell::RefCell<[Option<Inst>; RECENT_BITCASTS]> =
        const { std::cell::RefCell::new([None; RECENT_BITCASTS]) };
}

/// How many instructions back (in creation order, within the current block) [`bitcast`]
/// reuses the same bitcast.
const BITCAST_WINDOW: usize = 128;

/// `splat` of a 32-bit constant into an i32x4.
pub fn splat32(b: &mut FunctionBuilder, x: u32) -> Value {
    let bytes: Vec<u8> = (0..4).flat_map(|_| x.to_le_bytes()).collect();
    vconst(b, I32X4, bytes)
}

/// `splat` of a 64-bit constant into an i64x2.
pub fn splat64(b: &mut FunctionBuilder, x: u64) -> Value {
    let bytes: Vec<u8> = (0..2).flat_map(|_| x.to_le_bytes()).collect();
    vconst(b, I64X2, bytes)
}

/// How many of the current block's last instructions [`vconst`] searches for the same
/// constant (the quick tier has no GVN: without this, a constant used by each of a warp
/// value's 8 or 16 parts is 8 or 16 `vconst`s).
const VCONST_WINDOW: usize = 64;

/// A 128-bit vector constant from its little-endian bytes: the same constant of the
/// same type materialised among the current block's last [`VCONST_WINDOW`] instructions
/// is reused (a value defined earlier in the block being built dominates the rest of it).
pub fn vconst(b: &mut FunctionBuilder, ty: CType, bytes: Vec<u8>) -> Value {
    let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
    if let Some(blk) = b.current_block() {
        let dfg = &b.func.dfg;
        for inst in b.func.layout.block_insts(blk).rev().take(VCONST_WINDOW) {
            if let InstructionData::UnaryConst {
                opcode: Opcode::Vconst,
                constant_handle,
            } = dfg.insts[inst]
            {
                let r = dfg.first_result(inst);
                if constant_handle == c && dfg.value_type(r) == ty {
                    return r;
                }
            }
        }
    }
    b.ins().vconst(ty, c)
}

/// i32x4 constant from four lanes.
pub fn const_i32x4(b: &mut FunctionBuilder, l: [u32; 4]) -> Value {
    let bytes: Vec<u8> = l.iter().flat_map(|x| x.to_le_bytes()).collect();
    vconst(b, I32X4, bytes)
}

/// i64x2 constant from two lanes.
pub fn const_i64x2(b: &mut FunctionBuilder, l: [u64; 2]) -> Value {
    let bytes: Vec<u8> = l.iter().flat_map(|x| x.to_le_bytes()).collect();
    vconst(b, I64X2, bytes)
}

/// A warp constant of the given container width.
pub fn splat_w(b: &mut FunctionBuilder, wide: bool, x: u64) -> WarpValue {
    if wide {
        let c = splat64(b, x);
        WarpValue::wide(vec![c; N64])
    } else {
        let c = splat32(b, x as u32);
        WarpValue::narrow(vec![c; N32])
    }
}

/// Splats a scalar (i32 or i64) into a warp value of its width.
pub fn splat_scalar(b: &mut FunctionBuilder, x: Value) -> WarpValue {
    if b.func.dfg.value_type(x) == I64 {
        let s = b.ins().splat(I64X2, x);
        WarpValue::wide(vec![s; N64])
    } else {
        let s = b.ins().splat(I32X4, x);
        WarpValue::narrow(vec![s; N32])
    }
}

/// Scalar i32 constant.
pub fn iconst32(b: &mut FunctionBuilder, x: u32) -> Value {
    b.ins().iconst(I32, x as i64)
}

/// Scalar i64 constant.
pub fn iconst64(b: &mut FunctionBuilder, x: u64) -> Value {
    b.ins().iconst(I64, x as i64)
}

/// Applies a binary vector op part by part.
pub fn map2(a: &WarpValue, c: &WarpValue, mut f: impl FnMut(Value, Value) -> Value) -> WarpValue {
    WarpValue {
        wide: a.wide,
        v: a.v.iter().zip(&c.v).map(|(&x, &y)| f(x, y)).collect(),
    }
}

/// Applies a unary vector op part by part.
pub fn map1(a: &WarpValue, f: impl FnMut(&Value) -> Value) -> WarpValue {
    WarpValue {
        wide: a.wide,
        v: a.v.iter().map(f).collect(),
    }
}

/// Lane masks (8 × i32x4) for the bits of a scalar i32 (bit i = lane i).
pub fn mask_from_bits(b: &mut FunctionBuilder, bits: Value) -> Vec<Value> {
    let s = b.ins().splat(I32X4, bits);
    (0..N32)
        .map(|k| {
            let k = k as u32;
            let sel = const_i32x4(
                b,
                [
                    1 << (4 * k),
                    1 << (4 * k + 1),
                    1 << (4 * k + 2),
                    1 << (4 * k + 3),
                ],
            );
            let t = b.ins().band(s, sel);
            b.ins().icmp(IntCC::Equal, t, sel)
        })
        .collect()
}

/// The i32 bit mask (bit i = lane i) of 8 × i32x4 lane masks (top bit of each lane).
/// A whole warp's 8 vectors narrow with signed saturation (which keeps every lane's
/// sign) to two i8x16 vectors, two `pmovmskb`s: 10 instructions instead of 8
/// `movmskps` and 14 shifts and ors.
pub fn bits_from_mask(b: &mut FunctionBuilder, m: &[Value]) -> Value {
    if m.len() == N32 {
        let v: Vec<Value> = m.iter().map(|&x| bitcast(b, I32X4, x)).collect();
        let mut half = |q: &[Value]| {
            let lo = b.ins().snarrow(q[0], q[1]);
            let hi = b.ins().snarrow(q[2], q[3]);
            let bytes = b.ins().snarrow(lo, hi);
            b.ins().vhigh_bits(I32, bytes)
        };
        let lo = half(&v[..4]);
        let hi = half(&v[4..]);
        let hi = b.ins().ishl_imm_u(hi, 16);
        return b.ins().bor(lo, hi);
    }
    let mut acc: Option<Value> = None;
    for (k, &v) in m.iter().enumerate() {
        let hb = b.ins().vhigh_bits(I32, v);
        let sh = if k == 0 {
            hb
        } else {
            b.ins().ishl_imm_u(hb, 4 * k as i64)
        };
        acc = Some(match acc {
            None => sh,
            Some(a) => b.ins().bor(a, sh),
        });
    }
    acc.unwrap_or_else(|| iconst32(b, 0))
}

/// 16 × i64x2 lane masks from 8 × i32x4 lane masks.
pub fn mask64(b: &mut FunctionBuilder, m: &[Value]) -> Vec<Value> {
    let mut out = Vec::with_capacity(N64);
    for &v in m {
        out.push(b.ins().swiden_low(v));
        out.push(b.ins().swiden_high(v));
    }
    out
}

/// Low 32 bits of each lane of two i64x2 vectors, as one i32x4 (lanes of `lo` first).
pub fn narrow_pair(b: &mut FunctionBuilder, lo: Value, hi: Value) -> Value {
    half_pair(b, lo, hi, false)
}

/// Low (`high == false`) or high 32 bits of each lane of two i64x2 vectors, as one i32x4.
pub fn half_pair(b: &mut FunctionBuilder, lo: Value, hi: Value, high: bool) -> Value {
    let a = bitcast(b, I8X16, lo);
    let c = bitcast(b, I8X16, hi);
    let o = if high { 4u8 } else { 0 };
    let sel: Vec<u8> = [0u8, 8, 16, 24]
        .iter()
        .flat_map(|&base| (0..4).map(move |i| base + o + i))
        .collect();
    let imm = b.func.dfg.immediates.push(ConstantData::from(sel));
    let s = b.ins().shuffle(a, c, imm);
    bitcast(b, I32X4, s)
}

/// Truncates a 64-bit warp value to 32-bit containers (low halves).
pub fn narrow_w(b: &mut FunctionBuilder, x: &WarpValue) -> WarpValue {
    if !x.wide {
        return x.clone();
    }
    let v = (0..N32)
        .map(|k| narrow_pair(b, x.v[2 * k], x.v[2 * k + 1]))
        .collect();
    WarpValue::narrow(v)
}

/// Extends 32-bit containers to 64-bit containers (sign- or zero-extending bit 31).
pub fn widen_w(b: &mut FunctionBuilder, x: &WarpValue, signed: bool) -> WarpValue {
    if x.wide {
        return x.clone();
    }
    let mut v = Vec::with_capacity(N64);
    for &p in &x.v {
        if signed {
            v.push(b.ins().swiden_low(p));
            v.push(b.ins().swiden_high(p));
        } else {
            v.push(b.ins().uwiden_low(p));
            v.push(b.ins().uwiden_high(p));
        }
    }
    WarpValue::wide(v)
}

/// Narrows 16 × i64x2 lane masks to 8 × i32x4 lane masks.
pub fn narrow_mask(b: &mut FunctionBuilder, m: &[Value]) -> Vec<Value> {
    (0..N32)
        .map(|k| narrow_pair(b, m[2 * k], m[2 * k + 1]))
        .collect()
}

/// Sign- or zero-extends the low `bits` bits of every lane to the container width.
pub fn ext_w(b: &mut FunctionBuilder, x: &WarpValue, bits: u32, signed: bool) -> WarpValue {
    let cw = if x.wide { 64 } else { 32 };
    if bits >= cw {
        return x.clone();
    }
    if signed {
        let sh = if x.wide {
            iconst64(b, (cw - bits) as u64)
        } else {
            iconst32(b, cw - bits)
        };
        map1(x, |&p| {
            let t = b.ins().ishl(p, sh);
            b.ins().sshr(t, sh)
        })
    } else {
        let m = if x.wide {
            splat64(b, (1u64 << bits) - 1)
        } else {
            splat32(b, ((1u64 << bits) - 1) as u32)
        };
        map1(x, |&p| b.ins().band(p, m))
    }
}

/// `bitselect(m, x, y)` part by part (`m` in the container width of `x`).
pub fn select_w(b: &mut FunctionBuilder, m: &[Value], x: &WarpValue, y: &WarpValue) -> WarpValue {
    WarpValue {
        wide: x.wide,
        v: (0..x.v.len())
            .map(|k| b.ins().bitselect(m[k], x.v[k], y.v[k]))
            .collect(),
    }
}

/// Bitwise AND of two mask lists.
pub fn and_masks(b: &mut FunctionBuilder, x: &[Value], y: &[Value]) -> Vec<Value> {
    x.iter().zip(y).map(|(&p, &q)| b.ins().band(p, q)).collect()
}

/// `x & !y` of two mask lists.
pub fn andnot_masks(b: &mut FunctionBuilder, x: &[Value], y: &[Value]) -> Vec<Value> {
    x.iter()
        .zip(y)
        .map(|(&p, &q)| b.ins().band_not(p, q))
        .collect()
}

/// AND of all parts.
pub fn and_reduce(b: &mut FunctionBuilder, v: &[Value]) -> Value {
    let mut acc = v[0];
    for &p in &v[1..] {
        acc = b.ins().band(acc, p);
    }
    acc
}

/// Flushes f32 subnormals (in i32x4 lanes) to sign-preserving zero.
pub fn flush_f32(b: &mut FunctionBuilder, x: Value) -> Value {
    let x = bitcast(b, I32X4, x);
    let e = splat32(b, 0x7f80_0000);
    let s = splat32(b, 0x8000_0000);
    let z = splat32(b, 0);
    let ex = b.ins().band(x, e);
    let sub = b.ins().icmp(IntCC::Equal, ex, z);
    let sign = b.ins().band(x, s);
    b.ins().bitselect(sub, sign, x)
}

/// As f32x4 (from i32x4 bits).
pub fn as_f32(b: &mut FunctionBuilder, x: Value) -> Value {
    bitcast(b, F32X4, x)
}

/// As i32x4 / i64x2 bits of a float vector.
pub fn as_int(b: &mut FunctionBuilder, x: Value) -> Value {
    let t = b.func.dfg.value_type(x);
    if t == F32X4 {
        bitcast(b, I32X4, x)
    } else if t == F64X2 {
        bitcast(b, I64X2, x)
    } else {
        x
    }
}

/// Lane-index vectors (`[4k, 4k+1, 4k+2, 4k+3]` or `[2k, 2k+1]`) times `scale`.
pub fn lane_index(b: &mut FunctionBuilder, wide: bool, scale: u64) -> WarpValue {
    // Lane × stride wraps in the register's width, as the per-lane arithmetic does.
    if wide {
        WarpValue::wide(
            (0..N64 as u64)
                .map(|k| {
                    const_i64x2(
                        b,
                        [(2 * k).wrapping_mul(scale), (2 * k + 1).wrapping_mul(scale)],
                    )
                })
                .collect(),
        )
    } else {
        let s = scale as u32;
        WarpValue::narrow(
            (0..N32 as u32)
                .map(|k| {
                    const_i32x4(
                        b,
                        [
                            (4 * k).wrapping_mul(s),
                            (4 * k + 1).wrapping_mul(s),
                            (4 * k + 2).wrapping_mul(s),
                            (4 * k + 3).wrapping_mul(s),
                        ],
                    )
                })
                .collect(),
        )
    }
}
