//! Shared loads whose half-warps each read one address or 16 consecutive words (the
//! rows of a 16-wide tile; `jit/lower/mem_halves.rs`), also with one lane inactive (the
//! gather), on both backends against values computed here, and with an offset that
//! leaves the window, which must report the same fault on both backends
//! (`tests/ptx/halves.ptx`). Then loads whose 64-bit address register's shape an
//! earlier load in the block found (`tests/ptx/halves_memo.ptx`): again with one lane
//! inactive, after the register is rewritten to a shape that is not half-warp rows,
//! from blocks of whole-warp rows and of 16-wide rows (the two compiled variants), and
//! with an offset that leaves the window at a remembered register's last load. Then
//! runs of loads whose window the first load tests for all (`tests/ptx/halves_run.ptx`),
//! with faults in the middle of a run. Last, first loads of runs, which test the
//! half-warp shapes before the coalesced one (`tests/ptx/halves_first.ptx`): a coalesced
//! warp, a guarded first load, a global run, and faults at first and later loads.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const FILE: &str = "tests/ptx/halves.ptx";

/// `tile[i] = 7i + 3` as the kernel stores it.
fn tile(i: u32) -> u32 {
    7 * i + 3
}

#[test]
fn half_warp_rows() {
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = device();
        let m = module_at(&dev, FILE, backend);
        let out = zeroed(&dev, 128 * 4);
        let c = cfg([1, 1, 1], [128, 1, 1], backend);
        for off in [0u32, 5] {
            let args = [arg(&out), ptxjit::KernelArg::U32(off)];
            launch(&dev, &m, "halves", &c, &args, "halves");
            let want: Vec<u32> = (0..128u32)
                .map(|t| {
                    let row = tile((t / 16) * 16 + off);
                    let col = tile(t % 16 + off);
                    let guarded = if t % 32 == 5 { 0 } else { col };
                    row.wrapping_add(col.wrapping_mul(1000))
                        .wrapping_add(guarded.wrapping_mul(1_000_000))
                })
                .collect();
            assert_slice_eq(
                &dev.read::<u32>(&out).unwrap(),
                &want,
                &format!("{backend:?} off {off}"),
            );
        }
        // off = 17: warp 3's second half reads word 7*16 + 17 = 129, past the
        // 128-word tile (warps 0-2 stay inside).
        let args = [arg(&out), ptxjit::KernelArg::U32(17)];
        let err = dev
            .launch(&m, "halves", &c, &args)
            .expect_err("outside the shared window");
        let msg = err.to_string();
        assert!(msg.contains("ld.shared.u32"), "{backend:?}: {msg}");
        msgs.push(msg);
    }
    assert_eq!(
        msgs[0], msgs[1],
        "JIT and interpreter report the same fault"
    );
}

#[test]
fn global_half_warp_rows() {
    // 8 rows of `stride` words: in[i] = 3i + 1.
    let mut msgs = Vec::new();
    // One device and buffer, so that both backends fault at the same address.
    let dev = device();
    let small: Vec<u32> = (0..150).collect();
    let sb = dev.alloc_from(&small).unwrap();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, FILE, backend);
        let out = zeroed(&dev, 128 * 4);
        let c = cfg([1, 1, 1], [128, 1, 1], backend);
        for stride in [16u32, 20, 0] {
            let input: Vec<u32> = (0..8 * stride.max(16)).map(|i| 3 * i + 1).collect();
            let inb = dev.alloc_from(&input).unwrap();
            let args = [arg(&inb), arg(&out), ptxjit::KernelArg::U32(stride)];
            launch(&dev, &m, "global_halves", &c, &args, "global_halves");
            let want: Vec<u32> = (0..128u32)
                .map(|t| {
                    let row = (t / 16 * stride) as usize;
                    input[row + (t % 16) as usize].wrapping_add(input[row].wrapping_mul(1000))
                })
                .collect();
            assert_slice_eq(
                &dev.read::<u32>(&out).unwrap(),
                &want,
                &format!("{backend:?} stride {stride}"),
            );
        }
        // Rows 2^20 words apart in a buffer of 150 words: row 1 is 4 MiB past it.
        let args = [arg(&sb), arg(&out), ptxjit::KernelArg::U32(1 << 20)];
        let err = dev
            .launch(&m, "global_halves", &c, &args)
            .expect_err("past the buffer");
        let msg = err.to_string();
        assert!(msg.contains("ld.global.u32"), "{backend:?}: {msg}");
        msgs.push(msg);
    }
    assert_eq!(
        msgs[0], msgs[1],
        "JIT and interpreter report the same fault"
    );
}

