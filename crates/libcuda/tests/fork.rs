//! A child process forked after `cuInit`: its driver calls return
//! `CUDA_ERROR_NOT_INITIALIZED` (3), `cuInit` too, as NVIDIA's driver does in such a
//! child (numba-cuda's fork detection, `test_fork`, waits for that code); the parent
//! goes on unaffected.

use cuda::*;
use std::ffi::c_void;
use std::ptr::null_mut;

#[test]
fn calls_in_a_child_forked_after_init_fail_not_initialized() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut p = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut p, 16), 0);
        let mut fds = [0i32; 2];
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        let pid = libc::fork();
        assert!(pid >= 0, "fork");
        if pid == 0 {
            // The child: three calls, their codes to the parent, and out.
            let mut q = 0u64;
            let codes: [CUresult; 3] = [cuMemAlloc_v2(&mut q, 16), cuInit(0), cuCtxSynchronize()];
            libc::write(fds[1], codes.as_ptr() as *const c_void, 12);
            libc::_exit(0);
        }
        let mut codes: [CUresult; 3] = [0; 3];
        assert_eq!(
            libc::read(fds[0], codes.as_mut_ptr() as *mut c_void, 12),
            12
        );
        let mut status = 0;
        assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        assert_eq!(codes, [CUDA_ERROR_NOT_INITIALIZED; 3]);
        // The parent's driver is untouched.
        assert_eq!(cuCtxSynchronize(), 0);
        assert_eq!(cuMemFree_v2(p), 0);
    }
}
