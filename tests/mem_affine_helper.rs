//! The checked helper path of accesses through affine address registers
//! (`jit/lower/mem_slow.rs`, `slow_access_at`: lane 0's address and the stride go to
//! `ptxjit_access_affine`, which builds the 32 lane addresses): strided loads and
//! stores, `.v2` accesses, contiguous accesses whose partial mask fails the coalesced
//! test, 32-bit shared addresses that wrap, and lane addresses read from memory (spilled
//! once for the first-lane test and the helper) (`tests/ptx/mem_affine_helper.ptx`).
//! Values against references computed here, on both backends and both JIT tiers; the
//! same accesses far past their buffer must report the same fault (kernel, instruction,
//! line, block, thread: the lowest active lane, address) on both backends, and a
//! faulting store writes nothing.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::KernelArg;

const FILE: &str = "tests/ptx/mem_affine_helper.ptx";

/// Far past any buffer: every lane's access faults.
const FAR: u64 = 1 << 24;

/// Runs `kernel` with 32 threads on every backend and tier; returns the launch
/// results (the error text on a fault) and what `read` read after each.
fn each_backend<T>(
    kernel: &str,
    args: impl Fn(&Device) -> (Vec<KernelArg>, ptxjit::Buffer),
    read: impl Fn(&Device, &ptxjit::Buffer) -> T,
) -> Vec<(String, Result<(), String>, T)> {
    let mut out = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, FILE, backend);
            let (a, b) = args(&dev);
            let c = cfg([1, 1, 1], [32, 1, 1], backend);
            let r = dev.launch(&m, kernel, &c, &a).map_err(|e| e.to_string());
            out.push((format!("{backend:?} {tier:?}"), r, read(&dev, &b)));
        }
    }
    out
}

/// Replaces the hexadecimal text of `addr` by `ADDR` (the buffers of the runs are at
/// different addresses).
fn relative(msg: &str, addr: u64) -> String {
    msg.replace(&format!("{addr:x}"), "ADDR")
}

#[test]
fn strided_loads_and_v2() {
    let input: Vec<u32> = (0..6 * 32).map(|i| i * 7 + 3).collect();
    let mut want = vec![0u32; 64];
    for t in 8..32 {
        want[2 * t] = input[6 * t];
        want[2 * t + 1] = input[6 * t + 2] + input[6 * t + 3];
    }
    let ptx = load_root(FILE);
    for (k, j, inst, needle) in [
        (0, 0, "", ""),
        (FAR, 0, "ld.global.u32", "ld.global.u32 %r2"),
        (0, FAR, "ld.global.v2.u32", "ld.global.v2.u32"),
    ] {
        let runs = each_backend(
            "strided_loads",
            |dev| {
                let inb = dev.alloc_from(&input).unwrap();
                let out = zeroed(dev, 64 * 4);
                let a = vec![arg(&inb), arg(&out), KernelArg::U64(k), KernelArg::U64(j)];
                (a, inb)
            },
            |_, b| b.ptr(),
        );
        let mut msgs = Vec::new();
        for (what, r, inb) in &runs {
            if k == 0 && j == 0 {
                assert!(r.is_ok(), "{what}: {r:?}");
                continue;
            }
            let msg = r.clone().expect_err("far past the buffer: a fault");
            // Lane 8's address: in + 24 * 8 (+ 8 for the v2 load) + the far offset.
            let addr = inb + 192 + k + j + if j != 0 { 8 } else { 0 };
            let line = line_of(&ptx, "strided_loads", needle);
            assert_fault_message(
                &msg,
                "strided_loads",
                FILE,
                inst,
                line,
                [0; 3],
                [8, 0, 0],
                addr,
            );
            msgs.push(relative(&msg, addr));
        }
        assert!(msgs.windows(2).all(|w| w[0] == w[1]), "{msgs:#?}");
    }
    // The values (a separate run that reads the output back).
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, FILE, backend);
            let inb = dev.alloc_from(&input).unwrap();
            let out = zeroed(&dev, 64 * 4);
            let a = [arg(&inb), arg(&out), KernelArg::U64(0), KernelArg::U64(0)];
            let c = cfg([1, 1, 1], [32, 1, 1], backend);
            launch(&dev, &m, "strided_loads", &c, &a, "strided_loads");
            let what = format!("{backend:?} {tier:?}");
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}

