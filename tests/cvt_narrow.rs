//! The narrow formats of `cvt` (fp8 `.e4m3x2`/`.e5m2x2`, fp6 `.e2m3x2`/`.e3m2x2`, fp4
//! `.e2m1x2`, `.ue8m0x2`, `.tf32` with `.satfinite`), `cvt.pack.sat` and `mov`
//! packing, on both backends (`tests/ptx/cvt_fp8.ptx` sm_89, `cvt_fp6.ptx` sm_100a,
//! `cvt_pack.ptx` sm_75, `mov_pack.ptx` sm_70, all ptxas-validated).
//!
//! References written here, independent of `ptxjit::ops`: the small formats decoded by
//! their definition (sign, exponent with bias, mantissa with a hidden bit), encoded by
//! searching every code for the nearest value (ties to the even code), checked on
//! hand-computed ties; exhaustive over every fp8/fp6/fp4/ue8m0 code for the widening
//! direction and over every f16/bf16 value for the `.f16x2`/`.bf16x2` sources.

mod cvt_util;
use cvt_util::*;
use ptxjit::{Backend, Device};

/// A small float format: exponent bits, mantissa bits, bias.
#[derive(Clone, Copy)]
struct Small {
    e: u32,
    m: u32,
    bias: i32,
    /// e4m3: the all-ones code is NaN; e5m2: IEEE infinities and NaNs; others: finite.
    kind: u8,
}
const E4M3: Small = Small {
    e: 4,
    m: 3,
    bias: 7,
    kind: 1,
};
const E5M2: Small = Small {
    e: 5,
    m: 2,
    bias: 15,
    kind: 2,
};
const E2M3: Small = Small {
    e: 2,
    m: 3,
    bias: 1,
    kind: 0,
};
const E3M2: Small = Small {
    e: 3,
    m: 2,
    bias: 3,
    kind: 0,
};
const E2M1: Small = Small {
    e: 2,
    m: 1,
    bias: 1,
    kind: 0,
};

impl Small {
    fn width(self) -> u32 {
        1 + self.e + self.m
    }
    /// The largest finite magnitude code: e4m3 0x7e (448), e5m2 0x7b (57344), else all
    /// ones.
    fn max_code(self) -> u64 {
        let all = (1u64 << (self.e + self.m)) - 1;
        match self.kind {
            1 => all - 1,
            2 => ((1 << self.e) - 2) << self.m | ((1 << self.m) - 1),
            _ => all,
        }
    }
    /// The magnitude of a code (without sign): NaN/inf per the format.
    fn value(self, c: u64) -> f64 {
        let e = (c >> self.m) as i32;
        let m = (c & ((1 << self.m) - 1)) as f64;
        let emax = (1 << self.e) - 1;
        if self.kind == 1 && c == (1 << (self.e + self.m)) - 1 {
            return f64::NAN;
        }
        if self.kind == 2 && e == emax {
            return if m == 0.0 { f64::INFINITY } else { f64::NAN };
        }
        let frac = m / (1u64 << self.m) as f64;
        if e == 0 {
            frac * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + frac) * 2f64.powi(e - self.bias)
        }
    }
    /// `cvt.rn.satfinite{.relu}` of an exact value: the nearest code (ties to even),
    /// |x| beyond the largest finite value (infinities too) -> that value; NaN -> 0x7f
    /// (fp8) or +MAX (fp6/fp4).
    fn encode(self, x: f64, relu: bool) -> u64 {
        let max = self.max_code();
        if x.is_nan() {
            return if self.kind == 0 { max } else { 0x7f };
        }
        let a = x.abs().min(self.value(max));
        let mut best = 0u64;
        for c in 1..=max {
            let (d, db) = ((self.value(c) - a).abs(), (self.value(best) - a).abs());
            if d < db || d == db && c & 1 == 0 {
                best = c;
            }
        }
        if x.is_sign_negative() {
            if relu {
                0
            } else {
                best | 1 << (self.width() - 1)
            }
        } else {
            best
        }
    }
    /// `cvt.rn{.relu}.f16x2` of one code: exact; NaN -> 0x7fff.
    fn to_f16(self, c: u64, relu: bool) -> u64 {
        let neg = c >> (self.width() - 1) & 1 != 0;
        let v = self.value(c & ((1 << (self.width() - 1)) - 1));
        if v.is_nan() {
            return 0x7fff;
        }
        if neg && relu {
            return 0;
        }
        let h = half::f16::from_f32(v as f32).to_bits() as u64;
        assert_eq!(half::f16::from_bits(h as u16).to_f64(), v, "exact");
        h | if neg { 0x8000 } else { 0 }
    }
}

