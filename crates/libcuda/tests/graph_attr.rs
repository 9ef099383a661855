//! Graph memory accounting (`cuDeviceGetGraphMemAttribute` and the set/trim calls),
//! instantiation flags (`CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`,
//! `cuGraphExecGetFlags`), the one-executable-graph rule for graphs with memory nodes,
//! and `cuGraphKernelNodeGetParams{,_v2}` for explicit, captured, cloned and updated
//! kernel nodes. One test per concern that touches graph memory, since the counters are
//! the process's. Expected values: the sizes and arguments the test passes.

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

/// `CUgraphMem_attribute`.
const USED: u32 = 0;
const USED_HIGH: u32 = 1;
const RESERVED: u32 = 2;
const RESERVED_HIGH: u32 = 3;

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

unsafe fn attr(a: u32) -> u64 {
    let mut v = u64::MAX;
    assert_eq!(
        cuDeviceGetGraphMemAttribute(0, a, &mut v as *mut u64 as *mut c_void),
        0
    );
    v
}

unsafe fn set_attr(a: u32, v: u64) -> CUresult {
    let mut v = v;
    cuDeviceSetGraphMemAttribute(0, a, &mut v as *mut u64 as *mut c_void)
}

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

#[test]
fn graph_memory_attributes_and_auto_free() {
    unsafe {
        setup();
        assert_eq!((attr(USED), attr(RESERVED)), (0, 0));
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut ap = alloc_params(4096);
        let mut an = null_mut();
        assert_eq!(cuGraphAddMemAllocNode(&mut an, g, null(), 0, &mut ap), 0);
        let p = ap.dptr;
        let mut ms = null_mut();
        let mp = MemsetNodeParams {
            dst: p,
            pitch: 0,
            value: 7,
            element_size: 4,
            width: 1024,
            height: 1,
        };
        assert_eq!(cuGraphAddMemsetNode(&mut ms, g, &an, 1, &mp, null_mut()), 0);
        // Reserved when the node is added, used once a launch allocates.
        assert_eq!(
            (attr(USED), attr(RESERVED), attr(RESERVED_HIGH)),
            (0, 4096, 4096)
        );
        let mut e = null_mut();
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 1), 0);
        let mut flags = 0u64;
        assert_eq!(cuGraphExecGetFlags(e, &mut flags), 0);
        assert_eq!(flags, 1, "AUTO_FREE_ON_LAUNCH");
        // One executable graph at a time for a graph with memory nodes.
        let mut e2 = null_mut();
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut e2, g, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        // AUTO_FREE_ON_LAUNCH with DEVICE_LAUNCH, and an unknown flag.
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut e2, g, 5),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphLaunch(e, null_mut()), 0);
        assert_eq!((attr(USED), attr(USED_HIGH)), (4096, 4096));
        // The relaunch frees the live allocation first (without the flag it fails, see
        // tests/graph.rs).
        assert_eq!(cuGraphLaunch(e, null_mut()), 0);
        let mut v = [0u32; 1024];
        assert_eq!(cuMemcpyDtoH_v2(v.as_mut_ptr() as *mut c_void, p, 4096), 0);
        assert_eq!(v, [7u32; 1024]);
        assert_eq!(cuMemFree_v2(p), 0);
        assert_eq!((attr(USED), attr(USED_HIGH)), (0, 4096));
        // High watermarks reset to zero only; the current values cannot be set.
        assert_eq!(set_attr(USED_HIGH, 0), 0);
        assert_eq!(attr(USED_HIGH), 0);
        assert_eq!(set_attr(USED_HIGH, 5), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(set_attr(USED, 0), CUDA_ERROR_INVALID_VALUE);
        let mut x = 0u64;
        assert_eq!(
            cuDeviceGetGraphMemAttribute(1, USED, &mut x as *mut u64 as *mut c_void),
            CUDA_ERROR_INVALID_DEVICE
        );
        assert_eq!(cuGraphExecDestroy(e), 0);
        assert_eq!(cuGraphDestroy(g), 0);
        // The reservation went back with its graph; the high mark stays until reset.
        assert_eq!((attr(RESERVED), attr(RESERVED_HIGH)), (0, 4096));
        assert_eq!(set_attr(RESERVED_HIGH, 0), 0);
        assert_eq!(attr(RESERVED_HIGH), 0);
        assert_eq!(cuDeviceGraphMemTrim(0), 0);
        assert_eq!(cuDeviceGraphMemTrim(3), CUDA_ERROR_INVALID_DEVICE);

        // Flags: _UPLOAD is not reported; graphs without memory nodes instantiate twice.
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut en = null_mut();
        assert_eq!(cuGraphAddEmptyNode(&mut en, g, null(), 0), 0);
        assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 2 | 8), 0);
        assert_eq!(cuGraphInstantiateWithFlags(&mut e2, g, 0), 0);
        assert_eq!(cuGraphExecGetFlags(e, &mut flags), 0);
        assert_eq!(flags, 8, "USE_NODE_PRIORITY");
        assert_eq!(cuGraphExecDestroy(e), 0);
        assert_eq!(cuGraphExecDestroy(e2), 0);
        assert_eq!(cuGraphExecGetFlags(e, &mut flags), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuGraphDestroy(g), 0);
    }
}

