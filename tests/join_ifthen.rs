//! If-then bodies run under the branch's mask without the dispatcher
//! (`jit::control::join`) and the shapes that keep it (`tests/ptx/join_ifthen.ptx`,
//! ptxas-validated): an if-then with the body on either side of the branch, with empty,
//! partial and full masks, after lanes exited, `activemask` inside the body and at the
//! join; an if-then nested in a divergent one and one under a uniform branch; an `exit`
//! inside the body; a barrier right after each join (a continuation kernel in the JIT),
//! 1 and 2 workers, in order and random warp orders; a divergent loop whose if-then
//! joins at the loop's header. Block sizes that are and are not multiples of 32. Both
//! backends and both JIT tiers against Rust references written here (each thread's four
//! words at `out + 16 * tid`; `FILL` where a thread writes nothing).
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::{DeviceOptions, Schedule};

const FILE: &str = "tests/ptx/join_ifthen.ptx";
const FILL: u32 = 0x5EE5;
const BLOCKS: [u32; 6] = [32, 33, 50, 64, 96, 256];

/// The lanes of `t`'s warp (bit = lane) among threads `0..n` for which `f` holds.
fn warp_mask(t: u32, n: u32, f: impl Fn(u32) -> bool) -> u32 {
    let w = t / 32 * 32;
    (0..32)
        .filter(|&l| w + l < n && f(w + l))
        .fold(0, |m, l| m | 1 << l)
}

/// The devices (1 and 2 workers) and, per device, the (backend, module) pairs: the
/// interpreter and each JIT tier.
fn setups() -> Vec<(String, Device, ptxjit::Module)> {
    let mut v = Vec::new();
    for threads in [1, 2] {
        for backend in [Backend::Interp, Backend::Jit] {
            for &tier in tiers(backend) {
                let dev = Device::with_options(DeviceOptions {
                    threads,
                    jit_tier: tier,
                    ..Default::default()
                })
                .expect("device");
                let m = module_at(&dev, FILE, backend);
                v.push((format!("{backend:?} {tier:?} t={threads}"), dev, m));
            }
        }
    }
    v
}

/// Runs `kernel` on one CTA of `nt` threads with `args` after the output buffer and
/// compares the four words per thread with `want(t)`.
fn check(
    (what, dev, m): &(String, Device, ptxjit::Module),
    kernel: &str,
    nt: u32,
    args: &[KernelArg],
    schedule: Schedule,
    want: impl Fn(u32) -> [u32; 4],
) {
    let backend = if what.starts_with("Jit") {
        Backend::Jit
    } else {
        Backend::Interp
    };
    let out = dev.alloc_from(&vec![FILL; 4 * nt as usize]).unwrap();
    let mut all = vec![arg(&out)];
    all.extend_from_slice(args);
    let c = cfg([1, 1, 1], [nt, 1, 1], backend).schedule(schedule);
    let what = format!("{kernel} {what} ntid {nt} {args:?} {schedule:?}");
    launch(dev, m, kernel, &c, &all, &what);
    let got = dev.read::<u32>(&out).unwrap();
    let want: Vec<u32> = (0..nt).flat_map(&want).collect();
    assert_slice_eq(&got, &want, &what);
}

/// `x`: lanes `t >= x` run the body; `lim`: lanes `t >= lim` exit first.
fn xs_lims(nt: u32) -> Vec<(u32, u32)> {
    let xs = [0, 1, 5, 31, 32, 40, nt - 1, nt, 1000];
    let lims = [nt, nt / 2 + 3, 7];
    xs.iter()
        .flat_map(|&x| lims.iter().map(move |&l| (x, l)))
        .collect()
}

