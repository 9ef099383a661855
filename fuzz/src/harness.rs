//! The property each fuzz target checks, as plain functions, so that the fuzz targets and
//! the replay test in the main crate (`tests/fuzz_replay.rs`) run the same checks. A
//! violated property panics with a description of what went wrong.

use super::gen::{self, Program};
use super::launch::LaunchInput;
use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig};
use std::sync::OnceLock;
use std::time::Duration;

/// One device for the whole process, with one worker thread: CTAs run in order, so the
/// first fault and the memory it leaves behind are deterministic.
pub fn device() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(|| {
        Device::with_options(DeviceOptions {
            threads: 1,
            memory_bytes: 1 << 30,
        })
        .expect("device")
    })
}

/// `parse_check`: parse + check never panic; every error is located.
pub fn parse_check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    if let Err(e) = ptxjit::check::parse_and_check(&src, "fuzz.ptx") {
        assert!(e.line >= 1 && e.col >= 1, "unlocated error: {e}");
    }
}

/// `compile`: a module that checks compiles in the JIT or returns an error; never a
/// panic, never a Cranelift verifier failure.
pub fn compile(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    if ptxjit::check::parse_and_check(&src, "fuzz.ptx").is_err() {
        return;
    }
    if let Err(e) = device().load_ptx(&src, "fuzz.ptx") {
        let msg = e.to_string();
        assert!(!msg.contains("Verifier"), "Cranelift verifier failure: {msg}");
    }
}

/// What a launch left: its error (if any) and the bytes of every buffer.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub error: Option<String>,
    pub buffers: Vec<Vec<u8>>,
}

/// Runs a generated program on `backend` with fresh buffers.
pub fn run_program(m: &ptxjit::Module, p: &Program, backend: Backend) -> Outcome {
    let dev = device();
    let input = dev
        .alloc_from(&gen::input_bytes(p.seed, gen::IN_BYTES))
        .expect("alloc in");
    let out = dev.alloc_zeroed(p.out_bytes()).expect("alloc out");
    let atom = dev
        .alloc_from(&gen::input_bytes(
            p.seed ^ 0xa70,
            (gen::ATOM_SLOTS * 8) as usize,
        ))
        .expect("alloc atom");
    let cfg = LaunchConfig::new(p.grid, p.block)
        .backend(backend)
        .timeout(Some(Duration::from_secs(20)));
    let args = [
        KernelArg::from(&input),
        KernelArg::from(&out),
        KernelArg::from(&atom),
    ];
    let error = dev.launch(m, "k", &cfg, &args).err().map(|e| e.to_string());
    let buffers = vec![
        dev.read::<u8>(&out).expect("read out"),
        dev.read::<u8>(&atom).expect("read atom"),
    ];
    for b in [input, out, atom] {
        dev.free(b).expect("free");
    }
    Outcome { error, buffers }
}

/// `differential`: a generated, well-defined program leaves the same memory and the same
/// error (or none) on the interpreter and on the JIT.
pub fn differential(p: &Program) {
    let m = match device().load_ptx(&p.src, "gen.ptx") {
        Ok(m) => m,
        Err(e) => panic!("a generated program does not load: {e}\n{p:?}"),
    };
    let interp = run_program(&m, p, Backend::Interp);
    let jit = run_program(&m, p, Backend::Jit);
    for o in [&interp, &jit] {
        if let Some(e) = &o.error {
            assert!(
                !e.contains("time limit") && !e.contains("deadlock"),
                "a generated program must terminate: {e}\n{p:?}"
            );
        }
    }
    assert_eq!(
        interp.error, jit.error,
        "errors differ (left: interpreter, right: JIT)\n{p:?}"
    );
    let names = ["out", "atom"];
    for (i, (a, b)) in interp.buffers.iter().zip(&jit.buffers).enumerate() {
        if a != b {
            let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
            panic!(
                "{}: byte {at} differs ({}): interpreter {:02x?}, JIT {:02x?}\n{p:?}",
                names[i],
                describe(p, i, at),
                &a[at & !7..(at & !7) + 8.min(a.len() - (at & !7))],
                &b[at & !7..(at & !7) + 8.min(b.len() - (at & !7))],
            );
        }
    }
}

/// Which thread and field a byte of a generated program's output belongs to.
fn describe(p: &Program, buf: usize, at: usize) -> String {
    if buf == 1 {
        return format!("global atomic slot {}", at / 8);
    }
    let rows = (p.grid * p.block) as usize * gen::OUT_ROW as usize;
    if at >= rows {
        let o = at - rows;
        let per = gen::ATOM_SLOTS as usize * 8;
        return format!("shared atomic slot {} of CTA {}", o % per / 8, o / per);
    }
    let (t, o) = (at / gen::OUT_ROW as usize, at % gen::OUT_ROW as usize);
    let field = match o {
        0..=31 => format!("%r{}", o / 4),
        32..=79 => format!("%rd{}", (o - 32) / 8),
        80..=103 => format!("%f{}", (o - 80) / 4),
        104..=135 => format!("%fd{}", (o - 104) / 8),
        136..=151 => format!("%p{}", (o - 136) / 4),
        152..=155 => "path hash".into(),
        156..=159 => "marker".into(),
        _ => format!("scratch word {}", (o - 160) / 4),
    };
    format!(
        "thread {} of CTA {}, {field}",
        t % p.block as usize,
        t / p.block as usize
    )
}

/// `launch`: arbitrary launch configurations, arguments and buffer contents against the
/// committed kernels never panic, crash or hang the host; faults are returned errors.
/// When both backends run and neither hit the time limit, they must agree.
pub fn launch(input: &LaunchInput) {
    let dev = device();
    let outcomes: Vec<(Backend, Option<Outcome>)> = input
        .backends()
        .iter()
        .map(|&b| (b, input.run(dev, b)))
        .collect();
    if let [(_, Some(a)), (_, Some(b))] = &outcomes[..] {
        let timed_out = |o: &Outcome| o.error.as_ref().is_some_and(|e| e.contains("time limit"));
        if !timed_out(a) && !timed_out(b) && input.comparable() {
            assert_eq!(a, b, "interpreter (left) and JIT (right) differ\n{input:?}");
        }
    }
}
