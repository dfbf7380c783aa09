"""Procedures: every test agrees with its interval, oracles for each, degenerate input."""

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as sps

from fuzzytruth.stats import DegenerateComparisonWarning, compare, paired_bootstrap, paired_test
from fuzzytruth.stats._validation import significance_level
from fuzzytruth.stats.procedures import (
    INTERVALS,
    METHODS,
    UnreliableInferenceWarning,
    paired_inference,
    skewness,
    too_skewed,
)

INTERVAL_METHODS = [m for m in METHODS if INTERVALS[m] != "none"]
ALTERNATIVES = ("two-sided", "greater", "less")

score_matrices = arrays(
    np.float64, st.tuples(st.integers(2, 3), st.integers(3, 20)),
    elements=st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 2)),
)


@settings(max_examples=60, deadline=None)
@given(score_matrices, st.sampled_from(INTERVAL_METHODS), st.sampled_from(ALTERNATIVES),
       st.floats(0.002, 0.45), st.integers(0, 2**16))
# the library's level is 1/3 rounded to 12 decimals; p = 0.3333333333333333 lies between it
# and the raw 1/3, and the interval ends at 0 exactly (a flaky failure before the test compared
# with the library's level)
@example(x=np.array([[0, 0, .36, .36], [.5, .65, .27, .08]]), method="percentile",
         alternative="two-sided", alpha=1 / 3, seed=2)
def test_p_below_alpha_exactly_when_the_interval_excludes_zero(x, method, alternative, alpha,
                                                                seed):
    res = paired_inference(x, method=method, alternative=alternative,
                           confidence_level=1 - alpha, n_resamples=199, rng=seed)
    excludes = (res.ci_low > 0) | (res.ci_high < 0)
    defined = ~np.isnan(res.pvalue)
    level = significance_level(1 - alpha)  # the one level the library tests at
    np.testing.assert_array_equal((res.pvalue < level)[defined], excludes[defined])
    assert np.all(np.isnan(res.ci_low[~defined]))


@settings(max_examples=25, deadline=None)
@given(score_matrices, st.sampled_from(INTERVAL_METHODS), st.integers(0, 2**16))
@example(  # found by this test: p = 0.4 on the dot and a low bound of 3.5e-18 (now 0)
    np.array([[0.82, 0.29, 0.94, 0, 0.68, 0, 0.36, 0, 0.18, 0.69, 0.86, 0, 0.4, 0],
              [0] * 14,
              [0, 0.05, 0, 0.91, 0.29, 0.4, 0.11, 0, 0.14, 0, 0.6, 0, 0, 0.91]]),
    "percentile", 192)
def test_the_duality_holds_at_every_level_for_one_draw(x, method, seed):
    # One p-value, many levels: the interval starts excluding 0 exactly below level 1 - p.
    alphas = np.linspace(0.01, 0.4, 9)
    res = [paired_inference(x, method=method, confidence_level=1 - a, n_resamples=199,
                            rng=seed) for a in alphas]
    p = res[0].pvalue
    for a, r in zip(alphas, res, strict=True):
        np.testing.assert_array_equal(r.pvalue, p)  # the test does not depend on the level
        ok = ~np.isnan(p)
        excludes = (r.ci_low > 0) | (r.ci_high < 0)
        np.testing.assert_array_equal(excludes[ok], (p < significance_level(1 - a))[ok])


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_t_procedure_is_scipy_ttest_rel_with_its_interval(alternative):
    rng = np.random.default_rng(1)
    x = rng.random((2, 17)) + np.array([[0.1], [0.0]])
    res = paired_inference(x, method="t", alternative=alternative, confidence_level=0.9)
    ref = sps.ttest_rel(x[0], x[1], alternative=alternative)
    ci = ref.confidence_interval(0.9)
    assert res.pvalue[0] == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.statistic[0] == pytest.approx(ref.statistic, rel=1e-12)
    assert (res.ci_low[0], res.ci_high[0]) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert res.hypothesis == "mean difference = 0" and res.interval == "t"


