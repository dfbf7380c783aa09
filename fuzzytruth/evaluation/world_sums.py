"""The sums of kept world values that :meth:`Evaluation.aggregate` and ``query_means`` read.

One system's values of one measure in every world (``(n_worlds, n_queries)``, NaN where
undefined) are summed two ways, under the evaluation's rules (the ``undefined`` rule's fill,
the preset's counted queries, world by world and overall): each world's total over its
defined values, added first query to last as :func:`~fuzzytruth.metrics.base.sum_in_order`
adds them (trec_eval's order), and each query's total over the worlds, added world by world.
A compiled pass over a block of worlds reads each value once and writes the four sums; the
same sums through NumPy made eight passes and as many block-sized temporaries (100,000
queries × 1,000 worlds × 2 measures: 2.2 s of an ``aggregate()`` of 2.2 s).

A geometric aggregate sums the logs of the floored values per world
(:data:`~fuzzytruth.measures.GEOMETRIC_FLOOR`), taken by NumPy (a compiled ``log`` may differ
from NumPy's in the last bit) and passed beside the values.

Blocks of fewer than :data:`NUMPY_CELLS` values are summed by NumPy, the same sums bit for bit
(``tests/test_world_sums.py``): a crisp evaluation's one world, or a few worlds of a small
evaluation, do not import numba (0.4 s).
"""

from __future__ import annotations

import functools

import numpy as np

from fuzzytruth._frozen import readonly
from fuzzytruth.metrics.base import sum_in_order

__all__ = ["NUMPY_CELLS", "add_block", "apply_rules"]

NUMPY_CELLS = 1 << 20
"""Blocks of fewer values than this are summed by NumPy (:func:`add_block`)."""


