"""Counter-based random draws keyed by (seed, stream, unit, world).

Every random quantity of a sampled world — an item's label, a pair's relevance, a query's
target — is a function of the seed, of what is drawn (``stream``), of the unit it belongs to
(a stable 64-bit key from its ids) and of the world's number, and of nothing else. So a world
is the same whatever the chunking of worlds, the order or the partitioning of queries and items
(on one machine or on a Dask cluster), and whatever else is evaluated with it: adding a measure
or a system changes no other number.

The generator is SplitMix64's output function applied twice (Steele, Lea & Flood 2014): the
unit key is mixed with the seed and the stream, then offset by the world times the golden
ratio constant and mixed again; the top 53 bits make a uniform double in [0, 1).

Examples
--------
>>> keys = unit_keys(np.array(["a", "b", "c"], dtype=object))
>>> u = uniforms(7, 1, keys, np.arange(4))
>>> u.shape, bool(((0 <= u) & (u < 1)).all())
((4, 3), True)
>>> bool((uniforms(7, 1, keys[1:], np.arange(2, 4)) == u[2:, 1:]).all())  # any subset
True
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "bernoulli_counts",
    "categorical_draws",
    "draw_seed",
    "index_counts",
    "pair_keys",
    "uniforms",
    "unit_keys",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, in place on a uint64 array (arithmetic wraps modulo 2**64).

    One scratch buffer and ``out=`` everywhere: fresh temporaries would cost more in page
    faults than the arithmetic itself.
    """
    tmp = np.empty_like(z)
    for shift, factor in ((30, _M1), (27, _M2), (31, None)):
        np.right_shift(z, np.uint64(shift), out=tmp)
        np.bitwise_xor(z, tmp, out=z)
        if factor is not None:
            np.multiply(z, factor, out=z)
    return z


def unit_keys(ids: np.ndarray) -> np.ndarray:
    """Stable uint64 keys of string ids (pandas' SipHash of the text, the same on any machine)."""
    return pd.util.hash_array(np.asarray(ids, dtype=object).astype(str).astype(object))


def pair_keys(pairs: Any, rows: np.ndarray | None = None) -> np.ndarray:
    """Stable uint64 keys of the (query, document) pairs of a Run or Qrels (``rows`` of it):
    each distinct id is hashed once."""
    doc_codes, doc_uniques = pd.factorize(pairs._docs)
    query_keys = unit_keys(np.asarray(pairs._q_uniques, dtype=object))[pairs._q_codes]
    doc_keys = unit_keys(np.asarray(doc_uniques, dtype=object))[doc_codes]
    if rows is not None:
        query_keys, doc_keys = query_keys[rows], doc_keys[rows]
    with np.errstate(over="ignore"):
        return _mix(query_keys * _GOLDEN + doc_keys)


def draw_seed(rng: np.random.Generator) -> int:
    """The seed of the keyed draws, taken from the one ``rng`` argument."""
    return int(rng.integers(0, 2**63))


def uniforms(seed: int, stream: int, keys: np.ndarray, worlds: np.ndarray) -> np.ndarray:
    """``(n_worlds, n_units)`` uniforms in [0, 1): one per (world, unit), keyed.

    Parameters
    ----------
    seed : int
        From :func:`draw_seed`.
    stream : int
        What is drawn (labels, pair relevance, targets...): distinct streams are independent.
    keys : numpy.ndarray
        ``(n_units,)`` uint64 unit keys (:func:`unit_keys`, :func:`pair_keys`).
    worlds : numpy.ndarray
        ``(n_worlds,)`` world numbers.
    """
    worlds = np.asarray(worlds, dtype=np.uint64)
    base = _stream_base(seed, stream, keys)
    with np.errstate(over="ignore"):
        z = np.add(base[None, :], ((worlds + np.uint64(1)) * _GOLDEN)[:, None])
        _mix(z)
    np.right_shift(z, np.uint64(11), out=z)
    out = z.astype(np.float64)
    out *= 1.0 / 2**53
    return out


