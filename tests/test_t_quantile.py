"""The t quantile of the intervals over queries (:mod:`fuzzytruth._t_interval`), computed in
plain Python so that a crisp evaluation does not import scipy.special: checked against
scipy's ``stdtrit`` and, where the two differ by more than rounding, against mpmath at 50
digits (an independent arbitrary-precision oracle)."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from fuzzytruth._t_interval import t_quantile


def _exact(df: float, p: float) -> float:
    """The t with P(T > t) = p, solved at 50 digits on mpmath's incomplete beta."""
    with mpmath.workdps(50):
        d, q = mpmath.mpf(df), mpmath.mpf(p)

        def excess(t):
            return mpmath.betainc(d / 2, mpmath.mpf(1) / 2, 0, d / (d + t * t),
                                  regularized=True) / 2 - q

        return float(mpmath.findroot(excess, mpmath.mpf(-special.stdtrit(df, p))))


@settings(max_examples=300, deadline=None)
@given(df=st.integers(1, 10**7), p=st.floats(1e-9, 0.4))
def test_matches_scipy_for_integer_degrees_of_freedom(df, p):
    assert t_quantile(df, p) == pytest.approx(-special.stdtrit(df, p), rel=1e-12)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 24, 41, 99, 2499, 7999, 8000, 10**5, 10**6, 2.5])
@pytest.mark.parametrize("p", [1e-12, 1e-6, 5e-4, 0.025, 0.05, 0.3, 0.4999])
def test_within_1e_13_of_the_50_digit_quantile(df, p):
    assert t_quantile(df, p) == pytest.approx(_exact(df, p), rel=1e-13)


def test_near_the_median_it_is_closer_than_scipy():
    # at df = 4, p = 0.4999 scipy's stdtrit is 1.6e-9 off (cancellation in 1/2 - centre)
    exact = _exact(4, 0.4999)
    assert abs(t_quantile(4, 0.4999) - exact) < 1e-15
    assert abs(-special.stdtrit(4, 0.4999) - exact) > 1e-13


def test_symmetry_the_cauchy_case_and_the_undefined():
    assert t_quantile(10, 0.975) == pytest.approx(-t_quantile(10, 0.025), rel=1e-14)
    assert t_quantile(7, 0.5) == 0.0
    assert t_quantile(1, 0.025) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-14)
    assert t_quantile(30, 0.05) == pytest.approx(stats.t.isf(0.05, 30), rel=1e-13)
    for df, p in ((0, 0.05), (-1, 0.05), (5, 0.0), (5, 1.0), (5, math.nan)):
        assert math.isnan(t_quantile(df, p))
