"""Benchmark: AP and nDCG@10 distributions over 1,000 possible worlds (issue 4).

Workload: a synthetic categorical truth — 10,000 items, a taxonomy of 4 groups × 5 leaves
(20 leaf categories, 25 nodes), 5 annotators per item — and 3 systems answering 1,000 queries
(query items of the collection, whose own category is uncertain) with 100 results each. One
``evaluate(..., ["AP", "nDCG@10"], n_worlds=1000)`` call: ranking the runs, drawing 1,000
annotator worlds shared by the 3 systems, and the distribution of both measures for every
(system, query). Bars: under 5 s and under 2 GB peak memory.

Peak memory is measured twice: ``tracemalloc`` (peak of Python and numpy allocations during a
second, traced run) and ``resource.getrusage`` ``ru_maxrss`` (peak resident set of the whole
process, including the interpreter and the imported libraries).

Peer: a loop that calls pytrec_eval (trec_eval 9.0.8) once per world — build that world's
qrels, evaluate the 3 runs. It is timed on a few worlds and extrapolated linearly to 1,000
(the output says so).

Run: ``python benchmarks/worlds.py``. Timings are best-of-2 wall clock; the project machine
has 2 cores shared with other work, so they vary by tens of percent.
"""

from __future__ import annotations

import resource
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytrec_eval

from fuzzytruth import Annotations, Membership, Taxonomy
from fuzzytruth.evaluation import evaluate
from fuzzytruth.runs import Run
from fuzzytruth.uncertain.worlds import sample_labels

N_ITEMS, N_GROUPS, N_LEAVES, N_ANNOTATORS = 10_000, 4, 5, 5
N_QUERIES, DEPTH, N_SYSTEMS, N_WORLDS = 1_000, 100, 3, 1_000
PEER_WORLDS = 3  # worlds timed for the pytrec_eval loop
MEASURES = ["AP", "nDCG@10"]


def make_truth(rng: np.random.Generator) -> tuple[Membership, np.ndarray]:
    """Items with a true leaf; annotators mostly agree, sometimes pick a sibling or the group."""
    tax = Taxonomy.from_nested(
        {"all": {f"g{g}": [f"g{g}l{leaf}" for leaf in range(N_LEAVES)] for g in range(N_GROUPS)}}
    )
    true_leaf = rng.integers(0, N_GROUPS * N_LEAVES, N_ITEMS)
    group, leaf = np.divmod(true_leaf, N_LEAVES)
    draw = rng.random((N_ITEMS, N_ANNOTATORS))
    sibling = (leaf[:, None] + rng.integers(1, N_LEAVES, (N_ITEMS, N_ANNOTATORS))) % N_LEAVES
    names = np.array([f"g{g}l{x}" for g in range(N_GROUPS) for x in range(N_LEAVES)])
    groups = np.array([f"g{g}" for g in range(N_GROUPS)])
    labels = np.where(
        draw < 0.7,
        names[true_leaf][:, None],
        np.where(draw < 0.85, names[group[:, None] * N_LEAVES + sibling], groups[group][:, None]),
    )
    frame = pd.DataFrame(
        {
            "item_id": np.repeat(np.arange(N_ITEMS), N_ANNOTATORS).astype(str),
            "annotator_id": np.tile(np.arange(N_ANNOTATORS), N_ITEMS),
            "label": labels.ravel(),
        }
    )
    return Membership.from_annotations(Annotations.from_frame(frame, taxonomy=tax)), true_leaf


