//! CUDA graph topology and node parameters through the driver API, in-process: a graph
//! whose nodes are added without dependencies and ordered afterwards with
//! `cuGraphAddDependencies` (memset, then saxpy, then a copy), so its result depends on
//! the edges; the topology queries against the edges added; removing edges, cycles,
//! destroying nodes; parameter round trips of memset, memcpy and host nodes; updates of
//! single nodes of an executable graph and of child graphs; disabled nodes; clones
//! keeping edges; kernel node attributes; edge data of `cuGraphAddNode_v2`; the DOT
//! dump and ids. Expected values are computed
//! in the test (f32 `mul_add`, the kernel's `fma.rn.f32`).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, Ordering};

const N: usize = 64;
const A: f32 = 1.5;

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

fn inputs() -> Vec<f32> {
    (0..N).map(|i| i as f32 * 0.5 - 9.0).collect()
}

/// Device buffers x (holding [`inputs`]), y and z, of `N` floats, y and z zeroed.
unsafe fn buffers() -> [u64; 3] {
    let mut b = [0u64; 3];
    for p in &mut b {
        assert_eq!(cuMemAlloc_v2(p, N * 4), 0);
        assert_eq!(cuMemsetD32_v2(*p, 0, N), 0);
    }
    let x = inputs();
    assert_eq!(cuMemcpyHtoD_v2(b[0], x.as_ptr() as *const c_void, N * 4), 0);
    b
}

unsafe fn read(p: u64) -> Vec<f32> {
    let mut out = vec![0f32; N];
    assert_eq!(
        cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, p, N * 4),
        0
    );
    out
}

/// saxpy's arguments `(n, a, x, y)`, where the kernel-parameter array points.
struct Args {
    n: u32,
    a: f32,
    x: u64,
    y: u64,
    ptrs: [*mut c_void; 4],
}

impl Args {
    fn new(x: u64, y: u64) -> Box<Args> {
        let mut a = Box::new(Args {
            n: N as u32,
            a: A,
            x,
            y,
            ptrs: [null_mut(); 4],
        });
        a.ptrs = [
            &mut a.n as *mut u32 as *mut c_void,
            &mut a.a as *mut f32 as *mut c_void,
            &mut a.x as *mut u64 as *mut c_void,
            &mut a.y as *mut u64 as *mut c_void,
        ];
        a
    }

    fn node(&mut self, f: CUfunction) -> KernelNodeParams {
        KernelNodeParams {
            func: f,
            grid: [(N / 32) as u32, 1, 1],
            block: [32, 1, 1],
            shared: 0,
            params: self.ptrs.as_mut_ptr(),
            extra: null_mut(),
        }
    }
}

fn fill(dst: u64, v: f32) -> MemsetNodeParams {
    MemsetNodeParams {
        dst,
        pitch: 0,
        value: v.to_bits(),
        element_size: 4,
        width: N,
        height: 1,
    }
}

/// `CU_MEMORYTYPE_DEVICE`.
const MEM_DEVICE: u32 = 2;

/// A device-to-device copy of `N` floats.
fn copy(src: u64, dst: u64) -> CudaMemcpy3d {
    CudaMemcpy3d {
        src_x_in_bytes: 0,
        src_y: 0,
        src_z: 0,
        src_lod: 0,
        src_memory_type: MEM_DEVICE,
        src_host: null(),
        src_device: src,
        src_array: null_mut(),
        reserved0: null_mut(),
        src_pitch: N * 4,
        src_height: 1,
        dst_x_in_bytes: 0,
        dst_y: 0,
        dst_z: 0,
        dst_lod: 0,
        dst_memory_type: MEM_DEVICE,
        dst_host: null_mut(),
        dst_device: dst,
        dst_array: null_mut(),
        reserved1: null_mut(),
        dst_pitch: N * 4,
        dst_height: 1,
        width_in_bytes: N * 4,
        height: 1,
        depth: 1,
    }
}

/// `a*x + y0` for each input.
fn saxpy(y0: &[f32]) -> Vec<f32> {
    inputs()
        .iter()
        .zip(y0)
        .map(|(&x, &y)| A.mul_add(x, y))
        .collect()
}

unsafe fn instantiate(g: CUgraph) -> CUgraphExec {
    let mut e = null_mut();
    assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 0), 0);
    e
}

unsafe fn launch(e: CUgraphExec) {
    assert_eq!(cuGraphLaunch(e, null_mut()), 0);
}

