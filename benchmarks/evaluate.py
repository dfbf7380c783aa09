"""The one evaluation path at size: probabilistic qrels with sampled worlds, and start-up cost.

* ``evaluate(run, ProbabilisticQrels)`` for P@10 and AP with 1,000 worlds on 1,000 queries ×
  1,000 documents (bar: under 1.5 s) and on 20,000 × 100 (bar: under 15 s and under 1 GB peak);
  peak memory is the RSS high-water mark of a fresh subprocess above its level before the call;
* ``python -c "import fuzzytruth"`` (bar 0.5 s) and ``fuzzytruth --help`` (bar 0.8 s), median
  of 5, printed beside ``python -c pass``.

Crisp evaluation against pytrec_eval, ranx and ir_measures is ``benchmarks/crisp.py``.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py).

Usage::

    python benchmarks/evaluate.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from _smoke import size

#: (queries, documents per query) of each evaluation (at least 50 documents: the worker judges
#: 100 of 2 x depth), and its bars (seconds, peak MB)
SIZES = size([(1_000, 1_000), (20_000, 100)], [(10, 100), (20, 50)])
BARS = [(1.5, None), (15.0, 1024.0)]
WORLDS = size(1_000, 20)
REPEATS = size(5, 1)  # of each start-up time

WORKER = r"""
import json, resource, sys, time
import numpy as np
import fuzzytruth as ft

n_q, depth, n_worlds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
q = np.repeat(np.array([f"q{i}" for i in range(n_q)], dtype=object), depth)
d = np.array([f"d{i}" for i in range(depth * 2)], dtype=object)
docs = np.concatenate([rng.permutation(depth * 2)[:depth] for _ in range(n_q)])
run = ft.Run(q, d[docs], rng.random(n_q * depth))
judged = np.concatenate([rng.permutation(depth * 2)[:100] for _ in range(n_q)])
pq = ft.ProbabilisticQrels(
    np.repeat(np.array([f"q{i}" for i in range(n_q)], dtype=object), 100),
    d[judged], rng.choice([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], size=n_q * 100))
ft.evaluate(run, pq, ["P@10", "AP"], n_worlds=5, rng=0)  # warm: numba compiled, modules loaded
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0])
start = time.perf_counter()
ev = ft.evaluate(run, pq, ["P@10", "AP"], n_worlds=n_worlds, rng=0)
agg = ev.aggregate()
seconds = time.perf_counter() - start
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
print(json.dumps({"seconds": seconds, "peak_mb": (peak - base) / 1024}))
"""


def evaluate_at(n_q: int, depth: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(n_q), str(depth), str(WORLDS)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_time(args: list[str], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"evaluate(run, ProbabilisticQrels), P@10 + AP, {WORLDS:,} worlds")
    for (n_q, depth), (bar_s, bar_mb) in zip(SIZES, BARS, strict=True):
        r = evaluate_at(n_q, depth)
        mem = f", peak {r['peak_mb']:.0f} MB (bar {bar_mb:.0f} MB)" if bar_mb else ""
        print(f"  {n_q:>6} x {depth:<5}: {r['seconds']:6.2f} s (bar {bar_s} s){mem}")
    python = [sys.executable, "-c", "pass"]
    base = median_time(python)
    imp = median_time([sys.executable, "-c", "import fuzzytruth"])
    helped = median_time([sys.executable, "-m", "fuzzytruth.cli", "--help"])
    print(f"start-up, median of {REPEATS}")
    print(f"  python -c pass          {base:5.3f} s")
    for label, value, bar in (("import fuzzytruth", imp, 0.5), ("fuzzytruth --help", helped, 0.8)):
        print(f"  {label:<22}  {value:5.3f} s (bar {bar} s; {value - base:+.3f} s over python)")


if __name__ == "__main__":
    main()
