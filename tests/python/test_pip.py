"""pip builds the C library with CMake and installs a package that works
from any folder: normal and editable installs, in a fresh venv that sees
Debian's numpy, with no network and without the source tree on sys.path."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAVPART_ROWS = 45487  # leaf cells of gravpart/output_00002 (its reference.json)


def _venv(tmp_path):
    if subprocess.run([sys.executable, "-c", "import ensurepip"]).returncode != 0:
        pytest.skip("python3-venv is not installed")
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env)], check=True)
    return env / "bin" / "python"


def _clean_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SNAPKIT_LIBRARY", "PYTHONDONTWRITEBYTECODE")}
    env["PIP_NO_INDEX"] = "1"  # nothing from the network, whatever pip.conf says
    return env


def _pip_install(python, *args):
    cmd = [str(python), "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q",
           *args]
    run = subprocess.run(cmd, cwd=ROOT, env=_clean_env(), capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def _import_from(python, folder):
    data = os.path.join(os.environ.get("SNAPKIT_TEST_DATA", os.path.join(ROOT, "tests", "data")),
                        "ramses", "gravpart", "output_00002")
    code = ("import snapkit, sys; "
            f"print(snapkit.__file__); print(len(snapkit.open({data!r}).hydro()))")
    run = subprocess.run([str(python), "-c", code], cwd=folder, env=_clean_env(),
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    path, rows = run.stdout.split()
    return path, int(rows)


def test_pip_install(tmp_path):
    python = _venv(tmp_path)
    _pip_install(python, ".")
    path, rows = _import_from(python, tmp_path)
    assert path.startswith(str(tmp_path / "venv")), path
    assert os.path.exists(os.path.join(os.path.dirname(path), "libsnapkit.so"))
    assert rows == GRAVPART_ROWS
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", "snapkit"],
                   env=_clean_env(), check=True)


def test_pip_install_editable(tmp_path):
    python = _venv(tmp_path)
    library = os.path.join(ROOT, "python", "snapkit", "libsnapkit.so")
    had_library = os.path.exists(library)
    try:
        _pip_install(python, "-e", ".")
        path, rows = _import_from(python, tmp_path)
        assert path == os.path.join(ROOT, "python", "snapkit", "__init__.py"), path
        assert rows == GRAVPART_ROWS
    finally:
        if not had_library and os.path.exists(library):
            os.remove(library)  # the source tree as it was
        shutil.rmtree(tmp_path / "venv", ignore_errors=True)
