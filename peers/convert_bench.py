#!/usr/bin/python3
"""Whether converting a RAMSES output to a .snapkit file pays, in one run.

    /usr/bin/python3 peers/convert_bench.py [--repeat N] [--threads N] [--json]
                                            [--workdir DIR] [OUTPUT_DIR ...]

Without folders: $SNAPKIT_SHARED/fixtures/ramses/sedov3d/output_00002
(default ../shared), else the largest output under tests/data/ramses. For
each output it measures, from the page cache (every file is read once
before timing; times are the median of --repeat runs):

- RAMSES read: every component present, with snapkit's RAMSES reader
- conversion write: ordering, encoding and writing the tables read (LZ4),
  fsync and rename included
- re-read: every table of the LZ4 file, with all threads and with one
- speedup (read / re-read) and break-even re-reads: write / (read - re-read),
  the number of later reads after which converting has paid for its write
  (the first read happens either way)
- size on disk: the RAMSES files of those components plus amr, the file
  stored raw (--no-compress) and LZ4
- a region of 1% of the box (a cube of side 0.2154) at 8 places: its read
  time and chunks against a full read of the same table (median ratio)

Targets (issue 4): re-read >= 1.5 GB/s of result per thread; a 1% region
<= 5% of a full read; the LZ4 file <= 40% of the RAMSES bytes of sedov3d.
The machine may be shared: timings are noisy, compare ratios of one run.
measure() returns everything as a dict, for other reports to reuse.
"""
import argparse
import glob
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import snapkit  # noqa: E402

REGION_SIDE = 0.01 ** (1.0 / 3.0)  # a cube of 1% of the box
REGION_CORNERS = [(0.1, 0.1, 0.1), (0.55, 0.2, 0.3), (0.2, 0.6, 0.5), (0.7, 0.7, 0.7),
                  (0.4, 0.4, 0.4), (0.05, 0.7, 0.2), (0.75, 0.05, 0.6), (0.3, 0.3, 0.75)]


def default_outputs():
    shared = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
    sedov = os.path.join(shared, "fixtures", "ramses", "sedov3d", "output_00002")
    if os.path.isdir(sedov):
        return [sedov]
    local = glob.glob(os.path.join(ROOT, "tests", "data", "ramses", "*", "output_*"))
    local = [d for d in local if os.path.isdir(d)]
    return [max(local, key=folder_bytes)] if local else []


def folder_bytes(folder):
    return sum(e.stat().st_size for e in os.scandir(folder) if e.is_file())


def warm(paths):
    for p in paths:
        with open(p, "rb") as fh:
            while fh.read(1 << 22):
                pass


def timed(fn, repeat):
    """Median and best wall time of repeat calls (after one untimed call),
    and the last call's result. The median is what a user sees on this
    machine now; the best, what the code does when the machine lets it."""
    result = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), result


def read_all(src, components, threads):
    return {c: src.read(c, threads=threads) for c in components}


def region_reads(f, component, full, repeat, threads):
    """Per region: median and best seconds, chunks read, rows; the ratios
    to a full read (median to median, best to best)."""
    out = []
    for corner in REGION_CORNERS:
        rng = [(c, c + REGION_SIDE) for c in corner]
        med, best, t = timed(lambda: f.read(component, xrange=rng[0], yrange=rng[1],
                                            zrange=rng[2], threads=threads), repeat)
        out.append({"corner": corner, "seconds": med, "best_seconds": best,
                    "ratio": med / full[0], "best_ratio": best / full[1],
                    "chunks_read": f.last_read["chunks_read"], "rows": len(t)})
    return out


def measure(output, workdir, repeat=5, threads=0):
    """Every figure of the benchmark for one RAMSES output, as a dict."""
    out = snapkit.open(output)
    components = [c for c in ("hydro", "gravity", "particles") if out.info["components"][c]]
    warm([e.path for e in os.scandir(output) if e.is_file()])
    read_s, read_best, tables = timed(lambda: read_all(out, components, threads), repeat)
    read_1, read_1_best, _ = timed(lambda: read_all(out, components, 1), repeat)
    result_bytes = sum(t.nbytes for t in tables.values())
    lz4 = os.path.join(workdir, "bench.snapkit")
    raw = os.path.join(workdir, "bench_raw.snapkit")
    write_s, write_best, saved = timed(lambda: snapkit.save(tables, lz4, threads=threads),
                                       repeat)
    snapkit.save(tables, raw, compress=False, threads=threads)
    disk = out.info["disk"]
    keys = ["amr"] * any(c in components for c in ("hydro", "gravity")) + components
    ramses_bytes = sum(disk[k]["bytes"] for k in keys)
    f = snapkit.open(lz4)
    reread_s, reread_best, _ = timed(lambda: read_all(f, components, threads), repeat)
    reread_1, reread_1_best, _ = timed(lambda: read_all(f, components, 1), repeat)
    with snapkit.open(raw) as fr:
        raw_1, raw_1_best, _ = timed(lambda: read_all(fr, components, 1), repeat)
    main = "hydro" if "hydro" in components else components[0]
    region = {}
    for label, th in (("threads", threads), ("one_thread", 1)):
        full_med, full_best, full = timed(lambda: f.read(main, threads=th), repeat)
        reads = region_reads(f, main, (full_med, full_best), repeat, th)
        for x in reads:
            x["rows_share"] = x["rows"] / len(full)
        region[label] = {"full_read_seconds": full_med, "full_read_best": full_best,
                         "reads": reads,
                         "median_ratio": statistics.median(x["ratio"] for x in reads),
                         "median_best_ratio": statistics.median(x["best_ratio"] for x in reads)}

    def derived(read, write, reread):
        saved_per_read = read - reread
        return {"speedup": read / reread if reread > 0 else float("inf"),
                "break_even_rereads": write / saved_per_read if saved_per_read > 0
                else float("inf")}
    result = {
        "output": output, "components": components,
        "threads": threads or snapkit.threads()["threads"],
        "rows": {c: len(t) for c, t in tables.items()}, "result_bytes": result_bytes,
        "ramses_read_seconds": read_s, "write_seconds": write_s, "reread_seconds": reread_s,
        "reread_seconds_1thread": reread_1, "ramses_read_seconds_1thread": read_1,
        "reread_raw_seconds_1thread": raw_1,
        "speedup_1thread": read_1 / reread_1,
        "best": {"ramses_read_seconds_1thread": read_1_best,
                 "reread_raw_seconds_1thread": raw_1_best,
                 "speedup_1thread": read_1_best / reread_1_best,"ramses_read_seconds": read_best, "write_seconds": write_best,
                 "reread_seconds": reread_best, "reread_seconds_1thread": reread_1_best,
                 **derived(read_best, write_best, reread_best),
                 "reread_gb_per_s_1thread": result_bytes / reread_1_best / 1e9},
        **derived(read_s, write_s, reread_s),
        "reread_gb_per_s": result_bytes / reread_s / 1e9,
        "reread_gb_per_s_1thread": result_bytes / reread_1 / 1e9,
        "ramses_bytes": ramses_bytes, "file_raw_bytes": os.path.getsize(raw),
        "file_lz4_bytes": saved["bytes_file"],
        "lz4_percent_of_ramses": 100.0 * saved["bytes_file"] / ramses_bytes,
        "raw_percent_of_ramses": 100.0 * os.path.getsize(raw) / ramses_bytes,
        "region": {"table": main, "rows": len(full),
                   "chunks": f.info["store"]["tables"][main]["chunks"], **region},
    }
    f.close()
    out.close()
    return result