def test_randomization_interval_inverts_the_sign_flip_test():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 40)) + np.array([[0.3], [0.0]])
    res = paired_inference(x, method="randomization", n_resamples=1999, rng=4)
    # the p-value at 0 is the randomisation test's, drawn from the same flips
    test = paired_test(x, method="randomization", n_resamples=1999, rng=4)
    assert res.pvalue[0] == pytest.approx(test.pvalue[0], abs=1e-12)
    # each bound is accepted by the shifted test, and shifting further out is rejected. The
    # bound sits where p(theta) steps from alpha to below it (a tie of a flipped statistic
    # with the observed one), so the test of the shifted data, rounded differently, is
    # checked a hair (1e-9 of the width) inside it.
    hair = 1e-9 * (res.ci_high[0] - res.ci_low[0])
    for bound, outward in ((res.ci_low[0] + hair, -0.01), (res.ci_high[0] - hair, 0.01)):
        for shift, expect_reject in ((bound, False), (bound + outward, True)):
            shifted = x.copy()
            shifted[0] -= shift
            p = paired_test(shifted, method="randomization", n_resamples=1999, rng=4).pvalue[0]
            assert (p < 0.05) == expect_reject, (bound, shift, p)
    # and it is close to the t interval for normal data
    t = paired_inference(x, method="t")
    assert res.ci_low[0] == pytest.approx(t.ci_low[0], abs=0.05)
    assert res.ci_high[0] == pytest.approx(t.ci_high[0], abs=0.05)


def test_exact_randomization_interval_for_few_queries():
    x = np.array([[0.5, 0.7, 0.6, 0.9, 0.8, 0.75], [0.4, 0.6, 0.6, 0.5, 0.7, 0.7]])
    res = paired_inference(x, method="randomization", confidence_level=0.9)
    assert res.n_resamples == 2**6
    assert res.pvalue[0] == pytest.approx(paired_test(x, method="randomization").pvalue[0])
    assert res.ci_low[0] <= res.difference[0] <= res.ci_high[0]


