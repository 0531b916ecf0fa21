"""docs/examples/quickstart.ipynb runs from top to bottom with Debian's
python3 kernel (jupyter nbconvert --execute), so it never goes stale, and
is committed without outputs."""
import json
import os
import shutil
import subprocess

import pytest

from ramses_fixtures import ROOT

NOTEBOOK = os.path.join(ROOT, "docs", "examples", "quickstart.ipynb")


def test_committed_without_outputs():
    nb = json.load(open(NOTEBOOK, encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code
    for cell in code:
        assert cell["outputs"] == [] and cell["execution_count"] is None, cell["source"][:80]
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


def test_quickstart_executes(tmp_path):
    jupyter = shutil.which("jupyter", path="/usr/bin")
    if jupyter is None:
        pytest.fail("jupyter nbconvert is missing (Debian: apt-get install jupyter-nbconvert "
                    "python3-ipykernel)")
    env = dict(os.environ)
    # Debian's interpreter first, so the python3 kernel is /usr/bin/python3 with
    # Debian's numpy, matplotlib, pandas and astropy
    env["PATH"] = "/usr/bin:/bin:" + env.get("PATH", "")
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger note on stderr
    env.setdefault("MPLCONFIGDIR", str(tmp_path / "mpl"))
    run = subprocess.run([jupyter, "nbconvert", "--to", "notebook", "--execute",
                          "--ExecutePreprocessor.kernel_name=python3",
                          "--ExecutePreprocessor.timeout=600",
                          "--output-dir", str(tmp_path), NOTEBOOK],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-4000:]
    nb = json.load(open(tmp_path / "quickstart.ipynb", encoding="utf-8"))
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    text = "".join("".join(o.get("text", "")) for o in outputs if o["output_type"] == "stream")
    assert "same rows as the RAMSES read: True" in text
    assert "solMass / pc2" in text  # the FITS map read back by astropy with its unit
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert "slice of 256 x 256 pixels" in text
    assert len(figures) == 4  # the maps, the face-on sphere, profile/phase/slice, the benchmark
    assert "mass-weighted v_phi about L" in text and "densest cell at" in text
    # snapkit.to_yt's dataset drawn by yt's own ProjectionPlot (shown as HTML)
    assert "to_yt: [" in text and "star particles" in text
    html = ["".join(o.get("data", {}).get("text/html", "")) for o in outputs]
    html = [h for h in html if "data:image/png" in h]
    assert len(html) == 1
