"""trec_eval's other measures: judged-based, counts, set and cutoff-relative families.

Each kernel follows the rule of trec_eval 9.0.8's ``m_*.c`` for the same measure (the module
names it in the family's docstring). ``R`` is the number of judged documents with grade
``>= rel``. A ranked document is *judged* in trec_eval's sense when it is in the judgments with
a grade ``>= 0`` (a negative grade means "in the pool, not judged"); *unjudged* documents are
neither relevant nor non-relevant for ``Bpref`` and ``infAP``.

========================  ===================================================================
``Bpref``                 Buckley & Voorhees (SIGIR 2004), trec_eval ``bpref``: for each
                          retrieved relevant document, 1 − min(n, R) / min(N, R), n the judged
                          non-relevant documents ranked above it, N all judged non-relevant;
                          summed and divided by R
``infAP``                 Yilmaz & Aslam (CIKM 2006) as trec_eval ``infAP`` computes it
``GMAP``, ``GMBpref``     AP (bpref) per query, combined by the geometric mean of
                          max(value, 1e-5) (trec_eval ``gm_map``, ``gm_bpref``)
``NumQ``, ``NumRet``,     1, retrieved, R, relevant retrieved per query; summed over queries
``NumRel``, ``NumRelRet`` (trec_eval ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``)
``Judged@k``              judged documents in the top k / min(k, retrieved) (ir_measures
                          ``Judged@k``; any grade counts as judged)
``NumNonrelJudgedRet``    judged non-relevant documents retrieved, summed
``SetAP``                 relevant retrieved² / (retrieved · R) (trec_eval ``set_map``)
``Utility``               a·TP + b·FP + c·FN + d·TN (trec_eval ``utility``, default 1, −1, 0, 0)
``BinG``, ``nDCGRel``     trec_eval ``binG`` and ``ndcg_rel`` (nDCG averaged over relevant
                          documents)
``RprecMult@m``           precision at rank c = (long)(m·R + 0.9) (trec_eval ``Rprec_mult_m``)
``RelativeP@k``           relevant in the top k / min(k, R) (trec_eval ``relative_P_k``;
                          without k: / min(retrieved, R), ``set_relative_P``)
``YAAP``                  Robertson's "yet another AP" (ECIR 2012), trec_eval ``yaap``:
                          log((1 + S) / (1 + R − S)) with S = AP·R, the sum of the precisions
                          at the relevant ranks; 0 when R = 0, negative below S = R/2
``Unjudged@k``            documents in the top k that are not judged (not in the qrels, or
                          graded negative) / k (trec_eval 10's ``unj_k``; ranks past the
                          list's end count as judged)
========================  ===================================================================

Families reading judged status declare ``uses={"judged"}``: their ``RankedGains`` must come
from ``ranked_gains(..., judged=True)``. trec_eval's ``-J`` (judged documents only) is the
transformation :func:`fuzzytruth.metrics.base.judged_only`, applied before any kernel.

Examples
--------
>>> from fuzzytruth.metrics.base import RankedGains, sum_in_order
>>> rg = RankedGains.from_lists(["q"], [[1, 0, 1, 0, 0]], [[1, 1, 1, 0, 0]],
...                             [[True, True, True, False, True]])
>>> bpref(rg, rel=1).round(4)     # (1 + (1 − 1/2)) / 3
array([0.5])
>>> set_ap(rg, rel=1).round(4)    # 2² / (5 · 3)
array([0.2667])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fuzzytruth.metrics import binary
from fuzzytruth.metrics.base import RankedGains, sum_in_order
from fuzzytruth.metrics.ranking import (
    _discounts,
    _expected_relevant,
    _gain_values,
    _hits,
    _rank_gains,
    average_precision,
    divide,
    needs_judged,
)

__all__ = [
    "INFAP_EPSILON",
    "bin_g",
    "bpref",
    "inferred_ap",
    "judged_rate",
    "ndcg_rel",
    "relative_precision",
    "rprec_mult",
    "set_ap",
    "unjudged_rate",
    "utility",
    "yaap",
]

INFAP_EPSILON = 1e-5
"""trec_eval's ``INFAP_EPSILON``, the smoothing of infAP's estimate of precision above a rank."""


def require_judged(rg: RankedGains, family: str) -> None:
    """Raise a ValueError naming ``ranked_gains(..., judged=True)`` when ``rg`` lacks them."""
    if rg.judged is None or rg.judged_grades is None:
        raise ValueError(
            f"measure {family!r} reads which documents are judged; build the RankedGains with "
            "ranked_gains(..., judged=True)"
        )


def _judged_classes(rg: RankedGains, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per rank: relevant, judged non-relevant, in the pool but unjudged (negative grade)."""
    relevant = rg.gains >= rel
    nonrel = rg.judged & (rg.gains >= 0) & ~relevant
    pooled = rg.judged & (rg.gains < 0)
    return relevant, nonrel, pooled