const MEMO: &str = "tests/ptx/halves_memo.ptx";

#[test]
fn remembered_half_warp_rows() {
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = device();
        let m = module_at(&dev, MEMO, backend);
        let out = zeroed(&dev, 128 * 4);
        for block in [[128, 1, 1], [16, 8, 1]] {
            let c = cfg([1, 1, 1], block, backend);
            for off in [0u32, 5, 12] {
                let args = [arg(&out), ptxjit::KernelArg::U32(off)];
                launch(&dev, &m, "halves_memo", &c, &args, "halves_memo");
                let want: Vec<u32> = (0..128u32)
                    .map(|t| {
                        let (row, col) = ((t / 16) * 16 + off, t % 16 + off);
                        let rev = 31 - t % 32 + off;
                        let g = if t % 32 == 5 { 0 } else { tile(col + 48) };
                        weighted_sum(&[
                            (tile(row), 1u32),
                            (tile(col), 3),
                            (tile(row + 1), 5),
                            (tile(col + 16), 7),
                            (tile(row + 2), 11),
                            (tile(col + 32), 13),
                            (g, 17),
                            (tile(rev + 1), 19),
                            (tile(row + 3), 23),
                        ])
                    })
                    .collect();
                assert_slice_eq(
                    &dev.read::<u32>(&out).unwrap(),
                    &want,
                    &format!("{backend:?} block {block:?} off {off}"),
                );
            }
            // off = 13: the last row load of warp 3's second half reads word
            // 112 + 13 + 3 = 128, past the 128-word tile; every earlier load is inside.
            let args = [arg(&out), ptxjit::KernelArg::U32(13)];
            let err = dev
                .launch(&m, "halves_memo", &c, &args)
                .expect_err("outside the shared window");
            let msg = err.to_string();
            assert!(msg.contains("ld.shared.u32"), "{backend:?}: {msg}");
            msgs.push(msg);
        }
    }
    // [JIT 128, JIT 16 × 8, interpreter 128, interpreter 16 × 8].
    assert_eq!(msgs.len(), 4);
    assert_eq!(
        msgs[0], msgs[2],
        "JIT and interpreter report the same fault"
    );
    assert_eq!(
        msgs[1], msgs[3],
        "JIT and interpreter report the same fault"
    );
}

#[test]
fn remembered_global_half_warp_rows() {
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = device();
        let m = module_at(&dev, MEMO, backend);
        let out = zeroed(&dev, 128 * 4);
        let c = cfg([1, 1, 1], [128, 1, 1], backend);
        for stride in [16u32, 20, 0] {
            let input: Vec<u32> = (0..8 * stride.max(16) + 2).map(|i| 3 * i + 1).collect();
            let inb = dev.alloc_from(&input).unwrap();
            let args = [arg(&inb), arg(&out), ptxjit::KernelArg::U32(stride)];
            launch(
                &dev,
                &m,
                "global_halves_memo",
                &c,
                &args,
                "global_halves_memo",
            );
            let want: Vec<u32> = (0..128u32)
                .map(|t| {
                    let r = (t / 16 * stride) as usize;
                    let c = r + (t % 16) as usize;
                    [(r, 1u32), (r + 1, 3), (r + 2, 5), (c, 7), (c + 1, 11)]
                        .iter()
                        .fold(0u32, |a, &(i, w)| a.wrapping_add(input[i].wrapping_mul(w)))
                })
                .collect();
            assert_slice_eq(
                &dev.read::<u32>(&out).unwrap(),
                &want,
                &format!("{backend:?} stride {stride}"),
            );
        }
    }
}

const RUN: &str = "tests/ptx/halves_run.ptx";

/// Launches `kernel`, which must fault at the instruction of PTX file `path` holding
/// `text`: the fault message, which names that line (`:LINE:`).
fn fault_at(
    dev: &ptxjit::Device,
    m: &ptxjit::Module,
    kernel: &str,
    c: &ptxjit::LaunchConfig,
    args: &[ptxjit::KernelArg],
    (path, text): (&str, &str),
    what: &str,
) -> String {
    let err = dev.launch(m, kernel, c, args).expect_err("a faulting load");
    let msg = err.to_string();
    let line = format!(":{}:", line_of(path, text));
    assert!(msg.contains(&line), "{what}: {msg}");
    msg
}

