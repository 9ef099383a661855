//! Barriers as continuations (issue 14.5, `jit::control::cont`): kernels whose every
//! `bar.sync` is reached by the whole warp return to the CTA loop at each barrier in the
//! JIT; the interpreter keeps its coroutines. Both backends must give the values of the
//! Rust references written here, with full and partial warps, lanes that exited before
//! the barriers, and 1 or 2 worker threads.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::Schedule;

/// `benches/ptx/bar_loop.ptx`: k barriers in a loop; every thread stores Σ i for i < k
/// (`bar_loop_co`: the same with the barrier under an always-true guard, which keeps it
/// a coroutine switch in the JIT).
#[test]
fn bar_loop_both_backends() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "benches/ptx/bar_loop.ptx", backend);
            for (kernel, grid, block) in [
                ("bar_loop", 3u32, 256u32),
                ("bar_loop", 2, 40),
                ("bar_loop", 1, 32),
                ("bar_loop", 4, 96),
                ("bar_loop_co", 3, 256),
                ("bar_loop_co", 2, 40),
            ] {
                for k in [0u32, 1, 5, 77] {
                    let n = (grid * block) as usize;
                    let out = dev.alloc_from(&vec![0xABCDu32; n]).unwrap();
                    let c = cfg([grid, 1, 1], [block, 1, 1], backend);
                    let what = format!("{kernel} {backend:?} {grid}x{block} k={k} t={threads}");
                    launch(&dev, &m, kernel, &c, &[arg(&out), KernelArg::U32(k)], &what);
                    let want = (0..k).fold(0u32, |s, i| s.wrapping_add(i));
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    assert!(got.iter().all(|&v| v == want), "{what}: {got:?}");
                }
            }
        }
    }
}

/// The reference of `tests/ptx/bar_ring.ptx` for one CTA of `n` threads.
fn ring_reference(n: usize, k: u32) -> Vec<u32> {
    let alive = |t: usize| t % 5 != 4;
    let mut s: Vec<u32> = (0..n as u32).collect();
    let mut acc: Vec<u32> = (0..n as u32).collect();
    for i in 0..k {
        for t in (0..n).filter(|&t| alive(t)) {
            s[t] = acc[t];
        }
        for t in (0..n).filter(|&t| alive(t)) {
            let v = s[(t + 1) % n];
            acc[t] = acc[t].wrapping_mul(3).wrapping_add(v).wrapping_add(i);
        }
    }
    // Exited threads store nothing: their output keeps its fill value.
    (0..n)
        .map(|t| if alive(t) { acc[t] } else { 0x5EE5 })
        .collect()
}

/// Shared-memory exchange between two barriers per round, after some lanes exited.
#[test]
fn bar_ring_both_backends() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_ring.ptx", backend);
            for (grid, block) in [(3u32, 256u32), (2, 45), (5, 64)] {
                for k in [0u32, 1, 9] {
                    let n = (grid * block) as usize;
                    let out = dev.alloc_from(&vec![0x5EE5u32; n]).unwrap();
                    let c = cfg([grid, 1, 1], [block, 1, 1], backend);
                    let what = format!("bar_ring {backend:?} {grid}x{block} k={k} t={threads}");
                    launch(
                        &dev,
                        &m,
                        "bar_ring",
                        &c,
                        &[arg(&out), KernelArg::U32(k)],
                        &what,
                    );
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    let want: Vec<u32> = (0..grid)
                        .flat_map(|_| ring_reference(block as usize, k))
                        .collect();
                    assert_eq!(got, want, "{what}");
                }
            }
        }
    }
}

/// The fill value of outputs no thread writes.
const FILL: u32 = 0x5EE5;

/// The reference of `tests/ptx/bar_multi.ptx`'s `bar_multi` for one CTA of `n` threads
/// of which those below `lim` (at most `n`) stay.
fn multi_reference(n: usize, lim: usize, k: u32) -> Vec<u32> {
    let mut acc: Vec<u32> = (0..n as u32).collect();
    let mut s = vec![0u32; n];
    for i in 0..k {
        // Barrier 1 orders the stores before the loads, barrier 2 the loads before the
        // next round's stores.
        s[..lim].copy_from_slice(&acc[..lim]);
        for t in 0..lim {
            let v = s[(t + 1) % lim];
            acc[t] = acc[t].wrapping_mul(3).wrapping_add(v).wrapping_add(i);
        }
    }
    (0..n)
        .map(|t| if t < lim { acc[t] } else { FILL })
        .collect()
}

