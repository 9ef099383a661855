//! CUDA 13 in-process: the reported driver version, CUDA 13's entry points through
//! `cuGetProcAddress` next to CUDA 12's, `cuCtxCreate_v4` with its params struct, the
//! `_v2` context calls, `cuLaunchHostFunc_v2` and the profiler no-ops.

use cuda::*;
use std::ffi::c_void;
use std::ptr::null_mut;

#[test]
fn cuda13_entry_points_resolve_by_version() {
    let cases = [
        ("cuCtxCreate", 12080, "cuCtxCreate_v4"),
        ("cuCtxCreate", 13000, "cuCtxCreate_v4"),
        ("cuCtxCreate", 11040, "cuCtxCreate_v3"),
        ("cuCtxGetDevice", 12080, "cuCtxGetDevice"),
        ("cuCtxGetDevice", 13000, "cuCtxGetDevice_v2"),
        ("cuCtxSynchronize", 13050, "cuCtxSynchronize_v2"),
        ("cuLaunchHostFunc", 13010, "cuLaunchHostFunc_v2"),
        ("cuLaunchHostFunc", 13000, "cuLaunchHostFunc"),
        ("cuProfilerStart", 13000, "cuProfilerStart"),
        ("cuProfilerStop", 4000, "cuProfilerStop"),
    ];
    for (base, v, want) in cases {
        assert_eq!(resolve(base, v, false), Ok(want), "{base} {v}");
        assert!(is_implemented(want), "{want}");
    }
    // A CUDA 13.4 function is too new for 13.0.
    assert_eq!(resolve("cuDeviceGetCliqueCount", 13000, false), Err(true));
    let mut ver = 0;
    unsafe {
        assert_eq!(cuDriverGetVersion(&mut ver), 0);
    }
    assert!(ver >= 13000, "{ver}");
}

unsafe extern "C" fn bump(p: *mut c_void) {
    *(p as *mut u32) += 1;
}

#[test]
fn ctx_create_v4_params_and_v2_calls() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        // NULL params and the all-zero struct are both a plain context.
        assert_eq!(cuCtxCreate_v4(&mut ctx, null_mut(), 0, 0), 0);
        assert_eq!(cuCtxDestroy_v2(ctx), 0);
        let mut zero = CUctxCreateParams {
            exec_affinity_params: null_mut(),
            num_exec_affinity_params: 0,
            cig_params: null_mut(),
        };
        assert_eq!(cuCtxCreate_v4(&mut ctx, &mut zero, 0, 0), 0);
        let mut dev = -1;
        assert_eq!(cuCtxGetDevice_v2(&mut dev, ctx), 0);
        assert_eq!(dev, 0);
        dev = -1;
        assert_eq!(
            cuCtxGetDevice_v2(&mut dev, null_mut()),
            0,
            "the current one"
        );
        assert_eq!(dev, 0);
        assert_eq!(cuCtxSynchronize_v2(ctx), 0);
        assert_eq!(cuProfilerStart(), 0);
        assert_eq!(cuProfilerStop(), 0);
        let mut n = 0u32;
        assert_eq!(
            cuLaunchHostFunc_v2(null_mut(), Some(bump), &mut n as *mut u32 as *mut c_void, 0),
            0
        );
        assert_eq!(n, 1);
        assert_eq!(cuCtxDestroy_v2(ctx), 0);
        assert_eq!(
            cuCtxSynchronize_v2(ctx),
            CUDA_ERROR_INVALID_CONTEXT,
            "a destroyed context"
        );
        // A count without an array; CIG parameters.
        let mut bad = CUctxCreateParams {
            exec_affinity_params: null_mut(),
            num_exec_affinity_params: 1,
            cig_params: null_mut(),
        };
        assert_eq!(
            cuCtxCreate_v4(&mut ctx, &mut bad, 0, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut cig = 0u64;
        let mut with_cig = CUctxCreateParams {
            exec_affinity_params: null_mut(),
            num_exec_affinity_params: 0,
            cig_params: &mut cig as *mut u64 as *mut c_void,
        };
        assert_eq!(
            cuCtxCreate_v4(&mut ctx, &mut with_cig, 0, 0),
            CUDA_ERROR_NOT_SUPPORTED
        );
    }
}
