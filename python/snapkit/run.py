"""The outputs of a RAMSES run: a folder of output_NNNNN folders.

    import snapkit
    for o in snapkit.outputs("sim"):
        print(o["output"], o["time"], o["redshift"], o["state"], o["problem"])

Each output is a dict (what `snapkit info sim --json` lists): output, path,
state ("complete", "missing", "truncated", "unreadable"), problem (the first
missing or cut-short file, or why it does not open; "" when complete),
missing, truncated (file counts), ncpu, levelmin, levelmax, cosmological,
time (code units), time_Myr, aexp, redshift (None when unknown or not
cosmological), files and bytes on disk. Only info files and file sizes are
read, so a run of hundreds of outputs lists in a moment.
"""
import ctypes
import json

from ._lib import ERR, ErrorStruct, c_path, check, declare, lib
from .ramses import _Json

declare("sk_run_list_json", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_Json), ERR)


def outputs(path, complete=False):
    """The outputs of the run in `path`, by number; complete=True keeps only
    the complete ones. snapkit.Error for a folder without output_NNNNN folders."""
    j = _Json()
    err = ErrorStruct()
    lib.sk_json_init(ctypes.byref(j), 0)
    try:
        check(lib.sk_run_list_json(c_path(path), ctypes.byref(j), ctypes.byref(err)), err)
        listed = json.loads(ctypes.string_at(j.buf, j.len).decode())["outputs"]
    finally:
        lib.sk_json_free(ctypes.byref(j))
    return [o for o in listed if o["state"] == "complete" or not complete]
