"""The worlds of a categorical truth (a membership): which items belong to each query's target
category, world by world; the sampler the truth hands to the world engine
(:mod:`fuzzytruth.uncertain.worlds`).

World models
------------
``"annotator"`` (the default)
    Each item gets the label of one of its annotators, drawn by annotator share
    (:attr:`Membership.direct <fuzzytruth.truth.membership.Membership.direct>`); the item
    belongs to that node and all its ancestors, so every world is a consistent crisp labelling
    of the taxonomy. When a query's category is uncertain (the query item's own category, with
    the default ``"direct"`` weights), its target in a world is the query item's own label in
    that world (with ``"literal"`` weights, which are not annotator shares, the target is drawn
    from the weights). For one fixed target ω, items are independent with
    P(item ∈ ω) = p(ω|item): the model of the exact closed forms.

    A truth fitted by a label model (:mod:`fuzzytruth.truth.models`) draws the labels with the
    model's own sampler instead (its ``sample_labels``; the shares model's are the draws above,
    bit for bit). A model whose worlds draw shared parameters (Dawid–Skene and kin) makes the
    items of a world dependent, and their marginal is the posterior averaged over the drawn
    parameters, not the fitted posterior: the exact closed forms do not describe those worlds
    (the model says so: ``independent_items`` is False).
``"bernoulli"``
    Each (item, category) pair is a member independently with probability p(ω|item)
    (Santini's independence, per category; a world need not be consistent with the taxonomy).
    A query with an uncertain category draws its target from its mixture weights,
    independently of the members. Refused for a model whose worlds are dependent (it would
    drop what they carry).

Every draw is keyed (:mod:`fuzzytruth._random`): an item's label in world w depends on the
seed, the item's id and w only.

Each chunk of worlds draws every item's label (annotator) and the size of every category that
can be a target, once; its blocks of queries then draw their targets, count their relevant
items from those sizes, and read the relevance of their ranked documents from the labels or draw
it (Bernoulli), straight into the kernels' layout.
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from fuzzytruth._frozen import readonly
from fuzzytruth._order import name_order, ranks
from fuzzytruth._random import categorical_draws, draw_seed, member_pick, member_sums, unit_keys
from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import check_n_worlds
from fuzzytruth.truth.protocol import check_world_model
from fuzzytruth.uncertain.worlds import RankedDocs

if TYPE_CHECKING:
    from fuzzytruth.taxonomy import Taxonomy

__all__ = ["CategoricalWorlds", "CategoryShares", "LabelModel", "StackedLabelTables",
           "sample_labels"]

# streams of the keyed draws (shared numbering with the qrels worlds)
_LABELS, _TARGETS, _MEMBERS = 1, 2, 3


class CategoryShares(Protocol):
    """What the worlds read of a membership (:class:`~fuzzytruth.truth.membership.Membership`,
    named structurally so that this module and the membership do not import each other)."""

    @property
    def taxonomy(self) -> Taxonomy:
        """The taxonomy of the categories."""
        ...

    @property
    def items(self) -> Any:
        """The item ids, in row order."""
        ...

    @property
    def categories(self) -> Any:
        """The taxonomy's nodes, in column order."""
        ...

    @property
    def matrix(self) -> np.ndarray:
        """``(n_items, n_categories)`` p(category | item), closed over ancestors."""
        ...

    @property
    def direct(self) -> np.ndarray | None:
        """``(n_items, n_categories)`` the annotators' direct shares, or None."""
        ...


class LabelModel(Protocol):
    """A fitted truth model as the worlds see it (a
    :class:`~fuzzytruth.truth.models.base.FittedTruth`): its name, its sampler of one label per
    item per world (node indices, items in the membership's order), and whether those labels
    are independent draws from its posterior."""

    name: str

    @property
    def independent_items(self) -> bool:
        """True when each world's labels are independent draws from the posterior."""
        ...

    def sample_labels(self, worlds: np.ndarray, *, seed: int) -> np.ndarray:
        """``(len(worlds), n_items)`` node indices of the worlds' labels."""
        ...


