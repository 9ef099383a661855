//! CUDA graphs: stream capture (`cuStreamBeginCapture` … `cuStreamEndCapture`), the
//! explicit construction calls (`cuGraphCreate`, `cuGraphAdd*Node`), instantiation
//! and `cuGraphLaunch`.
//!
//! A node is a recorded operation: a kernel launch with its arguments copied, a copy,
//! a memset, a host function, or nothing (empty, event and join nodes). Operations
//! issued on a capturing stream are recorded in its graph instead of run (launches,
//! async copies and memsets, host functions), each depending on that stream's
//! dependency set; a stream that waits on an event recorded in a capturing stream joins
//! that capture. Graphs keep their dependency edges ([`crate::graph_topo`]); launching
//! an executable graph runs its nodes one at a time in a topological order of them,
//! each to completion (as every stream operation here does). Node parameters and
//! single-node updates of executable graphs are in [`crate::graph_params`]. Event, child-graph and memory nodes, cloning and
//! updates of executable graphs are in [`crate::graph_nodes`]; conditional nodes,
//! `cuGraphAddNode` and the executable graphs' plans in [`crate::graph_cond`].

use crate::*;
use std::collections::HashMap;
use std::ptr::null_mut;
use std::sync::Arc;

pub type CUgraph = *mut c_void;
pub type CUgraphNode = *mut c_void;
pub type CUgraphExec = *mut c_void;

/// `CUDA_ERROR_ILLEGAL_STATE`: ending or updating a capture on a stream that is not
/// capturing, or beginning one on a stream that is.
const CUDA_ERROR_ILLEGAL_STATE: CUresult = 401;

/// A recorded operation; replaying the node calls it.
pub type Op = Arc<dyn Fn() -> Res + Send + Sync>;

/// `CUgraphNodeType`: kernel, memcpy, memset, host, empty.
pub const NODE_KERNEL: u32 = 0;
pub const NODE_MEMCPY: u32 = 1;
pub const NODE_MEMSET: u32 = 2;
pub const NODE_HOST: u32 = 3;
pub const NODE_EMPTY: u32 = 5;

/// `CU_STREAM_CAPTURE_STATUS_NONE` / `_ACTIVE`.
const CAPTURE_NONE: u32 = 0;
const CAPTURE_ACTIVE: u32 = 1;

pub struct NodeEntry {
    pub graph: u64,
    pub kind: u32,
    pub op: Op,
    /// What the node's get/set calls and cloning need besides `op`.
    pub params: graph_nodes::NodeParams,
}

#[derive(Default)]
pub struct GraphEntry {
    /// Node ids in insertion order.
    pub nodes: Vec<u64>,
    /// Dependency edges in the order they were added (see [`graph_topo`]).
    pub edges: Vec<graph_topo::Edge>,
}

/// A stream capture: the graph it records into, its unique id, the stream that began
/// it, and the dependency set handed out by `cuStreamGetCaptureInfo` (node handles).
pub struct Capture {
    pub graph: u64,
    pub id: u64,
    pub origin: u64,
    pub deps: Vec<u64>,
}

#[derive(Default)]
pub struct GraphTables {
    pub graphs: HashMap<u64, GraphEntry>,
    pub nodes: HashMap<u64, NodeEntry>,
    pub execs: HashMap<u64, Vec<Op>>,
    /// The node of each operation of an executable graph (for its updates).
    pub exec_nodes: HashMap<u64, Vec<graph_nodes::ExecNode>>,
    /// Graph memory: allocations of memory-allocation nodes, by address.
    pub mem: std::collections::BTreeMap<u64, graph_nodes::GraphAlloc>,
    /// What each executable graph runs besides its operations (see [`graph_cond`]).
    pub exec_info: HashMap<u64, graph_cond::ExecInfo>,
    /// Conditional handles by value.
    pub conds: HashMap<u64, graph_cond::CondHandle>,
    /// Conditional nodes (see [`graph_nodes::NodeParams::Conditional`]).
    pub cond_nodes: HashMap<u64, graph_cond::CondNode>,
    /// The graph holding the conditional node each body graph belongs to.
    pub body_parent: HashMap<u64, u64>,
    /// What each kernel node was given (see [`graph_attr`]).
    pub kernels: HashMap<u64, graph_attr::KernelInfo>,
    /// Graph memory high watermarks: used, reserved (see `graph_cond`).
    pub mem_high: [u64; 2],
    /// Nodes made by `cuGraphClone`: clone's node -> the original node.
    pub cloned_from: HashMap<u64, u64>,
    /// The parameters of copy, memset and host nodes (see [`graph_params`]).
    pub op_params: HashMap<u64, graph_params::OpParams>,
    /// The attributes set on kernel nodes (see [`graph_attr`]).
    pub kernel_attrs:
        HashMap<u64, std::collections::BTreeMap<u32, graph_attr::KernelNodeAttrValue>>,
    /// Disabled nodes of executable graphs: (exec, operation index) -> the operation.
    pub disabled: HashMap<(u64, usize), Op>,
    /// Capturing streams (by handle value) and their capture.
    pub captures: HashMap<u64, Capture>,
    /// Events last recorded in a capturing stream: event handle -> that stream and its
    /// capture's dependency set at the record.
    pub captured_events: HashMap<u64, (u64, Vec<u64>)>,
    next_capture: u64,
}

