//! Out-of-bounds accesses (tests/kernels/oob.cu) must come back as Error::Fault naming
//! the kernel, the file, the instruction and its line, the block/thread and the address,
//! never as a crash; the device stays usable afterwards.
#[macro_use]
mod common;
use common::*;

/// The device address of a buffer, as a kernel sees it (ptr_of stores its pointer
/// argument).
fn device_addr(dev: &Device, m: &ptxjit::Module, buf: &Buffer, backend: Backend) -> u64 {
    let dst = dev.alloc_zeroed(8).unwrap();
    launch(
        dev,
        m,
        "ptr_of",
        &cfg([1, 1, 1], [1, 1, 1], backend),
        &[arg(buf), arg(&dst)],
        "ptr_of",
    );
    dev.read::<u64>(&dst).unwrap()[0]
}

fn expect_fault(r: Result<(), Error>, what: &str) -> (ptxjit::Error, String) {
    match r {
        Err(e @ Error::Fault(_)) => {
            let msg = e.to_string();
            (e, msg)
        }
        Err(e) => panic!("{what}: expected Error::Fault, got another error: {e}"),
        Ok(()) => panic!("{what}: expected Error::Fault, the launch succeeded"),
    }
}

/// Exactly one thread faults: the last of a 2x2 grid of 8x4 blocks, writing out[128]
/// of a 128-element buffer (the first word past the end).
fn store_past_end(backend: Backend) {
    let dev = device();
    for file in variants("oob") {
        let ptx = load(&file);
        let m = module(&dev, &file, backend);
        let out = dev.alloc_zeroed(128 * 4).unwrap();
        let base = device_addr(&dev, &m, &out, backend);
        let what = format!("{file} oob_store offset 1 {backend:?}");
        let r = dev.launch(
            &m,
            "oob_store",
            &cfg([2, 2, 1], [8, 4, 1], backend),
            &[arg(&out), KernelArg::from(1u64)],
        );
        let (e, msg) = expect_fault(r, &what);
        let Error::Fault(f) = e else { unreachable!() };
        let line = line_of(&ptx, "oob_store", "st.global.u32");
        assert_eq!(f.kernel, "oob_store", "{what}: {msg}");
        assert_eq!(f.file, file, "{what}: {msg}");
        assert_eq!(f.inst, "st.global.u32", "{what}: {msg}");
        assert_eq!(f.line, line, "{what}: {msg}");
        assert_eq!(f.block, [1, 1, 0], "{what}: {msg}");
        assert_eq!(f.thread, [7, 3, 0], "{what}: {msg}");
        assert_eq!(f.addr, base + 128 * 4, "{what}: {msg}");
        assert_fault_message(
            &msg,
            "oob_store",
            &file,
            "st.global.u32",
            line,
            [1, 1, 0],
            [7, 3, 0],
            base + 512,
        );
        still_usable(&dev, backend, &what);
    }
}

/// Every thread faults, 4 TiB past the buffer: whichever thread is reported, the
/// address must be the one that thread computed.
fn store_far_away(backend: Backend) {
    let dev = device();
    for file in variants("oob") {
        let ptx = load(&file);
        let m = module(&dev, &file, backend);
        let out = dev.alloc_zeroed(64 * 4).unwrap();
        let base = device_addr(&dev, &m, &out, backend);
        let offset: u64 = 1 << 40;
        let what = format!("{file} oob_store offset 2^40 {backend:?}");
        let (grid, block) = ([3u32, 2u32, 1u32], [16u32, 2u32, 1u32]);
        let r = dev.launch(
            &m,
            "oob_store",
            &cfg(grid, block, backend),
            &[arg(&out), KernelArg::from(offset)],
        );
        let (e, msg) = expect_fault(r, &what);
        let Error::Fault(f) = e else { unreachable!() };
        assert_eq!(f.kernel, "oob_store", "{what}: {msg}");
        assert_eq!(f.inst, "st.global.u32", "{what}: {msg}");
        assert_eq!(
            f.line,
            line_of(&ptx, "oob_store", "st.global.u32"),
            "{what}: {msg}"
        );
        assert!(
            f.block[0] < grid[0] && f.block[1] < grid[1] && f.block[2] == 0,
            "{what}: block {:?}",
            f.block
        );
        assert!(
            f.thread[0] < block[0] && f.thread[1] < block[1] && f.thread[2] == 0,
            "{what}: thread {:?}",
            f.thread
        );
        // i = (blockIdx.y * gridDim.x + blockIdx.x) * (bx*by) + threadIdx.y * bx + threadIdx.x
        let i = (f.block[1] * grid[0] + f.block[0]) * (block[0] * block[1])
            + f.thread[1] * block[0]
            + f.thread[0];
        // out[i + offset]: the index is computed in 64 bits (i is u32, offset u64).
        assert_eq!(
            f.addr,
            base.wrapping_add((i as u64 + offset) * 4),
            "{what}: {msg}"
        );
        assert_fault_message(
            &msg,
            "oob_store",
            &file,
            "st.global.u32",
            f.line,
            f.block,
            f.thread,
            f.addr,
        );
        still_usable(&dev, backend, &what);
    }
}

