"""Ranking a classifier's classes: top-k sets with a named rule for ties.

Each item's classes are ranked by score, highest first. Where scores tie, tools differ, and
each rule here is one of them, named:

``"last"`` (default)
    among tied classes, the later column ranks first: scikit-learn's ``top_k_accuracy_score``
    (a stable ascending sort, reversed; checked by experiment in the tests: with four equal
    scores class 3 is its top-1). That holds with three classes or more; with two,
    scikit-learn reads the second class's probability alone and predicts that class only
    above 0.5, so its 0.5 / 0.5 tie goes to the first class, as under ``"first"``;
``"first"``
    the earlier column ranks first: ``numpy.argmax`` (so ``accuracy_score(y, p.argmax(1))``),
    ``jax.lax.top_k`` and Stutz et al.'s ``topk_sets`` without jitter;
``"all"``
    every class tied with the k-th is in the top k (TensorFlow's ``in_top_k``): a class is in
    the top k when fewer than k classes score strictly higher;
``"average"``
    the expectation over all orders of the tied classes (what a random tie-break, such as
    Stutz et al.'s ±1e-4 jitter, gives on average): a class in a tie group straddling rank k
    is in the top k with probability (slots left) / (group size).

Each item's ranking is summarised by its *candidates*: the classes that can be in the top
``kmax``, with the range of ranks ``[lo, hi)`` each can take (``hi = lo + 1`` under a strict
rule; the tie group's span under ``"all"`` and ``"average"``). Items are ranked in blocks
sized from a memory budget, with a partial sort; only items whose scores tie across the
``kmax`` boundary are fully sorted.

Examples
--------
>>> scores = np.array([[0.1, 0.4, 0.4, 0.1]])
>>> [candidates(scores, 1, ties).columns.tolist() for ties in ("last", "first")]
[[[2]], [[1]]]
>>> c = candidates(scores, 1, "all")
>>> c.columns.tolist(), c.lo.tolist(), c.hi.tolist()
([[2, 1]], [[0, 0]], [[2, 2]])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from fuzzytruth._frozen import readonly
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._validation import check_choice
from fuzzytruth.metrics.class_rules import CLASS_TIES, STRICT_TIES

__all__ = ["CLASS_TIES", "Candidates", "candidates"]


@dataclass(frozen=True, eq=False)
class Candidates:
    """The classes of each item that can be among its top ``kmax``.

    Attributes
    ----------
    columns : numpy.ndarray
        ``(n_items, width)`` class columns in rank order (-1 pads).
    lo, hi : numpy.ndarray
        ``(n_items, width)`` each candidate's ranks ``[lo, hi)`` (0-based): its rank under a
        strict rule (``hi = lo + 1``), its tie group's span otherwise.
    kmax : int
        The deepest rank asked for.
    ties : str
        The rule (:data:`CLASS_TIES`).
    """

    columns: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    kmax: int
    ties: str

    def credit(self, k: int) -> np.ndarray:
        """``(n_items, width)`` each candidate's probability of being in the top ``k``.

        Examples
        --------
        >>> c = candidates(np.array([[0.2, 0.4, 0.4]]), 3, "average")
        >>> c.columns.tolist(), c.credit(1).tolist()
        ([[2, 1, 0]], [[0.5, 0.5, 0.0]])
        """
        lo, hi = self.lo, self.hi
        valid = self.columns >= 0
        if self.ties == "average":
            span = np.maximum(hi - lo, 1)
            return np.where(valid, np.clip((k - lo) / span, 0.0, 1.0), 0.0)
        return (valid & (lo < k)).astype(np.float64)


def candidates(
    scores: np.ndarray, kmax: int, ties: str = "last", *, memory_budget: float = MEMORY_BUDGET
) -> Candidates:
    """The candidates for the top ``kmax`` of every row of ``scores`` (module docstring).

    Parameters
    ----------
    scores : numpy.ndarray
        ``(n_items, n_classes)`` finite scores.
    kmax : int
        Deepest rank needed (capped at ``n_classes``).
    ties : {"last", "first", "all", "average"}
        The tie rule.
    memory_budget : float
        Bytes of working memory per block of items.

    Returns
    -------
    Candidates

    Examples
    --------
    >>> c = candidates(np.array([[0.3, 0.1, 0.6], [0.5, 0.5, 0.0]]), 2)
    >>> c.columns.tolist()
    [[2, 0], [1, 0]]
    """
    check_choice("ties", ties, CLASS_TIES)
    n_items, n_classes = scores.shape
    kmax = int(min(max(kmax, 1), n_classes))
    step = block_rows(n_classes, memory_budget, bytes_per_unit=24.0)
    parts = [
        _block(scores[start : start + step], kmax, ties)
        for start in range(0, max(n_items, 1), step)
    ]
    width = max(p[0].shape[1] for p in parts)
    columns, lo, hi = (
        np.concatenate([_pad(p[j], width, -1 if j == 0 else kmax) for p in parts])
        for j in range(3)
    )
    return Candidates(columns, lo, hi, kmax, ties)


def _pad(array: np.ndarray, width: int, fill: int) -> np.ndarray:
    if array.shape[1] == width:
        return array
    return np.pad(array, ((0, 0), (0, width - array.shape[1])), constant_values=fill)


def _block(scores: np.ndarray, kmax: int, ties: str) -> tuple[np.ndarray, ...]:
    """Candidates of one block of rows: ``(columns, lo, hi)``."""
    n, n_classes = scores.shape
    if n == 0:
        empty = np.zeros((0, kmax), dtype=np.int32)
        return empty, empty, empty
    if kmax == n_classes:
        top = np.tile(np.arange(n_classes), (n, 1))
        tied = np.zeros(n, dtype=bool)
    elif ties in STRICT_TIES:  # one compiled pass keeps each row's top kmax in rank order
        columns = np.empty((n, kmax), dtype=np.int32)
        _compiled()["top"](readonly(scores), ties == "last", columns)
        lo = np.broadcast_to(np.arange(kmax, dtype=np.int32), (n, kmax))
        return columns, lo.copy(), lo + 1
    else:
        top = np.argpartition(scores, n_classes - kmax, axis=1)[:, n_classes - kmax:]
        threshold = np.take_along_axis(scores, top, axis=1).min(axis=1)
        # ties across the boundary: more classes reach the threshold than there are slots
        tied = (scores >= threshold[:, None]).sum(axis=1) > kmax
    columns, lo, hi = _ordered(scores, top, ties)
    if not tied.any():
        return columns, lo, hi
    full = _full_rows(scores[tied], kmax, ties)
    width = max(columns.shape[1], full[0].shape[1])
    columns, lo, hi = (_pad(a, width, -1 if j == 0 else kmax)
                       for j, a in enumerate((columns, lo, hi)))
    for out, part in zip((columns, lo, hi), full, strict=True):
        out[tied] = _pad(part, width, -1 if out is columns else kmax)
    return columns, lo, hi


def _top_py(scores, last, out):  # pragma: no cover - compiled
    # each row's top out.shape[1] columns in rank order, by insertion: a column enters when
    # it ranks before the last one kept (score higher, or equal and later under "last": the
    # columns come in increasing order)
    kmax = out.shape[1]
    kept = np.empty(kmax, dtype=scores.dtype)
    for i in range(scores.shape[0]):
        filled = 0
        for j in range(scores.shape[1]):
            v = scores[i, j]
            if filled == kmax and (v < kept[kmax - 1] or (v == kept[kmax - 1] and not last)):
                continue
            p = filled if filled < kmax else kmax - 1
            while p > 0 and (kept[p - 1] < v or (kept[p - 1] == v and last)):
                kept[p] = kept[p - 1]
                out[i, p] = out[i, p - 1]
                p -= 1
            kept[p] = v
            out[i, p] = j
            if filled < kmax:
                filled += 1


@functools.cache
def _compiled() -> dict[str, Any]:
    """The passes compiled by numba at their first use."""
    import numba

    return {"top": numba.njit(cache=True, nogil=True)(_top_py)}


def _ordered(scores: np.ndarray, cols: np.ndarray, ties: str) -> tuple[np.ndarray, ...]:
    """``cols`` of each row (all the classes that can rank above any other of the row) in rank
    order, with their rank ranges."""
    values = np.take_along_axis(scores, cols, axis=1)
    tiebreak = cols if ties == "first" else -cols  # later column first unless "first"
    order = np.lexsort((tiebreak, -values), axis=1)
    cols = np.take_along_axis(cols, order, axis=1)
    values = np.take_along_axis(values, order, axis=1)
    width = cols.shape[1]
    position = np.broadcast_to(np.arange(width), cols.shape)
    if ties in STRICT_TIES:
        lo = position.astype(np.int32)
        return cols.astype(np.int32), lo, lo + 1
    # tie groups of equal values: lo = the group's first position, hi = one past its last
    starts = np.ones(cols.shape, dtype=bool)
    starts[:, 1:] = values[:, 1:] != values[:, :-1]
    lo = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    ends = np.ones(cols.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    hi = np.minimum.accumulate(np.where(ends, position, width - 1)[:, ::-1], axis=1)[:, ::-1]
    return cols.astype(np.int32), lo.astype(np.int32), (hi + 1).astype(np.int32)


def _full_rows(scores: np.ndarray, kmax: int, ties: str) -> tuple[np.ndarray, ...]:
    """Rows with ties across the boundary: every class ranked, kept while it can reach the
    top ``kmax``."""
    n, n_classes = scores.shape
    cols, lo, hi = _ordered(scores, np.tile(np.arange(n_classes), (n, 1)), ties)
    keep = lo < kmax
    width = int(keep.sum(axis=1).max())
    return (np.where(keep, cols, -1)[:, :width], np.where(keep, lo, kmax)[:, :width],
            np.where(keep, hi, kmax)[:, :width])
