"""Classic IR measures, vectorised over queries on :class:`~fuzzytruth.metrics.base.RankedGains`.

Every kernel takes a ``RankedGains`` and keyword parameters and returns one float64 per query
(NaN where undefined, e.g. recall when a query has no relevant document). Ranks are 1-based in
the formulas and 0-based columns in the arrays. A document is *relevant* when its grade is
``>= rel``; ``R`` is the number of judged relevant documents of the query, retrieved or not.

The families registered here (see :mod:`fuzzytruth.measures` for the spelling):

==========  ==============================================================================
``P@k``     hits in the top k / k (trec_eval ``P_k``); without ``@k``: hits / retrieved
``R@k``     hits in the top k / R (``recall_k``); without ``@k``: over the whole list
``Success`` 1 if a relevant document is in the top k (``success_k``)
``AP``      Σ over relevant ranks i ≤ k of P@i, divided by R (``denominator=all_relevant``,
            trec_eval ``map``/``map_cut``) or by the relevant documents retrieved in the top k
            (``retrieved_relevant``: SHREC 2006 and the NIST shape pages)
``RR``      1 / rank of the first relevant document, 0 if none (``recip_rank``)
``Rprec``   hits in the top R / R
``DCG``     Σ_{i ≤ k} gain(g_i) · disc(i)
``nDCG``    DCG / ideal DCG, the ideal ranking made of all judged documents (trec_eval ``ndcg``,
            ``ndcg_cut_k``)
``F``       F_β = (1+β²)·P·R / (β²·P + R) with P = hits/n, R = hits/R, n = k or the number
            retrieved; 0 when no hit. trec_eval's ``set_F.x`` is F_β with **β² = x**.
``E``       van Rijsbergen's E_β = 1 − F_β (lower is better)
``iP@p``    interpolated precision at recall level p
``11pt``    mean of iP at p = 0, 0.1, ..., 1 (or at the given ``levels``)
==========  ==============================================================================

Gains (``gain``): ``"linear"`` (the grade; negative grades give 0, as trec_eval), ``"exp"``
(2^g − 1, Burges) or a mapping ``{grade: gain}`` (grades not listed keep gain = grade, as
trec_eval's ``ndcg.1=3,2=9``). Discounts (``discount``): ``"log2"`` 1/log2(i+1) (trec_eval,
sklearn), or ``"jk"`` Järvelin–Kekäläinen: 1 for i < b, 1/log_b(i) for i ≥ b (``b`` = 2 by
default; PSB and SHREC).

Interpolation (``interpolation``) turns recall level p into a number c of relevant documents;
iP(p) is the highest precision at any rank at or after the c-th relevant document (over all
ranks when c = 0), and 0 when fewer than c relevant documents were retrieved:

* ``"textbook"``: c = ceil(p·R), i.e. iP(p) = max{P(i) : recall(i) ≥ p};
* ``"trec_eval9"``: c = (long)(p·R + 0.9) in double precision (trec_eval ≤ 9.0.8,
  pytrec_eval-terrier, ranx);
* ``"trec_eval10"``: c = lround(p·R) (trec_eval 10.0).

Tie averaging: when ``RankedGains.tie_start`` is set, every family here except ``iP`` and
``11pt`` returns the exact expectation over all orders of the tied documents. P, R, DCG, nDCG,
Rprec, F and E are linear in the per-rank gains, so group-averaged gains give it; Success and RR
use the hypergeometric law of the relevant documents inside the tied group; AP uses the
McSherry–Najork (ECIR 2008) expectation of precision at each position of a tied group.

Examples
--------
>>> from fuzzytruth.metrics.base import RankedGains
>>> rg = RankedGains.from_lists(["q"], [[1, 1, 0, 1, 0, 0, 1, 0, 0, 1]], [[1] * 5])
>>> round(float(average_precision(rg, rel=1)[0]), 6)   # NIST example: 0.764286
0.764286
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from fuzzytruth._validation import SCALE_LIMIT
from fuzzytruth.metrics.base import RankedGains, dot_rows, sum_in_order

__all__ = [
    "average_precision",
    "dcg",
    "e_measure",
    "f_measure",
    "interpolated_precision",
    "ndcg",
    "precision",
    "r_precision",
    "recall",
    "recall_cutoffs",
    "reciprocal_rank",
    "success",
]

GAINS = ("linear", "exp")
DISCOUNTS = ("log2", "jk")
#: nDCG's ideal DCG: of every relevant document ("all": trec_eval, psbTable), or of as many as
#: the list holds ("list": Järvelin and Kekäläinen's NDCG[i] = DCG[i] / IDCG[i] read at the
#: list's end, SHREC 2006's final NDCG); the same whenever the list is at least as long as R
IDEALS = ("all", "list")
INTERPOLATIONS = ("textbook", "trec_eval9", "trec_eval10")
AP_DENOMINATORS = ("all_relevant", "retrieved_relevant")
ELEVEN_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""The recall levels of ``11pt`` (trec_eval's ``11pt_avg`` default)."""


