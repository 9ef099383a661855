#!/usr/bin/env python3
"""Measures ptxjit's acceptance of the corpus: runs `ptxjit check FILE` (parse, check and
JIT-compile every kernel) on each ptxas-accepted file of tests/corpus/MANIFEST.tsv, classifies
each rejection by the feature its error names, and prints a table (files per generator,
acceptance, causes). `--write-known` rewrites tests/corpus/KNOWN_REJECTED.tsv from the result
(path, cause, error), the expectation list tests/corpus.rs checks.

usage: measure.py [--ptxjit PATH] [--write-known] [--tsv OUT.tsv]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from causes import classify  # noqa: E402


def manifest():
    rows = []
    for ln in open(os.path.join(ROOT, "tests", "corpus", "MANIFEST.tsv")):
        if ln.startswith("#") or not ln.strip():
            continue
        f = ln.rstrip("\n").split("\t")
        rows.append({"path": f[0], "gen": f[1], "target": f[2], "version": f[3], "ptxas": f[4]})
    return rows


def check(ptxjit, path):
    try:
        r = subprocess.run([ptxjit, "check", os.path.join(ROOT, path)], capture_output=True, text=True,
                           errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        return False, "timeout after 120 s"
    if r.returncode == 0:
        return True, ""
    msg = (r.stderr.strip().splitlines() or ["(no message)"])[0]
    return False, msg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxjit", default=os.path.join(ROOT, "target", "release", "ptxjit"))
    ap.add_argument("--write-known", action="store_true")
    ap.add_argument("--tsv")
    a = ap.parse_args()
    rows = manifest()
    acc = [r for r in rows if r["ptxas"] == "accept"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        res = list(ex.map(lambda r: check(a.ptxjit, r["path"]), acc))
    per_gen = collections.defaultdict(lambda: [0, 0, 0, 0])
    for r in rows:
        per_gen[r["gen"]][0] += 1
        per_gen[r["gen"]][1] += r["ptxas"] == "accept"
    causes = collections.Counter()
    cause_gens = collections.defaultdict(set)
    known = []
    for r, (ok, msg) in zip(acc, res):
        per_gen[r["gen"]][2 if ok else 3] += 1
        if not ok:
            c = classify(msg)
            causes[c] += 1
            cause_gens[c].add(r["gen"])
            rel = re.sub(r"^\S*?tests/corpus/", "tests/corpus/", msg)
            known.append((r["path"], c, rel.replace("\t", " ")[:300]))
    print("| generator | files | ptxas accepts | ptxjit loads | ptxjit rejects |")
    print("|---|---:|---:|---:|---:|")
    tot = [0, 0, 0, 0]
    for g in sorted(per_gen):
        v = per_gen[g]
        tot = [x + y for x, y in zip(tot, v)]
        print(f"| {g} | {v[0]} | {v[1]} | {v[2]} | {v[3]} |")
    print(f"| total | {tot[0]} | {tot[1]} | {tot[2]} ({100.0 * tot[2] / max(1, tot[1]):.1f}%) | {tot[3]} |")
    print()
    print("| cause | files | generators |")
    print("|---|---:|---|")
    for c, n in causes.most_common():
        print(f"| {c} | {n} | {', '.join(sorted(cause_gens[c]))} |")
    if a.tsv:
        with open(a.tsv, "w") as f:
            for p, c, m in known:
                f.write(f"{p}\t{c}\t{m}\n")
    if a.write_known:
        with open(os.path.join(ROOT, "tests", "corpus", "KNOWN_REJECTED.tsv"), "w") as f:
            f.write("# Corpus files ptxas accepts and ptxjit rejects today (tests/corpus.rs): path, cause, error.\n"
                    "# The list may only shrink: a listed file that loads fails the test too.\n")
            for p, c, m in sorted(known):
                f.write(f"{p}\t{c}\t{m}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
