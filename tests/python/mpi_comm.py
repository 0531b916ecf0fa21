"""Run under mpirun (tests/cli/test_mpi.sh), not by pytest: snapkit.open(path,
comm=MPI.COMM_WORLD) gives each rank its share, whose concatenation in rank
order is one process's table; snapkit.project(..., comm=comm) gives rank 0
(every rank with all_ranks=True) the maps of the whole table, within 1e-14
of each map's largest magnitude of one process's, count maps exactly.
Usage: mpi_comm.py OUTPUT FILE.snapkit; exits 1 on any difference."""
import sys

import numpy as np
from mpi4py import MPI

import snapkit

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
bad = []


def same_maps(a, b, what):
    for name in a.units:
        x, y = a[name], b[name]
        if x.shape != y.shape or not np.array_equal(np.isnan(x), np.isnan(y)):
            bad.append(f"{what} {name}: shape or NaN differ")
        elif name == "count" and not np.array_equal(x, y):
            bad.append(f"{what} count not exact")
        elif not np.nanmax(np.abs(x - y)) <= 1e-14 * np.nanmax(np.abs(x)):
            bad.append(f"{what} {name}: {np.nanmax(np.abs(x - y))} off")


for path in sys.argv[1:]:
    mine = snapkit.open(path, comm=comm).hydro()
    whole = snapkit.open(path).hydro()
    parts = comm.gather({k: mine[k] for k in ("level", "cx", "density")}, root=0)
    if rank == 0:
        for k in ("level", "cx", "density"):
            joined = np.concatenate([p[k] for p in parts])
            if not np.array_equal(joined, whole[k]):
                bad.append(f"{path}: the shares of {k} joined differ from one read")
        if size > 1 and min(len(p["level"]) for p in parts) == len(whole):
            bad.append(f"{path}: a rank read everything")
    maps = snapkit.project(mine, "sd,T,count", comm=comm)
    one = snapkit.project(whole, "sd,T,count")
    if rank == 0:
        same_maps(one, maps, path)
    elif maps is not None:
        bad.append(f"rank {rank} got maps without all_ranks")
    everyone = snapkit.project(mine, ["sd", "velocity_x"], axis="x", comm=comm, all_ranks=True)
    if everyone is None:
        bad.append(f"rank {rank}: no maps with all_ranks=True")
    else:
        same_maps(snapkit.project(whole, ["sd", "velocity_x"], axis="x"), everyone,
                  f"{path} all ranks")
try:
    snapkit.project(mine, "sd", comm=comm.Split(rank % 2, rank)) if size > 1 else None
    if size > 1:
        bad.append("a communicator other than the world was accepted")
except ValueError:
    pass
bad = sum(comm.allgather(bad), [])
if bad:
    if rank == 0:
        print("FAIL: " + "; ".join(bad))
    sys.exit(1)
if rank == 0:
    print(f"python comm: {size} ranks agree with one process")
