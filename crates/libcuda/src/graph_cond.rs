//! Conditional graph nodes (CUDA 12.3+), `cuGraphAddNode` (the tagged-union way to add
//! any node) and what an executable graph runs: its plan of operations and conditional
//! steps, its conditional handles' values and its instantiation flags.
//!
//! A conditional handle (`cuGraphConditionalHandleCreate`) belongs to a graph and is used
//! by a conditional node in that graph or in a graph nested in it (a body). A conditional
//! node (`CU_GRAPH_NODE_TYPE_CONDITIONAL`) owns `size` body graphs, made empty by the
//! driver and returned in `phGraph_out` for the caller to fill: IF runs body 0 when the
//! handle's value is non-zero, else body 1 if there is one (`size` 2, CUDA 12.8);
//! WHILE runs body 0 as long as the value is non-zero, checked before each iteration;
//! SWITCH runs body `n` for value `n < size`, no body otherwise. Bodies hold kernels,
//! empty nodes, child graphs, memsets, memcopies and conditionals (other node types fail
//! instantiation), as `cuda.h` documents.
//!
//! Each executable graph has its own values: every handle of the graph and of the graphs
//! nested in it, set to its default value at instantiation and, with
//! `CU_GRAPH_COND_ASSIGN_DEFAULT`, again at the start of each launch (without it the value
//! is undefined on a GPU; here it keeps the last value set). Kernels set values with
//! `cudaGraphSetConditional` (a device-runtime built-in, `ptxjit::exec::graphcond`): a
//! launch of an executable graph hands its value table to every kernel it runs. Graphs
//! with conditional nodes cannot be cloned or made child graphs and have one executable
//! graph at a time; a handle no conditional node uses fails instantiation
//! (`CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED`).
//!
//! Instantiation flags: `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH` frees the
//! graph's allocations still live when it is launched again (without it that relaunch
//! fails, see [`crate::graph_nodes`]); `cuGraphExecGetFlags` returns the flags less
//! `_UPLOAD`.

use crate::graph::*;
use crate::graph_nodes::{Flat, NodeParams};
use crate::*;
use ptxjit::{ConditionsRef, GraphConditions};
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

/// `CU_GRAPH_NODE_TYPE_CONDITIONAL`.
pub const NODE_CONDITIONAL: u32 = 13;
/// `CUgraphConditionalNodeType`.
const COND_IF: u32 = 0;
const COND_WHILE: u32 = 1;
const COND_SWITCH: u32 = 2;
/// `CU_GRAPH_COND_ASSIGN_DEFAULT`.
const ASSIGN_DEFAULT: u32 = 1;
/// `CUgraphInstantiateResult`: `CUDA_GRAPH_INSTANTIATE_ERROR`,
/// `_INVALID_STRUCTURE`, `_CONDITIONAL_HANDLE_UNUSED`.
pub const INSTANTIATE_ERROR: u32 = 1;
const INSTANTIATE_INVALID_STRUCTURE: u32 = 2;
const INSTANTIATE_HANDLE_UNUSED: u32 = 5;
/// `CUgraphInstantiate_flags`.
const FLAG_AUTO_FREE_ON_LAUNCH: u64 = 1;
const FLAG_UPLOAD: u64 = 2;
const FLAG_DEVICE_LAUNCH: u64 = 4;
const FLAG_USE_NODE_PRIORITY: u64 = 8;
/// Conditional handle values: this tag and an id (so a stray value is not a handle).
const HANDLE_TAG: u64 = 0x7d00_0000_0000_0000;

/// A conditional handle.
pub struct CondHandle {
    /// The graph it was created for.
    pub graph: u64,
    pub default: u32,
    pub assign_default: bool,
}

/// A conditional node.
pub struct CondNode {
    pub handle: u64,
    pub kind: u32,
    /// Its body graphs.
    pub bodies: Vec<u64>,
    /// The `phGraph_out` array handed to the caller (the bodies' handles; valid for the
    /// node's life).
    pub out: Box<[usize]>,
}

/// One step of an executable graph's plan.
pub enum Step {
    /// The operation at this index of the executable graph's operations.
    Op(usize),
    /// A conditional node: its handle, type and bodies' plans.
    Cond {
        handle: u64,
        kind: u32,
        bodies: Vec<Vec<Step>>,
    },
}

