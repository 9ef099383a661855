//! `wgmma.mma_async` (sm_90a) on both backends against a plain Rust matrix product:
//! every kernel of `tests/kernels/wgmma/wgmma.ptx` (one form each, `gen.py`, checked by
//! ptxas -arch sm_90a) runs one warpgroup product (two warpgroups: the second must give
//! the same rows), with A and B placed in shared memory by the encoder below in each
//! descriptor layout (K-major / MN-major, no swizzle, 32-, 64- and 128-byte swizzle,
//! leading/stride byte offsets with gaps, a base offset), A from registers in the
//! register forms.
//!
//! Oracles, independent of `ptxjit::ops`:
//! - the encoder writes each element where the ISA's swizzle-atom pictures put it (an
//!   atom is 8 lines of the swizzle width, a line being one row of a K-major matrix or
//!   one `k` of an MN-major one; line `r`'s 16-byte chunk `c` is stored at chunk
//!   `c ^ r` (128-byte), `c ^ (r / 2)` (64-byte) or `c ^ (r / 4)` (32-byte); no swizzle:
//!   8 x 16-byte core matrices), from the atom's start;
//! - the register fragments (A, D) are written from the ISA's wgmma fragment figures;
//! - the inputs are small integers, so every sum is exact in the accumulator type and D
//!   is the exact product (f64 here), converted to the accumulator type; integer forms:
//!   the exact sum wrapped (or, `.satfinite`, clamped) to 32 bits; `.b1`: `popc(a & b)`.
//!
//! Random f16 inputs with f32 accumulation are compared with the per-element numerics
//! of `mma.sync` (`ptxjit::ops::matrix_num`, which match an H100: README "Tensor-core
//! numerics on a CPU"). Compiler-generated kernels (NVRTC, Triton): `wgmma_clients.rs`;
//! front-end errors: `wgmma_frontend.rs`.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use half::{bf16, f16};
use ptxjit::KernelArg;

const FILE: &str = "wgmma/wgmma.ptx";
/// Where B's region starts in the shared image (A's starts at 0).
const B_AT: u64 = 16384;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    F32,
    E4m3,
    E5m2,
    S8,
    U8,
    S32,
    B1,
}

impl Ty {
    fn bits(self) -> u64 {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::Tf32 | Ty::F32 | Ty::S32 => 32,
            Ty::E4m3 | Ty::E5m2 | Ty::S8 | Ty::U8 => 8,
            Ty::B1 => 1,
        }
    }

    /// `K` of a wgmma with this input type.
    fn k(self) -> usize {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::Tf32 => 8,
            Ty::B1 => 256,
            _ => 32,
        }
    }

    /// The bits of the small integer `v` (exactly representable).
    fn enc(self, v: i64) -> u64 {
        let minifloat = |v: i64, mbits: u32, bias: i64| -> u64 {
            let s = if v < 0 { 1u64 << 7 } else { 0 };
            let a = v.unsigned_abs();
            if a == 0 {
                return s;
            }
            let e = 63 - a.leading_zeros() as i64;
            let m = ((a << mbits) >> e) & ((1 << mbits) - 1);
            s | ((e + bias) as u64) << mbits | m
        };
        match self {
            Ty::F16 => f16::from_f64(v as f64).to_bits() as u64,
            Ty::Bf16 => bf16::from_f64(v as f64).to_bits() as u64,
            Ty::Tf32 | Ty::F32 => (v as f32).to_bits() as u64,
            Ty::E4m3 => minifloat(v, 3, 7),
            Ty::E5m2 => minifloat(v, 2, 15),
            Ty::S8 => v as i8 as u8 as u64,
            Ty::U8 => v as u8 as u64,
            Ty::S32 => v as i32 as u32 as u64,
            Ty::B1 => v as u64 & 1,
        }
    }

    /// A random small integer for this input type.
    fn sample(self, r: &mut Rng) -> i64 {
        match self {
            Ty::U8 => r.range(0, 256) as i64,
            Ty::S8 => r.range(0, 256) as i64 - 128,
            Ty::B1 => r.range(0, 2) as i64,
            _ => r.range(0, 9) as i64 - 4,
        }
    }
}

/// One kernel of `wgmma.ptx` (the same table as `gen.py`).
#[derive(Clone, Copy, Debug)]
struct Form {
    name: &'static str,
    d: Ty,
    a: Ty,
    b: Ty,
    n: usize,
    a_desc: bool,
    neg_a: bool,
    neg_b: bool,
    trans_a: bool,
    trans_b: bool,
    sat: bool,
}

