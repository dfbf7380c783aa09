"""Wilcoxon signed-rank test: exact conditional null with ties and zeros, and its oracles.

Oracles: every sign flip enumerated in the test (n <= 14), scipy 1.17's permutation method
(which enumerates all 2**n flips when 2**n <= n_resamples), the generating function of the
signed-rank sum in exact integers (up to the size bound), scipy's exact untied distribution
and its normal approximation (above the bound).
"""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fuzzytruth.stats import paired_test
from fuzzytruth.stats.paired import WILCOXON_EXACT_MAX

ALTERNATIVES = ["two-sided", "less", "greater"]
ZERO_METHODS = ["wilcox", "pratt", "zsplit"]


def _lattice(
    rng: np.random.Generator, n: int, shift: int = 0, share: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """P@10 as integers k (scores k / 10): both systems Binomial(10, p_q) per query, A moved by
    ``shift`` tenths (within 0..10) on a random ``share`` of the queries: ties and zeros."""
    p = rng.random(n)
    a, b = rng.binomial(10, p), rng.binomial(10, p)
    moved = rng.random(n) < share
    return np.where(moved, np.clip(a + shift, 0, 10), a), b


def _pvalue(less: Fraction, greater: Fraction, alternative: str) -> Fraction:
    if alternative == "less":
        return less
    if alternative == "greater":
        return greater
    return min(Fraction(1), 2 * min(less, greater))


def _brute_force(d: np.ndarray, zero_method: str, alternative: str) -> Fraction:
    """p-value over all 2**n sign flips of the integer differences ``d`` (ties exact).

    The statistic of each flipped sample is recomputed from its definition: the sum of the
    (mid)ranks of its positive entries, ranked among the non-zero entries ("wilcox") or among
    all of them ("pratt", "zsplit", which adds half the zeros' ranks); doubled, so integer.
    """
    n = len(d)
    flips = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    flipped = flips * d
    if zero_method == "wilcox":
        ranks = np.zeros(n)
        ranks[d != 0] = sps.rankdata(np.abs(d[d != 0]))
    else:
        ranks = sps.rankdata(np.abs(d))
    doubled = np.rint(2 * ranks).astype(np.int64)
    t = (flipped > 0) @ doubled
    if zero_method == "zsplit":
        t = t + ((flipped == 0) @ doubled) / 2
    observed = t[0]  # the all-plus flip is the sample itself
    less = Fraction(int((t <= observed).sum()), len(t))
    greater = Fraction(int((t >= observed).sum()), len(t))
    return _pvalue(less, greater, alternative)


def _generating_function(d: np.ndarray, zero_method: str, alternative: str) -> Fraction:
    """Exact p-value from the generating function of twice the signed-rank sum, in Python
    integers: each group of ``t`` tied non-zero differences with doubled midrank ``v``
    multiplies it by ``(1 + x**v)**t``, and a zero's rank, fixed, contributes nothing."""
    ranks = sps.rankdata(np.abs(d[d != 0]) if zero_method == "wilcox" else np.abs(d))
    nonzero = ranks if zero_method == "wilcox" else ranks[d != 0]
    positive = d[d != 0] > 0
    doubled = np.rint(2 * nonzero).astype(np.int64)
    poly = [1]
    for v, t in zip(*np.unique(doubled, return_counts=True), strict=True):
        grown = [0] * (len(poly) + int(v * t))
        for j in range(t + 1):
            c = comb(int(t), j)
            for s, count in enumerate(poly):
                if count:
                    grown[s + int(v) * j] += c * count
        poly = grown
    observed = int(doubled[positive].sum())
    total = 2 ** len(doubled)
    less = Fraction(sum(poly[: observed + 1]), total)
    greater = Fraction(sum(poly[observed:]), total)
    return _pvalue(less, greater, alternative)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ZERO_METHODS)
