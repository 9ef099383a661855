//! The layering of DESIGN.md ("Layout: one stage per folder, arrows only downwards"),
//! checked on the source text: every `crate::<stage>` reference (in `use` lines and in
//! paths; comments excluded) and every `super::` path that leaves its stage must name a
//! stage the file's stage may import, and the graph of folders (an edge from the folder
//! of a file to the folder of the file of each module it names) has no cycle through two
//! folders. A module naming its own child modules by relative path (`mod x; x::f()`)
//! is not an import here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Who may import whom: DESIGN.md's table. `ir/analysis` is a stage of its own that may
/// use `ops` (the rest of `ir` uses nothing).
const ALLOWED: &[(&str, &[&str])] = &[
    ("ir", &[]),
    ("ir/analysis", &["ir", "ops"]),
    ("parse", &["ir"]),
    ("ops", &["ir"]),
    ("check", &["parse", "ir", "ops"]),
    // Not in DESIGN.md's table yet: the PTX linker merges parsed modules, then checks them.
    ("link", &["parse", "check", "ir"]),
    ("exec", &["ir", "ops"]),
    ("interp", &["ir", "ops", "exec"]),
    ("jit", &["ir", "ops", "exec"]),
    (
        "runtime",
        &[
            "parse", "check", "link", "ir", "ops", "exec", "interp", "jit",
        ],
    ),
    // The harness for fuzzing users' kernels: the public API only (`runtime` and what
    // `lib.rs` re-exports, which are not stages here).
    ("fuzz", &["runtime"]),
    // Settings read from the environment: a leaf that every stage may use (see `scan`).
    ("config", &[]),
];

/// The crate's top-level modules that are stages (`lib.rs` and `bin/` are checked by
/// the compiler's privacy rules, not here).
const STAGES: &[&str] = &[
    "parse", "check", "link", "ir", "ops", "exec", "interp", "jit", "runtime", "config", "fuzz",
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `src/` (`jit/compile/tier.rs` -> `[jit, compile, tier]`,
/// `jit/mod.rs` -> `[jit]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The stage a module path belongs to (`ir/analysis` for `ir::analysis::*`).
fn stage_of(path: &[String]) -> Option<String> {
    let first = path.first()?;
    if !STAGES.contains(&first.as_str()) {
        return None;
    }
    if first == "ir" && path.get(1).map(String::as_str) == Some("analysis") {
        return Some("ir/analysis".into());
    }
    Some(first.clone())
}

/// The folder (relative to `src/`) holding the file that defines the longest prefix of
/// `path` that names a module (`ir::analysis::cfg::x` -> `ir/analysis`,
/// `check::inst::Mods` -> `check`, as `Mods` is in `check/inst.rs`).
fn folder_of(path: &[String]) -> String {
    let src = src_dir();
    // `dir`: where the next component's file would be; `folder`: the folder of the file
    // of the last module resolved.
    let mut dir = PathBuf::new();
    let mut folder = PathBuf::new();
    for comp in path {
        let d = dir.join(comp);
        if src.join(&d).join("mod.rs").is_file() {
            folder = d.clone();
        } else if src.join(&d).with_extension("rs").is_file() {
            folder = dir.clone();
        } else {
            break;
        }
        dir = d;
    }
    folder.to_string_lossy().into_owned()
}

/// Removes `//` comments (naively: the rest of the line after `//` outside a string is
/// dropped; `crate::` inside a string is not expected in this crate's sources).
fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// One reference: the 1-based line and the absolute module path it names (as far as
/// the text says: `crate::jit::translate::lanes::N32` -> `[jit, translate, lanes, N32]`).
/// A group
/// `crate::{a, b::c}` yields one reference per member.
struct Ref {
    line: usize,
    path: Vec<String>,
}

/// Reads the path segments starting at `i` (`a::b::{c, d::e}`), pushing each full path
/// onto `out` with `prefix` in front.
fn read_paths(text: &[u8], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if text.get(i) == Some(&b'{') {
            // A group: split its top level at commas.
            let mut depth = 0;
            let mut start = i + 1;
            let mut j = i;
            while j < text.len() {
                match text[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            read_paths(text, start, path.clone(), out);
                            return;
                        }
                    }
                    b',' if depth == 1 => {
                        read_paths(text, start, path.clone(), out);
                        start = j + 1;
                    }
                    _ => {}
                }
                j += 1;
            }
            return;
        }
        let s = i;
        while i < text.len() && is_ident(text[i]) {
            i += 1;
        }
        if s == i {
            if !path.is_empty() {
                out.push(path);
            }
            return;
        }
        path.push(String::from_utf8_lossy(&text[s..i]).into_owned());
        if text.get(i..i + 2) == Some(b"::") {
            i += 2;
        } else {
            out.push(path);
            return;
        }
    }
}

