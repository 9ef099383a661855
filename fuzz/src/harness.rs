//! The property each fuzz target checks, as plain functions, so that the fuzz targets and
//! the replay test in the main crate (`tests/fuzz_replay.rs`) run the same checks. A
//! violated property panics with a description of what went wrong.

use super::gen::{self, Program};
use super::launch::LaunchInput;
use ptxjit::{Backend, Device, DeviceOptions, KernelArg, LaunchConfig};
use std::sync::OnceLock;
use std::time::Duration;

fn new_device() -> Device {
    Device::with_options(DeviceOptions {
        threads: 1,
        memory_bytes: 1 << 30,
        // PTXJIT_JIT_TIER picks the JIT tier (default: quick code at load, see `JitTier`).
        ..Default::default()
    })
    .expect("device")
}

/// The device of `compile` and `differential`, one for the whole process, with one worker
/// thread: CTAs run in order, so the first fault and the memory it leaves behind are
/// deterministic.
pub fn device() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(new_device)
}

/// The device of `launch`, whose wild stores may land anywhere in its address range: its
/// own, so that they cannot reach the buffers of other checks running at the same time
/// (the replay test runs its tests in parallel).
pub fn launch_device() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(new_device)
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
        assert!(
            !msg.contains("Verifier"),
            "Cranelift verifier failure: {msg}"
        );
    }
}

/// What a launch left: its error (if any) and the bytes of every buffer.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub error: Option<String>,
    pub buffers: Vec<Vec<u8>>,
}

/// The buffers of a generated program's launch: allocated once, so that both backends
/// see the same addresses (fault messages name them).
pub struct ProgramBuffers {
    input: ptxjit::Buffer,
    out: ptxjit::Buffer,
    atom: ptxjit::Buffer,
}

impl ProgramBuffers {
    pub fn new(p: &Program) -> ProgramBuffers {
        let dev = device();
        ProgramBuffers {
            input: dev.alloc_zeroed(gen::IN_BYTES).expect("alloc in"),
            out: dev.alloc_zeroed(p.out_bytes()).expect("alloc out"),
            atom: dev
                .alloc_zeroed((gen::ATOM_SLOTS * 8) as usize)
                .expect("alloc atom"),
        }
    }

    pub fn free(self) {
        for b in [self.input, self.out, self.atom] {
            device().free(b).expect("free");
        }
    }

    /// Fills the buffers with the program's inputs, runs it on `backend`, and returns
    /// what it left.
    pub fn run(&self, m: &ptxjit::Module, p: &Program, backend: Backend) -> Outcome {
        let dev = device();
        dev.write(&self.input, &gen::input_bytes(p.seed, gen::IN_BYTES))
            .expect("write in");
        dev.write(&self.out, &vec![0u8; p.out_bytes()])
            .expect("write out");
        dev.write(
            &self.atom,
            &gen::input_bytes(p.seed ^ 0xa70, (gen::ATOM_SLOTS * 8) as usize),
        )
        .expect("write atom");
        let cfg = LaunchConfig::new(p.grid, p.block)
            .backend(backend)
            .timeout(Some(Duration::from_secs(20)));
        let args = [
            KernelArg::from(&self.input),
            KernelArg::from(&self.out),
            KernelArg::from(&self.atom),
        ];
        let error = dev.launch(m, "k", &cfg, &args).err().map(|e| e.to_string());
        let buffers = vec![
            dev.read::<u8>(&self.out).expect("read out"),
            dev.read::<u8>(&self.atom).expect("read atom"),
        ];
        Outcome { error, buffers }
    }
}

/// `differential`: a generated, well-defined program leaves the same memory and the same
/// error (or none) on the interpreter and on the JIT.
pub fn differential(p: &Program) {
    let m = match device().load_ptx(&p.src, "gen.ptx") {
        Ok(m) => m,
        Err(e) => panic!("a generated program does not load: {e}\n{p:?}"),
    };
    let bufs = ProgramBuffers::new(p);
    let interp = bufs.run(&m, p, Backend::Interp);
    let jit = bufs.run(&m, p, Backend::Jit);
    bufs.free();
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
            let w = at & !7;
            panic!(
                "{}: byte {at} differs ({}): interpreter {:02x?}, JIT {:02x?}\n{p:?}",
                names[i],
                describe(p, i, at),
                &a[w..(w + 8).min(a.len())],
                &b[w..(w + 8).min(b.len())],
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
    let per = gen::ATOM_SLOTS as usize * 8;
    if at >= rows + per * p.grid as usize {
        return format!(
            "column areas (gen::col_offset), byte {}",
            at - rows - per * p.grid as usize
        );
    }
    if at >= rows {
        let o = at - rows;
        return format!("shared atomic slot {} of CTA {}", o % per / 8, o / per);
    }
    let (t, o) = (at / gen::OUT_ROW as usize, at % gen::OUT_ROW as usize);
    let field = gen::out_row_field(o);
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
    let outcomes = input.run(launch_device());
    if let [a, b] = &outcomes[..] {
        let timed_out = |o: &Outcome| o.error.as_ref().is_some_and(|e| e.contains("time limit"));
        if !timed_out(a) && !timed_out(b) && input.comparable() {
            assert_eq!(a, b, "interpreter (left) and JIT (right) differ\n{input:?}");
        }
    }
}
