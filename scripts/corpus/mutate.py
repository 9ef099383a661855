#!/usr/bin/env python3
"""Mutation differential of ptxjit's front end against ptxas (issue 15).

Takes corpus files that both ptxas and ptxjit accept, mutates one instruction at a time
(drop an operand or a modifier, swap two operands, change a type, replace an operand by an
immediate/another register/a special register, add a modifier), and compares acceptance:
ptxas (`--gpu-name` the file's target) against `ptxjit check` (parse, check, JIT compile).
Disagreements are grouped by the mutated instruction's shape and written as tables to
tests/corpus/MUTATION_FINDINGS.md:

- ptxas rejects, ptxjit accepts: ptxjit too lenient (a finding to fix, unless the README
  lists it as deliberate leniency);
- ptxas accepts, ptxjit rejects: a form ptxjit should load (or an unsupported feature);
- ptxjit crashes (panic or signal) on any input: always a defect.

usage: mutate.py [--seconds 600] [--seed 1] [--jobs 2] [--out tests/corpus/MUTATION_FINDINGS.md]
"""
import argparse
import collections
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from causes import classify  # noqa: E402
from manifest import find_ptxas  # noqa: E402

TYPES = ["u8", "s8", "b8", "u16", "s16", "b16", "f16", "bf16", "u32", "s32", "b32", "f32", "u64", "s64",
         "b64", "f64", "pred", "f16x2", "bf16x2", "b128", "tf32"]
MODS = ["sat", "ftz", "rn", "rz", "rm", "rp", "rni", "rzi", "approx", "full", "wide", "hi", "lo", "cc", "uni",
        "volatile", "relaxed", "acquire", "release", "gpu", "cta", "sys", "nc", "shared", "global", "local",
        "const", "param", "v2", "v4", "x", "sync", "aligned", "noftz", "relu", "clamp", "wrap", "shiftamt",
        "to", "L1::evict_last", "ca", "cg", "cs", "lu", "cv", "wb", "wt"]
IMMS = ["0", "1", "-1", "7", "0x80000000", "4294967296", "0.5", "0f3F800000", "0d3FF0000000000000", "1e3", "255U"]
SREGS = ["%tid.x", "%ntid.y", "%laneid", "%clock", "%clock64", "%ctaid.z", "%warpid", "%lanemask_lt", "%smid"]
INSTR = re.compile(r"^(\s*)(@!?%?\w+\s+)?([a-z][\w]*)((?:\.[\w:]+)*)(\s+[^;]*)?;(.*)$")


