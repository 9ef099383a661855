//! A coalesced load tests the range of a later store to the same register and offset
//! in its IR block, and the store then skips its own test (`jit::lower::mem`,
//! `later_store`): full and partial store masks, an address register written between
//! the load and the store (in range, and past the buffer's end: the store's fault), a
//! store to a read-only region after a load from it (the read-only fault; no fault when
//! the store's lanes are inactive), and accesses in another state space than the load.
//! Both backends, 1 and the default workers, against the Rust reference in each test;
//! faults are compared between the backends.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::{DeviceOptions, Fault, FaultKind};

const PTX: &str = "tests/ptx/store_memo.ptx";
/// 160 threads per CTA: five warps.
const BLOCK: u32 = 160;
const GRID: u32 = 7;
const N: usize = (BLOCK * GRID) as usize;

fn devices() -> Vec<(Device, &'static str)> {
    let one = DeviceOptions {
        threads: 1,
        ..DeviceOptions::default()
    };
    vec![
        (device(), "default workers"),
        (
            Device::with_options(one).expect("device with 1 worker"),
            "1 worker",
        ),
    ]
}

fn inputs() -> Vec<u32> {
    (0..N as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect()
}

/// Launches `kernel` expecting a fault; returns it.
fn fault(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    c: &LaunchConfig,
    args: &[KernelArg],
) -> Fault {
    match dev.launch(m, kernel, c, args) {
        Err(Error::Fault(f)) => f,
        Err(e) => panic!("{kernel}: expected Error::Fault, got {e}"),
        Ok(()) => panic!("{kernel}: expected Error::Fault, the launch succeeded"),
    }
}

#[test]
fn full_and_partial_store_masks() {
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.25 - 17.0).collect();
    for (dev, workers) in devices() {
        for backend in [Backend::Interp, Backend::Jit] {
            for lim in [32u32, 16, 0] {
                let what = format!("{workers} {backend:?} lim {lim}");
                let m = module_at(&dev, PTX, backend);
                let p = dev.alloc_from(&x).unwrap();
                let c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
                launch(
                    &dev,
                    &m,
                    "scale",
                    &c,
                    &[arg(&p), KernelArg::U32(lim)],
                    &what,
                );
                let got: Vec<u32> = dev
                    .read::<f32>(&p)
                    .unwrap()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect();
                let want: Vec<u32> = (0..N)
                    .map(|i| match (i % 32) < lim as usize {
                        true => x[i] + x[i],
                        false => x[i],
                    })
                    .map(f32::to_bits)
                    .collect();
                assert_slice_eq(&got, &want, &what);
            }
        }
    }
}

#[test]
fn address_register_written_between_load_and_store() {
    let x = inputs();
    for (dev, workers) in devices() {
        let mut faults = Vec::new();
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{workers} {backend:?}");
            let m = module_at(&dev, PTX, backend);
            let c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
            // One element further on: p[i + 1] = x[i] + 1 (buffer of N + 1 elements).
            let mut init = x.clone();
            init.push(7);
            let p = dev.alloc_from(&init).unwrap();
            launch(&dev, &m, "bump", &c, &[arg(&p), KernelArg::U64(4)], &what);
            let got: Vec<u32> = dev.read(&p).unwrap();
            // Element i + 1 is stored by thread i only. A warp loads all its lanes
            // before it stores, but the first lane of a warp may load the element the
            // last lane of the warp before stored (warps and CTAs run in any order):
            // those elements are not compared.
            for i in 0..N {
                if i % 32 != 0 {
                    assert_eq!(got[i + 1], x[i] + 1, "{what}: element {}", i + 1);
                }
            }
            // In place: p[i] = x[i] + 1.
            let p = dev.alloc_from(&x).unwrap();
            launch(&dev, &m, "bump", &c, &[arg(&p), KernelArg::U64(0)], &what);
            let want: Vec<u32> = x.iter().map(|v| v + 1).collect();
            assert_slice_eq(&dev.read::<u32>(&p).unwrap(), &want, &what);
            // N elements further on: past the buffer's end, the store faults.
            let p = dev.alloc_from(&x).unwrap();
            let step = KernelArg::U64(4 * N as u64);
            let mut f = fault(&dev, &m, "bump", &c, &[arg(&p), step]);
            assert_eq!(f.inst, "st.global.u32", "{what}: {f}");
            assert!(f.write, "{what}: {f}");
            // (Each backend's buffer is its own: the address relative to it.)
            let lane = f.thread[0] as u64 + f.block[0] as u64 * BLOCK as u64;
            assert_eq!(f.addr, p.ptr() + 4 * (N as u64 + lane), "{what}: {f}");
            f.addr -= p.ptr();
            faults.push(f);
        }
        if workers == "1 worker" {
            assert_eq!(
                faults[0], faults[1],
                "{workers}: interpreter and JIT faults"
            );
        }
    }
}

#[test]
fn a_store_to_a_read_only_region_after_a_load_from_it() {
    let tbl: Vec<u32> = (0..32).map(|i| i * 7 + 3).collect();
    for (dev, workers) in devices() {
        let mut faults = Vec::new();
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{workers} {backend:?}");
            let m = module_at(&dev, PTX, backend);
            let c = cfg([1, 1, 1], [32, 1, 1], backend);
            let out = zeroed(&dev, 32 * 4);
            launch(
                &dev,
                &m,
                "readonly",
                &c,
                &[arg(&out), KernelArg::U32(0)],
                &what,
            );
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &tbl, &what);
            let f = fault(&dev, &m, "readonly", &c, &[arg(&out), KernelArg::U32(1)]);
            assert_eq!(f.inst, "st.u32", "{what}: {f}");
            assert_eq!(f.kind, FaultKind::ReadOnly, "{what}: {f}");
            faults.push(f);
        }
        assert_eq!(
            faults[0], faults[1],
            "{workers}: interpreter and JIT faults"
        );
    }
}

#[test]
fn loads_and_stores_in_other_state_spaces() {
    let x = inputs();
    let y: Vec<u32> = x.iter().map(|v| v ^ 0x5555).collect();
    for (dev, workers) in devices() {
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{workers} {backend:?}");
            let m = module_at(&dev, PTX, backend);
            let c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
            let (p, q) = (dev.alloc_from(&x).unwrap(), dev.alloc_from(&y).unwrap());
            launch(&dev, &m, "spaces", &c, &[arg(&p), arg(&q)], &what);
            let want_p: Vec<u32> = x.iter().map(|v| v + 5).collect();
            let want_q: Vec<u32> = y.iter().map(|v| v + 9).collect();
            assert_slice_eq(&dev.read::<u32>(&p).unwrap(), &want_p, &what);
            assert_slice_eq(&dev.read::<u32>(&q).unwrap(), &want_q, &what);
        }
    }
}
