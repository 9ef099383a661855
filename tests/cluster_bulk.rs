//! Bulk copies and reductions into other CTAs of a cluster and into global memory, and
//! the remote `st.async`/`red.async` and `mbarrier.arrive` (sm_90a), with transaction-count completion on the
//! receiving CTA's mbarrier and `.bulk_group` completion: the hand-written
//! `tests/kernels/cluster/bulk_ops.ptx` (accepted by `ptxas -arch sm_90a`), every
//! output compared with a Rust reference computed here, on both backends.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use half::{bf16, f16};

const PTX: &str = "cluster/bulk_ops.ptx";

/// Clusters of 2 CTAs exchange five kinds of remote writes (see the PTX's comment).
fn remote(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    let input = Rng::new(11).vec_u32(32);
    let inp = dev.alloc_from(&input).unwrap();
    let ncta = 4u32;
    let out = zeroed(&dev, ncta as usize * 512);
    let c = cfg([ncta, 1, 1], [32, 1, 1], backend);
    launch(&dev, &m, "remote", &c, &[arg(&inp), arg(&out)], "remote");
    let mut want = Vec::new();
    for cta in 0..ncta {
        let (r, s) = (cta % 2, (cta % 2) ^ 1);
        // A: the sender's bulk copy of in[0..32].
        want.extend_from_slice(&input);
        // D: st.async.v2 by the sender's threads u < 16: D[2u] = 7u, D[2u + 1] = 7u + 1.
        want.extend((0..32).map(|t| t / 2 * 7 + t % 2));
        // E: red.async.max of sender * 50 + t onto 40 + t.
        want.extend((0..32).map(|t| (40 + t).max(s * 50 + t)));
        // B: the sender's S[t] = sender * 1000 + t.
        want.extend((0..16).map(|t| s * 1000 + t));
        // C: own 5t + rank, plus the sender's S[t].
        want.extend((0..16).map(|t| 5 * t + r + s * 1000 + t));
    }
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
}

/// Flushes an f32 subnormal to a zero of its sign.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// PTX `min.f16` of two non-NaN values (-0 below +0).
fn min_f16(a: f16, b: f16) -> f16 {
    let (x, y) = (a.to_f32(), b.to_f32());
    if x < y || x == y && x.is_sign_negative() {
        a
    } else {
        b
    }
}

/// Bulk reductions of shared memory into global memory with `.bulk_group` completion.
fn reduce_global(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    // src: f32[8] | f16[16] | bf16[16] | u32[8] | u64[4] | 32 unused | 64 copied bytes.
    let sf: [f32; 8] = [1.5, -2.25, 1e-40, 3.0, 0.1, -0.0, 1e30, 7.0];
    let fa0: [f32; 8] = [2.0, 0.25, 0.0, 1e-40, 0.2, 0.0, 1e30, -7.0];
    let sh: Vec<f16> = (0..16)
        .map(|k| f16::from_f32(k as f32 * 0.75 - 5.0))
        .collect();
    let ha0: Vec<f16> = (0..16)
        .map(|k| f16::from_f32(3.0 - k as f32 * 0.5))
        .collect();
    let sb: Vec<bf16> = (0..16)
        .map(|k| bf16::from_f32(k as f32 * 1.25 - 4.0))
        .collect();
    let hb0: Vec<bf16> = (0..16).map(|k| bf16::from_f32(0.5 + k as f32)).collect();
    let su: [u32; 8] = [5, 5, 5, 3, 100, 6, 0, 0];
    let ua0: [u32; 8] = [0, 5, 9, 3, 99, 7, 0, 1];
    let mut rng = Rng::new(5);
    let sx: Vec<u64> = (0..4).map(|_| rng.u64()).collect();
    let xa0: Vec<u64> = (0..4).map(|_| rng.u64()).collect();
    let tail: Vec<u8> = (0..96).map(|_| rng.u32() as u8).collect();
    let mut src = Vec::new();
    src.extend(sf.iter().flat_map(|v| v.to_le_bytes()));
    src.extend(sh.iter().flat_map(|v| v.to_le_bytes()));
    src.extend(sb.iter().flat_map(|v| v.to_le_bytes()));
    src.extend(su.iter().flat_map(|v| v.to_le_bytes()));
    src.extend(sx.iter().flat_map(|v| v.to_le_bytes()));
    src.extend_from_slice(&tail);
    assert_eq!(src.len(), 256);
    let bufs = [
        dev.alloc_from(&fa0).unwrap(),
        dev.alloc_from(&ha0.iter().map(|v| v.to_bits()).collect::<Vec<u16>>())
            .unwrap(),
        dev.alloc_from(&hb0.iter().map(|v| v.to_bits()).collect::<Vec<u16>>())
            .unwrap(),
        dev.alloc_from(&ua0).unwrap(),
        dev.alloc_from(&xa0).unwrap(),
        zeroed(&dev, 64),
        dev.alloc_from(&src).unwrap(),
    ];
    let args: Vec<KernelArg> = bufs.iter().map(arg).collect();
    let c = cfg([1, 1, 1], [32, 1, 1], backend);
    launch(&dev, &m, "reduce_global", &c, &args, "reduce_global");
    // add.f32 flushes subnormal inputs and results (the ISA's cp.reduce.async.bulk).
    let fa: Vec<f32> = (0..8).map(|k| ftz(ftz(fa0[k]) + ftz(sf[k]))).collect();
    assert_f32_bits(&dev.read::<f32>(&bufs[0]).unwrap(), &fa, "add.f32");
    let ha: Vec<u16> = (0..16).map(|k| min_f16(ha0[k], sh[k]).to_bits()).collect();
    assert_eq!(dev.read::<u16>(&bufs[1]).unwrap(), ha, "min.f16");
    // Sums of these bf16 values are exact in f32, so one rounding to bf16 is the ISA's.
    let hb: Vec<u16> = (0..16)
        .map(|k| bf16::from_f32(hb0[k].to_f32() + sb[k].to_f32()).to_bits())
        .collect();
    assert_eq!(dev.read::<u16>(&bufs[2]).unwrap(), hb, "add.noftz.bf16");
    // inc(r, s) = r >= s ? 0 : r + 1.
    let ua: Vec<u32> = (0..8)
        .map(|k| if ua0[k] >= su[k] { 0 } else { ua0[k] + 1 })
        .collect();
    assert_eq!(ua, [1, 0, 0, 0, 100, 0, 0, 0]); // (99, 100): 99 + 1
    assert_eq!(dev.read::<u32>(&bufs[3]).unwrap(), ua, "inc.u32");
    let xa: Vec<u64> = (0..4).map(|k| xa0[k] ^ sx[k]).collect();
    assert_eq!(dev.read::<u64>(&bufs[4]).unwrap(), xa, "xor.b64");
    assert_eq!(dev.read::<u8>(&bufs[5]).unwrap(), src[192..256], "copy");
}

