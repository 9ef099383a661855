//! Conditional graph nodes through the driver API, in-process: WHILE, IF (with and
//! without an else body), SWITCH and nested conditionals whose handles kernels set with
//! `cudaGraphSetConditional` (tests/ptx/graph_cond.cu, compiled by nvcc 13.5), on both
//! backends; `cuGraphAddNode` for the other node types; the driver's rules (one
//! executable graph at a time, no cloning, no child graph, every handle used, allowed
//! body node types, body counts) and a kernel setting a handle outside a graph launch.
//! Expected values are hand-computed in comments (the semantics `cuda.h` documents for
//! `CUDA_CONDITIONAL_NODE_PARAMS`).

use cuda::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

const IF: u32 = 0;
const WHILE: u32 = 1;
const SWITCH: u32 = 2;
const ASSIGN_DEFAULT: u32 = 1;
const INVALID_VALUE: CUresult = 1;

struct Kernels {
    loop_step: CUfunction,
    set_cond: CUfunction,
    set_odd: CUfunction,
    add: CUfunction,
}

unsafe fn setup() -> Kernels {
    assert_eq!(cuInit(0), 0);
    let mut ctx = null_mut();
    assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
    assert_eq!(cuCtxSetCurrent(ctx), 0);
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/graph_cond.ptx");
    let src = CString::new(std::fs::read_to_string(p).unwrap()).unwrap();
    let mut m = null_mut();
    assert_eq!(cuModuleLoadData(&mut m, src.as_ptr() as *const c_void), 0);
    let f = |name: &std::ffi::CStr| {
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, name.as_ptr()), 0);
        f
    };
    Kernels {
        loop_step: f(c"loop_step"),
        set_cond: f(c"set_cond"),
        set_odd: f(c"set_odd"),
        add: f(c"add"),
    }
}

/// A kernel's `kernelParams` array and the argument bytes it points at.
struct Args {
    ptrs: Vec<*mut c_void>,
    _bytes: Vec<Box<[u8]>>,
}

impl Args {
    fn new(vals: &[&[u8]]) -> Args {
        let mut bytes: Vec<Box<[u8]>> = vals.iter().map(|v| v.to_vec().into()).collect();
        let ptrs = bytes
            .iter_mut()
            .map(|b| b.as_mut_ptr() as *mut c_void)
            .collect();
        Args {
            ptrs,
            _bytes: bytes,
        }
    }

    fn params(&mut self) -> *mut *mut c_void {
        self.ptrs.as_mut_ptr()
    }
}

/// A `CUgraphNodeParams` of `kind` with the union's first bytes from `data`.
fn node_params<T>(kind: u32, data: &T) -> GraphNodeParams {
    let mut p = GraphNodeParams {
        kind,
        reserved0: [0; 3],
        data: [0; 29],
        reserved2: 0,
    };
    let n = std::mem::size_of::<T>();
    assert!(n <= 29 * 8);
    // SAFETY: `data` is `n` bytes and the union holds 232.
    unsafe {
        std::ptr::copy_nonoverlapping(
            data as *const T as *const u8,
            p.data.as_mut_ptr() as *mut u8,
            n,
        )
    };
    p
}

/// Adds a kernel node for `f` (one block of `threads`) to `g` through `cuGraphAddNode`.
unsafe fn add_kernel(g: CUgraph, f: CUfunction, threads: u32, args: &mut Args) -> CUgraphNode {
    let k = KernelNodeParamsV2 {
        base: KernelNodeParams {
            func: f,
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            shared: 0,
            params: args.params(),
            extra: null_mut(),
        },
        kern: null_mut(),
        ctx: null_mut(),
    };
    let mut p = node_params(NODE_KERNEL, &k);
    let mut n = null_mut();
    assert_eq!(cuGraphAddNode_v2(&mut n, g, null(), null(), 0, &mut p), 0);
    n
}

/// Adds a conditional node on handle `h` to `g`; returns its body graphs.
unsafe fn add_cond(g: CUgraph, h: u64, kind: u32, size: u32) -> Result<Vec<CUgraph>, CUresult> {
    let c = CondNodeParams {
        handle: h,
        kind,
        size,
        graphs_out: null_mut(),
        ctx: null_mut(),
    };
    let mut p = node_params(NODE_CONDITIONAL, &c);
    let mut n = null_mut();
    match cuGraphAddNode(&mut n, g, null(), 0, &mut p) {
        0 => {}
        e => return Err(e),
    }
    let c = &*(p.data.as_ptr() as *const CondNodeParams);
    assert!(!c.graphs_out.is_null());
    Ok((0..size as usize).map(|i| *c.graphs_out.add(i)).collect())
}

