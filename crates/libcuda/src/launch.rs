//! Kernel launches (`cuLaunchKernel` with `kernelParams` or `extra`, cooperative and
//! `cuLaunchKernelEx`), launch error codes and occupancy queries.
//!
//! A launch runs to completion before the call returns. Parameter sizes and offsets come
//! from the kernel's PTX parameter list. A failing launch returns the error code a GPU
//! reports (`CUDA_ERROR_ILLEGAL_ADDRESS` for an out-of-bounds access,
//! `CUDA_ERROR_MISALIGNED_ADDRESS`, `CUDA_ERROR_LAUNCH_TIMEOUT`, `CUDA_ERROR_ASSERT`
//! for a failed device `assert`,
//! `CUDA_ERROR_LAUNCH_FAILED` otherwise) and logs ptxjit's located message (see
//! [`crate::log`]). `PTXJIT_CUDA_BACKEND=interp` runs launches on the interpreter.

use crate::*;
use ptxjit::{Backend, Error, FaultKind, KernelArg, LaunchConfig};
use std::sync::Arc;

/// `CU_LAUNCH_PARAM_END`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, `CU_LAUNCH_PARAM_BUFFER_SIZE`.
const PARAM_END: usize = 0;
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;

/// The `CUresult` for a ptxjit launch error.
pub fn error_code(e: &Error) -> CUresult {
    match e {
        Error::Fault(f) => match f.kind {
            FaultKind::Misaligned => CUDA_ERROR_MISALIGNED_ADDRESS,
            FaultKind::BadBranchIndex => CUDA_ERROR_LAUNCH_FAILED,
            _ => CUDA_ERROR_ILLEGAL_ADDRESS,
        },
        Error::Launch { .. } => CUDA_ERROR_INVALID_VALUE,
        Error::Memory(_) | Error::Host(_) => CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        e if e.is_assertion() => CUDA_ERROR_ASSERT,
        e if e.to_string().contains("time limit") => CUDA_ERROR_LAUNCH_TIMEOUT,
        _ => CUDA_ERROR_LAUNCH_FAILED,
    }
}

/// A launch's geometry.
pub struct Geometry {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    /// Cluster dimensions (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`; `None`: the
    /// kernel's `.reqnctapercluster`, else none).
    pub cluster: Option<[u32; 3]>,
    /// A cooperative launch (`cuLaunchCooperativeKernel`,
    /// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`): see [`LaunchConfig::cooperative`].
    pub cooperative: bool,
}

/// The most CTAs of `block_threads` threads that a cooperative launch may have: the
/// blocks per multiprocessor [`cuOccupancyMaxActiveBlocksPerMultiprocessor`] reports
/// times the multiprocessor count (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`), as a
/// GPU allows; more is `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`.
pub fn max_cooperative_ctas(block_threads: u64) -> u64 {
    let sms = device::attribute(16).unwrap_or(1).max(1) as u64;
    blocks_per_sm(block_threads) * sms
}

/// Blocks of `block_threads` threads per "multiprocessor" (worker thread): limited by
/// 2048 threads, at most 32.
fn blocks_per_sm(block_threads: u64) -> u64 {
    (2048 / block_threads.max(1)).clamp(1, 32)
}

