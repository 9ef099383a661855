//! Fuzzes `parse_records` (records.cu) on ptxjit: the fuzzer's bytes are the kernel's
//! input buffer, the kernel's own branches are libFuzzer coverage, and any fault, failed
//! assert, deadlock, time-out or disagreement with the Rust model below is a crash.
//!
//! `KERNEL_COVERAGE=0` turns the kernel coverage off (libFuzzer then sees only ptxjit's
//! own Rust code), to measure what it buys (README.md). `ORACLE=0` leaves the Rust model
//! out: the model is instrumented Rust code that parses the same format, so its own
//! coverage and comparisons guide libFuzzer too, and the measurement of the kernel
//! coverage alone needs it off.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxjit::fuzz::{Harness, Len};
use std::sync::OnceLock;

const MAX_RECORDS: usize = 32;

/// The parser as the kernel is meant to behave: `out[i]` for record i, `out[32]` the
/// record count.
fn model(data: &[u8]) -> Vec<u32> {
    let mut out = vec![0u32; MAX_RECORDS + 1];
    let mut recs = Vec::new();
    if data.len() >= 3 && data[..3] == [b'P', b'K', 2] {
        let mut pos = 3;
        while recs.len() < MAX_RECORDS && pos + 2 <= data.len() {
            let (ty, len) = (data[pos], data[pos + 1] as usize);
            if pos + 2 + len > data.len() {
                break;
            }
            recs.push((ty, &data[pos + 2..pos + 2 + len]));
            pos += 2 + len;
        }
    }
    for (i, (ty, p)) in recs.iter().enumerate() {
        out[i] = match ty {
            b'A' if p.iter().any(|&b| b >= 0x80) => u32::MAX,
            b'A' => p.iter().map(|&b| b as u32).sum(),
            // Whole 16-bit words; an odd last byte is a word of its own.
            b'W' => p
                .chunks(2)
                .map(|w| w[0] as u32 | (*w.get(1).unwrap_or(&0) as u32) << 8)
                .fold(0u32, |s, w| s.wrapping_add(w)),
            b'X' => p
                .iter()
                .fold(0x9e37_79b9u32, |h, &b| h.rotate_left(5) ^ b as u32),
            _ => 0,
        };
    }
    out[MAX_RECORDS] = recs.len() as u32;
    out
}

fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(|| {
        let on = |var: &str| std::env::var(var).map_or(true, |v| v != "0");
        let h = Harness::builder(
            include_str!("../records.ptx"),
            "records.ptx",
            "parse_records",
        )
        .block(32, 32)
        .input_buffer::<u8>(Len::Rest { max: 4096 }) // data: the fuzzer's bytes
        .len_of::<u32>(0) // n
        .output::<u32>(Len::Fixed(MAX_RECORDS + 1)) // out
        .coverage(on("KERNEL_COVERAGE"));
        let h = if on("ORACLE") {
            h.oracle(|o| {
                let want = model(&o.input::<u8>(0));
                let got = o.output::<u32>(2);
                match (0..want.len()).find(|&i| want[i] != got[i]) {
                    Some(i) => Err(format!("out[{i}] = {:#x}, model {:#x}", got[i], want[i])),
                    None => Ok(()),
                }
            })
        } else {
            h
        };
        h.build().expect("load records.ptx")
    })
}

fuzz_target!(
    init: {
        // Build (and register the kernel's coverage counters) before the first input,
        // and say what libFuzzer is given, so a measurement's log shows which run it was.
        let counters = harness().coverage().map_or(0, |c| c.counters().len());
        eprintln!(
            "records: kernel coverage {} ({counters} counters registered with libFuzzer: {}), \
             Rust model {}",
            if counters > 0 { "on" } else { "off" },
            ptxjit::fuzz::libfuzzer::linked(),
            if std::env::var("ORACLE").map_or(true, |v| v != "0") { "on" } else { "off" },
        );
    },
    |data: &[u8]| harness().fuzz(data)
);
