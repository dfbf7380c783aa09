"""Effect sizes, wins/ties/losses and power, against hand derivations and statsmodels."""

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from fuzzytruth.stats import (
    cohens_dz,
    paired_power,
    paired_test,
    queries_for_power,
    wins_ties_losses,
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


@pytest.mark.parametrize(
    ("ours", "theirs"), [("two-sided", "two-sided"), ("greater", "larger"), ("less", "smaller")]
)
def test_power_matches_statsmodels(ours, theirs):
    d = 0.3 if ours != "less" else -0.3
    expected = TTestPower().power(effect_size=d, nobs=50, alpha=0.05, alternative=theirs)
    assert paired_power(d, 50, alternative=ours) == pytest.approx(expected)


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


def test_cohens_dz_is_nan_for_a_constant_difference_not_rounding_noise():
    base = np.random.default_rng(3).random(30)
    x = np.vstack([base, base - 0.1, base + np.linspace(0, 0.2, 30)])
    dz = cohens_dz(x)
    assert np.isnan(dz[0])  # base - (base - 0.1): 0.1 up to rounding; was about 3e15
    assert np.isfinite(dz[1:]).all()