/// The fault messages of a JIT pass followed by an interpreter pass over the same
/// cases: both halves of `msgs` must be equal.
fn assert_halves_agree(msgs: &[String]) {
    let n = msgs.len() / 2;
    assert_eq!(
        msgs[..n],
        msgs[n..],
        "JIT and interpreter report the same faults"
    );
}

/// `Σ x·w` in wrapping u32 arithmetic: the kernels' checksums of loaded values.
fn weighted_sum(terms: &[(u32, u32)]) -> u32 {
    terms
        .iter()
        .fold(0u32, |a, &(x, w)| a.wrapping_add(x.wrapping_mul(w)))
}

/// The line of PTX file `path` holding `text` (1-based).
fn line_of(path: &str, text: &str) -> usize {
    let src = std::fs::read_to_string(path).expect("read the PTX");
    1 + src
        .lines()
        .position(|l| l.contains(text))
        .expect("instruction in the PTX")
}

/// Runs of loads from one register whose window the first load tests once
/// (`tests/ptx/halves_run.ptx`): the values against the formula of the PTX's comment,
/// then three faults that only a later load of a run makes (an offset outside the
/// window in the middle of the run, a misaligned register, a misaligned offset in a
/// run), each reported at that load on both backends alike.
#[test]
fn remembered_window_runs() {
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = device();
        let m = module_at(&dev, RUN, backend);
        let out = zeroed(&dev, 128 * 4);
        for block in [[128, 1, 1], [16, 8, 1]] {
            let c = cfg([1, 1, 1], block, backend);
            let u = ptxjit::KernelArg::U32;
            let args = [arg(&out), u(0), u(0), u(0)];
            launch(&dev, &m, "halves_run", &c, &args, "halves_run");
            let want: Vec<u32> = (0..128u32)
                .map(|t| {
                    let (row, col) = ((t / 16) * 16, t % 16);
                    let g = if t % 32 == 5 { 0 } else { tile(col + 32) };
                    weighted_sum(&[
                        (tile(row), 1u32),
                        (tile(row + 1), 3),
                        (tile(row + 15), 5),
                        (tile(row + 2), 7),
                        (tile(row + 3), 11),
                        (tile(col), 13),
                        (tile(col + 16), 17),
                        (g, 19),
                        (tile(col + 48), 23),
                        (tile(col + 1), 29),
                        (0, 31),
                        (tile(col + 17), 37),
                    ])
                })
                .collect();
            assert_slice_eq(
                &dev.read::<u32>(&out).unwrap(),
                &want,
                &format!("{backend:?} block {block:?}"),
            );
            // off = 1: warp 3's second half reads word 112 + 1 + 15 = 128 at the run's
            // third load; its first two and last two loads are inside the tile.
            // skew = 2: the register is aligned, every load of the first run is not.
            // bad = 1: the run after the register's rewrite has a load at 0 mod 4.
            for ([off, skew, bad], at) in [
                ([1, 0, 0], "[%rd5+62]"),
                ([0, 2, 0], "[%rd5+2]"),
                ([0, 0, 1], "[%rd5+8]"),
            ] {
                let args = [arg(&out), u(off), u(skew), u(bad)];
                let what = format!("{backend:?} {at}");
                msgs.push(fault_at(
                    &dev,
                    &m,
                    "halves_run",
                    &c,
                    &args,
                    (RUN, at),
                    &what,
                ));
            }
        }
    }
    assert_halves_agree(&msgs);
}

const MIXED: &str = "tests/ptx/halves_mixed.ptx";

