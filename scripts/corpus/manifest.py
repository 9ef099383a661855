#!/usr/bin/env python3
"""Validates every tests/corpus/<generator>/*.ptx with ptxas (--gpu-name its .target,
-o /dev/null) and writes tests/corpus/MANIFEST.tsv: path, generator, target, PTX ISA
version, ptxas verdict (accept/reject) and ptxas's first error line for a rejection.
Needs ptxas ($PTXAS or the nvidia-cuda-nvcc-cu12 wheel); exits with a message without it.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "tests", "corpus")


def find_ptxas():
    p = os.environ.get("PTXAS")
    if p:
        return p
    try:
        import nvidia.cuda_nvcc
        return os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas")
    except ImportError:
        return None


def header(path):
    text = open(path, "rb").read().decode("latin-1")
    t = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
    v = re.search(r"^\s*\.version\s+([\d.]+)", text, re.M)
    return (t.group(1) if t else "sm_52"), (v.group(1) if v else "?")


def ptxas_verdict(ptxas, path, target):
    m32 = ["-m32"] if re.search(r"^\s*\.address_size\s+32", open(path, "rb").read().decode("latin-1"), re.M) else []
    r = subprocess.run([ptxas, *m32, "--gpu-name", target, "-o", os.devnull, path], capture_output=True, text=True,
                       errors="replace")
    if r.returncode == 0:
        return "accept", ""
    err = [ln for ln in r.stderr.splitlines() if "error" in ln.lower()] or r.stderr.splitlines() or ["?"]
    return "reject", err[0].replace("\t", " ")[:200]


def corpus_files():
    for gen in sorted(os.listdir(CORPUS)):
        d = os.path.join(CORPUS, gen)
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if f.endswith(".ptx"):
                    yield gen, os.path.join(d, f)


def main():
    ptxas = find_ptxas()
    if not ptxas or not os.path.exists(ptxas):
        print("manifest: ptxas not found (pip install nvidia-cuda-nvcc-cu12 or set $PTXAS)")
        return 1
    files = list(corpus_files())

    def one(item):
        gen, path = item
        target, ver = header(path)
        # ptxas 12.9 no longer compiles for sm_1x ... sm_3x; such files (tests/corpus/public)
        # are validated for sm_52, the oldest target it has.
        if int(re.match(r"sm_(\d+)", target).group(1)) < 50:
            target = "sm_52"
        verdict, msg = ptxas_verdict(ptxas, path, target)
        return os.path.relpath(path, ROOT), gen, target, ver, verdict, msg

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        rows = list(ex.map(one, files))
    with open(os.path.join(CORPUS, "MANIFEST.tsv"), "w") as f:
        f.write("# path\tgenerator\ttarget\tptx_version\tptxas\tptxas_error\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    acc = sum(r[4] == "accept" for r in rows)
    print(f"manifest: {len(rows)} files, ptxas accepts {acc}, rejects {len(rows) - acc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
