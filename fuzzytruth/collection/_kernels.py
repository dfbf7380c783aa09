"""Compiled passes of the agreement bootstrap: count-weighted column sums of a sparse per-item
table, the table's repeated columns (summed once), and quadratic forms of label totals with a
disagreement matrix or with a tree's path metric (:mod:`fuzzytruth.collection._label_metric`).

Both compute each replicate's numbers on their own, in a fixed order of summation (items in
row order; labels in column order), so a replicate is the same bits whatever the number of
replicates computed with it (the memory budget, the block, the machine: no BLAS call, whose
rounding may depend on the shape of the block and on its thread count). numba is imported,
and the passes compiled (cached on disk), at first use.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from scipy import sparse

from fuzzytruth._threads import by_rows


def weighted_column_sums(table: sparse.csr_array, weights: np.ndarray) -> np.ndarray:
    """``weights @ table``: ``(n_replicates, n_columns)`` sums of the rows of ``table``
    (``(n_items, n_columns)`` CSR), row ``i`` counted ``weights[r, i]`` times in replicate
    ``r``; every sum is added up item by item in item order, so a column's sums do not depend
    on the other columns.

    Examples
    --------
    >>> table = sparse.csr_array(np.array([[1.0, 0.0], [0.5, 2.0], [0.0, 3.0]]))
    >>> weights = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    >>> weighted_column_sums(table, weights).tolist()
    [[1.0, 6.0], [1.5, 6.0]]
    """
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    data = table.data.astype(np.float64, copy=False)
    kernel = _kernels()["column_sums"]  # compiled once per index type (int32 or int64)

    def replicates(rows: slice) -> np.ndarray:
        out = np.zeros((table.shape[1], rows.stop - rows.start))
        kernel(table.indptr, table.indices, data, weights[rows], out)
        return out

    # split over threads by replicates (each sums its own rows); rows: reductions over a row
    # add up the same way
    parts = by_rows(replicates, len(weights), len(weights) * max(table.nnz, table.shape[0]))
    return np.ascontiguousarray(np.concatenate(parts, axis=1).T)


def first_copies(table: sparse.csr_array) -> np.ndarray:
    """For every column of ``table`` (CSR), the first column equal to it (itself when no
    column before it is): entries equal, row by row.

    Columns with the same count of entries and the same two weighted sums of their values
    (weights: hashes of the row numbers) are candidates, confirmed by a second pass comparing
    them row by row; a candidate that differs stays its own copy. Memory: a few numbers per
    column, never a copy of the table.

    Examples
    --------
    >>> table = sparse.csr_array(np.array([[1.0, 0.0, 1.0, 1.0],
    ...                                    [2.0, 2.0, 2.0, 0.0]]))
    >>> first_copies(table).tolist()
    [0, 1, 0, 3]
    """
    if not table.has_canonical_format:  # the comparison reads one entry per row and column
        table = table.copy()
        table.sum_duplicates()
    n_columns = table.shape[1]
    data = table.data.astype(np.float64, copy=False)
    signatures = np.zeros((n_columns, 3))
    _kernels()["column_signatures"](table.indptr, table.indices, data, signatures)
    _, first, group = np.unique(signatures, axis=0, return_index=True, return_inverse=True)
    copies = first[group.ravel()]
    check = np.flatnonzero(copies != np.arange(n_columns))
    if len(check):
        same = np.ones(len(check), dtype=np.bool_)
        _kernels()["columns_equal"](table.indptr, table.indices, data, check, copies[check],
                                    n_columns, same)
        copies[check[~same]] = check[~same]
    return copies


def quadratic_forms(
    totals: np.ndarray, delta: np.ndarray, at: np.ndarray | None = None
) -> np.ndarray:
    """``(n_replicates,)`` values ``t δ tᵀ`` for every row ``t`` of ``totals``
    (``(n_replicates, n_labels)``), with ``delta`` ``(n_labels, n_labels)``, or, given
    ``at`` (``(n_labels,)`` positions in a larger ``delta``), its rows and columns ``at``,
    read in place: the same sums, in the same order, as with that block taken out.

    Examples
    --------
    >>> delta = np.array([[0.0, 2.0], [2.0, 0.0]])
    >>> quadratic_forms(np.array([[1.0, 3.0], [2.0, 2.0]]), delta).tolist()
    [12.0, 16.0]
    >>> wider = np.array([[0.0, 5.0, 2.0], [5.0, 0.0, 7.0], [2.0, 7.0, 0.0]])
    >>> quadratic_forms(np.array([[1.0, 3.0], [2.0, 2.0]]), wider, np.array([0, 2])).tolist()
    [12.0, 16.0]
    """
    by_label = np.ascontiguousarray(np.asarray(totals, dtype=np.float64).T)
    at = np.arange(by_label.shape[0]) if at is None else np.asarray(at, dtype=np.int64)
    out = np.zeros(by_label.shape[1])
    _kernels()["quadratic_forms"](by_label, np.ascontiguousarray(delta, dtype=np.float64), at,
                                  out)
    return out


def tree_quadratic_forms(
    totals: np.ndarray, label_node: np.ndarray, label_depth: np.ndarray, parent: np.ndarray,
    depth: np.ndarray, squared: bool,
) -> np.ndarray:
    """``(n_replicates,)`` Σ_ab t_a t_b δ_ab for every row ``t`` of ``totals``
    (``(n_replicates, n_labels)``), δ the path length between labels of a tree or its square,
    from the totals at or below each node (:class:`~fuzzytruth.collection._label_metric.TreePath`,
    whose arrays these are): one pass over the labels and one over the nodes per replicate.

    Examples
    --------
    >>> # all -> a -> (a1, a2), all -> b; the nodes a, b, a1, a2; the labels a1, a2, b
    >>> parent, depth = np.array([-1, -1, 0, 0]), np.array([1.0, 1.0, 2.0, 2.0])
    >>> label_node, label_depth = np.array([2, 3, 1]), np.array([2.0, 2.0, 1.0])
    >>> totals = np.array([[1.0, 3.0, 0.0], [1.0, 1.0, 1.0]])
    >>> tree_quadratic_forms(totals, label_node, label_depth, parent, depth, False).tolist()
    [12.0, 16.0]
    """
    totals = np.ascontiguousarray(totals, dtype=np.float64)
    out = np.zeros(totals.shape[0])
    _kernels()["tree_quadratic_forms"](
        totals, np.ascontiguousarray(label_node, dtype=np.int64),
        np.ascontiguousarray(label_depth, dtype=np.float64),
        np.ascontiguousarray(parent, dtype=np.int64),
        np.ascontiguousarray(depth, dtype=np.float64), bool(squared), out)
    return out


def tree_path_values(
    a: np.ndarray, b: np.ndarray, slots: np.ndarray, label_depth: np.ndarray, squared: bool
) -> np.ndarray:
    """The path length (or its square) between labels ``a`` and ``b`` (positions, broadcast)
    of a tree: D_a + D_b − 2 L_ab, L_ab the deepest depth where the two labels' ancestors
    (``slots``, ``(n_labels, max depth + 1)``: each label's ancestor at each depth) are one
    node, found by a binary search (:class:`~fuzzytruth.collection._label_metric.TreePath`).

    Examples
    --------
    >>> # all -> a -> (a1, a2), all -> b (nodes 0, 1, 3, 4, 2); the labels a1, a2, b
    >>> slots = np.array([[0, 1, 3], [0, 1, 4], [0, 2, -1]], dtype=np.int32)
    >>> depth = np.array([2.0, 2.0, 1.0])
    >>> tree_path_values(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 2]), slots, depth,
    ...                  False).tolist()
    [2.0, 3.0, 3.0, 0.0]
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    out = np.empty(a.shape)
    _kernels()["tree_path_values"](np.ascontiguousarray(a).ravel(),
                                   np.ascontiguousarray(b).ravel(), slots,
                                   np.ascontiguousarray(label_depth, dtype=np.float64),
                                   bool(squared), out.reshape(-1))
    return out