# ---------------------------------------------------------------------------------------------
# helpers


def divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with NaN where den == 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _relevant(rg: RankedGains, rel: float) -> np.ndarray:
    """Boolean (n, depth): grade >= rel (rel > 0, so padding is never relevant)."""
    return rg.gains >= rel


def _hits(values: np.ndarray, k: np.ndarray | int | None) -> np.ndarray:
    """Row sums of ``values`` over the top k columns (all columns without k; per-row k allowed).

    Columns past a list's end hold 0, so no length mask is needed.
    """
    if k is None:
        return values.sum(axis=1, dtype=np.float64)
    if np.ndim(k) == 0:
        return values[:, :k].sum(axis=1, dtype=np.float64)
    inside = np.arange(values.shape[1])[None, :] < np.asarray(k)[:, None]
    return np.where(inside, values, 0).sum(axis=1, dtype=np.float64)


def _expected_relevant(rg: RankedGains, rel: float, k: int | None = None) -> np.ndarray:
    """Relevance of the top k ranks, averaged over tied groups when the ranking has ties."""
    if rg.tie_start is None:
        return _relevant(rg, rel)[:, :k] if k is not None else _relevant(rg, rel)
    return rg.tie_mean(_relevant(rg, rel))


def _log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k) for 0 <= k <= n (callers mask the rest)."""
    from scipy.special import gammaln  # here: scipy.special costs 0.3 s to import, ties only

    n = np.asarray(n, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _group_counts(rg: RankedGains, relevant: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per cell: group start s, size m, relevant in group r, relevant before the group."""
    csum = np.zeros((relevant.shape[0], relevant.shape[1] + 1))
    np.cumsum(relevant, axis=1, out=csum[:, 1:])
    before = np.take_along_axis(csum, rg.tie_start, axis=1)
    r = np.take_along_axis(csum, rg.tie_stop, axis=1) - before
    m = (rg.tie_stop - rg.tie_start).astype(np.float64)
    return rg.tie_start, m, r, before


def _cutoff_mask(rg: RankedGains, k: int | None) -> np.ndarray:
    """Boolean (depth,) True for rank columns inside the cutoff."""
    cols = np.arange(rg.depth)
    return cols < (rg.depth if k is None else k)


# ---------------------------------------------------------------------------------------------
# kernels


def precision(rg: RankedGains, *, rel: float, k: int | None = None) -> np.ndarray:
    """Precision at rank ``k``: hits in the top k divided by k (trec_eval ``P_k``).

    Without ``k``: hits among all retrieved documents / number retrieved (``set_P``; 0 when
    nothing was retrieved).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["a", "b"], [[1, 0, 2], [0]], [[1, 2], [1]])
    >>> precision(rg, rel=1, k=2)
    array([0.5, 0. ])
    >>> precision(rg, rel=2, k=5)
    array([0.2, 0. ])
    """
    hits = _hits(_expected_relevant(rg, rel, k), k)
    if k is None:
        return np.where(rg.lengths > 0, hits / np.maximum(rg.lengths, 1), 0.0)
    return hits / k


def recall(rg: RankedGains, *, rel: float, k: int | None = None) -> np.ndarray:
    """Recall at rank ``k``: hits in the top k / R (trec_eval ``recall_k``); NaN when R = 0.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["a"], [[1, 0, 1]], [[1, 1, 1, 1]])
    >>> recall(rg, rel=1, k=2)
    array([0.25])
    >>> recall(rg, rel=1)
    array([0.5])
    """
    hits = _hits(_expected_relevant(rg, rel, k), k)
    return divide(hits, rg.n_relevant(rel))


