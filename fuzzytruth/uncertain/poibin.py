"""Poisson-binomial distributions: the number of successes among independent Bernoulli trials.

The PMF of k = Σ X_i, X_i ~ Bernoulli(p_i), is the coefficient vector of the generating
polynomial G(z) = Π_i ((1 − p_i) + p_i z). Every method here multiplies these polynomials using
only products and sums of non-negative numbers (no subtraction, no FFT), so no value can turn
negative and no cancellation occurs; the absolute error stays at a few ulps of the largest
mass.

Methods
-------
``"recursion"``
    The classic recursion pmf_i[k] = pmf_{i−1}[k] (1 − p_i) + pmf_{i−1}[k−1] p_i, one item at a
    time. Its intermediate states are the PMFs of every prefix of the list, so
    :func:`prefix_pmfs` uses it.
``"tree"``
    The same polynomial product taken in a tree: leaves of 128 items by the recursion, then
    pairwise products of the leaf polynomials (``numpy.convolve``, or shifted multiply-adds
    vectorised across many pairs). O(n²) multiply-adds like the recursion, with far less of it
    on long lists' many small factors; the default above 128 items.
``"grouped"``
    Equal probabilities are grouped: a group of c items with probability p contributes
    Binomial(c, p), evaluated directly by ``scipy.stats.binom``, and the few group PMFs are
    convolved. When the probabilities are shares j/N of N annotators (at most N + 1 distinct
    values) it is more accurate per entry than a per-item recursion, and faster than the tree
    for long lists (measured break-even near 5,000 items).
``"auto"``
    ``"recursion"`` up to 128 items, ``"tree"`` beyond; above 4,096 items ``"grouped"``
    instead when there are at most ``max(8, n // 8)`` distinct probabilities.

The recursion runs as a small numba-compiled loop: a per-item Python loop costs microseconds per
step, which at n ≤ 1,000 would be slower than compiled peers such as fast-poibin.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
from scipy import stats

__all__ = ["pmf", "prefix_pmfs"]

Method = Literal["auto", "recursion", "tree", "grouped"]
_METHODS = ("auto", "recursion", "tree", "grouped")


def _check(p: np.ndarray | list, name: str = "p") -> np.ndarray:
    arr = np.asarray(p, dtype=float)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (one list) or 2-D (lists × items); got {arr.ndim}-D")
    # NaN fails both comparisons, so two reductions check finiteness and range together
    if arr.size and not (arr.min() >= 0 and arr.max() <= 1):
        bad = arr[~(np.isfinite(arr) & (arr >= 0) & (arr <= 1))].ravel()[0]
        raise ValueError(f"{name} must hold probabilities within [0, 1]; got {float(bad)!r}")
    return arr


def pmf(p: np.ndarray | list, *, method: Method = "auto") -> np.ndarray:
    """PMF of the number of successes, for one list or many lists at once.

    Parameters
    ----------
    p : array_like
        ``(n,)`` success probabilities of one list, or ``(m, n)`` for m lists; pad shorter
        lists with 0 (an item with p = 0 leaves the distribution unchanged).
    method : {"auto", "recursion", "tree", "grouped"}
        Algorithm (see the module docstring); all give the same numbers to rounding.

    Returns
    -------
    numpy.ndarray
        ``(n + 1,)`` or ``(m, n + 1)``: entry k is P(K = k).

    Examples
    --------
    >>> pmf([0.1, 0.2, 0.2]).round(6).tolist()
    [0.576, 0.352, 0.068, 0.004]
    >>> pmf([[0.5, 0.5], [1.0, 0.0]]).tolist()
    [[0.25, 0.5, 0.25], [0.0, 1.0, 0.0]]
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    arr = _check(p)
    single = arr.ndim == 1
    batch = arr[None, :] if single else arr
    if method == "auto":
        if _few_distinct(batch):
            method = "grouped"
        else:
            method = "recursion" if batch.shape[1] <= _LEAF else "tree"
    if method == "recursion":
        out = _recursion(batch)
    elif method == "tree":
        out = _tree(batch)
    else:
        out = np.stack([_grouped(row) for row in batch]) if len(batch) else _tree(batch)
    return out[0] if single else out


def prefix_pmfs(p: np.ndarray | list) -> np.ndarray:
    """PMFs of the successes among the first i items, for every cutoff i = 1..n, in one pass.

    Parameters
    ----------
    p : array_like
        ``(n,)`` probabilities in rank order, or ``(m, n)`` for m lists.

    Returns
    -------
    numpy.ndarray
        ``(n, n + 1)`` (or ``(m, n, n + 1)``): row i − 1 is the PMF at cutoff i; entries past
        k = i are 0. O(n²) work in total, n vectorised steps.

    Examples
    --------
    >>> prefix_pmfs([0.5, 1.0]).tolist()
    [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
    """
    arr = _check(p)
    single = arr.ndim == 1
    batch = arr[None, :] if single else arr
    out = np.zeros((batch.shape[0], batch.shape[1], batch.shape[1] + 1))
    _prefix_rows(np.ascontiguousarray(batch), out)
    return out[0] if single else out


