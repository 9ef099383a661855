//! The topology of CUDA graphs: their dependency edges (with `CUgraphEdgeData`), the
//! calls that add, remove and query them (`cuGraphAddDependencies`,
//! `cuGraphRemoveDependencies`, `cuGraphGetEdges`, `cuGraphGetRootNodes`,
//! `cuGraphNodeGetDependencies`, `cuGraphNodeGetDependentNodes`, all with their `_v2`
//! edge-data forms), `cuGraphDestroyNode`, the ids of graphs and nodes, and the order in
//! which an executable graph runs its nodes.
//!
//! Every operation here runs to completion before the next starts, so a graph runs its
//! nodes one at a time in a topological order of its edges: among the nodes whose
//! dependencies have run, the one added first. A graph whose edges all point forward in
//! insertion order (every graph built by the `cuGraphAdd*Node` calls and by captures)
//! runs in insertion order; edges added later with `cuGraphAddDependencies` reorder it;
//! a cycle fails instantiation (`CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE`).
//!
//! Edge data: the default (all zero) or, between two kernel nodes, a programmatic
//! dependency or port (`CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC`,
//! `CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC` / `_LAUNCH_ORDER`), kept and returned by the
//! queries. Such an edge lets the dependent kernel start before its dependency finishes;
//! running the dependency to completion first is one of the orders it allows. Queries
//! without an edge-data array fail with `CUDA_ERROR_LOSSY_QUERY` when an edge they would
//! return has non-default data, as `cuda.h` documents.

use crate::graph::*;
use crate::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// `CUDA_ERROR_LOSSY_QUERY`.
const CUDA_ERROR_LOSSY_QUERY: CUresult = 402;
/// `CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC`.
const DEPENDENCY_PROGRAMMATIC: u8 = 1;
/// `CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER` (the largest port).
const PORT_LAUNCH_ORDER: u8 = 2;

/// `CUgraphEdgeData`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeData {
    pub from_port: u8,
    pub to_port: u8,
    pub kind: u8,
    pub reserved: [u8; 5],
}

/// A dependency edge: `to` runs after `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: u64,
    pub to: u64,
    pub data: EdgeData,
}

/// Adds default edges from each node of `from` to `to` in graph `g`.
pub fn link(t: &mut Tables, g: u64, from: &[u64], to: u64) {
    if let Some(e) = t.graphs.graphs.get_mut(&g) {
        e.edges.extend(from.iter().map(|&f| Edge {
            from: f,
            to,
            data: EdgeData::default(),
        }));
    }
}

/// Checks that the optional edge-data array `p` of `n` entries is all default (capture
/// dependencies keep no edge data here).
///
/// # Safety
/// `p` is NULL or points to `n` entries.
pub unsafe fn check_default_data(p: *const c_void, n: usize) -> Res {
    let p = p as *const EdgeData;
    if !p.is_null() && (0..n).any(|i| *p.add(i) != EdgeData::default()) {
        return Err(CUDA_ERROR_NOT_SUPPORTED);
    }
    Ok(())
}

