//! `.local` accesses at per-lane addresses (the JIT's inline local path,
//! `jit::lower::mem_local`): every element size, `.v2`/`.v4`, sign extension, stores by
//! some lanes only (divergence, guards), partial warps, and the faults (outside the
//! window, misaligned) the helper reports when a lane is bad. Both backends, against a
//! Rust model of each thread's local memory (tests/ptx/local_inline.ptx, checked with
//! ptxas).
#[macro_use]
mod common;
use common::*;
use ptxjit::FaultKind;

const FILE: &str = "tests/ptx/local_inline.ptx";

/// What `lmix` writes for thread `t`: its 16 local words, then the loaded values.
fn lmix_model(t: u32) -> [u32; 24] {
    let mut b = [0u8; 64];
    let put32 =
        |b: &mut [u8; 64], at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let get32 = |b: &[u8; 64], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    for i in 0..16 {
        put32(&mut b, 4 * i, t + i as u32);
    }
    let s = ((7 * t) & 15) as usize;
    put32(&mut b, 4 * s, 3 * t + 1);
    if t % 2 == 1 {
        b[4 * s + 1] = 0xEE;
        let s1 = (s + 1) & 15;
        b[4 * s1 + 2..4 * s1 + 4].copy_from_slice(&(t as u16).to_le_bytes());
    }
    let r13 = b[4 * s + 1] as i8 as i32 as u32;
    let r14 = u16::from_le_bytes([b[4 * s + 2], b[4 * s + 3]]) as u32;
    let v = 8 * (t & 7) as usize;
    let (r16, r17) = (get32(&b, v), get32(&b, v + 4));
    if t >= 4 {
        let at = 8 * ((t >> 1) & 7) as usize;
        b[at..at + 8].copy_from_slice(&(((t as u64) << 32) | 0x1234).to_le_bytes());
    }
    let at = 8 * ((t + 3) & 7) as usize;
    let d = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let mut out = [0u32; 24];
    for (i, o) in out.iter_mut().enumerate().take(16) {
        *o = get32(&b, 4 * i);
    }
    out[16..22].copy_from_slice(&[r13, r14, r16, r17, d as u32, (d >> 32) as u32]);
    out
}

fn lmix(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, FILE, backend);
    // 48 threads: one full warp and a half one.
    let n = 48u32;
    let out = zeroed(&dev, 96 * n as usize);
    let c = cfg([1, 1, 1], [n, 1, 1], backend);
    launch(&dev, &m, "lmix", &c, &[arg(&out)], "lmix");
    let got = dev.read::<u32>(&out).unwrap();
    let want: Vec<u32> = (0..n).flat_map(lmix_model).collect();
    assert_slice_eq(&got, &want, &format!("lmix {backend:?}"));
}

/// One bad lane among 32: the launch fails with that lane's fault, the same on both
/// backends (kind 0: load 1 MiB past the depot, 1: store there, 2: misaligned load).
fn lbad(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, FILE, backend);
    for (kind, fk, inst) in [
        (0u32, FaultKind::OutsideWindow, "ld.local.u32"),
        (1, FaultKind::OutsideWindow, "st.local.u32"),
        (2, FaultKind::Misaligned, "ld.local.u32"),
    ] {
        for lane in [0u32, 13, 31] {
            let out = zeroed(&dev, 4 * 32);
            let c = cfg([1, 1, 1], [32, 1, 1], backend);
            let args = [KernelArg::U32(lane), KernelArg::U32(kind), arg(&out)];
            let what = format!("lbad kind {kind} lane {lane} {backend:?}");
            match dev.launch(&m, "lbad", &c, &args) {
                Err(Error::Fault(f)) => {
                    assert_eq!(f.kind, fk, "{what}: {f:?}");
                    assert_eq!(f.inst, inst, "{what}: {f:?}");
                    assert_eq!(f.thread, [lane, 0, 0], "{what}: {f:?}");
                    // The depot is the first local variable: window offset 0.
                    let off = if kind == 2 { 2 } else { 1 << 20 };
                    assert_eq!(f.addr, off, "{what}: {f:?}");
                }
                Err(e) => panic!("{what}: expected a fault, got {e}"),
                Ok(()) => panic!("{what}: expected a fault, the launch succeeded"),
            }
        }
        // No bad lane (lane 32 does not exist): every lane reads its own word 0.
        let out = zeroed(&dev, 4 * 32);
        let c = cfg([1, 1, 1], [32, 1, 1], backend);
        let args = [KernelArg::U32(32), KernelArg::U32(kind), arg(&out)];
        launch(&dev, &m, "lbad", &c, &args, "lbad, no bad lane");
        let want: Vec<u32> = (0..32).map(|t| if kind == 1 { 7 } else { t }).collect();
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "lbad, no bad lane");
    }
}

both_backends!(lmix, lbad);
