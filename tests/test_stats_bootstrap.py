"""Bootstrap intervals and their dual tests: scipy oracle, closed forms, decomposition."""

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as sps

from fuzzytruth._resampling import QueryCounts, resamples_to_bound
from fuzzytruth.report import comparison_notes
from fuzzytruth.stats import (
    ResamplingResolutionWarning,
    compare,
    paired_bootstrap,
    paired_inference,
    truth_decomposition,
    world_preference,
)
from fuzzytruth.stats._validation import significance_level
from fuzzytruth.stats.bootstrap import INTERVAL_METHODS
from fuzzytruth.stats.procedures import UnreliableInferenceWarning

B = 20_000


@pytest.fixture
def skewed():
    rng = np.random.default_rng(0)
    return rng.exponential(size=(3, 30))


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
def test_intervals_match_scipy_bootstrap_within_monte_carlo_error(skewed, method):
    res = paired_bootstrap(skewed, n_resamples=B, rng=1)
    diffs = res.confidence_interval(0.95, method=method)
    means = res.confidence_interval(0.95, method=method, target="means")
    scipy_name = "BCa" if method == "bca" else method
    for (a, b), lo, hi in zip(res.pairs, diffs.low, diffs.high, strict=True):
        ref = sps.bootstrap(
            (skewed[a] - skewed[b],), np.mean, method=scipy_name, n_resamples=B, rng=2
        ).confidence_interval
        # Monte Carlo error of a 2.5% quantile with B = 20000 is ~1.1% of the interval width,
        # so two independent estimates differ by sd ~1.6%: 5% is ~3 sd (3% was under 2 sd,
        # with 36 bounds compared).
        tol = 0.05 * (ref.high - ref.low)
        assert lo == pytest.approx(ref.low, abs=tol)
        assert hi == pytest.approx(ref.high, abs=tol)
    for s in range(3):
        ref = sps.bootstrap(
            (skewed[s],), np.mean, method=scipy_name, n_resamples=B, rng=2
        ).confidence_interval
        tol = 0.05 * (ref.high - ref.low)
        assert means.low[s] == pytest.approx(ref.low, abs=tol)
        assert means.high[s] == pytest.approx(ref.high, abs=tol)


def test_bca_acceleration_is_the_jackknife_of_the_mean(skewed):
    res = paired_bootstrap(skewed, n_resamples=10, rng=0)
    x = skewed[0] - skewed[1]
    jack = np.array([np.delete(x, i).mean() for i in range(len(x))])  # leave-one-out means
    u = jack.mean() - jack
    expected = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
    assert res._acceleration("differences")[0] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("scale", [1e-130, 1e-105, 1e105, 1e130])
def test_bca_does_not_depend_on_the_scale_of_the_scores(skewed, scale):
    # Scores up to 1e140 in absolute value are accepted (SCALE_LIMIT). The acceleration cubed
    # the deviations as they were: at 1e105 the cube overflowed (acceleration NaN, NaN bounds
    # beside p = 1 / (B + 1) = 0.0005), at 1e-105 it underflowed to an acceleration of 0.
    # BCa is equivariant: the interval scales with the scores and the p-value stays put.
    unit = paired_inference(skewed, method="bca", n_resamples=1999, rng=1)
    scaled = paired_inference(skewed * scale, method="bca", n_resamples=1999, rng=1)
    np.testing.assert_allclose(scaled.pvalue, unit.pvalue, rtol=1e-9)
    np.testing.assert_allclose(scaled.ci_low / scale, unit.ci_low, rtol=1e-9)
    np.testing.assert_allclose(scaled.ci_high / scale, unit.ci_high, rtol=1e-9)
    boot = paired_bootstrap(skewed * scale, n_resamples=10, rng=0)
    np.testing.assert_allclose(boot._acceleration("differences"),
                               paired_bootstrap(skewed, n_resamples=10, rng=0)
                               ._acceleration("differences"), rtol=1e-12)


