//! CUDA graphs through the driver API, in-process: stream capture records work instead
//! of running it and `cuGraphLaunch` replays it in order (each launch anew); the
//! explicit `cuGraphAdd*Node` calls build the same graph; cross-stream capture through
//! events; the capture errors a driver returns. Expected values are computed in the
//! test (f32 `mul_add`, the kernel's `fma.rn.f32`).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, Ordering};

unsafe fn setup() -> CUfunction {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/kernels.ptx");
    let src = CString::new(std::fs::read_to_string(p).unwrap()).unwrap();
    let mut m = null_mut();
    assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
    let mut f = null_mut();
    assert_eq!(cuModuleGetFunction(&mut f, m, c"saxpy".as_ptr()), 0);
    f
}

unsafe extern "C" fn bump(data: *mut c_void) {
    (*(data as *const AtomicU32)).fetch_add(1, Ordering::SeqCst);
}

const N: usize = 300;
const A: f32 = 1.5;

fn inputs() -> Vec<f32> {
    (0..N).map(|i| i as f32 * 0.25 - 7.0).collect()
}

/// `y = A*x + 1` (y starts as 1.0 from the memset).
fn expected() -> Vec<f32> {
    inputs().iter().map(|&x| A.mul_add(x, 1.0)).collect()
}

/// `CU_STREAM_CAPTURE_STATUS_ACTIVE`, `CUDA_ERROR_ILLEGAL_STATE`.
const ACTIVE: u32 = 1;
const ILLEGAL_STATE: CUresult = 401;

#[test]
fn stream_capture_records_and_graph_launch_replays() {
    unsafe {
        let f = setup();
        let x = inputs();
        let mut out = vec![0f32; N];
        let count = AtomicU32::new(0);
        let bytes = N * 4;
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dx, bytes), 0);
        assert_eq!(cuMemAlloc_v2(&mut dy, bytes), 0);
        let mut s = null_mut();
        assert_eq!(cuStreamCreate(&mut s, 1), 0);

        assert_eq!(cuStreamBeginCapture_v2(s, 0), 0);
        assert_eq!(cuStreamBeginCapture_v2(s, 0), ILLEGAL_STATE);
        let mut status = 0u32;
        assert_eq!(cuStreamIsCapturing(s, &mut status), 0);
        assert_eq!(status, ACTIVE);
        assert_eq!(cuStreamIsCapturing(null_mut(), &mut status), 0);
        assert_eq!(status, 0);
        assert_eq!(
            cuMemcpyHtoDAsync_v2(dx, x.as_ptr() as *const c_void, bytes, s),
            0
        );
        assert_eq!(cuMemsetD32Async(dy, 1.0f32.to_bits(), N, s), 0);
        let (mut n, mut a) = (N as u32, A);
        let mut params = [
            &mut n as *mut u32 as *mut c_void,
            &mut a as *mut f32 as *mut c_void,
            &mut dx as *mut u64 as *mut c_void,
            &mut dy as *mut u64 as *mut c_void,
        ];
        let grid = N.div_ceil(64) as u32;
        assert_eq!(
            cuLaunchKernel(
                f,
                grid,
                1,
                1,
                64,
                1,
                1,
                0,
                s,
                params.as_mut_ptr(),
                null_mut()
            ),
            0
        );
        // The arguments were copied at capture: changing them now changes nothing.
        a = 100.0;
        n = 0;
        let _ = (a, n);
        assert_eq!(
            cuMemcpyDtoHAsync_v2(out.as_mut_ptr() as *mut c_void, dy, bytes, s),
            0
        );
        assert_eq!(
            cuLaunchHostFunc(s, Some(bump), &count as *const AtomicU32 as *mut c_void),
            0
        );
        let (mut id, mut g, mut deps, mut ndeps) = (0u64, null_mut(), null(), 0usize);
        assert_eq!(
            cuStreamGetCaptureInfo_v2(s, &mut status, &mut id, &mut g, &mut deps, &mut ndeps),
            0
        );
        assert_eq!((status, ndeps), (ACTIVE, 1));
        assert!(id != 0 && !g.is_null() && !deps.is_null());
        let mut graph = null_mut();
        assert_eq!(cuStreamEndCapture(s, &mut graph), 0);
        assert_eq!(graph, g);
        assert_eq!(cuStreamEndCapture(s, &mut graph), ILLEGAL_STATE);
        // Nothing ran during the capture.
        assert_eq!(count.load(Ordering::SeqCst), 0);
        assert!(out.iter().all(|&v| v == 0.0));
        let mut nodes = 0usize;
        assert_eq!(cuGraphGetNodes(graph, null_mut(), &mut nodes), 0);
        assert_eq!(nodes, 5);
        let mut types = [null_mut(); 5];
        assert_eq!(cuGraphGetNodes(graph, types.as_mut_ptr(), &mut nodes), 0);
        let mut ty = 9u32;
        assert_eq!(cuGraphNodeGetType(types[2], &mut ty), 0);
        assert_eq!(ty, 0, "CU_GRAPH_NODE_TYPE_KERNEL");

        let mut exec = null_mut();
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec, graph, 0), 0);
        assert_eq!(cuGraphLaunch(exec, s), 0);
        assert_eq!(cuStreamSynchronize(s), 0);
        assert_eq!(out, expected());
        assert_eq!(count.load(Ordering::SeqCst), 1);
        // A second launch runs everything again (the memset resets y first).
        out.fill(0.0);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(out, expected());
        assert_eq!(count.load(Ordering::SeqCst), 2);
        assert_eq!(cuGraphExecDestroy(exec), 0);
        assert_eq!(cuGraphExecDestroy(exec), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuGraphDestroy(graph), 0);
        assert_eq!(cuGraphDestroy(graph), CUDA_ERROR_INVALID_VALUE);

        // The NULL stream cannot capture.
        assert_eq!(
            cuStreamBeginCapture_v2(null_mut(), 0),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        );
        assert_eq!(cuStreamDestroy_v2(s), 0);
        assert_eq!(cuMemFree_v2(dx), 0);
        assert_eq!(cuMemFree_v2(dy), 0);
    }
}

