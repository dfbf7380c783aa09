"""Validity of fuzzytruth.stats by simulation: size of every test, coverage of every interval.

Prints four tables (seeded, deterministic), all at the 5 % level / 95 % coverage:

1. every pairwise procedure (test and dual interval) on five generating models of
   :mod:`fuzzytruth.stats._simulation` (heavy-tailed AP differences, RR, lattice P@10 with
   ties, a skewed mean-null, exchangeable systems under uncertain truth), for
   n ∈ {10, 25, 50, 100} queries: ``size/coverage`` in %, 1,000 null and 1,000 effect
   comparisons per cell (binomial SE: 0.7 % for a 5 % rate, 0.7 % for 95 % coverage).
   Wilcoxon and sign tests test symmetry / the median, so they have no coverage; their
   rejection rate under the skewed *mean* null shows what they do not test. Under uncertain
   truth the replaced two-level bootstrap (one world per replicate) is shown for reference;
2. the family-wise error over the 10 pairs of 5 systems with equal means and unequal
   variances (not exchangeable): Holm on t tests, Romano–Wolf, Tukey (randomised, ANOVA);
3. the annotator-population estimand on the labelling-only model (nested and crossed
   annotators): coverage of the population difference by the query-only interval and by the
   two-stage bootstrap (annotators resampled within items, or shared), and how often
   P(A better) is extreme (≤ 0.05 or ≥ 0.95) under the null;
4. the verdict: which procedures meet the bar (coverage 93–97 %, size 3.5–6.5 %) on every
   model from 25 queries on.

Run with ``python benchmarks/stats_validity.py`` (about 6 minutes on one core; ``--quick``
uses a fifth of the replications).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fuzzytruth.stats._simulation import (
    MEAN_METHODS,
    MODELS,
    OTHER_TESTS,
    labelling_study,
    pair_study,
    unequal_variance_fwer,
)

SIZES = (10, 25, 50, 100)
BAR_COVERAGE = (0.93, 0.97)
BAR_SIZE = (0.035, 0.065)


def _cell(size: float, coverage: float) -> str:
    cov = "  -  " if np.isnan(coverage) else f"{100 * coverage:5.1f}"
    return f"{100 * size:4.1f}/{cov}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the replications")
    args = parser.parse_args()
    scale = 5 if args.quick else 1
    start = time.perf_counter()
    results: dict[tuple[str, int], dict] = {}
    print("1. Size / coverage (%) of each procedure at 5 % / 95 %, "
          f"{1000 // scale} null + {1000 // scale} effect comparisons per cell, B = 999")
    header = f"  {'model':<16s}{'procedure':<18s}" + "".join(f"{f'n={n}':>13s}" for n in SIZES)
    print(header)
    for model in MODELS:
        for n in SIZES:
            results[model, n] = pair_study(model, n, n_comparisons=1000 // scale)
        for method in results[model, SIZES[0]]:
            cells = "".join(f"{_cell(*results[model, n][method]):>13s}" for n in SIZES)
            print(f"  {model:<16s}{method:<18s}{cells}")
    print("  (Wilcoxon/sign: tests of symmetry/median, no mean interval; under skewed-null "
          "the mean is 0 but the median is not)")

    print(f"\n2. Family-wise error (%) over 10 pairs, 5 systems, equal means, unequal "
          f"variances, {500 // scale} data sets")
    fwer = {n: unequal_variance_fwer(n, n_datasets=500 // scale) for n in SIZES[1:]}
    print(f"  {'procedure':<20s}" + "".join(f"{f'n={n}':>8s}" for n in SIZES[1:]))
    for name in fwer[SIZES[1]]:
        print(f"  {name:<20s}" + "".join(f"{100 * fwer[n][name]:8.1f}" for n in SIZES[1:]))

    print(f"\n3. Annotator-population estimand, labelling-only model (5 annotators), "
          f"{400 // scale} data sets: coverage (%) of the population difference, and % of "
          "data sets with an extreme P(A better)")
    for crossed in (False, True):
        label = "crossed (same 5 annotators on every item)" if crossed else (
            "nested (fresh annotators per item)")
        print(f"  {label}")
        rows = {n: labelling_study(n, crossed=crossed, n_datasets=400 // scale) for n in SIZES}
        for name in rows[SIZES[0]]:
            print(f"    {name:<30s}" + "".join(f"{100 * rows[n][name]:8.1f}" for n in SIZES))

    print("\n4. Verdict: coverage in [93, 97] % and size in [3.5, 6.5] % on every model, "
          "per number of queries")
    for method in MEAN_METHODS:
        verdict = []
        for n in SIZES:
            ok = all(
                BAR_SIZE[0] <= results[m, n][method][0] <= BAR_SIZE[1]
                and BAR_COVERAGE[0] <= results[m, n][method][1] <= BAR_COVERAGE[1]
                for m in MODELS
            )
            cov = [results[m, n][method][1] for m in MODELS]
            size = [results[m, n][method][0] for m in MODELS]
            mark = "ok " if ok else "NO "
            verdict.append(f"{mark}{100 * min(cov):.1f}-{100 * max(cov):.1f}/"
                           f"{100 * min(size):.1f}-{100 * max(size):.1f}")
        print(f"  {method:<14s}" + "".join(f"{v:>24s}" for v in verdict))
    print("  (range of coverage / range of size over the five models)")
    for test in OTHER_TESTS:
        rates = [results["skewed-null", n][test][0] for n in SIZES]
        print(f"  {test:<14s}rejects a true mean-null (skewed-null) "
              + ", ".join(f"{100 * r:.1f} %" for r in rates))
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