#[allow(clippy::too_many_arguments)]
const fn form(
    name: &'static str,
    d: Ty,
    a: Ty,
    b: Ty,
    n: usize,
    a_desc: bool,
    scales: (i32, i32),
    trans: (u8, u8),
    sat: bool,
) -> Form {
    Form {
        name,
        d,
        a,
        b,
        n,
        a_desc,
        neg_a: scales.0 < 0,
        neg_b: scales.1 < 0,
        trans_a: trans.0 == 1,
        trans_b: trans.1 == 1,
        sat,
    }
}

use Ty::*;
const FORMS: &[Form] = &[
    form("f16_f32_n8", F32, F16, F16, 8, true, (1, 1), (0, 0), false),
    form(
        "f16_f32_n16_tb",
        F32,
        F16,
        F16,
        16,
        true,
        (1, 1),
        (0, 1),
        false,
    ),
    form(
        "f16_f32_n16_ta",
        F32,
        F16,
        F16,
        16,
        true,
        (1, 1),
        (1, 0),
        false,
    ),
    form(
        "f16_f32_n16_tab",
        F32,
        F16,
        F16,
        16,
        true,
        (1, 1),
        (1, 1),
        false,
    ),
    form(
        "f16_f32_n256",
        F32,
        F16,
        F16,
        256,
        true,
        (1, 1),
        (0, 0),
        false,
    ),
    form(
        "f16_f16_n24",
        F16,
        F16,
        F16,
        24,
        true,
        (1, 1),
        (0, 0),
        false,
    ),
    form(
        "f16_f32_neg",
        F32,
        F16,
        F16,
        16,
        true,
        (-1, -1),
        (0, 0),
        false,
    ),
    form(
        "f16_f32_nega",
        F32,
        F16,
        F16,
        16,
        false,
        (-1, 1),
        (0, 1),
        false,
    ),
    form(
        "bf16_f32_reg",
        F32,
        Bf16,
        Bf16,
        32,
        false,
        (1, 1),
        (0, 1),
        false,
    ),
    form(
        "bf16_f32_desc",
        F32,
        Bf16,
        Bf16,
        64,
        true,
        (1, 1),
        (0, 0),
        false,
    ),
    form(
        "tf32_f32_desc",
        F32,
        Tf32,
        Tf32,
        32,
        true,
        (1, 1),
        (0, 0),
        false,
    ),
    form(
        "tf32_f32_reg",
        F32,
        Tf32,
        Tf32,
        8,
        false,
        (1, -1),
        (0, 0),
        false,
    ),
    form(
        "e4m3_e5m2_f32",
        F32,
        E4m3,
        E5m2,
        16,
        true,
        (1, 1),
        (0, 0),
        false,
    ),
    form(
        "e5m2_e4m3_f16_reg",
        F16,
        E5m2,
        E4m3,
        8,
        false,
        (-1, 1),
        (0, 0),
        false,
    ),
    form("s8_u8_sat", S32, S8, U8, 32, true, (1, 1), (0, 0), true),
    form("u8_s8_reg", S32, U8, S8, 16, false, (1, 1), (0, 0), false),
    form("s8_s8_n24", S32, S8, S8, 24, true, (1, 1), (0, 0), false),
    form("b1_and", S32, B1, B1, 16, true, (1, 1), (0, 0), false),
    form("b1_and_reg", S32, B1, B1, 8, false, (1, 1), (0, 0), false),
];

fn find(name: &str) -> Form {
    *FORMS
        .iter()
        .find(|f| f.name == name)
        .expect("form in FORMS")
}

/// A shared-memory layout of one operand: swizzle width in bytes (0: none), MN-major,
/// leading and stride byte offsets, the start (an offset in the image) and the base
/// offset field.
#[derive(Clone, Copy, Debug)]
struct Lay {
    w: u64,
    mn_major: bool,
    lbo: u64,
    sbo: u64,
    start: u64,
    base: u64,
}

