//! Barrier-free kernels run a CTA's warps from one call of the JIT's code, chained
//! through `WarpCtx::next` (`runtime::launch`): every warp runs, lanes that exit early
//! stop only their own warp, partial last warps keep their lanes, registers start at
//! zero in every warp (nothing of the warp before leaks in), and a fault in a later
//! warp of a CTA names that warp's block and thread. Both backends, one and two
//! workers, the in-order and a random schedule (whose warps are not chained); the
//! expected values come from the Rust reference below.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::{DeviceOptions, Schedule};

const PTX: &str = "tests/ptx/warp_chain.ptx";
/// 200 threads per CTA: six full warps and one of 8 lanes.
const BLOCK: u32 = 200;
const GRID: u32 = 5;

/// `out[gid]` as `chain` writes it: gid * 3 + warp, 0 for lanes 16..31 of odd warps
/// (they exit before the store).
fn reference() -> Vec<u32> {
    (0..GRID * BLOCK)
        .map(|gid| {
            let (tid, warp) = (gid % BLOCK, (gid % BLOCK) / 32);
            match warp % 2 == 1 && tid % 32 >= 16 {
                true => 0,
                false => gid * 3 + warp,
            }
        })
        .collect()
}

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

#[test]
fn every_warp_runs_with_exits_and_a_partial_warp() {
    for (dev, workers) in devices() {
        for backend in [Backend::Interp, Backend::Jit] {
            for schedule in [Schedule::InOrder, Schedule::Random(3)] {
                let what = format!("{workers} {backend:?} {schedule:?}");
                let m = module_at(&dev, PTX, backend);
                let out = zeroed(&dev, (GRID * BLOCK) as usize * 4);
                let c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend).schedule(schedule);
                let args = [arg(&out), KernelArg::U32(u32::MAX), KernelArg::U32(0)];
                launch(&dev, &m, "chain", &c, &args, &what);
                let got: Vec<u32> = dev.read(&out).unwrap();
                assert_slice_eq(&got, &reference(), &what);
            }
        }
    }
}

#[test]
fn a_fault_in_a_later_warp_names_its_block_and_thread() {
    // Thread 167 of CTA 3: warp 5 (odd), lane 7, which does not exit.
    let (bad_cta, bad_tid) = (3u32, 167u32);
    for (dev, workers) in devices() {
        for backend in [Backend::Interp, Backend::Jit] {
            let what = format!("{workers} {backend:?}");
            let m = module_at(&dev, PTX, backend);
            let out = zeroed(&dev, (GRID * BLOCK) as usize * 4);
            let c = cfg([GRID, 1, 1], [BLOCK, 1, 1], backend);
            let args = [arg(&out), KernelArg::U32(bad_cta), KernelArg::U32(bad_tid)];
            match dev.launch(&m, "chain", &c, &args) {
                Err(Error::Fault(f)) => {
                    assert_eq!(f.block, [bad_cta, 0, 0], "{what}: {f}");
                    assert_eq!(f.thread, [bad_tid, 0, 0], "{what}: {f}");
                    assert_eq!(f.inst, "st.global.u32", "{what}: {f}");
                }
                Err(e) => panic!("{what}: expected Error::Fault, got {e}"),
                Ok(()) => panic!("{what}: expected Error::Fault, the launch succeeded"),
            }
            // The device stays usable: the same kernel without the fault.
            let args = [arg(&out), KernelArg::U32(u32::MAX), KernelArg::U32(0)];
            launch(&dev, &m, "chain", &c, &args, &what);
            let got: Vec<u32> = dev.read(&out).unwrap();
            assert_slice_eq(&got, &reference(), &what);
        }
    }
}

#[test]
fn registers_start_at_zero_in_every_chained_warp() {
    let dev = device();
    for backend in [Backend::Interp, Backend::Jit] {
        let what = format!("stale {backend:?}");
        let m = module_at(&dev, PTX, backend);
        let out = zeroed(&dev, 256 * 4);
        let c = cfg([1, 1, 1], [256, 1, 1], backend);
        launch(&dev, &m, "stale", &c, &[arg(&out)], &what);
        let got: Vec<u32> = dev.read(&out).unwrap();
        let want: Vec<u32> = (0..256).map(|t| if t < 32 { 7 + t } else { 0 }).collect();
        assert_slice_eq(&got, &want, &what);
    }
}