def _block_sums_py(
    values: np.ndarray, terms: np.ndarray, fill: float, fills: bool,
    world_counted: np.ndarray, counted: np.ndarray, world_total: np.ndarray,
    world_count: np.ndarray, item_total: np.ndarray, item_count: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """In place: ``world_total[w]``/``world_count[w]`` the sum (in query order, as a running
    sum from the first query's term) and number of world w's defined terms;
    ``item_total[q]``/``item_count[q]`` increased by query q's defined values, world after
    world. A value is defined when it is not NaN after the fill (``fills``: NaN scores
    ``fill``), its query is counted, and (``world_counted`` not empty) counted in that
    world; an undefined one adds 0.0, as the NumPy sums of zeroed cells did."""
    n_w, n_q = values.shape
    in_worlds = world_counted.shape[0] > 0
    for w in range(n_w):
        total = 0.0
        count = 0
        for q in range(n_q):
            v = values[w, q]
            t = terms[w, q]
            if fills and v != v:
                v = fill
            if fills and t != t:
                t = fill
            ok = counted[q] and v == v and (not in_worlds or world_counted[w, q])
            if not ok:
                v = 0.0
                t = 0.0
            else:
                count += 1
                item_count[q] += 1
            total = t if q == 0 else total + t
            item_total[q] += v
        world_total[w] = total
        world_count[w] = count


def _rules_py(
    values: np.ndarray, fill: float, fills: bool, world_counted: np.ndarray,
    counted: np.ndarray, out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """:func:`apply_rules` in one pass (``world_counted`` empty: none)."""
    n_w, n_q = values.shape
    in_worlds = world_counted.shape[0] > 0
    for w in range(n_w):
        for q in range(n_q):
            v = values[w, q]
            if fills and v != v:
                v = fill
            if not counted[q] or (in_worlds and not world_counted[w, q]):
                v = np.nan
            out[w, q] = v


def _kernel_flags(world_counted: np.ndarray | None) -> np.ndarray:
    """The counted queries world by world as the kernels take them: C-ordered bool, an empty
    table for none."""
    if world_counted is None:
        return np.zeros((0, 0), dtype=bool)
    return np.ascontiguousarray(world_counted, dtype=bool)


@functools.cache
def _compiled() -> dict[str, object]:
    """The kernels compiled by numba at their first use (numba is slow to import)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return {"sums": jit(_block_sums_py), "rules": jit(_rules_py)}


def add_block(
    values: np.ndarray, terms: np.ndarray | None, fill: float, fills: bool,
    world_counted: np.ndarray | None, counted: np.ndarray, item_total: np.ndarray,
    item_count: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Sum a block of worlds: its worlds' totals and counts of defined terms (returned), its
    queries' values and counts added to ``item_total`` and ``item_count`` (float64 and int64,
    in place).

    Parameters
    ----------
    values : numpy.ndarray
        ``(n_worlds, n_queries)`` world values, NaN where undefined.
    terms : numpy.ndarray or None
        What each world's total adds instead of the values (the logs of a geometric mean);
        None: the values.
    fill, fills : float, bool
        NaN scores ``fill`` when ``fills`` (:meth:`Undefined.fills`).
    world_counted : numpy.ndarray or None
        ``(n_worlds, n_queries)`` bool, the preset's counted queries world by world.
    counted : numpy.ndarray
        ``(n_queries,)`` bool, the queries that enter the aggregates at all.
    item_total, item_count : numpy.ndarray
        Each query's running sum and count over the worlds summed so far.

    Examples
    --------
    >>> values = np.array([[0.5, np.nan, 1.0], [0.25, 0.5, np.nan]])
    >>> total, count = np.zeros(3), np.zeros(3, dtype=np.int64)
    >>> add_block(values, None, 0.0, True, None, np.ones(3, bool), total, count)
    (array([1.5 , 0.75]), array([3, 3]))
    >>> total.tolist(), count.tolist()
    ([0.75, 0.5, 1.0], [2, 2, 2])
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    terms = values if terms is None else np.ascontiguousarray(terms, dtype=np.float64)
    counted = np.ascontiguousarray(counted, dtype=bool)
    if values.size < NUMPY_CELLS:
        return _numpy_block(values, terms, fill, fills, world_counted, counted, item_total,
                            item_count)
    flags = _kernel_flags(world_counted)
    world_total = np.empty(len(values))
    world_count = np.empty(len(values), dtype=np.int64)
    # inputs read-only, whatever their flag: one compiled signature (kept values are frozen)
    _compiled()["sums"](readonly(values), readonly(terms), float(fill), bool(fills),
                        readonly(flags), readonly(counted), world_total, world_count,
                        item_total, item_count)
    return world_total, world_count


def _numpy_block(
    values: np.ndarray, terms: np.ndarray, fill: float, fills: bool,
    world_counted: np.ndarray | None, counted: np.ndarray, item_total: np.ndarray,
    item_count: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`add_block` through NumPy's passes: the rules (:func:`apply_rules`), each
    world's terms added in order (``sum_in_order``), the queries' running totals as the first
    row of the worlds (NumPy adds the rows of a C-ordered array one after another)."""
    ruled = apply_rules(values, fill, fills, world_counted, counted, np.empty_like(values))
    defined = ~np.isnan(ruled)
    world_total = sum_in_order(np.where(defined, ruled if terms is values else terms, 0.0),
                               axis=1)
    rows = np.empty((len(values) + 1, values.shape[1]))
    rows[0] = item_total
    np.copyto(rows[1:], ruled)
    np.copyto(rows[1:], 0.0, where=~defined)
    item_total[:] = rows.sum(axis=0)
    item_count += defined.sum(axis=0)
    return world_total, defined.sum(axis=1)


def apply_rules(
    values: np.ndarray, fill: float, fills: bool, world_counted: np.ndarray | None,
    counted: np.ndarray, out: np.ndarray,
) -> np.ndarray:
    """World values under the evaluation's rules, written into ``out`` and returned: NaN
    scores ``fill`` when ``fills``; a query not counted in a world (``world_counted``) or at
    all (``counted``) is NaN. No temporary but the masks; a block of at least
    :data:`NUMPY_CELLS` values (2-D, ``out`` C-ordered) in one compiled pass, the same
    values (NumPy's four passes and masks: 2.9 s of a ``compare()`` of 8.3 s at 100,000
    queries × 1,000 worlds × 2 systems, where the recall's undefined worlds score 0).

    >>> out = np.empty((1, 3))
    >>> apply_rules(np.array([[np.nan, 0.5, 1.0]]), 0.0, True, None,
    ...             np.array([True, True, False]), out).tolist()
    [[0.0, 0.5, nan]]
    """
    if values.size >= NUMPY_CELLS and values.ndim == 2 and out.flags.c_contiguous:
        flags = _kernel_flags(world_counted)
        _compiled()["rules"](readonly(np.ascontiguousarray(values, dtype=np.float64)),
                             float(fill), bool(fills), readonly(flags),
                             readonly(np.ascontiguousarray(counted, dtype=bool)), out)
        return out
    np.copyto(out, values)
    if fills:
        np.copyto(out, fill, where=np.isnan(out))
    if world_counted is not None:
        np.copyto(out, np.nan, where=~world_counted)
    np.copyto(out, np.nan, where=~counted[None, :])
    return out
