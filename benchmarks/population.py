"""Benchmark: the annotator-population bootstrap (fuzzytruth.stats.annotator_bootstrap), issue 24.

Bars: 1,000 replicates on 1,000 items × 20 annotators × 50 queries (P@10, R@10, Success@10
and RR together) in <= 5 s; on 240 items × 5 annotators × 25 queries, P@10, <= 0.5 s.

Each shape is a simulated collection: items with a true leaf of a taxonomy (``flat``: 10
leaves under the root; ``deep``: 4 × 4 × 4 = 64 leaves three levels down; ``wide``: 1,000
leaves under 25 inner nodes; ``binary8``: a binary tree 8 deep, 256 leaves; ``caterpillar60``:
a path 60 deep with two leaves beside each of its nodes); each annotator gives the true leaf
with probability 0.6-0.95 (its own accuracy), else the true leaf's parent (0.4 of the errors)
or a uniformly drawn leaf, and with ``coarse`` labels half the annotators' labels are then
replaced by a node drawn uniformly from the true leaf's ancestors (below the root);
annotators are fresh per item (``nested``) or drawn from a pool of 2.5 × per-item annotators
(``crossed``, each item labelled by a random subset). Queries are items that ask for their own
uncertain category (``own``) or for a given inner node or leaf (``given``); two systems rank
100 items per query, the first by a noisy score of relevance to the query's true category, the
second with twice the noise (``listed``: 100 items per list, or the whole collection).
``annotator_bootstrap`` runs with its defaults (B = 1,000,
``annotators="auto"``, ``n_worlds=200`` for measures without an exact form). The measures
with an exact form take the exact path (column ``exact``), the others (AP, nDCG, R-prec) the
replicates' worlds stacked on one axis (column ``stacked``; no bar in the issue: the last four
shapes measure them).

Classifiers (``CLASSIFIER_SHAPES``, a second table; no bar): items with a class law drawn from
Dirichlet(0.7) over ``classes`` flat classes, 5 fresh annotators each drawing their label from
it; two classifiers whose probabilities are softmax(log Dirichlet(1) + s on the first
annotator's class), s = 2.0 and 1.5; Acc, CE and Brier (the exact law, the exact law, and
Brier against the shares, its default: the two ways a classifier measure needs no worlds). Peer and
figures as above.

The peer is the general path (what every replicate cost before: the labels written out, a
Membership built, ``evaluate()`` run with its worlds), on the same keyed replicates: it is
timed on the first ``GENERAL_REPLICATES`` replicates and scaled to B (so the ratio is
``fast / (general per replicate × B)``); the largest difference between the two paths on those
replicates is printed. CPU time (``time.process_time``), wall time and peak traced memory
(``tracemalloc``, a second run) of the whole call — the observed evaluation included — and
the load average before and after each shape; the machine is shared, expect tens of percent
of noise on the wall time.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/population.py``. ``FUZZYTRUTH_BENCH_SMOKE=1``
runs every shape at a tiny size (20 items × 3 annotators × 8 queries, 50 replicates;
benchmarks/_smoke.py).
"""

from __future__ import annotations

import os
import resource
import time
import tracemalloc
import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from _smoke import size

import fuzzytruth
from fuzzytruth import Annotations, Run, Taxonomy
from fuzzytruth._random import draw_seed
from fuzzytruth.classify import Predictions
from fuzzytruth.stats import annotator_bootstrap, compare
from fuzzytruth.stats._annotator_resampling import AnnotatorResampler
from fuzzytruth.stats._population_replicates import plan_population, replicate_scores
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

N_RESAMPLES = size(1000, 50)
GENERAL_REPLICATES = size(5, 2)
DEPTH = size(100, 20)
FOUR = ["P@10", "R@10", "Success@10", "RR"]


@dataclass(frozen=True)
class Shape:
    items: int
    per_item: int
    queries: int
    taxonomy: str
    design: str
    categories: str
    measures: tuple[str, ...]
    bar: float | None = None
    listed: int | None = None  # items per list (None: DEPTH)
    coarse: bool = False  # half the labels an ancestor of the true leaf


