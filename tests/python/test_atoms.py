"""snapkit.atoms against the peers: ASE reads the same files to the same
positions, ASE and LAMMPS read what snapkit writes to the same values."""
import glob
import os
import shutil
import subprocess

import numpy as np
import pytest

import snapkit
import snapkit.atoms as sa

DATA = os.path.join(os.environ.get("SNAPKIT_TEST_DATA", "tests/data"), "atoms")
SHARED = os.path.join(os.environ.get("SNAPKIT_SHARED", "../shared"), "fixtures", "atoms")
DIRS = [DATA] + ([SHARED] if os.path.isdir(SHARED) else [])


def files(pattern):
    out = []
    for d in DIRS:
        out += sorted(glob.glob(os.path.join(d, pattern)))
    return out


def ase_read(path):
    """ASE's reading of a fixture, the way its README says."""
    ase_io = pytest.importorskip("ase.io")
    if path.endswith(".data"):
        return ase_io.read(path, format="lammps-data", style="atomic", units="metal",
                           Z_of_type={1: 29})
    if path.endswith(".dump") or path.endswith(".lammpstrj"):
        return ase_io.read(path, format="lammps-dump-text", index=0)
    return ase_io.read(path, format="extxyz")


@pytest.mark.parametrize("path", files("cu_fcc_*.dump") + files("cu_fcc_*.data") +
                         files("cu_fcc_*.extxyz"), ids=os.path.basename)
