"""Moments of a probability generating function on [0, 1], by Gauss–Legendre rules sized per
row: exact for the polynomial, or on the interval next to 1 where a peaked one lives, within a
proven bound far below rounding.

The exact recall's mean (:func:`~fuzzytruth.uncertain.closed_form.recall_mean`) needs, per
row r, the moments

    I_t = ∫₀¹ x^(t + c) G(x) dx,   t = 0, …, top − 1,   G(x) = Π_v (1 − v (1 − x))^(n_v),

with ``c`` documents relevant for sure and ``n_v`` of probability ``v`` outside the top k. The
integrand is a polynomial of degree d = c + Σ n_v + top − 1, which a Gauss–Legendre rule of
⌈(d + 1)/2⌉ nodes integrates exactly: 512 nodes for a thousand documents. But when the expected
count μ = c + Σ n_v v is large, G is ≈ e^(−μ(1 − x)): the integrand lives on [1 − δ, 1] with
δ ≈ 40/μ, where it is smooth on the scale of the interval, and a few dozen nodes there are as
good. Each row takes the cheaper of the two rules; the second only where this bound proves it
within a relative 2⁻⁵⁵ of every moment.

The bound (h(x) = x^(t + c) G(x), nonnegative and nondecreasing on [0, 1]; Φ(s) =
(1 − s)^c Π_v (1 − v s)^(n_v), so that h(1 − s) = (1 − s)^t Φ(s)):

* the part kept, K = ∫ over [1 − δ, 1], is at least δ' h(1 − δ') ≥ δ' (1 − δ')^(top − 1) Φ(δ')
  for any 0 < δ' ≤ δ;
* the part dropped, ∫ over [0, 1 − δ], is at most (1 − δ) h(1 − δ) ≤ (1 − δ) Φ(δ);
* the error of the m-node rule on [1 − δ, 1] is at most (δ/2) (64/15) M ρ^(−2m) / (ρ² − 1)
  for any ρ > 1 (Trefethen, *Approximation Theory and Approximation Practice*, Theorem 19.3),
  M the largest |h| on the Bernstein ellipse E_ρ mapped onto the interval, where
  |1 − x| ≤ σ = δ (1 + (ρ + 1/ρ)/2) / 2, so M ≤ (1 + σ)^(top − 1 + c) Π_v (1 + v σ)^(n_v).

Each of the two ratios to K must be at most 2⁻⁵⁶. They are read through μ alone:
log Φ(δ) ≤ −μ δ, log Φ(δ') ≥ −μ δ' / (1 − δ') and log M ≤ (top − 1) log(1 + σ) + μ σ. The
candidates: δ a power of 2 down to 2⁻⁶⁰, δ' = min(1/2, 1/(μ + top)), ρ = 4 or 8; the node
counts are rounded up to powers of 2 (rows are integrated in groups that share their nodes).
A row's rule depends on that row alone.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["counts_product", "pgf_moments"]

_LOG_TOLERANCE = -56 * np.log(2.0)  # each of the two ratios to the part kept
_FINEST = 60  # δ: the interval [1 - δ, 1], a power of 2 from 1 (the whole of [0, 1]) to 2^-60
_RHO = np.array([4.0, 8.0])  # Bernstein ellipses of the error bound
_LOG_TREFETHEN = np.log(64.0 / 15.0 / (_RHO**2 - 1.0))
_SEMI_MAJOR = (_RHO + 1.0 / _RHO) / 2.0
_FEWEST_NODES = 16


def _legendre(n: int, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P_n and P_n' at ``t`` (|t| < 1), by the three-term recurrence."""
    previous, current = np.ones_like(t), t.copy()
    for j in range(2, n + 1):
        previous, current = current, ((2 * j - 1) * t * current - (j - 1) * previous) / j
    return current, n * (previous - t * current) / ((1.0 - t) * (1.0 + t))