@pytest.mark.parametrize("method", ["bootstrap", "bca", "percentile", "basic"])
@pytest.mark.parametrize("ints", [
    [[7, 1, 5], [3, 0, 4]],
    [[10, 6, 5, 3, 3, 6, 4, 6, 7, 9], [10, 5, 5, 3, 2, 6, 3, 6, 7, 8]],
    [[5, 7, 2, 6, 9], [6, 8, 2, 5, 9], [1, 3, 8, 4, 6]],
])
def test_lattice_scores_give_the_same_test_in_tenths_as_in_integers(method, ints):
    # P@10 scores (k / 10) and the integers k, with the same resamples: every procedure is
    # equivariant, so the p-value must not move and the interval must scale by 10. Resampled
    # means equal to 0 (or to the estimate, or bootstrap-t values equal to the observed t) in
    # exact arithmetic fell on either side of it by rounding in tenths and not in integers:
    # bootstrap-t p = 0.002 in tenths against 0.082 in integers on the 3 queries; BCa 0.0060
    # against 0.0036 and basic 0.004 against 0.002 on the 10 (found by a differential fuzz).
    ints = np.array(ints, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableInferenceWarning)
        whole = paired_inference(ints, method=method, n_resamples=999, rng=3)
        tenths = paired_inference(ints / 10, method=method, n_resamples=999, rng=3)
    np.testing.assert_allclose(tenths.pvalue, whole.pvalue, rtol=1e-9)
    np.testing.assert_allclose(tenths.ci_low * 10, whole.ci_low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tenths.ci_high * 10, whole.ci_high, rtol=1e-9, atol=1e-12)


def test_bootstrap_distribution_is_counts_times_scores(skewed):
    res = paired_bootstrap(skewed, n_resamples=50, rng=4)
    counts = res._counts.rows(np.arange(50))
    assert counts.shape == (50, 30)
    assert (counts.sum(axis=1) == 30).all()
    np.testing.assert_allclose(res.bootstrap_distribution, counts @ skewed.T / 30)
    np.testing.assert_allclose(
        res.difference_distribution[:, 0],
        res.bootstrap_distribution[:, 0] - res.bootstrap_distribution[:, 1],
    )


def test_percentile_and_basic_intervals_by_hand(skewed):
    res = paired_bootstrap(skewed, n_resamples=999, rng=3)
    boot = res.difference_distribution
    lo, hi = np.quantile(boot, [0.05, 0.95], axis=0)
    ci = res.confidence_interval(0.90, method="percentile")
    np.testing.assert_allclose(ci.low, lo)
    np.testing.assert_allclose(ci.high, hi)
    basic = res.confidence_interval(0.90, method="basic")
    np.testing.assert_allclose(basic.low, 2 * res.difference - hi)
    np.testing.assert_allclose(basic.high, 2 * res.difference - lo)


def test_studentized_interval_by_explicit_loop(skewed):
    # Reference: an explicit loop over resamples (slow, fine for 200).
    res = paired_bootstrap(skewed, n_resamples=200, rng=6)
    ci = res.confidence_interval(0.9, method="studentized")
    x = skewed[0] - skewed[2]
    n = len(x)
    se = x.std(ddof=1) / np.sqrt(n)
    t = []
    for row in res._counts.rows(np.arange(200)):
        xs = np.repeat(x, row.astype(int))
        t.append((xs.mean() - x.mean()) / (xs.std(ddof=1) / np.sqrt(n)))
    q_lo, q_hi = np.quantile(t, [0.05, 0.95])
    assert ci.low[1] == pytest.approx(x.mean() - q_hi * se)
    assert ci.high[1] == pytest.approx(x.mean() - q_lo * se)


def test_studentized_fallback_catches_resamples_without_spread_up_to_rounding():
    # Scores in thirds: a - b is 1/3 (two of them one ulp above) on five queries, so a third
    # of the resamples draw only that value. Their one-pass variance m2 - m1^2 was ~1e-17,
    # not 0, so they escaped the fallback with t* ~ 6e7 (low bound -7.4e6, p 0.39).
    # Reference: an explicit loop, a resample whose values are equal up to rounding being
    # studentised by the observed se (the documented fallback).
    x = np.array([[2, 3, 1, 2, 3, 0], [1, 2, 0, 1, 2, 1]]) / 3
    d = x[0] - x[1]
    n = len(d)
    se = d.std(ddof=1) / np.sqrt(n)
    res = paired_bootstrap(x, n_resamples=999, rng=0)
    t = []
    for row in res._counts.rows(np.arange(999)):
        xs = np.repeat(d, row.astype(int))
        flat = np.ptp(xs) <= 1e-12 * np.abs(xs).max()
        t.append((xs.mean() - d.mean()) / (se if flat else xs.std(ddof=1) / np.sqrt(n)))
    ci = res.confidence_interval(0.9, method="studentized")
    q_lo, q_hi = np.quantile(t, [0.05, 0.95])
    assert ci.low[0] == pytest.approx(d.mean() - q_hi * se)
    assert ci.high[0] == pytest.approx(d.mean() - q_lo * se)
    t_obs = d.mean() / se
    tail = min(np.mean(np.array(t) >= t_obs), np.mean(np.array(t) <= t_obs))
    assert res.pvalue(method="studentized")[0] == pytest.approx(2 * tail, abs=2 / 1000)


