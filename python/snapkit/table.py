"""Tables: named numpy columns over memory the C library owns."""
import ctypes

import numpy as np

from ._lib import ErrorStruct, check, lib

# sk_dtype codes, in the order of include/snapkit/table.h.
_DTYPES = {1: np.int8, 2: np.uint8, 3: np.int16, 4: np.uint16, 5: np.int32, 6: np.uint32,
           7: np.int64, 8: np.uint64, 9: np.float32, 10: np.float64, 11: np.int32}
CATEGORY = 11
_CODES = {np.dtype(v): k for k, v in _DTYPES.items() if k != CATEGORY}


class Table:
    """A snapkit table: columns are numpy arrays that share the C memory
    (no copy); `meta` holds the metadata as strings. Indexing by name gives a
    column; a category column (e.g. element names) gives an array of str."""

    def __init__(self, handle):
        if not handle:
            raise MemoryError("snapkit: out of memory")
        self._h = ctypes.c_void_p(handle)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            lib.sk_table_free(h)
            self._h = None

    @property
    def handle(self):
        return self._h

    def __len__(self):
        return int(lib.sk_table_nrows(self._h))

    @property
    def columns(self):
        return [lib.sk_table_col(self._h, i).contents.name.decode()
                for i in range(lib.sk_table_ncols(self._h))]

    def _column(self, name):
        for i in range(lib.sk_table_ncols(self._h)):
            c = lib.sk_table_col(self._h, i).contents
            if c.name.decode() == name:
                return c
        raise KeyError(name)

    def codes(self, name):
        """The raw column (int32 codes for a category column), no copy."""
        c = self._column(name)
        dtype = np.dtype(_DTYPES[c.type])
        n = len(self)
        if n == 0 or not c.data:
            arr = np.empty(0, dtype=dtype)
        else:
            buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(c.data)
            buf._owner = self  # the memory lives as long as the table
            arr = np.frombuffer(buf, dtype=dtype)
        return arr

    def labels(self, name):
        c = self._column(name)
        return [c.labels[i].decode() for i in range(c.nlabels)]

    def __getitem__(self, name):
        c = self._column(name)
        if c.type == CATEGORY:
            return np.array(self.labels(name), dtype=object)[self.codes(name)].astype(str)
        return self.codes(name)

    def __contains__(self, name):
        return name in self.columns

    def keys(self):
        return self.columns

    @property
    def meta(self):
        return {lib.sk_table_meta_key(self._h, i).decode(): lib.sk_table_meta_value(self._h, i).decode()
                for i in range(lib.sk_table_meta_count(self._h))}

    @property
    def nbytes(self):
        return int(lib.sk_table_bytes(self._h))

    def to_dict(self):
        """Copies of every column, as a dict of numpy arrays."""
        return {name: np.array(self[name]) for name in self.columns}

    def __repr__(self):
        return f"<snapkit.Table {len(self)} rows: {', '.join(self.columns)}>"

    @classmethod
    def from_arrays(cls, columns, meta=None):
        """A new table holding copies of the given arrays (equal lengths).
        Arrays of strings become category columns."""
        arrays = {k: np.asarray(v) for k, v in columns.items()}
        lengths = {len(a) for a in arrays.values()}
        if len(lengths) > 1:
            raise ValueError("snapkit: columns have different lengths: %s" % sorted(lengths))
        n = lengths.pop() if lengths else 0
        t = cls(lib.sk_table_new(n))
        err = ErrorStruct()
        for name, a in arrays.items():
            if a.dtype.kind in "US" or a.dtype == object:
                labels, codes = np.unique(a.astype(str), return_inverse=True)
                ptr = lib.sk_table_add(t._h, name.encode(), CATEGORY, ctypes.byref(err))
                check(0 if ptr else 1, err)
                codes = np.ascontiguousarray(codes, dtype=np.int32)  # kept alive for the copy
                ctypes.memmove(ptr, codes.ctypes.data, 4 * n)
                arr_t = ctypes.c_char_p * len(labels)
                enc = arr_t(*[s.encode() for s in labels])
                check(lib.sk_table_set_labels(t._h, name.encode(), enc, len(labels),
                                              ctypes.byref(err)), err)
                continue
            if a.dtype == np.bool_:
                a = a.astype(np.uint8)
            code = _CODES.get(a.dtype.newbyteorder("=")) if a.dtype.byteorder not in "=|" else _CODES.get(a.dtype)
            if code is None:
                raise TypeError(f"snapkit: column {name}: unsupported dtype {a.dtype}")
            ptr = lib.sk_table_add(t._h, name.encode(), code, ctypes.byref(err))
            check(0 if ptr else 1, err)
            a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))  # alive for the copy
            ctypes.memmove(ptr, a.ctypes.data, a.dtype.itemsize * n)
        for k, v in (meta or {}).items():
            lib.sk_table_meta_set(t._h, str(k).encode(), str(v).encode())
        return t