def sample_labels(
    membership: CategoryShares,
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
    n_worlds = check_n_worlds(n_worlds, minimum=1)
    _check_direct(membership)
    seed = draw_seed(rng)
    table = _LabelTable(membership.direct, unit_keys(np.asarray(membership.items)),
                        ranks(name_order(membership.categories)))
    labels = table.draw(seed, np.arange(n_worlds) if worlds is None else worlds)
    return np.ascontiguousarray(labels.T)


def _check_direct(membership: CategoryShares) -> None:
    if membership.direct is None:
        raise ValueError(
            "world_model='annotator' needs the annotators' direct shares, and this membership "
            "was built from already-closed probabilities; use world_model='bernoulli'"
        )


class _LabelTable:
    """Per item, its possible labels (in name order, :func:`fuzzytruth._order.name_order`)
    and their cumulative shares, padded to a rectangle."""

    def __init__(self, direct: np.ndarray, keys: np.ndarray, rank: np.ndarray) -> None:
        direct = readonly(np.asarray(direct, dtype=np.float64))  # one compiled signature
        n_items, n_nodes = direct.shape
        kernels = _compiled()
        # two passes over the shares, compiled: no (n_items, n_nodes) temporary
        count = np.empty(n_items, dtype=np.int64)
        kernels["label_counts"](direct, count)
        width = max(int(count.max(initial=1)), 1)
        self.labels = np.empty((n_items, width), dtype=np.int16 if n_nodes < 2**15 else np.int32)
        self.nodes = np.empty_like(self.labels)  # can draw; padded: n_nodes
        self.cum = np.empty((n_items, width))
        canonical = np.argsort(np.asarray(rank), kind="stable")  # name order, ties by column
        kernels["label_table"](direct, canonical, count, self.labels, self.nodes, self.cum)
        self.keys = keys

    def draw(self, seed: int, worlds: np.ndarray, *, padding: int | None = None) -> np.ndarray:
        """``(n_items, n_worlds)`` labels (one more row of ``padding`` when given): each
        item's label is the first of its labels whose cumulative share exceeds the item's keyed
        uniform (:func:`~fuzzytruth._random.categorical_draws`)."""
        labels = categorical_draws(seed, _LABELS, self.keys, self.cum, worlds, values=self.labels)
        if padding is None:
            return labels
        return np.concatenate([labels, np.full((1, len(worlds)), padding, labels.dtype)])


class StackedLabelTables:
    """Several label tables of the same items on one world axis: world ``j`` is world
    ``j % n_worlds`` of table ``j // n_worlds``, drawn with that table's own seed, as the
    worlds of one truth draw theirs — the worlds of several truths over the same items (the
    population bootstrap's replicates, :mod:`fuzzytruth.stats._population_worlds`) computed
    as the worlds of one (:meth:`CategoricalWorlds.drawing_from`).

    Parameters
    ----------
    keys : numpy.ndarray
        ``(n_items,)`` the items' keys (:func:`~fuzzytruth._random.unit_keys`).
    labels : numpy.ndarray
        ``(n_items, width)`` each item's possible labels (node indices) in name order
        (:func:`fuzzytruth._order.name_order`), padded with any node.
    shares : numpy.ndarray
        ``(n_tables, n_items, width)`` each table's shares of those labels (0 for the
        padding), every item's adding up to 1. Their running sums, left to right, are a
        table's cumulative shares, as :class:`_LabelTable` adds them (a label of share 0 adds
        0.0: the same sums), +inf from the last label of positive share on.
    seeds : sequence of int
        ``(n_tables,)`` the seed of each table's keyed draws.
    n_worlds : int
        Worlds per table.
    padding : int
        The node that stands for no label in :attr:`nodes` (``n_nodes``).

    Examples
    --------
    >>> tables = StackedLabelTables(np.arange(2, dtype=np.uint64), np.array([[0, 1], [1, 0]]),
    ...                             np.array([[[1.0, 0.0], [0.5, 0.5]],
    ...                                       [[0.0, 1.0], [0.5, 0.5]]]), [3, 4], 2, padding=2)
    >>> tables.draw(0, np.arange(4))[0].tolist()   # item 0: label 0 in table 0, 1 in table 1
    [0, 0, 1, 1]
    """

    def __init__(self, keys: np.ndarray, labels: np.ndarray, shares: np.ndarray,
                 seeds: Sequence[int], n_worlds: int, padding: int) -> None:
        positive = shares > 0
        width = shares.shape[2]
        last = width - 1 - np.argmax(positive[..., ::-1], axis=2)  # the last positive label
        cum = np.cumsum(shares, axis=2)
        cum[np.arange(width) >= last[..., None]] = np.inf
        self.keys, self.labels, self.cum = keys, labels, cum
        self.seeds, self.n_worlds = [int(s) for s in seeds], int(n_worlds)
        # an item's labels up to the last one some table can draw, then padding: what the
        # reachable items' pass reads (it stops at the first padding)
        self.nodes = np.where(np.arange(width) <= last.max(axis=0)[:, None], labels,
                              padding).astype(labels.dtype)

    def draw(self, seed: int, worlds: np.ndarray, *, padding: int | None = None) -> np.ndarray:
        """``(n_items, n_worlds)`` labels (one more row of ``padding`` when given) of the
        stacked ``worlds``, each table's from its own seed (``seed`` is not read)."""
        worlds = np.asarray(worlds)
        table = worlds // self.n_worlds
        out = np.empty((len(self.keys) + (padding is not None), len(worlds)), self.labels.dtype)
        bounds = np.flatnonzero(np.diff(table, prepend=-1, append=-1))  # runs of one table
        for a, b in itertools.pairwise(bounds):
            out[: len(self.keys), a:b] = categorical_draws(
                self.seeds[table[a]], _LABELS, self.keys, self.cum[table[a]],
                worlds[a:b] % self.n_worlds, values=self.labels)
        if padding is not None:
            out[-1] = padding
        return out


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
    model : LabelModel, optional
        The truth model the membership comes from: under ``"annotator"`` its own sampler
        draws the labels (default: the annotators' direct shares).
    """

    binary = True
    cell_bytes = 40  # per (query, world): the target, the relevant count, the query's own label

    def __init__(
        self,
        membership: CategoryShares,
        fixed: np.ndarray,
        query_item: np.ndarray,
        components: tuple[np.ndarray, np.ndarray, np.ndarray],
        *,
        own_label: bool,
        exclude_query: bool,
        world_model: str,
        query_ids: np.ndarray | None = None,
        model: LabelModel | None = None,
    ) -> None:
        if model is not None and world_model == "bernoulli" and not model.independent_items:
            raise ValueError(
                f"world_model='bernoulli' draws every (item, category) pair independently from "
                f"the posterior, which drops what {model.name}'s worlds carry (labels drawn "
                "under shared parameter draws); use world_model='annotator' (the model's own "
                "worlds), or fit the model with uncertainty='posterior'"
            )
        self.model = model
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
        # the ancestors of each label in their slots (Taxonomy.ancestor_slots), and one more
        # row, empty, for the padding "label" n_nodes: never relevant
        slot, table = membership.taxonomy.ancestor_slots()
        padded = np.vstack([table, np.full((1, table.shape[1]), -1, dtype=table.dtype)])
        self._anc = (readonly(slot), readonly(padded.ravel()), padded.shape[1])
        # the draws walk nodes in name order (fuzzytruth._order): the Bernoulli members' keys are
        # item key + rank, the matrix's columns in that order
        self._rank = ranks(name_order(membership.categories))
        self._mixture = self._mixture_table()
        self._query_targets = self._target_table()
        self._own = np.unique(components[0]) if self.own_label else None  # own-label queries
        self._stacked: StackedLabelTables | None = None

    @functools.cached_property
    def _matrix(self) -> np.ndarray:
        """``(n_items, n_nodes)`` float64 p(category | item), columns in name order: the
        Bernoulli model's table (a copy of the membership's matrix: the annotator model never
        builds it)."""
        canonical = np.empty(len(self._rank), dtype=np.int64)
        canonical[self._rank] = np.arange(len(self._rank))
        return np.ascontiguousarray(self.membership.matrix[:, canonical], dtype=np.float64)

    def _mixture_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(queries, cum, nodes)``: the queries whose target is drawn from their weights,
        with the cumulative weights and the nodes of their components; None when none is."""
        comp_query, comp_node, comp_weight = self.components
        if not len(comp_query) or self.own_label:
            return None
        order = np.lexsort((self._rank[comp_node], comp_query))
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
        return queries, cum, nodes

    def _target_table(self) -> np.ndarray:
        """``(n_q, width)`` every node a query's target can be in some world (its given
        target, or the nodes of its mixture, which hold the query item's own labels), padded
        with ``n_nodes``: the pass over the ranked documents skips those that can be in none."""
        comp_query, comp_node = self.components[0], self.components[1]
        per_query = np.bincount(comp_query, minlength=len(self.fixed))
        given = self.fixed >= 0
        width = max(1, int((per_query + given).max(initial=0)))
        table = np.full((len(self.fixed), width), len(self.membership.categories), np.int64)
        table[given, 0] = self.fixed[given]
        order = np.argsort(comp_query, kind="stable")
        start = np.concatenate([[0], np.cumsum(per_query)[:-1]])
        query = comp_query[order]
        table[query, given[query] + np.arange(len(order)) - start[query]] = comp_node[order]
        return table

    @property
    def draws_targets(self) -> bool:
        """Whether some query's target is drawn from its weights (keyed by this truth's seed)
        rather than given or read from its item's label."""
        return self._mixture is not None

    def drawing_from(self, tables: StackedLabelTables) -> CategoricalWorlds:
        """These worlds with their labels drawn from ``tables`` (annotator model, the
        annotators' shares, no target drawn): the worlds of every table, stacked on the world
        axis, each as this truth's worlds under that table's shares and seed.

        The queries, their targets and what can be relevant are this truth's; each table's
        labels must be some of this truth's labels of the item (a table is this truth's
        annotators reweighted), so that an item this truth cannot make relevant to a query
        is not relevant under any table.
        """
        if self.world_model != "annotator" or self.model is not None or self.draws_targets:
            raise ValueError("stacked label tables replace the annotators' shares of the "
                             "annotator model, with no target drawn")
        out = copy.copy(self)
        out._stacked = tables
        return out

    def plan(self, systems: Sequence[RankedDocs]) -> None:
        """Every known item can be relevant to some target: the candidates are all of them."""

    def n_judged(self) -> np.ndarray:
        """``(n_q,)`` judged documents per query: every annotated item but the excluded query."""
        return len(self.membership.items) - self.exclude.astype(np.int64)

    def draw(self, n_worlds: int, seed: int) -> None:
        """The seed, and the per-item tables every chunk draws from."""
        self.seed = seed
        self.n_worlds = n_worlds
        n_items, n_nodes = len(self.membership.items), len(self.membership.categories)
        if self.world_model == "annotator":
            if self._stacked is not None:
                self._labels = self._stacked
            elif self.model is None:
                _check_direct(self.membership)
                self._labels = _LabelTable(self.membership.direct, self._item_keys,
                                           self._rank)
            # per world: the labels (a model's draws and their transposed copy), their counts
            # per node and the node sizes
            itemsize = 4 if self.model is not None else self._labels.labels.itemsize
            copies = 2 if self.model is not None else 1
            self.world_bytes = copies * (n_items + 1) * itemsize + 24 * n_nodes
        else:
            # the size of every node that can be a target, found from its row below
            self._possible = np.union1d(self.fixed[self.fixed >= 0], self.components[1])
            self._possible = self._possible.astype(np.int64)
            self._row = np.zeros(n_nodes, dtype=np.int64)
            self._row[self._possible] = np.arange(len(self._possible))
            self.world_bytes = 8 * len(self._possible)
        self._max_relevant: int | None = None

    def max_relevant(self) -> int:
        """The largest number of relevant items of a query in any drawn world (annotator: over
        the drawn worlds, one more pass over their labels; Bernoulli: the items that can be
        members of a possible target)."""
        if self._max_relevant is None:
            if self.world_model == "annotator":
                n_q = len(self.fixed)
                every = slice(0, n_q)
                step = max(1, int(MEMORY_BUDGET // (self.world_bytes + n_q * self.cell_bytes)))
                self._max_relevant = max(
                    int(self.block(self.chunk(start, min(start + step, self.n_worlds)), every)[
                        "counts"
                    ].max(initial=0))
                    for start in range(0, self.n_worlds, step)
                )
            else:
                members = (self._matrix[:, self._rank[self._possible]] > 0).sum(axis=0)
                self._max_relevant = int(members.max(initial=0))
        return self._max_relevant

    def chunk(self, start: int, stop: int) -> dict:
        """What worlds ``start:stop`` share: (annotator) every item's label, and the size of
        every node that can be a target."""
        worlds = np.arange(start, stop)
        n_w = len(worlds)
        n_nodes = len(self.membership.categories)
        if self.world_model == "annotator":
            labels = self._chunk_labels(worlds)  # (n_items + 1, n_w)
            # the items at or below each node, counted in one compiled pass: no
            # (n_items, n_w) int64 temporary (4x the labels), no call per world
            sizes = np.zeros((n_nodes, n_w), dtype=np.int64)
            _compiled()["node_sizes"](*self._anc[1:],
                                      labels.view(np.dtype(f"u{labels.itemsize}")), sizes)
            return {"worlds": worlds, "labels": labels, "sizes": sizes}  # (n_nodes, n_w)
        sizes = member_sums(
            self.seed, _MEMBERS, self._item_keys, self._matrix, self._rank[self._possible],
            worlds,
        )
        return {"worlds": worlds, "sizes": sizes}  # (n_possible, n_w)

    def _chunk_labels(self, worlds: np.ndarray) -> np.ndarray:
        """``(n_items + 1, n_w)`` every item's label in ``worlds``, then the padding node: from
        the annotators' shares, or from the truth model's own sampler."""
        n_nodes = len(self.membership.categories)
        if self.model is None:
            return self._labels.draw(self.seed, worlds, padding=n_nodes)
        drawn = self.model.sample_labels(worlds, seed=self.seed)  # (n_w, n_items)
        labels = np.empty((drawn.shape[1] + 1, len(worlds)), dtype=drawn.dtype)
        labels[:-1] = drawn.T
        labels[-1] = n_nodes
        return labels

    def _targets(self, chunk: dict, queries: slice) -> np.ndarray:
        """``(n_q, n_w)`` each query's target category in each world: given, the query item's
        own label (annotator model, direct weights), or drawn from its weights (keyed by
        query and world)."""
        worlds = chunk["worlds"]
        targets = np.repeat(self.fixed[queries].astype(np.int64)[:, None], len(worlds), axis=1)
        if self.own_label and len(self.components[0]):
            mixed = self._own[slice(*np.searchsorted(self._own, [queries.start, queries.stop]))]
            targets[mixed - queries.start] = chunk["labels"][self.query_item[mixed]]
        elif self._mixture is not None:
            mixed, cum, nodes = self._mixture
            rows = slice(*np.searchsorted(mixed, [queries.start, queries.stop]))
            targets[mixed[rows] - queries.start] = categorical_draws(
                self.seed, _TARGETS, self._query_keys[mixed[rows]], cum[rows], worlds,
                values=nodes[rows],
            )
        return targets

    def block(self, chunk: dict, queries: slice) -> dict:
        """The queries ``queries`` in the chunk's worlds: their targets and relevant counts
        (the target's size, less the query item when it is left out and a member)."""
        worlds = chunk["worlds"]
        targets = self._targets(chunk, queries)
        exclude = self.exclude[queries]
        items = np.where(exclude, self.query_item[queries], -1)  # -1: nothing left out
        if self.world_model == "annotator":
            counts = chunk["sizes"][targets, np.arange(len(worlds))[None, :]]
            # whether the left-out query item is in its target (the padding label: in none),
            # read in the ancestor slots as the relevance pass reads them
            padding = len(chunk["labels"]) - 1
            label = chunk["labels"][np.where(items >= 0, items, padding)].astype(np.int64)
            slot, table, width = self._anc
            counts -= table[label * width + slot[targets]] == targets
            return {"worlds": worlds, "labels": chunk["labels"], "targets": targets,
                    "counts": counts, "queries": queries}
        counts = chunk["sizes"][self._row[targets], np.arange(len(worlds))[None, :]]
        counts -= member_pick(
            self.seed, _MEMBERS, self._item_keys, self._matrix, items[:, None],
            self._rank[targets], worlds,
        )[0]
        return {"worlds": worlds, "targets": targets, "counts": counts, "queries": queries}

    def counts(self, state: dict, rel: float | None = None) -> np.ndarray:
        """(n_q, n_w) number of relevant items of each query in each world (membership is 0/1:
        the 0/1 route's threshold ``rel`` changes nothing)."""
        return state["counts"]

    def _relevance(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """``(C, n_q, n_w)``: whether item ``docs[q, c]`` (-1: none) is in the target of query
        q in world w of the block."""
        if "labels" in state:
            out = np.empty((docs.shape[1], docs.shape[0], len(state["worlds"])), dtype=bool)
            labels = state["labels"]  # node indices >= 0: read as unsigned, indexed flat
            _compiled()["relevance"](
                *self._anc, labels.view(np.dtype(f"u{labels.itemsize}")), docs,
                state["targets"], out,
            )
            return out
        return member_pick(
            self.seed, _MEMBERS, self._item_keys, self._matrix, docs,
            self._rank[state["targets"]], state["worlds"],
        )

    def _reachable(self, docs: np.ndarray, possible: np.ndarray) -> np.ndarray:
        """``docs`` with -1 where the item is in none of its query's ``possible`` targets in
        any world: under the annotator model none of the item's labels lies under one of them
        (a truth model's labels are not known in advance: every item is kept), under the
        Bernoulli model its probability of each is 0."""
        if self.world_model == "annotator" and self.model is not None:
            return docs
        out = np.empty_like(docs)
        if self.world_model == "annotator":
            # an item's labels (its row of the label table, padded with the padding node) in
            # the ancestor slots, as the relevance pass reads them: no (n_items, n_nodes) table
            _compiled()["reachable_labels"](*self._anc, self._labels.nodes, docs, possible, out)
            return out
        # the matrix's columns are in name order; the padding node has none
        columns = np.append(self._rank, len(self._rank))[possible]
        _compiled()["reachable"](self._matrix, docs, columns, out)
        return out

    def gains(self, state: dict, docs: np.ndarray) -> np.ndarray:
        """(n_q * n_w, depth) boolean relevance of the ranked documents (those that no target
        of their query can hold, :meth:`_reachable`, are not drawn: False in every world)."""
        docs = self._reachable(docs, self._query_targets[state["queries"]])
        out = self._relevance(state, docs).transpose(1, 2, 0)
        return out.reshape(out.shape[0] * out.shape[1], docs.shape[1])

    def candidates(self, system: RankedDocs) -> tuple[np.ndarray, np.ndarray | None]:
        """The ranks that can be relevant: every rank (``(n_q, depth)`` docs; ranks None:
        column j is rank j), the items that no target of their query can hold
        (:meth:`_reachable`) as -1, so that they are not drawn."""
        return self._reachable(system.docs, self._query_targets), None

    def relevant(self, state: dict, docs: np.ndarray, rel: float | None = None) -> np.ndarray:
        """(C, n_q * n_w) boolean relevance of the ``docs`` columns, rows query-major (``rel``
        as in :meth:`counts`)."""
        out = self._relevance(state, docs)
        return out.reshape(out.shape[0], out.shape[1] * out.shape[2])

    def ideal(self, state: dict, width: int) -> np.ndarray:
        """(n_q * n_w, width) int8 ideal: one 1 per relevant item."""
        counts = state["counts"]
        ideal = np.arange(width)[None, None, :] < counts[:, :, None]
        return ideal.view(np.int8).reshape(counts.size, width)


def _label_counts_py(direct, out):  # pragma: no cover - compiled
    """``out[i]``: the number of positive cells in row ``i`` of ``direct``."""
    for i in range(direct.shape[0]):
        row = direct[i]
        count = 0
        for j in range(len(row)):
            count += row[j] > 0
        out[i] = count


def _label_table_py(direct, canonical, count, labels, nodes, cum):  # pragma: no cover
    """Row ``i`` of the label table (``labels``, ``nodes``, ``cum``: ``(n_items, width)``):
    the ``count[i]`` nodes of positive share in row ``i`` of ``direct``, in the order
    ``canonical``, with their shares' running sums (``numpy.cumsum``'s: added left to right),
    +inf at the last; then, as padding, the first other nodes in that order (their ``nodes``
    ``n_nodes``, their ``cum`` +inf): what a stable sort of every node by (not positive, rank)
    put there, so that an item without a label draws the first node."""
    n_nodes = len(canonical)
    width = labels.shape[1]
    for i in range(direct.shape[0]):
        row = direct[i]
        found = 0  # labels so far
        other = count[i]  # where the next other node goes
        total = 0.0
        for j in canonical:
            if row[j] > 0:
                total += row[j]
                labels[i, found] = j
                nodes[i, found] = j
                cum[i, found] = total
                found += 1
            elif other < width:
                labels[i, other] = j
                nodes[i, other] = n_nodes
                cum[i, other] = np.inf
                other += 1
            if found == count[i] and other == width:
                break
        cum[i, count[i] - 1 if count[i] > 0 else width - 1] = np.inf  # never past the last


def _relevance_py(slot, table, width, labels, docs, targets, out):  # pragma: no cover - compiled
    """``out[c, q, w]``: whether ``targets[q, w]`` is the label ``labels[docs[q, c], w]`` or
    one of its ancestors, read in the ancestor slots (``table`` flat, ``width`` slots per
    label; :meth:`~fuzzytruth.taxonomy.Taxonomy.ancestor_slots`); False where ``docs`` is
    -1."""
    # unsigned indices: no wrap-around of negative ones to handle, the loop vectorises
    width = np.uint64(width)
    at = np.empty(targets.shape[1], dtype=np.uint64)  # the query's targets' slots
    for q in range(docs.shape[0]):
        target = targets[q]
        for w in range(len(target)):
            at[w] = slot[target[w]]
        for c in range(docs.shape[1]):
            item = docs[q, c]
            row = out[c, q]
            if item < 0:
                row[:] = False
                continue
            label = labels[item]
            for w in range(len(label)):
                row[w] = table[np.uint64(label[w]) * width + at[w]] == target[w]


def _node_sizes_py(table, width, labels, out):  # pragma: no cover - compiled
    """``out[a, w]`` (zeros on entry): the number of items whose label in world ``w``
    (``labels[i, w]``; the padding label ``n_nodes`` counts nowhere) is ``a`` or lies under
    it: the labels counted per world, then each count added to the label's ancestors, read
    in its ancestor slots (``table`` flat, ``width`` slots per label)."""
    n_nodes, n_w = out.shape
    counts = np.zeros((n_nodes + 1, n_w), dtype=np.int64)
    for i in range(labels.shape[0]):
        row = labels[i]
        for w in range(n_w):
            counts[row[w], w] += 1
    for label in range(n_nodes):
        count = counts[label]
        for k in range(width):
            node = table[label * width + k]
            if node >= 0:
                total = out[node]
                for w in range(n_w):
                    total[w] += count[w]


def _reachable_py(table, docs, columns, out):  # pragma: no cover - compiled
    """``out[q, c] = docs[q, c]`` when ``table[docs[q, c], columns[q, k]] > 0`` for some k,
    else -1 (columns past the table's last are padding)."""
    n_columns = table.shape[1]
    for q in range(docs.shape[0]):
        for c in range(docs.shape[1]):
            item = docs[q, c]
            out[q, c] = -1
            if item < 0:
                continue
            for column in columns[q]:
                if column < n_columns and table[item, column] > 0:
                    out[q, c] = item
                    break


def _reachable_labels_py(slot, table, width, nodes, docs, columns, out):  # pragma: no cover
    """``out[q, c] = docs[q, c]`` when one of the labels ``nodes[docs[q, c]]`` is one of the
    nodes ``columns[q]`` or lies under it, read in the ancestor slots (``table`` flat, ``width``
    slots per label), else -1 (columns past the last node are padding, and so are the labels
    ``n_nodes`` after an item's labels).

    A query's targets are checked against each label of each of its documents; or, when the
    taxonomy has fewer nodes than a query has documents' labels, against every node once per
    query, whose marks the documents' labels then read (the same answer, in fewer lookups)."""
    n_nodes = len(slot)
    at = np.empty(columns.shape[1], dtype=np.int64)  # the query's targets' slots
    target = np.empty(columns.shape[1], dtype=np.int64)
    by_node = n_nodes <= docs.shape[1] * nodes.shape[1]
    under = np.zeros(n_nodes + 1 if by_node else 0, dtype=np.bool_)  # padding: never
    for q in range(docs.shape[0]):
        n_targets = 0
        for column in columns[q]:
            if column < n_nodes:
                at[n_targets] = slot[column]
                target[n_targets] = column
                n_targets += 1
        if by_node:
            for label in range(n_nodes):
                row = label * width
                found = False
                for k in range(n_targets):
                    found |= table[row + at[k]] == target[k]
                under[label] = found
        for c in range(docs.shape[1]):
            item = docs[q, c]
            out[q, c] = -1
            if item < 0:
                continue
            found = False
            for label in nodes[item]:
                if label == n_nodes or found:  # padding, after the labels
                    break
                if by_node:
                    found = under[label]
                    continue
                row = label * width
                for k in range(n_targets):
                    if table[row + at[k]] == target[k]:
                        found = True
                        break
            if found:
                out[q, c] = item


@functools.cache
def _compiled() -> dict[str, Callable[..., Any]]:
    """The label table's and the relevance passes, compiled by numba at their first use."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return {"relevance": jit(_relevance_py), "reachable": jit(_reachable_py),
            "reachable_labels": jit(_reachable_labels_py), "label_counts": jit(_label_counts_py),
            "label_table": jit(_label_table_py), "node_sizes": jit(_node_sizes_py)}