def success(rg: RankedGains, *, rel: float, k: int | None = None) -> np.ndarray:
    """1 if a relevant document is in the top ``k`` (whole list without ``k``), else 0.

    Under tie averaging: the probability of that event over the orders of the tied group that
    straddles rank k (hypergeometric).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["a", "b"], [[0, 1], [0, 0, 1]], [[1], [1]])
    >>> success(rg, rel=1, k=2)
    array([1., 0.])
    """
    relevant = _relevant(rg, rel)
    hits = _hits(relevant, k)
    if rg.tie_start is None or k is None or rg.depth == 0:
        return (hits > 0).astype(np.float64)
    csum = np.cumsum(relevant, axis=1)
    col = min(k, rg.depth) - 1
    start = rg.tie_start[:, col]
    stop = rg.tie_stop[:, col]
    padded = np.zeros((csum.shape[0], csum.shape[1] + 1))
    padded[:, 1:] = csum
    before = np.take_along_axis(padded, start[:, None], axis=1)[:, 0]
    r = np.take_along_axis(padded, stop[:, None], axis=1)[:, 0] - before
    m = (stop - start).astype(np.float64)
    slots = (np.minimum(k, stop) - start).astype(np.float64)
    # P(no relevant among the `slots` first places of the group) = C(m - r, slots) / C(m, slots)
    possible = m - r >= slots
    log_p0 = np.where(
        possible, _log_comb(np.maximum(m - r, slots), slots) - _log_comb(m, slots), -np.inf
    )
    p_hit = 1.0 - np.exp(log_p0)
    return np.where(before > 0, 1.0, p_hit)


def reciprocal_rank(rg: RankedGains, *, rel: float, k: int | None = None) -> np.ndarray:
    """1 / rank of the first relevant document in the top ``k`` (0 if none; ``recip_rank``).

    Under tie averaging: the expectation of 1/rank over the orders of the first tied group
    that holds a relevant document (the first relevant one is at the j-th place of a group of m
    holding r relevant with probability C(m−j, r−1) / C(m, r)).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["a", "b"], [[0, 0, 1], [0]], [[1], [1]])
    >>> reciprocal_rank(rg, rel=1)
    array([0.33333333, 0.        ])
    """
    if rg.depth == 0:  # nothing retrieved by any query: no relevant document is found
        return np.zeros(len(rg))
    relevant = _relevant(rg, rel)
    inside = _cutoff_mask(rg, k)
    ranks = np.arange(1, rg.depth + 1, dtype=np.float64)
    if rg.tie_start is None:
        first = relevant & inside
        has = first.any(axis=1)
        idx = np.argmax(first, axis=1)
        return np.where(has, 1.0 / (idx + 1.0), 0.0)
    start, m, r, before = _group_counts(rg, relevant)
    first_group = (before == 0) & (r > 0)
    j = ranks[None, :] - start  # 1-based place inside the group
    ok = first_group & (m - j >= r - 1)
    log_w = np.where(
        ok,
        _log_comb(np.maximum(m - j, 0), np.maximum(r - 1, 0)) - _log_comb(m, np.maximum(r, 0)),
        -np.inf,
    )
    return (np.exp(log_w) / ranks * inside).sum(axis=1)


