"""Plausibilities from partial rankings with ties: IRN and PrIRN (Stutz et al. 2023).

IRN (inverse rank normalisation). For each reader, a class in tie-group g (0-based) gets
1/(1 + g) and an unranked class 0; the scores are summed over the item's readers and normalised
to 1 per item. It is deterministic: its worlds have no uncertainty of their own (plausibility
worlds are IRN itself; crisp labels are drawn from it like annotator shares).

PrIRN. The plausibilities of item i are drawn from Dirichlet(T · IRN_i + α) over all classes:
the temperature T plays the part of the readers' reliability (higher: closer to IRN), and α > 0
gives every unranked class some plausibility. The posterior (and so the membership) is the
Dirichlet mean (T · IRN_i + α) / (T + K α).

What PrIRN's sampler adds. Items are independent, so one crisp label per item per world drawn
from that world's plausibilities has exactly the law of a draw from the mean: the Dirichlet
changes nothing for measures computed from one crisp label per item (retrieval worlds), and
:meth:`PrIRNFit.sample_labels` draws from the mean directly (the same law; not the categorical
draw from the particular vectors :meth:`~PrIRNFit.sample_plausibilities` returns). It matters
for soft measures computed from each world's plausibility vectors, and for Stutz et al.'s
uncertainty-adjusted measures, which take each sample's *top-1* class
(:meth:`PrIRNFit.sample_top1`): that label's law is not the mean's (at high temperature it
concentrates on IRN's top class, at low temperature it spreads).

How the Dirichlet is drawn. With α > 0 an item's many unranked classes are drawn through their
maximum (:class:`_Ranked`), which compares Gamma draws as doubles; an item whose largest ranked
concentration is below :data:`SPARSE_MIN_SHAPE` (a small temperature) has draws below the
smallest double too often for that, and is drawn whole in logs, every class one keyed Gamma
draw, scaled by the largest before the sum (:func:`fuzzytruth._random.dirichlet`): the same
law, at the cost of one draw per class. With α = 0 only the ranked classes are drawn, in logs.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fuzzytruth._random import dirichlet, gammas, gammas_below, uniforms, unit_keys
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._threads import by_rows
from fuzzytruth._validation import check_number
from fuzzytruth.annotations import Annotations
from fuzzytruth.io.rankings import Rankings
from fuzzytruth.truth.models.base import FittedTruth, as_seed, as_worlds

__all__ = ["IRN", "IRNFit", "PrIRN", "PrIRNFit", "irn"]

_PLAUSIBILITY_STREAM = 0x5052524E  # "PRRN": Gamma draws of the ranked classes
_REST_MAX_STREAM = 0x50524D58  # "PRMX": the maximum of the unranked block
_REST_WHICH_STREAM = 0x50525748  # "PRWH": which unranked class holds it
_REST_STREAM = 0x50525253  # "PRRS": the other unranked classes, below the maximum
_DENSE_STREAM = 0x50524453  # "PRDS": every class of an item drawn in logs (_dense_items)

SMALLEST_CONCENTRATION = 1e-300
"""The smallest temperature, and positive α, that PrIRN takes. A Gamma draw of shape a is kept in
logs as log G(a + 1) + log(U) / a, with log U >= -37.4 (a keyed uniform is at least 2**-54):
finite for a above about 2e-307, and an item's largest concentration is at least T / n_classes.
Below it (a subnormal temperature or α) the draws were -inf, and the samplers hung (SciPy's
inverse incomplete gamma is NaN at a subnormal shape) or failed with an IndexError."""

SPARSE_MIN_SHAPE = 0.1
"""The smallest largest ranked concentration of an item drawn by the sparse sampler when α > 0
(:class:`_Ranked`); an item below it is drawn whole in logs (:attr:`PrIRNFit._dense_items`).
The sparse sampler compares Gamma draws as doubles: the ranked maximum B of shape a is below
the smallest double with probability about (2.2e-308)^a, 2e-31 at a = 0.1, but about 1 / 1,000
at a = 0.01; then B was 0, the row's total a subnormal whose inverse is infinite, and the
plausibility row NaN."""


def irn(rankings: Rankings) -> np.ndarray:
    """``(n_items, n_classes)`` IRN plausibilities of ``rankings`` (columns:
    ``rankings.classes``).

    Examples
    --------
    Reader 1 ranks a, then b and c tied; reader 2 names c: a gets 1, b 1/2, c 1/2 + 1.

    >>> r = Rankings.from_selectors([[[[0], [1, 2]], [[2]]]], classes=["a", "b", "c"])
    >>> irn(r).round(3).tolist()
    [[0.333, 0.167, 0.5]]
    """
    rankings = as_rankings(rankings, "irn")
    item, _, label, group = rankings.codes()
    k = len(rankings.classes)
    scores = np.bincount(item * k + label, weights=1.0 / (1.0 + group),
                         minlength=rankings.n_items * k).reshape(rankings.n_items, k)
    return scores / scores.sum(axis=1, keepdims=True)


def as_rankings(data: Rankings | Annotations, model: str) -> Rankings:
    """``data`` if it holds rankings, else a ValueError naming the model."""
    if isinstance(data, Rankings):
        return data
    kind = type(data).__name__
    if kind == "Annotations":
        why = (", which holds unranked labels: use an annotator model (shares, dawid-skene, "
               "one-coin, mace) for them")
    elif isinstance(data, pd.DataFrame):
        why = (": a table of (item, reader, class, rank group) rows is Rankings.from_frame(...) "
               "of it")
    else:
        why = ""
    raise ValueError(
        f"{model} needs partial rankings (fuzzytruth.io.rankings.Rankings, e.g. from "
        f"read_rankings); got {kind}{why}"
    )


@dataclass(frozen=True)
class IRN:
    """Inverse rank normalisation (see the module docstring).

    Examples
    --------
    >>> r = Rankings.from_selectors([[[[0], [1]], [[1]]], [[[2]]]], classes=["a", "b", "c"])
    >>> IRN().fit(r).posterior_frame().round(3)
    class        a      b    c
    item_id
    0        0.4  0.6  0.0
    1        0.0  0.0  1.0
    """

    name: ClassVar[str] = "irn"

    def fit(self, rankings: Rankings) -> IRNFit:
        """IRN of ``rankings`` (Annotations without ranks: a ValueError)."""
        rankings = as_rankings(rankings, self.name)
        return IRNFit(name=self.name, settings=asdict(self), taxonomy=rankings.taxonomy,
                      items=rankings.items, classes=rankings.classes, posterior=irn(rankings))


@dataclass(frozen=True, eq=False, repr=False)
class IRNFit(FittedTruth):
    """Fitted IRN: a point posterior (no uncertainty of its own)."""


@dataclass(frozen=True)
class PrIRN:
    """Probabilistic IRN: Dirichlet(T · IRN + α) plausibilities (see the module docstring).

    Parameters
    ----------
    temperature : float
        T > 0, the readers' reliability (Stutz et al. use 1 to 50); at least
        :data:`SMALLEST_CONCENTRATION` (1e-300), and T + n_classes · α a finite double.
    alpha : float
        α >= 0, the concentration every class gets (Stutz et al.: 0.01); 0 or at least
        :data:`SMALLEST_CONCENTRATION`. With α = 0 unranked classes have plausibility 0 in
        every world.

    Examples
    --------
    >>> r = Rankings.from_selectors([[[[0], [1]], [[1]]]], classes=["a", "b", "c"])
    >>> fit = PrIRN(temperature=10, alpha=0.01).fit(r)
    >>> fit.posterior.round(4).tolist()   # (10 * [0.4, 0.6, 0] + 0.01) / 10.03
    [[0.3998, 0.5992, 0.001]]
    >>> fit.sample_plausibilities(2, seed=0).shape
    (2, 1, 3)
    """

    temperature: float = 10.0
    alpha: float = 0.01

    name: ClassVar[str] = "prirn"

    def __post_init__(self) -> None:
        for arg, strict in (("temperature", True), ("alpha", False)):
            value = check_number(arg, getattr(self, arg), strict=strict)
            if 0 < value < SMALLEST_CONCENTRATION:
                allowed = "0 or " if arg == "alpha" else ""
                raise ValueError(
                    f"{arg} must be {allowed}a finite number >= {SMALLEST_CONCENTRATION:g} (below "
                    f"it the Dirichlet's Gamma draws leave the doubles even in logs); got "
                    f"{getattr(self, arg)!r}"
                )
            object.__setattr__(self, arg, value)

    def fit(self, rankings: Rankings) -> PrIRNFit:
        """PrIRN of ``rankings`` (Annotations without ranks: a ValueError)."""
        rankings = as_rankings(rankings, self.name)
        plausibility = irn(rankings)
        with np.errstate(over="ignore"):  # a total past the largest double is refused below
            concentration = self.temperature * plausibility + self.alpha
            total = concentration.sum(axis=1)
        if not np.isfinite(total).all():
            raise ValueError(
                "temperature + n_classes * alpha must be a finite double (the total "
                f"concentration of each case's Dirichlet); got temperature={self.temperature:g}, "
                f"alpha={self.alpha:g} with {len(rankings.classes)} classes"
            )
        return PrIRNFit(
            name=self.name, settings=asdict(self), taxonomy=rankings.taxonomy,
            items=rankings.items, classes=rankings.classes,
            posterior=concentration / concentration.sum(axis=1, keepdims=True),
            irn=plausibility, concentration=concentration,
        )


@dataclass(frozen=True, eq=False, repr=False)
class PrIRNFit(FittedTruth):
    """Fitted PrIRN.

    Attributes
    ----------
    irn : numpy.ndarray
        ``(n_items, n_classes)`` the IRN plausibilities.
    concentration : numpy.ndarray
        ``(n_items, n_classes)`` the Dirichlet parameters T · IRN + α.
    """

    irn: np.ndarray = None  # type: ignore[assignment]
    concentration: np.ndarray = None  # type: ignore[assignment]

    _point_posterior: ClassVar[bool] = False
    #: crisp labels from the Dirichlet mean: the law of a draw from each world's vector
    _labels_from_mean: ClassVar[bool] = True

    @cached_property
    def _keys(self) -> np.ndarray:
        """``(n_items, n_classes)`` keys of the (item, class) components."""
        class_keys = unit_keys(np.array([repr(c) for c in self.classes], dtype=object))
        with np.errstate(over="ignore"):
            return (self.item_keys[:, None] * np.uint64(0x9E3779B97F4A7C15)) ^ class_keys

    @cached_property
    def _ranked(self) -> _Ranked:
        return _Ranked.of(self.irn, self.concentration, self._keys)

    def _bytes_per_world(self) -> float:
        """One plausibility matrix, written in place, and the draws (:meth:`_draw_bytes`)."""
        return 8.0 * len(self.items) * len(self.classes) + self._draw_bytes()

    def _draw_bytes(self) -> float:
        """Bytes per world of the draws both samplers make: the ranked classes' Gamma draws,
        the per-item maxima, and the items drawn whole in logs."""
        return 8.0 * (3 * len(self._ranked.item) + 8 * len(self.items)
                      + 2 * len(self._dense_items) * len(self.classes))

    @cached_property
    def _dense_items(self) -> np.ndarray:
        """The items drawn whole in logs: with α > 0 (the sparse sampler's comparisons as
        doubles), those whose largest ranked concentration is below :data:`SPARSE_MIN_SHAPE`.
        Decided from each item's own concentrations, not from whether another item has
        unranked classes (which picks the sampler of the others), so an item's worlds are the
        same whatever items are fitted beside it."""
        ranked = self._ranked
        if self.settings["alpha"] == 0:
            return np.zeros(0, dtype=np.int64)
        largest = np.maximum.reduceat(ranked.shape, ranked.starts)
        return np.flatnonzero(largest < SPARSE_MIN_SHAPE)

    def _dense_block(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        """``(n_worlds, n_dense_items, n_classes)`` the plausibilities of :attr:`_dense_items`:
        keyed Gamma draws of every class in logs, normalised after scaling by the largest."""
        items = self._dense_items
        return dirichlet(seed, _DENSE_STREAM, self._keys[items], self.concentration[items],
                         worlds)

    @cached_property
    def _rest_shape(self) -> np.ndarray:
        """``(n_items, n_classes)`` α on the unranked classes, 0 on the ranked ones."""
        return np.where(self.irn > 0, 0.0, self.settings["alpha"])

    def _plausibility_block(self, seed: int, worlds: np.ndarray) -> np.ndarray:
        ranked, alpha = self._ranked, self.settings["alpha"]
        drawn, best, wins, which, tail = self._draw(seed, worlds)
        out = np.zeros((len(worlds), *self.concentration.shape))
        out[:, ranked.item, ranked.column] = drawn
        if not (alpha > 0 and ranked.rest.any()):
            out /= out.sum(axis=2, keepdims=True)
        else:
            from scipy.special import gammainccinv  # imported where used: start-up

            top = gammainccinv(alpha, np.where(ranked.rest > 0, tail, 0.5))
            # the inverse agrees with the comparison that decided `wins` up to rounding: keep it
            # on the decided side so that argmax(plausibilities) is sample_top1, exactly
            top = np.where(wins, np.maximum(top, np.nextafter(best, np.inf)),
                           np.minimum(top, np.nextafter(best, 0)))
            holder = np.where(ranked.rest > 0, which, -1)
            w_idx, i_idx = np.nonzero(holder >= 0)
            out[w_idx, i_idx, holder[w_idx, i_idx]] = top[w_idx, i_idx]
            # the other unranked classes below the maximum, and every row normalised, in one
            # pass
            gammas_below(seed, _REST_STREAM, self._keys, self._rest_shape, top, worlds, out,
                         skip=holder, normalise=True)
        if len(self._dense_items):  # small concentrations: those items drawn in logs
            out[:, self._dense_items] = self._dense_block(seed, worlds)
        return out

    def _draw(self, seed: int, worlds: np.ndarray):
        """The ranked components' Gamma draws, their maximum per item, whether the unranked
        block's maximum beats it, which unranked class holds that maximum, and the upper-tail
        probability that fixes it (see :class:`_Ranked`)."""
        ranked, alpha = self._ranked, self.settings["alpha"]
        if alpha == 0 or not ranked.rest.any():
            # the ranked classes alone: drawn in logs and scaled so that each item's largest
            # is 1 (at a small temperature every draw of an item can be below the smallest
            # double, which left 0/0)
            drawn = gammas(seed, _PLAUSIBILITY_STREAM, ranked.keys, ranked.shape, worlds,
                           log=True)
            drawn -= ranked.maxima(drawn)[0][:, ranked.item]
            np.exp(drawn, out=drawn)
            shape = (len(worlds), len(ranked.starts))
            return (drawn, np.ones(shape), np.zeros(shape, dtype=bool),
                    np.zeros(shape, dtype=np.int64), np.ones(shape))
        drawn = gammas(seed, _PLAUSIBILITY_STREAM, ranked.keys, ranked.shape, worlds)
        best = ranked.maxima(drawn)[0]
        shape = best.shape
        m = ranked.rest.astype(float)
        u = uniforms(seed, _REST_MAX_STREAM, self.item_keys, worlds)
        with np.errstate(divide="ignore"):
            tail = -np.expm1(np.log(u) / np.where(m > 0, m, 1.0))  # P(one unranked > max)
        wins = (m > 0) & below_upper_tail(tail, alpha, best)
        pick = np.floor(uniforms(seed, _REST_WHICH_STREAM, self.item_keys, worlds) * m)
        return drawn, best, wins, ranked.unranked_class(pick.astype(np.int64)), tail

    def sample_top1(
        self,
        worlds: int | np.ndarray,
        *,
        seed: int | np.random.Generator | None,
        memory_budget: float = MEMORY_BUDGET,
    ) -> np.ndarray:
        """Each plausibility sample's most plausible class: ``(n_worlds, n_items)`` node
        indices into ``taxonomy.nodes``, the argmax of :meth:`sample_plausibilities` with the
        same seed, world by world (Stutz et al.'s label per sample).

        Computed without the plausibility vectors: the ranked classes' Gamma draws, and for the
        unranked classes (all of concentration α) only whether their maximum beats the ranked
        maximum B — it does with probability 1 − P(α, B)^m for m unranked classes — and which
        of them (uniformly) holds it (see :class:`_Ranked`).
        """
        worlds = as_worlds(worlds, 8.0 + 4.0 * len(self.items))  # numbers, int32 labels
        key = as_seed(seed)
        ranked = self._ranked
        step = block_rows(1, memory_budget, bytes_per_unit=self._draw_bytes())
        columns = self.taxonomy.indices(self.classes)
        out = np.empty((len(worlds), len(self.items)), dtype=np.int32)
        for start in range(0, len(worlds), step):
            block = worlds[start : start + step]
            drawn, _, wins, which, _ = self._draw(key, block)
            # the first maximum of the draws as the plausibility vectors hold them (drawn in
            # logs, they were scaled and exponentiated after _draw's maxima, which can tie two)
            top1 = np.where(wins, which, ranked.maxima(drawn)[1])
            if len(self._dense_items):  # drawn in logs: the argmax of the same vectors
                top1[:, self._dense_items] = self._dense_block(key, block).argmax(axis=2)
            out[start : start + len(block)] = columns[top1]
        return out


def below_upper_tail(t: np.ndarray, a: float, x: np.ndarray) -> np.ndarray:
    """``t < Q(a, x)`` element by element, Q the regularised upper incomplete gamma function
    (:func:`scipy.special.gammaincc`), which is evaluated only where two bounds cannot decide.

    For ``0 < a <= 1`` and ``x > 0``, x**a e**-x / (x + 1 - a) <= Γ(a) Q(a, x) <= x**(a - 1)
    e**-x (the first convergents of Legendre's continued fraction; the upper one as
    t**(a - 1) <= x**(a - 1) under the integral from x). ``t`` below the lower bound is True,
    above the upper one False, each with a margin of 0.1 % that covers the rounding of the
    bounds (about 1e-14: checked against scipy's Q on a grid of a from 1e-8 to 1, x from
    1e-300 to 800) and of scipy's Q many times over. Those bounds are loose for small x
    (their ratio is x / (x + 1 - a)): there, for 0 < x < :data:`_SERIES_X`, Q is bracketed by
    P's power series, x**a e**-x / Γ(a + 1) · Σ x**n / ((a + 1)…(a + n)), summed until a term
    is below 1e-17 of the sum, its tail bounded by a geometric series: an interval about
    1e-14 wide, used with the same margin where its lower end is above :data:`_SERIES_FLOOR`
    (below it Q = 1 - P loses its digits). PrIRN's draws compare the unranked classes' tail
    probability with Q at the ranked maximum: scipy's Q costs about 1 µs an element at its
    α = 0.01, the bounds and the series one compiled pass (split over the kernels' threads
    when large: :func:`fuzzytruth._threads.by_rows`).

    Examples
    --------
    >>> from scipy.special import gammaincc
    >>> t = np.array([0.5, 1e-3, 1e-12, 0.2, 0.004, 0.006])
    >>> x = np.array([3.0, 3.0, 30.0, 0.0, 0.56, 0.56])
    >>> below_upper_tail(t, 0.01, x).tolist() == (t < gammaincc(0.01, x)).tolist()
    True
    """
    from scipy.special import gammaincc, gammaln  # imported where used: start-up

    t, x = np.asarray(t, dtype=float), np.asarray(x, dtype=float)
    if not 0 < a <= 1:
        return t < gammaincc(a, x)
    shape = np.broadcast_shapes(t.shape, x.shape)
    t = np.ascontiguousarray(np.broadcast_to(t, shape)).reshape(-1)
    x = np.ascontiguousarray(np.broadcast_to(x, shape)).reshape(-1)
    # 1: below the lower bound (True), 0: above the upper one (False), 2: undecided. The
    # bounds are ordered: below the lower one is never above the upper one
    decided = np.empty(len(t), dtype=np.int8)
    kernel = _compiled()["tail_bounds"]
    by_rows(lambda rows: kernel(t[rows], x[rows], a, float(gammaln(a)), decided[rows]),
            len(t), len(t))
    out = decided == 1
    undecided = np.flatnonzero(decided == 2)
    out[undecided] = t[undecided] < gammaincc(a, x[undecided])
    return out.reshape(shape)


def _tail_bounds_py(t, x, a, log_gamma_a, out):  # pragma: no cover - compiled
    # the bounds of below_upper_tail in logs, element by element, no temporaries:
    # upper = (a - 1) log x - x - log Γ(a) (x = 0: +inf for a < 1, NaN for a = 1), lower =
    # upper + log x - log(x + 1 - a); NaN comparisons are False, so such cells stay undecided
    for i in range(len(t)):
        log_x = np.log(x[i])
        upper = (a - 1.0) * log_x - x[i] - log_gamma_a
        lower = upper + log_x - np.log(x[i] + (1.0 - a))
        log_t = np.log(t[i])
        if log_t < lower - _BOUND_MARGIN and lower > _LOG_NORMAL:  # scipy's Q not 0
            out[i] = 1
        elif log_t > upper + _BOUND_MARGIN:
            out[i] = 0
        elif 0.0 < x[i] < _SERIES_X:
            out[i] = _series_decision(t[i], x[i], a, log_x, log_gamma_a)
        else:
            out[i] = 2


def _series_decision_py(t, x, a, log_x, log_gamma_a):  # pragma: no cover - compiled
    # P(a, x) = x**a e**-x / Γ(a + 1) · Σ_n x**n / ((a + 1)…(a + n)): the partial sum and,
    # once the terms fall by at least r = x / (a + n + 1) < 1 each, a tail below
    # term · r / (1 - r); Q = 1 - P bracketed, decided as in _tail_bounds_py, else 2
    term, total, n = 1.0, 1.0, 0
    while n < _SERIES_TERMS and (n + 1 <= x or term > 1e-17 * total):
        n += 1
        term *= x / (a + n)
        total += term
    r = x / (a + n + 1)
    if r >= 1.0:
        return 2
    prefix = np.exp(a * log_x - x - log_gamma_a - np.log(a))
    q_low = 1.0 - prefix * (total + term * r / (1.0 - r))
    q_high = 1.0 - prefix * total
    if q_low < _SERIES_FLOOR:
        return 2
    if t < q_low * _SERIES_BELOW:
        return 1
    if t > q_high * _SERIES_ABOVE:
        return 0
    return 2


@functools.cache
def _compiled() -> dict[str, Any]:
    """The passes compiled by numba at their first use (numba is slow to import)."""
    import numba

    global _series_decision
    jit = numba.njit(cache=True, nogil=True, error_model="numpy")
    _series_decision = jit(_series_decision_py)  # the callee first
    return {"tail_bounds": jit(_tail_bounds_py), "maxima": jit(_maxima_py),
            "unranked_class": jit(_unranked_class_py)}


# replaced by its compiled form before the pass that calls it
_series_decision: Any = _series_decision_py


_BOUND_MARGIN = float(np.log1p(1e-3))
"""The margin of :func:`below_upper_tail`'s bounds, in logs."""

_LOG_NORMAL = -690.0
"""A lower bound below which scipy's Q may be rounded to a subnormal number or to 0: there
the comparison is left to it (e**-690 is about 1e-300)."""

_SERIES_X = 4.0
"""Below this x :func:`below_upper_tail` tries P's power series where its bounds do not
decide (above it they decide nearly always at α <= 1)."""

_SERIES_TERMS = 80
"""At most this many terms of the series (at x < 4, 1e-17 of the sum is reached by about 30)."""

_SERIES_FLOOR = 1e-9
"""The smallest lower end of the series' interval for Q that decides: 1 - P is exact to about
1e-14 (P's rounding), 1e-5 of Q there, well inside the 0.1 % margin."""

_SERIES_BELOW, _SERIES_ABOVE = 1.0 - 1e-3, 1.0 + 1e-3
"""The series' margin: t below Q's lower end by 0.1 % is True, above its upper end False."""


@dataclass(frozen=True)
class _Ranked:
    """The sparse structure of PrIRN's Dirichlet: per item, the ranked classes (IRN > 0,
    concentration T · IRN + α, drawn one by one) and the m unranked ones (concentration α).

    The unranked block of m i.i.d. Gamma(α) draws is drawn through its maximum: M = Q⁻¹(α, t)
    with t = 1 − U^(1/m) (so P(M <= x) = P(α, x)^m), held by a uniformly chosen unranked class,
    the other m − 1 drawn from Gamma(α) conditioned below M (exact for i.i.d. draws). The top-1
    class then needs only the comparison of M with the ranked maximum.
    """

    item: np.ndarray
    column: np.ndarray
    starts: np.ndarray
    keys: np.ndarray
    shape: np.ndarray
    rest: np.ndarray
    padded: np.ndarray
    unranked: tuple[np.ndarray, np.ndarray]

    @classmethod
    def of(cls, irn_: np.ndarray, concentration: np.ndarray, keys: np.ndarray) -> _Ranked:
        ranked = irn_ > 0
        item, column = np.nonzero(ranked)  # by item, then class
        counts = ranked.sum(axis=1)
        padded = np.full((len(irn_), int(counts.max(initial=0))), irn_.shape[1])
        padded[item, np.arange(len(item)) - np.repeat(np.r_[0, np.cumsum(counts)[:-1]],
                                                      counts)] = column
        return cls(item=item, column=column, starts=np.r_[0, np.cumsum(counts)[:-1]],
                   keys=keys[item, column], shape=concentration[item, column],
                   rest=irn_.shape[1] - counts, padded=padded,
                   unranked=np.nonzero(~ranked))

    def unranked_class(self, j: np.ndarray) -> np.ndarray:
        """The class of the ``j``-th unranked class of each item (``j``: worlds × items);
        compiled."""
        j = np.ascontiguousarray(j, dtype=np.int64)
        out = np.empty_like(j)
        kernel = _compiled()["unranked_class"]
        by_rows(lambda rows: kernel(j[rows], self.padded, out[rows]), len(j), j.size)
        return out

    def maxima(self, drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per world and item (``drawn``: worlds × ranked components), the largest ranked
        draw and the class of the first ranked component that holds it; one compiled pass."""
        shape = (len(drawn), len(self.starts))
        best, first = np.empty(shape), np.empty(shape, dtype=np.int64)
        kernel = _compiled()["maxima"]
        by_rows(lambda rows: kernel(drawn[rows], self.starts, self.column, best[rows],
                                    first[rows]), len(drawn), drawn.size)
        return best, first


def _maxima_py(drawn, starts, column, best, first):  # pragma: no cover - compiled
    # each item's components are drawn[:, starts[i]:starts[i + 1]] (at least one); a strict
    # comparison keeps the first of equal maxima
    n_items, n_units = len(starts), drawn.shape[1]
    for w in range(drawn.shape[0]):
        for i in range(n_items):
            end = starts[i + 1] if i + 1 < n_items else n_units
            top, at = drawn[w, starts[i]], starts[i]
            for u in range(starts[i] + 1, end):
                if drawn[w, u] > top:
                    top, at = drawn[w, u], u
            best[w, i], first[w, i] = top, column[at]


def _unranked_class_py(j, padded, out):  # pragma: no cover - compiled
    # the j-th class missing from each item's ranked classes (padded: in increasing order,
    # padded past its end with n_classes): step over every ranked class at or below it
    for w in range(j.shape[0]):
        for i in range(j.shape[1]):
            c = j[w, i]
            for col in range(padded.shape[1]):
                if padded[i, col] <= c:
                    c += 1
            out[w, i] = c
