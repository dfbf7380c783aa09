"""Every depth of :func:`~fuzzytruth.collection.agreement_by_level` on a tree from one per-item
table, for the nominal, path and squared path metrics.

Collapsing the labels to depth d changes three kinds of per-item sums (the coefficients'
ingredients, :class:`~fuzzytruth.collection.agreement._ItemStatistics`):

- the count n_ic of a collapsed label c is the sum of the counts of the labels below it, so a
  depth's label columns are sums of the labels' own columns (a 0/1 map per depth);
- Σ_c n_ic (n_ic − 1) is Σ_j n_ij (n_ij − 1) plus 2 n_ij n_ik for each pair of labels j ≠ k
  of the item that meet at depth d, that is, whose lowest common ancestor is at depth L ≥ d:
  a step down at d = L + 1;
- Σ_{c≠c'} n_ic n_ic' δ(c, c'), for a pair j, k at depths D_j, D_k, is 2 n_ij n_ik
  δ(path_d(j, k)) with path_d = 0 while d ≤ L and, past it, min(D_j, d) + min(D_k, d) − 2 L:
  a polynomial in d between the breaks L, D_j and D_k, of degree 1 (the path) or 2 (its
  square), so its differences of order 2 (or 3) over the depths are zero but just past the
  breaks (for the path: +2 at L + 1, −1 at D_j + 1 and −1 at D_k + 1).

So one table holds, per item, the label counts, the group count, the steps of the pair term
and the differences of the metric term: a few entries per pair of labels, whatever the number
of depths (the depths' own tables held a dense column per depth: a caterpillar 500 deep, 8 GB
for 185,000 items). A replicate's depth sums are cumulative sums over the depths of the
table's column sums. Every value is a whole number, and so is every sum (below 2**53), so the
order of summation changes no bit: each depth's sums are those of its own collapsed table,
exactly."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from fuzzytruth.collection._kernels import level_pair_entries
from fuzzytruth.taxonomy import Taxonomy


@dataclass(frozen=True)
class LevelTable:
    """The per-item table of every depth (module docstring) and how to read it.

    Attributes
    ----------
    table : scipy.sparse.csr_array
        ``(n_items, n_labels + G + G D [+ G D])``: the counts of each (group, label) pair
        used, the group of each item (1), the steps of the pair term by (group, depth), and
        given a ``power``, the differences of order ``power + 1`` of the metric term by
        (group, depth).
    label_keys : numpy.ndarray
        ``(n_labels,)`` group × n_nodes + node of each label column, ascending.
    n_groups, n_depths : int
        G, the groups of items by number of labels, and D, the taxonomy's maximum depth.
    power : int
        The metric: 0 nominal (no metric term), 1 the path, 2 its square.
    """

    table: sparse.csr_array
    label_keys: np.ndarray
    n_groups: int
    n_depths: int
    power: int

    @classmethod
    def build(cls, counts: sparse.csr_array, group: np.ndarray, n_groups: int,
              taxonomy: Taxonomy, *, power: int) -> LevelTable:
        """The table of ``counts`` (``(n_items, n_nodes)``, canonical CSR), items in the
        groups ``group`` (``(n_items,)`` in ``[0, n_groups)``), on ``taxonomy``, a tree: the
        pairs' entries from a compiled pass over each item's pairs of labels
        (:func:`~fuzzytruth.collection._kernels.level_pair_entries`), their sums per item
        and depth held in two buffers of the depths, never a table of the pairs."""
        n_items, n_nodes = counts.shape
        n_depths = int(taxonomy.depths.max())
        row = np.repeat(np.arange(n_items), np.diff(counts.indptr))
        key = group[row] * n_nodes + counts.indices
        label_keys, label_col = np.unique(key, return_inverse=True)
        n_labels = len(label_keys)
        steps = n_labels + n_groups  # the first column of the pair steps
        differences = steps + n_groups * n_depths  # of the path term's differences
        value = counts.data.astype(np.float64)
        parts = [(row, label_col, value),
                 (np.arange(n_items), n_labels + group, np.ones(n_items)),
                 level_pair_entries(counts.indptr, counts.indices, value, group,
                                    taxonomy.ancestors_at_depths(), taxonomy.depths, steps,
                                    differences, power)]
        width = differences + (n_groups * n_depths if power else 0)
        index = np.int32 if max(n_items, width) < 2**31 else np.int64
        table = sparse.csr_array(
            (np.concatenate([v for _, _, v in parts]),
             (np.concatenate([r for r, _, _ in parts]).astype(index),
              np.concatenate([c for _, c, _ in parts]).astype(index))),
            shape=(n_items, width))
        table.sum_duplicates()
        table.eliminate_zeros()
        return cls(table, label_keys, n_groups, n_depths, power)

    def depth_sums(self, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      np.ndarray | None]:
        """From the column sums ``(B, width)`` of a block of replicates: the label sums
        ``(B, n_labels)``, the group counts ``(B, G)``, and the pair and metric terms
        ``(B, G, D)`` at every depth (depth d at index d − 1; no metric term: None)."""
        n_labels, g, d = len(self.label_keys), self.n_groups, self.n_depths
        steps = sums[:, n_labels + g : n_labels + g + g * d].reshape(len(sums), g, d)
        pairs = np.cumsum(steps, axis=2)
        paths = None
        if self.power:
            paths = sums[:, n_labels + g + g * d :].reshape(len(sums), g, d)
            for _ in range(self.power + 1):
                paths = np.cumsum(paths, axis=2)
        return sums[:, :n_labels], sums[:, n_labels : n_labels + g], pairs, paths
