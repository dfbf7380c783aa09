"""trec_eval's gain-level measures ``G`` and ``Rndcg`` (``m_G.c``, ``m_Rndcg.c``, 9.0.8 = 10.0).

Both read the *ideal gain sequence* of a query: the gains of all its judged documents of
positive gain, in decreasing order (the same ideal ranking as trec_eval's ``ndcg``), I_1 ≥ I_2
≥ ... ≥ I_N > 0, and I_j = 0 for j > N. Gains are the grade by default, or a map ``{grade:
gain}`` (trec_eval's ``G.1=3,2=9``); a document that is not judged gains 0. With g_i the gain
of the document at rank i:

``G``
    Σ_{i: g_i ≠ 0} g_i / log2(2 + C_i − S_i), divided by Σ_j I_j, where S_i = Σ_{j ≤ i} g_j is
    the gain retrieved so far and C_i = Σ_{j ≤ i} max(I_j, 1) the ideal's (at least 1 per
    rank). A document that gains as much as the ideal allows scores g/1; one that comes after
    losses is discounted by them. NaN when no judged document has a positive gain (trec_eval
    prints 0).
``Rndcg``
    nDCG (log2(i+1) discount) averaged at the "R levels": the ranks p where the ideal gain
    changes (I_p ≠ I_{p+1}: the end of each run of equal gains, the last at p = N), plus the
    list's length n when n > N + 1 (trec_eval's implied change at the end of the retrieved
    list; its loop skips it when n = N + 1). At each such p the run's DCG over its first p
    documents is divided by the ideal DCG of p ranks. NaN when the query has no document of
    grade >= ``rel`` (trec_eval prints 0).

trec_eval orders the gain levels with a comparison that truncates their difference to an
integer, so two levels whose gains differ by less than 1 can come out of order in its ideal
(only with a fractional gain map); here the ideal is always sorted, as in ``ndcg``.

Examples
--------
>>> rg = RankedGains.from_lists(["q"], [[1, 0, 2]], [[2, 1, 1]])
>>> g_measure(rg).round(6)          # (1/log2(2+2-1) + 2/log2(2+4-3)) / 4
array([0.473197])
>>> r_ndcg(rg, rel=1).round(6)       # ideal 2,1,1: nDCG@1 = 0.5 and nDCG@3, averaged
array([0.569394])
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.ranking import _discounts, _rank_gains, divide, ideal_gains

__all__ = ["EXACT_COST", "g_measure", "ideal_gains", "r_ndcg"]


def _padded(values: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((values.shape[0], width))
    keep = min(width, values.shape[1])
    out[:, :keep] = values[:, :keep]
    return out


def g_measure(rg: RankedGains, *, gain: str | Mapping[float, float] = "linear") -> np.ndarray:
    """trec_eval's ``G`` (module docstring); NaN when no judged document has a positive gain.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[2, 1, 0]], [[2, 1]])
    >>> g_measure(rg).tolist()       # the ideal ranking scores 1
    [1.0]
    """
    gains = _rank_gains(rg, gain).astype(np.float64)
    ideal = ideal_gains(rg, gain)
    cost = np.cumsum(np.maximum(_padded(ideal, rg.depth), 1.0), axis=1)
    _refuse_inexact_costs(rg, cost)
    got = np.cumsum(gains, axis=1)
    safe = np.where(gains != 0, 2.0 + cost - got, 2.0)
    total = np.where(gains != 0, gains / np.log2(safe), 0.0).sum(axis=1)
    return divide(total, ideal.sum(axis=1))


EXACT_COST = 2.0**53
"""The largest sum of a list's ideal gains G takes. Its discount, 2 + C - S, is the difference
of two sums of gains computed in doubles (as trec_eval computes it): below 2**53 sums of whole
gains are exact and of fractional ones off by far less than the 2 added, so the discount is
>= 2; past it the units of the sums are lost, the discount may come out 0 or negative, and
G was 0 or NaN where it is near 1 (grades of 1e17, ranked ideally but for one)."""


def _refuse_inexact_costs(rg: RankedGains, cost: np.ndarray) -> None:
    """A ValueError naming the first query whose ideal cost ``cost`` (per rank, cumulative)
    passes :data:`EXACT_COST`."""
    if not cost.shape[1]:
        return
    over = cost[:, -1] > EXACT_COST
    if over.any():
        row = int(np.argmax(over))
        raise ValueError(
            f"G reads its discount 2 + C - S from sums of gains in double precision (as "
            f"trec_eval), exact only up to 2**53 (about 9.007e15); query "
            f"{rg.query_ids[row]!r} has ideal gains summing to {float(cost[row, -1])!r} over "
            "its list: use smaller grades or a gain map (G, unlike nDCG, changes when the "
            "gains are scaled)"
        )


def r_ndcg(
    rg: RankedGains, *, rel: float, gain: str | Mapping[float, float] = "linear"
) -> np.ndarray:
    """trec_eval's ``Rndcg`` (module docstring); NaN when the query has no document of grade
    >= ``rel``.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[0, 1, 0, 0, 1]], [[1, 1]])
    >>> r_ndcg(rg, rel=1).round(6)    # nDCG@2 and, at the list's end (5 > 2 + 1), nDCG@5
    array([0.505452])
    """
    gains = _rank_gains(rg, gain).astype(np.float64)
    ideal = ideal_gains(rg, gain)
    n_ideal = (ideal > 0).sum(axis=1)
    width = max(rg.depth, ideal.shape[1]) + 1
    disc = _discounts(width, "log2", None)
    dcg = np.zeros((len(rg), width + 1))  # dcg[:, p]: DCG of the first p documents
    np.cumsum(_padded(gains, width) * disc, axis=1, out=dcg[:, 1:])
    ideal = _padded(ideal, width + 1)
    ideal_dcg = np.zeros((len(rg), width + 1))
    np.cumsum(ideal[:, :width] * disc, axis=1, out=ideal_dcg[:, 1:])
    p = np.arange(width + 1)[None, :]
    # p = 1..N where the ideal gain changes after rank p (the last one at p = N)
    change = np.zeros(ideal.shape, dtype=bool)
    change[:, 1:] = ideal[:, 1:] != ideal[:, :-1]
    boundary = change & (p >= 1) & (p <= n_ideal[:, None])
    ratio = np.divide(dcg, ideal_dcg, out=np.zeros(dcg.shape), where=boundary)
    total = ratio.sum(axis=1)
    count = boundary.sum(axis=1).astype(np.float64)
    tail = (rg.lengths > n_ideal + 1) & (n_ideal > 0)  # trec_eval's change at the list's end
    rows = np.arange(len(rg))
    last = dcg[rows, np.minimum(rg.lengths, width)]
    full = ideal_dcg[rows, n_ideal]
    total += np.where(tail, np.divide(last, full, out=np.zeros(len(rg)), where=tail), 0.0)
    count += tail
    value = divide(total, count)
    return np.where(rg.n_relevant(rel) > 0, value, np.nan)