/// Barriers 0, 1 and 2, with whole warps (and the lanes of a partial one) exiting after
/// barrier 0, partial CTAs, 1 and 2 workers, in order and under random warp orders.
#[test]
fn bar_multi_ids_and_exited_warps() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_multi.ptx", backend);
            for (grid, block, lim) in [
                (3u32, 256u32, 256u32),
                (2, 256, 70),
                (2, 160, 33),
                (4, 96, 1),
                (2, 45, 45),
                (1, 64, 0),
            ] {
                for (k, schedule) in [
                    (0u32, Schedule::InOrder),
                    (1, Schedule::InOrder),
                    (6, Schedule::InOrder),
                    (6, Schedule::Random(3)),
                ] {
                    let n = (grid * block) as usize;
                    let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                    let c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(schedule);
                    let what = format!(
                        "bar_multi {backend:?} {grid}x{block} lim={lim} k={k} {schedule:?} t={threads}"
                    );
                    let args = [arg(&out), KernelArg::U32(k), KernelArg::U32(lim)];
                    launch(&dev, &m, "bar_multi", &c, &args, &what);
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    let want: Vec<u32> = (0..grid)
                        .flat_map(|_| multi_reference(block as usize, lim as usize, k))
                        .collect();
                    assert_eq!(got, want, "{what}");
                }
            }
        }
    }
}

/// `bar.sync 0, 64`: CTAs of 64 and 128 threads pass it (each thread then stores its
/// `%tid.x` at its index) (the 128 in two generations of
/// two warps); a CTA of 32 threads can never complete it, and both backends report the
/// same deadlock.
#[test]
fn bar_count_generations_and_deadlock() {
    let dev = device_threads(2);
    let mut errors = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, "tests/ptx/bar_multi.ptx", backend);
        for block in [64u32, 128] {
            // Every CTA stores %tid.x to out[%tid.x].
            let n = block as usize;
            let out = dev.alloc_from(&vec![FILL; n]).unwrap();
            let c = cfg([3, 1, 1], [block, 1, 1], backend);
            let what = format!("bar_count {backend:?} 3x{block}");
            launch(&dev, &m, "bar_count", &c, &[arg(&out)], &what);
            let got: Vec<u32> = dev.read(&out).unwrap();
            let want: Vec<u32> = (0..block).collect();
            assert_eq!(got, want, "{what}");
        }
        let out = dev.alloc_from(&[FILL; 32]).unwrap();
        let c = cfg([1, 1, 1], [32, 1, 1], backend);
        match dev.launch(&m, "bar_count", &c, &[arg(&out)]) {
            Err(ptxjit::Error::Deadlock(msg)) => {
                assert!(msg.contains("barrier 0 has 32 of 64 threads"), "{msg}");
                errors.push(msg);
            }
            r => panic!("bar_count {backend:?} 1x32: {r:?}"),
        }
    }
    assert_eq!(errors[0], errors[1]);
}

/// The reference of `tests/ptx/bar_cont_ops.ptx`'s `bar_red_loop` for one CTA of `n`
/// threads of which those below `lim` stay: every staying thread gets the same value.
fn red_reference(n: usize, lim: usize, k: u32) -> Vec<u32> {
    let live = lim.min(n);
    let mut acc = 0u32;
    for i in 0..k {
        let yes = (0..live)
            .filter(|&t| (t as u32 + i).is_multiple_of(3))
            .count() as u32;
        let all = if yes == live as u32 { 1000 } else { 0 };
        let any_false = if yes != live as u32 { 100_000 } else { 0 };
        acc = acc
            .wrapping_mul(7)
            .wrapping_add(yes)
            .wrapping_add(all)
            .wrapping_add(any_false)
            .wrapping_add(i);
    }
    (0..n).map(|t| if t < live { acc } else { FILL }).collect()
}

