"""Paired bootstrap of system means and of their differences, with intervals and dual tests.

Queries are resampled with one count vector per replicate shared by all systems, so the
bootstrap means of every system are ``counts @ scores.T / n`` and every pairwise difference
is a difference of two of those columns. Each replicate's counts are keyed by its number and
its means summed in a compiled pass (:func:`fuzzytruth._resampling.bootstrap_means`),
so blocks of replicates computed apart give the same distribution, bit for bit.

Every interval has its test, computed from the same bootstrap distribution:
:meth:`BootstrapResult.pvalue` is the smallest ``alpha`` at which the ``1 - alpha`` interval of
:meth:`BootstrapResult.confidence_interval` (same method, same alternative) excludes 0, so
``p < alpha`` exactly when the interval excludes 0. Tails finer than the resolution
``1 / (B + 1)`` of B resamples are not resolved: a p-value is at least ``1 / (B + 1)`` per
tail and an interval whose tail level is at most that is unbounded.

Scores with a ground-truth worlds axis are averaged over the worlds first by the caller
(each query's expected score: the estimand *this collection's truth*, see
:mod:`fuzzytruth.stats.compare`); the annotator-population bootstrap builds its replicates in
:mod:`fuzzytruth.stats.population` and reuses :class:`BootstrapResult` for the intervals.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from fuzzytruth._random import draw_seed, weighted_sums
from fuzzytruth._resampling import (
    CHUNK_PAIRS,
    QueryCounts,
    block_rows,
    bootstrap_means,
    interval_tail,
    row_chunks,
    tail_resolved,
)
from fuzzytruth.stats._order_statistics import crossing_counts, order_statistics
from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    no_spread,
    scaled_deviations,
    significance_level,
    tie_margin,
)

INTERVAL_METHODS = ("percentile", "basic", "bca", "studentized")
TARGETS = ("differences", "means")
#: A bootstrap-t value within this share of ``max(|t|, 1)`` of the observed ``t`` ties with
#: it. Resampled means and differences tie with 0, the estimate or twice it within
#: :func:`~fuzzytruth.stats._validation.tie_margin` (1e-12 of the largest ``|score|``).
T_TIE = 1e-9


@dataclass(frozen=True, eq=False)
class ConfidenceInterval:
    """Lower and upper bounds, one per system (``"means"``) or per pair (``"differences"``).

    One-sided intervals (``alternative="greater"`` or ``"less"``) have an infinite bound.
    """

    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str
    alternative: str = "two-sided"


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Bootstrap distribution of system means; differences, intervals and tests on demand.

    Attributes
    ----------
    mean : numpy.ndarray
        ``(n_systems,)`` observed mean over queries.
    difference : numpy.ndarray
        ``(n_pairs,)`` observed ``mean[a] - mean[b]``.
    pairs : numpy.ndarray
        ``(n_pairs, 2)`` system indices.
    bootstrap_distribution : numpy.ndarray
        ``(n_resamples, n_systems)`` resampled means.
    """

    mean: np.ndarray
    difference: np.ndarray
    pairs: np.ndarray
    bootstrap_distribution: np.ndarray = field(repr=False)
    _scores: np.ndarray = field(repr=False)
    # The query bootstrap's counts, drawn again when asked (None for the population's).
    _counts: QueryCounts | None = field(repr=False)
    # (B, n_systems, n_systems) per-replicate second moments about the origin,
    # sum_q w_q x_sq x_tq / n, for replicates not built from query counts (population).
    _gram: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_resamples(self) -> int:
        """Number of bootstrap replicates B."""
        return self.bootstrap_distribution.shape[0]

    @property
    def difference_distribution(self) -> np.ndarray:
        """``(n_resamples, n_pairs)`` resampled differences (built on access)."""
        m = self.bootstrap_distribution
        return m[:, self.pairs[:, 0]] - m[:, self.pairs[:, 1]]

    def standard_error(self, *, target: str = "differences") -> np.ndarray:
        """Bootstrap standard error (``ddof=1``) of each mean or each difference."""
        check_choice("target", target, TARGETS)
        out = np.empty(self._n_targets(target))
        for sl, boot in self._distribution_chunks(target):
            out[sl] = boot.std(axis=1, ddof=1)
        return out

    def confidence_interval(
        self,
        confidence_level: float = 0.95,
        *,
        method: str = "bca",
        target: str = "differences",
        alternative: str = "two-sided",
    ) -> ConfidenceInterval:
        """Bootstrap interval for each pairwise difference or each system mean.

        Parameters
        ----------
        confidence_level : float
            Coverage, strictly between 0 and 1 (above 0.5 for one-sided intervals).
        method : {"bca", "percentile", "basic", "studentized"}
            ``"percentile"``: the alpha/2 and 1 - alpha/2 quantiles of the bootstrap
            distribution (linear interpolation, as :func:`numpy.quantile`).
            ``"basic"``: the percentile interval reflected about the estimate.
            ``"bca"``: bias-corrected and accelerated (Efron 1987); the bias correction uses
            the mid-rank share of resamples below the estimate (as scipy's BCa; a resample
            equal to the estimate up to the rounding of the scores counts as equal, where
            scipy compares the doubles: with 3 queries the 6 orderings of the sample itself,
            2/9 of the resamples, fell on either side of it by rounding there) and the
            acceleration the jackknife over queries, in closed form for a mean; its bounds are
            NaN when every resample lies on one side of the estimate.
            ``"studentized"``: bootstrap-t with each resample's own standard error; a
            resample whose values have no spread (common with few queries and lattice-valued
            measures such as P@10) is studentised by the observed standard error instead, so
            the bounds stay finite.
        target : {"differences", "means"}
            Interval for every pair's difference or for every system's mean.
        alternative : {"two-sided", "less", "greater"}
            ``"greater"``: ``[low, inf)``, the one-sided interval dual to the test of "the
            difference is positive"; ``"less"``: ``(-inf, high]``.

        Returns
        -------
        ConfidenceInterval
        """
        # None means "no interval" to test_and_interval: here it is a missing level, which
        # returned None instead of an interval or an error
        level = check_confidence_level(confidence_level)
        ci, _ = self.test_and_interval(
            level, method=method, target=target, alternative=alternative,
            want_pvalue=False,
        )
        return ci

    @property
    def resolution(self) -> float:
        """``1 / (B + 1)``: the smallest tail probability B resamples can resolve."""
        return 1.0 / (self.n_resamples + 1)

    def pvalue(
        self,
        *,
        method: str = "bca",
        target: str = "differences",
        alternative: str = "two-sided",
    ) -> np.ndarray:
        """The test dual to :meth:`confidence_interval`: p < alpha iff the interval excludes 0.

        The p-value is the smallest ``alpha`` at which the ``1 - alpha`` interval of the same
        method and alternative excludes 0: for the percentile method twice the (interpolated)
        share of the bootstrap distribution on the far side of 0, for the studentised method
        the bootstrap-t test of the mean (Efron & Tibshirani 1993, §16.4, with the same finite
        fallback), for BCa the level at which the BCa bound reaches 0. Each tail is at least
        ``1 / (B + 1)``; two-sided p-values are twice the smaller tail, capped at 1. NaN where
        the interval is NaN. A resampled mean within the rounding of the scores (1e-12 of the
        largest ``|score|``) of 0 or of the estimate is equal to it, and a bootstrap-t value
        within 1e-9 (relative) of the observed ``t`` (:data:`T_TIE`): on lattice scores
        such as P@10 many resamples are equal to them in exact arithmetic, and rounding
        alone would put them on one side (scipy compares the doubles as they are).

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> x = rng.random((2, 30)) + [[0.1], [0.0]]
        >>> res = paired_bootstrap(x, n_resamples=999, rng=1)
        >>> p = res.pvalue(method="percentile")[0]
        >>> ci = res.confidence_interval(1 - 0.9 * p, method="percentile")  # alpha below p
        >>> bool(ci.low[0] <= 0 <= ci.high[0])
        True
        """
        _, p = self.test_and_interval(
            None, method=method, target=target, alternative=alternative
        )
        return p

    def test_and_interval(
        self,
        confidence_level: float | None = 0.95,
        *,
        method: str = "bca",
        target: str = "differences",
        alternative: str = "two-sided",
        want_pvalue: bool = True,
    ) -> tuple[ConfidenceInterval | None, np.ndarray | None]:
        """The interval and its dual p-value in one pass over the bootstrap distribution.

        ``confidence_level=None`` skips the interval, ``want_pvalue=False`` the p-value; see
        :meth:`confidence_interval` and :meth:`pvalue` for the definitions.
        """
        method = check_choice("method", method, INTERVAL_METHODS)
        target = check_choice("target", target, TARGETS)
        alternative = check_alternative(alternative)
        want_ci = confidence_level is not None
        if want_ci:
            level = check_confidence_level(confidence_level)
            if alternative != "two-sided" and level <= 0.5:
                raise ValueError(
                    f"confidence_level must exceed 0.5 for a one-sided interval; got {level!r}"
                )
            # rounded (significance_level) so that level 0.99 has tails of exactly 0.005 (its
            # test's resolution) and every procedure compares p with the same alpha
            alpha = significance_level(level)
            tail = interval_tail(level, alternative)
            levels = np.array([tail, 1.0 - tail])
        estimate = self.mean if target == "means" else self.difference
        low = np.empty_like(estimate)
        high = np.empty_like(estimate)
        up = np.empty_like(estimate)  # tail level at which the low bound passes 0
        down = np.empty_like(estimate)  # ... at which the high bound falls below 0
        if method == "bca":
            accel = self._bca_acceleration(target)
        if method == "studentized":
            chunks = self._studentized_chunks(target)
        else:
            chunks = ((sl, boot, None) for sl, boot in self._distribution_chunks(target))
        # Replicates equal in exact arithmetic to the value they are compared with (0, the
        # estimate) come out a rounding apart on lattice scores such as P@10, on either side
        # as the rounding falls; they tie with it (T_TIE). Compared exactly, P@10 scores in
        # tenths and the same scores as integers gave other p-values with the same resamples:
        # bootstrap-t 0.002 against 0.082 on 3 queries, BCa 0.006 against 0.004.
        margin = tie_margin(0.0, self._scores)
        for sl, rows, se in chunks:
            est = estimate[sl]
            if method == "bca":
                z0 = _bias_correction(rows, est, margin)
            if want_pvalue or want_ci:  # the interval is held to its test (_agree)
                if method == "studentized":
                    with np.errstate(divide="ignore", invalid="ignore"):
                        t_obs = np.where(est == 0, 0.0, est / se)
                    f, g = _crossing_levels(rows, t_obs,
                                            T_TIE * np.fmax(np.abs(t_obs), 1.0))
                    up[sl], down[sl] = 1.0 - g, f
                elif method == "basic":
                    f, g = _crossing_levels(rows, 2 * est, margin)
                    up[sl], down[sl] = 1.0 - g, f
                else:
                    f, g = _crossing_levels(rows, np.zeros_like(est), margin)
                    if method == "percentile":
                        up[sl], down[sl] = f, 1.0 - g
                    else:
                        up[sl], down[sl] = _bca_tails(f, g, z0, accel[sl])
            if not want_ci:
                continue
            lv = levels
            if method == "bca":
                z = special.ndtri(levels)[None, :]
                a = accel[sl][:, None]
                with np.errstate(invalid="ignore"):
                    lv = special.ndtr(z0[:, None] + (z0[:, None] + z)
                                      / (1.0 - a * (z0[:, None] + z)))
            q = _row_quantiles(rows, lv)
            if method == "studentized":
                low[sl] = est - q[:, 1] * se
                high[sl] = est - q[:, 0] * se
            elif method == "basic":
                low[sl] = 2 * est - q[:, 1]
                high[sl] = 2 * est - q[:, 0]
            else:
                low[sl], high[sl] = q[:, 0], q[:, 1]
        ci = p = None
        if want_pvalue or want_ci:
            r = self.resolution
            up = np.where(np.isnan(up), np.nan, np.maximum(up, r))
            down = np.where(np.isnan(down), np.nan, np.maximum(down, r))
            if alternative == "greater":
                p = up
            elif alternative == "less":
                p = down
            else:
                p = np.minimum(1.0, 2.0 * np.minimum(up, down))
        if want_ci:
            unresolved = not tail_resolved(tail, self.n_resamples)
            undefined = np.isnan(low) | np.isnan(high)  # BCa with every resample on one side
            if alternative == "less" or unresolved:
                low[:] = -np.inf
            if alternative == "greater" or unresolved:
                high[:] = np.inf
            low[undefined] = np.nan
            high[undefined] = np.nan
            low_side = (np.full(len(p), alternative == "greater") if alternative != "two-sided"
                        else up <= down)
            _agree(low, high, p, low_side, alpha, estimate, margin)
            ci = ConfidenceInterval(low, high, level, method, alternative)
        return ci, p if want_pvalue else None

    def _n_targets(self, target: str) -> int:
        return len(self.mean) if target == "means" else len(self.pairs)

    def _target_columns(self, target: str, sl: slice) -> tuple[np.ndarray, np.ndarray]:
        """System indices whose difference (or the system itself, with ``b = -1``) is wanted."""
        if target == "means":
            idx = np.arange(sl.start, sl.stop)
            return idx, np.full_like(idx, -1)
        return self.pairs[sl, 0], self.pairs[sl, 1]

    def _distribution_chunks(self, target: str) -> Iterator[tuple[slice, np.ndarray]]:
        """``(slice, (chunk, n_resamples) fresh array)`` over the targets, chunk by chunk."""
        boot_t = np.ascontiguousarray(self.bootstrap_distribution.T)  # rows are systems
        for sl in row_chunks(self._n_targets(target), CHUNK_PAIRS):
            a, b = self._target_columns(target, sl)
            chunk = boot_t[a]
            if target == "differences":
                chunk -= boot_t[b]
            yield sl, chunk

    def _target_scores(self, target: str, sl: slice) -> np.ndarray:
        """Per-query values ``(n_queries, chunk)`` whose mean is the target."""
        a, b = self._target_columns(target, sl)
        x = self._scores[a]
        if target == "differences":
            x = x - self._scores[b]
        return x.T

    def _bca_acceleration(self, target: str) -> np.ndarray:
        """The BCa acceleration (jackknife over queries); only for the query bootstrap."""
        if self._counts is None:
            raise ValueError(
                "method='bca' needs a bootstrap over queries alone (its acceleration is the "
                "jackknife over queries); use 'percentile', 'basic' or 'studentized'"
            )
        return self._acceleration(target)

    def _acceleration(self, target: str) -> np.ndarray:
        # Jackknife of a mean in closed form: theta_(i) = (sum - x_i) / (n - 1), hence
        # mean(theta_(.)) - theta_(i) = (x_i - mean) / (n - 1) and the (n - 1) factors cancel.
        # The ratio is scale-free, so the deviations are scaled first: cubed as they are,
        # scores of 1e105 overflowed (NaN acceleration, NaN interval, p = 1/(B+1)) and scores
        # of 1e-105 underflowed (acceleration 0: a plain bias-corrected interval).
        out = np.empty(self._n_targets(target))
        for sl in row_chunks(len(out), CHUNK_PAIRS * 8):
            c = scaled_deviations(self._target_scores(target, sl), axis=0)
            num = (c**3).sum(axis=0)
            den = 6.0 * (c**2).sum(axis=0) ** 1.5
            out[sl] = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        return out

    def _studentized_chunks(
        self, target: str
    ) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
        """``(slice, t* (chunk, B), observed se (chunk,))``; finite t* by the fallback."""
        n = self._scores.shape[-1]
        boot_t = np.ascontiguousarray(self.bootstrap_distribution.T)
        counts = self._counts
        size = CHUNK_PAIRS // 2
        if counts is not None and not counts.kept:
            # every chunk of targets draws the counts again: as many targets per chunk as four
            # (chunk, B) temporaries allow (50 systems x 5,000 queries, B = 10,000: 4 draws of
            # the counts instead of 20, 2.2-2.6 s wall and 621 MB instead of 4.4 s; with the
            # whole table kept, 1.7 s and 1,037 MB)
            size = max(size, block_rows(self.n_resamples, bytes_per_unit=32.0))
        for sl in row_chunks(self._n_targets(target), size):
            x = self._target_scores(target, sl)  # (n, chunk)
            estimate = x.mean(axis=0)
            se = x.std(axis=0, ddof=1) / np.sqrt(n)
            a, b = self._target_columns(target, sl)
            m1 = boot_t[a]  # (chunk, B), a fresh array
            if target == "differences":
                m1 -= boot_t[b]
            if counts is not None:
                m2 = np.empty_like(m1)
                squares = x * x  # (n, chunk)
                for block, rows in counts.blocks():  # (block, n): no transposed copy
                    # not rows @ squares: BLAS rounds a pair's column by the other pairs
                    # beside it, and adding a system changed another pair's interval
                    m2[:, block] = weighted_sums(rows, squares).T
                m2 /= n
            else:
                g = self._gram
                m2 = g[:, a, a].T
                if target == "differences":
                    m2 = m2 + g[:, b, b].T - 2.0 * g[:, a, b].T
            # se* in place: sqrt(max(m2 - m1^2, 0) / (n - 1))
            m2 -= m1 * m1
            np.maximum(m2, 0.0, out=m2)
            # A resample without spread has se* = 0; studentise it by the observed se so that
            # t* stays finite (without the fallback 19 % of P@10 data sets at 10 queries had
            # an infinite bound). When the observed se is 0 too, every resample equals the
            # estimate and t* = 0.
            flat = _without_spread(m2, m1, x, counts)
            m2 /= n - 1
            se_star = np.sqrt(m2, out=m2)
            m1 -= estimate[:, None]
            dev = m1
            if flat.any():
                se_star[flat] = np.broadcast_to(se[:, None], se_star.shape)[flat]
            with np.errstate(divide="ignore", invalid="ignore"):
                t_star = np.divide(dev, se_star, out=se_star)
            t_star[dev == 0] = 0.0
            yield sl, t_star, se


