//! Warp collectives (tests/kernels/warp.cu, compiled by clang and NVRTC; hand-written
//! tests/ptx/warp.ptx for `redux.sync`, `elect.sync`, shuffle clamps and predicate outputs,
//! and the legacy forms without `.sync`): shuffles in every mode, votes, ballots, match,
//! activemask and `bar.warp.sync`, uniform and under divergence, on both backends, against
//! per-warp references written here.
#[macro_use]
mod common;
use common::*;

const SENTINEL: u32 = 0x5EE5_5EE5;

/// Launches `k` with blocks of 64 threads (two warps).
fn run(
    dev: &Device,
    m: &ptxjit::Module,
    k: &str,
    blocks: u32,
    bufs: &[&Buffer],
    backend: Backend,
    what: &str,
) {
    let args: Vec<KernelArg> = bufs.iter().map(|b| arg(b)).collect();
    launch(
        dev,
        m,
        k,
        &cfg([blocks, 1, 1], [64, 1, 1], backend),
        &args,
        what,
    );
}

fn warp_reduce(backend: Backend) {
    let dev = device();
    for file in variants("warp") {
        let m = module(&dev, &file, backend);
        let n = 200usize; // 7 warps, the last one partly past n
        let total = 256usize;
        let mut input = Rng::new(3).vec_u32(n);
        input[5] = u32::MAX; // sums wrap
        let inb = dev.alloc_from(&input).unwrap();
        let sums = dev.alloc_from(&vec![SENTINEL; total / 32]).unwrap();
        let maxs = dev.alloc_from(&vec![SENTINEL; total]).unwrap();
        let what = format!("{file} warp_reduce {backend:?}");
        let args = [arg(&inb), arg(&sums), arg(&maxs), KernelArg::from(n as i32)];
        launch(
            &dev,
            &m,
            "warp_reduce",
            &cfg([4, 1, 1], [64, 1, 1], backend),
            &args,
            &what,
        );
        let v = |i: usize| if i < n { input[i] } else { 0 };
        let want_sums: Vec<u32> = (0..total / 32)
            .map(|w| (0..32).fold(0u32, |s, l| s.wrapping_add(v(32 * w + l))))
            .collect();
        let mut want_maxs = vec![SENTINEL; total];
        for (i, x) in want_maxs.iter_mut().enumerate().take(n) {
            let w = i / 32;
            *x = (0..32).map(|l| v(32 * w + l)).max().unwrap_or(0);
        }
        assert_slice_eq(&dev.read::<u32>(&sums).unwrap(), &want_sums, &what);
        assert_slice_eq(&dev.read::<u32>(&maxs).unwrap(), &want_maxs, &what);
    }
}

fn seg_scan(backend: Backend) {
    let dev = device();
    for file in variants("warp") {
        let m = module(&dev, &file, backend);
        let n = 128usize;
        let input = Rng::new(4).vec_u32(n);
        let inb = dev.alloc_from(&input).unwrap();
        let out = zeroed(&dev, 4 * n);
        let bcast = zeroed(&dev, 4 * n);
        let what = format!("{file} seg_scan {backend:?}");
        run(
            &dev,
            &m,
            "seg_scan",
            2,
            &[&inb, &out, &bcast],
            backend,
            &what,
        );
        let mut want = vec![0u32; n];
        let mut want_b = vec![0u32; n];
        for i in 0..n {
            let seg = i & !7;
            want[i] = (seg..=i).fold(0u32, |s, k| s.wrapping_add(input[k]));
            want_b[i] = input[seg + 3];
        }
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        assert_slice_eq(&dev.read::<u32>(&bcast).unwrap(), &want_b, &what);
    }
}

