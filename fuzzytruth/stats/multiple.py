"""Multiple comparisons for paired (repeated-measures) data.

* :func:`adjust_pvalues`: Holm, Bonferroni, Benjamini–Hochberg and Benjamini–Yekutieli in
  numpy (no assumption on the tests beyond valid p-values; BH needs positive dependence);
* :func:`romano_wolf`: the bootstrap studentised max-|t| step-down (Romano & Wolf 2005),
  which controls the family-wise error without assuming exchangeable systems and uses the
  dependence between the pairs, so it is less conservative than Holm;
* :func:`randomized_tukey_hsd` and :func:`paired_tukey_hsd`: Tukey's HSD, randomised or on the
  two-way ANOVA. **Both assume exchangeable systems** (under the null the system labels can be
  permuted within a query, i.e. equal means *and* equal variances and correlations). When the
  systems differ in spread they both err and miss: in ``benchmarks/stats_validity.py``
  (table 4: 5 systems ``q + sigma_s e`` with ``sigma = 0.02, 0.05, 0.1, 0.2, 0.3``, 500 data
  sets per cell, Monte Carlo SE about 1.3 % at 10 % and 1.9 % at 80 %) their family-wise
  error with equal means was 9.6–10.6 % at 5 % for 25, 50 and 100 queries (Holm on t tests
  2.2–3.4 %, Romano–Wolf 3.2–4.8 %), and against the least noisy system moved up by 0.04
  they found it in 8.6 % of the data sets at 25 queries, 11.8 % at 50 and 27–28 % at 100,
  where Holm found it in 77.2 %, 99.8 % and 100 % (their pooled variance is the noisy
  systems'). Prefer Holm or Romano–Wolf when systems differ in spread.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats as sps

from fuzzytruth._random import draw_seed
from fuzzytruth._resampling import ResamplingResolutionWarning, permutation_ranges
from fuzzytruth._validation import real_array
from fuzzytruth._warnings import warn
from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_alpha,
    check_alternative,
    check_choice,
    check_int,
    check_n_resamples,
    no_spread,
    paired_differences,
    warn_no_spread,
)
from fuzzytruth.stats.bootstrap import BootstrapResult, check_bootstrap

#: Corrections computed from the p-values alone.
CORRECTIONS = ("holm", "bonferroni", "bh", "by")


_ONE_FAMILY = "the whole 1-D array"
"""``axis`` not given: a 1-D array is one family; more dimensions must say which."""


def adjust_pvalues(
    pvalues: np.ndarray,
    *,
    method: str = "holm",
    alpha: float = 0.05,
    axis: int | str | None = _ONE_FAMILY,
) -> np.ndarray:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like
        The family's p-values. NaN entries (undefined tests) stay NaN and do not count in the
        family size.
    axis : int or None
        Which p-values form a family, required when ``pvalues`` has more than one dimension
        (a 1-D array is one family): each 1-D slice along ``axis`` is adjusted alone, or with
        ``None`` every entry of the array is one family. The libraries differ here, so it is
        not guessed: :func:`scipy.stats.false_discovery_control` takes ``axis=0`` by default,
        statsmodels' ``multipletests`` one family.
    method : {"holm", "bonferroni", "bh", "by"}
        Holm step-down, Bonferroni, Benjamini–Hochberg or Benjamini–Yekutieli (the same
        numbers as :func:`statsmodels.stats.multitest.multipletests`, computed in numpy: the
        statsmodels call runs ``gc.collect()`` and cost 0.1–0.5 s per comparison).
    alpha : float
        Checked only (the adjusted p-values do not depend on it).

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
    >>> adjust_pvalues([[0.01, 0.04], [0.02, 0.3]], method="bonferroni", axis=1).tolist()
    [[0.02, 0.08], [0.04, 0.6]]
    """
    method = check_choice("method", method, CORRECTIONS)
    check_alpha(alpha)
    p = real_array(pvalues, "pvalues")
    if axis is _ONE_FAMILY:
        if p.ndim > 1:
            raise ValueError(
                f"axis must say which p-values form a family when pvalues has "
                f"{p.ndim} dimensions (shape {p.shape}): an int (each 1-D slice along it "
                "adjusted alone) or None (every entry one family); got no axis"
            )
        axis = None
    if axis is not None:
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not (
                -p.ndim <= axis < p.ndim):
            raise ValueError(f"axis must be None or an int in [{-p.ndim}, {p.ndim - 1}] for "
                             f"pvalues of shape {p.shape}; got {axis!r}")
        if p.size == 0:  # no family to adjust (numpy's apply_along_axis refuses it)
            return np.full(p.shape, np.nan)
        return np.apply_along_axis(adjust_pvalues, int(axis), p, method=method)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)  # an infinite p-value is not undefined: it is outside [0, 1]
    outside = ok & ~((p >= 0) & (p <= 1))
    if outside.any():
        raise ValueError(
            f"pvalues must lie in [0, 1] (NaN for an undefined test); got "
            f"{float(p[outside][0])!r}"
        )
    if ok.any():
        out[ok] = _adjust(p[ok], method)
    return out


