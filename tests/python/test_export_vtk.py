"""snapkit export -o FILE.vtkhdf read back with VTK's own reader
(vtkHDFReader of Debian's python3-vtk9, the class ParaView opens .vtkhdf
files with): cells as voxels (pixels in 2-D, lines in 1-D) whose count,
levels, total volume (VTK's vtkCellSizeFilter) and cell-data sums equal the
fixtures' reference.json (written by yt 4.1.4); particles as vertices whose
points are the particles' positions and whose point-data sums equal the
reference; a .vtkhdf of one component only."""
import math
import os
import subprocess

import numpy as np
import pytest

vtk = pytest.importorskip("vtk")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

from ramses_fixtures import CLI, outputs  # noqa: E402

CASES = {c[0]: c for c in outputs()}
CELLS = [k for k in ("sedov3d/output_00001", "mhd3d/output_00002", "cosmo32/output_00003",
                     "sedov2d/output_00002", "tube1d/output_00002", "gravpart/output_00002")
         if k in CASES]
PARTICLES = [k for k in ("gravpart/output_00002", "cosmo32/output_00003", "sink3d/output_00002")
             if k in CASES]


def export(folder, path, *extra):
    subprocess.run([CLI, "export", folder, "-o", path, "--no-fsync", *extra], check=True,
                   capture_output=True)


def read(path):
    r = vtk.vtkHDFReader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def boxlen(folder):
    num = os.path.basename(folder).split("_")[1]
    with open(os.path.join(folder, "info_%s.txt" % num)) as f:
        for line in f:
            if line.startswith("boxlen"):
                return float(line.split("=")[1])


def close(got, want, scale):
    assert abs(got - want) <= 1e-12 * scale, (got, want)


@pytest.mark.parametrize("key", CELLS)
def test_cells_are_voxels_equal_to_the_reference(key, tmp_path):
    _, folder, ref = CASES[key]
    hydro = ref["full"]["hydro"]
    path = str(tmp_path / "gas.vtkhdf")
    export(folder, path)
    grid = read(path)
    assert isinstance(grid, vtk.vtkUnstructuredGrid)
    n = hydro["rows"]
    assert grid.GetNumberOfCells() == n
    cd = grid.GetCellData()
    lev = vtk_to_numpy(cd.GetArray("level"))
    got_levels = dict(zip(*(map(int, a) for a in np.unique(lev, return_counts=True))))
    assert got_levels == {int(k): v for k, v in hydro["levels"].items()}
    ndim = {2: 1, 4: 2, 8: 3}[grid.GetCell(0).GetNumberOfPoints()]
    assert grid.GetCellType(0) == {1: vtk.VTK_LINE, 2: vtk.VTK_PIXEL, 3: vtk.VTK_VOXEL}[ndim]
    # VTK's own measure of each cell: the leaves fill the box
    sizes = vtk.vtkCellSizeFilter()
    sizes.SetInputData(grid)
    sizes.Update()
    measure = {1: "Length", 2: "Area", 3: "Volume"}[ndim]
    dv = vtk_to_numpy(sizes.GetOutput().GetCellData().GetArray(measure))
    # the box: boxlen of the output, in code lengths (snapkit's unit_l)
    side = float(np.max(vtk_to_numpy(grid.GetPoints().GetData())))
    close(math.fsum(dv), side ** ndim, side ** ndim)
    for name, r in hydro["columns"].items():
        if name.endswith("_yt"):
            continue
        a = vtk_to_numpy(cd.GetArray(name)).astype(float)
        assert a.min() == r["min"] and a.max() == r["max"], name
        close(math.fsum(a), r["sum"], r["abs_sum"])
        # the reference's volume sums are in code volumes, as VTK's measures
        close(math.fsum(a * dv), r["volume_sum"], r["abs_volume_sum"])


@pytest.mark.parametrize("key", PARTICLES)
def test_particles_are_points_equal_to_the_reference(key, tmp_path):
    _, folder, ref = CASES[key]
    part = ref["full"]["particles"]
    path = str(tmp_path / "stars.vtkhdf")
    export(folder, path, "--component", "particles")
    grid = read(path)
    n = part["rows"]
    assert grid.GetNumberOfPoints() == n and grid.GetNumberOfCells() == n
    assert n == 0 or grid.GetCellType(0) == vtk.VTK_VERTEX
    pd = grid.GetPointData()
    pts = vtk_to_numpy(grid.GetPoints().GetData())
    for k, axis in enumerate("xyz"):
        assert np.array_equal(pts[:, k], vtk_to_numpy(pd.GetArray("position_" + axis)))
    for name, r in part["columns"].items():
        if name.endswith("_yt"):
            continue
        a = vtk_to_numpy(pd.GetArray(name)).astype(float)
        assert a.min() == r["min"] and a.max() == r["max"], name
        close(math.fsum(a), r["sum"], r["abs_sum"])


def test_a_selection_and_derived_quantities(tmp_path):
    _, folder, ref = CASES["sedov3d/output_00001"]
    path = str(tmp_path / "ball.vtkhdf")
    export(folder, path, "--sphere", "0.2", "--center", "0.5", "0.5", "0.5", "--vars",
           "density,T")
    grid = read(path)
    cd = grid.GetCellData()
    assert sorted(cd.GetArrayName(i) for i in range(cd.GetNumberOfArrays())) == \
        ["T", "cx", "cy", "cz", "density", "level"]
    # every cell centre within the sphere
    centres = vtk.vtkCellCenters()
    centres.SetInputData(grid)
    centres.Update()
    c = vtk_to_numpy(centres.GetOutput().GetPoints().GetData())
    side = boxlen(folder)
    assert len(c) > 0 and np.all(np.linalg.norm(c / side - 0.5, axis=1) <= 0.2)
    assert len(c) < ref["full"]["hydro"]["rows"]
