"""Exact distributions of rank-based measures when each result is relevant independently.

Every function here reads ``p``, an ``(n_rows, depth)`` array: ``p[i, r]`` is the probability
that the document at rank ``r + 1`` of row ``i`` is relevant, the documents of a row being
relevant independently of one another (Santini's model for one target category; one query of a
probabilistic qrels). Pad short lists with ``p = 0`` (a padded rank is never relevant) and give
their true lengths in ``lengths``. Rows are vectorised through the batched Poisson-binomial
engine (:mod:`fuzzytruth.uncertain.poibin`); each function returns a
:class:`~fuzzytruth.uncertain.batch.DistributionBatch` with one exact distribution per row.

Closed forms (``k`` a rank cutoff; ``k=None`` means the whole list, ``n`` = its length):

* precision ``TP/k`` (``TP/n`` without ``k``, 0 for an empty list): TP is Poisson-binomial
  over the top k;
* success: 1 with probability 1 − Π_{i≤k}(1 − p_i);
* reciprocal rank: 1/i with probability p_i Π_{j<i}(1 − p_j), and 0 (trec_eval's value when
  no relevant document is in the list) with probability Π_{i≤k}(1 − p_i);
* recall, exact form ``TP/(TP+FN)``: FN is the number of relevant documents outside the top
  k — those ranked below k and those not retrieved (``rest`` below) — independent of TP; the
  value is undefined when TP + FN = 0, and that probability is reported;
* recall, expected-size form ``TP/E|ω|`` (Santini eq. 12 as printed);
* F_β = (1+β²)·TP / (β²·(TP+FN) + k) (E_β = 1 − F_β), from the joint law of TP and FN;
  undefined when TP + FN = 0, 0 when TP = 0 < FN (trec_eval's convention);
* the expected DCG, by linearity of expectation (:func:`expected_dcg`; an exact mean only —
  the full DCG distribution is not a closed form and comes from possible worlds).

Not-retrieved relevant documents (``rest``) are described by ``rest_p``, the probabilities of
the uncertain ones (pad with 0), and ``rest_certain``, the number of documents relevant with
probability 1. When the probabilities take few distinct values (annotator shares), FN is a sum
of binomials, each evaluated on its central window; atoms of the FN law below 1e-15 are
dropped (each row's dropped mass is below 1e-12), so that large collections stay fast and the
joint (TP, FN) grids small.

Examples
--------
>>> p = np.array([[0.5, 1.0, 0.0]])
>>> precision(p, k=2).distribution(0).to_frame()
   value  probability
0    0.5          0.5
1    1.0          0.5
>>> reciprocal_rank(p).mean().tolist()          # 0.5 * 1 + 0.5 * 1/2
[0.75]
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import check_choice, check_int
from fuzzytruth.metrics.base import RankedGains
from fuzzytruth.metrics.ranking import DISCOUNTS, beta_squared, dcg, divide
from fuzzytruth.metrics.user_models import residual
from fuzzytruth.uncertain import poibin
from fuzzytruth.uncertain.batch import DeferredBatch, DistributionBatch
from fuzzytruth.uncertain.pgf_moments import counts_product, pgf_moments

__all__ = [
    "ExactInput",
    "Gathered",
    "e_measure_exact",
    "expected_dcg",
    "f_measure",
    "f_measure_exact",
    "f_measure_mean_of_laws",
    "fn_counts",
    "precision",
    "precision_exact",
    "recall",
    "recall_exact",
    "recall_mean",
    "recall_mean_of_laws",
    "reciprocal_rank",
    "reciprocal_rank_exact",
    "reciprocal_rank_means",
    "success",
    "success_exact",
    "tp_pmf",
]

_FN_TOLERANCE = 1e-15
_MAX_GROUPS = 32  # at most this many distinct probabilities: binomial groups (annotator shares)


def _check_p(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if p.ndim != 2:
        raise ValueError(f"p must be 2-D (n_rows, depth); got {p.ndim}-D")
    if p.size and not (p.min() >= 0 and p.max() <= 1):
        raise ValueError("p must hold probabilities within [0, 1]")
    return p


def _check_k(k: int | None) -> None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
        raise ValueError(f"k must be a positive integer or None; got {k!r}")


def _top(p: np.ndarray, k: int | None) -> np.ndarray:
    """The top-k columns of ``p``: all of them when the lists are shorter than k. (Ranks past
    a list's end hold nothing relevant, so padding them with zeros added only counts of
    probability 0, and cost memory in k: R@1,000 on 100-document lists joined 1,001 TP counts
    with every FN count, 3.7 GB on a 500-item collection, and R@10,000 was killed.)"""
    return p if k is None else p[:, :k]


def _lengths(p: np.ndarray, lengths: np.ndarray | None) -> np.ndarray:
    if lengths is None:
        return np.full(p.shape[0], p.shape[1], dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.shape != (p.shape[0],):
        raise ValueError(f"lengths must have shape ({p.shape[0]},); got {lengths.shape}")
    return lengths


def tp_pmf(p: np.ndarray, *, k: int | None = None) -> np.ndarray:
    """PMF of the number of relevant documents in the top ``k`` of each row.

    Returns
    -------
    numpy.ndarray
        ``(n_rows, min(k, depth) + 1)`` (``depth + 1`` without ``k``): counts 0 .. k, or to
        the lists' depth when they are shorter (a longer count has probability 0).

    Examples
    --------
    >>> tp_pmf(np.array([[0.5, 0.5, 1.0]]), k=2).tolist()
    [[0.25, 0.5, 0.25]]
    """
    p = _check_p(p)
    _check_k(k)
    top = _top(p, k)
    if top.shape[0] == 0:
        return np.zeros((0, top.shape[1] + 1))
    return poibin.pmf(top)


def precision(
    p: np.ndarray, *, k: int | None = None, lengths: np.ndarray | None = None
) -> DistributionBatch:
    """Precision at ``k``: TP/k (without ``k``: TP/n over the whole list, 0 when n = 0).

    Examples
    --------
    >>> precision(np.array([[0.2, 0.2]]), k=2).mean().round(6).tolist()
    [0.2]
    """
    p = _check_p(p)
    pmf = tp_pmf(p, k=k)
    counts = np.arange(pmf.shape[1], dtype=float)
    if k is not None:
        values = np.broadcast_to(counts / k, pmf.shape)
    else:
        n = _lengths(p, lengths).astype(float)
        values = np.divide(
            counts[None, :], n[:, None], out=np.zeros(pmf.shape), where=n[:, None] > 0
        )
    return DistributionBatch(values, pmf, np.zeros(len(pmf)))


def success(p: np.ndarray, *, k: int | None = None) -> DistributionBatch:
    """Success at ``k``: 1 if a relevant document is in the top k, else 0.

    Examples
    --------
    >>> success(np.array([[0.5, 0.5]])).mean().tolist()
    [0.75]
    """
    p = _check_p(p)
    _check_k(k)
    none = np.prod(1.0 - _top(p, k), axis=1)
    values = np.broadcast_to(np.array([0.0, 1.0]), (len(p), 2))
    return DistributionBatch(values, np.stack([none, 1.0 - none], axis=1), np.zeros(len(p)))


def reciprocal_rank(p: np.ndarray, *, k: int | None = None) -> DistributionBatch:
    """Reciprocal rank of the first relevant document in the top ``k``; 0 when there is none.

    P(first relevant at rank i) = p_i Π_{j<i}(1 − p_j).

    Examples
    --------
    >>> reciprocal_rank(np.array([[0.0, 1.0]])).distribution(0).to_frame()
       value  probability
    0    0.5          1.0
    """
    p = _check_p(p)
    _check_k(k)
    top = _top(p, k)
    depth = top.shape[1]
    survive = np.ones((len(top), depth + 1))
    np.cumprod(1.0 - top, axis=1, out=survive[:, 1:])
    first = top * survive[:, :-1]
    masses = np.concatenate([first, survive[:, -1:]], axis=1)
    values = np.broadcast_to(
        np.append(1.0 / np.arange(1, depth + 1), 0.0), masses.shape
    )
    return DistributionBatch(values, masses, np.zeros(len(top)))


def _trim(pmf: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop each row's atoms of mass 1e-15 or less, and the columns where no row has any left,
    aligned per row by ``offset``. The atoms are dropped row by row, so a row's law does not
    depend on the other rows of the batch (a query's on the other queries evaluated with it).

    A row whose count is 0 but for a small probability ``s`` (``offset`` 0, its atoms past 0
    summing to ``s < 1``) drops only the atoms of mass ``1e-15 · s`` or less: recall and F are
    read given TP + FN > 0, and with every relevant document improbable that event's mass is
    about ``s``, so an absolute 1e-15 would drop all of it (two documents of probability 1e-15,
    one retrieved: the recall given defined was 1 where it is 1/2)."""
    off_zero = np.where(offset == 0, pmf[:, 1:].sum(axis=1), 1.0)
    tolerance = _FN_TOLERANCE * np.minimum(off_zero, 1.0)[:, None]
    alive = pmf > tolerance
    first = np.argmax(alive, axis=1)
    last = pmf.shape[1] - 1 - np.argmax(alive[:, ::-1], axis=1)
    width = int((last - first).max(initial=0)) + 1
    start = np.minimum(first, pmf.shape[1] - width)
    window = np.take_along_axis(pmf, start[:, None] + np.arange(width)[None, :], axis=1)
    window[window <= tolerance] = 0.0
    return window, offset + start


