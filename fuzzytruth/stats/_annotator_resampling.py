"""Annotators resampled within items by keyed draws: the first stage of the population bootstrap.

A replicate of the annotator level is a *multiplicity* for every (item, annotator) pair — how
many times the pair's labels count in that replicate — drawn from the counter-based generator
of :mod:`fuzzytruth._random`, keyed by (seed, replicate, item, slot), so a replicate is the same
whatever block of replicates it is drawn in, here or on a cluster, and whatever the order of
the labels' rows:

``"within-items"`` (nested designs)
    item ``i`` with ``n_i`` annotators draws ``n_i`` of them with replacement: slot ``j`` is
    annotator ``floor(u * n_i)`` (in the order of the annotators' id keys), ``u`` keyed by the
    item's id, ``j`` and the replicate (:func:`fuzzytruth._random.group_counts`);
``"shared"`` (crossed designs)
    the pool of annotators is drawn with replacement once per replicate (draw ``j`` is
    annotator ``floor(u * n_pool)`` in the order of their id keys, ``u`` keyed by ``j`` and the
    replicate: :func:`fuzzytruth._random.index_counts`) and every pair counts as often as
    its annotator was drawn; an item none of whose annotators was drawn keeps its labels
    (multiplicity 1).

Partial rankings (:class:`~fuzzytruth.io.rankings.Rankings`) are resampled the same way, a
reader being an annotator: a drawn reader brings its whole ranking, and the shares are those
of the readers' top groups (:meth:`~fuzzytruth.io.rankings.Rankings.annotations`). A selectors
file numbers the readers of each case from 0, so reader 0 of two cases need not be one person:
``scheme`` is then ``"within-items"``.

From the multiplicities, :meth:`AnnotatorResampler.annotations` writes the resampled labels
(or rankings) out (what any truth model can be refitted on), and
:meth:`AnnotatorResampler.shares` computes the annotators' shares of a whole block of
replicates at once, without writing them out:
p(ω|i) = Σ_s m_s c_s(ω) / Σ_s m_s t_s over the pairs ``s`` of item ``i``, with ``c_s(ω)`` the
pair's weight on labels at or below ω and ``t_s`` its total weight — the
:meth:`~fuzzytruth.Membership.from_annotations` of the written-out labels, as a matrix product.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Taxonomy
>>> tax = Taxonomy.from_nested({"all": {"rel": None, "non": None}})
>>> ann = Annotations.from_frame(pd.DataFrame({
...     "item_id": ["d1"] * 3 + ["d2"] * 2, "annotator_id": ["a", "b", "c", "d", "e"],
...     "label": ["rel", "non", "non", "rel", "rel"]}), taxonomy=tax)
>>> resampler = AnnotatorResampler(ann)
>>> resampler.scheme
'within-items'
>>> mult = resampler.multiplicities(7, "within-items", np.arange(4))
>>> mult.shape, mult[:, :3].sum(axis=1).tolist()   # d1 keeps 3 annotators in every replicate
((4, 5), [3.0, 3.0, 3.0, 3.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fuzzytruth._order import code_order, ranges
from fuzzytruth._random import group_counts, index_counts, unit_keys

if TYPE_CHECKING:
    from scipy import sparse

    from fuzzytruth.annotations import Annotations
    from fuzzytruth.io.rankings import Rankings

__all__ = ["ANNOTATOR_STREAM", "AnnotatorResampler", "columns_within"]

#: Keyed stream (:mod:`fuzzytruth._random`) of the annotator draws.
ANNOTATOR_STREAM = 0x414E4E4F  # "ANNO"


class AnnotatorResampler:
    """The (item, annotator) pairs of some annotations, and their keyed resamples.

    Pairs are sorted by item (in :attr:`Annotations.items` order), then by the stable key of the
    annotator's id (:func:`fuzzytruth._random.unit_keys`), so that the draws do not depend on
    the order of the table's rows; the rows of one pair (several under
    ``duplicates="split"``) share its multiplicity.
    """

    def __init__(self, annotations: Annotations | Rankings) -> None:
        from fuzzytruth.annotations import Annotations

        self.rankings_in = None
        if not isinstance(annotations, Annotations):  # Rankings: the readers' top groups
            self.rankings_in, annotations = annotations, annotations.annotations()
        self.annotations_in = annotations
        item, annot, label, weight = annotations.codes()
        n_annotators = annotations.n_annotators
        # annotators in the order of their ids' stable keys, not of the table's rows
        by_key = np.argsort(unit_keys(annotations.annotators.to_numpy()), kind="stable")
        self._annotator_rank = np.empty(n_annotators, dtype=np.int64)
        self._annotator_rank[by_key] = np.arange(n_annotators)
        key = item.astype(np.int64) * n_annotators + self._annotator_rank[annot]
        order = np.argsort(key, kind="stable")
        uniq, first_row, rows_per_pair = np.unique(
            key[order], return_index=True, return_counts=True
        )
        n_pairs = len(uniq)
        self._order = order
        self._pair_first = first_row
        self._pair_rows = rows_per_pair
        self.pair_item = (uniq // n_annotators).astype(np.int64)
        self.pair_annot = by_key[uniq % n_annotators].astype(np.int64)
        self.per_item = np.bincount(self.pair_item, minlength=annotations.n_items)
        self.item_start = np.concatenate([[0], np.cumsum(self.per_item)[:-1]])
        self.row_pair = np.empty(len(order), dtype=np.int64)
        self.row_pair[order] = np.repeat(np.arange(n_pairs), rows_per_pair)
        self.pair_total = np.bincount(self.row_pair, weights=weight, minlength=n_pairs)
        self._item = item
        self._label = label
        self._weight = weight
        self._items = annotations.items.to_numpy()
        self._item_keys = unit_keys(self._items)
        self._annotator_ids = annotations.annotators.to_numpy()
        self._nodes = np.asarray(annotations.taxonomy.nodes, dtype=object)
        if self.rankings_in is not None:
            self._ranks = _RankRows.of(self.rankings_in, annotations, uniq,
                                       self._annotator_rank)

    @property
    def n_pairs(self) -> int:
        """Number of (item, annotator) pairs."""
        return len(self.pair_item)

    @property
    def n_items(self) -> int:
        return len(self.per_item)

    @property
    def scheme(self) -> str:
        """``"shared"`` when some annotator labelled more than one item, else within items
        (always for rankings: their reader ids need not name one reader across items)."""
        if self.rankings_in is not None:
            return "within-items"
        return "shared" if np.any(np.bincount(self.pair_annot) > 1) else "within-items"

    def multiplicities(self, seed: int, scheme: str, replicates: np.ndarray) -> np.ndarray:
        """``(n_replicates, n_pairs)`` float: how often each pair counts in each replicate
        (module docstring); replicate ``r`` depends on ``seed`` and ``r`` only."""
        replicates = np.asarray(replicates)
        if scheme == "within-items":
            return group_counts(seed, ANNOTATOR_STREAM, self._item_keys, self.per_item,
                                replicates)
        n_pool = len(self._annotator_ids)
        drawn = index_counts(seed, ANNOTATOR_STREAM, n_pool, replicates)
        times = drawn[:, self._annotator_rank[self.pair_annot]]
        kept = np.add.reduceat(times, self.item_start, axis=1)
        return np.where(kept[:, self.pair_item] > 0, times, 1.0)  # nobody drawn: keep as is

    def annotations(self, multiplicity: np.ndarray) -> Annotations | Rankings:
        """The resampled labels of one replicate: each pair's rows repeated ``multiplicity``
        times, copy ``c`` of annotator ``a`` named ``"a#c"`` (the same name on every item, so
        that a crossed design stays crossed for a truth model refitted on them). For rankings,
        the resampled rankings: each drawn reader's whole ranking, named likewise."""
        from fuzzytruth.annotations import Annotations

        times = np.asarray(multiplicity).astype(np.int64)
        pick = np.repeat(np.arange(self.n_pairs), times)
        copy = np.arange(len(pick)) - np.repeat(np.cumsum(times) - times, times)
        if self.rankings_in is not None:
            return self._ranks.rankings(self.rankings_in, pick, copy)
        n_rows = self._pair_rows[pick]
        rows = self._order[ranges(self._pair_first[pick], n_rows)]
        names = [f"{a}#{c}" for a, c in zip(self._annotator_ids[self.pair_annot[pick]], copy,
                                            strict=True)]
        frame = pd.DataFrame(
            {
                "item_id": self._items[self._item[rows]],
                "annotator_id": np.repeat(np.array(names, dtype=object), n_rows),
                "label": self._nodes[self._label[rows]],
                "weight": self._weight[rows],
            }
        )
        return Annotations(frame, self.annotations_in.taxonomy)

    # ------------------------------------------------------------------ shares, batched
    def item_matrix(self, values: np.ndarray | None = None) -> sparse.csr_matrix:
        """``(n_pairs, n_items)`` sparse: pair ``s`` has ``values[s]`` (default its total
        weight) in its item's column; ``multiplicities @ item_matrix()`` are the items'
        total weights per replicate."""
        from scipy import sparse

        values = self.pair_total if values is None else values
        return sparse.csr_matrix(
            (values, (np.arange(self.n_pairs), self.pair_item)),
            shape=(self.n_pairs, self.n_items),
        )

    def voted_cells(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (item, node) cells some label of positive weight is at or below, sorted by
        item then node: ``(items, positions in nodes)``. Every other cell has share 0 in
        every replicate (a replicate only reweights the item's labels).

        Examples
        --------
        >>> from fuzzytruth import Annotations, Taxonomy
        >>> tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})
        >>> ann = Annotations.from_frame(pd.DataFrame({"item_id": ["x", "x", "y"],
        ...     "annotator_id": ["p", "q", "p"], "label": ["a1", "b", "a2"]}), taxonomy=tax)
        >>> nodes = np.array([tax.index(n) for n in ("a", "a2", "b")])
        >>> [c.tolist() for c in AnnotatorResampler(ann).voted_cells(nodes)]
        [[0, 0, 1, 1], [0, 2, 0, 1]]
        """
        from scipy import sparse

        nodes = np.asarray(nodes, dtype=np.int64)
        positive = self._weight > 0
        # the labels of positive weight per item, closed over ancestors: the nodes they reach
        voted = sparse.csr_array(
            (np.ones(int(positive.sum())), (self._item[positive], self._label[positive])),
            shape=(self.n_items, len(self._nodes)),
        )
        reached = self.annotations_in.taxonomy.close_over_ancestors(voted)
        closed = reached[:, nodes].tocoo()  # column j: nodes[j]
        cells = np.unique(closed.row.astype(np.int64) * len(nodes) + closed.col)
        return np.divmod(cells, len(nodes))

    def direct_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """The (item, node) cells some label of positive weight is at (each item's direct
        labels: every other direct share is 0 in every replicate), sorted by item then by
        the node's index in the taxonomy: ``(items, nodes)``.

        Examples
        --------
        >>> from fuzzytruth import Annotations, Taxonomy
        >>> tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})
        >>> ann = Annotations.from_frame(pd.DataFrame({"item_id": ["x", "x", "y"],
        ...     "annotator_id": ["p", "q", "p"], "label": ["a1", "b", "a2"]}), taxonomy=tax)
        >>> items, nodes = AnnotatorResampler(ann).direct_cells()
        >>> items.tolist(), [tax.nodes[n] for n in nodes]
        ([0, 0, 1], ['b', 'a1', 'a2'])
        """
        n_nodes = len(self._nodes)
        positive = self._weight > 0  # a label of weight 0 has no share
        cells = np.unique(self._item[positive].astype(np.int64) * n_nodes
                          + self._label[positive])
        return np.divmod(cells, n_nodes)

    def vote_matrix(self, items: np.ndarray, nodes: np.ndarray, *, closed: bool
                     ) -> sparse.csr_matrix:
        """``(n_pairs, n_cells)`` sparse, cell ``c`` = (``items[c]``, ``nodes[c]``): pair ``s``
        of item ``items[c]`` has its weight on labels at or below ``nodes[c]`` (``closed``) or
        on ``nodes[c]`` itself; ``multiplicities @ vote_matrix(...)`` are the cells' votes
        per replicate."""
        from scipy import sparse

        items = np.asarray(items, dtype=np.int64)
        nodes = np.asarray(nodes, dtype=np.int64)
        n_rows = np.bincount(self._item, minlength=self.n_items)
        first = np.concatenate([[0], np.cumsum(n_rows)[:-1]])
        by_item = code_order(self._item, self.n_items)  # rows grouped by item
        count = n_rows[items]
        cell = np.repeat(np.arange(len(items)), count)
        rows = by_item[ranges(first[items], count)]
        label = self._label[rows]
        if closed:
            hit = self.annotations_in.taxonomy.is_under(label, nodes[cell])
        else:
            hit = label == nodes[cell]
        votes = sparse.csr_matrix((self._weight[rows][hit], (self.row_pair[rows][hit], cell[hit])),
                                  shape=(self.n_pairs, len(items)))
        votes.eliminate_zeros()  # labels of weight 0
        return votes

    def shares(self, multiplicity: np.ndarray, votes: sparse.csr_matrix,
               totals: np.ndarray, items: np.ndarray) -> np.ndarray:
        """``(n_replicates, n_cells)`` shares: the cells' votes (``vote_matrix``) over their
        items' total weights ``totals`` (``(n_replicates, n_items)``, from ``item_matrix``);
        an item of total weight 0 in a replicate is an error."""
        if np.any(totals <= 0):  # every item's, those of no cell too (as Membership's)
            bad = self._items[(totals <= 0).any(axis=0)].tolist()
            raise ValueError(
                f"item(s) {bad[:5]} have total annotator weight 0 in a replicate: only "
                "annotators of weight 0 were drawn for them"
            )
        return np.asarray(multiplicity @ votes) / totals[:, items]


def columns_within(cell_item: np.ndarray, n_items: int) -> tuple[np.ndarray, int]:
    """For cells sorted by item (:meth:`AnnotatorResampler.direct_cells`, in any order within
    an item), each cell's column among its item's cells, and the most cells of one item (at
    least 1): where an item's cells sit in an items × width table.

    >>> column, width = columns_within(np.array([0, 0, 2, 2, 2]), 3)
    >>> column.tolist(), width
    ([0, 1, 0, 1, 2], 3)
    """
    count = np.bincount(cell_item, minlength=n_items)
    column = np.arange(len(cell_item)) - (np.cumsum(count) - count)[cell_item]
    return column, max(int(count.max(initial=1)), 1)


class _RankRows:
    """The rows of partial rankings grouped by (item, reader) pair, in the resampler's pair
    order: what a drawn reader brings."""

    def __init__(self, order: np.ndarray, first: np.ndarray, count: np.ndarray) -> None:
        self.order, self.first, self.count = order, first, count

    @classmethod
    def of(cls, rankings: Rankings, annotations: Annotations, pair_keys: np.ndarray,
           annotator_rank: np.ndarray) -> _RankRows:
        frame = rankings.frame
        item = annotations.items.get_indexer(frame["item_id"])
        reader = annotations.annotators.get_indexer(frame["reader_id"])
        pair = np.searchsorted(pair_keys, item.astype(np.int64) * len(annotator_rank)
                               + annotator_rank[reader])
        order = np.lexsort((frame["rank_group"].to_numpy(), pair))
        count = np.bincount(pair, minlength=len(pair_keys))
        return cls(order, np.concatenate([[0], np.cumsum(count)[:-1]]), count)

    def rankings(self, rankings: Rankings, pick: np.ndarray, copy: np.ndarray) -> Rankings:
        """Pairs ``pick`` (copy ``copy`` of each), every row of each, readers ``"r#c"``."""
        from fuzzytruth.io.rankings import Rankings

        n_rows = self.count[pick]
        rows = self.order[ranges(self.first[pick], n_rows)]
        frame = rankings.frame.iloc[rows]
        names = np.array([f"{r}#{c}" for r, c in zip(frame["reader_id"].to_numpy(),
                                                     np.repeat(copy, n_rows), strict=True)],
                         dtype=object)
        return Rankings.from_frame(frame.assign(reader_id=names), taxonomy=rankings.taxonomy,
                                   classes=rankings.classes,
                                   anonymous_readers=rankings.anonymous_readers)
