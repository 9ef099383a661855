//! The parameters of graph copy, memset and host nodes: what they keep, their operations,
//! `cuGraph{Memcpy,Memset,Host}NodeGetParams` / `SetParams`, the executable graph's
//! updates of single nodes (`cuGraphExec{Memcpy,Memset,Host,ChildGraph}NodeSetParams`,
//! `cuGraphExecEvent{Record,Wait}NodeSetEvent`), the generic `cuGraphNodeSetParams` and
//! `cuGraphExecNodeSetParams`, `cuGraphNodeGetParams`, and enabling/disabling nodes of an executable graph
//! (`cuGraphNodeSetEnabled` / `GetEnabled`).
//!
//! A node's parameters are copied when it is added or set; a copy node keeps the
//! caller's host pointers, dereferenced at each launch as the driver API documents. An
//! executable graph holds each node's operation as it was at instantiation (or at its
//! last update): setting a node's parameters in the graph changes later instantiations
//! only, setting them in the executable graph changes its next launches only. A
//! disabled node (kernel, memcpy and memset nodes only, as documented) runs as an empty
//! node until it is enabled again; updates made meanwhile take effect then.

use crate::graph::*;
use crate::graph_cond::{self, GraphNodeParams};
use crate::graph_nodes::*;
use crate::*;
use std::sync::Arc;

/// A `CUDA_MEMCPY3D` kept in a node (its host pointers are the caller's, used at each
/// launch as the driver API documents).
pub struct Copy3d(pub texture::CudaMemcpy3d);
// SAFETY: plain addresses, dereferenced only by `cuMemcpy3D_v2` under the caller's
// contract for graph memcpy nodes.
unsafe impl Send for Copy3d {}
// SAFETY: as above; the struct is never written after creation.
unsafe impl Sync for Copy3d {}

/// A `CUDA_HOST_NODE_PARAMS` kept in a node.
#[derive(Clone, Copy)]
pub struct Host(pub HostNodeParams);
// SAFETY: the function and its argument are the caller's, called at launch under the
// caller's contract for host nodes.
unsafe impl Send for Host {}
// SAFETY: as above; never written after creation.
unsafe impl Sync for Host {}

/// The parameters a copy, memset or host node keeps.
#[derive(Clone)]
pub enum OpParams {
    Memcpy(Arc<Copy3d>),
    Memset(MemsetNodeParams),
    Host(Host),
}

impl OpParams {
    /// The node type these parameters are for.
    pub fn kind(&self) -> u32 {
        match self {
            OpParams::Memcpy(_) => NODE_MEMCPY,
            OpParams::Memset(_) => NODE_MEMSET,
            OpParams::Host(_) => NODE_HOST,
        }
    }

    /// The operation running these parameters.
    pub fn op(&self) -> Op {
        match self {
            OpParams::Memcpy(c) => {
                let c = c.clone();
                Arc::new(move || {
                    // SAFETY: the node's parameters, valid at launch by the caller's
                    // contract.
                    match unsafe { texture::cuMemcpy3D_v2(&c.0) } {
                        CUDA_SUCCESS => Ok(()),
                        e => Err(e),
                    }
                })
            }
            OpParams::Memset(p) => {
                let es = p.element_size as usize;
                let pattern = p.value.to_le_bytes()[..es].to_vec();
                let (dst, pitch, width, height) = (p.dst, p.pitch as u64, p.width, p.height);
                Arc::new(move || {
                    for row in 0..height as u64 {
                        memory::memset(dst + row * pitch, &pattern, width, None)?;
                    }
                    Ok(())
                })
            }
            OpParams::Host(h) => match h.0.f {
                Some(f) => host_op(f, h.0.data),
                None => Arc::new(|| Err(CUDA_ERROR_INVALID_VALUE)),
            },
        }
    }
}

/// Checked memset parameters (element size 1, 2 or 4; pitch wide enough for 2D).
///
/// # Safety
/// `p` is NULL or points to a `CUDA_MEMSET_NODE_PARAMS`.
pub unsafe fn memset_params(p: *const MemsetNodeParams) -> Res<OpParams> {
    let p = *p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let es = p.element_size as usize;
    if !matches!(es, 1 | 2 | 4) || (p.height > 1 && p.pitch < p.width * es) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    Ok(OpParams::Memset(p))
}