/// A second stream that waits on an event recorded in the capture joins it; ending the
/// capture on it (not the origin) is `CUDA_ERROR_STREAM_CAPTURE_UNMATCHED`.
#[test]
fn cross_stream_capture_through_events() {
    unsafe {
        setup();
        let mut v = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut v, 16), 0);
        let (mut s1, mut s2, mut e) = (null_mut(), null_mut(), null_mut());
        assert_eq!(cuStreamCreate(&mut s1, 1), 0);
        assert_eq!(cuStreamCreate(&mut s2, 1), 0);
        assert_eq!(cuEventCreate(&mut e, 2), 0);
        assert_eq!(cuStreamBeginCapture_v2(s1, 2), 0);
        assert_eq!(cuMemsetD8Async(v, 3, 16, s1), 0);
        assert_eq!(cuEventRecord(e, s1), 0);
        assert_eq!(cuStreamWaitEvent(s2, e, 0), 0);
        let mut status = 0u32;
        assert_eq!(cuStreamIsCapturing(s2, &mut status), 0);
        assert_eq!(status, ACTIVE);
        assert_eq!(cuMemsetD8Async(v + 8, 5, 8, s2), 0);
        let mut g = null_mut();
        assert_eq!(
            cuStreamEndCapture(s2, &mut g),
            CUDA_ERROR_STREAM_CAPTURE_UNMATCHED
        );
        assert_eq!(cuStreamEndCapture(s1, &mut g), 0);
        assert_eq!(cuStreamIsCapturing(s2, &mut status), 0);
        assert_eq!(status, 0, "the joined stream left the capture");
        let mut host = [0u8; 16];
        assert_eq!(cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, v, 16), 0);
        assert_eq!(host, [0; 16], "nothing ran during the capture");
        let mut exec = null_mut();
        assert_eq!(
            cuGraphInstantiate_v2(&mut exec, g, null_mut(), null_mut(), 0),
            0
        );
        assert_eq!(cuGraphLaunch(exec, s1), 0);
        assert_eq!(cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, v, 16), 0);
        let mut want = [3u8; 16];
        want[8..].fill(5);
        assert_eq!(host, want);
        assert_eq!(cuGraphExecDestroy(exec), 0);
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(cuMemFree_v2(v), 0);
    }
}