unsafe fn new_graph() -> CUgraph {
    let mut g = null_mut();
    assert_eq!(cuGraphCreate(&mut g, 0), 0);
    g
}

unsafe fn new_handle(g: CUgraph, default: u32, flags: u32) -> u64 {
    let mut h = 0u64;
    assert_eq!(
        cuGraphConditionalHandleCreate(&mut h, g, null_mut(), default, flags),
        0
    );
    h
}

/// `n` zeroed u32s of device memory.
unsafe fn zeroed(n: usize) -> u64 {
    let mut p = 0u64;
    assert_eq!(cuMemAlloc_v2(&mut p, n * 4), 0);
    assert_eq!(cuMemsetD32_v2(p, 0, n), 0);
    p
}

unsafe fn read(p: u64, n: usize) -> Vec<u32> {
    let mut v = vec![0u32; n];
    assert_eq!(cuMemcpyDtoH_v2(v.as_mut_ptr() as *mut c_void, p, n * 4), 0);
    v
}

unsafe fn instantiate(g: CUgraph) -> CUgraphExec {
    let mut e = null_mut();
    assert_eq!(cuGraphInstantiateWithFlags(&mut e, g, 0), 0);
    e
}

/// WHILE: the body's kernel counts to `n` and clears the handle at `n`.
unsafe fn while_loop(k: &Kernels) {
    let g = new_graph();
    let h = new_handle(g, 1, ASSIGN_DEFAULT);
    let body = add_cond(g, h, WHILE, 1).unwrap();
    let counter = zeroed(1);
    let mut a = Args::new(&[
        &counter.to_le_bytes(),
        &5u32.to_le_bytes(),
        &h.to_le_bytes(),
    ]);
    add_kernel(body[0], k.loop_step, 32, &mut a);
    let e = instantiate(g);
    assert_eq!(cuGraphLaunch(e, null_mut()), 0);
    // Iterations with counter 1..=5; the fifth sets the handle to 0 (5 < 5 is false).
    assert_eq!(read(counter, 1), [5]);
    // The default 1 is assigned at each launch: one more iteration (6 < 5 is false).
    assert_eq!(cuGraphLaunch(e, null_mut()), 0);
    assert_eq!(read(counter, 1), [6]);
    let mut flags = 7u64;
    assert_eq!(cuGraphExecGetFlags(e, &mut flags), 0);
    assert_eq!(flags, 0);
    assert_eq!(cuGraphExecDestroy(e), 0);
    assert_eq!(cuGraphDestroy(g), 0);

    // Default 0: the body never runs.
    let g = new_graph();
    let h = new_handle(g, 0, 0);
    let body = add_cond(g, h, WHILE, 1).unwrap();
    let mut a = Args::new(&[
        &counter.to_le_bytes(),
        &100u32.to_le_bytes(),
        &h.to_le_bytes(),
    ]);
    add_kernel(body[0], k.loop_step, 1, &mut a);
    let e = instantiate(g);
    assert_eq!(cuGraphLaunch(e, null_mut()), 0);
    assert_eq!(read(counter, 1), [6]);
    assert_eq!(cuGraphExecDestroy(e), 0);
    assert_eq!(cuGraphDestroy(g), 0);
}

/// IF with an else body, and SWITCH: a kernel sets the handle, the node picks a body.
unsafe fn if_else_and_switch(k: &Kernels) {
    let out = zeroed(4);
    for (kind, size, value, want) in [
        // IF, 2 bodies: value 1 runs body 0 (+1), value 0 body 1 (+10).
        (IF, 2, 1u32, 1u32),
        (IF, 2, 0, 10),
        // IF, 1 body: value 0 runs nothing.
        (IF, 1, 0, 0),
        (IF, 1, 7, 1),
        // SWITCH, 3 bodies (+1, +10, +100): value 2 runs body 2, 3 runs none.
        (SWITCH, 3, 2, 100),
        (SWITCH, 3, 3, 0),
        (SWITCH, 3, 0, 1),
    ] {
        assert_eq!(cuMemsetD32_v2(out, 0, 4), 0);
        let g = new_graph();
        let h = new_handle(g, 0, 0);
        let mut set = Args::new(&[&h.to_le_bytes(), &value.to_le_bytes()]);
        add_kernel(g, k.set_cond, 32, &mut set);
        let bodies = add_cond(g, h, kind, size).unwrap();
        let mut adds: Vec<Args> = (0..size)
            .map(|i| Args::new(&[&out.to_le_bytes(), &10u32.pow(i).to_le_bytes()]))
            .collect();
        for (b, a) in bodies.iter().zip(adds.iter_mut()) {
            add_kernel(*b, k.add, 4, a);
        }
        let e = instantiate(g);
        assert_eq!(cuGraphLaunch(e, null_mut()), 0);
        assert_eq!(
            read(out, 4),
            [want; 4],
            "type {kind} size {size} value {value}"
        );
        assert_eq!(cuGraphExecDestroy(e), 0);
        assert_eq!(cuGraphDestroy(g), 0);
    }
}

