//! Dynamic parallelism (CDP2): kernels of tests/kernels/cdp/cdp.cu, compiled by NVRTC
//! with `-rdc=true`, launch child grids from device code through the device runtime's
//! entry points (`__cudaCDP2GetParameterBufferV2`, `__cudaCDP2LaunchDeviceV2`, streams,
//! events, errors), on both backends. Expected values: plain Rust references (the
//! slices, the tree of nested grids, Rust's sort for the quicksort), CDP2's ordering
//! guarantees (a tail launch runs after every other child of its parent), and the
//! limits and error codes the CUDA runtime documents (`driver_types.h`: 65
//! `cudaErrorLaunchMaxDepthExceeded`, 69 `cudaErrorLaunchPendingCountExceeded`, 1
//! `cudaErrorInvalidValue`, 400 `cudaErrorInvalidResourceHandle`; the nesting depth
//! limit 24 of the CUDA programming guide).
#[macro_use]
mod common;
use common::*;

const FILE: &str = "cdp/cdp.nvrtc.ptx";

fn slice_ref(slices: usize, n: usize) -> Vec<i32> {
    (0..slices)
        .flat_map(|s| (0..n).map(move |i| (s * 1000 + i * i) as i32))
        .collect()
}

/// Each of 2 x 4 parent threads launches a child grid of 2 blocks filling its slice of
/// 50 elements; no launch reports an error.
fn slices(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let (slices, n) = (8usize, 50usize);
    let out = dev.alloc_from(&vec![-1i32; slices * n]).unwrap();
    let errs = dev.alloc_from(&vec![-1i32; slices]).unwrap();
    let c = cfg([2, 1, 1], [4, 1, 1], backend);
    let args = [arg(&out), KernelArg::from(n as i32), arg(&errs)];
    launch(&dev, &m, "parent_slices", &c, &args, "slices");
    assert_eq!(dev.read::<i32>(&out).unwrap(), slice_ref(slices, n));
    assert_eq!(dev.read::<i32>(&errs).unwrap(), vec![0; slices]);

    // The same through cudaGetParameterBuffer + cudaLaunchDevice called directly.
    let out = dev.alloc_from(&vec![-1i32; 4 * n]).unwrap();
    let c = cfg([1, 1, 1], [4, 1, 1], backend);
    let args = [arg(&out), KernelArg::from(n as i32)];
    launch(&dev, &m, "parent_explicit", &c, &args, "explicit");
    assert_eq!(dev.read::<i32>(&out).unwrap(), slice_ref(4, n));
}

/// Through the linker (`cuLinkAddData` with `libcudadevrt`'s declarations): the
/// `.extern` device-runtime functions resolve to the built-ins, not to a link error.
fn linked(backend: Backend) {
    let dev = device();
    let src = load(FILE);
    let m = dev
        .load_ptx_linked(&[(&src, "cdp.ptx")], backend == Backend::Jit)
        .unwrap_or_else(|e| panic!("link: {e}"));
    let n = 40usize;
    let out = dev.alloc_from(&vec![-1i32; 4 * n]).unwrap();
    let errs = dev.alloc_from(&[-1i32; 4]).unwrap();
    let c = cfg([1, 1, 1], [4, 1, 1], backend);
    let args = [arg(&out), KernelArg::from(n as i32), arg(&errs)];
    launch(&dev, &m, "parent_slices", &c, &args, "linked");
    assert_eq!(dev.read::<i32>(&out).unwrap(), slice_ref(4, n));
    assert_eq!(dev.read::<i32>(&errs).unwrap(), vec![0; 4]);
}