def average_precision(
    rg: RankedGains,
    *,
    rel: float,
    k: int | None = None,
    denominator: str = "all_relevant",
) -> np.ndarray:
    """Average precision over the top ``k`` (whole list without ``k``).

    Σ over relevant ranks i ≤ k of (relevant in the top i) / i, divided by R
    (``denominator="all_relevant"``, trec_eval ``map`` / ``map_cut_k``; NaN when R = 0) or by the
    number of relevant documents in the top k (``"retrieved_relevant"``, SHREC 2006 and NIST;
    0 when none was retrieved, NaN when R = 0).

    Under tie averaging (all_relevant, or retrieved_relevant without ``k``) the value is the
    McSherry–Najork expectation: at the j-th place of a tied group of m documents holding r
    relevant, c relevant before it, the expected contribution is
    (r/m)·(c + 1 + (j−1)(r−1)/(m−1)) / rank.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 1, 0, 1, 0, 0, 1, 0, 0, 1]], [[1] * 6])
    >>> average_precision(rg, rel=1).round(6)   # NIST example, one relevant unretrieved
    array([0.636905])
    >>> average_precision(rg, rel=1, denominator="retrieved_relevant").round(6)
    array([0.764286])
    """
    if denominator not in AP_DENOMINATORS:
        raise ValueError(
            f"denominator must be one of {list(AP_DENOMINATORS)}; got {denominator!r}"
        )
    relevant = _relevant(rg, rel)
    inside = _cutoff_mask(rg, k)
    ranks = np.arange(1, rg.depth + 1, dtype=np.float64)
    if rg.depth == 0:  # nothing retrieved by any query: 0 where R > 0, NaN where R = 0 (it
        # was 0 for every query, unlike the same queries beside one that retrieved something)
        total = n_rel_ret = np.zeros(len(rg))
    elif rg.tie_start is None:
        # sparse form: only relevant cells contribute, (i-th relevant of its row) / rank
        rows, cols = np.nonzero(relevant[:, :k] if k is not None else relevant)
        row_first = np.searchsorted(rows, np.arange(len(rg)))
        nth = np.arange(1, len(rows) + 1) - row_first[rows]
        total = np.bincount(rows, weights=nth / (cols + 1.0), minlength=len(rg))
        n_rel_ret = np.bincount(rows, minlength=len(rg)).astype(np.float64)
    else:
        if denominator == "retrieved_relevant" and k is not None:
            raise ValueError(
                "AP(denominator=retrieved_relevant) with a cutoff k has no tie-averaged form "
                "(its denominator depends on the tie order); drop the cutoff or use "
                "denominator=all_relevant"
            )
        start, m, r, before = _group_counts(rg, relevant)
        j = ranks[None, :] - start
        inner = np.divide((j - 1) * (r - 1), m - 1, out=np.zeros_like(m), where=m > 1)
        contrib = np.where(r > 0, (r / m) * (before + 1 + inner) / ranks, 0.0)
        n_rel_ret = relevant.sum(axis=1).astype(np.float64)
        total = (contrib * inside).sum(axis=1)
    n_rel = rg.n_relevant(rel)
    if denominator == "all_relevant":
        return divide(total, n_rel)
    value = np.where(n_rel_ret > 0, total / np.maximum(n_rel_ret, 1), 0.0)
    return np.where(n_rel > 0, value, np.nan)


def r_precision(rg: RankedGains, *, rel: float) -> np.ndarray:
    """Hits in the top R / R (trec_eval ``Rprec``); NaN when R = 0.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 1, 0, 1, 0, 0, 1, 0, 0, 1]], [[1] * 5])
    >>> r_precision(rg, rel=1)
    array([0.6])
    """
    n_rel = rg.n_relevant(rel)
    hits = _hits(_expected_relevant(rg, rel), n_rel)
    return divide(hits, n_rel)


def _gain_values(grades: np.ndarray, gain: str | Mapping[float, float]) -> np.ndarray:
    if isinstance(gain, Mapping):
        out = np.where(grades > 0, grades, 0.0)  # NaN padding gives 0
        for grade, value in gain.items():
            out = np.where(grades == grade, value, out)
    elif gain == "linear":
        out = np.maximum(grades, 0.0)
    elif gain == "exp":
        with np.errstate(over="ignore"):  # overflow is refused below, naming the grade
            out = np.where(grades > 0, np.exp2(grades) - 1.0, 0.0)
    else:
        raise ValueError(f"gain must be one of {list(GAINS)} or a mapping; got {gain!r}")
    huge = np.abs(out).astype(np.float64, copy=False) > SCALE_LIMIT  # NaN padding is not
    if huge.any():
        at = tuple(np.argwhere(huge)[0])
        raise ValueError(
            f"gain={gain!r} gives grade {float(grades[at])!r} a gain of {float(out[at])!r}, "
            f"beyond +-{SCALE_LIMIT:g}: the values of DCG and its kin, sums of such gains, "
            "would overflow when summed or squared (nDCG inf / inf, its spread over worlds "
            "inf); use smaller gains (nDCG is the same for any positive scaling of them)"
        )
    return out


