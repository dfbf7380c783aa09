"""Compile the numba kernels once, at install, into numba's cache beside the package.

``python -m fuzzytruth._kernel_warmup`` (run by ``make``'s install step) runs a small workload
through the public functions that reach every kernel, so that the kernels are compiled with
the argument types the library passes them, and then checks that every kernel of
:data:`KERNEL_FACTORIES` was compiled. Without it, each kernel is compiled at its first use in
every fresh checkout or environment: 50 kernels, 49 s of CPU in all from an empty cache
(2026-11-27, 2-core VM), paid by the first evaluation that needs one and by the first
``make test`` (25-40 s of its wall time on 2 cores). The cache is numba's own
(``cache=True``), keyed by each kernel's source file, so an edited kernel is compiled again at
its next use.
"""

from __future__ import annotations

import importlib
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

#: ``module:function`` of every function that builds numba kernels (each cached): what the
#: check reads; a module that calls ``numba.njit`` must be listed here
#: (tests/test_kernel_warmup.py).
KERNEL_FACTORIES = (
    "fuzzytruth._random:_kernels",
    "fuzzytruth.classify.ranking:_compiled",
    "fuzzytruth.collection._kernels:_kernels",
    "fuzzytruth.evaluation.world_sums:_compiled",
    "fuzzytruth.metrics.binary:_compiled",
    "fuzzytruth.metrics.classification:_compiled",
    "fuzzytruth.stats._order_statistics:_kernels",
    "fuzzytruth.truth.categorical_worlds:_compiled",
    "fuzzytruth.truth.models.rankings:_compiled",
    "fuzzytruth.uncertain.closed_form:_compiled",
    "fuzzytruth.uncertain.cutoffs:_kernel",
    "fuzzytruth.uncertain.poibin:_compiled",
)


def _factory(name: str) -> Callable[[], object]:
    module, function = name.split(":")
    return getattr(importlib.import_module(module), function)


def _dispatchers(built: object) -> list:
    if isinstance(built, dict):
        return list(built.values())
    if isinstance(built, tuple):
        return list(built)
    return [built]


def uncompiled() -> list[str]:
    """The factories' kernels that have no compiled signature in this process, as
    ``module.function``."""
    missing = []
    for name in KERNEL_FACTORIES:
        for kernel in _dispatchers(_factory(name)()):
            if not kernel.signatures:
                missing.append(f"{name.split(':')[0]}.{kernel.py_func.__name__}")
    return missing


