"""The displacement kernel: Santini eq. 21–23 for many (annotator list, run) pairs at once.

Every pair is one row of padded arrays: the relevance ``s_k`` of the annotator's item at each
annotator position ``k`` and its 1-based position ``π_k`` among the run items read (0 when the
run did not place it there: set B). The three placements of B are computed side by side:

``optimist`` (eq. 22)
    the ``i``-th item of B at ``L + i``, the first positions the run did not fill;
``exact_pessimist``
    the last item of B at ``N``, the next-to-last at ``N − 1``, ...: the ``i``-th at
    ``N − n_b + i``;
``pessimist`` (eq. 23)
    every item of B displaced by ``N``.

The definitions and the proof that ``w_optimist ≤ w_exact_pessimist ≤ w_pessimist`` are in
:mod:`fuzzytruth.displacement`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HYPOTHESES", "displacement_kernel"]

HYPOTHESES: tuple[str, ...] = ("pessimist", "exact_pessimist", "optimist")
"""The three treatments of set B, ordered from the lowest to the highest quality ``q``."""


def displacement_kernel(
    relevance: np.ndarray,
    positions: np.ndarray,
    *,
    lengths: np.ndarray,
    run_depth: np.ndarray,
    n_items: np.ndarray | int,
) -> dict[str, np.ndarray]:
    """Weighted displacement of many (annotator list, run) pairs at once.

    Row ``r`` describes one pair. Column ``j`` is annotator position ``k = j + 1``.

    Parameters
    ----------
    relevance : numpy.ndarray
        ``(n_pairs, width)`` relevance ``s_k`` of the annotator's item at each position;
        ignored past the row's length.
    positions : numpy.ndarray
        ``(n_pairs, width)`` integer 1-based position ``π_k`` of that item in the run's first
        ``run_depth`` items, or 0 if it is not among them (set B).
    lengths : numpy.ndarray
        ``(n_pairs,)`` the annotator's list length ``m``.
    run_depth : numpy.ndarray
        ``(n_pairs,)`` number ``L`` of run items read.
    n_items : numpy.ndarray or int
        Database size ``N``, per pair or for all.

    Returns
    -------
    dict of str to numpy.ndarray
        ``(n_pairs,)`` arrays: ``n_a``, ``n_b``, ``n_c``, ``w_a``, ``w_b_<h>`` and ``w_<h>`` for
        ``h`` in :data:`HYPOTHESES`, and ``w_max = N Σ s``.

    Raises
    ------
    ValueError
        If shapes disagree, a position exceeds ``run_depth``, or ``N < run_depth + n_b`` (the
        run's items and the missing ones are distinct database items).

    Examples
    --------
    Annotator ``[a, b, c]`` with s = (1, .5, .5); the run is ``[b, a, x]``, so c is missing:

    >>> out = displacement_kernel(np.array([[1.0, 0.5, 0.5]]), np.array([[2, 1, 0]]),
    ...                           lengths=np.array([3]), run_depth=np.array([3]), n_items=10)
    >>> [float(out[c][0]) for c in ("w_a", "w_optimist", "w_exact_pessimist", "w_pessimist")]
    [1.5, 2.0, 5.0, 6.5]
    """
    s = np.asarray(relevance, dtype=float)
    pi = np.asarray(positions)
    m = np.asarray(lengths, dtype=np.int64)
    depth = np.asarray(run_depth, dtype=np.int64)
    if s.ndim != 2 or pi.shape != s.shape:
        raise ValueError(
            f"relevance and positions must be 2-D arrays of one shape; got {s.shape} and {pi.shape}"
        )
    n_pairs, width = s.shape
    if m.shape != (n_pairs,) or depth.shape != (n_pairs,):
        raise ValueError(
            f"lengths and run_depth must have shape ({n_pairs},); got {m.shape} and {depth.shape}"
        )
    big_n = np.broadcast_to(np.asarray(n_items, dtype=np.int64), (n_pairs,))
    k = np.arange(1, width + 1)
    valid = k <= m[:, None]
    outside = (pi < 0) | (pi > depth[:, None])
    if outside.any() and (outside & valid).any():
        raise ValueError("positions must lie in 0..run_depth for every item of every list")
    in_a = valid & (pi > 0)
    in_b = valid ^ in_a  # valid and pi == 0
    s_a = np.where(in_a, s, 0.0)
    s_b = np.where(in_b, s, 0.0)
    n_a = np.count_nonzero(in_a, axis=1)
    n_b = np.count_nonzero(in_b, axis=1)
    if np.any(big_n < depth + n_b):
        r = int(np.argmax(big_n < depth + n_b))
        raise ValueError(
            f"n_items (N) must be at least the run depth plus the missing items; pair {r} has "
            f"N={big_n[r]}, run depth {depth[r]} and {n_b[r]} missing items"
        )
    # the i-th item of B (annotator position k) sits at L + i (optimist) or N - n_b + i
    # (exact pessimist): its displacements are |(k - i) - L| and |(N - n_b) - (k - i)|
    k_minus_i = k.astype(np.int32) - np.cumsum(in_b, axis=1, dtype=np.int32)
    w_a = _weighted_abs(k - pi, s_a)
    w_b = {
        "optimist": _weighted_abs(k_minus_i - depth[:, None].astype(np.int32), s_b),
        "exact_pessimist": _weighted_abs((big_n - n_b)[:, None] - k_minus_i, s_b),
        "pessimist": big_n * s_b.sum(axis=1),
    }
    out = {"n_a": n_a, "n_b": n_b, "n_c": depth - n_a, "w_a": w_a}
    for h in HYPOTHESES:
        out[f"w_b_{h}"] = w_b[h]
    for h in HYPOTHESES:
        out[f"w_{h}"] = w_a + w_b[h]
    s_a += s_b  # the list's relevances: one of the two is 0 in every cell
    out["w_max"] = big_n * s_a.sum(axis=1)
    return out


def _weighted_abs(displacement: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``Σ_k weight |displacement|`` per row, in place on ``displacement`` (a temporary)."""
    np.abs(displacement, out=displacement)
    product = np.multiply(weight, displacement)
    return product.sum(axis=1)