def test_wilcoxon_with_ties_and_zeros_enumerates_every_sign_flip(zero_method, alternative):
    rng = np.random.default_rng(2024)
    small = 0
    for n in range(4, 15):
        for shift in (-2, 0, 2):
            a, b = _lattice(rng, n, shift)
            d = a - b
            if not d.any():
                continue
            res = paired_test(np.vstack([a, b]) / 10, method="wilcoxon",
                              alternative=alternative, zero_method=zero_method)
            ref = _brute_force(d, zero_method, alternative)
            assert res.exact[0], (n, d)
            assert res.pvalue[0] == pytest.approx(float(ref), rel=1e-12), (n, d)
            small += ref < Fraction(1, 20)
    assert small >= 3  # the tails are tested, not only p-values near 1


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ZERO_METHODS)
def test_wilcoxon_with_ties_and_zeros_matches_scipy_permutation(zero_method, alternative):
    # P@10-like scores (multiples of 0.1), 3 systems x 10 queries: every pair has ties, two
    # have zeros. Oracle: scipy 1.17 wilcoxon(method=PermutationMethod(n_resamples=2**10)),
    # which enumerates all 2**10 sign flips (zeros included: flipping one changes nothing) and
    # gives 2 x the smaller tail, capped at 1, two-sided; run on the integers 10 x score, where
    # the ties are exact (on the doubles scipy ranks 0.7 - 0.6 below 0.2 - 0.1).
    ints = np.round(np.random.default_rng(42).random((3, 10)) * 10)
    res = paired_test(ints / 10, method="wilcoxon", alternative=alternative,
                      zero_method=zero_method)
    assert res.exact.all()
    for (a, b), s, p in zip(res.pairs, res.statistic, res.pvalue, strict=True):
        ref = sps.wilcoxon(ints[a], ints[b], zero_method=zero_method, alternative=alternative,
                           method=sps.PermutationMethod(n_resamples=2**10))
        assert s == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue, rel=1e-12)


def test_pratt_and_zsplit_have_the_same_exact_null():
    # With the zeros ranked, "zsplit" adds the same half of their ranks to the observed sum and
    # to every flipped one, so its conditional p-values are "pratt"'s (as scipy's permutation
    # method gives: 0.8623 for both on the first sample below, "wilcox" 0.8105).
    a, b = _lattice(np.random.default_rng(1), 12)
    x = np.vstack([a, b]) / 10
    for alternative in ALTERNATIVES:
        pratt = paired_test(x, method="wilcoxon", alternative=alternative, zero_method="pratt")
        zsplit = paired_test(x, method="wilcoxon", alternative=alternative, zero_method="zsplit")
        assert pratt.pvalue[0] == zsplit.pvalue[0]


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ZERO_METHODS)
@pytest.mark.parametrize("down", [[8, 9], [6, 7], [0, 1], [2, 6]])
def test_wilcoxon_ties_sizes_equal_up_to_rounding(alternative, zero_method, down):
    # P@10 scores (k / 10, as a kernel returns them): 8 queries gain a tenth, 2 lose one. The
    # doubles of the |differences| are 0.09999999999999998, 0.1, 0.10000000000000003 or
    # 0.10000000000000009, so the ranks followed the rounding and the sample passed for untied
    # (exact distribution): two-sided p = 0.052, 0.106 or 0.278 by which queries lost. All ten
    # tie at midrank 5.5 (no zeros: the same for every zero_method), so T+ = 5.5 x the number
    # of gains, Binomial(10, 1/2) under the null: P(T+ >= 44) = (1 + 10 + 45) / 1024,
    # P(T+ <= 44) = 1 - (1 + 10) / 1024, and two-sided twice the smaller.
    ints = np.array([7, 3, 2, 9, 5, 6, 4, 8, 3, 6])
    lower = ints - 1
    lower[down] = ints[down] + 1
    x = np.vstack([ints, lower]) / 10
    res = paired_test(x, method="wilcoxon", alternative=alternative, zero_method=zero_method)
    expected = {"greater": 56 / 1024, "less": 1013 / 1024, "two-sided": 112 / 1024}
    assert res.exact[0]
    assert res.pvalue[0] == pytest.approx(expected[alternative], rel=1e-12)
    assert res.statistic[0] == (11.0 if alternative == "two-sided" else 44.0)  # min(T+, T-)


@pytest.mark.parametrize("zero_method", ZERO_METHODS)
def test_wilcoxon_is_exact_up_to_the_size_bound(zero_method):
    # 100 queries of P@10 with ties and zeros: the exact distribution (oracle: the generating
    # function in exact integers); one query more and "pratt"/"zsplit" (which rank the zeros)
    # take the normal approximation, as does "wilcox" with more non-zero differences.
    rng = np.random.default_rng(8)  # two-sided p 0.038 (wilcox), 0.041 (pratt, zsplit)
    a, b = _lattice(rng, WILCOXON_EXACT_MAX, shift=1, share=0.3)  # p-values in the tail
    x = np.vstack([a, b]) / 10
    for alternative in ALTERNATIVES:
        res = paired_test(x, method="wilcoxon", alternative=alternative, zero_method=zero_method)
        ref = _generating_function(a - b, zero_method, alternative)
        assert res.exact[0]
        assert res.pvalue[0] == pytest.approx(float(ref), rel=1e-12)
    assert float(_generating_function(a - b, zero_method, "two-sided")) < 0.05
    a, b = _lattice(rng, WILCOXON_EXACT_MAX + 30)
    a[:] = np.where(a == b, a + np.where(a < 10, 1, -1), a)  # no zeros: > 100 ranked
    ref = sps.wilcoxon(a, b, zero_method=zero_method, method="asymptotic", correction=False)
    res = paired_test(np.vstack([a, b]) / 10, method="wilcoxon", zero_method=zero_method)
    assert not res.exact[0]
    assert res.pvalue[0] == pytest.approx(ref.pvalue, rel=1e-10)


