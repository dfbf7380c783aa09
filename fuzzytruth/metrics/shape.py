"""Shape-retrieval benchmark measures: Princeton Shape Benchmark (PSB) and SHREC.

The measures of ``psbTable``/``psbPlot`` (Shilane et al., PSB utilities, 2003) and of the
SHREC 2008-2019 Matlab toolkits, computed for all queries at once from a
:class:`~fuzzytruth.metrics.base.RankedGains`:

* :func:`nearest_neighbor` -- relevance of rank 1;
* :func:`first_tier`, :func:`second_tier` -- recall-style (PSB, denominator ``K``) or
  precision-style (SHREC 2006, denominators ``d1 = min(Va, K)``, ``d2 = min(Va, 2K)``);
* :func:`psb_e_measure` -- F1 over the first 32 results (PSB; *higher* is better);
* :func:`psb_dcg` -- Järvelin-Kekäläinen DCG (b = 2) over the whole list, normalised by the
  ideal DCG of ``K`` relevant items;
* :func:`psb_precision_recall` -- the PSB 20-point, linearly interpolated precision-recall
  curve, with small classes skipped at low recall levels.

A dissimilarity matrix with class labels becomes ranked data, and the ``psbTable`` row (NN, FT,
ST, E, DCG) with its micro or macro averages, in :mod:`fuzzytruth.evaluation.matrices`
(``rank_by_dissimilarity``, ``shape_summary``, ``average_over_queries``), which evaluates the
matrix through :func:`fuzzytruth.evaluation.evaluate` under the ``psb`` preset.

Relevance
    A ranked item is relevant when its grade is ``>= rel`` (default 1); ``K``, the number of
    relevant items of a query, is counted on ``ranked.ideal`` (``RankedGains.n_relevant``).
    When ``ranked`` carries tie groups (``tie_start``/``tie_stop``, the tie-averaged policy),
    NN, the tiers, E and DCG are the exact expectations over all orders of the tied items
    (they are linear in the per-rank relevance); the precision-recall curve is not and
    rejects such input.

Undefined cases
    A query without relevant items (``K = 0``) is NaN for every measure; ``psbTable`` reports
    0 there, but the PSB excludes those classes anyway (``min_class_size=3``). A ratio whose
    denominator is 0 for a query *with* relevant items (an empty list) is 0. The
    precision-recall curve is also NaN at the recall levels where a query is skipped.
    ``average_over_queries`` leaves NaN out.

See ``shared/reference/metric-conventions.md`` section A for the sources and worked numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fuzzytruth._lazy import lazy_names
from fuzzytruth._validation import check_choice
from fuzzytruth.metrics.base import RankedGains, dot_rows

__all__ = [
    "first_tier",
    "jk_discount",
    "nearest_neighbor",
    "psb_dcg",
    "psb_e_measure",
    "psb_precision_recall",
    "second_tier",
]

# the dissimilarity-matrix front doors moved to fuzzytruth.evaluation.matrices, the PSB
# conventions to fuzzytruth.measures.conventions; importable from here for one release
__getattr__, _ = lazy_names(
    "fuzzytruth.metrics.shape",
    {
        **dict.fromkeys(
            ("ShapeRanking", "average_over_queries", "rank_by_dissimilarity", "shape_summary"),
            "fuzzytruth.evaluation.matrices",
        ),
        "PSB_CONVENTIONS": "fuzzytruth.measures.conventions",
    },
    globals(),
)

TIER_STYLES = ("recall", "precision")


def _check_rel(rel: float) -> None:
    if isinstance(rel, bool) or not isinstance(rel, int | float | np.integer | np.floating):
        raise ValueError(f"rel must be a number > 0; got {rel!r}")
    if not rel > 0:
        raise ValueError(f"rel must be > 0 (grade 0 is not relevant); got {rel!r}")


def _relevance(ranked: RankedGains, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Relevance per rank (tie-averaged when ``ranked`` has ties) and ``K`` per query."""
    _check_rel(rel)
    gains = np.asarray(ranked.gains, dtype=np.float64)
    return ranked.tie_mean(gains >= rel), ranked.n_relevant(rel)