/// What an executable graph runs besides its operations.
pub struct ExecInfo {
    /// The graph it was instantiated from.
    pub graph: u64,
    pub flags: u64,
    pub steps: Arc<Vec<Step>>,
    pub conds: Arc<GraphConditions>,
    /// The handles reset at each launch (`CU_GRAPH_COND_ASSIGN_DEFAULT`) and their values.
    pub defaults: Arc<Vec<(u64, u32)>>,
    /// The addresses of its allocation nodes.
    pub allocs: Arc<Vec<u64>>,
    /// Its graph's edges (see [`Flat::shape`]).
    pub shape: Vec<(usize, usize, usize)>,
}

/// The plan's parts of `flat` for an executable graph: values, defaults, allocations.
fn exec_parts(t: &Tables, flat: &Flat) -> (GraphConditions, Vec<(u64, u32)>, Vec<u64>) {
    let graphs: HashSet<u64> = flat.graphs.iter().copied().collect();
    let handles: Vec<(&u64, &CondHandle)> = t
        .graphs
        .conds
        .iter()
        .filter(|(_, h)| graphs.contains(&h.graph))
        .collect();
    let conds = GraphConditions::new(handles.iter().map(|(&v, h)| (v, h.default)));
    let defaults = handles
        .iter()
        .filter(|(_, h)| h.assign_default)
        .map(|(&v, h)| (v, h.default))
        .collect();
    let allocs = flat
        .nodes
        .iter()
        .filter_map(|n| match n.params {
            NodeParams::MemAlloc(p) => Some(p),
            _ => None,
        })
        .collect();
    (conds, defaults, allocs)
}

/// Instantiates graph `gid` with `flags`: the executable graph's id, or the error and
/// the `CUgraphInstantiateResult`.
pub fn instantiate_graph(t: &mut Tables, gid: u64, flags: u64) -> Result<u64, (CUresult, u32)> {
    let invalid = |r| (CUDA_ERROR_INVALID_VALUE, r);
    let known =
        FLAG_AUTO_FREE_ON_LAUNCH | FLAG_UPLOAD | FLAG_DEVICE_LAUNCH | FLAG_USE_NODE_PRIORITY;
    let auto_device = FLAG_AUTO_FREE_ON_LAUNCH | FLAG_DEVICE_LAUNCH;
    if flags & !known != 0 || flags & auto_device == auto_device {
        return Err(invalid(INSTANTIATE_ERROR));
    }
    // One executable graph at a time for graphs with memory or conditional nodes.
    let exists = t.graphs.exec_info.values().any(|i| i.graph == gid);
    if exists && graph_nodes::has_restricted_nodes(t, gid) {
        return Err(invalid(INSTANTIATE_ERROR));
    }
    let flat = graph_nodes::flatten(t, gid);
    if flat.cycle {
        return Err(invalid(INSTANTIATE_INVALID_STRUCTURE));
    }
    let allowed = [
        NODE_KERNEL,
        NODE_EMPTY,
        NODE_MEMSET,
        NODE_MEMCPY,
        NODE_CONDITIONAL,
    ];
    if flat
        .nodes
        .iter()
        .any(|n| n.in_body && !allowed.contains(&n.kind))
    {
        return Err(invalid(INSTANTIATE_INVALID_STRUCTURE));
    }
    let graphs: HashSet<u64> = flat.graphs.iter().copied().collect();
    let used: HashSet<u64> = flat
        .nodes
        .iter()
        .filter_map(|n| match n.params {
            NodeParams::Conditional(c) => t.graphs.cond_nodes.get(&c).map(|c| c.handle),
            _ => None,
        })
        .collect();
    let unused = t
        .graphs
        .conds
        .iter()
        .any(|(v, h)| graphs.contains(&h.graph) && !used.contains(v));
    if unused {
        return Err(invalid(INSTANTIATE_HANDLE_UNUSED));
    }
    let (conds, defaults, allocs) = exec_parts(t, &flat);
    let id = t.new_id();
    t.graphs.exec_info.insert(
        id,
        ExecInfo {
            graph: gid,
            flags: flags & !FLAG_UPLOAD,
            steps: Arc::new(flat.steps),
            conds: Arc::new(conds),
            defaults: Arc::new(defaults),
            allocs: Arc::new(allocs),
            shape: flat.shape,
        },
    );
    t.graphs.execs.insert(id, flat.ops);
    t.graphs.exec_nodes.insert(id, flat.nodes);
    Ok(id)
}