fn compact(backend: Backend) {
    let dev = device();
    for file in variants("warp") {
        let m = module(&dev, &file, backend);
        let n = 128usize;
        let mut input: Vec<i32> = Rng::new(5).vec_u32(n).iter().map(|&x| x as i32).collect();
        input[32..64].iter_mut().for_each(|x| *x = -x.abs() - 1); // a warp with none
        input[64..96]
            .iter_mut()
            .for_each(|x| *x = (*x & 0xffff) + 1); // a warp with all
        let inb = dev.alloc_from(&input).unwrap();
        let out = dev.alloc_from(&vec![SENTINEL as i32; n]).unwrap();
        let count = dev.alloc_from(&vec![SENTINEL; n / 32]).unwrap();
        let what = format!("{file} compact {backend:?}");
        run(
            &dev,
            &m,
            "compact",
            2,
            &[&inb, &out, &count],
            backend,
            &what,
        );
        let mut want = vec![SENTINEL as i32; n];
        let mut want_c = vec![0u32; n / 32];
        for w in 0..n / 32 {
            let kept: Vec<i32> = input[32 * w..32 * w + 32]
                .iter()
                .copied()
                .filter(|&x| x > 0)
                .collect();
            want_c[w] = kept.len() as u32;
            want[32 * w..32 * w + kept.len()].copy_from_slice(&kept);
        }
        assert_slice_eq(&dev.read::<i32>(&out).unwrap(), &want, &what);
        assert_slice_eq(&dev.read::<u32>(&count).unwrap(), &want_c, &what);
    }
}

fn diverge(backend: Backend) {
    let dev = device();
    for file in variants("warp") {
        let m = module(&dev, &file, backend);
        let n = 128usize;
        let mut input = Rng::new(6).vec_u32(n);
        input[64..96].iter_mut().for_each(|x| *x |= 1 | 4); // a warp that all takes the branch
        input[96..].iter_mut().for_each(|x| *x |= 16); // .uni true in the last warp
        let inb = dev.alloc_from(&input).unwrap();
        let out = dev.alloc_from(&vec![SENTINEL; 4 * n]).unwrap();
        let what = format!("{file} diverge {backend:?}");
        run(&dev, &m, "diverge", 2, &[&inb, &out], backend, &what);
        let mut want = vec![0u32; 4 * n];
        for w in 0..n / 32 {
            let x = &input[32 * w..32 * w + 32];
            let bits = |f: &dyn Fn(u32) -> bool| {
                (0..32).filter(|&l| f(x[l])).fold(0u32, |m, l| m | 1 << l)
            };
            let odd = bits(&|v| v & 1 != 0);
            let even = !odd;
            for l in 0..32 {
                let o = &mut want[4 * (32 * w + l)..4 * (32 * w + l) + 4];
                if x[l] & 1 != 0 {
                    let m = odd;
                    let all = bits(&|v| v & 4 != 0) & m == m;
                    let any = bits(&|v| v & 8 != 0) & m != 0;
                    let u = bits(&|v| v & 16 != 0) & m;
                    let uni = u == 0 || u == m;
                    o[0] = m;
                    o[1] = bits(&|v| v & 2 != 0) & m;
                    o[2] = all as u32 | (any as u32) << 1 | (uni as u32) << 2;
                    o[3] = x[m.trailing_zeros() as usize];
                } else {
                    o[0] = !even;
                    o[1] = bits(&|v| v & 4 != 0) & even;
                    o[2] = 7;
                    o[3] = if l < 31 && even >> (l + 1) & 1 != 0 {
                        x[l + 1]
                    } else {
                        0xdead
                    };
                }
            }
        }
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
    }
}

