"""Poisson-binomial engine against scipy, brute-force enumeration and its own laws."""

import itertools

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from fuzzytruth.uncertain import poibin

METHODS = ["recursion", "tree", "grouped", "auto"]
probs = arrays(np.float64, st.integers(0, 40), elements=st.floats(0, 1))


def brute_force(p):
    """P(K = k) by enumerating all 2^n outcomes."""
    out = np.zeros(len(p) + 1)
    for outcome in itertools.product((0, 1), repeat=len(p)):
        terms = [pi if o else 1 - pi for pi, o in zip(p, outcome, strict=True)]
        out[sum(outcome)] += np.prod(terms)
    return out


def exact_mpmath(p, digits=50):
    """PMF in 50-digit arithmetic by the recursion: the reference for accuracy."""
    mpmath.mp.dps = digits
    state = [mpmath.mpf(1)] + [mpmath.mpf(0)] * len(p)
    for i, pi in enumerate(p):
        pi = mpmath.mpf(float(pi))
        for k in range(i + 1, 0, -1):
            state[k] = state[k] * (1 - pi) + state[k - 1] * pi
        state[0] *= 1 - pi
    return np.array([float(s) for s in state])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [1, 2, 7, 12])
def test_matches_brute_force(method, n):
    p = np.random.default_rng(n).random(n)
    np.testing.assert_allclose(poibin.pmf(p, method=method), brute_force(p), atol=1e-15)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [5, 64, 300, 1000])
def test_matches_scipy_poisson_binom(method, n):
    p = np.random.default_rng(n).random(n)
    expected = stats.poisson_binom.pmf(np.arange(n + 1), p)
    np.testing.assert_allclose(poibin.pmf(p, method=method), expected, atol=1e-13)


def test_accuracy_against_50_digit_reference():
    p = np.random.default_rng(7).random(400)
    reference = exact_mpmath(p)
    for method in ("recursion", "tree"):
        assert np.abs(poibin.pmf(p, method=method) - reference).max() <= 1e-16


def test_grouped_method_on_annotator_shares():
    # shares j/5 of 5 annotators: at most 6 distinct probabilities among 200 items
    rng = np.random.default_rng(3)
    p = rng.integers(0, 6, size=200) / 5
    reference = exact_mpmath(p)
    assert np.abs(poibin.pmf(p, method="grouped") - reference).max() <= 1e-16


def test_auto_groups_long_lists_of_shares_only():
    rng = np.random.default_rng(4)
    shares = rng.integers(0, 6, size=5000) / 5  # above 4,096 items, few distinct values
    np.testing.assert_array_equal(poibin.pmf(shares), poibin.pmf(shares, method="grouped"))
    np.testing.assert_allclose(poibin.pmf(shares), poibin.pmf(shares, method="tree"), atol=1e-15)
    short = shares[:1000]  # below the break-even the tree is used
    np.testing.assert_array_equal(poibin.pmf(short), poibin.pmf(short, method="tree"))


def test_batch_equals_rows_and_padding_with_zero_is_neutral():
    rng = np.random.default_rng(1)
    batch = rng.random((30, 17))
    batch[5, 9:] = 0.0  # a shorter list padded with p = 0
    for method in ("recursion", "tree"):
        out = poibin.pmf(batch, method=method)
        for row, p in zip(out, batch, strict=True):
            np.testing.assert_allclose(row, poibin.pmf(p, method="recursion"), atol=1e-15)
    short = poibin.pmf(batch[5, :9])
    np.testing.assert_allclose(poibin.pmf(batch)[5, :10], short, atol=1e-15)
    assert np.all(poibin.pmf(batch)[5, 10:] == 0)


def test_prefix_pmfs_equal_pmfs_of_prefixes():
    p = np.random.default_rng(2).random(60)
    prefixes = poibin.prefix_pmfs(p)
    assert prefixes.shape == (60, 61)
    for i in (1, 2, 30, 60):
        np.testing.assert_allclose(prefixes[i - 1, : i + 1], poibin.pmf(p[:i]), atol=1e-15)
        assert np.all(prefixes[i - 1, i + 1 :] == 0)
    batch = np.random.default_rng(4).random((3, 20))
    many = poibin.prefix_pmfs(batch)
    for row in range(3):
        np.testing.assert_allclose(many[row], poibin.prefix_pmfs(batch[row]), atol=1e-15)


def test_degenerate_probabilities():
    assert poibin.pmf([]).tolist() == [1.0]
    assert poibin.pmf([1.0, 1.0, 0.0]).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert poibin.pmf(np.full(50, 0.5), method="grouped")[25] == pytest.approx(
        stats.binom.pmf(25, 50, 0.5), rel=1e-14
    )


@given(probs, st.sampled_from(METHODS))
@settings(max_examples=150, deadline=None)
def test_pmf_laws(p, method):
    out = poibin.pmf(p, method=method)
    assert out.shape == (p.size + 1,)
    assert np.all(out >= 0)  # never negative
    assert abs(out.sum() - 1.0) <= 1e-12  # sums to 1
    assert out @ np.arange(p.size + 1) == pytest.approx(p.sum(), abs=1e-10)  # E[k] = sum p_i


@pytest.mark.parametrize(
    ("p", "message"),
    [
        ([0.2, 1.5], r"p must hold probabilities within \[0, 1\]; got 1.5"),
        ([0.2, np.nan], r"p must hold probabilities within \[0, 1\]; got nan"),
        ([-0.1], r"got -0.1"),
        (np.zeros((2, 2, 2)), "p must be 1-D .* or 2-D .*; got 3-D"),
    ],
)
def test_bad_probabilities(p, message):
    with pytest.raises(ValueError, match=message):
        poibin.pmf(p)


def test_bad_method():
    with pytest.raises(ValueError, match=r"method must be one of .*; got 'fft'"):
        poibin.pmf([0.5], method="fft")