def _exclusive_cumsum(mask: np.ndarray) -> np.ndarray:
    """Per cell, how many True cells come strictly before it in its row."""
    return np.cumsum(mask, axis=1) - mask


def bpref(rg: RankedGains, *, rel: float) -> np.ndarray:
    """Binary preference (trec_eval ``m_bpref.c``); NaN when R = 0.

    Σ over retrieved relevant documents of 1 − min(n, R)/min(N, R) (1 when n = 0), divided by
    R, where n counts the judged non-relevant documents ranked above and N all judged
    non-relevant documents of the query (grades in [0, rel)).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[0, 1, 0, 1]], [[1, 1, 0, 0, 0]],
    ...                             [[True, True, True, True]])
    >>> bpref(rg, rel=1).round(4)     # (1 − 1/2) + (1 − 2/2), over R = 2
    array([0.25])
    """
    require_judged(rg, "Bpref")
    relevant, nonrel, _ = _judged_classes(rg, rel)
    n_rel = rg.n_relevant(rel)
    grades = rg.judged_grades
    n_nonrel = ((grades >= 0) & (grades < rel)).sum(axis=1)
    above = _exclusive_cumsum(nonrel)
    denominator = np.minimum(n_nonrel, n_rel)[:, None].astype(np.float64)
    share = np.divide(
        np.minimum(above, n_rel[:, None]), denominator,
        out=np.zeros(above.shape), where=denominator > 0,
    )
    term = np.where(above > 0, 1.0 - share, 1.0)
    return divide(sum_in_order(term * relevant), n_rel)


def inferred_ap(rg: RankedGains, *, rel: float) -> np.ndarray:
    """Inferred AP as trec_eval ``m_infap.c`` computes it; NaN when R = 0.

    For the relevant document at rank j + 1 (0-based j > 0) with r relevant documents up to and
    including it, n judged non-relevant and u pooled-but-unjudged documents (negative grade)
    above it: 1/(j+1) + (j/(j+1))·((r−1+n+u)/j)·((r−1+ε)/(r−1+n+2ε)), ε = 1e-5; 1 at rank 1.
    Documents not in the judgments are skipped. The sum is divided by R.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1, 0]], [[True, False, True]])
    >>> inferred_ap(rg, rel=1).round(6)   # (1 + 1/3 + (2/3)(1/2)(1+ε)/(1+2ε)) / 2
    array([0.833332])
    """
    require_judged(rg, "infAP")
    relevant, nonrel, pooled = _judged_classes(rg, rel)
    r_before = np.cumsum(relevant, axis=1) - 1.0  # r − 1 at relevant cells
    n_before = _exclusive_cumsum(nonrel).astype(np.float64)
    u_before = _exclusive_cumsum(pooled).astype(np.float64)
    j = np.arange(rg.depth, dtype=np.float64)[None, :]
    safe_j = np.maximum(j, 1.0)
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r_before + n_before + u_before) / safe_j) * (
        (r_before + INFAP_EPSILON) / (r_before + n_before + 2 * INFAP_EPSILON)
    )
    term[:, :1] = 1.0
    return divide(sum_in_order(np.where(relevant, term, 0.0)), rg.n_relevant(rel))


def gmap(rg: RankedGains, *, rel: float) -> np.ndarray:
    return average_precision(rg, rel=rel)


def num_q(rg: RankedGains) -> np.ndarray:
    return np.ones(len(rg))


def num_ret(rg: RankedGains) -> np.ndarray:
    return rg.lengths.astype(np.float64)


