"""docs/format.md is enough to read a .snapkit file: a reader written here
from the specification alone (struct, numpy, a pure-Python LZ4 block
decoder and XXH64) decodes files snapkit wrote, checks every checksum and
every statistic the index records, and gets the tables snapkit reads."""
import json
import math
import struct
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, outputs

M64 = (1 << 64) - 1
P1, P2, P3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
P4, P5 = 9650029242287828579, 2870177450012600261


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _round(acc, lane):
    return (_rotl((acc + lane * P2) & M64, 31) * P1) & M64


def xxh64(data, seed=0):
    """XXH64 as xxHash's specification defines it."""
    n, p = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed, (seed - P1) & M64]
        while p + 32 <= n:
            for k in range(4):
                v[k] = _round(v[k], struct.unpack_from("<Q", data, p + 8 * k)[0])
            p += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M64
        for k in range(4):
            h = ((h ^ _round(0, v[k])) * P1 + P4) & M64
    else:
        h = (seed + P5) & M64
    h = (h + n) & M64
    while p + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, p)[0])
        h = (_rotl(h, 27) * P1 + P4) & M64
        p += 8
    if p + 4 <= n:
        h ^= (struct.unpack_from("<I", data, p)[0] * P1) & M64
        h = (_rotl(h, 23) * P2 + P3) & M64
        p += 4
    while p < n:
        h ^= (data[p] * P5) & M64
        h = (_rotl(h, 11) * P1) & M64
        p += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    return h ^ (h >> 32)


def lz4_block(src, size):
    """Decompress one LZ4 block (the block format, no frame)."""
    out, i = bytearray(), 0
    while True:
        token = src[i]
        i += 1
        n = token >> 4
        if n == 15:
            while True:
                b = src[i]
                i += 1
                n += b
                if b != 255:
                    break
        out += src[i:i + n]
        i += n
        if i >= len(src):
            break
        offset = src[i] | src[i + 1] << 8
        i += 2
        n = token & 15
        if n == 15:
            while True:
                b = src[i]
                i += 1
                n += b
                if b != 255:
                    break
        start = len(out) - offset
        for k in range(n + 4):
            out.append(out[start + k])
    assert len(out) == size, (len(out), size)
    return bytes(out)


DTYPES = {1: "<i1", 2: "<u1", 3: "<i2", 4: "<u2", 5: "<i4", 6: "<u4", 7: "<i8", 8: "<u8",
          9: "<f4", 10: "<f8", 11: "<i4"}