#[test]
fn contiguous_partial_and_strided_store() {
    let input: Vec<u32> = (0..32).map(|i| 1000 + i * i).collect();
    let ptx = load_root(FILE);
    for k in [0, FAR] {
        let runs = each_backend(
            "contig_strided",
            |dev| {
                let inb = dev.alloc_from(&input).unwrap();
                let out = zeroed(dev, 160 * 4);
                (vec![arg(&inb), arg(&out), KernelArg::U64(k)], out)
            },
            |dev, out| (out.ptr(), dev.read::<u32>(out).unwrap()),
        );
        let mut msgs = Vec::new();
        for (what, r, (out, got)) in &runs {
            // out[t] = in[t] + 1 for t >= 8 (before the strided store).
            let mut want = vec![0u32; 160];
            for t in 8..32 {
                want[t] = input[t] + 1;
            }
            if k == 0 {
                assert!(r.is_ok(), "{what}: {r:?}");
                for t in 8..32 {
                    want[3 * t + 64] = t as u32;
                }
                assert_slice_eq(got, &want, what);
                continue;
            }
            // The strided store faults at lane 8 (out + 96 + 256 + k) and writes nothing.
            let msg = r.clone().expect_err("far past the buffer: a fault");
            let addr = out + 96 + 256 + k;
            let line = line_of(&ptx, "contig_strided", "[%rd9+256]");
            assert_fault_message(
                &msg,
                "contig_strided",
                FILE,
                "st.global.u32",
                line,
                [0; 3],
                [8, 0, 0],
                addr,
            );
            assert_slice_eq(got, &want, what);
            msgs.push(relative(&msg, addr));
        }
        assert!(msgs.windows(2).all(|w| w[0] == w[1]), "{msgs:#?}");
    }
}

#[test]
fn contiguous_store_fault() {
    let ptx = load_root(FILE);
    let runs = each_backend(
        "contig_store",
        |dev| {
            let out = zeroed(dev, 32 * 4);
            (vec![arg(&out), KernelArg::U64(FAR), KernelArg::U32(5)], out)
        },
        |dev, out| (out.ptr(), dev.read::<u32>(out).unwrap()),
    );
    let mut msgs = Vec::new();
    for (what, r, (out, got)) in &runs {
        let msg = r.clone().expect_err("far past the buffer: a fault");
        // Lane 5, the lowest active one: out + 20 + FAR.
        let addr = out + 20 + FAR;
        let line = line_of(&ptx, "contig_store", "st.global.u32");
        assert_fault_message(
            &msg,
            "contig_store",
            FILE,
            "st.global.u32",
            line,
            [0; 3],
            [5, 0, 0],
            addr,
        );
        assert_slice_eq(got, &[0u32; 32], what);
        msgs.push(relative(&msg, addr));
    }
    assert!(msgs.windows(2).all(|w| w[0] == w[1]), "{msgs:#?}");
    // In place, lanes 5.. store their index.
    let runs = each_backend(
        "contig_store",
        |dev| {
            let out = zeroed(dev, 32 * 4);
            (vec![arg(&out), KernelArg::U64(0), KernelArg::U32(5)], out)
        },
        |dev, out| dev.read::<u32>(out).unwrap(),
    );
    let want: Vec<u32> = (0..32).map(|t| if t >= 5 { t } else { 0 }).collect();
    for (what, r, got) in &runs {
        assert!(r.is_ok(), "{what}: {r:?}");
        assert_slice_eq(got, &want, what);
    }
}

