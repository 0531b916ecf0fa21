"""How every test file counts what it skips (pytest loads this file itself).

- Each skip is printed as a `SKIP: reason` line, which scripts/test-summary.py
  counts beside CTest's verdicts.
- A file whose tests all skipped exits 77, which CTest reports as skipped,
  not passed; a failure anywhere in the file still fails it.
- Where SNAPKIT_REQUIRE_PEERS names peers (CI names those it installs), a
  skip whose reason names one of them is a failure: a peer that CI installs
  was not found, and its comparisons would silently not run.
"""
import os
import re

import pytest

SKIP_STATUS = 77  # CTest's SKIP_RETURN_CODE for every test


def _required_peers():
    names = os.environ.get("SNAPKIT_REQUIRE_PEERS", "").replace(",", " ").split()
    return [(name, re.compile(r"\b%s\b" % re.escape(name), re.IGNORECASE)) for name in names]


REQUIRED = _required_peers()


def _reason(report):
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_if_required(report):
    if not report.skipped or not REQUIRED:
        return
    reason = _reason(report)
    for name, pattern in REQUIRED:
        if pattern.search(reason):
            report.outcome = "failed"
            report.longrepr = ("skipped, but %s is a peer this run requires "
                               "(SNAPKIT_REQUIRE_PEERS): %s" % (name, reason))
            return


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_if_required(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_if_required(outcome.get_result())


def pytest_terminal_summary(terminalreporter):
    for report in terminalreporter.stats.get("skipped", []):
        terminalreporter.write_line("SKIP: %s: %s" % (report.nodeid, _reason(report)))


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter else {}
    ran = sum(len(stats.get(k, [])) for k in ("passed", "failed", "error", "xfailed", "xpassed"))
    if stats.get("skipped") and not ran and exitstatus in (0, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = SKIP_STATUS