/// Checks a graph handle.
pub fn check_graph(g: CUgraph) -> Res {
    with_ctx(|_, t, _| graph_id(t, g).map(|_| ()))
}

pub fn graph_id(t: &Tables, g: *mut c_void) -> Res<u64> {
    match handle_id(Kind::Graph, g) {
        Some(id) if t.graphs.graphs.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

thread_local! {
    /// The stream this thread last found capturing (the operation it records next is
    /// issued on it: see [`record_node`]).
    static CAPTURE_STREAM: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The graph that stream `s` is capturing into, if it is capturing.
pub fn capturing(s: CUstream) -> Res<Option<u64>> {
    let g = with_ctx(|_, t, _| Ok(t.graphs.captures.get(&(s as u64)).map(|c| c.graph)))?;
    if g.is_some() {
        CAPTURE_STREAM.with(|c| c.set(s as u64));
    }
    Ok(g)
}

/// Adds a node running `op` to graph `g` (after every node it has); returns its id.
fn add(t: &mut Tables, g: u64, kind: u32, op: Op) -> Res<u64> {
    add_with(t, g, kind, op, graph_nodes::NodeParams::None)
}

/// [`add`] with the node's parameters.
pub fn add_with(
    t: &mut Tables,
    g: u64,
    kind: u32,
    op: Op,
    params: graph_nodes::NodeParams,
) -> Res<u64> {
    let id = t.new_id();
    t.graphs.nodes.insert(
        id,
        NodeEntry {
            graph: g,
            kind,
            op,
            params,
        },
    );
    t.graphs
        .graphs
        .get_mut(&g)
        .ok_or(CUDA_ERROR_INVALID_VALUE)?
        .nodes
        .push(id);
    Ok(id)
}

/// Records an operation issued on a capturing stream into graph `g`.
pub fn record(g: u64, kind: u32, op: Op) -> Res {
    record_node(g, kind, op).map(|_| ())
}

/// [`record`], returning the new node's id: it depends on the dependency set of the
/// capturing stream it was issued on (the one [`capturing`] last found on this thread),
/// and becomes that set.
pub fn record_node(g: u64, kind: u32, op: Op) -> Res<u64> {
    let s = CAPTURE_STREAM.with(|c| c.get());
    with_ctx(|_, t, _| {
        let on_s = t.graphs.captures.get(&s).is_some_and(|c| c.graph == g);
        let mut deps: Vec<u64> = Vec::new();
        for (_, c) in t
            .graphs
            .captures
            .iter()
            .filter(|(&k, c)| c.graph == g && (!on_s || k == s))
        {
            for &h in &c.deps {
                let n = node_id(t, h as CUgraphNode)?;
                if !deps.contains(&n) {
                    deps.push(n);
                }
            }
        }
        let id = add(t, g, kind, op)?;
        graph_topo::link(t, g, &deps, id);
        let new = vec![handle(Kind::GraphNode, id) as u64];
        for (_, c) in t
            .graphs
            .captures
            .iter_mut()
            .filter(|(&k, c)| c.graph == g && (!on_s || k == s))
        {
            c.deps = new.clone();
        }
        Ok(id)
    })
}

/// `cuStreamWaitEvent`: a stream waiting on an event recorded in a capturing stream
/// joins that capture.
pub fn join(s: CUstream, e: CUevent) -> Res {
    with_ctx(|_, t, _| {
        let Some((from, deps)) = t.graphs.captured_events.get(&(e as u64)).cloned() else {
            return Ok(());
        };
        let Some(c) = t.graphs.captures.get(&from) else {
            return Ok(());
        };
        let (graph, id, origin) = (c.graph, c.id, c.origin);
        if matches!(s as u64, 0 | 1) {
            return Err(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        }
        // A stream of the same capture adds the event's dependencies to its own.
        if let Some(c) = t.graphs.captures.get_mut(&(s as u64)) {
            if c.id == id {
                for d in deps {
                    if !c.deps.contains(&d) {
                        c.deps.push(d);
                    }
                }
            }
            return Ok(());
        }
        t.graphs.captures.insert(
            s as u64,
            Capture {
                graph,
                id,
                origin,
                deps,
            },
        );
        Ok(())
    })
}

/// `cuEventRecord` on stream `s`: remembers whether the event was recorded in a capture.
pub fn note_event(e: CUevent, s: CUstream) -> Res {
    with_ctx(|_, t, _| {
        if let Some(c) = t.graphs.captures.get(&(s as u64)) {
            let deps = c.deps.clone();
            t.graphs.captured_events.insert(e as u64, (s as u64, deps));
        } else {
            t.graphs.captured_events.remove(&(e as u64));
        }
        Ok(())
    })
}

/// Begins a capture on `s` into `graph` (a new graph if `None`), its first nodes
/// depending on `deps` (node handles).
fn begin(s: CUstream, graph: Option<CUgraph>, deps: Vec<u64>) -> Res {
    stream::check(s)?;
    with_ctx(|_, t, _| {
        // The legacy NULL stream cannot capture (the per-thread one can).
        if matches!(s as u64, 0 | 1) {
            return Err(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        }
        if t.graphs.captures.contains_key(&(s as u64)) {
            return Err(CUDA_ERROR_ILLEGAL_STATE);
        }
        let g = match graph {
            Some(g) => graph_id(t, g)?,
            None => {
                let g = t.new_id();
                t.graphs.graphs.insert(g, GraphEntry::default());
                g
            }
        };
        for &h in &deps {
            if t.graphs.nodes[&node_id(t, h as CUgraphNode)?].graph != g {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
        t.graphs.next_capture += 1;
        let id = t.graphs.next_capture;
        t.graphs.captures.insert(
            s as u64,
            Capture {
                graph: g,
                id,
                origin: s as u64,
                deps,
            },
        );
        Ok(())
    })
}

/// `cuStreamBeginCapture` (CUDA 10.0: no mode argument; every mode behaves alike here).
#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCapture(s: CUstream) -> CUresult {
    guard(|| begin(s, None, Vec::new()))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCapture_v2(s: CUstream, _mode: u32) -> CUresult {
    guard(|| begin(s, None, Vec::new()))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCapture_ptsz(s: CUstream) -> CUresult {
    guard(|| begin(s, None, Vec::new()))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCapture_v2_ptsz(s: CUstream, _mode: u32) -> CUresult {
    guard(|| begin(s, None, Vec::new()))
}

/// `cuStreamBeginCaptureToGraph`: captures into an existing graph, the first captured
/// nodes depending on `deps` (default edges only).
#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCaptureToGraph(
    s: CUstream,
    g: CUgraph,
    deps: *const CUgraphNode,
    edge_data: *const c_void,
    ndeps: usize,
    _mode: u32,
) -> CUresult {
    guard(|| {
        if ndeps > 0 && deps.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        graph_topo::check_default_data(edge_data, ndeps)?;
        let deps = (0..ndeps).map(|i| *deps.add(i) as u64).collect();
        begin(s, Some(g), deps)
    })
}

fn end(s: CUstream, pg: *mut CUgraph) -> Res {
    if pg.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    stream::check(s)?;
    with_ctx(|_, t, _| {
        let c = t
            .graphs
            .captures
            .get(&(s as u64))
            .ok_or(CUDA_ERROR_ILLEGAL_STATE)?;
        if c.origin != s as u64 {
            return Err(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
        }
        let (g, id) = (c.graph, c.id);
        // The capture ends on every stream that joined it.
        t.graphs.captures.retain(|_, c| c.id != id);
        // SAFETY: checked non-null.
        unsafe { out(pg, handle(Kind::Graph, g)) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(s: CUstream, pg: *mut CUgraph) -> CUresult {
    guard(|| end(s, pg))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture_ptsz(s: CUstream, pg: *mut CUgraph) -> CUresult {
    guard(|| end(s, pg))
}

/// `cuStreamIsCapturing`: `CU_STREAM_CAPTURE_STATUS_ACTIVE` between begin and end.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(s: CUstream, status: *mut u32) -> CUresult {
    guard(|| {
        stream::check(s)?;
        let on = capturing(s)?.is_some();
        out(status, if on { CAPTURE_ACTIVE } else { CAPTURE_NONE })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing_ptsz(s: CUstream, status: *mut u32) -> CUresult {
    cuStreamIsCapturing(s, status)
}

/// The capture information of `s`: status, id, graph, and its dependency set (the
/// nodes its next captured node will depend on; the array stays valid until the next
/// capture call on `s`).
unsafe fn capture_info(
    s: CUstream,
    status: *mut u32,
    id: *mut u64,
    graph: *mut CUgraph,
    deps: *mut *const CUgraphNode,
    ndeps: *mut usize,
) -> Res {
    stream::check(s)?;
    with_ctx(|_, t, _| {
        let c = t.graphs.captures.get(&(s as u64));
        if !status.is_null() {
            out(
                status,
                if c.is_some() {
                    CAPTURE_ACTIVE
                } else {
                    CAPTURE_NONE
                },
            )?;
        }
        let Some(c) = c else {
            return Ok(());
        };
        if !id.is_null() {
            out(id, c.id)?;
        }
        if !graph.is_null() {
            out(graph, handle(Kind::Graph, c.graph))?;
        }
        if !deps.is_null() {
            out(deps, c.deps.as_ptr() as *const CUgraphNode)?;
        }
        if !ndeps.is_null() {
            out(ndeps, c.deps.len())?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo(
    s: CUstream,
    status: *mut u32,
    id: *mut u64,
) -> CUresult {
    guard(|| capture_info(s, status, id, null_mut(), null_mut(), null_mut()))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    s: CUstream,
    status: *mut u32,
    id: *mut u64,
    graph: *mut CUgraph,
    deps: *mut *const CUgraphNode,
    ndeps: *mut usize,
) -> CUresult {
    guard(|| capture_info(s, status, id, graph, deps, ndeps))
}

/// `cuStreamGetCaptureInfo_v3` (CUDA 12.3): as `_v2`, with edge data, which is
/// always the default here (NULL: every edge is a full dependency).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    s: CUstream,
    status: *mut u32,
    id: *mut u64,
    graph: *mut CUgraph,
    deps: *mut *const CUgraphNode,
    edge_data: *mut *const c_void,
    ndeps: *mut usize,
) -> CUresult {
    guard(|| {
        if !edge_data.is_null() {
            out(edge_data, std::ptr::null())?;
        }
        capture_info(s, status, id, graph, deps, ndeps)
    })
}

/// `cuStreamUpdateCaptureDependencies`: adds to (flag 0) or replaces (flag 1) the
/// dependency set the stream's next captured node depends on.
unsafe fn update_deps(s: CUstream, deps: *const CUgraphNode, n: usize, flags: u32) -> Res {
    if flags > 1 || (n > 0 && deps.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    stream::check(s)?;
    with_ctx(|_, t, _| {
        let mut new = Vec::with_capacity(n);
        for i in 0..n {
            let h = *deps.add(i);
            node_id(t, h)?;
            new.push(h as u64);
        }
        let c = t
            .graphs
            .captures
            .get_mut(&(s as u64))
            .ok_or(CUDA_ERROR_ILLEGAL_STATE)?;
        // CU_STREAM_ADD_CAPTURE_DEPENDENCIES = 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES = 1.
        if flags == 1 {
            c.deps = new;
        } else {
            c.deps.extend(new);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamUpdateCaptureDependencies(
    s: CUstream,
    deps: *mut CUgraphNode,
    n: usize,
    flags: u32,
) -> CUresult {
    guard(|| update_deps(s, deps, n, flags))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamUpdateCaptureDependencies_v2(
    s: CUstream,
    deps: *mut CUgraphNode,
    edge_data: *const c_void,
    n: usize,
    flags: u32,
) -> CUresult {
    guard(|| {
        graph_topo::check_default_data(edge_data, n)?;
        update_deps(s, deps, n, flags)
    })
}

thread_local! {
    static CAPTURE_MODE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `cuThreadExchangeStreamCaptureMode`: swaps this thread's capture interaction mode
/// (kept, not enforced: no operation here is unsafe during a capture).
#[no_mangle]
pub unsafe extern "C" fn cuThreadExchangeStreamCaptureMode(mode: *mut u32) -> CUresult {
    guard(|| {
        if mode.is_null() || *mode > 2 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        *mode = CAPTURE_MODE.with(|m| m.replace(*mode));
        Ok(())
    })
}

pub fn node_id(t: &Tables, n: CUgraphNode) -> Res<u64> {
    match handle_id(Kind::GraphNode, n) {
        Some(id) if t.graphs.nodes.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphCreate(pg: *mut CUgraph, flags: u32) -> CUresult {
    guard(|| {
        if pg.is_null() || flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with_ctx(|_, t, _| {
            let g = t.new_id();
            t.graphs.graphs.insert(g, GraphEntry::default());
            out(pg, handle(Kind::Graph, g))
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphDestroy(g: CUgraph) -> CUresult {
    guard(|| {
        with_ctx(|d, t, _| {
            let id = graph_id(t, g)?;
            graph_nodes::destroy_graph(d, t, id);
            Ok(())
        })?;
        userobj::release_owner(g as u64);
        Ok(())
    })
}

/// Adds an explicit node after checking its dependencies belong to the graph.
unsafe fn add_node(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    kind: u32,
    op: Op,
) -> Res {
    add_node_with(pn, g, deps, ndeps, |_, _, _| {
        Ok((kind, op, graph_nodes::NodeParams::None))
    })
}

/// Adds an explicit node after checking its dependencies belong to the graph; `make`
/// gives the node's kind, operation and parameters from the driver, the tables and the
/// graph's id (under the tables' lock).
///
/// # Safety
/// `deps` must point to `ndeps` node handles.
pub unsafe fn add_node_with(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    make: impl FnOnce(&'static Driver, &mut Tables, u64) -> Res<(u32, Op, graph_nodes::NodeParams)>,
) -> Res {
    if pn.is_null() || (ndeps > 0 && deps.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    with_ctx(|d, t, _| {
        let gid = graph_id(t, g)?;
        let mut from = Vec::with_capacity(ndeps);
        for i in 0..ndeps {
            let d = node_id(t, *deps.add(i))?;
            if t.graphs.nodes[&d].graph != gid {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            if !from.contains(&d) {
                from.push(d);
            }
        }
        let (kind, op, params) = make(d, t, gid)?;
        let id = add_with(t, gid, kind, op, params)?;
        graph_topo::link(t, gid, &from, id);
        out(pn, handle(Kind::GraphNode, id))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEmptyNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
) -> CUresult {
    guard(|| add_node(pn, g, deps, ndeps, NODE_EMPTY, Arc::new(|| Ok(()))))
}

/// `CUDA_KERNEL_NODE_PARAMS` (`_v2` adds `kern` and `ctx` after `extra`).
#[repr(C)]
pub struct KernelNodeParams {
    pub func: CUfunction,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// `CUDA_KERNEL_NODE_PARAMS_v2` (and `_v3`, the same layout).
#[repr(C)]
pub struct KernelNodeParamsV2 {
    pub base: KernelNodeParams,
    pub kern: *mut c_void,
    pub ctx: CUcontext,
}

impl KernelNodeParamsV2 {
    /// The function to launch: `func`, else the library kernel `kern` (a `CUkernel` is
    /// a function handle here).
    pub fn function(&self) -> CUfunction {
        if self.base.func.is_null() {
            self.kern
        } else {
            self.base.func
        }
    }
}

/// A kernel node's operation (launching with `cluster`, see [`Geometry`]) and what it
/// keeps for `cuGraphKernelNodeGetParams`.
pub unsafe fn kernel_node(
    p: &KernelNodeParams,
    f: CUfunction,
    cluster: Option<[u32; 3]>,
) -> Res<(Op, graph_attr::KernelInfo)> {
    let g = Geometry {
        grid: p.grid,
        block: p.block,
        shared: p.shared,
        cluster,
        cooperative: false,
    };
    let l = launch::prepare(f, &g, p.params, p.extra)?;
    let info = graph_attr::KernelInfo::new(f, &g, l.arg_bytes());
    Ok((Arc::new(move || l.run()), info))
}

/// Adds a kernel node running `f` with `p`.
unsafe fn add_kernel_node(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: &KernelNodeParams,
    f: CUfunction,
) -> Res {
    let (op, info) = kernel_node(p, f, None)?;
    add_node(pn, g, deps, ndeps, NODE_KERNEL, op)?;
    graph_attr::keep_kernel(handle_id(Kind::GraphNode, *pn).unwrap_or(0), info)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *const KernelNodeParams,
) -> CUresult {
    guard(|| {
        let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        add_kernel_node(pn, g, deps, ndeps, p, p.func)
    })
}

/// `cuGraphAddKernelNode_v2`: the function is `func`, else the library kernel `kern`
/// (a `CUkernel` is a function handle here).
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *const KernelNodeParamsV2,
) -> CUresult {
    guard(|| {
        let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        add_kernel_node(pn, g, deps, ndeps, &p.base, p.function())
    })
}

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemsetNodeParams {
    pub dst: CUdeviceptr,
    pub pitch: usize,
    pub value: u32,
    pub element_size: u32,
    pub width: usize,
    pub height: usize,
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemsetNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *const MemsetNodeParams,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| add_op_node(pn, g, deps, ndeps, graph_params::memset_params(p)?))
}

/// Adds a copy, memset or host node with parameters `p`.
unsafe fn add_op_node(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: graph_params::OpParams,
) -> Res {
    add_node(pn, g, deps, ndeps, p.kind(), p.op())?;
    graph_params::keep(*pn, p)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemcpyNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *const texture::CudaMemcpy3d,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| add_op_node(pn, g, deps, ndeps, graph_params::memcpy_params(p)?))
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HostNodeParams {
    pub f: Option<unsafe extern "C" fn(*mut c_void)>,
    pub data: *mut c_void,
}

/// A host function and its argument, called at each launch.
pub fn host_op(f: unsafe extern "C" fn(*mut c_void), data: *mut c_void) -> Op {
    let data = data as usize;
    // SAFETY: the caller of cuLaunchHostFunc/cuGraphAddHostNode vouches for `f(data)`.
    Arc::new(move || {
        unsafe { f(data as *mut c_void) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddHostNode(
    pn: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    ndeps: usize,
    p: *const HostNodeParams,
) -> CUresult {
    guard(|| add_op_node(pn, g, deps, ndeps, graph_params::host_params(p)?))
}

/// `cuGraphGetNodes`: the nodes in insertion order (the count alone when `nodes` is NULL).
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetNodes(
    g: CUgraph,
    nodes: *mut CUgraphNode,
    n: *mut usize,
) -> CUresult {
    guard(|| {
        if n.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with_ctx(|_, t, _| {
            let e = &t.graphs.graphs[&graph_id(t, g)?];
            if !nodes.is_null() {
                for (i, &id) in e.nodes.iter().take(*n).enumerate() {
                    *nodes.add(i) = handle(Kind::GraphNode, id);
                }
            }
            out(n, e.nodes.len())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetType(node: CUgraphNode, ty: *mut u32) -> CUresult {
    guard(|| with_ctx(|_, t, _| out(ty, t.graphs.nodes[&node_id(t, node)?].kind)))
}

/// Instantiates `g` with `flags`; on failure also the `CUgraphInstantiateResult`.
fn instantiate(pe: *mut CUgraphExec, g: CUgraph, flags: u64) -> Result<(), (CUresult, u32)> {
    if pe.is_null() {
        return Err((CUDA_ERROR_INVALID_VALUE, graph_cond::INSTANTIATE_ERROR));
    }
    let id = with_ctx(|_, t, _| {
        let gid = graph_id(t, g)?;
        Ok(graph_cond::instantiate_graph(t, gid, flags))
    })
    .map_err(|e| (e, graph_cond::INSTANTIATE_ERROR))??;
    // SAFETY: checked non-null.
    unsafe { out(pe, handle(Kind::GraphExec, id)) }
        .map_err(|e| (e, graph_cond::INSTANTIATE_ERROR))?;
    userobj::copy_owner(g as u64, handle(Kind::GraphExec, id) as u64);
    Ok(())
}

/// `cuGraphInstantiate` (CUDA 10.0 and 11.0 signatures: error node and log buffer,
/// which instantiation never fills since it cannot fail once the nodes exist).
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate(
    pe: *mut CUgraphExec,
    g: CUgraph,
    _err_node: *mut CUgraphNode,
    _log: *mut std::ffi::c_char,
    _log_size: usize,
) -> CUresult {
    guard(|| instantiate(pe, g, 0).map_err(|e| e.0))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate_v2(
    pe: *mut CUgraphExec,
    g: CUgraph,
    err_node: *mut CUgraphNode,
    log: *mut std::ffi::c_char,
    log_size: usize,
) -> CUresult {
    cuGraphInstantiate(pe, g, err_node, log, log_size)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    pe: *mut CUgraphExec,
    g: CUgraph,
    flags: u64,
) -> CUresult {
    guard(|| instantiate(pe, g, flags).map_err(|e| e.0))
}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
pub struct InstantiateParams {
    pub flags: u64,
    pub upload_stream: CUstream,
    pub err_node: CUgraphNode,
    /// `CUgraphInstantiateResult` (`CUDA_GRAPH_INSTANTIATE_SUCCESS` = 0).
    pub result: u32,
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithParams(
    pe: *mut CUgraphExec,
    g: CUgraph,
    p: *mut InstantiateParams,
) -> CUresult {
    guard(|| {
        let p = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let r = instantiate(pe, g, p.flags);
        p.err_node = null_mut();
        p.result = r.err().map_or(0, |e| e.1);
        r.map_err(|e| e.0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithParams_ptsz(
    pe: *mut CUgraphExec,
    g: CUgraph,
    p: *mut InstantiateParams,
) -> CUresult {
    cuGraphInstantiateWithParams(pe, g, p)
}

/// `cuGraphLaunch`: runs the executable graph's plan (recorded as one node when `s` is
/// capturing); the first failing node's error is the result.
fn graph_launch(e: CUgraphExec, s: CUstream) -> Res {
    stream::check(s)?;
    let run = graph_cond::launch_op(e)?;
    match capturing(s)? {
        Some(g) => record(g, NODE_EMPTY, run),
        None => run(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphLaunch(e: CUgraphExec, s: CUstream) -> CUresult {
    guard(|| graph_launch(e, s))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphLaunch_ptsz(e: CUgraphExec, s: CUstream) -> CUresult {
    guard(|| graph_launch(e, s))
}

/// `cuGraphUpload`: nothing to upload; checks the handles.
#[no_mangle]
pub unsafe extern "C" fn cuGraphUpload(e: CUgraphExec, s: CUstream) -> CUresult {
    guard(|| {
        stream::check(s)?;
        graph_cond::launch_op(e).map(|_| ())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphUpload_ptsz(e: CUgraphExec, s: CUstream) -> CUresult {
    cuGraphUpload(e, s)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecDestroy(e: CUgraphExec) -> CUresult {
    guard(|| {
        with_ctx(|_, t, _| match handle_id(Kind::GraphExec, e) {
            Some(id) => {
                graph_params::forget_exec(t, id);
                t.graphs.exec_nodes.remove(&id);
                t.graphs.exec_info.remove(&id);
                t.graphs
                    .execs
                    .remove(&id)
                    .map(|_| ())
                    .ok_or(CUDA_ERROR_INVALID_VALUE)
            }
            None => Err(CUDA_ERROR_INVALID_VALUE),
        })?;
        userobj::release_owner(e as u64);
        Ok(())
    })
}