#[test]
fn small_format_definitions() {
    assert_eq!(E4M3.max_code(), 0x7e);
    assert_eq!(E4M3.value(0x7e), 448.0);
    assert_eq!(E5M2.max_code(), 0x7b);
    assert_eq!(E5M2.value(0x7b), 57344.0);
    assert_eq!(E2M3.value(0x1f), 7.5);
    assert_eq!(E3M2.value(0x1f), 28.0);
    assert_eq!(E2M1.value(0x7), 6.0);
    assert_eq!(E4M3.value(1), 2f64.powi(-9)); // smallest e4m3 subnormal
    assert_eq!(E5M2.value(1), 2f64.powi(-16));
    // Hand-computed ties: e4m3 1.0625 lies halfway between 1.0 (0x38) and 1.125 (0x39):
    // even -> 0x38; 1.1875 between 1.125 and 1.25 (0x3a): even -> 0x3a.
    assert_eq!(E4M3.encode(1.0625, false), 0x38);
    assert_eq!(E4M3.encode(1.1875, false), 0x3a);
    // e5m2 halfway between 1.0 (0x3c) and 1.25 (0x3d) -> 0x3c; 1.375 -> 1.5 (0x3e).
    assert_eq!(E5M2.encode(1.125, false), 0x3c);
    assert_eq!(E5M2.encode(1.375, false), 0x3e);
    // e2m1 codes: 0 0.5 1 1.5 2 3 4 6; 2.5 ties to 2 (0x4), 3.5 to 4 (0x6), 5 to 4.
    assert_eq!(E2M1.encode(2.5, false), 0x4);
    assert_eq!(E2M1.encode(3.5, false), 0x6);
    assert_eq!(E2M1.encode(5.0, false), 0x6);
    assert_eq!(E2M1.encode(-0.25, false), 0x8); // tie with 0: even, negative zero
    assert_eq!(E2M1.encode(-0.25, true), 0x0);
}

fn f32_inputs() -> (Vec<u32>, Vec<u32>) {
    let xs = f32_sample();
    let ys = xs.iter().rev().copied().collect();
    (xs, ys)
}

/// f32 pairs and f16x2 -> e4m3x2/e5m2x2 (`a`/upper half into the upper byte).
fn to_fp8(b: Backend) {
    let dev = Device::new().unwrap();
    let (xs, ys) = f32_inputs();
    // Every f16 value appears as a low or high half of some packed input.
    let h2: Vec<u32> = (0..xs.len() as u32)
        .map(|i| ((2 * i + 1) & 0xffff) << 16 | (2 * i) & 0xffff)
        .collect();
    let bufs = [&xs, &ys, &h2].map(|v| dev.alloc_from(v).unwrap());
    let out = run(&dev, "cvt_fp8.ptx", "to_fp8", &bufs.each_ref(), xs.len(), b);
    let mut ck = Check::default();
    for i in 0..xs.len() {
        let x = f32::from_bits(xs[i]) as f64;
        let y = f32::from_bits(ys[i]) as f64;
        let hv = |h: u32| {
            let h = half::f16::from_bits(h as u16);
            if h.is_nan() {
                f64::NAN
            } else {
                h.to_f64()
            }
        };
        let (hi, lo) = (hv(h2[i] >> 16), hv(h2[i] & 0xffff));
        for (name, f) in [("e4m3x2", E4M3), ("e5m2x2", E5M2)] {
            for relu in [false, true] {
                let r = if relu { "relu." } else { "" };
                let text = format!("cvt.rn.satfinite.{r}{name}.f32");
                let want = f.encode(x, relu) << 8 | f.encode(y, relu);
                ck.eq(out.get(&text, i), want, || {
                    format!("{b:?} {text} {:#x} {:#x}", xs[i], ys[i])
                });
                let text = format!("cvt.rn.satfinite.{r}{name}.f16x2");
                let want = f.encode(hi, relu) << 8 | f.encode(lo, relu);
                ck.eq(out.get(&text, i), want, || {
                    format!("{b:?} {text} {:#x}", h2[i])
                });
            }
        }
    }
    ck.finish("to_fp8");
}