/// A WHILE whose body holds an IF on a handle of the body graph: the loop counts 1..=4,
/// the IF adds 1 for the odd counts (1 and 3): 2.
unsafe fn nested(k: &Kernels) {
    let g = new_graph();
    let hw = new_handle(g, 1, ASSIGN_DEFAULT);
    let body = add_cond(g, hw, WHILE, 1).unwrap()[0];
    let counter = zeroed(1);
    let out = zeroed(1);
    let mut step = Args::new(&[
        &counter.to_le_bytes(),
        &4u32.to_le_bytes(),
        &hw.to_le_bytes(),
    ]);
    add_kernel(body, k.loop_step, 1, &mut step);
    let hi = new_handle(body, 0, 0);
    let mut odd = Args::new(&[&counter.to_le_bytes(), &hi.to_le_bytes()]);
    add_kernel(body, k.set_odd, 1, &mut odd);
    let inner = add_cond(body, hi, IF, 1).unwrap()[0];
    let mut add = Args::new(&[&out.to_le_bytes(), &1u32.to_le_bytes()]);
    add_kernel(inner, k.add, 1, &mut add);
    let e = instantiate(g);
    assert_eq!(cuGraphLaunch(e, null_mut()), 0);
    assert_eq!((read(counter, 1), read(out, 1)), (vec![4], vec![2]));
    // The node type, and the rules for graphs with conditional nodes.
    let mut nodes = [null_mut(); 1];
    let mut n = 1usize;
    assert_eq!(cuGraphGetNodes(g, nodes.as_mut_ptr(), &mut n), 0);
    let mut ty = 0u32;
    assert_eq!(cuGraphNodeGetType(nodes[0], &mut ty), 0);
    assert_eq!(ty, NODE_CONDITIONAL);
    let mut e2 = null_mut();
    assert_eq!(cuGraphInstantiateWithFlags(&mut e2, g, 0), INVALID_VALUE);
    let mut c = null_mut();
    assert_eq!(cuGraphClone(&mut c, g), INVALID_VALUE);
    let parent = new_graph();
    let mut cn = null_mut();
    assert_eq!(
        cuGraphAddChildGraphNode(&mut cn, parent, null(), 0, g),
        INVALID_VALUE
    );
    assert_eq!(cuGraphExecDestroy(e), 0);
    // Once the first is destroyed, a new executable graph starts from the defaults.
    let e = instantiate(g);
    assert_eq!(cuMemsetD32_v2(counter, 0, 1), 0);
    assert_eq!(cuGraphLaunch(e, null_mut()), 0);
    assert_eq!((read(counter, 1), read(out, 1)), (vec![4], vec![4]));
    assert_eq!(cuGraphExecDestroy(e), 0);
    assert_eq!(cuGraphDestroy(g), 0);
    assert_eq!(cuGraphDestroy(parent), 0);
}

#[test]
fn conditional_nodes_on_both_backends() {
    unsafe {
        let k = setup();
        for backend in ["jit", "interp"] {
            std::env::set_var("PTXJIT_CUDA_BACKEND", backend);
            while_loop(&k);
            if_else_and_switch(&k);
            nested(&k);
        }
        std::env::remove_var("PTXJIT_CUDA_BACKEND");
    }
}