/// Every `crate::` and `super::` reference of a file, resolved to an absolute path.
fn references(src: &str, module: &[String]) -> Vec<Ref> {
    // `super` is relative to the file's module (inline modules are not tracked).
    let lines: Vec<&str> = src.lines().map(strip_comment).collect();
    let text = lines.join("\n");
    let bytes = text.as_bytes();
    let line_of = |pos: usize| text[..pos].matches('\n').count() + 1;
    let mut refs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':');
        if boundary && text[i..].starts_with("crate::") && (i == 0 || bytes[i - 1] != b'$') {
            let mut paths = Vec::new();
            read_paths(bytes, i + "crate::".len(), Vec::new(), &mut paths);
            for path in paths {
                refs.push(Ref {
                    line: line_of(i),
                    path,
                });
            }
            i += "crate::".len();
            continue;
        }
        if boundary && text[i..].starts_with("super::") {
            let mut j = i;
            let mut base = module.to_vec();
            while text[j..].starts_with("super::") {
                base.pop();
                j += "super::".len();
            }
            let mut paths = Vec::new();
            read_paths(bytes, j, base, &mut paths);
            for path in paths {
                refs.push(Ref {
                    line: line_of(i),
                    path,
                });
            }
            i = j;
            continue;
        }
        i += 1;
    }
    refs
}

struct Scan {
    violations: Vec<String>,
    /// Folder -> folders it names, with one example site per edge.
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

fn scan() -> Scan {
    let src = src_dir();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut scan = Scan {
        violations: Vec::new(),
        edges: BTreeMap::new(),
    };
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src").to_path_buf();
        let module = module_path(&rel);
        let Some(stage) = stage_of(&module) else {
            continue;
        };
        let from_folder = rel
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&file).expect("read source");
        for r in references(&text, &module) {
            let site = format!("src/{}:{}", rel.display(), r.line);
            if let Some(target) = stage_of(&r.path) {
                let ok = target == stage
                    || target == "config"
                    || allowed[stage.as_str()].contains(&target.as_str())
                    // `ir/analysis` is part of `ir` for everyone else's imports.
                    || (target == "ir/analysis" && allowed[stage.as_str()].contains(&"ir"))
                    || (stage == "ir/analysis" && target == "ir");
                if !ok {
                    scan.violations.push(format!(
                        "{site}: stage `{stage}` names `crate::{}`, but may import only {:?}",
                        r.path.join("::"),
                        allowed[stage.as_str()]
                    ));
                }
            }
            let to_folder = folder_of(&r.path);
            if !to_folder.is_empty() && to_folder != from_folder {
                scan.edges
                    .entry(from_folder.clone())
                    .or_default()
                    .entry(to_folder)
                    .or_insert(site);
            }
        }
    }
    scan
}

#[test]
fn imports_follow_the_stage_matrix() {
    let scan = scan();
    assert!(
        scan.violations.is_empty(),
        "imports against DESIGN.md's matrix:\n{}",
        scan.violations.join("\n")
    );
}

#[test]
fn folder_graph_has_no_cycle() {
    let scan = scan();
    // Depth-first search for a back edge; report the cycle with one site per edge.
    let nodes: BTreeSet<&String> = scan
        .edges
        .keys()
        .chain(scan.edges.values().flat_map(|m| m.keys()))
        .collect();
    let mut state: BTreeMap<&String, u8> = nodes.iter().map(|&n| (n, 0u8)).collect();
    let mut cycles = Vec::new();
    fn visit<'a>(
        n: &'a String,
        edges: &'a BTreeMap<String, BTreeMap<String, String>>,
        state: &mut BTreeMap<&'a String, u8>,
        stack: &mut Vec<&'a String>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(n, 1);
        stack.push(n);
        for (m, site) in edges.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                0 => visit(m, edges, state, stack, cycles),
                1 => {
                    let at = stack.iter().position(|&s| s == m).unwrap_or(0);
                    let mut desc: Vec<String> = stack[at..]
                        .windows(2)
                        .map(|w| format!("src/{} -> src/{} ({})", w[0], w[1], edges[w[0]][w[1]]))
                        .collect();
                    desc.push(format!("src/{n} -> src/{m} ({site})"));
                    cycles.push(desc.join("\n  "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n, 2);
    }
    for &n in &nodes {
        if state[n] == 0 {
            visit(n, &scan.edges, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles between folders:\n  {}",
        cycles.join("\n\n  ")
    );
}

#[test]
fn the_scanner_sees_groups_super_and_skips_comments() {
    let src = "use crate::{ir::Type, exec::ctx::{self, WarpCtx}};\n\
               // use crate::runtime::Device;\n\
               use super::super::inst::Mods;\n\
               let x = crate::ops::f(1); // crate::jit\n";
    let module = ["check".to_string(), "mem".to_string(), "atom".to_string()];
    let got: Vec<(usize, String)> = references(src, &module)
        .into_iter()
        .map(|r| (r.line, r.path.join("::")))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "ir::Type".to_string()),
            (1, "exec::ctx::self".to_string()),
            (1, "exec::ctx::WarpCtx".to_string()),
            (3, "check::inst::Mods".to_string()),
            (4, "ops::f".to_string()),
        ]
    );
}
