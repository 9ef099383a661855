//! Hand-written kernels of the asynchronous-copy family (`tests/ptx/async_ops.ptx`,
//! validated by ptxas for sm_90) on both backends, with hand-checked expectations:
//! `cp.async.bulk` both ways with an mbarrier transaction count and generic mbarrier
//! addresses, `cp.async` zero-fill that reads nothing, a faulting `cp.async`, `.b128`
//! loads, stores, moves and `atom.cas.b128`, and mbarrier waits that can never complete
//! (a deadlock error, not a hang). The GPU-recorded cases are in `tests/golden.rs`.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const FILE: &str = "tests/ptx/async_ops.ptx";

fn bulk(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, FILE, backend);
    let x = Rng::new(3).vec_u32(64);
    let inb = dev.alloc_from(&x).unwrap();
    let (o1, o2) = (zeroed(&dev, 256), zeroed(&dev, 256));
    let c = cfg([1, 1, 1], [64, 1, 1], backend);
    launch(
        &dev,
        &m,
        "bulk",
        &c,
        &[arg(&inb), arg(&o1), arg(&o2)],
        "bulk",
    );
    let twice: Vec<u32> = x.iter().map(|v| v.wrapping_mul(2)).collect();
    let plus1: Vec<u32> = twice.iter().map(|v| v.wrapping_add(1)).collect();
    assert_slice_eq(&dev.read::<u32>(&o1).unwrap(), &plus1, "bulk: 2x + 1");
    assert_slice_eq(
        &dev.read::<u32>(&o2).unwrap(),
        &twice,
        "bulk: shared -> global",
    );
}

fn zfill(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, FILE, backend);
    let inb = dev
        .alloc_from(&[0x4433_2211u32, 0x8877_6655, 1, 2])
        .unwrap();
    let out = zeroed(&dev, 32);
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    // src-size 0 from address 8 (in no allocation): nothing is read.
    let args = [arg(&inb), arg(&out), KernelArg::from(8u64)];
    launch(&dev, &m, "zfill", &c, &args, "zfill");
    // 16 zero bytes; then bytes 11 22 33 of the input and 13 zero bytes.
    let want = [0, 0, 0, 0, 0x0033_2211u32, 0, 0, 0];
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "zfill");
    let e = dev
        .launch(&m, "cp_fault", &c, &[KernelArg::from(8u64)])
        .expect_err("cp.async from address 8 must fault");
    let msg = e.to_string();
    assert!(matches!(e, Error::Fault(_)), "{msg}");
    assert!(msg.contains("cp.async"), "{msg}");
}

fn b128(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, FILE, backend);
    let n = 64;
    let x: Vec<u64> = (0..2 * n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (u64::MAX * (i & 1)))
        .collect();
    let inb = dev.alloc_from(&x).unwrap();
    let outs: Vec<_> = (0..3).map(|_| zeroed(&dev, 16 * n)).collect();
    let c = cfg([1, 1, 1], [n as u32, 1, 1], backend);
    let args = [arg(&inb), arg(&outs[0]), arg(&outs[1]), arg(&outs[2])];
    launch(&dev, &m, "b128", &c, &args, "b128");
    let mut w = [Vec::new(), Vec::new(), Vec::new()];
    for t in 0..n {
        let (lo, hi) = (x[2 * t], x[2 * t + 1]);
        // {hi + 1, lo}; the CAS compares with it and stores {lo, hi + 1}.
        w[0].extend([hi.wrapping_add(1), lo]);
        w[1].extend([hi.wrapping_add(1), lo]);
        w[2].extend([lo, hi.wrapping_add(1)]);
    }
    for (k, o) in outs.iter().enumerate() {
        assert_slice_eq(&dev.read::<u64>(o).unwrap(), &w[k], &format!("b128 out{k}"));
    }
}

fn deadlocks(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, FILE, backend);
    let c = cfg([1, 1, 1], [64, 1, 1], backend);
    for (k, what) in [
        ("mbar_deadlock", "polls the mbarrier"),
        ("mbar_bar_deadlock", "warp 1 waits at a barrier"),
    ] {
        let e = dev.launch(&m, k, &c, &[]).expect_err(k);
        let msg = e.to_string();
        assert!(matches!(e, Error::Deadlock(_)), "{k}: {msg}");
        assert!(msg.contains(what), "{k}: {msg}");
    }
}

both_backends!(bulk, zfill, b128, deadlocks);