SHAPES = [
    Shape(240, 5, 25, "flat", "nested", "given", ("P@10",), bar=0.5),
    Shape(240, 5, 25, "flat", "crossed", "own", ("P@10",), bar=0.5),
    Shape(240, 5, 50, "deep", "nested", "own", ("P@10",)),
    Shape(1000, 20, 50, "flat", "nested", "given", tuple(FOUR), bar=5.0),
    Shape(1000, 20, 50, "flat", "crossed", "given", tuple(FOUR), bar=5.0),
    Shape(1000, 20, 50, "deep", "nested", "own", tuple(FOUR), bar=5.0),
    Shape(1000, 20, 50, "wide", "crossed", "own", tuple(FOUR), bar=5.0),
    Shape(1000, 20, 50, "flat", "nested", "given", ("P@10",)),
    Shape(5000, 10, 200, "deep", "nested", "own", ("P@10", "RR")),
    Shape(240, 5, 25, "flat", "nested", "given", ("P@10", "AP")),
    Shape(240, 5, 25, "flat", "crossed", "own", ("AP", "nDCG@10")),
    Shape(1000, 20, 50, "deep", "nested", "own", ("AP", "nDCG@10")),
    Shape(1000, 20, 50, "wide", "crossed", "given", ("AP", "Rprec")),
    # shapes added on 2026-11-29, from a probe of generators this script did not have: lists
    # of the whole collection, coarse labels on deeper trees
    Shape(1000, 20, 50, "deep", "nested", "own", tuple(FOUR), bar=5.0, listed=1000),
    Shape(1000, 20, 50, "binary8", "crossed", "own", tuple(FOUR), bar=5.0, coarse=True),
    Shape(1000, 20, 50, "caterpillar60", "nested", "own", tuple(FOUR), bar=5.0, coarse=True),
    Shape(1000, 20, 50, "binary8", "crossed", "own", tuple(FOUR), bar=5.0, listed=1000,
          coarse=True),
]
SHAPES = size(SHAPES, [replace(s, items=DEPTH, per_item=3, queries=8,
                               listed=None if s.listed is None else DEPTH) for s in SHAPES])
CLASSIFIER_MEASURES = ("Acc", "CE", "Brier")
#: (items, classes) of the classifier shapes
CLASSIFIER_SHAPES = size([(100, 3), (10_000, 10), (2_000, 100)], [(30, 3), (40, 12)])


def taxonomy(kind: str) -> tuple[Taxonomy, np.ndarray, dict[str, str]]:
    """The taxonomy, its leaves and each leaf's parent."""
    if kind == "flat":
        tree = {"all": {f"c{i}": None for i in range(10)}}
    elif kind == "deep":
        tree = {"all": {f"a{i}": {f"a{i}b{j}": [f"a{i}b{j}c{k}" for k in range(4)]
                                  for j in range(4)} for i in range(4)}}
    elif kind == "wide":
        tree = {"all": {f"g{i}": [f"g{i}l{j}" for j in range(40)] for i in range(25)}}
    elif kind == "binary8":
        def halves(name: str, depth: int) -> dict | None:
            return None if depth == 0 else {name + b: halves(name + b, depth - 1) for b in "01"}
        tree = {"all": halves("n", 8)}
    else:  # caterpillar60
        tree = {"all": {}}
        spine = tree["all"]
        for d in range(60):
            spine[f"s{d}"] = {f"s{d}l{j}": None for j in range(2)}
            spine = spine[f"s{d}"]
    tax = Taxonomy.from_nested(tree)
    parents = {}

    def walk(node: str, children: object) -> None:
        kids = children if isinstance(children, list) else list((children or {}).items())
        for kid in kids:
            name, sub = (kid, None) if isinstance(kid, str) else kid
            parents[name] = node
            walk(name, sub)

    walk("all", tree["all"])
    leaves = np.array([n for n in tax.nodes if n not in parents.values() and n != "all"])
    return tax, leaves, parents