/// Launches `f` with arguments from `params` (an array of pointers to each argument) or
/// `extra` (a packed parameter buffer).
///
/// # Safety
/// `params`/`extra` must be as the CUDA driver API describes them.
pub unsafe fn launch(
    f: CUfunction,
    g: &Geometry,
    s: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Res {
    stream::check(s)?;
    let l = prepare(f, g, params, extra)?;
    match graph::capturing(s)? {
        Some(gr) => {
            let info = graph_attr::KernelInfo::new(f, g, l.arg_bytes());
            let id = graph::record_node(gr, graph::NODE_KERNEL, Arc::new(move || l.run()))?;
            graph_attr::keep_kernel(id, info)
        }
        None => l.run(),
    }
}

/// A launch with its arguments copied: run now, or kept in a graph and run at each
/// `cuGraphLaunch`.
pub struct Prepared {
    module: ptxjit::Module,
    name: String,
    cfg: LaunchConfig,
    args: Vec<KernelArg>,
}

impl Prepared {
    /// The arguments' bytes.
    pub fn arg_bytes(&self) -> Vec<Vec<u8>> {
        self.args.iter().map(KernelArg::to_bytes).collect()
    }

    pub fn run(&self) -> Res {
        let d = driver()?;
        // A kernel node of a graph launch gets the graph's conditional handles.
        let with_conds;
        let cfg = match crate::graph_cond::current_conditions() {
            Some(c) => {
                with_conds = LaunchConfig {
                    conditions: Some(c),
                    ..self.cfg.clone()
                };
                &with_conds
            }
            None => &self.cfg,
        };
        d.device
            .launch(&self.module, &self.name, cfg, &self.args)
            .map_err(|e| {
                log(&format!("ptxjit-cuda: {e}"));
                error_code(&e)
            })
    }
}

/// Checks a launch of `f` and copies its arguments from `params` or `extra`.
///
/// # Safety
/// As [`launch`].
pub unsafe fn prepare(
    f: CUfunction,
    g: &Geometry,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Res<Prepared> {
    let (module, name, max_dyn) = module::with_function(f, |e, _| {
        Ok((
            e.module.clone(),
            e.name.to_string_lossy().into_owned(),
            e.max_dyn_shared,
        ))
    })?;
    let kparams = module
        .kernel_params(&name)
        .map_err(|_| CUDA_ERROR_INVALID_HANDLE)?;
    if g.shared as i64 > max_dyn as i64 {
        log(&format!(
            "ptxjit-cuda: launch of '{name}' asks for {} bytes of dynamic shared memory; the limit is {max_dyn} (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES)",
            g.shared
        ));
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let mut args = Vec::with_capacity(kparams.len());
    if !params.is_null() {
        if !extra.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        for (i, p) in kparams.iter().enumerate() {
            let src = *params.add(i) as *const u8;
            if src.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            args.push(KernelArg::Bytes(
                std::slice::from_raw_parts(src, p.size as usize).to_vec(),
            ));
        }
    } else if !extra.is_null() {
        let (mut buf, mut size): (*const u8, Option<usize>) = (std::ptr::null(), None);
        let mut i = 0;
        loop {
            match *extra.add(i) as usize {
                PARAM_END => break,
                PARAM_BUFFER_POINTER => buf = *extra.add(i + 1) as *const u8,
                PARAM_BUFFER_SIZE => {
                    let sp = *extra.add(i + 1) as *const usize;
                    if sp.is_null() {
                        return Err(CUDA_ERROR_INVALID_VALUE);
                    }
                    size = Some(*sp);
                }
                _ => return Err(CUDA_ERROR_INVALID_VALUE),
            }
            i += 2;
        }
        let need = kparams
            .iter()
            .map(|p| (p.offset + p.size) as usize)
            .max()
            .unwrap_or(0);
        match size {
            Some(n) if !buf.is_null() && n >= need => {}
            _ if need == 0 => {}
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        }
        for p in kparams {
            let src = buf.add(p.offset as usize);
            args.push(KernelArg::Bytes(
                std::slice::from_raw_parts(src, p.size as usize).to_vec(),
            ));
        }
    } else if !kparams.is_empty() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let backend = match std::env::var("PTXJIT_CUDA_BACKEND").as_deref() {
        Ok("interp") => Backend::Interp,
        _ => Backend::Jit,
    };
    if g.cooperative {
        let ctas = g.grid.iter().map(|&d| d as u64).product::<u64>();
        let max = max_cooperative_ctas(g.block.iter().map(|&d| d as u64).product());
        if ctas > max {
            log(&format!(
                "ptxjit-cuda: cooperative launch of '{name}' with {ctas} blocks; at most {max} can be resident at once (cuOccupancyMaxActiveBlocksPerMultiprocessor x the multiprocessor count)"
            ));
            return Err(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
        }
    }
    let mut cfg = LaunchConfig::new(g.grid, g.block)
        .shared_bytes(g.shared)
        .backend(backend)
        .cooperative(g.cooperative);
    cfg.cluster = g.cluster;
    Ok(Prepared {
        module,
        name,
        cfg,
        args,
    })
}

#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
    f: CUfunction,
    gx: u32,
    gy: u32,
    gz: u32,
    bx: u32,
    by: u32,
    bz: u32,
    shared: u32,
    s: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let g = Geometry {
        grid: [gx, gy, gz],
        block: [bx, by, bz],
        shared,
        cluster: None,
        cooperative: false,
    };
    guard(|| launch(f, &g, s, params, extra))
}

#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel_ptsz(
    f: CUfunction,
    gx: u32,
    gy: u32,
    gz: u32,
    bx: u32,
    by: u32,
    bz: u32,
    shared: u32,
    s: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra)
}

/// A cooperative launch: all CTAs run at once (one scheduling unit of the runtime), so
/// the grid group's `cudaCGSynchronize` is a grid-wide barrier (`ptxjit::exec::gridsync`);
/// a grid of more CTAs than [`max_cooperative_ctas`] is
/// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    f: CUfunction,
    gx: u32,
    gy: u32,
    gz: u32,
    bx: u32,
    by: u32,
    bz: u32,
    shared: u32,
    s: CUstream,
    params: *mut *mut c_void,
) -> CUresult {
    let g = Geometry {
        grid: [gx, gy, gz],
        block: [bx, by, bz],
        shared,
        cluster: None,
        cooperative: true,
    };
    guard(|| launch(f, &g, s, params, std::ptr::null_mut()))
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct CUlaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub stream: CUstream,
    pub attrs: *mut CUlaunchAttribute,
    pub num_attrs: u32,
}

