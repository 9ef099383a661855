//! CUDA graph nodes besides kernels, copies, memsets and host functions (see
//! [`crate::graph`]): event record and wait nodes, child graph nodes, memory allocation
//! and free nodes; `cuGraphClone` and `cuGraphNodeFindInClone`; and updates of executable graphs
//! (`cuGraph[Exec]KernelNodeSetParams`, `cuGraphExecUpdate`).
//!
//! Events: every operation completes when it runs, so an event-record node stamps the
//! event's time when a launch reaches it, and a wait node has nothing to wait for (it
//! checks that the event still exists).
//!
//! Child graphs: `cuGraphAddChildGraphNode` clones the child, as the driver does, and
//! `cuGraphChildGraphNodeGetGraph` returns that clone (changes to it show in the node);
//! instantiation flattens child graphs into the executable graph's list of operations.
//!
//! Graph memory: `cuGraphAddMemAllocNode` reserves the allocation in device memory at
//! once, so that its address is fixed for the graph's life (as the driver promises). A
//! launch reaching the allocation node makes it live: copies, kernels and `cuMemFree`
//! see a `cuMemAlloc` allocation. A free node, or `cuMemFree`/`cuMemFreeAsync` of an
//! allocation the graph does not free, ends that; reaching the allocation node while
//! it is live (a relaunch before the memory was freed) is `CUDA_ERROR_INVALID_VALUE`.
//! The reservation goes back to the device when its graph is destroyed while it is not
//! live, else at the `cuMemFree` that ends it; until then its range stays addressable
//! by copies and kernels even while not live (on a GPU such accesses are undefined). Graphs with memory nodes cannot be
//! cloned or made child graphs (the driver's rules).
//!
//! Executable graphs hold each node's operation as it was at instantiation;
//! `cuGraphExecKernelNodeSetParams` replaces one kernel's, and `cuGraphExecUpdate` takes
//! every operation of a graph with the same nodes (count and types, in the order a launch
//! runs them, and the same allocations for memory nodes).

use crate::graph::*;
use crate::*;
use std::ptr::null_mut;
use std::sync::Arc;

pub const NODE_GRAPH: u32 = 4;
pub const NODE_WAIT_EVENT: u32 = 6;
pub const NODE_EVENT_RECORD: u32 = 7;
pub const NODE_MEM_ALLOC: u32 = 10;
pub const NODE_MEM_FREE: u32 = 11;
const CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: CUresult = 910;

/// `CUgraphExecUpdateResult` values used here.
const UPDATE_SUCCESS: u32 = 0;
const UPDATE_TOPOLOGY_CHANGED: u32 = 2;
const UPDATE_NODE_TYPE_CHANGED: u32 = 3;
const UPDATE_PARAMETERS_CHANGED: u32 = 5;

/// What a node's get/set calls, cloning and updates need besides its operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeParams {
    #[default]
    None,
    /// An event node's event (handle value).
    Event(u64),
    /// A child graph node's graph (the clone it owns).
    Child(u64),
    /// A memory allocation node's address.
    MemAlloc(u64),
    /// A memory free node's address.
    MemFree(u64),
    /// A conditional node (its entry in `GraphTables::cond_nodes`).
    Conditional(u64),
}

/// One operation of an executable graph: the node it came from.
#[derive(Clone, Copy, Debug)]
pub struct ExecNode {
    pub node: u64,
    pub kind: u32,
    pub params: NodeParams,
    /// In the body of a conditional node.
    pub in_body: bool,
}

/// `CUmemPoolProps` (the Windows security attributes pointer kept as an address).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemPoolProps {
    pub alloc_type: u32,
    pub handle_types: u32,
    pub location_type: u32,
    pub location_id: i32,
    pub win32_security_attributes: usize,
    pub max_size: usize,
    pub usage: u16,
    pub reserved: [u8; 54],
}

/// `CUDA_MEM_ALLOC_NODE_PARAMS` (`accessDescs` kept as an address).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemAllocNodeParams {
    pub pool_props: MemPoolProps,
    pub access_descs: usize,
    pub access_desc_count: usize,
    pub bytesize: usize,
    pub dptr: CUdeviceptr,
}