def _hits_at(rel: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Relevant items within the first ``k[q]`` ranks of each query (``k`` may exceed depth)."""
    cum = np.zeros((rel.shape[0], rel.shape[1] + 1))
    np.cumsum(rel, axis=1, out=cum[:, 1:])
    k = np.clip(np.asarray(k, dtype=np.int64), 0, rel.shape[1])
    return np.take_along_axis(cum, k[:, None], axis=1)[:, 0]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den == 0``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast_shapes(num.shape, den.shape))
    return np.divide(num, den, out=out, where=den != 0)


def _undefined_without_relevant(values: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """NaN for the queries without a relevant item (the module's rule)."""
    return np.where(n_rel > 0, values, np.nan)


def jk_discount(n: int, *, base: float = 2.0) -> np.ndarray:
    """Järvelin-Kekäläinen rank weights for ranks ``1..n``.

    Weight 1 for ranks ``i < base`` and ``1 / log_base(i)`` for ``i >= base`` (Järvelin and
    Kekäläinen, ACM TOIS 20(4), 2002). With ``base=2`` ranks 1 and 2 both weigh 1; this is the
    form of the PSB, SHREC and SHREC 2006, not trec_eval's ``1/log2(i+1)``.

    Parameters
    ----------
    n : int
        Number of ranks.
    base : float, default 2.0
        Logarithm base ``b``; must be > 1.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` weights.

    Examples
    --------
    >>> jk_discount(4).round(6).tolist()
    [1.0, 1.0, 0.63093, 0.5]
    """
    if not base > 1:
        raise ValueError(f"base must be > 1; got {base!r}")
    ranks = np.arange(1, n + 1, dtype=np.float64)
    return np.where(ranks < base, 1.0, np.log(base) / np.log(np.maximum(ranks, base)))


_EXAMPLE = ([[1, 0, 1, 0, 0, 1, 0, 0]], [[1, 1, 1]])  # metric-conventions A.3, K = 3


def nearest_neighbor(ranked: RankedGains, *, rel: float = 1.0) -> np.ndarray:
    """Nearest-neighbour score: 1 if the first result is relevant, else 0.

    Parameters
    ----------
    ranked : RankedGains
        Ranked gains of all queries.
    rel : float, default 1
        Grade from which an item is relevant.

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)``; 0 for an empty list, NaN without relevant items.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], *_EXAMPLE)
    >>> nearest_neighbor(rg).tolist()
    [1.0]
    """
    relevance, k = _relevance(ranked, rel)
    return _undefined_without_relevant(_hits_at(relevance, np.ones_like(k)), k)


def first_tier(
    ranked: RankedGains, *, tier_style: str = "recall", rel: float = 1.0
) -> np.ndarray:
    """First tier: relevant items among the first ``K`` (or ``d1``) results.

    Parameters
    ----------
    ranked : RankedGains
        Ranked gains of all queries.
    tier_style : {"recall", "precision"}, default "recall"
        ``"recall"`` (PSB ``psbTable``, SHREC Matlab, NIST): hits in the top ``K`` divided by
        ``K``. ``"precision"`` (SHREC 2006): hits in the top ``d1`` divided by ``d1``, with
        ``d1 = min(Va, K)`` and ``Va`` the list length. They agree when ``Va >= K``.
    rel : float, default 1
        Grade from which an item is relevant.

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)`` fractions in [0, 1]; NaN without relevant items.

    Examples
    --------
    The PSB worked example (metric-conventions A.3), ``K = 3``:

    >>> rg = RankedGains.from_lists(["q"], *_EXAMPLE)
    >>> first_tier(rg).round(6).tolist()
    [0.666667]
    """
    check_choice("tier_style", tier_style, TIER_STYLES)
    relevance, k = _relevance(ranked, rel)
    depth = k if tier_style == "recall" else np.minimum(np.asarray(ranked.lengths), k)
    return _undefined_without_relevant(_ratio(_hits_at(relevance, depth), depth), k)


def second_tier(
    ranked: RankedGains, *, tier_style: str = "recall", rel: float = 1.0
) -> np.ndarray:
    """Second tier: relevant items among the first ``2K`` (or ``d2``) results.

    Parameters
    ----------
    ranked : RankedGains
        Ranked gains of all queries.
    tier_style : {"recall", "precision"}, default "recall"
        ``"recall"`` (PSB, SHREC Matlab, NIST): hits in the top ``2K`` divided by ``K`` -- a
        recall, not a precision. ``psbTable`` clamps ``2K`` to the number of ranked items,
        which cannot change the count. ``"precision"`` (SHREC 2006): hits in the top ``d2``
        divided by ``d2``, ``d2 = min(Va, 2K)``.
    rel : float, default 1
        Grade from which an item is relevant.

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)`` fractions in [0, 1]; NaN without relevant items.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], *_EXAMPLE)
    >>> second_tier(rg).tolist(), second_tier(rg, tier_style="precision").tolist()
    ([1.0], [0.5])
    """
    check_choice("tier_style", tier_style, TIER_STYLES)
    relevance, k = _relevance(ranked, rel)
    if tier_style == "recall":
        return _undefined_without_relevant(_ratio(_hits_at(relevance, 2 * k), k), k)
    d2 = np.minimum(np.asarray(ranked.lengths), 2 * k)
    return _undefined_without_relevant(_ratio(_hits_at(relevance, d2), d2), k)


def _check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")


def psb_e_measure(ranked: RankedGains, *, k: int = 32, rel: float = 1.0) -> np.ndarray:
    """PSB E-measure: F1 of precision and recall over the first ``k`` results.

    ``E = 2 / (1/P + 1/R) = 2 h / (k' + K)`` with ``k' = min(k, list length)`` (``psbTable``),
    ``h`` the hits in the top ``k'``, ``P = h / k'`` and ``R = h / K``; 0 when ``h = 0``.
    Higher is better. This is neither van Rijsbergen's ``E = 1 - F`` (lower is better, the
    registry's ``E``), whatever the NIST SHREC pages say, nor ``F1@32`` for lists shorter than
    32 (metric-conventions 0.3 and A.2).

    Parameters
    ----------
    ranked : RankedGains
        Ranked gains of all queries.
    k : int, default 32
        Cut-off; capped at each query's list length.
    rel : float, default 1
        Grade from which an item is relevant.

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)`` values in [0, 1]; NaN without relevant items.

    Examples
    --------
    PSB worked example (metric-conventions A.3): ``k' = 8``, ``P = 3/8``, ``R = 1``:

    >>> rg = RankedGains.from_lists(["q"], *_EXAMPLE)
    >>> psb_e_measure(rg).round(6).tolist()
    [0.545455]
    """
    _check_positive_int("k", k)
    relevance, n_rel = _relevance(ranked, rel)
    k_eff = np.minimum(np.asarray(ranked.lengths, dtype=np.int64), k)
    return _undefined_without_relevant(
        _ratio(2.0 * _hits_at(relevance, k_eff), k_eff + n_rel), n_rel
    )


def psb_dcg(ranked: RankedGains, *, rel: float = 1.0) -> np.ndarray:
    """PSB normalised DCG over the whole ranked list (Järvelin-Kekäläinen, b = 2).

    ``DCG = [rel_1 + sum_{i>=2} rel_i / log2(i)] / [1 + sum_{i=2..K} 1 / log2(i)]`` with 0/1
    relevance, summed over the entire list (``psbTable``, SHREC Matlab); the denominator is
    the DCG of a list with the ``K`` relevant items first. For 0/1 grades this equals the
    registry's ``nDCG(discount=jk,gain=linear)`` without cut-off.

    A list shorter than ``K`` (``psbTable`` always ranks the whole collection, so it never has
    one) is still divided by the ideal DCG of all ``K`` relevant items: the relevant items it
    did not return count against it, as in trec_eval's ``ndcg``. This is not Järvelin and
    Kekäläinen's vector ``NDCG[i] = DCG[i] / IDCG[i]`` read at the list's end (the SHREC 2006
    page's final value, metric-conventions B.1), whose ideal is cut at the list length: a
    list ``[1]`` with ``K = 2`` scores 1 / (1 + 1) = 0.5 here and ``DCG[1] / IDCG[1] = 1``
    there. The two agree whenever the list holds at least ``K`` items.

    Parameters
    ----------
    ranked : RankedGains
        Ranked gains of all queries.
    rel : float, default 1
        Grade from which an item is relevant (gain 1; others gain 0).

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)`` values in [0, 1]; NaN without relevant items.

    Examples
    --------
    PSB worked example (metric-conventions A.3): 2.017783 / 2.630930:

    >>> rg = RankedGains.from_lists(["q"], *_EXAMPLE)
    >>> psb_dcg(rg).round(6).tolist()
    [0.766947]

    A list shorter than ``K``: ``[1]`` with two relevant items, 1 / (1 + 1/log2(2)):

    >>> psb_dcg(RankedGains.from_lists(["q"], [[1]], [[1, 1]])).tolist()
    [0.5]
    """
    relevance, k = _relevance(ranked, rel)
    n = max(relevance.shape[1], int(k.max(initial=0)))
    disc = jk_discount(n)
    ideal = np.concatenate([[0.0], np.cumsum(disc)])[k]
    gained = dot_rows(relevance, disc[: relevance.shape[1]])
    return _undefined_without_relevant(_ratio(gained, ideal), k)


def psb_precision_recall(
    ranked: RankedGains, *, recall_levels: int | Sequence[float] = 20, rel: float = 1.0
) -> np.ndarray:
    """PSB precision at recall levels, linearly interpolated (``psbPlot``, SHREC Matlab).

    With ``P[r] = r / rank of the r-th relevant item`` (``r = 1..K``; 0 for a relevant item
    that was not retrieved), the precision at recall level ``p`` is the linear interpolation
    at ``x = p K - 1`` between ``P[floor(x)]`` and ``P[floor(x) + 1]`` (0-based, clamped to
    ``K - 1``). A query is *skipped* (NaN) at level ``p`` when ``K < 2`` or ``p K < 1``
    (``bins < 20 / j`` in ``psbPlot``): fewer than one relevant item at that recall. This is
    not TREC's max-to-the-right interpolation. The query is not part of its own class here,
    as in ``psbTable``; the stored ``psbPlot.cpp`` compiles with ``USE_QUERY 1`` and counts it
    (``|C|`` relevant items, the self-match usually at rank 1), so its curves differ slightly.

    Parameters
    ----------
    ranked : RankedGains
        Ranked gains of all queries, without tie groups (the curve is not linear in the
        relevance, so it has no tie-averaged form).
    recall_levels : int or sequence of float, default 20
        An int ``n`` means the levels ``1/n, 2/n, ..., 1`` (``psbPlot``: 20); or the levels
        themselves, each in (0, 1].
    rel : float, default 1
        Grade from which an item is relevant.

    Returns
    -------
    numpy.ndarray
        ``(n_queries, n_levels)``; NaN where the query is skipped. Average it with
        :func:`average_over_queries`, which ignores the NaN and yields 0 at a level where
        every query is skipped (``psbPlot``).

    Examples
    --------
    PSB worked example (metric-conventions A.3), ``K = 3``: levels 0.05-0.30 are skipped.

    >>> rg = RankedGains.from_lists(["q"], *_EXAMPLE)
    >>> pr = psb_precision_recall(rg)[0]
    >>> int(np.isnan(pr).sum()), pr[[6, 7, 9, 13, 19]].round(6).tolist()
    (6, [0.983333, 0.933333, 0.833333, 0.65, 0.5])
    """
    if isinstance(recall_levels, int | np.integer) and not isinstance(recall_levels, bool):
        _check_positive_int("recall_levels", recall_levels)
        levels = np.arange(1, recall_levels + 1) / recall_levels
    else:
        levels = np.asarray(recall_levels, dtype=np.float64).ravel()
        if levels.size == 0 or not ((levels > 0) & (levels <= 1)).all():
            raise ValueError(
                "recall_levels must be a positive integer or non-empty levels in (0, 1]; "
                f"got {recall_levels!r}"
            )
    if ranked.tie_start is not None:
        raise ValueError(
            "psb_precision_recall has no tie-averaged form; rank with a strict tie rule "
            "(ties='docid_asc', 'optimistic' or 'pessimistic')"
        )
    relevance, k = _relevance(ranked, rel)
    n_q = relevance.shape[0]
    # points[q, r-1] = r / rank of the r-th relevant item; 0 where it was not retrieved.
    points = np.zeros((n_q, max(int(k.max(initial=0)), 1)))
    rows, cols = np.nonzero(relevance)
    nth = np.cumsum(relevance, axis=1)[rows, cols].astype(np.int64)
    keep = nth <= k[rows]
    points[rows[keep], nth[keep] - 1] = nth[keep] / (cols[keep] + 1.0)

    reach = levels[None, :] * k[:, None]
    # A tolerance so that j/20 * K == 1 in exact arithmetic is not skipped by rounding.
    skip = (k[:, None] < 2) | (reach < 1.0 - 1e-9)
    last = np.maximum(k - 1, 0)[:, None]
    x = np.maximum(reach - 1.0, 0.0)
    x1 = np.minimum(np.floor(x + 1e-9).astype(np.int64), last)
    dx = np.clip(x - x1, 0.0, 1.0)
    x2 = np.minimum(x1 + 1, last)
    p1 = np.take_along_axis(points, x1, axis=1)
    p2 = np.take_along_axis(points, x2, axis=1)
    return np.where(skip, np.nan, p1 * (1.0 - dx) + p2 * dx)


def psb_ip_kernel(rg: RankedGains, *, rel: float, recall: float) -> np.ndarray:
    """PSB linearly interpolated precision at one recall level (the ``iP_psb`` family)."""
    return psb_precision_recall(rg, recall_levels=[recall], rel=rel)[:, 0]