def check_bootstrap(
    bootstrap: object, scores: np.ndarray | None = None, pairs: np.ndarray | None = None
) -> BootstrapResult:
    """Validate a :class:`BootstrapResult` given as an argument; with ``scores`` and ``pairs``,
    that it was drawn for them (its tests and intervals are of its own pairs and scores)."""
    if not isinstance(bootstrap, BootstrapResult):
        raise ValueError(
            "bootstrap must be a BootstrapResult (paired_bootstrap(scores, pairs=pairs)); got "
            f"{type(bootstrap).__name__}"
        )
    if pairs is not None and not np.array_equal(bootstrap.pairs, pairs):
        raise ValueError(
            f"bootstrap must be drawn for these {len(pairs)} pairs, starting "
            f"{pairs[:3].tolist()}; got one for {len(bootstrap.pairs)} pairs, starting "
            f"{bootstrap.pairs[:3].tolist()}"
        )
    if scores is not None and not np.array_equal(bootstrap._scores, scores):
        raise ValueError(
            f"bootstrap must be drawn from these scores (shape {scores.shape}); got one from "
            f"other scores (shape {bootstrap._scores.shape})"
        )
    return bootstrap


def _without_spread(
    var: np.ndarray, mean: np.ndarray, x: np.ndarray, counts: QueryCounts | None
) -> np.ndarray:
    """Per target and resample ``(chunk, B)``, whether the resample's values are all equal.

    ``var = m2 - mean**2`` (``mean`` the resample's mean, ``m2`` its second moment) is 0 for
    such a resample only up to rounding: on scores in thirds it came out near 1e-17, which
    made se* about 2e-9 and t* about 6e7 for every resample drawing one value. A resample
    with ``var <= 1e-6 mean**2`` is therefore checked on the queries it drew (``x`` is
    ``(n_queries, chunk)``, ``counts`` the replicates' query counts): no spread up to rounding
    (:func:`~fuzzytruth.stats._validation.no_spread`). Without counts (the population
    bootstrap) only ``var == 0`` counts.
    """
    flat = var <= 0
    if counts is None:
        return flat
    target, resample = np.nonzero(var <= 1e-6 * (mean * mean))
    step = block_rows(x.shape[0], bytes_per_unit=32.0)  # the suspects, a block at a time
    for sl in row_chunks(len(target), step):
        j, b = target[sl], resample[sl]
        drawn = counts.rows(b) > 0
        values = x[:, j].T
        first = values[np.arange(len(j)), drawn.argmax(axis=1)]  # undrawn take a drawn value
        flat[j, b] |= no_spread(np.where(drawn, values, first[:, None]))
    return flat