#[test]
fn if_then_both_sides_masks_and_exits() {
    for s in setups() {
        for kernel in ["ifthen", "ifthen_taken"] {
            for nt in BLOCKS {
                for (x, lim) in xs_lims(nt) {
                    let args = [KernelArg::U32(x), KernelArg::U32(lim)];
                    check(&s, kernel, nt, &args, Schedule::InOrder, |t| {
                        if t >= lim {
                            return [FILL; 4];
                        }
                        let live = |u: u32| u < lim;
                        let body = t >= x;
                        [
                            (7 * t).wrapping_add(if body { 1000 } else { 0 }),
                            match body {
                                true => warp_mask(t, nt, |u| live(u) && u >= x),
                                false => FILL,
                            },
                            warp_mask(t, nt, live),
                            FILL,
                        ]
                    });
                }
            }
        }
    }
}

#[test]
fn nested_if_thens() {
    for s in setups() {
        for nt in BLOCKS {
            for (x, lim) in xs_lims(nt) {
                for (y, z) in [(x + 3, 1), (x + 40, 0), (x / 2, 1), (0, 1), (1000, 1)] {
                    let args = [x, lim, y, z].map(KernelArg::U32);
                    check(&s, "nested", nt, &args, Schedule::InOrder, |t| {
                        if t >= lim {
                            return [FILL; 4];
                        }
                        let mut v = 7 * t;
                        if t >= x {
                            v += 100 + if t >= y { 10000 } else { 0 } + 1;
                        }
                        if z != 0 && t < y {
                            v += 7;
                        }
                        [v, warp_mask(t, nt, |u| u < lim), FILL, FILL]
                    });
                }
            }
        }
    }
}

#[test]
fn exit_inside_the_body() {
    for s in setups() {
        for nt in BLOCKS {
            for (x, lim) in xs_lims(nt) {
                let args = [KernelArg::U32(x), KernelArg::U32(lim)];
                check(&s, "exit_body", nt, &args, Schedule::InOrder, |t| {
                    let gone = |u: u32| u >= lim || (u >= x && u.is_multiple_of(3));
                    if t >= lim {
                        return [FILL; 4];
                    }
                    let w0 = match gone(t) {
                        true => FILL,
                        false => warp_mask(t, nt, |u| !gone(u)),
                    };
                    match t >= x {
                        true => [w0, 1, if gone(t) { FILL } else { 2 }, FILL],
                        false => [w0, FILL, FILL, FILL],
                    }
                });
            }
        }
    }
}

#[test]
fn barrier_right_after_the_join() {
    for s in setups() {
        for nt in BLOCKS {
            for x in [0, 1, 5, 31, 32, 40, nt - 1, nt, 1000] {
                for schedule in [Schedule::InOrder, Schedule::Random(7)] {
                    let args = [KernelArg::U32(x)];
                    // The shared array after each phase.
                    let s1: Vec<u32> = (0..nt)
                        .map(|t| 3 * t + 1 + if t >= x { 5 } else { 0 })
                        .collect();
                    let s2: Vec<u32> = (0..nt)
                        .map(|t| {
                            if t < x {
                                s1[t as usize] * 3
                            } else {
                                s1[t as usize]
                            }
                        })
                        .collect();
                    check(&s, "bar_join", nt, &args, schedule, |t| {
                        [
                            s1[((t + 1) % nt) as usize],
                            s2[(nt - 1 - t) as usize],
                            FILL,
                            FILL,
                        ]
                    });
                }
            }
        }
        if s.0.starts_with("Jit") {
            assert_eq!(s.2.barriers_as_continuations("bar_join"), Some(true));
        }
    }
}

#[test]
fn loop_joining_at_its_header() {
    for s in setups() {
        for nt in BLOCKS {
            for lim in [nt, nt / 2 + 3, 7] {
                let args = [KernelArg::U32(0), KernelArg::U32(lim)];
                check(&s, "loop_join", nt, &args, Schedule::InOrder, |t| {
                    if t >= lim {
                        return [FILL; 4];
                    }
                    let k = t % 37;
                    let acc: u32 = (1..=k).filter(|i| i & 1 == 1).sum();
                    [acc, k + 1, FILL, FILL]
                });
            }
        }
    }
}