/// `bar.red.popc` on a barrier id held in a register, `bar.red.and/or` on ids 1 and 2,
/// with exited lanes and whole warps, in order and under a random warp order.
#[test]
fn bar_red_with_register_ids() {
    let dev = device_threads(2);
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, "tests/ptx/bar_cont_ops.ptx", backend);
        for (grid, block, lim, id) in [
            (3u32, 256u32, 256u32, 0u32),
            (2, 96, 70, 5),
            (2, 128, 20, 15),
            (1, 40, 40, 3),
        ] {
            for (k, schedule) in [
                (0u32, Schedule::InOrder),
                (7, Schedule::InOrder),
                (7, Schedule::Random(11)),
            ] {
                let n = (grid * block) as usize;
                let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                let c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(schedule);
                let what = format!(
                    "bar_red_loop {backend:?} {grid}x{block} lim={lim} id={id} k={k} {schedule:?}"
                );
                let args = [
                    arg(&out),
                    KernelArg::U32(k),
                    KernelArg::U32(lim),
                    KernelArg::U32(id),
                ];
                launch(&dev, &m, "bar_red_loop", &c, &args, &what);
                let got: Vec<u32> = dev.read(&out).unwrap();
                let want: Vec<u32> = (0..grid)
                    .flat_map(|_| red_reference(block as usize, lim as usize, k))
                    .collect();
                assert_eq!(got, want, "{what}");
            }
        }
    }
}

/// `bar.sync id, count` with both operands in registers: valid operands pass, a barrier
/// id over 15 and a count that is not a multiple of 32 stop the launch with the same
/// error on both backends.
#[test]
fn bar_sync_register_operands() {
    let dev = Device::new().expect("device");
    let mut errors = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module_at(&dev, "tests/ptx/bar_cont_ops.ptx", backend);
        for (id, count) in [(0u32, 64u32), (7, 64), (15, 64)] {
            let out = dev.alloc_from(&[FILL; 64]).unwrap();
            let c = cfg([2, 1, 1], [64, 1, 1], backend);
            let what = format!("bar_sync_regs {backend:?} id={id} count={count}");
            launch(
                &dev,
                &m,
                "bar_sync_regs",
                &c,
                &[arg(&out), KernelArg::U32(id), KernelArg::U32(count)],
                &what,
            );
            let got: Vec<u32> = dev.read(&out).unwrap();
            assert_eq!(got, (0..64).collect::<Vec<u32>>(), "{what}");
        }
        let mut errs = Vec::new();
        for (id, count, msg) in [
            (16u32, 64u32, "barrier id 16 is out of range 0..15"),
            (
                1,
                48,
                "barrier thread count 48 is not a positive multiple of 32",
            ),
            (
                1,
                0,
                "barrier thread count 0 is not a positive multiple of 32",
            ),
        ] {
            let out = dev.alloc_from(&[FILL; 64]).unwrap();
            let c = cfg([1, 1, 1], [64, 1, 1], backend);
            let args = [arg(&out), KernelArg::U32(id), KernelArg::U32(count)];
            match dev.launch(&m, "bar_sync_regs", &c, &args) {
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains(msg), "{backend:?} id={id} count={count}: {e}");
                    errs.push(e);
                }
                Ok(_) => panic!("bar_sync_regs {backend:?} id={id} count={count} ran"),
            }
        }
        errors.push(errs);
    }
    assert_eq!(errors[0], errors[1]);
}

/// The reference of `tests/ptx/bar_live.ptx` for thread `t` of CTA `c`: s + (c + 5) + t,
/// s the sum over i < k of i + r8, where r8 (7 at first) becomes c * 1000 + i on odd i,
/// in wrapping u32 arithmetic as the kernel's additions.
fn live_reference(c: u32, t: u32, k: u32) -> u32 {
    let mut r8 = 7u32;
    let mut s = 0u32;
    for i in 0..k {
        if i % 2 == 1 {
            r8 = c.wrapping_mul(1000).wrapping_add(i);
        }
        s = s.wrapping_add(i).wrapping_add(r8);
    }
    s.wrapping_add(c + 5).wrapping_add(t)
}

