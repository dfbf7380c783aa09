"""Benchmark: Santini §5 weighted displacement, vectorised against a per-list Python loop.

Workload (issue 5): 1,000 queries x 20 annotators x answers of 100 items, against 3 systems
that return 100 items each; every (system, query, annotator) list scored under the optimist,
exact pessimist and pessimist hypotheses. Bar: under 1 s for the vectorised implementation.

The per-list reference is a straightforward pure-Python implementation (dicts, one loop per
list). It is timed on a subset of the queries and extrapolated linearly to the full workload
(the output says so). There is no peer tool for §5; the reference is the comparison.

The same workload is also scored with the systems given as :class:`~fuzzytruth.runs.Run`
objects (the library's runs, ranked by score), and the two-stage bootstrap is timed at 1,000
and at its default 9,999 replicates.

Run: ``python benchmarks/displacement.py``. Timings are CPU seconds (``time.process_time``,
best of 3), with the wall clock beside them; on a shared, loaded machine (the project's has 2
cores) both vary by tens of percent, so the load average is printed.
``FUZZYTRUTH_BENCH_SMOKE=1`` runs it at a tiny size (benchmarks/_smoke.py).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
from _smoke import size

from fuzzytruth.displacement import HYPOTHESES, weighted_displacement
from fuzzytruth.runs import Run

N_QUERIES, N_ANNOTATORS, M, N_SYSTEMS, POOL = size((1_000, 20, 100, 3, 300), (20, 3, 10, 2, 30))
N_ITEMS = 1_000_000
PYTHON_SUBSET = size(100, 5)  # queries timed for the per-list Python reference
REPEATS = size(3, 1)  # calls of the vectorised scoring, the best kept
BOOTSTRAP_RESAMPLES = size((1000, 9999), (20, 50))


def make_data(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Annotators pick 100 of a 300-item pool per query; systems mix pool and other items."""
    pool_base = np.arange(N_QUERIES)[:, None] * POOL
    affinity = np.linspace(1.0, 0.0, POOL)  # some pool items are more popular
    keys = rng.random((N_QUERIES, N_ANNOTATORS, POOL)) - affinity
    picked = np.argsort(keys, axis=2)[:, :, :M]  # (Q, A, M) pool offsets, in rank order
    items = (pool_base[:, :, None] + picked).ravel()
    relevance = -np.sort(-rng.random((N_QUERIES, N_ANNOTATORS, M)), axis=2).ravel()
    annotations = pd.DataFrame(
        {
            "query_id": np.repeat(np.arange(N_QUERIES), N_ANNOTATORS * M),
            "annotator_id": np.tile(np.repeat(np.arange(N_ANNOTATORS), M), N_QUERIES),
            "item_id": items,
            "rank": np.tile(np.arange(1, M + 1), N_QUERIES * N_ANNOTATORS),
            "relevance": relevance,
        }
    )
    n_pool = 7 * M // 10
    keys = rng.random((N_SYSTEMS, N_QUERIES, POOL)) - affinity
    from_pool = pool_base[None] + np.argsort(keys, axis=2)[:, :, :n_pool]
    lists = np.arange(N_SYSTEMS * N_QUERIES).reshape(N_SYSTEMS, N_QUERIES, 1)
    outside = N_QUERIES * POOL + lists * (M - n_pool) + np.arange(M - n_pool)
    run_items = np.concatenate((from_pool, outside), axis=2)
    run_items = rng.permuted(run_items, axis=2)  # mix pool and outside items down the ranking
    runs = pd.DataFrame(
        {
            "system": np.repeat([f"sys{j}" for j in range(N_SYSTEMS)], N_QUERIES * M),
            "query_id": np.tile(np.repeat(np.arange(N_QUERIES), M), N_SYSTEMS),
            "item_id": run_items.ravel(),
            "rank": np.tile(np.arange(1, M + 1), N_SYSTEMS * N_QUERIES),
        }
    )
    return annotations, runs


def python_reference(ann_lists: dict, run_lists: dict, n_items: int) -> list[tuple]:
    """One (system, query, annotator) list at a time, as the paper writes it.

    ``ann_lists[query][annotator] = (items, relevances)``; ``run_lists[(system, query)] = items``.
    """
    out = []
    for (system, query), run in run_lists.items():
        position = {item: j + 1 for j, item in enumerate(run)}
        depth = len(run)
        for annotator, (items, rel) in ann_lists[query].items():
            w_a = 0.0
            missing = []
            for k, (item, s) in enumerate(zip(items, rel, strict=True), start=1):
                p = position.get(item)
                if p is None:
                    missing.append((k, s))
                else:
                    w_a += s * abs(k - p)
            n_b = len(missing)
            opt = sum(s * abs(b - (depth + i)) for i, (b, s) in enumerate(missing, 1))
            exact = sum(s * abs(b - (n_items - n_b + i)) for i, (b, s) in enumerate(missing, 1))
            pess = n_items * sum(s for _, s in missing)
            out.append((system, query, annotator, w_a + pess, w_a + exact, w_a + opt))
    return out


