//! The kernel-fuzzing harness (`ptxjit::fuzz`) on both backends: every finding class
//! (fault, assert, deadlock, time-out, oracle mismatch, invalid launch) becomes a panic
//! carrying the located report, clean inputs do not; the byte layout of inputs; and the
//! kernel coverage counters (same counts on both backends, partial warps counted apart).
//! Kernels: tests/kernels/fuzz_findings.cu (NVRTC, validated with ptxas; regen.sh).

use ptxjit::fuzz::{FindingKind, Harness, Len, Value};
use ptxjit::{Backend, KernelArg, LaunchConfig};
use std::time::Duration;

const PTX: &str = include_str!("kernels/fuzz_findings.nvrtc.ptx");
const CLANG_PTX: &str = include_str!("kernels/fuzz_findings.clang.ptx");
const BACKENDS: [Backend; 2] = [Backend::Jit, Backend::Interp];
const FILE: &str = "fuzz_findings.cu.ptx";

fn on(b: Backend) -> LaunchConfig {
    LaunchConfig::new(1, 32).backend(b)
}

/// The panic message of `h.fuzz(data)` (which must panic).
fn panic_of(h: &Harness, data: &[u8]) -> String {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.fuzz(data)));
    let e = r.expect_err("the input must be a finding");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// `peek(data, n, idx, out)`: data from the tail, n its length, idx in 0..=300.
fn peek(b: Backend) -> Harness {
    Harness::builder(PTX, FILE, "peek")
        .launch(on(b))
        .input_buffer::<u8>(Len::Rest { max: 256 })
        .len_of::<u32>(0)
        .scalar::<u32>(0, 300)
        .output::<u32>(Len::Fixed(1))
        .build()
        .expect("peek harness")
}

#[test]
fn inputs_decode_in_header_then_tail_order() {
    let h = peek(Backend::Jit);
    // Header: idx = int_in_range(0..=300) reads 2 bytes (big-endian, mod 301): 0x0005
    // -> 5. The tail, "abcdefg", is the Rest buffer.
    let l = h.decode(b"\x00\x05abcdefg");
    assert_eq!((l.grid, l.block), ([1, 1, 1], [32, 1, 1]));
    assert_eq!(
        l.values,
        vec![
            Value::Buffer {
                elem: ptxjit::fuzz::Elem::U8,
                bytes: b"abcdefg".to_vec()
            },
            Value::Scalar(KernelArg::U32(7)),
            Value::Scalar(KernelArg::U32(5)),
            Value::Buffer {
                elem: ptxjit::fuzz::Elem::U32,
                bytes: vec![0; 4]
            },
        ]
    );
}

#[test]
fn fault_becomes_a_panic_with_the_located_report() {
    for b in BACKENDS {
        let h = peek(b);
        // idx 5 < n 7: in bounds.
        h.fuzz(b"\x00\x05abcdefg");
        // idx 7 == n 7: one byte past the 7-byte buffer.
        let msg = panic_of(&h, b"\x00\x07abcdefg");
        assert!(msg.contains("ptxjit fuzz: Fault"), "{b:?}: {msg}");
        assert!(
            msg.contains("kernel 'peek' faulted at fuzz_findings.cu.ptx:")
                && msg.contains("out-of-bounds 1-byte load at global address")
                && msg.contains("block (0,0,0), thread (0,0,0)"),
            "{b:?}: {msg}"
        );
        assert!(
            msg.contains(
                "launch: grid [1, 1, 1], block [32, 1, 1], inputs (U8[7], U32(7), U32(7), U32[1])"
            ),
            "{msg}"
        );
        let f = h.run(b"\x00\x07abcdefg").unwrap_err();
        assert_eq!(f.kind, FindingKind::Fault);
    }
}

