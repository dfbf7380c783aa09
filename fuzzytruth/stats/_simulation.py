"""Generating models and simulation loops for the validity study of :mod:`fuzzytruth.stats`.

Used by ``benchmarks/stats_validity.py`` (the full table) and ``tests/test_stats_validity.py``
(slow-marked spot checks). Many simulated comparisons run in one call by stacking them as
pairs of systems ``(2j, 2j + 1)``; every batch of :data:`BATCH` comparisons gets fresh
resamples. Each model draws a *null* version (no true difference: the size of the tests) and
an *effect* version with a known true difference (the coverage of the intervals).

Models (per-query scores; ``q`` a query effect shared by the two systems):

``ap-heavy``
    AP-like scores with heavy-tailed symmetric differences: ``b ~ Beta(1, 2)``, ``a = b + delta
    + e`` with ``e ~ N(0, 0.02^2)`` w.p. 0.7 and ``N(0, 0.25^2)`` w.p. 0.3 (kurtosis ≈ 8);
    ``delta = 0.03``.
``rr``
    Reciprocal rank: the first relevant rank of B is geometric with a Beta(1, 1.5) success
    probability per query; A's rank equals B's w.p. 0.5 and is an independent draw otherwise
    (null: exchangeable). Effect: A's rank is improved by one place w.p. 0.3 (truth by a
    4·10^6-query Monte Carlo).
``p10``
    P@10, lattice-valued with many ties: ``p ~ 0.8 Beta(2, 3)``, ``b ~ Bin(10, p) / 10``,
    ``a ~ Bin(10, p + delta) / 10``, ``delta = 0.05`` (truth exactly ``delta``).
``skewed-null``
    A skewed difference whose *mean* is ``delta`` (0 under the null) but whose median is not:
    ``a = q + delta + 0.2 (Exp(1) - 1)``, ``b = q + 0.05 N(0, 1)``, ``q ~ Beta(2, 5)``,
    ``delta = 0.05`` (skewness of the difference ≈ 1.9, median ≈ -0.06). Tests of the mean
    must reject 5 % under the null; Wilcoxon and sign tests
    reject far more (they test symmetry and the median).
``uncertain-truth``
    Exchangeable systems under uncertain truth, scores in 50 ground-truth worlds: each query has
    an expected score ``mu_q ~ Beta(2, 5)`` shared by both systems plus a system effect
    ``0.08 N(0, 1)``; each world adds per-query noise ``0.1 N(0, 1)`` to each system (the truth
    moves the two systems differently). Effect: ``delta = 0.04`` added to A. The estimand is
    *this collection's truth* (mean expected difference); the per-query world noise averages
    out over worlds and queries.

The *labelling-only* model (:func:`labelling_study`) is about the annotator-population
estimand: the two systems differ only in which documents they retrieve — A's documents are
ambiguous (logit relevance ``N(0, 0.3^2)``), B's are clear (``±3 + N(0, 0.3^2)``) — and the
scores are the expected P@5 given ``m = 5`` binary labels per document. Annotators are
*nested* (fresh annotators per item) or *crossed* (the same 5 annotators label every item,
each with a leniency ``N(0, 1)`` on the logit scale). The population difference is 0 by
symmetry. Resampling an item's 5 binary labels with replacement is a Binomial(5, share)
draw, which is how the two-stage bootstrap is simulated here (the same scheme as
:func:`~fuzzytruth.stats.annotator_bootstrap`, without rebuilding a Membership).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from fuzzytruth._random import draw_seed, index_counts
from fuzzytruth._resampling import BOOTSTRAP_STREAM
from fuzzytruth.stats.bootstrap import BootstrapResult, paired_bootstrap
from fuzzytruth.stats.multiple import (
    adjust_pvalues,
    paired_tukey_hsd,
    randomized_tukey_hsd,
    romano_wolf,
)
from fuzzytruth.stats.paired import paired_test
from fuzzytruth.stats.procedures import BOOTSTRAP_METHODS, INTERVALS, paired_inference

BATCH = 50
#: Last entry of the seed of the generator the procedures draw from (the data sets have their
#: own), so a data set does not depend on how many numbers a procedure takes.
RESAMPLING = 0x5245
#: Mean-difference procedures with an interval (the validity table's rows).
MEAN_METHODS = ("t", "bootstrap", "bca", "percentile", "basic", "randomization")
#: Tests of another hypothesis, reported for their rejection rate under a mean null.
OTHER_TESTS = ("wilcoxon", "sign")


def _stack(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(m, n)`` and ``(m, n)`` (or with a leading worlds axis) to ``(.., 2m, n)``."""
    out = np.stack([a, b], axis=-2)
    return out.reshape(*out.shape[:-3], 2 * out.shape[-3], out.shape[-1])


