"""Benchmark: runs whose lists differ wildly in length (one long list beside many short ones).

The kernels read (queries x depth) tables; padded to the longest list, one query of 2 M
documents beside 1,000 of one made 1,001 x 2 M cells and the process was killed. Since
session 53 the tables are made a block of queries of like lengths at a time
(``Ranking.row_blocks``; the uncertain path when padding dominates), and tied groups are kept
per entry. Each shape runs in a fresh process; printed: CPU and wall time of ``evaluate`` and
``aggregate``, the peak resident memory above the process's before the call (``VmHWM``
reset through ``/proc/self/clear_refs``), the values, and the load.

Shapes (``--long`` documents in one query beside ``--short`` queries of one document; 5,000
judged documents for the long query): crisp qrels (P@10, AP, nDCG@10, R@1000), crisp qrels
with ``ties="average"`` and integer scores (P@10, AP), probabilistic qrels with closed forms
(P@10) and with 100 worlds (P@10, AP). Bar (design, not a peer ratio): the peak above the
input stays under the default memory budget's order (a few hundred MB) where it was
``queries x longest list`` cells. Run from a checkout: ``python benchmarks/ragged.py``.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _smoke import SMOKE, size
from crisp import _reset_peak, _status  # the peak-memory probe crisp.py reads

SHAPES = ("crisp", "ties", "exact", "worlds")
JUDGED = size(5000, 50)  # judged documents of the long query
WORLDS = size(100, 10)


def worker(shape: str, n_long: int, n_short: int) -> None:
    import numpy as np

    import fuzzytruth as ft
    from fuzzytruth.runs import Qrels, Run
    from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

    rng = np.random.default_rng(0)
    queries = np.array(["q"] * n_long + [f"x{i}" for i in range(n_short)], dtype=object)
    docs = np.array([f"d{i}" for i in range(n_long)] + ["d0"] * n_short, dtype=object)
    scores = (rng.integers(0, 5, len(docs)).astype(float) if shape == "ties"
              else rng.random(len(docs)))
    run = Run(queries, docs, scores)
    judged_q = np.array(["q"] * JUDGED + [f"x{i}" for i in range(n_short)], dtype=object)
    judged_d = np.array([f"d{i}" for i in range(JUDGED)] + ["d0"] * n_short, dtype=object)
    if shape in ("crisp", "ties"):
        truth = Qrels(judged_q, judged_d, np.ones(len(judged_d)))
    else:
        truth = ProbabilisticQrels(judged_q, judged_d, rng.random(len(judged_d)))
    measures, options = {
        "crisp": (["P@10", "AP", "nDCG@10", "R@1000"], {}),
        "ties": (["P@10", "AP"], {"ties": "average"}),
        "exact": (["P@10"], {"n_worlds": 0}),
        "worlds": (["P@10", "AP"], {"n_worlds": WORLDS, "rng": 0}),
    }[shape]
    _reset_peak()
    before = _status("VmRSS:")
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    values = ft.evaluate(run, truth, measures, **options).aggregate()["value"].tolist()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"cpu": cpu, "wall": wall, "peak_extra": max(_status("VmHWM:") - before, 0),
                      "load": load, "values": values}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=size(2_000_000, 500))
    parser.add_argument("--short", type=int, default=size(1_000, 20))
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]))
        return
    print(f"one list of {args.long:,} documents beside {args.short:,} of one; cores "
          f"{os.cpu_count()}, load {os.getloadavg()[0]:.2f}")
    print(f"{'shape':>7} {'cpu s':>7} {'wall s':>7} {'peak MB':>8} {'load':>5}  values")
    for shape in args.shapes.split(","):
        out = subprocess.run([sys.executable, __file__, "--worker", shape, str(args.long),
                              str(args.short)], capture_output=True, text=True)
        if out.returncode:
            print(f"{shape:>7} failed (rc {out.returncode}): {out.stderr.strip()[-200:]}")
            if SMOKE:  # a failed worker must fail tests/test_benchmarks_run.py
                raise SystemExit(out.stderr)
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{shape:>7} {r['cpu']:7.2f} {r['wall']:7.2f} {r['peak_extra'] / 2**20:8.0f} "
              f"{r['load']:5.2f}  {[round(v, 4) for v in r['values']]}")


if __name__ == "__main__":
    main()
