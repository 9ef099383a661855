//! Barrier reductions (`bar.red.popc/and/or` from `__syncthreads_count/and/or`) with
//! exited threads, and named producer/consumer barriers mixing `bar.arrive` and
//! `bar.sync` with thread counts (tests/kernels/barriers.cu, clang and NVRTC), on both
//! backends and 1 or 2 worker threads, against references written here.
#[macro_use]
mod common;
use common::*;
use ptxjit::DeviceOptions;

fn red(backend: Backend) {
    let dev = device();
    let (blocks, block) = (3usize, 96usize);
    let n = blocks * block;
    let mut input = Rng::new(31).vec_u32(n);
    for (t, x) in input.iter_mut().enumerate() {
        if t % 7 == 3 {
            *x = 0xdead; // exits before the barriers
        }
    }
    // Block 1: every running thread has bit 1 set (and = 1); block 2: no bit 2 (or = 0).
    for x in input[block..2 * block].iter_mut().filter(|x| **x != 0xdead) {
        *x |= 2;
    }
    for x in input[2 * block..].iter_mut().filter(|x| **x != 0xdead) {
        *x &= !4;
    }
    for file in variants("barriers") {
        let m = module(&dev, &file, backend);
        let inb = dev.alloc_from(&input).unwrap();
        let out = dev.alloc_from(&vec![0x5EE5u32; 3 * n]).unwrap();
        let what = format!("{file} red {backend:?}");
        let c = cfg([blocks as u32, 1, 1], [block as u32, 1, 1], backend);
        launch(&dev, &m, "red", &c, &[arg(&inb), arg(&out)], &what);
        let mut want = vec![0x5EE5u32; 3 * n];
        for b in 0..blocks {
            let run: Vec<u32> = input[b * block..(b + 1) * block]
                .iter()
                .copied()
                .filter(|&x| x != 0xdead)
                .collect();
            let count = run.iter().filter(|&&x| x & 1 != 0).count() as u32;
            let all = run.iter().all(|&x| x & 2 != 0) as u32;
            let any = run.iter().any(|&x| x & 4 != 0) as u32;
            for t in b * block..(b + 1) * block {
                if input[t] != 0xdead {
                    want[3 * t..3 * t + 3].copy_from_slice(&[count, all, any]);
                }
            }
        }
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
    }
}

fn pipeline(backend: Backend) {
    let (blocks, rounds) = (4usize, 9usize);
    let n = blocks * rounds * 64;
    let input = Rng::new(32).vec_u32(n);
    let mut want = vec![0u32; n];
    for b in 0..blocks {
        for r in 0..rounds {
            for k in 0..64 {
                let i = (b * rounds + r) * 64 + k;
                want[i] = input[i].wrapping_mul(2).wrapping_add(r as u32);
            }
        }
    }
    for threads in [1, 2] {
        let dev = Device::with_options(DeviceOptions {
            threads,
            ..DeviceOptions::default()
        })
        .unwrap();
        for file in variants("barriers") {
            let m = module(&dev, &file, backend);
            let inb = dev.alloc_from(&input).unwrap();
            let out = zeroed(&dev, 4 * n);
            let what = format!("{file} pipeline threads={threads} {backend:?}");
            let c = cfg([blocks as u32, 1, 1], [128, 1, 1], backend);
            let args = [arg(&inb), arg(&out), KernelArg::from(rounds as i32)];
            launch(&dev, &m, "pipeline", &c, &args, &what);
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}

both_backends!(red, pipeline);

/// Located load-time errors for malformed barrier instructions.
#[test]
fn load_errors() {
    let dev = device();
    let err = |body: &str| -> String {
        let src = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.entry k()\n{{\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n{body}\n}}\n"
        );
        match dev.load_ptx_with(&src, "b.ptx", false) {
            Ok(_) => panic!("accepted: {body}"),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        err("\tbar.arrive 1;"),
        "b.ptx:8:2: error: instruction 'bar.arrive' takes 2 operands, not 1"
    );
    assert_eq!(
        err("\tbar.red.popc.pred %p1, 0, %p0;"),
        "b.ptx:8:2: error: type .pred is not valid for 'bar.red.popc.pred'"
    );
    assert_eq!(
        err("\tbarrier.red.sum.u32 %r1, 0, %p0;"),
        "b.ptx:8:2: error: 'barrier.red.sum.u32' needs '.popc', '.and' or '.or'"
    );
    assert_eq!(
        err("\tbar.arrive 16, 64;"),
        "b.ptx:8:13: error: barrier number 16 is out of range 0..15"
    );
    assert_eq!(
        err("\tbar.arrive 1, 48;"),
        "b.ptx:8:16: error: thread count 48 must be a positive multiple of the warp size"
    );
}