def best_of(n: int, func) -> tuple[float, float, object]:
    """``(cpu, wall, result)``: the smallest CPU time of ``n`` calls and that call's wall time."""
    best, wall, result = float("inf"), float("inf"), None
    for _ in range(n):
        t0, w0 = time.process_time(), time.perf_counter()
        result = func()
        cpu = time.process_time() - t0
        if cpu < best:
            best, wall = cpu, time.perf_counter() - w0
    return best, wall, result


def main() -> None:
    rng = np.random.default_rng(20260522)
    annotations, runs = make_data(rng)
    print(
        f"workload: {N_QUERIES} queries x {N_ANNOTATORS} annotators x {M} items, "
        f"{N_SYSTEMS} systems of {M} items, N = {N_ITEMS:,}; "
        f"{len(annotations):,} annotation rows, {len(runs):,} run rows"
    )
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")

    t_vec, w_vec, res = best_of(
        REPEATS, lambda: weighted_displacement(annotations, runs, n_items=N_ITEMS)
    )
    table = res.to_frame()
    n_lists = len(table)
    print(
        f"vectorised, DataFrames in -> table out: {t_vec:.3f} s CPU ({w_vec:.3f} s wall) for "
        f"{n_lists:,} lists x {len(HYPOTHESES)} hypotheses (best of {REPEATS}); bar 1 s: "
        f"{'met' if t_vec < 1 else 'NOT met'}"
    )
    as_runs = {
        name: Run(g["query_id"], g["item_id"], -g["rank"].to_numpy(float), name=name)
        for name, g in runs.groupby("system", sort=True)
    }
    t_run, w_run, res_run = best_of(
        REPEATS, lambda: weighted_displacement(annotations, as_runs, n_items=N_ITEMS)
    )
    pd.testing.assert_frame_equal(res_run.to_frame(), table, check_dtype=False)
    print(f"vectorised, Run objects in -> table out: {t_run:.3f} s CPU ({w_run:.3f} s wall); "
          "same table")

    # per-list Python reference on a subset of queries, extrapolated
    sub_q = set(range(PYTHON_SUBSET))
    ann_sub = annotations[annotations["query_id"].isin(sub_q)]
    run_sub = runs[runs["query_id"].isin(sub_q)]

    def group() -> tuple[dict, dict]:
        ann_lists: dict = {}
        for (query, annotator), g in ann_sub.groupby(["query_id", "annotator_id"], sort=True):
            ann_lists.setdefault(query, {})[annotator] = (
                g["item_id"].tolist(),
                g["relevance"].tolist(),
            )
        by_run = run_sub.groupby(["system", "query_id"])
        return ann_lists, {key: g["item_id"].tolist() for key, g in by_run}

    t_group, _, (ann_lists, run_lists) = best_of(1, group)
    t_py, _, ref = best_of(1, lambda: python_reference(ann_lists, run_lists, N_ITEMS))
    scale = N_QUERIES / PYTHON_SUBSET
    t_py_full = t_py * scale
    print(
        f"per-list Python: {t_py:.3f} s CPU on {PYTHON_SUBSET} queries ({len(ref):,} lists), "
        f"extrapolated x{scale:g} to {t_py_full:.2f} s for the workload "
        "(inputs already grouped into Python lists)"
    )
    print(
        f"  + grouping the DataFrames into those lists: {t_group:.3f} s on the subset, "
        f"extrapolated {t_group * scale:.2f} s"
    )
    print(
        f"ratio per-list Python / vectorised: {t_py_full / t_vec:.1f}x for the scoring alone, "
        f"{(t_py_full + t_group * scale) / t_vec:.1f}x DataFrames in to scores out"
    )

    # same numbers from both
    ref_frame = pd.DataFrame(
        ref, columns=["system", "query_id", "annotator_id", *(f"w_{h}" for h in HYPOTHESES)]
    ).sort_values(["system", "query_id", "annotator_id"], ignore_index=True)
    mine = table[table["query_id"].isin(sub_q)].sort_values(
        ["system", "query_id", "annotator_id"], ignore_index=True
    )
    for h in HYPOTHESES:
        np.testing.assert_allclose(mine[f"w_{h}"], ref_frame[f"w_{h}"], rtol=1e-12)
    print("check: vectorised and per-list Python agree on the subset")

    res.bootstrap(n_resamples=2, rng=0)  # compile the keyed draws once (numba, cached)
    for n in BOOTSTRAP_RESAMPLES:
        t_boot, w_boot, _ = best_of(1, lambda n=n: res.bootstrap(n_resamples=n, rng=0))
        print(f"two-stage bootstrap, {n:,} resamples (queries, then annotators): "
              f"{t_boot:.2f} s CPU ({w_boot:.2f} s wall)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
