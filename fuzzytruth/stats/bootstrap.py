"""Paired bootstrap of system means and of their differences, with or without ground-truth worlds.

Queries are resampled with one count vector per replicate shared by all systems, so the
bootstrap means of every system are ``counts @ scores.T / n`` (one matrix product) and every
pairwise difference is a difference of two of those columns.

With a worlds axis, each replicate also draws one ground-truth world, shared by all systems
(two-level resampling): replicate ``r`` uses the scores of world ``k_r`` on the resampled
queries, so one interval carries the uncertainty from sampling queries and from not knowing
the ground truth.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from fuzzytruth.stats._resampling import CHUNK_PAIRS, resample_counts, row_chunks
from fuzzytruth.stats._validation import (
    as_pairs,
    as_scores,
    check_choice,
    check_confidence_level,
    check_n_resamples,
)

INTERVAL_METHODS = ("percentile", "basic", "bca", "studentized")
TWO_LEVEL_METHODS = ("percentile", "basic")
TARGETS = ("differences", "means")


@dataclass(frozen=True, eq=False)
class ConfidenceInterval:
    """Lower and upper bounds, one per system (``"means"``) or per pair (``"differences"``)."""

    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str


@dataclass(frozen=True, eq=False)
class UncertaintyDecomposition:
    """How much of a two-level interval comes from queries and how much from the worlds.

    For each quantity (a system mean or a pairwise difference):

    ``width_queries``
        width of the percentile interval from resampling queries alone, on the scores
        averaged over worlds (the same query resamples as the two-level bootstrap);
    ``width_worlds``
        width of the central interval of the quantity computed on all queries in each world
        (the spread due to the ground truth alone);
    ``width_combined``
        width of the two-level percentile interval.

    Widths do not add; variances nearly do. ``var_queries``, ``var_worlds`` and
    ``var_combined`` are the variances of the same three distributions (over the sampled
    worlds with equal weights, as the two-level bootstrap draws them) and
    ``share_queries = var_queries / var_combined``, ``share_worlds = var_worlds / var_combined``,
    ``share_interaction = 1 - share_queries - share_worlds``. By the law of total variance
    ``var_combined ≈ E_k[Var(query resampling | world k)] + Var_k(world mean)``; the
    interaction share is the per-query world noise that averaging over worlds hides from the
    query-only bootstrap (it can be slightly negative by Monte Carlo error).
    """

    width_queries: np.ndarray
    width_worlds: np.ndarray
    width_combined: np.ndarray
    var_queries: np.ndarray
    var_worlds: np.ndarray
    var_combined: np.ndarray
    confidence_level: float

    @property
    def share_queries(self) -> np.ndarray:
        """Share of the combined variance explained by resampling queries alone."""
        return _safe_ratio(self.var_queries, self.var_combined)

    @property
    def share_worlds(self) -> np.ndarray:
        """Share of the combined variance explained by the ground-truth worlds alone."""
        return _safe_ratio(self.var_worlds, self.var_combined)

    @property
    def share_interaction(self) -> np.ndarray:
        """The remainder ``1 - share_queries - share_worlds``."""
        return 1.0 - self.share_queries - self.share_worlds


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Bootstrap distribution of system means; differences and intervals derived on demand.

    Attributes
    ----------
    mean : numpy.ndarray
        ``(n_systems,)`` observed mean over queries (and worlds, when there are worlds).
    difference : numpy.ndarray
        ``(n_pairs,)`` observed ``mean[a] - mean[b]``.
    pairs : numpy.ndarray
        ``(n_pairs, 2)`` system indices.
    bootstrap_distribution : numpy.ndarray
        ``(n_resamples, n_systems)`` resampled means.
    world_index : numpy.ndarray or None
        ``(n_resamples,)`` the world each replicate used (two-level bootstrap), else ``None``.
    """

    mean: np.ndarray
    difference: np.ndarray
    pairs: np.ndarray
    bootstrap_distribution: np.ndarray = field(repr=False)
    world_index: np.ndarray | None = field(repr=False)
    _scores: np.ndarray = field(repr=False)
    _counts: np.ndarray = field(repr=False)

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
    ) -> ConfidenceInterval:
        """Two-sided bootstrap interval for each pairwise difference or each system mean.

        Parameters
        ----------
        confidence_level : float
            Coverage, strictly between 0 and 1.
        method : {"bca", "percentile", "basic", "studentized"}
            ``"percentile"``: the alpha/2 and 1 - alpha/2 quantiles of the bootstrap
            distribution (linear interpolation, as :func:`numpy.quantile`).
            ``"basic"``: the percentile interval reflected about the estimate.
            ``"bca"``: bias-corrected and accelerated (Efron 1987); the bias correction uses
            the mid-rank share of resamples below the estimate and the acceleration the
            jackknife over queries, in closed form for a mean; its bounds are NaN when every
            resample lies on one side of the estimate. ``"studentized"``: bootstrap-t
            with each resample's own standard error (resamples with zero spread give
            ``t = ±inf``, or 0 when they equal the estimate, so a bound may be infinite).
            With ground-truth worlds only ``"percentile"`` and ``"basic"`` are available.
        target : {"differences", "means"}
            Interval for every pair's difference or for every system's mean.

        Returns
        -------
        ConfidenceInterval
        """
        level = check_confidence_level(confidence_level)
        allowed = INTERVAL_METHODS if self.world_index is None else TWO_LEVEL_METHODS
        method = check_choice("method", method, allowed)
        target = check_choice("target", target, TARGETS)
        alpha = (1.0 - level) / 2.0
        estimate = self.mean if target == "means" else self.difference
        low = np.empty_like(estimate)
        high = np.empty_like(estimate)
        if method == "studentized":
            for sl, t_star, se in self._studentized_chunks(target):
                q = _row_quantiles(t_star, np.array([alpha, 1.0 - alpha]))
                low[sl] = estimate[sl] - q[:, 1] * se
                high[sl] = estimate[sl] - q[:, 0] * se
            return ConfidenceInterval(low, high, level, method)
        if method == "bca":
            accel = self._acceleration(target)
        for sl, boot in self._distribution_chunks(target):
            if method == "bca":
                theta = estimate[sl][:, None]
                share = (
                    np.count_nonzero(boot < theta, axis=1)
                    + np.count_nonzero(boot <= theta, axis=1)
                ) / (2.0 * boot.shape[1])
                z0 = special.ndtri(share)[:, None]
                z = special.ndtri(np.array([alpha, 1.0 - alpha]))[None, :]
                a = accel[sl][:, None]
                with np.errstate(invalid="ignore"):
                    levels = special.ndtr(z0 + (z0 + z) / (1.0 - a * (z0 + z)))
            else:
                levels = np.array([alpha, 1.0 - alpha])
            q = _row_quantiles(boot, levels)
            if method == "basic":
                low[sl] = 2 * estimate[sl] - q[:, 1]
                high[sl] = 2 * estimate[sl] - q[:, 0]
            else:
                low[sl], high[sl] = q[:, 0], q[:, 1]
        return ConfidenceInterval(low, high, level, method)

    def decomposition(
        self, confidence_level: float = 0.95, *, target: str = "differences"
    ) -> UncertaintyDecomposition:
        """Split a two-level interval into the parts from queries and from the ground truth.

        See :class:`UncertaintyDecomposition` for the definitions. Only for results built
        from scores with a worlds axis.
        """
        if self.world_index is None:
            raise ValueError(
                "decomposition needs scores with a worlds axis (n_worlds, n_systems, "
                "n_queries); this bootstrap was run without worlds"
            )
        level = check_confidence_level(confidence_level)
        target = check_choice("target", target, TARGETS)
        alpha = (1.0 - level) / 2.0
        world_means = self._scores.mean(axis=2)  # (n_worlds, n_systems)
        averaged = self._scores.mean(axis=0)  # (n_systems, n_queries)
        n = averaged.shape[1]
        query_only = np.empty_like(self.bootstrap_distribution)
        for rows in row_chunks(self.n_resamples):
            query_only[rows] = self._counts[rows] @ averaged.T / n
        size = self._n_targets(target)
        widths = {name: np.empty(size) for name in ("queries", "worlds", "combined")}
        variances = {name: np.empty(size) for name in widths}
        sources = {
            "queries": query_only, "worlds": world_means, "combined": self.bootstrap_distribution
        }
        for name, system_level in sources.items():
            # Variance over worlds with equal weights (ddof=0): the two-level bootstrap draws
            # from exactly these worlds; over bootstrap replicates the usual ddof=1.
            ddof = 0 if name == "worlds" else 1
            for sl, dist in self._distribution_chunks(target, system_level):
                lo, hi = np.quantile(dist, [alpha, 1.0 - alpha], axis=1)
                widths[name][sl] = hi - lo
                variances[name][sl] = dist.var(axis=1, ddof=ddof)
        return UncertaintyDecomposition(
            width_queries=widths["queries"],
            width_worlds=widths["worlds"],
            width_combined=widths["combined"],
            var_queries=variances["queries"],
            var_worlds=variances["worlds"],
            var_combined=variances["combined"],
            confidence_level=level,
        )

    def _n_targets(self, target: str) -> int:
        return len(self.mean) if target == "means" else len(self.pairs)

    def _target_columns(self, target: str, sl: slice) -> tuple[np.ndarray, np.ndarray]:
        """System indices whose difference (or the system itself, with ``b = -1``) is wanted."""
        if target == "means":
            idx = np.arange(sl.start, sl.stop)
            return idx, np.full_like(idx, -1)
        return self.pairs[sl, 0], self.pairs[sl, 1]

    def _distribution_chunks(
        self, target: str, system_level: np.ndarray | None = None
    ) -> Iterator[tuple[slice, np.ndarray]]:
        """``(slice, (chunk, n_draws) fresh array)`` over the targets, chunk by chunk.

        ``system_level`` is a ``(n_draws, n_systems)`` distribution of system means, by
        default the bootstrap distribution.
        """
        if system_level is None:
            system_level = self.bootstrap_distribution
        boot_t = np.ascontiguousarray(system_level.T)  # rows are systems
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

    def _acceleration(self, target: str) -> np.ndarray:
        # Jackknife of a mean in closed form: theta_(i) = (sum - x_i) / (n - 1), hence
        # mean(theta_(.)) - theta_(i) = (x_i - mean) / (n - 1) and the (n - 1) factors cancel.
        out = np.empty(self._n_targets(target))
        for sl in row_chunks(len(out), CHUNK_PAIRS * 8):
            c = self._target_scores(target, sl)
            c = c - c.mean(axis=0)
            num = (c**3).sum(axis=0)
            den = 6.0 * (c**2).sum(axis=0) ** 1.5
            out[sl] = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        return out

    def _studentized_chunks(
        self, target: str
    ) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
        n = self._scores.shape[-1]
        counts = self._counts.astype(np.float64)
        for sl in row_chunks(self._n_targets(target), CHUNK_PAIRS):
            x = self._target_scores(target, sl)  # (n, chunk)
            estimate = x.mean(axis=0)
            se = x.std(axis=0, ddof=1) / np.sqrt(n)
            m1 = (counts @ x) / n
            m2 = (counts @ (x * x)) / n
            se_star = np.sqrt(np.maximum(m2 - m1 * m1, 0.0) / (n - 1))
            dev = m1 - estimate
            with np.errstate(divide="ignore", invalid="ignore"):
                t_star = np.where(dev == 0, 0.0, dev / se_star)
            yield sl, np.ascontiguousarray(t_star.T), se