def test_query_counts_drawn_in_blocks_give_the_kept_intervals():
    # The counts are kept only when they fit in the memory budget; otherwise the studentized
    # interval's second moments and the no-spread check draw them a block at a time. Both
    # must give the same numbers: here the kept table (the default budget) against blocks of
    # 7 replicates, on scores in thirds so that the no-spread check has suspects to redraw.
    x = np.array([[2, 3, 1, 2, 3, 0], [1, 2, 0, 1, 2, 1], [0, 3, 3, 1, 2, 2]]) / 3
    res = paired_bootstrap(x, n_resamples=499, rng=5)
    kept = res._counts
    blocked = QueryCounts(kept.seed, kept.n_queries, kept.n_resamples,
                          memory_budget=16.0 * kept.n_queries * 7)
    assert len(list(blocked.blocks())) == 72  # ceil(499 / 7): the blocked path is taken
    assert len(list(kept.blocks())) == 1
    small = dataclasses.replace(res, _counts=blocked)
    for target in ("differences", "means"):
        a = res.confidence_interval(0.9, method="studentized", target=target)
        b = small.confidence_interval(0.9, method="studentized", target=target)
        np.testing.assert_allclose(b.low, a.low, rtol=1e-12)
        np.testing.assert_allclose(b.high, a.high, rtol=1e-12)
    np.testing.assert_allclose(small.pvalue(method="studentized"),
                               res.pvalue(method="studentized"), rtol=1e-12)
    picked = np.array([498, 3, 3, 250])
    assert np.array_equal(blocked.rows(picked), kept.rows(np.arange(499))[picked])


def test_standard_error_and_seed_reproducibility(skewed):
    a = paired_bootstrap(skewed, n_resamples=500, rng=8)
    b = paired_bootstrap(skewed, n_resamples=500, rng=8)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    np.testing.assert_allclose(
        a.standard_error(target="means"), a.bootstrap_distribution.std(axis=0, ddof=1)
    )
    # The bootstrap SE of a mean is close to the plug-in SE s_n / sqrt(n).
    plug_in = skewed.std(axis=1) / np.sqrt(30)
    np.testing.assert_allclose(a.standard_error(target="means"), plug_in, rtol=0.1)


interval_inputs = arrays(
    np.float64, st.tuples(st.integers(2, 4), st.integers(3, 12)),
    elements=st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 3)),
)


@settings(max_examples=30, deadline=None)
@given(interval_inputs, st.sampled_from(INTERVAL_METHODS), st.floats(0.5, 0.99))
def test_low_never_exceeds_high_and_swap_mirrors(x, method, level):
    fwd = paired_bootstrap(x, n_resamples=199, rng=0)
    ci = fwd.confidence_interval(level, method=method)
    assert np.all(ci.low <= ci.high + 1e-12)
    rev = paired_bootstrap(x, pairs=fwd.pairs[:, ::-1], n_resamples=199, rng=0)
    np.testing.assert_allclose(rev.difference, -fwd.difference, atol=1e-12)
    if method in ("percentile", "basic"):
        back = rev.confidence_interval(level, method=method)
        np.testing.assert_allclose(back.low, -ci.high, atol=1e-9)
        np.testing.assert_allclose(back.high, -ci.low, atol=1e-9)


# ---- this collection's truth: decomposition ------------------------------------------------


def test_decomposition_truth_share_is_zero_when_the_truth_contributes_nothing():
    # Identical worlds: the truth adds nothing, whatever the query spread (the two-level
    # bootstrap this replaces reported share_worlds of 0.25-0.32 here).
    scores = np.random.default_rng(3).random((3, 25))
    dec = truth_decomposition(np.broadcast_to(scores, (40, 3, 25)))
    np.testing.assert_allclose(dec.var_truth, 0.0, atol=1e-30)
    np.testing.assert_allclose(dec.share_truth, 0.0, atol=1e-20)
    d = scores[[0, 0, 1]] - scores[[1, 2, 2]]
    np.testing.assert_allclose(dec.var_queries, d.var(axis=1, ddof=1) / 25)