/// Rank 0 multicasts 64 bytes to ranks 0, 1 and 3 (ctaMask 0b1011).
fn multicast(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    let input = Rng::new(9).vec_u32(16);
    let inp = dev.alloc_from(&input).unwrap();
    let out = zeroed(&dev, 8 * 16 * 4);
    let c = cfg([8, 1, 1], [32, 1, 1], backend);
    launch(
        &dev,
        &m,
        "multicast",
        &c,
        &[arg(&inp), arg(&out)],
        "multicast",
    );
    let mut want = Vec::new();
    for cta in 0..8 {
        match cta % 4 {
            2 => want.extend([0u32; 16]),
            _ => want.extend_from_slice(&input),
        }
    }
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
}

/// Remote `mbarrier.arrive` through `.shared::cluster` addresses, after remote stores.
fn remote_arrive(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    let out = zeroed(&dev, 4 * 32 * 4);
    let c = cfg([4, 1, 1], [32, 1, 1], backend);
    launch(&dev, &m, "remote_arrive", &c, &[arg(&out)], "remote_arrive");
    let want: Vec<u32> = (0..4u32)
        .flat_map(|cta| (0..32).map(move |t| ((cta % 2) ^ 1) * 10 + t))
        .collect();
    assert_eq!(dev.read::<u32>(&out).unwrap(), want);
}

/// A size that is not a multiple of 16 and a multicast to a rank outside the cluster
/// stop the launch with errors naming the instruction's line.
fn errors(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    let buf = zeroed(&dev, 256);
    let c = cfg([1, 1, 1], [32, 1, 1], backend);
    let e = dev
        .launch(&m, "bad_size", &c, &[arg(&buf)])
        .unwrap_err()
        .to_string();
    let line = line_of(&load(PTX), "bad_size", "cp.reduce.async.bulk");
    assert!(
        e.contains("size 20 is not a multiple of 16")
            && e.contains(&format!("bulk_ops.ptx:{line}")),
        "{e}"
    );
    let c = cfg([2, 1, 1], [32, 1, 1], backend);
    let e = dev
        .launch(&m, "bad_rank", &c, &[arg(&buf)])
        .unwrap_err()
        .to_string();
    let line = line_of(&load(PTX), "bad_rank", "multicast::cluster [M]");
    assert!(e.contains(&format!("bulk_ops.ptx:{line}")), "{e}");
}

both_backends!(remote, reduce_global, multicast, remote_arrive, errors);
