//! Hand-written PTX built from the ISA's predication and control-flow chapters
//! (tests/kernels/spec_*.ptx), with references written from the ISA's tables:
//! spec_setp.ptx (setp/selp/predicate logic), spec_predication.ptx (the chapters'
//! examples as one kernel), spec_exit.ptx (exit/ret before barriers), spec_divergence.ptx
//! (irreducible loop, dispatch chain, nested loops), spec_brx.ptx (brx.idx).
#[macro_use]
mod common;
use common::*;

// ---------------------------------------------------------------------------------------
// spec_setp.ptx: setp_float

/// The floating-point CmpOps in the kernel's bit order, per the ISA's tables 23-25:
/// ordered ops are false when either operand is NaN; unordered ops are true then.
fn fcmp(op: usize, a: f64, b: f64) -> bool {
    let nan = a.is_nan() || b.is_nan();
    match op {
        0 => !nan && a == b, // eq
        1 => !nan && a != b, // ne
        2 => !nan && a < b,  // lt
        3 => !nan && a <= b, // le
        4 => !nan && a > b,  // gt
        5 => !nan && a >= b, // ge
        6 => nan || a == b,  // equ
        7 => nan || a != b,  // neu
        8 => nan || a < b,   // ltu
        9 => nan || a <= b,  // leu
        10 => nan || a > b,  // gtu
        11 => nan || a >= b, // geu
        12 => !nan,          // num
        13 => nan,           // nan
        _ => unreachable!(),
    }
}

/// Bits k (p) and 16 + k (q = !p) of each of the 14 comparisons.
fn fmask(a: f64, b: f64) -> u32 {
    (0..14)
        .map(|k| if fcmp(k, a, b) { 1 << k } else { 1 << (16 + k) })
        .sum()
}

fn float_pairs() -> (Vec<f32>, Vec<f32>) {
    let vals = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        1.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0xffff_ffff), // NaN with the sign set
        f32::from_bits(1),           // smallest subnormal
        f32::from_bits(0x8000_0001),
        f32::MAX,
        f32::MIN_POSITIVE,
        3.0e-39,
    ];
    let mut a = vec![];
    let mut b = vec![];
    for &x in &vals {
        for &y in &vals {
            a.push(x);
            b.push(y);
        }
    }
    let mut rng = Rng::new(600);
    for _ in 0..100 {
        let x = rng.f32();
        a.push(x);
        b.push(if rng.u32().is_multiple_of(3) {
            x
        } else {
            rng.f32()
        });
    }
    (a, b)
}

fn setp_float(backend: Backend) {
    let dev = device();
    let file = "spec_setp.ptx";
    let m = module(&dev, file, backend);
    let (a, b) = float_pairs();
    let n = a.len();
    let (ab, bb) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&b).unwrap());
    let out = dev.alloc_zeroed(n * 8).unwrap();
    let what = format!("{file} setp_float {backend:?}");
    launch(
        &dev,
        &m,
        "setp_float",
        &cfg([blocks(n, 64), 1, 1], [64, 1, 1], backend),
        &[arg(&ab), arg(&bb), arg(&out), KernelArg::from(n as u32)],
        &what,
    );
    // out[2i]: as f32; out[2i+1]: as f64 after cvt.f64.f32 (exact, NaN stays NaN).
    let want: Vec<u32> = (0..n)
        .flat_map(|i| [fmask(a[i] as f64, b[i] as f64); 2])
        .collect();
    let got = dev.read::<u32>(&out).unwrap();
    for i in 0..n {
        assert_eq!(
            got[2 * i..2 * i + 2],
            want[2 * i..2 * i + 2],
            "{what}: a={:?} ({:#x}) b={:?} ({:#x}): got [{:#010x}, {:#010x}], want {:#010x}",
            a[i],
            a[i].to_bits(),
            b[i],
            b[i].to_bits(),
            got[2 * i],
            got[2 * i + 1],
            want[2 * i]
        );
    }
}

// ---------------------------------------------------------------------------------------
// spec_setp.ptx: setp_int

fn bit(b: bool, k: u32) -> u32 {
    (b as u32) << k
}

/// p (bit 2k) and q (bit 2k + 1) of `setp.CmpOp.BoolOp p|q, a, b, c`: p = t OP c,
/// q = !t OP c.
fn pq(t: bool, c: bool, op: fn(bool, bool) -> bool, k: u32) -> u32 {
    bit(op(t, c), 2 * k) | bit(op(!t, c), 2 * k + 1)
}