def _bias_correction(
    boot: np.ndarray, estimate: np.ndarray, tolerance: float = 0.0
) -> np.ndarray:
    """BCa z0 per row: ndtri of the mid-rank share of resamples below the estimate (those
    within ``tolerance`` of it count as equal)."""
    n_below, n_equal, _, _ = crossing_counts(boot, estimate, tolerance)
    return special.ndtri((2 * n_below + n_equal) / (2.0 * boot.shape[1]))


def _agree(
    low: np.ndarray, high: np.ndarray, p: np.ndarray, low_side: np.ndarray, alpha: float,
    estimate: np.ndarray, margin: float = 0.0,
) -> None:
    """Hold each interval to its test where rounding alone separates them (in place).

    The bound at the interval's tail level and the level at which the bound crosses 0 (the
    p-value) are two float computations of one quantile function: when the p-value falls on
    the level (scores on a lattice can put the crossing on a round level: p = 0.4 in the
    failing draw of ``tests/test_stats_procedures.py``), the bound can come out 3e-18 on the
    wrong side of 0. A bound within ``1e-12`` of the interval's
    scale from 0, or within ``margin`` (the rounding of the scores,
    :func:`~fuzzytruth.stats._validation.tie_margin`), is then set to 0 where the test does not
    reject, or to the smallest positive (negative) number on the side the test rejects
    (``low_side``: the low bound; else the high one). A larger disagreement is left as it is.

    The margin matters where the estimate is itself rounding noise: scores [0.6, 1.0, 0.1] and
    [0.7, 0.5, 0.5] have equal means, whose difference came out 1.1e-16, and the basic interval
    reflected about it had its low bound at 1.1e-16 beside p = 0.59 (one-sided, level 0.6): an
    interval excluding 0 with a test that does not reject, 1e-12 of 1.1e-16 being no help.
    """
    scale = np.fmax(np.abs(estimate), np.fmax(
        np.where(np.isfinite(low), np.abs(low), 0.0), np.where(np.isfinite(high), np.abs(high), 0.0)
    ))
    near = np.fmax(1e-12 * scale, margin)
    reject = p < alpha  # False where p is NaN
    keep = ~reject & ~np.isnan(p)
    low[keep & (low > 0) & (low <= near)] = 0.0
    high[keep & (high < 0) & (-high <= near)] = 0.0
    tiny = np.nextafter(0.0, 1.0)
    low[reject & low_side & (low <= 0) & (-low <= near)] = tiny
    high[reject & ~low_side & (high >= 0) & (high <= near)] = -tiny


