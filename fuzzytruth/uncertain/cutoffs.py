"""Precision and recall at every cutoff at once: exact summaries without listing the atoms.

The ``P@k`` and ``R@k`` families' exact forms (:mod:`fuzzytruth.uncertain.closed_form`) build
each distribution as a list of atoms: for exact recall, the joint law of (TP, FN) — up to
(k + 1) × |FN| atoms a row, mixed over a query's categories and sorted for the quantiles. A
P–R curve needs that at every cutoff of every list; listing the atoms costs seconds per system
on a small collection. This module computes the same summaries (mean, standard deviation,
equal-tailed interval, probability of being undefined) for every cutoff of every query in one
compiled pass per query, never listing the atoms:

* TP at k is Poisson-binomial over the top k; the laws for k = 0, 1, …, depth come from one
  forward recursion (one Bernoulli factor per rank);
* FN at k (relevant documents below k, and those not retrieved) comes from one *backward*
  recursion: the law at ``depth`` is that of the unretrieved ones, and each step up adds the
  document at rank k. As in the closed form, atoms of the FN law below 1e-15 are dropped and
  the rest renormalised;
* moments are sums over the (TP, FN) grid; a quantile of the mixture over the query's
  categories is found by bisection on the value x, the CDF at x being, for each TP count t, a
  tail sum of the FN law from the smallest FN with t/(t + FN) <= x. Recall values are ratios
  of integers at most the collection size N, so two distinct values differ by at least 1/N²
  and the bisection isolates the quantile's atom exactly (N up to about 6·10⁷). The quantile is
  the smallest value whose CDF reaches the level within 1e-12, as in
  :meth:`DistributionBatch.quantile <fuzzytruth.uncertain.batch.DistributionBatch.quantile>`.

Precision (TP/k, the same values in every component) and Santini's printed recall (TP/E|ω|,
one denominator per component) have few atoms; their mixtures are summed or sorted directly.

The results equal the families' exact forms mixed over the categories (summaries of
``DistributionBatch``) to rounding: a test checks every summary on random collections.

Examples
--------
One query, one category; ranks 1 and 2 relevant with probability 1 and 0.5, a third document
not retrieved relevant with probability 0.5. At cutoff 1, TP = 1 and FN is 0, 1 or 2 with
probabilities 1/4, 1/2, 1/4, so E[recall] = 1/4 + 1/4 + 1/12:

>>> s = cutoff_summaries(np.array([[1.0, 0.5]]), np.array([0, 1]), np.array([1.0]),
...                      np.array([[0.5]]), np.array([0]), np.array([2.0]))
>>> s["precision"]["mean"].tolist(), s["recall"]["mean"].round(4).tolist()
([[1.0, 0.75]], [[0.5833, 0.7917]])
"""

from __future__ import annotations

import functools

import numpy as np

from fuzzytruth._validation import check_flag, tail_levels
from fuzzytruth.uncertain.closed_form import _FN_TOLERANCE, _fn_pmf

__all__ = ["SUMMARIES", "TRUTH_COLUMNS", "cutoff_summaries"]

#: The summaries computed for each (query, cutoff) and measure.
SUMMARIES = ("mean", "std", "ci_low", "ci_high", "p_undefined")

#: The table column of each summary of one value's spread over the truths, as
#: :meth:`fuzzytruth.evaluation.Evaluation.to_frame` names it (``ci_low``/``ci_high`` are
#: intervals over queries or items wherever a table has them).
TRUTH_COLUMNS = {"std": "truth_std", "ci_low": "truth_low", "ci_high": "truth_high"}

_TOLERANCE = 1e-12  # CDF within this of the level counts as reaching it (as DistributionBatch)
_NONE = 2**62  # an FN count no law reaches


