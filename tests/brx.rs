//! `brx.idx` (tests/kernels/brx_cases.ptx): uniform and per-lane indices, guards, a
//! `brx.idx` reached under divergence, out-of-range indices as located faults, and the
//! load-time errors for `.branchtargets` lists and indirect `bra`.
#[macro_use]
mod common;
use common::*;
use ptxjit::check::parse_and_check;

const FILE: &str = "brx_cases.ptx";

#[allow(clippy::result_large_err)]
/// Runs `brx_case` on one block of `n` threads; returns `out` or the launch error.
fn run_case(
    backend: Backend,
    n: u32,
    mul: u32,
    add: u32,
    lim: u32,
) -> Result<Vec<u32>, ptxjit::Error> {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let out = zeroed(&dev, n as usize * 4);
    dev.launch(
        &m,
        "brx_case",
        &cfg([1, 1, 1], [n, 1, 1], backend),
        &[
            arg(&out),
            KernelArg::from(mul),
            KernelArg::from(add),
            KernelArg::from(lim),
        ],
    )?;
    Ok(dev.read::<u32>(&out).unwrap())
}

/// The Rust reference of `brx_case` for in-range indices.
fn want_case(n: u32, mul: u32, add: u32, lim: u32) -> Vec<u32> {
    (0..n)
        .map(|t| {
            if t < lim {
                [10, 20, 30][(t * mul + add) as usize]
            } else {
                99
            }
        })
        .collect()
}

fn in_range(backend: Backend) {
    // (threads, mul, add, lim): uniform index over the whole warp (the jump-table path),
    // uniform with some lanes guarded off, per-lane indices, two warps.
    for (n, mul, add, lim) in [
        (32, 0, 1, 32),
        (32, 0, 0, 32),
        (32, 0, 2, 16),
        (32, 1, 0, 3),
        (3, 1, 0, 32),
        (64, 0, 2, 64),
        (40, 0, 1, 0),
        (7, 1, 0, 3),
    ] {
        let got = run_case(backend, n, mul, add, lim)
            .unwrap_or_else(|e| panic!("{n} {mul} {add} {lim}: {e}"));
        assert_slice_eq(
            &got,
            &want_case(n, mul, add, lim),
            &format!("brx_case n={n} mul={mul} add={add} lim={lim} {backend:?}"),
        );
    }
}

/// An index past the list is a fault naming the lowest active lane with a bad index.
fn out_of_range(backend: Backend) {
    let ptx = load(FILE);
    let line = line_of(&ptx, "brx_case", "brx.idx");
    // (threads, mul, add, lim, faulting thread, its index)
    for (n, mul, add, lim, thread, index) in [
        (32, 1, 0, 5, 3, 3),   // lanes 3 and 4 are bad: lane 3 is reported
        (32, 0, 7, 32, 0, 7),  // uniform bad index
        (64, 0, 3, 64, 0, 3),  // the first warp faults
        (64, 1, 0, 40, 3, 3),  // both warps have bad lanes
        (32, 1, 0, 3, 99, 99), // lanes 3.. are bad but guarded off: no fault
    ] {
        let what = format!("brx_case n={n} mul={mul} add={add} lim={lim} {backend:?}");
        match run_case(backend, n, mul, add, lim) {
            Ok(got) => {
                assert_eq!(thread, 99, "{what}: expected a fault");
                assert_slice_eq(&got, &want_case(n, mul, add, lim), &what);
            }
            Err(ptxjit::Error::Fault(f)) => {
                let msg = f.to_string();
                assert_eq!(f.kind, ptxjit::FaultKind::BadBranchIndex, "{what}: {msg}");
                assert_eq!(f.kernel, "brx_case", "{what}: {msg}");
                assert_eq!(f.inst, "brx.idx", "{what}: {msg}");
                assert_eq!(f.line, line, "{what}: {msg}");
                assert_eq!(f.thread, [thread, 0, 0], "{what}: {msg}");
                assert_eq!(f.addr, index as u64, "{what}: {msg}");
                assert_eq!(
                    msg,
                    format!(
                        "kernel 'brx_case' faulted at {FILE}:{line}:6 (`brx.idx`): branch index {index} is out of range for a target list of 3 labels in block (0,0,0), thread ({thread},0,0)"
                    )
                );
            }
            Err(e) => panic!("{what}: expected a fault, got {e}"),
        }
    }
}