/// Grids nested to depth 3, each with 2 threads that each launch a child: the tree of
/// 1 + 2 + 4 + 8 grids, every node id once at its depth, and each grid's log entry after
/// its parent's (a child starts after its parent launched it).
fn nesting(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let log = dev.alloc_from(&vec![-1i32; 2 * 32]).unwrap();
    let next = zeroed(&dev, 4);
    let c = cfg([1, 1, 1], [2, 1, 1], backend);
    let args = [
        arg(&log),
        arg(&next),
        KernelArg::from(0i32),
        KernelArg::from(3i32),
        KernelArg::from(0i32),
    ];
    launch(&dev, &m, "nest", &c, &args, "nest");
    assert_eq!(dev.read::<i32>(&next).unwrap(), vec![15]);
    let log: Vec<i32> = dev.read(&log).unwrap();
    let entries: Vec<(i32, i32)> = (0..15).map(|k| (log[2 * k], log[2 * k + 1])).collect();
    let mut ids: Vec<i32> = entries.iter().map(|e| e.1).collect();
    ids.sort();
    assert_eq!(ids, (0..15).collect::<Vec<_>>(), "{entries:?}");
    for (pos, &(depth, id)) in entries.iter().enumerate() {
        // Node id k of a heap-ordered binary tree lies at depth floor(log2(k + 1)).
        assert_eq!(depth, 31 - (id + 1).leading_zeros() as i32, "{entries:?}");
        if id > 0 {
            let parent = (id - 1) / 2;
            let ppos = entries.iter().position(|e| e.1 == parent).unwrap();
            assert!(ppos < pos, "grid {id} ran before its parent: {entries:?}");
        }
    }
}

/// A tail launch sees every other child's work: 2 x 16 + 8 + 4 increments per parent
/// thread group, launched by each of the parent's 2 threads (the tail once).
fn tail_launch(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let counter = zeroed(&dev, 4);
    let seen = dev.alloc_from(&[-1i32]).unwrap();
    let c = cfg([1, 1, 1], [2, 1, 1], backend);
    launch(
        &dev,
        &m,
        "tail_parent",
        &c,
        &[arg(&counter), arg(&seen)],
        "tail",
    );
    let total = 2 * (2 * 16 + 8 + 4);
    assert_eq!(dev.read::<i32>(&counter).unwrap(), vec![total]);
    assert_eq!(dev.read::<i32>(&seen).unwrap(), vec![total]);
}

/// With the pending-launch limit at 16, the first 16 launches of a 64-thread grid
/// succeed (lanes and warps in order: every launch of a grid is pending until the grid
/// has finished) and the rest fail with cudaErrorLaunchPendingCountExceeded.
fn pending_limit(backend: Backend) {
    let dev = device();
    assert_eq!(dev.pending_launch_limit(), 2048, "the GPU's default");
    dev.set_pending_launch_limit(16).unwrap();
    let m = module(&dev, FILE, backend);
    let counter = zeroed(&dev, 4);
    let errs = dev.alloc_from(&vec![-1i32; 64]).unwrap();
    let c = cfg([1, 1, 1], [64, 1, 1], backend);
    launch(&dev, &m, "many", &c, &[arg(&counter), arg(&errs)], "many");
    assert_eq!(dev.read::<i32>(&counter).unwrap(), vec![16]);
    let want: Vec<i32> = (0..64).map(|t| if t < 16 { 0 } else { 69 }).collect();
    assert_eq!(dev.read::<i32>(&errs).unwrap(), want);
    // Every launch completed: the next grid may launch 16 again.
    launch(&dev, &m, "many", &c, &[arg(&counter), arg(&errs)], "many 2");
    assert_eq!(dev.read::<i32>(&counter).unwrap(), vec![32]);
    assert!(dev.set_pending_launch_limit(32).is_err(), "fixed once used");
}

/// A chain of single-thread grids: depths 0 to 24 run, the launch from depth 24 fails
/// with cudaErrorLaunchMaxDepthExceeded.
fn depth_limit(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let reached = zeroed(&dev, 32 * 4);
    let errs = dev.alloc_from(&[-1i32; 32]).unwrap();
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    let args = [arg(&reached), arg(&errs), KernelArg::from(0i32)];
    launch(&dev, &m, "deep", &c, &args, "deep");
    let want: Vec<i32> = (0..32).map(|d| (d <= 24) as i32).collect();
    assert_eq!(dev.read::<i32>(&reached).unwrap(), want);
    let want: Vec<i32> = (0..32)
        .map(|d| match d {
            0..24 => 0,
            24 => 65,
            _ => -1,
        })
        .collect();
    assert_eq!(dev.read::<i32>(&errs).unwrap(), want);
}

