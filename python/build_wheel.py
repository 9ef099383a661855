#!/usr/bin/env python3
"""Builds the ``ptxjit`` Python wheel from this directory's package and the built
binaries, offline and with the standard library only:

    cargo build --release -p ptxjit -p ptxjit-cuda
    python3 python/build_wheel.py --libcuda target/release/libcuda.so \\
        --cli target/release/ptxjit --out dist
    pip install dist/ptxjit-*.whl

The wheel holds ``ptxjit/`` (``__init__.py``, ``__main__.py``), the library as
``ptxjit/lib/libcuda.so.1``, the CLI as ``ptxjit/bin/ptxjit`` (with ``--cli``), and a
``ptxjit`` console script. Debug sections are stripped from the copies when
``objcopy`` is there (``--no-strip`` keeps them). The version is the Cargo package's.
The platform tag is ``manylinux_2_N_x86_64`` when the library and the CLI need only
glibc 2.N and the libraries manylinux allows (checked with ``readelf``), else
``linux_x86_64``. Prints the wheel's path.
"""

import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The libraries a manylinux wheel may link against (PEP 599/600).
MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
    "libgcc_s.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2", "libutil.so.1",
}


def cargo_version():
    text = open(os.path.join(ROOT, "Cargo.toml")).read()
    m = re.search(r'^\[package\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
    if not m:
        sys.exit("build_wheel: no [package] version in Cargo.toml")
    return m.group(1)


def glibc_needs(path):
    """(highest GLIBC_2.N minor, set of DT_NEEDED) of an ELF file, or None without
    readelf."""
    try:
        dyn = subprocess.run(["readelf", "-d", "-V", "-W", path], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    minors = [int(m) for m in re.findall(r"GLIBC_2\.(\d+)", dyn)]
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn))
    return max(minors, default=0), needed


def platform_tag(files):
    minor = 0
    for f in files:
        info = glibc_needs(f)
        if info is None or not info[1] <= MANYLINUX_LIBS:
            return "linux_x86_64"
        minor = max(minor, info[0])
    return f"manylinux_2_{max(minor, 17)}_x86_64"


def stripped(src, tmp, strip):
    dst = os.path.join(tmp, os.path.basename(src) + ".copy")
    if strip and shutil.which("objcopy"):
        subprocess.run(["objcopy", "--strip-debug", src, dst], check=True)
    else:
        shutil.copyfile(src, dst)
    return dst


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def metadata(version):
    readme = ("ptxjit runs NVIDIA PTX kernels on x86-64 CPUs with exact GPU semantics. "
              "This package bundles its drop-in CUDA driver (libcuda.so.1): "
              "`python -m ptxjit exec -- CMD` runs CMD on it, "
              "`import ptxjit; ptxjit.activate()` makes the running interpreter use it "
              "(before numba-cuda or CuPy load a driver).\n")
    return (f"Metadata-Version: 2.1\nName: ptxjit\nVersion: {version}\n"
            "Summary: Run CUDA PTX kernels on the CPU: a drop-in libcuda.so.1 for "
            "numba-cuda, CuPy and CUDA programs\n"
            "License: MIT OR Apache-2.0\nRequires-Python: >=3.8\n"
            "Description-Content-Type: text/markdown\n\n" + readme)


def build(libcuda, cli, out, strip):
    version = cargo_version()
    with tempfile.TemporaryDirectory() as tmp:
        binaries = {"ptxjit/lib/libcuda.so.1": stripped(libcuda, tmp, strip)}
        if cli:
            binaries["ptxjit/bin/ptxjit"] = stripped(cli, tmp, strip)
        tag = f"py3-none-{platform_tag(list(binaries.values()))}"
        dist = f"ptxjit-{version}.dist-info"
        files = []  # (name in the wheel, bytes, executable)
        for name in ("__init__.py", "__main__.py"):
            with open(os.path.join(HERE, "ptxjit", name), "rb") as f:
                files.append((f"ptxjit/{name}", f.read(), False))
        for name, path in binaries.items():
            with open(path, "rb") as f:
                files.append((name, f.read(), name.endswith("/ptxjit")))
        files.append((f"{dist}/METADATA", metadata(version).encode(), False))
        files.append((f"{dist}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: ptxjit build_wheel.py\n"
            f"Root-Is-Purelib: false\nTag: {tag}\n").encode(), False))
        files.append((f"{dist}/entry_points.txt",
                      b"[console_scripts]\nptxjit = ptxjit.__main__:main\n", False))
        record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in files)
        record += f"{dist}/RECORD,,\n"
        files.append((f"{dist}/RECORD", record.encode(), False))
        os.makedirs(out, exist_ok=True)
        wheel = os.path.join(out, f"ptxjit-{version}-{tag}.whl")
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data, exe in files:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (0o100755 if exe or name.endswith(".so.1")
                                      else 0o100644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    return wheel


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--libcuda", required=True, help="the built libcuda.so")
    p.add_argument("--cli", help="the built ptxjit executable (optional)")
    p.add_argument("--out", default=os.path.join(ROOT, "target", "wheels"))
    p.add_argument("--no-strip", action="store_true")
    a = p.parse_args()
    for f in filter(None, (a.libcuda, a.cli)):
        if not os.path.isfile(f):
            sys.exit(f"build_wheel: {f} is missing (cargo build --release -p ptxjit "
                     "-p ptxjit-cuda)")
    print(build(a.libcuda, a.cli, a.out, not a.no_strip))


if __name__ == "__main__":
    main()
