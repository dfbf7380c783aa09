"""Cross-modal (image-text) retrieval kernels: the rank of the first ground-truth item, and R@K,
median and mean rank from those ranks (VSE++/SCAN conventions).

* :func:`first_relevant_rank` -- the 1-based rank of each query's best-ranked relevant item
  (VSE++/SCAN's per-query "rank", plus one), the kernel of the ``FirstRelRank`` family; under
  tie averaging the expectation over the orders of the tied items;
* :func:`rank_summary` -- ``R@K`` (share of queries with 0-based rank < K), ``medr`` =
  ``floor(median(0-based)) + 1`` (VSE++; or the median of 1-based ranks) and ``meanr`` (mean
  1-based rank), from ranks.

A similarity matrix becomes ranked data in :mod:`fuzzytruth.evaluation.matrices`
(``image_text_retrieval``, ``retrieval_ranks``), which evaluates it through
:func:`fuzzytruth.evaluation.evaluate` under the ``crossmodal`` preset: ``R@K`` is there the
``Success@K`` family (the best-ranked ground-truth item within the top K) and the ranks come
from ``FirstRelRank``.

See ``shared/reference/metric-conventions.md`` section C and the seed page 001.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fuzzytruth._lazy import lazy_names
from fuzzytruth._validation import check_choice, check_flag, real_array
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.shape import _check_rel

__all__ = ["MEDR_CONVENTIONS", "first_relevant_rank", "rank_summary"]

# the similarity-matrix front doors moved to fuzzytruth.evaluation.matrices, the cross-modal
# conventions to fuzzytruth.measures.conventions; importable from here for one release
__getattr__, _ = lazy_names(
    "fuzzytruth.metrics.crossmodal",
    {
        **dict.fromkeys(
            ("image_text_retrieval", "retrieval_ranks"), "fuzzytruth.evaluation.matrices"
        ),
        "CROSSMODAL_CONVENTIONS": "fuzzytruth.measures.conventions",
    },
    globals(),
)

MEDR_CONVENTIONS = ("vsepp", "median_1based")


def first_relevant_rank(rg: RankedGains, *, rel: float) -> np.ndarray:
    """1-based rank of the first relevant item of each query; the list length plus one when no
    relevant item was retrieved.

    The value for a list without a relevant item is the best rank its first relevant item
    could have (just below the list, as rankings truncated at a depth are usually scored), so a
    system that finds nothing never ranks better than one that finds something at the bottom;
    it is never undefined (as ``RR`` is 0 there). Under tie averaging (``rg.tie_start`` set) the
    expectation over the orders of the tied items: with ``a`` items ranked before the first
    tied group that holds a relevant item, and ``r`` relevant among the ``m`` items of that
    group, the first relevant item is preceded by ``(m - r) / (r + 1)`` of the group's other
    items on average, so the expected rank is ``a + 1 + (m - r) / (r + 1)``.

    Parameters
    ----------
    rg : RankedGains
        Ranked gains of all queries.
    rel : float
        Grade from which an item is relevant (> 0).

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)`` float64.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["a", "b"], [[0, 0, 1, 1], [0]], [[1, 1], [1]])
    >>> first_relevant_rank(rg, rel=1)
    array([3., 2.])

    Four items tied, two of them relevant: on average (4 - 2) / 3 of the others come first.

    >>> tied = RankedGains(np.array(["q"]), np.array([[0.0, 1.0, 0.0, 1.0]]), np.array([4]),
    ...                    np.array([[1.0, 1.0]]), np.zeros((1, 4), dtype=np.int64),
    ...                    np.full((1, 4), 4))
    >>> first_relevant_rank(tied, rel=1).round(6).tolist()
    [1.666667]
    """
    _check_rel(rel)
    relevant = rg.gains >= rel  # padding holds grade 0 < rel: never relevant
    found = relevant.any(axis=1)
    first = np.argmax(relevant, axis=1) if rg.depth else np.zeros(len(rg), dtype=np.int64)
    beyond = np.asarray(rg.lengths, dtype=np.float64) + 1.0
    if rg.tie_start is None:
        return np.where(found, first + 1.0, beyond)
    rows = np.arange(len(rg))
    start = rg.tie_start[rows, first] if rg.depth else first
    stop = rg.tie_stop[rows, first] if rg.depth else first
    csum = np.zeros((len(rg), rg.depth + 1), dtype=np.int64)
    np.cumsum(relevant, axis=1, out=csum[:, 1:])
    r = csum[rows, stop] - csum[rows, start]
    m = stop - start
    return np.where(found, start + 1.0 + (m - r) / (r + 1.0), beyond)


def _check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    out = tuple(ks)
    if not out or any(
        isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1 for k in out
    ):
        raise ValueError(f"ks must be a non-empty sequence of positive integers; got {ks!r}")
    out = tuple(int(k) for k in out)
    if len(set(out)) < len(out):  # one R@K column each: a repeat would be counted twice in rsum
        raise ValueError(f"ks must be distinct cutoffs; got {ks!r}")
    return out


def _medr(ranks: np.ndarray, medr: str) -> float:
    if medr == "vsepp":
        return float(np.floor(np.median(ranks)) + 1)
    return float(np.median(ranks + 1))


def summary_from_hits(
    hits: np.ndarray, ranks: np.ndarray, ks: tuple[int, ...], medr: str, scale: float
) -> dict[str, float]:
    """``R@K`` (mean of each column of ``hits``, times ``scale``), ``medr`` and ``meanr`` from
    0-based ``ranks``: the summary of :func:`rank_summary`, with the hit rates given."""
    out = {f"R@{k}": float(scale * hits[:, i].mean()) for i, k in enumerate(ks)}
    out["medr"] = _medr(ranks, medr)
    out["meanr"] = float(ranks.mean() + 1)
    return out


def rank_summary(
    ranks: Sequence[float] | np.ndarray,
    *,
    ks: Sequence[int] = (1, 5, 10),
    medr: str = "vsepp",
    percent: bool = True,
) -> dict[str, float]:
    """R@K, median and mean rank from 0-based ranks (VSE++/SCAN conventions).

    Parameters
    ----------
    ranks : array_like
        0-based ranks of the queries' best ground-truth item: finite, non-negative numbers
        (fractional ones are the expected ranks of tied items).
    ks : sequence of int, default (1, 5, 10)
        Cut-offs; ``R@K`` is the share of ranks ``< K``.
    medr : {"vsepp", "median_1based"}, default "vsepp"
        ``"vsepp"``: ``floor(median(ranks)) + 1``; ``"median_1based"``: ``median(ranks + 1)``.
    percent : bool, default True
        R@K in percent (VSE++, SCAN, papers) or as fractions (CLIP_benchmark).

    Returns
    -------
    dict
        ``"R@K"`` for each K, ``"medr"``, ``"meanr"`` (mean 1-based rank).

    Examples
    --------
    metric-conventions C.3, i2t over 4 images:

    >>> rank_summary([0, 2, 7, 12])
    {'R@1': 25.0, 'R@5': 50.0, 'R@10': 75.0, 'medr': 5.0, 'meanr': 6.25}
    >>> rank_summary([0, 2, 7, 12], medr="median_1based", percent=False)["medr"]
    5.5
    """
    percent = check_flag("percent", percent)
    ks = _check_ks(ks)
    check_choice("medr", medr, MEDR_CONVENTIONS)
    r = real_array(ranks, "ranks", expected="0-based ranks").ravel()
    if r.size == 0 or not np.isfinite(r).all() or (r < 0).any():
        raise ValueError(f"ranks must be non-empty, non-negative 0-based ranks; got {ranks!r}")
    hits = (r[:, None] < np.asarray(ks)[None, :]).astype(np.float64)
    return summary_from_hits(hits, r, ks, medr, 100.0 if percent else 1.0)
