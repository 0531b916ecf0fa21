"""snapkit: read, convert and project simulation snapshots.

Columns are numpy arrays over the C library's memory (no copies). Errors
raise snapkit.Error with the same one-line message the command prints.
"""
import ctypes

from ._lib import Error, MemStats, ThreadBudget, lib
from .table import Table
from .colstats import column_stats
from .wstats import weighted_stats
from .ramses import Output, open, unit_factor
from .derive import derive, quantities
from .store import File, convert, load, open, same_rows, save, verify  # noqa: F811 (open: both kinds)
from .project import Maps, project
from .cube import cube
from .slice import slice  # noqa: A004 (snapkit.slice, as yt.SlicePlot; the builtin stays builtins.slice)
from .profile import profile
from .phase import phase
from .center import center, totals
from .clumps import clumps
from . import atoms
from .ytbridge import to_yt
from .series import OutputInfo, series
from .h5export import export
from .run import outputs
from ._lib import check_abi as _check_abi

_check_abi()  # every ctypes mirror against the library's own layout, before any call
__version__ = lib.sk_version().decode()


def memory():
    """Bytes the library allocated: dict(total, current, peak, calls)."""
    s = MemStats()
    lib.sk_mem_get(ctypes.byref(s))
    return {"total": s.total, "current": s.current, "peak": s.peak, "calls": s.calls}


def threads(requested=0):
    """The thread budget: dict(threads, owned, limited_by, affinity, machine)."""
    b = ThreadBudget()
    lib.sk_thread_budget_get(int(requested), ctypes.byref(b))
    return {"threads": b.threads, "requested": b.requested, "owned": b.owned,
            "limited_by": b.limited_by.decode(), "affinity": b.affinity, "machine": b.machine}


__all__ = ["Error", "Table", "atoms", "memory", "threads", "__version__",
           "Output", "open", "derive", "quantities", "unit_factor", "column_stats",
           "weighted_stats",
           "File", "save", "load", "convert", "verify", "same_rows", "project", "Maps", "clumps",
           "center", "totals", "profile", "to_yt", "phase", "series", "OutputInfo", "export",
           "outputs"]
