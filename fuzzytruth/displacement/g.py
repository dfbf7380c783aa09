"""The normalisation of a weighted displacement ``w`` into a quality ``q`` (Santini eq. 18).

``q = g(w)`` for a monotone decreasing ``g : [0, ∞) → [0, 1]``: :class:`RationalG`
``1/(1+x)^p`` (the default, ``p = 1``), :class:`ExponentialG` ``exp(−λx)``, or any vectorised
callable, checked numerically by :func:`check_g`. Beyond the paper, ``"scale_free"`` is
``q = 1 − w / w_max`` with ``w_max = N Σ_k s_k`` (see :mod:`fuzzytruth.displacement`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fuzzytruth._validation import check_number, real_array

__all__ = ["G_NAMES", "ExponentialG", "RationalG", "check_g", "qualities", "resolve_g"]

G_NAMES = ("rational", "exponential", "scale_free")
"""The normalisations named by a string."""


@dataclass(frozen=True)
class RationalG:
    """The rational quality function ``g(x) = 1 / (1 + x)^p`` (Santini, after eq. 18).

    Parameters
    ----------
    p : float
        Positive exponent (any real number > 0, Python's or NumPy's; stored as a float);
        larger values penalise displacement faster.

    Examples
    --------
    >>> RationalG(p=2)(np.array([0.0, 1.0, 3.0]))
    array([1.    , 0.25  , 0.0625])
    """

    p: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", check_number("p", self.p, strict=True))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate ``g`` elementwise on non-negative displacements ``x``.

        ``(1 + x)^p`` beyond the largest double is infinite and ``g`` there 0, its limit:
        numpy's overflow warning is not passed on (a large ``p`` is a legal choice).
        """
        with np.errstate(over="ignore"):
            return 1.0 / (1.0 + np.asarray(x, dtype=float)) ** self.p


@dataclass(frozen=True)
class ExponentialG:
    """The exponential quality function ``g(x) = exp(−λ x)`` (Santini, after eq. 18).

    Parameters
    ----------
    lam : float
        Positive rate λ (any real number > 0, Python's or NumPy's; stored as a float).

    Examples
    --------
    >>> ExponentialG(lam=0.5)(np.array([0.0, 2.0]))
    array([1.        , 0.36787944])
    """

    lam: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", check_number("lam", self.lam, strict=True))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate ``g`` elementwise on non-negative displacements ``x``.

        ``λ x`` beyond the largest double is infinite and ``g`` there 0, its limit: numpy's
        overflow warning is not passed on (a large ``λ`` is a legal choice).
        """
        with np.errstate(over="ignore"):
            return np.exp(-self.lam * np.asarray(x, dtype=float))


_G_GRID = np.concatenate(([0.0], np.geomspace(1e-6, 1e12, 181)))


def check_g(g: Callable[[np.ndarray], Any], *, x: np.ndarray | None = None) -> None:
    """Check numerically that ``g`` maps [0, ∞) monotonically decreasing into [0, 1].

    ``g`` is evaluated once, vectorised, on a grid of 182 points from 0 to 1e12 (0 and a
    geometric grid from 1e-6), merged with the displacements ``x`` it will be applied to. It must
    return an array of the same shape, finite, within [0, 1], never increasing along the sorted
    points (a slack of 1e-12 absorbs rounding), and strictly lower at the largest point than at
    0. A check on a grid cannot prove monotonicity; it catches increasing, constant and
    out-of-range functions.

    Parameters
    ----------
    g : callable
        Vectorised function of a float array.
    x : numpy.ndarray, optional
        Displacements (≥ 0) that will be normalised; added to the grid.

    Raises
    ------
    ValueError
        If ``g`` fails any of the conditions above; the message says which, and where.

    Examples
    --------
    >>> check_g(lambda x: 1 / (1 + x) ** 0.5)
    >>> check_g(lambda x: x / (1 + x))
    Traceback (most recent call last):
    ...
    ValueError: g must be monotone decreasing on [0, inf); got g(0)=0 < g(1e-06)=1e-06
    """
    grid = _G_GRID
    if x is not None:
        w = real_array(x, "x", expected="displacements").ravel()
        bad = ~(w >= 0) | ~np.isfinite(w)
        if bad.any():
            raise ValueError(f"x must hold finite displacements >= 0; got {int(bad.sum())} "
                             f"values that are not, e.g. {w[np.argmax(bad)]:g}")
        grid = np.unique(np.concatenate((grid, w)))
    try:
        y = np.asarray(g(grid), dtype=float)
    except Exception as exc:
        raise ValueError(
            f"g must accept a float array and return an array of the same shape; calling it "
            f"on an array of shape {grid.shape} raised {type(exc).__name__}: {exc}"
        ) from exc
    if y.shape != grid.shape:
        raise ValueError(
            f"g must be vectorised: for an input of shape {grid.shape} it returned shape {y.shape}"
        )
    bad = ~np.isfinite(y) | (y < 0) | (y > 1)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"g must map into [0, 1]; got g({grid[j]:.6g})={y[j]:.6g}")
    rise = np.diff(y) > 1e-12
    if rise.any():
        j = int(np.argmax(rise))
        raise ValueError(
            f"g must be monotone decreasing on [0, inf); got g({grid[j]:.6g})={y[j]:.6g} < "
            f"g({grid[j + 1]:.6g})={y[j + 1]:.6g}"
        )
    if not y[-1] < y[0]:
        raise ValueError(f"g must decrease: g(0)={y[0]:.6g} equals g({grid[-1]:.6g})={y[-1]:.6g}")


def resolve_g(g: str | Callable[[np.ndarray], Any]) -> tuple[Callable | None, str]:
    """``(function, description)`` of a ``g`` argument; the function is None for
    ``"scale_free"``.

    Examples
    --------
    >>> resolve_g("exponential")
    (ExponentialG(lam=1.0), 'ExponentialG(lam=1.0)')
    """
    if isinstance(g, str):
        if g == "rational":
            return RationalG(), repr(RationalG())
        if g == "exponential":
            return ExponentialG(), repr(ExponentialG())
        if g == "scale_free":
            return None, "scale_free"
        raise ValueError(
            f"g must be 'rational', 'exponential', 'scale_free' or a callable; got {g!r}"
        )
    if not callable(g):
        raise ValueError(
            "g must be 'rational', 'exponential', 'scale_free' or a callable; "
            f"got {type(g).__name__}"
        )
    if isinstance(g, RationalG | ExponentialG):
        return g, repr(g)
    return g, getattr(g, "__name__", repr(g))


def qualities(
    w: dict[str, np.ndarray], w_max: np.ndarray, g: Callable | None
) -> dict[str, np.ndarray]:
    """``q`` for each hypothesis's displacements ``w[h]``: ``g(w)``, or the scale-free
    ``1 − w / w_max`` (1 where ``w_max = 0``) when ``g`` is None.

    A user's ``g`` is checked by :func:`check_g` on a grid merged with every ``w`` first.

    Examples
    --------
    >>> qualities({"optimist": np.array([1.0, 0.0])}, np.array([4.0, 0.0]), None)
    {'optimist': array([0.75, 1.  ])}
    """
    if g is None:
        return {
            h: 1.0 - np.divide(v, w_max, out=np.zeros(len(w_max)), where=w_max > 0)
            for h, v in w.items()
        }
    w_all = np.concatenate(list(w.values()))
    if not isinstance(g, RationalG | ExponentialG):
        check_g(g, x=w_all)
    q_all = np.asarray(g(w_all), dtype=float).reshape(len(w), -1)
    return dict(zip(w, q_all, strict=True))