def _discounts(depth: int, discount: str, b: float | None) -> np.ndarray:
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    if discount == "log2":
        if b is not None and b != 2:
            raise ValueError(f"b applies to discount='jk' only; got b={b!r} with discount='log2'")
        return 1.0 / np.log2(ranks + 1.0)
    if discount == "jk":
        b = 2.0 if b is None else b
        return np.where(ranks < b, 1.0, np.log(b) / np.log(np.maximum(ranks, b)))
    raise ValueError(f"discount must be one of {list(DISCOUNTS)}; got {discount!r}")


def needs_judged(gain: Any) -> bool:
    """Whether a gain map gives a grade <= 0 a gain: then unjudged documents (grade 0 in
    ``gains``) must be told apart from judged ones."""
    return isinstance(gain, Mapping) and any(g <= 0 and v != 0 for g, v in gain.items())


def uses_judged(*, gain: Any = None, **_: Any) -> tuple[str, ...]:
    return ("judged",) if needs_judged(gain) else ()


def _rank_gains(rg: RankedGains, gain: str | Mapping[float, float]) -> np.ndarray:
    """Gain of the document at each rank; an unjudged document gains 0 (trec_eval)."""
    values = _gain_values(rg.gains, gain)
    if not needs_judged(gain):
        return values
    if rg.judged is None:
        raise ValueError(
            f"a gain map giving grades <= 0 a gain ({dict(gain)!r}) needs to know which "
            "documents are judged; build the RankedGains with ranked_gains(..., judged=True)"
        )
    return np.where(rg.judged, values, 0.0)


def ideal_gains(rg: RankedGains, gain: str | Mapping[float, float] = "linear") -> np.ndarray:
    """``(n_queries, n)`` gains of every judged document of positive gain, descending, 0-padded.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1]], [[2, 1, 0]], [[True]])
    >>> ideal_gains(rg, {0: 0.5, 2: -1}).tolist()     # grade 2 gains -1: not in the ideal
    [[1.0, 0.5, 0.0]]
    """
    if needs_judged(gain):
        if rg.judged_grades is None:
            _rank_gains(rg, gain)  # raises the error naming ranked_gains(..., judged=True)
        grades = rg.judged_grades
    else:
        grades = rg.ideal
    ideal = _gain_values(grades, gain)
    return -np.sort(-np.where(ideal > 0, ideal, 0.0), axis=1)


def dcg(
    rg: RankedGains,
    *,
    k: int | None = None,
    gain: str | Mapping[float, float] = "linear",
    discount: str = "log2",
    b: float | None = None,
) -> np.ndarray:
    """Discounted cumulated gain over the top ``k`` (whole list without ``k``).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[3, 2, 3, 0, 1, 2]], [[3, 3, 2, 2, 1]])
    >>> dcg(rg, k=3).round(6)          # 3/log2(2) + 2/log2(3) + 3/log2(4)
    array([5.76186])
    >>> dcg(rg, k=3, discount="jk").round(6)
    array([6.892789])
    """
    values = _rank_gains(rg, gain)
    if rg.tie_start is None:
        return _dcg_rows(values[:, :k], k, discount, b)
    return _dcg_rows(rg.tie_mean(values), k, discount, b)


def _dcg_rows(gains: np.ndarray, k: int | None, discount: str, b: float | None) -> np.ndarray:
    depth = gains.shape[1] if k is None else min(k, gains.shape[1])
    return dot_rows(gains[:, :depth], _discounts(depth, discount, b))


