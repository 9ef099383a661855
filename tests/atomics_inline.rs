//! Inline atomics (`src/jit/lower/atomic_inline.rs`) on both backends against a Rust
//! model of one warp performing each `atom`/`red` lane by lane in ascending lane order
//! (tests/ptx/atomics_inline.ptx): every returned old value of every lane and the final
//! memory, for contended addresses (4 words shared by the 32 lanes) and for one uniform
//! address (where the JIT combines integer operations into one atomic), on global and
//! shared memory, 32- and 64-bit, partial masks, `red`, wrap-around, a CAS loop, and
//! out-of-range addresses that must fault with the interpreter's message.
#[macro_use]
mod common;
use common::*;
use ptxjit::jit::JitTier;

const PTX: &str = "tests/ptx/atomics_inline.ptx";

/// The 32-bit operations of the kernels, in order (as tests/ptx/atomics_inline_gen.py).
const OPS32: [&str; 14] = [
    "add.u32", "add.u32", "min.s32", "max.s32", "min.u32", "max.u32", "and.b32", "or.b32",
    "xor.b32", "exch.b32", "inc.u32", "dec.u32", "cas.b32", "add.f32",
];
/// The 64-bit operations; the last one is a `red`.
const OPS64: [&str; 11] = [
    "add.u64", "min.s64", "max.s64", "min.u64", "max.u64", "and.b64", "or.b64", "xor.b64",
    "exch.b64", "cas.b64", "add.u64",
];