/// cudaGetDevice, cudaGetDeviceCount, cudaDeviceGetLimit, streams, events and the
/// per-thread last error (see runtime_calls in cdp.cu).
fn runtime_calls(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let out = dev.alloc_from(&[-7i64; 18]).unwrap();
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    launch(&dev, &m, "runtime_calls", &c, &[arg(&out)], "calls");
    let want: [i64; 18] = [
        0, 0, // cudaGetDevice: device 0
        0, 1, // one device
        0, 2048, // the pending launch limit
        1, 1, 1, 0, // flags 0: cudaErrorInvalidValue, peeked, taken, then cleared
        0, 0, 0, 0, 0, 0,   // event and stream calls succeed
        400, // a second cudaStreamDestroy: cudaErrorInvalidResourceHandle
        400, // ... which is the last error
    ];
    assert_eq!(dev.read::<i64>(&out).unwrap(), want);
}

/// 10,000 random u32 sorted by the recursive quicksort (hundreds of nested grids) equal
/// Rust's sort.
fn quicksort(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let n = 10_000usize;
    let mut data = Rng::new(17).vec_u32(n);
    let buf = dev.alloc_from(&data).unwrap();
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    let args = [
        arg(&buf),
        KernelArg::from(0i32),
        KernelArg::from(n as i32 - 1),
        KernelArg::from(0i32),
    ];
    launch(&dev, &m, "quicksort", &c, &args, "quicksort");
    data.sort();
    assert_slice_eq(&dev.read::<u32>(&buf).unwrap(), &data, "quicksort");
}

/// Names and signatures of the entry points (`cuda_device_runtime_api.h`).
#[test]
fn entry_point_names() {
    use ptxjit::ir::CdpFn;
    assert_eq!(
        CdpFn::from_name("__cudaCDP2LaunchDeviceV2"),
        Some(CdpFn::LaunchDeviceV2)
    );
    assert_eq!(
        CdpFn::from_name("cudaLaunchDevice_ptsz"),
        Some(CdpFn::LaunchDevice)
    );
    assert_eq!(CdpFn::from_name("cudaDeviceSynchronize"), None);
    assert!(CdpFn::is_unsupported("cudaDeviceSynchronize"));
    assert!(CdpFn::is_unsupported("__cudaCDP2MemcpyAsync_ptsz"));
    assert!(!CdpFn::is_unsupported("malloc"));
    for k in 0.. {
        let Some(f) = CdpFn::from_code(k) else { break };
        assert_eq!(f.code(), k);
        assert_eq!(f.params().len(), f.param_sizes().len(), "{f:?}");
    }
    assert_eq!(CdpFn::GetParameterBufferV2.param_sizes(), [8, 12, 12, 4]);
}

/// A device-runtime function ptxjit does not provide is a load-time error naming it.
#[test]
fn unsupported_entry_point_is_a_load_error() {
    let src = r#"
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 func_retval0) cudaDeviceSynchronize();
.visible .entry k() {
    .reg .b32 %r<2>;
    { .param .b32 retval0;
      call.uni (retval0), cudaDeviceSynchronize, ();
      ld.param.b32 %r1, [retval0+0]; }
    ret;
}
"#;
    let e = device().load_ptx(src, "sync.ptx").unwrap_err().to_string();
    assert!(
        e.contains("cudaDeviceSynchronize") && e.contains("sync.ptx:9"),
        "{e}"
    );
}

both_backends!(
    slices,
    linked,
    nesting,
    tail_launch,
    pending_limit,
    depth_limit,
    runtime_calls,
    quicksort
);
