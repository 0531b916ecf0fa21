"""Run under mpirun (tests/cli/test_center.sh), not by pytest: on an
output opened with comm=MPI.COMM_WORLD, snapkit.center and snapkit.totals
are collective (each rank reads its share, the sums are reduced exactly)
and give every rank the bits one process gets alone.
Usage: mpi_center.py OUTPUT [FILE.snapkit ...]; exits 1 on any difference."""
import sys

import numpy as np
from mpi4py import MPI

import snapkit

comm = MPI.COMM_WORLD
bad = []
for path in sys.argv[1:]:
    alone = snapkit.open(path)
    shared = snapkit.open(path, comm=comm)
    for method in ("max:density", "com", "shrink"):
        a = snapkit.center(alone, method, full=True)
        b = snapkit.center(shared, method, full=True)
        if not (np.array_equal(a.pop("center"), b.pop("center")) and
                np.array_equal(a.pop("center_box"), b.pop("center_box")) and a == b):
            bad.append(f"{path} {method}: {a} != {b}")
    c = snapkit.center(alone, "max:density")
    ta = snapkit.totals(alone, center=c, sphere=0.2, component=["hydro", "particles"])
    tb = snapkit.totals(shared, center=c, sphere=0.2, component=["hydro", "particles"])
    for k in ta:
        if not np.array_equal(ta[k], tb[k]):
            bad.append(f"{path} totals {k}: {ta[k]} != {tb[k]}")
for line in bad:
    print(f"rank {comm.Get_rank()}: {line}", file=sys.stderr)
sys.exit(1 if comm.allreduce(len(bad)) else 0)
