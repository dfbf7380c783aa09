"""The disagreement δ between labels that taxonomy α reads: as a table, or, for the path metrics
on a tree, from the tree itself.

Taxonomy α reads δ twice: each item's observed term, a sum over the pairs of its labels
(:meth:`values` of those pairs), and each replicate's expected term, the quadratic form t δ tᵀ
of the label totals (:meth:`quadratic_forms`). :class:`MetricTable` holds δ between the labels
used, ``(U, U)``. On a tree the path between labels a and b is D_a + D_b − 2 L_ab (D a
depth, L_ab the depth of the lowest common ancestor: the number of non-root nodes at or above
both), so :class:`TreePath` needs neither the table nor the pairs: with T = Σ_a t_a and, for
every non-root node v, S_v the total of the labels at or below v and W_v that of t_a D_a,

    Σ_ab t_a t_b path(a, b)  = 2 T Σ_a t_a D_a − 2 Σ_v S_v²
    Σ_ab t_a t_b path(a, b)² = 2 T Σ_a t_a D_a² + 2 (Σ_a t_a D_a)² − 8 Σ_v W_v S_v
                               + 4 Σ_v (2 D_v − 1) S_v²

(L² = Σ_{k=1..L} (2k − 1)). Its cost grows with the nodes above the labels, not with the
pairs of labels: no 20 GB table for 50,000 labels, no cubic cost on a deep chain. The counts
and their resample totals are whole numbers and so are the path lengths, so both ways add up
whole numbers exactly (below 2**53, as the coefficients' sums must be anyway) and give the
same bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fuzzytruth.collection._kernels import (
    quadratic_forms,
    tree_path_values,
    tree_quadratic_forms,
)
from fuzzytruth.taxonomy import Taxonomy

__all__ = ["MetricTable", "TreePath"]


@dataclass(frozen=True)
class MetricTable:
    """δ as a ``(n, n)`` table between labels; a statistic reads the labels at positions
    ``at`` (None: all, in order), in place: the depths of
    :func:`~fuzzytruth.collection.agreement_by_level` share one table."""

    delta: np.ndarray
    #: bytes of the temporaries of one value of :meth:`values` (the value gathered)
    bytes_per_value = 8

    def values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """δ between label positions ``a`` and ``b`` (broadcast), a new array."""
        return self.delta[a, b]

    def quadratic_forms(self, totals: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:
        """``(B,)`` t δ tᵀ of the rows of ``totals`` ``(B, U)``, label k at position ``at[k]``."""
        return quadratic_forms(totals, self.delta, at)

    def point_form(self, totals: np.ndarray, at: np.ndarray | None = None) -> float:
        """t δ tᵀ of one row of totals (a BLAS product of the block taken out)."""
        delta = self.delta if at is None else self.delta[np.ix_(at, at)]
        return float(totals @ delta @ totals)


@dataclass(frozen=True)
class TreePath:
    """``"path"`` (or, ``squared``, ``"squared_path"``) between labels of a tree, from the
    nodes at or above them (module docstring).

    Attributes
    ----------
    squared : bool
        The square of the path length.
    label_node : numpy.ndarray
        ``(n_labels,)`` each label's row in ``parent`` and ``depth`` (-1: the label is the
        root, which has no row).
    label_depth : numpy.ndarray
        ``(n_labels,)`` float, each label's depth.
    parent : numpy.ndarray
        ``(n_nodes,)`` the non-root nodes at or above a label, parents before children: each
        one's parent among them (-1: a child of the root).
    depth : numpy.ndarray
        ``(n_nodes,)`` float, their depths.
    slots : numpy.ndarray
        ``(n_labels, max depth + 1)`` int32: column k holds the label's ancestor at depth k
        (a node id shared by the labels below it) and -1 below the label's own depth.
    """

    #: bytes of the temporaries of one value of :meth:`values` (the value; the positions
    #: as int64 when given otherwise)
    bytes_per_value = 24

    squared: bool
    label_node: np.ndarray
    label_depth: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    slots: np.ndarray

    @classmethod
    def of(cls, taxonomy: Taxonomy, labels: np.ndarray, *, squared: bool) -> TreePath:
        """The metric between ``labels`` (node indices of ``taxonomy``, a tree).

        Examples
        --------
        >>> tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})
        >>> path = TreePath.of(tax, tax.indices(["a1", "a2", "b"]), squared=False)
        >>> path.values(np.array([0, 0, 1]), np.array([1, 2, 2])).tolist()
        [2.0, 3.0, 3.0]
        >>> path.quadratic_forms(np.array([[1.0, 3.0, 0.0], [1.0, 1.0, 1.0]])).tolist()
        [12.0, 16.0]
        """
        labels = np.asarray(labels, dtype=np.intp)
        _, table = taxonomy.ancestor_slots()  # a tree's slots are its depths
        slots = table[labels]  # (n_labels, max depth + 1): each label's ancestors by depth
        nodes = np.unique(slots[:, 1:][slots[:, 1:] >= 0])  # non-root, at or above a label
        depths = taxonomy.depths
        nodes = nodes[np.argsort(depths[nodes], kind="stable")]  # parents before children
        row = np.full(len(taxonomy), -1, dtype=np.int64)  # the root: no row
        row[nodes] = np.arange(len(nodes))
        return cls(
            squared=squared,
            label_node=row[labels],
            label_depth=depths[labels].astype(np.float64),
            parent=row[table[nodes, depths[nodes] - 1]],  # the ancestor one level up
            depth=depths[nodes].astype(np.float64),
            slots=slots,
        )

    def values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The path length (or its square) between label positions ``a`` and ``b``
        (broadcast): D_a + D_b − 2 L_ab, L_ab found by a binary search over the depths where
        the two labels' ancestors are one node (a compiled pass)."""
        return tree_path_values(a, b, self.slots, self.label_depth, self.squared)

    def quadratic_forms(self, totals: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:
        """``(B,)`` Σ_ab t_a t_b δ_ab of the rows of ``totals`` ``(B, U)``, label k at
        position ``at[k]`` (None: all, in order), from the subtree sums (module docstring)."""
        at = slice(None) if at is None else np.asarray(at)
        return tree_quadratic_forms(totals, self.label_node[at], self.label_depth[at],
                                    self.parent, self.depth, self.squared)

    def point_form(self, totals: np.ndarray, at: np.ndarray | None = None) -> float:
        """The form of one row of totals."""
        return float(self.quadratic_forms(np.asarray(totals)[None, :], at)[0])