/// saxpy's arguments `(n, a, x, y)`.
#[repr(C)]
struct Saxpy {
    n: u32,
    a: f32,
    x: u64,
    y: u64,
}

impl Saxpy {
    fn params(&mut self) -> [*mut c_void; 4] {
        [
            &mut self.n as *mut u32 as *mut c_void,
            &mut self.a as *mut f32 as *mut c_void,
            &mut self.x as *mut u64 as *mut c_void,
            &mut self.y as *mut u64 as *mut c_void,
        ]
    }
}

/// Node `n`'s parameters: (function, grid, block, shared, n, a, x, y).
unsafe fn get(n: CUgraphNode) -> (CUfunction, [u32; 3], [u32; 3], u32, u32, f32, u64, u64) {
    let mut p: KernelNodeParamsV2 = std::mem::zeroed();
    assert_eq!(cuGraphKernelNodeGetParams_v2(n, &mut p), 0);
    assert_eq!(p.kern, p.base.func);
    assert!(p.base.extra.is_null());
    let a = |i: usize| *p.base.params.add(i);
    (
        p.base.func,
        p.base.grid,
        p.base.block,
        p.base.shared,
        *(a(0) as *const u32),
        *(a(1) as *const f32),
        *(a(2) as *const u64),
        *(a(3) as *const u64),
    )
}

#[test]
fn kernel_node_get_params() {
    unsafe {
        let f = setup();
        let mut args = Saxpy {
            n: 300,
            a: 1.5,
            x: 0x1000,
            y: 0x2000,
        };
        let mut params = args.params();
        let kp = KernelNodeParams {
            func: f,
            grid: [10, 1, 1],
            block: [32, 1, 1],
            shared: 0,
            params: params.as_mut_ptr(),
            extra: null_mut(),
        };
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut kn = null_mut();
        assert_eq!(cuGraphAddKernelNode(&mut kn, g, null(), 0, &kp), 0);
        args.a = 99.0; // copied when the node was added
        assert_eq!(
            get(kn),
            (f, [10, 1, 1], [32, 1, 1], 0, 300, 1.5, 0x1000, 0x2000)
        );
        let mut v1: KernelNodeParams = std::mem::zeroed();
        assert_eq!(cuGraphKernelNodeGetParams(kn, &mut v1), 0);
        assert_eq!((v1.func, v1.grid), (f, [10, 1, 1]));
        // A clone has its own copy; setting the original's changes only it.
        let mut c = null_mut();
        assert_eq!(cuGraphClone(&mut c, g), 0);
        let mut ck = null_mut();
        assert_eq!(cuGraphNodeFindInClone(&mut ck, kn, c), 0);
        args.n = 64;
        let mut params = args.params();
        let kp2 = KernelNodeParams {
            block: [64, 1, 1],
            params: params.as_mut_ptr(),
            ..kp
        };
        assert_eq!(cuGraphKernelNodeSetParams(kn, &kp2), 0);
        assert_eq!(
            get(kn),
            (f, [10, 1, 1], [64, 1, 1], 0, 64, 99.0, 0x1000, 0x2000)
        );
        assert_eq!(
            get(ck),
            (f, [10, 1, 1], [32, 1, 1], 0, 300, 1.5, 0x1000, 0x2000)
        );
        // Not a kernel node.
        let mut en = null_mut();
        assert_eq!(cuGraphAddEmptyNode(&mut en, g, null(), 0), 0);
        assert_eq!(
            cuGraphKernelNodeGetParams(en, &mut v1),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(cuGraphDestroy(c), 0);

        // A captured launch.
        let mut s = null_mut();
        assert_eq!(cuStreamCreate(&mut s, 1), 0);
        assert_eq!(cuStreamBeginCapture_v2(s, 0), 0);
        let r = cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        assert_eq!(r, 0);
        assert_eq!(cuStreamEndCapture(s, &mut g), 0);
        let (mut nodes, mut n) = ([null_mut(); 1], 1usize);
        assert_eq!(cuGraphGetNodes(g, nodes.as_mut_ptr(), &mut n), 0);
        assert_eq!(n, 1);
        assert_eq!(
            get(nodes[0]),
            (f, [3, 1, 1], [128, 1, 1], 0, 64, 99.0, 0x1000, 0x2000)
        );
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(cuStreamDestroy_v2(s), 0);
    }
}