fn setp_int_reference(x: u32, y: u32) -> [u32; 4] {
    let (sx, sy) = (x as i32, y as i32);
    let c = (x.wrapping_add(y) & 4) != 0;
    let (xl, yl) = (x as u16, y as u16);
    let (big_x, big_y) = (((x as u64) << 32) | y as u64, ((y as u64) << 32) | x as u64);
    let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
    let w0 = bit(sx == sy, 0)
        | bit(sx != sy, 1)
        | bit(sx < sy, 2)
        | bit(sx <= sy, 3)
        | bit(sx > sy, 4)
        | bit(sx >= sy, 5)
        | bit(x == y, 6)
        | bit(x != y, 7)
        | bit(x < y, 8)
        | bit(x <= y, 9)
        | bit(x > y, 10)
        | bit(x >= y, 11)
        | bit(x == y, 12)
        | bit(x != y, 13)
        | bit((xl as i16) < (yl as i16), 14)
        | bit(xl < yl, 15)
        | bit(xl == yl, 16)
        | bit((xl as i16) >= (yl as i16), 17)
        | bit(xl >= yl, 18)
        | bit((xl as i16) <= (yl as i16), 19)
        | bit((big_x as i64) < (big_y as i64), 20)
        | bit((big_x as i64) > (big_y as i64), 21)
        | bit(big_x < big_y, 22)
        | bit(big_x > big_y, 23)
        | bit(big_x == big_y, 24)
        | bit(big_x != big_y, 25);
    let and = |t: bool, c: bool| t && c;
    let or = |t: bool, c: bool| t || c;
    let xor = |t: bool, c: bool| t ^ c;
    let fnan = fx.is_nan() || fy.is_nan();
    let w1 = pq(sx < sy, c, and, 0)
        | pq(sx < sy, !c, and, 1)
        | pq(x > y, c, or, 2)
        | pq(x > y, !c, or, 3)
        | pq((x & 3) == (y & 3), c, xor, 4)
        | pq((x & 3) != (y & 3), !c, xor, 5)
        | pq((xl as i16) >= (yl as i16), c, and, 6)
        | pq(big_x <= big_y, !c, or, 7)
        | pq((big_x as i64) > (big_y as i64), c, xor, 8)
        | pq(!fnan && fx < fy, c, and, 9)          // lt: ordered
        | pq(fnan || fx < fy, !c, or, 10)          // ltu: unordered
        | pq(fnan, c, and, 11)                     // nan
        | bit(sx > sy && c, 25); // `_|q` of setp.le.and.s32: only q = !(x <= y) & c, at bit 2*12+1
    let p1 = sx < sy;
    let w2 = bit(p1 && c, 0)
        | bit(p1 || c, 1)
        | bit(p1 ^ c, 2)
        | bit(!p1, 3)
        | bit(c, 4)
        | bit(if p1 { x & 1 == 0 } else { c }, 5); // `@p1 setp` over p3 = c
    let w3 = (if p1 { x.wrapping_sub(y) } else { y ^ x }).wrapping_add(if c { 0 } else { 1 });
    [w0, w1, w2, w3]
}

