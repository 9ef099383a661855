//! The CTA loop (`runtime::launch::run_cta`) resets only the per-warp state a warp of a
//! barrier-free kernel can change and sets the cluster registers that are the same in
//! every CTA once per launch: many CTAs of `tests/ptx/warp_reset.ptx` run after each
//! other on one worker (and on the default workers), each one arriving on an mbarrier
//! without waiting, exiting lanes, diverging, reading `%clock`, using `.local` memory and
//! a shuffle, and storing `%clusterid`, `%nclusterid`, `%cluster_nctarank` and
//! `%cluster_ctarank`, with clusters of one CTA and of three. A store to address 0 in a
//! later CTA is reported for that CTA's thread. Both backends, against the Rust
//! reference below.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::DeviceOptions;

const PTX: &str = "tests/ptx/warp_reset.ptx";
/// 80 threads per CTA: two full warps and one of 16 lanes.
const BLOCK: u32 = 80;
const GRID: u32 = 12;

/// The four words thread `gid` stores (zeros where it exits) in clusters of `cs` CTAs.
fn reference(cs: u32) -> Vec<u32> {
    let x = |gid: u32| match gid % 2 {
        0 => gid * 2,
        _ => gid + 7,
    };
    let mut out = vec![0u32; (GRID * BLOCK * 4) as usize];
    for gid in 0..GRID * BLOCK {
        let (cta, tid) = (gid / BLOCK, gid % BLOCK);
        if cta % 2 == 1 && tid % 32 >= 24 {
            continue;
        }
        // The shuffle's partner is lane ^ 1: thread gid ^ 1 (BLOCK is even).
        let w = [x(gid ^ 1), cta / cs, GRID / cs, cs * 1000 + cta % cs];
        out[(gid * 4) as usize..][..4].copy_from_slice(&w);
    }
    out
}

fn devices() -> Vec<(Device, &'static str)> {
    let one = DeviceOptions {
        threads: 1,
        ..DeviceOptions::default()
    };
    vec![
        (
            Device::with_options(one).expect("device with 1 worker"),
            "1 worker",
        ),
        (device(), "default workers"),
    ]
}

#[test]
fn every_cta_sees_its_own_state_after_dirty_ones() {
    for (dev, workers) in devices() {
        for backend in [Backend::Interp, Backend::Jit] {
            for cs in [1u32, 3] {
                let what = format!("{workers} {backend:?} clusters of {cs}");
                let m = module_at(&dev, PTX, backend);
                let out = zeroed(&dev, (GRID * BLOCK * 16) as usize);
                let mut c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
                if cs > 1 {
                    c = c.cluster([cs, 1, 1]);
                }
                let args = [arg(&out), KernelArg::U32(u32::MAX), KernelArg::U32(0)];
                launch(&dev, &m, "dirty", &c, &args, &what);
                let got: Vec<u32> = dev.read(&out).unwrap();
                assert_slice_eq(&got, &reference(cs), &what);
            }
        }
    }
}

#[test]
fn a_fault_in_a_later_cta_is_reported_for_its_thread() {
    // Thread 45 of CTA 9: warp 1, lane 13 (lanes 24..31 of odd CTAs exit first).
    let (bad_cta, bad_tid) = (9u32, 45u32);
    for (dev, workers) in devices() {
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{workers} {backend:?}");
            let m = module_at(&dev, PTX, backend);
            let out = zeroed(&dev, (GRID * BLOCK * 16) as usize);
            let c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
            let args = [arg(&out), KernelArg::U32(bad_cta), KernelArg::U32(bad_tid)];
            match dev.launch(&m, "dirty", &c, &args) {
                Err(Error::Fault(f)) => {
                    assert_eq!(f.block, [bad_cta, 0, 0], "{what}: {f}");
                    assert_eq!(f.thread, [bad_tid, 0, 0], "{what}: {f}");
                    assert_eq!(f.inst, "st.global.u32", "{what}: {f}");
                    assert_eq!(f.addr, 0, "{what}: {f}");
                }
                Err(e) => panic!("{what}: expected Error::Fault, got {e}"),
                Ok(()) => panic!("{what}: expected Error::Fault, the launch succeeded"),
            }
            // The device stays usable and the next launch's CTAs start clean.
            let args = [arg(&out), KernelArg::U32(u32::MAX), KernelArg::U32(0)];
            launch(&dev, &m, "dirty", &c, &args, &what);
            let got: Vec<u32> = dev.read(&out).unwrap();
            assert_slice_eq(&got, &reference(1), &what);
        }
    }
}