class Cursor:
    def __init__(self, buf, pos=0):
        self.buf, self.pos = buf, pos

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.buf, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def string(self):
        n = self.take("I")
        s = self.buf[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def pairs(self):
        return [(self.string(), self.string()) for _ in range(self.take("I"))]


def read_file(path):
    """Every table of a .snapkit file: {name: (columns, metadata, labels, chunks)},
    following docs/format.md only."""
    data = open(path, "rb").read()
    assert data[:8] == b"SNAPKIT\0" and data[-8:] == b"SKFOOTER"
    f_off, f_len, f_hash, major, minor = struct.unpack_from("<QQQHH", data, len(data) - 40)
    assert (major, minor) == (1, 1) and f_off + f_len + 40 == len(data)
    body = data[f_off:f_off + f_len]
    assert xxh64(body) == f_hash
    c = Cursor(body)
    assert c.take("HHI") == (1, 1, 0)
    file_meta = c.pairs()
    tables = {}
    for _ in range(c.take("I")):
        start = c.pos
        length = c.take("Q")
        name = c.string()
        geometry, flags, curve_bits, _ = c.take("BBBB")
        nrows = c.take("Q")
        cols, labels = [], {}
        for _ in range(c.take("I")):
            cname = c.string()
            dtype, _, _, _, nlabels = c.take("BBBBI")
            labels[cname] = [c.string() for _ in range(nlabels)]
            cols.append((cname, dtype))
        meta = c.pairs()
        hsize, esize, nchunks = c.take("IIQ")
        parts = {n: [] for n, _ in cols}
        chunks = []
        for _ in range(nchunks):
            h = c.pos
            n, kind, lmin, lmax, cflags, _ = c.take("QBBBBI")
            box = c.take("6d")
            c.pos = h + hsize
            entry = {"rows": n, "kind": kind, "levels": (lmin, lmax), "box": box,
                     "has_box": cflags & 1, "min": {}, "max": {}}
            for cname, dtype in cols:
                e = c.pos
                off, stored, codec, enc, width, _, _ = c.take("QQBBBBI")
                lo, hi, h64 = c.take("8s8sQ")
                c.pos = e + esize
                raw = data[off:off + stored]
                assert 16 <= off and off + stored <= f_off
                assert xxh64(raw) == h64, (name, cname)
                enc_bytes = lz4_block(raw, n * width) if codec == 1 else raw
                assert codec in (0, 1) and len(enc_bytes) == n * width
                parts[cname].append(decode(enc_bytes, enc, width, dtype, lo, n))
                kind_ = "f" if dtype in (9, 10) else ("u" if dtype in (2, 4, 6, 8) else "i")
                fmt = {"f": "<d", "u": "<Q", "i": "<q"}[kind_]
                entry["min"][cname] = struct.unpack(fmt, lo)[0]
                entry["max"][cname] = struct.unpack(fmt, hi)[0]
            chunks.append(entry)
        stats_at = c.pos
        stats = read_stats(c, [n for n, _ in cols])
        assert c.pos <= start + length
        c.pos = start + length
        columns = {n: (np.concatenate(p) if p else np.empty(0, DTYPES[d])) for (n, d), p
                   in zip(cols, parts.values())}
        assert all(len(v) == nrows for v in columns.values())
        tables[name] = {"columns": columns, "meta": meta, "labels": labels, "chunks": chunks,
                        "geometry": geometry, "flags": flags, "curve_bits": curve_bits,
                        "stats": stats, "record": (f_off + start, length),
                        "stats_at": f_off + stats_at}
    return tables, file_meta


def read_stats(c, names):
    """The table's statistics block (1.1): None when its size is 0."""
    size = c.take("I")
    if size == 0:
        return None
    end = c.pos + size
    rows, flags, nlevels = c.take("QII")
    levels = [c.take("Q") for _ in range(nlevels)]
    cols = {}
    for name in names:
        cflags, _ = c.take("II")
        cols[name] = dict(zip(("min", "max", "sum", "abs_sum", "volume_sum", "abs_volume_sum"),
                              c.take("6d")), cell_index=cflags & 1)
    assert c.pos == end
    return {"rows": rows, "cells": flags & 1, "levels": levels, "columns": cols}


def same_float(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def check_stats(t):
    """The stored statistics are the leaf rows' own: extremes without NaN,
    sums rounded once from the exact sum (math.fsum), volume sums weighing
    each value by its cell's volume (boxlen / 2^level)^ndim."""
    st = t["stats"]
    if t["flags"] & 1:  # refined cells stored: no statistics
        assert st is None
        return
    cols = t["columns"]
    assert st["rows"] == len(next(iter(cols.values())))
    cells = t["geometry"] == 1
    assert st["cells"] == cells
    meta = dict(t["meta"])
    if cells:
        lv = cols["level"]
        assert st["levels"] == list(np.bincount(lv))[:len(st["levels"])]
        assert sum(st["levels"]) == st["rows"]
        ndim = int(meta.get("ndim", 3))
        vol = (float(meta.get("boxlen", 1.0)) / 2.0 ** lv.astype(np.float64)) ** ndim
    for name, v in cols.items():
        got = st["columns"][name]
        assert got["cell_index"] == (cells and name in ("level", "cx", "cy", "cz")), name
        x = v.astype(np.float64)
        keep = ~np.isnan(x)
        x = x[keep]
        assert same_float(got["min"], x.min() if len(x) else math.nan), name
        assert same_float(got["max"], x.max() if len(x) else math.nan), name
        assert got["sum"] == math.fsum(x) and got["abs_sum"] == math.fsum(abs(x)), name
        if cells:
            w = x * vol[keep]
            assert got["volume_sum"] == math.fsum(w), name
            assert got["abs_volume_sum"] == math.fsum(abs(w)), name


def decode(b, enc, width, dtype, lo, n):
    target = np.dtype(DTYPES[dtype])
    if enc == 0:                       # plain
        assert width == target.itemsize
        return np.frombuffer(b, target).copy()
    if enc == 2:                       # byte shuffle
        planes = np.frombuffer(b, np.uint8).reshape(width, n)
        return np.ascontiguousarray(planes.T).view(target).reshape(n)
    assert enc == 1                    # frame of reference
    base = np.uint64(struct.unpack("<Q", lo)[0])
    u = (np.zeros(n, np.uint64) if width == 0 else
         np.frombuffer(b, "<u%d" % width).astype(np.uint64))
    return (u + base).astype(target)  # modulo 2^64, then the low bits


def check_index(t):
    """The statistics the index records describe the decoded rows."""
    cols, row = t["columns"], 0
    boxlen = float(dict(t["meta"]).get("boxlen", 1.0))
    for ch in t["chunks"]:
        sl = slice(row, row + ch["rows"])
        row += ch["rows"]
        for name, v in cols.items():
            v = v[sl]
            if v.dtype.kind == "f":
                ok = v[~np.isnan(v)]
                if len(ok):
                    assert ok.min() == ch["min"][name] and ok.max() == ch["max"][name], name
            else:
                assert v.min() == ch["min"][name] and v.max() == ch["max"][name], name
        if t["geometry"] == 1:
            lv = cols["level"][sl]
            pos = [(cols[c][sl] + 0.5) / 2.0 ** lv for c in ("cx", "cy", "cz")]
            assert ch["levels"] == (lv.min(), lv.max())
        elif t["geometry"] == 2:
            pos = [cols[c][sl] / boxlen for c in ("position_x", "position_y", "position_z")]
        else:
            continue
        for a in range(3):
            assert ch["box"][a] == pos[a].min() and ch["box"][3 + a] == pos[a].max()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spec")
    key, folder, _ = next(o for o in outputs() if o[0].startswith("gravpart"))
    out = snapkit.open(folder)
    box = dict(xrange=(0.4, 0.6), yrange=(0.4, 0.6), zrange=(0.4, 0.6))
    hydro = out.read("hydro", with_refined=True, **box)
    parts = out.particles(**box)
    n = 700
    atoms = snapkit.Table.from_arrays({
        "id": np.arange(n, dtype=np.int64) * 3 - 5, "element": np.array(["Cu", "O"])[np.arange(n) % 2],
        "q": np.linspace(-1, 1, n).astype(np.float32), "big": np.arange(n, dtype=np.uint64) + 2**63},
        meta={"component": "atoms"})
    paths = []
    for compress in (True, False):
        p = str(tmp / ("spec_%d.snapkit" % compress))
        snapkit.save([hydro, parts, atoms], p, compress=compress, chunk_rows=512)
        paths.append(p)
    return paths


@pytest.fixture(scope="module")
def leaves(tmp_path_factory):
    """The whole gravpart output's leaf cells (hydro, gravity) and
    particles, as `snapkit convert` writes them, and the output."""
    key, folder, _ = next(o for o in outputs() if o[0].startswith("gravpart"))
    path = str(tmp_path_factory.mktemp("spec") / "leaves.snapkit")
    snapkit.convert(folder, path)
    return path, folder


def test_spec_reader_checks_stored_statistics(leaves):
    path, folder = leaves
    tables, _ = read_file(path)
    f, out = snapkit.open(path), snapkit.open(folder)
    assert {"hydro", "gravity", "particles"} <= set(tables)
    for name, t in tables.items():
        assert t["stats"] is not None, name
        check_stats(t)
        # The library's view of the same block: what a read of the output gives.
        assert f.stats(name) == snapkit.column_stats(out.read(name)) == out.stats(name), name


def test_spec_reader_gets_snapkit_tables(files):
    for path in files:
        tables, file_meta = read_file(path)
        assert dict(file_meta)["writer"].startswith("snapkit ")
        f = snapkit.open(path)
        assert list(tables) == f.tables == ["hydro", "particles", "atoms"]
        for name, t in tables.items():
            check_index(t)
            check_stats(t)
            ref = f.read(name, with_refined=name == "hydro")
            assert list(t["columns"]) == ref.columns
            for c in ref.columns:  # the same rows in the same (file) order, bit for bit
                assert t["columns"][c].tobytes() == ref.codes(c).tobytes(), (path, name, c)
            assert t["meta"] == list(ref.meta.items()), (path, name)
        assert tables["hydro"]["geometry"] == 1 and tables["hydro"]["flags"] == 1
        assert tables["particles"]["geometry"] == 2 and tables["atoms"]["geometry"] == 0
        assert tables["atoms"]["labels"]["element"] == ["Cu", "O"]
        kinds = [ch["kind"] for ch in tables["hydro"]["chunks"]]
        assert kinds == sorted(kinds) and 1 in kinds  # refined chunks after the leaves


def test_pure_python_primitives():
    # XXH64 of short inputs (the published test values); the files above check
    # it against libxxhash on every chunk
    assert xxh64(b"") == 0xEF46DB3751D8E999
    assert xxh64(b"a") == 0xD24EC4F1A98C6E5B
    assert xxh64(b"abc") == 0x44BC2CF5AD770999
    # an LZ4 block of one literal run
    assert lz4_block(bytes([0x50]) + b"hello", 5) == b"hello"


def rewrite_footer(path, out, records, minor):
    """Write `path` to `out` with the table records replaced (records: the new
    bytes of each, in order; their length fields are set here), the format's
    minor version set in the footer and the tail, and the footer's hash."""
    data = open(path, "rb").read()
    f_off = struct.unpack_from("<Q", data, len(data) - 40)[0]
    tables, _ = read_file(path)
    first = min(t["record"][0] for t in tables.values())
    head = bytearray(data[f_off:first])
    struct.pack_into("<H", head, 2, minor)
    body = bytes(head) + b"".join(struct.pack("<Q", len(r)) + r[8:] for r in records)
    tail = struct.pack("<QQQHHI", f_off, len(body), xxh64(body), 1, minor, 0) + b"SKFOOTER"
    open(out, "wb").write(data[:f_off] + body + tail)


def records_of(path, edit):
    """Each table record of `path` as bytes, edit(name, record, stats offset in
    it) applied."""
    data = open(path, "rb").read()
    tables, _ = read_file(path)
    out = []
    for name, t in tables.items():
        start, length = t["record"]
        out.append(edit(name, bytes(data[start:start + length]), t["stats_at"] - start))
    return out


def stats_json(path, *args):
    return json.loads(subprocess.run([CLI, "stats", path, "--json"] + list(args),
                                     capture_output=True, text=True, check=True).stdout)


def test_format_1_0_without_statistics_still_reads(leaves, tmp_path):
    """A 1.0 file (no statistics block) reads as before; stats reads the rows."""
    path, folder = leaves
    old = str(tmp_path / "old.snapkit")
    rewrite_footer(path, old, records_of(path, lambda n, r, at: r[:at]), minor=0)
    f = snapkit.open(old)
    assert f.info["store"]["format_version"] == "1.0"
    for name in f.tables:
        assert snapkit.colstats.stored_stats(f._h, name) is None
        assert f.stats(name) == snapkit.open(path).stats(name), name
    got = stats_json(old)
    assert not got["stored"] and got["chunks_read"] > 0
    assert {k: got[k] for k in ("rows", "columns")} == \
        {k: v for k, v in stats_json(path).items() if k in ("rows", "columns")}
    subprocess.run([CLI, "verify", old], check=True, capture_output=True)


def test_wrong_statistics_fail_verify(leaves, tmp_path):
    """A stored sum off by one unit in the last place: the footer reads (its
    hash matches), stats prints what is stored, verify names the column."""
    path, _ = leaves
    tables, _ = read_file(path)
    names = list(tables["hydro"]["columns"])
    j = names.index("density")
    want = tables["hydro"]["stats"]["columns"]["density"]["sum"]

    def nudge(name, rec, at):
        if name != "hydro":
            return rec
        nlevels = struct.unpack_from("<I", rec, at + 4 + 12)[0]
        off = at + 4 + 16 + 8 * nlevels + 56 * j + 8 + 16  # flags, min, max, then sum
        rec = bytearray(rec)
        struct.pack_into("<d", rec, off, math.nextafter(want, math.inf))
        return bytes(rec)

    bad = str(tmp_path / "bad.snapkit")
    rewrite_footer(path, bad, records_of(path, nudge), minor=1)
    assert stats_json(bad)["columns"]["density"]["sum"] == math.nextafter(want, math.inf)
    assert stats_json(bad, "--recompute")["columns"]["density"]["sum"] == want
    r = subprocess.run([CLI, "verify", bad], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert "table hydro: the stored statistics (density) are not those of its rows" in r.stderr


def test_damaged_statistics_block_is_a_format_error(leaves, tmp_path):
    """A block whose size does not fit its table: one line naming the table."""
    path, _ = leaves

    def grow(name, rec, at):
        if name != "particles":
            return rec
        size = struct.unpack_from("<I", rec, at)[0]
        return rec[:at] + struct.pack("<I", size + 8) + rec[at + 4:] + bytes(8)

    bad = str(tmp_path / "bad.snapkit")
    rewrite_footer(path, bad, records_of(path, grow), minor=1)
    r = subprocess.run([CLI, "info", bad], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert "footer: table particles: statistics of" in r.stderr and "byte " in r.stderr


def test_refined_chunk_in_a_table_without_the_flag(files, tmp_path):
    """Issue 34, row 19: the message said "refined cells in a table without"
    and stopped; it names the chunk and what the table's flags say."""
    path = files[0]

    def unflag(name, rec, at):
        if name != "hydro":
            return rec
        flags = 8 + 4 + len(name) + 1  # length, name, geometry, then flags
        rec = bytearray(rec)
        assert rec[flags] & 1
        rec[flags] &= ~1
        return bytes(rec)

    bad = str(tmp_path / "unflagged.snapkit")
    rewrite_footer(path, bad, records_of(path, unflag), minor=1)
    r = subprocess.run([CLI, "info", bad], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert "footer: table hydro, chunk " in r.stderr and "byte " in r.stderr
    assert r.stderr.rstrip().endswith(
        ": refined cells (kind 1) in a table whose flags say it stores none"), r.stderr


def test_rows_the_statistics_refuse_are_stored_without_them(tmp_path):
    """A cell table with a level beyond 63 in its third chunk: written as
    before, its record's statistics field empty (size 0), its rows intact."""
    n = 3000
    level = np.where(np.arange(n) == 2500, 70, 5).astype(np.int32)
    t = snapkit.Table.from_arrays({"level": level, "x": np.arange(n, dtype=np.float64)},
                                  meta={"boxlen": "1", "kind": "cells"})
    path = str(tmp_path / "levels.snapkit")
    snapkit.save({"t": t}, path, chunk_rows=1024)
    tables, _ = read_file(path)
    assert tables["t"]["stats"] is None
    assert tables["t"]["columns"]["level"].tobytes() == level.tobytes()
    assert snapkit.colstats.stored_stats(snapkit.open(path)._h, "t") is None
    subprocess.run([CLI, "verify", path], check=True, capture_output=True)