def collection(shape: Shape, seed: int = 0) -> tuple[dict[str, Run], Annotations, dict | None]:
    rng = np.random.default_rng(seed)
    tax, leaves, parents = taxonomy(shape.taxonomy)
    truth = rng.choice(leaves, size=shape.items)
    items = np.array([f"item{i:05d}" for i in range(shape.items)], dtype=object)
    if shape.design == "nested":
        annotators = np.array([[f"{i}-{a}" for a in range(shape.per_item)] for i in items])
        pool_accuracy = None
    else:
        pool = int(2.5 * shape.per_item)
        pool_accuracy = rng.uniform(0.6, 0.95, size=pool)
        annotators = np.stack([rng.choice(pool, size=shape.per_item, replace=False)
                               for _ in range(shape.items)])
    accuracy = (pool_accuracy[annotators] if pool_accuracy is not None
                else rng.uniform(0.6, 0.95, size=annotators.shape))
    right = rng.random(accuracy.shape) < accuracy
    to_parent = rng.random(accuracy.shape) < 0.4
    parent_of = np.vectorize(parents.get)(truth)
    labels = np.where(right, truth[:, None],
                      np.where(to_parent, parent_of[:, None],
                               rng.choice(leaves, size=accuracy.shape)))
    if shape.coarse:  # half the labels replaced by an ancestor of the true leaf
        labels = labels.astype(object)  # an ancestor's name may be longer than the leaves'
        paths = {leaf: [n for n in tax.ancestors(leaf) if n != tax.root] for leaf in leaves}
        coarse = rng.random(accuracy.shape) < 0.5
        for i, a in zip(*np.nonzero(coarse), strict=True):
            path = paths[truth[i]]
            if path:
                labels[i, a] = path[rng.integers(len(path))]
    frame = pd.DataFrame({
        "item_id": np.repeat(items, shape.per_item),
        "annotator_id": annotators.ravel().astype(str),
        "label": labels.ravel(),
    })
    ann = Annotations.from_frame(frame, taxonomy=tax)
    query_items = rng.choice(shape.items, size=shape.queries, replace=False)
    queries = [f"q{j:04d}" for j in range(shape.queries)] if shape.categories == "given" \
        else list(items[query_items])
    target = truth[query_items]
    cats = None
    if shape.categories == "given":  # alternately the query's leaf and its parent
        cats = {q: (t if j % 2 else parents[t]) for j, (q, t) in enumerate(zip(queries, target,
                                                                           strict=True))}
    runs = {}
    listed = shape.listed or DEPTH
    for name, noise in (("A", 1.0), ("B", 2.0)):
        qs, ds, ss = [], [], []
        for q, t in zip(queries, target, strict=True):
            docs = rng.choice(shape.items, size=listed, replace=False)
            score = (truth[docs] == t) + noise * rng.standard_normal(listed)
            qs += [q] * listed
            ds += list(items[docs])
            ss += list(score)
        runs[name] = Run(qs, ds, ss, name=name)
    return runs, ann, cats


def classifier_collection(items: int, classes: int, seed: int = 0
                          ) -> tuple[dict[str, Predictions], Annotations]:
    rng = np.random.default_rng(seed)
    names = [f"c{j}" for j in range(classes)]
    law = rng.dirichlet(np.full(classes, 0.7), size=items)
    ids = [f"x{i:06d}" for i in range(items)]
    labels = np.array([rng.choice(classes, size=5, p=p) for p in law])
    ann = Annotations.from_frame(pd.DataFrame({
        "item_id": np.repeat(ids, 5),
        "annotator_id": [f"{i}-{a}" for i in range(items) for a in range(5)],
        "label": np.array(names)[labels.ravel()],
    }), taxonomy=Taxonomy.flat(names))
    systems = {}
    for name, shift in (("A", 2.0), ("B", 1.5)):
        logit = np.log(rng.dirichlet(np.ones(classes), size=items))
        logit[np.arange(items), labels[:, 0]] += shift
        p = np.exp(logit)
        systems[name] = Predictions(p / p.sum(axis=1, keepdims=True), items=ids, classes=names,
                                    name=name)
    return systems, ann


def run_classifier_shape(items: int, classes: int) -> dict:
    systems, ann = classifier_collection(items, classes)
    plan, row = measured(systems, ann, list(CLASSIFIER_MEASURES), None)
    return {"items": items, "classes": classes,
            "without_worlds": ",".join(plan.classes.plans) if plan.classes else "-", **row}