/// Registers live across several continuation barriers (saved once and read barriers
/// later, written under a guard between barriers, read only after the last one):
/// the JIT saves and restores only the live ones (`ir::analysis::liveness`); both
/// backends against the Rust reference, full and partial warps, 1 and 2 workers, in
/// order and under a random warp order.
#[test]
fn bar_live_registers_across_barriers() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_live.ptx", backend);
            for (grid, block) in [(3u32, 256u32), (2, 40), (1, 32), (4, 96)] {
                for (k, schedule) in [
                    (0u32, Schedule::InOrder),
                    (1, Schedule::InOrder),
                    (2, Schedule::InOrder),
                    (7, Schedule::InOrder),
                    (7, Schedule::Random(5)),
                ] {
                    let c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(schedule);
                    let what = format!(
                        "bar_live {backend:?} {grid}x{block} k={k} {schedule:?} t={threads}"
                    );
                    check_bar_live(&dev, &m, &c, [grid, block], k, &what);
                }
            }
        }
    }
}

/// One `bar_live` launch of a 1-D `[grid, block]` configuration `c` with argument `k`,
/// against `live_reference` for every thread.
fn check_bar_live(
    dev: &Device,
    m: &ptxjit::Module,
    c: &LaunchConfig,
    [grid, block]: [u32; 2],
    k: u32,
    what: &str,
) {
    let out = dev
        .alloc_from(&vec![FILL; (grid * block) as usize])
        .unwrap();
    launch(dev, m, "bar_live", c, &[arg(&out), KernelArg::U32(k)], what);
    let got: Vec<u32> = dev.read(&out).unwrap();
    let want: Vec<u32> = (0..grid)
        .flat_map(|c| (0..block).map(move |t| live_reference(c, t, k)))
        .collect();
    assert_eq!(got, want, "{what}");
}

/// Scheduling units of several CTAs (clusters of 2 and 4, a cooperative grid of 3):
/// the continuation loop chains each CTA's warps only within the CTA (`chain_next`) and
/// counts each CTA's lanes apart; both backends against the Rust reference, partial
/// warps, 1 and 2 workers, in order and under a random warp order.
#[test]
fn bar_live_units_of_several_ctas() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_live.ptx", backend);
            for (grid, block, cluster, coop) in [
                (4u32, 256u32, 2u32, false),
                (4, 96, 4, false),
                (2, 40, 2, false),
                (3, 72, 1, true),
            ] {
                for (k, schedule) in [
                    (0u32, Schedule::InOrder),
                    (2, Schedule::InOrder),
                    (7, Schedule::InOrder),
                    (7, Schedule::Random(9)),
                ] {
                    let mut c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(schedule);
                    c = match coop {
                        true => c.cooperative(true),
                        false => c.cluster([cluster, 1, 1]),
                    };
                    let what = format!(
                        "bar_live {backend:?} {grid}x{block} cluster={cluster} coop={coop} \
                         k={k} {schedule:?} t={threads}"
                    );
                    check_bar_live(&dev, &m, &c, [grid, block], k, &what);
                }
            }
        }
    }
}

/// The reference of `tests/ptx/bar_chain.ptx`'s `bar_ticket` for one CTA of `n` threads
/// in the in-order schedule: every round runs the CTA's warps in order and each warp's
/// lanes in ascending order, so the tickets go in `%tid.x` order, round after round;
/// threads at or above `lim` exit in round `e`, before taking its ticket.
fn ticket_reference(n: usize, k: u32, lim: usize, e: u32) -> Vec<u32> {
    let mut out = vec![FILL; n * k as usize];
    let mut next = 0u32;
    for i in 0..k {
        for t in 0..n {
            if i < e || t < lim {
                out[i as usize * n + t] = next;
                next += 1;
            }
        }
    }
    out
}