impl Lay {
    /// A layout of an operand of `mn` rows (A) or columns (B) with `gap` bytes after
    /// each core matrix (no swizzle) or atom (swizzled; `gap` a multiple of `8 * w`).
    fn dense(w: u64, mn_major: bool, bits: u64, mn: u64, gap: u64) -> Lay {
        let (lbo, sbo) = match (mn_major, w) {
            // K-major: 8 x 16-byte core matrices, mn-neighbours SBO apart, k-neighbours
            // after all of them.
            (false, 0) => (mn.div_ceil(8) * (128 + gap), 128 + gap),
            // K-major swizzled: LBO is not used (an odd value checks that).
            (false, w) => (0x1230, 8 * w + gap),
            // MN-major: core matrices along mn SBO apart, groups of 8 k after them.
            (true, 0) => ((mn * bits).div_ceil(128) * (128 + gap), 128 + gap),
            // MN-major swizzled: atoms along mn LBO apart, groups of 8 k after them.
            (true, w) => (8 * w + gap, (mn * bits / 8).div_ceil(w) * (8 * w + gap)),
        };
        Lay {
            w,
            mn_major,
            lbo,
            sbo,
            start: 0,
            base: 0,
        }
    }

    fn desc(&self) -> u64 {
        let enc = |x: u64| (x & 0x3ffff) >> 4;
        let mode = match self.w {
            128 => 1,
            64 => 2,
            32 => 3,
            _ => 0,
        };
        enc(self.start) | enc(self.lbo) << 16 | enc(self.sbo) << 32 | self.base << 49 | mode << 62
    }

    /// The image bit address of element (`mn`, `k`), per the swizzle-atom pictures.
    fn place(&self, bits: u64, mn: u64, k: u64) -> u64 {
        let phase = |line: u64| match self.w {
            128 => line,
            64 => line / 2,
            32 => line / 4,
            _ => 0,
        };
        // (byte offset of the line's first chunk, bit offset along the line)
        let (line_at, along, line) = if !self.mn_major {
            let line = mn % 8;
            let kb = k * bits;
            if self.w == 0 {
                (
                    (mn / 8) * self.sbo + (kb / 128) * self.lbo + line * 16,
                    kb % 128,
                    line,
                )
            } else {
                ((mn / 8) * self.sbo + line * self.w, kb, line)
            }
        } else {
            let line = k % 8;
            let mb = mn * bits;
            if self.w == 0 {
                (
                    (mb / 128) * self.sbo + (k / 8) * self.lbo + line * 16,
                    mb % 128,
                    line,
                )
            } else {
                let atom = 8 * self.w;
                (
                    (mb / atom) * self.lbo + (k / 8) * self.sbo + line * self.w,
                    mb % atom,
                    line,
                )
            }
        };
        let chunk = (along / 128) ^ phase(line);
        (self.start + line_at + chunk * 16) * 8 + along % 128
    }
}

/// Writes element bits `v` of `bits` at image bit address `at` (nothing past the image).
fn put(img: &mut [u8], at: u64, bits: u64, v: u64) {
    for b in 0..bits {
        let p = at + b;
        let Some(byte) = img.get_mut((p / 8) as usize) else {
            return;
        };
        let bit = 1u8 << (p % 8);
        if v >> b & 1 != 0 {
            *byte |= bit;
        } else {
            *byte &= !bit;
        }
    }
}

/// The per-lane A register words of warp `w` (ISA figures: the mma A fragments of
/// m16n8k16 / m16n8k8 / m16n8k32 / m16n8k256, rows offset by 16w).
fn a_regs(f: &Form, a: &[u64], lane: usize, w: usize) -> [u32; 4] {
    let k = f.a.k();
    let (g, t) = (lane / 4, lane % 4);
    let at = |r: usize, c: usize| a[(16 * w + r) * k + c];
    let mut regs = [0u32; 4];
    for (j, reg) in regs.iter_mut().enumerate() {
        let row = g + 8 * (j % 2);
        let col0 = (j / 2) * k / 2;
        *reg = match f.a {
            F16 | Bf16 => {
                let c = col0 + 2 * t;
                (at(row, c) | at(row, c + 1) << 16) as u32
            }
            Tf32 => {
                // a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
                at(row, col0 + t) as u32
            }
            B1 => (0..32).fold(0, |v, i| v | (at(row, col0 + 32 * t + i) as u32) << i),
            _ => (0..4).fold(0, |v, i| v | (at(row, col0 + 4 * t + i) as u32) << (8 * i)),
        };
    }
    regs
}

/// (row, column) of accumulator element `i` of `lane` in warp `w` (ISA figure for D).
fn d_pos(lane: usize, w: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (16 * w + g + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * t + i % 2)
}

