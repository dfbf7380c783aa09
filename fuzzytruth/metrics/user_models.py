"""User-model measures: rank-biased precision with its residual, and expected reciprocal rank.

``RBP(p=0.8)@k``
    Moffat & Zobel (ACM TOIS 27(1), 2008), eq. 2: RBP = (1 − p) Σ_{i ≤ d} r_i p^{i−1}, with
    r_i = 1 when the document at rank i has grade >= ``rel`` (``grading="binary"``, binary
    relevance as in the paper), d the list length (or k). ``p`` is the persistence
    (ir_measures' default 0.8; trec_eval's ``rbp`` uses 0.9). ``grading="graded"`` is trec_eval
    10's ``rbp`` (``m_rbp.c``): r_i is the grade over the query's highest judged grade when
    that is above 1 (its gains normalised to [0, 1]), the grade itself otherwise, 0 for an
    unjudged or negative one; ``rel`` plays no part (trec_eval's ``-l`` does not either).
``RBPResidual(p=0.8)@k``
    The paper's residual (sec. 4): the most RBP could still grow if every unjudged document
    in the top d were relevant and the ranking went on with relevant documents,
    p^d + (1 − p) Σ_{unjudged i ≤ d} p^{i−1}. RBP ≤ true RBP ≤ RBP + residual ≤ 1. With
    ``when_judged="zero"`` a list without an unjudged document (an empty one too) gets 0
    instead, as trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c`` sets a value only when it
    met an unjudged document); ``"tail"`` (the default) keeps the paper's p^d.
``ERR(gmax=4)@k``
    Chapelle, Metzler, Zhang & Grinspan (CIKM 2009), eq. 4 with the grade map of sec. 4:
    ERR = Σ_{r ≤ k} (1/r) R_r Π_{i<r} (1 − R_i), R_g = (2^g − 1) / 2^gmax; grades <= 0 give
    R = 0, a grade above ``gmax`` is an error (gdeval, ir_measures' ERR provider, uses 4).

Examples
--------
>>> from fuzzytruth.metrics.base import RankedGains
>>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1]])
>>> rbp(rg, p=0.5, rel=1)             # 0.5 · (1 + 0.25)
array([0.625])
>>> err(rg, gmax=1)                   # R = 1/2: 1/2 + (1/3)(1/2)(1/2)
array([0.58333333])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fuzzytruth.metrics import binary
from fuzzytruth.metrics.base import RankedGains, dot_rows
from fuzzytruth.metrics.ranking import _expected_relevant
from fuzzytruth.metrics.trec_extra import require_judged

__all__ = ["RBP_GRADINGS", "WHEN_JUDGED", "err", "expected_rbp", "rbp", "rbp_residual"]


def persistence_powers(depth: int, p: float) -> np.ndarray:
    """p^0, p^1, ..., p^depth, each the one before times p (``depth + 1`` values).

    The powers as trec_eval 10's ``m_rbp.c`` and ``m_rbp_resid.c`` form them (``cur_p = cur_p
    * p`` after each rank), so that RBP and its residual, summed rank by rank and multiplied
    by 1 − p last as there, are its doubles: ``p ** i`` and a weight (1 − p) p^i round
    differently, which moves an average of two queries across a printed 4th decimal.

    Examples
    --------
    >>> persistence_powers(3, 0.5)
    array([1.   , 0.5  , 0.25 , 0.125])
    """
    return np.cumprod(np.concatenate(([1.0], np.full(depth, p, dtype=np.float64))))


RBP_GRADINGS = ("binary", "graded")
"""RBP's r_i: grade >= rel (Moffat & Zobel), or trec_eval 10's normalised grade."""


def rbp(rg: RankedGains, *, p: float, rel: float, grading: str = "binary",
        k: int | None = None) -> np.ndarray:
    """Rank-biased precision (1 − p) Σ_{i ≤ k} r_i p^{i−1} (Moffat & Zobel 2008, eq. 2).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[0, 2, 1]], [[2, 1]])
    >>> rbp(rg, p=0.8, rel=1).round(4)    # 0.2 · (0.8 + 0.64)
    array([0.288])
    >>> rbp(rg, p=0.8, rel=1, grading="graded").round(4)    # 0.2 · (2/2 · 0.8 + 1/2 · 0.64)
    array([0.224])
    """
    if grading == "graded":
        top = rg.ideal[:, 0] if rg.ideal.shape[1] else np.zeros(len(rg.lengths))
        values = np.clip(rg.gains, 0.0, None) / np.maximum(top, 1.0)[:, None]
        if rg.tie_start is not None:
            values = rg.tie_mean(values)
        values = values[:, :k]
    else:
        values = _expected_relevant(rg, rel)[:, :k]
    return (1.0 - p) * dot_rows(values, persistence_powers(values.shape[1], p)[:-1])


def expected_rbp(probabilities: np.ndarray, *, p: float, k: int | None = None) -> np.ndarray:
    """E[RBP] when the document at each rank is relevant with the given probability.

    RBP is linear in the r_i, so its expectation is RBP of the probabilities (any dependence
    between documents); its full distribution has up to 2^d atoms and comes from worlds.

    Examples
    --------
    >>> expected_rbp(np.array([[0.5, 1.0]]), p=0.5)
    array([0.5])
    """
    probabilities = np.asarray(probabilities, dtype=np.float64)[:, :k]
    return (1.0 - p) * dot_rows(probabilities, persistence_powers(probabilities.shape[1], p)[:-1])


WHEN_JUDGED = ("tail", "zero")
"""RBP's residual of a list without an unjudged document: the paper's p^d, or trec_eval 10's 0."""


