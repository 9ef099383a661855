//! Lexical and operand forms of PTX that real generators write (issue 15), each loaded
//! and run on both backends:
//!
//! - comments with Latin-1 (non-UTF-8) bytes: `decode_source` reads non-UTF-8 input as
//!   Latin-1, and comments are skipped (ptxas 12.9 rejects any non-ASCII byte, even in a
//!   comment: ptxjit is deliberately more lenient there; outside comments a non-ASCII
//!   character is still a located error);
//! - NUL bytes ending the text (a C string written with its terminator), which ptxas
//!   accepts; a NUL elsewhere is a located error;
//! - Triton's one-element vector operands `{ %r1 }` and the `[a].unified` address suffix;
//! - the byte and half-word selectors of the video instructions (`r.b0`, `r.h10`,
//!   `r.b3210`), at the syntax level.
//!
//! tests/frontend_ptx/lexical.ptx and video_selectors.ptx pass ptxas (sm_70). The kernel
//! add2 adds in[0] and in[1] into out[0]: 5 + 37 = 42.
#[macro_use]
mod common;
use common::*;
use ptxjit::parse::{ast, decode_source, parse};

const LEXICAL: &str = include_str!("frontend_ptx/lexical.ptx");
const VIDEO: &str = include_str!("frontend_ptx/video_selectors.ptx");

/// Loads `bytes` as a file would be read (decode_source), runs add2 on [5, 37], and
/// returns out[0].
fn run_add2(bytes: &[u8], backend: Backend) -> u32 {
    let dev = device();
    let src = decode_source(bytes);
    let m = match backend {
        Backend::Jit => dev.load_ptx(&src, "lexical.ptx"),
        Backend::Interp => dev.load_ptx_with(&src, "lexical.ptx", false),
    }
    .unwrap_or_else(|e| panic!("load for {backend:?}: {e}"));
    let input = dev.alloc_from(&[5u32, 37]).expect("alloc");
    let out = zeroed(&dev, 4);
    launch(
        &dev,
        &m,
        "add2",
        &cfg([1, 1, 1], [1, 1, 1], backend),
        &[arg(&input), arg(&out)],
        "add2",
    );
    dev.read::<u32>(&out).expect("read")[0]
}

/// The file with Latin-1 bytes (é = 0xE9, © = 0xA9, ï = 0xEF, ÿ = 0xFF) in line and
/// block comments.
fn latin1_file() -> Vec<u8> {
    let mut b = b"// caf\xe9 na\xefve \xa9 2024\n".to_vec();
    let (head, tail) = LEXICAL.split_once("\tret;").expect("ret");
    b.extend_from_slice(head.as_bytes());
    b.extend_from_slice(b"\tret; /* \xff */");
    b.extend_from_slice(tail.as_bytes());
    b
}

fn plain(backend: Backend) {
    assert_eq!(run_add2(LEXICAL.as_bytes(), backend), 42);
}

fn latin1_comments(backend: Backend) {
    let bytes = latin1_file();
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the file is not UTF-8"
    );
    assert_eq!(run_add2(&bytes, backend), 42);
}

fn trailing_nuls(backend: Backend) {
    let mut bytes = LEXICAL.as_bytes().to_vec();
    bytes.extend_from_slice(b"\0\0\0\0");
    assert_eq!(run_add2(&bytes, backend), 42);
    // A C string without the final newline, and Latin-1 comments with a terminator.
    let mut b2 = LEXICAL.trim_end().as_bytes().to_vec();
    b2.push(0);
    assert_eq!(run_add2(&b2, backend), 42);
    let mut b3 = latin1_file();
    b3.extend_from_slice(b"\n\0");
    assert_eq!(run_add2(&b3, backend), 42);
}

both_backends!(plain, latin1_comments, trailing_nuls);

/// Line and column (1-based) of `needle` in `src`, counted in characters.
fn pos_of(src: &str, needle: &str) -> (u32, u32) {
    for (i, l) in src.lines().enumerate() {
        if let Some(b) = l.find(needle) {
            return (i as u32 + 1, l[..b].chars().count() as u32 + 1);
        }
    }
    panic!("{needle} not found")
}