fn match_sync(backend: Backend) {
    let dev = device();
    for file in variants("warp") {
        let m = module(&dev, &file, backend);
        let n = 128usize;
        let mut input: Vec<u32> = Rng::new(7).vec_u32(n).iter().map(|x| x & 0x10f).collect();
        input[32..64].iter_mut().for_each(|x| *x &= 0xff); // v & 0x100 uniform (0)
        input[64..96].iter_mut().for_each(|x| *x |= 0x100); // uniform (0x100)
        let inb = dev.alloc_from(&input).unwrap();
        let out = dev.alloc_from(&vec![SENTINEL; 4 * n]).unwrap();
        let what = format!("{file} match {backend:?}");
        run(&dev, &m, "match", 2, &[&inb, &out], backend, &what);
        let mut want = vec![0u32; 4 * n];
        for w in 0..n / 32 {
            let x = &input[32 * w..32 * w + 32];
            let key64 = |v: u32| ((v as u64 & 3) << 40) | (v as u64 >> 2 & 1);
            let same_hi = x.iter().all(|v| v & 0x100 == x[0] & 0x100);
            for l in 0..32 {
                let o = &mut want[4 * (32 * w + l)..4 * (32 * w + l) + 4];
                o[0] = (0..32).filter(|&k| x[k] == x[l]).fold(0, |m, k| m | 1 << k);
                o[1] = (0..32)
                    .filter(|&k| key64(x[k]) == key64(x[l]))
                    .fold(0, |m, k| m | 1 << k);
                o[2] = if same_hi { u32::MAX } else { 0 };
                o[3] = same_hi as u32;
            }
        }
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
    }
}

both_backends!(warp_reduce, seg_scan, compact, diverge, match_sync);

/// The ISA's `shfl.sync` pseudo-code, transcribed for the reference (mode: 0 up, 1 down,
/// 2 bfly, 3 idx): the source lane and the predicate.
fn shfl_ref(mode: u32, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = lane as i32;
    let bval = (b & 0x1f) as i32;
    let cval = (c & 0x1f) as i32;
    let segmask = ((c >> 8) & 0x1f) as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        0 => (lane - bval, lane - bval >= max_lane),
        1 => (lane + bval, lane + bval <= max_lane),
        2 => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    (if pval { j as u32 } else { lane as u32 }, pval)
}

fn wops(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/warp.ptx", backend);
    let n = 128usize;
    let mut rng = Rng::new(8);
    let mut input = vec![0u32; 3 * n];
    for t in 0..n {
        input[3 * t] = rng.u32();
        input[3 * t + 1] = rng.u32() & 0x3f; // b: bits above 4 are ignored
        input[3 * t + 2] = match t % 4 {
            0 => 0x1f,                          // whole warp
            1 => 0,                             // clamp 0
            2 => rng.u32() & 0x1f1f,            // random clamp and segment mask
            _ => (0x18 << 8) | (rng.u32() & 7), // segments of 8, clamp inside
        };
    }
    // Warp 2: x >> 28 uniform, so match.all succeeds there.
    for t in 64..96 {
        input[3 * t] = (input[3 * t] & 0x0fff_ffff) | 0x7000_0000;
    }
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![SENTINEL; 16 * n]).unwrap();
    let what = format!("warp.ptx wops {backend:?}");
    launch(
        &dev,
        &m,
        "wops",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        &what,
    );
    let mut want = vec![0u32; 16 * n];
    for w in 0..n / 32 {
        let x: Vec<u32> = (0..32).map(|l| input[3 * (32 * w + l)]).collect();
        let even: Vec<u32> = x.iter().copied().step_by(2).collect();
        let same_top = x.iter().all(|v| v >> 28 == x[0] >> 28);
        for l in 0..32 {
            let t = 32 * w + l;
            let (b, c) = (input[3 * t + 1], input[3 * t + 2]);
            let o = &mut want[16 * t..16 * t + 16];
            o[0] = x.iter().fold(0u32, |s, v| s.wrapping_add(*v));
            o[1] = x.iter().map(|&v| v as i32).min().unwrap() as u32;
            o[2] = *x.iter().max().unwrap();
            o[3] = x.iter().fold(u32::MAX, |s, v| s & v);
            o[4] = x.iter().fold(0, |s, v| s | v);
            o[5] = x.iter().fold(0, |s, v| s ^ v);
            o[6] = if l % 2 == 0 {
                even.iter().map(|&v| v as i32).max().unwrap() as u32
            } else {
                0xdead
            };
            (o[7], o[8]) = if l >= 5 {
                (5, (l == 5) as u32)
            } else {
                (0xdead, 0xdead)
            };
            let (j, p) = shfl_ref(3, l as u32, b, c);
            (o[9], o[10]) = (x[j as usize], p as u32);
            let mut pbits = 0;
            for (k, mode) in [0u32, 1, 2].into_iter().enumerate() {
                let (j, p) = shfl_ref(mode, l as u32, b, c);
                o[12 + k] = x[j as usize];
                pbits |= (p as u32) << k;
            }
            o[11] = pbits;
            o[15] = if same_top { u32::MAX ^ 1 } else { 0 };
        }
    }
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
}

