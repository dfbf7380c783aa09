"""One procedure per method: a test and its interval from the same computation.

A *procedure* answers one question about the per-query differences ``a - b`` of every pair
of systems and gives a p-value and an interval that agree: for every ``alpha``,
``p < alpha`` exactly when the ``1 - alpha`` interval excludes 0 (two-sided, or the one-sided
interval of a one-sided alternative). The interval is the set of null values the test does
not reject, or the test is the interval read backwards:

``"t"``
    paired t test and the t interval ``mean ± t_{n-1} se`` (closed form; the default). In
    ``benchmarks/stats_validity.py`` (eleven generating models, 2,000 null and 2,000 effect
    comparisons per cell, B = 999, Monte Carlo SE about 0.5 %) it held 93–97 % coverage and
    3.5–6.5 % size from 50 queries on the eight models without strong skew (normal, t with 3
    df, heavy-tailed AP, RR, P@10 with ties, bounded scores, a skewness of 1.9, uncertain
    truth), and on none of the strongly skewed ones: size 7.6 % at 50 queries and 6.6 % at
    100 on gamma differences (skewness 2.8), 10.3 % at 50 when 10 % of the queries carry a
    large one-sided difference, 8.0 and 10.9 % when 5 % do (:func:`too_skewed` warns). No
    procedure held on every model at any number of queries; t held on the most (8 of 11 at
    50 queries, against 7 for the randomisation test, 6 for bootstrap-t, 5 for the
    percentile interval and 4 for BCa; at 100 the randomisation test matched it), and the
    bootstrap intervals under-covered heavy-tailed differences (AP at 50 queries: BCa
    88.5 %, bootstrap-t 90.1 %).
``"bootstrap"``
    studentised bootstrap (bootstrap-t) test and interval, with a finite fallback for
    resamples without spread.
``"bca"``, ``"percentile"``, ``"basic"``
    bootstrap intervals and the tests obtained by inverting them
    (:meth:`~fuzzytruth.stats.BootstrapResult.pvalue`).
``"randomization"``
    sign-flip randomisation test (exact enumeration up to 16 queries) and the interval of
    all shifts ``theta`` the test of "mean difference = theta" does not reject (Hodges–Lehmann
    inversion, bounds located by bisection; the value 0 is decided by the test itself).
``"wilcoxon"``, ``"sign"``
    tests of another hypothesis: symmetry of the differences about 0 (signed-rank, exact
    given the midranks up to 100 queries, ties and zeros included:
    :func:`~fuzzytruth.stats.paired_test`) and a zero median (sign, exact binomial). They do
    not test the mean and come with no interval (the ``hypothesis`` column says so). On
    skewed differences with mean 0 and a negative median (skewness 1.9,
    ``benchmarks/stats_validity.py``, 2,000 comparisons per cell, Monte Carlo SE at most
    1.1 %) they rejected 11.3 % (Wilcoxon) and 20.6 % (sign) at 5 % with 25 queries, 32.1 %
    and 61.1 % with 100.

Every procedure rejects when ``p < alpha`` with ``alpha = round(1 - confidence_level, 12)``
(:func:`~fuzzytruth.stats._validation.significance_level`): a Monte Carlo p-value of exactly
0.05 is not significant at 95 % and its interval holds 0.

A per-query difference within the rounding of the scores' arithmetic (1e-12 of the largest
``|score|``, :func:`~fuzzytruth.stats._validation.paired_differences`) is a tie, 0, for every
procedure, as in the W/T/L counts: 0.3 against 0.1 + 0.2 is neither a loss nor spread.

Degenerate input is refused or flagged, never turned into an absurd number: fewer than
:data:`MIN_QUERIES` queries is an error; a pair whose differences are all equal (no spread,
up to rounding) gets NaN for the p-value, the interval and the effect size, with a
:class:`~fuzzytruth.stats.DegenerateComparisonWarning`; fewer than
:data:`RELIABLE_QUERIES` queries, a pair whose differences are mostly ties, or (from
:data:`RELIABLE_QUERIES` queries on) a pair whose differences are too skewed for their number
of queries (:func:`too_skewed`) gives an :class:`UnreliableInferenceWarning`: no procedure
held its level on every model there in the validity study.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from fuzzytruth._random import as_generator, draw_seed
from fuzzytruth._resampling import CHUNK_PAIRS, exact_flip_means, row_chunks, sign_flip_means
from fuzzytruth._t_interval import t_interval, t_statistic
from fuzzytruth._warnings import warn
from fuzzytruth.stats._validation import (
    COMPARED_QUERIES,
    as_pairs,
    as_scores,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    flip_scale,
    no_spread,
    paired_differences,
    scaled_deviations,
    significance_level,
    warn_no_spread,
)
from fuzzytruth.stats.bootstrap import BootstrapResult, check_bootstrap, paired_bootstrap
from fuzzytruth.stats.paired import EXACT_MAX_QUERIES, ZERO_METHODS, paired_test, t_pvalue

METHODS = ("t", "bootstrap", "bca", "percentile", "basic", "randomization", "wilcoxon", "sign")
#: The interval each method reports (``"none"``: the method tests no parameter with one).
INTERVALS = {
    "t": "t",
    "bootstrap": "studentized",
    "bca": "bca",
    "percentile": "percentile",
    "basic": "basic",
    "randomization": "randomization",
    "wilcoxon": "none",
    "sign": "none",
}
#: The null hypothesis each method tests, as printed in the ``hypothesis`` column.
HYPOTHESES = {
    **{m: "mean difference = 0" for m in INTERVALS},
    "wilcoxon": "differences symmetric about 0",
    "sign": "median difference = 0",
}
#: Methods whose interval comes from a bootstrap distribution.
BOOTSTRAP_METHODS = ("bootstrap", "bca", "percentile", "basic")
#: Bisection steps locating a randomisation bound (bracket / 2**40: below 1e-11 of it).
BISECTION_STEPS = 40
#: Fewest queries for which any test or interval is computed.
MIN_QUERIES = COMPARED_QUERIES
#: Below this many queries a warning is issued: at 10 queries every procedure missed 93–97 %
#: coverage or 3.5–6.5 % size on 6 to 11 of the 11 generating models of the validity study
#: (``benchmarks/stats_validity.py``, table 2).
RELIABLE_QUERIES = 25
#: A pair with more than this share of tied (zero) differences gets a warning.
TIES_DOMINATE = 0.5
#: A pair whose differences have sample skewness ``g1`` with ``g1**2 > SKEW_PER_QUERY * n``
#: gets a warning (:func:`too_skewed`): there the one-term Edgeworth expansion of the t test
#: puts its two-sided size above 6.5 % (about ``5 % + g1**2 / (4 n)``).
SKEW_PER_QUERY = 0.06


class UnreliableInferenceWarning(UserWarning):
    """Too few queries, or mostly ties: no procedure is known to hold its level here."""


@dataclass(frozen=True, eq=False)
class PairedInference:
    """A test and its dual interval for each pair (scipy-like result, frozen).

    Attributes
    ----------
    difference : numpy.ndarray
        ``(n_pairs,)`` observed mean difference ``a - b``.
    ci_low, ci_high : numpy.ndarray
        ``(n_pairs,)`` interval bounds (infinite on the open side of a one-sided interval; NaN
        for ``"wilcoxon"``/``"sign"`` and for degenerate pairs).
    statistic, pvalue : numpy.ndarray
        ``(n_pairs,)``; ``pvalue < alpha`` exactly when the ``1 - alpha`` interval excludes 0.
    pairs : numpy.ndarray
        ``(n_pairs, 2)`` system indices.
    method, interval, hypothesis, alternative : str
        The procedure, the interval it reports, the null hypothesis tested, the alternative.
    confidence_level : float
        Coverage of the interval.
    n_resamples : int or None
        Resamples behind the p-value and interval (None for closed forms).
    degenerate : numpy.ndarray
        ``(n_pairs,)`` bool, pairs whose differences have no spread.
    bootstrap : BootstrapResult or None
        The bootstrap distribution, for the bootstrap methods.
    """

    difference: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pairs: np.ndarray
    method: str
    interval: str
    hypothesis: str
    alternative: str
    confidence_level: float
    n_resamples: int | None
    degenerate: np.ndarray
    bootstrap: BootstrapResult | None = None


def check_queries(n_queries: int) -> None:
    """Refuse fewer than :data:`MIN_QUERIES` queries with a clear error."""
    if n_queries < MIN_QUERIES:
        raise ValueError(
            f"comparing systems needs at least {MIN_QUERIES} queries (with {n_queries} no "
            f"test or interval means anything); got {n_queries}"
        )


def replicates_to_draw(n_units: int, n_resamples: int, why: str) -> int:
    """``n_resamples``, or 0 when fewer than two units can be resampled: every replicate
    would draw the one unit, and the interval be a point (or the other levels' alone) that
    reads as certainty. Then an ``UnreliableInferenceWarning`` says ``why``, and the caller's
    intervals are NaN (``percentile_interval`` of no replicate), as with
    ``n_resamples=0``."""
    if not n_resamples or n_units >= 2:
        return n_resamples
    warn(f"{why}; no replicate is drawn and the intervals are NaN",
         UnreliableInferenceWarning)
    return 0


def warn_if_unreliable(
    d: np.ndarray, *, labels: list[str] | None = None, method: str = "t"
) -> None:
    """Warn about too few queries, mostly tied pairs and pairs without spread.

    ``d`` is ``(n_pairs, n_queries)`` per-query differences; ``labels`` name the pairs;
    ``method`` is the procedure (:func:`paired_inference` keeps the wilcoxon and sign tests
    of a pair without spread, and only theirs).
    """
    n = d.shape[1]
    names = labels or [f"pair {i}" for i in range(len(d))]
    flat = no_spread(d)
    consequence = (
        f"no interval or effect size is defined (NaN); the {method} test is"
        if method in ("wilcoxon", "sign")
        else "no test, interval or effect size is defined; they are NaN"
    )
    warn_no_spread(flat, names, consequence)
    if n < RELIABLE_QUERIES:
        warn(
            f"only {n} queries: below {RELIABLE_QUERIES} no procedure held its nominal "
            "coverage and size on every generating model of the validity study "
            "(benchmarks/stats_validity.py); read the intervals and p-values as rough",
            UnreliableInferenceWarning,
        )
    # below RELIABLE_QUERIES the warning above already covers it (and the rule, with its
    # threshold of 0.06 n, fires on 17 % of normal samples of 10 queries, 37 % of 5)
    skewed = too_skewed(d) & ~flat & (n >= RELIABLE_QUERIES)
    if skewed.any():
        g1 = skewness(d)
        shown = ", ".join(f"{names[i]} (skewness {g1[i]:+.1f})"
                          for i in np.flatnonzero(skewed)[:5])
        warn(
            f"{int(skewed.sum())} pair(s) have differences too skewed for {n} queries "
            f"(skewness^2 > {SKEW_PER_QUERY:g} x queries: {shown}): on data this skewed the "
            "t test rejected a true null more often than 6.5 % of the time in the validity "
            "study (benchmarks/stats_validity.py, 20,000 null comparisons per cell, MC SE "
            "0.2 %: 7.8 % at 50 queries with gamma differences of skewness 2.8, 10.7 % when "
            "10 % of the queries carry a large one-sided difference) and no procedure held; "
            "more queries shrink the error (as skewness^2 / queries). This describes the data, "
            "not this one p-value",
            UnreliableInferenceWarning,
        )
    tied = (np.count_nonzero(d == 0, axis=1) / n > TIES_DOMINATE) & ~flat
    if tied.any():
        shown = ", ".join(names[i] for i in np.flatnonzero(tied)[:5])
        warn(
            f"{int(tied.sum())} pair(s) tie on more than {TIES_DOMINATE:.0%} of the queries "
            f"({shown}): with mostly tied, lattice-valued differences no procedure is known "
            "to hold its level; read those intervals and p-values as rough",
            UnreliableInferenceWarning,
        )


def skewness(d: np.ndarray) -> np.ndarray:
    """Sample skewness ``g1 = m3 / m2**1.5`` of each row (0 for a row without spread).

    Examples
    --------
    >>> skewness(np.array([[0.0, 0.0, 0.0, 1.0], [1.0, 2.0, 3.0, 4.0]])).round(4).tolist()
    [1.1547, 0.0]
    """
    d = np.asarray(d, dtype=np.float64)
    c = scaled_deviations(d, axis=-1)  # raw cubes overflowed at 1e105: a NaN, no warning
    m2 = (c * c).mean(axis=-1)
    m3 = (c * c * c).mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = m3 / m2**1.5
    return np.where(no_spread(d), 0.0, g1)


def too_skewed(d: np.ndarray) -> np.ndarray:
    """Per row of differences, whether ``skewness**2 > SKEW_PER_QUERY * n_queries``.

    Why this rule: the two-sided t test's size is ``alpha + (gamma**2 / 4 - kappa / 62) / n +
    o(1/n)`` at ``alpha = 0.05`` (the one-term Edgeworth expansion of the studentised mean,
    Hall 1992, ch. 2; ``gamma`` the skewness, ``kappa`` the excess kurtosis of the
    differences), so skewness matters *relative to the number of queries*: the rule fires
    where that expansion, read with the sample skewness, puts the size above 6.5 %. It
    replaced ``|skewness| > 1`` below 50 queries, which never fired from 50 queries on, where
    differences carried by a few queries still broke the t test.

    How it was chosen (``benchmarks/stats_validity.py``, tables 3a–3c: eleven generating
    models, 20,000 null and 20,000 effect comparisons per model and number of queries,
    Monte Carlo SE at most 0.35 %): against the old rule and against "the largest 5 % of the
    deviations on one side carry more than half of their squares". At 25/50/100 queries it
    fired on 89/94/70 % of the comparisons where 10 % of the queries carry a large one-sided
    difference (t test size 7.4/10.7/6.5 %), 72/92/99 % where 5 % do (28.0/8.1/11.7 %),
    77/67/37 % of gamma differences (skewness 2.8; 9.8/7.8/6.3 %), and on at most 3.1 % of
    normal, P@10, bounded and uncertain-truth comparisons; the old rule fired on none from 50
    queries on. Symmetric heavy tails also trip it (t with 3 df 26/18/11 %, heavy-tailed AP
    48/19/1 %, RR 24/3/0 %), fewer than the share rule (AP 69/49/27 %), where the t test holds.

    What no per-sample warning can see (table 3d: null differences of seven models, four of
    them new in issue 23, 25 to 200 queries, 20,000 comparisons per model and number of
    queries, Monte Carlo SE of every rate below at most 1.6 %): where a few queries carry
    large one-sided differences, the t test fails on the samples that drew none of them. With
    10 % of the queries at +0.45 and 25 queries, 7.4 % of the samples drew none and the test
    rejected the true null on 100 % of them (0.3 % of the others). Such a sample has exactly
    the law of a sample from a model whose mean difference is -0.05, where rejecting is
    right, so nothing computed from the sample can tell the two apart: this rule fired on
    1.0 % of the failing samples and on 96.6 % of the holding ones (5 % of queries at +0.95:
    0.9 % and 100 %; 3 % at +0.9: 0.9 % and 99.4 %), and so did every other trigger tried
    (the largest 5 % on one side carrying half the squares: 1.7 % and 74.4 %; one query
    carrying a third: 4.9 % and 50.1 %; a Hill tail-index estimate below 2, which also fires
    on 77 % of normal samples). On continuous heavy one-sided tails every trigger fired *less*
    often where the test failed than where it held (this rule at 50 queries: 54.0 % and
    82.0 % on lognormal differences, 66.4 % and 90.4 % on Pareto(2.5) ones): the failing
    samples are those that under-represent the tail. So the warning says "this kind of data",
    never "this p-value is wrong", and its silence proves nothing. What such data need is
    queries: the t test's size fell to 6.5 % or below only at 200 queries with 10 % at +0.45
    (11.1 % at 50, 6.7 % at 100), not by 200 with 5 % at +0.95 (7.1 %), 3 % at +0.9
    (7.8 %), lognormal (7.1 %) or Pareto(2.5) differences (10.0 %), and from 50 with 20 % at
    +0.3 (6.2 %). Where a measure can move a lot on a few queries, read p-values from fewer
    than a few hundred queries as rough and look at the largest per-query differences.

    Why it warns rather than switches procedure: within a skewed model the t test's failures
    need not fall where the rule fires (2,000 comparisons per cell: with gamma differences at
    25 queries its size was 6.7 % where the rule fired and 20.2 % where it did not; with 10 %
    large differences at 100 queries, 8.6 % and 2.4 %).
    Switching the fired samples to bootstrap-t did not help: where the t test
    failed there, bootstrap-t over-corrected (10 % large differences at 50 queries: 0.0 %
    size, 100 % coverage), and on heavy symmetric tails it was far worse than t (AP at 50
    queries: 25.9 % against 15.3 %). So the rule says "this kind of data", not "this p-value
    is wrong".

    Examples
    --------
    >>> d = np.array([[-0.05] * 45 + [0.45] * 5, np.linspace(-1.0, 1.0, 50)])
    >>> too_skewed(d).tolist()
    [True, False]
    """
    d = np.asarray(d, dtype=np.float64)
    return skewness(d) ** 2 > SKEW_PER_QUERY * d.shape[-1]


def paired_inference(
    scores: np.ndarray,
    *,
    pairs: np.ndarray | None = None,
    method: str = "t",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    zero_method: str = "wilcox",
    bootstrap: BootstrapResult | None = None,
    rng: np.random.Generator | int | None = None,
) -> PairedInference:
    """Test and interval for the difference of every pair, from one procedure.

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` per-query scores (each query's expected score under
        uncertain truth), at least :data:`MIN_QUERIES` queries.
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices; default all pairs ``i < j``.
    method : {"t", "bootstrap", "bca", "percentile", "basic", "randomization", "wilcoxon", \
"sign"}
        The procedure (see the module docstring).
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``: A scores higher; the interval is then one-sided, ``[low, inf)``.
    confidence_level : float
        Coverage of the interval; the dual test rejects at ``alpha = 1 - confidence_level``.
    n_resamples : int
        B for the bootstrap and randomisation procedures.
    zero_method : {"wilcox", "pratt", "zsplit"}
        Zero differences in the Wilcoxon test.
    bootstrap : BootstrapResult, optional
        A bootstrap distribution already drawn for these scores and pairs (the annotator
        population bootstrap); default: resample queries.
    rng : numpy.random.Generator or int, optional
        Seed or generator for the resampling procedures.

    Returns
    -------
    PairedInference

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random((2, 30)) + [[0.15], [0.0]]
    >>> res = paired_inference(x, method="t")
    >>> print(f"{res.difference[0]:.3f} [{res.ci_low[0]:.3f}, {res.ci_high[0]:.3f}] "
    ...       f"p={res.pvalue[0]:.4f}")
    0.208 [0.053, 0.363] p=0.0101
    """
    x = as_scores(scores)
    pairs = as_pairs(pairs, x.shape[0])
    method = check_choice("method", method, METHODS)
    alternative = check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    zero_method = check_choice("zero_method", zero_method, ZERO_METHODS)
    if alternative != "two-sided" and level <= 0.5:
        raise ValueError(
            f"confidence_level must exceed 0.5 for a one-sided interval; got {level!r}"
        )
    if bootstrap is not None and method not in BOOTSTRAP_METHODS:
        # the interval and test would come from another procedure than the one given
        raise ValueError(
            f"bootstrap is read only by the bootstrap methods {list(BOOTSTRAP_METHODS)}; got "
            f"method={method!r}"
        )
    n = x.shape[1]
    check_queries(n)
    d = paired_differences(x, pairs)
    difference = d.mean(axis=1)
    flat = no_spread(d)
    alpha = significance_level(level)
    boot = None
    if method == "t":
        statistic, pvalue, low, high = _t_procedure(d, alternative, alpha)
        n_used = None
    elif method in BOOTSTRAP_METHODS:
        n_resamples = check_n_resamples(n_resamples, minimum=2)
        boot = check_bootstrap(bootstrap, x, pairs) if bootstrap is not None else (
            paired_bootstrap(x, pairs=pairs, n_resamples=n_resamples, rng=rng)
        )
        interval = INTERVALS[method]
        ci, pvalue = boot.test_and_interval(level, method=interval, alternative=alternative)
        low, high = ci.low, ci.high
        if method == "bootstrap":
            statistic = t_statistic(d)[0]
        else:
            statistic = difference
        n_used = boot.n_resamples
    elif method == "randomization":
        n_resamples = check_n_resamples(n_resamples)
        pvalue, low, high, n_used = _randomization_procedure(
            x, pairs, alternative, alpha, n_resamples, as_generator(rng)
        )
        statistic = difference
    else:
        test = paired_test(x, pairs=pairs, method=method, alternative=alternative,
                           zero_method=zero_method)
        statistic, pvalue = test.statistic, test.pvalue
        low = np.full(len(pairs), np.nan)
        high = np.full(len(pairs), np.nan)
        n_used = None
    if method not in ("wilcoxon", "sign"):
        pvalue = np.where(flat, np.nan, pvalue)
        low = np.where(flat, np.nan, low)
        high = np.where(flat, np.nan, high)
        statistic = np.where(flat, np.nan, statistic)
    return PairedInference(
        difference=difference,
        ci_low=low,
        ci_high=high,
        statistic=statistic,
        pvalue=pvalue,
        pairs=pairs,
        method=method,
        interval=INTERVALS[method],
        hypothesis=HYPOTHESES[method],
        alternative=alternative,
        confidence_level=level,
        n_resamples=n_used,
        degenerate=flat,
        bootstrap=boot,
    )


def _t_procedure(
    d: np.ndarray, alternative: str, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    t, low, high = t_interval(d, alternative, alpha)
    return t, t_pvalue(t, d.shape[1], alternative), low, high


def _randomization_procedure(
    x: np.ndarray,
    pairs: np.ndarray,
    alternative: str,
    alpha: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Sign-flip test of every shift ``theta``; the p-value at 0 and the inverted interval.

    Under "mean difference = theta" the flipped statistic is ``mean(f (d - theta)) =
    m_f - theta fbar_f`` with ``m_f`` the flipped mean of ``d`` and ``fbar_f`` the mean sign,
    so one set of flips (the same as :func:`paired_test` draws) tests every theta.
    """
    n = x.shape[1]
    exact = n <= EXACT_MAX_QUERIES
    augmented = np.vstack([x, np.ones((1, n))])  # last row: the mean sign of each flip
    if exact:
        null = exact_flip_means(augmented)
    else:
        null = sign_flip_means(augmented, n_resamples, draw_seed(rng))
    b_total = null.shape[0]
    fbar = null[:, -1]
    d = paired_differences(x, pairs)
    observed = d.mean(axis=1)
    scale = flip_scale(x, pairs)
    # the far end of the bracket, in the units of the scores: an absolute term (it was + 1.0)
    # left bounds of scores of 1e-30 below the 40 bisection steps' resolution of 2**-40; per
    # pair (the largest over all pairs moved a pair's bounds when a system was added)
    reach = n * np.abs(d).max(axis=1) + scale
    reach[reach == 0] = 1.0
    half_width = sps.t.isf(alpha / 2, n - 1) * d.std(axis=1, ddof=1) / np.sqrt(n)
    p0 = np.empty(len(pairs))
    low = np.empty(len(pairs))
    high = np.empty(len(pairs))
    for sl in row_chunks(len(pairs), CHUNK_PAIRS):
        m_star = null[:, pairs[sl, 0]] - null[:, pairs[sl, 1]]  # (B, chunk)
        obs = observed[sl]

        work = np.empty_like(m_star)
        hits = np.empty(m_star.shape, dtype=bool)

        def pval(
            theta: np.ndarray, m_star=m_star, obs=obs, work=work, hits=hits, scale=scale[sl]
        ) -> np.ndarray:
            stat = obs - theta
            np.multiply(fbar[:, None], theta[None, :], out=work)
            np.subtract(m_star, work, out=work)  # the flipped statistics under theta
            gamma = 1e-12 * (np.abs(stat) + scale + np.abs(theta))
            if alternative == "two-sided":
                np.abs(work, out=work)
                np.greater_equal(work, np.abs(stat) - gamma, out=hits)
            elif alternative == "greater":
                np.greater_equal(work, stat - gamma, out=hits)
            else:
                np.less_equal(work, stat + gamma, out=hits)
            b = np.count_nonzero(hits, axis=0)
            return b / b_total if exact else (b + 1) / (b_total + 1)

        p0[sl] = pval(np.zeros_like(obs))
        bounds = {}
        for side in (-1.0, 1.0):
            if (side < 0 and alternative == "less") or (side > 0 and alternative == "greater"):
                bounds[side] = np.full_like(obs, side * np.inf)
                continue
            inside = obs.copy()
            # bracket: four t half-widths out when that is already rejected, else the reach
            near = obs + side * 4.0 * half_width[sl]
            near_out = pval(near) < alpha
            outside = np.where(near_out, near, obs + side * reach[sl])
            unbounded = ~near_out & (pval(outside) >= alpha)
            for _ in range(BISECTION_STEPS):
                mid = 0.5 * (inside + outside)
                keep = pval(mid) >= alpha
                inside = np.where(keep, mid, inside)
                outside = np.where(keep, outside, mid)
            bounds[side] = np.where(unbounded, side * np.inf, inside)
        lo, hi = bounds[-1.0], bounds[1.0]
        # The test at 0 decides whether the interval holds 0 (bisection locates the bounds
        # only to its precision, and p(theta) need not be monotone).
        accept = p0[sl] >= alpha
        lo = np.where(accept, np.minimum(lo, 0.0), lo)
        hi = np.where(accept, np.maximum(hi, 0.0), hi)
        holds = (lo <= 0) & (hi >= 0)
        lo = np.where(~accept & holds & (obs > 0), np.nextafter(0.0, 1.0), lo)
        hi = np.where(~accept & holds & (obs < 0), np.nextafter(0.0, -1.0), hi)
        low[sl], high[sl] = lo, hi
    return p0, low, high, b_total