def test_decomposition_by_hand_with_world_noise():
    rng = np.random.default_rng(4)
    base = rng.random((2, 30))
    worlds = base[None] + rng.normal(0, 0.1, size=(50, 2, 30))
    dec = truth_decomposition(worlds)
    d = worlds[:, 0] - worlds[:, 1]  # (W, n)
    mc = d.var(axis=0, ddof=1).mean() / (50 * 30)
    total = d.mean(axis=0).var(ddof=1) / 30
    assert dec.var_truth[0] == pytest.approx(mc)
    assert dec.var_queries[0] == pytest.approx(total - mc)
    assert dec.spread_truth[0] == pytest.approx(d.mean(axis=1).std(ddof=1))
    assert 0 < dec.share_truth[0] < 0.05  # Monte Carlo error of 50 worlds is small


def test_decomposition_of_one_world_leaves_the_truth_unknown():
    # one sampled world gave var_truth = spread_truth = share_truth = 0: "the truth
    # contributes nothing", from a single draw of it
    worlds = np.random.default_rng(5).random((1, 2, 30))
    dec = truth_decomposition(worlds)
    assert np.isnan(dec.var_truth).all() and np.isnan(dec.spread_truth).all()
    assert np.isnan(dec.share_truth).all()
    d = worlds[0, 0] - worlds[0, 1]
    assert dec.var_queries[0] == pytest.approx(d.var(ddof=1) / 30)


def test_world_preference_counts_ties_and_sums_to_one():
    rng = np.random.default_rng(0)
    worlds = rng.random((50, 3, 8))
    worlds[:10, 1] = worlds[:10, 0]  # ten worlds where systems 0 and 1 tie exactly
    pref = world_preference(worlds)
    manual = worlds.mean(axis=2)
    better = (manual[:, 0] > manual[:, 1])[10:].mean() * 40 / 50
    assert pref.prob_tie[0] == pytest.approx(0.2)
    assert pref.prob_better[0] == pytest.approx(better)
    np.testing.assert_allclose(pref.prob_better + pref.prob_tie + pref.prob_worse, 1.0)
    wide = world_preference(worlds, tie_tolerance=1.0)
    np.testing.assert_allclose(wide.prob_tie, 1.0)


def test_world_preference_from_one_world_warns_that_its_shares_are_0_or_1():
    # scores of one world (evaluate(..., n_worlds=1)) gave prob_better 1.0 without a word,
    # read in compare()'s table as certainty over the ground truth
    scores = np.random.default_rng(3).random((2, 30))
    one = scores[None]
    with pytest.warns(ResamplingResolutionWarning, match=r"^1 world: each share is 0 or 1"):
        pref = world_preference(one)
    assert pref.prob_better[0] in (0.0, 1.0) and pref.n_worlds == 1
    with pytest.warns(ResamplingResolutionWarning, match=r"^1 world: each share is 0 or 1"):
        compare(one, n_resamples=100, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResamplingResolutionWarning)
        world_preference(np.stack([scores, scores]))


@pytest.mark.parametrize("power", [-40, -80, 40])
def test_world_preference_does_not_depend_on_the_scale_of_the_scores(power):
    # Scaling by a power of two is exact, so every comparison of means is unchanged; with an
    # absolute tie slack of 1e-12, scores of order 2**-40 tied in every world (prob_tie 1).
    rng = np.random.default_rng(0)
    worlds = rng.random((50, 3, 8))
    worlds[:10, 1] = worlds[:10, 0]
    worlds[10:20, 2] = worlds[10:20, 0][..., ::-1]  # equal means up to rounding: ties
    ref = world_preference(worlds)
    assert ref.prob_tie.tolist() == [0.2, 0.2, 0.0]
    scaled = world_preference(worlds * 2.0**power)
    np.testing.assert_array_equal(scaled.prob_better, ref.prob_better)
    np.testing.assert_array_equal(scaled.prob_tie, ref.prob_tie)


