"""Multiple comparisons: statsmodels oracle, Tukey HSD on paired data, resolution warning."""

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multicomp import pairwise_tukeyhsd
from statsmodels.stats.multitest import multipletests

from fuzzytruth.stats import (
    DegenerateComparisonWarning,
    ResamplingResolutionWarning,
    adjust_pvalues,
    paired_bootstrap,
    paired_tukey_hsd,
    randomized_tukey_hsd,
    romano_wolf,
    warn_if_unresolvable,
)
from fuzzytruth.stats.multiple import can_be_significant

PVALUES = np.array([0.001, 0.012, 0.03, 0.04, 0.2, 0.5, 0.049])


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"), ("by", "fdr_by")],
)
def test_adjust_matches_statsmodels(ours, theirs):
    np.testing.assert_allclose(
        adjust_pvalues(PVALUES, method=ours), multipletests(PVALUES, method=theirs)[1]
    )


@pytest.mark.parametrize(("method", "scipy_method"), [("bh", "bh"), ("by", "by")])
def test_each_slice_along_axis_is_a_family_as_scipy_adjusts_it(method, scipy_method):
    # a 2-D array was flattened into one family, where scipy's false_discovery_control adjusts
    # each column (axis=0 by default): the same array gave other numbers without a word
    p = np.random.default_rng(4).uniform(0, 0.2, size=(6, 4))
    for axis in (0, 1, -1):
        np.testing.assert_allclose(adjust_pvalues(p, method=method, axis=axis),
                                   sps.false_discovery_control(p, axis=axis,
                                                               method=scipy_method))
    np.testing.assert_allclose(adjust_pvalues(p, method=method, axis=None).ravel(),
                               adjust_pvalues(p.ravel(), method=method))
    with pytest.raises(ValueError, match=r"axis must say which p-values form a family when "
                                         r"pvalues has 2 dimensions \(shape \(6, 4\)\)"):
        adjust_pvalues(p, method=method)
    with pytest.raises(ValueError, match=r"axis must be None or an int in \[-2, 1\] for "
                                         r"pvalues of shape \(6, 4\); got 2"):
        adjust_pvalues(p, axis=2)
    for shape in ((0, 3), (2, 0)):  # no family, whatever the axis
        for axis in (0, 1, None):
            assert adjust_pvalues(np.zeros(shape), axis=axis).shape == shape


def test_adjust_hand_example():
    # Holm on (0.01, 0.04, 0.03): sorted 0.01*3, 0.03*2, 0.04*1 -> 0.03, 0.06, max(0.06, 0.04).
    assert adjust_pvalues([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    # Bonferroni caps at 1.
    assert adjust_pvalues([0.5, 0.01], method="bonferroni").tolist() == [1.0, 0.02]


def test_adjust_ignores_nan_in_family_size():
    out = adjust_pvalues([0.01, np.nan, 0.02], method="bonferroni")
    assert np.isnan(out[1])
    assert out[[0, 2]].tolist() == pytest.approx([0.02, 0.04])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30),
       st.sampled_from(["holm", "bonferroni", "bh", "by"]))
def test_adjusted_pvalues_are_probabilities_not_below_raw(p, method):
    adj = adjust_pvalues(p, method=method)
    assert np.all((adj >= 0) & (adj <= 1))
    assert np.all(adj >= np.asarray(p) - 1e-12)


def test_adjust_errors():
    with pytest.raises(ValueError, match=r"method must be one of \['holm', 'bonferroni', 'bh', "
                                         r"'by'\]; got 'fdr'"):
        adjust_pvalues([0.1], method="fdr")
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\]"):
        adjust_pvalues([1.5])
    # an infinite p-value was taken for an undefined test (NaN) and left out of the family
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\] \(NaN for an undefined "
                       r"test\); got inf"):
        adjust_pvalues([0.01, np.inf])
    with pytest.raises(ValueError, match=r"pvalues must be real numbers; got complex values"):
        adjust_pvalues(np.array([0.1 + 1j]))
    with pytest.raises(ValueError, match=r"pvalues must be numbers; numpy could not read them"):
        adjust_pvalues(["a"])


