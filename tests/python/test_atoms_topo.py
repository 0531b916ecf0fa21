"""Molecular topology from Python: s.bonds ... as numpy arrays against the
rows make_topo.in gave LAMMPS, and to_ase() against ASE's own lammps-data
reader of the same files (written by LAMMPS' write_data)."""
import os

import numpy as np
import pytest

import snapkit.atoms as sa

DATA = os.path.join(os.environ.get("SNAPKIT_TEST_DATA", "tests/data"), "atoms")
STYLES = ["full", "molecular", "angle", "bond"]


def path(style):
    return os.path.join(DATA, f"topo_{style}.data")


def test_arrays_hold_the_script_rows():
    s = sa.read(path("full"))
    assert s.bonds.dtype == np.int64
    # make_topo.in: O-H bonds of type 1 then 2 on each of three molecules
    np.testing.assert_array_equal(s.bonds, [[1, 1, 1, 2], [2, 2, 1, 3], [3, 1, 4, 5],
                                            [4, 2, 4, 6], [5, 1, 7, 8], [6, 2, 7, 9]])
    np.testing.assert_array_equal(s.angles, [[1, 1, 2, 1, 3], [2, 1, 5, 4, 6],
                                             [3, 1, 8, 7, 9]])
    np.testing.assert_array_equal(s.dihedrals, [[1, 1, 2, 1, 4, 5]])
    np.testing.assert_array_equal(s.impropers, [[1, 1, 1, 2, 3, 4]])
    b = sa.read(path("bond"))
    assert b.bonds.shape == (6, 4)
    assert b.angles.shape == (0, 5) and b.dihedrals.shape == (0, 6)


@pytest.mark.parametrize("style", STYLES)
def test_to_ase_matches_ase_reader(style):
    ase_io = pytest.importorskip("ase.io")
    ours = sa.read(path(style)).to_ase()
    theirs = ase_io.read(path(style), format="lammps-data", style=style, units="real")
    for name in ("bonds", "angles", "dihedrals", "mol-id"):
        assert (name in ours.arrays) == (name in theirs.arrays), name
        if name in theirs.arrays:
            assert list(ours.arrays[name]) == list(theirs.arrays[name]), name
    np.testing.assert_array_equal(ours.get_positions(), theirs.get_positions())


@pytest.mark.parametrize("style", STYLES)
def test_python_write_is_lammps_file(tmp_path, style):
    out = tmp_path / f"{style}.data"
    sa.write(str(out), sa.read(path(style)))
    with open(path(style), "rb") as a, open(out, "rb") as b:
        assert a.read() == b.read()


def test_atom_styles_from_python(tmp_path):
    # make_styles.in: "set atom * omega 0.3 -0.2 0.1", charges 0.25 / -0.25
    with pytest.raises(Exception, match="hybrid STYLE"):
        sa.read(os.path.join(DATA, "style_hybrid.data"))
    s = sa.read(os.path.join(DATA, "style_hybrid.data"), atom_style="hybrid charge sphere")
    np.testing.assert_array_equal(s["wx"], np.full(8, 0.3))
    np.testing.assert_array_equal(np.unique(s["q"]), [-0.25, 0.25])
    out = tmp_path / "h.data"
    sa.write(str(out), s)
    with open(os.path.join(DATA, "style_hybrid.data"), "rb") as a, open(out, "rb") as b:
        assert a.read() == b.read()


def test_extxyz_from_data_names_species_from_masses(tmp_path):
    """Issue 32 item 4: a data file's Masses (15.9994, 1.008) name the
    species of an extxyz written from it, so ASE reads O and H, not X, and
    the same symbols as to_ase(); masses that are no element's add none."""
    ase_io = pytest.importorskip("ase.io")
    s = sa.read(path("full"))
    out = tmp_path / "w.extxyz"
    sa.write(str(out), s)
    atoms = ase_io.read(str(out))
    assert atoms.get_chemical_symbols() == s.to_ase().get_chemical_symbols()
    assert set(atoms.get_chemical_symbols()) == {"O", "H"}
    text = open(path("full")).read().replace("15.9994", "15.5")  # no element weighs 15.5
    odd = tmp_path / "odd.data"
    odd.write_text(text)
    sa.write(str(tmp_path / "odd.extxyz"), sa.read(str(odd)))
    assert "species" not in open(tmp_path / "odd.extxyz").read().split("\n")[1]
