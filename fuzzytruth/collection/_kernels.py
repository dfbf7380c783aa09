"""Compiled passes of the agreement bootstrap: count-weighted column sums of a sparse per-item
table, quadratic forms of label totals with a disagreement matrix or with a tree's path metric
(:mod:`fuzzytruth.collection._label_metric`), and the entries that an item's pairs of labels
give the level table of :func:`~fuzzytruth.collection.agreement_by_level`
(:mod:`fuzzytruth.collection._levels`); and, in Python, the distinct columns of tables summed
side by side (:class:`DistinctColumns`, each summed once).

The sums and forms compute each replicate's numbers on their own, in a fixed order of
summation (items in row order; labels in column order), so a replicate is the same bits
whatever the number of replicates computed with it (the memory budget, the block, the
machine: no BLAS call, whose rounding may depend on the shape of the block and on its thread
count). numba is imported, and the passes compiled (cached on disk), at first use.
"""

from __future__ import annotations

import functools
import itertools
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


class DistinctColumns:
    """The distinct columns of tables over the same rows, added one table at a time: each
    table is read once and dropped, only the columns not seen before are kept (the depths of
    :func:`~fuzzytruth.collection.agreement_by_level` repeat most of theirs: a chain of 100
    one-child nodes above 10 × 10 × 10 held 103 tables side by side for 185,000 items, 2.4 GB
    traced, where the distinct columns of its three depths of several categories take 31 MB).

    Two columns are equal when their entries are, row by row (a column is keyed by the bytes
    of its rows and values, sorted by row, explicit zeros removed): exact, whatever the hash.
    :attr:`copies` gives, for every column added, its column in :meth:`table`, columns in the
    order they were first seen.

    Examples
    --------
    >>> columns = DistinctColumns(2)
    >>> columns.add(sparse.csr_array(np.array([[1.0, 0.0, 1.0], [2.0, 2.0, 2.0]])))
    >>> columns.add(sparse.csr_array(np.array([[0.0, 1.0], [2.0, 0.0]])))
    >>> columns.copies.tolist()
    [0, 1, 0, 1, 2]
    >>> columns.table().toarray().tolist()
    [[1.0, 0.0, 1.0], [2.0, 2.0, 0.0]]
    """

    def __init__(self, n_rows: int) -> None:
        self.n_rows = n_rows
        self._index = np.int32 if n_rows < 2**31 else np.int64
        self._first: dict[tuple[bytes, bytes], int] = {}
        self._copies: list[np.ndarray] = []
        self.nbytes = 0  # of the distinct columns' rows and values

    def add(self, table: sparse.csr_array) -> None:
        """Add the columns of ``table`` (``(n_rows, k)``, any sparse format)."""
        if table.shape[0] != self.n_rows:
            raise ValueError(f"a table of {table.shape[0]} rows added to {self.n_rows}")
        by_column = sparse.csc_array(table, copy=True)
        by_column.sum_duplicates()  # rows sorted in each column, each row once
        by_column.eliminate_zeros()
        rows = by_column.indices.astype(self._index, copy=False)
        values = by_column.data.astype(np.float64, copy=False)
        bounds = by_column.indptr.tolist()
        first, copies = self._first, np.empty(by_column.shape[1], dtype=np.int64)
        for j, (a, b) in enumerate(itertools.pairwise(bounds)):
            key = (rows[a:b].tobytes(), values[a:b].tobytes())
            n_distinct = len(first)
            copies[j] = first.setdefault(key, n_distinct)
            if len(first) > n_distinct:  # a new column
                self.nbytes += len(key[0]) + len(key[1])
        self._copies.append(copies)

    @property
    def copies(self) -> np.ndarray:
        """``(n_columns_added,)`` the column of :meth:`table` equal to each column added."""
        return np.concatenate([np.zeros(0, dtype=np.int64), *self._copies])

    def table(self) -> sparse.csr_array:
        """``(n_rows, n_distinct)`` the distinct columns, in the order first seen (CSR)."""
        keys = list(self._first)
        lengths = np.array([len(v) for _, v in keys], dtype=np.int64) // 8
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        rows = np.frombuffer(b"".join(r for r, _ in keys), dtype=self._index)
        values = np.frombuffer(b"".join(v for _, v in keys), dtype=np.float64)
        by_column = sparse.csc_array((values, rows, indptr.astype(self._index)),
                                     shape=(self.n_rows, len(keys)))
        return sparse.csr_array(by_column)


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


