"""Keyed Gamma and Dirichlet draws: a draw depends on the seed, the stream, the unit key and
the world's number only, like every draw of :mod:`fuzzytruth._random`.

A unit's 64-bit state in a world is SplitMix64's finaliser of its key mixed with the seed and
the stream, offset by the world times the golden-ratio constant (the scheme of
:mod:`fuzzytruth._random`); the ``k``-th uniform of the draw is the finaliser of that
state offset by ``k`` times the constant. Gamma(a) variates are Marsaglia & Tsang's (2000)
squeeze–rejection method for ``a >= 1`` (normals by Box–Muller), boosted for ``a < 1`` by
``U**(1/a)``; ``a == 0`` gives exactly 0 (a degenerate Dirichlet component). Compiled with
numba at first use.

Examples
--------
>>> keys = np.arange(3, dtype=np.uint64)
>>> g = gammas(1, 2, keys, np.array([0.5, 2.0, 0.0]), np.arange(4))
>>> g.shape, bool((g[:, 2] == 0).all()), bool((g[:, :2] > 0).all())
((4, 3), True, True)
>>> bool((gammas(1, 2, keys[1:], np.array([2.0, 0.0]), np.arange(2, 4)) == g[2:, 1:]).all())
True
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy.special import gammainc, gammaincinv

__all__ = ["dirichlet", "gammas", "gammas_below"]

_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def _mix_py(z):  # pragma: no cover - compiled
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))


def _uniform_py(state, k):  # pragma: no cover - compiled
    """The k-th uniform in (0, 1) of a unit's state (never exactly 0)."""
    z = _mix(state + np.uint64(k) * np.uint64(_GOLDEN))
    return ((z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)


def _gamma_py(a, state):  # pragma: no cover - compiled
    """One Gamma(a) variate from a unit's state (Marsaglia–Tsang; boosted when a < 1)."""
    if a <= 0.0:
        return 0.0
    boost = 1.0
    k = 1
    if a < 1.0:
        boost = math.exp(math.log(_uniform(state, k)) / a)
        k += 1
        a = a + 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        u1 = _uniform(state, k)
        u2 = _uniform(state, k + 1)
        k += 2
        x = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = _uniform(state, k)
        k += 1
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * boost


def _gammas_py(base, shape, worlds, out):  # pragma: no cover - compiled
    for w in range(len(worlds)):
        offset = (np.uint64(worlds[w]) + np.uint64(1)) * np.uint64(_GOLDEN)
        for i in range(len(base)):
            out[w, i] = _gamma(shape[i], _mix(base[i] + offset))


_ATTEMPTS = 32


def _gammas_below_py(base, shape, bound, worlds, out, fallback):  # pragma: no cover - compiled
    """Gamma(shape) conditioned below ``bound[w, i]``: rejection, attempt ``t`` on the state
    offset by ``t`` times a second constant; after ``_ATTEMPTS`` rejections ``out`` is NaN and
    ``fallback`` holds a uniform for an inverse-CDF draw. A bound <= 0 gives 0."""
    for w in range(len(worlds)):
        offset = (np.uint64(worlds[w]) + np.uint64(1)) * np.uint64(_GOLDEN)
        for i in range(len(base)):
            if bound[w, i] <= 0.0:
                out[w, i] = 0.0
                continue
            state = _mix(base[i] + offset)
            out[w, i] = np.nan
            for attempt in range(_ATTEMPTS):
                g = _gamma(shape[i], _mix(state + np.uint64(attempt) * np.uint64(_M1)))
                if g < bound[w, i]:
                    out[w, i] = g
                    break
            if np.isnan(out[w, i]):
                fallback[w, i] = _uniform(state, 0)


_mix: Any = _mix_py
_uniform: Any = _uniform_py
_gamma: Any = _gamma_py


@functools.cache
def _kernels() -> dict[str, Any]:
    import numba

    global _mix, _uniform, _gamma
    jit = numba.njit(cache=True, nogil=True)
    _mix = jit(_mix_py)
    _uniform = jit(_uniform_py)
    _gamma = jit(_gamma_py)
    return {"gammas": jit(_gammas_py), "gammas_below": jit(_gammas_below_py)}


def stream_base(seed: int, stream: int, keys: np.ndarray) -> np.ndarray:
    """Per unit, its key mixed with the seed and the stream (uint64)."""
    with np.errstate(over="ignore"):
        z = np.asarray(keys, dtype=np.uint64) ^ np.uint64(seed)
        z = z ^ (np.uint64(stream) * np.uint64(_M2))
        z = z ^ (z >> np.uint64(30))
        z = z * np.uint64(_M1)
        z = z ^ (z >> np.uint64(27))
        z = z * np.uint64(_M2)
        return z ^ (z >> np.uint64(31))


def gammas(
    seed: int, stream: int, keys: np.ndarray, shape: np.ndarray, worlds: np.ndarray
) -> np.ndarray:
    """``(n_worlds, n_units)`` keyed Gamma(``shape[i]``, 1) variates (0 where the shape is 0).

    Parameters
    ----------
    seed, stream : int
        As in :func:`fuzzytruth._random.uniforms`.
    keys : numpy.ndarray
        ``(n_units,)`` uint64 unit keys.
    shape : numpy.ndarray
        ``(n_units,)`` non-negative shape parameters.
    worlds : numpy.ndarray
        ``(n_worlds,)`` world numbers.
    """
    base = stream_base(seed, stream, keys)
    out = np.empty((len(worlds), len(base)))
    _kernels()["gammas"](
        base, np.ascontiguousarray(shape, dtype=np.float64),
        np.asarray(worlds, dtype=np.uint64), out,
    )
    return out


def gammas_below(
    seed: int, stream: int, keys: np.ndarray, shape: np.ndarray, bound: np.ndarray,
    worlds: np.ndarray,
) -> np.ndarray:
    """``(n_worlds, n_units)`` keyed Gamma(``shape[i]``) variates conditioned to be below
    ``bound[w, i]``: by rejection (each attempt a fresh keyed draw); after 32 rejections (a bound
    far in the lower tail) by inversion, P⁻¹(a, V · P(a, bound)) with a keyed uniform V; 0 for a
    bound <= 0 (below the smallest double).

    Examples
    --------
    >>> keys = np.arange(4, dtype=np.uint64)
    >>> g = gammas_below(3, 1, keys, np.full(4, 0.5), np.full((2, 4), 0.1), np.arange(2))
    >>> bool(((0 <= g) & (g < 0.1)).all())
    True
    >>> tiny = gammas_below(3, 1, keys, np.full(4, 0.01), np.full((2, 4), 1e-200), np.arange(2))
    >>> bool(((0 <= tiny) & (tiny < 1e-200)).all())  # by inversion: rejection would not end
    True
    """
    base = stream_base(seed, stream, keys)
    out = np.empty((len(worlds), len(base)))
    fallback = np.zeros_like(out)
    shape = np.ascontiguousarray(shape, dtype=np.float64)
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    _kernels()["gammas_below"](base, shape, bound, np.asarray(worlds, dtype=np.uint64), out,
                               fallback)
    missed = np.isnan(out)
    if missed.any():
        a = np.broadcast_to(shape, out.shape)[missed]
        out[missed] = np.minimum(
            gammaincinv(a, fallback[missed] * gammainc(a, bound[missed])),
            np.nextafter(bound[missed], 0))
    return out


def dirichlet(
    seed: int, stream: int, keys: np.ndarray, concentration: np.ndarray, worlds: np.ndarray
) -> np.ndarray:
    """Keyed Dirichlet rows: ``(n_worlds, *concentration.shape)``, each row (last axis) the
    normalised Gamma draws of its components; ``keys`` has one key per component
    (``concentration.shape``). A row whose concentrations are all 0 stays all 0."""
    flat = gammas(seed, stream, keys.ravel(), concentration.ravel(), worlds)
    draws = flat.reshape(len(worlds), *concentration.shape)
    total = draws.sum(axis=-1, keepdims=True)
    np.divide(draws, total, out=draws, where=total > 0)
    return draws