def ndcg(
    rg: RankedGains,
    *,
    k: int | None = None,
    gain: str | Mapping[float, float] = "linear",
    discount: str = "log2",
    b: float | None = None,
    ideal: str = "all",
) -> np.ndarray:
    """DCG over the top ``k`` divided by the ideal DCG over the top ``k``; NaN when it is 0.

    With ``ideal="list"`` the ideal is also cut at each list's length (:data:`IDEALS`; at
    one document for an empty list, which scores 0): a list ``[2]`` of a query with one more
    relevant document of grade 1 scores 1, its ``DCG[1] / IDCG[1]``, where trec_eval's
    ``ndcg`` gives 2 / (2 + 1 / log2(3)) = 0.760.

    The ideal ranking holds every judged document of positive *gain*, retrieved or not, in
    decreasing order of gain (trec_eval ``ndcg`` / ``ndcg_cut_k``): a gain map giving a
    positive grade a gain <= 0 leaves those documents out of the ideal (while they still count,
    negatively, where the run ranks them), and a map giving grade 0 a positive gain puts the
    judged non-relevant documents in it (which needs ``rg.judged``; unjudged documents always
    gain 0). trec_eval sorts the gain levels by the integer part of their difference, so with
    two levels whose gains differ by less than 1 its ideal can be out of order; here it is
    always sorted.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[3, 2, 3, 0, 1, 2]], [[3, 3, 2, 2, 1]])
    >>> ndcg(rg).round(6)
    array([0.960808])
    >>> ndcg(rg, gain={1: -1}).round(6)   # trec_eval -m ndcg.1=-1: 0.9013
    array([0.901287])
    >>> short = RankedGains.from_lists(["q"], [[2]], [[2, 1]])
    >>> ndcg(short).round(6).tolist(), ndcg(short, ideal="list").tolist()
    ([0.760188], [1.0])
    """
    if ideal not in IDEALS:
        raise ValueError(f"ideal must be one of {list(IDEALS)}; got {ideal!r}")
    best = ideal_gains(rg, gain)
    if ideal == "list":
        # at least one: an empty list of a query with relevant documents scores 0, not NaN
        held = np.arange(best.shape[1])[None, :] < np.maximum(rg.lengths, 1)[:, None]
        best = np.where(held, best, 0.0)
    ideal_dcg = _dcg_rows(best, k, discount, b)
    return divide(dcg(rg, k=k, gain=gain, discount=discount, b=b), ideal_dcg)


def beta_squared(beta: float) -> float:
    """β² as it was given: trec_eval's ``set_F.x`` takes x = β² and the measure holds
    β = √x, whose square can miss x by a bit (√0.5 squared is 0.5000000000000001), and F's
    last bit with it; of the doubles whose square root is β, the one written shortest is x.

    >>> beta_squared(0.5 ** 0.5), beta_squared(3 ** 0.5), beta_squared(2.0)
    (0.5, 3.0, 4.0)
    """
    beta = float(beta)
    square = beta * beta
    candidates = [c for c in (np.nextafter(square, -np.inf), square, np.nextafter(square, np.inf))
                  if np.sqrt(c) == beta]
    return float(min(candidates, key=lambda c: (len(repr(float(c))), c != square),
                     default=square))


def f_measure(
    rg: RankedGains, *, rel: float, k: int | None = None, beta: float = 1.0
) -> np.ndarray:
    """F_β of precision and recall at ``k`` (over the whole list without ``k``).

    F_β = (1+β²)·h / (β²·R + n), where h = hits, n = k (or the number retrieved); 0 when
    h = 0, NaN when R = 0. trec_eval's ``set_F.x`` is this with β = √x and no cutoff.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 0, 0]], [[1, 1]])  # P = 0.25, R = 0.5
    >>> f_measure(rg, rel=1).round(4)
    array([0.3333])
    >>> f_measure(rg, rel=1, beta=2.0).round(4)      # trec_eval set_F.4
    array([0.4167])
    """
    hits = _hits(_expected_relevant(rg, rel, k), k)
    n = rg.lengths if k is None else np.full(len(rg), k)
    b2 = beta_squared(beta)
    n_rel = rg.n_relevant(rel)
    # m_set_F.c's formula, (1+β²)·P·R / (β²·P + R) with P and R as doubles: the same number
    # as (1+β²)·h / (β²·R + n) but for the last bit, which decides how a mean on a printed
    # digit's boundary rounds (P = 1/11, R = 1/5 give 0.12500000000000003, whose mean with
    # three zeros trec_eval prints as 0.0313)
    precision = divide(hits, n)
    recall = divide(hits, n_rel)
    value = divide((1 + b2) * precision * recall, b2 * precision + recall)
    return np.where(n_rel > 0, np.nan_to_num(value, nan=0.0), np.nan)


