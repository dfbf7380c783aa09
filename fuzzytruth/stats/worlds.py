"""What the uncertain ground truth does to a comparison: decomposition and P(A better | truth).

Both read scores in ground-truth worlds, ``(n_worlds, n_systems, n_queries)``: one crisp
ground truth per world, drawn from the annotators' labels and shared by all systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fuzzytruth._resampling import ResamplingResolutionWarning, block_rows
from fuzzytruth._warnings import warn
from fuzzytruth.stats._validation import as_pairs, as_scores, check_tolerance, tie_margin


@dataclass(frozen=True, eq=False)
class UncertaintyDecomposition:
    """Variance of a mean difference (or mean) split into its sources.

    For the estimand *this collection's truth* (each query's expected score given the labels,
    :func:`truth_decomposition`) the estimate is the mean over queries of each query's score
    averaged over W worlds; its variance is ``var_queries + var_truth``:

    ``var_queries``
        query sampling, ``s^2 / n`` of the per-query expected differences minus the Monte
        Carlo part below (floored at 0);
    ``var_truth``
        what the truth still adds: the Monte Carlo error of the per-query expectations,
        ``mean_q Var_worlds(d_q) / (W n)``. It is 0 when every world gives the same scores
        (the truth contributes nothing) or the expectations are exact, and it shrinks as W
        grows; the spread of the truth itself averages out over queries and is *not* a
        variance of this estimand. From one world it cannot be estimated: NaN, and
        ``var_queries`` is then the whole ``s^2 / n``.
    ``spread_truth``
        descriptive only: the standard deviation over worlds of the difference of means over
        these queries (how much the number would move between truths consistent with the
        labels, the queries held fixed); NaN from one world.

    For the estimand *the annotator population* (:mod:`fuzzytruth.stats.population`)
    ``var_queries + var_truth`` is the two-stage bootstrap variance and ``var_truth`` the
    variance of the replicates in which only the annotators were resampled.
    ``share_truth = var_truth / (var_queries + var_truth)``.
    """

    var_queries: np.ndarray
    var_truth: np.ndarray
    spread_truth: np.ndarray

    @property
    def share_truth(self) -> np.ndarray:
        """Share of the variance that comes from the truth (annotators or worlds)."""
        total = self.var_queries + self.var_truth
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, self.var_truth / total, np.nan)


_BYTES_PER_DIFFERENCE = 32
"""Bytes per (world, pair, query) difference of a block in :func:`truth_decomposition`: the
difference and the temporaries of its variance over the worlds."""


def truth_decomposition(
    scores: np.ndarray, *, pairs: np.ndarray | None = None
) -> UncertaintyDecomposition:
    """Decompose the variance of each pair's mean difference under *this collection's truth*.

    Parameters
    ----------
    scores : array_like
        ``(n_worlds, n_systems, n_queries)`` per-query scores in each world.
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices; default all pairs ``i < j``.

    Returns
    -------
    UncertaintyDecomposition

    Examples
    --------
    Identical worlds: the truth contributes nothing.

    >>> rng = np.random.default_rng(0)
    >>> same = np.broadcast_to(rng.random((2, 20)), (5, 2, 20))
    >>> truth_decomposition(same).share_truth.tolist()
    [0.0]
    """
    x = as_scores(scores, ndim=(3,))
    return checked_truth_decomposition(x, as_pairs(pairs, x.shape[1]))


def checked_truth_decomposition(x: np.ndarray, pairs: np.ndarray) -> UncertaintyDecomposition:
    """:func:`truth_decomposition` of scores and pairs already checked (a ``ScoreMatrix``'s
    values, which ``compare()`` reads): no second pass over the worlds to check them."""
    n_worlds, _, n = x.shape
    # the differences a block of queries at a time when all of them would pass the budget
    # (100,000 queries × 1,000 worlds: 0.8 GB a pair, and as much again in var's temporaries);
    # the worlds' means over the queries are their sums over the blocks: the same numbers to
    # rounding, and bit for bit when one block holds every query
    step = block_rows(n_worlds * len(pairs), bytes_per_unit=_BYTES_PER_DIFFERENCE)
    expected = np.empty((len(pairs), n))  # each query's mean difference over the worlds
    within_q = np.empty((len(pairs), n))  # and its variance over them
    world_sums = []  # each world's sum over a block's queries
    for start in range(0, n, step):
        block = slice(start, min(n, start + step))
        d = x[:, pairs[:, 0], block] - x[:, pairs[:, 1], block]  # (W, n_pairs, queries)
        expected[:, block] = d.mean(axis=0)
        if n_worlds > 1:
            within_q[:, block] = d.var(axis=0, ddof=1)
        world_sums.append(d.sum(axis=2))
    var_total = expected.var(axis=1, ddof=1) / n
    if n_worlds > 1:
        within = within_q.mean(axis=1)  # mean over queries of Var_worlds(d_q)
        var_truth = within / (n_worlds * n)
        world_means = (world_sums[0] if len(world_sums) == 1
                       else np.sum(world_sums, axis=0)) / n
        spread = world_means.std(axis=0, ddof=1)
    else:  # one world has no spread to estimate: the truth's part is unknown, not 0
        return UncertaintyDecomposition(
            var_queries=var_total,
            var_truth=np.full(len(pairs), np.nan),
            spread_truth=np.full(len(pairs), np.nan),
        )
    return UncertaintyDecomposition(
        var_queries=np.maximum(var_total - var_truth, 0.0),
        var_truth=np.minimum(var_truth, var_total),
        spread_truth=spread,
    )


@dataclass(frozen=True, eq=False)
class WorldPreference:
    """Shares of ground-truth worlds in which ``a`` beats, ties or loses to ``b``.

    ``prob_better + prob_tie + prob_worse == 1`` for every pair.
    """

    prob_better: np.ndarray
    prob_tie: np.ndarray
    prob_worse: np.ndarray
    n_worlds: int


def world_preference(
    scores: np.ndarray, *, pairs: np.ndarray | None = None, tie_tolerance: float = 0.0
) -> WorldPreference:
    """P(A better | truth, these queries): the share of worlds where A's mean is higher.

    Defined precisely: the probability, over ground truths drawn from these annotators'
    labels, that A's mean over *these* queries exceeds B's. It holds the queries fixed and
    takes the labels as given, so it is not a test and says nothing about new queries or new
    annotators. How often it lands near 0 or 1 when the systems do not differ depends on the
    collection, not on a nominal level: on the labelling-only model of
    ``benchmarks/stats_validity.py`` (table 5, 400 null data sets per cell, 10 to 100
    queries) it was at most 0.05 or at least 0.95 on 9–12 % of the data sets with fresh
    annotators per item (Monte Carlo SE 1.4–1.6 %) and on 23–60 % with the same 5 annotators
    on every item (MC SE 2.1–2.5 %). The version
    that includes query and annotator sampling is ``prob_a_better`` of the
    annotator-population comparison, ``compare(annotator_bootstrap(runs, annotations,
    measures))``
    (:func:`~fuzzytruth.stats.annotator_bootstrap`).

    In each world the mean over all queries is computed for every system; the result is the
    share of worlds where ``mean_a - mean_b > tie_tolerance`` (better), where
    ``|mean_a - mean_b| <= tie_tolerance`` (tie) and the rest (worse). This is the
    uncertainty from the ground truth alone; it says nothing about sampling queries.

    Parameters
    ----------
    scores : array_like
        ``(n_worlds, n_systems, n_queries)`` per-query scores in each world.
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices; default all pairs ``i < j``.
    tie_tolerance : float
        Differences of means at most this large count as ties (default 0).

    Returns
    -------
    WorldPreference

    Examples
    --------
    >>> scores = [[[0.5, 0.7], [0.4, 0.6]],   # world 0: system 0 better
    ...           [[0.5, 0.5], [0.5, 0.5]],   # world 1: tie
    ...           [[0.2, 0.4], [0.4, 0.6]],   # world 2: system 1 better
    ...           [[0.9, 0.7], [0.6, 0.6]]]   # world 3: system 0 better
    >>> pref = world_preference(scores)
    >>> pref.prob_better.tolist(), pref.prob_tie.tolist(), pref.prob_worse.tolist()
    ([0.5], [0.25], [0.25])
    """
    x = as_scores(scores, ndim=(3,))
    return checked_world_preference(x, as_pairs(pairs, x.shape[1]),
                                    check_tolerance(tie_tolerance))


def checked_world_preference(x: np.ndarray, pairs: np.ndarray, tol: float) -> WorldPreference:
    """:func:`world_preference` of scores, pairs and tolerance already checked (a
    ``ScoreMatrix``'s values, which ``compare()`` reads): no second pass over the worlds to
    check them."""
    means = x.mean(axis=2)
    diff = means[:, pairs[:, 0]] - means[:, pairs[:, 1]]  # (n_worlds, n_pairs)
    # equal means from different sums differ by rounding: ties (relative to the scores: an
    # absolute 1e-12 tied every world of scores of order 1e-12)
    margin = tie_margin(tol, x)
    n_worlds = x.shape[0]
    if n_worlds == 1:
        warn(
            "1 world: each share is 0 or 1 (the order of the means in that world), not a "
            "probability over the ground truth; draw more worlds (evaluate(..., n_worlds=...))",
            ResamplingResolutionWarning,
        )
    better = np.count_nonzero(diff > margin, axis=0)
    worse = np.count_nonzero(diff < -margin, axis=0)
    ties = n_worlds - better - worse
    return WorldPreference(better / n_worlds, ties / n_worlds, worse / n_worlds, n_worlds)