def _crossing_levels(
    rows: np.ndarray, value: np.ndarray, tolerance: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Where the interpolated quantile function of each row crosses ``value``.

    With ``q(l)`` the quantile at level ``l`` (linear interpolation, :func:`numpy.quantile`),
    returns ``F = sup{l : q(l) <= value}`` and ``G = inf{l : q(l) >= value}`` per row
    (``F = 0`` when every entry exceeds the value, ``G = 1`` when every entry is below it);
    then ``q(l) > value`` exactly when ``l > F`` and ``q(l) < value`` exactly when ``l < G``.
    NaN values give NaN. One pass per row, no sort: the order statistics next to the value
    are the largest entry below it, the smallest above it, or the value itself when some
    entries equal it. Entries within ``tolerance`` (per row, or one for all) of the value are
    taken as equal to it.
    """
    width = rows.shape[1]
    value = np.asarray(value, dtype=np.float64)
    n_below, n_equal, under, over = crossing_counts(rows, value, tolerance)
    tied = n_equal > 0
    out = []
    # F counts the entries <= value, G those < value; k entries counted means the crossing
    # lies between order statistics k - 1 and k
    for k, v_lo, v_hi in ((n_below + n_equal, np.where(tied, value, under), over),
                          (n_below, under, np.where(tied, value, over))):
        gap = v_hi - v_lo
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(gap > 0, (value - v_lo) / gap, 0.0)
        level = (k - 1 + np.clip(frac, 0.0, 1.0)) / max(width - 1, 1)
        level = np.where(k == 0, 0.0, np.where(k == width, 1.0, level))
        out.append(np.where(np.isnan(value), np.nan, level))
    return out[0], out[1]


def _bca_tails(
    f: np.ndarray, g: np.ndarray, z0: np.ndarray, a: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Tail levels at which the BCa low bound passes 0 (``up``) and the high bound (``down``).

    The BCa bound at nominal level ``z`` sits at quantile level ``Phi(z0 + v / (1 - a v))``,
    ``v = z0 + z``; solving for the level where it meets the crossing level ``F`` (low bound)
    or ``G`` (high bound) gives ``v = w / (1 + a w)``, ``w = Phi^-1(level) - z0``, on the
    regular branch ``1 + a w > 0``. Off it the bound never (or always) meets the value.
    """

    def solve(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            w = special.ndtri(level) - z0
            denom = 1.0 + a * w
            v = np.where(denom > 0, w / denom, np.nan)
        return v, denom

    v_up, d_up = solve(f)
    up = special.ndtr(v_up - z0)
    # off the regular branch: a > 0 means the low bound exceeds the value at every level
    up = np.where(d_up > 0, up, np.where(a > 0, 0.0, 1.0))
    v_down, d_down = solve(g)
    down = special.ndtr(z0 - v_down)
    down = np.where(d_down > 0, down, np.where(a > 0, 1.0, 0.0))
    # every resample beyond the value on one side: the bound is beyond it at every level
    up = np.where(f == 0, 0.0, np.where(f == 1, 1.0, up))
    down = np.where(g == 1, 0.0, np.where(g == 0, 1.0, down))
    undefined = ~np.isfinite(z0)
    return np.where(undefined, np.nan, up), np.where(undefined, np.nan, down)


def _row_quantiles(rows: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Quantiles of each row at per-row (or shared) levels, linear interpolation.

    ``levels`` is ``(2,)`` or ``(n_rows, 2)`` (NaN gives NaN); returns ``(n_rows, 2)``, the
    same numbers as :func:`numpy.quantile` row by row. The four order statistics each row
    needs come from :func:`~fuzzytruth.stats._order_statistics.order_statistics` (one pass
    and a small partition per row, not a sort).
    """
    n_rows, width = rows.shape
    levels = np.broadcast_to(np.clip(levels, 0.0, 1.0), (n_rows, 2))
    undefined = np.isnan(levels)  # BCa when every resample lies on one side of the estimate
    h = np.where(undefined, 0.0, levels) * (width - 1)
    lo = np.floor(h).astype(np.intp)
    hi = np.minimum(lo + 1, width - 1)
    values = order_statistics(rows, np.column_stack([lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]]))
    v_lo, v_hi = values[:, [0, 2]], values[:, [1, 3]]
    # bootstrap-t values can be infinite (a resample with zero spread but a non-zero
    # deviation): take an order statistic as it is when it is hit exactly or equals its
    # neighbour, so that inf - inf never turns an unbounded interval into NaN
    frac = h - lo
    with np.errstate(invalid="ignore"):
        between = v_lo + frac * (v_hi - v_lo)
    value = np.where((frac == 0) | (v_lo == v_hi), v_lo, between)
    return np.where(undefined, np.nan, value)


def paired_bootstrap(
    scores: np.ndarray,
    *,
    pairs: np.ndarray | None = None,
    n_resamples: int = 10_000,
    rng: np.random.Generator | int | None = None,
) -> BootstrapResult:
    """Paired bootstrap over queries: one resample of queries per replicate, shared by all systems.

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` per-query scores. Under uncertain truth pass each query's
        expected score (scores averaged over the ground-truth worlds); resampling one world
        per replicate as well would count the truth's per-query noise twice.
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices ``(a, b)``, difference ``a - b``; default all pairs.
    n_resamples : int
        Number of bootstrap replicates B (at least 2).
    rng : numpy.random.Generator or int, optional
        Seed or generator. One seed is taken from it; replicate ``r``'s resample is then keyed
        by (seed, r, draw) (:func:`fuzzytruth._random.index_counts`), so any block of
        replicates can be computed on its own (a cluster does) with the same result.

    Returns
    -------
    BootstrapResult
        Keeps the ``(B, n_systems)`` bootstrap means; intervals come from
        :meth:`BootstrapResult.confidence_interval` and their dual tests from
        :meth:`BootstrapResult.pvalue`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((3, 40))
    >>> res = paired_bootstrap(scores, n_resamples=2000, rng=1)
    >>> res.bootstrap_distribution.shape
    (2000, 3)
    >>> ci = res.confidence_interval(0.95, method="percentile", target="means")
    >>> bool(np.all((ci.low < res.mean) & (res.mean < ci.high)))
    True
    """
    x = as_scores(scores, ndim=(2,))
    # the (B, n_systems) means are kept
    n_resamples = check_n_resamples(n_resamples, minimum=2, bytes_per_resample=8.0 * len(x))
    pairs = as_pairs(pairs, x.shape[0])
    seed = draw_seed(rng)
    boot = bootstrap_means(x, n_resamples, seed)
    mean = x.mean(axis=1)
    return BootstrapResult(
        mean=mean,
        difference=mean[pairs[:, 0]] - mean[pairs[:, 1]],
        pairs=pairs,
        bootstrap_distribution=boot,
        _scores=x,
        _counts=QueryCounts(seed, x.shape[1], n_resamples),
    )
