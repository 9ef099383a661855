"""ptxjit as the GPU of unmodified CUDA programs and Python GPU libraries.

ptxjit runs NVIDIA PTX kernels on x86-64 CPUs. This package bundles its drop-in CUDA
driver, ``libcuda.so.1``, and points programs at it:

- ``python -m ptxjit exec -- CMD ARGS...`` (or the ``ptxjit exec`` console script)
  runs CMD with the library first on ``LD_LIBRARY_PATH`` and the settings numba-cuda
  and CuPy need (see :func:`environment`), replacing the current process;
- ``import ptxjit; ptxjit.activate()`` makes the running interpreter use it: call it
  before numba-cuda, CuPy or ``cuda.bindings`` load a driver (before importing CuPy,
  before the first ``numba.cuda`` call).

``PTXJIT_LIBCUDA`` (a file, or a directory holding ``libcuda.so.1``) overrides the
bundled library.
"""

import ctypes
import os
import sys

__all__ = ["activate", "environment", "exec_command", "libcuda_path"]

_PKG = os.path.dirname(os.path.abspath(__file__))
_NAMES = ("libcuda.so.1", "libcuda.so")
_handle = None


def _lib_in(path):
    if os.path.isfile(path):
        return path
    for name in _NAMES:
        f = os.path.join(path, name)
        if os.path.isfile(f):
            return f
    return None


def libcuda_path():
    """The ``libcuda.so.1`` to use: ``$PTXJIT_LIBCUDA``, else the bundled one."""
    given = os.environ.get("PTXJIT_LIBCUDA")
    if given:
        lib = _lib_in(given)
        if lib is None:
            raise FileNotFoundError(
                f"PTXJIT_LIBCUDA={given}: no libcuda.so.1 or libcuda.so there")
        return os.path.realpath(lib)
    lib = os.path.join(_PKG, "lib", "libcuda.so.1")
    if not os.path.isfile(lib):
        raise FileNotFoundError(
            f"{lib} is missing: this ptxjit package was installed without its "
            "library; set PTXJIT_LIBCUDA")
    return os.path.realpath(lib)


def _loader_dir(lib):
    """A directory in which ``libcuda.so.1`` is ``lib``."""
    d = os.path.dirname(lib)
    if os.path.realpath(os.path.join(d, "libcuda.so.1")) == lib:
        return d
    import hashlib
    import tempfile
    tag = hashlib.sha256(lib.encode()).hexdigest()[:16]
    d = os.path.join(tempfile.gettempdir(), f"ptxjit-{os.getuid()}-libcuda-{tag}")
    os.makedirs(d, exist_ok=True)
    for name in _NAMES:
        link = os.path.join(d, name)
        if os.path.realpath(link) != lib:
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(lib, link)
    return d


def environment(sanitize=None, sanitize_json=None, backend=None, base=None):
    """The environment for a program that should run on ptxjit, from ``base``
    (default ``os.environ``): ``LD_LIBRARY_PATH`` with the library's directory first,
    ``PTXJIT_LIBCUDA``, and unless already set ``NUMBA_CUDA_DRIVER`` (numba's older
    built-in CUDA target reads it), ``NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0``,
    ``CUPY_COMPILE_WITH_PTX=1`` (ptxjit runs PTX, not SASS) and ``CUPY_ACCELERATORS=``
    (CuPy's precompiled CUB is sm_100 PTX that takes minutes to load). ``sanitize``
    ("memcheck,racecheck,initcheck,synccheck", "all", "report-only"), ``sanitize_json``
    (a path) and ``backend`` ("jit" or "interp") set ``PTXJIT_SANITIZE``,
    ``PTXJIT_SANITIZE_JSON`` and ``PTXJIT_CUDA_BACKEND``. The same settings as the
    Rust CLI's ``ptxjit exec``."""
    env = dict(os.environ if base is None else base)
    lib = libcuda_path()
    d = _loader_dir(lib)
    old = env.get("LD_LIBRARY_PATH")
    env["LD_LIBRARY_PATH"] = d + (":" + old if old else "")
    env["PTXJIT_LIBCUDA"] = lib
    env.setdefault("NUMBA_CUDA_DRIVER", lib)
    env.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    env.setdefault("CUPY_COMPILE_WITH_PTX", "1")
    env.setdefault("CUPY_ACCELERATORS", "")
    if sanitize is not None:
        env["PTXJIT_SANITIZE"] = sanitize
    if sanitize_json is not None:
        env["PTXJIT_SANITIZE_JSON"] = os.fspath(sanitize_json)
    if backend is not None:
        if backend not in ("jit", "interp"):
            raise ValueError(f"backend must be 'jit' or 'interp', not {backend!r}")
        env["PTXJIT_CUDA_BACKEND"] = backend
    return env


def exec_command(argv, **settings):
    """Replaces this process with ``argv`` run on ptxjit (see :func:`environment` for
    ``settings``). Does not return."""
    if not argv:
        raise ValueError("no command given")
    env = environment(**settings)
    os.execvpe(argv[0], list(argv), env)


def _loaded_libcuda():
    """The paths of the libcuda libraries mapped into this process."""
    found = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith("libcuda.so"):
                    found.add(os.path.realpath(path))
    except OSError:
        pass
    return found


def activate(sanitize=None, sanitize_json=None, backend=None):
    """Makes this process use ptxjit's ``libcuda.so.1``; returns its path.

    Loads the library globally (its soname is ``libcuda.so.1``, so the dynamic loader
    hands it to every later ``dlopen("libcuda.so.1")``: numba-cuda's and
    ``cuda.bindings``' driver loaders, CuPy's extension modules) and sets
    :func:`environment`'s variables in ``os.environ`` (variables already set are kept;
    child processes inherit them). Raises ``RuntimeError`` when another libcuda is
    already loaded: call it before CuPy is imported and before numba-cuda first talks
    to the driver. Calling it again is a no-op."""
    global _handle
    lib = libcuda_path()
    if _handle is not None:
        return lib
    others = _loaded_libcuda() - {lib}
    if others:
        raise RuntimeError(
            "ptxjit.activate(): another CUDA driver is already loaded ("
            + ", ".join(sorted(others))
            + "); call ptxjit.activate() before importing CuPy or using numba.cuda")
    env = environment(sanitize, sanitize_json, backend)
    for k, v in env.items():
        if os.environ.get(k) != v:
            os.environ[k] = v
    _handle = ctypes.CDLL(lib, mode=os.RTLD_GLOBAL)
    return lib


def _bundled_cli():
    """The bundled ``ptxjit`` executable, if this package has one."""
    exe = os.path.join(_PKG, "bin", "ptxjit")
    return exe if os.access(exe, os.X_OK) else None


if sys.platform != "linux":  # pragma: no cover
    import warnings
    warnings.warn("ptxjit's libcuda.so.1 is built for Linux x86-64")