/// A run whose halves take different forms (one consecutive, one a single word; either
/// half, `flip`), so that its later loads take the window-tested path with mixed halves
/// (`halves_window_load`): the values
/// against the formula of the PTX's comment, with a guarded load (lane 5 inactive) in
/// the run and the single-word half reading up to the window's last word (`off` = 56:
/// warp 3 reads tile[64 + 15 + 48] = tile[127]); then `off` = 60, whose single-word half
/// of warp 3 leaves the window only at the run's last load (tile[131]), reported there
/// on both backends alike.
#[test]
fn mixed_window_runs() {
    let mut msgs = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let dev = device();
        let m = module_at(&dev, MIXED, backend);
        let out = zeroed(&dev, 128 * 4);
        for block in [[128, 1, 1], [16, 8, 1]] {
            let c = cfg([1, 1, 1], block, backend);
            let u = ptxjit::KernelArg::U32;
            for flip in [0u32, 1] {
                for off in [0u32, 56] {
                    let args = [arg(&out), u(off), u(flip)];
                    launch(&dev, &m, "halves_mixed", &c, &args, "halves_mixed");
                    let want: Vec<u32> = (0..128u32)
                        .map(|t| {
                            let half = (t / 16) % 2;
                            let idx = if half == flip {
                                t % 16
                            } else {
                                (t / 32) * 16 + 8
                            } + off;
                            let g = if t % 32 == 5 { 0 } else { tile(idx + 2) };
                            weighted_sum(&[
                                (tile(idx), 1u32),
                                (tile(idx + 1), 3),
                                (g, 5),
                                (tile(idx + 8), 7),
                                (tile(idx + 15), 11),
                            ])
                        })
                        .collect();
                    let what = format!("{backend:?} block {block:?} flip {flip} off {off}");
                    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
                }
                let args = [arg(&out), u(60), u(flip)];
                let at = (MIXED, "[%rd5+60]");
                let what = format!("{backend:?}");
                msgs.push(fault_at(&dev, &m, "halves_mixed", &c, &args, at, &what));
            }
        }
    }
    assert_halves_agree(&msgs);
}

const LOOP: &str = "tests/ptx/halves_loop.ptx";

/// A loop body that loads twice through one address register whose shape changes
/// from iteration to iteration (`tests/ptx/halves_loop.ptx`): half-warp rows, then one
/// consecutive run (the first load's coalesced path, which records no shape), then
/// rows again at other bases, then scattered words. The second load must not use the
/// rows an earlier iteration remembered (the JIT did: the remembered state was only
/// cleared on the halves test's own path). Both backends and both JIT tiers, against
/// the values computed here.
#[test]
fn remembered_shape_of_an_earlier_iteration_is_not_used() {
    // Iteration i, lane l: the word index `idx[32 i + l]` both loads start from.
    let idx: Vec<u32> = (0..4u32)
        .flat_map(|i| {
            (0..32u32).map(move |l| match (i, l) {
                (0 | 2, l) if l < 16 => 100 * (i + 1) + l,
                (0 | 2, l) => 1000 + 100 * i + (l - 16),
                (1, l) => 2000 + l,
                (_, l) => 3000 + 7 * l,
            })
        })
        .collect();
    let data: Vec<u32> = (0..4096u32).map(|j| 3 * j + 1).collect();
    let want: Vec<u32> = idx
        .iter()
        .map(|&j| data[j as usize].wrapping_add(data[j as usize + 1].wrapping_mul(65536)))
        .collect();
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, LOOP, backend);
            let (ib, db) = (
                dev.alloc_from(&idx).unwrap(),
                dev.alloc_from(&data).unwrap(),
            );
            let out = zeroed(&dev, 128 * 4);
            let args = [arg(&ib), arg(&db), arg(&out), ptxjit::KernelArg::U32(4)];
            let c = cfg([1, 1, 1], [32, 1, 1], backend);
            launch(&dev, &m, "halves_loop", &c, &args, "halves_loop");
            assert_slice_eq(
                &dev.read::<u32>(&out).unwrap(),
                &want,
                &format!("{backend:?} {tier:?}"),
            );
        }
    }
}

const FIRST: &str = "tests/ptx/halves_first.ptx";

