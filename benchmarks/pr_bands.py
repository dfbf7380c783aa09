"""Exact P–R bands at the demo's size, beside the per-cutoff path they must equal.

The bundled image collection (100 queries, 500 images, 5–7 annotators each, 100 results a
query; what ``make demo`` evaluates), exact recall (the default) and the expected-size form:

* ``precision_recall_bands`` (all cutoffs in one compiled pass per query; bar: the demo's three
  systems within 1 s, so no progress bar is needed at that size);
* the peer: ``evaluate()`` with ``P@k`` and ``R@k`` for every cutoff k, exact, which lists and
  sorts each distribution's atoms (what the bands did before) — one system, and the ratio;
* the largest difference between the two over every summary, as a check.

Each timing is the median of 3 warm runs (numba compiled, modules loaded).
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (one run per timing, the peer at cutoffs 1–5;
benchmarks/_smoke.py).

Usage::

    python benchmarks/pr_bands.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from _smoke import size

from fuzzytruth.datasets import image_collection
from fuzzytruth.evaluation import evaluate, precision_recall_bands

REPEAT = size(3, 1)
CUTOFFS = size(100, 5)  # the peer's cutoffs (the bands always cover all 100)


def timed(call, repeat: int = REPEAT) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    collection = image_collection()
    runs = collection.run_objects()
    truth = collection.membership
    one = {"strong": runs["strong"]}
    measures = [f"{m}@{k}" for m in ("P", "R") for k in range(1, CUTOFFS + 1)]
    precision_recall_bands(one, truth, progress=False)  # warm
    for form in ("exact", "expected_size"):
        seconds, _ = timed(
            lambda form=form: precision_recall_bands(
                runs, truth, recall_form=form, progress=False
            )
        )
        print(f"bands, recall_form={form!r}, 3 systems x 100 queries x 100 cutoffs: "
              f"{seconds:.3f} s (bar 1 s)")
        ours, bands = timed(
            lambda form=form: precision_recall_bands(one, truth, recall_form=form,
                                                     progress=False)
        )
        theirs, frame = timed(
            lambda form=form: evaluate(one, truth, measures, n_worlds=0, method="exact",
                                       recall_form=form).to_frame(),
            repeat=1,
        )
        frame["cutoff"] = frame["measure"].str.split("@").str[1].astype(int)
        frame["measure"] = frame["measure"].str[0].map({"P": "precision", "R": "recall"})
        merged = bands.merge(frame, on=["system", "query_id", "measure", "cutoff"],
                             suffixes=("", "_peer"))
        diff = max(
            float(np.nanmax(np.abs(merged[c] - merged[f"{c}_peer"])))
            for c in ("mean", "truth_std", "truth_low", "truth_high", "p_undefined")
        )
        print(f"  one system: bands {ours:.3f} s, evaluate() at every cutoff {theirs:.2f} s, "
              f"ratio {ours / theirs:.3f}x; largest difference {diff:.1e}")


if __name__ == "__main__":
    main()