def _adjust(p: np.ndarray, method: str) -> np.ndarray:
    m = len(p)
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ranked))
    else:
        factor = np.sum(1.0 / rank) if method == "by" else 1.0
        adj = np.minimum.accumulate((factor * m / rank * ranked)[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    out = np.empty(m)
    out[order] = adj
    return out


def can_be_significant(p_min: float, n_tests: int, *, method: str, alpha: float) -> bool:
    """Whether a family of ``n_tests`` tests whose smallest attainable p-value is ``p_min`` can
    reject anything after the ``method`` correction, under the rule ``p < alpha`` that every
    test, interval and star of :mod:`fuzzytruth.stats` uses.

    An adjusted p-value only grows with the raw ones, so the family can reject only if
    ``n_tests`` copies of ``p_min`` do. For Bonferroni and Holm that is ``n_tests * p_min <
    alpha``: with B + 1 = 24,500 Monte Carlo resamples and 1,225 tests, 1225 / 24500 = 0.05
    exactly, which is not below 0.05.

    >>> can_be_significant(1 / 24500, 1225, method="bonferroni", alpha=0.05)
    False
    >>> can_be_significant(1 / 24501, 1225, method="bonferroni", alpha=0.05)
    True
    """
    return bool((adjust_pvalues(np.full(n_tests, p_min), method=method) < alpha).any())


def warn_if_unresolvable(
    n_resamples: int,
    n_tests: int,
    *,
    alpha: float = 0.05,
    method: str = "holm",
    stacklevel: int | None = None,
) -> bool:
    """Warn when no Monte Carlo p-value could pass the corrected threshold.

    The smallest p-value a Monte Carlo test with B resamples can give is 1 / (B + 1). If even
    ``n_tests`` copies of it are not rejected (``p < alpha``) after the correction, no result
    can be significant whatever the data (:func:`can_be_significant`); for Bonferroni and Holm
    this is ``B + 1 <= m / alpha``.

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
    stacklevel : int, optional
        Passed to :func:`warnings.warn` (2: the caller of this function). Default: the line
        that called into fuzzytruth, however deep inside it this function was called.

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
    n_resamples = check_n_resamples(n_resamples)
    n_tests = check_int("n_tests", n_tests, minimum=1)
    method = check_choice("method", method, CORRECTIONS)
    alpha = check_alpha(alpha)
    p_min = 1.0 / (n_resamples + 1)
    if can_be_significant(p_min, n_tests, method=method, alpha=alpha):
        return False
    warn(
        f"n_resamples={n_resamples} is too small for {n_tests} tests at alpha={alpha} with "
        f"the {method!r} correction: the smallest attainable p-value 1/(B+1)={p_min:.3g} "
        f"cannot pass the corrected threshold (for Bonferroni/Holm B + 1 must exceed "
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

    **Assumes exchangeable systems**: under the null, permuting the system labels within a
    query must not change the joint distribution, i.e. equal means *and* equal variances and
    correlations. With equal means but unequal variances its family-wise error was 9.6–10.6 %
    at 5 % for 25–100 queries, and it found a shifted low-variance system in 8.6–27.2 % of
    the data sets where Holm found it in 77.2–100 % (design and figures in the module
    docstring: ``benchmarks/stats_validity.py``, table 4).

    In each of B permutations the system labels are shuffled independently within every query
    (the scores of one query stay with that query; the permutation of query ``q`` in replicate
    ``r`` is keyed by (seed, r, q), so blocks of permutations can be drawn apart), the system
    means are recomputed and the largest minus the smallest mean is recorded. The p-value of a
    pair is ``(b + 1) / (B + 1)``, with b the number of permutations whose range reaches the
    pair's observed ``|mean_a - mean_b|``. The family is always all systems, so the p-values
    control the family-wise error over all pairs whichever ``pairs`` are reported.

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
    means = x.mean(axis=1)
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    ranges = permutation_ranges(x, n_resamples, draw_seed(rng))
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

    **Assumes exchangeable systems** (one pooled residual variance for every system): with
    equal means but unequal variances its family-wise error was 9.6–10.0 % at 5 % for 25–100
    queries, and it found a shifted low-variance system in 8.6–28.2 % of the data sets where
    Holm found it in 77.2–100 % (design and figures in the module docstring:
    ``benchmarks/stats_validity.py``, table 4).

    The residual mean square comes from the additive model ``score = mu + system + query +
    error``, ``MSE = SSE / ((k - 1)(n - 1))``, so the query effect is removed as a paired
    design requires (the unpaired one-way Tukey would leave it in the error). The statistic
    ``q = |mean_a - mean_b| / sqrt(MSE / n)`` is referred to the studentised range
    distribution with ``k`` groups and ``(k - 1)(n - 1)`` degrees of freedom
    (:data:`scipy.stats.studentized_range`). scipy evaluates that distribution by numerical
    integration, a few milliseconds per pair (seconds for the 1,225 pairs of 50 systems).
    When every system is the others shifted (each pair's difference the same on every query,
    up to rounding as the t test judges it), the MSE is 0 and ``q`` is not defined: the
    statistics and p-values are NaN, with a ``DegenerateComparisonWarning`` (rounding noise
    would otherwise give ``q`` near 1e15 and p = 0).

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
    means = x.mean(axis=1)
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    df = float((k - 1) * (n - 1))
    if no_spread(x[1:] - x[0]).all():  # every pair's difference the same on every query
        warn_no_spread(
            np.ones(len(pairs), dtype=bool), [f"systems {a} - {b}" for a, b in pairs],
            "the residual mean square is 0 and the studentised range is not defined: the "
            "tukey-anova statistics and p-values are NaN",
        )
        nan = np.full(len(pairs), np.nan)
        return TukeyResult(difference=diff, statistic=nan, pvalue=nan.copy(), pairs=pairs,
                           method="tukey-anova", mse=0.0, df=df)
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    mse = float((resid**2).sum() / df)
    q = np.abs(diff) / np.sqrt(mse / n)
    p = sps.studentized_range.sf(q, k, df)
    return TukeyResult(
        difference=diff, statistic=q, pvalue=np.clip(p, 0.0, 1.0), pairs=pairs,
        method="tukey-anova", mse=mse, df=df,
    )


def romano_wolf(
    bootstrap: BootstrapResult, *, alternative: str = "two-sided"
) -> np.ndarray:
    """Romano–Wolf step-down adjusted p-values from a bootstrap-t distribution.

    The family is the pairs of ``bootstrap``. With ``t_j = difference_j / se_j`` and the
    bootstrap-t values ``t*_j = (difference*_j - difference_j) / se*_j`` (every pair from the
    same resamples, so their dependence is kept), the pairs are ordered by decreasing
    statistic (``|t|`` two-sided, ``t`` for ``"greater"``, ``-t`` for ``"less"``) and pair
    ``j`` in that order gets ``(b_j + 1) / (B + 1)``, where ``b_j`` counts the resamples whose
    largest statistic over the pairs not yet rejected (``j`` and those after it) reaches
    ``t_j``; the adjusted p-values are then made non-decreasing in that order (Romano & Wolf
    2005, Algorithm 4.1 with studentised statistics). It controls the family-wise error
    without assuming exchangeable systems. Pairs with no spread (undefined ``t``; a spread of
    rounding size counts as none, as for the t test) get NaN and leave the family.

    Parameters
    ----------
    bootstrap : BootstrapResult
        A paired bootstrap over queries (:func:`~fuzzytruth.stats.paired_bootstrap`) or the
        annotator-population bootstrap.
    alternative : {"two-sided", "less", "greater"}
        Direction of the tests.

    Returns
    -------
    numpy.ndarray
        ``(n_pairs,)`` adjusted p-values in the order of ``bootstrap.pairs``.

    Examples
    --------
    >>> from fuzzytruth.stats import paired_bootstrap
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random((3, 40)) + [[0.2], [0.0], [0.0]]
    >>> boot = paired_bootstrap(x, n_resamples=1999, rng=1)
    >>> romano_wolf(boot).round(4).tolist()  # Holm on the t tests: 3e-05, 0.121, 0.176
    [0.0005, 0.083, 0.162]
    """
    bootstrap = check_bootstrap(bootstrap)
    alternative = check_alternative(alternative)
    n = bootstrap._scores.shape[-1]
    d = paired_differences(bootstrap._scores, bootstrap.pairs)
    se = d.std(axis=1, ddof=1) / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = bootstrap.difference / se
    # a spread of rounding size (:func:`no_spread`) is none: t would be 1e15, not undefined
    stat = np.where(no_spread(d), np.nan, _directed(t, alternative))
    out = np.full(len(t), np.nan)
    ok = np.flatnonzero(np.isfinite(stat))
    if len(ok) == 0:
        return out
    ascending = ok[np.argsort(stat[ok], kind="stable")]
    view = replace(
        bootstrap, pairs=bootstrap.pairs[ascending], difference=bootstrap.difference[ascending]
    )
    running = np.full(bootstrap.n_resamples, -np.inf)
    counts = np.empty(len(ascending), dtype=np.int64)
    for sl, t_star, _ in view._studentized_chunks("differences"):
        s = _directed(t_star, alternative)  # (chunk, B)
        np.maximum(s[0], running, out=s[0])
        np.maximum.accumulate(s, axis=0, out=s)
        running = s[-1].copy()
        threshold = stat[ascending[sl]]
        gamma = 1e-12 * (np.abs(threshold) + 1.0)
        counts[sl] = np.count_nonzero(s >= (threshold - gamma)[:, None], axis=1)
    p = (counts + 1) / (bootstrap.n_resamples + 1)
    # descending order: the step-down p-values never decrease
    p_desc = np.maximum.accumulate(p[::-1])
    out[ascending[::-1]] = p_desc
    return out


def _directed(t: np.ndarray, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        return np.abs(t)
    return t if alternative == "greater" else -t
