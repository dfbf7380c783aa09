"""A classifier's long table (one row per item and class) made a matrix: fuzzytruth's
``Predictions.from_frame`` beside pandas' ``DataFrame.pivot``, the way pandas' documentation
turns a long table into a wide one (``pivot(index="item_id", columns="class",
values="score")``, which also refuses a repeated pair; it checks no missing cell, reads no id
as text and sorts ids by value, not text).

Shapes (``--shapes``): items × classes, ids as int64 columns or as pandas str columns
("img0000042"), rows grouped by item or shuffled. Each (tool, shape) runs in a fresh process,
which builds the table (not timed), then times the call: CPU time (``process_time``), wall
time, the peak resident set above the one before the call (``/proc/self/clear_refs``), and the
load average before and after. The ratio is fuzzytruth's CPU over pandas'.

Usage::

    python benchmarks/predictions_long.py                      # every shape
    python benchmarks/predictions_long.py --shapes 200000x10-int-grouped

This is a plain script, not a test; timings depend on the machine and on its load.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py): four shapes of
hundreds of rows, each kind of ids and each order once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _smoke import size

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHAPES = size([f"{shape}-{ids}-{order}" for shape in ("200000x10", "20000x1000")
                for ids in ("int", "str") for order in ("grouped", "shuffled")],
               ["50x10-int-grouped", "50x10-str-shuffled", "5x100-int-shuffled",
                "5x100-str-grouped"])


def table(shape: str) -> pd.DataFrame:
    size, ids, order = shape.split("-")
    n_items, n_classes = map(int, size.split("x"))
    rng = np.random.default_rng(0)
    items = rng.permutation(n_items * 7)[:n_items]  # ids not in order, not contiguous
    item = np.repeat(items, n_classes)
    cls = np.tile(np.arange(n_classes), n_items)
    frame = pd.DataFrame({"item_id": item, "class": cls,
                          "score": rng.random(n_items * n_classes)})
    if ids == "str":
        frame["item_id"] = pd.Series([f"img{i:07d}" for i in item], dtype="str")
        frame["class"] = pd.Series([f"c{c}" for c in cls], dtype="str")
    if order == "shuffled":
        frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    return frame


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    return 0


def worker(tool: str, shape: str) -> None:
    from fuzzytruth.classify import Predictions

    tiny = pd.DataFrame({"item_id": ["x", "x"], "class": ["a", "b"], "score": [0.5, 0.5]})
    Predictions.from_frame(tiny)  # first calls (imports, caches) are not the table's cost
    tiny.pivot(index="item_id", columns="class", values="score")
    frame = table(shape)
    before = _status("VmRSS:")
    load = os.getloadavg()[0]
    Path("/proc/self/clear_refs").write_text("5")
    cpu, wall = time.process_time(), time.perf_counter()
    if tool == "fuzzytruth":
        shape_out = Predictions.from_frame(frame).scores.shape
    else:
        shape_out = frame.pivot(index="item_id", columns="class", values="score").shape
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"cpu": cpu, "wall": wall, "peak": max(_status("VmHWM:") - before, 0),
                      "load": [load, os.getloadavg()[0]], "shape": list(shape_out)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "SHAPE"))
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    print(f"{'shape':28s} {'fuzzytruth':>16s} {'pandas pivot':>16s} {'ratio':>6s} "
          f"{'peak MB':>14s} load")
    worst = 0.0
    for shape in args.shapes.split(","):
        got = {}
        for tool in ("fuzzytruth", "pandas"):
            out = subprocess.run([sys.executable, __file__, "--worker", tool, shape],
                                 capture_output=True, text=True, check=True)
            got[tool] = json.loads(out.stdout.strip().splitlines()[-1])
        ratio = got["fuzzytruth"]["cpu"] / got["pandas"]["cpu"]
        worst = max(worst, ratio)
        f, p = got["fuzzytruth"], got["pandas"]
        print(f"{shape:28s} {f['cpu']:6.2f} s ({f['wall']:5.2f}) {p['cpu']:6.2f} s "
              f"({p['wall']:5.2f}) {ratio:6.2f} {f['peak'] / 1e6:6.0f} /{p['peak'] / 1e6:6.0f} "
              f"{f['load'][0]:.1f}-{p['load'][1]:.1f}")
    print(f"worst ratio (fuzzytruth CPU / pandas pivot CPU): {worst:.2f}")


if __name__ == "__main__":
    main()