/// e4m3x2/e5m2x2 -> f16x2 over every pair of codes.
fn from_fp8(b: Backend) {
    let dev = Device::new().unwrap();
    let input: Vec<u16> = (0..=u16::MAX).collect();
    let buf = dev.alloc_from(&input).unwrap();
    let out = run(&dev, "cvt_fp8.ptx", "from_fp8", &[&buf], input.len(), b);
    let mut ck = Check::default();
    for (i, &v) in input.iter().enumerate() {
        let (hi, lo) = ((v >> 8) as u64, (v & 0xff) as u64);
        for (name, f) in [("e4m3x2", E4M3), ("e5m2x2", E5M2)] {
            for relu in [false, true] {
                let r = if relu { "relu." } else { "" };
                let text = format!("cvt.rn.{r}f16x2.{name}");
                let want = f.to_f16(hi, relu) << 16 | f.to_f16(lo, relu);
                ck.eq(out.get(&text, i), want, || format!("{b:?} {text} {v:#06x}"));
            }
        }
    }
    ck.finish("from_fp8");
}

/// `.ue8m0` of a value by search: `.rz` the largest `2^(k-127) <= |x|`, `.rp` the
/// smallest `>= |x|` (at least code 0 = 2^-127); beyond 2^127 and infinities 0xff
/// (0xfe with `.satfinite`), NaN 0xff.
fn ue8m0(x: f64, up: bool, satfinite: bool) -> u64 {
    if x.is_nan() {
        return 0xff;
    }
    let a = x.abs();
    let p = |k: i32| 2f64.powi(k - 127);
    let code = if up {
        (0..=254).find(|&k| p(k) >= a).unwrap_or(255)
    } else if a.is_infinite() {
        255
    } else {
        (0..=254).rev().find(|&k| p(k) <= a).unwrap_or(0)
    };
    if code == 255 && satfinite {
        254
    } else {
        code as u64
    }
}