@functools.lru_cache(maxsize=16)
def unit_gauss(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The n-node Gauss–Legendre rule on [0, 1] as distances from 1 (s = 1 − x) and weights.

    NumPy's ``leggauss`` nodes, refined by a Newton step on the Legendre recurrence, with the
    weights recomputed from P_n' at them (``leggauss``'s own weights lose digits as n grows:
    Σ w x^d for d < 2n was off by 2.4e-12 relative at n = 512, these by 6.7e-15). Cached: the
    recurrence costs n² operations.

    Examples
    --------
    >>> s, w = unit_gauss(2)                      # nodes 1/2 ± 1/(2√3), weights 1/2
    >>> (np.sort(s) - (0.5 - np.array([1, -1]) / (2 * np.sqrt(3)))).round(15).tolist()
    [0.0, 0.0]
    >>> round(float(w.sum()), 15), round(float((w * (1 - s) ** 3).sum()), 15)  # ∫x³ = 1/4
    (1.0, 0.25)
    """
    t = np.polynomial.legendre.leggauss(n)[0]
    value, slope = _legendre(n, t)
    t = t - value / slope
    slope = _legendre(n, t)[1]
    weights = 1.0 / ((1.0 - t) * (1.0 + t) * slope**2)  # 2 / (...) on [-1, 1], halved
    return (1.0 - t) / 2.0, weights


def counts_product(counts: Any, matrix: np.ndarray) -> np.ndarray:
    """``counts @ matrix``, each sum taken term after term in the order of ``counts``'s
    columns, whatever their number: a SciPy sparse matrix's own product does (over its
    nonzeros); an array's through einsum's own loops, not BLAS (whose threads spun between
    the population bootstrap's many small products) — einsum sums so for a matrix of more
    than one column (observed with NumPy 2.4, not documented by it: for a vector it
    unrolls, so a vector goes one column at a time; tests/test_stats_population.py compares
    the written-out and the sparse counts bit for bit). Columns of zeros then change
    nothing, and the population bootstrap's blocks give the same numbers however many shares
    each holds.

    Examples
    --------
    >>> counts_product(np.array([[1.0, 0.0, 2.0]]), np.array([0.1, 0.2, 0.3])).tolist()
    [0.7]
    """
    if not isinstance(counts, np.ndarray):
        return counts @ matrix
    if matrix.ndim == 2 and matrix.shape[1] > 1:
        return np.einsum("rv,vc->rc", counts, matrix)
    out = np.zeros((len(counts), *matrix.shape[1:]))
    for column, row in zip(counts.T, matrix, strict=True):
        out += column.reshape(-1, *(1,) * (matrix.ndim - 1)) * row
    return out


def _rules(mu: np.ndarray, top: int, exact: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the span δ and node count of the cheapest rule: ``exact`` nodes on [0, 1],
    or the fewest the bound above proves enough on [1 − δ, 1], the bound read through the
    row's expected count ``mu`` = c + Σ n_v v alone (log(1 − v s) ≤ −v s,
    log(1 − v s) ≥ −v s / (1 − s) and log(1 + v σ) ≤ v σ).

    The part kept is bounded below at δ' = min(1/2, 1/(μ + top)), near the best δ' (about
    1/μ); below δ' the bound on the part dropped over the part kept exceeds e^−1 (−log δ' ≥
    log 2, log(1 − δ) > −log 2 and μ δ < 1), so every span proven to drop little enough
    holds δ'. The part dropped shrinks and the rule's error bound grows with δ: the best span
    is the smallest that drops little enough."""
    inner = np.minimum(0.5, 1.0 / (mu + top))
    below = -np.log(inner) - (top - 1) * np.log1p(-inner) + mu * inner / (1.0 - inner)
    # a span drops little enough when μ δ − log(1 − δ) ≥ need; that grows with δ, and
    # −log(1 − δ) > δ: the smallest power of 2 with μ δ ≥ need does, and half of it may
    need = below - _LOG_TOLERANCE
    with np.errstate(divide="ignore"):
        power = np.clip(np.floor(np.log2(mu / need)), 0, _FINEST)
    half = np.minimum(power + 1, _FINEST)
    fits = mu * 2.0**-half - np.log1p(-(2.0**-half)) >= need
    span = 2.0 ** -np.where(fits & (half > power), half, power)
    nodes = np.full(span.shape, np.inf)
    for log_trefethen, semi_major, rho in zip(_LOG_TREFETHEN, _SEMI_MAJOR, _RHO, strict=True):
        sigma = span * (1.0 + semi_major) / 2.0
        log_error = (np.log(span / 2.0) + log_trefethen + (top - 1) * np.log1p(sigma)
                     + mu * sigma + below)
        np.minimum(nodes, np.ceil((log_error - _LOG_TOLERANCE) / (2.0 * np.log(rho))),
                   out=nodes)
    fewest = np.maximum(nodes, 1.0)
    bounded = fewest < exact
    return np.where(bounded, span, 1.0), np.where(bounded, fewest, exact).astype(np.int64)


def pgf_moments(values: np.ndarray, counts: Any, certain: np.ndarray, top: int,
                rows: np.ndarray) -> np.ndarray:
    """∫₀¹ x^(t + c) G(x) dx for t < ``top``, for the given ``rows`` (the others are 0).

    Parameters
    ----------
    values : ndarray, shape (V,)
        The distinct probabilities, each in (0, 1).
    counts : ndarray or SciPy sparse matrix, shape (n_rows, V)
        How many documents of each probability a row's G multiplies (products through
        :func:`counts_product`).
    certain : ndarray of int, shape (n_rows,)
        The row's c: documents of probability 1.
    top : int
        How many moments.
    rows : ndarray of int
        The rows to integrate.

    Returns
    -------
    ndarray, shape (n_rows, top)

    Examples
    --------
    >>> moments = pgf_moments(np.array([0.5]), np.array([[2.0]]), np.array([1]), 2,
    ...                       np.array([0]))
    >>> moments.round(15).tolist()   # ∫ x (1+x)²/4 = 17/48, ∫ x² (1+x)²/4 = 31/120
    [[0.354166666666667, 0.258333333333333]]
    """
    moments = np.zeros((len(certain), top))
    if not len(rows) or not top:
        return moments
    certain = np.asarray(certain, dtype=np.int64)
    degree = np.asarray(counts.sum(axis=1)).reshape(-1).astype(np.int64) + certain + top - 1
    exact = degree // 2 + 1
    span, needed = np.ones(len(certain)), exact
    peaked = rows[exact[rows] > _FEWEST_NODES]
    if len(peaked):
        span, needed = span.copy(), exact.copy()
        mu = counts_product(counts, values[:, None])[:, 0] + certain
        span[peaked], needed[peaked] = _rules(mu[peaked], top, exact[peaked])
    size = np.maximum(_FEWEST_NODES, 2 ** np.ceil(np.log2(np.maximum(needed, 1))).astype(np.int64))
    # the rows in order of their rule (node count, then span): each rule's rows are then one
    # slice of a single copy of the counts, not a selection of them each
    rule = size[rows] * 64 - np.log2(span[rows]).astype(np.int64)  # spans from 2^0 to 2^-60
    order = np.argsort(rule, kind="stable")
    ordered, rows, rule = counts[rows[order]], rows[order], rule[order]
    bounds = np.r_[0, np.flatnonzero(np.diff(rule)) + 1, len(rule)]
    for first, last in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        at = rows[first:last]
        n, delta = int(size[at[0]]), float(span[at[0]])
        s, w = unit_gauss(n)
        s = delta * s
        log_g = counts_product(ordered[first:last], np.log1p(-np.outer(values, s)))
        log_g += certain[at, None] * np.log1p(-s)
        # below e^-700 a node's term is 0 to double precision (and exp would go through slow
        # subnormals)
        g = np.exp(log_g, where=log_g > -700.0, out=np.zeros_like(log_g))
        # einsum's own loops, not a BLAS product: the population bootstrap calls this once
        # per block of replicates and system, and OpenBLAS's threads spun between the calls
        # (2026-11-28); each row's sums are then also the same whatever the rows beside it.
        # The weights are folded into the nodes' powers, not into g: one pass less
        table = (delta * w)[:, None] * (1.0 - s)[:, None] ** np.arange(top)
        moments[at] = np.einsum("rn,nt->rt", g, table)
    return moments