def _untied_pvalue(n: int, r_plus: int, alternative: str) -> float:
    """The untied exact p-value as fuzzytruth computed it before ties were exact: counts of
    ``T+ = 0 .. n(n+1)/2`` built rank by rank, divided by ``2**n``."""
    counts = np.ones(1)
    for rank in range(1, n + 1):
        grown = np.zeros(len(counts) + rank)
        grown[: len(counts)] += counts
        grown[rank:] += counts
        counts = grown
    pmf = counts / 2.0**n
    cdf, sf = np.cumsum(pmf)[r_plus], np.cumsum(pmf[::-1])[::-1][r_plus]
    if alternative == "less":
        return cdf
    if alternative == "greater":
        return sf
    return min(1.0, 2.0 * min(cdf, sf))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, WILCOXON_EXACT_MAX).flatmap(
    lambda n: st.tuples(st.permutations(range(1, n + 1)), st.lists(st.booleans(), min_size=n,
                                                                  max_size=n))),
    st.sampled_from(ALTERNATIVES), st.sampled_from(ZERO_METHODS),
    st.sampled_from([1e-3, 0.1, 7.0]))
def test_untied_samples_keep_the_untied_exact_pvalue(sample, alternative, zero_method, scale):
    sizes, positive = sample
    d = np.where(positive, 1, -1) * np.array(sizes) * scale  # distinct sizes: no ties, no 0
    res = paired_test(np.vstack([d, np.zeros_like(d)]), method="wilcoxon",
                      alternative=alternative, zero_method=zero_method)
    r_plus = int(np.array(sizes)[np.array(positive)].sum())  # sizes are the ranks
    assert res.exact[0]
    assert res.pvalue[0] == _untied_pvalue(len(d), r_plus, alternative)
    ref = sps.wilcoxon(d, alternative=alternative, method="exact")
    assert res.pvalue[0] == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.statistic[0] == ref.statistic


@pytest.mark.parametrize("zero_method", ZERO_METHODS)
def test_all_zero_differences_are_undefined_for_every_zero_method(zero_method):
    x = np.tile(np.linspace(0, 1, 10), (2, 1))
    res = paired_test(x, method="wilcoxon", zero_method=zero_method)
    assert np.isnan(res.pvalue[0]) and not res.exact[0]


@pytest.mark.parametrize("zero_method", ZERO_METHODS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_false_is_the_tie_corrected_normal_approximation_at_any_size(zero_method,
                                                                           alternative):
    # R's wilcox.test(exact = FALSE, correct = FALSE), scipy's method="approx": the choice
    # for a user who wants the approximation where the default is exact (up to 100)
    a, b = _lattice(np.random.default_rng(5), 20, shift=1, share=0.4)
    got = paired_test(np.array([a, b]) / 10, method="wilcoxon", exact=False,
                      zero_method=zero_method, alternative=alternative)
    want = sps.wilcoxon(a - b, zero_method=zero_method, alternative=alternative,
                        method="approx", correction=False).pvalue
    assert got.pvalue[0] == pytest.approx(want, rel=1e-12)
    assert not got.exact[0]


def test_exact_true_beyond_the_bound_is_scipys_exact_untied_distribution():
    n = WILCOXON_EXACT_MAX + 20
    d = np.random.default_rng(6).permutation(np.arange(1, n + 1)) * np.where(
        np.random.default_rng(7).random(n) < 0.6, 1, -1)  # untied, no zero
    scores = np.array([d, np.zeros(n)], dtype=float)
    got = paired_test(scores, method="wilcoxon", exact=True)
    assert got.exact[0]
    assert got.pvalue[0] == pytest.approx(sps.wilcoxon(d, method="exact").pvalue, rel=1e-9)
    assert not paired_test(scores, method="wilcoxon").exact[0]  # the default: approximated


@pytest.mark.parametrize("method", ["t", "sign", "bootstrap"])
def test_exact_is_refused_by_the_tests_that_take_none(method):
    with pytest.raises(ValueError, match=r"^exact applies to method='randomization' and "
                                         r"'wilcoxon'; got exact=True with method="):
        paired_test(np.array([[0.1, 0.5, 0.3], [0.2, 0.1, 0.1]]), method=method, exact=True)