/// Accumulator register words of every thread from a row-major `64 x n` matrix of
/// element bits.
fn d_regs(f: &Form, mat: &[u64], threads: usize) -> Vec<u32> {
    let per = if f.d == F16 { 2 } else { 1 };
    let nregs = f.n / 2 / per;
    let mut out = vec![0u32; threads * nregs];
    for tid in 0..threads {
        let (w, lane) = ((tid / 32) % 4, tid % 32);
        for i in 0..f.n / 2 {
            let (r, c) = d_pos(lane, w, i);
            let v = mat[r * f.n + c] as u32;
            let slot = &mut out[tid * nregs + i / per];
            *slot |= if per == 2 {
                (v & 0xffff) << (16 * (i % 2))
            } else {
                v
            };
        }
    }
    out
}

/// Inputs (small integers) of one run.
struct Case {
    a: Vec<i64>,
    b: Vec<i64>,
    c: Vec<i64>,
    scale_d: bool,
    /// The values are element bit patterns already.
    raw: bool,
}

impl Case {
    fn random(f: &Form, seed: u64, scale_d: bool) -> Case {
        let mut r = Rng::new(seed);
        let k = f.a.k();
        let a = (0..64 * k).map(|_| f.a.sample(&mut r)).collect();
        let b = (0..k * f.n).map(|_| f.b.sample(&mut r)).collect();
        let c = (0..64 * f.n).map(|_| r.range(0, 129) as i64 - 64).collect();
        Case {
            a,
            b,
            c,
            scale_d,
            raw: false,
        }
    }

    /// The exact `D` (element bits of `f.d`).
    fn reference(&self, f: &Form) -> Vec<u64> {
        let k = f.a.k();
        let sa = if f.neg_a { -1 } else { 1 };
        let sb = if f.neg_b { -1 } else { 1 };
        let mut d = vec![0u64; 64 * f.n];
        for i in 0..64 {
            for j in 0..f.n {
                let terms = (0..k).map(|kk| sa * self.a[i * k + kk] * sb * self.b[kk * f.n + j]);
                let c = if self.scale_d { self.c[i * f.n + j] } else { 0 };
                d[i * f.n + j] = match f.d {
                    S32 => {
                        let s: i64 = c + if f.a == B1 {
                            (0..k)
                                .filter(|&kk| self.a[i * k + kk] & self.b[kk * f.n + j] & 1 != 0)
                                .count() as i64
                        } else {
                            terms.sum::<i64>()
                        };
                        let s = if f.sat {
                            s.clamp(i32::MIN as i64, i32::MAX as i64)
                        } else {
                            s
                        };
                        s as i32 as u32 as u64
                    }
                    _ => {
                        // f64 sum from C (or from -0.0 when there is no C term): exact.
                        let start = if self.scale_d { c as f64 } else { -0.0 };
                        let s = terms.fold(start, |s, t| s + t as f64);
                        if f.d == F16 {
                            f16::from_f64(s).to_bits() as u64
                        } else {
                            (s as f32).to_bits() as u64
                        }
                    }
                };
            }
        }
        d
    }
}

/// Runs form `f` with layouts `la` (A, when from a descriptor) and `lb` on both
/// backends with `threads` threads; returns each backend's accumulator words.
fn run(f: &Form, case: &Case, la: Lay, lb: Lay, threads: usize) -> Vec<u32> {
    let k = f.a.k() as u64;
    let enc = |t: Ty, v: i64| if case.raw { v as u64 } else { t.enc(v) };
    let mut img = vec![0u8; 49152];
    let lb = Lay {
        start: lb.start + B_AT,
        ..lb
    };
    if f.a_desc {
        for m in 0..64 {
            for kk in 0..k {
                let v = enc(f.a, case.a[(m * k + kk) as usize]);
                put(&mut img, la.place(f.a.bits(), m, kk), f.a.bits(), v);
            }
        }
    }
    for kk in 0..k {
        for n in 0..f.n as u64 {
            let v = enc(f.b, case.b[(kk * f.n as u64 + n) as usize]);
            put(&mut img, lb.place(f.b.bits(), n, kk), f.b.bits(), v);
        }
    }
    let a_bits: Vec<u64> = case.a.iter().map(|&v| enc(f.a, v)).collect();
    let areg: Vec<u32> = (0..threads)
        .flat_map(|tid| a_regs(f, &a_bits, tid % 32, (tid / 32) % 4))
        .collect();
    let c_bits: Vec<u64> = case.c.iter().map(|&v| enc(f.d, v)).collect();
    let cregs = d_regs(f, &c_bits, threads);
    let dev = device();
    let mut res = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module(&dev, FILE, backend);
        let bimg = dev.alloc_from(&img).unwrap();
        let ba = dev.alloc_from(&areg).unwrap();
        let bc = dev.alloc_from(&cregs).unwrap();
        let bd = zeroed(&dev, cregs.len() * 4);
        let args = [
            arg(&bimg),
            KernelArg::U32(img.len() as u32),
            arg(&ba),
            arg(&bc),
            arg(&bd),
            KernelArg::U64(la.desc()),
            KernelArg::U64(lb.desc()),
            KernelArg::U32(case.scale_d as u32),
        ];
        let kernel = format!("wg_{}", f.name);
        let c = cfg([1, 1, 1], [threads as u32, 1, 1], backend);
        launch(&dev, &m, &kernel, &c, &args, f.name);
        res.push(dev.read::<u32>(&bd).unwrap());
    }
    let interp = res.pop().unwrap();
    let jit = res.pop().unwrap();
    assert_eq!(jit, interp, "{}: JIT and interpreter differ", f.name);
    jit
}