def level_pair_entries(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, group: np.ndarray,
    at_depths: np.ndarray, node_depth: np.ndarray, steps: int, differences: int, power: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (row, column, value) entries that the pairs of labels of each item give the level
    table of :class:`~fuzzytruth.collection._levels.LevelTable` (see its module): for item
    ``i`` of ``counts`` (CSR ``indptr``, ``indices`` the tree's nodes, ``data``), in group
    ``g``, the steps of Σ_c n_ic (n_ic − 1) at column ``steps + g D + (d − 1)`` for each depth
    d where it changes (its value at depth 1 in the first), and, for ``power`` 1 (the path)
    or 2 (its square), the differences of order ``power + 1`` over the depths of
    Σ_{c≠c'} n_ic n_ic' path(c, c') ** power from column ``differences + g D`` (none for
    ``power`` 0); equal columns of an item added up, zeros left out. D is ``at_depths``'
    number of rows minus one (:meth:`~fuzzytruth.taxonomy.Taxonomy.ancestors_at_depths`);
    each pair's lowest common ancestor is found by a binary search over the depths.

    Examples
    --------
    >>> # all -> a -> (a1, a2), all -> b: nodes 0 all, 1 a, 2 b, 3 a1, 4 a2 (depths 0 1 1 2 2)
    >>> at = np.array([[0, 0, 0, 0, 0], [0, 1, 2, 1, 1], [0, 1, 2, 3, 4]])
    >>> depth = np.array([0, 1, 1, 2, 2])
    >>> # one item: a1 twice, a2 once; the pair (a1, a2) meets at depth 1
    >>> rows, cols, vals = level_pair_entries(np.array([0, 2]), np.array([3, 4]),
    ...                                       np.array([2.0, 1.0]), np.array([0]), at, depth,
    ...                                       0, 2, 1)
    >>> sorted(zip(cols.tolist(), vals.tolist()))
    [(0, 6.0), (1, -4.0), (3, 8.0)]
    """
    n_depths = at_depths.shape[0] - 1
    per_item = np.diff(indptr)
    pairs = per_item * (per_item - 1) // 2
    # at most one entry per depth, or per change, for each item and kind
    bound = np.minimum(1 + pairs, n_depths) + (
        np.minimum(3 * (power + 1) * pairs, n_depths) if power else 0)
    size = int(bound[per_item >= 1].sum())
    rows = np.empty(size, dtype=np.int64)
    cols = np.empty(size, dtype=np.int64)
    vals = np.empty(size)
    used = _kernels()["level_pair_entries"](
        np.ascontiguousarray(indptr, dtype=np.int64), np.ascontiguousarray(indices, dtype=np.int64),
        np.ascontiguousarray(data, dtype=np.float64), np.ascontiguousarray(group, dtype=np.int64),
        np.ascontiguousarray(at_depths, dtype=np.int64),
        np.ascontiguousarray(node_depth, dtype=np.int64), steps, differences, power, rows,
        cols, vals)
    return rows[:used], cols[:used], vals[:used]


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


def _level_pair_entries_py(indptr, indices, data, group, at_depths, node_depth, steps,
                           differences, power, rows, cols, vals
                           ):  # pragma: no cover - compiled
    n_depths = at_depths.shape[0] - 1
    order = power + 1  # the path's power is a piecewise polynomial of that degree less one
    binomial = np.ones(order + 1)  # (-1)^k C(order, k)
    for k in range(1, order + 1):
        binomial[k] = -binomial[k - 1] * (order - k + 1) / k
    step_buffer = np.zeros(n_depths)
    difference_buffer = np.zeros(n_depths)
    touched = np.zeros(2 * n_depths, dtype=np.int64)
    marked = np.zeros(2 * n_depths, dtype=np.bool_)
    done = np.zeros(3 * order, dtype=np.int64)  # the depths a pair has set already
    used = 0
    for i in range(len(indptr) - 1):
        start, stop = indptr[i], indptr[i + 1]
        if stop == start:
            continue
        n_touched = 0
        constant = 0.0
        for p in range(start, stop):
            constant += data[p] * (data[p] - 1.0)
        for p in range(start, stop):
            a = indices[p]
            depth_a = node_depth[a]
            for q in range(p + 1, stop):
                b = indices[q]
                depth_b = node_depth[b]
                both = 2.0 * data[p] * data[q]
                meet, high = 0, min(depth_a, depth_b)
                while meet < high:  # the deepest depth where their ancestors are one node
                    middle = (meet + high + 1) // 2
                    if at_depths[middle, a] == at_depths[middle, b]:
                        meet = middle
                    else:
                        high = middle - 1
                constant += both  # met at depth 1 ...
                if meet < n_depths:  # ... apart past the meeting depth
                    slot = meet
                    if not marked[slot]:
                        marked[slot] = True
                        touched[n_touched] = slot
                        n_touched += 1
                    step_buffer[slot] -= both
                if power == 0:
                    continue
                # the order-th differences of path_d ** power, nonzero only just past its
                # breaks (the meeting depth and the two labels' depths)
                n_done = 0
                for corner in (meet, depth_a, depth_b):
                    for ahead in range(1, order + 1):
                        depth = corner + ahead
                        if depth > n_depths:
                            continue
                        seen = False
                        for k in range(n_done):
                            seen = seen or done[k] == depth
                        if seen:
                            continue
                        done[n_done] = depth
                        n_done += 1
                        value = 0.0
                        for k in range(order + 1):
                            at = depth - k
                            if at > meet:
                                length = min(depth_a, at) + min(depth_b, at) - 2 * meet
                                value += binomial[k] * float(length) ** power
                        if value != 0.0:
                            slot = n_depths + depth - 1
                            if not marked[slot]:
                                marked[slot] = True
                                touched[n_touched] = slot
                                n_touched += 1
                            difference_buffer[depth - 1] += both * value
        if n_depths > 0:
            step_buffer[0] += constant
            if not marked[0]:
                marked[0] = True
                touched[n_touched] = 0
                n_touched += 1
        for k in range(n_touched):
            slot = touched[k]
            marked[slot] = False
            if slot < n_depths:
                value = step_buffer[slot]
                step_buffer[slot] = 0.0
                column = steps + group[i] * n_depths + slot
            else:
                value = difference_buffer[slot - n_depths]
                difference_buffer[slot - n_depths] = 0.0
                column = differences + group[i] * n_depths + slot - n_depths
            if value != 0.0:
                rows[used] = i
                cols[used] = column
                vals[used] = value
                used += 1
    return used


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled passes, built at first use (numba is slow to import)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return {"column_sums": jit(_column_sums_py), "quadratic_forms": jit(_quadratic_forms_py),
            "tree_quadratic_forms": jit(_tree_quadratic_forms_py),
            "level_pair_entries": jit(_level_pair_entries_py),
            "tree_path_values": jit(_tree_path_values_py)}