/// Copy parameters (read from the caller's struct).
///
/// # Safety
/// `p` is NULL or points to a `CUDA_MEMCPY3D`.
pub unsafe fn memcpy_params(p: *const texture::CudaMemcpy3d) -> Res<OpParams> {
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    Ok(OpParams::Memcpy(Arc::new(Copy3d(std::ptr::read(p)))))
}

/// Host-node parameters (a function is required).
///
/// # Safety
/// `p` is NULL or points to a `CUDA_HOST_NODE_PARAMS`.
pub unsafe fn host_params(p: *const HostNodeParams) -> Res<OpParams> {
    let p = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
    p.f.ok_or(CUDA_ERROR_INVALID_VALUE)?;
    Ok(OpParams::Host(Host(HostNodeParams {
        f: p.f,
        data: p.data,
    })))
}

/// Remembers node `n`'s parameters.
pub fn keep(n: CUgraphNode, p: OpParams) -> Res {
    with_ctx(|_, t, _| {
        let id = node_id(t, n)?;
        t.graphs.op_params.insert(id, p);
        Ok(())
    })
}

/// Forgets node `n`'s parameters and kernel attributes (it is destroyed).
pub fn forget_node(t: &mut Tables, n: u64) {
    t.graphs.op_params.remove(&n);
    t.graphs.kernel_attrs.remove(&n);
}

/// Gives node `to` (a clone of `from`) `from`'s parameters and kernel attributes.
pub fn copy(t: &mut Tables, from: u64, to: u64) {
    if let Some(p) = t.graphs.op_params.get(&from).cloned() {
        t.graphs.op_params.insert(to, p);
    }
    if let Some(a) = t.graphs.kernel_attrs.get(&from).cloned() {
        t.graphs.kernel_attrs.insert(to, a);
    }
}

