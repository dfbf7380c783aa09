"""The population bootstrap's classifier measures, a block of replicates at once.

Under the annotators' shares, a classifier evaluation (:mod:`fuzzytruth.evaluation.
classifiers`) computes without worlds every measure but the statistics of the whole collection
read against the label:

- a measure read against the item's label (``target="label"``: Acc, top-k, CE, Brier...) has
  an exact law, label ``c`` with the item's direct share p(c | item) as its mass, so its mean
  is Σ_c p(c | item) v(c) over the labels where the kernel's value v(c) is defined, divided
  by their mass (the undefined mass kept apart). The values v(c) do not depend on the shares:
  they are computed once, at every (item, label) cell some annotator's label reaches, and a
  replicate's means are its shares at those cells times them, summed by item;
- a measure read against the shares themselves (``target="distribution"``: the shares as a
  vector; ``"top1"``: their most plausible class) is one kernel call, with the block's
  replicates as the rows (worlds) of its target.

The shares of a whole block are one sparse product, multiplicities × votes
(:meth:`~fuzzytruth.stats._annotator_resampling.AnnotatorResampler.shares`), as for the ranked
measures. The statistics of the whole collection read against the label (ECE, soft
micro-F1, entropy correlation with ``target="label"``) draw worlds and keep one
:func:`~fuzzytruth.evaluate` per replicate. Each replicate's means
are those of its own ``evaluate()`` (``undefined="zero"``), to rounding
(``tests/test_stats_population.py``: 1e-12, every classifier family with its parameters).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fuzzytruth.stats._annotator_resampling import AnnotatorResampler, columns_within

__all__ = ["ClassifierGeometry", "classifier_geometry", "classifier_scores"]


@dataclass(frozen=True, eq=False)
class ClassifierGeometry:
    """What a block of classifier replicates reads, fixed for every replicate: the
    classifiers on the evaluated items, each measure's plan, the (evaluated item, label)
    cells with each exact measure's value there, and the vote matrices of their shares."""

    views: tuple  # SystemView per classifier, on the evaluated items
    plans: Mapping[str, Any]  # MeasurePlan of each measure computed here
    rows: np.ndarray  # (n_items,) the resampler's item of each evaluated item
    cell_item: np.ndarray  # (n_cells,) evaluated item of each cell, sorted
    cell_node: np.ndarray  # (n_cells,) its label (a node of the taxonomy)
    values: Mapping[tuple[int, str], np.ndarray]  # (system, measure) -> (n_cells,) v(c)
    votes: Any  # (n_pairs, n_cells) sparse: each pair's weight on the cell's label
    totals: Any  # (n_pairs, n_items) sparse: each pair's total weight
    n_nodes: int

    @property
    def n_items(self) -> int:
        return len(self.rows)

    def bytes_per_replicate(self) -> float:
        """Memory of one replicate of a block: its shares at the cells and their weighted
        values; with a measure read against the shares, its dense shares and the kernel's
        temporaries (taken as four copies)."""
        out = 8.0 * 4 * len(self.cell_item)
        if any(p.method == "point" for p in self.plans.values()):
            out += 8.0 * 5 * self.n_items * self.n_nodes
        return out


