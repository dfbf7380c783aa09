"""SHREC 2006 graded measures: two relevance levels, dynamic recall and cumulated gain.

The SHREC 2006 3D shape retrieval contest judged every result as highly relevant (grade 2),
marginally relevant (grade 1) or not relevant (0) and reported each set-based measure at two
levels: "(highly relevant)" counts grade >= 2 only, "(relevant)" counts grade >= 1. The
kernels read a :class:`~fuzzytruth.metrics.base.RankedGains` for all queries at once:

* :func:`confusion_counts` -- TP, FP, TN, FN of the retrieved list;
* :func:`dynamic_recall`, :func:`average_dynamic_recall` -- Typke, Veltkamp and Wiering,
  "A measure for evaluating retrieval techniques based on partially ordered ground truth
  lists", ICME 2006;
* :func:`cumulated_gain` -- the CG, DCG, ideal and normalised vectors of Järvelin and
  Kekäläinen (ACM TOIS 20(4), 2002);
* :func:`shrec2006_measures` -- every per-query number of the contest, at both levels.

The other SHREC 2006 numbers are shared kernels: the tiers are
:func:`~fuzzytruth.metrics.shape.first_tier` / ``second_tier`` with
``tier_style="precision"`` (``d1 = min(Va, C)``, ``d2 = min(Va, 2C)``); precision ``V / Va``,
recall ``V / C`` and AP over the *retrieved* relevant items are
:func:`fuzzytruth.metrics.ranking.precision`, ``recall`` and ``average_precision`` with
``denominator="retrieved_relevant"``.

Notation: ``Va`` the list length, ``V`` the relevant items retrieved, ``C`` the relevant items
in the collection (counted on ``ranked.ideal``), ``Ds`` the database size.

Undefined cases: a query without relevant items is NaN for ADR, NCG and NDCG. Vector entries
past a query's list length are NaN (the vectors are defined up to ``Va``). Under the
tie-averaged policy (``ranked.tie_start`` set) ADR and the vectors are expectations over the
orders of the tied items (both are linear in the per-rank gains).

See ``shared/reference/metric-conventions.md`` section B for the worked example.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fuzzytruth._lazy import lazy_names
from fuzzytruth.metrics.base import RankedGains, dot_rows
from fuzzytruth.metrics.ranking import average_precision, precision, recall
from fuzzytruth.metrics.shape import _check_rel, _ratio, first_tier, jk_discount, second_tier

__all__ = [
    "ConfusionCounts",
    "CumulatedGain",
    "average_dynamic_recall",
    "confusion_counts",
    "cumulated_gain",
    "dynamic_recall",
    "shrec2006_measures",
]

# the SHREC 2006 conventions moved to fuzzytruth.measures.conventions; importable from here for
# one release
__getattr__, _ = lazy_names(
    "fuzzytruth.metrics.graded",
    {"SHREC2006_CONVENTIONS": "fuzzytruth.measures.conventions"},
    globals(),
)

# The SHREC 2006 example (shared/seeds/003_..., metric-conventions B.2), used in the examples.
_EXAMPLE_GAINS = [2, 2, 1, 2, 2, 1, 0, 1, 0, 1, 2, 0, 0, 0]
_EXAMPLE_JUDGED = [2] * 6 + [1] * 5


@dataclass(frozen=True, eq=False)
class ConfusionCounts:
    """Per-query confusion counts of a retrieved list against the relevant set.

    Parameters
    ----------
    tp, fp, tn, fn : numpy.ndarray
        ``(n_queries,)`` integer counts: ``TP = V``, ``FP = Va - V``,
        ``TN = Ds + V - Va - C``, ``FN = C - V``.
    """

    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray


def confusion_counts(
    ranked: RankedGains, *, n_database: int | np.ndarray, rel: float = 1.0
) -> ConfusionCounts:
    """TP, FP, TN and FN of each retrieved list (SHREC 2006); tie order does not matter.

    Parameters
    ----------
    ranked : RankedGains
        Ranked grades of all queries.
    n_database : int or array_like
        Database size ``Ds`` (scalar or one per query); must leave ``TN >= 0``.
    rel : float, default 1
        Grade from which an item is relevant: 2 for "(highly relevant)", 1 for "(relevant)".

    Returns
    -------
    ConfusionCounts
        Integer arrays ``tp``, ``fp``, ``tn``, ``fn``.

    Examples
    --------
    The SHREC 2006 example, highly relevant level (seed 003: 5, 9, 1799, 1):

    >>> rg = RankedGains.from_lists(["q"], [_EXAMPLE_GAINS], [_EXAMPLE_JUDGED])
    >>> c = confusion_counts(rg, n_database=1814, rel=2)
    >>> c.tp.tolist(), c.fp.tolist(), c.tn.tolist(), c.fn.tolist()
    ([5], [9], [1799], [1])
    """
    _check_rel(rel)
    lengths = np.asarray(ranked.lengths, dtype=np.int64)
    tp = (np.asarray(ranked.gains) >= rel).sum(axis=1).astype(np.int64)
    c = ranked.n_relevant(rel).astype(np.int64)
    fn = c - tp
    if (fn < 0).any():
        raise ValueError(
            "ranked retrieves more relevant items than ranked.ideal holds for some query; "
            "the ideal must list all relevant items"
        )
    ds = np.broadcast_to(np.asarray(n_database, dtype=np.int64), tp.shape)
    tn = ds + tp - lengths - c
    if (tn < 0).any():
        raise ValueError(
            "n_database must be at least the list length plus the unretrieved relevant items; "
            f"got n_database={n_database!r}"
        )
    return ConfusionCounts(tp=tp, fp=lengths - tp, tn=tn, fn=fn)


def dynamic_recall(ranked: RankedGains) -> np.ndarray:
    """Per-position dynamic recall ``r_i`` of Typke, Veltkamp and Wiering (ICME 2006).

    The ground truth is the ordered groups of equal grade, highest first (``ranked.ideal``).
    For ``i = 1..n``, ``n`` the number of ground-truth items, ``r_i`` is the number of the
    first ``i`` results that belong to the groups up to and including the group of the
    ``i``-th ground-truth item, divided by ``i``. With the SHREC 2006 grades: the first ``Ch``
    positions count highly relevant results only, the later ones all relevant results.

    Parameters
    ----------
    ranked : RankedGains
        Ranked grades of all queries.

    Returns
    -------
    numpy.ndarray
        ``(n_queries, n_max)``; row ``q`` holds ``r_1..r_n`` and NaN after its ``n``.
        Positions past the list end count as misses.

    Examples
    --------
    SHREC 2006 example (metric-conventions B.2):

    >>> rg = RankedGains.from_lists(["q"], [_EXAMPLE_GAINS], [_EXAMPLE_JUDGED])
    >>> dynamic_recall(rg).round(6).tolist()[0]
    [1.0, 1.0, 0.666667, 0.75, 0.8, 0.666667, 0.857143, 0.875, 0.777778, 0.8, 0.818182]
    """
    ideal = np.asarray(ranked.ideal, dtype=np.float64)
    gains = np.asarray(ranked.gains, dtype=np.float64)
    n = (ideal > 0).sum(axis=1)
    n_max = int(n.max(initial=0))
    n_q, depth = gains.shape
    # Ground-truth grades in decreasing order, one column per ground-truth position.
    grade_at = -np.sort(-ideal, axis=1)[:, :n_max]
    levels = np.unique(grade_at[grade_at > 0])
    # found[l, q, i]: results among the first i + 1 with grade >= levels[l] (tie-averaged).
    found = np.zeros((len(levels), n_q, max(depth, n_max)))
    for li, level in enumerate(levels):  # one pass per distinct grade, not per query
        found[li, :, :depth] = np.cumsum(ranked.tie_mean(gains >= level), axis=1)
        found[li, :, depth:] = found[li, :, depth - 1 : depth] if depth else 0.0
    level_at = np.where(grade_at > 0, np.searchsorted(levels, grade_at), 0)
    picked = np.take_along_axis(
        found[:, :, :n_max].transpose(1, 2, 0), level_at[:, :, None], axis=2
    )[:, :, 0]
    r = picked / np.arange(1, n_max + 1)
    return np.where(np.arange(n_max)[None, :] < n[:, None], r, np.nan)


def average_dynamic_recall(ranked: RankedGains) -> np.ndarray:
    """Average dynamic recall, ``ADR = (1/n) sum_i r_i`` over the ``n`` ground-truth items.

    Parameters
    ----------
    ranked : RankedGains
        Ranked grades of all queries.

    Returns
    -------
    numpy.ndarray
        ``(n_queries,)`` in [0, 1]; NaN for a query without relevant items.

    Examples
    --------
    SHREC 2006 example (seed 003: 0.819):

    >>> rg = RankedGains.from_lists(["q"], [_EXAMPLE_GAINS], [_EXAMPLE_JUDGED])
    >>> average_dynamic_recall(rg).round(6).tolist()
    [0.819221]
    """
    r = dynamic_recall(ranked)
    present = ~np.isnan(r)
    n = present.sum(axis=1)
    return np.where(n > 0, _ratio(dot_rows(np.where(present, r, 0.0)), n), np.nan)


@dataclass(frozen=True, eq=False)
class CumulatedGain:
    """Cumulated-gain vectors of Järvelin and Kekäläinen, one row per query.

    All arrays are ``(n_queries, depth)``; entries past a query's list length are NaN.

    Parameters
    ----------
    cg, dcg : numpy.ndarray
        Cumulated gain and discounted cumulated gain of the ranked list.
    icg, idcg : numpy.ndarray
        The same for the ideal list: all relevant grades in decreasing order, zero-padded
        (or cut) to the query's list length.
    ncg, ndcg : numpy.ndarray
        ``cg / icg`` and ``dcg / idcg``; NaN for a query without relevant items.
    """

    cg: np.ndarray
    dcg: np.ndarray
    icg: np.ndarray
    idcg: np.ndarray
    ncg: np.ndarray
    ndcg: np.ndarray


def cumulated_gain(
    ranked: RankedGains, *, b: float = 2.0, rel: float | None = None
) -> CumulatedGain:
    """CG, DCG, ICG, IDCG, NCG and NDCG vectors (Järvelin and Kekäläinen 2002).

    ``CG[i] = sum_{j<=i} G[j]``; ``DCG[i] = sum_{j<=i} G[j] w_j`` with ``w_j = 1`` for
    ``j < b`` and ``1 / log_b(j)`` after (:func:`~fuzzytruth.metrics.shape.jk_discount`).
    The last entry of ``ndcg`` within a list is the registry's
    ``nDCG(discount=jk,gain=linear,ideal=list)`` without cut-off (the ``shrec2006`` preset's
    ``nDCG``), and ``nDCG(discount=jk,gain=linear)`` too whenever the list is at least as long
    as the ideal.

    Parameters
    ----------
    ranked : RankedGains
        Ranked grades of all queries.
    b : float, default 2.0
        Discount base (SHREC 2006 uses 2).
    rel : float, optional
        ``None`` (default) uses the grades as gains (SHREC 2006); a number uses binary gains,
        1 for grade ``>= rel``.

    Returns
    -------
    CumulatedGain
        The six vectors.

    Examples
    --------
    SHREC 2006 example (seed 003 and metric-conventions B.2):

    >>> rg = RankedGains.from_lists(["q"], [_EXAMPLE_GAINS], [_EXAMPLE_JUDGED])
    >>> v = cumulated_gain(rg)
    >>> v.cg[0].tolist()
    [2.0, 4.0, 5.0, 7.0, 9.0, 10.0, 10.0, 11.0, 11.0, 12.0, 14.0, 14.0, 14.0, 14.0]
    >>> round(float(v.ndcg[0, -1]), 7)
    0.8524666
    """
    gains = np.maximum(np.asarray(ranked.gains, dtype=np.float64), 0.0)
    ideal = np.maximum(np.asarray(ranked.ideal, dtype=np.float64), 0.0)
    if rel is not None:
        _check_rel(rel)
        gains = (gains >= rel).astype(np.float64)
        ideal = (ideal >= rel).astype(np.float64)
    gains = ranked.tie_mean(gains)
    n_q, depth = gains.shape
    ideal = -np.sort(-ideal, axis=1)
    has_relevant = (ideal > 0).any(axis=1)[:, None]
    ideal_gains = np.zeros((n_q, depth))
    width = min(depth, ideal.shape[1])
    ideal_gains[:, :width] = ideal[:, :width]
    inside = np.arange(depth)[None, :] < np.asarray(ranked.lengths)[:, None]
    disc = jk_discount(depth, base=b)

    def masked(x: np.ndarray, defined: np.ndarray | bool = True) -> np.ndarray:
        return np.where(inside & defined, x, np.nan)

    cg, icg = np.cumsum(gains, axis=1), np.cumsum(ideal_gains, axis=1)
    dcg, idcg = np.cumsum(gains * disc, axis=1), np.cumsum(ideal_gains * disc, axis=1)
    return CumulatedGain(
        cg=masked(cg),
        dcg=masked(dcg),
        icg=masked(icg),
        idcg=masked(idcg),
        ncg=masked(_ratio(cg, icg), has_relevant),
        ndcg=masked(_ratio(dcg, idcg), has_relevant),
    )


def shrec2006_measures(
    ranked: RankedGains, *, n_database: int | np.ndarray, levels: dict[str, float] | None = None
) -> dict[str, np.ndarray]:
    """Every SHREC 2006 per-query number, at the "highly relevant" and "relevant" levels.

    Parameters
    ----------
    ranked : RankedGains
        Ranked grades (2 highly relevant, 1 marginally relevant, 0 not relevant).
    n_database : int or array_like
        Database size ``Ds`` (for TN).
    levels : dict, optional
        Suffix -> relevance threshold; default ``{"h": 2, "r": 1}``.

    Returns
    -------
    dict
        Per-query arrays ``TP_s``, ``FP_s``, ``TN_s``, ``FN_s``, ``FT_s``, ``ST_s``, ``P_s``,
        ``R_s``, ``AP_s`` for each suffix ``s``, and ``ADR``. Tiers are fractions (the page
        prints them as percentages); AP averages over the retrieved relevant items. For the
        vectors see :func:`cumulated_gain`.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [_EXAMPLE_GAINS], [_EXAMPLE_JUDGED])
    >>> m = shrec2006_measures(rg, n_database=1814)
    >>> [round(float(m[k][0]), 5) for k in ("FT_h", "ST_h", "FT_r", "ST_r", "AP_r", "ADR")]
    [0.66667, 0.41667, 0.81818, 0.64286, 0.94369, 0.81922]
    """
    out: dict[str, np.ndarray] = {}
    for suffix, t in (levels or {"h": 2.0, "r": 1.0}).items():
        counts = confusion_counts(ranked, n_database=n_database, rel=t)
        out[f"TP_{suffix}"] = counts.tp
        out[f"FP_{suffix}"] = counts.fp
        out[f"TN_{suffix}"] = counts.tn
        out[f"FN_{suffix}"] = counts.fn
        out[f"FT_{suffix}"] = first_tier(ranked, tier_style="precision", rel=t)
        out[f"ST_{suffix}"] = second_tier(ranked, tier_style="precision", rel=t)
        out[f"P_{suffix}"] = precision(ranked, rel=t)
        out[f"R_{suffix}"] = recall(ranked, rel=t)
        out[f"AP_{suffix}"] = average_precision(ranked, rel=t, denominator="retrieved_relevant")
    out["ADR"] = average_dynamic_recall(ranked)
    return out