def make_runs(rng: np.random.Generator, true_leaf: np.ndarray) -> dict[str, Run]:
    """3 systems of decreasing quality: each rank is an item of the query's true leaf with a
    probability that falls with the rank, otherwise a random item."""
    queries = rng.choice(N_ITEMS, N_QUERIES, replace=False)
    by_leaf = [np.flatnonzero(true_leaf == c) for c in range(N_GROUPS * N_LEAVES)]
    runs = {}
    for s, quality in enumerate((0.8, 0.6, 0.4)):
        hit = rng.random((N_QUERIES, DEPTH)) < quality * np.linspace(1.0, 0.3, DEPTH)
        same = np.stack(
            [rng.choice(by_leaf[true_leaf[q]], DEPTH, replace=False) for q in queries]
        )  # setup only: one draw per query
        docs = np.where(hit, same, rng.integers(0, N_ITEMS, (N_QUERIES, DEPTH)))
        frame = pd.DataFrame(
            {
                "query_id": np.repeat(queries, DEPTH).astype(str),
                "doc_id": docs.ravel().astype(str),
                "score": np.tile(np.arange(DEPTH, 0, -1), N_QUERIES).astype(float),
            }
        )
        runs[f"sys{s}"] = Run.from_dataframe(frame, name=f"sys{s}", duplicates="first")
    return runs


def peer_seconds(membership: Membership, runs: dict[str, Run], rng: np.random.Generator) -> float:
    """Seconds per world of a pytrec_eval loop (qrels of the world, then the 3 runs)."""
    tax = membership.taxonomy
    items = np.asarray(membership.items, dtype=object)
    run_dicts = {}
    for name, run in runs.items():
        df = run.to_dataframe()
        run_dicts[name] = {
            q: dict(zip(g["doc_id"], g["score"], strict=True)) for q, g in df.groupby("query_id")
        }
    queries = sorted(run_dicts["sys0"])
    query_rows = membership.item_index(queries)
    labels = sample_labels(membership, PEER_WORLDS, rng=rng)
    anc = tax.ancestor_matrix
    start = time.perf_counter()
    for world in range(PEER_WORLDS):  # the peer: one pytrec_eval call per world
        target = labels[world, query_rows]
        member = anc[labels[world]]  # (items, nodes)
        qrels = {}
        for q, qi, t in zip(queries, query_rows, target, strict=True):
            relevant = np.flatnonzero(member[:, t])
            qrels[q] = {items[i]: 1 for i in relevant if i != qi}
            qrels[q] = qrels[q] or {"__none__": 0}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"})
        for run in run_dicts.values():
            evaluator.evaluate(run)
    return (time.perf_counter() - start) / PEER_WORLDS


def main() -> None:
    rng = np.random.default_rng(2026)
    membership, true_leaf = make_truth(rng)
    runs = make_runs(rng, true_leaf)
    print(f"workload: {N_ITEMS} items, {len(membership.categories)} taxonomy nodes, "
          f"{N_ANNOTATORS} annotators/item; {N_SYSTEMS} systems x {N_QUERIES} queries x "
          f"{DEPTH} results; {N_WORLDS} worlds; measures {MEASURES}")

    times = []
    for _ in range(2):
        start = time.perf_counter()
        ev = evaluate(runs, membership, MEASURES, n_worlds=N_WORLDS, rng=0)
        times.append(time.perf_counter() - start)
    ours = min(times)
    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # KiB on Linux
    tracemalloc.start()
    evaluate(runs, membership, MEASURES, n_worlds=N_WORLDS, rng=0)
    traced_gb = tracemalloc.get_traced_memory()[1] / 1e9
    tracemalloc.stop()

    agg = ev.aggregate()
    print(agg[["system", "measure", "mean", "ci_low", "ci_high", "method"]]
          .round(4).to_string(index=False))
    per_world = peer_seconds(membership, runs, np.random.default_rng(1))
    peer = per_world * N_WORLDS
    print(f"fuzzytruth evaluate(): {ours:.2f} s (best of 2: "
          f"{', '.join(f'{t:.2f}' for t in times)}); bar < 5 s: "
          f"{'PASS' if ours < 5 else 'FAIL'}")
    print(f"peak memory: tracemalloc {traced_gb:.2f} GB, ru_maxrss {rss_gb:.2f} GB (whole "
          f"process); bar < 2 GB: {'PASS' if max(traced_gb, rss_gb) < 2 else 'FAIL'}")
    print(f"pytrec_eval loop: {per_world:.2f} s per world, timed on {PEER_WORLDS} worlds and "
          f"extrapolated to {N_WORLDS}: {peer:.0f} s")
    print(f"ratio pytrec_eval loop / fuzzytruth: {peer / ours:.0f}x")


if __name__ == "__main__":
    main()