def test_positions_and_cell_equal_ase(path):
    s = sa.read(path)
    a = ase_read(path)
    assert len(s) == len(a)
    np.testing.assert_allclose(s.positions, a.get_positions(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(s.cell, np.array(a.cell), rtol=0, atol=1e-12)
    assert list(s.pbc) == list(a.pbc)
    if "_ase" not in path and "rich" not in path:  # exact text: exact doubles
        assert np.array_equal(s.positions, a.get_positions())


def test_columns_are_views_and_facts():
    s = sa.read(os.path.join(DATA, "cu_fcc_4000.dump"))
    x = s["x"]
    assert x.dtype == np.float64 and not x.flags["OWNDATA"]
    assert s["id"].dtype == np.int64 and s["type"].dtype == np.int32
    assert x[0] == 36.149620154546405 and s["z"][-1] == 34.323477757592208
    sums = [float(np.add.accumulate(s[c])[-1]) for c in "xyz"]  # left to right
    assert sums == [72263.360475694863, 72004.965005837992, 72261.103117978389]
    x[0] = 1.5  # the column is the table's memory
    assert s.positions[0, 0] == 1.5
    d = sa.read(os.path.join(DATA, "cu_fcc_tri_4000.data"))
    assert d.cell.tolist() == [[36.150000000000006, 0, 0], [2.5, 36.150000000000006, 0],
                               [1.5, -1, 36.150000000000006]]
    assert int(np.count_nonzero(d["ix"] | d["iy"] | d["iz"])) == 304
    assert d.meta["lammps.masses"] == "63.546"


def test_frames_and_iteration():
    p = os.path.join(DATA, "cu_fcc_4000_md3.dump")
    last = sa.read(p, frame=-1)
    assert last.timestep == 20 and last["x"][0] == 36.262026745656009
    all_ = sa.read(p, frame=":")
    assert [f.timestep for f in all_] == [0, 10, 20]
    assert [f.timestep for f in sa.frames(p)] == [0, 10, 20]
    with sa.File(p) as f:
        assert len(f) == 3 and f.format == "dump"
        assert f.frame(1).timestep == 10
    ase_io = pytest.importorskip("ase.io")
    ase_frames = ase_io.read(p, format="lammps-dump-text", index=":")
    for ours, theirs in zip(all_, ase_frames):
        assert np.array_equal(ours.positions, theirs.get_positions())
    info = sa.info(p)
    assert info["frames"] == 3 and info["atoms"] == 4000 and info["columns"]["vx"] == "float64"


@pytest.mark.parametrize("name", ["cu_fcc_4000.dump", "cu_fcc_tri_4000.data",
                                  "cu_fcc_tri_4000_full.extxyz", "cu_fcc_4000_extra.dump",
                                  "cu_fcc_4000_rich.extxyz"])
@pytest.mark.parametrize("ext", ["dump", "data", "extxyz", "extxyz.gz", "lammpstrj.gz"])
def test_write_read_identical(tmp_path, name, ext):
    s = sa.read(os.path.join(DATA, name))
    out = tmp_path / f"out.{ext}"
    sa.write(out, s, threads=2)
    back = sa.read(out, threads=3)
    for c in s.columns:
        if c in back.columns:
            assert np.array_equal(np.asarray(s[c]), np.asarray(back[c])), c
    assert np.array_equal(s.cell, back.cell) and np.array_equal(s.pbc, back.pbc)


@pytest.mark.parametrize("name", ["cu_fcc_4000.data", "cu_fcc_tri_4000.dump",
                                  "cu_fcc_tri_4000_full.extxyz", "cu_fcc_4000_extra.dump"])
@pytest.mark.parametrize("fmt", ["extxyz", "data", "dump"])
def test_ase_reads_what_we_write(tmp_path, name, fmt):
    ase_io = pytest.importorskip("ase.io")
    s = sa.read(os.path.join(DATA, name))
    out = str(tmp_path / f"out.{fmt}")
    sa.write(out, s)
    if fmt == "extxyz":
        a = ase_io.read(out)
    elif fmt == "data":
        a = ase_io.read(out, format="lammps-data", style="atomic", units="metal")
    else:
        a = ase_io.read(out, format="lammps-dump-text")
    assert np.array_equal(a.get_positions(), s.positions)
    np.testing.assert_allclose(np.array(a.cell), s.cell, rtol=0, atol=1e-12)
    if fmt == "extxyz" and "vx" in s.columns:
        assert np.array_equal(a.arrays["velo"][:, 0], s["vx"])


def test_ase_round_trip(tmp_path):
    ase_io = pytest.importorskip("ase.io")
    a = ase_io.read(os.path.join(DATA, "cu_fcc_4000_rich.extxyz"))
    s = sa.System.from_ase(a)
    assert s["element"][0] == "Cu" and "momenta_2" in s.columns
    sa.write(tmp_path / "r.extxyz", s)
    b = ase_io.read(str(tmp_path / "r.extxyz"))
    assert np.array_equal(b.get_positions(), a.get_positions())
    assert np.array_equal(b.get_momenta(), a.get_momenta())
    assert np.array_equal(b.arrays["travel"], a.arrays["travel"])
    c = s.to_ase()
    assert c.get_chemical_formula() == a.get_chemical_formula()
    assert np.array_equal(c.get_masses(), a.get_masses())
    d = sa.read(os.path.join(DATA, "cu_fcc_4000.data")).to_ase()
    assert d.get_chemical_formula() == "Cu4000"  # type 1 named by its mass


def lammps():
    exe = shutil.which("lmp") or shutil.which("lmp_serial")
    if not exe:
        pytest.skip("LAMMPS (lmp) is not installed")
    return exe


def run_lammps(tmp_path, data, style="atomic"):
    """read_data, then write_data: LAMMPS' own reading of our file."""
    script = tmp_path / "in.check"
    out = tmp_path / "lammps_out.data"
    script.write_text(f"units metal\natom_style {style}\nboundary p p p\n"
                      f"read_data {data}\nprint \"ATOMS $(count(all))\"\n"
                      f"write_data {out}\n")
    r = subprocess.run([lammps(), "-in", str(script), "-screen", "none", "-log",
                        str(tmp_path / "log.lammps")], capture_output=True, text=True,
                       cwd=tmp_path)
    log = (tmp_path / "log.lammps").read_text()
    assert r.returncode == 0, log[-2000:]
    return log, out


@pytest.mark.parametrize("name", ["cu_fcc_4000.dump", "cu_fcc_4000_full.extxyz",
                                  "cu_fcc_tri_4000.dump", "cu_fcc_4000_extra.dump"])
def test_lammps_reads_our_data_files(tmp_path, name):
    s = sa.read(os.path.join(DATA, name))
    if "element" not in s.columns:  # a dump of types only: give the mass of type 1
        s.set_meta("lammps.masses", "63.546")
    ours = tmp_path / "ours.data"
    sa.write(ours, s)
    log, out = run_lammps(tmp_path, ours)
    assert "ATOMS 4000" in log
    back = sa.read(out)
    order = np.argsort(back["id"]) if "id" in s.columns else np.arange(len(s))
    if "tri" in name:  # LAMMPS remaps triclinic positions (1 ulp, see the README)
        np.testing.assert_allclose(back.positions[order], s.positions, rtol=0, atol=1.5e-14)
    else:
        assert np.array_equal(back.positions[order], s.positions)
    assert np.array_equal(back.cell, s.cell)
    assert back.meta["lammps.masses"] == "63.546"  # we wrote the masses LAMMPS needs


def test_lammps_reads_charge_style(tmp_path):
    s = sa.read(os.path.join(DATA, "cu_fcc_500.data"))
    q = np.where(np.arange(len(s)) % 2 == 0, 0.5, -0.5)
    cols = {c: np.asarray(s[c]) for c in s.columns}
    cols["q"] = q
    t = sa.System.from_arrays(cols, cell=s.cell, meta={"lammps.masses": "63.546"})
    ours = tmp_path / "q.data"
    sa.write(ours, t)
    assert "Atoms # charge" in ours.read_text()
    log, out = run_lammps(tmp_path, ours, style="charge")
    assert "ATOMS 500" in log
    back = sa.read(out)
    assert np.array_equal(back["q"], q) and np.array_equal(back["x"], s["x"])


def test_errors_name_file_line_column(tmp_path):
    bad = tmp_path / "bad.lammpstrj"
    good = open(os.path.join(DATA, "cu_fcc_500.dump")).read().splitlines(True)
    good[11] = good[11].replace(" 1 ", " 1 x", 1)
    bad.write_text("".join(good))
    with pytest.raises(snapkit.Error) as e:
        sa.read(bad)
    assert e.value.line == 12 and e.value.column is not None
    assert str(e.value).startswith(f"{bad}: line 12, column ")
    with pytest.raises(snapkit.Error, match="unknown atom style 'spin'"):
        sa.read_bytes(b"t\n\n1 atoms\n1 atom types\n\nAtoms # spin\n\n1 1 0 0 0\n",
                      name="x.data")
    with pytest.raises(ValueError):
        sa.read(bad, format="pdb")


def test_write_is_atomic(tmp_path):
    s = sa.System.from_arrays({"x": np.zeros(3), "y": np.zeros(3), "z": np.zeros(3)})
    with pytest.raises(snapkit.Error, match="no box"):
        sa.write(tmp_path / "a.data", s)
    assert list(tmp_path.iterdir()) == []
