"""``python -m ptxjit`` and the ``ptxjit`` console script.

    ptxjit exec [--sanitize LIST] [--sanitize-json PATH] [--backend jit|interp] [-v]
                [--] CMD ARGS...     run CMD with ptxjit as its GPU
    ptxjit lib                       print the path of the libcuda.so.1 in use
    ptxjit env                       print shell `export` lines of the exec environment
    ptxjit check|run|dump|fuzz ...   the bundled ptxjit command-line tool
"""

import argparse
import os
import shlex
import sys

import ptxjit


def _exec(argv):
    p = argparse.ArgumentParser(
        prog="ptxjit exec",
        description="Run CMD with ptxjit's libcuda.so.1 as its GPU.")
    p.add_argument("--sanitize", help="memcheck,racecheck,initcheck,synccheck, all, "
                   "report-only (sets PTXJIT_SANITIZE)")
    p.add_argument("--sanitize-json", help="also write findings to this JSON file")
    p.add_argument("--backend", choices=["jit", "interp"])
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print the library and the environment set")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("no command given")
    settings = dict(sanitize=a.sanitize, sanitize_json=a.sanitize_json,
                    backend=a.backend)
    if a.verbose:
        env = ptxjit.environment(**settings)
        print(f"ptxjit exec: libcuda {ptxjit.libcuda_path()}", file=sys.stderr)
        for k in sorted(env):
            if os.environ.get(k) != env[k]:
                print(f"ptxjit exec: {k}={env[k]}", file=sys.stderr)
    try:
        ptxjit.exec_command(cmd, **settings)
    except OSError as e:
        print(f"ptxjit exec: cannot run {cmd[0]!r}: {e}", file=sys.stderr)
        return 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    try:
        if cmd == "exec":
            return _exec(rest)
        if cmd == "lib":
            print(ptxjit.libcuda_path())
            return 0
        if cmd == "env":
            env = ptxjit.environment()
            for k in sorted(env):
                if os.environ.get(k) != env[k]:
                    print(f"export {k}={shlex.quote(env[k])}")
            return 0
    except FileNotFoundError as e:
        print(f"ptxjit: {e}", file=sys.stderr)
        return 1
    exe = ptxjit._bundled_cli()
    if exe is None:
        print(f"ptxjit: unknown command {cmd!r} (this package has no bundled ptxjit "
              "executable; it offers exec, lib and env)", file=sys.stderr)
        return 2
    os.execv(exe, [exe] + argv)


if __name__ == "__main__":
    sys.exit(main())