def _row_quantiles(rows: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Quantiles of each row at per-row (or shared) levels, linear interpolation.

    ``levels`` is ``(2,)`` or ``(n_rows, 2)`` (NaN gives NaN); returns ``(n_rows, 2)``, the
    same numbers as :func:`numpy.quantile` row by row. ``rows`` is reordered in place: only
    the two tails that hold the wanted order statistics are sorted, after partitioning
    them off, which costs far less than sorting whole rows.
    """
    n_rows, width = rows.shape
    levels = np.broadcast_to(np.clip(levels, 0.0, 1.0), (n_rows, 2))
    undefined = np.isnan(levels)  # BCa when every resample lies on one side of the estimate
    h = np.where(undefined, 0.0, levels) * (width - 1)
    lo = np.floor(h).astype(np.intp)
    hi = np.minimum(lo + 1, width - 1)
    last_low = int(hi[:, 0].max())  # the lower bound needs order statistics 0..last_low
    first_high = int(lo[:, 1].min())  # the upper bound needs first_high..width-1
    if last_low + 1 < first_high:
        rows.partition(last_low, axis=1)
        rest = rows[:, last_low + 1 :]
        rest.partition(first_high - last_low - 1, axis=1)
        rows[:, : last_low + 1].sort(axis=1)
        rows[:, first_high:].sort(axis=1)
    else:
        rows.sort(axis=1)
    v_lo = np.take_along_axis(rows, lo, axis=1)
    v_hi = np.take_along_axis(rows, hi, axis=1)
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
    """Paired bootstrap over queries (and, with a worlds axis, over ground-truth worlds).

    Parameters
    ----------
    scores : array_like
        ``(n_systems, n_queries)`` or ``(n_worlds, n_systems, n_queries)`` per-query scores.
        With worlds, each replicate resamples queries *and* draws one world (uniformly, with
        replacement), both shared by every system; the estimate is the mean over worlds and
        queries.
    pairs : array_like of int, optional
        ``(n_pairs, 2)`` system indices ``(a, b)``, difference ``a - b``; default all pairs.
    n_resamples : int
        Number of bootstrap replicates B (at least 2).
    rng : numpy.random.Generator or int, optional
        Seed or generator.

    Returns
    -------
    BootstrapResult
        Keeps the ``(B, n_systems)`` bootstrap means; intervals come from
        :meth:`BootstrapResult.confidence_interval`.

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
    x = as_scores(scores, ndim=(2, 3))
    n_resamples = check_n_resamples(n_resamples, minimum=2)
    pairs = as_pairs(pairs, x.shape[-2])
    rng = np.random.default_rng(rng)
    n = x.shape[-1]
    counts = resample_counts(n, n_resamples, rng)
    boot = np.empty((n_resamples, x.shape[-2]))
    if x.ndim == 2:
        world_index = None
        mean = x.mean(axis=1)
        for rows in row_chunks(n_resamples):
            boot[rows] = counts[rows] @ x.T / n
    else:
        world_index = rng.integers(0, x.shape[0], size=n_resamples)
        mean = x.mean(axis=(0, 2))
        order = np.argsort(world_index, kind="stable")
        starts = np.searchsorted(world_index[order], np.arange(x.shape[0] + 1))
        for k in range(x.shape[0]):
            rows = order[starts[k] : starts[k + 1]]
            if len(rows):
                boot[rows] = counts[rows] @ x[k].T / n
    return BootstrapResult(
        mean=mean,
        difference=mean[pairs[:, 0]] - mean[pairs[:, 1]],
        pairs=pairs,
        bootstrap_distribution=boot,
        world_index=world_index,
        _scores=x,
        _counts=counts,
    )