def _convolve_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise polynomial products, shift-and-add over the shorter factor's columns."""
    if a.shape[1] < b.shape[1]:
        a, b = b, a
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    for j in range(b.shape[1]):  # a loop over the columns of the short factor
        out[:, j : j + a.shape[1]] += a * b[:, j : j + 1]
    return out


def _count_pmf(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PMF of the number of successes of each row, trimmed: (window, offset of column 0).

    Annotator shares take few distinct values: then each value v with c items contributes a
    Binomial(c, v), evaluated on its central window (mean ± 12 sd + 10, beyond which the mass is
    below 1e-15) and convolved row by row; otherwise the batched Poisson-binomial engine runs on
    the whole matrix.
    """
    n = probs.shape[0]
    values = np.unique(probs[probs > 0])
    offset = np.zeros(n, dtype=np.int64)
    if len(values) > _MAX_GROUPS or probs.shape[1] <= 4 * len(values):
        pmf = poibin.pmf(probs) if probs.shape[1] else np.ones((n, 1))
        return _trim(pmf, offset)
    pmf = np.ones((n, 1))
    for v in values:  # a loop over distinct probabilities, vectorised over rows
        count = (probs == v).sum(axis=1)
        if v == 1:
            offset += count
            continue
        sd = np.sqrt(count * v * (1 - v))
        lo = np.clip(np.floor(count * v - 12 * sd - 10), 0, count).astype(np.int64)
        hi = np.clip(np.ceil(count * v + 12 * sd + 10), 0, count).astype(np.int64)
        grid = lo[:, None] + np.arange(int((hi - lo).max(initial=0)) + 1)[None, :]
        binomial = np.zeros(grid.shape)
        for c in np.unique(count):  # one binomial per distinct count, its window per row
            rows = np.flatnonzero(count == c)
            law = poibin.binomial_pmf(int(c), float(v))
            cells = grid[rows]
            binomial[rows] = np.where(cells <= c, law[np.minimum(cells, c)], 0.0)
        pmf, offset = _trim(_convolve_rows(pmf, binomial), offset + lo)
    return pmf / pmf.sum(axis=1, keepdims=True), offset


def _fn_pmf(
    p: np.ndarray, k: int | None, rest_p: np.ndarray, rest_certain: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """PMF of FN (relevant documents outside the top k), trimmed: (pmf window, FN offset)."""
    below = p[:, k:] if k is not None else p[:, :0]
    uncertain = np.concatenate([below, rest_p], axis=1)
    uncertain = uncertain[:, uncertain.any(axis=0)]  # drop columns that are 0 in every row
    window, offset = _count_pmf(uncertain)
    window = window / window.sum(axis=1, keepdims=True)
    return window, offset + np.asarray(rest_certain, dtype=np.int64)


def _joint(
    p: np.ndarray, k: int | None, rest_p: np.ndarray, rest_certain: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flattened joint law of (TP, FN) per row: tp, fn values and masses (n_rows, a·b), a and
    b the widths of TP's and FN's laws trimmed alike (:func:`_trim`: R@1000 over 1,500
    uncertain judgments a query had 1,001 × 1,500 atoms where about 200 × 300 carry mass)."""
    rest_p = _check_p(rest_p)
    if rest_p.shape[0] != p.shape[0]:
        raise ValueError(
            f"rest_p must have one row per row of p ({p.shape[0]}); got {rest_p.shape[0]}"
        )
    rest_certain = np.broadcast_to(np.asarray(rest_certain, dtype=np.int64), (p.shape[0],))
    tp, tp_offset = _trim(tp_pmf(p, k=k), np.zeros(len(p), dtype=np.int64))
    tp /= tp.sum(axis=1, keepdims=True)
    fn, offset = _fn_pmf(p, k, rest_p, rest_certain)
    masses = (tp[:, :, None] * fn[:, None, :]).reshape(len(p), -1)
    tp_values = np.repeat((tp_offset[:, None] + np.arange(tp.shape[1])).astype(float),
                          fn.shape[1], axis=1)
    fn_values = (offset[:, None] + np.arange(fn.shape[1])[None, :]).astype(float)
    fn_values = np.tile(fn_values, (1, tp.shape[1]))
    return tp_values, fn_values, masses


def recall(
    p: np.ndarray,
    *,
    k: int | None = None,
    rest_p: np.ndarray | None = None,
    rest_certain: np.ndarray | int = 0,
    expected_size: np.ndarray | None = None,
) -> DistributionBatch:
    """Recall at ``k``, exact (TP/(TP+FN)) or as printed by Santini (TP/E|ω|).

    Parameters
    ----------
    p : numpy.ndarray
        ``(n_rows, depth)`` relevance probabilities in rank order.
    k : int, optional
        Rank cutoff (whole list when omitted).
    rest_p, rest_certain
        The relevant documents not retrieved: probabilities of the uncertain ones
        ``(n_rows, m)`` (0-padded) and the count of the certain ones. Exact form.
    expected_size : numpy.ndarray, optional
        ``(n_rows,)`` E|ω|: gives the expected-size form TP/E|ω| instead (undefined when 0).

    Examples
    --------
    One certain relevant document retrieved at rank 1, one uncertain (p = 0.5) not retrieved:

    >>> d = recall(np.array([[1.0, 0.0]]), rest_p=np.array([[0.5]])).distribution(0)
    >>> d.to_frame()
       value  probability
    0    0.5          0.5
    1    1.0          0.5
    >>> recall(np.array([[1.0, 0.0]]), expected_size=np.array([1.5])).mean().round(4).tolist()
    [0.6667]
    """
    p = _check_p(p)
    _check_k(k)
    if expected_size is not None:
        size = np.asarray(expected_size, dtype=float)
        pmf = tp_pmf(p, k=k)
        counts = np.arange(pmf.shape[1], dtype=float)[None, :]
        defined = size > 0
        values = np.divide(counts, size[:, None], out=np.zeros(pmf.shape), where=defined[:, None])
        masses = np.where(defined[:, None], pmf, 0.0)
        return DistributionBatch(values, masses, 1.0 - defined)
    if rest_p is None:
        rest_p = np.zeros((len(p), 0))
    tp, fn, masses = _joint(p, k, rest_p, rest_certain)
    total = tp + fn
    defined = total > 0
    values = np.divide(tp, total, out=np.zeros(masses.shape), where=defined)
    return _from_joint(values, masses, defined)


def f_measure(
    p: np.ndarray,
    *,
    k: int | None = None,
    beta: float = 1.0,
    lengths: np.ndarray | None = None,
    rest_p: np.ndarray | None = None,
    rest_certain: np.ndarray | int = 0,
) -> DistributionBatch:
    """F_β at ``k`` = (1+β²)·TP / (β²·(TP+FN) + n), n = k (or the list length without k).

    Undefined when TP + FN = 0; 0 when TP = 0 < FN (as trec_eval's ``set_F``).

    Examples
    --------
    >>> f_measure(np.array([[1.0, 0.0]]), k=2, rest_p=np.array([[0.5]])).mean().round(6).tolist()
    [0.583333]
    """
    p = _check_p(p)
    _check_k(k)
    if rest_p is None:
        rest_p = np.zeros((len(p), 0))
    n = np.full(len(p), k, dtype=float) if k is not None else _lengths(p, lengths).astype(float)
    tp, fn, masses = _joint(p, k, rest_p, rest_certain)
    b2 = beta_squared(beta)
    defined = (tp + fn) > 0
    # as m_set_F.c and the crisp f_measure compute it, (1+β²)·P·R / (β²·P + R) from P and R
    # as doubles, so that 0/1 probabilities give the crisp numbers to the last bit
    hit = defined & (tp > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = tp / n[:, None]
        recall = tp / (tp + fn)
        values = np.where(hit, (1 + b2) * precision * recall / (b2 * precision + recall), 0.0)
    return _from_joint(values, masses, defined)


def _from_joint(values: np.ndarray, masses: np.ndarray, defined: np.ndarray) -> DistributionBatch:
    p_undefined = np.where(defined, 0.0, masses).sum(axis=1)
    kept = np.where(defined, masses, 0.0)
    # renormalise the trimmed joint so that masses + p_undefined is exactly 1
    scale = 1.0 / (kept.sum(axis=1) + p_undefined)
    return DistributionBatch(values, kept * scale[:, None], np.minimum(p_undefined * scale, 1.0))


def fn_counts(
    p: np.ndarray, k: int | None, rest_p: np.ndarray, rest_certain: np.ndarray | int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The relevant documents outside the top ``k`` (ranked below it, or not retrieved)
    grouped by probability: the distinct probabilities strictly between 0 and 1 ``(V,)``, how
    many documents of each row have each ``(n_rows, V)``, and each row's count of certain
    ones ``(n_rows,)``.

    Examples
    --------
    >>> v, c, certain = fn_counts(np.array([[1.0, 0.5, 1.0]]), 1, np.array([[0.5, 0.2]]), 1)
    >>> v.tolist(), c.tolist(), certain.tolist()
    ([0.2, 0.5], [[1.0, 2.0]], [2])
    """
    below = p[:, k:] if k is not None else p[:, :0]
    rest = np.concatenate([below, np.asarray(rest_p, dtype=float)], axis=1)
    certain = np.asarray(rest_certain, dtype=np.int64) + (below == 1).sum(axis=1)
    values, code = np.unique(rest, return_inverse=True)
    rows = np.repeat(np.arange(len(rest)), rest.shape[1])
    counts = np.bincount(rows * len(values) + code.ravel(),
                         minlength=len(rest) * len(values)).reshape(len(rest), len(values))
    keep = (values > 0) & (values < 1)
    return values[keep], counts[:, keep].astype(float), np.broadcast_to(certain, (len(p),))


def recall_mean(
    p: np.ndarray, k: int | None, values: np.ndarray, counts: np.ndarray, certain: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The exact recall's mean given defined and its probability of being undefined, per row,
    without its law: the relevant documents outside the top ``k`` given as :func:`fn_counts`
    (``counts`` may be a SciPy sparse matrix: rows then cost their nonzero counts only).

    TP (in the top ``k``) and FN (outside) are independent, and t / (t + f) = t ∫₀¹ x^(t+f-1)
    dx, so E[TP/(TP+FN); TP > 0] = Σ_t P(TP = t) t ∫₀¹ x^(t-1) G(x) dx with G the probability
    generating function of FN, Π (1 - q + q x) over its documents: a polynomial, integrated
    by Gauss–Legendre rules (:func:`~fuzzytruth.uncertain.pgf_moments.pgf_moments`: exact, or
    on [1 - δ, 1] within a proven relative 2⁻⁵⁵ when G is peaked there), whose logarithm at
    the nodes is one product of the counts with log(1 - v (1 - x)). Recall is undefined
    when TP = FN = 0. The same numbers as :func:`recall`'s law (to rounding) at the cost of
    TP's law and one matrix product: no joint law of (TP, FN), whose rows hold k × width(FN)
    atoms.

    Examples
    --------
    >>> p, rest = np.array([[1.0, 0.0]]), np.array([[0.5]])
    >>> mean, undefined = recall_mean(p, None, *fn_counts(p, None, rest, 0))
    >>> mean.round(12).tolist(), undefined.tolist()   # (1/2 + 1) / 2, as recall()'s law
    ([0.75], [0.0])
    """
    tp = tp_pmf(p, k=k)
    top = tp.shape[1] - 1
    certain = np.asarray(certain, dtype=np.int64)
    # a row whose TP is 0 for sure has nothing to integrate (its defined part is 0)
    live = np.flatnonzero((tp[:, 1:] > 0).any(axis=1))
    moments = pgf_moments(values, counts, certain, top, live)
    defined_part = (tp[:, 1:] * np.arange(1, top + 1) * moments).sum(axis=1)
    # P(TP = FN = 0) as a logarithm, so that P(defined) = 1 - it keeps its digits when it is
    # tiny (1 - 0.99999999208 lost half of them: a mean of 1 + 6.6e-9 for two documents of
    # probability 4e-9)
    with np.errstate(divide="ignore"):  # a document relevant for sure: log1p(-1) = -inf
        log_none = np.log1p(-_top(np.asarray(p, dtype=np.float64), k)).sum(axis=1)
    log_none = np.where(certain == 0, log_none + counts_product(counts, np.log1p(-values)), -np.inf)
    undefined, defined = np.exp(log_none), -np.expm1(log_none)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(defined > 0.0, defined_part / defined, np.nan)
    return mean, undefined


def recall_mean_of_laws(
    p: np.ndarray, k: int | None, rest_p: np.ndarray, rest_certain: np.ndarray | int,
    memory_budget: float = MEMORY_BUDGET,
) -> tuple[np.ndarray, np.ndarray]:
    """The exact recall's mean given defined and its probability of being undefined, per row,
    from the laws of TP and FN without their joint law (what :func:`recall` builds: R@1000 on
    50 queries of 1,500 uncertain judgments held 800 MB): E[TP/(TP+FN); TP > 0] =
    Σ_t t P(TP = t) h(t), h(t) = Σ_f P(FN = f)/(t + f), h one matrix product of FN's law with
    the table 1/(t + f), a block of rows (in order of their least t + f, so that a block's
    table stays narrow) at a time within ``memory_budget``. Both laws are trimmed as
    :func:`recall` trims them (:func:`_trim`), so the mean is that law's. Every term is
    positive: no digits are lost, whatever the probabilities (recall given defined of
    documents improbable together keeps its digits). The arguments as :func:`recall`'s;
    :func:`recall_mean` is the same mean from documents grouped by probability (the
    population bootstrap's).

    Examples
    --------
    >>> p, rest = np.array([[1.0, 0.0]]), np.array([[0.5]])
    >>> mean, undefined = recall_mean_of_laws(p, None, rest, 0)
    >>> mean.tolist(), undefined.tolist()   # (1/2 + 1) / 2, as recall()'s law
    ([0.75], [0.0])
    """
    return _joint_mean(p, k, rest_p, rest_certain, 1.0, None, memory_budget)


def f_measure_mean_of_laws(
    p: np.ndarray, k: int | None, rest_p: np.ndarray, rest_certain: np.ndarray | int, *,
    beta: float = 1.0, lengths: np.ndarray | None = None, memory_budget: float = MEMORY_BUDGET,
) -> tuple[np.ndarray, np.ndarray]:
    """F_β's mean given defined and its probability of being undefined, per row, as
    :func:`recall_mean_of_laws` (the same laws, the table 1/(β²(t + f) + n) with n = k or the
    list's length): F = (1+β²)·TP/(β²·(TP+FN) + n), undefined when TP + FN = 0. The arguments
    as :func:`f_measure`'s.

    Examples
    --------
    >>> p, rest = np.array([[1.0, 0.0]]), np.array([[0.5]])
    >>> mean, _ = f_measure_mean_of_laws(p, 2, rest, 0)
    >>> mean.round(6).tolist()   # (2/3 + 2/4) / 2, as f_measure()'s law
    [0.583333]
    """
    p = _check_p(p)
    n = np.full(p.shape[0], k, dtype=float) if k is not None else _lengths(p, lengths)
    mean, undefined = _joint_mean(p, k, rest_p, rest_certain, beta_squared(beta),
                                  np.asarray(n, dtype=float), memory_budget)
    return (1.0 + beta_squared(beta)) * mean, undefined


def _joint_mean(
    p: np.ndarray, k: int | None, rest_p: Any, rest_certain: Any, scale: float,
    shift: np.ndarray | None, memory_budget: float,
) -> tuple[np.ndarray, np.ndarray]:
    """E[TP/(scale·(TP+FN) + shift); TP > 0] given TP + FN > 0, and P(TP + FN = 0), per row
    (``shift``: one per row, None for 0): :func:`recall_mean_of_laws` and
    :func:`f_measure_mean_of_laws`. Rows are taken in blocks of equal shift and close least
    t + f, each block's table 1/(scale·(t + f) + shift) one matrix product with FN's law."""
    p = _check_p(p)
    _check_k(k)
    n = len(p)
    rest_p = np.asarray(rest_p, dtype=np.float64)
    rest_p = rest_p if rest_p.ndim == 2 else rest_p.reshape(n, -1)
    certain = np.broadcast_to(np.asarray(rest_certain, dtype=np.int64), (n,))
    shift = np.zeros(n) if shift is None else shift
    tp, tp_offset = _trim(tp_pmf(p, k=k), np.zeros(n, dtype=np.int64))
    tp /= tp.sum(axis=1, keepdims=True)
    fn, fn_offset = _fn_pmf(p, k, rest_p, certain)
    n_tp, n_fn = tp.shape[1], fn.shape[1]
    weighted = tp * (tp_offset[:, None] + np.arange(n_tp))  # t P(TP = t)
    base = tp_offset + fn_offset  # t + f of each row's first atoms
    defined_part = np.zeros(n)
    order = np.lexsort((base, shift))
    runs = np.append(np.flatnonzero(np.diff(shift[order]) != 0) + 1, n)  # equal shifts
    rows_fit = max(1, int(memory_budget // (8 * (n_fn + 3 * n_tp))))
    start = 0
    while start < n:
        # rows of one shift whose least t + f lie within n_tp of the first's: the table
        # spans < 2 n_tp
        run_stop = int(runs[np.searchsorted(runs, start, side="right")])
        lows = base[order[start:run_stop]]
        stop = min(start + rows_fit, start + int(np.searchsorted(lows, lows[0] + n_tp, "right")))
        rows = order[start:stop]
        low = int(base[rows].min())
        total = low + np.arange(n_fn)[:, None] + np.arange(int(base[rows].max()) - low + n_tp)
        denominator = scale * total + shift[rows[0]]
        table = np.divide(1.0, denominator, out=np.zeros(total.shape), where=total > 0)
        h = fn[rows] @ table  # h[r, u] = Σ_j P(FN = its offset + j) / denominator(low + u + j)
        columns = (base[rows] - low)[:, None] + np.arange(n_tp)
        defined_part[rows] = (weighted[rows] * np.take_along_axis(h, columns, axis=1)).sum(axis=1)
        start = stop
    # P(TP = FN = 0): every document irrelevant, as a logarithm (see recall_mean)
    with np.errstate(divide="ignore"):
        log_none = np.log1p(-p).sum(axis=1) + np.log1p(-rest_p).sum(axis=1)
    log_none = np.where(certain == 0, log_none, -np.inf)
    undefined, defined = np.exp(log_none), -np.expm1(log_none)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(defined > 0.0, defined_part / defined, np.nan)
    return mean, undefined


def expected_dcg(
    expected_gains: np.ndarray,
    *,
    k: int | None = None,
    discount: str = "log2",
    b: float | None = None,
) -> np.ndarray:
    """E[DCG@k] = Σ_{i≤k} E[gain_i]·disc(i), exact by linearity of expectation.

    ``expected_gains[i, r]`` is the expected gain of the document at rank r + 1 (for 0/1
    relevance, its probability of being relevant; for graded relevance, Σ_g P(grade g)·gain(g)).
    The discount is the registered DCG kernel's (:func:`fuzzytruth.metrics.ranking.dcg`),
    applied to these expected gains; ``discount`` and ``b`` as there.

    Examples
    --------
    >>> expected_dcg(np.array([[0.5, 1.0, 0.0]])).round(6).tolist()   # 0.5/1 + 1/log2(3)
    [1.130930]
    """
    gains = np.asarray(expected_gains, dtype=float)
    if gains.ndim != 2 or (gains.size and gains.min() < 0):
        raise ValueError("expected_gains must be a 2-D array of non-negative expected gains")
    check_choice("discount", discount, DISCOUNTS)
    if k is not None:
        k = check_int("k", k, minimum=1)
    if b is not None and not b > 0:
        raise ValueError(f"b must be a number > 0; got {b!r}")
    rg = RankedGains(
        np.arange(len(gains)).astype(object),
        gains,
        np.full(len(gains), gains.shape[1], dtype=np.int64),
        np.zeros((len(gains), 0)),
    )
    return dcg(rg, k=k, gain="linear", discount=discount, b=b)


# ---------------------------------------------------------------------------------------------
# The families' exact forms (``MeasureFamily.exact``): ``exact(ctx, **params)``


RECALL_FORMS = ("exact", "expected_size")


class Gathered(NamedTuple):
    """Probabilities read through an index instead of written out: row ``i`` of the
    ``(len(table) * n, m)`` matrix they stand for is ``table[i // n, cells[i % n]]``, for
    ``cells`` of shape ``(n, m)`` (rows that repeat ``n`` components over the rows of
    ``table``: the population bootstrap's replicates over its cells' shares). A pass that may
    stop early (:func:`reciprocal_rank_means`) reads only what it needs.

    Examples
    --------
    >>> Gathered(np.array([[0.1, 0.2, 0.0], [0.3, 0.4, 0.0]]), np.array([[1, 0], [2, 2]])).matrix()
    array([[0.2, 0.1],
           [0. , 0. ],
           [0.4, 0.3],
           [0. , 0. ]])
    """

    table: np.ndarray
    cells: np.ndarray

    def matrix(self) -> np.ndarray:
        """The ``(len(table) * n, m)`` probabilities written out (``np.take`` of the raveled
        cells: five times the speed of ``table[:, cells]`` on a (3, 7,000) table and
        (300, 800) cells, the same values; 50085d1, 2026-11-29)."""
        return np.take(self.table, self.cells.ravel(), axis=1).reshape(
            len(self.table) * len(self.cells), self.cells.shape[1])


class ExactInput:
    """What an exact form reads about one system's ranked lists under an uncertain truth.

    One row per *component* (a query and one of its possible target categories; one row per
    query for probabilistic qrels). Built by :func:`fuzzytruth.evaluation` from a truth of
    :mod:`fuzzytruth.truth`; a test can build one from plain arrays.

    Parameters
    ----------
    probabilities : callable
        ``probabilities(rel) -> (n_rows, depth)``: P(the document at each rank is relevant at
        threshold ``rel``), 0 in the padding.
    lengths : numpy.ndarray
        ``(n_rows,)`` list lengths.
    rest : callable
        ``rest(rel) -> (rest_p, certain)``: probabilities of the uncertain relevant documents
        not retrieved ``(n_rows, m)``, and the count of certainly relevant ones ``(n_rows,)``.
    expected_size : callable
        ``expected_size() -> (n_rows,)``: E|relevant| (Santini's |ω|, eq. 9).
    recall_form : {"exact", "expected_size"}
        Which recall ``R`` means (see :func:`recall`).
    judged : numpy.ndarray or callable, optional
        ``(n_rows, depth)`` bool: the ranked document is judged (known to the truth), for the
        families that read judged status (a callable giving it: built when first read).
    means_only : bool, default False
        Means first (the evaluation and the population bootstrap): a form may then return a
        :class:`~fuzzytruth.uncertain.batch.DeferredBatch` whose law is built on demand (P,
        Success, RR, the exact recall, F and E do).
    fn_counts : callable, optional
        ``fn_counts(rel, k) -> (values, counts, certain)``: the relevant documents outside the
        top ``k`` grouped by probability, as :func:`fn_counts` (which is the default, from
        ``probabilities`` and ``rest``); a caller that knows the groups gives them directly.
    ranked : callable, optional
        ``ranked(rel, k) -> (p, ranks)``: the documents of the top ``k`` (every rank without
        ``k``) that may be relevant at threshold ``rel``, in rank order: their probabilities
        ``(n_rows, m)`` (0 in the padding; or a :class:`Gathered` standing for them) and ranks
        from 1, ``(n, m)`` integers for an ``n`` that divides ``n_rows``: row ``i`` has the
        ranks ``ranks[i % n]`` (rows that repeat ``n`` components, as replicates of them do).
        The means of P, Success, RR and the grouped recall read only these, since a document
        of probability 0 adds nothing to them; default: every rank of ``probabilities`` up to
        ``k``. A caller that knows which ranks hold probability 0 in every row (the population
        bootstrap: a ranked item with no label at or below the target node) leaves them out.

    Examples
    --------
    >>> ctx = ExactInput.from_arrays(np.array([[1.0, 0.5]]), rest_p=np.array([[0.5]]))
    >>> precision_exact(ctx, rel=1, k=2).mean().tolist()
    [0.75]
    """

    def __init__(
        self,
        probabilities: Any,
        lengths: np.ndarray,
        rest: Any,
        expected_size: Any,
        *,
        recall_form: str = "exact",
        judged: np.ndarray | None = None,
        means_only: bool = False,
        fn_counts: Any = None,
        ranked: Any = None,
    ) -> None:
        check_choice("recall_form", recall_form, RECALL_FORMS)
        self._probabilities = probabilities
        self._rest = rest
        self._expected_size = expected_size
        self._cache: dict[Any, Any] = {}
        self.lengths = lengths
        self.recall_form = recall_form
        self._judged = judged
        self.means_only = means_only
        self._fn_counts = fn_counts
        self._ranked = ranked

    @classmethod
    def from_arrays(
        cls,
        p: np.ndarray,
        *,
        lengths: np.ndarray | None = None,
        rest_p: np.ndarray | None = None,
        rest_certain: np.ndarray | None = None,
        recall_form: str = "exact",
    ) -> ExactInput:
        """An input of 0/1-graded documents with the probabilities ``p`` at every threshold."""
        p = _check_p(p)
        rest_p = np.zeros((len(p), 0)) if rest_p is None else np.asarray(rest_p, dtype=float)
        certain = np.zeros(len(p), np.int64) if rest_certain is None else np.asarray(rest_certain)
        return cls(
            lambda rel: p if rel <= 1 else np.zeros_like(p),
            _lengths(p, lengths),
            lambda rel: (rest_p, certain),
            lambda: p.sum(axis=1) + rest_p.sum(axis=1) + certain,
            recall_form=recall_form,
        )

    @property
    def judged(self) -> np.ndarray | None:
        """``(n_rows, depth)`` bool, or None (see the ``judged`` parameter)."""
        if callable(self._judged):
            self._judged = self._judged()
        return self._judged

    @property
    def grouped(self) -> bool:
        """Whether the caller groups the documents by probability (``fn_counts`` given): the
        exact recall's mean is then read from the groups (:func:`recall_mean`), else from the
        laws of TP and FN (:func:`recall_mean_of_laws`)."""
        return self._fn_counts is not None

    def probabilities(self, rel: float) -> np.ndarray:
        """``(n_rows, depth)`` relevance probabilities at threshold ``rel`` (cached)."""
        key = ("p", rel)
        if key not in self._cache:
            self._cache[key] = self._probabilities(rel)
        return self._cache[key]

    def ranked(self, rel: float, k: int | None) -> tuple[np.ndarray, np.ndarray]:
        """``(p, ranks)``: the documents of the top ``k`` that may be relevant at threshold
        ``rel``, in rank order, their probabilities written out (cached; see the ``ranked``
        parameter)."""
        p, ranks = self.ranked_as_given(rel, k)
        if not isinstance(p, Gathered):
            return p, ranks
        key = ("ranked, written out", rel, k)
        if key not in self._cache:
            self._cache[key] = (p.matrix(), ranks)
        return self._cache[key]

    def ranked_as_given(self, rel: float, k: int | None) -> tuple[Any, np.ndarray]:
        """:meth:`ranked`, the probabilities as the ``ranked`` parameter gives them: a matrix,
        or a :class:`Gathered` (cached)."""
        key = ("ranked", rel, k)
        if key not in self._cache:
            if self._ranked is not None:
                self._cache[key] = self._ranked(rel, k)
            else:
                top = _top(self.probabilities(rel), k)
                self._cache[key] = (top, np.arange(1, top.shape[1] + 1)[None, :])
        return self._cache[key]

    def rest(self, rel: float) -> tuple[np.ndarray, np.ndarray]:
        """The relevant documents not retrieved at threshold ``rel`` (cached)."""
        key = ("rest", rel)
        if key not in self._cache:
            self._cache[key] = self._rest(rel)
        return self._cache[key]

    def fn_counts(self, rel: float, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The relevant documents outside the top ``k`` grouped by probability (cached; see
        :func:`fn_counts`)."""
        key = ("fn", rel, k)
        if key not in self._cache:
            if self._fn_counts is not None:
                self._cache[key] = self._fn_counts(rel, k)
            else:
                rest_p, certain = self.rest(rel)
                self._cache[key] = fn_counts(self.probabilities(rel), k, rest_p, certain)
        return self._cache[key]

    def expected_size(self) -> np.ndarray:
        """``(n_rows,)`` expected number of relevant documents."""
        if "size" not in self._cache:
            self._cache["size"] = self._expected_size()
        return self._cache["size"]


def _means_first(ctx: ExactInput, law: functools.partial, mean: Any
                 ) -> DistributionBatch | DeferredBatch:
    """``law(rows)`` of every row, or when ``ctx.means_only`` a :class:`DeferredBatch` of
    ``mean()`` (always defined) that builds ``law(rows)`` of the rows asked for (a partial
    of a module function: an evaluation holding it pickles without building its laws)."""
    every = slice(None)
    if not ctx.means_only:
        return law(every)
    means = mean()
    return DeferredBatch(functools.partial(law, every), means, np.zeros(len(means)), rows=law)


def _rows(lengths: np.ndarray | None, rows: Any) -> np.ndarray | None:
    return None if lengths is None else lengths[rows]


class _OnDemand:
    """A value built by ``source()`` when first asked for (``value()``) and kept; pickled as
    the value (an evaluation sent to a Dask worker carries its inputs, not the context). What a
    deferred law reads of its context: the probabilities of every rank, and the relevant
    documents outside the lists (:func:`_outside`). A caller asking for means only never builds
    them when the means read :meth:`ExactInput.ranked` and the probability groups: the
    population bootstrap, where they are a (replicate, component, rank) and a (replicate,
    component, item) table per block (built eagerly, 1,000 replicates of the deep design of
    ``benchmarks/population.py`` took 13.5 s wall against 3.5 s, 2026-11-28; lists of the
    whole collection, 17.1 s against 3.5 s, 2026-11-29)."""

    __slots__ = ("_source", "_value")

    def __init__(self, source: Any) -> None:
        self._source: Any = source
        self._value: Any = None

    @classmethod
    def of(cls, value: Any) -> _OnDemand:
        """A value already known."""
        out = cls(None)
        out._value = value
        return out

    def value(self) -> Any:
        if self._source is not None:
            self._value, self._source = self._source(), None
        return self._value

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _OnDemand.of, (self.value(),)


def _every_rank(ctx: ExactInput, rel: float) -> _OnDemand:
    """The probabilities of every rank of ``ctx`` at threshold ``rel``, built on demand."""
    return _OnDemand(functools.partial(ctx.probabilities, rel))


def _outside(ctx: ExactInput, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """``(rest_p, certain)`` of ``ctx`` at threshold ``rel``: ``(n_rows, m)`` probabilities of
    the uncertain relevant documents outside the lists and ``(n_rows,)`` counts of the certain
    ones."""
    rest_p, certain = ctx.rest(rel)
    return rest_p, _per_row(certain, len(ctx.lengths))


def _precision_rows(p: _OnDemand, k: int | None, lengths: np.ndarray | None,
                    rows: Any) -> DistributionBatch:
    return precision(p.value()[rows], k=k, lengths=_rows(lengths, rows))


def _success_rows(p: _OnDemand, k: int | None, rows: Any) -> DistributionBatch:
    return success(p.value()[rows], k=k)


def _reciprocal_rank_rows(p: _OnDemand, k: int | None, rows: Any) -> DistributionBatch:
    return reciprocal_rank(p.value()[rows], k=k)


def _recall_rows(p: _OnDemand, k: int | None, outside: _OnDemand,
                 rows: Any) -> DistributionBatch:
    rest_p, certain = outside.value()
    return recall(p.value()[rows], k=k, rest_p=rest_p[rows], rest_certain=certain[rows])


def _f_measure_rows(p: _OnDemand, k: int | None, beta: float, lengths: np.ndarray | None,
                    outside: _OnDemand, rows: Any) -> DistributionBatch:
    rest_p, certain = outside.value()
    return f_measure(p.value()[rows], k=k, beta=beta, lengths=_rows(lengths, rows),
                     rest_p=rest_p[rows], rest_certain=certain[rows])


def _complement_rows(f: DeferredBatch, rows: Any) -> DistributionBatch:
    return _complement(f.rows_of(rows))


def _complement_whole(f: DeferredBatch) -> DistributionBatch:
    return _complement(f.resolve())


def precision_exact(
    ctx: ExactInput, *, rel: float, k: int | None = None
) -> DistributionBatch | DeferredBatch:
    """Family ``P``: :func:`precision` on the context; its mean is linear in the
    probabilities (E[TP] is their sum over the top k)."""
    n = k if k is not None else np.asarray(ctx.lengths, dtype=np.int64)
    return _means_first(
        ctx, functools.partial(_precision_rows, _every_rank(ctx, rel), k, ctx.lengths),
        lambda: np.nan_to_num(divide(ctx.ranked(rel, k)[0].sum(axis=1), n)))


def success_exact(
    ctx: ExactInput, *, rel: float, k: int | None = None
) -> DistributionBatch | DeferredBatch:
    """Family ``Success``: :func:`success` on the context; its mean is
    1 − Π_{i≤k}(1 − p_i)."""
    return _means_first(ctx, functools.partial(_success_rows, _every_rank(ctx, rel), k),
                        lambda: 1.0 - np.prod(1.0 - ctx.ranked(rel, k)[0], axis=1))


def reciprocal_rank_exact(
    ctx: ExactInput, *, rel: float, k: int | None = None
) -> DistributionBatch | DeferredBatch:
    """Family ``RR``: :func:`reciprocal_rank` on the context; its mean is
    Σ_{i≤k} p_i Π_{j<i}(1 − p_j) / i (over the ranks :meth:`ExactInput.ranked` gives: one of
    probability 0 adds nothing and leaves the product as it is)."""
    return _means_first(ctx, functools.partial(_reciprocal_rank_rows, _every_rank(ctx, rel), k),
                        lambda: reciprocal_rank_means(*ctx.ranked_as_given(rel, k)))


def reciprocal_rank_means(p: np.ndarray | Gathered, ranks: np.ndarray) -> np.ndarray:
    """E[RR] of each row, Σ_i p_i Π_{j<i}(1 − p_j) / r_i, over its documents in rank order
    (``p``: ``(n_rows, m)``, or a :class:`Gathered` standing for them; ``ranks``: ``(n, m)``,
    row i's ranks ``ranks[i % n]``; see :class:`ExactInput`'s ``ranked``), in one compiled
    pass per row that stops where what is left could no longer change the sum's bits (a
    document relevant for sure, or the product below 2⁻⁶⁰ of the sum times the rank). A
    document of probability 0 adds 0 and leaves the product as it is, so rows with and without
    such documents give the same bits; a :class:`Gathered` gives those of its matrix, reading
    only the documents before the stop (on lists of the whole collection, most are after it).

    Examples
    --------
    >>> reciprocal_rank_means(np.array([[0.5, 0.0, 1.0, 0.5]]), np.array([[1, 2, 3, 4]]))
    array([0.66666667])
    """
    if not isinstance(p, Gathered):
        p = np.asarray(p, dtype=np.float64)
        if p.ndim != 2:
            raise ValueError(f"p must be 2-D (n_rows, depth); got {p.ndim}-D")
        p = Gathered(p, np.arange(p.shape[1])[None, :])
    table = np.ascontiguousarray(p.table, dtype=np.float64)
    cells = np.ascontiguousarray(p.cells, dtype=np.int64)
    # the compiled pass reads table[r, cells[c, j]] unchecked: every index must be a column
    if table.ndim != 2 or cells.ndim != 2:
        raise ValueError(f"a Gathered's table and cells must be 2-D; got shapes {table.shape} "
                         f"and {cells.shape}")
    if cells.size and (cells.min() < 0 or cells.max() >= table.shape[1]):
        raise ValueError(f"a Gathered's cells must be columns of its table, in [0, "
                         f"{table.shape[1]}); got values from {cells.min()} to {cells.max()}")
    n_rows, m = len(table) * len(cells), cells.shape[1]
    ranks = np.ascontiguousarray(np.atleast_2d(ranks), dtype=np.int64)
    if ranks.shape[1] != m or (n_rows and (not len(ranks) or n_rows % len(ranks))):
        raise ValueError(f"ranks must be (n, {m}) with n dividing {n_rows}; got "
                         f"{ranks.shape}")
    out = np.zeros(n_rows)
    if n_rows and m:
        _compiled()(table, cells, ranks, out)
    return out


def _reciprocal_rank_means_py(table: np.ndarray, cells: np.ndarray, ranks: np.ndarray,
                              out: np.ndarray) -> None:
    """The loop of :func:`reciprocal_rank_means` (compiled by :func:`_compiled`): row ``i``'s
    probabilities read from ``table[i // len(cells)]`` at ``cells[i % len(cells)]``."""
    n_cells, period = cells.shape[0], ranks.shape[0]
    for i in range(out.shape[0]):
        row, cell, rank = table[i // n_cells], cells[i % n_cells], ranks[i % period]
        survive, total = 1.0, 0.0
        for j in range(cell.shape[0]):
            # what is left is at most survive / rank[j]: each of its terms is then below half
            # a unit in the last place of the total, and adding it would leave the total's
            # bits as they are (2^-60 < 2^-54 of any double), so stopping changes nothing
            if survive <= 2.0**-60 * total * rank[j]:
                break
            p = row[cell[j]]
            total += p * survive / rank[j]
            survive *= 1.0 - p
        out[i] = total


@functools.cache
def _compiled() -> Any:
    """:func:`_reciprocal_rank_means_py` compiled by numba at its first use."""
    import numba

    return numba.njit(cache=True, nogil=True)(_reciprocal_rank_means_py)


def recall_exact(
    ctx: ExactInput, *, rel: float, k: int | None = None
) -> DistributionBatch | DeferredBatch:
    """Family ``R``: exact recall, or Santini's printed TP/E|ω| when ``ctx.recall_form`` says."""
    if ctx.recall_form == "expected_size":
        return recall(ctx.probabilities(rel), k=k, expected_size=ctx.expected_size())
    if not ctx.means_only:
        rest_p, certain = ctx.rest(rel)
        return recall(ctx.probabilities(rel), k=k, rest_p=rest_p, rest_certain=certain)
    # the mean without the joint law of (TP, FN); the law on demand
    p = _every_rank(ctx, rel)
    outside = _OnDemand(functools.partial(_outside, ctx, rel))
    mean, undefined = (recall_mean(ctx.ranked(rel, k)[0], None, *ctx.fn_counts(rel, k))
                       if ctx.grouped else recall_mean_of_laws(p.value(), k, *outside.value()))
    return _deferred_joint(p, k, outside, mean, undefined,
                           functools.partial(_recall_rows, p, k, outside))


def _per_row(certain: Any, n_rows: int) -> np.ndarray:
    """The certainly relevant documents outside the list, one count per row."""
    return np.broadcast_to(np.asarray(certain, dtype=np.int64), (n_rows,))


def _deferred_joint(p: _OnDemand, k: int | None, outside: _OnDemand, mean: np.ndarray,
                    undefined: np.ndarray, law: functools.partial) -> DeferredBatch:
    """A :class:`DeferredBatch` of a measure of the joint law of (TP, FN) (recall, F): its
    means, and ``law(rows)`` of the rows asked for, whose atoms are at most TP's counts
    times FN's (the uncertain documents outside the top k, and none), those bounds computed
    when first asked for."""
    return DeferredBatch(functools.partial(law, slice(None)), mean, undefined, rows=law,
                         widths=functools.partial(_joint_widths, p, k, outside))


def _joint_widths(p: _OnDemand, k: int | None, outside: _OnDemand) -> np.ndarray:
    """Each row's bound on the atoms of the joint law of (TP, FN) (:func:`_deferred_joint`)."""
    rest_p, p = outside.value()[0], p.value()
    beyond = np.concatenate([p[:, k:] if k is not None else p[:, :0], rest_p], axis=1)
    return ((_top(p, k) > 0).sum(axis=1) + 1) * (((beyond > 0) & (beyond < 1)).sum(axis=1) + 1)


def f_measure_exact(
    ctx: ExactInput, *, rel: float, beta: float, k: int | None = None
) -> DistributionBatch | DeferredBatch:
    """Family ``F``: :func:`f_measure` on the context (always the exact recall); with
    ``ctx.means_only``, its mean now (:func:`f_measure_mean_of_laws`) and the law on demand."""
    p = _every_rank(ctx, rel)
    outside = _OnDemand(functools.partial(_outside, ctx, rel))
    law = functools.partial(_f_measure_rows, p, k, beta, ctx.lengths, outside)
    if not ctx.means_only:
        return law(slice(None))
    mean, undefined = f_measure_mean_of_laws(p.value(), k, *outside.value(), beta=beta,
                                             lengths=ctx.lengths)
    return _deferred_joint(p, k, outside, mean, undefined, law)


def e_measure_exact(
    ctx: ExactInput, *, rel: float, beta: float, k: int | None = None
) -> DistributionBatch | DeferredBatch:
    """Family ``E``: 1 − F_β."""
    f = f_measure_exact(ctx, rel=rel, beta=beta, k=k)
    if isinstance(f, DistributionBatch):
        return _complement(f)
    return DeferredBatch(functools.partial(_complement_whole, f), 1.0 - f.mean(), f.p_undefined,
                         rows=functools.partial(_complement_rows, f),
                         widths=functools.partial(getattr, f, "widths"))


def _complement(batch: DistributionBatch) -> DistributionBatch:
    return DistributionBatch(1.0 - batch.values, batch.masses, batch.p_undefined)


# ---------------------------------------------------------------------------------------------
# counts and set measures (trec_eval's num_*, Judged, utility)


def point_distribution(values: np.ndarray) -> DistributionBatch:
    values = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(values)
    return DistributionBatch(
        np.where(defined, values, 0.0)[:, None], defined[:, None].astype(np.float64),
        (~defined).astype(np.float64),
    )


def count_distribution(probabilities: np.ndarray, offset: Any = 0) -> DistributionBatch:
    """Exact law of ``offset`` + the number of successes of independent Bernoullis per row.

    ``probabilities`` is ``(n_rows, m)`` (pad with 0); the count is Poisson-binomial.

    Examples
    --------
    >>> count_distribution(np.array([[0.5, 0.5]]), offset=np.array([1])).distribution(0).to_frame()
       value  probability
    0    1.0         0.25
    1    2.0         0.50
    2    3.0         0.25
    """
    probabilities = np.asarray(probabilities, dtype=np.float64)
    pmf = tp_pmf(probabilities)
    values = np.arange(pmf.shape[1], dtype=np.float64)[None, :] + np.asarray(offset)[..., None]
    return DistributionBatch(np.broadcast_to(values, pmf.shape), pmf, np.zeros(len(pmf)))


def num_q_exact(ctx: Any) -> DistributionBatch:
    return point_distribution(np.ones(len(ctx.lengths)))


def num_ret_exact(ctx: Any) -> DistributionBatch:
    return point_distribution(ctx.lengths)


def num_rel_ret_exact(ctx: Any, *, rel: float) -> DistributionBatch:
    return count_distribution(ctx.probabilities(rel))


def num_rel_exact(ctx: Any, *, rel: float) -> DistributionBatch:
    rest_p, certain = ctx.rest(rel)
    return count_distribution(np.concatenate([ctx.probabilities(rel), rest_p], axis=1), certain)


def judged_exact(ctx: Any, *, k: int | None = None) -> DistributionBatch | None:
    """Judged@k does not depend on relevance: a point, when the context knows judged status."""
    judged = getattr(ctx, "judged", None)
    if judged is None:
        return None
    judged = np.asarray(judged, dtype=np.float64)
    top = judged if k is None else judged[:, :k]
    shown = ctx.lengths if k is None else np.minimum(ctx.lengths, k)
    return point_distribution(divide(top.sum(axis=1), shown))


def unjudged_exact(ctx: Any, *, k: int) -> DistributionBatch | None:
    """Unjudged@k does not depend on relevance either: the documents of the top min(k, n) the
    truth does not know, over k; a point, when the context knows judged status."""
    judged = getattr(ctx, "judged", None)
    if judged is None:
        return None
    judged = np.asarray(judged, dtype=bool)[:, :k]
    shown = np.arange(judged.shape[1])[None, :] < np.asarray(ctx.lengths)[:, None]
    return point_distribution((shown & ~judged).sum(axis=1) / k)


def nonrel_judged_ret_exact(ctx: Any, *, rel: float) -> DistributionBatch | None:
    """Judged documents retrieved that are not relevant: Poisson-binomial over the judged
    ranks with probabilities 1 − p (needs ``ctx.judged``)."""
    judged = getattr(ctx, "judged", None)
    if judged is None:
        return None
    return count_distribution(np.where(judged, 1.0 - ctx.probabilities(rel), 0.0))


def utility_exact(
    ctx: Any, *, rel: float, a: float, b: float, c: float, d: float, n_docs: int
) -> DistributionBatch | None:
    """With c = d (the default 0, 0) utility = (a − b)·TP + b·n + d·(n_docs − n): an affine
    map of the Poisson-binomial TP. Otherwise it also depends on the relevant documents not
    retrieved (a joint law): None, and worlds give it."""
    if c != d:
        return None
    counts = count_distribution(ctx.probabilities(rel))
    n = np.asarray(ctx.lengths, dtype=np.float64)[:, None]
    values = (a - b) * counts.values + b * n + d * (n_docs - n)
    return DistributionBatch(values, counts.masses, counts.p_undefined)


def rbp_residual_exact(ctx: Any, *, p: float, when_judged: str = "tail",
                       k: int | None = None) -> Any:
    """The residual does not depend on relevance: a point, when the context knows which
    ranked documents are judged (``ctx.judged``, ``(n_rows, depth)`` bool)."""
    judged = getattr(ctx, "judged", None)
    if judged is None:
        return None
    lengths = np.asarray(ctx.lengths)
    cols = np.arange(judged.shape[1])
    unjudged = ~np.asarray(judged, dtype=bool) & (cols[None, :] < lengths[:, None])
    value = residual(unjudged, lengths, p=p, when_judged=when_judged, k=k)
    return DistributionBatch(value[:, None], np.ones((len(value), 1)), np.zeros(len(value)))
