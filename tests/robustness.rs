//! Malformed input never panics: truncations and byte mutations of every committed PTX
//! file go through parse + check (errors must be located) and, when they check, through
//! JIT compilation (which must succeed or return an error). A deterministic stand-in for
//! the `fuzz/` targets that runs in every `cargo test`.

use ptxjit::Device;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        "tests/kernels",
        "tests/ptx",
        "examples",
        "tests/frontend_ptx",
    ] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<_> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        files.sort();
        for f in files {
            out.push((
                f.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
    }
    out
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Pieces of PTX syntax that mutations splice in, to reach deeper than random bytes.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ".reg",
    ".b32",
    "%r1",
    "@%p1",
    "!",
    "|",
    "_",
    "0f7fc00000",
    "0d",
    "0x",
    "-",
    "+",
    "bra",
    "$L__BB0_1",
    ":",
    ".shared",
    ".local",
    ".param",
    "ld.global.v4.f32",
    "st.shared.u32",
    "bar.sync",
    "exit",
    "ret",
    "setp.lt.and.s32",
    "cvt.rzi.s32.f32",
    "%tid.x",
    "\"",
    "/*",
    "//",
    "\n",
    "99999999999999999999",
];

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut b = src.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(4) {
            0 => b.truncate(at),
            1 => {
                if at < b.len() {
                    b[at] = rng.next() as u8;
                }
            }
            2 => {
                let end = (at + rng.below(40)).min(b.len());
                b.drain(at..end);
            }
            _ => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                b.splice(at..at, t.iter().copied());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutated_ptx_never_panics() {
    let dev = Device::new().unwrap();
    let mut rng = Rng(0x5eed_1234_abcd_9876);
    let (mut checked, mut compiled) = (0, 0);
    for (name, src) in corpus() {
        let mut inputs: Vec<String> = (0..src.len())
            .step_by(src.len() / 25 + 1)
            .map(|n| src[..src.floor_char_boundary(n)].to_string())
            .collect();
        inputs.extend((0..60).map(|_| mutate(&src, &mut rng)));
        for input in inputs {
            let r = catch_unwind(AssertUnwindSafe(|| {
                ptxjit::check::parse_and_check(&input, &name)
            }));
            match r {
                Err(_) => panic!("parse/check panicked on a mutation of {name}:\n{input}"),
                Ok(Err(e)) => {
                    assert!(
                        e.line >= 1 && e.col >= 1 && e.to_string().starts_with(&format!("{name}:")),
                        "unlocated: {e}"
                    );
                }
                Ok(Ok(_)) => {
                    checked += 1;
                    let r = catch_unwind(AssertUnwindSafe(|| dev.load_ptx(&input, &name).is_ok()));
                    match r {
                        Err(_) => panic!(
                            "loading (JIT compile) panicked on a mutation of {name}:\n{input}"
                        ),
                        Ok(ok) => compiled += ok as usize,
                    }
                }
            }
        }
    }
    assert!(
        checked > 50 && compiled > 50,
        "too few mutations survived checking: {checked} checked, {compiled} compiled"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let mut src =
        String::from(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n");
    src.push_str(&"{".repeat(100_000));
    src.push_str(&"}".repeat(100_000));
    let r = ptxjit::check::parse_and_check(&src, "deep.ptx");
    assert!(
        r.is_err(),
        "100,000 nested scopes should be refused with an error"
    );
    let src = format!(
        ".version 7.0\n.target sm_70\n.global .u32 g[1] = {}1{};\n",
        "{".repeat(100_000),
        "}".repeat(100_000)
    );
    assert!(ptxjit::check::parse_and_check(&src, "deep.ptx").is_err());
}
