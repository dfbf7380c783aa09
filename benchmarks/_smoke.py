"""Tiny runs of the benchmarks, to check that each still runs end to end.

With ``FUZZYTRUTH_BENCH_SMOKE=1`` in the environment every script in ``benchmarks/`` shrinks
its inputs (queries, items, worlds, replicates, repeats, shapes) to sizes that run in seconds,
so that ``tests/test_benchmarks_run.py`` (``make test-slow``) can run them all: a benchmark
that no longer runs (a renamed column, a moved function) fails there, not at its next
measurement. The figures of such a run mean nothing; the bars are not judged on them.
"""

from __future__ import annotations

import os

#: True when the scripts run at their tiny sizes.
SMOKE = os.environ.get("FUZZYTRUTH_BENCH_SMOKE") == "1"


def size(full, smoke):
    """``smoke`` in a smoke run, else ``full`` (any value: a count, a list of shapes)."""
    return smoke if SMOKE else full
