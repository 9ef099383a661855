//! Launch machinery shared between launches: the device's worker-thread pool (reused by
//! every multi-worker launch; a launch that finds it busy runs on threads of its own)
//! and the process-wide watchdog thread (launches register their deadline and remove
//! it when they end). Results are checked against `out[i] = 3 i + k`, computed here.
#[macro_use]
mod common;
use common::*;
use std::time::{Duration, Instant};

const FILL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry fill(.param .u64 out, .param .u32 k)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r6, [k];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mad.lo.s32 %r5, %r4, 3, %r6;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}
"#;

fn load(dev: &Device, backend: Backend) -> ptxjit::Module {
    dev.load_ptx_with(FILL, "fill.ptx", backend == Backend::Jit)
        .unwrap()
}

fn fill_and_check(dev: &Device, m: &ptxjit::Module, backend: Backend, k: u32, limit: bool) {
    let n = 16 * 64;
    let out = zeroed(dev, 4 * n);
    let c = cfg([16, 1, 1], [64, 1, 1], backend).timeout(if limit {
        Some(Duration::from_secs(60))
    } else {
        None
    });
    launch(dev, m, "fill", &c, &[arg(&out), KernelArg::U32(k)], "fill");
    let want: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(3).wrapping_add(k))
        .collect();
    assert_eq!(dev.read::<u32>(&out).unwrap(), want, "k = {k}");
    dev.free(out).unwrap();
}

/// Many launches in a row over 4 workers reuse the same pool threads.
fn sequential(backend: Backend) {
    let dev = Device::with_options(ptxjit::DeviceOptions {
        threads: 4,
        ..Default::default()
    })
    .unwrap();
    let m = load(&dev, backend);
    for k in 0..200 {
        fill_and_check(&dev, &m, backend, k, k % 2 == 0);
    }
}

/// Launches from 4 host threads at once on one device: one uses the pool, the others
/// run on threads of their own; every result is right.
fn concurrent(backend: Backend) {
    let dev = Device::with_options(ptxjit::DeviceOptions {
        threads: 3,
        ..Default::default()
    })
    .unwrap();
    let m = load(&dev, backend);
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let (dev, m) = (&dev, &m);
            s.spawn(move || {
                for k in 0..50 {
                    fill_and_check(dev, m, backend, t * 1000 + k, true);
                }
            });
        }
    });
}

/// A launch whose deadline is earlier than those already registered (a long launch
/// with a 600 s limit runs meanwhile on another thread) is still stopped on time; then
/// launches with limits that finish are not stopped.
fn earlier_deadline(backend: Backend) {
    let dev = device();
    let spin = module_at(&dev, "tests/ptx/watchdog.ptx", backend);
    let m = load(&dev, backend);
    let out = zeroed(&dev, 4);
    std::thread::scope(|s| {
        let (dev, m) = (&dev, &m);
        let busy = s.spawn(move || {
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_millis(600) {
                fill_and_check(dev, m, backend, 7, true);
            }
        });
        std::thread::sleep(Duration::from_millis(50));
        let c = cfg([1, 1, 1], [32, 1, 1], backend).timeout(Some(Duration::from_millis(100)));
        let t0 = Instant::now();
        let e = dev
            .launch(&spin, "spin", &c, &[arg(&out)])
            .expect_err("the spinning kernel must be stopped");
        assert!(e.to_string().contains("time limit"), "{e}");
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "stopped after {:?}",
            t0.elapsed()
        );
        busy.join().unwrap();
    });
    for k in 0..20 {
        fill_and_check(&dev, &m, backend, k, true);
    }
}

both_backends!(sequential, concurrent, earlier_deadline);
