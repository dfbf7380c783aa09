"""Benchmark: uncertain truth (probabilistic qrels) at real size, closed forms and per-query laws.

The exact recall's law holds (k + 1) x (judged documents outside the top k + 1) atoms per
query. Until 2026-11-27 every (system, query, measure) law was built by ``evaluate()`` and
padded to the widest query's: R@1000 on 50 queries of 1,500 uncertain judgments took 800 MB,
10,000 ragged queries 12 GB, 30,000 the machine's 24 GB. The closed forms now give their means
first (what ``aggregate()`` reads) and ``to_frame()`` builds the laws a block of queries at a
time within the memory budget.

Shapes (``--shapes``), each at the query counts of ``--queries``:

* ``trec``: TREC-like pools, 1,000 retrieved and 1,500 judged documents a query (the first
  1,000 judged are the retrieved ones), P(relevant) ~ Beta(0.6, 1.2); R@1000, R@100, P@10.
* ``ragged``: list lengths log-normal (median 20, sigma 1.5, at most 20,000), 30 % of the
  retrieved documents judged, P(relevant) uniform; P@10 and R@100.

Both with ``n_worlds=0`` by default (closed forms only: what is timed is theirs, not the
worlds'); ``--n-worlds 1000`` adds the default sampled worlds beside them (their world values
are kept, ``n_measures x n_worlds x n_queries`` floats: at 100,000 ragged queries 1.6 GB). Each
(shape, size) runs in a fresh process; printed: CPU and wall time and the peak resident memory
above the process's before the call (``VmHWM`` reset through ``/proc/self/clear_refs``) of
``evaluate()`` + ``aggregate()``, then of ``to_frame()``, the CPU time per query, the load and
the aggregate values. No peer evaluates under uncertain truth: the figure to read is the cost
per query as the queries grow (flat) and the peak (within the memory budget's order, not
growing with queries × widest law).

Usage::

    python benchmarks/uncertain_scale.py                                  # both shapes
    python benchmarks/uncertain_scale.py --shapes ragged --queries 1000,10000,100000
    python benchmarks/uncertain_scale.py --shapes ragged --queries 20000,100000 --n-worlds 1000

This is a plain script, not a test; timings depend on the machine and on its load.
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's fuzzytruth
from _smoke import SMOKE, size
from crisp import _reset_peak, _status  # the peak-memory probe crisp.py reads

SHAPES = {"trec": (["R@1000", "R@100", "P@10"], size("50,500", "2,5")),
          "ragged": (["P@10", "R@100"], size("1000,10000,100000", "20,50"))}


def collection(shape: str, n_queries: int, rng):
    """Run and probabilistic qrels of ``shape`` (see the module docstring)."""
    import numpy as np

    from fuzzytruth.runs import Run
    from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels

    if shape == "trec":
        depth, judged = size((1000, 1500), (100, 150))
        q = np.repeat(np.arange(n_queries), depth)
        d = np.tile(np.arange(depth), n_queries)
        jq, jd = np.repeat(np.arange(n_queries), judged), np.tile(np.arange(judged), n_queries)
        p = rng.beta(0.6, 1.2, len(jq))
    else:
        lengths = np.minimum(np.maximum(1, rng.lognormal(3, 1.5, n_queries).astype(int)),
                             20_000)
        q = np.repeat(np.arange(n_queries), lengths)
        d = np.arange(len(q))
        keep = rng.random(len(q)) < 0.3
        jq, jd = q[keep], d[keep]
        p = rng.random(len(jq))
    run = Run(q.astype(str), np.char.add("d", d.astype(str)), rng.random(len(q)))
    truth = ProbabilisticQrels(jq.astype(str), np.char.add("d", jd.astype(str)), p)
    return run, truth


def _timed(call):
    _reset_peak()
    before = _status("VmRSS:")
    cpu, wall = time.process_time(), time.perf_counter()
    out = call()
    return out, {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                 "peak": max(_status("VmHWM:") - before, 0)}


def worker(shape: str, n_queries: int, n_worlds: int) -> None:
    import warnings

    import numpy as np

    import fuzzytruth as ft

    run, truth = collection(shape, n_queries, np.random.default_rng(0))
    measures = SHAPES[shape][0]
    load = os.getloadavg()[0]
    with warnings.catch_warnings():  # queries without judgments are named, not the point here
        warnings.simplefilter("ignore")
        (evaluation, table), first = _timed(lambda: (
            e := ft.evaluate(run, truth, measures, n_worlds=n_worlds, rng=1), e.aggregate()))
        _, frame = _timed(evaluation.to_frame)
    print(json.dumps({"evaluate": first, "to_frame": frame, "load": load,
                      "values": table["value"].round(6).tolist()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--queries", help="query counts (default: per shape, "
                        + "; ".join(f"{s} {q}" for s, (_, q) in SHAPES.items()) + ")")
    parser.add_argument("--n-worlds", type=int, default=0,
                        help="sampled worlds beside the closed forms (default 0)")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]))
        return
    print(f"cores {os.cpu_count()}, load {os.getloadavg()[0]:.2f}, n_worlds {args.n_worlds}")
    print(f"{'shape':>7} {'queries':>8} {'eval cpu':>9} {'wall':>6} {'MB':>6} {'µs/q':>6} "
          f"{'frame cpu':>9} {'wall':>6} {'MB':>6} {'load':>5}  values")
    for shape in args.shapes.split(","):
        for n in (args.queries or SHAPES[shape][1]).split(","):
            out = subprocess.run([sys.executable, __file__, "--worker", shape, n,
                                  str(args.n_worlds)],
                                 capture_output=True, text=True)
            if out.returncode:
                print(f"{shape:>7} {n:>8} failed (rc {out.returncode}): "
                      f"{out.stderr.strip()[-200:]}")
                if SMOKE:  # a failed worker must fail tests/test_benchmarks_run.py
                    raise SystemExit(out.stderr)
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            e, f = r["evaluate"], r["to_frame"]
            print(f"{shape:>7} {int(n):>8,} {e['cpu']:9.2f} {e['wall']:6.2f} "
                  f"{e['peak'] / 2**20:6.0f} {e['cpu'] / int(n) * 1e6:6.0f} {f['cpu']:9.2f} "
                  f"{f['wall']:6.2f} {f['peak'] / 2**20:6.0f} {r['load']:5.2f}  {r['values']}")


if __name__ == "__main__":
    main()
