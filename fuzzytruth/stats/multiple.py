"""Multiple comparisons: p-value corrections and Tukey HSD for paired (repeated-measures) data."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from fuzzytruth.stats._resampling import row_chunks
from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_alpha,
    check_choice,
    check_n_resamples,
)

#: Our names -> statsmodels ``multipletests`` method names.
CORRECTIONS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "by": "fdr_by"}


class ResamplingResolutionWarning(UserWarning):
    """Too few resamples for any Monte Carlo p-value to survive the correction."""


def adjust_pvalues(
    pvalues: np.ndarray, *, method: str = "holm", alpha: float = 0.05
) -> np.ndarray:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like
        The family's p-values. NaN entries (undefined tests) stay NaN and do not count in the
        family size.
    method : {"holm", "bonferroni", "bh", "by"}
        Holm step-down, Bonferroni, Benjamini–Hochberg or Benjamini–Yekutieli, computed by
        :func:`statsmodels.stats.multitest.multipletests`.
    alpha : float
        Passed to statsmodels (the adjusted p-values do not depend on it).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape as ``pvalues``.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="holm").tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    method = check_choice("method", method, list(CORRECTIONS))
    alpha = check_alpha(alpha)
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if np.any((p[ok] < 0) | (p[ok] > 1)):
        raise ValueError("pvalues must lie in [0, 1]; got values outside that range")
    if ok.any():
        out[ok] = multipletests(p[ok], alpha=alpha, method=CORRECTIONS[method])[1]
    return out


def warn_if_unresolvable(
    n_resamples: int,
    n_tests: int,
    *,
    alpha: float = 0.05,
    method: str = "holm",
    stacklevel: int = 2,
) -> bool:
    """Warn when no Monte Carlo p-value could pass the corrected threshold.

    The smallest p-value a Monte Carlo test with B resamples can give is 1 / (B + 1). If even
    ``n_tests`` copies of it are not rejected after the correction, no result can be
    significant whatever the data; for Bonferroni and Holm this is ``B + 1 < m / alpha``.

    Parameters
    ----------
    n_resamples : int
        B of the Monte Carlo test.
    n_tests : int
        Size m of the family.
    alpha : float
        Family-wise (or false-discovery) level.
    method : {"holm", "bonferroni", "bh", "by"}
        The correction.
    stacklevel : int
        Passed to :func:`warnings.warn` (2: the caller of this function).

    Returns
    -------
    bool
        ``True`` if the warning was issued.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_if_unresolvable(999, 1225, alpha=0.05, method="holm")
    True
    >>> print(w[0].message)  # doctest: +ELLIPSIS
    n_resamples=999 is too small for 1225 tests at alpha=0.05 with the 'holm' correction: ...
    """
    method = check_choice("method", method, list(CORRECTIONS))
    alpha = check_alpha(alpha)
    p_min = 1.0 / (n_resamples + 1)
    reject = multipletests(np.full(n_tests, p_min), alpha=alpha, method=CORRECTIONS[method])[0]
    if reject.any():
        return False
    warnings.warn(
        f"n_resamples={n_resamples} is too small for {n_tests} tests at alpha={alpha} with "
        f"the {method!r} correction: the smallest attainable p-value 1/(B+1)={p_min:.3g} "
        f"cannot pass the corrected threshold (for Bonferroni/Holm B + 1 must reach "
        f"m/alpha = {n_tests / alpha:.0f}); no comparison can be significant",
        ResamplingResolutionWarning,
        stacklevel=stacklevel,
    )
    return True


@dataclass(frozen=True, eq=False)
class TukeyResult:
    """Tukey HSD p-values for pairs of systems on paired data.

    Attributes
    ----------
    difference : numpy.ndarray
        ``(n_pairs,)`` mean difference ``a - b``.
    statistic : numpy.ndarray
        ``(n_pairs,)`` the studentised range ``|difference| / sqrt(MSE / n)`` (ANOVA) or the
        absolute mean difference (randomised).
    pvalue : numpy.ndarray
        ``(n_pairs,)`` family-wise adjusted p-values.
    pairs : numpy.ndarray
        ``(n_pairs, 2)`` system indices.
    method : str
        ``"tukey-randomized"`` or ``"tukey-anova"``.
    null_distribution : numpy.ndarray or None
        Randomised: ``(n_resamples,)`` max minus min system mean per permutation.
    mse, df : float or None
        ANOVA: residual mean square and its degrees of freedom ``(k - 1)(n - 1)``.
    """

    difference: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pairs: np.ndarray
    method: str
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    mse: float | None = None
    df: float | None = None


def randomized_tukey_hsd(
    scores: np.ndarray,
    *,
    pairs: np.ndarray | None = None,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> TukeyResult:
    """Randomised Tukey HSD over all systems (Carterette 2012), for paired data.

    In each of B permutations the system labels are shuffled independently within every
    query (the scores of one query stay with that query), the system means are recomputed and
    the largest minus the smallest mean is recorded. The p-value of a pair is
    ``(b + 1) / (B + 1)``, with b the number of permutations whose range reaches the pair's
    observed ``|mean_a - mean_b|``. The family is always all systems, so the p-values control
    the family-wise error over all pairs whichever ``pairs`` are reported.

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` per-query scores.
    pairs : array_like of int, optional
        Pairs to report; default all pairs ``i < j``.
    n_resamples : int
        Number of permutations B.
    rng : numpy.random.Generator or int, optional
        Seed or generator.

    Returns
    -------
    TukeyResult

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7, 0.9, 0.8], [0.5, 0.4, 0.6, 0.5, 0.4], [0.5, 0.5, 0.6, 0.4, 0.4]]
    >>> res = randomized_tukey_hsd(scores, n_resamples=999, rng=0)
    >>> res.pvalue.round(2).tolist()
    [0.02, 0.01, 1.0]
    """
    x = as_scores(scores)
    pairs = as_pairs(pairs, x.shape[0])
    n_resamples = check_n_resamples(n_resamples)
    rng = np.random.default_rng(rng)
    k, n = x.shape
    means = x.mean(axis=1)
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    ranges = np.empty(n_resamples)
    base = np.ascontiguousarray(x.T)  # (n_queries, n_systems)
    rows_per_chunk = max(1, (1 << 21) // (n * k))
    for rows in row_chunks(n_resamples, rows_per_chunk):
        block = np.broadcast_to(base, (rows.stop - rows.start, n, k)).copy()
        rng.permuted(block, axis=2, out=block)
        perm_means = block.mean(axis=1)
        ranges[rows] = perm_means.max(axis=1) - perm_means.min(axis=1)
    observed = np.abs(diff)
    gamma = 1e-12 * (observed + np.abs(x).max())
    ranges_sorted = np.sort(ranges)
    b = n_resamples - np.searchsorted(ranges_sorted, observed - gamma, side="left")
    return TukeyResult(
        difference=diff, statistic=observed, pvalue=(b + 1) / (n_resamples + 1), pairs=pairs,
        method="tukey-randomized", null_distribution=ranges,
    )


def paired_tukey_hsd(scores: np.ndarray, *, pairs: np.ndarray | None = None) -> TukeyResult:
    """Tukey HSD on the two-way ANOVA of systems × queries (paired, no interaction).

    The residual mean square comes from the additive model ``score = mu + system + query +
    error``, ``MSE = SSE / ((k - 1)(n - 1))``, so the query effect is removed as a paired
    design requires (the unpaired one-way Tukey would leave it in the error). The statistic
    ``q = |mean_a - mean_b| / sqrt(MSE / n)`` is referred to the studentised range
    distribution with ``k`` groups and ``(k - 1)(n - 1)`` degrees of freedom
    (:data:`scipy.stats.studentized_range`). scipy evaluates that distribution by numerical
    integration, a few milliseconds per pair (seconds for the 1,225 pairs of 50 systems).

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` per-query scores, at least 2 systems.
    pairs : array_like of int, optional
        Pairs to report; default all pairs ``i < j``.

    Returns
    -------
    TukeyResult

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7, 0.9], [0.5, 0.4, 0.6, 0.5], [0.5, 0.5, 0.6, 0.4]]
    >>> res = paired_tukey_hsd(scores)
    >>> round(res.mse, 5), res.df
    (0.00972, 6.0)
    """
    x = as_scores(scores)
    pairs = as_pairs(pairs, x.shape[0])
    k, n = x.shape
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = float((k - 1) * (n - 1))
    mse = float((resid**2).sum() / df)
    means = x.mean(axis=1)
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diff) / np.sqrt(mse / n)
    p = np.where(np.isnan(q), np.nan, sps.studentized_range.sf(np.nan_to_num(q), k, df))
    return TukeyResult(
        difference=diff, statistic=q, pvalue=np.clip(p, 0.0, 1.0), pairs=pairs,
        method="tukey-anova", mse=mse, df=df,
    )