/// The graph's edges as (from, to) pairs.
unsafe fn edges(g: CUgraph) -> Vec<(CUgraphNode, CUgraphNode)> {
    let mut n = 0usize;
    assert_eq!(cuGraphGetEdges(g, null_mut(), null_mut(), &mut n), 0);
    let (mut from, mut to) = (vec![null_mut(); n], vec![null_mut(); n]);
    assert_eq!(
        cuGraphGetEdges(g, from.as_mut_ptr(), to.as_mut_ptr(), &mut n),
        0
    );
    from.into_iter().zip(to).collect()
}

/// A node query `q(node, array, count)` as a list (count first, then the array).
unsafe fn list(
    q: unsafe extern "C" fn(CUgraphNode, *mut CUgraphNode, *mut usize) -> CUresult,
    node: CUgraphNode,
) -> Vec<CUgraphNode> {
    let mut n = 0usize;
    assert_eq!(q(node, null_mut(), &mut n), 0);
    let mut v = vec![null_mut(); n];
    assert_eq!(q(node, v.as_mut_ptr(), &mut n), 0);
    v
}

unsafe fn roots(g: CUgraph) -> Vec<CUgraphNode> {
    let mut n = 0usize;
    assert_eq!(cuGraphGetRootNodes(g, null_mut(), &mut n), 0);
    let mut v = vec![null_mut(); n];
    assert_eq!(cuGraphGetRootNodes(g, v.as_mut_ptr(), &mut n), 0);
    v
}

/// `CUDA_ERROR_INVALID_VALUE`, `CUDA_ERROR_LOSSY_QUERY`,
/// `CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE`.
const INVALID: CUresult = 1;
const LOSSY: CUresult = 402;
const INVALID_STRUCTURE: u32 = 2;
/// `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`, `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED`.
const UPDATE_FAILURE: CUresult = 910;
const TOPOLOGY_CHANGED: u32 = 2;

#[test]
fn edges_added_later_order_the_launch() {
    unsafe {
        let f = setup();
        for backend in ["jit", "interp"] {
            std::env::set_var("PTXJIT_CUDA_BACKEND", backend);
            order_by_edges(f);
        }
        std::env::remove_var("PTXJIT_CUDA_BACKEND");
    }
}

