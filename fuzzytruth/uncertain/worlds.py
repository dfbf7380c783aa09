"""Possible worlds: complete crisp ground truths drawn from uncertain annotations.

Any crisp measure of the registry (AP, nDCG, tiers, E@32, ADR, …) becomes a distribution by
drawing worlds — each one a complete crisp ground truth consistent with the annotations —
evaluating the measure in every world, and reading the values as Monte Carlo draws. The same
worlds serve every system (paired comparisons) and every measure.

World models
------------
``"annotator"`` (categorical truth, the default)
    Each item gets the label of one of its annotators, drawn by annotator share
    (:attr:`Membership.direct <fuzzytruth.truth.membership.Membership.direct>`); the item belongs to
    that node and all its ancestors, so every world is a consistent crisp labelling of the
    taxonomy. When a query's category is uncertain (the query item's own category, with the
    default ``"direct"`` weights), its target in a world is the query item's own label in that
    world (with ``"literal"`` weights, which are not annotator shares, the target is drawn from
    the weights). For one fixed target ω, items are independent with P(item ∈ ω) = p(ω|item): the
    model of the exact closed forms.
``"bernoulli"``
    Each (item, category) pair is a member independently with probability p(ω|item) (Santini's
    independence, per category; a world need not be consistent with the taxonomy). A query with
    an uncertain category draws its target from its mixture weights, independently of the
    members. For probabilistic qrels this is the only model: each (query, document) is relevant
    independently with its probability, so ``"annotator"`` and ``"bernoulli"`` give the same
    worlds there.

Randomness
----------
Every draw is keyed (:mod:`fuzzytruth._random`): an item's label in world w depends on
the seed, the item's id and w only, a pair's relevance on the seed, the (query, document) ids
and w. Results therefore do not depend on the chunk size, on the order or partitioning of
queries and items, nor on which other systems and measures are evaluated.

Vectorisation and memory
------------------------
Worlds × queries are flattened into rows (query-major: row = query × n_chunk + world) and the
kernels run on all of them at once, in chunks of worlds sized from a memory budget.

Families with a 0/1-world kernel (``MeasureFamily.binary``; :mod:`fuzzytruth.metrics.binary`)
read only the ranks that can be relevant: under probabilistic qrels, the ranked documents with
a positive probability (usually a small share of a deep run), in rank order, with their ranks
(``relevant`` and ``ranks``, ``(n_candidates, n_rows)``), and the number R of relevant documents
per row. Under probabilistic qrels with one grade, the relevant documents that no system
retrieved enter only through R, so their count is drawn directly from its Poisson-binomial law
(inverse CDF, keyed by query and world) instead of one draw per document. Any other family,
graded relevance or the tie-averaged policy goes through the crisp kernels on dense
:class:`~fuzzytruth.metrics.base.RankedGains` (binary relevance as ``int8``; the kernels give the
same values as with float64).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fuzzytruth._random import (
    bernoulli_counts,
    categorical_draws,
    uniforms,
    unit_keys,
)
from fuzzytruth.measures import PRESET, Measure
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.truth.membership import Membership
from fuzzytruth.uncertain import poibin

__all__ = [
    "WORLD_MODELS",
    "CategoricalWorlds",
    "QrelsWorlds",
    "RankedDocs",
    "check_world_model",
    "kernel_params",
    "sample_labels",
    "world_values",
]

WORLD_MODELS = ("annotator", "bernoulli")
_CELL_BYTES = 64  # working memory of the crisp kernels per (row, rank) cell
_FAST_CELL_BYTES = 16  # the 0/1 route: relevance, ranks, a few per-row vectors
_IDEAL_BYTES = 32  # per (row, ideal column) cell (nDCG sorts a float64 copy of the ideal)
# streams of the keyed draws
_LABELS, _TARGETS, _MEMBERS, _PAIRS, _REST = 1, 2, 3, 4, 5


def check_world_model(world_model: str) -> str:
    """Validate ``world_model``; return it."""
    if world_model not in WORLD_MODELS:
        raise ValueError(f"world_model must be one of {list(WORLD_MODELS)}; got {world_model!r}")
    return world_model


def _check_n_worlds(n_worlds: int) -> int:
    if isinstance(n_worlds, bool) or not isinstance(n_worlds, int | np.integer) or n_worlds < 1:
        raise ValueError(f"n_worlds must be a positive integer; got {n_worlds!r}")
    return int(n_worlds)


def sample_labels(
    membership: Membership,
    n_worlds: int,
    *,
    rng: np.random.Generator | int | None = None,
    worlds: np.ndarray | None = None,
) -> np.ndarray:
    """One label per item per world, drawn by annotator share (the ``"annotator"`` model).

    Parameters
    ----------
    membership : Membership
        Must keep the annotators' direct shares (built from annotations or from direct shares).
    n_worlds : int
        Number of worlds.
    rng : numpy.random.Generator or int, optional
        Source of randomness: the seed of the keyed draws is taken from it.
    worlds : numpy.ndarray, optional
        World numbers to draw (default ``0..n_worlds-1``); a world's labels depend only on
        the seed, the item ids and its number.

    Returns
    -------
    numpy.ndarray
        ``(n_worlds, n_items)`` node indices into ``membership.categories``.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_figure1
    >>> mem = santini_figure1().membership
    >>> labels = sample_labels(mem, 10_000, rng=0)
    >>> shares = np.bincount(labels[:, 0], minlength=len(mem.categories)) / 10_000
    >>> dict(zip(mem.categories, shares.round(1)))["people"]   # direct share 0.4
    np.float64(0.4)
    """
    from fuzzytruth._random import draw_seed

    n_worlds = _check_n_worlds(n_worlds)
    if membership.direct is None:
        raise ValueError(
            "world_model='annotator' needs the annotators' direct shares, and this membership "
            "was built from already-closed probabilities; use world_model='bernoulli'"
        )
    seed = draw_seed(rng)
    table = _LabelTable(membership.direct, unit_keys(np.asarray(membership.items)))
    return table.draw(seed, np.arange(n_worlds) if worlds is None else worlds)


class _LabelTable:
    """Per item, its possible labels and their cumulative shares, padded to a rectangle."""

    def __init__(self, direct: np.ndarray, keys: np.ndarray) -> None:
        n_items, n_nodes = direct.shape
        width = max(int((direct > 0).sum(axis=1).max(initial=1)), 1)
        order = np.argsort(direct <= 0, axis=1, kind="stable")[:, :width]
        shares = np.take_along_axis(direct, order, axis=1)
        cum = np.cumsum(shares, axis=1)
        cum = np.where(shares > 0, cum, np.inf)
        last = (shares > 0).sum(axis=1) - 1
        cum[np.arange(n_items), last] = np.inf  # rounding never sends a draw past the last
        self.labels = order.astype(np.int16 if n_nodes < 2**15 else np.int32)
        self.cum = cum
        self.keys = keys

    def draw(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        n_items, width = self.labels.shape
        out = np.empty((len(worlds), n_items), dtype=self.labels.dtype)
        step = max(1, 2**24 // max(n_items * width, 1))
        for start in range(0, len(worlds), step):  # chunks bound the memory
            u = uniforms(seed, _LABELS, self.keys, worlds[start : start + step])
            pick = (u[:, :, None] >= self.cum[None, :, :]).sum(axis=2)
            out[start : start + len(u)] = self.labels[np.arange(n_items)[None, :], pick]
        return out


@dataclass(frozen=True, eq=False)
class RankedDocs:
    """One system's ranked lists on the evaluated queries, as truth indices.

    ``docs`` is ``(n_queries, depth)``: the index of the document at each rank in the truth's
    document space (membership rows, or probabilistic-qrels pairs), -1 for padding and for
    documents the truth does not know (never relevant). ``tie_start``/``tie_stop`` as in
    :class:`~fuzzytruth.metrics.base.RankedGains` (tie-averaged policy only).
    """

    docs: np.ndarray
    lengths: np.ndarray
    tie_start: np.ndarray | None = None
    tie_stop: np.ndarray | None = None


def _compress(docs: np.ndarray, candidate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidate columns of each row, in rank order: ``(n_q, C)`` docs (-1 padded) and
    ranks (``depth`` where padded)."""
    depth = docs.shape[1]
    count = candidate.sum(axis=1)
    width = int(count.max(initial=0))
    order = np.argsort(~candidate, axis=1, kind="stable")[:, :width]
    keep = np.arange(width)[None, :] < count[:, None]
    ranks = np.where(keep, order, depth)
    return np.where(keep, np.take_along_axis(docs, order, axis=1), -1), ranks


