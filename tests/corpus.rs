//! The corpus test (issue 15): every PTX file of tests/corpus that ptxas accepts
//! (tests/corpus/MANIFEST.tsv, written by scripts/corpus/manifest.py with NVIDIA's ptxas
//! as the oracle) loads: it parses, checks into the IR (all the interpreter needs) and
//! JIT-compiles every kernel and function — except the files listed in
//! tests/corpus/KNOWN_REJECTED.tsv with the feature that stops them today.
//!
//! The expectation list only shrinks: the test fails when a file outside it is rejected
//! and when a listed file starts loading (remove it from the list then), so a fix and a
//! regression are both seen. Loading uses the default tier (quick code at load); a
//! deterministic sample of every eighth file is also compiled by the optimized tier, all
//! of them with `PTXJIT_CORPUS_FULL=1`.
//!
//! The corpus is committed PTX: no compiler runs here (scripts/corpus/build.sh
//! regenerates it).

use ptxjit::jit::JitTier;
use ptxjit::{Device, DeviceOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The ptxas-accepted files of the manifest: (path relative to the repository, generator).
fn accepted_files() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("tests/corpus/MANIFEST.tsv"))
        .expect("tests/corpus/MANIFEST.tsv is committed");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 5 && f[4] == "accept").then(|| (f[0].to_string(), f[1].to_string()))
        })
        .collect()
}

/// KNOWN_REJECTED.tsv: path -> cause.
fn known_rejected() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join("tests/corpus/KNOWN_REJECTED.tsv"))
        .expect("tests/corpus/KNOWN_REJECTED.tsv is committed");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split('\t');
            let path = f.next().unwrap_or_default().to_string();
            let cause = f.next().unwrap_or_default().to_string();
            (path, cause)
        })
        .collect()
}

fn device(tier: JitTier) -> Device {
    Device::with_options(DeviceOptions {
        threads: 1,
        jit_tier: tier,
        // Every kernel and function is compiled at load, launched or not.
        jit_eager: true,
        ..DeviceOptions::default()
    })
    .expect("device")
}

/// Loads one file on `dev`: Ok, or the error text.
fn load(dev: &Device, path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let src = ptxjit::parse::decode_source(&bytes);
    let name = path.display().to_string();
    let m = dev.load_ptx(&src, &name).map_err(|e| e.to_string())?;
    if src.contains(".entry") && m.kernels().is_empty() {
        return Err(format!("{name}: loaded, but without its kernels"));
    }
    Ok(())
}

/// Runs `f` over `items` on two threads; returns the results in order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("lock");
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                out.lock().expect("lock")[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .expect("lock")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

#[test]
fn ptxas_accepted_corpus_loads_except_known_rejections() {
    let files = accepted_files();
    let known = known_rejected();
    assert!(
        files.len() >= 300,
        "the corpus has {} ptxas-accepted files",
        files.len()
    );
    let gens: std::collections::BTreeSet<&str> = files.iter().map(|(_, g)| g.as_str()).collect();
    assert!(gens.len() >= 6, "generators: {gens:?}");
    let full = std::env::var("PTXJIT_CORPUS_FULL").is_ok_and(|v| v == "1");
    let start = std::time::Instant::now();
    let tiered = device(JitTier::Tiered);
    let optimized = device(JitTier::Optimized);
    let results = parallel(&files, |(path, _)| {
        let p = root().join(path);
        let r = load(&tiered, &p);
        // The optimized tier on a deterministic sample (every file with the full run).
        let sample = full || path.bytes().map(u64::from).sum::<u64>() % 8 == 0;
        match r {
            Ok(()) if sample => load(&optimized, &p).map_err(|e| format!("optimized tier: {e}")),
            r => r,
        }
    });
    let mut unexpected = Vec::new();
    let mut now_loading = Vec::new();
    let mut per_gen: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for ((path, generator), r) in files.iter().zip(&results) {
        let e = per_gen.entry(generator).or_default();
        e.0 += 1;
        match (r, known.get(path)) {
            (Ok(()), None) => e.1 += 1,
            (Ok(()), Some(cause)) => {
                e.1 += 1;
                now_loading.push(format!("{path} (listed: {cause})"));
            }
            (Err(msg), None) => unexpected.push(format!("{path}: {msg}")),
            (Err(_), Some(_)) => {}
        }
    }
    let accepted: std::collections::BTreeSet<&str> =
        files.iter().map(|(p, _)| p.as_str()).collect();
    let stale: Vec<&String> = known
        .keys()
        .filter(|k| !accepted.contains(k.as_str()))
        .collect();
    eprintln!(
        "corpus: {} ptxas-accepted files, {} expected rejections, {:.1} s{}",
        files.len(),
        known.len(),
        start.elapsed().as_secs_f64(),
        if full { " (optimized tier on all)" } else { "" }
    );
    for (g, (n, ok)) in &per_gen {
        eprintln!("  {g}: {ok}/{n} load");
    }
    assert!(
        unexpected.is_empty() && now_loading.is_empty() && stale.is_empty(),
        "rejected but not in tests/corpus/KNOWN_REJECTED.tsv:\n  {}\n\
         listed in KNOWN_REJECTED.tsv but loading now (remove them):\n  {}\n\
         listed but not a ptxas-accepted corpus file:\n  {}",
        unexpected.join("\n  "),
        now_loading.join("\n  "),
        stale
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

/// The expectation list names a cause for each file (the feature, as in the README).
#[test]
fn known_rejections_name_a_cause() {
    for (path, cause) in known_rejected() {
        assert!(!cause.trim().is_empty(), "{path} has no cause");
        assert!(root().join(&path).is_file(), "{path} is not a file");
    }
}