/// See [`edges_added_later_order_the_launch`].
unsafe fn order_by_edges(f: CUfunction) {
    let [x, y, z] = buffers();
    let mut args = Args::new(x, y);
    let mut g = null_mut();
    assert_eq!(cuGraphCreate(&mut g, 0), 0);
    // Added kernel, memset, copy, none depending on another.
    let (mut k, mut s, mut c) = (null_mut(), null_mut(), null_mut());
    assert_eq!(cuGraphAddKernelNode(&mut k, g, null(), 0, &args.node(f)), 0);
    assert_eq!(
        cuGraphAddMemsetNode(&mut s, g, null(), 0, &fill(y, 1.0), null_mut()),
        0
    );
    assert_eq!(
        cuGraphAddMemcpyNode(&mut c, g, null(), 0, &copy(y, z), null_mut()),
        0
    );
    assert_eq!(roots(g), vec![k, s, c]);
    // memset -> kernel -> copy.
    let from = [s, k];
    let to = [k, c];
    assert_eq!(cuGraphAddDependencies(g, from.as_ptr(), to.as_ptr(), 2), 0);
    assert_eq!(edges(g), vec![(s, k), (k, c)]);
    assert_eq!(roots(g), vec![s]);
    assert_eq!(list(cuGraphNodeGetDependencies, k), vec![s]);
    assert_eq!(list(cuGraphNodeGetDependentNodes, k), vec![c]);
    assert_eq!(list(cuGraphNodeGetDependencies, s), vec![]);
    // An array larger than the edges: the rest NULL, the count written back.
    let mut n = 4usize;
    let (mut fr, mut tt) = ([x as CUgraphNode; 4], [x as CUgraphNode; 4]);
    let mut data = [EdgeData {
        from_port: 9,
        to_port: 9,
        kind: 9,
        reserved: [9; 5],
    }; 4];
    let r = cuGraphGetEdges_v2(
        g,
        fr.as_mut_ptr(),
        tt.as_mut_ptr(),
        data.as_mut_ptr(),
        &mut n,
    );
    assert_eq!((r, n), (0, 2));
    assert_eq!(
        (fr, tt),
        (
            [s, k, null_mut(), null_mut()],
            [k, c, null_mut(), null_mut()]
        )
    );
    assert!(data.iter().all(|d| *d == EdgeData::default()));
    // An array smaller: that many entries.
    let mut n = 1usize;
    let r = cuGraphGetEdges(g, fr.as_mut_ptr(), tt.as_mut_ptr(), &mut n);
    assert_eq!((r, n, fr[0], tt[0]), (0, 1, s, k));
    // An existing edge, a self-edge, non-default data off kernel nodes: refused.
    assert_eq!(cuGraphAddDependencies(g, &s, &k, 1), INVALID);
    assert_eq!(cuGraphAddDependencies(g, &s, &s, 1), INVALID);
    let prog = EdgeData {
        from_port: 0,
        to_port: 0,
        kind: 1,
        reserved: [0; 5],
    };
    assert_eq!(cuGraphAddDependencies_v2(g, &c, &s, &prog, 1), INVALID);

    // memset y = 1, y = A*x + y, z = y.
    let e1 = instantiate(g);
    launch(e1);
    let want = saxpy(&[1.0; N]);
    assert_eq!(read(z), want);

    // Without memset -> kernel, the kernel (added first) runs first, then the memset
    // (y = 1), then the copy (after the kernel): z = 1.
    assert_eq!(cuGraphRemoveDependencies(g, &s, &k, 1), 0);
    assert_eq!(cuGraphRemoveDependencies(g, &s, &k, 1), INVALID);
    assert_eq!(edges(g), vec![(k, c)]);
    assert_eq!(roots(g), vec![k, s]);
    // The executable graph cannot take the new topology by an update.
    let mut info = ExecUpdateResultInfo {
        result: 0,
        error_node: null_mut(),
        error_from_node: null_mut(),
    };
    assert_eq!(cuGraphExecUpdate_v2(e1, g, &mut info), UPDATE_FAILURE);
    assert_eq!(info.result, TOPOLOGY_CHANGED);
    let e2 = instantiate(g);
    launch(e2);
    assert_eq!(read(z), vec![1.0; N]);
    assert_eq!(read(y), vec![1.0; N]);
    // The first executable graph keeps its order.
    launch(e1);
    assert_eq!(read(z), want);

    // A cycle fails instantiation.
    assert_eq!(cuGraphAddDependencies(g, &c, &k, 1), 0);
    let mut p = InstantiateParams {
        flags: 0,
        upload_stream: null_mut(),
        err_node: null_mut(),
        result: 0,
    };
    let mut e3 = null_mut();
    assert_eq!(cuGraphInstantiateWithParams(&mut e3, g, &mut p), INVALID);
    assert_eq!(p.result, INVALID_STRUCTURE);

    // Destroying the copy node takes its edges.
    assert_eq!(cuGraphDestroyNode(c), 0);
    assert_eq!(edges(g), vec![]);
    let mut n = 0usize;
    assert_eq!(cuGraphGetNodes(g, null_mut(), &mut n), 0);
    assert_eq!(n, 2);
    let mut owner = null_mut();
    assert_eq!(cuGraphNodeGetContainingGraph(k, &mut owner), 0);
    assert_eq!(owner, g);
    assert_eq!(cuGraphNodeGetContainingGraph(c, &mut owner), INVALID);
    for e in [e1, e2] {
        assert_eq!(cuGraphExecDestroy(e), 0);
    }
    assert_eq!(cuGraphDestroy(g), 0);
}

#[test]
fn programmatic_edges_between_kernels_and_lossy_queries() {
    unsafe {
        let f = setup();
        let [x, y, _] = buffers();
        let mut args = Args::new(x, y);
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let (mut k1, mut k2) = (null_mut(), null_mut());
        assert_eq!(
            cuGraphAddKernelNode(&mut k1, g, null(), 0, &args.node(f)),
            0
        );
        assert_eq!(
            cuGraphAddKernelNode(&mut k2, g, null(), 0, &args.node(f)),
            0
        );
        let prog = EdgeData {
            from_port: 1,
            to_port: 0,
            kind: 1,
            reserved: [0; 5],
        };
        assert_eq!(cuGraphAddDependencies_v2(g, &k1, &k2, &prog, 1), 0);
        let mut n = 1usize;
        let mut d = null_mut();
        assert_eq!(cuGraphNodeGetDependencies(k2, &mut d, &mut n), LOSSY);
        let mut data = EdgeData::default();
        assert_eq!(
            cuGraphNodeGetDependencies_v2(k2, &mut d, &mut data, &mut n),
            0
        );
        assert_eq!((d, data, n), (k1, prog, 1));
        // Counting is not lossy.
        assert_eq!(cuGraphGetEdges(g, null_mut(), null_mut(), &mut n), 0);
        assert_eq!(n, 1);
        // Removing needs the same data.
        assert_eq!(cuGraphRemoveDependencies(g, &k1, &k2, 1), INVALID);
        assert_eq!(cuGraphRemoveDependencies_v2(g, &k1, &k2, &prog, 1), 0);
        assert_eq!(cuGraphDestroy(g), 0);
    }
}

