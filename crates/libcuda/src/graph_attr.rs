//! Graph memory accounting (`cuDeviceGetGraphMemAttribute`,
//! `cuDeviceSetGraphMemAttribute`, `cuDeviceGraphMemTrim`), kernel node queries
//! (`cuGraphKernelNodeGetParams`) and kernel node attributes
//! (`cuGraphKernelNode{Set,Get}Attribute`, `cuGraphKernelNodeCopyAttributes`).
//!
//! Graph memory: an allocation node reserves its memory when it is added and keeps it
//! while its graph exists or the allocation is live (see [`crate::graph_nodes`]), so the
//! *reserved* memory is the bytes of those reservations and the *used* memory the bytes
//! of the live allocations (those a launch made and nothing freed since). The high
//! watermarks are the largest values since they were last reset (to zero, the only value
//! they can be set to); a query reports at least the current value. Trimming has nothing
//! to give back: reservations return to the device as soon as nothing holds them.
//!
//! Kernel nodes keep what they were given: the function, the launch shape and a copy
//! of each argument. `cuGraphKernelNodeGetParams` returns those, with `kernelParams`
//! pointing at the node's copies (valid until the node's parameters change or it is
//! destroyed) and `extra` NULL.

use crate::graph::*;
use crate::*;

/// `CUgraphMem_attribute`.
const USED_MEM_CURRENT: u32 = 0;
const USED_MEM_HIGH: u32 = 1;
const RESERVED_MEM_CURRENT: u32 = 2;
const RESERVED_MEM_HIGH: u32 = 3;

/// Graph memory now: (used, reserved) bytes.
fn mem_now(t: &Tables) -> [u64; 2] {
    let mut now = [0u64; 2];
    for a in t.graphs.mem.values() {
        let n = a.params.bytesize as u64;
        now[1] += n;
        if a.live {
            now[0] += n;
        }
    }
    now
}

