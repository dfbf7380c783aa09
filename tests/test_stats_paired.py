"""Paired tests: scipy oracles, hand-derived examples, properties and error messages."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as sps

from fuzzytruth.stats import (
    DegenerateComparisonWarning,
    UnreliableInferenceWarning,
    compare,
    paired_test,
)
from fuzzytruth.stats.paired import TESTS

ALTERNATIVES = ["two-sided", "less", "greater"]


@pytest.fixture
def discrete_scores():
    # P@10-like scores (multiples of 0.1): many ties and zero differences.
    rng = np.random.default_rng(42)
    return np.round(rng.random((4, 12)) * 10) / 10


@pytest.fixture
def continuous_scores():
    rng = np.random.default_rng(7)
    return rng.random((4, 30)) + np.linspace(0, 0.2, 4)[:, None]


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_t_matches_scipy_ttest_rel(continuous_scores, alternative):
    res = paired_test(continuous_scores, method="t", alternative=alternative)
    for (a, b), t, p in zip(res.pairs, res.statistic, res.pvalue, strict=True):
        ref = sps.ttest_rel(continuous_scores[a], continuous_scores[b], alternative=alternative)
        assert t == pytest.approx(ref.statistic, rel=1e-12)
        assert p == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_sign_test_matches_scipy_binomtest(discrete_scores, alternative):
    res = paired_test(discrete_scores, method="sign", alternative=alternative)
    for (a, b), k, p in zip(res.pairs, res.statistic, res.pvalue, strict=True):
        d = discrete_scores[a] - discrete_scores[b]
        n_pos, n = int((d > 0).sum()), int((d != 0).sum())
        assert k == n_pos
        assert p == pytest.approx(sps.binomtest(n_pos, n, 0.5, alternative=alternative).pvalue)


def test_sign_test_hand_example():
    # Differences +, +, +, +, 0, -: 4 wins, 1 loss, zero dropped; two-sided
    # p = 2 * P(X <= 1 | n=5, 1/2) = 2 * 6/32 = 0.375.
    res = paired_test([[1, 1, 1, 1, 0, 0], [0, 0, 0, 0, 0, 1]], method="sign")
    assert res.statistic.tolist() == [4.0]
    assert res.pvalue[0] == pytest.approx(0.375)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_randomization_matches_scipy_permutation_test(discrete_scores, alternative):
    res = paired_test(discrete_scores, method="randomization", alternative=alternative)
    assert res.exact.all() and res.n_resamples == 2**12
    for (a, b), p in zip(res.pairs, res.pvalue, strict=True):
        ref = sps.permutation_test(
            (discrete_scores[a] - discrete_scores[b],),
            lambda d, axis: d.mean(axis=axis),
            permutation_type="samples", n_resamples=np.inf, alternative=alternative,
        )
        assert p == pytest.approx(ref.pvalue, rel=1e-12)


def test_exact_randomization_hand_example():
    # d = (0.1, 0.1, 0, 0.4), mean 0.15. Of the 8 sign patterns of the non-zero entries only
    # (+,+,+) and (-,-,-) reach |mean| >= 0.15, so p = 2/8 (the zero's sign is irrelevant).
    res = paired_test([[0.5, 0.7, 0.6, 0.9], [0.4, 0.6, 0.6, 0.5]], method="randomization")
    assert res.pvalue[0] == pytest.approx(0.25)
    assert res.statistic[0] == pytest.approx(0.15)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_monte_carlo_randomization_is_close_to_exact(discrete_scores, alternative):
    exact = paired_test(discrete_scores, method="randomization", alternative=alternative).pvalue
    mc = paired_test(
        discrete_scores, method="randomization", alternative=alternative, exact=False,
        n_resamples=20_000, rng=1,
    )
    assert mc.n_resamples == 20_000 and not mc.exact.any()
    # Monte Carlo standard error <= 0.5 / sqrt(20000) = 0.0035.
    np.testing.assert_allclose(mc.pvalue, exact, atol=0.015)


def test_monte_carlo_pvalue_is_b_plus_one_over_b_plus_one():
    # Identical systems: every resampled |mean| (all zero) reaches the observed 0, b = B.
    x = np.tile(np.linspace(0, 1, 20), (2, 1))
    res = paired_test(x, method="randomization", n_resamples=99, rng=0)
    assert res.pvalue[0] == 1.0
    # A huge effect: no resample reaches it, p = 1 / (B + 1).
    y = np.vstack([np.ones(30), np.zeros(30)])
    res = paired_test(y, method="randomization", n_resamples=99, rng=0)
    assert res.pvalue[0] == pytest.approx(1 / 100)


def test_randomization_null_distribution_is_pairwise_and_matches_pvalue():
    rng = np.random.default_rng(5)
    x = rng.random((3, 40))
    res = paired_test(x, method="randomization", n_resamples=500, rng=3)
    null = res.null_distribution
    assert null.shape == (500, 3)
    b = (np.abs(null) >= np.abs(res.statistic) - 1e-12).sum(axis=0)
    np.testing.assert_allclose(res.pvalue, (b + 1) / 501)


def test_bootstrap_test_agrees_with_t_test_on_large_sample():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, 200))
    x[0] += 0.15
    for alternative in ALTERNATIVES:
        boot = paired_test(x, method="bootstrap", alternative=alternative, n_resamples=5000,
                           rng=0).pvalue[0]
        t = paired_test(x, method="t", alternative=alternative).pvalue[0]
        assert boot == pytest.approx(t, abs=0.02), alternative
    assert paired_test(x, method="bootstrap", n_resamples=99, rng=0).null_distribution.shape == (
        99, 1
    )


@pytest.mark.parametrize("method", ["randomization", "bootstrap"])
def test_same_seed_same_result_and_different_seed_differs(method):
    rng = np.random.default_rng(2)
    x = rng.random((3, 40))
    a = paired_test(x, method=method, n_resamples=300, rng=11).pvalue
    b = paired_test(x, method=method, n_resamples=300, rng=11).pvalue
    c = paired_test(x, method=method, n_resamples=300, rng=12).pvalue
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("exact", [True, False])
def test_randomization_of_differences_that_are_all_ties_up_to_rounding(alternative, exact):
    # B's scores equal A's in exact arithmetic, half written as 0.1 + 0.2: every difference
    # is a tie (paired_differences), so every flipped mean reaches the observed 0 and p = 1,
    # as for identical systems. The flips of the centred scores (+-2.8e-17, themselves
    # rounding noise) were compared with a tolerance relative to them: one-sided p = 0.75.
    a = np.full(8, 0.3)
    b = np.where(np.arange(8) % 2 == 1, 0.1 + 0.2, 0.3)
    res = paired_test(np.vstack([a, b]), method="randomization", alternative=alternative,
                      exact=exact, n_resamples=999, rng=0)
    assert res.pvalue[0] == 1.0
    assert res.statistic[0] == 0.0


def test_all_zero_differences_give_nan_for_t_wilcoxon_sign():
    x = np.tile(np.linspace(0, 1, 10), (2, 1))
    for method in ("t", "wilcoxon", "sign"):
        assert np.isnan(paired_test(x, method=method).pvalue[0]), method


def test_pairs_argument_selects_and_orders_pairs(continuous_scores):
    full = paired_test(continuous_scores, method="t")
    sub = paired_test(continuous_scores, method="t", pairs=[[3, 0], [1, 2]])
    assert sub.statistic[0] == pytest.approx(-full.statistic[2])  # pair (0, 3) reversed
    assert sub.statistic[1] == pytest.approx(full.statistic[3])  # pair (1, 2)


score_matrices = arrays(
    np.float64, st.tuples(st.just(2), st.integers(3, 14)),
    elements=st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 2)),
)


@settings(max_examples=40, deadline=None)
@given(score_matrices, st.sampled_from(TESTS))
def test_pvalues_in_unit_interval_and_swap_keeps_two_sided_p(x, method):
    fwd = paired_test(x, method=method, n_resamples=200, rng=0)
    rev = paired_test(x[::-1], method=method, n_resamples=200, rng=0)
    p, q = fwd.pvalue[0], rev.pvalue[0]
    if np.isnan(p):
        assert np.isnan(q)
        return
    assert 0 <= p <= 1
    if method == "t":
        assert q == pytest.approx(p, abs=1e-12)
        assert rev.statistic[0] == pytest.approx(-fwd.statistic[0], abs=1e-12)
    elif method in ("randomization", "bootstrap"):
        # The same seed gives the same flips/resamples, and the test is symmetric.
        assert q == pytest.approx(p, abs=1e-12)
        assert rev.statistic[0] == pytest.approx(-fwd.statistic[0], abs=1e-12)
    else:
        assert q == pytest.approx(p, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(score_matrices)
def test_one_sided_pvalues_are_complementary_for_t(x):
    less = paired_test(x, method="t", alternative="less").pvalue[0]
    greater = paired_test(x, method="t", alternative="greater").pvalue[0]
    if np.isfinite(less):
        assert less + greater == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "anova"}, r"method must be one of \['t', 'randomization'.*got 'anova'"),
        ({"alternative": "bigger"}, r"alternative must be one of .*got 'bigger'"),
        ({"zero_method": "drop"}, r"zero_method must be one of .*got 'drop'"),
        ({"method": "randomization", "n_resamples": 0}, r"n_resamples must be an integer >= 1"),
        # drew 2 resamples and reported n_resamples=1
        ({"method": "bootstrap", "n_resamples": 1}, r"n_resamples must be an integer >= 2; got 1"),
        ({"pairs": [[0, 0]]}, r"pairs must compare two different systems"),
        ({"pairs": [[0, 5]]}, r"pairs must index systems 0..1; got values from 0 to 5"),
        ({"pairs": [0, 1]}, r"pairs must be an integer array of shape \(n_pairs, 2\)"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        paired_test([[0.1, 0.2, 0.3], [0.2, 0.2, 0.1]], **kwargs)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("worlds", [False, True])
def test_a_non_finite_score_is_found_whatever_its_sign(bad, worlds):
    """as_scores finds a NaN or an infinity through the extremes of the scores (NaN
    propagates through min and max), and names the count and the first one, in a score
    matrix and in worlds of scores."""
    from fuzzytruth.stats._validation import as_scores

    scores = np.linspace(0.1, 0.9, 2 * 2 * 5).reshape(2, 2, 5)
    scores[1, 0, 3] = scores[1, 1, 4] = bad
    given, first = (scores, r"\(1, 0, 3\)") if worlds else (scores[1], r"\(0, 3\)")
    with pytest.raises(ValueError, match=rf"scores must be finite; found 2 non-finite "
                                         rf"value\(s\), the first at index {first}"):
        as_scores(given, ndim=(2, 3))
    assert as_scores(np.where(np.isfinite(given), given, 0.5), ndim=(2, 3)).shape == given.shape


def test_bad_scores_are_named():
    with pytest.raises(ValueError, match=r"at least 2 queries \(last axis\); got 1"):
        paired_test([[0.1], [0.2]])
    with pytest.raises(ValueError, match=r"must be finite; found 1 non-finite value\(s\), the "
                                         r"first at index \(1, 0\)"):
        paired_test([[0.1, 0.2], [np.nan, 0.3]])
    with pytest.raises(ValueError, match=r"shape \(n_systems, n_queries\); got an array of "
                                         r"shape \(3,\)"):
        paired_test([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="at least 2 systems; got 1"):
        paired_test([[0.1, 0.2, 0.3]])


def test_exact_argument_is_validated_and_bounded():
    with pytest.raises(ValueError, match=r"exact must be True, False or None; got 'yes'"):
        paired_test([[0.1, 0.2, 0.3], [0.2, 0.2, 0.1]], method="randomization", exact="yes")
    with pytest.raises(ValueError, match=r"exact=True enumerates 2\*\*n_queries flips; "
                                         r"n_queries=30 > 24"):
        paired_test(np.zeros((2, 30)), method="randomization", exact=True)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 9), st.integers(1, 4), st.sampled_from([1.0, 300.0, 128e6]),
       st.integers(0, 2**32 - 1))
def test_exact_flip_means_enumerate_every_sign_vector_in_any_blocks(n, n_systems, budget, seed):
    """Row c is the mean under the signs given by the bits of c, whatever the blocks the
    memory budget cuts (one sign vector per block at a budget of 1 byte)."""
    import itertools

    from fuzzytruth._resampling import exact_flip_means

    scores = np.random.default_rng(seed).random((n_systems, n))
    got = exact_flip_means(scores, memory_budget=budget)
    # brute force: itertools.product with the last query's sign varying fastest, so the
    # flip vectors are read with bit j of c for query j
    flips = np.array([s[::-1] for s in itertools.product((-1.0, 1.0), repeat=n)])
    np.testing.assert_allclose(got, flips @ scores.T / n, rtol=0, atol=1e-15)


def test_exact_enumeration_that_cannot_fit_in_memory_is_refused(monkeypatch):
    # 2**24 flips of 50 systems keep 6.7 GB; all the sign vectors at once held 13 GB more
    import fuzzytruth._resampling as resampling

    monkeypatch.setattr(resampling, "physical_memory", lambda: 4e9)
    with pytest.raises(ValueError, match=r"exact enumeration of the 2\*\*24 sign flips of 24 "
                       r"queries for 50 systems would keep 6.71 GB, more than the 4 GB of "
                       r"memory: use Monte Carlo flips \(exact=False, n_resamples\)"):
        paired_test(np.zeros((50, 24)), method="randomization", exact=True)


def test_sign_flip_means_are_shared_fair_flips():
    from fuzzytruth._resampling import sign_flip_means

    n = 13  # not a multiple of 8: the last byte is partly padding
    # With the identity as "scores", row r is f_r / n: read the flip vectors back.
    flips = sign_flip_means(np.eye(n), 4000, 3) * n
    np.testing.assert_allclose(np.abs(flips), 1.0)
    assert np.abs(flips.mean(axis=0)).max() < 0.06  # fair: 4 SE of a mean of 4000 signs
    corr = np.corrcoef(flips.T)[np.triu_indices(n, 1)]
    assert np.abs(corr).max() < 0.07  # independent across queries
    # The same seed applies the same flip vector to every system.
    scores = np.random.default_rng(0).random((3, n))
    means = sign_flip_means(scores, 4000, 3)
    np.testing.assert_allclose(means, flips @ scores.T / n, atol=1e-12)


@pytest.mark.parametrize("method", ["randomization", "bootstrap"])
def test_resampling_pvalues_do_not_depend_on_which_pairs_are_asked(continuous_scores, method):
    # The null is built per system from the same seeded draws, so a pair's p-value is the same
    # whether it is asked alone, reversed (two-sided) or among all pairs.
    full = paired_test(continuous_scores, method=method, n_resamples=999, rng=5)
    some = paired_test(continuous_scores, method=method, n_resamples=999, rng=5,
                       pairs=[[3, 0], [1, 2], [2, 0]])
    np.testing.assert_allclose(some.pvalue, full.pvalue[[2, 3, 1]])
    np.testing.assert_allclose(some.statistic, [-full.statistic[2], full.statistic[3],
                                                -full.statistic[1]])


@pytest.mark.parametrize("shift", [0.125, 0.1, 3.0])
def test_a_difference_without_spread_has_no_t_statistic_as_in_compare(shift):
    # a + 0.1 - a is 0.1 only up to rounding (sd about 1e-17, t about 1e16 and p = 0 before;
    # scipy's ttest_rel gives t = inf, p = 0 for exactly equal differences): the t statistic
    # is undefined there, as compare() has it. The other pair keeps its numbers.
    rng = np.random.default_rng(3)
    a = rng.random(20)
    x = np.vstack([a + shift, a, rng.random(20)])
    ref = sps.ttest_rel(x[1], x[2])
    for method in ("t", "bootstrap"):
        with pytest.warns(DegenerateComparisonWarning, match=r"^1 pair\(s\) have the same "
                          r"difference on every query \(systems 0 - 1\): their spread is 0"):
            res = paired_test(x, method=method, n_resamples=999, rng=0)
        assert np.isnan(res.statistic[0]) and np.isnan(res.pvalue[0]), method
        assert res.statistic[2] == pytest.approx(ref.statistic, rel=1e-12), method
        assert 0 < res.pvalue[2] < 1, method
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        table = compare(x, method="t").table
    assert np.isnan(table.loc[0, "pvalue"])
    assert table.loc[2, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
    # the rank, sign and flip tests are defined on a constant difference: 2 / 2**20
    for method in ("wilcoxon", "sign", "randomization"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", DegenerateComparisonWarning)
            p = paired_test(x, method=method, exact=True if method != "sign" else None)
        assert p.pvalue[0] == pytest.approx(2 / 2**20, rel=1e-12), method
