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
    The same polynomial product taken pairwise in a balanced tree, vectorised across lists and
    across pairs (small blocks by a batched outer product and an anti-diagonal sum, large ones
    by ``numpy.convolve``). Fewer Python-level steps; the default for general probabilities.
``"grouped"``
    Equal probabilities are grouped: a group of c items with probability p contributes
    Binomial(c, p), evaluated directly by ``scipy.stats.binom``, and the few group PMFs are
    convolved. Faster, and more accurate than a per-item recursion, when the probabilities are
    shares j/N of N annotators (at most N + 1 distinct values).
``"auto"``
    ``"grouped"`` when there are at most ``max(8, n // 8)`` distinct probabilities, otherwise
    ``"tree"``.
"""

from __future__ import annotations

from functools import lru_cache
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
        method = "grouped" if _few_distinct(batch) else "tree"
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
    m, n = batch.shape
    out = np.zeros((m, n + 1, n + 1))
    out[:, 0, 0] = 1.0  # cutoff 0, dropped on return
    tmp = np.empty((m, n + 1))
    for i in range(n):
        _step(out[:, i], out[:, i + 1], tmp, batch[:, i : i + 1], i)
    out = out[:, 1:]
    return out[0] if single else out


def _step(prev: np.ndarray, new: np.ndarray, tmp: np.ndarray, p: np.ndarray, i: int) -> None:
    """One recursion step: ``new`` (zeros) <- ``prev`` times (1 − p + p z), where ``prev``
    holds i + 1 coefficients (items 0..i−1 included)."""
    np.multiply(prev[:, : i + 1], 1.0 - p, out=new[:, : i + 1])
    np.multiply(prev[:, : i + 1], p, out=tmp[:, : i + 1])
    new[:, 1 : i + 2] += tmp[:, : i + 1]


def _recursion(batch: np.ndarray) -> np.ndarray:
    m, n = batch.shape
    state, new, tmp = np.zeros((m, n + 1)), np.zeros((m, n + 1)), np.empty((m, n + 1))
    state[:, 0] = 1.0
    for i in range(n):
        _step(state, new, tmp, batch[:, i : i + 1], i)
        state, new = new, state
    return state


@lru_cache(maxsize=16)
def _antidiagonal(length: int) -> np.ndarray:
    """0/1 matrix mapping a flattened (L × L) outer product to its 2L − 1 anti-diagonal sums."""
    a, b = np.divmod(np.arange(length * length), length)
    out = np.zeros((length * length, 2 * length - 1))
    out[np.arange(length * length), a + b] = 1.0
    out.flags.writeable = False
    return out


def _tree(batch: np.ndarray) -> np.ndarray:
    m, n = batch.shape
    size = 1 << max(0, (n - 1).bit_length())
    # rows are blocks (list-major), columns polynomial coefficients
    blocks = np.zeros((m, size, 2))
    blocks[:, :, 0] = 1.0
    blocks[:, :n, 0] = 1.0 - batch
    blocks[:, :n, 1] = batch
    blocks = blocks.reshape(m * size, 2)
    while blocks.shape[0] > m:
        pairs = blocks.reshape(-1, 2, blocks.shape[1])
        blocks = _merge_pairs(pairs[:, 0], pairs[:, 1])
    return blocks[:, : n + 1]


# Rough per-call overhead and per-multiply-add costs (seconds) used only to pick, level by
# level, the cheapest of three exact ways to multiply pairs of polynomials.
_CALL, _BLAS_MAC, _LOOP_MAC = 2e-6, 3e-10, 1e-9


def _merge_pairs(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Multiply polynomials row by row: ``(k, L)`` × ``(k, L)`` → ``(k, 2L − 1)``."""
    count, length = left.shape
    cost_outer = 3 * _CALL + count * length * length * (2 * length - 1) * _BLAS_MAC
    cost_convolve = count * (_CALL + length * length * _LOOP_MAC)
    cost_shift = length * (2 * _CALL + count * length * _LOOP_MAC)
    best = min(cost_outer, cost_convolve, cost_shift)
    if best == cost_outer:
        outer = left[:, :, None] * right[:, None, :]
        return outer.reshape(count, length * length) @ _antidiagonal(length)
    merged = np.zeros((count, 2 * length - 1))
    if best == cost_convolve:
        for row in range(count):
            merged[row] = np.convolve(left[row], right[row])
    else:
        for shift in range(length):
            merged[:, shift : shift + length] += left[:, shift : shift + 1] * right
    return merged


def _few_distinct(batch: np.ndarray) -> bool:
    n = batch.shape[1]
    if n < 16 or batch.shape[0] != 1:
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
