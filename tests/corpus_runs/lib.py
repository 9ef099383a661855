"""Corpus runs (library of gen.py): cases that run kernels of the PTX corpus (tests/corpus/, from NVRTC, clang,
Triton, numba-cuda and llc) on seeded inputs, with references computed here in numpy,
independently of ptxjit and of the GPU.

Writes (deterministic; numpy only):
  tests/corpus_runs/cases.txt   one case a line (format: see README.md)
  tests/corpus_runs/in/*.bin    the input buffers
  tests/corpus_runs/ref/*.bin   numpy's expected output buffers

Each output is declared with `check:FILE=DTYPE,GPU,REF`: DTYPE the element type, GPU and
REF the allowed error against the GPU's bytes (tests/corpus_runs/out/) and against the
numpy reference: `0` bit-exact, otherwise a bound relative to the largest magnitude of the
expected buffer (`|got - want| <= tol * max|want|`, NaN only where NaN), and `-` not
compared. The reason for each tolerance is in the `why=` token of the case.
"""
import os
import re
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IN = os.path.join(HERE, "in")
REF = os.path.join(HERE, "ref")
rng = np.random.default_rng(20261126)

LINES = []
ENTRY = re.compile(r"\.entry\s+([A-Za-z0-9_$]+)\s*\(")


def entry(ptx, want):
    """The entry of a PTX file named `want`, or for numba the mangled one of function `want`."""
    names = ENTRY.findall(open(os.path.join(ROOT, ptx)).read())
    if want in names:
        return want
    hit = [n for n in names if f"__main__{len(want)}{want}B" in n]
    assert len(hit) == 1, (ptx, want, names)
    return hit[0]


def f32bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f64bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


class Case:
    def __init__(self, name, ptx, kernel, grid, block, shared=0, why=""):
        self.name, self.ptx, self.kernel = name, ptx, entry(ptx, kernel)
        self.grid, self.block, self.shared, self.why = grid, block, shared, why
        self.args, self.checks = [], []

    def _file(self, tag):
        return f"{self.name}.{tag}.bin"

    def inp(self, tag, arr):
        f = self._file(tag)
        np.ascontiguousarray(arr).tofile(os.path.join(IN, f))
        self.args.append(f"in:{f}")
        return self

    def out(self, tag, ref, gpu_tol="0", ref_tol="0", nbytes=None):
        f = self._file(tag)
        self.args.append(f"out:{f}:{nbytes or ref.nbytes}")
        self._check(f, ref, gpu_tol, ref_tol)
        return self

    def io(self, tag, arr, ref, gpu_tol="0", ref_tol="0"):
        fi, fo = self._file(tag), self._file(tag + "_out")
        np.ascontiguousarray(arr).tofile(os.path.join(IN, fi))
        self.args.append(f"io:{fi}:{fo}")
        self._check(fo, ref, gpu_tol, ref_tol)
        return self

    def _check(self, f, ref, gpu_tol, ref_tol):
        np.ascontiguousarray(ref).tofile(os.path.join(REF, f))
        dt = {np.float32: "f32", np.float64: "f64", np.float16: "f16", np.int32: "i32", np.uint32: "u32",
              np.int64: "i64", np.uint64: "u64", np.uint8: "u8", np.int8: "i8", np.int16: "i16",
              np.uint16: "u16"}[ref.dtype.type]
        if getattr(ref, "bf16", False):
            dt = "bf16"
        self.checks.append(f"check:{f}={dt},{gpu_tol},{ref_tol}")

    def u32(self, v):
        self.args.append(f"u32:{int(v) & 0xffffffff}")
        return self

    def u64(self, v):
        self.args.append(f"u64:{int(v) & 0xffffffffffffffff}")
        return self

    def f32(self, v):
        return self.u32(f32bits(v))

    def f64(self, v):
        return self.u64(f64bits(v))

    def done(self):
        dim = lambda d: "x".join(map(str, d)) if isinstance(d, tuple) else str(d)
        meta = [f"shared={self.shared}"] + self.checks + ["why=" + self.why.replace(" ", "_")]
        LINES.append(" ".join(["case", self.name, self.ptx, self.kernel, dim(self.grid), dim(self.block)]
                              + self.args + meta))


class Bf16(np.ndarray):
    """A uint16 array holding bfloat16 bits (checked as bf16)."""
    bf16 = True


def to_bf16(x):
    """Round f32 values to bfloat16 (round to nearest even); returns the bits as Bf16."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return r.view(Bf16)


def from_bf16(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


# --- helpers for numba's array arguments (meminfo, parent, nitems, itemsize, data, shape, strides)
def nb_array(c, tag, arr, ref=None, gpu_tol="0", ref_tol="0", out=False):
    c.u64(0).u64(0).u64(arr.size).u64(arr.itemsize)
    if out:
        c.out(tag, ref, gpu_tol, ref_tol)
    elif ref is None:
        c.inp(tag, arr)
    else:
        c.io(tag, arr, ref, gpu_tol, ref_tol)
    for s in arr.shape:
        c.u64(s)
    for s in arr.strides:
        c.u64(s)
    return c


def randf(n, lo=-1.0, hi=1.0, dt=np.float32):
    return rng.uniform(lo, hi, n).astype(dt)


def write(all_cases):
    """Clears in/ and ref/, runs the case definitions, writes cases.txt."""
    os.makedirs(IN, exist_ok=True)
    os.makedirs(REF, exist_ok=True)
    for d in (IN, REF):
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    all_cases()
    with open(os.path.join(HERE, "cases.txt"), "w") as fh:
        fh.write("# written by tests/corpus_runs/gen.py; format in README.md\n")
        fh.write("\n".join(LINES) + "\n")
    print(f"gen: {len(LINES)} cases")