/// Warps chained in one call (`runtime::launch::cont`'s in-order fast path): the
/// tickets each thread draws between barriers give the order the warps ran in, which
/// must be the CTA loop's round order (the Rust reference) on both backends, with
/// lanes and whole warps exiting in a given round, partial warps, one-warp CTAs, 1 and
/// 2 workers; under a random warp order the JIT must draw the interpreter's tickets.
#[test]
fn bar_chain_runs_warps_in_round_order() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        let mut random = Vec::new();
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_chain.ptx", backend);
            let mut drawn = Vec::new();
            // bar_ticket_ids changes barrier every other round: the first warp of a
            // round that wrapped in the call meets another barrier than the chain's.
            for kernel in ["bar_ticket", "bar_ticket_ids"] {
                for (grid, block, lim, e) in [
                    (3u32, 256u32, 256u32, 0u32),
                    (2, 256, 70, 2),
                    (2, 160, 33, 0),
                    (4, 96, 0, 3),
                    (2, 45, 45, 0),
                    (3, 200, 64, 1),
                    (2, 32, 5, 1),
                ] {
                    for schedule in [Schedule::InOrder, Schedule::Random(11)] {
                        let k = 5u32;
                        let n = (grid * block * k) as usize;
                        let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                        let ctr = zeroed(&dev, 4 * grid as usize);
                        let c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(schedule);
                        let what = format!(
                            "{kernel} {backend:?} {grid}x{block} lim={lim} e={e} {schedule:?} t={threads}"
                        );
                        let args = [
                            arg(&out),
                            arg(&ctr),
                            KernelArg::U32(k),
                            KernelArg::U32(lim),
                            KernelArg::U32(e),
                        ];
                        launch(&dev, &m, kernel, &c, &args, &what);
                        let got: Vec<u32> = dev.read(&out).unwrap();
                        if schedule == Schedule::InOrder {
                            let one = ticket_reference(block as usize, k, lim as usize, e);
                            let want: Vec<u32> = (0..grid).flat_map(|_| one.clone()).collect();
                            assert_eq!(got, want, "{what}");
                        } else {
                            drawn.push((what, got));
                        }
                    }
                }
            }
            random.push(drawn);
        }
        for ((what, jit), (_, interp)) in random[0].iter().zip(&random[1]) {
            assert_eq!(jit, interp, "{what} against the interpreter");
        }
    }
}

/// Warps of one CTA waiting at different barriers (odd warps at 1, even ones at 0): a
/// chain that meets another barrier stops there, and both backends report the same
/// deadlock; a one-warp CTA passes.
#[test]
fn bar_chain_split_barriers_deadlock() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        let mut errors = Vec::new();
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_chain.ptx", backend);
            let out = dev.alloc_from(&[FILL; 32]).unwrap();
            let c = cfg([2, 1, 1], [32, 1, 1], backend);
            launch(&dev, &m, "bar_split", &c, &[arg(&out)], "bar_split 2x32");
            let got: Vec<u32> = dev.read(&out).unwrap();
            assert_eq!(got, (0..32).collect::<Vec<u32>>(), "bar_split {backend:?}");
            let out = dev.alloc_from(&[FILL; 256]).unwrap();
            let c = cfg([2, 1, 1], [256, 1, 1], backend);
            match dev.launch(&m, "bar_split", &c, &[arg(&out)]) {
                Err(ptxjit::Error::Deadlock(msg)) => errors.push(msg),
                r => panic!("bar_split {backend:?} 2x256 t={threads}: {r:?}"),
            }
        }
        assert_eq!(errors[0], errors[1], "t={threads}");
    }
}

/// A fault in a warp that runs chained to the warps before it (or first, or last, in
/// its CTA) after some barriers: both backends stop with the same error, which names
/// the faulting warp's lanes.
#[test]
fn bar_chain_fault_names_its_warp() {
    let dev = Device::new().expect("device");
    for (fw, fi) in [(3u32, 2u32), (0, 1), (7, 3), (5, 0)] {
        let mut errors = Vec::new();
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_chain.ptx", backend);
            let out = dev.alloc_from(&[FILL; 256]).unwrap();
            let c = cfg([1, 1, 1], [256, 1, 1], backend);
            let args = [
                arg(&out),
                KernelArg::U32(4),
                KernelArg::U32(fw),
                KernelArg::U32(fi),
            ];
            match dev.launch(&m, "bar_fault", &c, &args) {
                Err(e) => errors.push(e.to_string()),
                Ok(_) => panic!("bar_fault {backend:?} fw={fw} fi={fi} ran"),
            }
        }
        let thread = format!("thread ({},0,0)", fw * 32);
        assert!(errors[0].contains(&thread), "fw={fw}: {}", errors[0]);
        assert_eq!(errors[0], errors[1], "fw={fw} fi={fi}");
    }
}

