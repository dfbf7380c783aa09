"""Effect sizes, wins/ties/losses and power, against hand derivations and statsmodels."""

import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.power import TTestPower

from fuzzytruth.stats import (
    cohens_dz,
    paired_power,
    paired_test,
    queries_for_power,
    wins_ties_losses,
    world_preference,
)


def test_cohens_dz_hand_example_and_relation_to_t():
    # d = (0.1, 0.1, 0, 0.4): mean 0.15, sample sd sqrt(0.09 / 3) = 0.17321, d_z = 0.86603.
    x = np.array([[0.5, 0.7, 0.6, 0.9], [0.4, 0.6, 0.6, 0.5]])
    assert cohens_dz(x)[0] == pytest.approx(0.15 / np.sqrt(0.03))
    t = paired_test(x, method="t").statistic[0]
    assert t == pytest.approx(cohens_dz(x)[0] * np.sqrt(4))


def test_cohens_dz_flips_sign_with_pair_order():
    rng = np.random.default_rng(0)
    x = rng.random((3, 20))
    np.testing.assert_allclose(cohens_dz(x, pairs=[[1, 0]]), -cohens_dz(x, pairs=[[0, 1]]))


def test_wins_ties_losses_tolerance_rule():
    x = [[0.50, 0.70, 0.60, 0.90, 0.30], [0.45, 0.70, 0.62, 0.50, 0.31]]
    exact = wins_ties_losses(x)
    assert (exact.wins[0], exact.ties[0], exact.losses[0]) == (2, 1, 2)
    # |d| <= 0.05 is a tie: d = 0.05, 0, -0.02, 0.4, -0.01 -> 1 win, 4 ties, 0 losses.
    loose = wins_ties_losses(x, tie_tolerance=0.05 + 1e-12)
    assert (loose.wins[0], loose.ties[0], loose.losses[0]) == (1, 4, 0)
    with pytest.raises(ValueError, match=r"tie_tolerance must be a finite number >= 0; got -1"):
        wins_ties_losses(x, tie_tolerance=-1)


@pytest.mark.parametrize("tolerance", ["0", "0.1", "0.2", "0.3", "0.25"])
def test_a_tolerance_in_decimals_ties_what_decimal_arithmetic_ties(tolerance):
    """Every pair of P@10 values: a tie exactly when |a - b| <= tolerance in decimals. In
    doubles 0.8 - 0.6 is 0.20000000000000007 and 0.5 - 0.3 is 0.2: at a tolerance of 0.2 the
    first was a win and the second a tie, and world_preference (which had a slack for
    rounding) disagreed with wins_ties_losses inside compare()."""
    values = [Fraction(i, 10) for i in range(11)]
    pairs = [(a, b) for a in values for b in values]
    x = np.array([[float(a) for a, _ in pairs], [float(b) for _, b in pairs]])
    tol = Fraction(tolerance)
    wins = sum(a - b > tol for a, b in pairs)
    losses = sum(b - a > tol for a, b in pairs)
    wtl = wins_ties_losses(x, tie_tolerance=float(tol))
    assert (wtl.wins[0], wtl.ties[0], wtl.losses[0]) == (wins, len(pairs) - wins - losses,
                                                         losses)
    # one world per pair (its two queries alike): the worlds' preference reads the same rule
    pref = world_preference(np.repeat(x.T[:, :, None], 2, axis=2), tie_tolerance=float(tol))
    assert (round(pref.prob_better[0] * len(pairs)), round(pref.prob_worse[0] * len(pairs))) \
        == (wins, losses)


@pytest.mark.parametrize(
    ("ours", "theirs"), [("two-sided", "two-sided"), ("greater", "larger"), ("less", "smaller")]
)
def test_power_matches_statsmodels(ours, theirs):
    d = 0.3 if ours != "less" else -0.3
    expected = TTestPower().power(effect_size=d, nobs=50, alpha=0.05, alternative=theirs)
    assert paired_power(d, 50, alternative=ours) == pytest.approx(expected)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_power_matches_statsmodels_wherever_statsmodels_gives_a_number(alternative):
    """The default path against an independent implementation, over effect sizes, query
    counts and levels (statsmodels' NaN cells are left to the tests below)."""
    theirs = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}[alternative]
    compared = 0
    for d in (-3.0, -0.8, -0.2, -0.01, 0.01, 0.2, 0.8, 3.0):
        for n in (2, 3, 10, 50, 1_000, 100_000):
            for alpha in (0.001, 0.05, 0.2):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = TTestPower().power(effect_size=d, nobs=n, alpha=alpha,
                                                  alternative=theirs)
                if np.isfinite(expected):
                    compared += 1
                    assert paired_power(d, n, alpha=alpha, alternative=alternative) == \
                        pytest.approx(float(expected), rel=1e-9, abs=1e-12)
    assert compared >= 130


