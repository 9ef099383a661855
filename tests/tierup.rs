//! Tiered JIT compilation (`JitTier`): a module starts with quick code and, once its
//! kernels have run long enough, gets optimized code compiled in the background; both
//! give the same results (oracle: the loop below computed in Rust). `Quick` never
//! switches, `Optimized` starts optimized.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::jit::JitTier;
use std::time::{Duration, Instant};

const LOOP: &str = r#"
.version 7.0
.target sm_70
.address_size 64
// out[i] = sum over k < iters of ((i * k) ^ (k >> 3)) & 1023, wrapping.
.visible .entry work(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r9, [iters];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mov.u32 %r5, 0;
    mov.u32 %r6, 0;
LOOP:
    setp.ge.u32 %p1, %r5, %r9;
    @%p1 bra DONE;
    mul.lo.u32 %r7, %r4, %r5;
    shr.u32 %r8, %r5, 3;
    xor.b32 %r7, %r7, %r8;
    and.b32 %r7, %r7, 1023;
    add.u32 %r6, %r6, %r7;
    add.u32 %r5, %r5, 1;
    bra LOOP;
DONE:
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}
"#;

const N: u32 = 4096;
const ITERS: u32 = 300;

fn want() -> Vec<u32> {
    (0..N)
        .map(|i| {
            (0..ITERS).fold(0u32, |s, k| {
                s.wrapping_add((i.wrapping_mul(k) ^ (k >> 3)) & 1023)
            })
        })
        .collect()
}

fn setup(tier: JitTier) -> (Device, ptxjit::Module, Buffer) {
    let dev = Device::with_options(ptxjit::DeviceOptions {
        jit_tier: tier,
        ..Default::default()
    })
    .unwrap();
    let m = dev.load_ptx(LOOP, "loop.ptx").unwrap();
    let out = zeroed(&dev, 4 * N as usize);
    (dev, m, out)
}

fn run_once(dev: &Device, m: &ptxjit::Module, out: &Buffer, want: &[u32]) {
    dev.write(out, &vec![0u32; N as usize]).unwrap();
    let c = cfg([N / 128, 1, 1], [128, 1, 1], Backend::Jit);
    launch(
        dev,
        m,
        "work",
        &c,
        &[arg(out), KernelArg::U32(ITERS)],
        "work",
    );
    assert_eq!(dev.read::<u32>(out).unwrap(), want);
}

#[test]
fn tiered_switches_to_optimized_code() {
    let want = want();
    let (dev, m, out) = setup(JitTier::Tiered);
    assert!(!m.jit_optimized(), "a tiered module starts with quick code");
    let t0 = Instant::now();
    while !m.jit_optimized() {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no tier-up after {:?}",
            t0.elapsed()
        );
        run_once(&dev, &m, &out, &want);
    }
    for _ in 0..3 {
        run_once(&dev, &m, &out, &want);
    }
}

#[test]
fn pinned_tiers() {
    let want = want();
    let (dev, m, out) = setup(JitTier::Optimized);
    assert!(m.jit_optimized());
    run_once(&dev, &m, &out, &want);
    let (dev, m, out) = setup(JitTier::Quick);
    for _ in 0..20 {
        run_once(&dev, &m, &out, &want);
    }
    assert!(!m.jit_optimized(), "a quick module never switches");
}

/// Dropping a module while its optimized compile runs is fine (the compile's result is
/// discarded).
#[test]
fn drop_during_tier_up() {
    let want = want();
    for _ in 0..3 {
        let (dev, m, out) = setup(JitTier::Tiered);
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_millis(100) {
            run_once(&dev, &m, &out, &want);
        }
        drop(m);
    }
}