/// f32 pairs -> fp6/fp4/ue8m0 pairs, bf16x2 -> ue8m0x2, tf32 with .satfinite.
fn to_fp6(b: Backend) {
    let dev = Device::new().unwrap();
    let (xs, ys) = f32_inputs();
    let b2: Vec<u32> = (0..xs.len() as u32)
        .map(|i| ((2 * i + 1) & 0xffff) << 16 | (2 * i) & 0xffff)
        .collect();
    let bufs = [&xs, &ys, &b2].map(|v| dev.alloc_from(v).unwrap());
    let out = run(&dev, "cvt_fp6.ptx", "to_fp6", &bufs.each_ref(), xs.len(), b);
    let mut ck = Check::default();
    let tf32_max = TF32.top - 1;
    for i in 0..xs.len() {
        let x = f32::from_bits(xs[i]) as f64;
        let y = f32::from_bits(ys[i]) as f64;
        let mut chk = |text: &str, want: u64| {
            ck.eq(out.get(text, i), want, || {
                format!("{b:?} {text} {:#x} {:#x} {:#x}", xs[i], ys[i], b2[i])
            });
        };
        for (name, f, w) in [
            ("e2m3x2", E2M3, 8),
            ("e3m2x2", E3M2, 8),
            ("e2m1x2", E2M1, 4),
        ] {
            for relu in [false, true] {
                let r = if relu { "relu." } else { "" };
                let want = f.encode(x, relu) << w | f.encode(y, relu);
                chk(&format!("cvt.rn.satfinite.{r}{name}.f32"), want);
            }
        }
        for (r, up) in [("rz", false), ("rp", true)] {
            for sf in [false, true] {
                let s = if sf { "satfinite." } else { "" };
                let want = ue8m0(x, up, sf) << 8 | ue8m0(y, up, sf);
                chk(&format!("cvt.{r}.{s}ue8m0x2.f32"), want);
            }
        }
        let bv = |h: u32| {
            let h = half::bf16::from_bits(h as u16);
            if h.is_nan() {
                f64::NAN
            } else {
                h.to_f64()
            }
        };
        let (bh, bl) = (bv(b2[i] >> 16), bv(b2[i] & 0xffff));
        chk(
            "cvt.rz.ue8m0x2.bf16x2",
            ue8m0(bh, false, false) << 8 | ue8m0(bl, false, false),
        );
        chk(
            "cvt.rp.satfinite.ue8m0x2.bf16x2",
            ue8m0(bh, true, true) << 8 | ue8m0(bl, true, true),
        );
        let tf = |mode: Mode, relu: bool| {
            if x.is_nan() {
                return 0x7fff_ffff;
            }
            let c = if x.abs() > (TF32.value)(tf32_max) {
                tf32_max | if x < 0.0 { TF32.sign } else { 0 }
            } else {
                round(x, &TF32, mode)
            };
            if relu && c & TF32.sign != 0 {
                0
            } else {
                c << 13
            }
        };
        chk("cvt.rn.satfinite.tf32.f32", tf(Mode::Rn, false));
        chk("cvt.rz.satfinite.tf32.f32", tf(Mode::Rz, false));
        chk("cvt.rn.relu.satfinite.tf32.f32", tf(Mode::Rn, true));
    }
    ck.finish("to_fp6");
}

/// fp6/fp4 pairs -> f16x2 over every pair of codes; ue8m0x2 -> bf16x2 over every pair.
fn from_fp6(b: Backend) {
    let dev = Device::new().unwrap();
    let a: Vec<u16> = (0..=u16::MAX).collect();
    let c: Vec<u8> = a.iter().map(|&v| v as u8).collect();
    let (ba, bc) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&c).unwrap());
    let out = run(&dev, "cvt_fp6.ptx", "from_fp6", &[&ba, &bc], a.len(), b);
    let mut ck = Check::default();
    let e8 = |c: u64| match c {
        0xff => 0x7fff,
        // 2^(c-127) as bf16: 2^-127 is the subnormal 0x0040.
        _ => half::bf16::from_f64(2f64.powi(c as i32 - 127)).to_bits() as u64,
    };
    for (i, &v) in a.iter().enumerate() {
        let (hi, lo) = ((v >> 8) as u64, (v & 0xff) as u64);
        let mut chk = |text: &str, want: u64| {
            ck.eq(out.get(text, i), want, || format!("{b:?} {text} {v:#06x}"));
        };
        chk("cvt.rn.bf16x2.ue8m0x2", e8(hi) << 16 | e8(lo));
        if v & 0xc0c0 == 0 {
            // Both bytes hold an fp6 code.
            for (name, f) in [("e2m3x2", E2M3), ("e3m2x2", E3M2)] {
                for relu in [false, true] {
                    let r = if relu { "relu." } else { "" };
                    let want = f.to_f16(hi, relu) << 16 | f.to_f16(lo, relu);
                    chk(&format!("cvt.rn.{r}f16x2.{name}"), want);
                }
            }
        }
        let (h4, l4) = ((v as u64 >> 4) & 0xf, v as u64 & 0xf);
        for relu in [false, true] {
            let r = if relu { "relu." } else { "" };
            let want = E2M1.to_f16(h4, relu) << 16 | E2M1.to_f16(l4, relu);
            chk(&format!("cvt.rn.{r}f16x2.e2m1x2"), want);
        }
    }
    ck.finish("from_fp6");
}