def num_rel(rg: RankedGains, *, rel: float) -> np.ndarray:
    return rg.n_relevant(rel).astype(np.float64)


def num_rel_ret(rg: RankedGains, *, rel: float) -> np.ndarray:
    return (rg.gains >= rel).sum(axis=1).astype(np.float64)


def judged_rate(rg: RankedGains, *, k: int | None = None) -> np.ndarray:
    """Judged documents in the top ``k`` / min(k, retrieved) (ir_measures ``Judged@k``).

    A document is judged when it is in the judgments at any grade. NaN for an empty list.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["a", "b"], [[1, 0, 0], []], [[1, 0], []],
    ...                             [[True, True, False], []])
    >>> judged_rate(rg, k=2).tolist(), judged_rate(rg, k=10).round(4).tolist()
    ([1.0, nan], [0.6667, nan])
    """
    require_judged(rg, "Judged")
    judged = rg.tie_mean(rg.judged) if rg.tie_start is not None else rg.judged
    shown = rg.lengths if k is None else np.minimum(rg.lengths, k)
    return divide(_hits(judged, k), shown)


def set_ap(rg: RankedGains, *, rel: float) -> np.ndarray:
    """Unranked AP: relevant retrieved² / (retrieved · R) (trec_eval ``set_map``).

    NaN when R = 0; 0 when nothing was retrieved.
    """
    hits = num_rel_ret(rg, rel=rel)
    n_rel = rg.n_relevant(rel)
    value = np.divide(hits * hits, rg.lengths * n_rel, out=np.zeros(len(rg)),
                      where=(rg.lengths > 0) & (n_rel > 0))
    return np.where(n_rel > 0, value, np.nan)


def yaap(rg: RankedGains, *, rel: float) -> np.ndarray:
    """trec_eval's ``yaap`` (``m_yaap.c``): log((1 + S) / (1 + R − S)), S = Σ over the relevant
    retrieved documents of (relevant so far / rank). Defined (0) when R = 0.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1, 1]])
    >>> yaap(rg, rel=1).round(6)        # S = 1 + 2/3: log(2.6667 / 2.3333)
    array([0.133531])
    """
    relevant = rg.gains >= rel
    ranks = np.arange(1, rg.depth + 1, dtype=np.float64)
    total = sum_in_order(np.where(relevant, np.cumsum(relevant, axis=1) / ranks, 0.0))
    return np.log((1.0 + total) / (1.0 + rg.n_relevant(rel) - total))


def unjudged_rate(rg: RankedGains, *, k: int) -> np.ndarray:
    """Documents of the top ``k`` not judged in trec_eval's sense (not in the qrels, or with a
    negative grade) / ``k`` (trec_eval 10's ``unj_k``, ``m_unjudged.c``); ranks past the list's
    end are not counted as unjudged.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, -1]], [[1, -1]], [[True, False, True]])
    >>> unjudged_rate(rg, k=2).tolist(), unjudged_rate(rg, k=5).tolist()
    ([0.5], [0.4])
    """
    require_judged(rg, "Unjudged")
    shown = np.arange(rg.depth)[None, :] < rg.lengths[:, None]
    unjudged = shown & ~(rg.judged & (rg.gains >= 0))
    if rg.tie_start is not None:
        unjudged = rg.tie_mean(unjudged)
    return _hits(unjudged, k) / k


def num_nonrel_judged_ret(rg: RankedGains, *, rel: float) -> np.ndarray:
    require_judged(rg, "NumNonrelJudgedRet")
    return _judged_classes(rg, rel)[1].sum(axis=1).astype(np.float64)


def utility(
    rg: RankedGains, *, rel: float, a: float = 1.0, b: float = -1.0, c: float = 0.0,
    d: float = 0.0, n_docs: int = 0,
) -> np.ndarray:
    """Set utility a·|rel ∩ ret| + b·|ret \\ rel| + c·|rel \\ ret| + d·|neither| (trec_eval
    ``utility``); the last cell needs the collection size ``n_docs`` (trec_eval's ``-N``).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 0]], [[1, 1]])
    >>> utility(rg, rel=1).tolist(), utility(rg, rel=1, c=-0.5).tolist()   # 1 − 2; − 0.5
    ([-1.0], [-1.5])
    """
    hits = num_rel_ret(rg, rel=rel)
    retrieved = rg.lengths.astype(np.float64)
    n_rel = rg.n_relevant(rel).astype(np.float64)
    return (a * hits + b * (retrieved - hits) + c * (n_rel - hits)
            + d * (n_docs + hits - retrieved - n_rel))