def report(r):
    mb, b = 1e6, r["best"]

    def ms(med, best):
        return f"{med * 1e3:9.2f} ms (best {best * 1e3:.2f})"
    lines = [f"{r['output']}: {', '.join(f'{c} {n} rows' for c, n in r['rows'].items())}; "
             f"result {r['result_bytes'] / mb:.1f} MB; {r['threads']} threads; median of runs "
             f"(best in brackets)",
             f"  RAMSES read           {ms(r['ramses_read_seconds'], b['ramses_read_seconds'])}",
             f"  RAMSES read, 1 thread "
             f"{ms(r['ramses_read_seconds_1thread'], b['ramses_read_seconds_1thread'])}",
             f"  conversion write      {ms(r['write_seconds'], b['write_seconds'])}"
             " LZ4, fsync included",
             f"  re-read               {ms(r['reread_seconds'], b['reread_seconds'])}"
             f"  {r['reread_gb_per_s']:.2f} GB/s of result",
             f"  re-read, 1 thread     {ms(r['reread_seconds_1thread'], b['reread_seconds_1thread'])}"
             f"  {r['reread_gb_per_s_1thread']:.2f} GB/s (best {b['reread_gb_per_s_1thread']:.2f})"
             " per thread; target >= 1.5",
             f"  re-read raw, 1 thread "
             f"{ms(r['reread_raw_seconds_1thread'], b['reread_raw_seconds_1thread'])}"
             "  (the --no-compress file)",
             f"  speedup               {r['speedup']:9.1f} x (best {b['speedup']:.1f} x); "
             f"1 thread {r['speedup_1thread']:.1f} x (best {b['speedup_1thread']:.1f} x)",
             f"  break-even            {r['break_even_rereads']:9.2f} re-reads "
             f"(best {b['break_even_rereads']:.2f}): write / (read - re-read)",
             f"  RAMSES files          {r['ramses_bytes'] / mb:9.2f} MB (components + amr)",
             f"  file, raw             {r['file_raw_bytes'] / mb:9.2f} MB "
             f"({r['raw_percent_of_ramses']:.1f}% of the RAMSES files)",
             f"  file, LZ4             {r['file_lz4_bytes'] / mb:9.2f} MB "
             f"({r['lz4_percent_of_ramses']:.1f}%; target <= 40% on sedov3d)"]
    g = r["region"]
    for label, what in (("threads", f"{r['threads']} threads"), ("one_thread", "1 thread")):
        h = g[label]
        lines.append(f"  1% regions of {g['table']} ({g['chunks']} chunks), {what}; full read "
                     f"{ms(h['full_read_seconds'], h['full_read_best']).strip()}: median "
                     f"{100 * h['median_ratio']:.1f}% (best to best "
                     f"{100 * h['median_best_ratio']:.1f}%) of a full read; target <= 5%")
        for x in h["reads"]:
            lines.append(f"    corner {str(x['corner']):17s} {x['seconds'] * 1e3:7.3f} ms "
                         f"{x['chunks_read']:4d} chunks, {100 * x['rows_share']:5.1f}% of the "
                         f"rows, cost {100 * x['ratio']:5.1f}% (best {100 * x['best_ratio']:.1f}%)")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outputs", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--workdir", help="where to write the files (default: a temporary folder)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    outputs = a.outputs or default_outputs()
    if not outputs:
        sys.exit("convert_bench: no RAMSES output found; give one")
    results = []
    with tempfile.TemporaryDirectory(dir=a.workdir) as tmp:
        for o in outputs:
            results.append(measure(o, tmp, a.repeat, a.threads))
            if not a.json:
                print(report(results[-1]))
    if a.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