#[test]
fn captured_work_depends_on_the_capture_sequence() {
    unsafe {
        let f = setup();
        let [x, y, _] = buffers();
        let mut args = Args::new(x, y);
        let mut s = null_mut();
        assert_eq!(cuStreamCreate(&mut s, 1), 0);
        assert_eq!(cuStreamBeginCapture_v2(s, 0), 0);
        let p = fill(y, 1.0);
        assert_eq!(cuMemsetD32Async(p.dst, p.value, N, s), 0);
        let mut kp = args.ptrs;
        let r = cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, kp.as_mut_ptr(), null_mut());
        assert_eq!(r, 0);
        let mut g = null_mut();
        assert_eq!(cuStreamEndCapture(s, &mut g), 0);
        let mut nodes = [null_mut(); 2];
        let mut n = 2usize;
        assert_eq!(cuGraphGetNodes(g, nodes.as_mut_ptr(), &mut n), 0);
        assert_eq!(edges(g), vec![(nodes[0], nodes[1])]);
        let e = instantiate(g);
        launch(e);
        assert_eq!(read(y), saxpy(&[1.0; N]));

        // Capturing into an existing graph after a given node: a memset y = 2 node
        // (added after the kernel) comes first through the dependency.
        let mut m = null_mut();
        assert_eq!(
            cuGraphAddMemsetNode(&mut m, g, null(), 0, &fill(y, 2.0), null_mut()),
            0
        );
        assert_eq!(cuStreamBeginCaptureToGraph(s, g, &m, null(), 1, 0), 0);
        let r = cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, kp.as_mut_ptr(), null_mut());
        assert_eq!(r, 0);
        let mut g2 = null_mut();
        assert_eq!(cuStreamEndCapture(s, &mut g2), 0);
        assert_eq!(g2, g);
        let mut all = [null_mut(); 4];
        let mut n = 4usize;
        assert_eq!(cuGraphGetNodes(g, all.as_mut_ptr(), &mut n), 0);
        assert_eq!(n, 4);
        assert_eq!(edges(g), vec![(nodes[0], nodes[1]), (m, all[3])]);
        // memset 1, saxpy | memset 2, saxpy: the first pair runs first (insertion order
        // among ready nodes), then y = A*x + 2.
        let e2 = instantiate(g);
        launch(e2);
        assert_eq!(read(y), saxpy(&[2.0; N]));
        let _ = &mut args;
        for e in [e, e2] {
            assert_eq!(cuGraphExecDestroy(e), 0);
        }
        assert_eq!(cuGraphDestroy(g), 0);
    }
}

