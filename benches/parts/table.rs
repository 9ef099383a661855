//! The one summary table of a benchmark run: every kernel's row (ns per element for
//! native Rust on 1 thread and on all cores, ptxjit's JIT and interpreter, POCL) and the
//! ratios, printed as Markdown at the end (README.md's performance table is a copy).

use std::sync::Mutex;

struct Row {
    kernel: String,
    native_1t: f64,
    native_mt: f64,
    jit: f64,
    interp: f64,
    pocl: Option<f64>,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

/// Adds a row (all times in ns per element; `kernel` says what an element is).
pub fn record(
    kernel: &str,
    native_1t: f64,
    native_mt: f64,
    jit: f64,
    interp: f64,
    pocl: Option<f64>,
) {
    ROWS.lock().unwrap().push(Row {
        kernel: kernel.to_string(),
        native_1t,
        native_mt,
        jit,
        interp,
        pocl,
    });
}

fn num(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn ratio(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}×")
    } else {
        format!("{v:.2}×")
    }
}

/// Prints the table (nothing if no row was recorded).
pub fn print(threads: usize, pocl: Option<&str>) {
    let rows = ROWS.lock().unwrap();
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Summary: ns per element; native all cores = rayon on {threads} threads; JIT on {threads} worker threads; POCL: {}",
        pocl.unwrap_or("not run (cargo bench --features pocl)")
    );
    println!();
    println!(
        "| kernel (element) | native 1T | native {threads}T | ptxjit JIT | ptxjit interp | POCL | JIT / native-{threads}T | JIT / POCL | interp / JIT |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows.iter() {
        let (p, jp) = match r.pocl {
            Some(p) => (num(p), ratio(r.jit / p)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.kernel,
            num(r.native_1t),
            num(r.native_mt),
            num(r.jit),
            num(r.interp),
            p,
            ratio(r.jit / r.native_mt),
            jp,
            ratio(r.interp / r.jit)
        );
    }
}
