"""Tied items in an annotator's answer, and the one ordering of them that displacement reads.

An annotator may rank several items equally: a tie group (a dermatologist's differential
diagnosis, :class:`~fuzzytruth.io.rankings.Rankings`; equal ``rank`` values in a table of
answers read with ``annotator_ties="best"``). A group of ``g`` items that starts at position
``a`` holds positions ``a .. a + g - 1`` of the list, and Santini's ``w`` needs one position
``k`` per item.

Rule (``annotator_ties="best"``)
    The tie is read in the system's favour: within each tie group, the items the run placed
    (set A) come first, in the order the run placed them, then the items it did not place
    (set B), in the answer's order. A list without ties is read as it is, so the rule changes
    no number of an untied answer. Every item of a tie group must have the same relevance (a
    tie says the annotator cannot tell the items apart).

Why this ordering. Among all the orderings consistent with the ties, it gives the smallest
``w`` under the optimist and under the exact pessimist (a brute-force test enumerates them):

1. *B at the back of its group.* Swap a B item at position ``p`` with the A item right after
   it. The B item stays the ``i``-th of B. Its displacement ``L + i - β_i`` (exact pessimist:
   ``N - n_b + i - β_i``) is at least 1 before the swap, because ``β_i <= L + i`` in every
   ordering (the ``β_i - i`` items before it that are not in B are in A, and ``n_a <= L``), so
   the swap lowers it by exactly 1. The A item's ``|k - π_k|`` grows by at most 1. With one
   relevance per group, ``w`` does not grow.
2. *A in the run's order.* With B at the back, the A items of a group hold a fixed run of
   consecutive positions, and ``Σ |k - π_k|`` over them is smallest when both are matched in
   sorted order (for absolute differences on a line, sorted matching is optimal).

The pessimist (eq. 23) charges ``N Σ_B s`` whatever the positions, and uses the same ordering,
so that ``w_a`` is one number for the three hypotheses. For that hypothesis alone, moving a B
item in front of its group's A items could lower ``w_a`` by up to 1 per B item. Two other
rules were rejected. Giving each item its distance to the nearest position of its group's span
(0 inside) gives a smaller ``w`` that no ordering attains: two tied items displaced the same
way would both sit at the span's edge. The mid-rank ``(a + b) / 2`` gives a run that reproduces
a tie, in either order, a displacement above 0.

Examples
--------
Positions 1-2 are a tie (group 0), position 3 its own group. The run placed the tied items at
5 and 2, and missed the third item, so the tied items are read in the run's order:

>>> groups = np.array([[0, 0, 1]])
>>> rel, pos = in_run_order(groups, np.array([[0.5, 0.5, 0.2]]), np.array([[5, 2, 0]]))
>>> pos.tolist(), rel.tolist()
([[2, 5, 0]], [[0.5, 0.5, 0.2]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["ANNOTATOR_TIES", "in_run_order"]

ANNOTATOR_TIES = ("raise", "best")
"""Equal ranks in an answer: an error, or a tie read in the system's favour (module docstring)."""


def in_run_order(
    groups: np.ndarray, relevance: np.ndarray, positions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every list's cells re-ordered within their tie groups (the module docstring's rule).

    Parameters
    ----------
    groups : numpy.ndarray
        ``(n_lists, width)`` int: each cell's tie group, numbered ``0, 1, ...`` down the list;
        padding past a list's end has a number above every group's.
    relevance : numpy.ndarray
        ``(n_lists, width)`` the cells' relevance.
    positions : numpy.ndarray
        ``(n_lists, width)`` int: the run's 1-based position of each cell's item, 0 if the run
        did not place it (set B, and padding).

    Returns
    -------
    tuple of numpy.ndarray
        ``relevance`` and ``positions`` re-ordered: the input of
        :func:`~fuzzytruth.displacement.displacement_kernel`.
    """
    width = positions.shape[1]
    unplaced = int(positions.max(initial=0)) + 1  # after every placed item, in the list's order
    within = np.where(positions > 0, positions, unplaced + np.arange(width))
    order = np.argsort(groups * (unplaced + width) + within, axis=1, kind="stable")
    return (np.take_along_axis(relevance, order, axis=1),
            np.take_along_axis(positions, order, axis=1))