def _power_df1_by_quadrature(d: float, alpha: float) -> float:
    """Two queries (df = 1): T = (Z + nc)/|N|, so P(T > c) = ∫ Φ̄(c·s − nc) 2φ(s) ds over
    s >= 0, in 40 digits (mpmath); the power adds the tail below -c."""
    mpmath.mp.dps = 40
    nc, c = mpmath.mpf(d) * mpmath.sqrt(2), mpmath.mpf(float(stats.t.isf(alpha / 2, 1)))

    def tail(sign):
        return mpmath.quad(lambda s: mpmath.ncdf(sign * nc - c * s) * 2 * mpmath.npdf(s),
                           [0, abs(nc) / c, mpmath.inf])
    return float(tail(1) + tail(-1))


@pytest.mark.parametrize("d", [20.0, 50.0])
def test_power_where_statsmodels_returned_nan(d):
    """statsmodels' TTestPower gave NaN here (two queries: the lower tail's cdf of scipy's
    noncentral t is NaN at these noncentralities)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(TTestPower().power(effect_size=d, nobs=2, alpha=0.05))
    assert paired_power(d, 2) == pytest.approx(_power_df1_by_quadrature(d, 0.05), abs=1e-15)


def test_power_beyond_scipys_noncentral_t_takes_the_exact_limits():
    # noncentrality 5.5e10: scipy's nct returns NaN; the tails are 1 and 0 in double precision
    assert paired_power(1e10, 30) == 1.0
    assert paired_power(-1e10, 30, alternative="greater") == 0.0
    assert paired_power(-1e10, 30, alternative="less") == 1.0


def test_queries_for_power_where_statsmodels_had_no_answer():
    # a huge effect needs the fewest queries the test takes (statsmodels: NaN, then 2.0 for
    # d = 10, where two queries give a power of 0.73 only)
    assert queries_for_power(100.0) == queries_for_power(1e5) == 2
    assert paired_power(10.0, 2) < 0.8 <= paired_power(10.0, 3)
    assert queries_for_power(10.0) == 3
    # a tiny one needs (nc / d)^2 queries, nc solving the normal limit of the two-sided power
    # Φ(nc - z) + Φ(-nc - z) = 0.8 (statsmodels: NaN, which became "cannot convert float NaN
    # to integer"); the opposite tail moves n by 2.5e-6 relative, so both are kept
    z = stats.norm.isf(0.025)
    nc = optimize.brentq(lambda x: stats.norm.cdf(x - z) + stats.norm.cdf(-x - z) - 0.8, 0, 10,
                         xtol=1e-15)
    assert queries_for_power(1e-10) == pytest.approx((nc / 1e-10) ** 2, rel=1e-9)
    with pytest.raises(ValueError, match=r"effect_size must be positive for "
                       r"alternative='greater': with the other sign the power stays below "
                       r"alpha at every number of queries; got -0.5"):
        queries_for_power(-0.5, alternative="greater")


def test_queries_for_power_is_the_smallest_sufficient_n():
    for d in (0.2, 0.35, 0.5, 0.8):
        n = queries_for_power(d)
        assert paired_power(d, n) >= 0.8
        assert paired_power(d, n - 1) < 0.8
    # Textbook value: d = 0.5 needs 34 pairs for power 0.8 at alpha 0.05 (two-sided).
    assert queries_for_power(0.5) == 34


def test_power_errors():
    with pytest.raises(ValueError, match=r"effect_size must be a finite non-zero number; got 0"):
        queries_for_power(0)
    with pytest.raises(ValueError, match=r"n_queries must be an integer >= 2; got 1"):
        paired_power(0.5, 1)
    with pytest.raises(ValueError, match=r"power must be a number strictly between 0 and 1"):
        queries_for_power(0.5, power=80)
    with pytest.raises(ValueError, match=r"alternative must be one of"):
        paired_power(0.5, 10, alternative="two_sided")


def test_power_takes_any_real_effect_size():
    # numpy integers and fractions are finite non-zero numbers: they were refused as not one
    for d in (np.int64(1), np.float32(0.5), Fraction(1, 2)):
        assert paired_power(d, 12) == paired_power(float(d), 12)
        assert queries_for_power(d) == queries_for_power(float(d))
    with pytest.raises(ValueError, match=r"effect_size must be a finite non-zero number; "
                                         r"got np.True_"):
        paired_power(np.True_, 12)


def test_cohens_dz_is_nan_for_a_constant_difference_not_rounding_noise():
    base = np.random.default_rng(3).random(30)
    x = np.vstack([base, base - 0.1, base + np.linspace(0, 0.2, 30)])
    dz = cohens_dz(x)
    assert np.isnan(dz[0])  # base - (base - 0.1): 0.1 up to rounding; was about 3e15
    assert np.isfinite(dz[1:]).all()