def cutoff_summaries(
    p: np.ndarray,
    comp_start: np.ndarray,
    weight: np.ndarray,
    rest_p: np.ndarray,
    rest_certain: np.ndarray,
    expected_size: np.ndarray,
    *,
    recall_form: str = "exact",
    fill_undefined: bool = True,
    undefined_value: float = 0.0,
    confidence_level: float = 0.95,
) -> dict[str, dict[str, np.ndarray]]:
    """Exact summaries of precision and recall at every cutoff of every query.

    Parameters
    ----------
    p : numpy.ndarray
        ``(n_components, depth)`` P(relevant) of the document at each rank, one row per
        (query, category) component, rows of one query contiguous; 0 in the padding.
    comp_start : numpy.ndarray
        ``(n_queries + 1,)`` the components of query i are rows
        ``comp_start[i]:comp_start[i + 1]`` (at least one each).
    weight : numpy.ndarray
        ``(n_components,)`` mixture weights; those of a query sum to 1.
    rest_p, rest_certain
        The relevant documents not retrieved: probabilities of the uncertain ones
        ``(n_components, m)`` (0-padded) and the count of the certain ones (exact recall).
    expected_size : numpy.ndarray
        ``(n_components,)`` E|relevant| (``recall_form="expected_size"``).
    recall_form : {"exact", "expected_size"}
        TP/(TP + FN), or TP/E|ω| as Santini prints it.
    fill_undefined : bool
        Whether recall without any relevant document scores ``undefined_value`` (True), or
        the summaries are conditional on recall being defined (False): the ``undefined``
        rule's decision (:meth:`Undefined.fills <fuzzytruth.evaluation.undefined.Undefined.fills>`).
    undefined_value : {0.0, 1.0}
        The value of an undefined recall when ``fill_undefined``.
    confidence_level : float
        Coverage of the equal-tailed interval.

    Returns
    -------
    dict
        ``{"precision": {...}, "recall": {...}}``, each mapping the names of
        :data:`SUMMARIES` to ``(n_queries, depth)`` arrays (column k − 1 is cutoff k).
        ``p_undefined`` is the probability before the ``undefined`` rule applies.
    """
    fill_undefined = check_flag("fill_undefined", fill_undefined)
    p = np.ascontiguousarray(p, dtype=float)
    comp_start = np.ascontiguousarray(comp_start, dtype=np.int64)
    n_queries = len(comp_start) - 1
    depth = p.shape[1]
    if np.any(np.diff(comp_start) < 1):
        raise ValueError("every query needs at least one component")
    if undefined_value not in (0.0, 1.0):  # a ratio of integers: the bisection stays exact
        raise ValueError(f"undefined_value must be 0 or 1; got {undefined_value!r}")
    exact = recall_form == "exact"
    if exact:
        window, offset = _fn_pmf(p, None, np.asarray(rest_p, dtype=float), rest_certain)
    else:  # unused by the kernel: the expected-size form has no FN
        window, offset = np.ones((len(p), 1)), np.zeros(len(p), dtype=np.int64)
    out = np.full((9, n_queries, depth), np.nan)
    if depth:
        _kernel()(
            p,
            comp_start,
            np.ascontiguousarray(weight, dtype=float),
            np.ascontiguousarray(window),
            np.ascontiguousarray(offset, dtype=np.int64),
            np.ascontiguousarray(expected_size, dtype=float),
            exact,
            bool(fill_undefined),
            float(undefined_value),
            np.array(tail_levels(confidence_level)),  # the one rule for interval ends
            out,
        )
    names = SUMMARIES[:4]
    precision = {name: out[i] for i, name in enumerate(names)}
    precision["p_undefined"] = np.zeros((n_queries, depth))
    recall = {name: out[4 + i] for i, name in enumerate(names)}
    recall["p_undefined"] = out[8]
    return {"precision": precision, "recall": recall}


# --------------------------------------------------------------------------- compiled kernel
# The functions below are compiled together by numba (``_kernel``); their Python bodies are
# the reference the compiled code follows.


def _first_at_least(t: int, x: float) -> int:  # pragma: no cover - compiled
    """Smallest FN count f >= 0 with t / (t + f) <= x, for t >= 1 (the float division of the
    closed form, so an atom compares as the closed form's value does); a count beyond any FN
    law (``_NONE``) when there is none."""
    if x >= 1.0:
        return 0
    if x <= 0.0:
        return _NONE
    guess = t * (1.0 - x) / x
    if guess > _NONE:
        return _NONE
    g = int(np.ceil(guess))
    while g > 0 and t / (t + g - 1.0) <= x:
        g -= 1
    while t / (t + g + 0.0) > x:
        g += 1
    return g


def _ratio_cdf(
    x: float, nc: int, c0: int, k: int, weight: np.ndarray, tp: np.ndarray, tlo: np.ndarray,
    thi: np.ndarray, suffix: np.ndarray, first: np.ndarray, length: np.ndarray, fill: float,
    undefined_mass: float,
) -> float:  # pragma: no cover - compiled
    """Unnormalised P(TP/(TP + FN) <= x), the undefined atom counted at ``fill`` when its mass
    ``undefined_mass`` is given."""
    total = undefined_mass if fill <= x else 0.0
    for j in range(nc):
        w = weight[c0 + j]
        f0, n = first[j], length[j]
        acc = 0.0
        for t in range(tlo[j, k], thi[j, k] + 1):
            mass = tp[j, k, t]
            if mass == 0.0:
                continue
            if t == 0:
                start = max(1 - f0, 0)  # value 0 for every defined FN (FN >= 1)
            else:
                start = max(_first_at_least(t, x) - f0, 0)
            if start < n:
                acc += mass * suffix[j, start]
        total += w * acc
    return total


