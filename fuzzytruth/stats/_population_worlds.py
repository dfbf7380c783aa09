"""The population bootstrap's measures without an exact form, a block of replicates at once.

Replicate ``r`` of the general path (:mod:`fuzzytruth.stats._population_replicates`) writes
its resampled labels out, builds their :class:`~fuzzytruth.Membership` and runs
:func:`~fuzzytruth.evaluate` with ``n_worlds`` worlds under the seed ``draw_seed(
named_stream(seed, "worlds", r))``. Those worlds read the replicate's labels through each
item's direct shares only: an item's label in world ``w`` is the first of its labels, in name
order, whose running share exceeds a uniform keyed by (that seed, the item, ``w``)
(:mod:`fuzzytruth.truth.categorical_worlds`). So a block of replicates is one world axis of
``n_replicates × n_worlds`` worlds (:class:`~fuzzytruth.truth.categorical_worlds.
StackedLabelTables`): every replicate's direct shares are one sparse product, multiplicities ×
votes (as the exact forms' shares are), and :func:`~fuzzytruth.uncertain.worlds.world_values`
runs the measures once on the whole block — its kernels, threads and memory budget shared —
instead of once per replicate. Each replicate's expected score of a query is then the mean of
its own worlds' values under ``evaluate()``'s default rule (``undefined="zero"``).

The same numbers as the general path on the same replicates, to rounding
(``tests/test_stats_population.py``: within 1e-12 for every family without an exact form):
the shares are summed in another order (a last-bit difference moves a label only when a
uniform falls on it), and the ideal ranking of the graded kernels is as wide as the block's
largest relevant count rather than the replicate's (zeros added at the end).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fuzzytruth._order import name_order, ranks
from fuzzytruth._random import draw_seed, named_stream, unit_keys
from fuzzytruth.stats._annotator_resampling import AnnotatorResampler, columns_within

__all__ = ["WorldsGeometry", "stacked_world_scores", "worlds_geometry"]


@dataclass(frozen=True, eq=False)
class WorldsGeometry:
    """What the stacked worlds read, fixed for every replicate: the observed truth prepared
    on the evaluated queries (its queries, targets and candidates: a replicate only reweights
    an item's labels), each system's ranked documents, each item's direct labels in name
    order, and the sparse matrices whose products with the multiplicities give a block's
    direct shares."""

    prepared: Any  # PreparedCategorical of the observed labels
    docs: tuple  # per system: RankedDocs on the evaluated queries
    labels: np.ndarray  # (n_items, width) node of each direct label, in name order
    cell: np.ndarray  # (n_cells,) place item * width + column of each (item, label) cell
    cell_item: np.ndarray  # (n_cells,) item of each cell
    votes: Any  # (n_pairs, n_cells) sparse: each pair's weight on the cell's label
    totals: Any  # (n_pairs, n_items) sparse: each pair's total weight

    def bytes_per_replicate(self, n_measures: int, n_worlds: int) -> float:
        """Memory one replicate keeps while its block is computed: its world values (every
        measure, and one measure's under the rule), its shares and running shares."""
        n_systems, n_queries = len(self.docs), len(self.prepared.queries)
        values = 8.0 * (n_measures + 1) * n_systems * n_worlds * n_queries
        return values + 16.0 * self.labels.size + 8.0 * len(self.cell)


def worlds_geometry(resampler: AnnotatorResampler, prepared: Any, docs: tuple
                    ) -> WorldsGeometry | None:
    """The geometry of the stacked worlds, or None when the observed truth's worlds draw some
    query's target from its weights (keyed by the truth's own seed, which the stacked worlds
    do not have)."""
    if prepared.worlds("annotator").draws_targets:
        return None
    categories = prepared.membership.categories
    n_nodes, n_items = len(categories), resampler.n_items
    cell_item, cell_node = resampler.direct_cells()
    order = np.lexsort((ranks(name_order(categories))[cell_node], cell_item))
    cell_item, cell_node = cell_item[order], cell_node[order]
    column, width = columns_within(cell_item, n_items)
    labels = np.zeros((n_items, width), dtype=np.int16 if n_nodes < 2**15 else np.int32)
    labels[cell_item, column] = cell_node
    return WorldsGeometry(
        prepared=prepared, docs=docs, labels=labels, cell=cell_item * width + column,
        cell_item=cell_item, votes=resampler.vote_matrix(cell_item, cell_node, closed=False),
        totals=resampler.item_matrix(),
    )


def stacked_world_scores(
    geo: WorldsGeometry,
    resampler: AnnotatorResampler,
    mult: np.ndarray,
    replicates: np.ndarray,
    measures: Sequence[Any],
    *,
    seed: int,
    n_worlds: int,
    memory_budget: float,
) -> np.ndarray:
    """``(n_measures, n_replicates, n_systems, n_queries)`` each replicate's expected score
    of every query over its own ``n_worlds`` worlds (keyed as the general path's), for the
    resolved ``measures``, the replicates' multiplicities ``mult`` stacked on one world
    axis."""
    from fuzzytruth.evaluation.undefined import Undefined
    from fuzzytruth.truth.categorical_worlds import StackedLabelTables
    from fuzzytruth.uncertain.worlds import world_values

    n_rep = len(mult)
    n_items, width = geo.labels.shape
    totals = np.asarray(mult @ geo.totals)
    shares = np.zeros((n_rep, n_items * width))
    shares[:, geo.cell] = resampler.shares(mult, geo.votes, totals, geo.cell_item)
    # each replicate's world seed as its evaluate() draws it: one SeedSequence a replicate
    # (about 45 us each, 45 ms for 1,000; the worlds themselves are drawn in one pass)
    seeds = [draw_seed(named_stream(seed, "worlds", int(r))) for r in replicates]
    membership = geo.prepared.membership
    tables = StackedLabelTables(unit_keys(np.asarray(membership.items)), geo.labels,
                                shares.reshape(n_rep, n_items, width), seeds, n_worlds,
                                padding=len(membership.categories))
    del shares
    sampler = geo.prepared.worlds("annotator").drawing_from(tables)
    # the seed given here keys nothing: every label comes from its table's own seed
    values, _ = world_values(sampler, list(geo.docs), list(measures),
                             n_worlds=n_rep * n_worlds, seed=seeds[0],
                             memory_budget=memory_budget)
    n_q = values.shape[3]
    out = np.empty((len(measures), n_rep, len(geo.docs), n_q))
    for m, measure in enumerate(measures):
        fill = measure.family.undefined_value
        per_world = values[m].reshape(len(geo.docs), n_rep, n_worlds, n_q)
        if Undefined.ZERO.fills(fill):
            per_world = np.where(np.isnan(per_world), fill, per_world)
        if np.isnan(per_world).any():
            raise ValueError(
                f"measure {str(measure)!r} is undefined in some worlds of a replicate: the "
                "statistics need a value in every world"
            )
        out[m] = per_world.mean(axis=2).transpose(1, 0, 2)
    return out