fn legacy(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/warp_legacy.ptx", backend);
    let n = 96usize;
    let mut input = Rng::new(9).vec_u32(n);
    input[32..64].iter_mut().for_each(|x| *x |= 1); // all odd: vote.all true
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![SENTINEL; 6 * n]).unwrap();
    let what = format!("warp_legacy.ptx {backend:?}");
    launch(
        &dev,
        &m,
        "legacy",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        &what,
    );
    let mut want = vec![0u32; 6 * n];
    for w in 0..n / 32 {
        let x = &input[32 * w..32 * w + 32];
        let odd = (0..32)
            .filter(|&l| x[l] & 1 != 0)
            .fold(0u32, |m, l| m | 1 << l);
        let all = odd == u32::MAX;
        let any_even = odd != u32::MAX;
        let uni = odd == 0 || odd == u32::MAX;
        for l in 0..32 {
            let o = &mut want[6 * (32 * w + l)..6 * (32 * w + l) + 6];
            o[0] = all as u32 | (any_even as u32) << 1 | (uni as u32) << 2;
            o[1] = odd;
            (o[2], o[3]) = if l < 31 { (x[l + 1], 1) } else { (x[l], 0) };
            o[4] = x[0];
            o[5] = x[l ^ 3];
        }
    }
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
}

both_backends!(wops, legacy);

/// Located load-time errors for malformed warp instructions.
#[test]
fn load_errors() {
    let dev = device();
    let err = |body: &str| -> String {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n{body}\n}}\n"
        );
        match dev.load_ptx_with(&src, "w.ptx", false) {
            Ok(_) => panic!("accepted: {body}"),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        err("\tshfl.sync.b32 %r1, %r2, 1, 0x1f, -1;"),
        "w.ptx:9:2: error: 'shfl.sync.b32' needs '.up', '.down', '.bfly' or '.idx'"
    );
    assert_eq!(
        err("\tshfl.sync.up.b64 %rd1, %rd1, 1, 0, -1;"),
        "w.ptx:9:2: error: type .b64 is not valid for 'shfl.sync.up.b64'"
    );
    assert_eq!(
        err("\tmatch.any.b32 %r1, %r2, -1;"),
        "w.ptx:9:2: error: 'match.any.b32' needs '.sync'"
    );
    assert_eq!(
        err("\tmatch.any.sync.b32 %r1|%p1, %r2, -1;"),
        "w.ptx:9:21: error: this instruction has no 'p' result"
    );
    assert_eq!(
        err("\tredux.sync.add.b32 %r1, %r2, -1;"),
        "w.ptx:9:2: error: type .b32 is not valid for 'redux.sync.add.b32'"
    );
    assert_eq!(
        err("\tvote.sync.ballot.pred %p1, %p2, -1;"),
        "w.ptx:9:2: error: type .pred is not valid for 'vote.sync.ballot.pred'"
    );
    assert_eq!(
        err("\tshfl.sync.idx.b32 %r1, %r2, 1, 0x1f;"),
        "w.ptx:9:2: error: instruction 'shfl.sync.idx.b32' takes 5 operands, not 4"
    );
}
