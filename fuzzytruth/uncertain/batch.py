"""DistributionBatch: many discrete distributions at once, one per row, with vectorised summaries.

An evaluation under uncertain truth has one distribution per (system, query, measure): thousands
of them. Building a :class:`~fuzzytruth.uncertain.distribution.Distribution` for each would cost
a Python object and a ``numpy.unique`` per row. A batch keeps them as two ``(n_rows, n_atoms)``
arrays instead: the values of each row's atoms and their masses. Atoms need not be sorted nor
distinct (a mixture or a sample simply lists them), and rows with fewer atoms are padded with
zero-mass atoms. Masses are *unconditional*: a row's masses sum to ``1 - p_undefined``; every
summary (mean, std, quantiles) is conditional on the value being defined, as for
``Distribution``. :meth:`DistributionBatch.distribution` builds the ``Distribution`` of one row
on demand.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from fuzzytruth._resampling import length_blocks
from fuzzytruth._validation import check_confidence_level, one_real, real_array, tail_levels
from fuzzytruth.uncertain.distribution import (
    Distribution,
    _binary_scale,
    _invalid_mass,
    _read_only,
    monte_carlo_se,
)

__all__ = ["DeferredBatch", "DistributionBatch"]

_METHODS = ("exact", "monte_carlo", "point")
_CDF_TOLERANCE = 1e-12  # as in Distribution.quantile


@dataclass(frozen=True, eq=False)
class DistributionBatch:
    """One discrete distribution per row, stored as atoms (value, mass).

    Parameters
    ----------
    values : array_like
        ``(n_rows, n_atoms)`` finite values (any order, repeats allowed; the value of a
        zero-mass atom is ignored).
    masses : array_like
        ``(n_rows, n_atoms)`` non-negative masses; each row sums to ``1 - p_undefined``.
    p_undefined : array_like
        ``(n_rows,)`` probability that the quantity is undefined.
    method : {"exact", "monte_carlo", "point"}
        How the distributions were obtained.
    n_samples : int, optional
        Number of Monte Carlo draws behind each row (``method="monte_carlo"``).

    Examples
    --------
    Two Bernoulli distributions and an undefined one:

    >>> b = DistributionBatch([[0.0, 1.0], [0.0, 1.0], [0.0, 0.0]],
    ...                       [[0.5, 0.5], [0.9, 0.1], [0.0, 0.0]], [0.0, 0.0, 1.0])
    >>> b.mean().tolist()
    [0.5, 0.1, nan]
    >>> b.quantile(0.95).tolist()
    [1.0, 1.0, nan]
    >>> b.distribution(1)
    Distribution(mean=0.1, std=0.3, 2 values, method='exact')
    """

    def __repr__(self) -> str:
        return (
            f"DistributionBatch({len(self)} rows, up to {self.values.shape[1]} atoms, "
            f"method={self.method!r})"
        )


    values: np.ndarray
    masses: np.ndarray
    p_undefined: np.ndarray
    method: str = "exact"
    n_samples: int | None = None

    def __post_init__(self) -> None:
        values = np.atleast_2d(real_array(self.values, "values", copy=True))
        masses = np.atleast_2d(real_array(self.masses, "masses", copy=True))
        p_undefined = np.atleast_1d(real_array(self.p_undefined, "p_undefined", copy=True))
        if values.shape != masses.shape or values.ndim != 2:
            raise ValueError(
                f"values and masses must be 2-D arrays of one shape; got {values.shape} and "
                f"{masses.shape}"
            )
        if p_undefined.shape != (values.shape[0],):
            raise ValueError(
                f"p_undefined must have shape ({values.shape[0]},); got {p_undefined.shape}"
            )
        at = _invalid_mass(masses)
        if at is not None:
            raise ValueError(
                f"masses must be finite and >= 0; row {at[0]}, atom {at[1]} has "
                f"{float(masses[at])!r}"
            )
        outside = ~((p_undefined >= 0) & (p_undefined <= 1))  # NaN is outside
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"p_undefined must be within [0, 1]; row {row} has {float(p_undefined[row])!r}"
            )
        total = masses.sum(axis=1) + p_undefined
        if np.any(np.abs(total - 1.0) > 1e-9):
            row = int(np.argmax(np.abs(total - 1.0)))
            raise ValueError(
                f"each row's masses must sum to 1 - p_undefined within 1e-9; row {row} sums to "
                f"{float(total[row])!r} with p_undefined"
            )
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}; got {self.method!r}")
        if self.method == "monte_carlo" and (self.n_samples is None or self.n_samples < 1):
            raise ValueError("a monte_carlo batch needs n_samples >= 1")
        values = np.where(masses > 0, values, 0.0)
        if not np.all(np.isfinite(values)):
            raise ValueError("values of atoms with positive mass must be finite")
        object.__setattr__(self, "values", _read_only(values))
        object.__setattr__(self, "masses", _read_only(masses))
        object.__setattr__(self, "p_undefined", _read_only(p_undefined))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def _derived(
        cls,
        values: np.ndarray,
        masses: np.ndarray,
        p_undefined: np.ndarray,
        method: str,
        n_samples: int | None,
    ) -> DistributionBatch:
        """A batch derived from valid batches (a mixture, a filled undefined outcome): valid
        by construction, so the checks of ``__post_init__`` are not run again."""
        out = object.__new__(cls)
        for name, value in (
            ("values", _read_only(np.where(masses > 0, values, 0.0))),
            ("masses", _read_only(masses)),
            ("p_undefined", _read_only(p_undefined)),
            ("method", method),
            ("n_samples", n_samples),
        ):
            object.__setattr__(out, name, value)
        return out

    @classmethod
    def from_samples(cls, samples: np.ndarray) -> DistributionBatch:
        """Empirical distributions of Monte Carlo draws: ``samples`` is ``(n_samples, n_rows)``;
        NaN draws count as undefined.

        >>> b = DistributionBatch.from_samples(np.array([[0.0, 1.0], [1.0, np.nan]]))
        >>> b.mean().tolist(), b.p_undefined.tolist()
        ([0.5, 1.0], [0.0, 0.5])
        """
        samples = np.asarray(samples, dtype=float)
        if samples.ndim != 2 or samples.shape[0] == 0:
            raise ValueError(
                f"samples must be 2-D (n_samples, n_rows) with n_samples >= 1; got shape "
                f"{samples.shape}"
            )
        n = samples.shape[0]
        defined = ~np.isnan(samples.T)
        values = np.where(defined, samples.T, 0.0)
        masses = defined / n
        p_undefined = 1.0 - defined.sum(axis=1) / n
        return cls(values, masses, p_undefined, "monte_carlo", n)

    @classmethod
    def from_points(cls, values: np.ndarray) -> DistributionBatch:
        """Point masses (the crisp case); NaN values are undefined with probability 1.

        >>> DistributionBatch.from_points(np.array([0.25, np.nan])).p_undefined.tolist()
        [0.0, 1.0]
        """
        values = np.asarray(values, dtype=float).reshape(-1, 1)
        defined = ~np.isnan(values)
        return cls(
            np.where(defined, values, 0.0), defined.astype(float), 1.0 - defined[:, 0], "point"
        )

    @classmethod
    def mixture(
        cls, components: DistributionBatch, index: np.ndarray, weights: np.ndarray
    ) -> DistributionBatch:
        """Row i mixes the component rows ``index[i, :]`` with ``weights[i, :]`` (sum 1).

        ``index`` and ``weights`` are ``(n_rows, n_components)``; pad with index -1 and weight 0.
        Undefinedness mixes too: p_undefined = Σ_c w_c u_c.

        >>> comp = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
        >>> mix = DistributionBatch.mixture(comp, np.array([[0, 1]]), np.array([[0.75, 0.25]]))
        >>> mix.mean().tolist()
        [0.25]
        """
        index = np.asarray(index, dtype=np.intp)
        weights = np.asarray(weights, dtype=float)
        if index.shape != weights.shape or index.ndim != 2:
            raise ValueError(
                f"index and weights must be 2-D arrays of one shape; got {index.shape} and "
                f"{weights.shape}"
            )
        weights = np.where(index >= 0, weights, 0.0)
        at = _invalid_mass(weights)
        if at is not None:
            raise ValueError(
                f"weights must be finite and >= 0; row {at[0]}, component {at[1]} has "
                f"{float(weights[at])!r}"
            )
        if index.size and index.max() >= len(components):
            raise ValueError(
                f"index must name rows of components (fewer than {len(components)}, or -1 for "
                f"padding); got {int(index.max())}"
            )
        safe = np.maximum(index, 0)
        n_rows = index.shape[0]
        values = components.values[safe].reshape(n_rows, -1)
        masses = (components.masses[safe] * weights[:, :, None]).reshape(n_rows, -1)
        p_undefined = (components.p_undefined[safe] * weights).sum(axis=1)
        if np.all(np.abs(weights.sum(axis=1) - 1.0) <= 1e-9):  # valid by construction
            return cls._derived(
                values, masses, p_undefined, components.method, components.n_samples
            )
        return cls(values, masses, p_undefined, components.method, components.n_samples)

    def take(self, rows: np.ndarray) -> DistributionBatch:
        """Rows ``rows`` (positions) in that order.

        >>> b = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
        >>> b.take(np.array([1, 1, 0])).mean().tolist()
        [1.0, 1.0, 0.0]
        """
        rows = np.asarray(rows, dtype=np.intp)
        return DistributionBatch._derived(self.values[rows], self.masses[rows],
                                          self.p_undefined[rows], self.method, self.n_samples)

    def fill_undefined(self, value: float) -> DistributionBatch:
        """The same distributions with the undefined outcome scored as ``value``.

        This is how the rule ``undefined="zero"`` (trec_eval's: an undefined query counts and
        scores its family's ``undefined_value``) turns into distributions.

        >>> b = DistributionBatch([[1.0]], [[0.25]], [0.75])
        >>> b.fill_undefined(0.0).mean().tolist()
        [0.25]
        """
        if not np.any(self.p_undefined):
            return self
        values = np.concatenate([self.values, np.full((len(self), 1), float(value))], axis=1)
        masses = np.concatenate([self.masses, self.p_undefined[:, None]], axis=1)
        return DistributionBatch._derived(
            values, masses, np.zeros(len(self)), self.method, self.n_samples
        )

    # ------------------------------------------------------------------ summaries
    def __len__(self) -> int:
        return self.values.shape[0]

    def _defined_mass(self) -> np.ndarray:
        return self.masses.sum(axis=1)

    def _reference(self) -> np.ndarray:
        """The value of each row's first atom of positive mass (0 when there is none)."""
        first = np.argmax(self.masses > 0, axis=1)
        return np.take_along_axis(self.values, first[:, None], axis=1)[:, 0]

    def _central(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Moments about the reference value (a constant row gives exactly 0 spread), of the
        deviations times 2**-k, k per row (:func:`_binary_scale`: exact, and no square
        overflows): the reference, the mean's offset from it, the variance times 2**-2k
        (NaN for a row undefined with probability 1) and k."""
        total = self._defined_mass()
        ref = self._reference()
        shifted = self.values - ref[:, None]
        k = _binary_scale(shifted, self.masses > 0)
        scaled = np.ldexp(shifted, -k[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            first = (scaled * self.masses).sum(axis=1) / total
            # d * (d * mass), not d**2 * mass: a deviation of 1e200 with mass 1e-200 (recall
            # 1/p under recall_form="expected_size") overflowed as a square before the
            # scaling; the order is kept, and with it the bits
            second = (scaled * (scaled * self.masses)).sum(axis=1) / total
        spread = np.where(total > 0, np.maximum(second - first**2, 0.0), np.nan)
        return ref, np.ldexp(first, k), spread, k

    def mean(self) -> np.ndarray:
        """Expected value of each row, given defined (NaN when undefined with probability 1)."""
        ref, offset, _, _ = self._central()
        return np.where(self._defined_mass() > 0, ref + offset, np.nan)

    def var(self) -> np.ndarray:
        """Variance of each row, given defined; inf only past the largest float."""
        _, _, spread, k = self._central()
        with np.errstate(over="ignore"):
            return np.ldexp(spread, 2 * k)

    def std(self) -> np.ndarray:
        """Standard deviation of each row, given defined."""
        _, _, spread, k = self._central()
        return np.ldexp(np.sqrt(spread), k)

    def mc_standard_error(self) -> np.ndarray:
        """Monte Carlo standard error of :meth:`mean` (:func:`monte_carlo_se` of each row's
        draws); 0 when exact."""
        if self.method != "monte_carlo":
            return np.where(np.isnan(self.mean()), np.nan, 0.0)
        assert self.n_samples is not None
        return monte_carlo_se(self.std(), self.n_samples, self.p_undefined)

    def quantile(self, q: float) -> np.ndarray:
        """Smallest value x of each row with P(X <= x | defined) >= q.

        Cumulative sums within 1e-12 of ``q`` count as reaching it, as in
        :meth:`Distribution.quantile`.
        """
        if not 0.0 <= one_real(q, "q") <= 1.0:
            raise ValueError(f"q must be within [0, 1]; got {q!r}")
        return self._quantiles((q,))[0]

    def _quantiles(self, levels: tuple[float, ...]) -> list[np.ndarray]:
        """:meth:`quantile` at several levels from one sort of each row."""
        total = self._defined_mass()
        keyed = np.where(self.masses > 0, self.values, np.inf)
        order = np.argsort(keyed, axis=1, kind="stable")
        sorted_values = np.take_along_axis(keyed, order, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cumulative = np.cumsum(np.take_along_axis(self.masses, order, axis=1), axis=1)
            cumulative /= total[:, None]
        last = np.maximum((self.masses > 0).sum(axis=1) - 1, 0)
        out = []
        for q in levels:
            position = np.minimum((cumulative < q - _CDF_TOLERANCE).sum(axis=1), last)
            value = np.take_along_axis(sorted_values, position[:, None], axis=1)[:, 0]
            out.append(np.where(total > 0, value, np.nan))
        return out

    def interval(self, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed intervals: the quantiles of each row at ``alpha / 2`` and
        ``1 - alpha / 2``, ``alpha`` the tests' significance level
        (:func:`~fuzzytruth._validation.tail_levels`)."""
        low, high = self._quantiles(tail_levels(check_confidence_level(confidence_level)))
        return low, high

    def distribution(self, row: int) -> Distribution:
        """The :class:`Distribution` of one row (built on demand)."""
        if (isinstance(row, bool | np.bool_) or not isinstance(row, Integral)
                or not -len(self) <= row < len(self)):
            raise ValueError(f"row must be an int within [0, {len(self)}); got {row!r}")
        p_undefined = float(self.p_undefined[row])
        if self.masses[row].sum() <= 0:
            return Distribution.undefined()
        method = "exact" if self.method == "point" else self.method
        out = Distribution.from_pmf(
            self.values[row],
            self.masses[row],
            p_undefined=p_undefined,
            method=method,  # type: ignore[arg-type]
            n_samples=self.n_samples,
        )
        return out


class DeferredBatch:
    """A :class:`DistributionBatch` built on first use, whose means are known beforehand.

    An exact per-item law can be wide (a classifier's cross-entropy under a posterior over
    1,000 classes has 1,000 atoms per item) while aggregates need only its mean: the mean and
    the probability of being undefined are kept, the atoms built by ``build()`` when a
    distribution is asked for.

    Parameters
    ----------
    build : callable
        ``build() -> DistributionBatch``, the full batch.
    mean : numpy.ndarray
        ``(n_rows,)`` each row's mean given defined (NaN when undefined for sure).
    p_undefined : numpy.ndarray
        ``(n_rows,)`` probability of being undefined.
    method : str
        How the batch is obtained (as :class:`DistributionBatch`).
    rows : callable, optional
        ``rows(positions) -> DistributionBatch``: the batch of some rows alone, so that
        summaries (:meth:`blocks`) and one row's distribution do not build them all; without
        it, rows are taken from the full batch.
    widths : numpy.ndarray or callable, optional
        ``(n_rows,)`` a bound on each row's number of atoms, which sizes :meth:`blocks`
        (None: rows alike); or a callable giving it (or None) when first asked for, so that a
        batch whose laws are never built never computes it.

    Examples
    --------
    >>> full = DistributionBatch([[0.0, 1.0]], [[0.5, 0.5]], [0.0])
    >>> lazy = DeferredBatch(lambda: full, np.array([0.5]), np.array([0.0]))
    >>> len(lazy), lazy.filled_mean(0.0).tolist(), lazy.resolve() is full
    (1, [0.5], True)
    """

    def __init__(self, build: object, mean: np.ndarray, p_undefined: np.ndarray,
                 method: str = "exact", *, rows: Any = None,
                 widths: np.ndarray | Callable[[], np.ndarray | None] | None = None) -> None:
        self._build = build
        self._mean = np.asarray(mean, dtype=np.float64)
        self.p_undefined = np.asarray(p_undefined, dtype=np.float64)
        self.method = method
        self._rows = rows
        self._widths = widths
        self._built: DistributionBatch | None = None

    def __len__(self) -> int:
        return len(self._mean)

    @property
    def widths(self) -> np.ndarray | None:
        """``(n_rows,)`` a bound on each row's number of atoms, or None (rows alike); given
        as a callable, computed once, when first asked for.

        >>> full = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
        >>> lazy = DeferredBatch(lambda: full, full.mean(), np.zeros(2),
        ...                      widths=lambda: np.array([1, 1]))
        >>> lazy.take(np.array([1])).widths.tolist()
        [1]
        """
        if callable(self._widths):
            self._widths = self._widths()
        return self._widths

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled (and deep-copied) as it is, atoms not built, when ``rows`` is a
        ``functools.partial`` (of a module function over arrays, as every batch the package
        defers gives it): an :class:`~fuzzytruth.evaluation.Evaluation` sent to or from a
        Dask worker carries its inputs, not its laws (10,000 ragged queries' exact recall
        built 1.2 GB of atoms to pickle, in 17 s). Any other ``rows`` or ``build`` (a
        closure, which pickle cannot carry) is built first and travels with the means.

        >>> import pickle
        >>> full = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
        >>> lazy = DeferredBatch(lambda: full, full.mean(), np.zeros(2),
        ...                      rows=functools.partial(DistributionBatch.take, full))
        >>> copy = pickle.loads(pickle.dumps(lazy))
        >>> copy._built is None, copy.resolve().mean().tolist()
        (True, [0.0, 1.0])
        """
        if self._built is None and isinstance(self._rows, functools.partial):
            return _deferred, (self._rows, self._mean, self.p_undefined, self.method,
                               self.widths)
        return _built_deferred, (self.resolve(), self._mean, self.p_undefined, self.method)

    def __repr__(self) -> str:
        state = "built" if self._built is not None else "not built"
        return f"DeferredBatch({len(self)} rows, method={self.method!r}, {state})"

    def mean(self) -> np.ndarray:
        """Each row's mean given defined (NaN when undefined for sure)."""
        return self._mean

    def filled_mean(self, value: float) -> np.ndarray:
        """Each row's mean with the undefined outcome scored ``value`` (as
        :meth:`DistributionBatch.fill_undefined` then :meth:`DistributionBatch.mean`)."""
        u = self.p_undefined
        defined = np.where(u < 1.0, self._mean, 0.0)
        return np.where(u >= 1.0, value, defined * (1.0 - u) + value * u)

    def resolve(self) -> DistributionBatch:
        """The full batch (built once)."""
        if self._built is None:
            self._built = self._build()
        return self._built

    def rows_of(self, rows: np.ndarray) -> DistributionBatch:
        """The batch of rows ``rows`` (positions), in that order, without building the others
        when the batch knows how (``rows`` given) and is not built yet.

        >>> full = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
        >>> lazy = DeferredBatch(lambda: full, np.array([0.0, 1.0]), np.zeros(2),
        ...                      rows=full.take)
        >>> lazy.rows_of(np.array([1])).mean().tolist(), lazy._built is None
        ([1.0], True)
        """
        rows = np.asarray(rows, dtype=np.intp)
        if self._built is not None or self._rows is None:
            return self.resolve().take(rows)
        return self._rows(rows)

    def blocks(self, memory_budget: float) -> Iterator[tuple[np.ndarray, DistributionBatch]]:
        """``(rows, their batch)`` for blocks of rows of like widths whose atoms, with the
        temporaries of a summary (:data:`BYTES_PER_ATOM` each), fit ``memory_budget``: every
        row once, none kept. A row wider than the budget is a block of its own.

        >>> full = DistributionBatch([[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.5], [1.0, 0.0]],
        ...                          [0.0, 0.0])
        >>> lazy = DeferredBatch(lambda: full, full.mean(), np.zeros(2), rows=full.take,
        ...                      widths=np.array([2, 1]))
        >>> [(r.tolist(), b.mean().tolist()) for r, b in lazy.blocks(2 * BYTES_PER_ATOM)]
        [([1], [1.0]), ([0], [0.5])]
        """
        n = len(self)
        widths = np.ones(n, dtype=np.int64) if self.widths is None else self.widths
        blocks = (None if self._built is not None
                  else length_blocks(widths, BYTES_PER_ATOM, memory_budget))
        for rows in [np.arange(n)] if blocks is None else blocks:
            yield rows, self.rows_of(rows)

    def take(self, rows: np.ndarray) -> DeferredBatch:
        """Rows ``rows`` (positions) in that order, the atoms still built on demand.

        >>> full = DistributionBatch([[0.0], [1.0]], [[1.0], [1.0]], [0.0, 0.0])
        >>> lazy = DeferredBatch(lambda: full, np.array([0.0, 1.0]), np.zeros(2))
        >>> taken = lazy.take(np.array([1, 0]))
        >>> taken.mean().tolist(), taken.resolve().mean().tolist()
        ([1.0, 0.0], [1.0, 0.0])
        """
        rows = np.asarray(rows, dtype=np.intp)
        return DeferredBatch(
            functools.partial(self.rows_of, rows), self._mean[rows], self.p_undefined[rows],
            self.method, rows=functools.partial(_taken_rows, self, rows),
            widths=functools.partial(_taken_widths, self, rows))

    @classmethod
    def mixture(cls, components: DeferredBatch, index: np.ndarray,
                weights: np.ndarray) -> DeferredBatch:
        """:meth:`DistributionBatch.mixture` of deferred components: the mixture's means from
        the components' (each weighted by its probability of being defined), the atoms mixed
        when asked for (of the rows asked for, from their components only).

        >>> full = DistributionBatch([[0.0], [1.0]], [[1.0], [0.0]], [0.0, 1.0])
        >>> lazy = DeferredBatch(lambda: full, np.array([0.0, np.nan]), np.array([0.0, 1.0]))
        >>> mixed = DeferredBatch.mixture(lazy, np.array([[0, 1]]), np.array([[0.75, 0.25]]))
        >>> mixed.mean().tolist(), mixed.p_undefined.tolist()
        ([0.0], [0.25])
        >>> mixed.resolve().mean().tolist(), mixed.resolve().p_undefined.tolist()
        ([0.0], [0.25])
        """
        index = np.asarray(index, dtype=np.intp)
        weights = np.where(index >= 0, np.asarray(weights, dtype=float), 0.0)
        safe = np.maximum(index, 0)
        undefined = components.p_undefined[safe]
        defined = weights * (1.0 - undefined)
        mass = defined.sum(axis=1)
        # a component undefined for sure (mean NaN) carries no defined mass
        total = np.where(defined > 0, components._mean[safe] * defined, 0.0).sum(axis=1)
        mean = np.divide(total, mass, out=np.full(len(mass), np.nan), where=mass > 0)
        rows = functools.partial(_mixed_rows, components, index, weights)
        return cls(functools.partial(rows, np.arange(len(index))), mean,
                   (undefined * weights).sum(axis=1), components.method, rows=rows,
                   widths=functools.partial(_mixed_widths, components, index))

    @classmethod
    def concatenate(cls, batches: list[DistributionBatch | DeferredBatch]) -> DeferredBatch:
        """The rows of ``batches`` one after the other (:func:`stack`, when built).

        >>> a = DistributionBatch([[0.0, 1.0]], [[0.5, 0.5]], [0.0])
        >>> b = DeferredBatch(lambda: DistributionBatch([[1.0]], [[1.0]], [0.0]),
        ...                   np.array([1.0]), np.zeros(1))
        >>> both = DeferredBatch.concatenate([a, b])
        >>> both.mean().tolist(), both.rows_of(np.array([1, 0])).mean().tolist()
        ([0.5, 1.0], [1.0, 0.5])
        """
        bounds = np.cumsum([0] + [len(b) for b in batches])
        rows = functools.partial(_concatenated_rows, list(batches), bounds)
        return cls(functools.partial(rows, np.arange(bounds[-1])),
                   np.concatenate([b.mean() for b in batches]),
                   np.concatenate([b.p_undefined for b in batches]), batches[0].method,
                   rows=rows, widths=functools.partial(_concatenated_widths, list(batches)))


BYTES_PER_ATOM = 64
"""Bytes per atom of a deferred batch's block while it is summarised: its value and mass, and
the temporaries of the moments and of the quantiles' sort."""


def _rows_of(batch: DistributionBatch | DeferredBatch, rows: np.ndarray) -> DistributionBatch:
    return batch.rows_of(rows) if isinstance(batch, DeferredBatch) else batch.take(rows)


# The row builders of the deferred batches made from others (module functions, bound by
# functools.partial: a batch pickles with them, atoms not built)


def _taken_rows(batch: DeferredBatch, rows: np.ndarray, some: np.ndarray) -> DistributionBatch:
    """Rows ``some`` of ``batch.take(rows)``."""
    return batch.rows_of(rows[some])


def _taken_widths(batch: DeferredBatch, rows: np.ndarray) -> np.ndarray | None:
    """The widths of ``batch.take(rows)``."""
    return None if batch.widths is None else batch.widths[rows]


def _mixed_widths(components: DeferredBatch, index: np.ndarray) -> np.ndarray | None:
    """The widths of :meth:`DeferredBatch.mixture`: its components' summed."""
    if components.widths is None:
        return None
    return np.where(index >= 0, components.widths[np.maximum(index, 0)], 0).sum(axis=1)


def _concatenated_widths(batches: list[DistributionBatch | DeferredBatch]) -> np.ndarray | None:
    """The widths of :meth:`DeferredBatch.concatenate`, when every part has them."""
    widths = [b.widths if isinstance(b, DeferredBatch) else None for b in batches]
    return None if any(w is None for w in widths) else np.concatenate(widths)


def _mixed_rows(components: DeferredBatch, index: np.ndarray, weights: np.ndarray,
                some: np.ndarray) -> DistributionBatch:
    """Rows ``some`` of :meth:`DeferredBatch.mixture`: their components' rows only."""
    used = index[some]
    needed = np.unique(used[used >= 0])
    at = np.where(used >= 0, np.searchsorted(needed, used), -1)
    return DistributionBatch.mixture(components.rows_of(needed), at, weights[some])


def _concatenated_rows(batches: list[DistributionBatch | DeferredBatch], bounds: np.ndarray,
                       some: np.ndarray) -> DistributionBatch:
    """Rows ``some`` of :meth:`DeferredBatch.concatenate`: each from its part."""
    part = np.searchsorted(bounds, some, side="right") - 1
    order = np.argsort(part, kind="stable")
    built = [_rows_of(batches[i], some[part == i] - bounds[i])
             for i in np.unique(part).tolist()]
    return stack(built).take(np.argsort(order))


def _every_row(rows: functools.partial, n: int) -> DistributionBatch:
    """The whole batch from its row builder."""
    return rows(np.arange(n))


def _deferred(rows: functools.partial, mean: np.ndarray, p_undefined: np.ndarray,
              method: str, widths: np.ndarray | None) -> DeferredBatch:
    """A :class:`DeferredBatch` not built, from its row builder (its unpickling)."""
    return DeferredBatch(functools.partial(_every_row, rows, len(mean)), mean, p_undefined,
                         method, rows=rows, widths=widths)


def stack(batches: list[DistributionBatch]) -> DistributionBatch:
    """The rows of several batches in one; narrower batches padded with zero-mass atoms.

    >>> a = DistributionBatch([[0.0, 1.0]], [[0.5, 0.5]], [0.0])
    >>> stack([a, DistributionBatch([[1.0]], [[1.0]], [0.0])]).values.tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    width = max(b.values.shape[1] for b in batches)

    def padded(array: np.ndarray) -> np.ndarray:
        return np.pad(array, ((0, 0), (0, width - array.shape[1])))

    return DistributionBatch._derived(
        np.concatenate([padded(b.values) for b in batches]),
        np.concatenate([padded(b.masses) for b in batches]),
        np.concatenate([b.p_undefined for b in batches]), batches[0].method,
        batches[0].n_samples)


def _built_deferred(batch: DistributionBatch, mean: np.ndarray, p_undefined: np.ndarray,
                    method: str) -> DeferredBatch:
    """A :class:`DeferredBatch` already built (its unpickling)."""
    out = DeferredBatch(lambda: batch, mean, p_undefined, method)
    out._built = batch
    return out
