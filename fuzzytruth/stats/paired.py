"""Paired significance tests for many pairs of systems at once.

Every test compares the per-query scores of system ``a`` with those of system ``b`` on the same
queries; the difference is always ``a - b``. All pairs are computed in one vectorised pass:
the randomisation and bootstrap tests derive every pair from one matrix of *per-system*
resampled means (``n_resamples x n_systems``), never from a ``pairs x queries`` array per
resample.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special
from scipy import stats as sps

from fuzzytruth._random import as_generator, draw_seed
from fuzzytruth._resampling import count_extreme, exact_flip_means, sign_flip_means
from fuzzytruth._t_interval import t_statistic
from fuzzytruth._validation import check_flag
from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_alternative,
    check_choice,
    check_n_resamples,
    flip_scale,
    no_spread,
    paired_differences,
    tie_margin,
    warn_no_spread,
)
from fuzzytruth.stats.bootstrap import BootstrapResult, paired_bootstrap

TESTS = ("t", "randomization", "wilcoxon", "sign", "bootstrap")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
#: Largest number of queries for which the randomisation test enumerates all sign flips.
EXACT_MAX_QUERIES = 16
#: Largest number of ranked differences (the non-zero ones for ``zero_method="wilcox"``, all of
#: them for ``"pratt"`` and ``"zsplit"``) for which the Wilcoxon test computes its exact
#: conditional null distribution, ties and zeros included; above it, the normal approximation.
#: Its dynamic programme costs O(n**3) a pair: the 1,225 pairs of 50 systems' P@10 scores took
#: 0.17 s at 25 queries, 0.4 s at 50, 0.8 s at 100 (the normal approximation 0.02-0.04 s); one
#: pair 1.6 ms at 200, 48 ms at 500. Beyond 100 the tie-corrected normal p-value was within
#: 0.001 of the exact one wherever that lay in [0.01, 0.1] (P@10-like differences, 300 samples
#: per size; within 0.0024 at 50, 0.011 at 25); where the exact p lay in [1e-5, 1e-3] the
#: normal one was up to 65 % off at 75-200 queries (larger on average: conservative).
WILCOXON_EXACT_MAX = 100


@dataclass(frozen=True, eq=False)
class PairedTestResult:
    """Result of a paired test over several pairs of systems (scipy-like, frozen).

    Attributes
    ----------
    statistic : numpy.ndarray
        ``(n_pairs,)`` test statistic: the t statistic (``"t"``), the mean difference
        (``"randomization"``, ``"bootstrap"``), the Wilcoxon statistic as scipy reports it
        (``"wilcoxon"``) or the number of positive differences (``"sign"``); for
        ``"bootstrap"`` the t statistic.
    pvalue : numpy.ndarray
        ``(n_pairs,)`` p-values; NaN where the test is undefined (e.g. all differences zero
        for the t, Wilcoxon and sign tests).
    pairs : numpy.ndarray
        ``(n_pairs, 2)`` system indices ``(a, b)``.
    method, alternative : str
        The test and the alternative hypothesis.
    n_resamples : int or None
        Resamples used (``2**n_queries`` when the randomisation test is exact), ``None`` for
        closed-form tests.
    exact : numpy.ndarray
        ``(n_pairs,)`` bool, whether each p-value is exact (no Monte Carlo, no normal
        approximation).
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    pairs: np.ndarray
    method: str
    alternative: str
    n_resamples: int | None
    exact: np.ndarray
    _null_system: np.ndarray | None = field(default=None, repr=False)
    _bootstrap: BootstrapResult | None = field(default=None, repr=False)

    @property
    def null_distribution(self) -> np.ndarray | None:
        """``(n_resamples, n_pairs)`` resampled statistics, for the resampling tests.

        Built on access (from the stored per-system resampled means, or for the bootstrap
        test the bootstrap-t values ``(mean* - mean) / se*``), so it costs memory only when
        asked for. ``None`` for the closed-form tests.
        """
        if self._bootstrap is not None:
            out = np.empty((self._bootstrap.n_resamples, len(self.pairs)))
            for sl, t_star, _ in self._bootstrap._studentized_chunks("differences"):
                out[:, sl] = t_star.T
            return out
        if self._null_system is None:
            return None
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        return self._null_system[:, a] - self._null_system[:, b]