def test_interval_errors_are_named(skewed):
    res = paired_bootstrap(skewed, n_resamples=50, rng=0)
    with pytest.raises(ValueError, match=r"method must be one of \['percentile', 'basic', "
                                         r"'bca', 'studentized'\]; got 'bc'"):
        res.confidence_interval(method="bc")
    with pytest.raises(ValueError, match=r"confidence_level must be a number strictly between "
                                         r"0 and 1; got 95"):
        res.confidence_interval(95)
    # None is no level: it returned None (test_and_interval's "no interval") without an error
    with pytest.raises(ValueError, match=r"confidence_level must be a number strictly between "
                                         r"0 and 1; got None"):
        res.confidence_interval(None, method="bca")
    with pytest.raises(ValueError, match=r"target must be one of \['differences', 'means'\]"):
        res.confidence_interval(target="pairs")
    with pytest.raises(ValueError, match=r"confidence_level must exceed 0.5 for a one-sided"):
        res.confidence_interval(0.4, alternative="greater")
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 2; got 1"):
        paired_bootstrap(skewed, n_resamples=1)
    with pytest.raises(ValueError, match=r"must have shape \(n_systems, n_queries\); got an "
                                         r"array of shape \(2, 2, 2\)"):
        paired_bootstrap(np.zeros((2, 2, 2)))  # average the worlds first


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_low_precision_numpy_confidence_level_is_the_decimal_typed(skewed, dtype):
    """np.float32(0.95) is stored as 0.949999988: taken as such, alpha was 0.050000012 and
    intervals and tests sat at another level than 0.95's. It is read as 0.95."""
    res = paired_bootstrap(skewed, n_resamples=200, rng=0)
    ci, typed = res.confidence_interval(0.95), res.confidence_interval(dtype(0.95))
    assert typed.confidence_level == 0.95
    np.testing.assert_array_equal([typed.low, typed.high], [ci.low, ci.high])
    inference, reference = (
        paired_inference(skewed, method="bootstrap", confidence_level=level, bootstrap=res)
        for level in (dtype(0.95), 0.95))
    assert inference.confidence_level == 0.95
    assert significance_level(inference.confidence_level) == 0.05
    np.testing.assert_array_equal([inference.ci_low, inference.ci_high],
                                  [reference.ci_low, reference.ci_high])


def test_bca_is_nan_when_every_resample_is_on_one_side():
    # Both resampled differences (-0.011, -0.120) lie below the estimate 0.058: the bias
    # correction z0 = ndtri(0) is infinite, so BCa is undefined (scipy also returns NaN).
    x = np.random.default_rng(0).random((2, 30))
    res = paired_bootstrap(x, n_resamples=2, rng=1)
    assert (res.difference_distribution < res.difference).all()
    ci = res.confidence_interval(method="bca")
    assert np.isnan(ci.low[0]) and np.isnan(ci.high[0])
    # Two resamples cannot resolve a 2.5 % tail (resolution 1/(B+1) = 1/3): unbounded, not NaN;
    # a 20 % interval (tails of 40 %) is resolved.
    assert res.confidence_interval(method="percentile").low[0] == -np.inf
    assert np.isfinite(res.confidence_interval(0.2, method="percentile").low[0])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6), st.integers(2, 300),
    st.lists(st.floats(0, 1), min_size=2, max_size=2), st.integers(0, 2**32 - 1),
)
def test_tail_quantiles_equal_numpy_quantile(n_rows, width, levels, seed):
    from fuzzytruth.stats.bootstrap import _row_quantiles

    rng = np.random.default_rng(seed)
    rows = np.round(rng.random((n_rows, width)), 2)  # with ties
    per_row = np.sort(rng.random((n_rows, 2)), axis=1) if seed % 2 else np.sort(levels)
    expected = np.array([
        np.quantile(r, lv) for r, lv in zip(rows, np.broadcast_to(per_row, (n_rows, 2)),
                                            strict=True)
    ])
    np.testing.assert_allclose(_row_quantiles(rows.copy(), per_row), expected, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(2, 3000), st.sampled_from(["random", "sorted", "reversed",
                                                                 "constant"]),
       st.integers(0, 2**16))
@example(3, 2500, "random", 1)  # the sampled-bracket path, for certain
@example(2, 2500, "sorted", 2)  # ... and its fallback
def test_order_statistics_and_crossings_equal_a_full_sort(n_rows, width, order, seed):
    # wide rows take the sampled-bracket path (above SORT_WIDTH); a sorted or reversed row
    # makes the leading sample unrepresentative, so its bracket misses and the row is sorted
    from fuzzytruth.stats._order_statistics import crossing_counts, order_statistics

    rng = np.random.default_rng(seed)
    rows = np.round(rng.normal(size=(n_rows, width)), 1)  # lattice: many ties
    if order == "sorted":
        rows.sort(axis=1)
    elif order == "reversed":
        rows = -np.sort(rows, axis=1)
    elif order == "constant":
        rows[:] = 0.5
    before = rows.copy()
    positions = np.sort(rng.integers(0, width, size=(n_rows, 4)), axis=1)
    ordered = np.sort(rows, axis=1)
    np.testing.assert_array_equal(order_statistics(rows, positions),
                                  np.take_along_axis(ordered, positions, axis=1))
    np.testing.assert_array_equal(rows, before)  # the rows are not reordered
    values = np.round(rng.normal(size=n_rows), 1)
    n_below, n_equal, under, over = crossing_counts(rows, values)
    v = values[:, None]
    np.testing.assert_array_equal(n_below, (rows < v).sum(axis=1))
    np.testing.assert_array_equal(n_equal, (rows == v).sum(axis=1))
    np.testing.assert_array_equal(under, np.where(rows < v, rows, -np.inf).max(axis=1))
    np.testing.assert_array_equal(over, np.where(rows > v, rows, np.inf).min(axis=1))


