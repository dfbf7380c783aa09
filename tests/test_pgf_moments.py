"""The Gauss–Legendre moments of the exact recall's mean (fuzzytruth.uncertain.pgf_moments).

Oracles: the untrimmed joint law of (TP, FN) from the textbook one-document-at-a-time
recursion (E[TP/(TP+FN) | defined], an independent route to the mean); closed-form monomial
integrals; an exhaustive search over the candidate rules.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from test_closed_form import _count_law  # the Poisson-binomial law by the recursion

from fuzzytruth.uncertain import closed_form, pgf_moments
from fuzzytruth.uncertain.pgf_moments import unit_gauss


def _recursion_mean(p, k, rest):
    """E[TP/(TP+FN) | TP+FN > 0] from the two laws by the recursion (no quadrature)."""
    tp, fn = _count_law(p[:k]), _count_law(rest)
    t, f = np.meshgrid(np.arange(len(tp)), np.arange(len(fn)), indexing="ij")
    mass = np.outer(tp, fn)
    defined = t + f > 0
    return (mass * np.where(defined, t / np.maximum(t + f, 1), 0.0)).sum() / mass[defined].sum()


def _grouped_rows(rng, n_rows):
    """Rows of shares j/20 (annotators' votes), from no document outside the top 10 to a
    thousand, some with documents relevant for sure: expected counts from 0 to ~900."""
    values = np.arange(1, 20) / 20.0
    p = rng.choice(np.r_[0.0, values, 1.0], size=(n_rows, 10))
    counts = np.zeros((n_rows, len(values)))
    for i, size in enumerate(rng.integers(0, 1000, n_rows) // rng.choice([1, 100], n_rows)):
        low = rng.uniform(0.02, 1.0)  # from mostly improbable documents to mostly probable
        weights = np.exp(-np.arange(len(values)) * (1 - low) / 3)
        counts[i] = rng.multinomial(size, weights / weights.sum())
    certain = rng.integers(0, 30, n_rows) * (rng.random(n_rows) < 0.3)
    return p, values, counts, certain


def test_the_exact_recall_mean_matches_the_recursion_on_peaked_and_flat_rows():
    rng = np.random.default_rng(24)
    p, values, counts, certain = _grouped_rows(rng, 60)
    mean, _ = closed_form.recall_mean(p, None, values, counts, certain)
    for row in range(len(p)):
        rest = np.r_[np.repeat(values, counts[row].astype(int)), np.ones(certain[row])]
        assert mean[row] == pytest.approx(_recursion_mean(p[row], 10, rest), rel=1e-13), row
    # the rows span the rules: some integrated on [1 - δ, 1], some on [0, 1] with fewer
    # nodes than exactness needs, some (of low degree) exactly
    mu = counts @ values + certain
    exact = (counts.sum(axis=1).astype(int) + certain + 9) // 2 + 1
    span, nodes = pgf_moments._rules(mu, 10, exact)
    planned = exact > pgf_moments._FEWEST_NODES
    assert (span[planned] < 1).sum() >= 10 and ((span == 1) & (nodes < exact))[planned].any()
    assert (~planned).sum() >= 5


def test_sparse_counts_give_the_array_counts_moments():
    rng = np.random.default_rng(5)
    _, values, counts, certain = _grouped_rows(rng, 40)
    rows = np.flatnonzero(rng.random(40) < 0.8)
    dense = pgf_moments.pgf_moments(values, counts, certain, 4, rows)
    thin = pgf_moments.pgf_moments(values, sparse.csr_matrix(counts), certain, 4, rows)
    np.testing.assert_allclose(thin, dense, rtol=1e-14, atol=0)
    others = np.setdiff1d(np.arange(40), rows)
    assert (dense[others] == 0).all() and (dense[rows] > 0).all()


@pytest.mark.parametrize("n", [16, 64, 512])
def test_the_rule_integrates_every_monomial_it_should_to_rounding(n):
    # NumPy's leggauss weights integrated x^d off by 2.4e-12 relative at n = 512
    s, w = unit_gauss(n)
    degree = np.arange(2 * n)
    got = (w[:, None] * (1.0 - s)[:, None] ** degree).sum(axis=0)
    np.testing.assert_allclose(got * (degree + 1), 1.0, rtol=0, atol=2e-14)
    assert ((s > 0) & (s < 1)).all() and len(np.unique(s)) == n


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 1e15) | st.floats(0.0, 1e3), st.integers(1, 1000))
def test_the_smallest_span_that_drops_little_enough_needs_the_fewest_nodes(mu, top):
    # the rule solves for one span; every power of 2, searched, needs no fewer nodes
    nodes = pgf_moments._rules(np.array([mu]), top, np.array([10**9]))[1]
    best = np.inf
    for delta in 2.0 ** -np.arange(pgf_moments._FINEST + 1):
        inner = min(delta, 0.5, 1.0 / (mu + top))
        below = -np.log(inner) - (top - 1) * np.log1p(-inner) + mu * inner / (1 - inner)
        if delta < 1 and np.log1p(-delta) - mu * delta + below > pgf_moments._LOG_TOLERANCE:
            continue
        for rho in pgf_moments._RHO:
            sigma = delta * (1 + (rho + 1 / rho) / 2) / 2
            log_error = (np.log(delta / 2) + np.log(64 / 15 / (rho**2 - 1))
                         + (top - 1) * np.log1p(sigma) + mu * sigma + below)
            best = min(best, max(1.0, np.ceil((log_error - pgf_moments._LOG_TOLERANCE)
                                              / (2 * np.log(rho)))))
    assert nodes[0] == best
