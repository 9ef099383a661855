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

/// Two device buffers of `N` floats: x holding [`inputs`], and y.
unsafe fn alloc_xy() -> (u64, u64) {
    let bytes = N * 4;
    let (mut dx, mut dy) = (0u64, 0u64);
    assert_eq!(cuMemAlloc_v2(&mut dx, bytes), 0);
    assert_eq!(cuMemAlloc_v2(&mut dy, bytes), 0);
    let x = inputs();
    assert_eq!(cuMemcpyHtoD_v2(dx, x.as_ptr() as *const c_void, bytes), 0);
    (dx, dy)
}

/// saxpy's arguments `(n, a, x, y)`, kept where the kernel-parameter array points.
struct SaxpyArgs {
    n: u32,
    a: f32,
    x: u64,
    y: u64,
}

impl SaxpyArgs {
    fn new(a: f32, x: u64, y: u64) -> Box<SaxpyArgs> {
        Box::new(SaxpyArgs {
            n: N as u32,
            a,
            x,
            y,
        })
    }

    /// The `kernelParams` array (pointers into `self`).
    fn params(&mut self) -> [*mut c_void; 4] {
        [
            &mut self.n as *mut u32 as *mut c_void,
            &mut self.a as *mut f32 as *mut c_void,
            &mut self.x as *mut u64 as *mut c_void,
            &mut self.y as *mut u64 as *mut c_void,
        ]
    }
}

/// A kernel node's parameters for saxpy over `N` elements (blocks of 32).
fn saxpy_node(f: CUfunction, params: &mut [*mut c_void; 4]) -> KernelNodeParamsV2 {
    KernelNodeParamsV2 {
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
    }
}

/// A memset node's parameters: `N` floats of `v` at `dst`.
fn fill_node(dst: u64, v: f32) -> MemsetNodeParams {
    MemsetNodeParams {
        dst,
        pitch: 0,
        value: v.to_bits(),
        element_size: 4,
        width: N,
        height: 1,
    }
}

/// `N` floats of device memory at `p`.
unsafe fn read(p: u64) -> Vec<f32> {
    let mut out = vec![0f32; N];
    assert_eq!(
        cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, p, N * 4),
        0
    );
    out
}

/// `y = a*x + 1` for each input (y starts as 1.0 from a memset).
fn saxpy_of(a: f32) -> Vec<f32> {
    inputs().iter().map(|&x| a.mul_add(x, 1.0)).collect()
}