unsafe extern "C" fn bump(data: *mut c_void) {
    (*(data as *const AtomicU32)).fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn bump10(data: *mut c_void) {
    (*(data as *const AtomicU32)).fetch_add(10, Ordering::SeqCst);
}

#[test]
fn node_parameters_round_trip_and_exec_updates() {
    unsafe {
        let f = setup();
        let [x, y, z] = buffers();
        let mut args = Args::new(x, y);
        let count = AtomicU32::new(0);
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let (mut s, mut k, mut c, mut h) = (null_mut(), null_mut(), null_mut(), null_mut());
        assert_eq!(
            cuGraphAddMemsetNode(&mut s, g, null(), 0, &fill(y, 1.0), null_mut()),
            0
        );
        assert_eq!(cuGraphAddKernelNode(&mut k, g, &s, 1, &args.node(f)), 0);
        assert_eq!(
            cuGraphAddMemcpyNode(&mut c, g, &k, 1, &copy(y, z), null_mut()),
            0
        );
        let hp = HostNodeParams {
            f: Some(bump),
            data: &count as *const AtomicU32 as *mut c_void,
        };
        assert_eq!(cuGraphAddHostNode(&mut h, g, &c, 1, &hp), 0);

        // Round trips.
        let mut m = fill(0, 0.0);
        assert_eq!(cuGraphMemsetNodeGetParams(s, &mut m), 0);
        assert_eq!((m.dst, m.value, m.width), (y, 1.0f32.to_bits(), N));
        let mut cp = copy(0, 0);
        assert_eq!(cuGraphMemcpyNodeGetParams(c, &mut cp), 0);
        assert_eq!(
            (cp.src_device, cp.dst_device, cp.width_in_bytes),
            (y, z, N * 4)
        );
        let mut hq = HostNodeParams {
            f: None,
            data: null_mut(),
        };
        assert_eq!(cuGraphHostNodeGetParams(h, &mut hq), 0);
        assert_eq!(hq.data, hp.data);
        assert_eq!(cuGraphMemsetNodeGetParams(k, &mut m), INVALID);
        // The generic getter: type and the type's parameters.
        let mut gp = GraphNodeParams {
            kind: 99,
            reserved0: [0; 3],
            data: [-1; 29],
            reserved2: 0,
        };
        assert_eq!(cuGraphNodeGetParams(s, &mut gp), 0);
        let ms = std::ptr::read(gp.data.as_ptr() as *const MemsetNodeParams);
        assert_eq!((gp.kind, ms.dst, ms.value), (2, y, 1.0f32.to_bits()));
        assert_eq!(gp.data[6], 0, "the memset's context: NULL");
        assert_eq!(cuGraphNodeGetParams(k, &mut gp), 0);
        let kp = std::ptr::read(gp.data.as_ptr() as *const KernelNodeParamsV2);
        assert_eq!((gp.kind, kp.base.func, kp.base.grid), (0, f, [2, 1, 1]));
        assert_eq!(cuGraphNodeGetParams(c, &mut gp), 0);
        let cq = std::ptr::read((gp.data.as_ptr() as *const u8).add(16) as *const CudaMemcpy3d);
        assert_eq!((gp.kind, cq.src_device, cq.dst_device), (1, y, z));
        assert_eq!(cuGraphNodeGetParams(h, &mut gp), 0);
        assert_eq!((gp.kind, gp.data[1] as usize), (3, hp.data as usize));

        let e = instantiate(g);
        // Graph-level set: later instantiations only.
        assert_eq!(cuGraphMemsetNodeSetParams(s, &fill(y, 2.0)), 0);
        assert_eq!(cuGraphMemsetNodeGetParams(s, &mut m), 0);
        assert_eq!(m.value, 2.0f32.to_bits());
        launch(e);
        assert_eq!(read(z), saxpy(&[1.0; N]));
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let e2 = instantiate(g);
        launch(e2);
        assert_eq!(read(z), saxpy(&[2.0; N]));

        // Exec-level sets: the next launch of that executable graph.
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, s, &fill(y, 3.0), null_mut()),
            0
        );
        assert_eq!(
            cuGraphExecMemcpyNodeSetParams(e, c, &copy(x, z), null_mut()),
            0
        );
        let hp10 = HostNodeParams {
            f: Some(bump10),
            data: hp.data,
        };
        assert_eq!(cuGraphExecHostNodeSetParams(e, h, &hp10), 0);
        launch(e);
        assert_eq!(read(y), saxpy(&[3.0; N]));
        assert_eq!(read(z), inputs(), "the copy now copies x");
        assert_eq!(count.load(Ordering::SeqCst), 1 + 1 + 10);
        // A parameter set of the wrong node type is refused.
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, k, &fill(y, 3.0), null_mut()),
            INVALID
        );

        // Disabling the memset: y accumulates.
        let mut on = 7u32;
        assert_eq!(cuGraphNodeGetEnabled(e, s, &mut on), 0);
        assert_eq!(on, 1);
        assert_eq!(cuGraphNodeSetEnabled(e, s, 0), 0);
        assert_eq!(cuGraphNodeGetEnabled(e, s, &mut on), 0);
        assert_eq!(on, 0);
        assert_eq!(
            cuGraphNodeSetEnabled(e, h, 0),
            INVALID,
            "host nodes cannot be disabled"
        );
        let before = read(y);
        launch(e);
        assert_eq!(read(y), saxpy(&before));
        // An update while disabled shows once enabled again.
        assert_eq!(
            cuGraphExecMemsetNodeSetParams(e, s, &fill(y, 4.0), null_mut()),
            0
        );
        let before = read(y);
        launch(e);
        assert_eq!(read(y), saxpy(&before));
        assert_eq!(cuGraphNodeSetEnabled(e, s, 1), 0);
        launch(e);
        assert_eq!(read(y), saxpy(&[4.0; N]));

        // The generic setter: a memset through `CUgraphNodeParams`.
        let mut gp = GraphNodeParams {
            kind: 2,
            reserved0: [0; 3],
            data: [0; 29],
            reserved2: 0,
        };
        std::ptr::write(gp.data.as_mut_ptr() as *mut MemsetNodeParams, fill(y, 5.0));
        assert_eq!(cuGraphExecNodeSetParams(e, s, &mut gp), 0);
        launch(e);
        assert_eq!(read(y), saxpy(&[5.0; N]));
        assert_eq!(cuGraphNodeSetParams(s, &mut gp), 0);
        assert_eq!(cuGraphMemsetNodeGetParams(s, &mut m), 0);
        assert_eq!(m.value, 5.0f32.to_bits());
        gp.kind = 0;
        assert_eq!(cuGraphNodeSetParams(s, &mut gp), INVALID, "type mismatch");

        let _ = &mut args;
        for e in [e, e2] {
            assert_eq!(cuGraphExecDestroy(e), 0);
        }
        assert_eq!(cuGraphDestroy(g), 0);
    }
}