#[test]
fn conditional_node_rules() {
    unsafe {
        let k = setup();
        let g = new_graph();
        let h = new_handle(g, 0, 0);
        // Body counts: WHILE 1, IF 1 or 2, SWITCH at least 1; an unknown type.
        for (kind, size) in [(WHILE, 2), (IF, 3), (IF, 0), (SWITCH, 0), (3, 1)] {
            assert_eq!(add_cond(g, h, kind, size).err(), Some(INVALID_VALUE));
        }
        // A handle of another graph, a value that is no handle, a bad flag.
        let other = new_graph();
        let ho = new_handle(other, 0, 0);
        assert_eq!(add_cond(g, ho, IF, 1).err(), Some(INVALID_VALUE));
        assert_eq!(add_cond(g, 12345, IF, 1).err(), Some(INVALID_VALUE));
        let mut x = 0u64;
        assert_eq!(
            cuGraphConditionalHandleCreate(&mut x, g, null_mut(), 0, 2),
            INVALID_VALUE
        );
        // A handle no conditional node uses fails instantiation.
        let mut e = null_mut();
        let mut ip = InstantiateParams {
            flags: 0,
            upload_stream: null_mut(),
            err_node: null_mut(),
            result: 0,
        };
        assert_eq!(
            cuGraphInstantiateWithParams(&mut e, g, &mut ip),
            INVALID_VALUE
        );
        assert_eq!(ip.result, 5); // CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED
                                  // A body may not hold a host node.
        let body = add_cond(g, h, IF, 1).unwrap()[0];
        let hp = HostNodeParams {
            f: Some(noop),
            data: null_mut(),
        };
        let mut hn = null_mut();
        assert_eq!(cuGraphAddHostNode(&mut hn, body, null(), 0, &hp), 0);
        assert_eq!(
            cuGraphInstantiateWithParams(&mut e, g, &mut ip),
            INVALID_VALUE
        );
        assert_eq!(ip.result, 2); // CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE
        assert_eq!(cuGraphDestroy(g), 0);
        assert_eq!(cuGraphDestroy(other), 0);

        // cudaGraphSetConditional outside a graph launch stops the kernel.
        let mut a = Args::new(&[&h.to_le_bytes(), &1u32.to_le_bytes()]);
        let r = cuLaunchKernel(
            k.set_cond,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            a.params(),
            null_mut(),
        );
        assert_ne!(r, 0);
    }
}

unsafe extern "C" fn noop(_: *mut c_void) {}

/// A graph with an IF node: `set_cond(h, value)`, then body 0 adds `add_by`.
unsafe fn if_graph(k: &Kernels, out: u64, value: u32, add_by: u32, kind: u32) -> CUgraph {
    let g = new_graph();
    let h = new_handle(g, 0, 0);
    let mut set = Args::new(&[&h.to_le_bytes(), &value.to_le_bytes()]);
    add_kernel(g, k.set_cond, 1, &mut set);
    let body = add_cond(g, h, kind, 1).unwrap()[0];
    let mut add = Args::new(&[&out.to_le_bytes(), &add_by.to_le_bytes()]);
    add_kernel(body, k.add, 1, &mut add);
    g
}

/// `cuGraphExecUpdate` takes another graph's conditional nodes, bodies and handles when
/// the nodes match (same types, conditional types and body counts), else fails.
#[test]
fn executable_graph_update_with_conditional_nodes() {
    unsafe {
        let k = setup();
        let out = zeroed(1);
        let g1 = if_graph(&k, out, 1, 3, IF);
        let e = instantiate(g1);
        assert_eq!(cuGraphLaunch(e, null_mut()), 0);
        assert_eq!(read(out, 1), [3]);
        // The same shape with value 1 and +20: 3 + 20 = 23.
        let g2 = if_graph(&k, out, 1, 20, IF);
        let mut info = ExecUpdateResultInfo {
            result: 9,
            error_node: null_mut(),
            error_from_node: null_mut(),
        };
        assert_eq!(cuGraphExecUpdate_v2(e, g2, &mut info), 0);
        assert_eq!(info.result, 0);
        assert_eq!(cuGraphLaunch(e, null_mut()), 0);
        assert_eq!(read(out, 1), [23]);
        // A SWITCH in the IF's place: CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED (5).
        let g3 = if_graph(&k, out, 0, 300, SWITCH);
        assert_eq!(cuGraphExecUpdate_v2(e, g3, &mut info), 910);
        assert_eq!(info.result, 5);
        // Still g2's graph: 23 + 20.
        assert_eq!(cuGraphLaunch(e, null_mut()), 0);
        assert_eq!(read(out, 1), [43]);
        assert_eq!(cuGraphExecDestroy(e), 0);
        for g in [g1, g2, g3] {
            assert_eq!(cuGraphDestroy(g), 0);
        }
    }
}