def paired_test(
    scores: np.ndarray,
    *,
    pairs: np.ndarray | None = None,
    method: str = "t",
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    exact: bool | None = None,
    zero_method: str = "wilcox",
    rng: np.random.Generator | int | None = None,
) -> PairedTestResult:
    """Paired test of ``a`` against ``b`` for every pair, vectorised over pairs.

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` per-query scores (average ground-truth worlds first).
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices; default all pairs ``i < j``. The difference is
        ``scores[a] - scores[b]``.
    method : {"t", "randomization", "wilcoxon", "sign", "bootstrap"}
        ``"t"``: paired t test (closed form, as :func:`scipy.stats.ttest_rel`).
        ``"randomization"``: sign-flip test of the mean difference; one flip matrix shared by
        every pair; p = (b + 1) / (B + 1), where b counts resampled means at least as extreme.
        When ``exact`` (default: ``n_queries <= 16``) all ``2**n_queries`` flips are
        enumerated and p = b / 2**n, as :func:`scipy.stats.permutation_test` with
        ``permutation_type="samples"``.
        ``"wilcoxon"``: signed-rank test. Up to :data:`WILCOXON_EXACT_MAX` (100) ranked
        differences (the non-zero ones for ``zero_method="wilcox"``, all of them for
        ``"pratt"`` and ``"zsplit"``) the p-value is exact, ties and zeros included: the
        null distribution of the rank sum given the observed midranks, every non-zero
        difference as likely positive as negative, computed over the sums of doubled
        midranks (integers). This is scipy's ``method=PermutationMethod(n_resamples)``
        when ``2**n <= n_resamples`` (it enumerates every sign flip; a zero's flip changes
        nothing) and, untied, its ``method="exact"``; two-sided p is twice the smaller tail,
        capped at 1, as in both. Above the bound: the normal approximation with tie
        correction and no continuity correction. scipy's default ``method="auto"`` takes
        the normal approximation for tied samples of more than 13 and untied ones of more
        than 50: on 20 P@10 queries with d = (0, 2, 2, 1, 0, 2, -1, 3, 5, 2, -1, 6, -1, 0,
        0, 0, 1, -1, -2, -1) / 10 it gives 0.0835 where the exact p is 0.0862. With the
        zeros ranked, ``"zsplit"`` adds half their ranks to the observed sum and to every
        flipped one, so its exact p-values are ``"pratt"``'s. Sizes ``|a - b|`` equal up to
        the rounding of the scores (1e-12 of the largest ``|score|``) are ties: P@10's
        0.7 - 0.6 and 0.2 - 0.1 (0.09999999999999998 and 0.1 in doubles) tie as in exact
        arithmetic, where scipy would rank the doubles apart and call the sample untied.
        ``"sign"``: exact binomial test on the numbers of positive and negative differences,
        zero differences dropped (as :func:`scipy.stats.binomtest` with p = 1/2).
        ``"bootstrap"``: studentised (bootstrap-t) test of the mean difference (Efron &
        Tibshirani 1993, §16.4): queries are resampled with one index vector shared by all
        systems, ``t* = (mean* - mean) / se*`` is the null distribution of the observed
        ``t = mean / se`` and p is twice the smaller tail, each tail at least 1 / (B + 1);
        exactly the test dual to the studentised interval of
        :meth:`~fuzzytruth.stats.BootstrapResult.confidence_interval` (with 10 queries the
        unstudentised percentile test rejected 9.0–18.6 % of true nulls at 5 %, bootstrap-t
        4.8–10.0 %, on the nine models of ``benchmarks/stats_validity.py`` without rare large
        differences, 2,000 comparisons each, Monte Carlo SE at most 0.9 %).
    alternative : {"two-sided", "less", "greater"}
        The alternative to "no difference"; ``"greater"`` means ``a`` scores higher.
    n_resamples : int
        B for the Monte Carlo tests.
    exact : bool, optional
        Randomisation test: enumerate all sign flips (default ``n_queries <= 16``). Wilcoxon
        test: the exact conditional null at any number of ranked differences (``True``; its
        cost grows as n³ a pair), or the normal approximation with tie correction at every
        size (``False``: R's ``wilcox.test(exact = FALSE, correct = FALSE)`` and scipy's
        ``method="approx"``); default exact up to :data:`WILCOXON_EXACT_MAX`. Other tests
        take no ``exact``.
    zero_method : {"wilcox", "pratt", "zsplit"}
        Wilcoxon only: how zero differences are treated (scipy's meanings): dropped
        (default), ranked then dropped, or split between the positive and negative sums.
    rng : numpy.random.Generator or int, optional
        Seed or generator for the Monte Carlo tests.

    Returns
    -------
    PairedTestResult

    Notes
    -----
    A difference within the rounding of the scores' arithmetic, 1e-12 of the largest
    ``|score|`` (:func:`~fuzzytruth.stats._validation.paired_differences`), is a tie (0) for
    every test, as it is for :func:`~fuzzytruth.stats.wins_ties_losses`: 0.3 against
    0.1 + 0.2 is no loss to the sign and Wilcoxon tests, and no spread to the t test. scipy
    takes the doubles as they are, so it can differ on such scores.

    A pair whose differences are all equal (up to rounding:
    :func:`~fuzzytruth.stats._validation.no_spread`) has no t statistic: the t and bootstrap
    tests give NaN for it, with a :class:`~fuzzytruth.stats.DegenerateComparisonWarning`, as
    ``compare()`` does (scipy's ``ttest_rel`` gives an infinite t and p = 0, or a t of about
    1e16 when the differences agree only up to rounding). The randomisation, Wilcoxon and
    sign tests are defined there: a constant non-zero difference on n queries gets their
    smallest two-sided p-value, ``2 / 2**n`` when exact.

    The resampling tests never build a ``pairs x queries`` array per resample: with the flip
    (or resample-count) matrix ``F`` of shape ``(B, n_queries)``, ``F @ scores.T / n`` holds
    every system's resampled mean and each pair's null value is the difference of two of its
    columns, compared with the observed one 4,096 resamples at a time. For the sign flips the
    product is done by table look-up, one random byte per 8 queries (exactly the same
    distribution as independent fair signs). Every resample is keyed by its number
    (:mod:`fuzzytruth._random`), so blocks of resamples can be drawn apart. A pair's
    null values, tolerance and interval use its two systems' scores only: what it gets does
    not depend on the other systems compared with it. Everything is float64: float32 would
    round resampled means by about 1e-7 and could move them across the observed statistic,
    which matters because exact ties are common with discrete measures such as P@10.
    Resampled values within a relative 1e-12 of the observed statistic count as "at least as
    extreme".

    Examples
    --------
    >>> scores = [[0.5, 0.7, 0.6, 0.9], [0.4, 0.6, 0.6, 0.5]]
    >>> res = paired_test(scores, method="t")
    >>> res.statistic.round(4).tolist(), res.pvalue.round(4).tolist()
    ([1.7321], [0.1817])
    >>> paired_test(scores, method="randomization").pvalue.tolist()  # 2**4 flips, exact
    [0.25]
    >>> paired_test(scores, method="wilcoxon").pvalue.tolist()  # ranks 1.5, 1.5, 3; a zero
    [0.25]
    """
    x = as_scores(scores)
    pairs = as_pairs(pairs, x.shape[0])
    method = check_choice("method", method, TESTS)
    alternative = check_alternative(alternative)
    zero_method = check_choice("zero_method", zero_method, ZERO_METHODS)
    if method in ("randomization", "bootstrap"):
        n_resamples = check_n_resamples(n_resamples, minimum=2 if method == "bootstrap" else 1)
    exact = check_flag("exact", exact, none=True)
    if exact is not None and method not in ("randomization", "wilcoxon"):
        raise ValueError(
            f"exact applies to method='randomization' and 'wilcoxon'; got exact={exact} with "
            f"method={method!r}"
        )
    if method == "t":
        return _t_test(x, pairs, alternative)
    if method == "wilcoxon":
        return _wilcoxon(x, pairs, alternative, zero_method, exact)
    if method == "sign":
        return _sign_test(x, pairs, alternative)
    generator = as_generator(rng)
    if method == "randomization":
        return _randomization(x, pairs, alternative, n_resamples, exact, generator)
    return _bootstrap_test(x, pairs, alternative, n_resamples, generator)