def _stream_base(seed: int, stream: int, keys: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _mix(np.asarray(keys, dtype=np.uint64) ^ np.uint64(seed) ^ (np.uint64(stream) * _M2))


def bernoulli_counts(
    seed: int,
    stream: int,
    keys: np.ndarray,
    probability: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    worlds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Keyed Bernoulli draws and their sums per group, in one compiled pass.

    ``bits[w, i] = uniforms(seed, stream, keys, worlds)[w, i] < probability[i]`` (exactly the
    same uniforms), and ``counts[w, g]`` the number of true bits of group ``g`` (``group`` is
    ``(n_units,)``, in ``0..n_groups-1``).

    Examples
    --------
    >>> keys = unit_keys(np.array(list("abcd"), dtype=object))
    >>> bits, counts = bernoulli_counts(3, 1, keys, np.full(4, 0.5), np.array([0, 0, 1, 1]), 2,
    ...                                 np.arange(5))
    >>> bool((bits == (uniforms(3, 1, keys, np.arange(5)) < 0.5)).all())
    True
    >>> bool((counts == bits.reshape(5, 2, 2).sum(axis=2)).all())
    True
    """
    base = _stream_base(seed, stream, keys)
    threshold = np.ceil(np.asarray(probability, dtype=np.float64) * 2.0**53).astype(np.uint64)
    bits = np.empty((len(worlds), len(base)), dtype=np.bool_)
    counts = np.zeros((len(worlds), n_groups), dtype=np.int64)
    _kernels()["bernoulli"](
        base, threshold, np.asarray(group, dtype=np.int64),
        np.asarray(worlds, dtype=np.uint64), bits, counts,
    )
    return bits, counts


def _bernoulli_py(base, threshold, group, worlds, bits, counts):  # pragma: no cover - compiled
    for w in range(len(worlds)):
        for i in range(len(base)):
            hit = _draw53(base[i], worlds[w]) < threshold[i]
            bits[w, i] = hit
            counts[w, group[i]] += hit


def categorical_draws(
    seed: int, stream: int, keys: np.ndarray, cum: np.ndarray, worlds: np.ndarray
) -> np.ndarray:
    """Keyed inverse-CDF draws: ``out[w, i]`` is the first column of ``cum[i]`` (increasing,
    last column >= 1) above ``uniforms(seed, stream, keys, worlds)[w, i]``; compiled.

    Examples
    --------
    >>> keys = unit_keys(np.array(["a", "b"], dtype=object))
    >>> cum = np.array([[0.5, 1.0, 1.0], [0.1, 0.2, 1.0]])
    >>> draws = categorical_draws(1, 2, keys, cum, np.arange(6))
    >>> u = uniforms(1, 2, keys, np.arange(6))
    >>> bool((draws == (u[:, :, None] >= cum[None]).sum(axis=2)).all())
    True
    """
    base = _stream_base(seed, stream, keys)
    out = np.empty((len(worlds), len(base)), dtype=np.int64)
    _kernels()["categorical"](
        base, np.ascontiguousarray(cum, dtype=np.float64), np.asarray(worlds, dtype=np.uint64),
        out,
    )
    return out


def _categorical_py(base, cum, worlds, out):  # pragma: no cover - compiled
    scale = 1.0 / 2.0**53
    last = cum.shape[1] - 1
    for w in range(len(worlds)):
        for i in range(len(base)):
            u = np.float64(_draw53(base[i], worlds[w])) * scale
            j = 0
            while j < last and cum[i, j] <= u:
                j += 1
            out[w, i] = j


def index_counts(seed: int, stream: int, n_items: int, worlds: np.ndarray) -> np.ndarray:
    """Keyed draws with replacement of ``n_items`` items, counted: one pass, compiled.

    In world (replicate) ``w``, draw ``j`` is item ``floor(u * n_items)`` with ``u`` the
    uniform of unit ``j`` (``uniforms(seed, stream, arange(n_items), worlds)[w, j]``, exactly);
    ``out[w, i]`` counts the draws of item ``i``. A bootstrap replicate is then the same
    whatever block of replicates it is computed in, here or on a cluster.

    Examples
    --------
    >>> u = uniforms(5, 2, np.arange(4, dtype=np.uint64), np.arange(3))
    >>> direct = np.stack([np.bincount((row * 4).astype(int), minlength=4) for row in u])
    >>> bool((index_counts(5, 2, 4, np.arange(3)) == direct).all())
    True
    """
    base = _stream_base(seed, stream, np.arange(n_items, dtype=np.uint64))
    out = np.zeros((len(worlds), n_items))  # float: what the products with counts need
    _kernels()["index_counts"](base, np.asarray(worlds, dtype=np.uint64), out)
    return out


def _index_counts_py(base, worlds, out):  # pragma: no cover - compiled
    scale = 1.0 / 2.0**53
    n = out.shape[1]
    for w in range(len(worlds)):
        for j in range(len(base)):
            i = int(np.float64(_draw53(base[j], worlds[w])) * scale * n)
            out[w, min(i, n - 1)] += 1.0


def _draw53_py(base, world):  # pragma: no cover - compiled
    """The keyed draw of one unit in one world: SplitMix64's finaliser of the unit's base key
    offset by the world, its top 53 bits (the same numbers as :func:`uniforms` x 2**53)."""
    z = base + (world + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z >> np.uint64(11)


_draw53: Any = _draw53_py  # replaced by its compiled form before the passes that call it


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled passes, built at first use (numba is slow to import); the one-unit draw
    is compiled first, so that every pass calls the same compiled function."""
    import numba

    global _draw53
    jit = numba.njit(cache=True, nogil=True)
    _draw53 = jit(_draw53_py)
    return {
        "bernoulli": jit(_bernoulli_py),
        "categorical": jit(_categorical_py),
        "index_counts": jit(_index_counts_py),
    }