/// `cuGraphExecUpdate` of executable graph `eid` to `flat` (checked to have the same
/// nodes): its operations, plan and handles become those of the new graph.
pub fn update_exec(t: &mut Tables, eid: u64, flat: Flat) {
    let (conds, defaults, allocs) = exec_parts(t, &flat);
    if let Some(i) = t.graphs.exec_info.get_mut(&eid) {
        i.steps = Arc::new(flat.steps);
        i.conds = Arc::new(conds);
        i.defaults = Arc::new(defaults);
        i.allocs = Arc::new(allocs);
    }
    t.graphs.execs.insert(eid, flat.ops);
    graph_params::after_update(t, eid);
}

/// Whether two nodes' parameters agree for `cuGraphExecUpdate`: conditional nodes of
/// the same type and number of bodies (other nodes always agree here).
pub fn same_conditional(t: &Tables, a: &NodeParams, b: &NodeParams) -> bool {
    match (a, b) {
        (NodeParams::Conditional(a), NodeParams::Conditional(b)) => {
            let (a, b) = (t.graphs.cond_nodes.get(a), t.graphs.cond_nodes.get(b));
            match (a, b) {
                (Some(a), Some(b)) => a.kind == b.kind && a.bodies.len() == b.bodies.len(),
                _ => false,
            }
        }
        _ => true,
    }
}

thread_local! {
    /// The values of the executable graph this thread is running (kernel nodes hand
    /// them to their launch).
    static CURRENT: RefCell<Option<Arc<GraphConditions>>> = const { RefCell::new(None) };
}

/// The conditional values of the graph launch in progress on this thread, if any.
pub fn current_conditions() -> Option<ConditionsRef> {
    CURRENT.with(|c| c.borrow().clone().map(ConditionsRef))
}

/// Makes `c` this thread's current values until dropped (then the previous ones).
struct Scope(Option<Arc<GraphConditions>>);

impl Scope {
    fn enter(c: Arc<GraphConditions>) -> Scope {
        Scope(CURRENT.with(|cur| cur.borrow_mut().replace(c)))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let prev = self.0.take();
        CURRENT.with(|cur| *cur.borrow_mut() = prev);
    }
}

