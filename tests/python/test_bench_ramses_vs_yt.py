"""peers/ramses_vs_yt.py times every RAMSES fixture and every component
each holds (issue 10): its --list names them without timing anything."""
import os
import subprocess
import sys

from ramses_fixtures import ROOT, SHARED

BENCH = os.path.join(ROOT, "peers", "ramses_vs_yt.py")
# fixture: components it must time (as the fixtures' READMEs list them)
WANT = {"tube1d": {"hydro"}, "sedov2d": {"hydro"}, "coarse222": {"hydro"},
        "coarse211b": {"hydro"}, "mhd3d": {"hydro"}, "rt3d": {"hydro", "rt"},
        "sink3d": {"hydro", "gravity", "particles", "sinks"},
        "clumps3d": {"hydro", "gravity", "clump_field", "clumps"},
        "cosmo32": {"hydro", "gravity", "particles"}}


def test_bench_lists_every_fixture_and_component():
    out = subprocess.run([sys.executable, BENCH, "--list"], check=True, capture_output=True,
                         text=True).stdout
    listed = {}
    for line in out.splitlines():
        name, *comps = line.split()
        listed.setdefault(name.split("/")[0], set()).update(comps)
    for fixture, comps in WANT.items():
        here = os.path.isdir(os.path.join(SHARED, "fixtures", "ramses", fixture)) or \
            os.path.isdir(os.path.join(ROOT, "tests", "data", "ramses", fixture))
        if here:
            assert comps <= listed.get(fixture, set()), fixture
