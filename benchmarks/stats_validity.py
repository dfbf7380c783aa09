"""Validity of fuzzytruth.stats by simulation: size of the tests and coverage of the intervals.

Prints, for seeded simulations (deterministic):

* the rejection rate of every paired test at alpha = 0.05 over 2,000 comparisons of two
  exchangeable systems (true null), 25 queries, B = 999;
* the coverage of 95% bootstrap intervals (percentile, basic, BCa, studentised) of the mean
  difference over 4,000 comparisons with 100 queries and skewed per-query differences whose
  expectation is known (0.05);
* the coverage of the two-level (queries x ground-truth worlds) 95% interval, and of the
  query-only interval on world-averaged scores, for the true difference under a known
  annotator model (see ``fuzzytruth.stats._simulation.annotator_worlds``).

Several seeds are shown so the Monte Carlo spread is visible (binomial SE: 0.49% for a 5%
rate over 2,000; 0.34% for 95% coverage over 4,000; 0.49% over 2,000).
Run with ``python benchmarks/stats_validity.py``.
"""

from __future__ import annotations

import time

from fuzzytruth.stats._simulation import bootstrap_coverage, rejection_rate, two_level_coverage
from fuzzytruth.stats.paired import TESTS

SEEDS = (0, 1, 2)


def main() -> None:
    start = time.perf_counter()
    print("Size under a true null (alpha = 0.05, 2,000 comparisons, 25 queries, B = 999)")
    print(f"  {'test':<15s}" + "".join(f"  seed {s}" for s in SEEDS))
    for method in TESTS:
        rates = [rejection_rate(method, seed=s) for s in SEEDS]
        print(f"  {method:<15s}" + "".join(f"  {r:6.2%}" for r in rates))
    print("  (sign test: discrete, conservative by design; bootstrap test: known to be liberal "
          "for small samples)")

    print("\nCoverage of 95% bootstrap intervals (4,000 comparisons, 100 queries, B = 1,000)")
    print(f"  {'interval':<15s}" + "".join(f"  seed {s}" for s in SEEDS))
    for method in ("percentile", "basic", "bca", "studentized"):
        cov = [
            bootstrap_coverage(method, n_comparisons=4000, n_queries=100, seed=s) for s in SEEDS
        ]
        print(f"  {method:<15s}" + "".join(f"  {c:6.2%}" for c in cov))

    print("\nCoverage of the true difference under an annotator model "
          "(2,000 comparisons, 50 queries, 100 worlds, B = 1,000)")
    print(f"  {'interval':<15s}" + "".join(f"  seed {s}" for s in SEEDS))
    results = [two_level_coverage(n_worlds=100, seed=s) for s in SEEDS]
    print(f"  {'two-level':<15s}" + "".join(f"  {r[0]:6.2%}" for r in results))
    print(f"  {'queries only':<15s}" + "".join(f"  {r[1]:6.2%}" for r in results))
    print(f"\n({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
