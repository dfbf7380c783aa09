"""Generating models and simulation loops for the validity checks of :mod:`fuzzytruth.stats`.

Used by ``tests/test_stats_validity.py`` and ``benchmarks/stats_validity.py``. Many simulated
comparisons run in one call by stacking them as pairs of systems ``(2j, 2j + 1)``; batches of
``BATCH`` comparisons get fresh resamples so that no single resample matrix is shared by all.
"""

from __future__ import annotations

import numpy as np

from fuzzytruth.stats.bootstrap import paired_bootstrap
from fuzzytruth.stats.paired import paired_test

BATCH = 50


def _stacked_pairs(n_pairs: int) -> np.ndarray:
    first = 2 * np.arange(n_pairs)
    return np.column_stack([first, first + 1])


def null_scores(rng: np.random.Generator, n_pairs: int, n_queries: int) -> np.ndarray:
    """``(2 n_pairs, n_queries)`` scores of exchangeable system pairs (no true difference).

    Each query has a Beta(2, 5) difficulty shared by both systems; each system adds skewed
    noise, ``0.1 * (Exponential(1) - 1)``, independently, so the two are exchangeable.
    """
    q = rng.beta(2.0, 5.0, size=(n_pairs, 1, n_queries))
    noise = 0.1 * (rng.exponential(1.0, size=(n_pairs, 2, n_queries)) - 1.0)
    return (q + noise).reshape(2 * n_pairs, n_queries)


def shifted_scores(
    rng: np.random.Generator, n_pairs: int, n_queries: int, delta: float
) -> np.ndarray:
    """Pairs whose expected difference is exactly ``delta``, with skewed differences.

    ``a = q + delta + 0.1 (Exponential(1) - 1)`` and ``b = q + 0.1 N(0, 1)``, with a shared
    Beta(2, 5) query effect ``q``; ``E[a - b] = delta``.
    """
    q = rng.beta(2.0, 5.0, size=(n_pairs, n_queries))
    a = q + delta + 0.1 * (rng.exponential(1.0, size=(n_pairs, n_queries)) - 1.0)
    b = q + 0.1 * rng.standard_normal((n_pairs, n_queries))
    return np.stack([a, b], axis=1).reshape(2 * n_pairs, n_queries)


def annotator_worlds(
    rng: np.random.Generator, n_pairs: int, n_queries: int, n_worlds: int
) -> tuple[np.ndarray, np.ndarray]:
    """Scores in ground-truth worlds drawn from a known annotator model, and the true values.

    Query ``i`` has a latent true relevance ``rho_i ~ N(0.5, 0.2^2)``. A ground truth (a world)
    judges it as ``r_i = rho_i + lam + eta_i``: ``lam ~ N(0, 0.05^2)`` is the leniency of the
    annotators, shared by every query of the world, and ``eta_i ~ N(0, 0.03^2)`` per-query
    disagreement. The *true* ground truth is one more independent draw of the same model.
    System ``s`` scores ``mu_s + g_s r_i + v_{s,i}`` with ``mu = (0.05, 0)``,
    ``g = (1.0, 0.6)`` and ``v ~ N(0, 0.05^2)``. The true difference (population of queries,
    true ground truth) is therefore ``0.05 + 0.4 (0.5 + lam_true)``.

    Returns
    -------
    scores : numpy.ndarray
        ``(n_worlds, 2 n_pairs, n_queries)``.
    truth : numpy.ndarray
        ``(n_pairs,)`` true differences ``a - b``.
    """
    mu = np.array([0.05, 0.0])[None, :, None]
    g = np.array([1.0, 0.6])[None, :, None]
    rho = rng.normal(0.5, 0.2, size=(n_pairs, 1, n_queries))
    v = rng.normal(0.0, 0.05, size=(n_pairs, 2, n_queries))
    lam = rng.normal(0.0, 0.05, size=(n_worlds, n_pairs, 1, 1))
    eta = rng.normal(0.0, 0.03, size=(n_worlds, n_pairs, 1, n_queries))
    judged = rho[None] + lam + eta  # (n_worlds, n_pairs, 1, n_queries)
    scores = mu + g * judged + v[None]
    lam_true = rng.normal(0.0, 0.05, size=n_pairs)
    truth = 0.05 + 0.4 * (0.5 + lam_true)
    return scores.reshape(n_worlds, 2 * n_pairs, n_queries), truth


def rejection_rate(
    method: str,
    *,
    n_comparisons: int = 2000,
    n_queries: int = 25,
    n_resamples: int = 999,
    alpha: float = 0.05,
    seed: int = 0,
) -> float:
    """Share of true-null comparisons that ``method`` rejects at ``alpha`` (two-sided)."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for start in range(0, n_comparisons, BATCH):
        m = min(BATCH, n_comparisons - start)
        res = paired_test(
            null_scores(rng, m, n_queries), pairs=_stacked_pairs(m), method=method,
            n_resamples=n_resamples, exact=False, rng=rng,
        )
        rejected += int(np.count_nonzero(res.pvalue <= alpha))
    return rejected / n_comparisons


def bootstrap_coverage(
    method: str,
    *,
    n_comparisons: int = 2000,
    n_queries: int = 50,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    delta: float = 0.05,
    seed: int = 0,
) -> float:
    """Share of bootstrap intervals (``method``) that contain the true difference ``delta``."""
    rng = np.random.default_rng(seed)
    covered = 0
    for start in range(0, n_comparisons, BATCH):
        m = min(BATCH, n_comparisons - start)
        boot = paired_bootstrap(
            shifted_scores(rng, m, n_queries, delta), pairs=_stacked_pairs(m),
            n_resamples=n_resamples, rng=rng,
        )
        ci = boot.confidence_interval(confidence_level, method=method)
        covered += int(np.count_nonzero((ci.low <= delta) & (delta <= ci.high)))
    return covered / n_comparisons


def two_level_coverage(
    *,
    n_comparisons: int = 2000,
    n_queries: int = 50,
    n_worlds: int = 50,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Coverage of the true difference under :func:`annotator_worlds`.

    Returns
    -------
    two_level : float
        Coverage of the two-level percentile interval (queries and worlds resampled).
    queries_only : float
        Coverage of the percentile interval from resampling queries alone on the
        world-averaged scores (it ignores the ground truth's uncertainty).
    """
    rng = np.random.default_rng(seed)
    both = alone = 0
    for start in range(0, n_comparisons, BATCH):
        m = min(BATCH, n_comparisons - start)
        scores, truth = annotator_worlds(rng, m, n_queries, n_worlds)
        pairs = _stacked_pairs(m)
        ci = paired_bootstrap(scores, pairs=pairs, n_resamples=n_resamples, rng=rng)
        ci = ci.confidence_interval(confidence_level, method="percentile")
        both += int(np.count_nonzero((ci.low <= truth) & (truth <= ci.high)))
        ci = paired_bootstrap(
            scores.mean(axis=0), pairs=pairs, n_resamples=n_resamples, rng=rng
        ).confidence_interval(confidence_level, method="percentile")
        alone += int(np.count_nonzero((ci.low <= truth) & (truth <= ci.high)))
    return both / n_comparisons, alone / n_comparisons