def test_resolution_warning_follows_the_rejection_rule_p_below_alpha():
    # A test rejects when p < alpha. With B resamples the smallest p is 1 / (B + 1), so 1225
    # Bonferroni (or Holm) tests at alpha = 0.05 can reject only if 1225 / (B + 1) < 0.05,
    # i.e. B + 1 > 1225 / 0.05 = 24500. At B = 24,499 the smallest adjusted p is
    # 1225 / 24500 = 0.05 exactly, which does not reject: it warns (it said nothing while the
    # warning's rule was p <= alpha); B = 24,500 gives 1225 / 24501 = 0.04999796 < 0.05: silent.
    with pytest.warns(ResamplingResolutionWarning, match=r"n_resamples=9999 is too small for "
                      r"1225 tests at alpha=0.05.*must exceed m/alpha = 24500"):
        assert warn_if_unresolvable(9999, 1225, method="bonferroni")
    for method in ("bonferroni", "holm"):
        with pytest.warns(ResamplingResolutionWarning, match=r"1/\(B\+1\)=4.08e-05"):
            assert warn_if_unresolvable(24499, 1225, method=method)
        assert adjust_pvalues(np.full(1225, 1 / 24500), method=method)[0] == 0.05
        assert not can_be_significant(1 / 24500, 1225, method=method, alpha=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_if_unresolvable(24500, 1225, method="bonferroni")
        assert not warn_if_unresolvable(24500, 1225, method="holm")
        # BH can reject when every p-value is minimal: 1/(B+1) < alpha suffices.
        assert not warn_if_unresolvable(9999, 1225, method="bh")
    # BH with B = 19: every adjusted p is 1/20 = 0.05, not below alpha; B = 20 passes
    with pytest.warns(ResamplingResolutionWarning):
        assert warn_if_unresolvable(19, 1225, method="bh")
    assert can_be_significant(1 / 21, 1225, method="bh", alpha=0.05)
    with pytest.warns(ResamplingResolutionWarning):
        warn_if_unresolvable(10, 1225, method="bh")


@pytest.mark.parametrize(("args", "message"), [
    ((-1, 5), r"n_resamples must be an integer >= 1; got -1"),  # was ZeroDivisionError
    ((0, 3), r"n_resamples must be an integer >= 1; got 0"),
    ((True, 3), r"n_resamples must be an integer >= 1; got True"),  # warned about B = True
    ((999, 0), r"n_tests must be an integer >= 1; got 0"),  # warned about 0 tests
    ((999, 2.5), r"n_tests must be an integer >= 1; got 2.5"),  # was a TypeError from numpy
])
def test_resolution_warning_arguments_are_checked(args, message):
    with pytest.raises(ValueError, match=message):
        warn_if_unresolvable(*args)


def _long(x):
    k, n = x.shape
    return pd.DataFrame({
        "score": x.ravel(),
        "system": np.repeat([f"s{i}" for i in range(k)], n),
        "query": np.tile([f"q{j}" for j in range(n)], k),
    })


def test_paired_tukey_uses_two_way_anova_residuals():
    rng = np.random.default_rng(0)
    # Strong query effect: the paired design removes it from the error term.
    x = rng.normal(size=(4, 15)) * 0.1 + rng.normal(size=15) + np.array([0, 0.05, 0.1, 0.2])[
        :, None]
    res = paired_tukey_hsd(x)
    fit = smf.ols("score ~ C(system) + C(query)", data=_long(x)).fit()
    table = anova_lm(fit)
    assert res.mse == pytest.approx(table.loc["Residual", "mean_sq"])
    assert res.df == table.loc["Residual", "df"] == 3 * 14
    means = x.mean(axis=1)
    q = abs(means[0] - means[3]) / np.sqrt(res.mse / 15)
    assert res.statistic[2] == pytest.approx(q)
    assert res.pvalue[2] == pytest.approx(sps.studentized_range.sf(q, 4, 42))
    # The unpaired one-way Tukey leaves the query effect in the error and loses power.
    unpaired = pairwise_tukeyhsd(x.ravel(), np.repeat(np.arange(4), 15))
    assert res.pvalue[2] < unpaired.pvalues[2]


def test_randomized_tukey_by_explicit_loop():
    # Reference: permute labels within each query with an explicit loop, same definition.
    rng = np.random.default_rng(1)
    x = rng.random((4, 12)) + np.array([0.0, 0.1, 0.0, 0.3])[:, None]
    res = randomized_tukey_hsd(x, n_resamples=3000, rng=7)
    loop_rng = np.random.default_rng(99)
    ranges = []
    for _ in range(3000):
        perm = np.array([loop_rng.permutation(col) for col in x.T]).T
        means = perm.mean(axis=1)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    expected = [((ranges >= d).sum() + 1) / 3001 for d in np.abs(res.difference)]
    np.testing.assert_allclose(res.pvalue, expected, atol=0.03)  # two Monte Carlo runs
    assert res.null_distribution.shape == (3000,)


def test_randomized_tukey_pvalues_grow_as_differences_shrink_and_exceed_unadjusted():
    rng = np.random.default_rng(2)
    x = rng.random((5, 30)) + np.linspace(0, 0.3, 5)[:, None]
    res = randomized_tukey_hsd(x, n_resamples=2000, rng=0)
    order = np.argsort(np.abs(res.difference))
    assert np.all(np.diff(res.pvalue[order]) <= 1e-12)
    assert np.all((res.pvalue > 0) & (res.pvalue <= 1))


def test_tukey_close_to_anova_tukey_on_normal_data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 60)) + np.array([0.0, 0.2, 0.4, 0.45])[:, None]
    rand = randomized_tukey_hsd(x, n_resamples=4000, rng=0).pvalue
    anova = paired_tukey_hsd(x).pvalue
    np.testing.assert_allclose(rand, anova, atol=0.05)


def test_tukey_errors():
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 1; got 0"):
        randomized_tukey_hsd([[0.1, 0.2], [0.3, 0.1]], n_resamples=0)
    with pytest.raises(ValueError, match="at least 2 queries"):
        paired_tukey_hsd([[0.1], [0.3]])


