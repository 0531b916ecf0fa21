#!/usr/bin/python3
"""What a test run passed, failed and skipped, test by test.

    /usr/bin/python3 scripts/test-summary.py BUILD [BUILD ...]

Reads the JUnit file that `ctest --output-junit ctest.xml` wrote in each
build folder (the Makefile's test targets do) and prints one line a test:
its verdict, what it counted (pytest's closing line, a C test's checks) and
every `SKIP: reason` line it printed (tests/c/check.h, tests/cli/assert.sh,
tests/python/conftest.py print them), then the totals as the last line:
`tests: N passed, M failed, K skipped`.

Exits 1 when a test failed, or when SNAPKIT_REQUIRE_PEERS names a peer (CI
names those it installs: yt, ase, lammps, ...) and a skip's reason names it,
so that a comparison with a peer CI installed cannot be skipped unseen.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

JUNIT = "ctest.xml"
COUNTS = re.compile(r"^(?:=+ )?(\d+ (?:passed|failed|skipped|checks passed)\b.*?)(?: in [\d.]+s.*)?$")


def required_peers():
    names = os.environ.get("SNAPKIT_REQUIRE_PEERS", "").replace(",", " ").split()
    return [(n, re.compile(r"\b%s\b" % re.escape(n), re.IGNORECASE)) for n in names]


def verdict(case):
    status = case.get("status")
    if status == "run":
        return "passed"
    if case.find("skipped") is not None or status == "notrun":
        return "skipped"
    return "failed"


def summary_of(output):
    """The counts a test printed last (pytest's or check.h's), and its skips."""
    counts, skips = "", []
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("SKIP: "):
            skips.append(line[len("SKIP: "):])
        m = COUNTS.match(line)
        if m:
            counts = m.group(1)
    return counts, skips


def grouped(skips):
    """The skip reasons, each once with how many skips gave it (pytest's
    lines name the test first: `file::test: Skipped: reason`)."""
    counts = {}
    for line in skips:
        reason = line.split(": Skipped: ", 1)[-1]
        counts[reason] = counts.get(reason, 0) + 1
    return ["%s%s" % ("%d x " % n if n > 1 else "", r) for r, n in counts.items()]


def read_build(build):
    path = os.path.join(build, JUNIT)
    if not os.path.exists(path):
        return None
    rows = []
    for case in ET.parse(path).getroot().iter("testcase"):
        out = case.findtext("system-out") or ""
        counts, skips = summary_of(out)
        rows.append((case.get("name"), verdict(case), counts, grouped(skips)))
    return rows


def main(builds):
    peers = required_peers()
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    offending = []
    for build in builds:
        rows = read_build(build)
        if rows is None:
            print("%s: no %s (ctest did not run there)" % (build, JUNIT))
            continue
        print("%s:" % build)
        parts = 0
        for name, what, counts, skips in rows:
            totals[what] += 1
            parts += len(skips) if what == "passed" else 0
            detail = counts if what != "skipped" else "; ".join(skips) or "skipped"
            print("  %-7s %-38s %s" % (what, name, detail))
            for reason in skips if what == "passed" else []:
                print("  %-7s %-38s part skipped: %s" % ("", "", reason))
            for reason in skips:
                offending += [(name, peer, reason) for peer, p in peers if p.search(reason)]
        print("  (%d skip reason(s) inside passing tests)" % parts)
    for name, peer, reason in offending:
        print("REQUIRED PEER SKIPPED: %s: %s (SNAPKIT_REQUIRE_PEERS names %s)" % (name, reason, peer))
    print("tests: %(passed)d passed, %(failed)d failed, %(skipped)d skipped" % totals)
    return 1 if totals["failed"] or offending else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
