"""Replicates of the population bootstrap (:mod:`fuzzytruth.stats.population`), block by block.

Replicate ``r`` draws the annotators (:mod:`fuzzytruth.stats._annotator_resampling`, keyed by
``r``), computes every system's expected score on every query under the relabelled truth, and
resamples the queries (keyed by ``r``). Any block of replicates is one independent task
(:func:`fuzzytruth._resampling.run_blocks`); blocks are sized from the memory budget. Each
(system, measure) gets its per-query scores from one of two paths, which give the same numbers
(to rounding; ``tests/test_stats_population.py`` holds them within 1e-12 on the same
replicates, for every family with an exact form, nested and crossed):

fast (every family with an exact form, under the annotators' shares)
    resampling annotators reweights each item's label counts, so the shares of a whole block
    of replicates are one product, multiplicities × votes (:meth:`AnnotatorResampler.shares`).
    The family's exact form then runs once on the block, its rows being (replicate,
    component) pairs — the same :class:`~fuzzytruth.uncertain.closed_form.ExactInput` that
    :func:`fuzzytruth.evaluate` builds for one truth, stacked over replicates — and a query
    with its own uncertain category mixes its components with the replicate's direct shares.
    For P@k the expected score is linear in the shares (the mean of the ranked documents'
    p(ω|d)); Success@k and RR are polynomials in them (these three, and the recall's mean,
    read only the ranks holding an item with a label at or below the target node: the others
    have share 0 in every replicate), R@k, F and E need the joint law of
    the relevant documents retrieved and missed. All are computed the same way, without
    writing the resampled labels out or drawing worlds.
stacked worlds (families without an exact form — AP, nDCG, R-prec, the shape measures... —
under the annotators' shares)
    the worlds of a replicate read its labels through the items' direct shares only, which
    are again one product for the whole block: the block's replicates are stacked on one
    world axis and the world engine runs once on it
    (:mod:`fuzzytruth.stats._population_worlds`), each replicate's worlds keyed as its own
    :func:`fuzzytruth.evaluate` keys them.
classifiers (every classifier family under the annotators' shares, but the statistics of the
whole collection read against the label)
    an exact measure's mean is the item's direct shares times the kernel's values at its
    labels, computed once; a measure read against the shares is one kernel call with the
    block's replicates as its rows (:mod:`fuzzytruth.stats._population_classifiers`).
general (every family when the membership comes from a refitted truth model, and the
classifiers' statistics of the whole collection read against the label)
    the resampled labels are written out (:meth:`AnnotatorResampler.annotations`), turned
    into a membership (the shares, or ``membership_of`` — a function from annotations to a
    :class:`~fuzzytruth.Membership`, e.g. a truth model refitted per replicate), and
    :func:`fuzzytruth.evaluate` runs on it, its worlds keyed by the replicate.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._random import index_counts, named_stream
from fuzzytruth._resampling import BOOTSTRAP_STREAM
from fuzzytruth.stats._annotator_resampling import AnnotatorResampler
from fuzzytruth.stats._population_classifiers import (
    ClassifierGeometry,
    classifier_geometry,
    classifier_scores,
)
from fuzzytruth.stats._population_worlds import (
    WorldsGeometry,
    stacked_world_scores,
    worlds_geometry,
)
from fuzzytruth.stats.scores import evaluation_scores

__all__ = ["PopulationPlan", "plan_population", "replicate_block", "replicate_scores"]

#: Bytes of exact-form temporaries per ranked (replicate, component, rank) cell (the
#: probabilities, the Poisson-binomial PMF or survival products, the masses).
_EXACT_BYTES_PER_CELL = 48.0
#: The same for each (replicate, component, item) cell of the relevant documents not retrieved
#: and the joint law of the relevant documents retrieved and missed (calibrated with
#: tracemalloc on the shapes of benchmarks/population.py).
_REST_BYTES_PER_CELL = 96.0
#: The same for each (replicate, component, cell of its node) of the counts by share of the
#: relevant documents missed, and the Gauss-Legendre integral of the recall's mean.
_GROUP_BYTES_PER_CELL = 64.0
#: Counts by share are written out only up to this many shares, past which products with
#: the sparse counts cost less than with the written-out rows (a coarse binary tree 8 deep of
#: benchmarks/population.py with whole-collection lists, 270 shares: 7.1-7.8 s sparse,
#: 13.4 s written out, 2026-11-29).
_DENSE_SHARES = 64


@dataclass(frozen=True, eq=False)
class _Geometry:
    """What the fast path reads, fixed for every replicate: the components (query, target
    node) of the observed truth; the *cells*, the (item, target node) pairs that some label
    of the item is at or below (every other share is 0 in every replicate: a replicate only
    reweights an item's labels); each system's ranked documents as cells; and the sparse
    vote matrices whose products with the multiplicities give a block's shares."""

    comp_query: np.ndarray  # (n_comp,) query of each component, sorted
    comp_col: np.ndarray  # (n_comp,) column of its target node among the target nodes
    comp_starts: np.ndarray  # first component of each query
    mixed: np.ndarray  # components whose weight is the replicate's direct share
    query_item: np.ndarray  # (n_queries,) item row of each query, -1 when none
    exclude_query: bool
    docs: tuple  # per system: RankedDocs on the evaluated queries
    ranked_cells: tuple  # per system (n_comp, depth): the cell of each ranked document
    query_cell: np.ndarray  # (n_comp,) the cell of the query's own item when it is left out
    n_nodes: int  # the target nodes of the components
    cell_item: np.ndarray  # (n_cells,) item row of each cell, sorted (then by node)
    cell_col: np.ndarray  # (n_cells,) its target node's column
    root_cells: np.ndarray  # cells at the taxonomy's root (share 1)
    totals: Any  # (n_pairs, n_items) sparse: items' total weights
    closed: Any  # (n_pairs, n_cells) sparse: votes at or below each cell's node
    direct: Any  # (n_pairs, n_mixed) sparse: votes for the mixed components' nodes
    mixed_items: np.ndarray  # (n_mixed,) the query item of each mixed component
    _packed: dict = field(default_factory=dict, repr=False)  # hit_cells(), made once each

    @property
    def n_cells(self) -> int:
        """Number of cells; ``n_cells`` itself stands for any other (item, node): share 0."""
        return len(self.cell_item)

    def hit_cells(self, system: int, k: int | None) -> tuple[np.ndarray, np.ndarray]:
        """``(cells, ranks)``, each ``(n_comp, m)``: for each component, the cells held by
        the top ``k`` (every rank without ``k``) of ``system``'s list, in rank order, and
        their ranks (from 1); the padding is the cell ``n_cells`` (share 0) at a rank past the
        list. The other ranks have share 0 in every replicate, and add nothing to the means
        of P, Success, RR and the recall (:meth:`ExactInput.ranked
        <fuzzytruth.uncertain.closed_form.ExactInput.ranked>`). On lists of the whole
        collection most ranks hold no cell of a leaf's node (1,000 items ranked for each of
        50 queries: 1,000 replicates of the four measures took 17 s, 3.5 s so)."""
        key = (system, k)
        if key not in self._packed:
            cells = self.ranked_cells[system][:, :k]
            hit = cells < self.n_cells
            width = int(hit.sum(axis=1).max(initial=0))
            at = np.argsort(~hit, axis=1, kind="stable")[:, :width]  # hits first, in order
            kept = np.take_along_axis(hit, at, axis=1)
            self._packed[key] = (np.where(kept, np.take_along_axis(cells, at, axis=1),
                                          self.n_cells),
                                 np.where(kept, at + 1, cells.shape[1] + 1))
        return self._packed[key]

    def node_cells(self) -> np.ndarray:
        """``(n_nodes,)`` number of cells of each target node."""
        return np.bincount(self.cell_col, minlength=self.n_nodes)

    def dense_shares(self) -> int:
        """The most distinct shares whose counts are written out, a row of floats per
        (replicate, node) and per (replicate, component) (at most as many nodes as components),
        within what :meth:`PopulationPlan.bytes_per_replicate` gives the components' counts by
        share; past it (weighted annotators, many annotator counts) they stay sparse."""
        given = _GROUP_BYTES_PER_CELL * (self.node_cells()[self.comp_col] + 16).sum()
        return min(_DENSE_SHARES, int(given // (2 * 8 * max(len(self.comp_col), 1))))


@dataclass(frozen=True, eq=False)
class PopulationPlan:
    """Everything a block of replicates needs, built once (and shipped to a cluster whole)."""

    runs: Mapping[str, Any]
    resampler: AnnotatorResampler
    scheme: str
    seed: int
    measures: tuple[str, ...]
    fast: tuple[str, ...]
    resolved: Mapping[str, Any]
    systems: tuple[str, ...]
    queries: tuple
    query_categories: Mapping | None
    n_worlds: int
    memory_budget: float
    membership_of: Callable[[Any], Any] | None
    geometry: _Geometry | None
    reads_rest: bool
    reads_groups: bool = False
    reads_ranks: bool = True  # some fast form reads every rank's share, not only the hits
    stacked: tuple[str, ...] = ()  # the measures computed on the block's stacked worlds
    worlds: WorldsGeometry | None = None
    classes: ClassifierGeometry | None = None  # classifier measures computed without worlds

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    def bytes_per_replicate(self) -> float:
        """Working memory of one replicate of a block (an estimate from the arrays' sizes)."""
        geo = self.geometry
        n_items = self.resampler.n_items
        out = 8.0 * (3 * self.resampler.n_pairs + n_items
                     + 3 * len(self.measures) * len(self.systems) * (self.n_queries + 8))
        if self.stacked:
            out += self.worlds.bytes_per_replicate(len(self.stacked), self.n_worlds)
        if self.classes is not None:
            out += self.classes.bytes_per_replicate()
        if geo is None or not self.fast:
            return out
        n_comp = len(geo.comp_query)
        depth = max((d.docs.shape[1] for d in geo.docs), default=1)
        read = depth if self.reads_ranks else max(
            (geo.hit_cells(s, None)[0].shape[1] for s in range(len(geo.docs))), default=1)
        # and the judged status of every rank, one byte each
        out += 8.0 * 4 * geo.n_cells + n_comp * (_EXACT_BYTES_PER_CELL * max(read, 1) + depth)
        if self.reads_groups:  # the counts by share of each component's node, and their
            # integral: at most one count and two Gauss-Legendre nodes per cell, 16 at least
            out += _GROUP_BYTES_PER_CELL * (geo.node_cells()[geo.comp_col] + read + 16).sum()
        if self.reads_rest:
            out += _REST_BYTES_PER_CELL * n_comp * n_items + 8.0 * n_items * geo.n_nodes
        return out


def plan_population(
    runs: Any,
    resampler: AnnotatorResampler,
    measures: list[str],
    *,
    scheme: str,
    seed: int,
    query_categories: Mapping | None,
    n_worlds: int,
    memory_budget: float,
    membership_of: Callable[[Any], Any] | None = None,
    observed: tuple[tuple, tuple] | None = None,
) -> PopulationPlan:
    """The plan of the replicates: which measures take the fast path, and its geometry.

    ``membership_of`` (annotations -> Membership) replaces the annotators' shares by another
    truth refitted on each replicate's labels; every measure then takes the general path, as
    it does for the classifiers' statistics of the whole collection read against the label.
    Under the shares, the ranked measures without an exact form take the stacked worlds
    (``n_worlds`` > 0, and no query's target drawn from literal weights), the other classifier
    measures their exact means or point values (``classes``). ``observed``: the systems and
    queries of the evaluation of the observed labels, which every replicate keeps (needed
    for classifiers; checked against the runs' otherwise).
    """
    from fuzzytruth.evaluation.engine import evaluated_queries, rank_runs
    from fuzzytruth.measures import get_preset, parse_measures
    from fuzzytruth.runs import Run
    from fuzzytruth.truth.membership import Membership
    from fuzzytruth.truth.protocol import as_truth

    preset = get_preset("trec")  # what evaluate() uses in every replicate
    parsed = parse_measures(measures)
    measures = [str(m) for m in parsed]  # evaluate()'s names: one canonical spelling
    resolved = {n: m.resolve(preset) for n, m in zip(measures, parsed, strict=True)}
    ranked = isinstance(runs, Run) or (
        isinstance(runs, Mapping) and all(isinstance(r, Run) for r in runs.values()))
    exact = (ranked and preset.ties != "average" and preset.min_relevant == 0
             and membership_of is None)
    probes = {n: _probe(m) for n, m in resolved.items() if exact and m.family.exact is not None}
    fast = tuple(n for n in resolved if probes.get(n, (False,) * 4)[0])
    stacked = tuple(n for n in resolved if exact and n_worlds > 0 and n not in fast)
    geometry = worlds = classes = None
    if ranked:
        bound = as_truth(Membership.from_annotations(resampler.annotations_in),
                         query_categories=query_categories, weights="direct",
                         exclude_query=True)
        rankings = rank_runs(runs, preset.ties, preset.score_dtype)
        with warnings.catch_warnings():  # the observed evaluation has warned already
            warnings.simplefilter("ignore", UserWarning)
            evaluated = evaluated_queries(rankings, bound, "skip", False)
        systems, queries = tuple(rankings), tuple(evaluated)
        if observed is not None and (tuple(observed[0]), tuple(observed[1])) != (
                systems, queries):
            raise ValueError("the runs' systems and queries differ from the observed "
                             "evaluation's")
    elif observed is None:
        raise ValueError("observed (systems, queries) is needed for classifiers")
    else:
        systems, queries = tuple(observed[0]), tuple(observed[1])
        if membership_of is None:
            classes = classifier_geometry(runs, resampler, queries, resolved, memory_budget)
    if fast or stacked:
        prepared = bound.prepare(evaluated)
        docs = tuple(prepared.doc_index(r.on(evaluated), run) for r, run in rankings.values())
        geometry = _geometry(resampler, prepared, docs) if fast else None
        worlds = worlds_geometry(resampler, prepared, docs) if stacked else None
        stacked = stacked if worlds is not None else ()
    return PopulationPlan(
        runs=runs, resampler=resampler, scheme=scheme, seed=seed, measures=tuple(measures),
        fast=fast, resolved=resolved, systems=tuple(systems), queries=tuple(queries),
        query_categories=query_categories, n_worlds=n_worlds, memory_budget=memory_budget,
        membership_of=membership_of, geometry=geometry,
        reads_rest=any(probes[n][1] for n in fast), reads_groups=any(probes[n][2] for n in fast),
        reads_ranks=any(probes[n][3] for n in fast),
        stacked=stacked, worlds=worlds, classes=classes,
    )


def _geometry(resampler: AnnotatorResampler, prepared: Any, docs: tuple) -> _Geometry:
    comp_query, comp_node, _ = prepared.components
    nodes, comp_col = np.unique(comp_node, return_inverse=True)
    taxonomy = prepared.membership.taxonomy
    mixed = np.flatnonzero(prepared.fixed[comp_query] < 0)
    mixed_items = prepared.query_item[comp_query[mixed]]
    comp_starts = np.flatnonzero(np.r_[True, np.diff(comp_query) > 0])
    cell_item, cell_col = resampler.voted_cells(nodes)
    # a cell's key is item * n_nodes + node column: sorted, as the cells are; the sentinel -1
    # stands for every (item, node) that is not a cell
    keys = np.append(cell_item * len(nodes) + cell_col, -1)

    def cells(items: np.ndarray, cols: np.ndarray) -> np.ndarray:
        want = np.maximum(items, 0) * len(nodes) + cols
        at = np.searchsorted(keys[:-1], want)
        return np.where((items >= 0) & (keys[at] == want), at, len(cell_item))

    query_items = prepared.query_item[comp_query]
    return _Geometry(
        comp_query=comp_query,
        comp_col=comp_col,
        comp_starts=comp_starts,
        mixed=mixed,
        query_item=prepared.query_item,
        exclude_query=prepared.exclude_query,
        docs=docs,
        ranked_cells=tuple(cells(d.docs[comp_query], comp_col[:, None]) for d in docs),
        query_cell=(cells(query_items, comp_col) if prepared.exclude_query
                    else np.full(len(comp_query), len(cell_item))),
        n_nodes=len(nodes),
        cell_item=cell_item,
        cell_col=cell_col,
        root_cells=np.flatnonzero(nodes[cell_col] == taxonomy.index(taxonomy.root)),
        totals=resampler.item_matrix(),
        closed=resampler.vote_matrix(cell_item, nodes[cell_col], closed=True),
        direct=resampler.vote_matrix(mixed_items, comp_node[mixed], closed=False),
        mixed_items=mixed_items,
    )


def _probe(measure: Any) -> tuple[bool, bool, bool, bool]:
    """Whether a family's exact form applies to the measure's parameters (it may return None),
    whether it reads the relevant documents not retrieved as a (row, item) matrix (its cost
    then grows with the collection), whether it reads them grouped by share (as the exact
    recall's mean does), and whether it reads the probability of every rank (not only the
    ranks that may hold a relevant document: :meth:`ExactInput.ranked`): asked of the form
    itself, on a one-row input of means only."""
    from fuzzytruth.uncertain.closed_form import ExactInput
    from fuzzytruth.uncertain.worlds import kernel_params

    asked = set()

    def ranks(rel: float) -> np.ndarray:
        asked.add("ranks")
        return np.full((1, 1), 0.5)

    def rest(rel: float) -> tuple[np.ndarray, np.ndarray]:
        asked.add("rest")
        return np.zeros((1, 0)), np.zeros(1, dtype=np.int64)

    def size() -> np.ndarray:
        asked.add("rest")
        return np.ones(1)

    def groups(rel: float, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        asked.add("groups")
        return np.zeros(0), np.zeros((1, 0)), np.zeros(1, dtype=np.int64)

    ctx = ExactInput(ranks, np.ones(1, dtype=np.int64), rest, size,
                     judged=np.ones((1, 1), dtype=bool), means_only=True, fn_counts=groups,
                     ranked=lambda rel, k: (np.full((1, 1), 0.5), np.ones(1)))
    applies = measure.family.exact(ctx, **kernel_params(measure)) is not None
    return applies, "rest" in asked, "groups" in asked, "ranks" in asked


# ---------------------------------------------------------------------------------------------
# a block of replicates


def replicate_scores(
    plan: PopulationPlan, start: int, stop: int, *, fast: bool = True
) -> dict[str, np.ndarray]:
    """``(stop - start, n_systems, n_queries)`` expected per-query scores of replicates
    ``start .. stop - 1``, per measure; ``fast=False`` sends every measure down the general
    path, one :func:`~fuzzytruth.evaluate` per replicate (the reference the exact forms, the
    stacked worlds and the classifiers' means are tested against)."""
    replicates = np.arange(start, stop)
    mult = plan.resampler.multiplicities(plan.seed, plan.scheme, replicates)
    quick = plan.fast if fast else ()
    out = _fast_scores(plan, mult, quick) if quick else {}
    stacked = plan.stacked if fast else ()
    if stacked:
        values = stacked_world_scores(
            plan.worlds, plan.resampler, mult, replicates,
            [plan.resolved[m] for m in stacked], seed=plan.seed, n_worlds=plan.n_worlds,
            memory_budget=plan.memory_budget)
        out.update(zip(stacked, values, strict=True))
    classified = tuple(plan.classes.plans) if fast and plan.classes is not None else ()
    if classified:
        out.update(classifier_scores(plan.classes, plan.resampler, mult, plan.resolved))
    general = [m for m in plan.measures
               if m not in quick and m not in stacked and m not in classified]
    if general:
        out.update(_general_scores(plan, mult, replicates, general))
    return {m: out[m] for m in plan.measures}


def replicate_block(plan: PopulationPlan, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """Replicates ``start .. stop - 1``: per measure, the means over the resampled queries
    ``(n, n_systems)``, over every query once ``(n, n_systems)`` and the count-weighted
    second moments ``(n, n_systems, n_systems)``; the query counts are keyed by replicate."""
    scores = replicate_scores(plan, start, stop)
    weights = index_counts(plan.seed, BOOTSTRAP_STREAM, plan.n_queries, np.arange(start, stop))
    weights /= plan.n_queries
    out: list[np.ndarray] = []
    for m in plan.measures:
        f = scores[m]
        out += [np.einsum("bsq,bq->bs", f, weights), f.mean(axis=2),
                np.einsum("bsq,btq,bq->bst", f, f, weights)]
    return tuple(out)


def _general_scores(
    plan: PopulationPlan, mult: np.ndarray, replicates: np.ndarray, names: list[str]
) -> dict[str, np.ndarray]:
    from fuzzytruth.evaluation.engine import PARTIAL, evaluate
    from fuzzytruth.truth.membership import Membership

    membership_of = plan.membership_of or Membership.from_annotations
    out = {m: np.empty((len(mult), len(plan.systems), plan.n_queries)) for m in names}
    for i, r in enumerate(replicates):  # one evaluation per replicate: the general path
        membership = membership_of(plan.resampler.annotations(mult[i]))
        with warnings.catch_warnings():  # said by the observed labels' evaluation, once
            warnings.filterwarnings("ignore", message=rf".*{re.escape(PARTIAL)}")
            ev = evaluate(plan.runs, membership, names, query_categories=plan.query_categories,
                          n_worlds=plan.n_worlds, rng=named_stream(plan.seed, "worlds", int(r)),
                          memory_budget=plan.memory_budget, progress=False)
        for m, sm in evaluation_scores(ev).items():
            if sm.queries != plan.queries:
                raise ValueError(
                    f"replicate {r} evaluated other queries than the observed labels "
                    f"({len(sm.queries)} against {plan.n_queries}) for measure {m!r}"
                )
            out[m][i] = sm.averaged
    return out


def _fast_scores(
    plan: PopulationPlan, mult: np.ndarray, names: tuple[str, ...]
) -> dict[str, np.ndarray]:
    from fuzzytruth.evaluation.undefined import Undefined
    from fuzzytruth.uncertain.batch import DeferredBatch
    from fuzzytruth.uncertain.worlds import kernel_params

    geo = plan.geometry
    n_rep = len(mult)
    totals = np.asarray(mult @ geo.totals)
    shares = np.zeros((n_rep, geo.n_cells + 1))  # the last column: every other (item, node)
    shares[:, :-1] = np.minimum(plan.resampler.shares(mult, geo.closed, totals, geo.cell_item),
                                1.0)
    shares[:, geo.root_cells] = 1.0  # Membership: the root always has probability 1
    weights = np.ones((n_rep, len(geo.comp_query)))
    if len(geo.mixed):  # a query's own category: components weighted by its direct shares
        direct = plan.resampler.shares(mult, geo.direct, totals, geo.mixed_items)
        weights[:, geo.mixed] = direct
        by_query = np.add.reduceat(weights, geo.comp_starts, axis=1)
        weights[:, geo.mixed] = direct / by_query[:, _owner(geo)[geo.mixed]]
    norm = np.add.reduceat(weights, geo.comp_starts, axis=1)
    out = {m: np.empty((n_rep, len(plan.systems), plan.n_queries)) for m in names}
    block = _BlockShares(geo, shares)
    for s in range(len(geo.docs)):
        ctx = _stacked_input(block, s)
        for m in names:
            measure = plan.resolved[m]
            comp = measure.family.exact(ctx, **kernel_params(measure))
            fill = measure.family.undefined_value
            if isinstance(comp, DeferredBatch):  # a mean computed without the law
                means = comp.filled_mean(fill) if Undefined.ZERO.fills(fill) else comp.mean()
            else:
                means = Undefined.ZERO.apply_batch(comp, fill).mean()
            means = means.reshape(n_rep, -1)
            out[m][:, s] = np.add.reduceat(weights * means, geo.comp_starts, axis=1) / norm
    return out


def _owner(geo: _Geometry) -> np.ndarray:
    """The query (position among the evaluated queries' components) of each component."""
    return np.repeat(np.arange(len(geo.comp_starts)),
                     np.diff(np.r_[geo.comp_starts, len(geo.comp_query)]))


@dataclass(frozen=True)
class _ShareGroups:
    """A block's shares grouped by value, for counting the relevant documents a system misses
    by share instead of listing them: the distinct shares strictly between 0 and 1 ``(V,)``;
    each cell's column among them ``(n_rep, n_cells)`` (-1 for a share of 0 or 1); per
    (replicate, node) row ``r * n_nodes + node`` the number of its cells of each share
    ``(n_rep * n_nodes, V)``, an array (sparse past :meth:`_Geometry.dense_shares`), and
    of share 1 ``(n_rep, n_nodes)``."""

    values: np.ndarray
    column: np.ndarray
    counts: Any
    certain: np.ndarray


def _share_groups(shares: np.ndarray, cell_col: np.ndarray, n_nodes: int,
                  dense: int) -> _ShareGroups:
    """The groups of a block's cell shares ``(n_rep, n_cells)``, ``cell_col`` each cell's
    node (see :class:`_ShareGroups`): annotators' shares take few values (votes over
    annotators). The counts are an array when there are at most ``dense`` shares."""
    n_rep = len(shares)
    # the distinct shares, in increasing order, by hashing (a binary search of each share
    # among a few values cost 3-6 times as much: its branches mispredict)
    code, values = pd.factorize(shares.ravel(), sort=True)
    uncertain = (values > 0) & (values < 1)
    column = np.where(uncertain, np.cumsum(uncertain) - 1, -1)[code].reshape(shares.shape)
    node_row = np.arange(n_rep)[:, None] * n_nodes + cell_col[None, :]
    kept = column >= 0
    n_values = int(uncertain.sum())
    counts = _pair_counts(node_row[kept], column[kept], (n_rep * n_nodes, n_values),
                          written=n_values <= dense)
    certain = np.bincount(node_row[shares == 1], minlength=n_rep * n_nodes)
    return _ShareGroups(values[uncertain], column, counts, certain.reshape(n_rep, n_nodes))


def _pair_counts(rows: np.ndarray, columns: np.ndarray, shape: tuple[int, int],
                 written: bool) -> Any:
    """How many times each (row, column) pair occurs, ``shape``: an array when ``written``,
    else a SciPy CSR matrix (repeated pairs summed).

    >>> _pair_counts(np.array([0, 1, 1]), np.array([1, 0, 0]), (2, 2), True).tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    if written:
        flat = np.bincount(rows * shape[1] + columns, minlength=shape[0] * shape[1])
        return flat.reshape(shape).astype(np.float64)
    from scipy import sparse

    return sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=shape)


class _BlockShares:
    """A block's shares of the cells ``(n_rep, n_cells + 1)`` (the last column: 0, the share
    of every other (item, node)), and what is derived from them on first use, once for every
    system: the shares grouped by value, and the dense ``(n_rep, n_items, n_nodes)`` shares
    that the forms reading the relevant documents not retrieved as a matrix need."""

    def __init__(self, geo: _Geometry, shares: np.ndarray) -> None:
        self.geo = geo
        self.shares = shares

    @functools.cached_property
    def groups(self) -> _ShareGroups:
        geo = self.geo
        return _share_groups(self.shares[:, :-1], geo.cell_col, geo.n_nodes, geo.dense_shares())

    @functools.cached_property
    def dense(self) -> np.ndarray:
        geo = self.geo
        out = np.zeros((len(self.shares), geo.totals.shape[1], geo.n_nodes))
        out[:, geo.cell_item, geo.cell_col] = self.shares[:, :-1]
        return out


def _stacked_input(block: _BlockShares, system: int) -> Any:
    """One system's :class:`ExactInput` over a block: row ``r * n_comp + c`` is component
    ``c`` in replicate ``r`` (what ``PreparedCategorical`` gives for one truth). The documents
    outside the top k are counted by share (the cells of the target node, less those ranked in
    the top k and the excluded query item): the exact recall's mean then needs no
    (replicate, component, item) matrix."""
    from fuzzytruth.uncertain.closed_form import ExactInput, Gathered

    geo, shares = block.geo, block.shares
    n_rep = len(shares)
    n_items = int(geo.totals.shape[1])
    q, col = geo.comp_query, geo.comp_col
    n_comp = len(q)
    docs, cells = geo.docs[system], geo.ranked_cells[system]
    ranked = docs.docs[q]  # (n_comp, depth), -1 for padding and the excluded query item
    n_rows = n_rep * n_comp

    def probabilities(rel: float) -> np.ndarray:
        if rel > 1:  # categorical membership has grade 1
            return np.zeros((n_rows, ranked.shape[1]))
        return Gathered(shares, cells).matrix()

    def rest(rel: float) -> tuple[np.ndarray, np.ndarray]:
        if rel > 1:
            return np.zeros((n_rows, 0)), np.zeros(n_rows, dtype=np.int64)
        retrieved = np.zeros((n_comp, n_items + 1), dtype=bool)
        retrieved[np.arange(n_comp)[:, None], ranked] = True  # -1 marks the last column
        if geo.exclude_query:
            item = geo.query_item[q]
            retrieved[np.arange(n_comp), np.where(item >= 0, item, n_items)] = True
        probs = np.where(retrieved[None, :, :n_items], 0.0,
                         block.dense[:, :, col].transpose(0, 2, 1)).reshape(n_rows, n_items)
        certain = (probs == 1).sum(axis=1)
        uncertain = np.where(probs < 1, probs, 0.0)
        return uncertain[:, uncertain.any(axis=0)], certain

    def expected_size() -> np.ndarray:
        return (block.dense.sum(axis=1)[:, col] - shares[:, geo.query_cell]).ravel()

    def hits(rel: float, k: int | None) -> tuple[np.ndarray, np.ndarray]:
        hit, ranks = geo.hit_cells(system, k)
        if rel > 1:
            hit, ranks = hit[:, :0], ranks[:, :0]
        # read through the cells (RR's pass stops early), the ranks of every replicate's rows
        return Gathered(shares, hit), ranks

    def fn_counts(rel: float, k: int | None) -> tuple[np.ndarray, Any, np.ndarray]:
        groups = block.groups
        if rel > 1:
            return groups.values[:0], np.zeros((n_rows, 0)), np.zeros(n_rows, dtype=np.int64)
        node_rows = (np.arange(n_rep)[:, None] * geo.n_nodes + col).ravel()
        # every cell of the node, less those of the top k and of the query's own item
        taken = np.concatenate([cells if k is None else cells[:, :k], geo.query_cell[:, None]],
                               axis=1)
        comp, at = np.nonzero(taken < geo.n_cells)
        taken = taken[comp, at]
        rows = np.arange(n_rep)[:, None] * n_comp + comp  # (n_rep, n_taken)
        column = np.take(groups.column, taken, axis=1)
        kept = column >= 0
        certain = (groups.certain[:, col].ravel()
                   - np.bincount(rows[np.take(shares, taken, axis=1) == 1], minlength=n_rows))
        # the counts of the row's node less those of its top k and its query item, written out
        # as the nodes' are (or sparse); either way each product then sums its terms in the
        # order of the shares (counts_product), and a block's numbers do not depend on which
        # its number of shares chose
        written = isinstance(groups.counts, np.ndarray)
        less = _pair_counts(rows[kept], column[kept], (n_rows, len(groups.values)), written)
        missed = groups.counts[node_rows] - less
        return groups.values, missed if written else missed.tocsr(), certain

    return ExactInput(probabilities, np.tile(docs.lengths[q], n_rep), rest, expected_size,
                      judged=lambda: np.tile(ranked >= 0, (n_rep, 1)), means_only=True,
                      fn_counts=fn_counts, ranked=hits)