def classifier_geometry(
    runs: Any, resampler: AnnotatorResampler, items: tuple, resolved: Mapping[str, Any],
    memory_budget: float,
) -> ClassifierGeometry | None:
    """The geometry of the measures of ``resolved`` that need no worlds under the shares, on
    the evaluated ``items``; None when none does."""
    from fuzzytruth.classify.context import Target
    from fuzzytruth.classify.targets import class_truth
    from fuzzytruth.evaluation.classifiers import as_classifiers, measure_plan, system_views
    from fuzzytruth.truth.membership import Membership
    from fuzzytruth.uncertain.worlds import kernel_params

    bound = class_truth(Membership.from_annotations(resampler.annotations_in))
    items = list(items)
    prepared = bound.prepare(items)
    plans = {n: measure_plan(m, prepared, "auto") for n, m in resolved.items()}
    plans = {n: p for n, p in plans.items() if p.method in ("exact", "point")}
    if not plans:
        return None
    rows = bound.items.get_indexer(items)
    position = np.full(resampler.n_items, -1)
    position[rows] = np.arange(len(rows))
    cell_row, cell_node = resampler.direct_cells()
    keep = position[cell_row] >= 0  # labels of items no classifier scores: not read
    cell_item = position[cell_row[keep]]
    order = np.lexsort((cell_node[keep], cell_item))
    cell_item, cell_node = cell_item[order], cell_node[keep][order]
    views = system_views(as_classifiers(runs), items, prepared, resolved.values(),
                         memory_budget)
    # each item's labels as rows of one kernel call (padded with the item's first label)
    column, width = columns_within(cell_item, len(items))
    labels = np.repeat(cell_node[column == 0][None, :], width, axis=0)
    labels[column, cell_item] = cell_node
    values = {}
    for s, view in enumerate(views):
        for name, plan in plans.items():
            if plan.method == "exact":
                measure = resolved[name]
                at = measure.family.kernel(view, Target("labels", labels=labels),
                                           **kernel_params(measure))
                values[s, name] = at[column, cell_item]
    return ClassifierGeometry(
        views=tuple(views), plans=plans, rows=rows, cell_item=cell_item, cell_node=cell_node,
        values=values, votes=resampler.vote_matrix(rows[cell_item], cell_node, closed=False),
        totals=resampler.item_matrix(), n_nodes=len(prepared.nodes),
    )


def classifier_scores(
    geo: ClassifierGeometry, resampler: AnnotatorResampler, mult: np.ndarray,
    resolved: Mapping[str, Any],
) -> dict[str, np.ndarray]:
    """``(n_replicates, n_systems, n_items)`` each replicate's expected value of every
    evaluated item, for the measures of ``geo.plans``, under ``undefined="zero"``."""
    from fuzzytruth.classify.context import Target
    from fuzzytruth.evaluation.undefined import Undefined
    from fuzzytruth.uncertain.batch import DeferredBatch
    from fuzzytruth.uncertain.worlds import kernel_params

    n_rep, n_items = len(mult), geo.n_items
    totals = np.asarray(mult @ geo.totals)
    shares = resampler.shares(mult, geo.votes, totals, geo.rows[geo.cell_item])
    dense = None
    if any(p.method == "point" for p in geo.plans.values()):
        dense = np.zeros((n_rep, n_items, geo.n_nodes))
        dense[:, geo.cell_item, geo.cell_node] = shares
    starts = np.flatnonzero(np.r_[True, np.diff(geo.cell_item) > 0])

    def by_item(cells: np.ndarray) -> np.ndarray:  # (n_rep, n_cells) summed per item
        return np.add.reduceat(cells, starts, axis=1)

    out = {}
    for name, plan in geo.plans.items():
        measure = resolved[name]
        fill = measure.family.undefined_value
        params = kernel_params(measure)
        scores = np.empty((n_rep, len(geo.views), n_items))
        for s, view in enumerate(geo.views):
            if plan.method == "exact":
                value = geo.values[s, name]
                nan = np.isnan(value)
                total = by_item(np.where(nan, 0.0, shares * value))
                undefined = by_item(np.where(nan, shares, 0.0))
                defined = by_item(np.where(nan, 0.0, shares))
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = np.where(defined > 0.0, total / defined, np.nan)
                # evaluate()'s exact batch, for its rule of the undefined mass (the law itself
                # is never built here: no builder)
                batch = DeferredBatch(None, mean.ravel(), undefined.ravel(), "exact")
                means = (batch.filled_mean(fill) if Undefined.ZERO.fills(fill)
                         else batch.mean())
                scores[:, s] = means.reshape(n_rep, n_items)
                continue
            if plan.target == "top1":  # the most plausible node, first on ties
                target = Target("labels", labels=dense.argmax(axis=2))
            else:
                target = Target("vectors", vectors=dense)
            scores[:, s] = Undefined.ZERO.apply(measure.family.kernel(view, target, **params),
                                                fill)
        if np.isnan(scores).any():
            raise ValueError(
                f"measure {name!r} is undefined for some item in a replicate (a NaN fill): "
                "the statistics need a value for every item"
            )
        out[name] = scores
    return out
