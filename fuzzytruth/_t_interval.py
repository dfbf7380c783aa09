"""The t interval of a mean over queries, in closed form: the one home of the rule that the
paired comparisons (:mod:`fuzzytruth.stats.procedures`, ``compare()``'s default) and each
system's interval in :meth:`fuzzytruth.evaluation.Evaluation.aggregate` both use, below both so
that neither imports the other.

Examples
--------
>>> t, low, high = t_interval(np.array([[1.0, 1.0, 0.0, 1.0]]), "two-sided", 0.05)
>>> round(float(low[0]), 3), round(float(high[0]), 3)
(-0.046, 1.546)
"""

from __future__ import annotations

import numpy as np

__all__ = ["t_interval"]


def t_interval(
    d: np.ndarray, alternative: str, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t statistic, low, high)`` of the mean of each row of ``d`` (closed form).

    ``d`` is ``(n_rows, n)``; ``alternative`` is ``"two-sided"``, ``"less"`` or ``"greater"``
    (a one-sided interval is open on the other side); ``alpha`` is 1 − the confidence level.
    """
    # scipy.special, not scipy.stats (1 s more to import): stats.t.isf(q, df) is
    # -special.stdtrit(df, q), the same function.
    from scipy.special import stdtrit

    n = d.shape[1]
    mean = d.mean(axis=1)
    se = d.std(axis=1, ddof=1) / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    tail = alpha / 2 if alternative == "two-sided" else alpha
    crit = -stdtrit(n - 1, tail)
    low = mean - crit * se if alternative != "less" else np.full_like(mean, -np.inf)
    high = mean + crit * se if alternative != "greater" else np.full_like(mean, np.inf)
    return t, low, high