#[test]
fn assert_becomes_a_panic_with_the_located_report() {
    for b in BACKENDS {
        let h = Harness::builder(PTX, FILE, "no_thirteen")
            .launch(on(b))
            .input_buffer::<i32>(Len::Rest { max: 32 })
            .len_of::<u32>(0)
            .build()
            .unwrap();
        let mut data: Vec<u8> = [1i32, 2, 3, 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        h.fuzz(&data);
        data[8..12].copy_from_slice(&13i32.to_le_bytes());
        let msg = panic_of(&h, &data);
        assert!(msg.contains("ptxjit fuzz: Assert"), "{b:?}: {msg}");
        // The assertion names the thread (2: a[2] == 13), the source file and line of the CHECK.
        assert!(
            msg.contains("thread (2,0,0)") && msg.contains("fuzz_findings.cu:14"),
            "{b:?}: {msg}"
        );
    }
}

#[test]
fn deadlock_becomes_a_panic_with_the_located_report() {
    for b in BACKENDS {
        let h = Harness::builder(PTX, FILE, "split_barrier")
            .launch(on(b))
            .block(64, 64)
            .scalar::<u32>(0, 3)
            .build()
            .unwrap();
        h.fuzz(b"\x00"); // mode 0
        let msg = panic_of(&h, b"\x01"); // mode 1
        assert!(msg.contains("ptxjit fuzz: Deadlock"), "{b:?}: {msg}");
        assert!(
            msg.contains("deadlock in kernel 'split_barrier' block (0,0,0)")
                && msg.contains("barrier 0")
                && msg.contains("barrier 1"),
            "{b:?}: {msg}"
        );
    }
}

#[test]
fn time_out_becomes_a_panic_with_the_located_report() {
    for b in BACKENDS {
        let h = Harness::builder(PTX, FILE, "spin")
            .launch(on(b))
            .time_limit(Duration::from_millis(100))
            .scalar::<u32>(0, u32::MAX as i128)
            .output::<u32>(Len::Fixed(1))
            .build()
            .unwrap();
        h.fuzz(&7u32.to_be_bytes());
        let t = std::time::Instant::now();
        let msg = panic_of(&h, &0xdeadu32.to_be_bytes());
        assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
        assert!(msg.contains("ptxjit fuzz: Timeout"), "{b:?}: {msg}");
        assert!(
            msg.contains("kernel 'spin' stopped at fuzz_findings.cu.ptx:")
                && msg.contains("ran past its time limit"),
            "{b:?}: {msg}"
        );
    }
}

#[test]
fn oracle_mismatch_becomes_a_panic_with_the_report() {
    for b in BACKENDS {
        let h = Harness::builder(PTX, FILE, "twice")
            .launch(on(b))
            .input_buffer::<i32>(Len::Range(0, 64))
            .output::<i32>(Len::SameAs(0))
            .len_of::<u32>(0)
            .oracle(|o| {
                let (inp, out) = (o.input::<i32>(0), o.output::<i32>(1));
                // The model: each element doubled (wrapping, as the kernel's `v * 2`).
                for (i, (x, y)) in inp.iter().zip(&out).enumerate() {
                    if x.wrapping_mul(2) != *y {
                        return Err(format!(
                            "out[{i}] = {y}, model {x} * 2 = {}",
                            x.wrapping_mul(2)
                        ));
                    }
                }
                Ok(())
            })
            .build()
            .unwrap();
        // Header byte 3: length 3 (int_in_range(0..=64) reads one byte, 3 % 65 = 3).
        let mut data = vec![3u8];
        for v in [5i32, -7, 1_000_000] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        h.fuzz(&data);
        data[9..13].copy_from_slice(&1_000_001i32.to_le_bytes());
        let msg = panic_of(&h, &data);
        assert!(msg.contains("ptxjit fuzz: Oracle"), "{b:?}: {msg}");
        assert!(
            msg.contains("out[2] = 4000004, model 1000001 * 2 = 2000002"),
            "{b:?}: {msg}"
        );
    }
}

#[test]
fn spec_errors_are_load_time_errors_and_bad_launches_are_findings() {
    let e = Harness::builder(PTX, FILE, "twice")
        .input_buffer::<i32>(Len::Range(0, 4))
        .build()
        .err()
        .expect("too few inputs");
    assert!(
        e.to_string()
            .contains("takes 3 parameters but the harness describes 1"),
        "{e}"
    );
    let e = Harness::builder(PTX, FILE, "twice")
        .input_buffer::<i32>(Len::Range(0, 4))
        .output::<i32>(Len::SameAs(2))
        .len_of::<u32>(0)
        .build()
        .err()
        .expect("SameAs of a scalar");
    assert!(e.to_string().contains("SameAs(2) is not a buffer"), "{e}");
    // A block range past the 1024-thread limit: the launch is rejected, a finding.
    let h = Harness::builder(PTX, FILE, "split_barrier")
        .block(1, 2048)
        .scalar::<u32>(0, 0)
        .build()
        .unwrap();
    let f = h.run(&[0x07, 0xff]).unwrap_err();
    assert_eq!(f.kind, FindingKind::InvalidLaunch, "{f}");
    assert!(
        f.report
            .contains("invalid launch of kernel 'split_barrier'"),
        "{f}"
    );
}

/// The counters after one run of `branches` on `vals` (fresh counters).
fn branch_counts(ptx: &str, b: Backend, vals: &[i32]) -> (Vec<u8>, Vec<(u32, u32, bool)>) {
    let h = Harness::builder(ptx, FILE, "branches")
        .launch(on(b))
        .coverage(true)
        .input_buffer::<i32>(Len::Rest { max: 64 })
        .output::<i32>(Len::SameAs(0))
        .len_of::<u32>(0)
        .build()
        .unwrap();
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let c = h.coverage().expect("coverage map");
    c.clear();
    h.fuzz(&data);
    let counts = c.snapshot();
    let hit = (0..counts.len())
        .filter(|&i| counts[i] != 0)
        .map(|i| {
            let (f, blk, partial) = c.describe(i).unwrap();
            (f.0, blk, partial)
        })
        .collect();
    (counts, hit)
}

#[test]
fn coverage_counts_are_the_same_on_both_backends() {
    let cases: [&[i32]; 5] = [
        &[5; 32],
        &[-1; 32],
        &[
            1, -2, 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        ],
        &[0, 1, -1],
        &[],
    ];
    for ptx in [PTX, CLANG_PTX] {
        for vals in cases {
            let (jit, hj) = branch_counts(ptx, Backend::Jit, vals);
            let (interp, _) = branch_counts(ptx, Backend::Interp, vals);
            assert_eq!(jit, interp, "{vals:?}");
            assert!(!hj.is_empty(), "{vals:?}: no counter hit");
        }
    }
}

#[test]
fn coverage_counts_partial_warps_apart_and_reaches_callees() {
    for b in BACKENDS {
        let (_, uniform) = branch_counts(PTX, b, &[5; 32]);
        // All 32 lanes positive: every block runs with the whole warp.
        assert!(uniform.iter().all(|&(_, _, p)| !p), "{b:?}: {uniform:?}");
        // Lanes 0..3 differ: some block runs with part of the warp; the callee's blocks
        // (a function other than the kernel) are counted too.
        let mut vals = [5i32; 32];
        vals[1] = -2;
        vals[2] = 0;
        let (_, mixed) = branch_counts(PTX, b, &vals);
        assert!(mixed.iter().any(|&(_, _, p)| p), "{b:?}: {mixed:?}");
        let funcs: std::collections::BTreeSet<u32> = mixed.iter().map(|h| h.0).collect();
        assert!(funcs.len() >= 2, "{b:?}: only functions {funcs:?} counted");
        assert!(
            mixed.len() > uniform.len(),
            "{b:?}: {mixed:?} vs {uniform:?}"
        );
        // Fewer threads than the warp (n = 3 lanes pass `i < n`): the `if` body is
        // partial.
        let (_, short) = branch_counts(PTX, b, &[5, 5, 5]);
        assert!(short.iter().any(|&(_, _, p)| p), "{b:?}: {short:?}");
    }
}

#[test]
fn coverage_is_off_by_default_and_saturates() {
    let h = peek(Backend::Jit);
    assert!(h.coverage().is_none());
    for b in BACKENDS {
        let h = Harness::builder(PTX, FILE, "spin")
            .launch(on(b))
            .coverage(true)
            .scalar::<u32>(0, 0)
            .output::<u32>(Len::Fixed(1))
            .build()
            .unwrap();
        let c = h.coverage().unwrap();
        for _ in 0..300 {
            h.fuzz(&[]);
        }
        let counts = c.snapshot();
        assert_eq!(counts.iter().copied().max(), Some(255), "{b:?}: {counts:?}");
    }
}

#[test]
fn coverage_counts_agree_on_the_example_parser() {
    // examples/fuzz-kernel/records.ptx: a barrier, loops, divergent decoders and calls.
    let ptx = include_str!("../examples/fuzz-kernel/records.ptx");
    let inputs: [&[u8]; 4] = [
        b"",
        b"PK\x02A\x03abcW\x04wxyzX\x02\x01\x02",
        b"PK\x02W\x02\x01\x02A\x01\x80Z\x00",
        b"PK\x01A\x01a",
    ];
    let counts = |b: Backend, d: &[u8]| {
        let h = Harness::builder(ptx, "records.ptx", "parse_records")
            .launch(on(b))
            .coverage(true)
            .input_buffer::<u8>(Len::Rest { max: 4096 })
            .len_of::<u32>(0)
            .output::<u32>(Len::Fixed(33))
            .build()
            .unwrap();
        h.fuzz(d);
        h.coverage().unwrap().snapshot()
    };
    let mut distinct = std::collections::BTreeSet::new();
    for d in inputs {
        let jit = counts(Backend::Jit, d);
        assert_eq!(jit, counts(Backend::Interp, d), "{d:?}");
        distinct.insert(jit);
    }
    // Each input reaches a different set of blocks (or counts).
    assert_eq!(distinct.len(), inputs.len());
}