def e_measure(
    rg: RankedGains, *, rel: float, k: int | None = None, beta: float = 1.0
) -> np.ndarray:
    """Van Rijsbergen's effectiveness E_β = 1 − F_β (lower is better).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 0, 0]], [[1, 1]])
    >>> e_measure(rg, rel=1).round(4)
    array([0.6667])
    """
    return 1.0 - f_measure(rg, rel=rel, k=k, beta=beta)


def recall_cutoffs(levels: np.ndarray, n_rel: np.ndarray, interpolation: str) -> np.ndarray:
    """(n_queries, n_levels) number of relevant documents each recall level asks for, under
    ``interpolation`` (module docstring), from each query's number of relevant documents.

    >>> recall_cutoffs(np.array([0.0, 0.1, 0.6]), np.array([0, 2]), "trec_eval10")
    array([[0, 0, 0],
           [0, 0, 1]])
    """
    x = levels[None, :] * n_rel[:, None].astype(np.float64)
    if interpolation == "textbook":
        return np.ceil(x).astype(np.int64)
    if interpolation == "trec_eval9":
        return np.trunc(x + 0.9).astype(np.int64)
    if interpolation == "trec_eval10":
        return np.floor(x + 0.5).astype(np.int64)  # lround: half away from zero, x >= 0
    raise ValueError(
        f"interpolation must be one of {list(INTERPOLATIONS)}; got {interpolation!r}"
    )


def interpolated_precision(
    rg: RankedGains, levels: np.ndarray, *, rel: float, interpolation: str
) -> np.ndarray:
    """Interpolated precision at each recall level, shape ``(n_queries, n_levels)``.

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1, 0, 0, 1]], [[1, 1, 1]])
    >>> levels = np.linspace(0, 1, 11)
    >>> interpolated_precision(rg, levels, rel=1, interpolation="textbook").mean().round(6)
    np.float64(0.727273)
    """
    levels = np.asarray(levels, dtype=np.float64)
    relevant = _relevant(rg, rel)
    hits = np.cumsum(relevant, axis=1)
    ranks = np.arange(1, rg.depth + 1, dtype=np.float64)
    retrieved = ranks[None, :] <= rg.lengths[:, None]
    prec = np.where(retrieved, hits / ranks, 0.0)
    n_rel = rg.n_relevant(rel)
    cut = recall_cutoffs(levels, n_rel, interpolation)
    out = np.empty((len(rg), len(levels)))
    for j in range(len(levels)):  # loop over recall levels (11 at most in practice)
        reached = hits >= cut[:, j][:, None]
        out[:, j] = np.where(reached, prec, 0.0).max(axis=1, initial=0.0)
    return np.where(n_rel[:, None] > 0, out, np.nan)


def ip_kernel(rg: RankedGains, *, rel: float, recall: float, interpolation: str) -> np.ndarray:
    return interpolated_precision(rg, np.array([recall]), rel=rel, interpolation=interpolation)[
        :, 0
    ]


def eleven_point_kernel(
    rg: RankedGains,
    *,
    rel: float,
    interpolation: str,
    levels: tuple[float, ...] = ELEVEN_LEVELS,
) -> np.ndarray:
    """Interpolated precision averaged over recall ``levels`` (trec_eval ``11pt_avg``; with
    other levels, ``11pt_avg.0.25,0.5,0.75``).

    Examples
    --------
    >>> rg = RankedGains.from_lists(["q"], [[1, 0, 1, 0, 0, 1]], [[1, 1, 1]])
    >>> eleven_point_kernel(rg, rel=1, interpolation="trec_eval9", levels=(0.5, 1.0)).round(6)
    array([0.583333])
    """
    levels = np.asarray(levels, dtype=np.float64)
    precision = interpolated_precision(rg, levels, rel=rel, interpolation=interpolation)
    # summed as m_11pt_avg.c sums, from the last level to the first, one at a time: numpy's
    # mean adds in another order, and 11 x 0.025 then differs in the last bit, enough to
    # print a mean of 0.00625 as 0.0063 where trec_eval prints 0.0062
    return sum_in_order(precision[:, ::-1], axis=1) / len(levels)