def bin_g(rg: RankedGains, *, rel: float) -> np.ndarray:
    """trec_eval's ``binG``: Σ over retrieved relevant documents of 1/log2(2 + n), n the
    non-relevant (or unjudged) documents ranked above, divided by R; NaN when R = 0.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1, 1]])
    >>> bin_g(rg, rel=1).round(6)     # (1/log2 2 + 1/log2 3) / 3
    array([0.543643])
    """
    relevant = rg.gains >= rel
    above = _exclusive_cumsum(~relevant)  # documents above that are not relevant
    term = np.where(relevant, 1.0 / np.log2(2.0 + above), 0.0)
    return divide(sum_in_order(term), rg.n_relevant(rel))


def ndcg_rel(rg: RankedGains, *, gain: Any = "linear") -> np.ndarray:
    """trec_eval's ``ndcg_rel``: nDCG averaged over the relevant documents.

    At each retrieved document of positive gain, DCG of the ranks up to it over the ideal
    DCG of as many ranks; each relevant document not retrieved adds the final nDCG; the sum
    is divided by the number of documents of positive gain. NaN when there is none.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[0, 1, 2]], [[2, 1, 1]])
    >>> ndcg_rel(rg).round(5)   # (0.6309/2.6309 + 2 · 1.6309/3.1309) / 3
    array([0.42721])
    """
    gains = _rank_gains(rg, gain)
    source = rg.judged_grades if needs_judged(gain) else rg.ideal
    ideal = _gain_values(source, gain)
    ideal = -np.sort(-np.where(ideal > 0, ideal, 0.0), axis=1)
    width = max(rg.depth, ideal.shape[1], 1)  # a column even with nothing retrieved or judged
    disc = _discounts(width, "log2", None)
    dcg = np.cumsum(gains * disc[: rg.depth], axis=1)
    padded = np.zeros((len(rg), width))
    padded[:, : ideal.shape[1]] = ideal
    ideal_dcg = np.cumsum(padded * disc, axis=1)
    positive = gains > 0
    at_rel = np.divide(dcg, ideal_dcg[:, : rg.depth], out=np.zeros(dcg.shape),
                       where=positive & (ideal_dcg[:, : rg.depth] > 0))
    n_rel = (ideal > 0).sum(axis=1)
    # m_ndcg_rel.c: the terms in rank order, then (R - relevant retrieved) * DCG / ideal DCG
    missing = (n_rel - positive.sum(axis=1)).astype(np.float64)
    final = divide(missing * (dcg[:, -1] if rg.depth else np.zeros(len(rg))), ideal_dcg[:, -1])
    total = sum_in_order(at_rel) + np.nan_to_num(final)
    return divide(np.where(total > 0, total, 0.0), n_rel)  # trec_eval: 0 unless sum > 0


def rprec_cutoff(mult: float, n_relevant: np.ndarray) -> np.ndarray:
    """trec_eval's rank for the multiple ``mult`` of R: (long)(mult·R + 0.9), a whole number
    kept in float64 (cast to int64, a multiple of 1e19 wrapped around and Rprec_mult scored 0.0
    with numpy's warning about an invalid cast, where it is 2 / 3e19).

    >>> rprec_cutoff(1.6, np.array([2, 0])).tolist(), rprec_cutoff(1e19, np.array([3]))
    ([4.0, 0.0], array([3.e+19]))
    """
    return np.trunc(mult * np.asarray(n_relevant, dtype=np.float64) + 0.9)


