"""Distribution: the one result type for an uncertain number."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Literal

import numpy as np
import pandas as pd

from fuzzytruth._frozen import ReadOnlyArrays
from fuzzytruth._random import as_generator
from fuzzytruth._scaling import binary_exponent
from fuzzytruth._validation import (
    check_confidence_level,
    check_fits,
    check_flag,
    one_real,
    real_array,
    same_rows,
    tail_levels,
)

__all__ = ["Distribution"]

Method = Literal["exact", "monte_carlo", "point"]
_METHODS = ("exact", "monte_carlo", "point")
_CDF_TOLERANCE = 1e-12  # a cumulative probability within this of q counts as reaching q
_BYTES_PER_DRAW = 33  # Distribution.sample: a float64 draw and uniform, a flag, a choice


def _binary_scale(deviations: np.ndarray, held: np.ndarray) -> np.ndarray:
    """The binary exponent k (:func:`~fuzzytruth._scaling.binary_exponent`) of the largest
    |deviation| over the atoms ``held``, along the last axis: deviations times 2**-k are below
    1, so their squared moments cannot overflow, and the moments keep their bits wherever they
    did not. Values of 1e200 made a variance of inf (and a batch's NaN, inf - inf) with a
    RuntimeWarning; the standard deviation, 2**k times the scaled one, is finite whenever the
    values are."""
    return binary_exponent(np.abs(np.where(held, deviations, 0.0)).max(axis=-1, initial=0.0))


def monte_carlo_se(std: np.ndarray | float, n_samples: int,
                   p_undefined: np.ndarray | float) -> np.ndarray:
    """The Monte Carlo standard error of a mean over draws, from the standard deviation of
    their empirical distribution (``std``, ddof = 0), their number and the share undefined:
    the sample standard deviation (ddof = 1, as every aggregate's) over the square root of
    the defined draws, NaN from fewer than two (one draw estimates no spread).

    >>> float(monte_carlo_se(0.5, 5, 0.2))  # 4 defined draws: 0.5 * sqrt(4 / 3) / 2
    0.2886751345948129
    >>> float(monte_carlo_se(0.0, 1, 0.0))
    nan
    """
    defined = np.round(n_samples * (1.0 - np.asarray(p_undefined, dtype=np.float64)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(defined > 1, np.asarray(std) / np.sqrt(defined - 1), np.nan)


def _read_only(values: np.ndarray) -> np.ndarray:
    values.flags.writeable = False
    return values


def _invalid_mass(values: np.ndarray) -> tuple[int, ...] | None:
    """Index of the first entry of ``values`` that is not a finite number >= 0 (NaN is not),
    or None: the one check of probabilities, masses and mixture weights.

    >>> _invalid_mass(np.array([0.5, np.nan])), _invalid_mass(np.array([0.0, 1.0]))
    ((1,), None)
    """
    bad = ~(np.isfinite(values) & (values >= 0))
    return tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else None


@dataclass(frozen=True, eq=False)
class Distribution(ReadOnlyArrays):
    """A discrete distribution over finitely many real values.

    Precision, recall and every other measure under uncertain ground truth come back as a
    ``Distribution``: exact when computed in closed form (``method="exact"``), empirical when
    sampled (``method="monte_carlo"``, with :attr:`n_samples`), or a point mass in the crisp case
    (``method="point"``).

    Some measures are undefined in some worlds (recall when nothing is relevant).
    :attr:`p_undefined` is the probability of that event; :attr:`probabilities` are the
    probabilities of the values *given* that the measure is defined, and every moment, quantile
    and interval is conditional on it being defined. When the measure is undefined with
    probability 1, :attr:`support` is empty and those summaries are NaN.

    Parameters
    ----------
    support : array_like
        Distinct values, sorted increasingly (use :meth:`from_pmf` to merge and sort).
    probabilities : array_like
        Non-negative, summing to 1 within 1e-9 (or empty when undefined with probability 1).
    p_undefined : float
        Probability that the quantity is undefined.
    method : {"exact", "monte_carlo", "point"}
        How it was obtained.
    n_samples : int, optional
        Number of draws behind a Monte Carlo distribution.

    Examples
    --------
    >>> d = Distribution.from_pmf([0, 1/3, 2/3, 1], [0.1, 0.2, 0.3, 0.4])
    >>> round(d.mean(), 6)
    0.666667
    >>> d.interval(confidence_level=0.9)
    (0.0, 1.0)
    >>> d.cdf(0.5), d.sf(0.5)
    (0.3, 0.7)
    >>> d.quantile(0.5)
    0.6666666666666666
    """

    support: np.ndarray
    probabilities: np.ndarray
    p_undefined: float = 0.0
    method: Method = "exact"
    n_samples: int | None = field(default=None)

    def __post_init__(self) -> None:
        same_rows({"support": self.support, "probabilities": self.probabilities})
        support = np.array(self.support, dtype=float).ravel()
        probs = np.array(self.probabilities, dtype=float).ravel()
        if support.shape != probs.shape:
            raise ValueError(
                f"support and probabilities must have the same length; got {support.size} "
                f"and {probs.size}"
            )
        if not np.all(np.isfinite(support)):
            raise ValueError("support must hold finite values")
        if np.any(np.diff(support) <= 0):
            raise ValueError("support must be strictly increasing (use Distribution.from_pmf)")
        at = _invalid_mass(probs)
        if at is not None:
            raise ValueError(
                f"probabilities must be finite and >= 0; got {float(probs[at])!r} at position "
                f"{at[0]}"
            )
        if not 0.0 <= self.p_undefined <= 1.0:
            raise ValueError(f"p_undefined must be within [0, 1]; got {self.p_undefined!r}")
        total = probs.sum()
        if support.size == 0:
            if self.p_undefined < 1 - 1e-9:
                raise ValueError("an empty support needs p_undefined = 1")
        elif abs(total - 1.0) > 1e-9:
            raise ValueError(
                f"probabilities must sum to 1 within 1e-9; they sum to {float(total)!r}"
            )
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}; got {self.method!r}")
        if self.method == "monte_carlo" and (self.n_samples is None or self.n_samples < 1):
            raise ValueError("a monte_carlo distribution needs n_samples >= 1")
        object.__setattr__(self, "support", _read_only(support))
        object.__setattr__(self, "probabilities", _read_only(probs))
        object.__setattr__(self, "p_undefined", float(self.p_undefined))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def point_mass(cls, value: float) -> Distribution:
        """All the mass on one value: the crisp case.

        >>> Distribution.point_mass(0.5).std()
        0.0
        """
        return cls(np.array([value]), np.array([1.0]), method="point")

    @classmethod
    def undefined(cls) -> Distribution:
        """A quantity that is undefined with probability 1 (e.g. recall with nothing relevant)."""
        return cls(np.empty(0), np.empty(0), p_undefined=1.0, method="point")

    @classmethod
    def from_pmf(
        cls,
        values: Sequence[float] | np.ndarray,
        probabilities: Sequence[float] | np.ndarray,
        *,
        p_undefined: float = 0.0,
        method: Method = "exact",
        n_samples: int | None = None,
    ) -> Distribution:
        """Build from values in any order, merging equal values and dropping zero masses.

        ``probabilities`` may sum to 1 − ``p_undefined`` (masses of the defined values); they
        are renormalised to the conditional distribution.

        >>> Distribution.from_pmf([0.5, 0.0, 0.5], [0.25, 0.5, 0.25]).support.tolist()
        [0.0, 0.5]
        """
        same_rows({"values": values, "probabilities": probabilities})
        values = real_array(values, "values").ravel()
        probs = real_array(probabilities, "probabilities").ravel()
        if values.shape != probs.shape:
            raise ValueError(
                f"values and probabilities must have the same length; got {values.size} and "
                f"{probs.size}"
            )
        at = _invalid_mass(probs)
        if at is not None:
            raise ValueError(
                f"probabilities must be finite and >= 0; got {float(probs[at])!r} at position "
                f"{at[0]}"
            )
        keep = probs > 0
        support, inverse = np.unique(values[keep], return_inverse=True)
        merged = np.bincount(inverse, weights=probs[keep], minlength=support.size)
        total = merged.sum()
        if total <= 0:
            return cls.undefined()
        expected = 1.0 - p_undefined
        if abs(total - expected) > 1e-9 and abs(total - 1.0) > 1e-9:
            raise ValueError(
                f"probabilities sum to {float(total)!r}; expected 1 or 1 - p_undefined "
                f"= {expected!r}"
            )
        if method == "exact" and support.size == 1 and p_undefined == 0:
            method = "point"
        return cls(support, merged / total, p_undefined, method, n_samples)

    @classmethod
    def from_samples(cls, samples: Sequence[float] | np.ndarray) -> Distribution:
        """The empirical distribution of Monte Carlo draws; NaN draws count as undefined.

        >>> d = Distribution.from_samples([0.0, 1.0, 1.0, np.nan])
        >>> d.p_undefined, round(d.mean(), 4)
        (0.25, 0.6667)
        """
        samples = np.asarray(samples, dtype=float).ravel()
        if samples.size == 0:
            raise ValueError("samples must not be empty")
        defined = ~np.isnan(samples)
        values, counts = np.unique(samples[defined], return_counts=True)
        n = samples.size
        p_undefined = (n - int(defined.sum())) / n
        if values.size == 0:
            return cls(values, counts.astype(float), 1.0, "monte_carlo", n)
        return cls(values, counts / counts.sum(), p_undefined, "monte_carlo", n)

    @classmethod
    def mixture(
        cls, components: Sequence[Distribution], weights: Sequence[float] | np.ndarray
    ) -> Distribution:
        """Mixture Σ_c w_c D_c (weights normalised to sum to 1).

        Undefinedness mixes too: p_undefined = Σ_c w_c u_c.

        >>> a, b = Distribution.point_mass(0.0), Distribution.point_mass(1.0)
        >>> Distribution.mixture([a, b], [3, 1]).mean()
        0.25
        """
        weights = real_array(weights, "weights")
        if len(components) == 0 or len(components) != weights.size:
            raise ValueError(
                f"need one weight per component; got {len(components)} components and "
                f"{weights.size} weights"
            )
        at = _invalid_mass(weights)
        if at is not None or weights.sum() <= 0:
            got = f"{float(weights[at])!r} at position {at[0]}" if at else "a sum of 0"
            raise ValueError(
                f"mixture weights must be finite and >= 0 with a positive sum; got {got}"
            )
        weights = weights / weights.sum()
        values = np.concatenate([c.support for c in components])
        masses = np.concatenate(
            [
                w * (1 - c.p_undefined) * c.probabilities
                for c, w in zip(components, weights, strict=True)
            ]
        )
        p_undefined = float(
            sum(w * c.p_undefined for c, w in zip(components, weights, strict=True))
        )
        methods = {c.method for c in components}
        method: Method = "monte_carlo" if "monte_carlo" in methods else "exact"
        n_samples = min((c.n_samples for c in components if c.n_samples), default=None)
        if masses.sum() <= 0:
            return cls.undefined()
        return cls.from_pmf(
            values, masses, p_undefined=p_undefined, method=method, n_samples=n_samples
        )

    # ------------------------------------------------------------------ summaries
    def _defined(self) -> bool:
        return self.support.size > 0

    def mean(self) -> float:
        """Expected value (given defined)."""
        return float(self.support @ self.probabilities) if self._defined() else float("nan")

    def _scaled_var(self) -> tuple[float, int]:
        """The variance times 2**-2k and k (:func:`_binary_scale`); NaN when undefined."""
        if not self._defined():
            return float("nan"), 0
        centred = self.support - self.mean()
        k = int(_binary_scale(centred, self.probabilities > 0))
        centred = np.ldexp(centred, -k)
        # d @ (d * probability), not d**2 @ probability: a value of 1e200 with probability
        # 1e-200 overflowed as a square before the scaling; the order is kept, and with it the
        # bits (DistributionBatch._central's order too)
        return float(np.maximum(centred @ (centred * self.probabilities), 0.0)), k

    def var(self) -> float:
        """Variance (given defined); inf only when it is past the largest float (values of
        1e200: the standard deviation is still finite)."""
        scaled, k = self._scaled_var()
        with np.errstate(over="ignore"):
            return float(np.ldexp(scaled, 2 * k))

    def std(self) -> float:
        """Standard deviation (given defined)."""
        scaled, k = self._scaled_var()
        return float(np.ldexp(np.sqrt(scaled), k))

    def mc_standard_error(self) -> float:
        """Monte Carlo standard error of :meth:`mean` (:func:`monte_carlo_se` of its draws);
        0 when exact."""
        if self.method != "monte_carlo":
            return 0.0
        assert self.n_samples is not None
        return float(monte_carlo_se(self.std(), self.n_samples, self.p_undefined))

    def cdf(self, x: float) -> float:
        """P(X <= x), given defined (NaN at ``x`` NaN)."""
        x = one_real(x, "x")
        if not self._defined() or np.isnan(x):
            return float("nan")
        return float(self.probabilities[self.support <= x].sum())

    def sf(self, x: float) -> float:
        """P(X > x), given defined (NaN at ``x`` NaN): :meth:`probability_greater`."""
        return self.probability_greater(one_real(x, "x"))

    def probability_greater(self, threshold: float, *, inclusive: bool = False) -> float:
        """P(X > threshold), or P(X >= threshold) with ``inclusive=True``, given defined (NaN
        at ``threshold`` NaN)."""
        inclusive = check_flag("inclusive", inclusive)
        threshold = one_real(threshold, "threshold")
        if not self._defined() or np.isnan(threshold):
            return float("nan")
        mask = self.support >= threshold if inclusive else self.support > threshold
        return float(self.probabilities[mask].sum())

    def quantile(self, q: float) -> float:
        """Smallest value x with P(X <= x) >= q (the generalised inverse of the cdf).

        Cumulative sums within 1e-12 of ``q`` count as reaching it, so that rounding in the
        probabilities never moves a quantile to the next support point.
        """
        if not 0.0 <= one_real(q, "q") <= 1.0:
            raise ValueError(f"q must be within [0, 1]; got {q!r}")
        if not self._defined():
            return float("nan")
        cumulative = np.cumsum(self.probabilities)
        position = int(np.searchsorted(cumulative, q - _CDF_TOLERANCE, side="left"))
        return float(self.support[min(position, self.support.size - 1)])

    def interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Equal-tailed interval: the quantiles at ``alpha / 2`` and ``1 - alpha / 2``, where
        ``alpha = 1 - confidence_level`` rounded to 12 decimals, the tests' significance level
        (:func:`~fuzzytruth._validation.tail_levels`).

        For a discrete distribution the interval covers at least ``confidence_level`` of the
        (defined) mass.
        """
        low, high = tail_levels(check_confidence_level(confidence_level))
        return self.quantile(low), self.quantile(high)

    def sample(
        self, size: int | tuple[int, ...] = 1, *, rng: np.random.Generator | int | None = None
    ) -> np.ndarray:
        """Draws from the distribution (NaN for an undefined draw).

        >>> Distribution.point_mass(2.0).sample(3, rng=0).tolist()
        [2.0, 2.0, 2.0]
        """
        shape = (size,) if isinstance(size, Integral) else size
        if (isinstance(size, bool) or not isinstance(shape, tuple)
                or not all(isinstance(k, Integral) and not isinstance(k, bool) and k >= 0
                           for k in shape)):
            raise ValueError(f"size must be an int >= 0 or a tuple of them; got {size!r}")
        rng = as_generator(rng)
        n = int(np.prod(size))
        # the draws, their uniforms, the defined flags and the choices: numpy's MemoryError
        # named an array shape, not the parameter (size=10**13: 72.8 TiB)
        check_fits("size", n, _BYTES_PER_DRAW, None, "draws", "draw")
        out = np.full(n, np.nan)
        if self._defined():
            defined = rng.random(n) >= self.p_undefined
            out[defined] = rng.choice(self.support, size=int(defined.sum()), p=self.probabilities)
        return out.reshape(size)

    def summary(self, confidence_level: float = 0.95) -> dict[str, float | str | int | None]:
        """Mean, std, equal-tailed interval, p_undefined and method, as a dict."""
        low, high = self.interval(confidence_level) if self._defined() else (np.nan, np.nan)
        return {
            "mean": self.mean(),
            "std": self.std(),
            "ci_low": low,
            "ci_high": high,
            "confidence_level": confidence_level,
            "p_undefined": self.p_undefined,
            "method": self.method,
            "n_samples": self.n_samples,
        }

    def to_frame(self) -> pd.DataFrame:
        """The PMF as a tidy table ``value, probability`` (given defined).

        >>> Distribution.from_pmf([0, 1], [0.5, 0.5]).to_frame()
           value  probability
        0    0.0          0.5
        1    1.0          0.5
        """
        return pd.DataFrame({"value": self.support, "probability": self.probabilities})

    def __repr__(self) -> str:
        if not self._defined():
            return "Distribution(undefined with probability 1)"
        extra = f", p_undefined={self.p_undefined:.4g}" if self.p_undefined else ""
        return (
            f"Distribution(mean={self.mean():.4g}, std={self.std():.4g}, "
            f"{self.support.size} values, method={self.method!r}{extra})"
        )