def _ratio_atom_below(
    x: float, nc: int, k: int, tp: np.ndarray, tlo: np.ndarray, thi: np.ndarray,
    fn: np.ndarray, first: np.ndarray, length: np.ndarray, fill: float, undefined_mass: float,
) -> float:  # pragma: no cover - compiled
    """The largest value <= x of an atom of positive mass (-1 when there is none)."""
    best = fill if (undefined_mass > 0.0 and fill <= x) else -1.0
    for j in range(nc):
        f0, n = first[j], length[j]
        for t in range(tlo[j, k], thi[j, k] + 1):
            if tp[j, k, t] == 0.0:
                continue
            start = max(1 - f0, 0) if t == 0 else max(_first_at_least(t, x) - f0, 0)
            while start < n and fn[j, start] == 0.0:
                start += 1
            if start < n:
                value = t / (t + f0 + start + 0.0) if t > 0 else 0.0
                if value <= x and value > best:
                    best = value
    return best


def _kernel_py(
    p: np.ndarray, comp_start: np.ndarray, weight: np.ndarray, rest: np.ndarray,
    rest_offset: np.ndarray, size: np.ndarray, exact: bool, zero: bool, fill: float,
    levels: np.ndarray, out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``out[0:4]`` precision mean/std/low/high, ``out[4:8]`` recall's, ``out[8]`` recall's
    p_undefined, each ``(n_queries, depth)``."""
    n_queries = len(comp_start) - 1
    depth = p.shape[1]
    max_c = 0
    for i in range(n_queries):
        max_c = max(max_c, comp_start[i + 1] - comp_start[i])
    width = rest.shape[1] + depth + 1
    tp = np.zeros((max_c, depth + 1, depth + 1))
    tlo = np.zeros((max_c, depth + 1), dtype=np.int64)
    thi = np.zeros((max_c, depth + 1), dtype=np.int64)
    state = np.zeros((max_c, width))  # the FN law, untrimmed, from its offset
    state_len = np.zeros(max_c, dtype=np.int64)
    state_off = np.zeros(max_c, dtype=np.int64)
    fn = np.zeros((max_c, width))  # trimmed and renormalised, from ``first``
    suffix = np.zeros((max_c, width + 1))
    first = np.zeros(max_c, dtype=np.int64)
    length = np.zeros(max_c, dtype=np.int64)
    mixed = np.zeros(depth + 1)
    atoms_v = np.zeros(max_c * (depth + 1) + 1)
    atoms_m = np.zeros(max_c * (depth + 1) + 1)
    for qi in range(n_queries):
        c0 = comp_start[qi]
        nc = comp_start[qi + 1] - c0
        for j in range(nc):
            c = c0 + j
            tp[j, 0, :] = 0.0
            tp[j, 0, 0] = 1.0
            tlo[j, 0] = 0
            thi[j, 0] = 0
            for k in range(1, depth + 1):
                pk = p[c, k - 1]
                lo, hi = tlo[j, k - 1], thi[j, k - 1]
                prev = tp[j, k - 1]
                cur = tp[j, k]
                cur[:] = 0.0
                if pk == 0.0:
                    cur[lo : hi + 1] = prev[lo : hi + 1]
                    tlo[j, k], thi[j, k] = lo, hi
                elif pk == 1.0:
                    cur[lo + 1 : hi + 2] = prev[lo : hi + 1]
                    tlo[j, k], thi[j, k] = lo + 1, hi + 1
                else:
                    qk = 1.0 - pk
                    cur[lo] = prev[lo] * qk
                    for t in range(lo + 1, hi + 1):
                        cur[t] = prev[t] * qk + prev[t - 1] * pk
                    cur[hi + 1] = prev[hi] * pk
                    tlo[j, k], thi[j, k] = lo, hi + 1
            if exact:
                state[j, :] = 0.0
                state[j, : rest.shape[1]] = rest[c]
                state_len[j] = rest.shape[1]
                state_off[j] = rest_offset[c]
        for k in range(depth, 0, -1):
            # ---- precision: TP/k, the same values in every component
            lo_all, hi_all = depth + 1, -1
            for j in range(nc):
                lo_all = min(lo_all, tlo[j, k])
                hi_all = max(hi_all, thi[j, k])
            mixed[lo_all : hi_all + 1] = 0.0
            for j in range(nc):
                w = weight[c0 + j]
                for t in range(tlo[j, k], thi[j, k] + 1):
                    mixed[t] += w * tp[j, k, t]
            total = 0.0
            ref = -1.0
            m1 = 0.0
            m2 = 0.0
            for t in range(lo_all, hi_all + 1):
                m = mixed[t]
                if m > 0.0:
                    v = t / k
                    if ref < 0.0:
                        ref = v
                    total += m
                    m1 += (v - ref) * m
                    m2 += (v - ref) * ((v - ref) * m)
            _write_moments(out, 0, qi, k, ref, total, m1, m2)
            for li in range(2):
                target = levels[li] - _TOLERANCE
                cum = 0.0
                value = -1.0
                for t in range(lo_all, hi_all + 1):
                    m = mixed[t]
                    if m > 0.0:
                        cum += m
                        value = t / k
                        if cum / total >= target:
                            break
                out[2 + li, qi, k - 1] = value
            # ---- recall
            if not exact:
                n_atoms = 0
                undefined_mass = 0.0
                for j in range(nc):
                    w = weight[c0 + j]
                    s = size[c0 + j]
                    if s <= 0.0:
                        undefined_mass += w
                        continue
                    for t in range(tlo[j, k], thi[j, k] + 1):
                        m = w * tp[j, k, t]
                        if m > 0.0:
                            atoms_v[n_atoms] = t / s
                            atoms_m[n_atoms] = m
                            n_atoms += 1
                out[8, qi, k - 1] = undefined_mass
                if zero and undefined_mass > 0.0:
                    atoms_v[n_atoms] = fill
                    atoms_m[n_atoms] = undefined_mass
                    n_atoms += 1
                _sorted_summaries(atoms_v[:n_atoms], atoms_m[:n_atoms], levels, out, qi, k)
            else:
                undefined_mass = 0.0
                total = 0.0
                ref = -1.0
                m1 = 0.0
                m2 = 0.0
                for j in range(nc):
                    # trim the FN law at cutoff k to its atoms above the tolerance, renormalise;
                    # relative to P(FN > 0) when that is small (closed_form._trim's rule)
                    tolerance = _FN_TOLERANCE
                    if state_off[j] == 0:
                        beyond = 0.0
                        for i in range(1, state_len[j]):
                            beyond += state[j, i]
                        tolerance *= min(beyond, 1.0)
                    lo_f, hi_f = -1, -1
                    for i in range(state_len[j]):
                        if state[j, i] > tolerance:
                            if lo_f < 0:
                                lo_f = i
                            hi_f = i
                    n = hi_f - lo_f + 1
                    z = 0.0
                    for i in range(n):
                        z += state[j, lo_f + i]
                    suffix[j, n] = 0.0
                    for i in range(n - 1, -1, -1):
                        fn[j, i] = state[j, lo_f + i] / z
                        suffix[j, i] = suffix[j, i + 1] + fn[j, i]
                    first[j] = state_off[j] + lo_f
                    length[j] = n
                    w = weight[c0 + j]
                    f0 = first[j]
                    for t in range(tlo[j, k], thi[j, k] + 1):
                        mt = w * tp[j, k, t]
                        if mt == 0.0:
                            continue
                        for i in range(n):
                            m = mt * fn[j, i]
                            if m == 0.0:
                                continue
                            denominator = t + f0 + i
                            if denominator == 0:
                                undefined_mass += m
                                continue
                            v = t / (denominator + 0.0)
                            if ref < 0.0:
                                ref = v
                            total += m
                            m1 += (v - ref) * m
                            m2 += (v - ref) * ((v - ref) * m)
                out[8, qi, k - 1] = undefined_mass
                counted = undefined_mass if zero else 0.0
                if counted > 0.0:
                    if ref < 0.0:
                        ref = fill
                    total += counted
                    m1 += (fill - ref) * counted
                    m2 += (fill - ref) * ((fill - ref) * counted)
                if total > 0.0:
                    _write_moments(out, 4, qi, k, ref, total, m1, m2)
                    for li in range(2):
                        target = levels[li] - _TOLERANCE
                        out[6 + li, qi, k - 1] = _ratio_quantile(
                            target, total, nc, c0, k, weight, tp, tlo, thi, fn, suffix, first,
                            length, fill, counted,
                        )
                # ---- one rank up: the document at rank k joins FN
                for j in range(nc):
                    pk = p[c0 + j, k - 1]
                    if pk == 0.0:
                        continue
                    if pk == 1.0:
                        state_off[j] += 1
                        continue
                    qk = 1.0 - pk
                    n = state_len[j]
                    state[j, n] = state[j, n - 1] * pk
                    for i in range(n - 1, 0, -1):
                        state[j, i] = state[j, i] * qk + state[j, i - 1] * pk
                    state[j, 0] *= qk
                    state_len[j] = n + 1


def _ratio_quantile(
    target: float, total: float, nc: int, c0: int, k: int, weight: np.ndarray, tp: np.ndarray,
    tlo: np.ndarray, thi: np.ndarray, fn: np.ndarray, suffix: np.ndarray, first: np.ndarray,
    length: np.ndarray, fill: float, counted: float,
) -> float:  # pragma: no cover - compiled
    """Smallest atom x with CDF(x) >= target (the largest atom when rounding keeps the CDF
    below it), by bisection on x; ``total`` normalises the CDF."""

    def reached(x: float) -> bool:
        mass = _ratio_cdf(x, nc, c0, k, weight, tp, tlo, thi, suffix, first, length, fill,
                          counted)
        return mass > 0.0 and mass / total >= target

    if reached(0.0):
        return _ratio_atom_below(0.0, nc, k, tp, tlo, thi, fn, first, length, fill, counted)
    # distinct values t/n differ by at least 1/n_max²: a narrower bracket holds one of them
    n_max = 1.0
    for j in range(nc):
        n_max = max(n_max, thi[j, k] + first[j] + length[j] + 0.0)
    resolution = 0.5 / (n_max * n_max)
    lo, hi = 0.0, 1.0
    if reached(1.0):
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            if hi - lo < resolution or mid <= lo or mid >= hi:
                break
            if reached(mid):
                hi = mid
            else:
                lo = mid
    return _ratio_atom_below(hi, nc, k, tp, tlo, thi, fn, first, length, fill, counted)


def _write_moments(
    out: np.ndarray, at: int, qi: int, k: int, ref: float, total: float, m1: float, m2: float
) -> None:  # pragma: no cover - compiled
    """Mean and std into ``out[at]``, ``out[at + 1]`` from moments about the reference value
    ``ref`` (unnormalised: ``total`` is the mass), so a constant row has exactly 0 spread.
    The kernels add ``d * (d * mass)``, not ``d ** 2 * mass``: a recall of 1e200 (``1 / p``
    under ``recall_form="expected_size"``) with mass 1e-200 would overflow as a square."""
    m1 /= total
    m2 /= total
    out[at, qi, k - 1] = ref + m1
    out[at + 1, qi, k - 1] = np.sqrt(max(m2 - m1 * m1, 0.0))


def _sorted_summaries(
    values: np.ndarray, masses: np.ndarray, levels: np.ndarray, out: np.ndarray, qi: int, k: int
) -> None:  # pragma: no cover - compiled
    """Recall's mean, std and quantiles from listed atoms (few: one per component and TP)."""
    n = len(values)
    if n == 0:
        return
    total = 0.0
    ref = values[0]
    m1 = 0.0
    m2 = 0.0
    for i in range(n):
        total += masses[i]
        m1 += (values[i] - ref) * masses[i]
        m2 += (values[i] - ref) * ((values[i] - ref) * masses[i])
    _write_moments(out, 4, qi, k, ref, total, m1, m2)
    order = np.argsort(values, kind="mergesort")
    for li in range(2):
        target = levels[li] - _TOLERANCE
        cum = 0.0
        value = values[order[n - 1]]
        for i in range(n):
            cum += masses[order[i]]
            if cum / total >= target:
                value = values[order[i]]
                break
        out[6 + li, qi, k - 1] = value


@functools.cache
def _kernel() -> object:
    """The kernel compiled by numba at its first use (numba is slow to import)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    global _first_at_least, _ratio_cdf, _ratio_atom_below, _ratio_quantile
    global _sorted_summaries, _write_moments
    _write_moments = jit(_write_moments)
    _first_at_least = jit(_first_at_least)
    _ratio_cdf = jit(_ratio_cdf)
    _ratio_atom_below = jit(_ratio_atom_below)
    _ratio_quantile = jit(_ratio_quantile)
    _sorted_summaries = jit(_sorted_summaries)
    return jit(_kernel_py)
