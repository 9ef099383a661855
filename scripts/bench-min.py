#!/usr/bin/env python3
"""Merges the summary tables of several `cargo bench --bench kernels` runs (saved
outputs given as arguments) into one Markdown table whose every time is the minimum over
the runs (each run's time is already the best of its repetitions), with the ratios
recomputed from those minima. For a shared, noisy machine: each cell is the run in
which that measurement was least disturbed.

    for i in 1 2 3 4 5; do cargo bench --features pocl --bench kernels > run$i.txt; done
    scripts/bench-min.py run*.txt
"""
import sys

COLS = ["native 1T", "native NT", "JIT", "interp", "POCL"]


def rows(path):
    out = {}
    header_seen = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("| kernel"):
            header_seen = True
            continue
        if not header_seen or not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        vals = [None if c == "-" else float(c) for c in cells[1:6]]
        out[cells[0]] = vals
    return out


def num(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def ratio(v):
    return f"{v:.0f}×" if v >= 10 else f"{v:.2f}×"


def main():
    runs = [rows(p) for p in sys.argv[1:]]
    if not runs or not runs[0]:
        sys.exit("usage: bench-min.py RUN_OUTPUT...")
    print("| kernel (element) | native 1T | native 2T | ptxjit JIT | ptxjit interp | POCL "
          "| JIT / native-2T | JIT / POCL | interp / JIT |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kernel in runs[0]:
        best = []
        for k in range(5):
            vs = [r[kernel][k] for r in runs if kernel in r and r[kernel][k] is not None]
            best.append(min(vs) if vs else None)
        n1, nn, jit, interp, pocl = best
        print(f"| {kernel} | {num(n1)} | {num(nn)} | {num(jit)} | {num(interp)} | {num(pocl)} "
              f"| {ratio(jit / nn)} | {ratio(jit / pocl) if pocl else '-'} | {ratio(interp / jit)} |")


main()