/// Node `n`'s kept parameters, which must be of `kind`.
fn get(n: CUgraphNode, kind: u32) -> Res<OpParams> {
    with_ctx(|_, t, _| {
        let p = t
            .graphs
            .op_params
            .get(&node_id(t, n)?)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if p.kind() != kind {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(p.clone())
    })
}

/// Sets the parameters of node `n` (of the same type) in its graph.
fn set(n: CUgraphNode, p: OpParams) -> Res {
    with_ctx(|_, t, _| {
        let id = node_id(t, n)?;
        let ne = t
            .graphs
            .nodes
            .get_mut(&id)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if ne.kind != p.kind() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        ne.op = p.op();
        t.graphs.op_params.insert(id, p);
        Ok(())
    })
}

/// The index of node `n`'s operation in executable graph `e`, and the exec's id.
fn exec_index(t: &Tables, e: CUgraphExec, n: CUgraphNode) -> Res<(u64, usize)> {
    let nid = node_id(t, n)?;
    let eid = handle_id(Kind::GraphExec, e)
        .filter(|id| t.graphs.execs.contains_key(id))
        .ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let at = t
        .graphs
        .exec_nodes
        .get(&eid)
        .and_then(|v| v.iter().position(|x| x.node == nid))
        .ok_or(CUDA_ERROR_INVALID_VALUE)?;
    Ok((eid, at))
}

/// Replaces the operation of node `n` (of `kind`) in executable graph `e` (kept aside
/// while the node is disabled).
pub fn set_exec_op(t: &mut Tables, e: CUgraphExec, n: CUgraphNode, kind: u32, op: Op) -> Res {
    let (eid, at) = exec_index(t, e, n)?;
    if t.graphs.exec_nodes[&eid][at].kind != kind {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    if let Some(kept) = t.graphs.disabled.get_mut(&(eid, at)) {
        *kept = op;
        return Ok(());
    }
    let ops = t
        .graphs
        .execs
        .get_mut(&eid)
        .ok_or(CUDA_ERROR_INVALID_VALUE)?;
    ops[at] = op;
    Ok(())
}

/// Sets node `n`'s parameters in executable graph `e`.
fn set_exec(e: CUgraphExec, n: CUgraphNode, p: OpParams) -> Res {
    with_ctx(|_, t, _| set_exec_op(t, e, n, p.kind(), p.op()))
}

/// After `cuGraphExecUpdate` of executable graph `eid`: its disabled nodes stay
/// disabled, with the new operations kept aside.
pub fn after_update(t: &mut Tables, eid: u64) {
    let keys: Vec<(u64, usize)> = t
        .graphs
        .disabled
        .keys()
        .filter(|k| k.0 == eid)
        .copied()
        .collect();
    for k in keys {
        let Some(ops) = t.graphs.execs.get_mut(&eid) else {
            return;
        };
        if let Some(op) = ops.get_mut(k.1) {
            let new = std::mem::replace(op, Arc::new(|| Ok(())));
            t.graphs.disabled.insert(k, new);
        }
    }
}

/// Forgets the disabled nodes of executable graph `eid` (it is destroyed).
pub fn forget_exec(t: &mut Tables, eid: u64) {
    t.graphs.disabled.retain(|k, _| k.0 != eid);
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphMemsetNodeGetParams(
    n: CUgraphNode,
    p: *mut MemsetNodeParams,
) -> CUresult {
    guard(|| match get(n, NODE_MEMSET)? {
        OpParams::Memset(m) => out(p, m),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphMemsetNodeSetParams(
    n: CUgraphNode,
    p: *const MemsetNodeParams,
) -> CUresult {
    guard(|| set(n, memset_params(p)?))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphMemcpyNodeGetParams(
    n: CUgraphNode,
    p: *mut texture::CudaMemcpy3d,
) -> CUresult {
    guard(|| match get(n, NODE_MEMCPY)? {
        OpParams::Memcpy(c) => {
            if p.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            std::ptr::copy_nonoverlapping(&c.0, p, 1);
            Ok(())
        }
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphMemcpyNodeSetParams(
    n: CUgraphNode,
    p: *const texture::CudaMemcpy3d,
) -> CUresult {
    guard(|| set(n, memcpy_params(p)?))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphHostNodeGetParams(
    n: CUgraphNode,
    p: *mut HostNodeParams,
) -> CUresult {
    guard(|| match get(n, NODE_HOST)? {
        OpParams::Host(h) => out(p, h.0),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphHostNodeSetParams(
    n: CUgraphNode,
    p: *const HostNodeParams,
) -> CUresult {
    guard(|| set(n, host_params(p)?))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecMemsetNodeSetParams(
    e: CUgraphExec,
    n: CUgraphNode,
    p: *const MemsetNodeParams,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| set_exec(e, n, memset_params(p)?))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecMemcpyNodeSetParams(
    e: CUgraphExec,
    n: CUgraphNode,
    p: *const texture::CudaMemcpy3d,
    _ctx: CUcontext,
) -> CUresult {
    guard(|| set_exec(e, n, memcpy_params(p)?))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecHostNodeSetParams(
    e: CUgraphExec,
    n: CUgraphNode,
    p: *const HostNodeParams,
) -> CUresult {
    guard(|| set_exec(e, n, host_params(p)?))
}

/// Points event node `n` (of `kind`) of executable graph `e` at event `ev`.
fn set_exec_event(e: CUgraphExec, n: CUgraphNode, kind: u32, ev: CUevent) -> Res {
    with_ctx(|_, t, _| {
        handle_id(Kind::Event, ev)
            .filter(|id| t.events.contains_key(id))
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        set_exec_op(t, e, n, kind, graph_nodes::event_op(ev as u64, kind))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecEventRecordNodeSetEvent(
    e: CUgraphExec,
    n: CUgraphNode,
    ev: CUevent,
) -> CUresult {
    guard(|| set_exec_event(e, n, NODE_EVENT_RECORD, ev))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecEventWaitNodeSetEvent(
    e: CUgraphExec,
    n: CUgraphNode,
    ev: CUevent,
) -> CUresult {
    guard(|| set_exec_event(e, n, NODE_WAIT_EVENT, ev))
}

/// `cuGraphExecChildGraphNodeSetParams`: the operations of child graph node `n`'s
/// nodes in executable graph `e` become those of graph `child`, which must have the
/// same nodes (count and types, in the order a launch runs them) and edges as the
/// node's graph.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecChildGraphNodeSetParams(
    e: CUgraphExec,
    n: CUgraphNode,
    child: CUgraph,
) -> CUresult {
    guard(|| {
        with_ctx(|_, t, _| {
            let nid = node_id(t, n)?;
            let NodeParams::Child(old) = t.graphs.nodes[&nid].params else {
                return Err(CUDA_ERROR_INVALID_VALUE);
            };
            let new = graph_nodes::flatten(t, graph_id(t, child)?);
            let was = graph_nodes::flatten(t, old);
            let same = !new.cycle
                && new.shape == was.shape
                && new.nodes.len() == was.nodes.len()
                && new
                    .nodes
                    .iter()
                    .zip(&was.nodes)
                    .all(|(a, b)| a.kind == b.kind);
            if !same || graph_nodes::has_restricted_nodes(t, old) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            for (w, op) in was.nodes.iter().zip(new.ops) {
                let h = handle(Kind::GraphNode, w.node);
                set_exec_op(t, e, h, w.kind, op)?;
            }
            Ok(())
        })
    })
}

/// `cuGraphNodeSetEnabled`: disables (`on` 0) or enables a kernel, memcpy or memset node
/// of executable graph `e`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeSetEnabled(
    e: CUgraphExec,
    n: CUgraphNode,
    on: u32,
) -> CUresult {
    guard(|| {
        with_ctx(|_, t, _| {
            let (eid, at) = exec_index(t, e, n)?;
            let kind = t.graphs.exec_nodes[&eid][at].kind;
            if !matches!(kind, NODE_KERNEL | NODE_MEMCPY | NODE_MEMSET) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let ops = t
                .graphs
                .execs
                .get_mut(&eid)
                .ok_or(CUDA_ERROR_INVALID_VALUE)?;
            match (on != 0, t.graphs.disabled.remove(&(eid, at))) {
                (true, Some(op)) => ops[at] = op,
                (false, Some(op)) => {
                    t.graphs.disabled.insert((eid, at), op);
                }
                (false, None) => {
                    let op = std::mem::replace(&mut ops[at], Arc::new(|| Ok(())));
                    t.graphs.disabled.insert((eid, at), op);
                }
                (true, None) => {}
            }
            Ok(())
        })
    })
}

/// `cuGraphNodeGetEnabled`: 1 if node `n` of executable graph `e` is enabled, else 0.
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetEnabled(
    e: CUgraphExec,
    n: CUgraphNode,
    on: *mut u32,
) -> CUresult {
    guard(|| {
        let off = with_ctx(|_, t, _| {
            let (eid, at) = exec_index(t, e, n)?;
            let kind = t.graphs.exec_nodes[&eid][at].kind;
            if !matches!(kind, NODE_KERNEL | NODE_MEMCPY | NODE_MEMSET) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            Ok(t.graphs.disabled.contains_key(&(eid, at)))
        })?;
        out(on, u32::from(!off))
    })
}

/// `cuGraphNodeSetParams` (`e` None) and `cuGraphExecNodeSetParams`: `p`'s node type
/// must be node `n`'s; each type is set as its own `Set*` call sets it (child graphs in
/// executable graphs only; other node types are `CUDA_ERROR_NOT_SUPPORTED`).
unsafe fn node_set(e: Option<CUgraphExec>, n: CUgraphNode, p: *mut GraphNodeParams) -> Res {
    let p = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let kind = with_ctx(|_, t, _| Ok(t.graphs.nodes[&node_id(t, n)?].kind))?;
    if kind != p.kind {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let data = p.data.as_mut_ptr() as *mut u8;
    let word = *(data as *const usize);
    // `CUDA_MEMCPY_NODE_PARAMS`: flags, reserved, copyCtx, then the copy.
    let copy = data.add(16) as *const texture::CudaMemcpy3d;
    let ctx = std::ptr::null_mut();
    let r = match (kind, e) {
        (NODE_KERNEL, None) => cuGraphKernelNodeSetParams_v2(n, data as *const _),
        (NODE_KERNEL, Some(e)) => cuGraphExecKernelNodeSetParams_v2(e, n, data as *const _),
        (NODE_MEMCPY, None) => cuGraphMemcpyNodeSetParams(n, copy),
        (NODE_MEMCPY, Some(e)) => cuGraphExecMemcpyNodeSetParams(e, n, copy, ctx),
        (NODE_MEMSET, None) => cuGraphMemsetNodeSetParams(n, data as *const _),
        (NODE_MEMSET, Some(e)) => cuGraphExecMemsetNodeSetParams(e, n, data as *const _, ctx),
        (NODE_HOST, None) => cuGraphHostNodeSetParams(n, data as *const _),
        (NODE_HOST, Some(e)) => cuGraphExecHostNodeSetParams(e, n, data as *const _),
        (NODE_GRAPH, Some(e)) => cuGraphExecChildGraphNodeSetParams(e, n, word as CUgraph),
        (NODE_EVENT_RECORD, None) => cuGraphEventRecordNodeSetEvent(n, word as CUevent),
        (NODE_EVENT_RECORD, Some(e)) => cuGraphExecEventRecordNodeSetEvent(e, n, word as CUevent),
        (NODE_WAIT_EVENT, None) => cuGraphEventWaitNodeSetEvent(n, word as CUevent),
        (NODE_WAIT_EVENT, Some(e)) => cuGraphExecEventWaitNodeSetEvent(e, n, word as CUevent),
        _ => CUDA_ERROR_NOT_SUPPORTED,
    };
    match r {
        CUDA_SUCCESS => Ok(()),
        e => Err(e),
    }
}

/// `cuGraphNodeSetParams` (CUDA 12.2).
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeSetParams(n: CUgraphNode, p: *mut GraphNodeParams) -> CUresult {
    guard(|| node_set(None, n, p))
}

/// `cuGraphExecNodeSetParams` (CUDA 12.2).
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecNodeSetParams(
    e: CUgraphExec,
    n: CUgraphNode,
    p: *mut GraphNodeParams,
) -> CUresult {
    guard(|| node_set(Some(e), n, p))
}

/// `cuGraphNodeGetParams` (CUDA 13.2): node `n`'s type and parameters as each type's own
/// `Get*` call returns them, the rest of `p` zeroed (copy and memset contexts NULL: the
/// current one; a child graph node's graph is the copy it owns).
unsafe fn node_get(n: CUgraphNode, p: *mut GraphNodeParams) -> Res {
    let p = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let (kind, params) = with_ctx(|_, t, _| {
        let e = &t.graphs.nodes[&node_id(t, n)?];
        Ok((e.kind, e.params))
    })?;
    std::ptr::write_bytes(p as *mut GraphNodeParams, 0, 1);
    p.kind = kind;
    let data = p.data.as_mut_ptr() as *mut u8;
    let word = data as *mut usize;
    let r = match kind {
        NODE_KERNEL => cuGraphKernelNodeGetParams_v2(n, data as *mut _),
        NODE_MEMCPY => cuGraphMemcpyNodeGetParams(n, data.add(16) as *mut _),
        NODE_MEMSET => cuGraphMemsetNodeGetParams(n, data as *mut _),
        NODE_HOST => cuGraphHostNodeGetParams(n, data as *mut _),
        NODE_GRAPH => cuGraphChildGraphNodeGetGraph(n, word as *mut CUgraph),
        NODE_EMPTY => CUDA_SUCCESS,
        NODE_EVENT_RECORD => cuGraphEventRecordNodeGetEvent(n, word as *mut CUevent),
        NODE_WAIT_EVENT => cuGraphEventWaitNodeGetEvent(n, word as *mut CUevent),
        NODE_MEM_ALLOC => cuGraphMemAllocNodeGetParams(n, data as *mut _),
        NODE_MEM_FREE => cuGraphMemFreeNodeGetParams(n, word as *mut CUdeviceptr),
        graph_cond::NODE_CONDITIONAL => {
            let NodeParams::Conditional(c) = params else {
                return Err(CUDA_ERROR_INVALID_VALUE);
            };
            let cp = with_ctx(|_, t, _| {
                let cn = t
                    .graphs
                    .cond_nodes
                    .get(&c)
                    .ok_or(CUDA_ERROR_INVALID_VALUE)?;
                Ok(graph_cond::CondNodeParams {
                    handle: cn.handle,
                    kind: cn.kind,
                    size: cn.bodies.len() as u32,
                    graphs_out: cn.out.as_ptr() as *mut CUgraph,
                    ctx: std::ptr::null_mut(),
                })
            })?;
            std::ptr::write(data as *mut graph_cond::CondNodeParams, cp);
            CUDA_SUCCESS
        }
        _ => CUDA_ERROR_NOT_SUPPORTED,
    };
    match r {
        CUDA_SUCCESS => Ok(()),
        e => Err(e),
    }
}

/// `cuGraphNodeGetParams` (CUDA 13.2).
#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetParams(n: CUgraphNode, p: *mut GraphNodeParams) -> CUresult {
    guard(|| node_get(n, p))
}
