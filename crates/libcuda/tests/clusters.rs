//! Thread block clusters through the driver API: `cuLaunchKernelEx` with
//! `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` runs the NVRTC-compiled ring exchange of
//! `tests/kernels/cluster/cluster.cu` (cooperative groups' `map_shared_rank` and
//! `cluster.sync()`) in 2x2 clusters; expected values are computed here.

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

fn ptx() -> CString {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/kernels/cluster/cluster.sm_90.ptx"
    );
    CString::new(std::fs::read_to_string(p).unwrap()).unwrap()
}

fn attr(id: u32, v: [u32; 3]) -> CUlaunchAttribute {
    let mut value = [0u32; 16];
    value[..3].copy_from_slice(&v);
    CUlaunchAttribute {
        id,
        pad: [0; 4],
        value,
    }
}

#[test]
fn launch_ex_sets_the_cluster_shape() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut m = null_mut();
        let src = ptx();
        assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"ring".as_ptr()), 0);
        // Grid 4x2 of 64 threads: out 8 x 64 words, info 8 x 8 words.
        let (mut dout, mut dinfo) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dout, 8 * 64 * 4), 0);
        assert_eq!(cuMemAlloc_v2(&mut dinfo, 8 * 8 * 4), 0);
        let mut params = [
            &mut dout as *mut u64 as *mut c_void,
            &mut dinfo as *mut u64 as *mut c_void,
        ];
        // An attribute ptxjit does not need (priority, id 8) and the cluster shape.
        let mut attrs = [attr(8, [1, 0, 0]), attr(4, [2, 2, 1])];
        assert_eq!(std::mem::size_of::<CUlaunchAttribute>(), 72);
        let cfg = CUlaunchConfig {
            grid: [4, 2, 1],
            block: [64, 1, 1],
            shared: 0,
            stream: null_mut(),
            attrs: attrs.as_mut_ptr(),
            num_attrs: 2,
        };
        assert_eq!(
            cuLaunchKernelEx(&cfg, f, params.as_mut_ptr(), null_mut()),
            0
        );
        let mut out = vec![0u32; 8 * 64];
        let mut info = vec![0u32; 8 * 8];
        assert_eq!(
            cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, dout, 8 * 64 * 4),
            0
        );
        assert_eq!(
            cuMemcpyDtoH_v2(info.as_mut_ptr() as *mut c_void, dinfo, 8 * 8 * 4),
            0
        );
        for by in 0..2u32 {
            for bx in 0..4u32 {
                let block = bx + 4 * by;
                // Rank x + 2y in its 2x2 cluster; it read what rank - 1 (mod 4) wrote.
                let rank = bx % 2 + 2 * (by % 2);
                let prev = (rank + 3) % 4;
                let pblock = (bx - bx % 2 + prev % 2) + 4 * (by - by % 2 + prev / 2);
                for t in 0..64 {
                    assert_eq!(out[(block * 64 + t) as usize], pblock * 1000 + t);
                }
                let want = [rank, 4, bx % 2, by % 2, 2, 2, (rank + 1) % 4, rank];
                assert_eq!(&info[block as usize * 8..][..8], &want);
            }
        }
        // A cluster shape that does not divide the grid.
        let mut three = [attr(4, [3, 1, 1])];
        let odd = CUlaunchConfig {
            attrs: three.as_mut_ptr(),
            num_attrs: 1,
            ..cfg
        };
        assert_eq!(
            cuLaunchKernelEx(&odd, f, params.as_mut_ptr(), null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        // A null attribute array with a nonzero count.
        let bad = CUlaunchConfig {
            attrs: null_mut(),
            ..cfg
        };
        assert_eq!(
            cuLaunchKernelEx(&bad, f, params.as_mut_ptr(), null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuModuleUnload(m), 0);
    }
}