def stacked_pairs(n_pairs: int) -> np.ndarray:
    """Pairs ``(2j, 2j + 1)`` of stacked comparisons."""
    first = 2 * np.arange(n_pairs)
    return np.column_stack([first, first + 1])


def _ap_heavy(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.03 if effect else 0.0
    b = rng.beta(1.0, 2.0, size=(m, n))
    wide = rng.random((m, n)) < 0.3
    e = rng.standard_normal((m, n)) * np.where(wide, 0.25, 0.02)
    return _stack(b + delta + e, b), np.full(m, delta)


def _rr_ranks(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    p = rng.beta(1.0, 1.5, size=(m, n))
    rank_b = rng.geometric(p)
    same = rng.random((m, n)) < 0.5
    rank_a = np.where(same, rank_b, rng.geometric(p))
    if effect:
        better = (rng.random((m, n)) < 0.3) & (rank_a > 1)
        rank_a = rank_a - better
    return 1.0 / rank_a, 1.0 / rank_b


_RR_TRUTH: dict[str, float] = {}


def _rr(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    a, b = _rr_ranks(rng, m, n, effect)
    if not effect:
        return _stack(a, b), np.zeros(m)
    if "effect" not in _RR_TRUTH:
        big_a, big_b = _rr_ranks(np.random.default_rng(12345), 1, 4_000_000, True)
        _RR_TRUTH["effect"] = float((big_a - big_b).mean())
    return _stack(a, b), np.full(m, _RR_TRUTH["effect"])


def _p10(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.05 if effect else 0.0
    p = 0.8 * rng.beta(2.0, 3.0, size=(m, n))
    b = rng.binomial(10, p) / 10
    a = rng.binomial(10, p + delta) / 10
    return _stack(a, b), np.full(m, delta)


def _skewed(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.05 if effect else 0.0
    q = rng.beta(2.0, 5.0, size=(m, n))
    a = q + delta + 0.2 * (rng.exponential(1.0, size=(m, n)) - 1.0)
    b = q + 0.05 * rng.standard_normal((m, n))
    return _stack(a, b), np.full(m, delta)


N_WORLDS = 50


def _uncertain(rng: np.random.Generator, m: int, n: int, effect: bool) -> tuple:
    delta = 0.04 if effect else 0.0
    mu = rng.beta(2.0, 5.0, size=(m, n))
    a = mu + delta + 0.08 * rng.standard_normal((m, n))
    b = mu + 0.08 * rng.standard_normal((m, n))
    expected = _stack(a, b)
    worlds = expected[None] + 0.1 * rng.standard_normal((N_WORLDS, 2 * m, n))
    # centre the world noise per query so that the expected scores are exactly `expected`
    worlds -= worlds.mean(axis=0, keepdims=True) - expected[None]
    return worlds, np.full(m, delta)


@dataclass(frozen=True)
class Model:
    """A generating model: ``draw(rng, n_comparisons, n_queries, effect) -> (scores, truth)``."""

    name: str
    draw: Callable[..., tuple]
    description: str


MODELS = {
    "ap-heavy": Model("ap-heavy", _ap_heavy, "AP, heavy-tailed symmetric differences"),
    "rr": Model("rr", _rr, "RR, heavy-tailed lattice"),
    "p10": Model("p10", _p10, "P@10, lattice with ties"),
    "skewed-null": Model("skewed-null", _skewed, "skewed, mean 0 but median not 0"),
    "uncertain-truth": Model("uncertain-truth", _uncertain,
                             "exchangeable systems, 50 truth worlds"),
}


def pair_study(
    model: str,
    n_queries: int,
    *,
    n_comparisons: int = 1000,
    n_resamples: int = 999,
    methods: tuple[str, ...] = MEAN_METHODS + OTHER_TESTS,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """Size (null) and coverage (effect) of every procedure on one model, at 95 %.

    Returns ``{method: (rejection rate under the null, coverage of the true difference)}``;
    coverage is NaN for methods without an interval. Under uncertain truth the procedures run
    on each query's expected score (the mean over the worlds), as :func:`compare` does, and
    a row ``"two-level (old)"`` shows the replaced scheme (one world per replicate).
    """
    gen = MODELS[model].draw
    rng = np.random.default_rng([seed, n_queries, list(MODELS).index(model)])
    # the procedures draw from their own generator: the data sets do not depend on how many
    # numbers the procedures take
    draws = np.random.default_rng([seed, n_queries, list(MODELS).index(model), RESAMPLING])
    rejected = dict.fromkeys(methods, 0)
    covered = dict.fromkeys(methods, 0)
    old = [0, 0]
    for start in range(0, n_comparisons, BATCH):
        m = min(BATCH, n_comparisons - start)
        pairs = stacked_pairs(m)
        for effect in (False, True):
            scores, truth = gen(rng, m, n_queries, effect)
            x = scores.mean(axis=0) if scores.ndim == 3 else scores
            boot = paired_bootstrap(x, pairs=pairs, n_resamples=n_resamples, rng=draws)
            for method in methods:
                with np.errstate(all="ignore"):
                    res = paired_inference(
                        x, pairs=pairs, method=method, n_resamples=n_resamples, rng=draws,
                        bootstrap=boot if method in BOOTSTRAP_METHODS else None,
                    )
                if effect:
                    covered[method] += int(
                        np.count_nonzero((res.ci_low <= truth) & (truth <= res.ci_high))
                    )
                else:
                    rejected[method] += int(np.count_nonzero(res.pvalue < 0.05))
            if scores.ndim == 3:
                lo, hi = _two_level_percentile(scores, pairs, n_resamples, draws)
                if effect:
                    old[1] += int(np.count_nonzero((lo <= truth) & (truth <= hi)))
                else:
                    old[0] += int(np.count_nonzero((lo > 0) | (hi < 0)))
    out = {
        method: (
            rejected[method] / n_comparisons,
            covered[method] / n_comparisons if INTERVALS[method] != "none" else np.nan,
        )
        for method in methods
    }
    if scores.ndim == 3:
        out["two-level (old)"] = (old[0] / n_comparisons, old[1] / n_comparisons)
    return out


def _two_level_percentile(
    worlds: np.ndarray, pairs: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The replaced two-level bootstrap: queries resampled and one world per replicate."""
    n_worlds, _, n = worlds.shape
    counts = index_counts(draw_seed(rng), BOOTSTRAP_STREAM, n, np.arange(n_resamples))
    k = rng.integers(0, n_worlds, size=n_resamples)
    d = worlds[:, pairs[:, 0]] - worlds[:, pairs[:, 1]]  # (W, m, n)
    reps = np.einsum("bq,bmq->bm", counts, d[k]) / n
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
    return lo, hi


def unequal_variance_fwer(
    n_queries: int, *, n_datasets: int = 500, n_resamples: int = 999, seed: int = 0
) -> dict[str, float]:
    """Family-wise error at 5 % over all 10 pairs of 5 systems with equal means.

    Systems ``x_s = q + sigma_s e`` with ``sigma = (0.02, 0.05, 0.1, 0.2, 0.3)`` (equal means,
    unequal variances: not exchangeable). Returns the share of data sets with at least one
    rejection for Holm on t p-values, Romano–Wolf, randomised and ANOVA Tukey HSD.
    """
    rng = np.random.default_rng([seed, n_queries, 99])
    draws = np.random.default_rng([seed, n_queries, 99, RESAMPLING])  # the procedures'
    sigma = np.array([0.02, 0.05, 0.1, 0.2, 0.3])[:, None]
    hits = {"holm (t)": 0, "romano-wolf": 0, "tukey-randomized": 0, "tukey-anova": 0}
    for _ in range(n_datasets):
        x = rng.beta(2.0, 5.0, size=n_queries)[None] + sigma * rng.standard_normal(
            (5, n_queries)
        )
        p_t = paired_test(x).pvalue
        hits["holm (t)"] += bool((adjust_pvalues(p_t) < 0.05).any())
        boot = paired_bootstrap(x, n_resamples=n_resamples, rng=draws)
        hits["romano-wolf"] += bool((romano_wolf(boot) < 0.05).any())
        tr = randomized_tukey_hsd(x, n_resamples=n_resamples, rng=draws).pvalue
        hits["tukey-randomized"] += bool((tr < 0.05).any())
        hits["tukey-anova"] += bool((paired_tukey_hsd(x).pvalue < 0.05).any())
    return {k: v / n_datasets for k, v in hits.items()}


# ---- the labelling-only model: the annotator-population estimand ---------------------------

DOCS = 5
ANNOTATORS = 5


def _labels(rng: np.random.Generator, n: int, crossed: bool) -> np.ndarray:
    """``(n, 2, DOCS, ANNOTATORS)`` binary labels of every retrieved document."""
    logit = 0.3 * rng.standard_normal((n, 2, DOCS))
    clear = np.where(rng.random((n, DOCS)) < 0.5, 3.0, -3.0)
    logit[:, 1] += clear  # B's documents are clear, A's ambiguous
    if crossed:
        lenient = rng.standard_normal(ANNOTATORS)  # the same annotators label everything
        prob = special.expit(logit[..., None] + lenient)
    else:
        prob = special.expit(logit[..., None] + rng.standard_normal((n, 2, DOCS, ANNOTATORS)))
    return (rng.random(prob.shape) < prob).astype(np.float64)


def labelling_study(
    n_queries: int,
    *,
    crossed: bool,
    n_datasets: int = 400,
    n_resamples: int = 499,
    seed: int = 0,
) -> dict[str, float]:
    """Coverage of the population difference (0) by the query-only and two-stage intervals.

    Returns coverage of the 95 % intervals: ``"queries-only t"`` (the collection procedure,
    labels as given), ``"within-items <method>"`` (queries resampled, and each item's
    annotators resampled independently) and ``"shared <method>"`` (queries resampled, and the
    annotator pool resampled once per replicate, shared by every item: a two-way crossed
    bootstrap) for the percentile and studentised intervals; and the share of data sets
    where P(A better) is at most 0.05 or at least 0.95: ``"P(A>B|truth) extreme"`` (worlds,
    queries fixed) and ``"P(A>B) <scheme> extreme"`` (share of replicates; 10 % is what a
    calibrated probability gives under the null).
    """
    rng = np.random.default_rng([seed, n_queries, int(crossed), 7])
    draws = np.random.default_rng([seed, n_queries, int(crossed), 7, RESAMPLING])
    keys = ["queries-only t"]
    for scheme in ("within-items", "shared"):
        keys += [f"{scheme} percentile", f"{scheme} studentized"]
    keys += ["P(A>B|truth) extreme", "P(A>B) within-items extreme", "P(A>B) shared extreme"]
    hits = dict.fromkeys(keys, 0)
    for _ in range(n_datasets):
        labels = _labels(rng, n_queries, crossed)
        share = labels.mean(axis=3)
        x = share.mean(axis=2).T  # (2, n): expected P@5 of A and B per query
        res = paired_inference(x, method="t")
        hits["queries-only t"] += bool(res.ci_low[0] <= 0 <= res.ci_high[0])
        for scheme in ("within-items", "shared"):
            boot = _two_stage(labels, scheme, n_resamples, draws)
            for method in ("percentile", "studentized"):
                ci = boot.confidence_interval(0.95, method=method)
                hits[f"{scheme} {method}"] += bool(ci.low[0] <= 0 <= ci.high[0])
            p_pop = (boot.difference_distribution[:, 0] > 0).mean()
            hits[f"P(A>B) {scheme} extreme"] += bool(p_pop <= 0.05 or p_pop >= 0.95)
        worlds = (rng.random((200, *share.shape)) < share).mean(axis=3)  # (W, n, 2)
        diff = worlds[..., 0].mean(axis=1) - worlds[..., 1].mean(axis=1)
        p_truth = (diff > 0).mean()
        hits["P(A>B|truth) extreme"] += bool(p_truth <= 0.05 or p_truth >= 0.95)
    return {k: v / n_datasets for k, v in hits.items()}


def _two_stage(
    labels: np.ndarray, scheme: str, n_resamples: int, rng: np.random.Generator
) -> BootstrapResult:
    """Two-stage bootstrap of the labelling model (annotators by ``scheme``, then queries)."""
    n = labels.shape[0]
    share = labels.mean(axis=3)
    x = share.mean(axis=2).T
    counts = index_counts(draw_seed(rng), BOOTSTRAP_STREAM, n, np.arange(n_resamples))
    if scheme == "within-items":
        # resampling an item's binary labels with replacement: Binomial(ANNOTATORS, share)
        drawn = rng.binomial(ANNOTATORS, np.broadcast_to(share, (n_resamples, *share.shape)))
        f = (drawn / ANNOTATORS).mean(axis=3)  # (B, n, 2)
    else:
        pick = rng.integers(0, ANNOTATORS, size=(n_resamples, ANNOTATORS))
        f = np.stack([labels[..., p].mean(axis=(2, 3)) for p in pick])  # (B, n, 2)
    w = counts / n
    means = np.einsum("bq,bqs->bs", w, f)
    gram = np.einsum("bq,bqs,bqt->bst", w, f, f)
    mean = x.mean(axis=1)
    return BootstrapResult(
        mean=mean, difference=mean[[0]] - mean[[1]], pairs=np.array([[0, 1]]),
        bootstrap_distribution=means, _scores=x, _counts=None, _gram=gram,
    )
