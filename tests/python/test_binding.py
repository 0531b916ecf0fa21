"""The ctypes mirrors of C structs are checked against the library's own
layout (snapkit/abi.h) at import: a mismatch is an ImportError naming the
struct and member, never a call with the wrong bytes."""
import ctypes
import os
import subprocess
import sys
import textwrap

import pytest

import snapkit
from snapkit import _lib
from snapkit.ramses import _ReadOptions


def test_every_mirror_matches_the_library():
    names = {cls._c_name_ for cls in _lib.MIRRORS}
    # the structs the package passes to or reads from the library
    assert {"sk_error", "sk_column", "sk_selection", "sk_region_request", "sk_read_options",
            "sk_store_convert_options", "sk_store_convert_stats", "sk_image_options",
            "sk_atoms_options", "sk_table_stats", "sk_progress"} <= names
    assert len(_lib.MIRRORS) >= 19
    for cls in _lib.MIRRORS:
        assert _lib.abi_mismatches(cls) == [], cls
    _lib.check_abi()


def _wrong_read_options():
    # with_refined declared 8 bytes wide: the struct grows and the member differs
    class Wrong(ctypes.Structure):
        _c_name_ = "sk_read_options"
        _fields_ = [("threads", ctypes.c_int), ("progress", _lib.Progress),
                    ("with_refined", ctypes.c_int64)]
    return Wrong


def test_wrong_member_is_an_import_error(monkeypatch):
    wrong = _wrong_read_options()
    monkeypatch.setattr(_lib, "MIRRORS", [wrong])
    with pytest.raises(ImportError, match=r"sk_read_options\.with_refined: offset 24 size 4 "
                                          r"in the library, offset 24 size 8"):
        _lib.check_abi()

    class Longer(ctypes.Structure):  # a member the C struct does not have, at its end
        _c_name_ = "sk_read_options"
        _fields_ = _ReadOptions._fields_ + [("more", ctypes.c_int64)]
    with pytest.raises(ImportError, match=r"sk_read_options: 40 bytes in the library, 48 in "
                                          r".*Longer; sk_read_options\.more: no such member"):
        _lib.check_abi([Longer])
    _lib.check_abi([_ReadOptions])  # the real one still agrees


def test_missing_renamed_and_unknown():
    class Missing(ctypes.Structure):  # the C member `failed` left out
        _c_name_ = "sk_image_options"
        _fields_ = [("log_scale", ctypes.c_int), ("has_range", ctypes.c_int),
                    ("vmin", ctypes.c_double)]

    class Renamed(ctypes.Structure):  # sizes right, a name the library lacks
        _c_name_ = "sk_mem_stats"
        _fields_ = [("total", ctypes.c_uint64), ("current", ctypes.c_uint64),
                    ("peak", ctypes.c_uint64), ("ncalls", ctypes.c_uint64)]

    class Unknown(ctypes.Structure):
        _c_name_ = "sk_no_such_struct"
        _fields_ = [("x", ctypes.c_int)]

    with pytest.raises(ImportError, match=r"sk_image_options\.vmax: member missing from "
                                          r".*Missing"):
        _lib.check_abi([Missing])
    problems = _lib.abi_mismatches(Renamed)
    assert "sk_mem_stats.calls: member missing" in problems[0]
    assert "sk_mem_stats.ncalls: no such member in the library" in problems[1]
    with pytest.raises(ImportError, match="sk_no_such_struct: the library does not describe"):
        _lib.check_abi([Unknown])


def test_import_runs_the_check():
    # A fresh interpreter: register a wrong mirror, then run the package's
    # import again; it must refuse with ImportError before any call.
    code = textwrap.dedent("""
        import ctypes, importlib
        import snapkit
        from snapkit import _lib

        @_lib.mirrors("sk_error")
        class Bad(ctypes.Structure):
            _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_int32),
                        ("record", ctypes.c_int64), ("line", ctypes.c_int64),
                        ("column", ctypes.c_int64), ("path", ctypes.c_char * 1024),
                        ("message", ctypes.c_char * 2048)]
        try:
            importlib.reload(snapkit)
        except ImportError as exc:
            print("ImportError:", exc)
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=os.environ, check=True).stdout
    assert "ImportError: snapkit: the Python binding does not match" in out
    assert "sk_error.offset: offset 8 size 8 in the library, offset 4 size 4" in out
    assert snapkit.__version__
