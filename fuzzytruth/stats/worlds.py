"""Which system wins under ground-truth uncertainty alone (over sampled worlds, all queries)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fuzzytruth.stats._validation import as_pairs, as_scores, check_tolerance


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
    """P(mean_a > mean_b) over sampled ground-truth worlds, queries held fixed.

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
    pairs = as_pairs(pairs, x.shape[1])
    tol = check_tolerance(tie_tolerance)
    means = x.mean(axis=2)
    diff = means[:, pairs[:, 0]] - means[:, pairs[:, 1]]  # (n_worlds, n_pairs)
    # Equal means computed from different sums can differ by rounding; treat those as ties.
    slack = 1e-12 * (np.abs(means).max() + 1.0)
    n_worlds = x.shape[0]
    better = np.count_nonzero(diff > tol + slack, axis=0)
    worse = np.count_nonzero(diff < -(tol + slack), axis=0)
    ties = n_worlds - better - worse
    return WorldPreference(better / n_worlds, ties / n_worlds, worse / n_worlds, n_worlds)
