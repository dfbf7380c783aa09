"""World labels as a base label per item and the few cells that differ from it.

A classifier evaluation draws one label per item per world (``(n_worlds, n_items)`` node
indices). Under a concentrated truth (a label model's posterior, annotators who mostly agree)
most items carry the same label in most worlds, and a per-item measure's value depends on the
item and its label only. So the sums that aggregates need — each world's total over the items,
each item's total over the worlds — are the totals at a *base* label per item, corrected at the
cells where the world's label differs: the kernel is evaluated once per distinct (item, label)
pair, not once per cell, and the worlds are read once for every classifier and measure.

:class:`LabelSpread` holds one block of worlds in that form; :func:`label_sums` and
:func:`binned_sums` give the sums of a per-item measure and of a binned statistic (ECE) from
it. The numbers are those of the kernel on every cell, added in another order.

Examples
--------
>>> labels = np.array([[0, 1, 2], [0, 2, 2], [1, 1, 2]])
>>> spread = LabelSpread(labels, base=np.array([0, 1, 2]))
>>> spread.grid.tolist()  # row 0: the base labels; below: each item's other labels
[[0, 1, 2], [1, 2, 2]]
>>> table = spread.grid * 10.0  # a kernel's values on the grid: 10 x the label
>>> world, item = label_sums(spread, table[0], spread.values(table))
>>> world.tolist(), item.tolist()
([30.0, 40.0, 40.0], [10.0, 40.0, 60.0])
>>> (labels * 10.0).sum(axis=1).tolist(), (labels * 10.0).sum(axis=0).tolist()
([30.0, 40.0, 40.0], [10.0, 40.0, 60.0])
"""

from __future__ import annotations

import numpy as np

__all__ = ["LabelSpread", "binned_sums", "label_sums", "spread_blocks"]

BYTES_PER_CELL = 2.0
"""Working memory per (world, item) cell of a block: the comparison with the base labels."""

BYTES_PER_DIFFERENCE = 64.0
"""Working memory per cell that differs from its base: its world, item and label, the pair
key, its inverse and the sort's temporaries."""


def spread_blocks(labels: np.ndarray, base: np.ndarray,
                  memory_budget: float) -> list[tuple[int, int]]:
    """``(start, stop)`` blocks of worlds whose :class:`LabelSpread` fits ``memory_budget``
    bytes: as many worlds as the cells and the differing cells among them allow (at least
    one per block); the differences are counted first, in blocks of an eighth of it.

    Examples
    --------
    >>> labels = np.zeros((4, 1000), dtype=np.int16)
    >>> labels[2] = 1
    >>> spread_blocks(labels, np.zeros(1000, dtype=np.int16), 60_000)
    [(0, 2), (2, 3), (3, 4)]
    """
    n_worlds, n_items = labels.shape
    step = max(1, int(memory_budget // (8 * BYTES_PER_CELL * max(n_items, 1))))  # counting
    cost = np.concatenate([
        BYTES_PER_CELL * n_items + BYTES_PER_DIFFERENCE * (
            labels[start : start + step] != base[None, :]).sum(axis=1)
        for start in range(0, n_worlds, step)
    ]) if n_worlds else np.zeros(0)
    blocks, start, used = [], 0, 0.0
    for w in range(n_worlds):
        if w > start and used + cost[w] > memory_budget:
            blocks.append((start, w))
            start, used = w, 0.0
        used += cost[w]
    if n_worlds:
        blocks.append((start, n_worlds))
    return blocks


class LabelSpread:
    """One block of world labels: the base label per item and the cells that differ.

    Parameters
    ----------
    labels : numpy.ndarray
        ``(n_worlds, n_items)`` node indices.
    base : numpy.ndarray
        ``(n_items,)`` each item's base label (its most probable one, ideally).

    Attributes
    ----------
    world, item : numpy.ndarray
        The differing cells, world-major.
    grid : numpy.ndarray
        ``(n_rows, n_items)`` labels to evaluate a kernel on: row 0 the base labels, row ``r``
        each item's ``r``-th distinct other label (its base label where it has fewer).
    """

    def __init__(self, labels: np.ndarray, base: np.ndarray) -> None:
        self.n_worlds, self.n_items = labels.shape
        self.base = np.asarray(base)
        self.world, self.item = np.nonzero(labels != self.base[None, :])
        width = int(max(labels.max(initial=0), self.base.max(initial=0))) + 1
        key = self.item.astype(np.int64) * width + labels[self.world, self.item]
        pairs, self._pair = np.unique(key, return_inverse=True)
        pair_item, pair_label = np.divmod(pairs, width)
        # pairs are sorted by item: a pair's row is 1 + its position among its item's pairs
        first = np.searchsorted(pair_item, pair_item, side="left")
        self._pair_row = 1 + np.arange(len(pairs)) - first
        self._pair_item = pair_item
        n_rows = 1 + int(self._pair_row.max(initial=0))
        self.grid = np.tile(self.base.astype(np.int64), (n_rows, 1))
        self.grid[self._pair_row, pair_item] = pair_label

    def values(self, table: np.ndarray) -> np.ndarray:
        """``(n_cells,)`` the differing cells' values, from a kernel's ``table`` on
        :attr:`grid`."""
        return table[self._pair_row, self._pair_item][self._pair]


def label_sums(spread: LabelSpread, base: np.ndarray,
               cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(per_world, per_item)`` sums of a per-item value over the items of each world and
    over the worlds of each item, from its value at the base labels (``(n_items,)``) and at
    the differing cells (``(n_cells,)``)."""
    delta = cells - base[spread.item]
    per_world = base.sum() + np.bincount(spread.world, weights=delta,
                                         minlength=spread.n_worlds)
    per_item = spread.n_worlds * base + np.bincount(spread.item, weights=delta,
                                                    minlength=spread.n_items)
    return per_world, per_item


def binned_sums(spread: LabelSpread, base: np.ndarray, cells: np.ndarray, offset: np.ndarray,
                bins: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The sums of ECE's linearised values (:func:`fuzzytruth.metrics.classification.
    calibration_error`): item i of bin b in world w scores sign(S_wb) (c_wi − o_i), with c the
    correctness (its base values and cells as in :func:`label_sums`), o the confidence and
    S_wb = Σ_{i in b} (c_wi − o_i) computed as the bin's correct count minus its total
    confidence (exact counts, as the kernel does).

    Returns ``(per_world, per_item)``: Σ_b |S_wb| per world, and each item's sum over the
    worlds.
    """
    n_worlds = spread.n_worlds
    delta = cells - base[spread.item]
    cell_bin = bins[spread.item]
    counts = np.bincount(bins, weights=base, minlength=n_bins)[None, :] + np.bincount(
        spread.world * n_bins + cell_bin, weights=delta, minlength=n_worlds * n_bins
    ).reshape(n_worlds, n_bins)
    sums = counts - np.bincount(bins, weights=offset, minlength=n_bins)[None, :]
    sign = np.sign(sums)
    per_world = np.abs(sums).sum(axis=1)
    per_item = (base - offset) * sign.sum(axis=0)[bins] + np.bincount(
        spread.item, weights=sign[spread.world, cell_bin] * delta, minlength=spread.n_items)
    return per_world, per_item
