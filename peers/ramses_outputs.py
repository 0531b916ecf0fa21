"""The RAMSES outputs the comparisons with yt run on by default (imported
by peers/ramses_vs_yt.py and peers/project_vs_yt.py; not a benchmark)."""
import glob
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_outputs(pattern="output_*"):
    """Every folder matching pattern under tests/data/ramses/* and
    $SNAPKIT_SHARED/fixtures/ramses/* (default ../shared), in that order;
    a fixture/output name found in both is taken from tests/data."""
    shared = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
    seen, out = set(), []
    for base in (os.path.join(ROOT, "tests", "data", "ramses"),
                 os.path.join(shared, "fixtures", "ramses")):
        for d in sorted(glob.glob(os.path.join(base, "*", pattern))):
            key = (os.path.basename(os.path.dirname(d)), os.path.basename(d))
            if os.path.isdir(d) and key not in seen:
                seen.add(key)
                out.append(d)
    return out
