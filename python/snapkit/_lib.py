"""Loading libsnapkit and the ctypes declarations shared by every module."""
import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("SNAPKIT_LIBRARY")
    if env:
        yield env
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
    raise ImportError("snapkit: cannot find libsnapkit.so; build it with `make build` or set "
                      "SNAPKIT_LIBRARY. Tried: " + "; ".join(tried))


lib = _load()


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


class ColumnStruct(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("nlabels", ctypes.c_int32),
        ("labels", ctypes.POINTER(ctypes.c_char_p)),
    ]


class MemStats(ctypes.Structure):
    _fields_ = [("total", ctypes.c_uint64), ("current", ctypes.c_uint64),
                ("peak", ctypes.c_uint64), ("calls", ctypes.c_uint64)]


class ThreadBudget(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_int), ("requested", ctypes.c_int), ("owned", ctypes.c_int),
                ("machine", ctypes.c_int), ("affinity", ctypes.c_int),
                ("limited_by", ctypes.c_char * 64)]


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