/// An allocation of a graph's memory node.
pub struct GraphAlloc {
    pub buf: ptxjit::Buffer,
    /// The graph holding the allocation node; `None` once it is destroyed.
    pub owner: Option<u64>,
    /// Allocated by a launch and not freed since.
    pub live: bool,
    /// The graph holding a free node for it.
    pub freed_in: Option<u64>,
    pub params: MemAllocNodeParams,
}

/// Graph `g` flattened for instantiation: every operation with its node, in the order
/// of [`graph_topo::order`] (child graphs expanded; a conditional node's place holds a no-op and its bodies' operations follow
/// it), the plan that runs them, and the graphs walked (`g`, child graphs, bodies).
#[derive(Default)]
pub struct Flat {
    pub nodes: Vec<ExecNode>,
    pub ops: Vec<Op>,
    pub steps: Vec<graph_cond::Step>,
    pub graphs: Vec<u64>,
    /// A graph walked has a dependency cycle (its nodes are then in insertion order).
    pub cycle: bool,
    /// The edges of the graphs walked, sorted: (index in `graphs`, the positions of
    /// their ends in that graph's order), for `cuGraphExecUpdate`'s topology check.
    pub shape: Vec<(usize, usize, usize)>,
}

/// See [`Flat`].
pub fn flatten(t: &Tables, g: u64) -> Flat {
    let mut f = Flat::default();
    let mut steps = Vec::new();
    flatten_into(t, g, false, &mut f, &mut steps);
    f.steps = steps;
    f.shape.sort_unstable();
    f
}

fn flatten_into(
    t: &Tables,
    g: u64,
    in_body: bool,
    f: &mut Flat,
    steps: &mut Vec<graph_cond::Step>,
) {
    let Some(e) = t.graphs.graphs.get(&g) else {
        return;
    };
    f.graphs.push(g);
    let order = graph_topo::order(t, g).unwrap_or_else(|| {
        f.cycle = true;
        e.nodes.clone()
    });
    let gi = f.graphs.len() - 1;
    let pos: std::collections::HashMap<u64, usize> =
        order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    for x in &e.edges {
        if let (Some(&a), Some(&b)) = (pos.get(&x.from), pos.get(&x.to)) {
            f.shape.push((gi, a, b));
        }
    }
    for &n in &order {
        let Some(ne) = t.graphs.nodes.get(&n) else {
            continue;
        };
        if let NodeParams::Child(c) = ne.params {
            flatten_into(t, c, in_body, f, steps);
            continue;
        }
        f.nodes.push(ExecNode {
            node: n,
            kind: ne.kind,
            params: ne.params,
            in_body,
        });
        f.ops.push(ne.op.clone());
        match ne.params {
            NodeParams::Conditional(c) => {
                let Some(cn) = t.graphs.cond_nodes.get(&c) else {
                    continue;
                };
                let mut bodies = Vec::new();
                for &b in &cn.bodies {
                    let mut s = Vec::new();
                    flatten_into(t, b, true, f, &mut s);
                    bodies.push(s);
                }
                steps.push(graph_cond::Step::Cond {
                    handle: cn.handle,
                    kind: cn.kind,
                    bodies,
                });
            }
            _ => steps.push(graph_cond::Step::Op(f.ops.len() - 1)),
        }
    }
}

/// Removes graph `g`, its nodes and the child graphs they own; gives back the
/// reservations of its memory nodes that are not live.
pub fn destroy_graph(d: &Driver, t: &mut Tables, g: u64) {
    let Some(e) = t.graphs.graphs.remove(&g) else {
        return;
    };
    for n in e.nodes {
        destroy_node(d, t, g, n);
    }
    t.graphs.conds.retain(|_, h| h.graph != g);
    t.graphs.body_parent.remove(&g);
}