/// `CUlaunchAttribute`: an id, padding to 8 bytes, and a 64-byte value union.
#[repr(C)]
pub struct CUlaunchAttribute {
    pub id: u32,
    pub pad: [u8; 4],
    pub value: [u32; 16],
}

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` (value: `x, y, z` as `unsigned int`s).
pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: u32 = 4;
/// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE` (value: an `int`, nonzero for a cooperative launch).
pub const CU_LAUNCH_ATTRIBUTE_COOPERATIVE: u32 = 2;

/// `cuLaunchKernelEx`: the cluster dimension attribute sets the launch's clusters (else
/// the kernel's `.reqnctapercluster`) and the cooperative attribute makes the launch
/// cooperative (as [`cuLaunchCooperativeKernel`]); the other attributes (priority,
/// access policy, ...) are hints a launch that runs to completion needs no more of.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx(
    cfg: *const CUlaunchConfig,
    f: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        if cfg.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let c = &*cfg;
        let (mut cluster, mut cooperative) = (None, false);
        if c.num_attrs > 0 {
            if c.attrs.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            for k in 0..c.num_attrs as usize {
                let a = &*c.attrs.add(k);
                if a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
                    cluster = Some([a.value[0], a.value[1], a.value[2]]);
                }
                if a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE {
                    cooperative = a.value[0] != 0;
                }
            }
        }
        let g = Geometry {
            grid: c.grid,
            block: c.block,
            shared: c.shared,
            cluster,
            cooperative,
        };
        launch(f, &g, c.stream, params, extra)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx_ptsz(
    cfg: *const CUlaunchConfig,
    f: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    cuLaunchKernelEx(cfg, f, params, extra)
}

type SmemFn = Option<unsafe extern "C" fn(i32) -> usize>;

/// Suggests the largest block size the kernel allows (1024 unless `.maxntid`/`.reqntid`
/// or `limit` say less) and a grid of one block per worker thread.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut i32,
    block: *mut i32,
    f: CUfunction,
    _smem: SmemFn,
    _dyn_smem: usize,
    limit: i32,
    _flags: u32,
) -> CUresult {
    guard(|| {
        if min_grid.is_null() || block.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let max = module::with_function(f, |_, func| {
            Ok(match (func.perf.reqntid, func.perf.maxntid) {
                (Some(r), _) => r[0].max(1) * r[1].max(1) * r[2].max(1),
                (None, Some(m)) => m[0].max(1) * m[1].max(1) * m[2].max(1),
                _ => 1024,
            }
            .min(1024) as i32)
        })?;
        let b = if limit > 0 { max.min(limit) } else { max };
        out(block, b)?;
        out(min_grid, device::attribute(16).unwrap_or(1))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut i32,
    block: *mut i32,
    f: CUfunction,
    smem: SmemFn,
    dyn_smem: usize,
    limit: i32,
) -> CUresult {
    cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block, f, smem, dyn_smem, limit, 0)
}

/// Blocks per "multiprocessor" (worker thread): limited by 2048 threads.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    n: *mut i32,
    f: CUfunction,
    block: i32,
    _dyn_smem: usize,
) -> CUresult {
    guard(|| {
        module::with_function(f, |_, _| Ok(()))?;
        if block <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        out(n, blocks_per_sm(block as u64) as i32)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    n: *mut i32,
    f: CUfunction,
    block: i32,
    dyn_smem: usize,
    _flags: u32,
) -> CUresult {
    cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, dyn_smem)
}