def split_ops(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def registers(text):
    """Declared register names by declared type (expanding %r<N>)."""
    regs = collections.defaultdict(list)
    for ty, names in re.findall(r"\.reg\s+\.(\w+)\s+([^;]+);", text):
        for n in names.split(","):
            n = n.strip()
            m = re.match(r"(%?\w+)<(\d+)>", n)
            if m:
                regs[ty] += [f"{m.group(1)}{i}" for i in range(1, min(int(m.group(2)), 4))]
            elif n:
                regs[ty].append(n)
    return regs


def mutate_line(line, rng, regs):
    m = INSTR.match(line)
    if not m:
        return None
    ind, guard, op, mods, ops, tail = m.group(1), m.group(2) or "", m.group(3), m.group(4), (m.group(5) or "").strip(), m.group(6)
    if op in ("ret", "exit", "bar", "bra", "call") and rng.random() < 0.7:
        return None
    modl = [x for x in mods.split(".") if x]
    opl = split_ops(ops)
    kinds = ["type", "mod_add", "imm", "reg", "sreg"]
    if modl:
        kinds.append("mod_drop")
    if len(opl) >= 1:
        kinds.append("op_drop")
    if len(opl) >= 2:
        kinds.append("swap")
    kind = rng.choice(kinds)
    if kind == "type":
        idx = [i for i, x in enumerate(modl) if x in TYPES]
        if not idx:
            return None
        i = rng.choice(idx)
        modl[i] = rng.choice([t for t in TYPES if t != modl[i]])
    elif kind == "mod_add":
        modl.insert(rng.randrange(len(modl) + 1), rng.choice(MODS))
    elif kind == "mod_drop":
        modl.pop(rng.randrange(len(modl)))
    elif kind == "op_drop":
        opl.pop(rng.randrange(len(opl)))
    elif kind == "swap":
        i, j = rng.sample(range(len(opl)), 2)
        opl[i], opl[j] = opl[j], opl[i]
    elif kind in ("imm", "reg", "sreg"):
        if not opl:
            return None
        i = rng.randrange(len(opl))
        if kind == "imm":
            opl[i] = rng.choice(IMMS)
        elif kind == "sreg":
            opl[i] = rng.choice(SREGS)
        else:
            pool = [r for rs in regs.values() for r in rs]
            if not pool:
                return None
            opl[i] = rng.choice(pool)
    new = f"{ind}{guard}{op}{''.join('.' + x for x in modl)}{(' ' + ', '.join(opl)) if opl else ''};{tail}"
    return (kind, new) if new != line else None


def operand_kind(o):
    if o.startswith("["):
        return "[A]"
    if o.startswith("{"):
        return "{V}"
    if re.match(r"^%(tid|ntid|ctaid|nctaid|laneid|warpid|clock|clock64|smid|lanemask_\w+)(\.[xyz])?$", o):
        return "%sreg"
    if re.match(r"^[-+]?(0[xXbB][0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|\d[\d.eE+-]*)U?$", o):
        return "imm"
    if o.startswith("!"):
        return "!p"
    return "r"


def shape(line):
    """The instruction with its operands abstracted to kinds (for grouping)."""
    m = INSTR.match(line)
    if not m:
        return line.strip()
    ops = split_ops((m.group(5) or "").strip())
    guard = "@p " if m.group(2) else ""
    return f"{guard}{m.group(3)}{m.group(4)} {', '.join(operand_kind(o) for o in ops)}".strip()


def short(s):
    """Long mangled names shortened for the tables."""
    return re.sub(r"([A-Za-z_$][\w$]{24})[\w$]{8,}", r"\1…", s)


def run_ptxas(ptxas, path, target):
    r = subprocess.run([ptxas, "--gpu-name", target, "-o", os.devnull, path], capture_output=True, text=True,
                       errors="replace", timeout=60)
    err = [ln for ln in r.stderr.splitlines() if "error" in ln.lower()] or r.stderr.splitlines() or [""]
    return r.returncode == 0, re.sub(r"^ptxas \S+, line \d+; ", "", err[0])[:160]


def run_ptxjit(ptxjit, path):
    try:
        r = subprocess.run([ptxjit, "check", path], capture_output=True, text=True, errors="replace", timeout=60)
    except subprocess.TimeoutExpired:
        return "crash", "timeout after 60 s"
    if r.returncode == 0:
        return "accept", ""
    if r.returncode != 1:
        tail = [ln for ln in r.stderr.splitlines() if "panicked" in ln or "error" in ln] or r.stderr.splitlines()[-1:]
        return "crash", f"exit {r.returncode}: {(tail or [''])[0][:200]}"
    msg = (r.stderr.strip().splitlines() or [""])[0]
    return "reject", re.sub(r"^\S+?:\d+:\d+: error: ", "", msg)[:160]


def corpus_sources():
    rows = []
    known = set()
    kp = os.path.join(ROOT, "tests", "corpus", "KNOWN_REJECTED.tsv")
    for ln in open(kp):
        if not ln.startswith("#") and ln.strip():
            known.add(ln.split("\t")[0])
    for ln in open(os.path.join(ROOT, "tests", "corpus", "MANIFEST.tsv")):
        if ln.startswith("#") or not ln.strip():
            continue
        f = ln.rstrip("\n").split("\t")
        if f[4] == "accept" and f[0] not in known:
            size = os.path.getsize(os.path.join(ROOT, f[0]))
            if size < 40000:  # small files keep each ptxas/ptxjit run short
                rows.append((f[0], f[1], f[2]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ptxjit", default=os.path.join(ROOT, "target", "release", "ptxjit"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "corpus", "MUTATION_FINDINGS.md"))
    a = ap.parse_args()
    ptxas = find_ptxas()
    if not ptxas or not os.path.exists(ptxas) or not os.path.exists(a.ptxjit):
        print("mutate: needs ptxas and target/release/ptxjit")
        return 1
    srcs = corpus_sources()
    rng_main = random.Random(a.seed)
    deadline = time.time() + a.seconds
    lock = threading.Lock()
    stats = collections.Counter()
    findings = {"lenient": {}, "strict": {}, "crash": {}}
    tmp = tempfile.mkdtemp(prefix="ptxjit-mutate-")

    def worker(wid):
        rng = random.Random(rng_main.random() + wid)
        n = 0
        while time.time() < deadline:
            path, gen, target = rng.choice(srcs)
            text = open(os.path.join(ROOT, path)).read()
            lines = text.split("\n")
            regs = registers(text)
            cand = [i for i, ln in enumerate(lines) if INSTR.match(ln) and not ln.lstrip().startswith(".")]
            if not cand:
                continue
            li = rng.choice(cand)
            mut = mutate_line(lines[li], rng, regs)
            if not mut:
                continue
            kind, new = mut
            mutated = "\n".join(lines[:li] + [new] + lines[li + 1:])
            p = os.path.join(tmp, f"m{wid}_{n}.ptx")
            n += 1
            with open(p, "w") as f:
                f.write(mutated)
            try:
                ok_as, err_as = run_ptxas(ptxas, p, target)
            except subprocess.TimeoutExpired:
                os.remove(p)
                continue
            jit, err_jit = run_ptxjit(a.ptxjit, p)
            os.remove(p)
            with lock:
                stats["mutants"] += 1
                stats[("ptxas accept" if ok_as else "ptxas reject") + ", ptxjit " + jit] += 1
                if jit == "crash":
                    key, cls = shape(new), "crash"
                elif ok_as and jit == "reject":
                    key, cls = (shape(new), classify(err_jit)), "strict"
                elif not ok_as and jit == "accept":
                    key, cls = (shape(new), re.sub(r"'[^']*'", "", err_as)), "lenient"
                else:
                    continue
                d = findings[cls]
                if key not in d:
                    d[key] = {"n": 0, "file": f"{path}:{li + 1}", "kind": kind, "orig": short(lines[li].strip()),
                              "new": short(new.strip()), "shape": key if isinstance(key, str) else key[0],
                              "ptxas": short(err_as), "ptxjit": short(err_jit)}
                d[key]["n"] += 1

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        list(ex.map(worker, range(a.jobs)))
    os.rmdir(tmp)
    write_report(a, stats, findings, time.time() - t0, len(srcs))
    print(f"mutate: {stats['mutants']} mutants in {time.time() - t0:.0f} s; "
          f"lenient {len(findings['lenient'])}, strict {len(findings['strict'])}, crash {len(findings['crash'])} "
          f"distinct findings; report: {os.path.relpath(a.out, ROOT)}")
    return 0


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def write_report(a, stats, findings, secs, nsrc):
    out = ["# Mutation differential: ptxas vs ptxjit", "",
           f"`scripts/corpus/mutate.py --seconds {a.seconds:.0f} --seed {a.seed} --jobs {a.jobs}`: "
           f"{stats['mutants']} mutants of {nsrc} small corpus files that both accept, in {secs:.0f} s "
           "(one instruction mutated per mutant: operand or modifier dropped, operands swapped, type "
           "changed, operand replaced by an immediate, another register or a special register, modifier "
           "added). ptxas 12.9 is the oracle (`--gpu-name` the file's target); ptxjit is `ptxjit check` "
           "(parse, check, JIT compile). Findings are grouped by the mutated instruction's shape "
           "(opcode and modifiers, operands abstracted to r/imm/%sreg/[A]/{V}) and, for the "
           "lenient ones, ptxas's error; `n` counts the mutants of a group.", "",
           "| outcome | mutants |", "|---|---:|"]
    for k, v in sorted(stats.items()):
        if k != "mutants":
            out.append(f"| {k} | {v} |")
    sections = [("crash", "ptxjit crashes (panic, signal or timeout): defects"),
                ("lenient", "ptxas rejects, ptxjit accepts (ptxjit too lenient)"),
                ("strict", "ptxas accepts, ptxjit rejects")]
    for cls, title in sections:
        d = findings[cls]
        out += ["", f"## {title}: {len(d)} distinct", ""]
        if not d:
            out.append("None found.")
            continue
        if cls == "strict":
            causes = collections.Counter()
            for (sh, c), v in d.items():
                causes[c] += v["n"]
            out += ["| cause (ptxjit's error, classified) | mutants |", "|---|---:|"]
            out += [f"| {cell(c)} | {n} |" for c, n in causes.most_common()]
            out.append("")
        out += ["| n | shape | mutation | example (mutated) | original | ptxas | ptxjit | file:line |",
                "|---:|---|---|---|---|---|---|---|"]
        items = sorted(d.items(), key=lambda kv: -kv[1]["n"])
        for key, v in items[:150]:
            out.append(f"| {v['n']} | `{cell(v['shape'])}` | {v['kind']} | `{cell(v['new'])}` | `{cell(v['orig'])}` | {cell(v['ptxas']) or 'accepts'} "
                       f"| {cell(v['ptxjit']) or 'accepts'} | {v['file']} |")
        if len(items) > 150:
            out.append(f"| … | {len(items) - 150} more shapes | | | | | | |")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