fn setp_int(backend: Backend) {
    let dev = device();
    let file = "spec_setp.ptx";
    let m = module(&dev, file, backend);
    let edge = [
        0u32,
        1,
        2,
        3,
        4,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x0000_8000,
        0x0000_7fff,
        0x0001_0000,
        0x7f80_0000, // +inf as f32
        0x7fc0_0000, // NaN as f32
        0xff80_0000, // -inf
        0x3f80_0000, // 1.0
    ];
    let (mut a, mut b) = (vec![], vec![]);
    for &x in &edge {
        for &y in &edge {
            a.push(x);
            b.push(y);
        }
    }
    let mut rng = Rng::new(601);
    for _ in 0..300 {
        let x = rng.u32();
        a.push(x);
        b.push(match rng.u32() % 4 {
            0 => x,
            1 => x ^ 0x8000_0000,
            2 => x & 0xffff_0000 | (rng.u32() & 0xffff),
            _ => rng.u32(),
        });
    }
    let n = a.len();
    let (ab, bb) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&b).unwrap());
    let out = dev.alloc_zeroed(n * 16).unwrap();
    let what = format!("{file} setp_int {backend:?}");
    launch(
        &dev,
        &m,
        "setp_int",
        &cfg([blocks(n, 96), 1, 1], [96, 1, 1], backend),
        &[arg(&ab), arg(&bb), arg(&out), KernelArg::from(n as u32)],
        &what,
    );
    let got = dev.read::<u32>(&out).unwrap();
    for i in 0..n {
        let want = setp_int_reference(a[i], b[i]);
        for w in 0..4 {
            assert_eq!(
                got[4 * i + w],
                want[w],
                "{what}: x={:#x} y={:#x} word {w}: got {:#010x}, want {:#010x} (differing bits {:#010x})",
                a[i],
                b[i],
                got[4 * i + w],
                want[w],
                got[4 * i + w] ^ want[w]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// spec_predication.ptx: pred_examples

const UNTOUCHED: u32 = 0xAAAA_AAAA;

fn pred_examples(backend: Backend) {
    let dev = device();
    let file = "spec_predication.ptx";
    let m = module(&dev, file, backend);
    let (grid, block, n) = (3u32, 64u32, 100i32);
    let total = (grid * block) as usize;
    let mut rng = Rng::new(602);
    let input: Vec<i32> = (0..total)
        .map(|i| {
            if i < 8 {
                [0, -1, 1, i32::MAX, i32::MIN, 2, 3, -4][i]
            } else {
                rng.u32() as i32
            }
        })
        .collect();
    let in_buf = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![UNTOUCHED; 8 * total]).unwrap();
    let what = format!("{file} pred_examples {backend:?}");
    launch(
        &dev,
        &m,
        "pred_examples",
        &cfg([grid, 1, 1], [block, 1, 1], backend),
        &[arg(&in_buf), arg(&out), KernelArg::from(n as u32)],
        &what,
    );
    let got = dev.read::<u32>(&out).unwrap();
    for i in 0..total {
        let j = input[i];
        let ii = i as i32;
        let inc = j.wrapping_add((ii < n) as i32) as u32;
        let y = (j & 3) as f32;
        let ratio = if y == 0.0 { -1.0f32 } else { ii as f32 / y };
        let want = [
            inc,                                               // @p add
            inc,                                               // @!p bra over the add
            ratio.to_bits(),                                   // @!p div.rn.f32
            if ii as f32 >= 8.0 { 1 } else { 23 },             // @q bra L23
            if i % 2 == 0 { j as u32 } else { 0x77 },          // @p ld, null address when !p
            j.wrapping_add(105) as u32,                        // { } scopes
            (j < 0) as u32,                                    // selp.u32 1, 0, p
            if i & 3 == 1 { 7 * i as u32 } else { UNTOUCHED }, // @p ret, @p st
        ];
        for k in 0..8 {
            assert_eq!(
                got[8 * i + k],
                want[k],
                "{what}: thread {i} (j = {j}) word {k}: got {:#x}, want {:#x}",
                got[8 * i + k],
                want[k]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// spec_exit.ptx: exit_barrier, ret_barrier

/// Survivors t < live write s[t+1 < live ? t+1 : 0] + 1000 t with s[u] = u*u + block.
fn barrier_reference(grid: u32, block: u32, live: u32) -> Vec<u32> {
    let mut want = vec![UNTOUCHED; (grid * block) as usize];
    for b in 0..grid {
        for t in 0..live.min(block) {
            let u = if t + 1 < live { t + 1 } else { 0 };
            let s = u.wrapping_mul(u).wrapping_add(b);
            want[(b * block + t) as usize] = s.wrapping_add(1000 * t);
        }
    }
    want
}

fn exit_barrier(backend: Backend) {
    let dev = device();
    let file = "spec_exit.ptx";
    let m = module(&dev, file, backend);
    for &(block, k) in &[
        (96u32, 40u32),
        (96, 0),
        (96, 1),
        (96, 31),
        (96, 32),
        (96, 33),
        (96, 95),
        (96, 96),
        (128, 64),
        (50, 49),
    ] {
        let grid = 2;
        let out = dev
            .alloc_from(&vec![UNTOUCHED; (grid * block) as usize])
            .unwrap();
        let what = format!("{file} exit_barrier block={block} k={k} {backend:?}");
        launch(
            &dev,
            &m,
            "exit_barrier",
            &cfg([grid, 1, 1], [block, 1, 1], backend),
            &[arg(&out), KernelArg::from(k)],
            &what,
        );
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &barrier_reference(grid, block, k),
            &what,
        );
    }
}

fn ret_barrier(backend: Backend) {
    let dev = device();
    let file = "spec_exit.ptx";
    let m = module(&dev, file, backend);
    for &(block, k) in &[
        (96u32, 40u32),
        (96, 0),
        (96, 1),
        (96, 2),
        (96, 33),
        (96, 34),
        (96, 96),
        (128, 128),
        (50, 49),
    ] {
        let grid = 3;
        let out = dev
            .alloc_from(&vec![UNTOUCHED; (grid * block) as usize])
            .unwrap();
        let what = format!("{file} ret_barrier block={block} k={k} {backend:?}");
        launch(
            &dev,
            &m,
            "ret_barrier",
            &cfg([grid, 1, 1], [block, 1, 1], backend),
            &[arg(&out), KernelArg::from(k)],
            &what,
        );
        // Threads t >= k - 1 leave before the barrier.
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &barrier_reference(grid, block, k.saturating_sub(1)),
            &what,
        );
    }
}

// ---------------------------------------------------------------------------------------
// spec_divergence.ptx: irreducible, dispatch, nested

fn divergence_inputs(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            if i < 100 {
                i as u32
            } else if i % 2 == 0 {
                rng.range(0, 5000)
            } else {
                rng.u32()
            }
        })
        .collect()
}

fn run_u32_kernel(
    backend: Backend,
    kernel: &str,
    per_thread: usize,
    reference: impl Fn(usize, u32) -> Vec<u32>,
) {
    run_u32_kernel_in(
        backend,
        "spec_divergence.ptx",
        kernel,
        per_thread,
        |i, v, _| reference(i, v),
    )
}

/// Runs `kernel(in, out, n)` of `file` over a few sizes; `reference(i, in[i], n)` gives
/// thread i's `per_thread` output words.
fn run_u32_kernel_in(
    backend: Backend,
    file: &str,
    kernel: &str,
    per_thread: usize,
    reference: impl Fn(usize, u32, u32) -> Vec<u32>,
) {
    let dev = device();
    let m = module(&dev, file, backend);
    for &(n, block) in &[(1usize, 32u32), (45, 32), (1000, 128), (777, 96)] {
        let input = divergence_inputs(n, n as u64);
        let in_buf = dev.alloc_from(&input).unwrap();
        let out = dev.alloc_zeroed(n * per_thread * 4).unwrap();
        let what = format!("{file} {kernel} n={n} block={block} {backend:?}");
        launch(
            &dev,
            &m,
            kernel,
            &cfg([blocks(n, block), 1, 1], [block, 1, 1], backend),
            &[arg(&in_buf), arg(&out), KernelArg::from(n as u32)],
            &what,
        );
        let want: Vec<u32> = (0..n)
            .flat_map(|i| reference(i, input[i], n as u32))
            .collect();
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
    }
}

fn irreducible(backend: Backend) {
    run_u32_kernel(backend, "irreducible", 2, |_, v| {
        let (mut v, mut c) = (v, 0u32);
        let mut odd = v & 1 == 1; // which loop entry
        loop {
            v = if odd {
                v.wrapping_mul(3).wrapping_add(1)
            } else {
                v >> 1
            };
            c += 1;
            if v == 1 || c >= 100 {
                break;
            }
            odd = v & 1 != 0;
        }
        vec![v, c]
    });
}

fn dispatch(backend: Backend) {
    run_u32_kernel(backend, "dispatch", 1, |_, v| {
        let (mut r, mut acc, mut steps) = (v & 7, v >> 3, 0u32);
        loop {
            steps += 1;
            match r {
                0 => acc = acc.wrapping_add(11),
                1 => acc = acc.wrapping_mul(5),
                2 | 3 => acc = (acc ^ 0xff).wrapping_sub(r), // C falls through into E
                7 => {
                    r -= 3; // R: back to the dispatch
                    continue;
                }
                _ => acc = acc.wrapping_sub(r), // E
            }
            break;
        }
        vec![acc.wrapping_shl(4).wrapping_add(steps)]
    });
}

fn nested(backend: Backend) {
    run_u32_kernel(backend, "nested", 1, |i, v| {
        let mut s = 0u32;
        'done: for a in 0..(i as u32 & 7) {
            for b in 0..(v & 3) + a {
                s = s.wrapping_mul(3).wrapping_add(a).wrapping_add(b);
                if s & 0x400 != 0 {
                    break 'done;
                }
            }
        }
        vec![s]
    });
}

// ---------------------------------------------------------------------------------------
// spec_brx.ptx: brx_switch

fn brx_switch(backend: Backend) {
    run_u32_kernel_in(backend, "spec_brx.ptx", "brx_switch", 2, |_, v, n| {
        let mut acc = v;
        // brx.idx.uni on m = n & 1: U0 adds 0x100, U1 adds 0x200.
        acc = acc.wrapping_add(if n & 1 == 0 { 0x100 } else { 0x200 });
        let mut steps = 0u32;
        loop {
            steps += 1;
            acc = match acc & 3 {
                0 => acc.wrapping_add(1),                 // L0
                1 => acc.wrapping_mul(2).wrapping_add(1), // L1
                2 => (acc ^ 0xff).wrapping_sub(3),        // L2 falls into L3
                _ => acc.wrapping_sub(3),                 // L3
            };
            if acc & 0x10 != 0 || steps == 5 {
                break;
            }
        }
        if v & 4 != 0 {
            // `@p brx.idx q, {Q0..Q3}`: Qk falls through to Q0, adding 1000 per label.
            acc = acc.wrapping_add(1000 * ((v >> 30) + 1));
        }
        vec![acc, steps]
    });
}

both_backends!(
    setp_float,
    setp_int,
    pred_examples,
    exit_barrier,
    ret_barrier,
    irreducible,
    dispatch,
    nested
);

mod brx_switch {
    #[test]
    fn jit() {
        super::brx_switch(ptxjit::Backend::Jit)
    }
    #[test]
    fn interp() {
        super::brx_switch(ptxjit::Backend::Interp)
    }
}