/// Runs `f` and checks D against the exact product.
fn check(f: &Form, seed: u64, la: Lay, lb: Lay, scale_d: bool, threads: usize) {
    let case = Case::random(f, seed, scale_d);
    let got = run(f, &case, la, lb, threads);
    let want = d_regs(f, &case.reference(f), threads);
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let nregs = want.len() / threads;
        panic!(
            "{} (A {la:?}, B {lb:?}, scale-d {scale_d}): thread {} register {}: got {:#010x}, want {:#010x}",
            f.name,
            i / nregs,
            i % nregs,
            got[i],
            want[i]
        );
    }
}

/// Dense layouts of A (`64 x K`) and B (`K x N`) with swizzle width `w` and gaps.
fn lays(f: &Form, w: u64, gap: u64) -> (Lay, Lay) {
    (
        Lay::dense(w, f.trans_a, f.a.bits(), 64, gap),
        Lay::dense(w, f.trans_b, f.b.bits(), f.n as u64, gap),
    )
}

#[test]
fn every_form_k_major_or_as_declared_no_swizzle() {
    for f in FORMS {
        let (la, lb) = lays(f, 0, 0);
        check(f, 1, la, lb, true, 128);
    }
}

#[test]
fn every_form_128b_swizzle_without_c() {
    for f in FORMS {
        let (la, lb) = lays(f, 128, 0);
        check(f, 2, la, lb, false, 128);
    }
}

#[test]
fn swizzle_modes_and_majorness_with_gaps() {
    for name in [
        "f16_f32_n16_tb",
        "f16_f32_n16_ta",
        "f16_f32_n16_tab",
        "f16_f32_n8",
    ] {
        let f = find(name);
        for w in [0, 32, 64, 128] {
            for gap in [0, 1024] {
                let gap = if w == 0 { gap / 4 } else { gap };
                let (la, lb) = lays(&f, w, gap);
                check(&f, 3 + w + gap, la, lb, true, 128);
            }
        }
    }
    for name in [
        "tf32_f32_desc",
        "e4m3_e5m2_f32",
        "s8_u8_sat",
        "b1_and",
        "bf16_f32_desc",
    ] {
        let f = find(name);
        for w in [32, 64] {
            let (la, lb) = lays(&f, w, 2048);
            check(&f, 4 + w, la, lb, true, 128);
        }
    }
}

#[test]
fn base_offset_and_unaligned_pattern_start() {
    let f = find("f16_f32_n16_tab");
    for (w, start) in [(128, 384), (64, 128), (32, 128), (128, 896)] {
        let (mut la, mut lb) = lays(&f, w, 0);
        for l in [&mut la, &mut lb] {
            l.start = start;
            l.base = (start >> 7) & 7;
        }
        check(&f, 9, la, lb, true, 128);
    }
}

#[test]
fn two_warpgroups_compute_the_same_rows() {
    for name in ["f16_f32_nega", "u8_s8_reg", "f16_f16_n24"] {
        let f = find(name);
        let (la, lb) = lays(&f, 64, 0);
        check(&f, 5, la, lb, true, 256);
    }
}