unsafe fn tools_id(n: CUgraphNode) -> u64 {
    let mut id = 0u64;
    assert_eq!(cuGraphNodeGetToolsId(n, &mut id), 0);
    id
}

/// memset y = `v`, then saxpy (y = A*x + y), added in reverse order and ordered by an
/// edge; returns the graph and its (memset, kernel) nodes.
unsafe fn fill_then_saxpy(
    f: CUfunction,
    args: &mut Args,
    y: u64,
    v: f32,
) -> (CUgraph, CUgraphNode, CUgraphNode) {
    let mut g = null_mut();
    assert_eq!(cuGraphCreate(&mut g, 0), 0);
    let (mut k, mut s) = (null_mut(), null_mut());
    assert_eq!(cuGraphAddKernelNode(&mut k, g, null(), 0, &args.node(f)), 0);
    assert_eq!(
        cuGraphAddMemsetNode(&mut s, g, null(), 0, &fill(y, v), null_mut()),
        0
    );
    assert_eq!(cuGraphAddDependencies(g, &s, &k, 1), 0);
    (g, s, k)
}

#[test]
fn clones_child_graphs_attributes_and_ids() {
    unsafe {
        let f = setup();
        let [x, y, _] = buffers();
        let mut args = Args::new(x, y);
        let (g, s, k) = fill_then_saxpy(f, &mut args, y, 1.0);

        // A clone keeps the edges.
        let mut c = null_mut();
        assert_eq!(cuGraphClone(&mut c, g), 0);
        let (mut cs, mut ck) = (null_mut(), null_mut());
        assert_eq!(cuGraphNodeFindInClone(&mut cs, s, c), 0);
        assert_eq!(cuGraphNodeFindInClone(&mut ck, k, c), 0);
        assert_eq!(edges(c), vec![(cs, ck)]);
        let (mut gi, mut ci) = (0u32, 0u32);
        assert_eq!(cuGraphGetId(g, &mut gi), 0);
        assert_eq!(cuGraphGetId(c, &mut ci), 0);
        assert_ne!(gi, ci);
        let (mut li, mut lk) = (0u32, 0u32);
        assert_eq!(cuGraphNodeGetLocalId(s, &mut li), 0);
        assert_eq!(cuGraphNodeGetLocalId(k, &mut lk), 0);
        assert_ne!(li, lk);

        // A child graph node runs the child in its edges' order; the executable graph's
        // child node takes another graph of the same shape.
        let mut parent = null_mut();
        assert_eq!(cuGraphCreate(&mut parent, 0), 0);
        let mut child = null_mut();
        assert_eq!(
            cuGraphAddChildGraphNode(&mut child, parent, null(), 0, g),
            0
        );
        let e = instantiate(parent);
        let mut ei = 0u32;
        assert_eq!(cuGraphExecGetId(e, &mut ei), 0);
        launch(e);
        assert_eq!(read(y), saxpy(&[1.0; N]));
        let (g2, _, _) = fill_then_saxpy(f, &mut args, y, 2.0);
        assert_eq!(cuGraphExecChildGraphNodeSetParams(e, child, g2), 0);
        launch(e);
        assert_eq!(read(y), saxpy(&[2.0; N]));
        let mut g3 = null_mut();
        assert_eq!(cuGraphCreate(&mut g3, 0), 0);
        let mut empty = null_mut();
        assert_eq!(cuGraphAddEmptyNode(&mut empty, g3, null(), 0), 0);
        assert_eq!(cuGraphExecChildGraphNodeSetParams(e, child, g3), INVALID);
        // The same nodes in the same order without the edge: another topology.
        let mut g4 = null_mut();
        assert_eq!(cuGraphCreate(&mut g4, 0), 0);
        let (mut s4, mut k4) = (null_mut(), null_mut());
        assert_eq!(
            cuGraphAddMemsetNode(&mut s4, g4, null(), 0, &fill(y, 4.0), null_mut()),
            0
        );
        assert_eq!(
            cuGraphAddKernelNode(&mut k4, g4, null(), 0, &args.node(f)),
            0
        );
        assert_eq!(cuGraphExecChildGraphNodeSetParams(e, child, g4), INVALID);
        assert_eq!(cuGraphAddDependencies(g4, &s4, &k4, 1), 0);
        assert_eq!(cuGraphExecChildGraphNodeSetParams(e, child, g4), 0);
        launch(e);
        assert_eq!(read(y), saxpy(&[4.0; N]));

        // Kernel node attributes: kept, copied; the cluster dimension is honoured (2
        // blocks in one cluster of 2 computes the same).
        let mut v = [0u32; 16];
        assert_eq!(cuGraphKernelNodeGetAttribute(k, 8, &mut v), 0);
        assert_eq!(v, [0; 16]);
        let mut prio = [0u32; 16];
        prio[0] = 3;
        assert_eq!(cuGraphKernelNodeSetAttribute(k, 8, &prio), 0);
        let mut cluster = [0u32; 16];
        cluster[..3].copy_from_slice(&[2, 1, 1]);
        assert_eq!(cuGraphKernelNodeSetAttribute(k, 4, &cluster), 0);
        assert_eq!(cuGraphKernelNodeCopyAttributes(ck, k), 0);
        assert_eq!(cuGraphKernelNodeGetAttribute(ck, 8, &mut v), 0);
        assert_eq!(v, prio);
        assert_eq!(cuGraphKernelNodeGetAttribute(ck, 4, &mut v), 0);
        assert_eq!(v, cluster);
        assert_eq!(cuGraphKernelNodeGetAttribute(s, 8, &mut v), INVALID);
        let ge = instantiate(g);
        launch(ge);
        assert_eq!(read(y), saxpy(&[1.0; N]));
        // A cluster of 3 does not divide the grid of 2 blocks; setting the kernel's
        // parameters keeps the attribute.
        cluster[0] = 3;
        assert_eq!(cuGraphKernelNodeSetAttribute(k, 4, &cluster), 0);
        assert_eq!(cuGraphKernelNodeSetParams(k, &args.node(f)), 0);
        let mut bad = null_mut();
        let r = cuGraphInstantiateWithFlags(&mut bad, g, 0);
        assert_eq!(r, 0);
        assert_ne!(cuGraphLaunch(bad, null_mut()), 0, "cluster 3 over 2 blocks");
        assert_eq!(cuGraphExecDestroy(bad), 0);

        // `cuGraphAddNode_v2`: programmatic edge data from a memset is refused and the
        // node not added.
        let mut gp = GraphNodeParams {
            kind: 5,
            reserved0: [0; 3],
            data: [0; 29],
            reserved2: 0,
        };
        let prog = EdgeData {
            from_port: 0,
            to_port: 0,
            kind: 1,
            reserved: [0; 5],
        };
        let mut n2 = null_mut();
        let r = cuGraphAddNode_v2(
            &mut n2,
            g,
            &s,
            &prog as *const EdgeData as *const c_void,
            1,
            &mut gp,
        );
        assert_eq!(r, INVALID);
        let mut n = 0usize;
        assert_eq!(cuGraphGetNodes(g, null_mut(), &mut n), 0);
        assert_eq!(n, 2);

        // The DOT dump: both nodes and the edge.
        let path = std::env::temp_dir().join(format!("ptxjit-graph-{}.dot", std::process::id()));
        let cpath = CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(cuGraphDebugDotPrint(g, cpath.as_ptr(), 0), 0);
        let dot = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let (is, ik) = (tools_id(s), tools_id(k));
        assert!(dot.starts_with("digraph"), "{dot}");
        assert!(
            dot.contains(&format!("n{is} [label=\"MEMSET {is}\"]")),
            "{dot}"
        );
        assert!(
            dot.contains(&format!("n{ik} [label=\"KERNEL {ik}\"]")),
            "{dot}"
        );
        assert!(dot.contains(&format!("n{is} -> n{ik};")), "{dot}");

        for e in [e, ge] {
            assert_eq!(cuGraphExecDestroy(e), 0);
        }
        for g in [g, c, g2, g3, g4, parent] {
            assert_eq!(cuGraphDestroy(g), 0);
        }
    }
}