def _pvalue_from_cdf(
    cdf: np.ndarray, sf: np.ndarray, alternative: str
) -> np.ndarray:
    if alternative == "less":
        return cdf
    if alternative == "greater":
        return sf
    return np.minimum(1.0, 2.0 * np.minimum(cdf, sf))


def t_pvalue(t: np.ndarray, n_queries: int, alternative: str) -> np.ndarray:
    """p-value of the paired t statistics ``t`` on ``n_queries`` queries (``n - 1`` df): the
    one rule of :func:`paired_test`'s t test and of ``compare()``'s t procedure."""
    dist = sps.t(n_queries - 1)
    return _pvalue_from_cdf(dist.cdf(t), dist.sf(t), alternative)


def _studentised(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Each pair's t statistic, NaN (with a warning) where its differences have no spread."""
    d = paired_differences(x, pairs)
    flat = no_spread(d)
    warn_no_spread(
        flat, [f"systems {a} - {b}" for a, b in pairs],
        "the t statistic is not defined and the t and bootstrap tests give NaN for them "
        "(scipy's ttest_rel would give an infinite t and p = 0, or a t of about 1e16 when "
        "the differences agree only up to rounding); the randomization, wilcoxon and sign "
        "tests are defined there",
    )
    return np.where(flat, np.nan, t_statistic(d)[0])


def _t_test(x: np.ndarray, pairs: np.ndarray, alternative: str) -> PairedTestResult:
    t = _studentised(x, pairs)
    p = t_pvalue(t, x.shape[1], alternative)
    return PairedTestResult(
        statistic=t, pvalue=p, pairs=pairs, method="t", alternative=alternative,
        n_resamples=None, exact=np.ones(len(pairs), dtype=bool),
    )


def _randomization(
    x: np.ndarray,
    pairs: np.ndarray,
    alternative: str,
    n_resamples: int,
    exact: bool | None,
    rng: np.random.Generator,
) -> PairedTestResult:
    n = x.shape[1]
    if exact is None:
        exact = n <= EXACT_MAX_QUERIES
    # Not centred across systems (which shrank the sums a little): the centre, and so every
    # pair's null values, then depended on which other systems were compared
    observed = paired_differences(x, pairs).mean(axis=1)
    if exact:
        if n > 24:
            raise ValueError(f"exact=True enumerates 2**n_queries flips; n_queries={n} > 24")
        null = exact_flip_means(x)
        b_total = null.shape[0]
    else:
        b_total = n_resamples
        null = sign_flip_means(x, b_total, draw_seed(rng))
    b = count_extreme(null, pairs, observed, alternative=alternative,
                      scale=flip_scale(x, pairs))
    p = b / b_total if exact else (b + 1) / (b_total + 1)
    return PairedTestResult(
        statistic=observed, pvalue=p, pairs=pairs, method="randomization",
        alternative=alternative, n_resamples=b_total,
        exact=np.full(len(pairs), bool(exact)), _null_system=null,
    )


def _bootstrap_test(
    x: np.ndarray,
    pairs: np.ndarray,
    alternative: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> PairedTestResult:
    t = _studentised(x, pairs)
    boot = paired_bootstrap(x, pairs=pairs, n_resamples=n_resamples, rng=rng)
    p = boot.pvalue(method="studentized", alternative=alternative)
    return PairedTestResult(
        statistic=t,
        pvalue=np.where(np.isnan(t), np.nan, p),
        pairs=pairs, method="bootstrap", alternative=alternative, n_resamples=n_resamples,
        exact=np.zeros(len(pairs), dtype=bool), _bootstrap=boot,
    )


def _sign_test(x: np.ndarray, pairs: np.ndarray, alternative: str) -> PairedTestResult:
    d = paired_differences(x, pairs)
    k = np.count_nonzero(d > 0, axis=1)
    n = k + np.count_nonzero(d < 0, axis=1)
    cdf = sps.binom.cdf(k, n, 0.5)
    sf = sps.binom.sf(k - 1, n, 0.5)
    p = _pvalue_from_cdf(cdf, sf, alternative)
    p = np.where(n > 0, p, np.nan)
    return PairedTestResult(
        statistic=k.astype(np.float64), pvalue=p, pairs=pairs, method="sign",
        alternative=alternative, n_resamples=None, exact=np.ones(len(pairs), dtype=bool),
    )


def _merge_rounding_ties(values: np.ndarray, margin: float) -> np.ndarray:
    """Per row, each value replaced by the smallest of its run of sorted neighbours less than
    ``margin`` apart: sizes of differences equal in exact arithmetic but not in doubles
    (0.7 - 0.6 = 0.09999999999999998, 0.2 - 0.1 = 0.1) become equal, so they tie in rank.

    >>> _merge_rounding_ties(np.array([[0.1, 0.7 - 0.6, 0.3, 0.8 - 0.7]]), 1e-12).tolist()
    [[0.09999999999999998, 0.09999999999999998, 0.3, 0.09999999999999998]]
    """
    order = np.argsort(values, axis=1, kind="stable")
    v = np.take_along_axis(values, order, axis=1)
    starts = np.ones(v.shape, dtype=bool)
    starts[:, 1:] = np.diff(v, axis=1) > margin
    first = np.where(starts, np.arange(v.shape[1]), 0)
    np.maximum.accumulate(first, axis=1, out=first)
    out = np.empty_like(values)
    np.put_along_axis(out, order, np.take_along_axis(v, first, axis=1), axis=1)
    return out


def _tie_term(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Per row, the sum of ``t**3 - t`` over groups of equal values among the kept entries."""
    rows, cols = values.shape
    order = np.argsort(values, axis=1, kind="stable")
    v = np.take_along_axis(values, order, axis=1)
    k = np.take_along_axis(keep, order, axis=1)
    new_group = np.ones_like(v, dtype=bool)
    new_group[:, 1:] = v[:, 1:] != v[:, :-1]
    group_id = np.cumsum(new_group.ravel()) - 1
    sizes = np.bincount(group_id, weights=k.ravel().astype(np.float64))
    group_row = np.repeat(np.arange(rows), cols)[new_group.ravel()]
    return np.bincount(group_row, weights=sizes**3 - sizes, minlength=rows)


def _signed_rank_counts(doubled: np.ndarray) -> np.ndarray:
    """Numbers of the ``2**len(doubled)`` sign patterns giving each sum ``s = 0, 1, ...,
    doubled.sum()`` of the entries taken positive: the null distribution of ``2 T+`` given the
    ranks, ``doubled`` being twice the midranks of the non-zero differences (integers).

    One shift-and-add per rank over the sums reached so far (O(n * sum)); the counts are exact
    integers while below 2**53 (always up to 53 ranks), then exact to the double rounding.

    >>> _signed_rank_counts(np.array([3, 3, 6])).tolist()  # ranks 1.5, 1.5, 3
    [1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.0]
    """
    counts = np.zeros(int(doubled.sum()) + 1)
    counts[0] = 1.0
    top = 0
    for rank in doubled:  # numpy buffers the overlapping slices: the old counts are added
        counts[rank : top + rank + 1] += counts[: top + 1]
        top += rank
    return counts


def _exact_signed_rank_pvalues(
    doubled: np.ndarray, positive: np.ndarray, alternative: str
) -> np.ndarray:
    """Exact conditional p-value of each row of ``doubled`` (``(n_rows, n)`` integers, twice the
    midranks of the non-zero differences, 0 for the rest) given its ranks: each non-zero
    difference is as likely positive as negative, and ``positive`` marks the observed signs.
    Rows with the same multiset of ranks (every untied row of one size) share one distribution.
    """
    observed = np.where(positive, doubled, 0).sum(axis=1)
    kinds, kind = np.unique(np.sort(doubled, axis=1), axis=0, return_inverse=True)
    kind = kind.ravel()
    p = np.empty(len(doubled))
    for i, ranks in enumerate(kinds):
        rows = np.flatnonzero(kind == i)
        ranks = ranks[ranks > 0]
        pmf = _signed_rank_counts(ranks) / 2.0 ** len(ranks)
        cdf = np.cumsum(pmf)
        sf = np.cumsum(pmf[::-1])[::-1]
        k = observed[rows]
        p[rows] = _pvalue_from_cdf(cdf[k], sf[k], alternative)
    return p


def _wilcoxon(
    x: np.ndarray, pairs: np.ndarray, alternative: str, zero_method: str,
    exact_asked: bool | None = None,
) -> PairedTestResult:
    d = paired_differences(x, pairs)
    n_all = d.shape[1]
    # sizes equal up to the rounding of the scores tie, as the zeros do (paired_differences):
    # P@10 differences of one tenth came out 0.09999999999999998, 0.1 or 0.10000000000000009, so
    # their ranks followed the rounding: p = 0.05, 0.11 or 0.28 for the same 8 gains and 2
    # losses of 0.1, by which queries lost (all tied: p = 2 x 56/1024 = 0.109)
    absd = _merge_rounding_ties(np.abs(d), tie_margin(0.0, x))
    zero = d == 0
    n_zero = zero.sum(axis=1).astype(np.float64)
    # Zeros are the smallest |d|, so ranking all entries and subtracting n_zero gives the ranks
    # among the non-zero differences alone, ties included.
    ranks = sps.rankdata(absd, method="average", axis=1)
    if zero_method == "wilcox":
        ranks = ranks - n_zero[:, None]
        count = n_all - n_zero
        ties = _tie_term(absd, ~zero)
    else:
        count = np.full(len(pairs), float(n_all))
        ties = _tie_term(absd, ~zero if zero_method == "pratt" else np.ones_like(zero))
    r_plus = np.where(d > 0, ranks, 0.0).sum(axis=1)
    r_minus = np.where(d < 0, ranks, 0.0).sum(axis=1)
    mean = count * (count + 1) / 4
    var = count * (count + 1) * (2 * count + 1)
    if zero_method == "zsplit":
        half_zero = np.where(zero, ranks, 0.0).sum(axis=1) / 2
        r_plus, r_minus = r_plus + half_zero, r_minus + half_zero
    elif zero_method == "pratt":
        mean = mean - n_zero * (n_zero + 1) / 4
        var = var - n_zero * (n_zero + 1) * (2 * n_zero + 1)
    se = np.sqrt((var - ties / 2) / 24)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / se
    p = _pvalue_from_cdf(special.ndtr(z), special.ndtr(-z), alternative)
    defined = n_zero < n_all  # some difference is not a tie
    within = (count <= WILCOXON_EXACT_MAX) if exact_asked is None else bool(exact_asked)
    exact = defined & within
    if exact.any():
        # the zeros' ranks are fixed (none for "pratt", half to each sum for "zsplit"), so the
        # conditional null flips the non-zero differences' signs alone, as scipy's permutation
        # method does (flipping a zero changes nothing): "pratt" and "zsplit" share p-values
        doubled = np.where(zero, 0, np.rint(2 * ranks).astype(np.int64))[exact]
        p[exact] = _exact_signed_rank_pvalues(doubled, d[exact] > 0, alternative)
    p = np.where(defined, p, np.nan)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    return PairedTestResult(
        statistic=statistic, pvalue=p, pairs=pairs, method="wilcoxon",
        alternative=alternative, n_resamples=None, exact=exact,
    )