#[test]
fn satfinite_clamps_and_plain_wraps() {
    // All-extreme inputs: 32 * (-128 * 255) = -1044480 plus C; to reach the clamp, C
    // near i32::MIN.
    let f = find("s8_u8_sat");
    let (la, lb) = lays(&f, 0, 0);
    let mut case = Case::random(&f, 6, true);
    case.a.iter_mut().for_each(|x| *x = -128);
    case.b.iter_mut().for_each(|x| *x = 255);
    case.c.iter_mut().for_each(|x| *x = i32::MIN as i64 + 5);
    let got = run(&f, &case, la, lb, 128);
    assert!(
        got.iter().all(|&x| x == i32::MIN as u32),
        "clamped to i32::MIN"
    );
}

/// Random f16 inputs, f32 accumulation: each element as `mma.sync` m16n8k16 computes
/// it (ptxjit::ops::matrix_num, matched to an H100).
#[test]
fn random_f16_matches_mma_numerics() {
    use ptxjit::ir::{ElemType, MmaOp, MmaShape};
    let f = find("f16_f32_n16_tb");
    let mut r = Rng::new(11);
    let k = 16;
    let ah: Vec<f16> = (0..64 * k)
        .map(|_| f16::from_f32(r.f32() * 8.0 - 4.0))
        .collect();
    let bh: Vec<f16> = (0..k * f.n)
        .map(|_| f16::from_f32(r.f32() * 8.0 - 4.0))
        .collect();
    let cf: Vec<f32> = (0..64 * f.n).map(|_| r.f32() * 100.0 - 50.0).collect();
    let op = MmaOp {
        shape: MmaShape::M16n8k16,
        dtype: ElemType::F32,
        atype: ElemType::F16,
        btype: ElemType::F16,
        ctype: ElemType::F32,
        arow: true,
        brow: false,
        satfinite: false,
        bop: None,
        rnd: None,
        sparse: false,
    };
    let mut want = vec![0u64; 64 * f.n];
    for i in 0..64 {
        for j in 0..f.n {
            let row: Vec<u64> = (0..k).map(|kk| ah[i * k + kk].to_bits() as u64).collect();
            let col: Vec<u64> = (0..k).map(|kk| bh[kk * f.n + j].to_bits() as u64).collect();
            let c = cf[i * f.n + j].to_bits() as u64;
            want[i * f.n + j] = ptxjit::ops::matrix_num::dot(op, &row, &col, c);
        }
    }
    let case = Case {
        a: ah.iter().map(|x| x.to_bits() as i64).collect(),
        b: bh.iter().map(|x| x.to_bits() as i64).collect(),
        c: cf.iter().map(|x| x.to_bits() as i64).collect(),
        scale_d: true,
        raw: true,
    };
    let (la, lb) = lays(&f, 128, 0);
    let got = run(&f, &case, la, lb, 128);
    assert_eq!(got, d_regs(&f, &want, 128), "random f16 inputs");
}

/// A descriptor or scale-d that differs between the lanes of a warp stops the launch
/// with an error naming the instruction; a descriptor past the CTA's shared memory is a fault.
#[test]
fn lane_dependent_and_out_of_window_descriptors_fail() {
    let dev = device();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module(&dev, FILE, backend);
        let d = zeroed(&dev, 4);
        let c = cfg([1, 1, 1], [128, 1, 1], backend);
        let e = dev
            .launch(&m, "wg_lane_desc", &c, &[arg(&d)])
            .expect_err("lane-dependent descriptor")
            .to_string();
        assert!(
            e.contains("lane 1's A descriptor 0x1 differs from lane 0's (0x0)")
                && e.contains("wgmma.mma_async"),
            "{backend:?}: {e}"
        );
        let e = dev
            .launch(&m, "wg_lane_scale", &c, &[arg(&d)])
            .expect_err("lane-dependent scale-d")
            .to_string();
        assert!(
            e.contains("lane 1's scale-d (1) differs from lane 0's (0)"),
            "{backend:?}: {e}"
        );
        let f = find("f16_f32_n8");
        let (la, lb) = lays(&f, 0, 0);
        let lb = Lay {
            start: 0x3fff0 - B_AT,
            ..lb
        };
        let case = Case::random(&f, 1, true);
        let r = std::panic::catch_unwind(|| run(&f, &case, la, lb, 128));
        let msg = match r {
            Ok(_) => panic!("{backend:?}: no fault for a descriptor past shared memory"),
            Err(p) => p.downcast_ref::<String>().cloned().unwrap_or_default(),
        };
        assert!(
            msg.contains("wgmma.mma_async") && msg.to_lowercase().contains("shared"),
            "{msg}"
        );
    }
}