/// The nodes of graph `g` in the order a launch runs them (see the module doc); `None`
/// if its edges have a cycle.
pub fn order(t: &Tables, g: u64) -> Option<Vec<u64>> {
    let e = t.graphs.graphs.get(&g)?;
    let index: HashMap<u64, usize> = e.nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut pending = vec![0usize; e.nodes.len()];
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); e.nodes.len()];
    for edge in &e.edges {
        let (Some(&f), Some(&to)) = (index.get(&edge.from), index.get(&edge.to)) else {
            continue;
        };
        pending[to] += 1;
        out_edges[f].push(to);
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..e.nodes.len())
        .filter(|&i| pending[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(e.nodes.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(e.nodes[i]);
        for &to in &out_edges[i] {
            pending[to] -= 1;
            if pending[to] == 0 {
                ready.push(Reverse(to));
            }
        }
    }
    (order.len() == e.nodes.len()).then_some(order)
}

/// Copies the edges of graph `from` into graph `to`, mapping node ids by `map`.
pub fn copy_edges(t: &mut Tables, from: u64, to: u64, map: &HashMap<u64, u64>) {
    let edges: Vec<Edge> = t.graphs.graphs.get(&from).map_or_else(Vec::new, |e| {
        e.edges
            .iter()
            .filter_map(|x| {
                Some(Edge {
                    from: *map.get(&x.from)?,
                    to: *map.get(&x.to)?,
                    data: x.data,
                })
            })
            .collect()
    });
    if let Some(e) = t.graphs.graphs.get_mut(&to) {
        e.edges = edges;
    }
}

/// Writes `list` to the array `arr` of `*n` entries under `cuda.h`'s convention: a
/// NULL array asks for the count; otherwise `min(*n, len)` entries are written, the
/// rest of the `*n` set to `null`, and `*n` becomes the number written.
unsafe fn fill<T: Copy>(list: &[T], arr: *mut T, null: T, n: *mut usize) -> Res {
    if n.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    if arr.is_null() {
        *n = list.len();
        return Ok(());
    }
    let k = (*n).min(list.len());
    for i in 0..*n {
        *arr.add(i) = list.get(i).copied().filter(|_| i < k).unwrap_or(null);
    }
    *n = k;
    Ok(())
}

/// The graph of node handle `n` and its id.
fn graph_of(t: &Tables, n: CUgraphNode) -> Res<(u64, u64)> {
    let id = node_id(t, n)?;
    Ok((t.graphs.nodes[&id].graph, id))
}

/// Writes the ends of `edges` to `ends` (their `from` ends when `pick_from`, else their
/// `to` ends) and, if `data` is not NULL, their data, under [`fill`]'s convention;
/// `CUDA_ERROR_LOSSY_QUERY` if `data` is NULL and an edge written has non-default data.
unsafe fn fill_ends(
    edges: &[Edge],
    pick_from: bool,
    ends: *mut CUgraphNode,
    data: *mut EdgeData,
    n: *mut usize,
) -> Res {
    if n.is_null() || (!data.is_null() && ends.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let k = (*n).min(edges.len());
    let lossy = edges[..k].iter().any(|e| e.data != EdgeData::default());
    if data.is_null() && !ends.is_null() && lossy {
        return Err(CUDA_ERROR_LOSSY_QUERY);
    }
    if !data.is_null() {
        let d: Vec<EdgeData> = edges.iter().map(|e| e.data).collect();
        let mut m = *n;
        fill(&d, data, EdgeData::default(), &mut m)?;
    }
    let list: Vec<CUgraphNode> = edges
        .iter()
        .map(|e| handle(Kind::GraphNode, if pick_from { e.from } else { e.to }))
        .collect();
    fill(&list, ends, std::ptr::null_mut(), n)
}

/// `cuGraphGetEdges[_v2]`: `from` and `to` both NULL (and `data` too) ask for the count.
unsafe fn get_edges(
    g: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    data: *mut EdgeData,
    n: *mut usize,
) -> Res {
    if n.is_null() || from.is_null() != to.is_null() || (!data.is_null() && from.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let edges = with_ctx(|_, t, _| Ok(t.graphs.graphs[&graph_id(t, g)?].edges.clone()))?;
    let mut m = *n;
    fill_ends(&edges, true, from, data, &mut m)?;
    fill_ends(&edges, false, to, data, n)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetEdges(
    g: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    n: *mut usize,
) -> CUresult {
    guard(|| get_edges(g, from, to, std::ptr::null_mut(), n))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetEdges_v2(
    g: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    data: *mut EdgeData,
    n: *mut usize,
) -> CUresult {
    guard(|| get_edges(g, from, to, data, n))
}

/// `cuGraphGetRootNodes`: the nodes without dependencies, in insertion order.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetRootNodes(
    g: CUgraph,
    roots: *mut CUgraphNode,
    n: *mut usize,
) -> CUresult {
    guard(|| {
        let list = with_ctx(|_, t, _| {
            let e = &t.graphs.graphs[&graph_id(t, g)?];
            Ok(e.nodes
                .iter()
                .filter(|&&n| !e.edges.iter().any(|x| x.to == n))
                .map(|&n| handle(Kind::GraphNode, n))
                .collect::<Vec<_>>())
        })?;
        fill(&list, roots, std::ptr::null_mut(), n)
    })
}

/// The edges into node `node` (`incoming`) or out of it, in the order they were added.
fn node_edges(node: CUgraphNode, incoming: bool) -> Res<Vec<Edge>> {
    with_ctx(|_, t, _| {
        let (g, id) = graph_of(t, node)?;
        Ok(t.graphs.graphs[&g]
            .edges
            .iter()
            .filter(|e| if incoming { e.to == id } else { e.from == id })
            .copied()
            .collect())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependencies(
    node: CUgraphNode,
    deps: *mut CUgraphNode,
    n: *mut usize,
) -> CUresult {
    cuGraphNodeGetDependencies_v2(node, deps, std::ptr::null_mut(), n)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependencies_v2(
    node: CUgraphNode,
    deps: *mut CUgraphNode,
    data: *mut EdgeData,
    n: *mut usize,
) -> CUresult {
    guard(|| fill_ends(&node_edges(node, true)?, true, deps, data, n))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependentNodes(
    node: CUgraphNode,
    deps: *mut CUgraphNode,
    n: *mut usize,
) -> CUresult {
    cuGraphNodeGetDependentNodes_v2(node, deps, std::ptr::null_mut(), n)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependentNodes_v2(
    node: CUgraphNode,
    deps: *mut CUgraphNode,
    data: *mut EdgeData,
    n: *mut usize,
) -> CUresult {
    guard(|| fill_ends(&node_edges(node, false)?, false, deps, data, n))
}

/// The edges `from[i] -> to[i]` (with `data[i]`, default when `data` is NULL) of graph
/// `g`, checked: nodes of `g`, not a self-edge, valid data (non-default only between
/// kernel nodes).
unsafe fn read_edges(
    t: &Tables,
    g: u64,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const EdgeData,
    n: usize,
) -> Res<Vec<Edge>> {
    if n > 0 && (from.is_null() || to.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let mut edges = Vec::with_capacity(n);
    for i in 0..n {
        let f = node_id(t, *from.add(i))?;
        let to = node_id(t, *to.add(i))?;
        let d = if data.is_null() {
            EdgeData::default()
        } else {
            *data.add(i)
        };
        let node = |x: u64| &t.graphs.nodes[&x];
        if node(f).graph != g || node(to).graph != g || f == to {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if d != EdgeData::default() {
            let kernels = node(f).kind == NODE_KERNEL && node(to).kind == NODE_KERNEL;
            let valid = d.kind <= DEPENDENCY_PROGRAMMATIC
                && d.from_port <= PORT_LAUNCH_ORDER
                && d.to_port == 0
                && d.reserved == [0; 5];
            if !kernels || !valid {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
        edges.push(Edge {
            from: f,
            to,
            data: d,
        });
    }
    Ok(edges)
}

/// `cuGraphAddDependencies[_v2]`: every edge is new (not in the graph nor twice in the
/// call), else nothing is added and the result is `CUDA_ERROR_INVALID_VALUE`.
unsafe fn add_deps(
    g: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const EdgeData,
    n: usize,
) -> Res {
    with_ctx(|_, t, _| {
        let gid = graph_id(t, g)?;
        let new = read_edges(t, gid, from, to, data, n)?;
        let e = t
            .graphs
            .graphs
            .get_mut(&gid)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        for (i, x) in new.iter().enumerate() {
            let same = |y: &Edge| y.from == x.from && y.to == x.to;
            if e.edges.iter().any(same) || new[..i].iter().any(same) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
        e.edges.extend(new);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies(
    g: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    n: usize,
) -> CUresult {
    guard(|| add_deps(g, from, to, std::ptr::null(), n))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies_v2(
    g: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const EdgeData,
    n: usize,
) -> CUresult {
    guard(|| add_deps(g, from, to, data, n))
}

/// `cuGraphRemoveDependencies[_v2]`: every edge exists with that data, and the graph
/// has no memory nodes (the driver's rule), else nothing is removed.
unsafe fn remove_deps(
    g: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const EdgeData,
    n: usize,
) -> Res {
    with_ctx(|_, t, _| {
        let gid = graph_id(t, g)?;
        let gone = read_edges(t, gid, from, to, data, n)?;
        let mem = t.graphs.graphs[&gid].nodes.iter().any(|n| {
            matches!(
                t.graphs.nodes[n].kind,
                graph_nodes::NODE_MEM_ALLOC | graph_nodes::NODE_MEM_FREE
            )
        });
        if n > 0 && mem {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let e = t
            .graphs
            .graphs
            .get_mut(&gid)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if !gone.iter().all(|x| e.edges.contains(x)) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        e.edges.retain(|x| !gone.contains(x));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphRemoveDependencies(
    g: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    n: usize,
) -> CUresult {
    guard(|| remove_deps(g, from, to, std::ptr::null(), n))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphRemoveDependencies_v2(
    g: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const EdgeData,
    n: usize,
) -> CUresult {
    guard(|| remove_deps(g, from, to, data, n))
}

/// `cuGraphDestroyNode`: removes the node, its edges, and what it owns (a child graph,
/// conditional bodies, an allocation's reservation when not live).
#[no_mangle]
pub unsafe extern "C" fn cuGraphDestroyNode(node: CUgraphNode) -> CUresult {
    guard(|| {
        with_ctx(|d, t, _| {
            let (g, id) = graph_of(t, node)?;
            if let Some(e) = t.graphs.graphs.get_mut(&g) {
                e.nodes.retain(|&n| n != id);
                e.edges.retain(|x| x.from != id && x.to != id);
            }
            let h = node as u64;
            for c in t.graphs.captures.values_mut() {
                c.deps.retain(|&x| x != h);
            }
            graph_nodes::destroy_node(d, t, g, id);
            Ok(())
        })
    })
}

/// `cuGraphNodeGetContainingGraph` (CUDA 13.1).
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetContainingGraph(
    node: CUgraphNode,
    pg: *mut CUgraph,
) -> CUresult {
    guard(|| {
        let g = with_ctx(|_, t, _| graph_of(t, node).map(|x| x.0))?;
        out(pg, handle(Kind::Graph, g))
    })
}

/// `cuGraphNodeGetLocalId` (CUDA 13.1): unique among the nodes of its graph (here
/// among all nodes: the node's table id, truncated).
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetLocalId(node: CUgraphNode, id: *mut u32) -> CUresult {
    guard(|| {
        let n = with_ctx(|_, t, _| graph_of(t, node).map(|x| x.1))?;
        out(id, n as u32)
    })
}

/// `cuGraphNodeGetToolsId` (CUDA 13.1): the node's table id, unique in the process.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetToolsId(node: CUgraphNode, id: *mut u64) -> CUresult {
    guard(|| {
        let n = with_ctx(|_, t, _| graph_of(t, node).map(|x| x.1))?;
        out(id, n)
    })
}

/// `cuGraphGetId` (CUDA 13.1): the graph's table id.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetId(g: CUgraph, id: *mut u32) -> CUresult {
    guard(|| {
        let gid = with_ctx(|_, t, _| graph_id(t, g))?;
        out(id, gid as u32)
    })
}

/// `cuGraphExecGetId` (CUDA 13.1): the executable graph's table id.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecGetId(e: CUgraphExec, id: *mut u32) -> CUresult {
    guard(|| {
        let eid = with_ctx(|_, t, _| {
            handle_id(Kind::GraphExec, e)
                .filter(|id| t.graphs.execs.contains_key(id))
                .ok_or(CUDA_ERROR_INVALID_VALUE)
        })?;
        out(id, eid as u32)
    })
}

/// Gives the edges `deps[i] -> node` (made by `cuGraphAddNode_v2`) the data `data[i]`,
/// checked as `cuGraphAddDependencies_v2` checks it.
///
/// # Safety
/// `deps` and `data` (if not NULL) point to `n` entries.
pub unsafe fn set_edge_data(
    node: CUgraphNode,
    deps: *const CUgraphNode,
    data: *const EdgeData,
    n: usize,
) -> Res {
    if data.is_null() || n == 0 {
        return Ok(());
    }
    with_ctx(|_, t, _| {
        let (g, id) = graph_of(t, node)?;
        let to = vec![node; n];
        let new = read_edges(t, g, deps, to.as_ptr(), data, n)?;
        let e = t
            .graphs
            .graphs
            .get_mut(&g)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        for x in e.edges.iter_mut().filter(|x| x.to == id) {
            if let Some(d) = new.iter().find(|d| d.from == x.from) {
                x.data = d.data;
            }
        }
        Ok(())
    })
}

/// The name of node type `kind` in `cuGraphDebugDotPrint`'s output.
fn kind_name(kind: u32) -> &'static str {
    const NAMES: [&str; 14] = [
        "KERNEL",
        "MEMCPY",
        "MEMSET",
        "HOST",
        "GRAPH",
        "EMPTY",
        "WAIT_EVENT",
        "EVENT_RECORD",
        "EXT_SEMAS_SIGNAL",
        "EXT_SEMAS_WAIT",
        "MEM_ALLOC",
        "MEM_FREE",
        "BATCH_MEM_OP",
        "CONDITIONAL",
    ];
    NAMES.get(kind as usize).copied().unwrap_or("UNKNOWN")
}

/// `cuGraphDebugDotPrint`: writes graph `g` to `path` in Graphviz DOT: a node per graph
/// node (its type and id; child graphs as clusters) and an edge per dependency
/// (non-default edge data as a label). The flags choose details here ignored.
#[no_mangle]
pub unsafe extern "C" fn cuGraphDebugDotPrint(
    g: CUgraph,
    path: *const std::ffi::c_char,
    _flags: u32,
) -> CUresult {
    guard(|| {
        if path.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let path = std::ffi::CStr::from_ptr(path)
            .to_str()
            .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        let text = with_ctx(|_, t, _| {
            let gid = graph_id(t, g)?;
            let mut s = String::from("digraph dot {\n");
            dot_graph(t, gid, &mut s);
            s.push_str("}\n");
            Ok(s)
        })?;
        std::fs::write(path, text).map_err(|_| CUDA_ERROR_OPERATING_SYSTEM)
    })
}

/// `CUDA_ERROR_OPERATING_SYSTEM`.
const CUDA_ERROR_OPERATING_SYSTEM: CUresult = 304;

/// Appends graph `g`'s nodes and edges (child graphs nested as clusters) to `s`.
fn dot_graph(t: &Tables, g: u64, s: &mut String) {
    use std::fmt::Write;
    let Some(e) = t.graphs.graphs.get(&g) else {
        return;
    };
    for &n in &e.nodes {
        let Some(ne) = t.graphs.nodes.get(&n) else {
            continue;
        };
        let _ = writeln!(s, "  n{n} [label=\"{} {n}\"];", kind_name(ne.kind));
        if let graph_nodes::NodeParams::Child(c) = ne.params {
            let _ = writeln!(s, "  subgraph cluster_{c} {{\n  label=\"graph {c}\";");
            dot_graph(t, c, s);
            s.push_str("  }\n");
        }
    }
    for x in &e.edges {
        let _ = write!(s, "  n{} -> n{}", x.from, x.to);
        if x.data != EdgeData::default() {
            let d = x.data;
            let _ = write!(s, " [label=\"type {} port {}\"]", d.kind, d.from_port);
        }
        s.push_str(";\n");
    }
}