#[test]
fn shared_addresses_wrap_in_32_bits() {
    let ptx = load_root(FILE);
    let ok = each_backend(
        "wrap32",
        |dev| {
            let out = zeroed(dev, 64 * 4);
            (vec![arg(&out), KernelArg::U32(2)], out)
        },
        |dev, out| dev.read::<u32>(out).unwrap(),
    );
    // `s` is the kernel's only shared variable: window offset 0, so lane t >= 2 uses
    // offset 8(t - 2) after the wrap and reads back its own {t, 3t}.
    let mut want = vec![0u32; 64];
    for t in 2..32u32 {
        want[2 * t as usize] = t;
        want[2 * t as usize + 1] = 3 * t;
    }
    for (what, r, got) in &ok {
        assert!(r.is_ok(), "{what}: {r:?}");
        assert_slice_eq(got, &want, what);
    }
    let bad = each_backend(
        "wrap32",
        |dev| {
            let out = zeroed(dev, 64 * 4);
            (vec![arg(&out), KernelArg::U32(0)], out)
        },
        |_, _| (),
    );
    let line = line_of(&ptx, "wrap32", "st.shared.v2.u32");
    let mut msgs = Vec::new();
    for (_, r, _) in &bad {
        let msg = r.clone().expect_err("lane 0 outside the window: a fault");
        // Lane 0 at 2^32 - 16, zero-extended.
        let addr = (1u64 << 32) - 16;
        assert_fault_message(
            &msg,
            "wrap32",
            FILE,
            "st.shared.v2.u32",
            line,
            [0; 3],
            [0; 3],
            addr,
        );
        msgs.push(msg);
    }
    assert!(msgs.windows(2).all(|w| w[0] == w[1]), "{msgs:#?}");
}

#[test]
fn gathered_lanes() {
    let ptx = load_root(FILE);
    // A 4 MiB input: in[i] = i * 3 + 1.
    let words = 1usize << 20;
    let input: Vec<u32> = (0..words as u32).map(|i| i.wrapping_mul(3) + 1).collect();
    let perm: Vec<u64> = (0..32u64).map(|t| (t * 7) % 32).collect();
    // (idx[8], the faulting instruction, lane 8's address past `in`): in bounds; the
    // word load far past the end (it faults first); the pair load ~4 MiB past it.
    let cases: [(u64, &str, u64); 3] = [
        (perm[8], "", 0),
        (1 << 24, "ld.global.u32", 1 << 26),
        (words as u64 - 1, "ld.global.v2.u32", 8 * (words as u64 - 1)),
    ];
    for (i8, inst, past) in cases {
        let mut idx = perm.clone();
        idx[8] = i8;
        let runs = each_backend(
            "gathered",
            |dev| {
                let inb = dev.alloc_from(&input).unwrap();
                let ib = dev.alloc_from(&idx).unwrap();
                let out = zeroed(dev, 96 * 4);
                (vec![arg(&inb), arg(&ib), arg(&out)], inb)
            },
            |_, inb| inb.ptr(),
        );
        let mut msgs = Vec::new();
        for (what, r, inb) in &runs {
            if inst.is_empty() {
                assert!(r.is_ok(), "{what}: {r:?}");
                continue;
            }
            let msg = r.clone().expect_err("far past the buffer: a fault");
            let line = line_of(&ptx, "gathered", inst);
            let addr = inb + past;
            assert_fault_message(&msg, "gathered", FILE, inst, line, [0; 3], [8, 0, 0], addr);
            msgs.push(relative(&msg, addr));
        }
        assert!(msgs.windows(2).all(|w| w[0] == w[1]), "{msgs:#?}");
    }
    // The values.
    let mut want = vec![0u32; 96];
    for t in 0..32 {
        let i = perm[t] as usize;
        want[3 * t] = input[i];
        want[3 * t + 1] = input[2 * i];
        want[3 * t + 2] = input[2 * i + 1];
    }
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, FILE, backend);
            let inb = dev.alloc_from(&input).unwrap();
            let ib = dev.alloc_from(&perm).unwrap();
            let out = zeroed(&dev, 96 * 4);
            let c = cfg([1, 1, 1], [32, 1, 1], backend);
            launch(
                &dev,
                &m,
                "gathered",
                &c,
                &[arg(&inb), arg(&ib), arg(&out)],
                "gathered",
            );
            let what = format!("{backend:?} {tier:?}");
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}
