#!/usr/bin/env python3
"""Generates the driver-API function list and the cuGetProcAddress table from NVIDIA's
headers (cuda.h, cudaProfiler.h and their *Typedefs.h, e.g. from PyPI's
nvidia-cuda-runtime-cu12 wheel: nvidia/cuda_runtime/include, and CUDA 13's
nvidia-cuda-runtime 13.x wheel: nvidia/cu13/include).

    python3 crates/libcuda/api/gen.py <include-dir>...

With several include directories (oldest CUDA first) the function list and the proc
table are the union of theirs: every name of every version stays exported. The enums
come from the last (newest) directory.

Writes, next to this script:
  functions.txt  every function the header declares (current and legacy versioned
                 names, per-thread-stream _ptds/_ptsz variants), one per line;
  procs.txt      `base version symbol` lines: cuGetProcAddress(base, version) returns the
                 symbol of the highest version <= the requested one; a trailing `pt`
                 column marks per-thread-default-stream variants.
"""
import os
import re
import subprocess
import sys

incs = sys.argv[1:]
inc = incs[-1]
here = os.path.dirname(os.path.abspath(__file__))


def declared(inc, header, defines):
    out = subprocess.run(["gcc", "-E", "-P", *defines, "-I", inc, os.path.join(inc, header)],
                         check=True, capture_output=True, text=True).stdout
    return set(re.findall(r"\bCUresult\s+(cu\w+)\s*\(", out.replace("\n", " ")))


names = set()
pfn = set()
for d in incs:
    for header in ("cuda.h", "cudaProfiler.h"):
        if os.path.exists(os.path.join(d, header)):
            names |= declared(d, header, []) | declared(d, header, ["-D__CUDA_API_VERSION_INTERNAL"])
    for header in ("cudaTypedefs.h", "cudaProfilerTypedefs.h"):
        path = os.path.join(d, header)
        if os.path.exists(path):
            pfn |= set(re.findall(r"\bPFN_(cu\w+?)_v(\d{4,5})(_ptds|_ptsz)?\)\s*\(",
                                  open(path).read()))
names = sorted(names)

plain = {}
pt = {}
for base, ver, suffix in pfn:
    (pt if suffix else plain).setdefault(base, []).append((int(ver), suffix))


def suffix_num(sym, base):
    rest = sym[len(base):]
    return 1 if rest == "" else int(rest[2:])


rows = []
missing = []
mapped = {}
for base, vers in sorted(plain.items()):
    vers = sorted(v for v, _ in vers)
    syms = sorted((s for s in names if re.fullmatch(re.escape(base) + r"(_v\d+)?", s)),
                  key=lambda s: suffix_num(s, base))
    if not syms:
        # A typedef without a declaration in the headers given (cudaProfiler.h is not
        # in the wheels): the function is exported under its base name.
        syms = [base]
        names.append(base)
    # Pair from the newest down; older versions left over use the oldest symbol.
    pairs = {}
    for i in range(1, len(vers) + 1):
        pairs[vers[-i]] = syms[-i] if i <= len(syms) else syms[0]
    mapped[base] = pairs
    for v in vers:
        rows.append(f"{base} {v} {pairs[v]}")
rows = sorted(set(rows), key=lambda r: (r.split()[0], int(r.split()[1])))
for base, vers in sorted(pt.items()):
    for v, suffix in sorted(vers):
        pairs = mapped.get(base, {})
        below = [pv for pv in pairs if pv <= v]
        sym = pairs[max(below)] if below else (pairs[min(pairs)] if pairs else base)
        for cand in (sym + suffix, base + suffix):
            if cand in names:
                rows.append(f"{base} {v} {cand} pt")
                break
        else:
            missing.append(base + suffix)

names = sorted(set(names))
with open(os.path.join(here, "functions.txt"), "w") as f:
    f.write("\n".join(names) + "\n")
with open(os.path.join(here, "procs.txt"), "w") as f:
    f.write("\n".join(rows) + "\n")


def enum(name, docs=True):
    """`value NAME first-sentence-of-doc` for each member of C enum `name`."""
    hdr = open(os.path.join(inc, "cuda.h")).read()
    body = re.search(r"typedef enum " + name + r"\s*\{(.*?)\}", hdr, re.S).group(1)
    out = []
    for doc, member, value in re.findall(r"(?:/\*\*(.*?)\*/\s*)?(CU\w+)\s*=\s*(\w+)", body, re.S):
        doc = " ".join(l.strip().lstrip("*").strip() for l in (doc or "").splitlines()).strip()
        doc = re.split(r"(?<=\.)\s", doc)[0] if doc else ""
        doc = doc.replace("::", "")
        out.append(f"{int(value, 0)} {member} {doc if docs else ''}".rstrip())
    return out


with open(os.path.join(here, "errors.txt"), "w") as f:
    f.write("\n".join(enum("cudaError_enum")) + "\n")
with open(os.path.join(here, "attributes.txt"), "w") as f:
    f.write("\n".join(enum("CUdevice_attribute_enum", docs=False)) + "\n")
print(f"{len(names)} functions, {len(rows)} proc entries; no symbol for: {missing}", file=sys.stderr)