def test_wilcoxon_and_sign_name_their_hypothesis_and_give_no_mean_interval():
    x = np.random.default_rng(0).random((2, 30))
    for method, hypothesis in (("wilcoxon", "differences symmetric about 0"),
                               ("sign", "median difference = 0")):
        res = paired_inference(x, method=method)
        assert res.hypothesis == hypothesis and res.interval == "none"
        assert np.isnan(res.ci_low).all() and np.isnan(res.ci_high).all()
        assert res.pvalue[0] == pytest.approx(paired_test(x, method=method).pvalue[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        table = compare(x, method="sign").table
    assert table.loc[0, "hypothesis"] == "median difference = 0"
    summary = compare(x, method="sign").summary()  # no interval column, no "none" (issue 22)
    assert "sign test (median difference; no interval)" in summary
    assert "CI" not in summary and "none" not in summary


# ---- degenerate input: a clear error or a documented NaN with a warning -----------------------


def test_two_queries_are_refused_for_every_method():
    # BCa on 2 queries excluded 0 while p = 0.24: with 2 queries nothing is computed.
    x = [[0.1, 0.5], [0.2, 0.2]]
    for method in METHODS:
        with pytest.raises(ValueError, match=r"at least 3 queries .*got 2"):
            paired_inference(x, method=method)


def test_a_given_bootstrap_must_be_of_these_scores_and_pairs():
    # Its tests and intervals are of its own pairs and scores: one drawn for the pairs in the
    # other order gave the interval of b - a beside the difference a - b (an interval that
    # excluded its own estimate), one of other scores their p-values, without a word.
    rng = np.random.default_rng(0)
    x = rng.random((2, 30))
    x[0] += 0.3
    boot = paired_bootstrap(x, n_resamples=99, rng=0)
    own = paired_inference(x, method="percentile", bootstrap=boot)
    assert own.ci_low[0] <= own.difference[0] <= own.ci_high[0]
    with pytest.raises(ValueError, match=r"bootstrap must be drawn for these 1 pairs, starting "
                                         r"\[\[1, 0\]\]; got one for 1 pairs, starting "
                                         r"\[\[0, 1\]\]"):
        paired_inference(x, pairs=[[1, 0]], method="percentile", bootstrap=boot)
    with pytest.raises(ValueError, match=r"bootstrap must be drawn from these scores"):
        paired_inference(rng.random((2, 30)), method="percentile", bootstrap=boot)
    with pytest.raises(ValueError, match=r"bootstrap must be a BootstrapResult"):
        paired_inference(x, method="percentile", bootstrap=boot.bootstrap_distribution)


def test_constant_difference_is_nan_with_a_warning_not_an_absurd_effect_size():
    base = np.random.default_rng(3).random(30)
    x = np.vstack([base, base - 0.1])  # the same difference on every query, up to rounding
    with pytest.warns(DegenerateComparisonWarning, match="same difference on every query"):
        table = compare(x, rng=0).table
    row = table.iloc[0]
    assert np.isnan(row["effect_size"])  # was -3e15 from rounding noise
    assert np.isnan(row["pvalue"]) and np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert row["difference"] == pytest.approx(0.1)
    for method in INTERVAL_METHODS:
        res = paired_inference(x, method=method, n_resamples=99, rng=0)
        assert res.degenerate[0] and np.isnan(res.pvalue[0]), method


@pytest.mark.parametrize("method", ["wilcoxon", "sign"])
def test_a_constant_differences_rank_test_is_kept_and_left_unadjusted_where_it_cannot_be(
    method,
):
    # the warning said "no test ... is defined; they are NaN" beside the rank test's p-value,
    # and Romano-Wolf's NaN for the pair was replaced by that unadjusted p-value
    rng = np.random.default_rng(7)
    base = rng.random(30)
    x = np.vstack([base, base + 0.1, rng.random(30)])
    said = f"no interval or effect size is defined \\(NaN\\); the {method} test is"
    with pytest.warns(DegenerateComparisonWarning, match=said):
        table = compare(x, method=method, correction="romano-wolf", n_resamples=999,
                        rng=0).table
    assert table.loc[0, "pvalue"] == paired_test(x[:2], method=method).pvalue[0] < 1e-8
    assert np.isnan(table.loc[0, "pvalue_adjusted"]) and np.isnan(table.loc[0, "ci_low"])
    assert np.isfinite(table.loc[1:, "pvalue_adjusted"]).all()
    with pytest.warns(DegenerateComparisonWarning):
        holm = compare(x, method=method, correction="holm").table
    assert holm.loc[0, "pvalue_adjusted"] == pytest.approx(3 * holm.loc[0, "pvalue"])


def test_zero_variance_all_ties_is_nan_with_a_warning():
    x = np.tile(np.linspace(0, 1, 30), (2, 1))
    with pytest.warns(DegenerateComparisonWarning):
        table = compare(x).table
    assert np.isnan(table.loc[0, "pvalue"]) and np.isnan(table.loc[0, "effect_size"])


def test_differences_that_are_rounding_noise_are_ties_for_every_procedure():
    # Equal scores in exact arithmetic, half of B's written as 0.1 + 0.2 (0.30000000000000004):
    # the W/T/L column said 12 ties while the differences of -5.6e-17 gave the t test
    # p = 0.0069 (scipy's ttest_rel on these doubles too), the sign test p = 0.031 and d_z = -1.
    a = np.full(12, 0.3)
    b = np.where(np.arange(12) % 2 == 1, 0.1 + 0.2, 0.3)
    x = np.vstack([a, b])
    assert (a - b != 0).sum() == 6  # the doubles differ
    with pytest.warns(DegenerateComparisonWarning, match="same difference on every query"):
        table = compare(x).table
    assert table.loc[0, "ties"] == 12
    assert np.isnan(table.loc[0, "pvalue"]) and np.isnan(table.loc[0, "effect_size"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        for method in METHODS:
            res = paired_inference(x, method=method, n_resamples=99, rng=0)
            assert np.isnan(res.pvalue[0]), method
    for method in ("t", "wilcoxon", "sign"):  # no non-zero difference: undefined
        assert np.isnan(paired_test(x, method=method).pvalue[0]), method
    assert paired_test(x, method="randomization").pvalue[0] == 1.0
    # Among real differences the noise is a zero: the same p-values as scipy 1.17's
    # ttest_rel, wilcoxon and binomtest on the scores written as 0.3 (exact zeros there;
    # wilcoxon drops them, zero_method="wilcox", and its exact distribution fits the 7 others).
    a2 = np.concatenate([a, [0.5, 0.6, 0.7, 0.2, 0.9, 0.4, 0.8]])
    b2 = np.concatenate([b, [0.45, 0.3, 0.0, 0.32, 0.1, 0.15, 0.64]])
    clean = np.concatenate([np.full(12, 0.3), b2[12:]])
    x2 = np.vstack([a2, b2])
    ref_t = sps.ttest_rel(a2, clean)
    assert paired_test(x2, method="t").pvalue[0] == pytest.approx(ref_t.pvalue, rel=1e-12)
    ci = ref_t.confidence_interval(0.95)
    res = paired_inference(x2, method="t")
    assert (res.ci_low[0], res.ci_high[0]) == pytest.approx((ci.low, ci.high), rel=1e-12)
    d = a2 - clean
    ref_sign = sps.binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5).pvalue
    assert paired_test(x2, method="sign").pvalue[0] == pytest.approx(ref_sign, rel=1e-12)
    ref_w = sps.wilcoxon(a2[12:], clean[12:], method="exact").pvalue
    assert paired_test(x2, method="wilcoxon").pvalue[0] == pytest.approx(ref_w, rel=1e-12)


def test_few_queries_and_ties_warn_that_no_procedure_is_reliable():
    rng = np.random.default_rng(0)
    x = rng.random((2, 10))
    with pytest.warns(UnreliableInferenceWarning, match="only 10 queries: below 25"):
        compare(x)
    lattice = np.round(rng.random((2, 40)), 1)
    lattice[1, :30] = lattice[0, :30]  # 30 of 40 queries tie
    with pytest.warns(UnreliableInferenceWarning, match="tie on more than 50%"):
        compare(lattice)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(rng.random((2, 40)))  # enough queries, no ties: silent


def test_rare_large_differences_warn_at_50_queries():
    # 10 % of the queries carry a large one-sided difference, mean 0: the t test's size was
    # 11 % at 50 queries in the validity study, and the old rule (|skewness| > 1 below 50
    # queries) stayed silent from 50 queries on.
    rng = np.random.default_rng(3)
    base = rng.random(50)
    d = np.where(np.arange(50) < 5, 0.45, -0.05) + 0.01 * rng.standard_normal(50)
    x = np.vstack([base + d, base])
    with pytest.warns(UnreliableInferenceWarning, match="too skewed for 50 queries"):
        compare(x)


def test_the_skewness_alarm_is_skewness_squared_against_the_number_of_queries():
    # by hand: k ones among n zeros have skewness (1 - 2p) / sqrt(p (1 - p)), p = k / n;
    # 5 in 50: 0.8 / 0.3 = 2.667, squared 7.11 > 0.06 * 50 = 3; 40 in 50: -1.5, 2.25 < 3
    d = np.zeros((2, 50))
    d[0, :5] = 1.0
    d[1, :40] = 1.0
    np.testing.assert_allclose(skewness(d), [0.8 / 0.3, -0.6 / 0.4], rtol=1e-12)
    np.testing.assert_array_equal(too_skewed(d), [True, False])
    # the same skewness of -1.5 with 25 queries: 2.25 > 0.06 * 25 = 1.5
    assert too_skewed(d[1:, ::2]).tolist() == [True]
    rng = np.random.default_rng(1)
    base = rng.random(100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(np.vstack([base + 0.1 * rng.standard_normal(100), base]))  # normal: silent
    # below 25 queries only the few-queries warning speaks (the alarm's 0.06 n is tiny there)
    few = np.vstack([base[:10] + np.where(np.arange(10) < 1, 1.0, 0.0), base[:10]])
    assert too_skewed(few[:1] - few[1:]).tolist() == [True]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(few)
    messages = [str(w.message) for w in caught]
    assert any("only 10 queries" in m for m in messages)
    assert not any("too skewed" in m for m in messages)


@pytest.mark.parametrize("scale", [1e-130, 1e130])
def test_the_skewness_alarm_does_not_depend_on_the_scale_of_the_scores(scale):
    # Accepted scores reach 1e140 in absolute value: the cube of differences of 1e130
    # overflowed (and of 1e-130 underflowed) into a NaN skewness, and the warning was silent.
    d = np.zeros((1, 50))
    d[0, :5] = 1.0
    np.testing.assert_allclose(skewness(d * scale), [0.8 / 0.3], rtol=1e-12)
    assert too_skewed(d * scale).tolist() == [True]
    base = np.linspace(0.0, 1.0, 50)
    with pytest.warns(UnreliableInferenceWarning, match="too skewed for 50 queries"):
        compare(np.vstack([base + d[0], base]) * scale)


@pytest.mark.parametrize(("method", "n_resamples"), [("randomization", 19), ("percentile", 39)])
def test_a_pvalue_of_exactly_alpha_is_neither_starred_nor_excluded(method, n_resamples):
    # All 30 differences positive: no random sign flip reaches the observed mean (2 of 2**30
    # do), so the randomisation p-value is (0 + 1) / (19 + 1) = 0.05 exactly; every bootstrap
    # mean is positive, so the percentile p-value is 2 / (39 + 1) = 0.05 exactly. 1 - 0.95 is
    # 0.05000000000000004 in floating point: the interval used to count p = 0.05 as a
    # rejection while the star (p < 0.05) did not.
    rng = np.random.default_rng(0)
    base = rng.random(30)
    x = np.vstack([base + 0.05 + rng.random(30), base])
    res = paired_inference(x, method=method, n_resamples=n_resamples, rng=0)
    assert res.pvalue[0] == 0.05
    assert res.ci_low[0] <= 0 <= res.ci_high[0]
    for correction in ("none", "holm"):
        table = compare(x, method=method, n_resamples=n_resamples, correction=correction,
                        rng=0).table
        row = table.iloc[0]
        assert row["pvalue"] == 0.05 and row["pvalue_adjusted"] == 0.05
        assert row["ci_low"] <= 0 <= row["ci_high"]
        assert compare(x, method=method, n_resamples=n_resamples, correction=correction,
                       rng=0).significant().empty


def test_an_interval_is_held_to_its_test_only_within_rounding():
    from fuzzytruth.stats.bootstrap import _agree

    tiny = np.nextafter(0.0, 1.0)
    low = np.array([-1e-19, 1e-19, 0.1, 1e-19, -0.3, -0.5])
    high = np.array([0.5, 0.5, 0.5, 0.5, 1e-19, -1e-19])
    p = np.array([0.3, 0.5, 0.5, np.nan, 0.3, 0.5])
    low_side = np.array([True, True, True, True, False, False])
    _agree(low, high, p, low_side, 0.4, np.full(6, 0.2))
    # rejected: the bound moves just past 0 on the rejected side; not rejected: onto 0; a
    # disagreement larger than rounding (0.1) or a NaN p-value: left as it is
    assert low.tolist() == [tiny, 0.0, 0.1, 1e-19, -0.3, -0.5]
    assert high.tolist() == [0.5, 0.5, 0.5, 0.5, -tiny, 0.0]


@pytest.mark.parametrize("scale", [1e-9, 1e-30, 1e30])
def test_the_randomization_interval_does_not_depend_on_the_units_of_the_scores(scale):
    # The bisection's bracket reached n max|d| + 1.0 beyond the estimate: an absolute term
    # that 40 halvings resolve to 2**-40, so at scores of 1e-30 the 1% interval collapsed to
    # the estimate ([1.4167, 1.4167] for [1.375, 1.5]; found by a fuzz run). The oracle is
    # the same interval in units of 1, whose bounds the exact test at theta just inside and
    # just outside confirms.
    d = np.array([2, -1.5, 2, 2, 1, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        unit = paired_inference(np.vstack([d, np.zeros(6)]), method="randomization",
                                confidence_level=0.01)
        scaled = paired_inference(np.vstack([d * scale, np.zeros(6)]),
                                  method="randomization", confidence_level=0.01)
    assert (unit.ci_low[0], unit.ci_high[0]) == pytest.approx((1.375, 1.5), abs=1e-9)
    for bound, side in ((unit.ci_low[0], -1), (unit.ci_high[0], 1)):
        inside = paired_test(np.vstack([d - (bound - side * 1e-6), np.zeros(6)]),
                             method="randomization").pvalue[0]
        outside = paired_test(np.vstack([d - (bound + side * 1e-6), np.zeros(6)]),
                              method="randomization").pvalue[0]
        assert inside >= 0.99 > outside
    assert scaled.ci_low[0] / scale == pytest.approx(unit.ci_low[0], rel=1e-9)
    assert scaled.ci_high[0] / scale == pytest.approx(unit.ci_high[0], rel=1e-9)
    assert scaled.pvalue[0] == unit.pvalue[0]