/// `cvt.pack.sat`: every pair of boundary values, `c` varying.
fn pack(b: Backend) {
    let dev = Device::new().unwrap();
    let vals: Vec<i32> = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        7,
        8,
        -8,
        -9,
        15,
        16,
        127,
        128,
        -128,
        -129,
        255,
        256,
        32767,
        32768,
        -32768,
        -32769,
        65535,
        65536,
        i32::MAX,
        i32::MIN,
        100000,
        -100000,
    ];
    let mut a = Vec::new();
    let mut bb = Vec::new();
    let mut c = Vec::new();
    let mut s = 0x1234_5678u32;
    for &x in &vals {
        for &y in &vals {
            a.push(x as u32);
            bb.push(y as u32);
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            c.push(s);
        }
    }
    let bufs = [&a, &bb, &c].map(|v| dev.alloc_from(v).unwrap());
    let out = run(&dev, "cvt_pack.ptx", "pack", &bufs.each_ref(), a.len(), b);
    let mut ck = Check::default();
    for i in 0..a.len() {
        let (x, y, z) = (a[i] as i32 as i64, bb[i] as i32 as i64, c[i] as u64);
        let forms: [(&str, u32, bool, Option<u64>); 9] = [
            ("cvt.pack.sat.s16.s32", 16, true, None),
            ("cvt.pack.sat.u16.s32", 16, false, None),
            ("cvt.pack.sat.s8.s32.b32", 8, true, Some(z)),
            ("cvt.pack.sat.u8.s32.b32", 8, false, Some(z)),
            ("cvt.pack.sat.s4.s32.b32", 4, true, Some(z)),
            ("cvt.pack.sat.u4.s32.b32", 4, false, Some(z)),
            ("cvt.pack.sat.s2.s32.b32", 2, true, Some(z)),
            ("cvt.pack.sat.u2.s32.b32", 2, false, Some(z)),
            ("cvt.pack.sat.u8.s32.b32 0", 8, false, Some(0)),
        ];
        for (text, bits, signed, cc) in forms {
            let (lo, hi) = if signed {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            } else {
                (0, (1i64 << bits) - 1)
            };
            let m = (1i64 << bits) - 1;
            let (ta, tb) = ((x.clamp(lo, hi) & m) as u64, (y.clamp(lo, hi) & m) as u64);
            // d = {c's low bits above, ta, tb}: ta lands at bit `bits`, c at `2 bits`.
            let mut want = tb + ta * (1 << bits);
            if let Some(cv) = cc {
                want += (cv % (1u64 << (32 - 2 * bits))) << (2 * bits);
            }
            ck.eq(out.get(text, i), want, || {
                format!("{b:?} {text} a={x} b={y} c={z:#x}")
            });
        }
    }
    ck.finish("pack");
}

/// `mov` packing and unpacking (tests/ptx/mov_pack.ptx; byte arithmetic reference).
fn mov_pack(b: Backend) {
    let dev = Device::new().unwrap();
    let path = format!("{}/tests/ptx/mov_pack.ptx", env!("CARGO_MANIFEST_DIR"));
    let ptx = std::fs::read_to_string(path).unwrap();
    let m = match b {
        Backend::Jit => dev.load_ptx(&ptx, "mov_pack.ptx"),
        Backend::Interp => dev.load_ptx_with(&ptx, "mov_pack.ptx", false),
    }
    .unwrap();
    let xs: Vec<u64> = (0..64u64)
        .map(|i| 0x0123_4567_89ab_cdefu64.rotate_left(i as u32) ^ (i * 0x1111))
        .collect();
    let bx = dev.alloc_from(&xs).unwrap();
    let bo = dev.alloc_zeroed(xs.len() * 72).unwrap();
    let cfg = ptxjit::LaunchConfig::new(1, xs.len() as u32).backend(b);
    dev.launch(&m, "movpack", &cfg, &[(&bx).into(), (&bo).into()])
        .unwrap();
    let o: Vec<u64> = dev.read(&bo).unwrap();
    for (t, &x) in xs.iter().enumerate() {
        let by = x.to_le_bytes();
        let lo = x & 0xffff_ffff;
        let hw = |k: usize| (x >> (16 * k)) & 0xffff;
        let want = [
            x.rotate_right(32),
            (hw(0) << 16) | hw(1),
            u32::from_le_bytes([by[3], by[2], by[1], by[0]]) as u64,
            u16::from_le_bytes([by[1], by[0]]) as u64,
            hw(0) << 48 | hw(1) << 32 | hw(2) << 16 | hw(3),
            x.rotate_right(32),
            x >> 32,
            hw(1),
            0x1234_5678u64 << 32 | lo,
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(o[t * 9 + k], *w, "{b:?} slot {k} x={x:#x}");
        }
    }
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn jit() {
                super::$name(ptxjit::Backend::Jit)
            }
            #[test]
            fn interp() {
                super::$name(ptxjit::Backend::Interp)
            }
        }
    )*};
}
both!(to_fp8, from_fp8, to_fp6, from_fp6, pack, mov_pack);

