"""snapkit.atoms trajectories against ASE: frames(path)[slice] is what
ase.io.read(path, index=slice) reads, frame for frame, on the LAMMPS-written
dumps of tests/data/atoms, on a longer trajectory made of their frames, on a
glob of dump.* files and on gzip; sidecars; extended XYZ."""
import glob
import gzip
import os
import shutil

import numpy as np
import pytest

import snapkit
import snapkit.atoms as sa

DATA = os.path.join(os.environ.get("SNAPKIT_TEST_DATA", "tests/data"), "atoms")
MD3 = os.path.join(DATA, "cu_fcc_4000_md3.dump")
SLICES = ["::10", "::2", "::-1", "1:", "-5:", "3:25:7", "-1:-20:-3", "100:", "0:1"]


def split_frames(path):
    """The dump's frames as text, cut at its ITEM: TIMESTEP lines."""
    text = open(path).read()
    parts = text.split("ITEM: TIMESTEP\n")
    return ["ITEM: TIMESTEP\n" + p for p in parts[1:]]


@pytest.fixture(scope="module")
def long_dump(tmp_path_factory):
    """30 frames: LAMMPS' three frames of md3 ten times over, in order."""
    d = tmp_path_factory.mktemp("traj")
    p = d / "long.lammpstrj"
    frames = split_frames(MD3)
    assert len(frames) == 3
    p.write_text("".join(frames * 10))
    return str(p)


def by_id(s):
    """Positions in id order, as ASE's dump reader sorts them (order=True)."""
    order = np.argsort(s["id"], kind="stable")
    return s.positions[order]


def assert_same(ours, theirs):
    assert len(ours) == len(theirs)
    for s, a in zip(ours, theirs):
        assert len(s) == len(a)
        assert np.array_equal(by_id(s), a.get_positions())
        np.testing.assert_array_equal(s.cell, np.array(a.cell))


@pytest.fixture(scope="module")
def ase_long(long_dump):
    """ASE's reading of every frame (once: ASE takes seconds)."""
    ase_io = pytest.importorskip("ase.io")
    return ase_io.read(long_dump, format="lammps-dump-text", index=":")


@pytest.mark.parametrize("index", SLICES)
def test_slices_equal_ase(long_dump, ase_long, index):
    ase_io = pytest.importorskip("ase.io")
    if index == "::10":  # ASE's own slicing, once
        theirs = ase_io.read(long_dump, format="lammps-dump-text", index=index)
    else:
        theirs = ase_long[slice(*[int(x) if x else None for x in index.split(":")])]
    parts = [int(x) if x else None for x in index.split(":")]
    t = sa.frames(long_dump)
    assert len(t) == 30
    ours = t[slice(*parts)]
    assert len(ours) == len(range(30)[slice(*parts)])
    assert_same(list(ours), theirs)
    assert list(ours.timesteps) == [[0, 10, 20][k % 3] for k in range(30)[slice(*parts)]]


def test_sequence_behaviour(long_dump):
    t = sa.frames(long_dump)
    assert t[-1].timestep == 20 and t[4].timestep == 10
    view = t[::10][1:]  # slices of slices stay lazy views
    assert len(view) == 2 and list(view.timesteps) == [10, 20]
    assert [s.meta["frame"] for s in view] == ["10", "20"]
    assert list(t.natoms) == [4000] * 30
    with pytest.raises(IndexError):
        t[30]
    offsets = t.offsets
    text = open(long_dump, "rb").read()
    assert all(text[o:o + 15] == b"ITEM: TIMESTEP\n" for o in offsets)
    # the old use: a loop over frames(path)
    assert [s.timestep for s in sa.frames(MD3)] == [0, 10, 20]


def test_glob_in_timestep_order(tmp_path):
    ase_io = pytest.importorskip("ase.io")
    frames = split_frames(MD3)
    for f in frames:  # dump.0, dump.10, dump.20: name order is not step order
        step = f.split("\n")[1]
        (tmp_path / f"dump.{step}0").write_text(f)
    names = sorted(glob.glob(str(tmp_path / "dump.*")))
    assert [os.path.basename(n) for n in names] == ["dump.00", "dump.100", "dump.200"]
    os.rename(tmp_path / "dump.00", tmp_path / "dump.300")  # now steps 10, 20, 0 by name
    t = sa.frames(str(tmp_path / "dump.*"))
    assert list(t.timesteps) == [0, 10, 20]
    assert [os.path.basename(f) for f in t.files] == ["dump.300", "dump.100", "dump.200"]
    assert_same(list(t), ase_io.read(MD3, format="lammps-dump-text", index=":"))
    t2 = sa.frames(sorted(glob.glob(str(tmp_path / "dump.*")))[::-1])  # a list
    assert list(t2.timesteps) == [0, 10, 20]
    with pytest.raises(FileNotFoundError):
        sa.frames(str(tmp_path / "nothing.*"))


def test_gzip_and_sidecar(tmp_path, long_dump, ase_long):
    gz = tmp_path / "long.lammpstrj.gz"
    with open(long_dump, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    t = sa.frames(str(gz), index=True)
    assert (tmp_path / "long.lammpstrj.gz.skidx").exists() and t.stale is None
    assert_same(list(t[::7]), ase_long[::7])
    plain = sa.frames(long_dump)
    assert np.array_equal(t.offsets, plain.offsets)  # offsets into the inflated text
    t.close()
    # the sidecar is used, then found stale when a frame is appended
    assert len(sa.frames(str(gz), index=True)) == 30
    with gzip.open(gz, "ab") as dst:
        dst.write(split_frames(MD3)[0].encode())
    t = sa.frames(str(gz), index=True)
    assert len(t) == 31 and "no longer matches" in t.stale
    side = tmp_path / "long.lammpstrj.gz.skidx"
    side.write_text("snapkit atoms index 1\nfile x\n")
    with pytest.raises(snapkit.Error) as e:
        sa.frames(str(gz), index=True)
    assert "malformed index sidecar" in str(e.value) and "byte 27" in str(e.value)


def test_extxyz_slices_equal_ase(tmp_path):
    ase_io = pytest.importorskip("ase.io")
    src = os.path.join(DATA, "cu_fcc_500_ase.extxyz")  # written by ASE
    text = open(src).read()
    p = tmp_path / "long.extxyz"
    p.write_text(text * 12)
    for index in ["::5", "::-1", "-3:"]:
        parts = [int(x) if x else None for x in index.split(":")]
        ours = sa.frames(str(p))[slice(*parts)]
        theirs = ase_io.read(str(p), index=index)
        assert len(ours) == len(theirs)
        for s, a in zip(ours, theirs):
            np.testing.assert_allclose(s.positions, a.get_positions(), rtol=0, atol=0)