/// First loads of runs, which test the half-warp shapes before the coalesced one
/// (`tests/ptx/halves_first.ptx`), from blocks of whole-warp rows and of 16-wide rows:
/// the values against the formula of the PTX's comment (a coalesced first load, a
/// guarded one, a global one), then faults at a coalesced first load (`off` = 33: warp
/// 3's lane 31 reads word 160), at the last load of the run whose first load is
/// guarded (`off` = 29: word 127 + 29 + 4), and at the global run's first load (4 MiB
/// past its buffer), each reported at that load on both backends alike.
#[test]
fn first_loads_of_runs() {
    let mut msgs = Vec::new();
    // One device and buffer, so that both backends fault at the same address.
    let dev = device();
    let input: Vec<u32> = (0..256u32).map(|i| 5 * i + 2).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let u = ptxjit::KernelArg::U32;
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, FIRST, backend);
        let out = zeroed(&dev, 128 * 4);
        for block in [[128, 1, 1], [16, 8, 1]] {
            let c = cfg([1, 1, 1], block, backend);
            for (off, goff) in [(0u32, 0u32), (28, 100), (7, 3)] {
                let args = [arg(&out), arg(&inb), u(off), u(goff)];
                launch(&dev, &m, "halves_first", &c, &args, "halves_first");
                let want: Vec<u32> = (0..128u32)
                    .map(|t| {
                        let s = t + off;
                        let g = if t % 32 == 5 { 0 } else { tile(s + 3) };
                        let gi = (t + goff) as usize;
                        weighted_sum(&[
                            (tile(s), 1u32),
                            (tile(s + 1), 3),
                            (tile(s + 2), 5),
                            (g, 7),
                            (tile(s + 4), 11),
                            (input[gi], 13),
                            (input[gi + 1], 17),
                        ])
                    })
                    .collect();
                assert_slice_eq(
                    &dev.read::<u32>(&out).unwrap(),
                    &want,
                    &format!("{backend:?} block {block:?} off {off} goff {goff}"),
                );
            }
            for ((off, goff), at) in [
                ((33, 0), "[%rd5];"),
                ((29, 0), "[%rd6+16]"),
                ((0, 1 << 20), "[%rd7];"),
            ] {
                let args = [arg(&out), arg(&inb), u(off), u(goff)];
                let what = format!("{backend:?} {at}");
                msgs.push(fault_at(
                    &dev,
                    &m,
                    "halves_first",
                    &c,
                    &args,
                    (FIRST, at),
                    &what,
                ));
            }
        }
    }
    assert_halves_agree(&msgs);
}

const KNOWN: &str = "tests/ptx/halves_known.ptx";

/// First loads of runs whose half-warp shapes launches with `%ntid.x == 16` prove
/// (`mem_halves::halves_known`, optimized tier; the quick tier and other widths test the
/// lanes): per half one address (a tile row by `%tid.y`) and 16 consecutive words (by
/// `%tid.x`), in blocks 16 wide (also with `%tid.z`) and of other widths, with all lanes
/// and with lane 5 off at the first load; then faults at a run's first load (outside the
/// window, a misaligned row) and at a later one, reported alike on both backends.
#[test]
fn known_half_shapes() {
    for tier in [ptxjit::jit::JitTier::Quick, ptxjit::jit::JitTier::Optimized] {
        known_half_shapes_on(tier);
    }
}

fn known_half_shapes_on(tier: ptxjit::jit::JitTier) {
    let mut msgs = Vec::new();
    let u = ptxjit::KernelArg::U32;
    let dev = device_tier(tier);
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, KNOWN, backend);
        let out = zeroed(&dev, 128 * 4);
        let blocks = [[16, 8, 1], [16, 4, 2], [8, 16, 1], [32, 4, 1], [128, 1, 1]];
        for block in blocks {
            let c = cfg([1, 1, 1], block, backend);
            for (off, skip) in [(0u32, 99u32), (32, 99), (5, 99), (3, 5)] {
                let args = [arg(&out), u(off), u(0), u(skip)];
                launch(&dev, &m, "halves_known", &c, &args, "halves_known");
                let want: Vec<u32> = (0..128u32)
                    .map(|t| {
                        let (x, y) = (t % block[0], (t / block[0]) % block[1]);
                        let a = |k: u32| tile(16 * y + off + k);
                        let b = |j: u32| tile(x + off + j);
                        let g = if t % 32 == skip { 0 } else { a(0) };
                        weighted_sum(&[
                            (g, 1u32),
                            (a(1), 3),
                            (a(2), 5),
                            (a(15), 7),
                            (b(0), 11),
                            (b(16), 13),
                            (b(32), 17),
                        ])
                    })
                    .collect();
                assert_slice_eq(
                    &dev.read::<u32>(&out).unwrap(),
                    &want,
                    &format!("{tier:?} {backend:?} block {block:?} off {off} skip {skip}"),
                );
            }
        }
        // 16 x 8: warp 3's upper half (y = 7) reads word 112 + 176 = 288 at its first
        // load, 112 + 162 + 15 = 289 at its fourth; boff 2 misaligns every row.
        let c = cfg([1, 1, 1], [16, 8, 1], backend);
        for ((off, boff), at) in [
            ((176, 0), "[%rd5];"),
            ((162, 0), "[%rd5+60]"),
            ((0, 2), "[%rd5];"),
        ] {
            let args = [arg(&out), u(off), u(boff), u(99)];
            let what = format!("{tier:?} {backend:?} {at}");
            msgs.push(fault_at(
                &dev,
                &m,
                "halves_known",
                &c,
                &args,
                (KNOWN, at),
                &what,
            ));
        }
    }
    assert_halves_agree(&msgs);
}
