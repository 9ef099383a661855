"""pytest plugin for running numba-cuda's installed test suite (numba.cuda.tests).

The wheel ships the tests but not the repository's conftest.py, whose class-scoped
fixture `initialize_from_pytest_config` every CUDATestCase uses; this plugin
provides that fixture and the `--dump-failed-filechecks` option it reads.
Loaded with `-p numba_suite_plugin` (its folder on PYTHONPATH).
"""

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--dump-failed-filechecks",
        action="store_true",
        help="write reproducers for FileCheck tests that fail",
    )


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption(
        "dump_failed_filechecks"
    )


def pytest_runtest_logreport(report):
    """Appends each failure or error, with its one-line cause, to the file that
    NUMBA_SUITE_FAILURES names as soon as it happens (a run cut short keeps them)."""
    import os

    path = os.environ.get("NUMBA_SUITE_FAILURES")
    if not path or not report.failed:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    msg = crash.message if crash is not None else str(report.longrepr)
    msg = " ".join(msg.split())[:300]
    stage = "" if report.when == "call" else f" (in {report.when})"
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{report.nodeid}{stage}: {msg}\n")