def timed(function, *args, **kwargs):
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def run_shape(shape: Shape) -> dict:
    runs, ann, cats = collection(shape)
    plan, row = measured(runs, ann, list(shape.measures), cats)
    return {
        "items": shape.items, "per_item": shape.per_item, "queries": shape.queries,
        "taxonomy": shape.taxonomy + (" coarse" if shape.coarse else ""),
        "listed": shape.listed or DEPTH, "design": plan.scheme, "categories": shape.categories,
        "exact": ",".join(plan.fast) or "-", "stacked": ",".join(plan.stacked) or "-", **row,
        "bar_s": shape.bar, "meets_bar": None if shape.bar is None else row["cpu_s"] <= shape.bar,
    }


def measured(systems: object, ann: Annotations, measures: list[str], cats: dict | None
             ) -> tuple[object, dict]:
    """One shape's figures: ``annotator_bootstrap`` with its defaults (CPU and wall time,
    ``compare``'s CPU, peak traced memory of a second run), and the peer, the general path on
    the same keyed replicates (``GENERAL_REPLICATES`` of them timed, scaled to B), with the
    paths' largest difference; the plan of the replicates beside them."""
    load = os.getloadavg()[0]
    kwargs = {"query_categories": cats, "n_resamples": N_RESAMPLES, "rng": 1,
              "progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        pop, cpu, wall = timed(annotator_bootstrap, systems, ann, measures, **kwargs)
        _, cpu_ci, _ = timed(compare, pop)
        tracemalloc.start()
        annotator_bootstrap(systems, ann, measures, **kwargs)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    first = next(iter(pop.scores.values()))
    resampler = AnnotatorResampler(ann)
    plan = plan_population(systems, resampler, measures, scheme=pop.annotators,
                           seed=draw_seed(1), query_categories=cats, n_worlds=200,
                           memory_budget=200e6, observed=(first.systems, first.queries))
    fast = replicate_scores(plan, 0, GENERAL_REPLICATES)
    general, cpu_g, _ = timed(replicate_scores, plan, 0, GENERAL_REPLICATES, fast=False)
    general_cpu = cpu_g / GENERAL_REPLICATES * N_RESAMPLES
    return plan, {
        "measures": ",".join(measures), "cpu_s": cpu, "wall_s": wall, "compare_cpu_s": cpu_ci,
        "peak_mb": peak, "general_cpu_s": general_cpu, "ratio": cpu / general_cpu,
        "max_diff": max(float(np.abs(fast[m] - general[m]).max()) for m in plan.measures),
        "load_before": load, "load_after": os.getloadavg()[0],
    }


def main() -> None:
    print(f"fuzzytruth from {fuzzytruth.__file__}")
    with warnings.catch_warnings():  # warm-up: numba compiles (or loads) its kernels
        warnings.simplefilter("ignore")
        runs, ann, cats = collection(SHAPES[0])
        annotator_bootstrap(runs, ann, "P@10", query_categories=cats, n_resamples=20, rng=0)
    rows = []
    for shape in SHAPES:  # a line per shape as it ends: the whole run takes minutes
        rows.append(run_shape(shape))
        row = rows[-1]
        print(f"  {row['items']} x {row['per_item']} x {row['queries']} {row['taxonomy']} "
              f"{row['design']} {row['categories']} {row['measures']}: {row['cpu_s']:.3g} s CPU,"
              f" ratio {row['ratio']:.3g}", flush=True)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.float_format", "{:.3g}".format):
        print(table.to_string(index=False))
    worst = table.loc[table["ratio"].idxmax()]
    print(f"\nB = {N_RESAMPLES}; general path timed on {GENERAL_REPLICATES} replicates and "
          f"scaled; worst ratio fast / general {worst['ratio']:.3g} ({worst['taxonomy']}, "
          f"{worst['design']}, {worst['items']} items, {worst['measures']}); largest "
          f"|fast - general| {table['max_diff'].max():.2g}; peak RSS of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f} MB")
    print("\nclassifiers (5 annotators per item):")
    rows = []
    for items, classes in CLASSIFIER_SHAPES:
        rows.append(run_classifier_shape(items, classes))
        print(f"  {items} items x {classes} classes: {rows[-1]['cpu_s']:.3g} s CPU, ratio "
              f"{rows[-1]['ratio']:.3g}", flush=True)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 30,
                           "display.float_format", "{:.3g}".format):
        print(table.to_string(index=False))
    print(f"worst ratio fast / general {table['ratio'].max():.3g}; largest |fast - general| "
          f"{table['max_diff'].max():.2g}")


if __name__ == "__main__":
    main()
