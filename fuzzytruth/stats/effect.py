"""Effect sizes, win/tie/loss counts and power of the paired t test."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy import stats

from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_alpha,
    check_alternative,
    check_confidence_level,
    check_int,
    check_tolerance,
    no_spread,
    paired_differences,
    tie_margin,
)

_NCT_LIMIT = 1e9
"""|noncentrality| below which scipy's noncentral t is used. Its survival function returned
NaN from 3.8e9 on, at every df from 1 to 1e20 (statsmodels' power, which takes the lower tail
from the cdf, was NaN at some far smaller ones: two queries, d_z = 20 or 50); beyond the limit
the tails are their limits, exact in double precision (:func:`_upper_tail`)."""

_MOST_QUERIES = 2**80
"""queries_for_power searches up to this many queries (d_z = 1e-10 needs 7.8e20)."""


def cohens_dz(scores: np.ndarray, *, pairs: np.ndarray | None = None) -> np.ndarray:
    """Paired Cohen's d_z: mean of the per-query differences over their standard deviation.

    ``d_z = mean(a - b) / std(a - b, ddof=1)``; ``t = d_z * sqrt(n)``. NaN when the
    differences have no spread (all equal, up to rounding): a constant difference has no
    standardised size (dividing by its rounding noise gave values like -3e15). A difference
    within the rounding of the scores (1e-12 of the largest ``|score|``,
    :func:`~fuzzytruth.stats._validation.paired_differences`) counts as 0.

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` per-query scores.
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices; default all pairs ``i < j``.

    Returns
    -------
    numpy.ndarray
        ``(n_pairs,)`` effect sizes.

    Examples
    --------
    >>> cohens_dz([[0.5, 0.7, 0.6, 0.9], [0.4, 0.6, 0.6, 0.5]]).round(4).tolist()
    [0.866]
    """
    x = as_scores(scores)
    pairs = as_pairs(pairs, x.shape[0])
    d = paired_differences(x, pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(no_spread(d), np.nan, d.mean(axis=1) / d.std(axis=1, ddof=1))


@dataclass(frozen=True, eq=False)
class WinsTiesLosses:
    """Per pair, the number of queries where ``a`` beats, ties or loses to ``b``."""

    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    tie_tolerance: float


def wins_ties_losses(
    scores: np.ndarray, *, pairs: np.ndarray | None = None, tie_tolerance: float = 0.0
) -> WinsTiesLosses:
    """Count per-query wins, ties and losses of ``a`` against ``b``.

    A query is a tie when ``|score_a - score_b| <= tie_tolerance`` (default 0: only equal
    scores tie), a win when ``score_a - score_b > tie_tolerance`` and a loss otherwise, up to
    the rounding of the scores (:func:`~fuzzytruth.stats._validation.tie_margin`: P@10 scores
    0.8 and 0.6 tie at a tolerance of 0.2, as 0.5 and 0.3 do).

    Examples
    --------
    >>> wtl = wins_ties_losses([[0.5, 0.7, 0.6, 0.9], [0.4, 0.6, 0.6, 0.95]])
    >>> wtl.wins.tolist(), wtl.ties.tolist(), wtl.losses.tolist()
    ([2], [1], [1])
    >>> wins_ties_losses([[0.5, 0.7], [0.45, 0.9]], tie_tolerance=0.1).ties.tolist()
    [1]
    """
    x = as_scores(scores)
    pairs = as_pairs(pairs, x.shape[0])
    tol = check_tolerance(tie_tolerance)
    margin = tie_margin(tol, x)
    d = x[pairs[:, 0]] - x[pairs[:, 1]]
    wins = np.count_nonzero(d > margin, axis=1)
    losses = np.count_nonzero(d < -margin, axis=1)
    return WinsTiesLosses(wins, x.shape[1] - wins - losses, losses, tol)


def _check_effect(effect_size: object) -> float:
    if isinstance(effect_size, bool) or not isinstance(effect_size, Real):
        raise ValueError(f"effect_size must be a finite non-zero number; got {effect_size!r}")
    value = float(effect_size)
    if not math.isfinite(value) or value == 0:
        raise ValueError(f"effect_size must be a finite non-zero number; got {effect_size!r}")
    return value


def paired_power(
    effect_size: float,
    n_queries: int,
    *,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Power of the paired t test to detect a standardised difference ``d_z`` with n queries.

    The t statistic of n paired differences with standardised mean ``d_z`` is noncentral t
    with n − 1 degrees of freedom and noncentrality ``d_z·√n``; the power is its probability
    beyond the critical values (scipy's noncentral t: the same numbers as statsmodels'
    ``TTestPower``, which returned NaN at some, e.g. two queries and d_z = 20 or 50).

    Examples
    --------
    >>> round(paired_power(0.5, 34), 3)
    0.808
    >>> round(paired_power(50.0, 2), 10)  # statsmodels: nan
    0.9999999711
    """
    d = _check_effect(effect_size)
    n_queries = check_int("n_queries", n_queries, minimum=2)
    return _power(d, n_queries, check_alpha(alpha), check_alternative(alternative))


def queries_for_power(
    effect_size: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> int:
    """Number of queries the paired t test needs to detect ``d_z`` with the given power.

    ``effect_size`` is Cohen's d_z: the expected difference divided by the standard deviation
    of the per-query differences (estimate it with :func:`cohens_dz` on pilot data). The
    answer is the smallest whole number of queries (at least 2) whose :func:`paired_power`
    reaches ``power``, found by doubling and bisection.

    Examples
    --------
    >>> queries_for_power(0.5)
    34
    >>> queries_for_power(0.2, power=0.9)
    265
    >>> queries_for_power(100.0)  # statsmodels: no solution (nan)
    2
    """
    d = _check_effect(effect_size)
    target = check_confidence_level(power, name="power")
    alpha = check_alpha(alpha)
    alternative = check_alternative(alternative)
    if (alternative == "greater" and d < 0) or (alternative == "less" and d > 0):
        raise ValueError(
            f"effect_size must be {'positive' if alternative == 'greater' else 'negative'} "
            f"for alternative={alternative!r}: with the other sign the power stays below "
            f"alpha at every number of queries; got {effect_size!r}"
        )
    if _power(d, 2, alpha, alternative) >= target:
        return 2
    short, enough = 2, 4  # the power is below the target at ``short``
    while _power(d, enough, alpha, alternative) < target:
        if enough >= _MOST_QUERIES:
            raise ValueError(
                f"effect_size={effect_size!r} needs more than {_MOST_QUERIES:.2g} queries "
                f"for power {target} at alpha={alpha}"
            )
        short, enough = enough, enough * 2
    while enough - short > 1:
        middle = (short + enough) // 2
        if _power(d, middle, alpha, alternative) >= target:
            enough = middle
        else:
            short = middle
    return enough


def _power(d: float, n: int, alpha: float, alternative: str) -> float:
    """Power of the paired t test at d_z = ``d`` with ``n`` queries (arguments checked)."""
    df, nc = float(n - 1), d * math.sqrt(n)  # float: n may pass 2**63
    if alternative == "two-sided":
        c = float(stats.t.isf(alpha / 2, df))
        return _upper_tail(c, df, nc) + _upper_tail(c, df, -nc)
    c = float(stats.t.isf(alpha, df))
    return _upper_tail(c, df, nc if alternative == "greater" else -nc)


def _upper_tail(c: float, df: float, nc: float) -> float:
    """P(T > c) for T noncentral t with ``df`` degrees of freedom and noncentrality ``nc``.

    Beyond :data:`_NCT_LIMIT`, with |nc| >= 80·max(|c|, 1), T = (Z + nc)/S (S² ~ χ²_df / df)
    lies on nc's side of c but with probability below Φ(−40) + P(S >= 40) < 1e-340, which
    is 0 in double precision: the tail is 1 (nc > 0) or 0 (nc < 0) exactly as computed.
    """
    if abs(nc) < _NCT_LIMIT:
        return float(stats.nct.sf(c, df, nc))
    if abs(nc) >= 80 * max(abs(c), 1.0):
        return 1.0 if nc > 0 else 0.0
    raise ValueError(
        f"the power at noncentrality {nc:.3g} with critical value {c:.3g} (df = {df:.3g}) is "
        f"beyond scipy's noncentral t; use a larger alpha or a smaller effect_size"
    )