/// A worker keeps its continuation loop's vectors from one CTA (and launch) to the next:
/// an in-order launch right after a random-schedule launch of the same shape on the same
/// thread (1 worker: the launching thread) must run its warps in order again
/// (`ticket_reference`'s order), not in the previous launch's drawn round.
#[test]
fn bar_chain_in_order_after_a_random_schedule() {
    let dev = device_threads(1);
    let m = module_at(&dev, "tests/ptx/bar_chain.ptx", Backend::Jit);
    let (grid, block, lim, e, k) = (2u32, 256u32, 70u32, 2u32, 5u32);
    for schedule in [Schedule::Random(11), Schedule::InOrder, Schedule::Random(3)] {
        let n = (grid * block * k) as usize;
        let out = dev.alloc_from(&vec![FILL; n]).unwrap();
        let ctr = zeroed(&dev, 4 * grid as usize);
        let c = cfg([grid, 1, 1], [block, 1, 1], Backend::Jit).schedule(schedule);
        let what = format!("bar_ticket {grid}x{block} {schedule:?} after another schedule");
        let args = [
            arg(&out),
            arg(&ctr),
            KernelArg::U32(k),
            KernelArg::U32(lim),
            KernelArg::U32(e),
        ];
        launch(&dev, &m, "bar_ticket", &c, &args, &what);
        if schedule == Schedule::InOrder {
            let got: Vec<u32> = dev.read(&out).unwrap();
            let one = ticket_reference(block as usize, k, lim as usize, e);
            let want: Vec<u32> = (0..grid).flat_map(|_| one.clone()).collect();
            assert_eq!(got, want, "{what}");
        }
    }
}

/// The reference of `tests/ptx/bar_hop.ptx` for CTA `c` of `n` threads (`k` rounds,
/// `32 * e` more threads exit each round).
fn hop_reference(c: u32, n: u32, k: u32, e: u32) -> Vec<u32> {
    let mut acc: Vec<u32> = (0..n).map(|t| (c * n + t).wrapping_mul(7)).collect();
    let mut out = vec![FILL; n as usize];
    // Threads `t < there` reach the top of the loop.
    let mut there = n as usize;
    for i in 0..k {
        out[..there].copy_from_slice(&acc[..there]);
        let lim = n as i64 - 32 * i64::from(e) * i64::from(i);
        there = lim.clamp(0, there as i64) as usize;
        if there == 0 {
            return out;
        }
        let sh = acc.clone();
        for t in (1..there).step_by(2) {
            acc[t] = acc[t].wrapping_add(sh[t - 1]);
        }
        for t in 0..there {
            let v = sh[(t + 1) % there];
            acc[t] = acc[t].wrapping_mul(3).wrapping_add(v).wrapping_add(i);
        }
    }
    out[..there].copy_from_slice(&acc[..there]);
    out
}

/// A loop of two barriers, an if-then between them, registers live across both and
/// whole warps and the lanes of partial ones exiting between rounds: after each
/// barrier the JIT's code reads the registers from their restore block and the warp
/// context from its slot (`control::cont::cont_refresh`), warps chained in order
/// start (first round) or resume; both backends against the Rust reference, in order
/// and under random warp orders, 1 and 2 workers.
#[test]
fn bar_hop_chained_warps_through_a_barrier_loop() {
    for threads in [1, 2] {
        let dev = device_threads(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "tests/ptx/bar_hop.ptx", backend);
            for (grid, block) in [(3u32, 256u32), (2, 40), (1, 32), (4, 96)] {
                for (k, e, schedule) in [
                    (0u32, 0u32, Schedule::InOrder),
                    (1, 0, Schedule::InOrder),
                    (6, 0, Schedule::InOrder),
                    (6, 1, Schedule::InOrder),
                    (9, 2, Schedule::InOrder),
                    (6, 1, Schedule::Random(7)),
                    (9, 0, Schedule::Random(2)),
                ] {
                    let c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(schedule);
                    let what = format!(
                        "bar_hop {backend:?} {grid}x{block} k={k} e={e} {schedule:?} t={threads}"
                    );
                    let n = (grid * block) as usize;
                    let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                    let args = [arg(&out), KernelArg::U32(k), KernelArg::U32(e)];
                    launch(&dev, &m, "bar_hop", &c, &args, &what);
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    let want: Vec<u32> = (0..grid)
                        .flat_map(|c| hop_reference(c, block, k, e))
                        .collect();
                    assert_eq!(got, want, "{what}");
                }
            }
        }
    }
}