def rbp_residual(rg: RankedGains, *, p: float, when_judged: str = "tail",
                 k: int | None = None) -> np.ndarray:
    """RBP's residual p^d + (1 − p) Σ_{unjudged i ≤ d} p^{i−1}, d = min(k, retrieved).

    Unjudged: not in the judgments, or with a negative grade (trec_eval's reading). A list
    without an unjudged document gets p^d (``when_judged="tail"``) or 0 (``"zero"``).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 0]], [[1, 0]], [[True, False, True]])
    >>> rbp_residual(rg, p=0.5).round(4)      # 0.5³ + 0.5 · 0.5
    array([0.375])
    >>> judged = RankedGains.from_lists(["q"], [[1, 0]], [[1, 0]], [[True, True]])
    >>> rbp_residual(judged, p=0.5), rbp_residual(judged, p=0.5, when_judged="zero")
    (array([0.25]), array([0.]))
    """
    require_judged(rg, "RBPResidual")
    unjudged = ~(rg.judged & (rg.gains >= 0))
    cols = np.arange(rg.depth)
    unjudged &= cols[None, :] < rg.lengths[:, None]
    if rg.tie_start is not None:
        unjudged = rg.tie_mean(unjudged)
    unjudged = unjudged[:, :k]
    return residual(unjudged, rg.lengths, p=p, when_judged=when_judged, k=k)


def residual(unjudged: np.ndarray, lengths: np.ndarray, *, p: float, when_judged: str,
             k: int | None) -> np.ndarray:
    """RBP's residual from the unjudged share of each rank (``(n_rows, ≥ k)``, 0 past each
    list's end) and the list lengths: the one formula behind :func:`rbp_residual` and its
    exact form under uncertain truth, where judged status is a point."""
    unjudged = unjudged[:, :k]
    shown = np.asarray(lengths if k is None else np.minimum(lengths, k), dtype=np.int64)
    powers = persistence_powers(max(unjudged.shape[1], int(shown.max(initial=0))), p)
    value = powers[shown] + (1.0 - p) * dot_rows(unjudged, powers[: unjudged.shape[1]])
    if when_judged == "zero":
        value = np.where(unjudged.any(axis=1), value, 0.0)
    return value


def _check_grades(grades: np.ndarray, gmax: float) -> None:
    if grades.size and grades.max() > gmax:
        raise ValueError(
            f"ERR: a ranked document has grade {float(grades.max())!r} above gmax={gmax!r}; "
            "set the grade scale's maximum, e.g. ERR(gmax=...)"
        )


def _err_from_probabilities(stop: np.ndarray) -> np.ndarray:
    """ERR from the per-rank stopping probabilities, ``(n, depth)``."""
    reach = np.ones_like(stop)
    np.cumprod(1.0 - stop[:, :-1], axis=1, out=reach[:, 1:])
    ranks = np.arange(1, stop.shape[1] + 1, dtype=np.float64)
    return dot_rows(stop * reach, 1.0 / ranks)


def err(rg: RankedGains, *, gmax: float, k: int | None = None) -> np.ndarray:
    """Expected reciprocal rank (Chapelle et al. 2009, eq. 4), R_g = (2^g − 1)/2^gmax.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[2, 0, 4]], [[4, 2]])
    >>> err(rg, gmax=4, k=3).round(6)   # 3/16 + (1/3)(15/16)(13/16)
    array([0.441406])
    """
    grades = rg.gains[:, :k]
    _check_grades(grades, gmax)
    stop = np.where(grades > 0, (np.exp2(grades) - 1.0) / np.exp2(gmax), 0.0)
    return _err_from_probabilities(stop)


def binary_rbp(depth: int, *, p: float, rel: float, grading: str = "binary",
               k: int | None = None) -> Any:
    if grading == "graded" or rel > 1:
        # graded gains read the grades themselves, not grade >= rel (which the 0/1 path of
        # graded worlds assumes); rel > 1: grade-1 documents are not relevant. Either way the
        # crisp kernel runs on the worlds
        return None
    cut = depth if k is None else min(k, depth)
    powers = persistence_powers(cut, p)[:cut]

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        # as the crisp kernel: the powers summed, 1 - p applied last (0 past the cutoff)
        return (1.0 - p) * binary.gained(relevant, ranks, powers)

    return kernel


def binary_err(depth: int, *, gmax: float, k: int | None = None) -> Any:
    if gmax < 1:
        return None  # grade 1 above gmax: the crisp kernel's error applies
    cut = depth if k is None else min(k, depth)
    stop = 1.0 / 2.0**gmax

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        total = np.zeros(relevant.shape[1])
        reach = np.ones(relevant.shape[1])
        inside = binary.hits_within(relevant, ranks, cut)
        for j in range(len(inside)):  # a loop over candidate columns, vectorised over rows
            hit = inside[j]
            total += np.where(hit, reach * stop / (ranks[j] + 1.0), 0.0)
            reach *= np.where(hit, 1.0 - stop, 1.0)
        return total

    return kernel
