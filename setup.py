"""Builds libsnapkit with CMake and puts it inside the Python package.

Everything else is declared in pyproject.toml. The shared library is built
in build/pip/cmake (reused by the next install) and copied to snapkit/ next to
the modules, where snapkit/_lib.py looks first; an editable install copies
it into python/snapkit/ of the source tree.
"""
import os
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(ROOT, "build", "pip")


def cmake_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(snapkit VERSION ([0-9.]+)", f.read()).group(1)


def build_library():
    """Configure and build only the shared library; returns its real path."""
    cmake_dir = os.path.join(WORK, "cmake")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", cmake_dir, "-DCMAKE_BUILD_TYPE=Release",
                           "-DSNAPKIT_TESTS=OFF", "-DSNAPKIT_CLI=OFF"])
    subprocess.check_call(["cmake", "--build", cmake_dir, "--target", "snapkit",
                           "-j", str(os.cpu_count() or 1)])
    return os.path.realpath(os.path.join(cmake_dir, "libsnapkit.so"))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        package = os.path.join(ROOT, "python", "snapkit") if self.editable_mode \
            else os.path.join(self.build_lib, "snapkit")
        os.makedirs(package, exist_ok=True)
        shutil.copyfile(build_library(), os.path.join(package, "libsnapkit.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled library: tag it for this platform."""

    def has_ext_modules(self):
        return True


os.makedirs(WORK, exist_ok=True)
setup(version=cmake_version(),
      cmdclass={"build_py": BuildWithLibrary},
      distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.relpath(os.path.join(WORK, "setuptools"), ROOT)},
               "egg_info": {"egg_base": os.path.relpath(WORK, ROOT)}})
