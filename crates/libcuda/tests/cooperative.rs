//! Cooperative launches called in-process: tests/kernels/gridsync/'s NVRTC kernels
//! (the crate root's; `cudaCGGetIntrinsicHandle`/`cudaCGSynchronize`) linked with
//! `libcudadevrt`'s PTX of the cudaCG* functions by `cuLinkCreate` … `cuLinkComplete`,
//! launched with `cuLaunchCooperativeKernel` and with `cuLaunchKernelEx`'s
//! `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`. Expected values: a Rust simulation of the
//! kernel's rounds, and the driver's rule for the size of a cooperative grid (at most
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` x `MULTIPROCESSOR_COUNT` blocks, else
//! `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

const CU_JIT_INPUT_PTX: u32 = 1;
const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: i32 = 16;
const CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: i32 = 95;

unsafe fn setup() {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
}

/// The `rotate` kernel of gridsync.nvrtc.ptx linked with devrt_cg.ptx.
unsafe fn rotate_kernel() -> CUfunction {
    let mut st = null_mut();
    assert_eq!(cuLinkCreate_v2(0, null_mut(), null_mut(), &mut st), 0);
    for n in ["gridsync.nvrtc.ptx", "devrt_cg.ptx"] {
        let p = format!(
            "{}/../../tests/kernels/gridsync/{n}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut text = std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
        let name = CString::new(n).unwrap();
        let r = cuLinkAddData_v2(
            st,
            CU_JIT_INPUT_PTX,
            text.as_mut_ptr() as *mut c_void,
            text.len(),
            name.as_ptr(),
            0,
            null_mut(),
            null_mut(),
        );
        assert_eq!(r, 0, "{n}");
    }
    let (mut img, mut size) = (null_mut(), 0usize);
    assert_eq!(cuLinkComplete(st, &mut img, &mut size), 0);
    let mut m = null_mut();
    assert_eq!(cuModuleLoadData(&mut m, img), 0);
    assert_eq!(cuLinkDestroy(st), 0);
    let mut f = null_mut();
    let name = CString::new("rotate").unwrap();
    assert_eq!(cuModuleGetFunction(&mut f, m, name.as_ptr()), 0);
    f
}

/// `rotate`'s rounds: every element takes the value one block ahead, plus the round.
fn rotate_ref(a: &mut [i32], block: usize, rounds: i32) {
    let n = a.len();
    for r in 0..rounds {
        let prev = a.to_vec();
        for (i, x) in a.iter_mut().enumerate() {
            *x = prev[(i + block) % n] + r;
        }
    }
}

/// Device buffers `a` (from `init`) and `status` (-1s) for a `rotate` launch, and its
/// argument pointers' targets.
struct Args {
    a: u64,
    status: u64,
    n: i32,
    rounds: i32,
}

unsafe fn args(init: &[i32], rounds: i32) -> Args {
    let bytes = std::mem::size_of_val(init);
    let (mut a, mut status) = (0u64, 0u64);
    assert_eq!(cuMemAlloc_v2(&mut a, bytes), 0);
    assert_eq!(cuMemAlloc_v2(&mut status, bytes), 0);
    assert_eq!(cuMemcpyHtoD_v2(a, init.as_ptr() as *const c_void, bytes), 0);
    assert_eq!(cuMemsetD8_v2(status, 0xff, bytes), 0);
    Args {
        a,
        status,
        n: init.len() as i32,
        rounds,
    }
}

unsafe fn read(p: u64, n: usize) -> Vec<i32> {
    let mut v = vec![0i32; n];
    assert_eq!(cuMemcpyDtoH_v2(v.as_mut_ptr() as *mut c_void, p, 4 * n), 0);
    v
}

#[test]
fn cooperative_launches_synchronize_the_grid_and_check_its_size() {
    unsafe {
        setup();
        let f = rotate_kernel();
        let mut v = 0i32;
        assert_eq!(
            cuDeviceGetAttribute(&mut v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0),
            0
        );
        assert_eq!(v, 1);
        let (block, rounds) = (32u32, 4i32);
        let mut per_sm = 0i32;
        assert_eq!(
            cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut per_sm, f, block as i32, 0),
            0
        );
        let mut sms = 0i32;
        assert_eq!(
            cuDeviceGetAttribute(&mut sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0),
            0
        );
        let max = (per_sm * sms) as u32;
        assert!(max >= 2, "per SM {per_sm}, SMs {sms}");
        // The largest grid that may be cooperative, through both entry points.
        let n = (max * block) as usize;
        let init: Vec<i32> = (0..n as i32).map(|i| 3 * i - 5).collect();
        let mut want = init.clone();
        rotate_ref(&mut want, block as usize, rounds);
        for ex in [false, true] {
            let mut a = args(&init, rounds);
            let mut p: [*mut c_void; 4] = [
                &mut a.a as *mut u64 as *mut c_void,
                &mut a.status as *mut u64 as *mut c_void,
                &mut a.n as *mut i32 as *mut c_void,
                &mut a.rounds as *mut i32 as *mut c_void,
            ];
            let r = if ex {
                let mut attr = launch::CUlaunchAttribute {
                    id: launch::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
                    pad: [0; 4],
                    value: [0; 16],
                };
                attr.value[0] = 1;
                let cfg = launch::CUlaunchConfig {
                    grid: [max, 1, 1],
                    block: [block, 1, 1],
                    shared: 0,
                    stream: null_mut(),
                    attrs: &mut attr,
                    num_attrs: 1,
                };
                cuLaunchKernelEx(&cfg, f, p.as_mut_ptr(), null_mut())
            } else {
                cuLaunchCooperativeKernel(f, max, 1, 1, block, 1, 1, 0, null_mut(), p.as_mut_ptr())
            };
            assert_eq!(r, 0, "cuLaunchKernelEx: {ex}");
            assert_eq!(read(a.a, n), want, "cuLaunchKernelEx: {ex}");
            assert_eq!(read(a.status, n), vec![0; n], "cuLaunchKernelEx: {ex}");
        }
        // One block more cannot be resident at once.
        let big = vec![0i32; ((max + 1) * block) as usize];
        let mut a = args(&big, 1);
        let mut p: [*mut c_void; 4] = [
            &mut a.a as *mut u64 as *mut c_void,
            &mut a.status as *mut u64 as *mut c_void,
            &mut a.n as *mut i32 as *mut c_void,
            &mut a.rounds as *mut i32 as *mut c_void,
        ];
        let r =
            cuLaunchCooperativeKernel(f, max + 1, 1, 1, block, 1, 1, 0, null_mut(), p.as_mut_ptr());
        assert_eq!(r, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }
}