#[test]
fn executable_event_nodes_take_another_event() {
    unsafe {
        setup();
        let (mut e1, mut e2) = (null_mut(), null_mut());
        assert_eq!(cuEventCreate(&mut e1, 0), 0);
        assert_eq!(cuEventCreate(&mut e2, 0), 0);
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(&mut g, 0), 0);
        let mut r = null_mut();
        assert_eq!(cuGraphAddEventRecordNode(&mut r, g, null(), 0, e1), 0);
        let e = instantiate(g);
        assert_eq!(cuGraphExecEventRecordNodeSetEvent(e, r, e2), 0);
        assert_eq!(
            cuGraphExecEventWaitNodeSetEvent(e, r, e2),
            INVALID,
            "not a wait node"
        );
        launch(e);
        // e2 was recorded by the launch, e1 never was.
        let mut ms = 0f32;
        assert_eq!(cuEventElapsedTime(&mut ms, e2, e2), 0);
        assert_ne!(cuEventElapsedTime(&mut ms, e1, e1), 0);
        // The graph's node still records e1.
        let mut got = null_mut();
        assert_eq!(cuGraphEventRecordNodeGetEvent(r, &mut got), 0);
        assert_eq!(got, e1);
        assert_eq!(cuGraphExecDestroy(e), 0);
        assert_eq!(cuGraphDestroy(g), 0);
    }
}

