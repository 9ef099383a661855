"""pytest plugin for running a subset of CuPy's own tests (from CuPy's source
distribution) on ptxjit: appends each failure or error, with its one-line cause, to the
file that CUPY_SUITE_FAILURES names as soon as it happens (a run cut short keeps them).
Loaded with `-p cupy_suite_plugin` (its folder on PYTHONPATH) by scripts/cupy_suite.sh.
"""

import os


def pytest_runtest_logreport(report):
    path = os.environ.get("CUPY_SUITE_FAILURES")
    if not path or not report.failed:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    msg = crash.message if crash is not None else str(report.longrepr)
    msg = " ".join(msg.split())
    if len(msg) > 300:
        # CuPy's numpy_cupy_* decorators put the traceback in the message: its
        # start names the check, its end the error
        msg = msg[:140] + " ... " + msg[-155:]
    stage = "" if report.when == "call" else f" (in {report.when})"
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{report.nodeid}{stage}: {msg}\n")


def pytest_collectreport(report):
    """A module that fails to import is one error line too."""
    path = os.environ.get("CUPY_SUITE_FAILURES")
    if not path or not report.failed:
        return
    msg = " ".join(str(report.longrepr).split())[-300:]
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{report.nodeid} (in collection): {msg}\n")
