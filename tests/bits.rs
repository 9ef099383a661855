//! Bit-manipulation, packed-integer and integer division instructions on both backends
//! (`tests/ptx/bits.ptx`, ptxas-validated), against references written with Rust's own
//! integer operations (not `ptxjit::ops`).

use ptxjit::{Backend, Device, LaunchConfig};

const N: usize = 96;

fn inputs() -> (Vec<u32>, Vec<u32>) {
    let mut s = 0x9e37_79b9u32;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    };
    let mut x: Vec<u32> = (0..N).map(|_| next()).collect();
    let mut y: Vec<u32> = (0..N).map(|_| next()).collect();
    // Edge cases: zero, all ones, sign boundaries, division by zero and MIN / -1.
    let edges = [
        (0, 5),
        (0xffff_ffff, 0),
        (0x8000_0000, 0xffff_ffff),
        (0x7fff_ffff, 1),
        (7, 0xffff_fffe),
        (0x0080_0000, 0x00ff_ffff),
        (1, 0),
        (0x8000_0000, 0x8000_0000),
    ];
    for (i, (a, b)) in edges.iter().enumerate() {
        x[i] = *a;
        y[i] = *b;
    }
    (x, y)
}

fn sext24(v: u32) -> i64 {
    ((v << 8) as i32 >> 8) as i64
}

fn reference(t: u32, a: u32, b: u32) -> [u32; 20] {
    let c = 0xF0F0_F0F0u32;
    let prmt = {
        // Selector 0x5140: d.b0 = a.b0, d.b1 = b.b0, d.b2 = a.b1, d.b3 = b.b1.
        let (ab, bb) = (a.to_le_bytes(), b.to_le_bytes());
        u32::from_le_bytes([ab[0], bb[0], ab[1], bb[1]])
    };
    let dp4a: i32 = a
        .to_le_bytes()
        .iter()
        .zip(b.to_le_bytes())
        .map(|(&x, y)| x as i8 as i32 * y as i8 as i32)
        .sum();
    let (sa, sb) = (a as i32, b as i32);
    [
        a.count_ones(),
        a.leading_zeros(),
        a.reverse_bits(),
        if a == 0 {
            u32::MAX
        } else {
            31 - a.leading_zeros()
        },
        (a >> 8) & 0xfff,
        ((a >> 4) as u8 as i8) as i32 as u32,
        (b & !0x00ff_0000) | ((a & 0xff) << 16),
        prmt,
        a ^ b ^ c,
        a.rotate_left(b & 31),
        (sext24(a) * sext24(b)) as u32,
        a.abs_diff(b).wrapping_add(7),
        dp4a as u32,
        // div/rem by zero is unspecified in PTX; an H100 gives all ones for both
        // (tests/golden).
        a.checked_div(b).unwrap_or(u32::MAX),
        if b == 0 {
            u32::MAX
        } else {
            sa.wrapping_rem(sb) as u32
        },
        sa.saturating_add(sb) as u32,
        (a == 0) as u32,
        a as u8 as i8 as i32 as u32,
        // bmsk.clamp 4, t: bits 4 .. 4+t (t >= 32 clamps the width overflow to "all").
        if t >= 32 {
            0xffff_fff0
        } else if t == 0 {
            0
        } else if 4 + t >= 32 {
            0xffff_fff0
        } else {
            ((1u32 << t) - 1) << 4
        },
        if b == 0 {
            u32::MAX
        } else {
            sa.wrapping_div(sb) as u32
        },
    ]
}

#[test]
fn bit_manipulation_matches_rust_on_both_backends() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/bits.ptx"), "bits.ptx")
        .unwrap();
    let (x, y) = inputs();
    for backend in [Backend::Jit, Backend::Interp] {
        let bx = dev.alloc_from(&x).unwrap();
        let by = dev.alloc_from(&y).unwrap();
        let out = dev.alloc_zeroed(N * 80).unwrap();
        dev.launch(
            &m,
            "bits",
            &LaunchConfig::new(1, N as u32).backend(backend),
            &[(&bx).into(), (&by).into(), (&out).into()],
        )
        .unwrap();
        let got: Vec<u32> = dev.read(&out).unwrap();
        for t in 0..N {
            let want = reference(t as u32, x[t], y[t]);
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    got[t * 20 + k],
                    *w,
                    "{backend:?} thread {t} result {k} (a={:#x}, b={:#x})",
                    x[t],
                    y[t]
                );
            }
        }
    }
}
