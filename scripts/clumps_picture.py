#!/usr/bin/env python3
"""The picture of docs/clumps.md: the clumps3d fixture's surface density
along z, with the outline of each clump found by snapkit (watershed, the
threshold and relevance of RAMSES's run) drawn over it. Everything but the
drawing is snapkit: the read, the clumps and the projections.

    PYTHONPATH=python /usr/bin/python3 scripts/clumps_picture.py \
        ../shared/fixtures/ramses/clumps3d/output_00002 docs/img/clumps3d.png
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import snapkit  # noqa: E402


def main(source, out, res=256):
    cells = snapkit.open(source).read("hydro")
    cat, ids = snapkit.clumps(cells, threshold=1.0, finder="watershed", relevance=2.0)
    sd = snapkit.project(cells, "sd", axis="z", res=res)
    x0, x1, y0, y1 = sd.extent
    fig, ax = plt.subplots(figsize=(5.2, 4.4), dpi=110)
    im = ax.imshow(np.log10(sd["sd"]), origin="lower", extent=(x0, x1, y0, y1),
                   cmap="gray_r")
    fig.colorbar(im, ax=ax, label="log10 surface density (code units)")
    colours = plt.cm.tab10.colors
    d = cells.to_dict()
    for k in range(len(cat)):
        keep = ids == k + 1
        part = snapkit.Table.from_arrays({c: v[keep] for c, v in d.items()}, meta=cells.meta)
        m = snapkit.project(part, "sd", axis="z", res=res)["sd"] > 0
        xs, ys = np.linspace(x0, x1, res), np.linspace(y0, y1, res)
        ax.contour(xs, ys, m.astype(float), levels=[0.5], colors=[colours[k % 10]],
                   linewidths=1.2)
        ax.text(cat["x"][k], cat["y"][k], str(k + 1), color=colours[k % 10], fontsize=9,
                ha="center", va="center", weight="bold")
    ax.set_xlabel("x (code length)")
    ax.set_ylabel("y (code length)")
    ax.set_title("clumps3d: watershed, threshold 1, relevance 2 (%d clumps)" % len(cat),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
