"""snapkit make-ramses: generated outputs follow RAMSES's rule for which octs
each CPU file holds (the rule is first checked on real RAMSES outputs), and
yt, reading them as it reads any RAMSES output, finds exactly the truth the
generator reports."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import ramses_amr  # noqa: E402
import ramses_yt  # noqa: E402

yt = pytest.importorskip("yt")

CLI = os.environ.get("SNAPKIT_CLI", "build/snapkit")
DATA = os.environ.get("SNAPKIT_TEST_DATA", "tests/data")

CASES = {
    "ncpu1-current-sphere": ["--ncpu", "1", "--refine", "sphere"],
    "ncpu7-2017-clumps": ["--ncpu", "7", "--format", "2017", "--refine", "clumps", "--boxlen", "2.5"],
    "ncpu64-current-random": ["--ncpu", "64", "--refine", "random", "--nvar", "7"],
    "ncpu64-2017-sphere": ["--ncpu", "64", "--format", "2017", "--seed", "5"],
}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("make_ramses")
    made = {}
    for name, args in CASES.items():
        out = root / name / "output_00002"
        truth = root / name / "truth.json"
        subprocess.run([CLI, "make-ramses", str(out), "--levelmin", "3", "--levelmax", "6",
                        "--cells-target", "5000", "--npart", "2001", "--truth-json", str(truth)]
                       + args, check=True, capture_output=True)
        made[name] = (str(out), json.loads(truth.read_text()))
    return made


@pytest.mark.parametrize("fixture", ["ramses/manyfiles/output_00002",
                                     "ramses/gravpart/output_00002"])
def test_ghost_rule_is_ramses_own(fixture):
    # Real RAMSES outputs (64 and 8 CPUs): every file holds exactly the octs
    # the rule predicts, with RAMSES's links and counts.
    assert ramses_amr.Checker(os.path.join(DATA, fixture)).problems() == []


@pytest.mark.parametrize("name", list(CASES))
def test_generated_octs_follow_the_rule(outputs, name):
    out, _ = outputs[name]
    assert ramses_amr.Checker(out).problems() == []


@pytest.fixture(scope="module")
def yt_stats(outputs):
    cache = {}

    def get(name):
        if name not in cache:
            out, truth = outputs[name]
            cache[name] = ramses_yt.stats(out, {c: list(truth[c]["columns"]) for c in truth})
        return cache[name]
    return get


def _tolerance(name):
    # yt divides particle positions by boxlen; multiplying back may move the
    # last bit of a minimum or maximum when boxlen != 1.
    return 1e-15 if "--boxlen" in CASES[name] else 0.0


@pytest.mark.parametrize("name", list(CASES))
def test_yt_reads_the_truth(outputs, yt_stats, name):
    _, truth = outputs[name]
    got = yt_stats(name)
    assert ramses_yt.compare(truth, got, extreme_tolerance=_tolerance(name)) == []
    assert got["hydro"]["rows"] == truth["hydro"]["rows"] > 4000
    assert got["particles"]["rows"] == 2001


def _snapkit_name(name):
    # snapkit gives late-2017 variables their current names.
    if name == "thermal_pressure":
        return "pressure"
    if name.startswith("passive_scalar_"):
        k = int(name.rsplit("_", 1)[1])
        return "metallicity" if k == 1 else "scalar_%02d" % (k - 1)
    return name


@pytest.mark.parametrize("name", list(CASES))
def test_yt_agrees_with_snapkit(outputs, yt_stats, name):
    import snapkit
    out, truth = outputs[name]
    ds = snapkit.open(out)
    for comp, yt_comp in yt_stats(name).items():
        sk = snapkit.column_stats(ds.read(comp))
        renamed = dict(sk, columns={col: sk["columns"][_snapkit_name(col)]
                                    for col in yt_comp["columns"]})
        assert ramses_yt.compare({comp: renamed}, {comp: yt_comp},
                                 extreme_tolerance=_tolerance(name)) == []


def test_ghost_share_grows_with_cpus(outputs):
    # The 64-CPU files hold far more ghost copies than the 1-CPU file.
    def entries(out):
        checker = ramses_amr.Checker(out)
        distinct = sum(len(v) for v in checker.octs.values())
        held = sum(h["ngrid_current"] for h, _ in checker.files)
        return held / distinct
    assert entries(outputs["ncpu1-current-sphere"][0]) == 1.0
    assert entries(outputs["ncpu64-current-random"][0]) > 3.0