/// Host functions for the fork/join capture: each appends its tag to the order list.
static ORDER: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn note(data: *mut c_void) {
    ORDER.lock().unwrap().push(data as usize as u32);
}

#[test]
fn fork_join_capture_keeps_each_streams_dependencies() {
    unsafe {
        setup();
        let (mut a, mut b) = (null_mut(), null_mut());
        assert_eq!(cuStreamCreate(&mut a, 1), 0);
        assert_eq!(cuStreamCreate(&mut b, 1), 0);
        let (mut fork, mut join) = (null_mut(), null_mut());
        assert_eq!(cuEventCreate(&mut fork, 2), 0);
        assert_eq!(cuEventCreate(&mut join, 2), 0);
        let host = |s: CUstream, tag: usize| {
            assert_eq!(cuLaunchHostFunc(s, Some(note), tag as *mut c_void), 0);
        };
        // a: 1, fork; b: wait fork, 2, join; a: 3, wait join, 4.
        assert_eq!(cuStreamBeginCapture_v2(a, 0), 0);
        host(a, 1);
        assert_eq!(cuEventRecord(fork, a), 0);
        assert_eq!(cuStreamWaitEvent(b, fork, 0), 0);
        host(b, 2);
        assert_eq!(cuEventRecord(join, b), 0);
        host(a, 3);
        assert_eq!(cuStreamWaitEvent(a, join, 0), 0);
        host(a, 4);
        let mut g = null_mut();
        assert_eq!(cuStreamEndCapture(a, &mut g), 0);
        let mut n = [null_mut(); 4];
        let mut count = 4usize;
        assert_eq!(cuGraphGetNodes(g, n.as_mut_ptr(), &mut count), 0);
        assert_eq!(count, 4);
        // 1 -> 2 and 1 -> 3 (the fork), 3 -> 4 and 2 -> 4 (the join).
        assert_eq!(
            edges(g),
            vec![(n[0], n[1]), (n[0], n[2]), (n[2], n[3]), (n[1], n[3])]
        );
        assert_eq!(roots(g), vec![n[0]]);
        ORDER.lock().unwrap().clear();
        let e = instantiate(g);
        launch(e);
        assert_eq!(*ORDER.lock().unwrap(), [1, 2, 3, 4]);
        assert_eq!(cuGraphExecDestroy(e), 0);
        assert_eq!(cuGraphDestroy(g), 0);
    }
}