/// Raises the high watermarks to the current values (after graph memory grew).
pub fn note_mem(t: &mut Tables) {
    let now = mem_now(t);
    for (h, n) in t.graphs.mem_high.iter_mut().zip(now) {
        *h = (*h).max(n);
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetGraphMemAttribute(
    dev: CUdevice,
    attr: u32,
    value: *mut c_void,
) -> CUresult {
    guard(|| {
        device::check_dev(dev)?;
        let v = with_ctx(|_, t, _| {
            let now = mem_now(t);
            let high = t.graphs.mem_high;
            Ok(match attr {
                USED_MEM_CURRENT => now[0],
                USED_MEM_HIGH => high[0].max(now[0]),
                RESERVED_MEM_CURRENT => now[1],
                RESERVED_MEM_HIGH => high[1].max(now[1]),
                _ => return Err(CUDA_ERROR_INVALID_VALUE),
            })
        })?;
        out(value as *mut u64, v)
    })
}

/// `cuDeviceSetGraphMemAttribute`: resets a high watermark (to zero only).
#[no_mangle]
pub unsafe extern "C" fn cuDeviceSetGraphMemAttribute(
    dev: CUdevice,
    attr: u32,
    value: *mut c_void,
) -> CUresult {
    guard(|| {
        device::check_dev(dev)?;
        let v = (value as *const u64)
            .as_ref()
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let k = match attr {
            USED_MEM_HIGH => 0,
            RESERVED_MEM_HIGH => 1,
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        };
        if *v != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with_ctx(|_, t, _| {
            t.graphs.mem_high[k] = 0;
            Ok(())
        })
    })
}

/// `cuDeviceGraphMemTrim`: nothing is cached (see the module doc).
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGraphMemTrim(dev: CUdevice) -> CUresult {
    guard(|| device::check_dev(dev))
}

/// What a kernel node was given (see the module doc).
pub struct KernelInfo {
    pub func: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    /// The arguments' bytes and pointers to them (the `kernelParams` array).
    pub args: Vec<Box<[u8]>>,
    pub ptrs: Box<[usize]>,
}

impl KernelInfo {
    pub fn new(f: CUfunction, g: &Geometry, args: Vec<Vec<u8>>) -> KernelInfo {
        let mut args: Vec<Box<[u8]>> = args.into_iter().map(Vec::into_boxed_slice).collect();
        let ptrs = args.iter_mut().map(|a| a.as_mut_ptr() as usize).collect();
        KernelInfo {
            func: f as usize,
            grid: g.grid,
            block: g.block,
            shared: g.shared,
            args,
            ptrs,
        }
    }

    /// A copy with its own argument bytes (for a cloned node).
    pub fn duplicate(&self) -> KernelInfo {
        let g = Geometry {
            grid: self.grid,
            block: self.block,
            shared: self.shared,
            cluster: None,
            cooperative: false,
        };
        let args = self.args.iter().map(|a| a.to_vec()).collect();
        KernelInfo::new(self.func as CUfunction, &g, args)
    }
}

/// Keeps kernel node `node`'s parameters.
pub fn keep_kernel(node: u64, info: KernelInfo) -> Res {
    with_ctx(|_, t, _| {
        t.graphs.kernels.insert(node, info);
        Ok(())
    })
}

/// Writes kernel node `n`'s parameters to `p`; returns its `CUkernel` field's value
/// (the function too: a `CUkernel` is a function handle here).
unsafe fn kernel_params(n: CUgraphNode, p: *mut KernelNodeParams) -> Res<CUfunction> {
    let p = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
    with_ctx(|_, t, _| {
        let id = node_id(t, n)?;
        let k = t.graphs.kernels.get(&id).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        *p = KernelNodeParams {
            func: k.func as CUfunction,
            grid: k.grid,
            block: k.block,
            shared: k.shared,
            params: k.ptrs.as_ptr() as *mut *mut c_void,
            extra: std::ptr::null_mut(),
        };
        Ok(k.func as CUfunction)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetParams(
    n: CUgraphNode,
    p: *mut KernelNodeParams,
) -> CUresult {
    guard(|| kernel_params(n, p).map(|_| ()))
}

/// `cuGraphKernelNodeGetParams_v2`: also `kern` (the function) and `ctx` (NULL: the
/// node runs in the current context).
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetParams_v2(
    n: CUgraphNode,
    p: *mut KernelNodeParamsV2,
) -> CUresult {
    guard(|| {
        let p = p.as_mut().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        p.kern = kernel_params(n, &mut p.base)?;
        p.ctx = std::ptr::null_mut();
        Ok(())
    })
}

/// `CUkernelNodeAttrValue` (= `CUlaunchAttributeValue`): a 64-byte union.
pub type KernelNodeAttrValue = [u32; 16];

/// The largest `CUlaunchAttributeID` (`CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING`).
const LAUNCH_ATTRIBUTE_MAX: u32 = 16;

/// `cuGraphKernelNodeSetAttribute`: kept for `GetAttribute` and `CopyAttributes`; the
/// cluster dimension (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`) also sets the clusters
/// the node launches with (kept when its parameters are set), as `cuLaunchKernelEx`
/// honours it; the others are hints a launch that runs to completion needs no more of.
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetAttribute(
    n: CUgraphNode,
    attr: u32,
    value: *const KernelNodeAttrValue,
) -> CUresult {
    guard(|| {
        let v = *value.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if attr == 0 || attr > LAUNCH_ATTRIBUTE_MAX {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        set_attribute(n, attr, v)
    })
}

/// The cluster dimension set on kernel node `n`, if any (all zero: none).
pub fn cluster_of(t: &Tables, n: u64) -> Option<[u32; 3]> {
    let a = t.graphs.kernel_attrs.get(&n)?;
    let v = a.get(&launch::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)?;
    (v[..3] != [0; 3]).then_some([v[0], v[1], v[2]])
}

/// Sets attribute `attr` of kernel node `n` to `v` (see `cuGraphKernelNodeSetAttribute`).
fn set_attribute(n: CUgraphNode, attr: u32, v: KernelNodeAttrValue) -> Res {
    let (id, info) = with_ctx(|_, t, _| {
        let id = node_id(t, n)?;
        let k = t.graphs.kernels.get(&id).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        Ok((id, k.duplicate()))
    })?;
    let mut op = None;
    if attr == launch::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
        let g = Geometry {
            grid: info.grid,
            block: info.block,
            shared: info.shared,
            cluster: (v[..3] != [0; 3]).then_some([v[0], v[1], v[2]]),
            cooperative: false,
        };
        let ptrs = info.ptrs.as_ptr() as *mut *mut c_void;
        // SAFETY: `ptrs` points at the copy's arguments, alive while `l` is prepared.
        let l =
            unsafe { launch::prepare(info.func as CUfunction, &g, ptrs, std::ptr::null_mut()) }?;
        let run: Op = std::sync::Arc::new(move || l.run());
        op = Some(run);
    }
    with_ctx(|_, t, _| {
        let ne = t
            .graphs
            .nodes
            .get_mut(&id)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if let Some(op) = op {
            ne.op = op;
        }
        t.graphs.kernel_attrs.entry(id).or_default().insert(attr, v);
        Ok(())
    })
}

/// `cuGraphKernelNodeGetAttribute`: the value last set (zero if never set).
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetAttribute(
    n: CUgraphNode,
    attr: u32,
    value: *mut KernelNodeAttrValue,
) -> CUresult {
    guard(|| {
        if attr == 0 || attr > LAUNCH_ATTRIBUTE_MAX {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let v = with_ctx(|_, t, _| {
            let id = node_id(t, n)?;
            if t.graphs.nodes[&id].kind != NODE_KERNEL {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let set = t.graphs.kernel_attrs.get(&id).and_then(|a| a.get(&attr));
            Ok(set.copied().unwrap_or_default())
        })?;
        out(value, v)
    })
}

/// `cuGraphKernelNodeCopyAttributes`: kernel node `dst` gets every attribute of `src`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeCopyAttributes(
    dst: CUgraphNode,
    src: CUgraphNode,
) -> CUresult {
    guard(|| {
        let attrs = with_ctx(|_, t, _| {
            let (s, d) = (node_id(t, src)?, node_id(t, dst)?);
            if t.graphs.nodes[&s].kind != NODE_KERNEL || t.graphs.nodes[&d].kind != NODE_KERNEL {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            Ok(t.graphs.kernel_attrs.get(&s).cloned().unwrap_or_default())
        })?;
        for (attr, v) in attrs {
            set_attribute(dst, attr, v)?;
        }
        Ok(())
    })
}