/// Forms ptxas rejects, and the one ptxjit does not implement, are located load-time
/// errors naming the instruction.
#[test]
fn load_time_errors() {
    let head = ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n\
                .reg .b8 %c;\n.reg .b16 %h;\n.reg .b32 %r<2>;\n.reg .f32 %f<2>;\n.reg .f64 %d;\n.reg .b128 %q;\n.reg .b64 %x<2>;\n";
    let cases = [
        (
            "cvt.rs.f16x2.f32 %r0, %f0, %f1, %r1;",
            "is not supported yet",
        ),
        (
            "cvt.rn.e4m3x2.f32 %h, %f0, %f1;",
            "'.satfinite' is required",
        ),
        (
            "cvt.rz.satfinite.e4m3x2.f32 %h, %f0, %f1;",
            "illegal rounding modifier",
        ),
        (
            "cvt.rm.f16x2.f32 %r0, %f0, %f1;",
            "illegal rounding modifier",
        ),
        ("cvt.f16x2.f32 %r0, %f0, %f1;", "rounding modifier required"),
        (
            "cvt.rn.satfinite.e2m1x2.f16x2 %c, %r0;",
            "unexpected instruction types",
        ),
        (
            "cvt.rn.satfinite.ue8m0x2.f32 %h, %f0, %f1;",
            "illegal rounding modifier",
        ),
        (
            "cvt.rz.relu.ue8m0x2.f32 %h, %f0, %f1;",
            "'.relu' is not valid",
        ),
        ("cvt.rna.relu.tf32.f32 %r0, %f0;", "'.relu' is not valid"),
        (
            "cvt.rn.satfinite.f16x2.e4m3x2 %r0, %h;",
            "'.satfinite' is not valid",
        ),
        ("cvt.rn.relu.f16.f64 %h, %d;", "'.relu' is not valid"),
        ("cvt.rn.sat.bf16.f32 %h, %f0;", "'.sat' is not valid"),
        ("cvt.rn.ftz.relu.f16.f32 %h, %f0;", "'.ftz' is not valid"),
        ("cvt.rn.f16.f16 %h, %h;", "illegal rounding modifier"),
        ("cvt.rni.f16.bf16 %h, %h;", "illegal rounding modifier"),
        ("cvt.rn.f16x2.f32 %r0, %f0;", "takes 3 operands"),
        ("cvt.pack.s16.s32 %r0, %r0, %r1;", "'.sat' is required"),
        (
            "cvt.pack.sat.u16.u32 %r0, %r0, %r1;",
            "unexpected instruction types",
        ),
        (
            "cvt.pack.sat.u8.s32 %r0, %r0, %r1;",
            "unexpected instruction types",
        ),
        ("cvt.pack.sat.u8.s32.b32 %r0, %r0, %r1;", "takes 4 operands"),
    ];
    for (inst, want) in cases {
        let src = format!("{head}{inst}\nret;\n}}\n");
        let e = match ptxjit::check::parse_and_check(&src, "e.ptx") {
            Ok(_) => panic!("no error for {inst}"),
            Err(e) => e.to_string(),
        };
        assert!(e.starts_with("e.ptx:13:"), "{inst}: {e}");
        assert!(e.contains(want), "{inst}: {e}");
    }
}
