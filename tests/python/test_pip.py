"""pip builds the C library with CMake and installs a package that works
from any folder: normal and editable installs, in a fresh venv that sees
Debian's numpy, with no network and without the source tree on sys.path."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What pip needs of the source tree: the tests install from a copy, so that
# neither pip's build folder nor an editable install's library lands in it.
SOURCES = ("CMakeLists.txt", "LICENSE", "README.md", "pyproject.toml", "setup.py", "snapkit.pc.in",
           "include", "lib", "python")
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


def _source_copy(tmp_path):
    tree = tmp_path / "src"
    for name in SOURCES:
        origin = os.path.join(ROOT, name)
        if os.path.isdir(origin):
            shutil.copytree(origin, tree / name,
                            ignore=shutil.ignore_patterns("__pycache__", "libsnapkit.so"))
        else:
            tree.mkdir(exist_ok=True)
            shutil.copy(origin, tree / name)
    return tree


def _pip_install(python, tree, *args):
    cmd = [str(python), "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q",
           *args]
    run = subprocess.run(cmd, cwd=tree, env=_clean_env(), capture_output=True, text=True)
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
    _pip_install(python, _source_copy(tmp_path), ".")
    path, rows = _import_from(python, tmp_path)
    assert path.startswith(str(tmp_path / "venv")), path
    assert os.path.exists(os.path.join(os.path.dirname(path), "libsnapkit.so"))
    assert rows == GRAVPART_ROWS
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", "snapkit"],
                   env=_clean_env(), check=True)


def test_pip_install_editable(tmp_path):
    python = _venv(tmp_path)
    tree = _source_copy(tmp_path)
    _pip_install(python, tree, "-e", ".")
    path, rows = _import_from(python, tmp_path)
    assert path == str(tree / "python" / "snapkit" / "__init__.py"), path
    assert rows == GRAVPART_ROWS