class CategoricalWorlds:
    """Worlds of a categorical truth: which items belong to each query's target category.

    Parameters
    ----------
    membership : Membership
        The uncertain categories of the items.
    fixed : numpy.ndarray
        ``(n_queries,)`` node index of an explicitly given target category, or -1.
    query_item : numpy.ndarray
        ``(n_queries,)`` membership row of the query item, or -1 when the query is not an item.
    components : tuple of numpy.ndarray
        ``(query, node, weight)`` of the mixture components of queries without a fixed target.
    own_label : bool
        Annotator model with direct weights: a query's target is its own label in the world.
    exclude_query : bool
        Leave the query item out of its category's relevant count.
    world_model : {"annotator", "bernoulli"}
    query_ids : numpy.ndarray, optional
        ``(n_queries,)`` ids of the queries (the keys of their target draws); default their
        positions.
    """

    binary = True

    def __init__(
        self,
        membership: Membership,
        fixed: np.ndarray,
        query_item: np.ndarray,
        components: tuple[np.ndarray, np.ndarray, np.ndarray],
        *,
        own_label: bool,
        exclude_query: bool,
        world_model: str,
        query_ids: np.ndarray | None = None,
    ) -> None:
        self.membership = membership
        self.fixed = fixed
        self.query_item = query_item
        self.components = components
        self.own_label = own_label and world_model == "annotator"
        self.exclude = exclude_query & (query_item >= 0)
        self.world_model = check_world_model(world_model)
        ids = np.arange(len(fixed)) if query_ids is None else np.asarray(query_ids)
        self._query_keys = unit_keys(ids)
        self._item_keys = unit_keys(np.asarray(membership.items))
        n_nodes = len(membership.categories)
        anc = np.zeros((n_nodes + 1, n_nodes), dtype=np.int8)
        anc[:n_nodes] = membership.taxonomy.ancestor_matrix
        self._anc = anc  # the last row is the padding "node": never relevant
        # with at most 63 nodes, a label's ancestors fit in one integer's bits: relevance is
        # then one gather and one bitwise and, instead of a two-index gather
        self._bits = None
        if n_nodes <= 63:
            dtype = next(
                t
                for t in (np.uint8, np.uint16, np.uint32, np.uint64)
                if np.iinfo(t).bits >= n_nodes
            )
            weights = np.ones(1, dtype=dtype) << np.arange(n_nodes, dtype=dtype)
            self._bits = (anc.astype(dtype) * weights[None, :]).sum(axis=1, dtype=dtype)

    def plan(self, systems: Sequence[RankedDocs]) -> None:
        """Every known item can be relevant to some target: the candidates are all of them."""

    def n_judged(self) -> np.ndarray:
        """``(n_q,)`` judged documents per query: every annotated item but the excluded query."""
        return len(self.membership.items) - self.exclude.astype(np.int64)

    def draw(self, n_worlds: int, seed: int) -> None:
        """Draw what every world needs up front: labels (annotator) and targets."""
        self.seed = seed
        n_items = len(self.membership.items)
        n_nodes = len(self.membership.categories)
        n_q = len(self.fixed)
        worlds = np.arange(n_worlds)
        if self.world_model == "annotator":
            if self.membership.direct is None:
                raise ValueError(
                    "world_model='annotator' needs the annotators' direct shares, and this "
                    "membership was built from already-closed probabilities; use "
                    "world_model='bernoulli'"
                )
            labels = _LabelTable(self.membership.direct, self._item_keys).draw(seed, worlds)
            self._labels = np.concatenate(
                [labels, np.full((n_worlds, 1), n_nodes, dtype=labels.dtype)], axis=1
            )
        targets = np.broadcast_to(self.fixed, (n_worlds, n_q)).copy()
        comp_query = self.components[0]
        if len(comp_query):
            if self.own_label:
                mixed = np.unique(comp_query)
                targets[:, mixed] = self._labels[:, self.query_item[mixed]]
            else:
                targets = self._draw_components(targets, seed)
        self.targets = targets
        if self.world_model == "annotator":
            label_counts = np.zeros((n_worlds, n_nodes + 1), dtype=np.int64)
            rows = np.repeat(np.arange(n_worlds), n_items + 1)
            np.add.at(label_counts, (rows, self._labels.ravel()), 1)
            sizes = label_counts @ self._anc.astype(np.int64)  # (n_worlds, n_nodes)
            counts = np.take_along_axis(sizes, targets, axis=1)
            counts -= self._query_relevance(self._labels, targets)
            self.max_relevant = int(counts.max(initial=0))
            self._counts = counts
            self.draw_bytes = (n_items + 1) * (self._labels.itemsize + 8)  # labels, bits
        else:
            self._needed = np.unique(targets)
            self._position = np.searchsorted(self._needed, targets)
            probs = self.membership.matrix[:, self._needed]
            self.max_relevant = int((probs > 0).sum(axis=0).max(initial=0))
            self.draw_bytes = (n_items + 1) * len(self._needed) * 17  # uniforms + members

    def _draw_components(self, targets: np.ndarray, seed: int) -> np.ndarray:
        """Each mixed query's target drawn from its component weights, keyed by query."""
        comp_query, comp_node, comp_weight = self.components
        order = np.argsort(comp_query, kind="stable")
        node, weight = comp_node[order], comp_weight[order]
        queries, start, count = np.unique(
            comp_query[order], return_index=True, return_counts=True
        )
        column = np.arange(len(order)) - np.repeat(start, count)
        row = np.repeat(np.arange(len(queries)), count)
        cum = np.full((len(queries), int(count.max())), np.inf)
        nodes = np.zeros(cum.shape, dtype=np.int64)
        cum[row, column] = np.cumsum(weight) - np.repeat(
            np.cumsum(weight)[start] - weight[start], count
        )
        nodes[row, column] = node
        cum[np.arange(len(queries)), count - 1] = np.inf
        u = uniforms(seed, _TARGETS, self._query_keys[queries], np.arange(len(targets)))
        pick = (u[:, :, None] >= cum[None]).sum(axis=2)
        targets[:, queries] = nodes[np.arange(len(queries))[None, :], pick]
        return targets

    def _query_relevance(self, member_of: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """(n_worlds, n_q) 1 where the excluded query item belongs to its target."""
        items = np.where(self.exclude, self.query_item, -1)  # -1: the padding column
        labels = member_of[:, items]
        return np.where(self.exclude, self._anc[labels, targets], 0).astype(np.int64)

    def chunk(self, start: int, stop: int) -> dict:
        """State of worlds ``start:stop`` (draws the Bernoulli members)."""
        targets = self.targets[start:stop]
        if self.world_model == "annotator":
            return {
                "labels": self._labels[start:stop],
                "targets": targets,
                "counts": self._counts[start:stop],
            }
        n_items = len(self.membership.items)
        n_needed = len(self._needed)
        keys = (self._item_keys[:, None] + self._needed[None, :].astype(np.uint64)).ravel()
        u = uniforms(self.seed, _MEMBERS, keys, np.arange(start, stop))
        probs = self.membership.matrix[:, self._needed]
        members = (u.reshape(stop - start, n_items, n_needed) < probs[None]).astype(bool)
        members = np.concatenate(
            [members, np.zeros((stop - start, 1, n_needed), dtype=bool)], axis=1
        )
        position = self._position[start:stop]
        counts = np.take_along_axis(members.sum(axis=1), position, axis=1).astype(np.int64)
        items = np.where(self.exclude, self.query_item, n_items)
        worlds = np.arange(stop - start)[:, None]
        counts -= np.where(self.exclude, members[worlds, items[None, :], position], 0)
        return {"members": members, "position": position, "counts": counts}

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(n_chunk, n_q, depth) boolean relevance of the ranked documents."""
        if "labels" in state:
            targets = state["targets"][:, :, None]
            if self._bits is not None:
                bits = self._bits[state["labels"]]  # ancestors of each item's label, as bits
                target_bits = self._bits.dtype.type(1) << targets.astype(self._bits.dtype)
                return (bits[:, docs] & target_bits) != 0  # -1 (padding): the last column
            return self._anc[state["labels"][:, docs], targets].view(bool)
        worlds = np.arange(len(state["counts"]))[:, None, None]
        doc = np.where(docs >= 0, docs, len(self.membership.items))
        return state["members"][worlds, doc[None], state["position"][:, :, None]]

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray | None]:
        """The ranks that can be relevant: every rank (``(n_q, depth)`` docs; ranks None:
        column j is rank j)."""
        return system.docs, None

    def relevant(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(C, n_q * n_chunk) boolean relevance of the ``docs`` columns, rows query-major."""
        n_chunk = len(state["counts"])
        if "labels" in state and self._bits is not None:
            # each (rank, query) gathers one contiguous run of n_chunk worlds
            bits = np.ascontiguousarray(self._bits[state["labels"]].T)  # (n_items + 1, chunk)
            target_bits = self._bits.dtype.type(1) << state["targets"].T.astype(self._bits.dtype)
            gathered = np.take(bits, docs.T, axis=0)  # take: much faster than fancy indexing
            np.bitwise_and(gathered, target_bits[None], out=gathered)
            out = gathered != 0
        else:
            out = np.ascontiguousarray(self.gains(state, docs).transpose(2, 1, 0))
        return out.reshape(docs.shape[1], docs.shape[0] * n_chunk)

    def counts(self, state: dict) -> np.ndarray:
        """(n_chunk, n_q) number of relevant items of each query in each world."""
        return state["counts"]

    def ideal(self, state: dict) -> np.ndarray:
        """(n_chunk, n_q, width) int8 ideal: one 1 per relevant item."""
        counts = state["counts"]
        width = int(counts.max(initial=0))
        return (np.arange(width)[None, None, :] < counts[:, :, None]).view(np.int8)


class QrelsWorlds:
    """Worlds of a probabilistic qrels: each judged (query, document) relevant independently.

    Parameters
    ----------
    pair_query : numpy.ndarray
        ``(n_pairs,)`` query position of each judged pair, pairs sorted by query then by grade
        descending.
    probability, grade : numpy.ndarray
        ``(n_pairs,)`` probability of being relevant, and the grade when relevant.
    n_queries : int
    keys : numpy.ndarray, optional
        ``(n_pairs,)`` uint64 keys of the pairs (:func:`~fuzzytruth._random.pair_keys`
        of their ids); default their positions.
    query_keys : numpy.ndarray, optional
        ``(n_queries,)`` uint64 keys of the queries; default their positions.
    """

    def __init__(
        self,
        pair_query: np.ndarray,
        probability: np.ndarray,
        grade: np.ndarray,
        n_queries: int,
        *,
        keys: np.ndarray | None = None,
        query_keys: np.ndarray | None = None,
    ) -> None:
        self.pair_query = pair_query
        self.probability = probability
        self.n_queries = n_queries
        self.binary = bool(np.all(grade == 1))
        self._grade = np.append(grade, 0.0)  # the last entry pads
        self._keys = unit_keys(np.arange(len(pair_query))) if keys is None else keys
        self._query_keys = unit_keys(np.arange(n_queries)) if query_keys is None else query_keys
        counts = np.bincount(pair_query, minlength=n_queries)
        width = int(counts.max(initial=0))
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        column = np.arange(len(pair_query)) - start[pair_query]
        judged = np.full((n_queries, width), len(pair_query), dtype=np.int64)
        judged[pair_query, column] = np.arange(len(pair_query))
        self._judged = judged  # (n_q, width) pair indices, grade descending, padded
        positive = np.bincount(pair_query[probability > 0], minlength=n_queries)
        self.max_relevant = int(positive.max(initial=0))

    def n_judged(self) -> np.ndarray:
        """``(n_q,)`` judged pairs per query."""
        return np.bincount(self.pair_query, minlength=self.n_queries).astype(np.int64)

    def plan(self, systems: Sequence[RankedDocs]) -> None:
        """Which pairs get one draw per world: with one grade, only the uncertain pairs some
        system ranks (the others enter through the per-query count of the rest); all pairs
        with several grades (the ideal needs their grades)."""
        n_pairs = len(self.probability)
        ranked = np.zeros(n_pairs + 1, dtype=bool)
        for system in systems:
            ranked[system.docs[system.docs >= 0]] = True
        ranked = ranked[:n_pairs]
        p = self.probability
        uncertain = (p > 0) & (p < 1)
        drawn = uncertain & ranked if self.binary else p > 0
        self._drawn = np.flatnonzero(drawn)
        # slot of each pair in the per-world bit table: drawn pairs first, then "always"
        # (probability 1) and "never" (probability 0, or padding)
        n_drawn = len(self._drawn)
        slot = np.full(n_pairs + 1, n_drawn + 1, dtype=np.int64)  # never
        slot[self._drawn] = np.arange(n_drawn)
        slot[np.flatnonzero((p == 1) & ~drawn)] = n_drawn  # always
        self._slot = slot
        self._certain = np.bincount(
            self.pair_query[(p == 1) & ~drawn], minlength=self.n_queries
        ).astype(np.int64)
        self._rest_cum = None
        if self.binary:
            rest = uncertain & ~ranked
            width = np.bincount(self.pair_query[rest], minlength=self.n_queries)
            table = np.zeros((self.n_queries, int(width.max(initial=0))))
            start = np.concatenate([[0], np.cumsum(width)[:-1]])
            idx = np.flatnonzero(rest)
            table[self.pair_query[idx], np.arange(len(idx)) - start[self.pair_query[idx]]] = p[
                idx
            ]
            if table.shape[1]:
                self._rest_cum = np.cumsum(poibin.pmf(table), axis=1)
        self.draw_bytes = (n_drawn + 2) * 17 + self.n_queries * 16

    def draw(self, n_worlds: int, seed: int) -> None:
        """Nothing is shared by all worlds: every draw is per chunk (and keyed)."""
        self.seed = seed

    def chunk(self, start: int, stop: int) -> dict:
        """Relevance of the drawn pairs in worlds ``start:stop``, and the relevant counts."""
        worlds = np.arange(start, stop)
        drawn, counts = bernoulli_counts(
            self.seed, _PAIRS, self._keys[self._drawn], self.probability[self._drawn],
            self.pair_query[self._drawn], self.n_queries, worlds,
        )
        bits = np.empty((stop - start, len(self._drawn) + 2), dtype=bool)
        bits[:, : len(self._drawn)] = drawn
        bits[:, -2] = True  # always relevant
        bits[:, -1] = False  # never
        counts += self._certain[None]
        if self._rest_cum is not None:
            counts += categorical_draws(
                self.seed, _REST, self._query_keys, self._rest_cum, worlds
            )
        return {"bits": bits, "counts": counts}

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(n_chunk, n_q, depth) grades of the ranked documents (boolean when binary)."""
        pairs = np.where(docs >= 0, docs, len(self._grade) - 1)
        hit = state["bits"][:, self._slot[pairs]]
        if self.binary:
            return hit
        return np.where(hit, self._grade[pairs][None], 0.0)

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray]:
        """The ranks that can be relevant (a positive probability), compressed."""
        docs = system.docs
        p = np.append(self.probability, 0.0)[np.where(docs >= 0, docs, len(self.probability))]
        return _compress(docs, p > 0)

    def relevant(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(C, n_q * n_chunk) boolean relevance of the ``docs`` columns, rows query-major."""
        slots = self._slot[np.where(docs >= 0, docs, len(self._grade) - 1)]
        table = np.ascontiguousarray(state["bits"].T)  # (n_slots, n_chunk)
        out = np.take(table, slots.T, axis=0)  # (C, n_q, n_chunk)
        return out.reshape(docs.shape[1], docs.shape[0] * table.shape[1])

    def counts(self, state: dict) -> np.ndarray:
        """(n_chunk, n_q) number of relevant judged documents of each query in each world."""
        return state["counts"]

    def ideal(self, state: dict) -> np.ndarray:
        """(n_chunk, n_q, width) grades of the relevant judged documents, descending."""
        counts = state["counts"]
        width = int(counts.max(initial=0))
        if self.binary:
            return (np.arange(width)[None, None, :] < counts[:, :, None]).view(np.int8)
        hit = state["bits"][:, self._slot[self._judged]]
        out = np.zeros((*hit.shape[:2], width))
        w, q, j = np.nonzero(hit)
        column = np.cumsum(hit, axis=2)[w, q, j] - 1
        out[w, q, column] = self._grade[self._judged[q, j]]
        return out


def kernel_params(measure: Measure) -> dict[str, Any]:
    """Every parameter a measure's kernel receives: the measure's own, then fixed defaults.

    >>> kernel_params(Measure("F", k=5).resolve("trec"))["beta"]
    1.0
    """
    params = measure.params
    for p in measure.family.params:
        params.setdefault(p.name, None if p.default is PRESET else p.default)
    return params


def world_values(
    truth: CategoricalWorlds | QrelsWorlds,
    systems: Sequence[RankedDocs],
    measures: Sequence[Measure],
    *,
    n_worlds: int,
    seed: int,
    memory_budget: float = 200e6,
    on_chunk: Callable[[int], None] | None = None,
    min_relevant: int = 0,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Every measure of every system in every world, vectorised over worlds × queries.

    Parameters
    ----------
    truth : CategoricalWorlds or QrelsWorlds
        The world sampler.
    systems : sequence of RankedDocs
        The systems' ranked lists on the same queries.
    measures : sequence of Measure
        Resolved measures (every parameter set).
    n_worlds : int
        Number of worlds, shared by all systems and measures.
    seed : int
        Seed of the keyed draws (:func:`~fuzzytruth._random.draw_seed`).
    memory_budget : float
        Bytes of working memory per chunk of worlds (default 200 MB).
    on_chunk : callable, optional
        Called with the number of worlds done after each chunk (the caller's progress bar).
    min_relevant : int
        A preset's class-size rule (:attr:`Preset.min_relevant <fuzzytruth.measures.Preset>`):
        when positive, which queries have at least this many relevant documents in each world.

    Returns
    -------
    values : numpy.ndarray
        ``(n_measures, n_systems, n_worlds, n_queries)``; NaN where a measure is undefined in a
        world.
    counted : numpy.ndarray or None
        ``(n_worlds, n_queries)`` bool, the queries that enter aggregates in each world
        (``min_relevant`` relevant documents or more); None when ``min_relevant`` is 0.
    """
    n_worlds = _check_n_worlds(n_worlds)
    truth.plan(systems)
    truth.draw(n_worlds, seed)
    n_q = len(systems[0].lengths)
    fast = [[_binary(m, s, truth) for m in measures] for s in systems]
    candidates = [
        truth.candidates(s) if any(f is not None for f in row) else None
        for s, row in zip(systems, fast, strict=True)
    ]
    generic = any(f is None for row in fast for f in row)
    judged = any("judged" in m.uses for m in measures)
    depth = max(s.docs.shape[1] for s in systems)
    width = max((c[0].shape[1] for c in candidates if c is not None), default=0)
    per_world = truth.draw_bytes + n_q * (
        width * _FAST_CELL_BYTES
        + (depth * _CELL_BYTES + truth.max_relevant * _IDEAL_BYTES if generic else 0)
    )
    step = int(max(1, min(n_worlds, memory_budget // max(per_world, 1))))
    out = np.empty((len(measures), len(systems), n_worlds, n_q))
    counted = np.empty((n_worlds, n_q), dtype=bool) if min_relevant > 0 else None
    for start in range(0, n_worlds, step):  # chunks of worlds bound the memory
        stop = min(n_worlds, start + step)
        state = _world_chunk(
            truth, systems, measures, fast, candidates, out, start, stop, n_q, judged=judged
        )
        if counted is not None:
            counted[start:stop] = truth.counts(state) >= min_relevant
        if on_chunk is not None:
            on_chunk(stop - start)
    return out, counted


def _binary(
    measure: Measure, system: RankedDocs, truth: CategoricalWorlds | QrelsWorlds
) -> Callable[..., np.ndarray] | None:
    """The family's 0/1-world kernel for this measure and system, when it has one and it
    applies (binary relevance, a strict ranking)."""
    factory = measure.family.binary
    if factory is None or not truth.binary or system.tie_start is not None:
        return None
    return factory(system.docs.shape[1], **kernel_params(measure))


def _world_chunk(
    truth: CategoricalWorlds | QrelsWorlds,
    systems: Sequence[RankedDocs],
    measures: Sequence[Measure],
    fast: list[list],
    candidates: list,
    out: np.ndarray,
    start: int,
    stop: int,
    n_q: int,
    *,
    judged: bool = False,
) -> dict:
    """Fill ``out[:, :, start:stop]``: every measure and system in one chunk of worlds; the
    chunk's drawn state is returned."""
    n_chunk = stop - start
    n_rows = n_chunk * n_q
    state = truth.chunk(start, stop)
    # the 0/1 route's rows are query-major (query, world)
    counts = truth.counts(state).T.reshape(n_rows) if truth.binary else None
    ideal = None
    for s, system in enumerate(systems):  # a handful of systems, each vectorised
        relevant = gains = ranks = None
        for m, measure in enumerate(measures):
            kernel = fast[s][m]
            if kernel is not None:
                if relevant is None:
                    docs, ranks = candidates[s]
                    relevant = truth.relevant(state, docs)
                    if ranks is None:  # every rank is a column
                        ranks = np.arange(docs.shape[1], dtype=np.int32)[:, None]
                    else:  # (n_q, C) -> (C, n_rows), rows query-major
                        ranks = np.repeat(ranks.T.astype(np.int32), n_chunk, axis=1)
                lengths = np.repeat(system.lengths, n_chunk)
                values = kernel(relevant, ranks, lengths, counts)
                out[m, s, start:stop] = values.reshape(n_q, n_chunk).T
                continue
            if gains is None:
                gains = truth.gains(state, system.docs)
            if ideal is None:
                ideal = truth.ideal(state)
                ideal = ideal.reshape(n_rows, ideal.shape[2])
            rg = _ranked_gains(system, gains, ideal, n_chunk, n_rows)
            if judged:
                rg = _with_judged(rg, truth, state, system)
            values = measure.compute(rg)
            out[m, s, start:stop] = values.reshape(n_chunk, n_q)
    return state


def _ranked_gains(
    system: RankedDocs, gains: np.ndarray, ideal: np.ndarray, n_chunk: int, n_rows: int
) -> RankedGains:
    flat = gains.reshape(n_rows, gains.shape[2])
    if flat.dtype == bool:
        flat = flat.view(np.int8)
    tie_start = tie_stop = None
    if system.tie_start is not None:
        tie_start = np.tile(system.tie_start, (n_chunk, 1))
        tie_stop = np.tile(system.tie_stop, (n_chunk, 1))
    return RankedGains(
        np.zeros(n_rows, dtype=object),
        flat,
        np.tile(system.lengths, n_chunk),
        ideal,
        tie_start,
        tie_stop,
    )


def _with_judged(
    rg: RankedGains, truth: CategoricalWorlds | QrelsWorlds, state: dict, system: RankedDocs
) -> RankedGains:
    """``rg`` with judged status: a ranked document is judged when the truth knows it (a
    judged pair; an annotated item); in each world the judged grades are its relevant count
    of 1s (binary worlds) and 0 for the other judged documents."""
    if not truth.binary:
        raise ValueError(
            "measures that read judged status are available under graded probabilistic qrels "
            "only through their exact forms; use a single grade"
        )
    n_chunk = len(state["counts"])
    judged = np.tile(system.docs >= 0, (n_chunk, 1))
    n_judged = np.tile(truth.n_judged(), n_chunk)
    cols = np.arange(int(n_judged.max(initial=0)))[None, :]
    grades = np.where(cols < rg.n_relevant(1)[:, None], 1.0, 0.0)
    grades = np.where(cols < n_judged[:, None], grades, np.nan)
    return replace(rg, judged=judged, n_judged=n_judged, judged_grades=grades)