def _column_sums_py(indptr, indices, data, weights, out):  # pragma: no cover - compiled
    n_rows = weights.shape[0]
    w = np.empty(n_rows)
    for i in range(len(indptr) - 1):
        for r in range(n_rows):
            w[r] = weights[r, i]
        for p in range(indptr[i], indptr[i + 1]):
            column = indices[p]
            value = data[p]
            for r in range(n_rows):
                out[column, r] += value * w[r]


def _column_signatures_py(indptr, indices, data, out):  # pragma: no cover - compiled
    for i in range(len(indptr) - 1):
        # two weights in [1, 2) from the row number (multiplicative hashes)
        first = 1.0 + ((i * 2654435761) % 4294967291) / 4294967291.0
        second = 1.0 + ((i * 40503 + 7919) % 1000003) / 1000003.0
        for p in range(indptr[i], indptr[i + 1]):
            column = indices[p]
            out[column, 0] += 1.0
            out[column, 1] += data[p] * first
            out[column, 2] += data[p] * second


def _columns_equal_py(indptr, indices, data, columns, others, n_columns, same
                      ):  # pragma: no cover - compiled
    value = np.zeros(n_columns)
    row_of = np.full(n_columns, -1)
    for i in range(len(indptr) - 1):
        for p in range(indptr[i], indptr[i + 1]):
            value[indices[p]] = data[p]
            row_of[indices[p]] = i
        for k in range(len(columns)):
            a = value[columns[k]] if row_of[columns[k]] == i else 0.0
            b = value[others[k]] if row_of[others[k]] == i else 0.0
            if a != b:
                same[k] = False