/// Removes node `n` of graph `g` from the tables (not from the graph's lists) and what
/// it owns: a child graph, conditional bodies, an allocation's reservation unless live.
pub fn destroy_node(d: &Driver, t: &mut Tables, g: u64, n: u64) {
    t.graphs.cloned_from.remove(&n);
    t.graphs.kernels.remove(&n);
    graph_params::forget_node(t, n);
    let Some(ne) = t.graphs.nodes.remove(&n) else {
        return;
    };
    match ne.params {
        NodeParams::Child(c) => destroy_graph(d, t, c),
        NodeParams::MemAlloc(p) => {
            if let Some(a) = t.graphs.mem.get_mut(&p) {
                a.owner = None;
                if !a.live {
                    if let Some(a) = t.graphs.mem.remove(&p) {
                        let _ = d.device.free(a.buf);
                    }
                }
            }
        }
        NodeParams::MemFree(p) => {
            if let Some(a) = t.graphs.mem.get_mut(&p) {
                if a.freed_in == Some(g) {
                    a.freed_in = None;
                }
            }
        }
        NodeParams::Conditional(c) => {
            if let Some(cn) = t.graphs.cond_nodes.remove(&c) {
                for b in cn.bodies {
                    destroy_graph(d, t, b);
                }
            }
        }
        NodeParams::None | NodeParams::Event(_) => {}
    }
}

/// Whether graph `g` (or a graph nested in it) has memory or conditional nodes: such
/// a graph cannot be cloned or made a child graph, and has at most one executable
/// graph at a time (the driver's rules).
pub fn has_restricted_nodes(t: &Tables, g: u64) -> bool {
    flatten(t, g).nodes.iter().any(|n| {
        matches!(
            n.kind,
            NODE_MEM_ALLOC | NODE_MEM_FREE | graph_cond::NODE_CONDITIONAL
        )
    })
}

/// A copy of graph `g` (child graphs copied too); returns the new graph's id.
fn clone_graph(t: &mut Tables, g: u64) -> Res<u64> {
    if has_restricted_nodes(t, g) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let nodes = t
        .graphs
        .graphs
        .get(&g)
        .ok_or(CUDA_ERROR_INVALID_VALUE)?
        .nodes
        .clone();
    let new = t.new_id();
    t.graphs.graphs.insert(new, GraphEntry::default());
    let mut map = std::collections::HashMap::new();
    for n in nodes {
        let Some(ne) = t.graphs.nodes.get(&n) else {
            continue;
        };
        let (kind, op, params) = (ne.kind, ne.op.clone(), ne.params);
        let params = match params {
            NodeParams::Child(c) => NodeParams::Child(clone_graph(t, c)?),
            p => p,
        };
        let id = add_with(t, new, kind, op, params)?;
        t.graphs.cloned_from.insert(id, n);
        map.insert(n, id);
        if let Some(k) = t.graphs.kernels.get(&n).map(|k| k.duplicate()) {
            t.graphs.kernels.insert(id, k);
        }
        graph_params::copy(t, n, id);
    }
    graph_topo::copy_edges(t, g, new, &map);
    Ok(new)
}

/// `cuMemFree` of graph memory: `None` if `p` is not graph memory, else the result. An
/// allocation its own graph frees cannot be freed outside it (the driver's rule).
pub fn free_graph_alloc(d: &Driver, t: &mut Tables, p: u64) -> Option<Res> {
    let a = t.graphs.mem.get_mut(&p)?;
    if !a.live || (a.owner.is_some() && a.freed_in == a.owner) {
        return Some(Err(CUDA_ERROR_INVALID_VALUE));
    }
    a.live = false;
    let (buf, owned) = (a.buf, a.owner.is_some());
    t.allocs.remove(&p);
    if let Err(e) = crate::ipc::unshare(t, &buf) {
        return Some(Err(e));
    }
    if !owned {
        t.graphs.mem.remove(&p);
        return Some(d.device.free(buf).map_err(|_| CUDA_ERROR_INVALID_VALUE));
    }
    Some(Ok(()))
}