def rprec_mult(rg: RankedGains, *, rel: float, mult: float) -> np.ndarray:
    """Precision at rank c = (long)(mult·R + 0.9) (trec_eval ``Rprec_mult``).

    Documents past the list's end count as non-relevant; 0 when c = 0; NaN when R = 0.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 0, 1, 1]], [[1, 1]])
    >>> rprec_mult(rg, rel=1, mult=1.6).tolist()     # c = (long)4.1 = 4: 2/4
    [0.5]
    """
    n_rel = rg.n_relevant(rel)
    cut = rprec_cutoff(mult, n_rel)
    hits = _hits(_expected_relevant(rg, rel), cut)
    value = np.divide(hits, cut, out=np.zeros(len(rg)), where=cut > 0)
    return np.where(n_rel > 0, value, np.nan)


def relative_precision(rg: RankedGains, *, rel: float, k: int | None = None) -> np.ndarray:
    """Relevant in the top ``k`` / min(k, R) (trec_eval ``relative_P``); NaN when R = 0.

    Without ``k``: relevant retrieved / min(retrieved, R) (trec_eval ``set_relative_P``; 0 for
    an empty list).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1]], [[1, 1]])
    >>> relative_precision(rg, rel=1, k=2).tolist(), relative_precision(rg, rel=1, k=3).tolist()
    ([0.5], [1.0])
    """
    n_rel = rg.n_relevant(rel)
    shown = np.minimum(rg.lengths if k is None else np.full(len(rg), k), n_rel)
    hits = _hits(_expected_relevant(rg, rel, k), k)
    value = np.divide(hits, shown, out=np.zeros(len(rg)), where=shown > 0)
    return np.where(n_rel > 0, value, np.nan)


# ---------------------------------------------------------------------------------------------
# 0/1-world kernels


def binary_rel(rel: float) -> bool:
    """0/1 worlds give relevant documents grade 1: a threshold above 1 finds none (the
    generic route handles it)."""
    return rel <= 1


def binary_counts(depth: int, *, family: str, rel: float | None = None) -> Any:
    if rel is not None and not binary_rel(rel):
        return None

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        if family == "NumQ":
            return np.ones(len(lengths))
        if family == "NumRet":
            return lengths.astype(np.float64)
        if family == "NumRel":
            return n_relevant.astype(np.float64)
        return relevant.sum(axis=0, dtype=np.float64)

    return kernel


def binary_gmap(depth: int, *, rel: float) -> Any:
    return binary.ap(depth, rel=rel, denominator="all_relevant")


def binary_yaap(depth: int, *, rel: float) -> Any:
    if not binary_rel(rel):
        return None

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        _, total = binary.ap_sums(relevant, ranks)
        return np.log((1.0 + total) / (1.0 + n_relevant - total))

    return kernel


def binary_set_ap(depth: int, *, rel: float) -> Any:
    if not binary_rel(rel):
        return None

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        hits = relevant.sum(axis=0, dtype=np.float64)
        den = lengths.astype(np.float64) * n_relevant
        value = np.divide(hits * hits, den, out=np.zeros(len(hits)), where=den > 0)
        return np.where(n_relevant > 0, value, np.nan)

    return kernel


def binary_utility(depth: int, **params: Any) -> Any:
    if not binary_rel(params["rel"]):
        return None
    a, b, c, d, n_docs = (params[k] for k in ("a", "b", "c", "d", "n_docs"))

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        hits = relevant.sum(axis=0, dtype=np.float64)
        return (a * hits + b * (lengths - hits) + c * (n_relevant - hits)
                + d * (n_docs + hits - lengths - n_relevant))

    return kernel


def binary_rprec_mult(depth: int, *, rel: float, mult: float) -> Any:
    if not binary_rel(rel):
        return None

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        cut = rprec_cutoff(mult, n_relevant)
        top = binary.hits_below(relevant, ranks, cut)
        value = np.divide(top, cut, out=np.zeros(len(cut)), where=cut > 0)
        return np.where(n_relevant > 0, value, np.nan)

    return kernel


def binary_relative_p(depth: int, *, rel: float, k: int | None = None) -> Any:
    if not binary_rel(rel):
        return None

    def kernel(
        relevant: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        hits = binary.hits_within(relevant, ranks, k).sum(axis=0, dtype=np.float64)
        shown = np.minimum(lengths if k is None else np.full(len(lengths), k), n_relevant)
        value = np.divide(hits, shown, out=np.zeros(len(hits)), where=shown > 0)
        return np.where(n_relevant > 0, value, np.nan)

    return kernel
