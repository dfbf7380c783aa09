"""The annotator-population estimand by simulation: the labelling-only model.

The two systems differ only in which documents they retrieve — A's documents are ambiguous
(logit relevance ``N(0, 0.3^2)``), B's are clear (``±3 + N(0, 0.3^2)``) — and the scores are
the expected P@5 given ``m = 5`` binary labels per document. Annotators are *nested* (fresh
annotators per item) or *crossed* (the same 5 annotators label every item, each with a
leniency ``N(0, 1)`` on the logit scale). The population difference is 0 by symmetry.
Resampling an item's 5 binary labels with replacement is a Binomial(5, share) draw, which is
how the two-stage bootstrap is simulated here (the same scheme as
:func:`~fuzzytruth.stats.annotator_bootstrap`, without rebuilding a Membership). Used by
``benchmarks/stats_validity.py`` and ``tests/test_stats_validity.py``.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from fuzzytruth._random import draw_seed, index_counts, named_stream
from fuzzytruth._resampling import BOOTSTRAP_STREAM
from fuzzytruth.stats.bootstrap import BootstrapResult
from fuzzytruth.stats.procedures import paired_inference

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
    rng = named_stream(seed, "labelling data", n_queries, int(crossed))
    draws = named_stream(seed, "labelling procedures", n_queries, int(crossed))
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