/// A load one element past the end: thread 63 of a single 64-thread block reads in[64].
fn load_past_end(backend: Backend) {
    let dev = device();
    for file in variants("oob") {
        let ptx = load(&file);
        let m = module(&dev, &file, backend);
        let input = dev.alloc_from(&(0..64u32).collect::<Vec<_>>()).unwrap();
        let out = dev.alloc_zeroed(64 * 4).unwrap();
        let base = device_addr(&dev, &m, &input, backend);
        let what = format!("{file} oob_load {backend:?}");
        let r = dev.launch(
            &m,
            "oob_load",
            &cfg([1, 1, 1], [64, 1, 1], backend),
            &[arg(&input), arg(&out), KernelArg::from(1u32)],
        );
        let (e, msg) = expect_fault(r, &what);
        let Error::Fault(f) = e else { unreachable!() };
        let line = line_of(&ptx, "oob_load", "ld.global.u32");
        assert_eq!(f.kernel, "oob_load", "{what}: {msg}");
        assert_eq!(f.file, file, "{what}: {msg}");
        assert_eq!(f.inst, "ld.global.u32", "{what}: {msg}");
        assert_eq!(f.line, line, "{what}: {msg}");
        assert_eq!(f.block, [0, 0, 0], "{what}: {msg}");
        assert_eq!(f.thread, [63, 0, 0], "{what}: {msg}");
        assert_eq!(f.addr, base + 64 * 4, "{what}: {msg}");
        assert_fault_message(
            &msg,
            "oob_load",
            &file,
            "ld.global.u32",
            line,
            [0, 0, 0],
            [63, 0, 0],
            base + 256,
        );
        still_usable(&dev, backend, &what);
    }
}

/// After a fault, the same device runs a correct launch.
fn still_usable(dev: &Device, backend: Backend, what: &str) {
    let m = module(dev, "vecadd.nvrtc.ptx", backend);
    let n = 300;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.25 * i as f32).collect();
    let (ab, bb, cb) = (
        dev.alloc_from(&a).unwrap(),
        dev.alloc_from(&b).unwrap(),
        dev.alloc_zeroed(n * 4).unwrap(),
    );
    launch(
        dev,
        &m,
        "vecadd",
        &cfg([3, 1, 1], [128, 1, 1], backend),
        &[arg(&ab), arg(&bb), arg(&cb), KernelArg::from(n as u32)],
        &format!("vecadd after the fault of {what}"),
    );
    let want: Vec<f32> = (0..n).map(|i| a[i] + b[i]).collect();
    assert_f32_bits(
        &dev.read::<f32>(&cb).unwrap(),
        &want,
        &format!("vecadd after the fault of {what}"),
    );
}

/// The in-bounds launch of the same kernel succeeds (offset 0): the fault tests fail for
/// the right reason.
fn in_bounds(backend: Backend) {
    let dev = device();
    for file in variants("oob") {
        let m = module(&dev, &file, backend);
        let out = dev.alloc_zeroed(128 * 4).unwrap();
        launch(
            &dev,
            &m,
            "oob_store",
            &cfg([2, 2, 1], [8, 4, 1], backend),
            &[arg(&out), KernelArg::from(0u64)],
            &file,
        );
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &(0..128u32).collect::<Vec<_>>(),
            &format!("{file} oob_store offset 0"),
        );
    }
}

both_backends!(store_past_end, store_far_away, load_past_end, in_bounds);
