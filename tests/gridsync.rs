//! Grid-wide synchronization of a cooperative launch (`LaunchConfig::cooperative`,
//! `src/exec/gridsync.rs`): the kernels of tests/kernels/gridsync/gridsync.cu (NVRTC,
//! `-rdc=true`, regen.sh) call `cudaCGGetIntrinsicHandle` and `cudaCGSynchronize`, as
//! numba-cuda's `this_grid()` and `grid.sync()` do, linked with libcudadevrt's PTX of
//! those functions (devrt_cg.ptx, cut verbatim from CUDA 12.9's `libcudadevrt.a`), which
//! calls the driver's `__cuda_syscall_CGS_*`. Both backends. Expected values: a Rust
//! simulation of the rounds (each needs every block's writes of the round before), and
//! `libcudadevrt`'s `cudaErrorUnknown` (999) for the null handle of a launch that is
//! not cooperative.
#[allow(unused_macros)]
mod common;
use common::*;

fn linked(dev: &Device, backend: Backend) -> ptxjit::Module {
    let (main, devrt) = (
        load("gridsync/gridsync.nvrtc.ptx"),
        load("gridsync/devrt_cg.ptx"),
    );
    dev.load_ptx_linked(
        &[(&main, "gridsync.nvrtc.ptx"), (&devrt, "devrt_cg.ptx")],
        backend == Backend::Jit,
    )
    .unwrap_or_else(|e| panic!("link: {e}"))
}

/// `rotate`'s rounds: every element takes the value one block ahead, plus the round.
fn rotate_ref(a: &mut [i32], block: usize, rounds: i32) {
    let n = a.len();
    for r in 0..rounds {
        let prev = a.to_vec();
        for (i, x) in a.iter_mut().enumerate() {
            *x = prev[(i + block) % n] + r;
        }
    }
}

#[test]
fn grid_sync_orders_every_block_of_a_cooperative_launch() {
    let (grid, block, rounds) = (8u32, 64u32, 5i32);
    let n = (grid * block) as usize;
    let init: Vec<i32> = (0..n as i32).map(|i| i * 7 + 1).collect();
    let mut want = init.clone();
    rotate_ref(&mut want, block as usize, rounds);
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = linked(&dev, backend);
        let a = dev.alloc_from(&init).unwrap();
        let status = dev.alloc_from(&vec![-1i32; n]).unwrap();
        let c = cfg([grid, 1, 1], [block, 1, 1], backend).cooperative(true);
        let args = [arg(&a), arg(&status), (n as i32).into(), rounds.into()];
        launch(&dev, &m, "rotate", &c, &args, "rotate");
        assert_eq!(dev.read::<i32>(&a).unwrap(), want, "{backend:?}");
        assert_eq!(dev.read::<i32>(&status).unwrap(), vec![0; n], "{backend:?}");
    }
}

#[test]
fn the_grid_handle_is_null_unless_the_launch_is_cooperative() {
    let (grid, block) = (3u32, 32u32);
    let n = (grid * block) as usize;
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = linked(&dev, backend);
        for (coop, valid, result) in [(true, 1, 0), (false, 0, 999)] {
            let v = dev.alloc_from(&vec![-1i32; n]).unwrap();
            let r = dev.alloc_from(&vec![-1i32; n]).unwrap();
            let c = cfg([grid, 1, 1], [block, 1, 1], backend).cooperative(coop);
            launch(&dev, &m, "handle", &c, &[arg(&v), arg(&r)], "handle");
            assert_eq!(dev.read::<i32>(&v).unwrap(), vec![valid; n], "{backend:?}");
            assert_eq!(dev.read::<i32>(&r).unwrap(), vec![result; n], "{backend:?}");
        }
    }
}
