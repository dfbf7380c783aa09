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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from fuzzytruth._random import draw_seed, uniforms, unit_keys
from fuzzytruth._validation import check_n_worlds
from fuzzytruth.uncertain.worlds import RankedDocs, check_world_model

if TYPE_CHECKING:
    from fuzzytruth.truth.membership import Membership

__all__ = ["CategoricalWorlds", "LabelModel", "sample_labels"]

# streams of the keyed draws (shared numbering with the qrels worlds)
_LABELS, _TARGETS, _MEMBERS = 1, 2, 3


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
    n_worlds = check_n_worlds(n_worlds, minimum=1)
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
            if self.model is not None:
                labels = self.model.sample_labels(worlds, seed=seed)
            elif self.membership.direct is None:
                raise ValueError(
                    "world_model='annotator' needs the annotators' direct shares, and this "
                    "membership was built from already-closed probabilities; use "
                    "world_model='bernoulli'"
                )
            else:
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