/// The explicit API builds the same work: memset, kernel, memcpy and host nodes.
#[test]
fn explicit_graph_nodes() {
    unsafe {
        let f = setup();
        let x = inputs();
        let mut out = vec![0f32; N];
        let count = AtomicU32::new(0);
        let bytes = N * 4;
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut dx, bytes), 0);
        assert_eq!(cuMemAlloc_v2(&mut dy, bytes), 0);
        assert_eq!(cuMemcpyHtoD_v2(dx, x.as_ptr() as *const c_void, bytes), 0);
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut ms = null_mut();
        let mp = MemsetNodeParams {
            dst: dy,
            pitch: 0,
            value: 1.0f32.to_bits(),
            element_size: 4,
            width: N,
            height: 1,
        };
        assert_eq!(
            cuGraphAddMemsetNode(&mut ms, g, null(), 0, &mp, null_mut()),
            0
        );
        let (mut n, mut a) = (N as u32, A);
        let mut params = [
            &mut n as *mut u32 as *mut c_void,
            &mut a as *mut f32 as *mut c_void,
            &mut dx as *mut u64 as *mut c_void,
            &mut dy as *mut u64 as *mut c_void,
        ];
        let kp = KernelNodeParamsV2 {
            base: KernelNodeParams {
                func: f,
                grid: [N.div_ceil(32) as u32, 1, 1],
                block: [32, 1, 1],
                shared: 0,
                params: params.as_mut_ptr(),
                extra: null_mut(),
            },
            kern: null_mut(),
            ctx: null_mut(),
        };
        let mut kn = null_mut();
        assert_eq!(cuGraphAddKernelNode_v2(&mut kn, g, &ms, 1, &kp), 0);
        let mut cp: CudaMemcpy3d = std::mem::zeroed();
        cp.src_memory_type = 2; // CU_MEMORYTYPE_DEVICE
        cp.src_device = dy;
        cp.dst_memory_type = 1; // CU_MEMORYTYPE_HOST
        cp.dst_host = out.as_mut_ptr() as *mut c_void;
        cp.width_in_bytes = bytes;
        cp.height = 1;
        cp.depth = 1;
        let mut cn = null_mut();
        assert_eq!(cuGraphAddMemcpyNode(&mut cn, g, &kn, 1, &cp, null_mut()), 0);
        let hp = HostNodeParams {
            f: Some(bump),
            data: &count as *const AtomicU32 as *mut c_void,
        };
        let mut hn = null_mut();
        assert_eq!(cuGraphAddHostNode(&mut hn, g, &cn, 1, &hp), 0);
        let mut en = null_mut();
        assert_eq!(cuGraphAddEmptyNode(&mut en, g, &hn, 1), 0);
        // A dependency from another graph is refused.
        let mut other = null_mut();
        assert_eq!(cuGraphCreate(&mut other, 0), 0);
        assert_eq!(
            cuGraphAddEmptyNode(&mut en, other, &hn, 1),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphDestroy(other), 0);
        let mut exec = null_mut();
        let mut ip = InstantiateParams {
            flags: 0,
            upload_stream: null_mut(),
            err_node: null_mut(),
            result: 9,
        };
        assert_eq!(cuGraphInstantiateWithParams(&mut exec, g, &mut ip), 0);
        assert_eq!(ip.result, 0);
        assert_eq!(cuGraphUpload(exec, null_mut()), 0);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(out, expected());
        assert_eq!(count.load(Ordering::SeqCst), 1);
        assert_eq!(cuGraphExecDestroy(exec), 0);
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(cuMemFree_v2(dx), 0);
        assert_eq!(cuMemFree_v2(dy), 0);
    }
}

static DESTROYED: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn destroy(_: *mut c_void) {
    DESTROYED.fetch_add(1, Ordering::SeqCst);
}

/// User objects (as `cuda.core` attaches to its graphs): the destructor runs when the
/// caller's, the graph's and the executable graph's references are all released.
#[test]
fn user_objects_live_as_long_as_their_graphs() {
    unsafe {
        setup();
        let mut o = null_mut();
        // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC = 1 is required.
        assert_eq!(
            cuUserObjectCreate(&mut o, null_mut(), Some(destroy), 1, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuUserObjectCreate(&mut o, null_mut(), Some(destroy), 1, 1),
            0
        );
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        // CU_GRAPH_USER_OBJECT_MOVE: the caller's reference passes to the graph.
        assert_eq!(cuGraphRetainUserObject(g, o, 1, 1), 0);
        let mut exec = null_mut();
        assert_eq!(cuGraphInstantiateWithFlags(&mut exec, g, 0), 0);
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(
            DESTROYED.load(Ordering::SeqCst),
            0,
            "the executable holds it"
        );
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(cuGraphExecDestroy(exec), 0);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 1);
        assert_eq!(cuUserObjectRelease(o, 1), CUDA_ERROR_INVALID_VALUE);
    }
}