fn divergent(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    for n in [32u32, 50, 96] {
        let out = zeroed(&dev, n as usize * 4);
        launch(
            &dev,
            &m,
            "brx_div",
            &cfg([1, 1, 1], [n, 1, 1], backend),
            &[arg(&out)],
            "brx_div",
        );
        let want: Vec<u32> = (0..n)
            .map(|t| (t & 1) * 1000 + ((t >> 1) & 3) + 1)
            .collect();
        assert_slice_eq(
            &dev.read::<u32>(&out).unwrap(),
            &want,
            &format!("brx_div {n} {backend:?}"),
        );
    }
}

/// A bad index in a `brx.idx` that runs while other lanes are pending (the JIT's
/// divergent variant) faults for that thread; the launch reports it, in any warp.
fn divergent_out_of_range(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let ptx = load(FILE);
    let line = line_of(&ptx, "brx_div_bad", "brx.idx");
    for bad in [4u32, 5, 31, 37] {
        let out = zeroed(&dev, 64 * 4);
        let r = dev.launch(
            &m,
            "brx_div_bad",
            &cfg([1, 1, 1], [64, 1, 1], backend),
            &[arg(&out), KernelArg::from(bad)],
        );
        let what = format!("brx_div_bad bad={bad} {backend:?}");
        match r {
            Err(ptxjit::Error::Fault(f)) => {
                assert_eq!(f.kind, ptxjit::FaultKind::BadBranchIndex, "{what}: {f}");
                assert_eq!(f.thread, [bad, 0, 0], "{what}: {f}");
                assert_eq!(f.addr, 9, "{what}: {f}");
                assert_eq!(f.line, line, "{what}: {f}");
            }
            Err(e) => panic!("{what}: expected a fault, got {e}"),
            Ok(()) => panic!("{what}: expected a fault"),
        }
    }
}

both_backends!(in_range, out_of_range, divergent, divergent_out_of_range);

// ----- load-time errors -----------------------------------------------------------------

const HEAD: &str = ".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<8>;
";

fn body_err(body: &str) -> String {
    let src = format!("{HEAD}{body}\n\tret;\n}}\n");
    match parse_and_check(&src, "e.ptx") {
        Ok(_) => panic!("no error for:\n{src}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn branchtargets_must_be_declared_before_use() {
    assert_eq!(
        body_err("\tbrx.idx %r1, ts;\nL0:\n\tts: .branchtargets L0;"),
        "e.ptx:8:15: error: 'ts' is not a .branchtargets list declared before this 'brx.idx'"
    );
}

#[test]
fn brx_errors() {
    assert_eq!(
        body_err("\tbrx.idx %r1, nowhere;"),
        "e.ptx:8:15: error: unknown label 'nowhere'"
    );
    assert_eq!(
        body_err("L0:\n\tbrx.idx %r1, L0;"),
        "e.ptx:9:15: error: 'L0' is not a .branchtargets label"
    );
    assert_eq!(
        body_err("L0:\n\tts: .branchtargets L0, L1;\n\tbrx.idx %r1, ts;"),
        "e.ptx:9:25: error: unknown label 'L1'"
    );
    assert_eq!(
        body_err("L0:\n\tts: .branchtargets L0;\n\tbrx.idx 1, ts;"),
        "e.ptx:10:10: error: index 1 is out of range for 'ts' (1 targets)"
    );
    assert_eq!(
        body_err("L0:\n\tts: .branchtargets L0;\n\tbrx.idx %r1;"),
        "e.ptx:10:2: error: instruction 'brx.idx' takes 2 operands (index, .branchtargets label), not 1"
    );
    assert_eq!(
        body_err("L0:\n\tts: .branchtargets L0;\n\tbrx %r1, ts;"),
        "e.ptx:10:2: error: instruction 'brx' is not supported yet"
    );
    // A list in another function is not visible.
    let src = format!(
        "{HEAD}L0:\n\tts: .branchtargets L0;\n\tret;\n}}\n.visible .entry k2()\n{{\n\t.reg .b32 %r<2>;\n\tbrx.idx %r1, ts;\n\tret;\n}}\n"
    );
    let e = parse_and_check(&src, "e.ptx").unwrap_err().to_string();
    assert_eq!(e, "e.ptx:15:15: error: unknown label 'ts'");
}

#[test]
fn indirect_bra_is_rejected() {
    assert_eq!(
        body_err("\tbra %r1;"),
        "e.ptx:8:6: error: indirect bra through a register is not supported; use brx.idx"
    );
}

#[test]
fn brx_accepts_a_list_in_an_enclosing_scope_and_uni() {
    let src = format!(
        "{HEAD}\tts: .branchtargets L0, L1;\n\t{{\n\tbrx.idx.uni %r1, ts;\n\t}}\nL0:\n\tbra L1;\nL1:\n\tret;\n}}\n"
    );
    parse_and_check(&src, "e.ptx").unwrap();
}