fn flush(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The new value of a location holding `old` after `op` with operands `b`, `c` (the
/// ISA's definitions: inc wraps to 0 at `b`, dec to `b` at 0 or above `b`, cas stores
/// `c` when `old == b`; `.f32` add flushes subnormals on global memory only and gives the
/// canonical NaN).
fn apply(op: &str, old: u64, b: u64, c: u64, global: bool) -> u64 {
    let (o32, b32) = (old as u32, b as u32);
    match op {
        "add.u32" => o32.wrapping_add(b32) as u64,
        "min.s32" => (o32 as i32).min(b32 as i32) as u32 as u64,
        "max.s32" => (o32 as i32).max(b32 as i32) as u32 as u64,
        "min.u32" => o32.min(b32) as u64,
        "max.u32" => o32.max(b32) as u64,
        "and.b32" | "and.b64" => old & b,
        "or.b32" | "or.b64" => old | b,
        "xor.b32" | "xor.b64" => old ^ b,
        "exch.b32" | "exch.b64" => b,
        "inc.u32" => {
            if o32 >= b32 {
                0
            } else {
                o32 as u64 + 1
            }
        }
        "dec.u32" => {
            if o32 == 0 || o32 > b32 {
                b32 as u64
            } else {
                o32 as u64 - 1
            }
        }
        "cas.b32" | "cas.b64" => {
            if old == b {
                c
            } else {
                old
            }
        }
        "add.f32" => {
            let (x, y) = if global {
                (flush(o32), flush(b32))
            } else {
                (o32, b32)
            };
            let s = f32::from_bits(x) + f32::from_bits(y);
            let r = if s.is_nan() { 0x7fff_ffff } else { s.to_bits() };
            (if global { flush(r) } else { r }) as u64
        }
        "add.u64" => old.wrapping_add(b),
        "min.s64" => (old as i64).min(b as i64) as u64,
        "max.s64" => (old as i64).max(b as i64) as u64,
        "min.u64" => old.min(b),
        "max.u64" => old.max(b),
        _ => panic!("no reference for {op}"),
    }
}

struct Inputs {
    in32: Vec<u32>,
    in64: Vec<u64>,
    inf: Vec<u32>,
    g: Vec<u8>,
}

fn inputs() -> Inputs {
    let mut rng = Rng::new(77);
    let mut in32 = rng.vec_u32(32);
    in32[3] = 0x8000_0000;
    in32[7] = 0x7fff_ffff;
    in32[9] = u32::MAX;
    in32[11] = 0;
    let mut in64: Vec<u64> = (0..32).map(|_| rng.u64()).collect();
    in64[2] = 0x8000_0000_0000_0000;
    in64[6] = u64::MAX;
    in64[8] = 1; // matches a cas.b64 slot's initial value (operand & 3)
                 // f32 operands: subnormals, and magnitudes whose sum depends on the order.
    let inf: Vec<u32> = (0..32u32)
        .map(|i| match i % 4 {
            0 => 0x0000_0100 + i,
            1 => (1.0e8f32 * if i % 8 == 1 { 1.0 } else { -1.0 }).to_bits(),
            2 => (0.375f32 + i as f32 * 1.25).to_bits(),
            _ => (3.0e-3f32 * i as f32).to_bits(),
        })
        .collect();
    let mut g = vec![0u8; 1024];
    let put32 = |g: &mut Vec<u8>, at: usize, v: u32| {
        g[at..at + 4].copy_from_slice(&v.to_le_bytes());
    };
    for (k, op) in OPS32.iter().enumerate() {
        for s in 0..4u32 {
            let v = match *op {
                "add.u32" => 0xffff_fff0 + s,
                "and.b32" => u32::MAX,
                "inc.u32" => s * 3,
                "dec.u32" | "cas.b32" => s,
                "add.f32" if s % 2 == 0 => 0x0040_0000,
                "add.f32" => 1.0f32.to_bits(),
                _ => rng.u32(),
            };
            put32(&mut g, 16 * k + 4 * s as usize, v);
        }
    }
    for s in 0..4u32 {
        put32(&mut g, 480 + 4 * s as usize, 0xffff_ff00 + s);
    }
    for (k, op) in OPS64.iter().enumerate() {
        for s in 0..4u64 {
            let v = match *op {
                "add.u64" => u64::MAX - 100 + s,
                "and.b64" => u64::MAX,
                "cas.b64" => s,
                _ => rng.u64(),
            };
            let at = 512 + 32 * k + 8 * s as usize;
            g[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    Inputs { in32, in64, inf, g }
}

/// The model: (final g, out) after one warp runs kernel `lanes_*` (`uniform` false) or
/// `uniform_*`.
fn model(inp: &Inputs, uniform: bool, global: bool) -> (Vec<u8>, Vec<u8>) {
    let mut g = inp.g.clone();
    let mut out = vec![0u8; OPS32.len() * 128 + OPS64.len() * 256];
    let slot = |tid: usize| if uniform { 0 } else { tid & 3 };
    let active = |tid: usize| !tid.is_multiple_of(5);
    let rd = |g: &[u8], at: usize, n: usize| {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&g[at..at + n]);
        u64::from_le_bytes(b)
    };
    for (k, op) in OPS32.iter().enumerate() {
        for tid in 0..32 {
            if k != 1 && !active(tid) {
                continue;
            }
            let v = inp.in32[tid] as u64;
            let (b, c) = match *op {
                "inc.u32" | "dec.u32" => (v & 15, 0),
                "cas.b32" => (v & 3, v),
                "add.f32" => (inp.inf[tid] as u64, 0),
                _ => (v, 0),
            };
            let at = 16 * k + 4 * slot(tid);
            let old = rd(&g, at, 4);
            let new = apply(op, old, b, c, global) as u32;
            g[at..at + 4].copy_from_slice(&new.to_le_bytes());
            let o = 128 * k + 4 * tid;
            out[o..o + 4].copy_from_slice(&(old as u32).to_le_bytes());
        }
    }
    for (k, op) in OPS64.iter().enumerate() {
        for tid in (0..32).filter(|&t| active(t)) {
            let w = inp.in64[tid];
            let (b, c) = if *op == "cas.b64" { (w & 3, w) } else { (w, 0) };
            let at = 512 + 32 * k + 8 * slot(tid);
            let old = rd(&g, at, 8);
            let new = apply(op, old, b, c, global);
            g[at..at + 8].copy_from_slice(&new.to_le_bytes());
            if k + 1 < OPS64.len() {
                let o = OPS32.len() * 128 + 256 * k + 8 * tid;
                out[o..o + 8].copy_from_slice(&old.to_le_bytes());
            }
        }
    }
    for tid in (0..32).filter(|&t| active(t)) {
        let at = 480 + 4 * slot(tid);
        let new = (rd(&g, at, 4) as u32).wrapping_add(inp.in32[tid]);
        g[at..at + 4].copy_from_slice(&new.to_le_bytes());
    }
    (g, out)
}

/// On both JIT tiers (the quick tier takes the `ptxjit_atom` call, the optimized tier
/// the inline forms).
fn run_kernel(backend: Backend, kernel: &str, uniform: bool, global: bool) {
    for &tier in tiers(backend) {
        run_kernel_tier(backend, tier, kernel, uniform, global);
    }
}

fn run_kernel_tier(backend: Backend, tier: JitTier, kernel: &str, uniform: bool, global: bool) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let inp = inputs();
    let in32 = dev.alloc_from(&inp.in32).unwrap();
    let in64 = dev.alloc_from(&inp.in64).unwrap();
    let inf = dev.alloc_from(&inp.inf).unwrap();
    let g = dev.alloc_from(&inp.g).unwrap();
    let (want_g, want_out) = model(&inp, uniform, global);
    let out = zeroed(&dev, want_out.len());
    let what = format!("{kernel} {backend:?} {tier:?}");
    let args = [arg(&in32), arg(&in64), arg(&inf), arg(&g), arg(&out)];
    // Twice: the second launch finds the region cache filled.
    for rep in 0..2 {
        if rep == 1 {
            dev.write(&g, &inp.g).unwrap();
            dev.write(&out, &vec![0u8; want_out.len()]).unwrap();
        }
        launch(
            &dev,
            &m,
            kernel,
            &cfg([1, 1, 1], [32, 1, 1], backend),
            &args,
            &what,
        );
        let got_out = dev.read::<u8>(&out).unwrap();
        let got_g = dev.read::<u8>(&g).unwrap();
        for (k, op) in OPS32.iter().enumerate() {
            assert_slice_eq(
                &got_out[128 * k..128 * (k + 1)],
                &want_out[128 * k..128 * (k + 1)],
                &format!("{what} rep {rep}: old values of 32-bit op {k} ({op})"),
            );
        }
        let base = OPS32.len() * 128;
        for (k, op) in OPS64.iter().enumerate() {
            let r = base + 256 * k..base + 256 * (k + 1);
            assert_slice_eq(
                &got_out[r.clone()],
                &want_out[r],
                &format!("{what} rep {rep}: old values of 64-bit op {k} ({op})"),
            );
        }
        assert_slice_eq(&got_g, &want_g, &format!("{what} rep {rep}: final memory"));
    }
}

fn lanes_global(backend: Backend) {
    run_kernel(backend, "lanes_global", false, true);
}

fn lanes_shared(backend: Backend) {
    run_kernel(backend, "lanes_shared", false, false);
}

fn uniform_global(backend: Backend) {
    run_kernel(backend, "uniform_global", true, true);
}

fn uniform_shared(backend: Backend) {
    run_kernel(backend, "uniform_shared", true, false);
}

both_backends!(lanes_global, lanes_shared, uniform_global, uniform_shared);

/// A CAS loop in one warp: in each round the lowest waiting lane succeeds (ascending
/// lane order), so lane i takes ticket `start + i`.
fn cas_loop(backend: Backend) {
    for &tier in tiers(backend) {
        cas_loop_tier(backend, tier);
    }
}

fn cas_loop_tier(backend: Backend, tier: JitTier) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let start = 0xffff_fff0u32; // wraps past 0 on the way
    let g = dev.alloc_from(&[start]).unwrap();
    let out = zeroed(&dev, 32 * 4);
    let what = format!("cas_lock {backend:?} {tier:?}");
    launch(
        &dev,
        &m,
        "cas_lock",
        &cfg([1, 1, 1], [32, 1, 1], backend),
        &[arg(&g), arg(&out)],
        &what,
    );
    let want: Vec<u32> = (0..32).map(|i| start.wrapping_add(i)).collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
    assert_eq!(
        dev.read::<u32>(&g).unwrap(),
        [start.wrapping_add(32)],
        "{what}"
    );
}

both_backends!(cas_loop);

/// The error of a launch of `kernel` on `backend` whose lanes 0..4 are fine and lane 5
/// (and later lanes) use an out-of-range address, or (`dense`) whose lanes but 31 are
/// fine, all at one word (the JIT's combined form of a line's lanes where no lane
/// faults), and lane 31 is out of range; nothing is written by any lane.
fn fault_error(backend: Backend, tier: JitTier, kernel: &str, dense: bool) -> (String, Vec<u32>) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let sel: Vec<u32> = (0..32)
        .map(|i| match dense {
            true => 3 * (i == 31) as u32,
            false if i < 5 => 0,
            false => 1 + i % 3,
        })
        .collect();
    let in32 = dev.alloc_from(&sel).unwrap();
    let g = dev.alloc_from(&[0u32; 4]).unwrap();
    let args: Vec<KernelArg> = if kernel == "fault_global" {
        vec![arg(&in32), arg(&g)]
    } else {
        vec![arg(&in32)]
    };
    let e = dev
        .launch(&m, kernel, &cfg([1, 1, 1], [32, 1, 1], backend), &args)
        .expect_err("an out-of-range atom must fault")
        .to_string();
    // The fault address (lane 5 or 31: g + 3 * 2^32 on global memory) as a placeholder, so
    // that two devices' messages compare.
    let e = e.replace(&format!("{:x}", g.ptr() + (3u64 << 32)), "ADDR");
    (e, dev.read::<u32>(&g).unwrap())
}

fn faults(backend: Backend) {
    let cases = [
        ("fault_global", false),
        ("fault_shared", false),
        ("fault_global", true),
    ];
    for (kernel, dense) in cases {
        for &tier in tiers(backend) {
            let (e, g) = fault_error(backend, tier, kernel, dense);
            let lane = if dense { "31" } else { "5" };
            assert!(e.contains("atom.") && e.contains(lane), "{kernel}: {e}");
            // All lanes are checked before any lane's atomic: nothing was added.
            assert_eq!(g, [0; 4], "{kernel} {backend:?} {tier:?}: {e}");
            // The JIT's message (either tier's) is the interpreter's.
            if backend == Backend::Jit {
                let (ie, _) = fault_error(Backend::Interp, JitTier::Quick, kernel, dense);
                assert_eq!(
                    e, ie,
                    "{kernel} {tier:?}: JIT and interpreter messages differ"
                );
            }
        }
    }
}

both_backends!(faults);

/// Atomics at shared-variable addresses (one address for the warp, combined by the JIT):
/// `add.u32 [cnt], 1` from 0xfffffff0 (wraps), `max.s32 [cnt+4], v` from 0x80000005 (both
/// guarded by tid % 3 != 0), `add.u64 [cnt+8], w` from 2^64 - 16 by every lane.
fn counters(backend: Backend) {
    for &tier in tiers(backend) {
        counters_tier(backend, tier);
    }
}

fn counters_tier(backend: Backend, tier: JitTier) {
    let dev = device_tier(tier);
    let m = module_at(&dev, PTX, backend);
    let inp = inputs();
    let in32 = dev.alloc_from(&inp.in32).unwrap();
    let in64 = dev.alloc_from(&inp.in64).unwrap();
    let out = zeroed(&dev, 528);
    let what = format!("counters {backend:?} {tier:?}");
    launch(
        &dev,
        &m,
        "counters",
        &cfg([1, 1, 1], [32, 1, 1], backend),
        &[arg(&in32), arg(&in64), arg(&out)],
        &what,
    );
    let mut want = vec![0u8; 528];
    let (mut c, mut mx, mut c64) = (0xffff_fff0u32, 0x8000_0005u32, u64::MAX - 15);
    for tid in 0..32usize {
        if !tid.is_multiple_of(3) {
            want[4 * tid..4 * tid + 4].copy_from_slice(&c.to_le_bytes());
            c = c.wrapping_add(1);
            let o = 128 + 4 * tid;
            want[o..o + 4].copy_from_slice(&mx.to_le_bytes());
            mx = (mx as i32).max(inp.in32[tid] as i32) as u32;
        }
        let o = 256 + 8 * tid;
        want[o..o + 8].copy_from_slice(&c64.to_le_bytes());
        c64 = c64.wrapping_add(inp.in64[tid]);
    }
    want[512..516].copy_from_slice(&c.to_le_bytes());
    want[516..520].copy_from_slice(&mx.to_le_bytes());
    want[520..528].copy_from_slice(&c64.to_le_bytes());
    assert_slice_eq(&dev.read::<u8>(&out).unwrap(), &want, &what);
}

both_backends!(counters);