def _recursion_rows_py(batch: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """In place: ``out[r]`` (zeros, length n + 1) <- PMF of row r of ``batch`` (m, n)."""
    m, n = batch.shape
    for r in range(m):
        state = out[r]
        state[0] = 1.0
        for i in range(n):
            p = batch[r, i]
            q = 1.0 - p
            for k in range(i + 1, 0, -1):
                state[k] = state[k] * q + state[k - 1] * p
            state[0] *= q


def _prefix_rows_py(batch: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """In place: ``out[r, i]`` (zeros) <- PMF of the first i + 1 items of row r."""
    m, n = batch.shape
    for r in range(m):
        previous = np.zeros(n + 1)
        previous[0] = 1.0
        for i in range(n):
            p = batch[r, i]
            q = 1.0 - p
            row = out[r, i]
            row[0] = previous[0] * q
            for k in range(1, i + 2):
                row[k] = previous[k] * q + previous[k - 1] * p
            previous = row


@functools.cache
def _compiled() -> tuple:
    """The two recursions compiled by numba, at their first use (numba is slow to import)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return jit(_recursion_rows_py), jit(_prefix_rows_py)


def _recursion_rows(batch: np.ndarray, out: np.ndarray) -> None:
    _compiled()[0](batch, out)


def _prefix_rows(batch: np.ndarray, out: np.ndarray) -> None:
    _compiled()[1](batch, out)


def _recursion(batch: np.ndarray) -> np.ndarray:
    out = np.zeros((batch.shape[0], batch.shape[1] + 1))
    _recursion_rows(np.ascontiguousarray(batch), out)
    return out


_GROUPED_FROM = 4096  # "auto" considers grouping only for longer lists (measured break-even)
_LEAF = 128  # items per leaf of the product tree, each leaf computed by the recursion


def _tree(batch: np.ndarray) -> np.ndarray:
    """Leaves of ``_LEAF`` items by the compiled recursion, then pairwise polynomial products."""
    m, n = batch.shape
    n_leaves = max(1, -(-n // _LEAF))
    padded = np.zeros((m, n_leaves * _LEAF))  # padding items have p = 0: they change nothing
    padded[:, :n] = batch
    blocks = _recursion(padded.reshape(m * n_leaves, _LEAF)).reshape(m, n_leaves, _LEAF + 1)
    while blocks.shape[1] > 1:
        if blocks.shape[1] % 2:  # an odd block out is multiplied by the polynomial 1
            one = np.zeros((m, 1, blocks.shape[2]))
            one[:, :, 0] = 1.0
            blocks = np.concatenate([blocks, one], axis=1)
        length = blocks.shape[2]
        merged = _merge_pairs(
            blocks[:, 0::2].reshape(-1, length), blocks[:, 1::2].reshape(-1, length)
        )
        blocks = merged.reshape(m, -1, 2 * length - 1)
    return blocks[:, 0, : n + 1]


# Rough per-call overhead and per-multiply-add cost (seconds), used only to choose, level by
# level, the cheaper of two exact ways of multiplying many pairs of polynomials.
_CALL, _MAC = 2e-6, 1e-9


def _merge_pairs(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Multiply polynomials row by row: ``(k, L)`` × ``(k, L)`` → ``(k, 2L − 1)``."""
    count, length = left.shape
    merged = np.zeros((count, 2 * length - 1))
    if count * (_CALL + length * length * _MAC) <= length * (2 * _CALL + count * length * _MAC):
        for row in range(count):
            merged[row] = np.convolve(left[row], right[row])
    else:
        for shift in range(length):
            merged[:, shift : shift + length] += left[:, shift : shift + 1] * right
    return merged


def _few_distinct(batch: np.ndarray) -> bool:
    n = batch.shape[1]
    if n <= _GROUPED_FROM or batch.shape[0] != 1:  # shorter lists: the tree is cheaper
        return False
    return len(np.unique(batch[0])) <= max(8, n // 8)


def _grouped(p: np.ndarray) -> np.ndarray:
    n = len(p)
    values, counts = np.unique(p, return_counts=True)
    out = np.ones(1)
    for value, count in zip(values, counts, strict=True):
        out = np.convolve(out, stats.binom.pmf(np.arange(count + 1), count, value))
    full = np.zeros(n + 1)
    full[: len(out)] = out
    return full