/// Instantiates `g` and launches it once on the NULL stream.
unsafe fn run_once(g: CUgraph) -> CUgraphExec {
    let mut exec = null_mut();
    assert_eq!(cuGraphInstantiateWithFlags(&mut exec, g, 0), 0);
    assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
    exec
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
        let (dx, dy) = alloc_xy();
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
        let mut args = SaxpyArgs::new(A, dx, dy);
        let mut params = args.params();
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
        args.a = 100.0;
        args.n = 0;
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
        let mut out = vec![0f32; N];
        let count = AtomicU32::new(0);
        let bytes = N * 4;
        let (dx, dy) = alloc_xy();
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut ms = null_mut();
        let mp = fill_node(dy, 1.0);
        assert_eq!(
            cuGraphAddMemsetNode(&mut ms, g, null(), 0, &mp, null_mut()),
            0
        );
        let mut args = SaxpyArgs::new(A, dx, dy);
        let mut params = args.params();
        let kp = saxpy_node(f, &mut params);
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

/// Event nodes: a record node stamps its event when a launch reaches it (timing
/// against an event recorded on a stream works then, not before); a wait node checks
/// its event; the get/set calls and the node types.
#[test]
fn event_record_and_wait_nodes() {
    unsafe {
        setup();
        let (mut e0, mut e1, mut e2) = (null_mut(), null_mut(), null_mut());
        assert_eq!(cuEventCreate(&mut e0, 0), 0);
        assert_eq!(cuEventCreate(&mut e1, 0), 0);
        assert_eq!(cuEventCreate(&mut e2, 0), 0);
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let (mut rec, mut wait) = (null_mut(), null_mut());
        assert_eq!(cuGraphAddEventRecordNode(&mut rec, g, null(), 0, e1), 0);
        assert_eq!(cuGraphAddEventWaitNode(&mut wait, g, &rec, 1, e1), 0);
        let bad = 0x1234usize as CUevent;
        let mut n = null_mut();
        assert_eq!(
            cuGraphAddEventRecordNode(&mut n, g, null(), 0, bad),
            CUDA_ERROR_INVALID_HANDLE
        );
        let (mut ty, mut got) = (0u32, null_mut());
        assert_eq!(cuGraphNodeGetType(rec, &mut ty), 0);
        assert_eq!(ty, 7, "CU_GRAPH_NODE_TYPE_EVENT_RECORD");
        assert_eq!(cuGraphNodeGetType(wait, &mut ty), 0);
        assert_eq!(ty, 6, "CU_GRAPH_NODE_TYPE_WAIT_EVENT");
        assert_eq!(cuGraphEventRecordNodeGetEvent(rec, &mut got), 0);
        assert_eq!(got, e1);
        assert_eq!(
            cuGraphEventWaitNodeGetEvent(rec, &mut got),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuEventRecord(e0, null_mut()), 0);
        let mut ms = 0f32;
        assert_eq!(
            cuEventElapsedTime(&mut ms, e0, e1),
            CUDA_ERROR_INVALID_HANDLE,
            "e1 not recorded yet"
        );
        let exec = run_once(g);
        assert_eq!(cuEventQuery(e1), 0);
        assert_eq!(cuEventElapsedTime(&mut ms, e0, e1), 0);
        assert!(ms >= 0.0, "{ms}");
        // Pointing the record node at e2 (the executable graph keeps e1).
        assert_eq!(cuGraphEventRecordNodeSetEvent(rec, e2), 0);
        assert_eq!(cuGraphEventRecordNodeGetEvent(rec, &mut got), 0);
        assert_eq!(got, e2);
        assert_eq!(cuGraphEventWaitNodeSetEvent(wait, e2), 0);
        assert_eq!(cuGraphEventWaitNodeGetEvent(wait, &mut got), 0);
        assert_eq!(got, e2);
        let exec2 = run_once(g);
        assert_eq!(cuEventElapsedTime(&mut ms, e0, e2), 0);
        // A launch whose wait node's event is gone fails.
        assert_eq!(cuEventDestroy_v2(e1), 0);
        assert_eq!(cuGraphLaunch(exec, null_mut()), CUDA_ERROR_INVALID_HANDLE);
        for e in [exec, exec2] {
            assert_eq!(cuGraphExecDestroy(e), 0);
        }
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(cuEventDestroy_v2(e0), 0);
        assert_eq!(cuEventDestroy_v2(e2), 0);
    }
}

/// A child graph node runs a copy of the child (memset and saxpy); `cuGraphClone`
/// copies a graph with its child; both run after the originals are destroyed.
#[test]
fn child_graph_nodes_and_clone() {
    unsafe {
        let f = setup();
        let (dx, dy) = alloc_xy();
        let count = AtomicU32::new(0);
        let mut child = null_mut();
        assert_eq!(cuGraphCreate(&mut child, 0), 0);
        let (mut ms, mut kn) = (null_mut(), null_mut());
        let mp = fill_node(dy, 1.0);
        assert_eq!(
            cuGraphAddMemsetNode(&mut ms, child, null(), 0, &mp, null_mut()),
            0
        );
        let mut args = SaxpyArgs::new(A, dx, dy);
        let mut params = args.params();
        let kp = saxpy_node(f, &mut params);
        assert_eq!(cuGraphAddKernelNode_v2(&mut kn, child, &ms, 1, &kp), 0);
        let mut parent = null_mut();
        assert_eq!(cuGraphCreate(&mut parent, 0), 0);
        let (mut cn, mut hn) = (null_mut(), null_mut());
        assert_eq!(
            cuGraphAddChildGraphNode(&mut cn, parent, null(), 0, child),
            0
        );
        let hp = HostNodeParams {
            f: Some(bump),
            data: &count as *const AtomicU32 as *mut c_void,
        };
        assert_eq!(cuGraphAddHostNode(&mut hn, parent, &cn, 1, &hp), 0);
        let mut ty = 0u32;
        assert_eq!(cuGraphNodeGetType(cn, &mut ty), 0);
        assert_eq!(ty, 4, "CU_GRAPH_NODE_TYPE_GRAPH");
        // The node holds a copy: the child graph can go.
        assert_eq!(cuGraphDestroy(child), 0);
        let mut inner = null_mut();
        assert_eq!(cuGraphChildGraphNodeGetGraph(cn, &mut inner), 0);
        let mut nodes = 0usize;
        assert_eq!(cuGraphGetNodes(inner, null_mut(), &mut nodes), 0);
        assert_eq!(nodes, 2);

        let mut clone = null_mut();
        assert_eq!(cuGraphClone(&mut clone, parent), 0);
        assert_eq!(cuGraphClone(null_mut(), parent), CUDA_ERROR_INVALID_VALUE);
        let (mut hn2, mut both) = (null_mut(), [null_mut(); 2]);
        assert_eq!(cuGraphNodeFindInClone(&mut hn2, hn, clone), 0);
        assert_eq!(cuGraphGetNodes(clone, both.as_mut_ptr(), &mut 2usize), 0);
        assert_eq!(hn2, both[1], "the host node's copy");
        assert_eq!(
            cuGraphNodeFindInClone(&mut hn2, hn, parent),
            CUDA_ERROR_INVALID_VALUE,
            "the parent is not a clone"
        );
        let exec = run_once(parent);
        assert_eq!(read(dy), saxpy_of(A));
        assert_eq!(count.load(Ordering::SeqCst), 1);
        assert_eq!(cuGraphDestroy(parent), 0);
        assert_eq!(
            cuGraphChildGraphNodeGetGraph(cn, &mut inner),
            CUDA_ERROR_INVALID_VALUE,
            "the node went with its graph"
        );
        assert_eq!(cuMemsetD32_v2(dy, 0, N), 0);
        let exec2 = run_once(clone);
        assert_eq!(read(dy), saxpy_of(A));
        assert_eq!(count.load(Ordering::SeqCst), 2);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(count.load(Ordering::SeqCst), 3);
        for e in [exec, exec2] {
            assert_eq!(cuGraphExecDestroy(e), 0);
        }
        assert_eq!(cuGraphDestroy(clone), 0);
        assert_eq!(cuMemFree_v2(dx), 0);
        assert_eq!(cuMemFree_v2(dy), 0);
    }
}

/// `CUDA_MEM_ALLOC_NODE_PARAMS` for `bytes` on device 0.
fn alloc_params(bytes: usize) -> MemAllocNodeParams {
    MemAllocNodeParams {
        pool_props: MemPoolProps {
            alloc_type: 1,    // CU_MEM_ALLOCATION_TYPE_PINNED
            handle_types: 0,  // CU_MEM_HANDLE_TYPE_NONE
            location_type: 1, // CU_MEM_LOCATION_TYPE_DEVICE
            location_id: 0,
            win32_security_attributes: 0,
            max_size: 0,
            usage: 0,
            reserved: [0; 54],
        },
        access_descs: 0,
        access_desc_count: 0,
        bytesize: bytes,
        dptr: 0,
    }
}

/// Memory nodes: an allocation used by a memset, a kernel and a copy, then freed in
/// the graph (launched twice); an allocation the graph does not free lives after the
/// launch until `cuMemFree`, and a relaunch before that fails; the driver's errors.
#[test]
fn memory_alloc_and_free_nodes() {
    unsafe {
        let f = setup();
        // sizeof(CUDA_MEM_ALLOC_NODE_PARAMS) is 120 (gcc with CUDA 12.9's cuda.h).
        assert_eq!(std::mem::size_of::<MemAllocNodeParams>(), 120);
        let (dx, dy) = alloc_xy();
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut ap = alloc_params(N * 4);
        let mut an = null_mut();
        assert_eq!(cuGraphAddMemAllocNode(&mut an, g, null(), 0, &mut ap), 0);
        let tmp = ap.dptr;
        assert!(tmp != 0);
        let mut ms = null_mut();
        let mp = fill_node(tmp, 1.0);
        assert_eq!(cuGraphAddMemsetNode(&mut ms, g, &an, 1, &mp, null_mut()), 0);
        let mut args = SaxpyArgs::new(A, dx, tmp);
        let mut params = args.params();
        let kp = saxpy_node(f, &mut params);
        let mut kn = null_mut();
        assert_eq!(cuGraphAddKernelNode_v2(&mut kn, g, &ms, 1, &kp), 0);
        let mut cp: CudaMemcpy3d = std::mem::zeroed();
        cp.src_memory_type = 2; // CU_MEMORYTYPE_DEVICE
        cp.src_device = tmp;
        cp.dst_memory_type = 2;
        cp.dst_device = dy;
        cp.width_in_bytes = N * 4;
        cp.height = 1;
        cp.depth = 1;
        let mut cn = null_mut();
        assert_eq!(cuGraphAddMemcpyNode(&mut cn, g, &kn, 1, &cp, null_mut()), 0);
        let mut fnode = null_mut();
        assert_eq!(cuGraphAddMemFreeNode(&mut fnode, g, &cn, 1, tmp), 0);
        let mut n2 = null_mut();
        assert_eq!(
            cuGraphAddMemFreeNode(&mut n2, g, &fnode, 1, tmp),
            CUDA_ERROR_INVALID_VALUE,
            "freed twice"
        );
        assert_eq!(
            cuGraphAddMemFreeNode(&mut n2, g, &fnode, 1, dx),
            CUDA_ERROR_INVALID_VALUE,
            "not graph memory"
        );
        let (mut ty, mut got, mut back) = (0u32, 0u64, alloc_params(0));
        assert_eq!(cuGraphNodeGetType(an, &mut ty), 0);
        assert_eq!(ty, 10, "CU_GRAPH_NODE_TYPE_MEM_ALLOC");
        assert_eq!(cuGraphNodeGetType(fnode, &mut ty), 0);
        assert_eq!(ty, 11, "CU_GRAPH_NODE_TYPE_MEM_FREE");
        assert_eq!(cuGraphMemFreeNodeGetParams(fnode, &mut got), 0);
        assert_eq!(got, tmp);
        assert_eq!(cuGraphMemAllocNodeGetParams(an, &mut back), 0);
        assert_eq!((back.bytesize, back.dptr), (N * 4, tmp));
        let mut clone = null_mut();
        assert_eq!(
            cuGraphClone(&mut clone, g),
            CUDA_ERROR_INVALID_VALUE,
            "graphs with memory nodes cannot be cloned"
        );
        let mut bad = alloc_params(0);
        assert_eq!(
            cuGraphAddMemAllocNode(&mut n2, g, null(), 0, &mut bad),
            CUDA_ERROR_INVALID_VALUE
        );
        bad = alloc_params(64);
        bad.pool_props.location_id = 1;
        assert_eq!(
            cuGraphAddMemAllocNode(&mut n2, g, null(), 0, &mut bad),
            CUDA_ERROR_INVALID_DEVICE
        );
        let mut exec = run_once(g);
        assert_eq!(read(dy), saxpy_of(A));
        // Freed by the graph: no allocation now, and not for cuMemFree.
        let (mut base, mut size) = (0u64, 0usize);
        assert_eq!(
            cuMemGetAddressRange_v2(&mut base, &mut size, tmp),
            CUDA_ERROR_NOT_FOUND
        );
        assert_eq!(cuMemFree_v2(tmp), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemsetD32_v2(dy, 0, N), 0);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(read(dy), saxpy_of(A));
        assert_eq!(cuGraphExecDestroy(exec), 0);
        assert_eq!(cuGraphDestroy(g), 0);

        // An allocation the graph leaves live.
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut ap = alloc_params(N * 4);
        assert_eq!(cuGraphAddMemAllocNode(&mut an, g, null(), 0, &mut ap), 0);
        let live = ap.dptr;
        let mp = fill_node(live, 2.5);
        assert_eq!(cuGraphAddMemsetNode(&mut ms, g, &an, 1, &mp, null_mut()), 0);
        exec = run_once(g);
        assert_eq!(read(live), vec![2.5f32; N]);
        assert_eq!(cuMemGetAddressRange_v2(&mut base, &mut size, live + 4), 0);
        assert_eq!((base, size), (live, N * 4));
        assert_eq!(
            cuGraphLaunch(exec, null_mut()),
            CUDA_ERROR_INVALID_VALUE,
            "relaunch before the allocation is freed"
        );
        assert_eq!(cuMemFree_v2(live), 0);
        assert_eq!(cuMemFree_v2(live), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(read(live), vec![2.5f32; N], "the same address again");
        assert_eq!(cuGraphExecDestroy(exec), 0);
        assert_eq!(cuGraphDestroy(g), 0);
        // Still live after its graph went: cuMemFree gives it back.
        assert_eq!(read(live), vec![2.5f32; N]);
        assert_eq!(cuMemFree_v2(live), 0);
        assert_eq!(cuMemFree_v2(dx), 0);
        assert_eq!(cuMemFree_v2(dy), 0);
    }
}

/// `cuGraphExecKernelNodeSetParams` changes one kernel of an executable graph;
/// `cuGraphExecUpdate` takes another graph's parameters when its nodes match, and
/// reports a changed topology or node type.
#[test]
fn executable_graph_updates() {
    unsafe {
        let f = setup();
        let (dx, dy) = alloc_xy();
        // memset y = 1, then y = a*x + y with a = A.
        let graph = |a: f32, args: &mut Box<SaxpyArgs>| {
            args.a = a;
            let mut g = null_mut();
            assert_eq!(cuGraphCreate(&mut g, 0), 0);
            let (mut ms, mut kn) = (null_mut(), null_mut());
            let mp = fill_node(dy, 1.0);
            assert_eq!(
                cuGraphAddMemsetNode(&mut ms, g, null(), 0, &mp, null_mut()),
                0
            );
            let mut params = args.params();
            let kp = saxpy_node(f, &mut params);
            assert_eq!(cuGraphAddKernelNode_v2(&mut kn, g, &ms, 1, &kp), 0);
            (g, kn)
        };
        let mut args = SaxpyArgs::new(A, dx, dy);
        let (g, kn) = graph(A, &mut args);
        let exec = run_once(g);
        assert_eq!(read(dy), saxpy_of(A));
        args.a = 2.0;
        let mut params = args.params();
        let kp = saxpy_node(f, &mut params);
        assert_eq!(cuGraphExecKernelNodeSetParams_v2(exec, kn, &kp), 0);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(read(dy), saxpy_of(2.0));
        let mut ms = null_mut();
        assert_eq!(cuGraphGetNodes(g, &mut ms, &mut 1usize), 0);
        assert_eq!(
            cuGraphExecKernelNodeSetParams_v2(exec, ms, &kp),
            CUDA_ERROR_INVALID_VALUE,
            "not a kernel node"
        );

        let mut args3 = SaxpyArgs::new(A, dx, dy);
        let (g3, _) = graph(3.0, &mut args3);
        let mut info = ExecUpdateResultInfo {
            result: 9,
            error_node: null_mut(),
            error_from_node: null_mut(),
        };
        assert_eq!(cuGraphExecUpdate_v2(exec, g3, &mut info), 0);
        assert_eq!(info.result, 0);
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(read(dy), saxpy_of(3.0));

        // One node more: the topology changed (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE).
        let mut en = null_mut();
        assert_eq!(cuGraphAddEmptyNode(&mut en, g3, null(), 0), 0);
        assert_eq!(cuGraphExecUpdate_v2(exec, g3, &mut info), 910);
        assert_eq!(
            info.result, 2,
            "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED"
        );
        // The same count with an empty node for the kernel: a node type changed.
        let mut g4 = null_mut();
        assert_eq!(cuGraphCreate(&mut g4, 0), 0);
        let (mut m4, mut e4) = (null_mut(), null_mut());
        let mp = fill_node(dy, 1.0);
        assert_eq!(
            cuGraphAddMemsetNode(&mut m4, g4, null(), 0, &mp, null_mut()),
            0
        );
        assert_eq!(cuGraphAddEmptyNode(&mut e4, g4, &m4, 1), 0);
        let (mut bad, mut result) = (null_mut(), 0u32);
        assert_eq!(cuGraphExecUpdate(exec, g4, &mut bad, &mut result), 910);
        assert_eq!(
            (result, bad),
            (3, e4),
            "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED"
        );
        // The failed updates left the executable graph as it was.
        assert_eq!(cuGraphLaunch(exec, null_mut()), 0);
        assert_eq!(read(dy), saxpy_of(3.0));

        // cuGraphKernelNodeSetParams changes the graph for later instantiations.
        args.a = 0.5;
        let mut params = args.params();
        let kp = saxpy_node(f, &mut params);
        assert_eq!(cuGraphKernelNodeSetParams_v2(kn, &kp), 0);
        let exec2 = run_once(g);
        assert_eq!(read(dy), saxpy_of(0.5));
        for e in [exec, exec2] {
            assert_eq!(cuGraphExecDestroy(e), 0);
        }
        for g in [g, g3, g4] {
            assert_eq!(cuGraphDestroy(g), 0);
        }
        assert_eq!(cuMemFree_v2(dx), 0);
        assert_eq!(cuMemFree_v2(dy), 0);
    }
}