def workload() -> None:
    """Small calls of the public functions that reach every kernel."""
    import fuzzytruth as ft
    from fuzzytruth.datasets import dermatology, image_collection

    collection = image_collection()
    runs = collection.run_objects()
    measures = ["P@10", "AP", "nDCG@10", "R@100", "RR", "Success@5", "Rprec"]
    # crisp (metrics.binary) and the truth's sampled worlds under both world models
    # (truth.categorical_worlds; _random's categorical and member draws)
    worlds = ft.evaluate(runs, collection.membership, measures, n_worlds=20, rng=0)
    ft.evaluate(runs, collection.membership, measures, n_worlds=20, rng=0,
                world_model="bernoulli")
    # the laws of precision and recall (uncertain.poibin, uncertain.cutoffs)
    query, results = collection.membership.items[0], list(collection.membership.items[1:8])
    ft.recall_distribution(collection.membership, results, query=query, recall_form="exact")
    ft.precision_recall_curve(collection.membership, results, query=query, recall_form="exact")
    ft.precision_recall_bands(runs, collection.membership)
    # probabilistic qrels: exact laws and Bernoulli worlds
    memberships = collection.membership.to_frame()
    relevant = memberships[memberships["category"] == collection.taxonomy.leaves[0]]
    pairs = relevant.assign(query_id=[f"q{i % 5}" for i in range(len(relevant))])
    qrels = ft.ProbabilisticQrels(pairs["query_id"], pairs["item_id"], pairs["probability"])
    ranked = ft.Run(pairs["query_id"], pairs["item_id"], np.linspace(1, 0, len(pairs)))
    ft.evaluate(ranked, qrels, measures, method="auto")
    ft.evaluate(ranked, qrels, measures, method="worlds", n_worlds=20, rng=0)
    # comparisons: every procedure and correction (stats._order_statistics, _random's
    # resampling draws)
    for method in ("t", "bootstrap", "bca", "percentile", "randomization", "wilcoxon"):
        ft.compare(worlds, method=method, n_resamples=200, rng=0)
    ft.compare(worlds, method="randomization", correction="tukey-randomized",
               n_resamples=200, rng=0)
    scores = worlds.query_means("AP")
    # past 1,024 replicates the quantiles are order statistics, not a sort
    boot = ft.paired_bootstrap(scores, n_resamples=1100, rng=0)
    for method in ("bca", "percentile", "basic"):
        boot.confidence_interval(0.95, method=method)
    # the population bootstrap: annotators shared by items, and readers within cases
    ft.stats.annotator_bootstrap(runs, collection.annotations, ["P@10"], n_resamples=20,
                                 n_worlds=10, rng=0)
    derm = dermatology()
    cases = [str(i) for i in derm.rankings.items[:10]]
    by_example = {name: ft.Run(np.repeat(cases, len(cases)), np.tile(cases, len(cases)),
                               np.random.default_rng(k).random(len(cases) ** 2), name=name)
                  for k, name in enumerate(("x", "y"))}
    ft.stats.annotator_bootstrap(by_example, derm.rankings, ["P@5"], n_resamples=5,
                                 n_worlds=10, rng=0, truth_model="irn")
    # agreement (collection._kernels: a tree's path metric, and a metric given as a table)
    # and label models' parameter draws (_random's gammas)
    ft.agreement(collection.annotations, n_resamples=50, rng=0)
    ft.agreement_by_level(collection.annotations, n_resamples=20, rng=0)
    ft.agreement(collection.annotations, n_resamples=20, rng=0,
                 metric=collection.taxonomy.distance_matrix())
    fit = ft.DawidSkene().fit(collection.annotations)
    fit.sample_plausibilities(5, seed=0)
    fit.sample_labels(5, seed=0)
    # rankings (truth.models.rankings) and classifiers (classify.ranking,
    # metrics.classification)
    prirn = ft.PrIRN().fit(derm.rankings)
    prirn.sample_plausibilities(5, seed=0)
    _classifiers(derm, prirn)
    # the displacement bootstrap (_random's two-stage sums)
    _displacement()
    # the compiled sums of kept world values (evaluation.world_sums), which blocks too small
    # to need them (every block above) leave to NumPy
    from fuzzytruth.evaluation.world_sums import NUMPY_CELLS, add_block, apply_rules

    add_block(np.zeros((1, NUMPY_CELLS)), None, 0.0, True, None, np.ones(NUMPY_CELLS, bool),
              np.zeros(NUMPY_CELLS), np.zeros(NUMPY_CELLS, dtype=np.int64))
    apply_rules(np.zeros((1, NUMPY_CELLS)), 0.0, True, None, np.ones(NUMPY_CELLS, bool),
                np.empty((1, NUMPY_CELLS)))


def _classifiers(derm, truth) -> None:
    import fuzzytruth as ft
    from fuzzytruth.classify import Predictions

    items, classes = list(derm.rankings.items), list(derm.conditions)
    logits = np.random.default_rng(0).standard_normal((len(items), len(classes)))
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    names = ["Acc(target=top1)", "Acc(k=3)", "CE", "CE(target=label)", "Brier"]
    shares = ft.fit_truth(derm.rankings, "shares")
    for dtype in (np.float64, np.float32):  # a network's softmax is often float32
        net = Predictions(p.astype(dtype), items=items, classes=classes, name="net")
        ft.evaluate(net, truth, names, n_worlds=5, rng=0).aggregate()
        ft.evaluate(net, shares, names, method="exact").aggregate()


def _displacement() -> None:
    import fuzzytruth as ft

    queries = np.repeat(["q1", "q2"], 15)
    answers = pd.DataFrame({
        "query_id": queries, "annotator_id": np.tile(np.repeat(["s1", "s2", "s3"], 5), 2),
        "item_id": list("abcde") * 6, "rank": np.tile(np.arange(1, 6), 6),
        "relevance": np.tile([1.0, 0.9, 0.7, 0.5, 0.3], 6),
    })
    run = pd.DataFrame({"system": "S", "query_id": np.repeat(["q1", "q2"], 5),
                        "item_id": list("baxdy") * 2, "rank": np.tile(np.arange(1, 6), 2)})
    ft.weighted_displacement(answers, run, n_items=20).bootstrap(n_resamples=50, rng=0)


def main() -> int:
    import numba

    if numba.config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: the kernels run as Python
        print("fuzzytruth: numba's JIT is disabled; no kernel to compile", file=sys.stderr)
        return 0
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        workload()
    missing = uncompiled()
    print(f"fuzzytruth: numba kernels compiled (or read from numba's cache) in "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
    if missing:
        print("fuzzytruth: the warm-up reached no call of " + ", ".join(missing)
              + " (fuzzytruth/_kernel_warmup.py's workload)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
