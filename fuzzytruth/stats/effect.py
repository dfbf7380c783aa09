"""Effect sizes, win/tie/loss counts and power of the paired t test."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from statsmodels.stats.power import TTestPower

from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_alpha,
    check_alternative,
    check_confidence_level,
    check_int,
    check_tolerance,
    no_spread,
)

#: scipy's alternative names -> statsmodels' names.
_POWER_ALTERNATIVES = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def cohens_dz(scores: np.ndarray, *, pairs: np.ndarray | None = None) -> np.ndarray:
    """Paired Cohen's d_z: mean of the per-query differences over their standard deviation.

    ``d_z = mean(a - b) / std(a - b, ddof=1)``; ``t = d_z * sqrt(n)``. NaN when the
    differences have no spread (all equal, up to rounding): a constant difference has no
    standardised size (dividing by its rounding noise gave values like -3e15).

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
    d = x[pairs[:, 0]] - x[pairs[:, 1]]
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
    scores tie), a win when ``score_a - score_b > tie_tolerance`` and a loss otherwise.

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
    d = x[pairs[:, 0]] - x[pairs[:, 1]]
    wins = np.count_nonzero(d > tol, axis=1)
    losses = np.count_nonzero(d < -tol, axis=1)
    return WinsTiesLosses(wins, x.shape[1] - wins - losses, losses, tol)


def _check_effect(effect_size: object) -> float:
    if isinstance(effect_size, bool) or not isinstance(effect_size, (int, float, np.floating)):
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

    Uses :class:`statsmodels.stats.power.TTestPower` (the one-sample t test on differences).

    Examples
    --------
    >>> round(paired_power(0.5, 34), 3)
    0.808
    """
    d = _check_effect(effect_size)
    n_queries = check_int("n_queries", n_queries, minimum=2)
    alt = _POWER_ALTERNATIVES[check_alternative(alternative)]
    return float(
        TTestPower().power(effect_size=d, nobs=int(n_queries), alpha=check_alpha(alpha),
                           alternative=alt)
    )


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
    answer is rounded up to a whole query.

    Examples
    --------
    >>> queries_for_power(0.5)
    34
    >>> queries_for_power(0.2, power=0.9)
    265
    """
    d = _check_effect(effect_size)
    power = check_confidence_level(power, name="power")
    alt = _POWER_ALTERNATIVES[check_alternative(alternative)]
    n = TTestPower().solve_power(
        effect_size=d, nobs=None, alpha=check_alpha(alpha), power=float(power), alternative=alt
    )
    return math.ceil(float(np.squeeze(n)) - 1e-9)