/// The operation of an allocation node: the reservation at `p` becomes live.
fn alloc_op(p: u64) -> Op {
    Arc::new(move || {
        with_ctx(|_, t, _| {
            let a = t.graphs.mem.get_mut(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            if a.live {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            a.live = true;
            let buf = a.buf;
            t.allocs.insert(p, buf);
            graph_attr::note_mem(t);
            Ok(())
        })
    })
}

/// The operation of a free node: the allocation at `p` stops being live.
fn free_op(p: u64) -> Op {
    Arc::new(move || {
        with_ctx(|_, t, _| {
            let a = t.graphs.mem.get_mut(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            if !a.live {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            a.live = false;
            let buf = a.buf;
            t.allocs.remove(&p);
            crate::ipc::unshare(t, &buf)
        })
    })
}

/// `CU_MEM_ALLOCATION_TYPE_PINNED`, `CU_MEM_LOCATION_TYPE_DEVICE`.
const ALLOCATION_PINNED: u32 = 1;
const LOCATION_DEVICE: u32 = 1;

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemAllocNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *mut MemAllocNodeParams,
) -> CUresult {
    guard(|| {
        let params = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let pp = &params.pool_props;
        if params.bytesize == 0
            || pp.alloc_type != ALLOCATION_PINNED
            || pp.location_type != LOCATION_DEVICE
            || pp.handle_types != 0
        {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if pp.location_id != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        let mut kept = *params;
        kept.access_descs = 0;
        kept.access_desc_count = 0;
        let mut ptr = 0;
        add_node_with(pn, g, deps, ndeps, |d, t, gid| {
            let buf = d
                .device
                .alloc_zeroed(kept.bytesize)
                .map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
            ptr = buf.ptr();
            kept.dptr = ptr;
            t.graphs.mem.insert(
                ptr,
                GraphAlloc {
                    buf,
                    owner: Some(gid),
                    live: false,
                    freed_in: None,
                    params: kept,
                },
            );
            graph_attr::note_mem(t);
            Ok((NODE_MEM_ALLOC, alloc_op(ptr), NodeParams::MemAlloc(ptr)))
        })?;
        params.dptr = ptr;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemFreeNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: CUdeviceptr,
) -> CUresult {
    guard(|| {
        add_node_with(pn, g, deps, ndeps, |_, t, gid| {
            // Only an allocation node's address, freed by one graph only.
            let a = t.graphs.mem.get_mut(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            if a.freed_in.is_some() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            a.freed_in = Some(gid);
            Ok((NODE_MEM_FREE, free_op(p), NodeParams::MemFree(p)))
        })
    })
}

/// The parameters of node `n`, which must be of `kind`.
fn node_params(n: CUgraphNode, kind: u32) -> Res<NodeParams> {
    with_ctx(|_, t, _| {
        let e = &t.graphs.nodes[&node_id(t, n)?];
        if e.kind != kind {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(e.params)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphMemAllocNodeGetParams(
    n: CUgraphNode,
    p: *mut MemAllocNodeParams,
) -> CUresult {
    guard(|| {
        let NodeParams::MemAlloc(ptr) = node_params(n, NODE_MEM_ALLOC)? else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        let kept = with_ctx(|_, t, _| {
            t.graphs
                .mem
                .get(&ptr)
                .map(|a| a.params)
                .ok_or(CUDA_ERROR_INVALID_VALUE)
        })?;
        out(p, kept)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphMemFreeNodeGetParams(
    n: CUgraphNode,
    p: *mut CUdeviceptr,
) -> CUresult {
    guard(|| match node_params(n, NODE_MEM_FREE)? {
        NodeParams::MemFree(ptr) => out(p, ptr),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    })
}

/// The table id of a live event handle.
fn event_id(t: &Tables, e: CUevent) -> Res<u64> {
    handle_id(Kind::Event, e)
        .filter(|id| t.events.contains_key(id))
        .ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// The operation of an event node: recording stamps the time; waiting checks the event.
pub fn event_op(e: u64, kind: u32) -> Op {
    Arc::new(move || {
        with_ctx(|_, t, _| {
            let id = event_id(t, e as CUevent)?;
            if kind == NODE_EVENT_RECORD {
                if let Some(ev) = t.events.get_mut(&id) {
                    ev.recorded = Some(std::time::Instant::now());
                }
            }
            Ok(())
        })
    })
}

unsafe fn add_event_node(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    e: CUevent,
    kind: u32,
) -> Res {
    add_node_with(pn, g, deps, ndeps, |_, t, _| {
        event_id(t, e)?;
        Ok((kind, event_op(e as u64, kind), NodeParams::Event(e as u64)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEventRecordNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    e: CUevent,
) -> CUresult {
    guard(|| add_event_node(pn, g, deps, ndeps, e, NODE_EVENT_RECORD))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEventWaitNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    e: CUevent,
) -> CUresult {
    guard(|| add_event_node(pn, g, deps, ndeps, e, NODE_WAIT_EVENT))
}

unsafe fn node_event(n: CUgraphNode, kind: u32, pe: *mut CUevent) -> Res {
    match node_params(n, kind)? {
        NodeParams::Event(e) => out(pe, e as CUevent),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

/// Points event node `n` (of `kind`) at event `e`.
fn set_node_event(n: CUgraphNode, kind: u32, e: CUevent) -> Res {
    with_ctx(|_, t, _| {
        event_id(t, e)?;
        let id = node_id(t, n)?;
        let ne = t
            .graphs
            .nodes
            .get_mut(&id)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if ne.kind != kind {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        ne.op = event_op(e as u64, kind);
        ne.params = NodeParams::Event(e as u64);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphEventRecordNodeGetEvent(
    n: CUgraphNode,
    pe: *mut CUevent,
) -> CUresult {
    guard(|| node_event(n, NODE_EVENT_RECORD, pe))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphEventWaitNodeGetEvent(
    n: CUgraphNode,
    pe: *mut CUevent,
) -> CUresult {
    guard(|| node_event(n, NODE_WAIT_EVENT, pe))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphEventRecordNodeSetEvent(n: CUgraphNode, e: CUevent) -> CUresult {
    guard(|| set_node_event(n, NODE_EVENT_RECORD, e))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphEventWaitNodeSetEvent(n: CUgraphNode, e: CUevent) -> CUresult {
    guard(|| set_node_event(n, NODE_WAIT_EVENT, e))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddChildGraphNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    child: CUgraph,
) -> CUresult {
    guard(|| {
        add_node_with(pn, g, deps, ndeps, |_, t, _| {
            let c = graph_id(t, child)?;
            let clone = clone_graph(t, c)?;
            // Instantiation runs the child's nodes in its place (see `flatten`).
            let op: Op = Arc::new(|| Ok(()));
            Ok((NODE_GRAPH, op, NodeParams::Child(clone)))
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphChildGraphNodeGetGraph(
    n: CUgraphNode,
    pg: *mut CUgraph,
) -> CUresult {
    guard(|| match node_params(n, NODE_GRAPH)? {
        NodeParams::Child(c) => out(pg, handle(Kind::Graph, c)),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    })
}

/// `cuGraphClone`: every node copied (child graphs too); graphs with memory nodes
/// cannot be cloned (`CUDA_ERROR_INVALID_VALUE`).
#[no_mangle]
pub unsafe extern "C" fn cuGraphClone(pg: *mut CUgraph, g: CUgraph) -> CUresult {
    guard(|| {
        if pg.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let new = with_ctx(|_, t, _| {
            let gid = graph_id(t, g)?;
            clone_graph(t, gid)
        })?;
        out(pg, handle(Kind::Graph, new))
    })
}

/// `cuGraphNodeFindInClone`: the node of graph `clone` (made by `cuGraphClone`) copied
/// from `orig`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeFindInClone(
    pn: *mut CUgraphNode,
    orig: CUgraphNode,
    clone: CUgraph,
) -> CUresult {
    guard(|| {
        let found = with_ctx(|_, t, _| {
            let o = node_id(t, orig)?;
            let g = graph_id(t, clone)?;
            t.graphs.graphs[&g]
                .nodes
                .iter()
                .copied()
                .find(|n| t.graphs.cloned_from.get(n) == Some(&o))
                .ok_or(CUDA_ERROR_INVALID_VALUE)
        })?;
        out(pn, handle(Kind::GraphNode, found))
    })
}

/// Replaces the operation of kernel node `n`: in executable graph `e`, or (`e` None)
/// in the node's graph.
unsafe fn set_kernel(
    e: Option<CUgraphExec>,
    n: CUgraphNode,
    p: &KernelNodeParams,
    f: CUfunction,
) -> Res {
    // The node's cluster attribute stays; prepared outside the tables' lock (it looks
    // the function up).
    let cluster = with_ctx(|_, t, _| Ok(graph_attr::cluster_of(t, node_id(t, n)?)))?;
    let (op, info) = kernel_node(p, f, cluster)?;
    with_ctx(|_, t, _| {
        let Some(e) = e else {
            let nid = node_id(t, n)?;
            let ne = t
                .graphs
                .nodes
                .get_mut(&nid)
                .ok_or(CUDA_ERROR_INVALID_VALUE)?;
            if ne.kind != NODE_KERNEL {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            ne.op = op;
            t.graphs.kernels.insert(nid, info);
            return Ok(());
        };
        graph_params::set_exec_op(t, e, n, NODE_KERNEL, op)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams(
    e: CUgraphExec,
    n: CUgraphNode,
    p: *const KernelNodeParams,
) -> CUresult {
    guard(|| {
        let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        set_kernel(Some(e), n, p, p.func)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    e: CUgraphExec,
    n: CUgraphNode,
    p: *const KernelNodeParamsV2,
) -> CUresult {
    guard(|| {
        let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        set_kernel(Some(e), n, &p.base, p.function())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams(
    n: CUgraphNode,
    p: *const KernelNodeParams,
) -> CUresult {
    guard(|| {
        let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        set_kernel(None, n, p, p.func)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams_v2(
    n: CUgraphNode,
    p: *const KernelNodeParamsV2,
) -> CUresult {
    guard(|| {
        let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        set_kernel(None, n, &p.base, p.function())
    })
}

/// `CUgraphExecUpdateResultInfo`.
#[repr(C)]
pub struct ExecUpdateResultInfo {
    pub result: u32,
    pub error_node: CUgraphNode,
    pub error_from_node: CUgraphNode,
}

/// Updates executable graph `e` from graph `g`: (result, node at fault).
fn exec_update(e: CUgraphExec, g: CUgraph) -> Res<(u32, CUgraphNode)> {
    with_ctx(|_, t, _| {
        let gid = graph_id(t, g)?;
        let eid = handle_id(Kind::GraphExec, e)
            .filter(|id| t.graphs.execs.contains_key(id))
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let flat = flatten(t, gid);
        let old = t
            .graphs
            .exec_nodes
            .get(&eid)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let old_shape = t.graphs.exec_info.get(&eid).map(|i| &i.shape);
        if old.len() != flat.nodes.len() || flat.cycle || old_shape != Some(&flat.shape) {
            return Ok((UPDATE_TOPOLOGY_CHANGED, null_mut()));
        }
        for (o, n) in old.iter().zip(&flat.nodes) {
            let at = handle(Kind::GraphNode, n.node);
            if o.kind != n.kind || o.in_body != n.in_body {
                return Ok((UPDATE_NODE_TYPE_CHANGED, at));
            }
            let mem = matches!(n.kind, NODE_MEM_ALLOC | NODE_MEM_FREE);
            if mem && o.params != n.params {
                return Ok((UPDATE_PARAMETERS_CHANGED, at));
            }
            if !graph_cond::same_conditional(t, &o.params, &n.params) {
                return Ok((UPDATE_PARAMETERS_CHANGED, at));
            }
        }
        graph_cond::update_exec(t, eid, flat);
        Ok((UPDATE_SUCCESS, null_mut()))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecUpdate_v2(
    e: CUgraphExec,
    g: CUgraph,
    info: *mut ExecUpdateResultInfo,
) -> CUresult {
    guard(|| {
        let info = info.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let (result, node) = exec_update(e, g)?;
        info.result = result;
        info.error_node = node;
        info.error_from_node = null_mut();
        if result == UPDATE_SUCCESS {
            Ok(())
        } else {
            Err(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
        }
    })
}

/// `cuGraphExecUpdate` (CUDA 11 signature: the node at fault and the result apart).
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecUpdate(
    e: CUgraphExec,
    g: CUgraph,
    err_node: *mut CUgraphNode,
    result: *mut u32,
) -> CUresult {
    guard(|| {
        if err_node.is_null() || result.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let (r, node) = exec_update(e, g)?;
        out(result, r)?;
        out(err_node, node)?;
        if r == UPDATE_SUCCESS {
            Ok(())
        } else {
            Err(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
        }
    })
}
