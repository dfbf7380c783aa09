"""Validity of fuzzytruth.stats by simulation: size of every test, coverage of every interval.

Prints its design first, then six tables (seeded, deterministic), all at the 5 % level / 95 %
coverage, each rate with its Monte Carlo standard error (binomial, ``sqrt(p (1 - p) / R)``
for R replications):

1. every pairwise procedure (test and dual interval) on the eleven generating models of
   :mod:`fuzzytruth.stats._simulation_pairs` for n in {10, 25, 50, 100} queries, B = 999:
   ``size/coverage`` in %, 2,000 null and 2,000 effect comparisons per cell (MC SE 0.49 % at
   a 5 % rate and at 95 % coverage). Wilcoxon and sign tests test symmetry / the median, so
   they have no coverage; their rejection rate under the skewed *mean* null shows what they
   do not test. Under uncertain truth the replaced two-level bootstrap (one world per
   replicate) is shown for reference;
2. the verdict: which procedures meet the bar (coverage 93–97 %, size 3.5–6.5 %) on every
   model, per number of queries, and the models where they miss it;
3. the skewness alarm of the default t procedure: (a) how often each candidate rule fires
   per model and n, beside the t test's size and coverage (20,000 null and 20,000 effect
   comparisons per cell, closed form); (b) the confusion of the chosen rule with the t
   procedure's failures (a null comparison fails when the test rejects, an effect
   comparison when the interval misses the truth); (c) what happens when it fires: size and
   coverage of t and bootstrap-t on the comparisons where it fired and where it did not
   (the comparisons of table 1); (d) whether *any* per-sample trigger sees the samples on
   which the t test fails, on null differences of seven models (four new in issue 23: a 3 %
   and a 20 % mixture of rare large one-sided differences, lognormal and Pareto(2.5)
   differences), n in {25, 50, 100, 200}, 20,000 comparisons per cell: the t test's size,
   each trigger's rate where the test fails and where it holds, and, for the mixtures, the
   share of samples that drew no large difference and the test's size among them;
4. family-wise error and power over the 10 pairs of 5 systems with unequal variances (not
   exchangeable), 500 data sets per cell: Holm on t tests, Romano–Wolf, Tukey (randomised,
   ANOVA); power against one shifted system;
5. the annotator-population estimand on the labelling-only model (nested and crossed
   annotators), 400 data sets per cell: coverage of the population difference by the
   query-only interval and by the two-stage bootstrap (annotators resampled within items, or
   shared), and how often P(A better) is extreme (≤ 0.05 or ≥ 0.95) under the null;
6. Wilcoxon and sign tests under the skewed mean-null.

Run with ``python benchmarks/stats_validity.py`` (about 25 minutes of CPU; ``--quick`` uses a
fifth of the replications; ``--triggers`` prints table 3d alone, in about 10 s).
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from _smoke import size

from fuzzytruth.stats._simulation_families import CORRECTIONS, unequal_variance_study
from fuzzytruth.stats._simulation_pairs import (
    ALARMS,
    MEAN_METHODS,
    MODELS,
    OTHER_TESTS,
    TRIGGER_MODELS,
    TRIGGERS,
    alarm_study,
    binomial_se,
    pair_study,
    trigger_study,
)
from fuzzytruth.stats._simulation_population import labelling_study

SIZES = size((10, 25, 50, 100), (10, 25))
ALARM_SIZES = size((25, 50, 100), (25,))
#: Comparisons (data sets) per cell: of tables 1 and 3c, of 3a-3b, of 3d, of 4, of 5
#: (``--quick``: a fifth of each).
N_PAIRS, N_ALARM, N_TRIGGER, N_FAMILIES, N_LABELLING = (
    size(2000, 50), size(20_000, 200), size(20_000, 200), size(500, 20), size(400, 20))
#: Resamples of the bootstrap procedures (tables 1 and 4) and of table 5's two-stage bootstrap.
B, B_LABELLING = size(999, 99), size(499, 49)
BAR_COVERAGE = (0.93, 0.97)
BAR_SIZE = (0.035, 0.065)
CHOSEN = "skewness^2 > 0.06 n"
SHIFT = 0.04


def _pct(rate: float) -> str:
    return "  -  " if np.isnan(rate) else f"{100 * rate:5.1f}"


def _rate_se(rate: float, n: int) -> str:
    """``rate (se)`` in %."""
    if np.isnan(rate):
        return "   -       "
    return f"{100 * rate:5.1f} ({100 * binomial_se(rate, n):.1f})"


def _holds(size: float, coverage: float) -> bool:
    return (BAR_SIZE[0] <= size <= BAR_SIZE[1]) and (BAR_COVERAGE[0] <= coverage <= BAR_COVERAGE[1])


TRIGGER_SIZES = size((25, 50, 100, 200), (25,))


def trigger_table(n_comparisons: int) -> None:
    """Table 3d: can a per-sample trigger see the samples where the t test fails?"""
    print(f"\n3d. Per-sample triggers against the t test's failures, null differences (mean 0), "
          f"{n_comparisons} comparisons per cell: t size (% (MC SE)); for each trigger "
          "'% of the failing samples on which it fires / % of the holding ones' (MC SE in the "
          "footnote); mixtures: % of samples with no large difference, t size among them and "
          "among the others")
    for model, (_, description) in TRIGGER_MODELS.items():
        print(f"  {model:<16s}{description}")
    print(f"  {'model':<16s}{'n':>4s}{'t size':>12s}" + "".join(f"{r[:22]:>24s}"
                                                            for r in TRIGGERS)
          + f"{'no large':>10s}{'size|none':>11s}{'size|some':>11s}")
    worst = 0.0
    first_ok: dict[str, int | None] = {}
    for model in TRIGGER_MODELS:
        first_ok[model] = None
        for n in TRIGGER_SIZES:
            s = trigger_study(model, n, n_comparisons=n_comparisons)
            size, _ = s.rate(s.failed)
            if first_ok[model] is None and size <= BAR_SIZE[1]:
                first_ok[model] = n
            cells = ""
            for rule in TRIGGERS:
                (fail, n_fail), (hold, n_hold) = (s.rate(s.fired[rule], s.failed),
                                                  s.rate(s.fired[rule], ~s.failed))
                worst = max(worst, binomial_se(fail, n_fail) if n_fail else 0.0,
                            binomial_se(hold, n_hold))
                cells += f"{_pct(fail)}/{_pct(hold)}".rjust(24)
            extra = ""
            if s.drew_large is not None:
                none = ~s.drew_large
                extra = (f"{_pct(none.mean()):>10s}{_pct(s.rate(s.failed, none)[0]):>11s}"
                         f"{_pct(s.rate(s.failed, s.drew_large)[0]):>11s}")
            print(f"  {model:<16s}{n:>4d}{_rate_se(size, n_comparisons):>12s}{cells}{extra}")
    print(f"  (MC SE of the trigger rates at most {100 * worst:.1f} %, largest where the t "
          "test fails on few samples; '-': no failing sample)")
    print("  Smallest n of the grid where the t test's size is <= 6.5 %: " + ", ".join(
        f"{m} {f'> {TRIGGER_SIZES[-1]}' if n is None else n}" for m, n in first_ok.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the replications")
    parser.add_argument("--triggers", action="store_true", help="table 3d only")
    args = parser.parse_args()
    if args.triggers:
        trigger_table(N_TRIGGER)
        return
    scale = 5 if args.quick else 1
    n_pairs, n_alarm, n_families, n_labelling = (N_PAIRS // scale, N_ALARM // scale,
                                                 N_FAMILIES // scale, N_LABELLING // scale)
    start = time.process_time()
    wall = time.perf_counter()
    print("Validity study of fuzzytruth.stats (seed 0; procedures at 5 % / 95 %).")
    print(f"Design: {len(MODELS)} generating models (fuzzytruth/stats/_simulation_pairs.py), "
          f"n = {', '.join(map(str, SIZES))} queries, {n_pairs} null + {n_pairs} effect "
          f"comparisons per cell, B = {B}; MC SE = sqrt(p(1-p)/R), e.g. "
          f"{100 * binomial_se(0.05, n_pairs):.2f} % for a 5 % rate at R = {n_pairs}.")
    for model in MODELS.values():
        print(f"  {model.name:<16s}{model.description}")

    results = {(m, n): pair_study(m, n, n_comparisons=n_pairs, n_resamples=B) for m in MODELS
               for n in SIZES}

    print("\n1. Size / coverage (%) of each procedure")
    print(f"  {'model':<16s}{'procedure':<18s}" + "".join(f"{f'n={n}':>13s}" for n in SIZES))
    for model in MODELS:
        for method in results[model, SIZES[0]].rejected:
            cells = "".join(
                f"{_pct(results[model, n].size(method))}/{_pct(results[model, n].coverage(method))}"
                .rjust(13) for n in SIZES
            )
            print(f"  {model:<16s}{method:<18s}{cells}")
    print(f"  (MC SE about {100 * binomial_se(0.05, n_pairs):.1f} % on each rate; "
          "Wilcoxon/sign: tests of symmetry/median, no mean interval)")

    print("\n2. Verdict: coverage in [93, 97] % and size in [3.5, 6.5] % on every model "
          "(range of coverage / range of size over the models; the models that miss)")
    for method in MEAN_METHODS:
        print(f"  {method}")
        for n in SIZES:
            size = {m: results[m, n].size(method) for m in MODELS}
            cov = {m: results[m, n].coverage(method) for m in MODELS}
            misses = [m for m in MODELS if not _holds(size[m], cov[m])]
            verdict = "ok" if not misses else "NO"
            print(f"    n={n:<4d}{verdict:<3s} coverage {100 * min(cov.values()):.1f}-"
                  f"{100 * max(cov.values()):.1f}, size {100 * min(size.values()):.1f}-"
                  f"{100 * max(size.values()):.1f}" + (f"; misses: {', '.join(misses)}"
                                                       if misses else ""))

    print(f"\n3a. Skewness alarm of the t procedure: % of comparisons on which each candidate "
          f"fires ({n_alarm} null + {n_alarm} effect comparisons per cell, MC SE <= "
          f"{100 * binomial_se(0.5, n_alarm):.2f} %), beside the t test's size / coverage "
          "(% (MC SE))")
    alarms = {(m, n): alarm_study(m, n, n_comparisons=n_alarm) for m in MODELS
              for n in ALARM_SIZES}
    rules = list(ALARMS)
    print(f"  {'model':<16s}{'n':>4s}{'t size':>13s}{'t coverage':>13s}"
          + "".join(f"{r[:22]:>24s}" for r in rules))
    for model in MODELS:
        for n in ALARM_SIZES:
            s = alarms[model, n]
            size = s.failed_null.mean()
            cov = 1.0 - s.failed_effect.mean()
            fires = "".join(
                f"{_pct(np.concatenate([s.fired_null[r], s.fired_effect[r]]).mean()):>24s}"
                for r in rules
            )
            flag = "" if _holds(size, cov) else "  t fails"
            print(f"  {model:<16s}{n:>4d}{_rate_se(size, n_alarm):>13s}"
                  f"{_rate_se(cov, n_alarm):>13s}{fires}{flag}")

    print(f"\n3b. Confusion of the chosen alarm ({CHOSEN}) with the t procedure's failures: "
          "% of the failing comparisons on which it fires, % of the holding ones on which it "
          "fires (null: failing = rejects the true null; effect: failing = misses the truth)")
    print(f"  {'model':<16s}{'n':>4s}{'null: fail/fire':>17s}{'fail/quiet':>12s}"
          f"{'hold/fire':>11s}{'hold/quiet':>12s}{'P(fire|fail)':>14s}{'P(fire|hold)':>14s}"
          f"{'effect: P(fire|miss)':>22s}{'P(fire|cover)':>15s}")
    for model in MODELS:
        for n in ALARM_SIZES:
            s = alarms[model, n]
            f0, x0 = s.fired_null[CHOSEN], s.failed_null
            f1, x1 = s.fired_effect[CHOSEN], s.failed_effect
            counts = [int(np.count_nonzero(a & b)) for a, b in
                      ((x0, f0), (x0, ~f0), (~x0, f0), (~x0, ~f0))]
            print(f"  {model:<16s}{n:>4d}{counts[0]:>17d}{counts[1]:>12d}{counts[2]:>11d}"
                  f"{counts[3]:>12d}{_pct(f0[x0].mean() if x0.any() else np.nan):>14s}"
                  f"{_pct(f0[~x0].mean()):>14s}"
                  f"{_pct(f1[x1].mean() if x1.any() else np.nan):>22s}"
                  f"{_pct(f1[~x1].mean()):>15s}")

    print(f"\n3c. When the chosen alarm fires (table 1's comparisons, {n_pairs} + {n_pairs} per "
          "cell): size / coverage (%) of t and of bootstrap-t on the comparisons where it "
          "fired and where it did not (fired share in %; '-' where it never fired)")
    print(f"  {'model':<16s}{'n':>4s}{'fired':>7s}{'t fired':>14s}{'t quiet':>14s}"
          f"{'boot-t fired':>14s}{'boot-t quiet':>14s}")
    for model in MODELS:
        for n in ALARM_SIZES:
            r = results[model, n]
            share = np.concatenate([r.fired_null, r.fired_effect]).mean()
            cells = ""
            for method in ("t", "bootstrap"):
                for null_where, effect_where in ((r.fired_null, r.fired_effect),
                                                 (~r.fired_null, ~r.fired_effect)):
                    size = r.size(method, null_where)
                    cov = r.coverage(method, effect_where)
                    cells += f"{_pct(size)}/{_pct(cov)}".rjust(14)
            print(f"  {model:<16s}{n:>4d}{_pct(share):>7s}{cells}")

    trigger_table(N_TRIGGER // scale)

    print(f"\n4. Five systems with equal means and unequal variances (sigma 0.02-0.3), "
          f"{n_families} data sets per cell: family-wise error over the 10 pairs (%, MC SE "
          f"{100 * binomial_se(0.05, n_families):.1f} at 5 %); then power (%) against the "
          f"least noisy system shifted by {SHIFT} (any of its 4 pairs rejected) and the "
          "family-wise error over the other 6 pairs")
    fwer = {n: unequal_variance_study(n, n_datasets=n_families, n_resamples=B)
            for n in SIZES[1:]}
    power = {n: unequal_variance_study(n, shift=SHIFT, n_datasets=n_families, n_resamples=B)
             for n in SIZES[1:]}
    print(f"  {'correction':<20s}" + "".join(f"{f'FWER n={n}':>12s}" for n in SIZES[1:])
          + "".join(f"{f'power n={n}':>13s}" for n in SIZES[1:])
          + "".join(f"{f'FWER6 n={n}':>12s}" for n in SIZES[1:]))
    for name in CORRECTIONS:
        print(f"  {name:<20s}" + "".join(f"{_pct(fwer[n][name][0]):>12s}" for n in SIZES[1:])
              + "".join(f"{_pct(power[n][name][1]):>13s}" for n in SIZES[1:])
              + "".join(f"{_pct(power[n][name][0]):>12s}" for n in SIZES[1:]))

    print(f"\n5. Annotator-population estimand, labelling-only model (5 annotators, "
          "fuzzytruth/stats/_simulation_population.py), "
          f"{n_labelling} data sets per cell, B = {B_LABELLING}: coverage (%) of the population "
          "difference, and % of data sets with an extreme P(A better) (MC SE "
          f"{100 * binomial_se(0.9, n_labelling):.1f} at 90 %, "
          f"{100 * binomial_se(0.05, n_labelling):.1f} at 5 %)")
    print(f"    {'':<30s}" + "".join(f"{f'n={n}':>8s}" for n in SIZES))
    for crossed in (False, True):
        label = "crossed (same 5 annotators on every item)" if crossed else (
            "nested (fresh annotators per item)")
        print(f"  {label}")
        rows = {n: labelling_study(n, crossed=crossed, n_datasets=n_labelling,
                                   n_resamples=B_LABELLING) for n in SIZES}
        for name in rows[SIZES[0]]:
            print(f"    {name:<30s}" + "".join(f"{100 * rows[n][name]:8.1f}" for n in SIZES))

    print("\n6. Tests of another hypothesis under the skewed mean-null (mean 0, median not)")
    for test in OTHER_TESTS:
        rates = [results["skewed-null", n].size(test) for n in SIZES]
        print(f"  {test:<14s}rejects "
              + ", ".join(f"{_rate_se(r, n_pairs).strip()} % at n={n}"
                          for r, n in zip(rates, SIZES, strict=True)))
    print(f"\n({time.process_time() - start:.0f} s CPU, {time.perf_counter() - wall:.0f} s "
          f"wall, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