/// Runs `steps` over `ops` with the handle values `conds`.
fn run_steps(steps: &[Step], ops: &[Op], conds: &GraphConditions) -> Res {
    for s in steps {
        match s {
            Step::Op(i) => ops.get(*i).ok_or(CUDA_ERROR_INVALID_VALUE)?()?,
            Step::Cond {
                handle,
                kind,
                bodies,
            } => {
                let value = || conds.get(*handle).unwrap_or(0);
                match *kind {
                    COND_WHILE => {
                        while value() != 0 {
                            run_steps(&bodies[0], ops, conds)?;
                        }
                    }
                    COND_IF => {
                        let body = if value() != 0 {
                            bodies.first()
                        } else {
                            bodies.get(1)
                        };
                        if let Some(b) = body {
                            run_steps(b, ops, conds)?;
                        }
                    }
                    _ => {
                        if let Some(b) = bodies.get(value() as usize) {
                            run_steps(b, ops, conds)?;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Frees the allocations at `allocs` that are live (`AUTO_FREE_ON_LAUNCH`).
fn auto_free(allocs: &[u64]) -> Res {
    with_ctx(|d, t, _| {
        for p in allocs {
            if t.graphs.mem.get(p).is_some_and(|a| a.live) {
                graph_nodes::free_graph_alloc(d, t, *p).unwrap_or(Ok(()))?;
            }
        }
        Ok(())
    })
}

/// The operation that launches executable graph `e`: resets the handles with default
/// assignment, frees live allocations under `AUTO_FREE_ON_LAUNCH`, runs the plan.
pub fn launch_op(e: CUgraphExec) -> Res<Op> {
    let (ops, steps, conds, defaults, allocs) = with_ctx(|_, t, _| {
        let id = handle_id(Kind::GraphExec, e).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let ops = t
            .graphs
            .execs
            .get(&id)
            .cloned()
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let i = t
            .graphs
            .exec_info
            .get(&id)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let allocs = match i.flags & FLAG_AUTO_FREE_ON_LAUNCH != 0 {
            true => i.allocs.clone(),
            false => Arc::default(),
        };
        Ok((
            ops,
            i.steps.clone(),
            i.conds.clone(),
            i.defaults.clone(),
            allocs,
        ))
    })?;
    Ok(Arc::new(move || {
        if !allocs.is_empty() {
            auto_free(&allocs)?;
        }
        for &(h, v) in defaults.iter() {
            conds.set(h, v);
        }
        let _scope = Scope::enter(conds.clone());
        run_steps(&steps, &ops, &conds)
    }))
}

/// `cuGraphExecGetFlags`: the instantiation flags less `_UPLOAD`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecGetFlags(e: CUgraphExec, flags: *mut u64) -> CUresult {
    guard(|| {
        let f = with_ctx(|_, t, _| {
            handle_id(Kind::GraphExec, e)
                .and_then(|id| t.graphs.exec_info.get(&id))
                .map(|i| i.flags)
                .ok_or(CUDA_ERROR_INVALID_VALUE)
        })?;
        out(flags, f)
    })
}

/// `cuGraphConditionalHandleCreate`: a handle of graph `g` with its default value.
#[no_mangle]
pub unsafe extern "C" fn cuGraphConditionalHandleCreate(
    ph: *mut u64,
    g: CUgraph,
    _ctx: CUcontext,
    default: u32,
    flags: u32,
) -> CUresult {
    guard(|| {
        if ph.is_null() || flags & !ASSIGN_DEFAULT != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let h = with_ctx(|_, t, _| {
            let gid = graph_id(t, g)?;
            let h = HANDLE_TAG | t.new_id();
            let assign_default = flags & ASSIGN_DEFAULT != 0;
            t.graphs.conds.insert(
                h,
                CondHandle {
                    graph: gid,
                    default,
                    assign_default,
                },
            );
            Ok(h)
        })?;
        out(ph, h)
    })
}

/// `CUDA_CONDITIONAL_NODE_PARAMS`.
#[repr(C)]
pub struct CondNodeParams {
    pub handle: u64,
    pub kind: u32,
    pub size: u32,
    pub graphs_out: *mut CUgraph,
    pub ctx: CUcontext,
}

/// Whether graph `g` is `ancestor` or nested in it through conditional bodies.
fn within(t: &Tables, mut g: u64, ancestor: u64) -> bool {
    loop {
        if g == ancestor {
            return true;
        }
        match t.graphs.body_parent.get(&g) {
            Some(&p) => g = p,
            None => return false,
        }
    }
}

/// Adds a conditional node and its empty bodies; returns them in `p.graphs_out`.
unsafe fn add_conditional(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: &mut CondNodeParams,
) -> Res {
    let size_ok = match p.kind {
        COND_IF => matches!(p.size, 1 | 2),
        COND_WHILE => p.size == 1,
        COND_SWITCH => p.size >= 1,
        _ => false,
    };
    if !size_ok {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let (handle, kind, size) = (p.handle, p.kind, p.size);
    let mut graphs_out = std::ptr::null_mut();
    add_node_with(pn, g, deps, ndeps, |_, t, gid| {
        let h = t
            .graphs
            .conds
            .get(&handle)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if !within(t, gid, h.graph) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut bodies = Vec::new();
        for _ in 0..size {
            let b = t.new_id();
            t.graphs.graphs.insert(b, GraphEntry::default());
            t.graphs.body_parent.insert(b, gid);
            bodies.push(b);
        }
        let out: Box<[usize]> = bodies
            .iter()
            .map(|&b| crate::handle(Kind::Graph, b) as usize)
            .collect();
        graphs_out = out.as_ptr() as *mut CUgraph;
        let c = t.new_id();
        t.graphs.cond_nodes.insert(
            c,
            CondNode {
                handle,
                kind,
                bodies,
                out,
            },
        );
        // The launch runs the bodies in the node's place (see `run_steps`).
        let op: Op = Arc::new(|| Ok(()));
        Ok((NODE_CONDITIONAL, op, NodeParams::Conditional(c)))
    })?;
    p.graphs_out = graphs_out;
    Ok(())
}

/// `CUgraphNodeParams`: the node type, then (at byte 16) the type's parameters.
#[repr(C)]
pub struct GraphNodeParams {
    pub kind: u32,
    pub reserved0: [i32; 3],
    pub data: [i64; 29],
    pub reserved2: i64,
}

/// `CUDA_CHILD_GRAPH_NODE_PARAMS`.
#[repr(C)]
struct ChildGraphParams {
    graph: CUgraph,
    /// `CUgraphChildGraphNodeOwnership` (CUDA 13): 0 clones, 1 moves.
    ownership: u32,
}

/// A `CUresult` as a [`Res`].
fn res(r: CUresult) -> Res {
    match r {
        CUDA_SUCCESS => Ok(()),
        e => Err(e),
    }
}

/// `cuGraphAddNode` for every node type this driver has (`CU_GRAPH_NODE_TYPE_*`): each
/// is added as its own `cuGraphAdd*Node` call adds it.
unsafe fn add_node_params(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *mut GraphNodeParams,
) -> Res {
    let p = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let data = p.data.as_mut_ptr() as *mut u8;
    let word = |k: usize| *(data as *const usize).add(k);
    match p.kind {
        NODE_KERNEL => res(cuGraphAddKernelNode_v2(
            pn,
            g,
            deps,
            ndeps,
            data as *const _,
        )),
        NODE_MEMCPY => {
            // `CUDA_MEMCPY_NODE_PARAMS`: flags, reserved, copyCtx, then the copy.
            let ctx = word(1) as CUcontext;
            res(cuGraphAddMemcpyNode(
                pn,
                g,
                deps,
                ndeps,
                data.add(16) as *const _,
                ctx,
            ))
        }
        NODE_MEMSET => {
            // `CUDA_MEMSET_NODE_PARAMS_v2`: the `_v1` fields, then ctx.
            let ctx = word(6) as CUcontext;
            res(cuGraphAddMemsetNode(
                pn,
                g,
                deps,
                ndeps,
                data as *const _,
                ctx,
            ))
        }
        NODE_HOST => res(cuGraphAddHostNode(pn, g, deps, ndeps, data as *const _)),
        graph_nodes::NODE_GRAPH => {
            let c = &*(data as *const ChildGraphParams);
            if c.ownership != 0 {
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
            res(graph_nodes::cuGraphAddChildGraphNode(
                pn, g, deps, ndeps, c.graph,
            ))
        }
        NODE_EMPTY => res(cuGraphAddEmptyNode(pn, g, deps, ndeps)),
        graph_nodes::NODE_WAIT_EVENT => res(graph_nodes::cuGraphAddEventWaitNode(
            pn,
            g,
            deps,
            ndeps,
            word(0) as CUevent,
        )),
        graph_nodes::NODE_EVENT_RECORD => res(graph_nodes::cuGraphAddEventRecordNode(
            pn,
            g,
            deps,
            ndeps,
            word(0) as CUevent,
        )),
        graph_nodes::NODE_MEM_ALLOC => res(graph_nodes::cuGraphAddMemAllocNode(
            pn,
            g,
            deps,
            ndeps,
            data as *mut _,
        )),
        graph_nodes::NODE_MEM_FREE => res(graph_nodes::cuGraphAddMemFreeNode(
            pn,
            g,
            deps,
            ndeps,
            word(0) as CUdeviceptr,
        )),
        NODE_CONDITIONAL => {
            add_conditional(pn, g, deps, ndeps, &mut *(data as *mut CondNodeParams))
        }
        _ => Err(CUDA_ERROR_NOT_SUPPORTED),
    }
}

/// `cuGraphAddNode` (CUDA 12.2).
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *mut GraphNodeParams,
) -> CUresult {
    guard(|| add_node_params(pn, g, deps, ndeps, p))
}

/// `cuGraphAddNode_v2` (CUDA 12.3): with edge data (see [`graph_topo`]); the node is
/// not added when the data are invalid.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddNode_v2(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    edge_data: *const c_void,
    ndeps: usize,
    p: *mut GraphNodeParams,
) -> CUresult {
    guard(|| {
        add_node_params(pn, g, deps, ndeps, p)?;
        let data = edge_data as *const graph_topo::EdgeData;
        graph_topo::set_edge_data(*pn, deps, data, ndeps).inspect_err(|_| {
            graph_topo::cuGraphDestroyNode(*pn);
        })
    })
}

/// `cuGraphAddNode_v3` (CUDA 13.4): as `_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddNode_v3(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    edge_data: *const c_void,
    ndeps: usize,
    p: *mut GraphNodeParams,
) -> CUresult {
    cuGraphAddNode_v2(pn, g, deps, edge_data, ndeps, p)
}