def test_tukey_of_systems_that_are_shifts_of_each_other_is_nan_with_a_warning():
    # residuals of rounding size only: the MSE was 5.8e-33, q 5.9e15 and every p-value 0
    base = np.random.default_rng(4).random(20)
    x = np.vstack([base, base + 0.1, base + 0.2])
    with pytest.warns(DegenerateComparisonWarning, match="tukey-anova statistics and p-values"):
        res = paired_tukey_hsd(x)
    assert np.isnan(res.statistic).all() and np.isnan(res.pvalue).all() and res.mse == 0.0
    assert res.difference == pytest.approx([-0.1, -0.2, -0.1])
    # exact shifts (MSE exactly 0) gave q = inf and p = 0 beside a NaN for the equal pair
    with pytest.warns(DegenerateComparisonWarning):
        exact = paired_tukey_hsd([[1.0, 2, 3, 4], [2, 3, 4, 5], [1, 2, 3, 4]])
    assert np.isnan(exact.pvalue).all()
    # one system that is not a shift gives the residual a spread: the ANOVA's own MSE
    y = np.vstack([x, np.random.default_rng(5).random(20)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = paired_tukey_hsd(y)
    fit = smf.ols("score ~ C(system) + C(query)", data=_long(y)).fit()
    assert res.mse == pytest.approx(anova_lm(fit).loc["Residual", "mean_sq"])
    assert np.isfinite(res.pvalue).all()


def test_romano_wolf_leaves_pairs_whose_spread_is_rounding_out_of_the_family():
    # the pair base vs base + 0.1 has differences of std ~1e-17: its t of ~1e15 entered the
    # family first and got p = 1 / (B + 1), where the docstring says NaN
    rng = np.random.default_rng(6)
    base = rng.random(30)
    x = np.vstack([base, base + 0.1, rng.random(30)])
    boot = paired_bootstrap(x, n_resamples=999, rng=0)
    p = romano_wolf(boot)
    assert np.isnan(p[0]) and np.isfinite(p[1:]).all()
    rest = paired_bootstrap(x, pairs=boot.pairs[1:], n_resamples=999, rng=0)
    assert p[1:] == pytest.approx(romano_wolf(rest), abs=0)


def test_romano_wolf_refuses_what_is_not_a_bootstrap():
    # the scores themselves, or the (B, n_systems) distribution, failed with AttributeError
    x = np.random.default_rng(0).random((3, 20))
    boot = paired_bootstrap(x, n_resamples=99, rng=0)
    for bad in (x, boot.bootstrap_distribution):
        with pytest.raises(ValueError, match=r"bootstrap must be a BootstrapResult "
                                             r"\(paired_bootstrap\(scores, pairs=pairs\)\); "
                                             r"got ndarray"):
            romano_wolf(bad)


def test_a_percentile_interval_from_too_few_replicates_warns():
    """agreement(n_resamples=1) printed a zero-width interval from its one replicate (0.336
    around an estimate of 0.353) without a word. Below ceil(1/alpha) - 1 replicates (39 at
    95 %) the ends of a percentile interval are the extreme replicates."""
    import warnings

    from fuzzytruth import agreement
    from fuzzytruth._resampling import percentile_interval
    from fuzzytruth.datasets import santini_illustrative

    replicates = np.random.default_rng(0).random((2, 38))
    with pytest.warns(ResamplingResolutionWarning, match=r"38 replicates are too few for a 0.95 "
                      r"percentile interval: its ends are the most extreme replicates.*at least "
                      r"39 are needed"):
        percentile_interval(replicates, 0.95)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        percentile_interval(np.random.default_rng(0).random((2, 39)), 0.95)
        percentile_interval(replicates, 0.9)  # 19 are enough at 90 %
    # one replicate has no spread: no interval at all (it was that replicate at both ends)
    result = agreement(santini_illustrative().annotations, n_resamples=1, rng=0)
    with pytest.warns(ResamplingResolutionWarning, match=r"1 replicate gives no 0.95 "
                      r"percentile interval \(NaN\): one value has no spread \(at least 39"):
        low, high = result.confidence_interval()
    assert np.isnan(low).all() and np.isnan(high).all()
    # nor does a row with one defined replicate among undefined ones
    with pytest.warns(ResamplingResolutionWarning):
        assert np.isnan(percentile_interval(np.array([np.nan] * 20 + [0.3]), 0.95)).all()
    # enough replicates in all, too few defined in some rows (a label_kappa defined in the
    # resamples that hold its category): counted by the total, they were not named
    rows = np.random.default_rng(1).random((3, 1000))
    rows[1, 5:] = np.nan
    with pytest.warns(ResamplingResolutionWarning, match=r"^1 of 3 rows have too few defined "
                      r"replicates for a 0.95 percentile interval \(the fewest 5 of 1000; at "
                      r"least 39 are needed\): their ends are the most extreme of those"):
        low, high = percentile_interval(rows, 0.95)
    assert rows[1, :5].min() <= low[1] < high[1] <= rows[1, :5].max()
