"""Benchmark of fuzzytruth.stats against scipy.stats and ranx, side by side in one run.

Workload: 50 systems x 250 queries (all 1,225 pairs), P@20-like scores (``Beta(2, 5)`` rounded
to twentieths, seed 0), B = 10,000 resamples.

    bar                                                   fuzzytruth target
    randomisation test, all 1,225 pairs                   <= 0.2 s
    BCa intervals, 50 means + 1,225 differences           <= 0.5 s
    BCa test + interval (dual), all pairs                 <= 1 s
    paired t test, all pairs                              <= 5 ms
    randomised Tukey HSD, 50 x 250                        <= 3 s
    bootstrap-t test + interval (dual), all pairs         <= 2 s (each pair's SE in each
                                                          resample: B x n x pairs = 3e9 MACs)
    randomisation test + inverted interval, all pairs     <= 10 s
    Romano–Wolf step-down, all pairs                      <= 1 s
    Holm on 1,225 p-values (numpy vs statsmodels)         <= 1 ms
    compare() default (t + Holm), 5 systems x 50 queries  <= 20 ms
    peak memory of any of the above (tracemalloc)         <= 100 MB
    bootstrap-t, 2 systems x 20,000 queries (many-queries) peak <= 2 x the memory budget
                                                          (128 MB): the query counts are
                                                          drawn again in blocks, not kept

Measured (CPU time, best of 3, on a shared 2-core machine at load 12–16): BCa intervals
(drawing the 10,000 resamples included) 222–265 ms, BCa test and interval 226–389 ms, peak
59 MB; the code before the sort-free order statistics took 352–425 ms and 703–728 ms, run
interleaved with it. Wall time was 3–4 times the CPU time at that load.

Peers: scipy.stats (``permutation_test``, ``bootstrap``, ``ttest_rel``) and ranx (``compare``
with its Fisher randomisation, Student and Tukey tests). Peers that would take minutes on the
full workload are timed on a subset of pairs and extrapolated linearly per pair; the output
says which. Times are the best CPU time (``time.process_time``) of ``REPEAT`` runs, with the
wall time and the load average beside them. Run with ``python benchmarks/stats.py``
(``--only bca t ...`` for some sections). ``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size
(benchmarks/_smoke.py).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
from _smoke import size
from scipy import stats as sps

from fuzzytruth.stats import (
    adjust_pvalues,
    compare,
    paired_bootstrap,
    paired_inference,
    paired_test,
    randomized_tukey_hsd,
    romano_wolf,
)
from fuzzytruth.stats._validation import all_pairs

N_SYSTEMS, N_QUERIES, B = size(50, 5), size(250, 30), size(10_000, 200)
REPEAT = size(3, 1)
#: Queries of the many-queries section.
N_MANY = size(20_000, 2_000)
#: Wall time of each :func:`best_time` call, in order (printed beside the CPU time).
WALL: list[float] = []


def best_time(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    """Best CPU time (``time.process_time``) of ``repeat`` runs; the wall time of the same
    runs is kept in :data:`WALL` (the machine is shared: CPU time is the steadier figure)."""
    best_cpu, best_wall = np.inf, np.inf
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    WALL.append(best_wall)
    return best_cpu


def peak_mb(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def row(name: str, ours: float, bar: float, peers: dict[str, tuple[float, str]], mem: float,
        wall: float):
    verdict = "ok" if ours <= bar else "OVER BAR"
    print(f"\n{name}")
    print(f"  fuzzytruth  {ours * 1e3:10.1f} ms CPU ({wall * 1e3:.1f} ms wall, load "
          f"{os.getloadavg()[0]:.1f})   (bar {bar * 1e3:.0f} ms: {verdict}); peak {mem:.1f} MB")
    for peer, (seconds, note) in peers.items():
        print(f"  {peer:<34s} {seconds * 1e3:12.1f} ms   ratio {seconds / ours:8.1f}x  {note}")


def ranx_inputs(scores: np.ndarray, n_docs: int = 20):
    """Qrels and Runs whose per-query P@n_docs equals ``round(scores * n_docs) / n_docs``."""
    from ranx import Qrels, Run

    rel = {f"q{i}": {f"d{j}": 1 for j in range(n_docs)} for i in range(scores.shape[1])}
    runs = []
    for s, row_scores in enumerate(scores):
        run = {}
        for i, value in enumerate(row_scores):
            hits = round(float(value) * n_docs)
            docs = [f"d{j}" for j in range(hits)] + [f"x{j}" for j in range(n_docs - hits)]
            run[f"q{i}"] = {doc: float(n_docs - r) for r, doc in enumerate(docs)}
        runs.append(Run(run, name=f"s{s}"))
    return Qrels(rel), runs


SECTIONS = ("randomization", "bca", "t", "tukey", "bootstrap-t", "randomization-ci",
            "romano-wolf", "holm", "compare", "many-queries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS),
                        help="run these sections only")
    only = set(parser.parse_args().only)
    rng = np.random.default_rng(0)
    scores = np.round(rng.beta(2, 5, size=(N_SYSTEMS, N_QUERIES)) * 20) / 20  # P@20-like
    pairs = all_pairs(N_SYSTEMS)
    m = len(pairs)
    print(f"fuzzytruth.stats benchmark: {N_SYSTEMS} systems x {N_QUERIES} queries, {m} pairs, "
          f"B = {B}; cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} "
          "(timings on a shared machine are noisy)")

    def ours_rand():
        return paired_test(scores, method="randomization", n_resamples=B, rng=1)

    if "randomization" in only:
        # --- randomisation test ----------------------------------------------------------------
        t_ours = best_time(ours_rand)
        w_ours = WALL[-1]
        sub = 10
        d_sub = scores[pairs[:sub, 0]] - scores[pairs[:sub, 1]]

        def scipy_rand():
            for d in d_sub:
                sps.permutation_test(
                    (d,), lambda x, axis: x.mean(axis=axis), permutation_type="samples",
                    n_resamples=B, vectorized=True, rng=2,
                )

        t_scipy = best_time(scipy_rand, 1) / sub * m
        peers = {"scipy permutation_test": (t_scipy, f"(extrapolated from {sub} pairs)")}
        try:
            from ranx import compare as ranx_compare

            qrels, runs = ranx_inputs(scores[:2])
            ranx_compare(qrels, runs, "precision@20", stat_test="fisher", n_permutations=10)  # JIT
            n_sys = 5
            qrels, runs = ranx_inputs(scores[:n_sys])
            t_ranx = best_time(
                lambda: ranx_compare(qrels, runs, "precision@20", stat_test="fisher",
                                     n_permutations=B), 1,
            )
            n_pairs_sub = n_sys * (n_sys - 1) // 2
            peers["ranx compare (fisher)"] = (
                t_ranx / n_pairs_sub * m,
                f"(extrapolated from {n_pairs_sub} pairs, {n_sys} systems)",
            )
        except ImportError:
            print("  (ranx not installed: skipping ranx)")
        row("Randomisation test, all pairs", t_ours, 0.2, peers, peak_mb(ours_rand), w_ours)

    if "bca" in only:
        # --- BCa intervals -----------------------------------------------------------------------
        def ours_bca():
            res = paired_bootstrap(scores, n_resamples=B, rng=1)
            res.confidence_interval(0.95, method="bca", target="means")
            res.confidence_interval(0.95, method="bca", target="differences")

        t_ours = best_time(ours_bca)
        w_ours = WALL[-1]
        sub = 10
        d_sub = scores[pairs[:sub, 0]] - scores[pairs[:sub, 1]]
        t_scipy = best_time(
            lambda: sps.bootstrap((d_sub,), np.mean, axis=-1, n_resamples=B, method="BCa",
                                  vectorized=True, rng=2, batch=1000), 1,
        ) / sub * (m + N_SYSTEMS)
        row("BCa intervals, 50 means + 1,225 differences", t_ours, 0.5,
            {"scipy bootstrap (BCa)": (t_scipy, f"(extrapolated from {sub} differences)")},
            peak_mb(ours_bca), w_ours)

        def ours_bca_test():  # what compare(method="bca") runs: the intervals and their tests
            return paired_inference(scores, method="bca", n_resamples=B, rng=1)

        t_ours = best_time(ours_bca_test)
        w_ours = WALL[-1]
        row("BCa test and interval (dual), all 1,225 pairs", t_ours, 1.0, {},
            peak_mb(ours_bca_test), w_ours)

    if "t" in only:
        # --- paired t test ------------------------------------------------------------------------
        def ours_t():
            return paired_test(scores, method="t")

        t_ours = best_time(ours_t, 20)
        w_ours = WALL[-1]
        a_scores, b_scores = scores[pairs[:, 0]], scores[pairs[:, 1]]
        t_scipy_vec = best_time(lambda: sps.ttest_rel(a_scores, b_scores, axis=1), 20)
        t_scipy_loop = best_time(lambda: [sps.ttest_rel(a, b) for a, b in zip(a_scores, b_scores,
                                                                               strict=True)], 1)
        peers = {
            "scipy ttest_rel (vectorised)": (t_scipy_vec, ""),
            "scipy ttest_rel (loop over pairs)": (t_scipy_loop, ""),
        }
        try:
            from ranx import compare as ranx_compare

            qrels, runs = ranx_inputs(scores)
            t_ranx = best_time(
                lambda: ranx_compare(qrels, runs, "precision@20", stat_test="student"), 1
            )
            peers["ranx compare (student)"] = (t_ranx, "(includes evaluating P@20, both orders)")
        except ImportError:
            pass
        row("Paired t test, all pairs", t_ours, 0.005, peers, peak_mb(ours_t), w_ours)

    if "tukey" in only:
        # --- randomised Tukey HSD ---------------------------------------------------------------
        def ours_tukey():
            return randomized_tukey_hsd(scores, n_resamples=B, rng=1)

        t_ours = best_time(ours_tukey, 1)
        w_ours = WALL[-1]
        t_scipy = best_time(lambda: sps.tukey_hsd(*scores), 1)
        peers = {"scipy tukey_hsd": (t_scipy, "(unpaired one-way Tukey: a different, invalid test "
                                              "for paired data; ranx 'tukey' calls it)")}
        row("Randomised Tukey HSD", t_ours, 3.0, peers, peak_mb(ours_tukey), w_ours)

    if "bootstrap-t" in only:
        # --- dual procedures -----------------------------------------------------------------
        def ours_boot_t():
            return paired_inference(scores, method="bootstrap", n_resamples=B, rng=1)

        t_ours = best_time(ours_boot_t, 1)
        w_ours = WALL[-1]
        sub = 10
        d_sub = scores[pairs[:sub, 0]] - scores[pairs[:sub, 1]]

        def scipy_boot_t():  # scipy has no bootstrap-t: its percentile bootstrap, no test
            sps.bootstrap((d_sub,), np.mean, axis=-1, n_resamples=B, method="percentile",
                          vectorized=True, rng=2, batch=1000)

        t_scipy = best_time(scipy_boot_t, 1) / sub * m
        row("Bootstrap-t test and interval (dual), all pairs", t_ours, 2.0,
            {"scipy bootstrap (percentile, no test)":
             (t_scipy, f"(extrapolated from {sub} pairs)")},
            peak_mb(ours_boot_t), w_ours)

    if "randomization-ci" in only:
        def ours_rand_ci():
            return paired_inference(scores, method="randomization", n_resamples=B, rng=1)

        t_ours = best_time(ours_rand_ci, 1)
        w_ours = WALL[-1]
        row("Randomisation test and inverted interval, all pairs", t_ours, 10.0,
            {"fuzzytruth randomisation test alone": (best_time(ours_rand, 1), "")},
            peak_mb(ours_rand_ci), w_ours)

    if "romano-wolf" in only:
        boot = paired_bootstrap(scores, n_resamples=B, rng=1)
        t_ours = best_time(lambda: romano_wolf(boot), 1)
        w_ours = WALL[-1]
        row("Romano-Wolf step-down, all pairs (bootstrap drawn)", t_ours, 1.0, {},
            peak_mb(lambda: romano_wolf(boot)), w_ours)

    if "holm" in only:
        # --- Holm in numpy vs statsmodels (which runs gc.collect() per call) -------------------
        from statsmodels.stats.multitest import multipletests

        p = paired_test(scores).pvalue
        t_ours = best_time(lambda: adjust_pvalues(p), 50)
        w_ours = WALL[-1]
        t_sm = best_time(lambda: multipletests(p, method="holm"), 5)
        row("Holm on 1,225 p-values", t_ours, 0.001,
            {"statsmodels multipletests": (t_sm, "")}, peak_mb(lambda: adjust_pvalues(p)), w_ours)

    if "compare" in only:
        small = scores[:5, :50]
        t_ours = best_time(lambda: compare(small, rng=0), 10)
        w_ours = WALL[-1]
        row("compare() default (t + Holm), 5 systems x 50 queries", t_ours, 0.02, {},
            peak_mb(lambda: compare(small, rng=0)), w_ours)

    if "many-queries" in only:
        # The bootstrap-t's second moments need each replicate's query counts: kept whole, a
        # (B, n_queries) table is 1.6 GB here; they are drawn again a block at a time.
        from fuzzytruth._resampling import MEMORY_BUDGET

        many = np.round(rng.beta(2, 5, size=(2, N_MANY)) * 20) / 20

        def ours_many():
            return paired_inference(many, method="bootstrap", n_resamples=B, rng=1)

        t_ours = best_time(ours_many, 1)
        w_ours = WALL[-1]
        mem = peak_mb(ours_many)
        row("Bootstrap-t test and interval, 2 systems x 20,000 queries", t_ours, 10.0, {},
            mem, w_ours)
        print(f"  peak {mem:.0f} MB against a bar of {2 * MEMORY_BUDGET / 1e6:.0f} MB "
              f"(the (B, n_queries) counts alone: {8 * B * many.shape[1] / 1e6:.0f} MB): "
              f"{'ok' if mem <= 2 * MEMORY_BUDGET / 1e6 else 'OVER BAR'}")

if __name__ == "__main__":
    main()
