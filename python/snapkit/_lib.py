"""Loading libsnapkit and the ctypes declarations shared by every module."""
import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("SNAPKIT_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, "libsnapkit.so")  # put there by `pip install`
    try:  # written by `cmake --install`
        from ._libpath import LIBRARY
        yield LIBRARY
    except ImportError:
        pass
    root = os.path.dirname(os.path.dirname(_HERE))  # a source checkout
    for build in ("build", "build-release"):
        yield os.path.join(root, build, "libsnapkit.so")
    yield "libsnapkit.so.0"


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as exc:
            tried.append(f"{path} ({exc})")
    raise ImportError("snapkit: cannot find libsnapkit.so; build it with `make build`, install the package with `pip install .`, or set "
                      "SNAPKIT_LIBRARY. Tried: " + "; ".join(tried))


lib = _load()


def c_path(path):
    """path (str, bytes or os.PathLike) as the bytes a C function takes. A NUL
    in it would end the C string early and name another file, so it is
    refused, as Python's own open() refuses it."""
    raw = os.fsencode(path)
    if b"\0" in raw:
        raise ValueError(f"snapkit: embedded null byte in the path {path!r}")
    return raw

# Every ctypes.Structure that mirrors a C struct is registered here with the
# C struct's name; check_abi() compares it with the layout the library was
# built with (snapkit/abi.h) before anything is called.
MIRRORS = []


def mirrors(c_name):
    """Class decorator: this ctypes.Structure mirrors C struct `c_name`."""
    def register(cls):
        cls._c_name_ = c_name
        MIRRORS.append(cls)
        return cls
    return register


def _abi_functions():
    try:
        fns = lib.sk_abi_struct, lib.sk_abi_field, lib.sk_abi_field_name
    except AttributeError:
        raise ImportError("snapkit: the library %s predates this Python package (it has no "
                          "sk_abi_struct); rebuild it or set SNAPKIT_LIBRARY to a matching "
                          "build" % lib._name) from None
    st, fi, fname = fns
    st.restype, st.argtypes = ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t),
                                             ctypes.POINTER(ctypes.c_int)]
    fi.restype, fi.argtypes = ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_size_t),
                                             ctypes.POINTER(ctypes.c_size_t)]
    fname.restype, fname.argtypes = ctypes.c_char_p, [ctypes.c_char_p, ctypes.c_int]
    return st, fi, fname


def abi_mismatches(cls):
    """How the ctypes mirror `cls` differs from the library's struct: a list
    of one-line descriptions (empty when they agree)."""
    st, fi, fname = _abi_functions()
    c_name = cls._c_name_
    where = f"{cls.__module__}.{cls.__qualname__}"
    size, nfields = ctypes.c_size_t(), ctypes.c_int()
    if st(c_name.encode(), ctypes.byref(size), ctypes.byref(nfields)) != 0:
        return [f"{c_name}: the library does not describe this struct (mirrored by {where})"]
    problems = []
    if size.value != ctypes.sizeof(cls):
        problems.append(f"{c_name}: {size.value} bytes in the library, {ctypes.sizeof(cls)} "
                        f"in {where}")
    c_fields = [fname(c_name.encode(), i).decode() for i in range(nfields.value)]
    py_fields = [f[0] for f in cls._fields_]
    for name in c_fields:
        if name not in py_fields:
            problems.append(f"{c_name}.{name}: member missing from {where}")
    for name in py_fields:
        off, fsize = ctypes.c_size_t(), ctypes.c_size_t()
        if fi(c_name.encode(), name.encode(), ctypes.byref(off), ctypes.byref(fsize)) != 0:
            problems.append(f"{c_name}.{name}: no such member in the library ({where})")
            continue
        mine = getattr(cls, name)
        if (mine.offset, mine.size) != (off.value, fsize.value):
            problems.append(f"{c_name}.{name}: offset {off.value} size {fsize.value} in the "
                            f"library, offset {mine.offset} size {mine.size} in {where}")
    return problems


def check_abi(structs=None):
    """Raise ImportError, naming struct and member, when a ctypes mirror
    (default: every registered one) disagrees with the library's layout."""
    problems = []
    for cls in MIRRORS if structs is None else structs:
        problems += abi_mismatches(cls)
    if problems:
        raise ImportError("snapkit: the Python binding does not match the library %s (rebuild "
                          "both from one source tree): %s" % (lib._name, "; ".join(problems)))


@mirrors("sk_error")
class ErrorStruct(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("offset", ctypes.c_int64),
        ("record", ctypes.c_int64),
        ("line", ctypes.c_int64),
        ("column", ctypes.c_int64),
        ("path", ctypes.c_char * 1024),
        ("message", ctypes.c_char * 2048),
    ]


class Error(Exception):
    """A snapkit failure: the message names the file and where in it."""

    def __init__(self, message, code=1, path=None, offset=None, line=None, column=None,
                 record=None):
        super().__init__(message)
        self.code = code
        self.path = path
        self.offset = offset
        self.line = line
        self.column = column
        self.record = record


class Closing:
    """A handle that close() releases: on leaving a with block, and when
    collected."""

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def raise_error(err):
    """Raise Error from a filled ErrorStruct."""
    def opt(v):
        return None if v < 0 else v
    raise Error(err.message.decode("utf-8", "replace"), err.code,
                err.path.decode("utf-8", "replace") or None, opt(err.offset), opt(err.line),
                opt(err.column), opt(err.record))


def check(status, err):
    if status != 0:
        raise_error(err)


@mirrors("sk_column")
class ColumnStruct(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("nlabels", ctypes.c_int32),
        ("labels", ctypes.POINTER(ctypes.c_char_p)),
    ]


@mirrors("sk_mem_stats")
class MemStats(ctypes.Structure):
    _fields_ = [("total", ctypes.c_uint64), ("current", ctypes.c_uint64),
                ("peak", ctypes.c_uint64), ("calls", ctypes.c_uint64)]


@mirrors("sk_thread_budget")
class ThreadBudget(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_int), ("requested", ctypes.c_int), ("owned", ctypes.c_int),
                ("machine", ctypes.c_int), ("affinity", ctypes.c_int),
                ("limited_by", ctypes.c_char * 64)]


@mirrors("sk_progress")
class Progress(ctypes.Structure):
    _fields_ = [("fn", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


def declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


P = ctypes.c_void_p
ERR = ctypes.POINTER(ErrorStruct)

declare("sk_version", ctypes.c_char_p)
declare("sk_table_new", P, ctypes.c_int64)
declare("sk_table_free", None, P)
declare("sk_table_nrows", ctypes.c_int64, P)
declare("sk_table_ncols", ctypes.c_int, P)
declare("sk_table_col", ctypes.POINTER(ColumnStruct), P, ctypes.c_int)
declare("sk_table_add", P, P, ctypes.c_char_p, ctypes.c_int, ERR)
declare("sk_table_set_labels", ctypes.c_int, P, ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_char_p), ctypes.c_int32, ERR)
declare("sk_table_meta_set", ctypes.c_int, P, ctypes.c_char_p, ctypes.c_char_p)
declare("sk_table_meta_count", ctypes.c_int, P)
declare("sk_table_meta_key", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_table_meta_value", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_table_bytes", ctypes.c_int64, P)
declare("sk_mem_get", None, ctypes.POINTER(MemStats))
declare("sk_mem_reset_peak", None)
declare("sk_thread_budget_get", ctypes.c_int, ctypes.c_int, ctypes.POINTER(ThreadBudget))
