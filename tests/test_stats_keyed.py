"""Keyed replicates of the statistics: any split into blocks is the whole, bit for bit, and the
keyed draws have the distributions they stand for (checked against the textbook moments, not
against the code that draws them)."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fuzzytruth._random import index_counts, permutations, random_bytes
from fuzzytruth._resampling import (
    BLOCK_RUNNER,
    BLOCKING,
    bootstrap_block,
    permutation_block,
    replicate_blocks,
    sign_flip_block,
    sign_flip_means,
)
from fuzzytruth.stats import compare

B = 60
METHODS = ["t", "bootstrap", "bca", "percentile", "basic", "randomization", "wilcoxon", "sign"]
CORRECTIONS = ["holm", "romano-wolf", "tukey-randomized", "tukey-anova", "bh", "none"]


def _splits(n: int, cuts: list[int]) -> list[tuple[int, int]]:
    points = sorted({0, n, *(c % (n + 1) for c in cuts)})
    return list(itertools.pairwise(points))


def _kernel_inputs(seed: int):
    x = np.random.default_rng(seed).random((4, 21))  # 21 queries: a partial sign byte
    n_groups = 3
    tables = np.random.default_rng(seed + 1).random((n_groups, 256, 4))
    return {
        "bootstrap": (bootstrap_block, (np.ascontiguousarray(x.T), seed)),
        "sign flips": (sign_flip_block, (tables, 21, seed)),
        "permutations": (permutation_block, (np.ascontiguousarray(x.T), seed)),
    }


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**62), st.lists(st.integers(0, B), max_size=6),
       st.sampled_from(["bootstrap", "sign flips", "permutations"]))
def test_any_split_of_the_replicates_of_a_kernel_is_the_whole(seed, cuts, kind):
    kernel, shared = _kernel_inputs(seed)[kind]
    whole = kernel(shared, 0, B)
    parts = [kernel(shared, a, b) for a, b in _splits(B, cuts)]
    for k, column in enumerate(whole):
        joined = np.concatenate([p[k] for p in parts])
        assert joined.shape == column.shape
        assert np.array_equal(joined, column)  # bit for bit, not approximately


def _split_runner(cuts, calls):
    """A block runner that ignores the blocks it is given and cuts at ``cuts`` instead."""

    def runner(kernel, shared, blocks):
        n = blocks[-1][1] if blocks else 0
        calls.append(kernel.__name__)
        return [kernel(shared, a, b) for a, b in _splits(n, cuts)]

    return runner


def _table(x, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(x, n_resamples=B, **options)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, B), min_size=1, max_size=5),
       st.sampled_from(METHODS), st.sampled_from(CORRECTIONS),
       st.sampled_from(["two-sided", "greater"]))
def test_compare_over_any_split_of_the_replicates_is_the_whole(seed, cuts, method, correction,
                                                               alternative):
    if correction.startswith("tukey"):
        alternative = "two-sided"
    x = np.random.default_rng(seed).random((4, 30)) + np.array([[0.1], [0], [0.02], [0]])
    options = dict(method=method, correction=correction, alternative=alternative, rng=seed)
    whole = _table(x, **options)
    calls = []
    token = BLOCK_RUNNER.set(_split_runner(cuts, calls))
    try:
        split = _table(x, **options)
    finally:
        BLOCK_RUNNER.reset(token)
    resampled = method in ("bootstrap", "bca", "percentile", "basic", "randomization")
    assert bool(calls) == (resampled or correction in ("romano-wolf", "tukey-randomized"))
    pd.testing.assert_frame_equal(split.table, whole.table, check_exact=True)
    pd.testing.assert_frame_equal(split.systems, whole.systems, check_exact=True)


@pytest.mark.parametrize("size", [1, 7, B])
def test_block_size_changes_no_number(size):
    x = np.random.default_rng(3).random((5, 40))
    whole = _table(x, method="bca", correction="romano-wolf", rng=2)
    token = BLOCKING.set((size, 1))
    try:
        assert len(replicate_blocks(B, 8.0)) == -(-B // size)
        blocked = _table(x, method="bca", correction="romano-wolf", rng=2)
    finally:
        BLOCKING.reset(token)
    pd.testing.assert_frame_equal(blocked.table, whole.table, check_exact=True)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_queries", [11, 250])
def test_a_pair_gets_the_same_bits_whatever_other_systems_are_compared(method, n_queries):
    """Adding systems changes no other pair's numbers (unadjusted). The bootstrap-t's second
    moments were a BLAS product, which rounds a pair's column by the pairs beside it; the
    randomisation test centred each query across all systems, and its tie tolerance and
    interval bracket came from the largest score and difference of any system: with 11
    queries (exact flips) its bounds moved by 1e-11 relative in 23 of 300 random cases."""
    for seed in range(6):
        rng = np.random.default_rng(seed)
        x = rng.random((2, n_queries)) * [[1.0], [1.1]]
        others = rng.random((3, n_queries)) * [[1.0], [30.0], [1e3]]  # larger scores too
        pair = compare(x, systems=["A", "B"], method=method, rng=5, n_resamples=499).table
        every = compare(np.vstack([x, others]), systems=["A", "B", "C", "D", "E"],
                        method=method, rng=5, n_resamples=499).table
        row = every[(every["system_a"] == "A") & (every["system_b"] == "B")]
        columns = ["difference", "ci_low", "ci_high", "statistic", "pvalue"]
        pd.testing.assert_frame_equal(row[columns].reset_index(drop=True), pair[columns],
                                      check_exact=True)


def test_blocks_come_from_the_memory_budget_and_the_fewest_blocks():
    assert replicate_blocks(10, 16e6, memory_budget=64e6) == [(0, 4), (4, 8), (8, 10)]
    token = BLOCKING.set((None, 4))
    try:  # the budget allows one block; four are asked for
        assert replicate_blocks(10, 1.0) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    finally:
        BLOCKING.reset(token)


# ---- the keyed draws are the distributions they stand for ------------------------------------


def test_bootstrap_counts_have_multinomial_moments():
    n, reps = 12, 40_000
    counts = index_counts(11, 5, n, np.arange(reps))
    assert (counts.sum(axis=1) == n).all()
    # Multinomial(n, 1/n): mean 1, variance 1 - 1/n, covariance -1/n
    se_mean = np.sqrt((1 - 1 / n) / reps)
    assert np.abs(counts.mean(axis=0) - 1).max() < 4.5 * se_mean
    cov = np.cov(counts.T)
    var_target, cov_target = 1 - 1 / n, -1 / n
    # sd of a sample variance of a near-Poisson(1) count: sqrt((mu4 - s^4) / reps) ~ sqrt(3/reps)
    tol = 4.5 * np.sqrt(3.0 / reps)
    assert np.abs(np.diag(cov) - var_target).max() < tol
    assert np.abs(cov[np.triu_indices(n, 1)] - cov_target).max() < tol
    # the marginal of one query's count is Binomial(n, 1/n)
    observed = np.bincount(counts[:, 0].astype(int), minlength=n + 1)[:5]
    expected = sps.binom.pmf(np.arange(5), n, 1 / n) * reps
    assert sps.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 1e-4


def test_random_bytes_are_uniform_and_independent():
    b = random_bytes(3, 9, 13, np.arange(20_000))  # 13 bytes: a partial last draw
    for column in (0, 5, 6, 12):
        freq = np.bincount(b[:, column], minlength=256)
        assert sps.chisquare(freq).pvalue > 1e-4
    # adjacent bytes of one draw and bytes of neighbouring replicates are not correlated
    bits = np.unpackbits(b, axis=1).astype(float) * 2 - 1
    corr = np.corrcoef(bits.T)[np.triu_indices(bits.shape[1], 1)]
    assert np.abs(corr).max() < 5.0 / np.sqrt(len(b))  # 5 sd: 5,356 pairs of bits
    lag = np.corrcoef(b[:-1, 0], b[1:, 0])[0, 1]
    assert abs(lag) < 4.5 / np.sqrt(len(b))


def test_sign_flips_are_balanced_and_shared_by_every_system():
    n = 11
    flips = sign_flip_means(np.eye(n), 8000, 5) * n
    np.testing.assert_allclose(np.abs(flips), 1.0)
    assert np.abs(flips.mean(axis=0)).max() < 4.5 / np.sqrt(8000)
    x = np.random.default_rng(1).random((3, n))
    np.testing.assert_allclose(sign_flip_means(x, 8000, 5), flips @ x.T / n, atol=1e-12)


def test_permutations_are_uniform_over_all_orders():
    perms = permutations(2, 7, 2, 3, np.arange(30_000))  # (B, 2 groups, 3)
    for g in range(2):
        code = perms[:, g, 0] * 9 + perms[:, g, 1] * 3 + perms[:, g, 2]
        _, freq = np.unique(code, return_counts=True)
        assert len(freq) == 6  # all 3! orders occur
        assert sps.chisquare(freq).pvalue > 1e-4
    # the two groups (queries) of one replicate are independent
    a = perms[:, 0, 0]
    c = perms[:, 1, 0]
    table = np.zeros((3, 3))
    np.add.at(table, (a, c), 1)
    assert sps.chi2_contingency(table).pvalue > 1e-4