#[test]
fn non_ascii_outside_a_comment_is_a_located_error() {
    // `add2é`: 0xE9 right after the kernel name, in Latin-1.
    let mut bytes = LEXICAL.replace("add2(", "add2#(").into_bytes();
    let at = bytes.iter().position(|&b| b == b'#').expect("marker");
    bytes[at] = 0xE9;
    let src = decode_source(&bytes);
    let e = parse(&src, "k.ptx").expect_err("é is not PTX");
    // `.visible .entry add2é(`: é is character 21 of line 9 (hand count:
    // ".visible" 1-8, space 9, ".entry" 10-15, space 16, "add2" 17-20).
    assert_eq!((e.line, e.col), (9, 21), "{e}");
    assert_eq!(pos_of(&src, "\u{e9}"), (9, 21));
    assert!(e.msg.contains('\u{e9}'), "{e}");
}

#[test]
fn nul_before_the_end_is_a_located_error() {
    let src = LEXICAL.replace("\tret;\n", "\tret;\0\n");
    let e = parse(&src, "k.ptx").expect_err("a NUL inside the text");
    // "\tret;" is on line 21: tab col 1, "ret" 2-4, ';' 5, the NUL col 6.
    assert_eq!((e.line, e.col), (21, 6), "{e}");
    assert_eq!(pos_of(&src, "\0"), (21, 6));
}

fn instrs(m: &ast::Module) -> Vec<&ast::Instruction> {
    let mut out = Vec::new();
    for item in &m.items {
        if let ast::Item::Func(f) = item {
            if let Some(b) = &f.body {
                for s in &b.stmts {
                    if let ast::Stmt::Inst(i) = s {
                        out.push(i);
                    }
                }
            }
        }
    }
    out
}

fn sym(op: &ast::Operand) -> (String, Option<String>) {
    match op {
        ast::Operand::Value(ast::Expr {
            kind: ast::ExprKind::Sym { name, comp },
            ..
        }) => (name.clone(), comp.clone()),
        other => panic!("not a register operand: {other:?}"),
    }
}

#[test]
fn one_element_braces_are_the_scalar_operand() {
    let m = parse(LEXICAL, "lexical.ptx").expect("parses");
    let ins = instrs(&m);
    let ld = ins
        .iter()
        .find(|i| i.opcode.name == "ld" && i.mods.iter().any(|m| m.name == "global"))
        .expect("ld.global");
    assert_eq!(sym(&ld.operands[0]), ("%r1".to_string(), None));
    let st = ins.iter().find(|i| i.opcode.name == "st").expect("st");
    assert_eq!(sym(&st.operands[1]), ("%r3".to_string(), None));
    // `[%rd1+4].unified`: the address operand, the suffix consumed.
    let ld2 = ins
        .iter()
        .find(|i| i.opcode.name == "ld" && i.mods.len() == 1)
        .expect("ld.b32");
    assert!(matches!(ld2.operands[1], ast::Operand::Bracket(..)));
    assert_eq!(ld2.operands.len(), 2);
}

#[test]
fn video_selectors_parse_as_components() {
    let m = parse(VIDEO, "video_selectors.ptx").expect("parses");
    let ins = instrs(&m);
    let got: Vec<Vec<(String, Option<String>)>> = ins
        .iter()
        .filter(|i| i.opcode.name != "ret")
        .map(|i| i.operands.iter().map(sym).collect())
        .collect();
    let s = |n: &str, c: Option<&str>| (n.to_string(), c.map(str::to_string));
    assert_eq!(
        got,
        vec![
            vec![s("r1", None), s("r2", Some("b0")), s("r3", Some("h1"))],
            vec![
                s("r1", None),
                s("r2", Some("b3210")),
                s("r3", Some("b7654")),
                s("r4", None)
            ],
            vec![
                s("r1", None),
                s("r2", Some("h10")),
                s("r3", Some("h32")),
                s("r4", None)
            ],
        ]
    );
    // Not selectors: digits out of range or too many.
    for bad in ["r2.b8", "r2.h4", "r2.b01234", "r2.h012"] {
        let src = VIDEO.replace("r2.b0", bad);
        assert!(parse(&src, "v.ptx").is_err(), "{bad} parsed");
    }
}