@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "studentized"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_an_estimate_that_is_rounding_noise_keeps_the_interval_with_its_test(method, alternative):
    # Equal means in exact arithmetic (differences -0.1, 0.5, -0.4) whose difference of means
    # came out 1.1e-16: the basic interval reflected about it had its low bound at 1.1e-16
    # beside p = 0.589 (greater, level 0.6; found by fuzzing the duality law), excluding 0
    # where its test did not reject. Held to the test within the scores' rounding, not within
    # 1e-12 of the noise itself.
    x = np.array([[0.6, 1.0, 0.1], [0.7, 0.5, 0.5]])
    res = paired_bootstrap(x, n_resamples=999, rng=0)
    assert res.difference[0] != 0.0  # the rounding noise this is about
    for level in (0.55, 0.6, 0.7, 0.8, 0.9, 0.95):
        if alternative != "two-sided" or level > 0.5:
            ci, p = res.test_and_interval(level, method=method, alternative=alternative)
            excludes = bool(ci.low[0] > 0 or ci.high[0] < 0)
            assert excludes == bool(p[0] < round(1 - level, 12)), (level, ci.low, ci.high, p)


def test_a_bootstrap_whose_means_cannot_fit_is_refused_before_drawing():
    # (B, n_systems) means are kept: at the largest B (10**8) and 2,000 systems that is 1.6 TB,
    # which numpy would try to allocate (or the kernel kill the process for). Refused by the
    # check that refuses worlds that cannot fit, naming n_resamples.
    from fuzzytruth._validation import physical_memory

    if physical_memory() is None:
        pytest.skip("the physical memory is unknown here: nothing to compare with")
    x = np.random.default_rng(0).random((2000, 3))
    with pytest.raises(ValueError, match=r"n_resamples=100000000 would keep 1\.6 TB of "
                                         r"resampled values \(16000 bytes per resample\)"):
        paired_bootstrap(x, n_resamples=10**8, rng=0)


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_resamples_to_bound_is_the_fewest_that_bound_the_interval(level, alternative):
    # the rule compare() warns by and the report's footnote reads: with B below it, the ends
    # an interval of this alternative bounds are infinite; from B on they are finite
    needed = resamples_to_bound(level, alternative)
    x = np.random.default_rng(1).random((2, 40))
    ends = {"two-sided": [0, 1], "greater": [0], "less": [1]}[alternative]
    for b, finite in ((needed - 1, False), (needed, True)):
        res = paired_bootstrap(x, n_resamples=b, rng=0)
        for method in ("percentile", "basic", "bca", "studentized"):
            ci = res.confidence_interval(method=method, confidence_level=level,
                                         alternative=alternative)
            got = np.isfinite([ci.low[0], ci.high[0]])[ends]
            assert got.all() if finite else not got.any(), (method, b)


def test_compare_warns_and_the_report_explains_an_unbounded_interval():
    x = np.random.default_rng(0).random((2, 30))
    with pytest.warns(ResamplingResolutionWarning, match=r"^n_resamples=39 resolves tails of "
                      r"1/\(B\+1\) = 0.025 at the finest: the 95% two-sided bootstrap intervals "
                      r"are unbounded \(inf ends\); at least 40 resamples bound them$"):
        comparison = compare(x, method="percentile", n_resamples=39, rng=0)
    assert np.isinf(comparison.table[["ci_low", "ci_high"]].to_numpy()).all()
    assert ("inf: B = 39 resamples resolve tails of 1/(B+1) = 0.025 at the finest, so the 95% "
            "intervals are unbounded; at least 40 bound them.") in comparison_notes(comparison)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResamplingResolutionWarning)
        bounded = compare(x, method="percentile", n_resamples=40, rng=0)
        compare(x, method="randomization", n_resamples=19, correction="none", rng=0)
    assert not any(n.startswith("inf:") for n in comparison_notes(bounded))
