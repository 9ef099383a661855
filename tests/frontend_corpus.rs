//! Every committed PTX file in the repository either checks or fails with a located
//! "not supported yet" error (printed with `--nocapture`).

use ptxjit::check::parse_and_check;
use std::path::Path;

#[test]
fn committed_ptx_files_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bad = Vec::new();
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
        for p in files {
            let src = std::fs::read_to_string(&p).unwrap_or_default();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            match parse_and_check(&src, &name) {
                Ok(m) => {
                    if let Err(e) = ptxjit::check::validate(&m) {
                        bad.push(format!("{name}: IR invariant violated: {e}"));
                    }
                    println!("ok   {name}");
                }
                Err(e) if e.msg.contains("not supported yet") => println!("unsp {e}"),
                Err(e) => {
                    println!("FAIL {e}");
                    bad.push(e.to_string());
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
