"""Every depth of :func:`~fuzzytruth.collection.agreement_by_level` on a tree from one per-item
table, for the nominal and path metrics.

Collapsing the labels to depth d changes three kinds of per-item sums (DESIGN.md's
agreement; :class:`~fuzzytruth.collection.agreement._ItemStatistics` for their use):

- the count n_ic of a collapsed label c is the sum of the counts of the labels below it, so a
  depth's label columns are sums of the labels' own columns (a 0/1 map per depth);
- Σ_c n_ic (n_ic − 1) is Σ_j n_ij (n_ij − 1) plus 2 n_ij n_ik for each pair of labels j ≠ k
  of the item that meet at depth d, that is, whose lowest common ancestor is at depth L ≥ d:
  a step down at d = L + 1;
- Σ_{c≠c'} n_ic n_ic' path(c, c'), for a pair j, k at depths D_j, D_k, is 2 n_ij n_ik
  path_d(j, k) with path_d = 0 while d ≤ L and, past it, min(D_j, d) + min(D_k, d) − 2 L:
  its increase from d − 1 to d is [L < d ≤ D_j] + [L < d ≤ D_k], so its second differences
  are +2 at L + 1, −1 at D_j + 1 and −1 at D_k + 1.

So one table holds, per item, the label counts, the group count, the steps of the pair term
at each depth and the second differences of the path term: a few entries per pair of labels,
whatever the number of depths (a caterpillar 500 deep held a dense column per depth for every
depth). A replicate's depth sums are cumulative sums over the depths of the table's column
sums. Every value is a whole number, and so is every sum (below 2**53), so the order of
summation changes no bit: each depth's sums are those of its own collapsed table, exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from fuzzytruth.taxonomy import Taxonomy

#: Bytes of the temporaries of one label pair of one item while the table is built.
_BYTES_PER_PAIR = 200


@dataclass(frozen=True)
class LevelTable:
    """The per-item table of every depth (module docstring) and how to read it.

    Attributes
    ----------
    table : scipy.sparse.csr_array
        ``(n_items, n_labels + G + G D [+ G D])``: the counts of each (group, label) pair
        used, the group of each item (1), the steps of the pair term by (group, depth), and
        with ``path``, the second differences of the path term by (group, depth).
    label_keys : numpy.ndarray
        ``(n_labels,)`` group × n_nodes + node of each label column, ascending.
    n_groups, n_depths : int
        G, the groups of items by number of labels, and D, the taxonomy's maximum depth.
    path : bool
        Whether the path term is held.
    """

    table: sparse.csr_array
    label_keys: np.ndarray
    n_groups: int
    n_depths: int
    path: bool

    @classmethod
    def build(cls, counts: sparse.csr_array, group: np.ndarray, n_groups: int,
              taxonomy: Taxonomy, *, path: bool, memory_budget: float) -> LevelTable:
        """The table of ``counts`` (``(n_items, n_nodes)``, canonical CSR), items in the
        groups ``group`` (``(n_items,)`` in ``[0, n_groups)``), on ``taxonomy``, a tree."""
        n_items, n_nodes = counts.shape
        n_depths = int(taxonomy.depths.max())
        per_item = np.diff(counts.indptr)
        row = np.repeat(np.arange(n_items), per_item)
        key = group[row] * n_nodes + counts.indices
        label_keys, label_col = np.unique(key, return_inverse=True)
        n_labels = len(label_keys)
        steps = n_labels + n_groups  # the first column of the pair steps
        seconds = steps + n_groups * n_depths  # of the path term's second differences
        value = counts.data.astype(np.float64)
        parts = [(row, label_col, value),
                 (np.arange(n_items), n_labels + group, np.ones(n_items)),
                 (row, steps + group[row] * n_depths, value * (value - 1))]
        at_depths, node_depth = taxonomy.ancestors_at_depths(), taxonomy.depths
        for k in np.unique(per_item[per_item >= 2]):
            items = np.flatnonzero(per_item == k)
            first, second = np.triu_indices(k, 1)
            step = max(1, int(memory_budget // (_BYTES_PER_PAIR * len(first))))
            for start in range(0, len(items), step):
                chunk = items[start : start + step]
                entries = counts.indptr[chunk][:, None] + np.arange(k)
                labels, counted = counts.indices[entries], value[entries]
                a, b = labels[:, first], labels[:, second]
                both = counted[:, first] * counted[:, second]
                depth_a = node_depth[a].astype(np.int64)
                depth_b = node_depth[b].astype(np.int64)
                meet = _meeting_depths(at_depths, a, b, np.minimum(depth_a, depth_b))
                at_one = np.zeros_like(meet)
                # (first column of the block, depth index of the change, its value)
                changes = [(steps, at_one, 2 * both), (steps, meet, -2 * both)]  # met, then
                if path:  # apart past L
                    changes += [(seconds, meet, 4 * both), (seconds, depth_a, -2 * both),
                                (seconds, depth_b, -2 * both)]
                parts.append(_added_up(changes, chunk, group[chunk] * n_depths, n_depths))
        width = seconds + (n_groups * n_depths if path else 0)
        index = np.int32 if max(n_items, width) < 2**31 else np.int64
        table = sparse.csr_array(
            (np.concatenate([v for _, _, v in parts]),
             (np.concatenate([r for r, _, _ in parts]).astype(index),
              np.concatenate([c for _, c, _ in parts]).astype(index))),
            shape=(n_items, width))
        table.sum_duplicates()
        table.eliminate_zeros()
        return cls(table, label_keys, n_groups, n_depths, path)

    def depth_sums(self, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      np.ndarray | None]:
        """From the column sums ``(B, width)`` of a block of replicates: the label sums
        ``(B, n_labels)``, the group counts ``(B, G)``, and the pair and path terms
        ``(B, G, D)`` at every depth (depth d at index d − 1; None without ``path``)."""
        n_labels, g, d = len(self.label_keys), self.n_groups, self.n_depths
        steps = sums[:, n_labels + g : n_labels + g + g * d].reshape(len(sums), g, d)
        pairs = np.cumsum(steps, axis=2)
        paths = None
        if self.path:
            seconds = sums[:, n_labels + g + g * d :].reshape(len(sums), g, d)
            paths = np.cumsum(np.cumsum(seconds, axis=2), axis=2)
        return sums[:, :n_labels], sums[:, n_labels : n_labels + g], pairs, paths


def _added_up(
    changes: list[tuple[int, np.ndarray, np.ndarray]], items: np.ndarray, base: np.ndarray,
    n_depths: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (row, column, value) entries of a chunk of ``items``' label pairs (``changes``:
    each a block's first column, then ``(items, pairs)`` depth indices and values; ``base``
    the first column of each item's group in a block), equal (row, column) added up and
    those past the deepest depth dropped (a change at depth D + 1 changes no depth)."""
    rows, cols, vals = [], [], []
    for block, depth, values in changes:
        keep = depth < n_depths
        rows.append(np.broadcast_to(items[:, None], depth.shape)[keep])
        cols.append((block + base[:, None] + depth)[keep])
        vals.append(values[keep])
    row, col = np.concatenate(rows).astype(np.int64), np.concatenate(cols)
    width = int(col.max()) + 1 if len(col) else 1
    key, inverse = np.unique(row * width + col, return_inverse=True)
    return key // width, key % width, np.bincount(inverse, weights=np.concatenate(vals))


def _meeting_depths(at_depths: np.ndarray, a: np.ndarray, b: np.ndarray, upper: np.ndarray
                    ) -> np.ndarray:
    """The depth of the lowest common ancestor of the tree nodes ``a`` and ``b`` (arrays of
    one shape; ``upper`` the shallower one's depth): the deepest depth at which their
    ancestors (``at_depths``, :meth:`~fuzzytruth.taxonomy.Taxonomy.ancestors_at_depths`)
    are one node, by a binary search (ancestors that differ at a depth differ below it)."""
    low, high = np.zeros_like(upper), upper.copy()
    while (low < high).any():
        middle = (low + high + 1) // 2
        same = at_depths[middle, a] == at_depths[middle, b]
        low = np.where(same, middle, low)
        high = np.where(same, high, middle - 1)
    return low
