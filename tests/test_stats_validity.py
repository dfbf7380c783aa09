"""Validity by simulation (seeded, so deterministic): size of the tests, coverage of intervals.

The generating models are documented in :mod:`fuzzytruth.stats._simulation`; the same
functions print a fuller report in ``benchmarks/stats_validity.py``. Windows: 5% ± 1.5% for
the size over 2,000 null comparisons (about 3 binomial standard errors), 93–97% for coverage.
"""

import pytest

from fuzzytruth.stats._simulation import bootstrap_coverage, rejection_rate, two_level_coverage


@pytest.mark.slow
@pytest.mark.parametrize("method", ["t", "randomization"])
def test_tests_reject_five_percent_under_a_true_null(method):
    rate = rejection_rate(method, n_comparisons=2000, n_queries=25, n_resamples=999, seed=0)
    assert 0.035 <= rate <= 0.065, rate


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "studentized"])
def test_bootstrap_intervals_cover_the_true_difference(method):
    coverage = bootstrap_coverage(
        method, n_comparisons=4000, n_queries=100, n_resamples=1000, seed=0
    )
    assert 0.93 <= coverage <= 0.97, coverage


@pytest.mark.slow
def test_two_level_interval_covers_the_difference_under_the_true_ground_truth():
    two_level, queries_only = two_level_coverage(
        n_comparisons=2000, n_queries=50, n_worlds=100, n_resamples=1000, seed=0
    )
    assert 0.93 <= two_level <= 0.97, two_level
    # Ignoring the ground truth's uncertainty under-covers badly in this model.
    assert queries_only < 0.85, queries_only