def _quadratic_forms_py(by_label, delta, at, out):  # pragma: no cover - compiled
    n_labels, n_rows = by_label.shape
    acc = np.empty(n_rows)
    for a in range(n_labels):
        acc[:] = 0.0
        row = at[a]
        for b in range(n_labels):
            d = delta[row, at[b]]
            if d != 0.0:
                for r in range(n_rows):
                    acc[r] += d * by_label[b, r]
        for r in range(n_rows):
            out[r] += by_label[a, r] * acc[r]


def _tree_quadratic_forms_py(totals, label_node, label_depth, parent, depth, squared,
                             out):  # pragma: no cover - compiled
    n_rows, n_labels = totals.shape
    n_nodes = parent.shape[0]
    below = np.empty(n_nodes)  # S_v: the totals at or below node v
    weighted = np.empty(n_nodes)  # W_v: the same of t_a D_a
    for r in range(n_rows):
        below[:] = 0.0
        weighted[:] = 0.0
        total = 0.0
        by_depth = 0.0
        by_square = 0.0
        for a in range(n_labels):
            t = totals[r, a]
            d = label_depth[a]
            total += t
            by_depth += t * d
            by_square += t * d * d
            v = label_node[a]
            if v >= 0:
                below[v] += t
                weighted[v] += t * d
        for v in range(n_nodes - 1, -1, -1):  # children come after their parents
            p = parent[v]
            if p >= 0:
                below[p] += below[v]
                weighted[p] += weighted[v]
        if squared:
            pairs = 0.0
            cross = 0.0
            for v in range(n_nodes):
                pairs += (2.0 * depth[v] - 1.0) * below[v] * below[v]
                cross += weighted[v] * below[v]
            out[r] = (2.0 * total * by_square + 2.0 * by_depth * by_depth - 8.0 * cross
                      + 4.0 * pairs)
        else:
            pairs = 0.0
            for v in range(n_nodes):
                pairs += below[v] * below[v]
            out[r] = 2.0 * total * by_depth - 2.0 * pairs


def _tree_path_values_py(a, b, slots, label_depth, squared, out):  # pragma: no cover
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        low = 0  # the root is common; the deepest common depth lies in [low, high]
        high = int(min(label_depth[x], label_depth[y]))
        while low < high:
            middle = (low + high + 1) // 2
            if slots[x, middle] == slots[y, middle]:
                low = middle
            else:
                high = middle - 1
        path = label_depth[x] + label_depth[y] - 2.0 * low
        out[i] = path * path if squared else path


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled passes, built at first use (numba is slow to import)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return {"column_sums": jit(_column_sums_py), "quadratic_forms": jit(_quadratic_forms_py),
            "column_signatures": jit(_column_signatures_py),
            "columns_equal": jit(_columns_equal_py),
            "tree_quadratic_forms": jit(_tree_quadratic_forms_py),
            "tree_path_values": jit(_tree_path_values_py)}
