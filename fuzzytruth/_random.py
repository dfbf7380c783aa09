"""Randomness, in one home: the ``rng`` argument, named streams, and counter-based draws keyed
by (seed, stream, unit, world).

Every public function takes one ``rng`` argument (None, an int seed, a SeedSequence or a
Generator); :func:`as_generator` is the one way it becomes a Generator, :func:`draw_seed` the one
way a seed for keyed draws is taken from it, and :func:`named_stream` the one way independent
generators are split off by name (a measure, a stage of a procedure), so that adding a measure
or a system changes no other number.

The same mechanism draws the replicates of the statistics (bootstrap counts, sign flips,
permutations): there the "world" is the replicate's number, so any block of replicates can be
computed on its own and gives the same bits as the whole.

Every random quantity of a sampled world — an item's label, a pair's relevance, a query's
target — is a function of the seed, of what is drawn (``stream``), of the unit it belongs to
(a stable 64-bit key from its ids) and of the world's number, and of nothing else. So a world
is the same whatever the chunking of worlds, the order or the partitioning of queries and items
(on one machine or on a Dask cluster), and whatever else is evaluated with it: adding a measure
or a system changes no other number.

The generator is SplitMix64's output function applied twice (Steele, Lea & Flood 2014): the
unit key is mixed with the seed and the stream, then offset by the world times the golden
ratio constant and mixed again; the top 53 bits make a uniform double in [0, 1).

Gamma and Dirichlet draws (:func:`gammas`, :func:`gammas_below`, :func:`dirichlet`: the
parameter and plausibility worlds of the truth models) use the same scheme: a unit's state in a
world is its mixed key offset by the world and mixed again, and the ``k``-th uniform of the draw
is the finaliser of that state offset by ``k`` times the golden-ratio constant. Gamma(a)
variates are Marsaglia & Tsang's (2000) squeeze–rejection method for ``a >= 1`` (normals by
Box–Muller), boosted for ``a < 1`` by ``U**(1/a)``; ``a == 0`` gives exactly 0 (a degenerate
Dirichlet component). Gamma(a) variates conditioned below a bound (:func:`gammas_below`) are,
for ``a < 1``, Ahrens & Dieter's (1974) GS rejection method with its proposal cut at the bound
(exact, and about one attempt whatever the bound: two uniforms, a logarithm and an
exponential); for ``a >= 1``, rejection from the unconditioned draws, then inversion.

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
import math
import zlib
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._frozen import readonly
from fuzzytruth._lazy import Renamed, lazy_names
from fuzzytruth._threads import by_rows
from fuzzytruth._validation import ids_text

__all__ = [
    "ALWAYS",
    "NEVER",
    "as_generator",
    "bernoulli_pick",
    "bernoulli_sums",
    "categorical_draws",
    "dirichlet",
    "draw_seed",
    "gammas",
    "gammas_below",
    "group_counts",
    "index_counts",
    "index_sums",
    "member_pick",
    "member_sums",
    "named_stream",
    "pair_keys",
    "permutations",
    "random_bytes",
    "recorded_seed",
    "row_reduce",
    "stream_bases",
    "thresholds",
    "two_stage_sums",
    "uniforms",
    "unit_keys",
    "weighted_sums",
]

# fuzzytruth.uncertain.keyed (this module's old path) had bernoulli_counts; kept for one release
__getattr__, _ = lazy_names(
    __name__,
    {},
    globals(),
    renamed={
        "bernoulli_counts": Renamed(
            "fuzzytruth._random.bernoulli_sums (groups as ranges of units), or "
            "uniforms(seed, stream, keys, worlds) < probability for the draws",
            serves="fuzzytruth._random._bernoulli_counts",
            was="fuzzytruth.uncertain.keyed",
        )
    },
)

NEVER, ALWAYS = -1, -2
"""Unit indices of :func:`bernoulli_pick` and :func:`member_pick` that are not drawn: never
(padding, a document of probability 0) and always (probability 1) true."""

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
    """Stable uint64 keys of string ids (pandas' SipHash of the text, the same on any machine;
    ids that are not all ``str`` are keyed by their ``str``).

    The ids are hashed one by one, as pandas hashes an array it is told not to factorise
    first (``categorize=False``, the same keys): they are mostly distinct (a collection's
    documents, the uniques of a block's pairs), where the factorisation cost nine tenths of
    the time (2 M document ids: 2.4-3.0 s against 0.25 s). The text of the ids is
    :func:`~fuzzytruth._validation.ids_text`'s (str ids as they are: a NumPy str array
    would drop a final NUL, "a\\x00" keyed as "a").

    >>> keys = unit_keys(np.array(["d1", "d2", "d1"], dtype=object))
    >>> bool(keys[0] == keys[2] != keys[1]), bool(unit_keys([7])[0] == unit_keys(["7"])[0])
    (True, True)
    """
    return pd.util.hash_array(ids_text(ids, "ids"), categorize=False)


def pair_keys(pairs: Any, rows: np.ndarray | None = None) -> np.ndarray:
    """Stable uint64 keys of the (query, document) pairs of a Run or Qrels (``rows`` of it):
    each distinct id of those rows is hashed once, and no other row is read (a block of
    queries hashed every pair's ids: 100,000 ragged queries in 7 blocks, 30 s of 48)."""
    docs, q_codes = pairs._docs, pairs._q_codes
    if rows is not None:
        docs, q_codes = docs.take(rows), q_codes[rows]
    doc_codes, doc_uniques = pd.factorize(docs)
    used, q_codes = np.unique(q_codes, return_inverse=True)
    query_keys = unit_keys(np.asarray(pairs._q_uniques, dtype=object)[used])[q_codes]
    doc_keys = unit_keys(np.asarray(doc_uniques, dtype=object))[doc_codes]
    with np.errstate(over="ignore"):
        return _mix(query_keys * _GOLDEN + doc_keys)


def as_generator(rng: object) -> np.random.Generator:
    """The one way an ``rng`` argument becomes a Generator (a seed, a Generator or None).

    Examples
    --------
    >>> bool(as_generator(0).integers(10) == as_generator(0).integers(10))
    True
    >>> as_generator("seed")
    Traceback (most recent call last):
    ...
    ValueError: rng must be None, an int seed, a SeedSequence or a numpy Generator; got 'seed'
    """
    if rng is None or isinstance(rng, Integral | np.random.SeedSequence | np.random.Generator):
        if isinstance(rng, bool):
            raise ValueError(f"rng must not be a bool; got {rng!r}")
        if isinstance(rng, Integral) and rng < 0:
            raise ValueError(f"rng must be a non-negative int seed; got {rng!r}")
        return np.random.default_rng(rng)
    raise ValueError(
        f"rng must be None, an int seed, a SeedSequence or a numpy Generator; got {rng!r}"
    )


def draw_seed(rng: object) -> int:
    """The seed of the keyed draws, taken from the one ``rng`` argument (any form
    :func:`as_generator` accepts; a Generator advances by one draw).

    Examples
    --------
    >>> draw_seed(0) == draw_seed(0)
    True
    """
    return int(as_generator(rng).integers(0, 2**63))


def recorded_seed(rng: object) -> int | None:
    """The seed a result records of its ``rng`` argument: one that draws the same numbers
    again when given as ``rng``.

    An int seed is itself; a SeedSequence of an int entropy with no spawn key and the default
    pool size (what ``default_rng(5)`` builds from 5) is that int. A
    Generator, a spawned SeedSequence or None leave nothing that draws the same numbers
    again: None (the reports then say "seed not recorded").

    Examples
    --------
    >>> recorded_seed(7), recorded_seed(np.random.SeedSequence(7))
    (7, 7)
    >>> recorded_seed(np.random.default_rng(7)) is None, recorded_seed(None) is None
    (True, True)
    """
    if isinstance(rng, Integral) and not isinstance(rng, bool):
        return int(rng)
    if (isinstance(rng, np.random.SeedSequence) and not rng.spawn_key
            and isinstance(rng.entropy, Integral)
            and rng.pool_size == np.random.SeedSequence(0).pool_size):
        return int(rng.entropy)
    return None


def named_stream(seed: int, *names: str | int) -> np.random.Generator:
    """The independent generator named ``names`` under ``seed`` (stable across runs).

    Each name is a string (keyed by its CRC-32) or a non-negative integer; ``seed`` comes from
    :func:`draw_seed`. Streams with different names are independent, so a measure's or a
    stage's numbers do not depend on which others are drawn.

    Examples
    --------
    >>> a = named_stream(7, "AP").random()
    >>> a == named_stream(7, "AP").random(), a == named_stream(7, "P@10").random()
    (True, False)
    """
    key = tuple(zlib.crc32(n.encode()) if isinstance(n, str) else int(n) for n in names)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


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
    return _mix(np.asarray(keys, dtype=np.uint64) ^ _salt(seed, stream))


def _salt(seed: int, stream: int) -> np.uint64:
    """What a unit key is xor-ed with before mixing: the seed and the stream."""
    with np.errstate(over="ignore"):
        return np.uint64(seed) ^ (np.uint64(stream) * _M2)


def stream_bases(seed: int, stream: int, keys: np.ndarray) -> np.ndarray:
    """``(n_units,)`` uint64: what every draw of these units in this stream starts from, for
    the passes below that draw the same units block after block (compute them once)."""
    return _stream_base(seed, stream, keys)


def thresholds(probability: np.ndarray) -> np.ndarray:
    """``(n_units,)`` uint64 ``ceil(p × 2**53)``: a 53-bit draw ``k`` is a success when
    ``k < threshold``, exactly when its uniform ``k / 2**53`` is ``< p``."""
    return np.ceil(np.asarray(probability, dtype=np.float64) * 2.0**53).astype(np.uint64)


def bernoulli_sums(
    bases: np.ndarray,
    threshold: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    worlds: np.ndarray,
) -> np.ndarray:
    """Number of successes of keyed Bernoulli draws per group and world, without keeping the
    draws: ``out[g, w]`` counts the units ``start[g] <= i < stop[g]`` that succeed in world
    ``worlds[w]``: unit i succeeds when its uniform (:func:`uniforms`) is below its
    probability, i.e. when its 53-bit draw is below ``threshold[i]``.

    ``bases`` from :func:`stream_bases`, ``threshold`` from :func:`thresholds`.

    Examples
    --------
    >>> keys = unit_keys(np.array(list("abcd"), dtype=object))
    >>> p = np.array([0.5, 0.2, 0.9, 0.6])
    >>> bits = uniforms(3, 1, keys, np.arange(5)) < p
    >>> sums = bernoulli_sums(stream_bases(3, 1, keys), thresholds(p),
    ...                       np.array([0, 1]), np.array([1, 4]), np.arange(5))
    >>> bool((sums == np.stack([bits[:, 0], bits[:, 1:].sum(axis=1)])).all())
    True
    """
    start = np.asarray(start, dtype=np.int64)
    out = np.zeros((len(start), len(worlds)), dtype=np.int64)
    _kernels()["bernoulli_sums"](
        bases, threshold, start, np.asarray(stop, dtype=np.int64), _offsets(worlds), out
    )
    return out


def _bernoulli_sums_py(bases, threshold, start, stop, offsets, out):  # pragma: no cover
    for g in range(len(start)):
        for i in range(start[g], stop[g]):
            base, limit = bases[i], threshold[i]
            for w in range(len(offsets)):
                out[g, w] += _mix53(base + offsets[w]) < limit


def _bernoulli_counts(
    seed: int,
    stream: int,
    keys: np.ndarray,
    probability: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    worlds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``fuzzytruth.uncertain.keyed.bernoulli_counts``, kept for one release: the keyed draws
    ``bits[w, i] = uniforms(seed, stream, keys, worlds)[w, i] < probability[i]`` and
    ``counts[w, g]``, the number of true bits of the units of group ``g``."""
    bits = uniforms(seed, stream, keys, worlds) < np.asarray(probability, dtype=np.float64)
    counts = np.zeros((len(bits), n_groups), dtype=np.int64)
    np.add.at(counts.T, np.asarray(group, dtype=np.intp), bits.T)
    return bits, counts


def bernoulli_pick(
    bases: np.ndarray,
    threshold: np.ndarray,
    units: np.ndarray,
    worlds: np.ndarray,
) -> np.ndarray:
    """Keyed Bernoulli draws of the units a table points at.

    ``out[c, r, w]`` (``(n_columns, n_rows, n_worlds)``, worlds contiguous) is the success of
    unit ``units[r, c]`` in world ``worlds[w]`` (as in :func:`bernoulli_sums`), False for
    :data:`NEVER` and True for :data:`ALWAYS`.

    Examples
    --------
    >>> keys = unit_keys(np.array(list("abc"), dtype=object))
    >>> p = np.array([0.3, 0.6, 0.9])
    >>> bits = uniforms(2, 1, keys, np.arange(4)) < p
    >>> units = np.array([[2, NEVER, 0], [ALWAYS, 1, 1]])
    >>> out = bernoulli_pick(stream_bases(2, 1, keys), thresholds(p), units, np.arange(4))
    >>> bool((out[0, 0] == bits[:, 2]).all() and (out[2, 1] == bits[:, 1]).all())
    True
    >>> bool(out[1, 0].any()), bool(out[0, 1].all())
    (False, True)
    """
    units = np.asarray(units, dtype=np.int64)
    out = np.empty((units.shape[1], units.shape[0], len(worlds)), dtype=np.bool_)
    _kernels()["bernoulli_pick"](bases, threshold, units, _offsets(worlds), out)
    return out


def _bernoulli_pick_py(bases, threshold, units, offsets, out):  # pragma: no cover - compiled
    for r in range(units.shape[0]):
        for c in range(units.shape[1]):
            unit = units[r, c]
            row = out[c, r]
            if unit < 0:
                row[:] = unit == ALWAYS
            else:
                base, limit = bases[unit], threshold[unit]
                for w in range(len(offsets)):
                    row[w] = _mix53(base + offsets[w]) < limit


def member_sums(
    seed: int,
    stream: int,
    keys: np.ndarray,
    table: np.ndarray,
    columns: np.ndarray,
    worlds: np.ndarray,
) -> np.ndarray:
    """Keyed Bernoulli draws of the cells of a probability table, summed down each column.

    Cell ``(i, j)`` of ``table`` (``(n_units, n_columns)``) is drawn with the uniform of key
    ``keys[i] + j`` (:func:`uniforms`, stream ``stream``) and is a success when that uniform is
    below ``table[i, j]``; ``out[k, w]`` counts the successes of column ``columns[k]`` in world
    ``worlds[w]``. Cells of probability 0 or 1 are not drawn (their outcome is certain).

    Examples
    --------
    >>> keys = unit_keys(np.array(list("abc"), dtype=object))
    >>> table = np.array([[0.5, 1.0], [0.2, 0.0], [0.9, 0.4]])
    >>> u = uniforms(4, 3, (keys[:, None] + np.arange(2, dtype=np.uint64)).ravel(),
    ...              np.arange(6)).reshape(6, 3, 2)
    >>> direct = (u < table[None]).sum(axis=1).T
    >>> bool((member_sums(4, 3, keys, table, np.array([1, 0]), np.arange(6))
    ...       == direct[[1, 0]]).all())
    True
    """
    out = np.zeros((len(columns), len(worlds)), dtype=np.int64)
    _kernels()["member_sums"](
        _salt(seed, stream), np.asarray(keys, dtype=np.uint64),
        np.ascontiguousarray(table, dtype=np.float64), np.asarray(columns, dtype=np.int64),
        _offsets(worlds), out,
    )
    return out


def _member_sums_py(salt, keys, table, columns, offsets, out):  # pragma: no cover - compiled
    scale = 1.0 / 2.0**53
    for k in range(len(columns)):
        j = columns[k]
        for i in range(len(keys)):
            p = table[i, j]
            if p <= 0.0:
                continue
            if p >= 1.0:
                for w in range(len(offsets)):
                    out[k, w] += 1
                continue
            base = _base(keys[i] + np.uint64(j), salt)
            for w in range(len(offsets)):
                out[k, w] += np.float64(_mix53(base + offsets[w])) * scale < p


def member_pick(
    seed: int,
    stream: int,
    keys: np.ndarray,
    table: np.ndarray,
    units: np.ndarray,
    columns: np.ndarray,
    worlds: np.ndarray,
) -> np.ndarray:
    """The draws of :func:`member_sums` for picked cells: ``out[c, r, w]`` (``(n_c, n_r,
    n_w)``) is the draw of cell ``(units[r, c], columns[r, w])`` in world ``worlds[w]``
    (False where ``units`` is negative; cells of probability 0 or 1 are not drawn).

    Examples
    --------
    >>> keys = unit_keys(np.array(list("abc"), dtype=object))
    >>> table = np.array([[0.5, 1.0], [0.2, 0.0], [0.9, 0.4]])
    >>> u = uniforms(4, 3, (keys[:, None] + np.arange(2, dtype=np.uint64)).ravel(),
    ...              np.arange(6)).reshape(6, 3, 2)
    >>> units = np.array([[2, -1], [0, -1], [1, -1]])  # units 0 and 1: a certain cell each
    >>> columns = np.array([[0, 1, 1, 0, 0, 1]] * 3)
    >>> out = member_pick(4, 3, keys, table, units, columns, np.arange(6))
    >>> picked = units[:, :1]
    >>> bool((out[0] == (u[np.arange(6), picked, columns] < table[picked, columns])).all())
    True
    >>> bool(out[1].any())
    False
    """
    units = np.asarray(units, dtype=np.int64)
    out = np.empty((units.shape[1], units.shape[0], len(worlds)), dtype=np.bool_)
    _kernels()["member_pick"](
        _salt(seed, stream), np.asarray(keys, dtype=np.uint64),
        np.ascontiguousarray(table, dtype=np.float64), units,
        np.asarray(columns, dtype=np.int64), _offsets(worlds), out,
    )
    return out


def _member_pick_py(salt, keys, table, units, columns, offsets, out):  # pragma: no cover
    scale = 1.0 / 2.0**53
    for r in range(units.shape[0]):
        for c in range(units.shape[1]):
            i = units[r, c]
            row = out[c, r]
            if i < 0:
                row[:] = False
                continue
            last, base, p = -1, np.uint64(0), 0.0
            for w in range(len(offsets)):
                j = columns[r, w]
                if j != last:  # a cell's base and probability, reused while the column stays
                    last, p = j, table[i, j]
                    if 0.0 < p < 1.0:
                        base = _base(keys[i] + np.uint64(j), salt)
                if p <= 0.0 or p >= 1.0:  # certain: no draw (a uniform is in [0, 1))
                    row[w] = p >= 1.0
                    continue
                # the 53-bit draw converts exactly through int64 (faster than from uint64)
                row[w] = np.float64(np.int64(_mix53(base + offsets[w]))) * scale < p


def categorical_draws(
    seed: int,
    stream: int,
    keys: np.ndarray,
    cum: np.ndarray,
    worlds: np.ndarray,
    *,
    values: np.ndarray | None = None,
    order: np.ndarray | None = None,
) -> np.ndarray:
    """Keyed inverse-CDF draws, ``(n_units, n_worlds)``: ``out[i, w]`` is the first column
    ``j`` of ``cum[i]`` (increasing, last column >= 1) above ``uniforms(seed, stream, keys,
    worlds)[w, i]`` — or ``values[i, j]`` when ``values`` (same shape as ``cum``) is given;
    compiled.

    With ``order`` (a permutation of the columns), ``cum`` holds probabilities instead: each
    row's cumulative sums over its columns in that order (``numpy.cumsum``'s, +inf from the
    last positive one on) are built in the compiled pass, row by row, rather than as a copy
    of the table, and ``out[i, w]`` is a position in that order, or ``values[position]``
    when ``values`` (one per column, the same for every row) is given.

    With ``order``, the probabilities may also be a table per world, ``(n_worlds, n_units,
    n_columns)``: world ``w`` then draws from ``cum[w]`` (a label model's plausibility worlds,
    each its own law), its rows' cumulative sums built as above.

    Examples
    --------
    >>> keys = unit_keys(np.array(["a", "b"], dtype=object))
    >>> cum = np.array([[0.5, 1.0, 1.0], [0.1, 0.2, 1.0]])
    >>> draws = categorical_draws(1, 2, keys, cum, np.arange(6))
    >>> u = uniforms(1, 2, keys, np.arange(6))
    >>> bool((draws.T == (u[:, :, None] >= cum[None]).sum(axis=2)).all())
    True
    >>> labels = np.array([[7, 8, 9], [4, 5, 6]], dtype=np.int16)
    >>> bool((categorical_draws(1, 2, keys, cum, np.arange(6), values=labels)
    ...       == np.take_along_axis(labels, draws, axis=1)).all())
    True
    >>> p = np.array([[0.5, 0.5, 0.0], [0.8, 0.1, 0.1]])
    >>> order = np.array([2, 0, 1])
    >>> same = categorical_draws(1, 2, keys, np.cumsum(p[:, order], axis=1), np.arange(6))
    >>> bool((categorical_draws(1, 2, keys, p, np.arange(6), order=order) == same).all())
    True
    >>> names = np.array([20, 21, 22], dtype=np.int16)
    >>> bool((categorical_draws(1, 2, keys, p, np.arange(6), order=order, values=names)
    ...       == names[same]).all())
    True
    >>> each = np.stack([p, p[:, ::-1]])  # world 0 draws from p, world 1 from its mirror
    >>> two = categorical_draws(1, 2, keys, each, np.arange(2), order=order)
    >>> mirror = categorical_draws(1, 2, keys, p[:, ::-1], np.arange(2), order=order)
    >>> bool((two[:, 0] == same[:, 0]).all() and (two[:, 1] == mirror[:, 1]).all())
    True
    """
    if np.ndim(cum) == 3:  # the compiled pass reads table w for world w: one each, exactly
        if order is None:
            raise ValueError("categorical_draws: cum as a table per world holds probabilities; "
                             "give order")
        if np.shape(cum)[0] != len(worlds):
            raise ValueError(f"categorical_draws: cum must hold one table per world; got "
                             f"{np.shape(cum)[0]} table(s) for {len(worlds)} world(s)")
    base = _stream_base(seed, stream, keys)
    cum = readonly(np.ascontiguousarray(cum, dtype=np.float64))  # one compiled signature
    out = np.empty((len(base), len(worlds)),
                   dtype=np.int64 if values is None else values.dtype)
    offsets = _offsets(worlds)
    if order is not None:
        if values is None:
            values = np.arange(cum.shape[-1])
        order, values = readonly(np.ascontiguousarray(order, dtype=np.int64)), readonly(values)
        if cum.ndim == 3:  # a table per world; items split over threads
            kernel = _kernels()["categorical_each"]
            by_rows(lambda rows: kernel(base, cum, order, values, offsets, out, rows.start,
                                        rows.stop), len(out), out.size)
            return out
        kernel = _kernels()["categorical_of"]  # resolved here, not in each thread
        by_rows(lambda rows: kernel(base[rows], cum[rows], order, values, offsets, out[rows]),
                len(out), out.size)
        return out
    values = (np.broadcast_to(np.arange(cum.shape[1]), cum.shape) if values is None
              else readonly(values))
    kernel = _kernels()["categorical"]
    by_rows(lambda rows: kernel(base[rows], cum[rows], values[rows], offsets, out[rows]),
            len(out), out.size)
    return out


def _categorical_py(base, cum, values, offsets, out):  # pragma: no cover - compiled
    # items outside, worlds inside, so that an item's row stays in cache across the worlds
    for i in range(len(base)):
        _categorical_row(base[i], cum[i], values[i], offsets, out[i])


def _categorical_of_py(base, probabilities, order, values, offsets, out):  # pragma: no cover
    # each row's cumulative sums in the given order, then the draws of _categorical_py
    cum = np.empty(probabilities.shape[1])
    for i in range(len(base)):
        _ordered_cum(probabilities[i], order, cum)
        _categorical_row(base[i], cum, values, offsets, out[i])


def _categorical_each_py(base, probabilities, order, values, offsets, out, start,
                         stop):  # pragma: no cover - compiled
    # units start..stop, world w drawn from its own table probabilities[w]
    cum = np.empty(probabilities.shape[2])
    for i in range(start, stop):
        for w in range(len(offsets)):
            _ordered_cum(probabilities[w, i], order, cum)
            _categorical_row(base[i], cum, values, offsets[w : w + 1], out[i, w : w + 1])


def _ordered_cum_py(row, order, cum):  # pragma: no cover - compiled
    # the row's cumulative sums in the given column order (added one by one, as cumsum),
    # +inf from its last positive column on (no positive column: the last one)
    total, last = 0.0, len(cum) - 1
    for j in range(len(cum)):
        p = row[order[j]]
        total += p
        cum[j] = total
        if p > 0.0:
            last = j
    cum[last:] = np.inf


def _categorical_row_py(base, cum, values, offsets, out):  # pragma: no cover - compiled
    # the first column above u (the last one if none). The column with the largest step is
    # tried first: a draw inside its step needs no search (a concentrated law: most draws);
    # the others are found by bisection, cum being non-decreasing
    scale = 1.0 / 2.0**53
    last = len(cum) - 1
    guide, low, high, widest, before = 0, -np.inf, cum[0], -1.0, 0.0
    for j in range(len(cum)):
        step = min(cum[j], 1.0) - min(before, 1.0)
        if step > widest:
            guide, low, high, widest = j, before if j > 0 else -np.inf, cum[j], step
        before = cum[j]
    for w in range(len(offsets)):
        u = np.float64(_mix53(base + offsets[w])) * scale
        if low <= u < high:
            out[w] = values[guide]
            continue
        lo, hi = 0, last
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] <= u:
                lo = mid + 1
            else:
                hi = mid
        out[w] = values[lo]


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
    out = np.empty((len(worlds), n_items))  # float: what the products with counts need
    return _numbered("index_counts", seed, stream, n_items, worlds, out)


def _numbered(
    kernel: str, seed: int, stream: int, n_units: int, worlds: np.ndarray, out: np.ndarray
) -> np.ndarray:
    """The compiled ``kernel`` over units ``0 .. n_units - 1`` of ``stream`` (keyed by their
    numbers) in ``worlds``, written into ``out`` (each world's row from its own draws: split
    over threads by worlds, :func:`~fuzzytruth._threads.by_rows`)."""
    base = _stream_base(seed, stream, np.arange(n_units, dtype=np.uint64))
    worlds = np.asarray(worlds, dtype=np.uint64)
    compiled = _kernels()[kernel]  # resolved here, not in each thread
    by_rows(lambda rows: compiled(base, worlds[rows], out[rows]), len(worlds),
            len(worlds) * n_units)
    return out


def _index_counts_py(base, worlds, out):  # pragma: no cover - compiled
    # counted in an int32 row that stays in cache, then written out in one sequential pass:
    # the increments scattered over a float64 row of out (1.5 MB at 185,000 items, fresh
    # memory) cost 30-50 ns a draw, against 11.6-14 ns (2026-11-28: agreement() on ImageNet
    # ReaL in one thread, and a micro-benchmark)
    scale = 1.0 / 2.0**53
    n = out.shape[1]
    counts = np.zeros(n, dtype=np.int32)
    for w in range(len(worlds)):
        counts[:] = 0
        for j in range(len(base)):
            i = int(np.float64(_draw53(base[j], worlds[w])) * scale * n)
            counts[min(i, n - 1)] += 1
        for i in range(n):
            out[w, i] = counts[i]


def group_counts(
    seed: int, stream: int, group_keys: np.ndarray, sizes: np.ndarray, worlds: np.ndarray
) -> np.ndarray:
    """Keyed draws with replacement within groups, counted: one pass, compiled.

    Group ``g`` has ``sizes[g]`` members, the consecutive columns ``start_g ..
    start_g + sizes[g] - 1`` of the output (``start_g`` the sum of the sizes before it). In
    world (replicate) ``w`` it draws ``sizes[g]`` of its members with replacement: draw ``j``
    is member ``floor(u * sizes[g])``, ``u`` the uniform of the unit keyed by the group's key
    and ``j`` (:func:`uniforms` of the key ``mix(group_keys[g] * φ + j)``, φ the golden ratio
    constant), so a group's draws depend on the seed, its key, ``j`` and ``w`` only: not on the
    other groups, their order, nor the block of worlds. ``out[w, start_g + i]`` counts the
    draws of member ``i``. (Annotators resampled within each item: groups are items, members
    the item's annotators.)

    Examples
    --------
    >>> keys = unit_keys(np.array(["x", "y"], dtype=object))
    >>> counts = group_counts(3, 1, keys, np.array([2, 3]), np.arange(4))
    >>> counts.shape, counts[:, :2].sum(axis=1).tolist(), counts[:, 2:].sum(axis=1).tolist()
    ((4, 5), [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0])
    >>> alone = group_counts(3, 1, keys[1:], np.array([3]), np.arange(2, 4))
    >>> bool((alone == counts[2:, 2:]).all())  # any subset of groups, any block of worlds
    True
    """
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    group_keys = np.asarray(group_keys, dtype=np.uint64)
    if group_keys.shape != sizes.shape or np.any(sizes < 0):
        raise ValueError(
            f"group_keys and sizes must be 1-D of one length, sizes >= 0; got shapes "
            f"{group_keys.shape} and {sizes.shape}"
        )
    slot = np.arange(int(sizes.sum()), dtype=np.uint64) - np.repeat(
        (np.cumsum(sizes) - sizes).astype(np.uint64), sizes
    )
    with np.errstate(over="ignore"):
        keys = _mix(np.repeat(group_keys, sizes) * _GOLDEN + slot)
    base = _stream_base(seed, stream, keys)
    out = np.zeros((len(worlds), len(base)))  # float: what the products with weights need
    worlds = np.asarray(worlds, dtype=np.uint64)
    kernel = _kernels()["group_counts"]  # resolved here, not in each thread
    by_rows(lambda rows: kernel(base, sizes, worlds[rows], out[rows]), len(worlds), out.size)
    return out


def _group_counts_py(base, sizes, worlds, out):  # pragma: no cover - compiled
    scale = 1.0 / 2.0**53
    for w in range(len(worlds)):
        start = 0
        for g in range(len(sizes)):
            n = sizes[g]
            for j in range(n):
                u = np.float64(_draw53(base[start + j], worlds[w])) * scale
                out[w, start + min(int(u * n), n - 1)] += 1.0
            start += n


def index_sums(
    seed: int, stream: int, values: np.ndarray, worlds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`index_counts` of the rows of ``values`` and, in the same compiled pass, the
    count-weighted sums of those rows: one bootstrap replicate of every column's total.

    ``sums[w] = counts[w] @ values``, added up item by item in item order, so a replicate's
    sums are the same bits whatever block of replicates it is computed in (a BLAS product's
    rounding may depend on the shape of the block).

    Parameters
    ----------
    seed, stream : int
        As in :func:`uniforms`.
    values : numpy.ndarray
        ``(n_items, n_columns)`` float64; ``n_items`` is the number of draws per replicate.
    worlds : numpy.ndarray
        ``(n_worlds,)`` replicate numbers.

    Returns
    -------
    counts : numpy.ndarray
        ``(n_worlds, n_items)`` float, exactly ``index_counts(seed, stream, n_items, worlds)``.
    sums : numpy.ndarray
        ``(n_worlds, n_columns)`` float64.

    Examples
    --------
    >>> values = np.arange(8.0).reshape(4, 2)
    >>> counts, sums = index_sums(5, 2, values, np.arange(3))
    >>> bool((counts == index_counts(5, 2, 4, np.arange(3))).all())
    True
    >>> bool((sums == counts @ values).all())
    True
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    n_items = values.shape[0]
    worlds = np.asarray(worlds, dtype=np.uint64)
    counts = index_counts(seed, stream, n_items, worlds)
    return counts, weighted_sums(counts, values)


def weighted_sums(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``counts @ values``, each entry added up item by item in item order (the items with a
    count of 0 skipped), so an entry's bits depend on its row of ``counts`` and its column of
    ``values`` alone: not on the other rows or columns in the call, as a BLAS product's do
    (OpenBLAS rounds a column differently by the width of the product and the column's place
    in it). What a replicate or a pair of systems gets is then the same whatever else is
    computed with it.

    Parameters
    ----------
    counts : numpy.ndarray
        ``(n_rows, n_items)`` weights (bootstrap counts).
    values : numpy.ndarray
        ``(n_items, n_columns)`` finite values.

    Returns
    -------
    numpy.ndarray
        ``(n_rows, n_columns)`` float64.

    Examples
    --------
    >>> counts = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 0.0]])
    >>> values = np.arange(6.0).reshape(3, 2)
    >>> weighted_sums(counts, values).tolist()
    [[4.0, 7.0], [6.0, 9.0]]
    >>> bool((weighted_sums(counts, values[:, 1:]) == weighted_sums(counts, values)[:, 1:]).all())
    True
    """
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    values = np.ascontiguousarray(values, dtype=np.float64)
    out = np.zeros((counts.shape[0], values.shape[1]))
    kernel = _kernels()["weighted_sums"]  # resolved here, not in each thread
    by_rows(lambda rows: kernel(counts[rows], values, out[rows]), len(counts), counts.size)
    return out


def _weighted_sums_py(counts, values, out):  # pragma: no cover - compiled
    n_rows, n_items = counts.shape
    n_columns = values.shape[1]
    if n_columns == 1:  # one running sum per row, kept in a register
        for w in range(n_rows):
            acc = out[w, 0]
            for i in range(n_items):
                c = counts[w, i]
                if c != 0.0:
                    acc += c * values[i, 0]
            out[w, 0] = acc
        return
    # rows in groups: each item's values are read once per group from memory, not once per
    # row (values wider than the cache made the pass memory-bound); every entry still adds
    # its terms in item order
    for w0 in range(0, n_rows, 16):
        w1 = min(w0 + 16, n_rows)
        for i in range(n_items):
            for w in range(w0, w1):
                c = counts[w, i]
                if c != 0.0:
                    for k in range(n_columns):
                        out[w, k] += c * values[i, k]


def random_bytes(seed: int, stream: int, n_bytes: int, worlds: np.ndarray) -> np.ndarray:
    """Keyed uniform random bytes, ``(n_worlds, n_bytes)`` uint8, in one compiled pass.

    Byte ``j`` of world ``w`` is byte ``j % 6`` (from the least significant) of the 53-bit
    draw of unit ``j // 6`` (the integers behind :func:`uniforms`): six independent uniform
    bytes per keyed draw, so e.g. 8 fair signs per byte cost a sixth of a draw.

    Examples
    --------
    >>> b = random_bytes(3, 4, 9, np.arange(2))
    >>> b.shape, b.dtype.name
    ((2, 9), 'uint8')
    >>> u = uniforms(3, 4, np.arange(2, dtype=np.uint64), np.arange(2))
    >>> int(b[1, 7]) == (int(u[1, 1] * 2**53) >> 8) & 255
    True
    """
    n_words = -(-int(n_bytes) // 6)
    out = np.empty((len(worlds), int(n_bytes)), dtype=np.uint8)
    return _numbered("random_bytes", seed, stream, n_words, worlds, out)


def _random_bytes_py(base, worlds, out):  # pragma: no cover - compiled
    n_bytes = out.shape[1]
    for w in range(len(worlds)):
        for k in range(len(base)):
            z = _draw53(base[k], worlds[w])
            for b in range(min(6, n_bytes - 6 * k)):
                out[w, 6 * k + b] = (z >> np.uint64(8 * b)) & np.uint64(255)


def two_stage_sums(
    seed: int, stream: int, sizes: np.ndarray, values: np.ndarray, worlds: np.ndarray
) -> np.ndarray:
    """Keyed two-stage resamples (groups, then members within each drawn group), summed: one
    compiled pass, no temporaries.

    Replicate ``w`` draws ``n_groups`` groups with replacement, draw ``j`` being group
    ``floor(u * n_groups)`` with ``u`` the uniform of unit ``j`` (exactly the draws of
    :func:`index_counts`); within draw ``j`` it draws the ``sizes[g]`` members of that group
    ``g`` with replacement, draw ``k`` being member ``floor(u * sizes[g])`` with ``u`` the
    uniform of unit ``(j + 1) * 2**32 + k`` (:func:`uniforms`). ``sums[w]`` is the sum over
    the drawn groups of the mean of their drawn members' rows of ``values``, added up in draw
    order: a replicate is the same bits whatever block of replicates it is computed in.

    Parameters
    ----------
    seed, stream : int
        As in :func:`uniforms`.
    sizes : numpy.ndarray
        ``(n_groups,)`` number of members of each group (>= 1).
    values : numpy.ndarray
        ``(n_groups * width, n_columns)``: row ``g * width + a`` is member ``a`` of group ``g``
        (``width >= sizes.max()``; rows past a group's size are never read).
    worlds : numpy.ndarray
        ``(n_worlds,)`` replicate numbers.

    Returns
    -------
    numpy.ndarray
        ``(n_worlds, n_columns)`` float64.

    Examples
    --------
    >>> sizes, worlds = np.array([1, 3]), np.arange(5)
    >>> values = np.array([[1.0], [0.0], [0.0], [2.0], [4.0], [8.0]])  # width 3
    >>> sums = two_stage_sums(5, 9, sizes, values, worlds)
    >>> g = (uniforms(5, 9, np.arange(2, dtype=np.uint64), worlds) * 2).astype(int)
    >>> keys = ((np.arange(1, 3, dtype=np.uint64) << np.uint64(32))[:, None]
    ...         + np.arange(3, dtype=np.uint64)).ravel()
    >>> n = sizes[g][..., None]
    >>> a = (uniforms(5, 9, keys, worlds).reshape(5, 2, 3) * n).astype(int)
    >>> drawn = np.where(np.arange(3) < n, values[g[..., None] * 3 + a, 0], 0.0)
    >>> bool(np.allclose(sums[:, 0], (drawn.sum(axis=2) / n[..., 0]).sum(axis=1)))
    True
    >>> bool((two_stage_sums(5, 9, sizes, values, worlds[3:]) == sums[3:]).all())
    True
    """
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=np.float64)
    n_groups = len(sizes)
    width = values.shape[0] // max(n_groups, 1)
    if n_groups == 0 or values.shape[0] != n_groups * width or np.any(sizes < 1) or np.any(
        sizes > width
    ):
        raise ValueError(
            f"values must have n_groups * width rows with 1 <= sizes <= width; got "
            f"{values.shape[0]} rows for sizes of {n_groups} groups"
        )
    groups = _stream_base(seed, stream, np.arange(n_groups, dtype=np.uint64))
    members = (np.arange(1, n_groups + 1, dtype=np.uint64) << np.uint64(32))[:, None]
    members = _stream_base(seed, stream, (members + np.arange(width, dtype=np.uint64)).ravel())
    out = np.zeros((len(worlds), values.shape[1]))
    _kernels()["two_stage"](
        groups, members, sizes, values, np.asarray(worlds, dtype=np.uint64), out
    )
    return out


def _two_stage_py(groups, members, sizes, values, worlds, out):  # pragma: no cover - compiled
    scale = 1.0 / 2.0**53
    n_groups = len(groups)
    width = values.shape[0] // n_groups
    acc = np.empty(values.shape[1])
    for w in range(len(worlds)):
        for j in range(n_groups):
            g = min(int(np.float64(_draw53(groups[j], worlds[w])) * scale * n_groups),
                    n_groups - 1)
            n = sizes[g]
            acc[:] = 0.0
            for k in range(n):
                u = np.float64(_draw53(members[j * width + k], worlds[w])) * scale
                row = g * width + min(int(u * n), n - 1)
                for c in range(values.shape[1]):
                    acc[c] += values[row, c]
            for c in range(values.shape[1]):
                out[w, c] += acc[c] / n


def permutations(
    seed: int, stream: int, n_groups: int, size: int, worlds: np.ndarray
) -> np.ndarray:
    """Keyed uniform random permutations of ``0 .. size - 1``, one per (world, group).

    A Fisher–Yates shuffle whose step ``i`` (``size - 1`` down to 1) swaps position ``i``
    with position ``floor(u * (i + 1))``, ``u`` the keyed uniform of unit
    ``group * size + i`` (:func:`uniforms`); compiled.

    Returns
    -------
    numpy.ndarray
        ``(n_worlds, n_groups, size)`` int64.

    Examples
    --------
    >>> p = permutations(1, 2, 3, 5, np.arange(4))
    >>> p.shape, bool((np.sort(p, axis=2) == np.arange(5)).all())
    ((4, 3, 5), True)
    >>> bool((permutations(1, 2, 3, 5, np.arange(2, 4)) == p[2:]).all())
    True
    """
    out = np.empty((len(worlds), int(n_groups), int(size)), dtype=np.int64)
    return _numbered("permutations", seed, stream, int(n_groups) * int(size), worlds, out)


def _permutations_py(base, worlds, out):  # pragma: no cover - compiled
    scale = 1.0 / 2.0**53
    size = out.shape[2]
    for w in range(len(worlds)):
        for g in range(out.shape[1]):
            for i in range(size):
                out[w, g, i] = i
            for i in range(size - 1, 0, -1):
                u = np.float64(_draw53(base[g * size + i], worlds[w])) * scale
                j = min(int(u * (i + 1)), i)
                out[w, g, i], out[w, g, j] = out[w, g, j], out[w, g, i]


def _offsets(worlds: np.ndarray) -> np.ndarray:
    """``(world + 1) × golden ratio`` (mod 2**64) of each world: what a draw adds to its unit's
    base before mixing (:func:`uniforms`); computed once per block of worlds."""
    with np.errstate(over="ignore"):
        return (np.asarray(worlds, dtype=np.uint64) + np.uint64(1)) * _GOLDEN


def _mix53_py(z):  # pragma: no cover - compiled
    """SplitMix64's finaliser, its top 53 bits."""
    return _mix_one(z) >> np.uint64(11)


def gammas(
    seed: int, stream: int, keys: np.ndarray, shape: np.ndarray, worlds: np.ndarray, *,
    log: bool = False,
) -> np.ndarray:
    """``(n_worlds, n_units)`` keyed Gamma(``shape[i]``, 1) variates (0 where the shape is 0);
    compiled.

    Parameters
    ----------
    seed, stream : int
        As in :func:`uniforms`.
    keys : numpy.ndarray
        ``(n_units,)`` uint64 unit keys.
    shape : numpy.ndarray
        ``(n_units,)`` non-negative shape parameters.
    worlds : numpy.ndarray
        ``(n_worlds,)`` world numbers.
    log : bool
        Return the logs of the same variates (-inf where the shape is 0). A shape below about
        0.003 gives variates below the smallest double, returned as 0, with a probability
        that grows to 1 as the shape falls; their logs are kept.

    Examples
    --------
    >>> keys = np.arange(3, dtype=np.uint64)
    >>> g = gammas(1, 2, keys, np.array([0.5, 2.0, 0.0]), np.arange(4))
    >>> g.shape, bool((g[:, 2] == 0).all()), bool((g[:, :2] > 0).all())
    ((4, 3), True, True)
    >>> bool((gammas(1, 2, keys[1:], np.array([2.0, 0.0]), np.arange(2, 4)) == g[2:, 1:]).all())
    True
    >>> tiny = gammas(1, 2, keys, np.full(3, 1e-7), np.arange(4), log=True)
    >>> bool((np.exp(tiny) == 0).all()), bool(np.isfinite(tiny).all())  # 0 as doubles
    (True, True)
    """
    base = _stream_base(seed, stream, keys)
    shape = np.ascontiguousarray(shape, dtype=np.float64)
    worlds = np.asarray(worlds, dtype=np.uint64)
    out = np.empty((len(worlds), len(base)))
    kernel = _kernels()["gammas"]  # resolved here, not in each thread
    # a draw is 35-47 ns of compiled work (shapes 0.01 to 50, one thread, 2026-11-28), about
    # 8 of the threshold's cheapest cells: a Dawid-Skene world block's 290,000 draws now split
    by_rows(lambda rows: kernel(base, shape, worlds[rows], out[rows], bool(log)), len(out),
            out.size, cost=8.0)
    return out


def gammas_below(
    seed: int, stream: int, keys: np.ndarray, shape: np.ndarray, bound: np.ndarray,
    worlds: np.ndarray, out: np.ndarray, *, skip: np.ndarray | None = None,
    normalise: bool = False,
) -> np.ndarray:
    """Keyed Gamma(``shape[r, c]``) variates conditioned below ``bound[w, r]``, written into
    ``out[w, r, c]`` in place (then, with ``normalise``, every row ``out[w, r]`` divided by its
    sum: a Dirichlet row whose other cells the caller has set); compiled.

    Cells of shape 0, and column ``skip[w, r]`` of each row (-1: none), keep what ``out``
    holds. A bound <= 0 (below the smallest double) gives 0. For ``a < 1`` the draw is
    Ahrens & Dieter's GS method with its proposal cut at the bound: the proposal's density is
    ``x**(a-1)`` on [0, 1] and ``exp(-x)`` beyond, drawn by inversion, so it is drawn below
    the bound directly, and the acceptance probability stays above ``1/e`` whatever the bound.
    For ``a >= 1``, rejection from :func:`gammas`' method (each attempt a fresh keyed draw)
    and, after 32 rejections (a bound far in the lower tail), inversion
    ``P⁻¹(a, V · P(a, bound))`` with a keyed uniform ``V``.

    Parameters
    ----------
    seed, stream : int
        As in :func:`uniforms`.
    keys, shape : numpy.ndarray
        ``(n_rows, n_cols)`` uint64 unit keys and shape parameters of the cells.
    bound : numpy.ndarray
        ``(n_worlds, n_rows)`` the bound of each row in each world.
    worlds : numpy.ndarray
        ``(n_worlds,)`` world numbers.
    out : numpy.ndarray
        ``(n_worlds, n_rows, n_cols)`` float64, C-contiguous; returned.
    skip : numpy.ndarray, optional
        ``(n_worlds, n_rows)`` int: a column of each row not drawn.
    normalise : bool
        Divide each row by its sum afterwards (a row summing to 0 stays 0).

    Examples
    --------
    >>> keys = np.arange(8, dtype=np.uint64).reshape(2, 4)
    >>> shape = np.array([[0.5, 0.5, 0.5, 0.0], [0.01, 0.01, 2.0, 2.0]])
    >>> g = gammas_below(3, 1, keys, shape, np.full((3, 2), 0.1), np.arange(3),
    ...                  np.full((3, 2, 4), 7.0))
    >>> bool(((0 <= g[..., :3]) & (g[..., :3] < 0.1)).all()), bool((g[:, 0, 3] == 7).all())
    (True, True)
    >>> tiny = np.full((3, 2), 1e-200)  # a < 1: exact at any bound; a >= 1: by inversion
    >>> g = gammas_below(3, 1, keys, shape, tiny, np.arange(3), np.zeros((3, 2, 4)))
    >>> bool(((0 <= g) & (g < 1e-200)).all())
    True
    >>> one = gammas_below(3, 1, keys[1:], shape[1:], tiny[1:2, 1:], np.arange(1, 2),
    ...                    np.zeros((1, 1, 4)))
    >>> bool((one[0] == g[1, 1:]).all())  # keyed: any subset of rows and worlds
    True
    """
    base = _stream_base(seed, stream, keys)
    shape = np.ascontiguousarray(shape, dtype=np.float64)
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    skip = np.full(bound.shape, -1, dtype=np.int64) if skip is None else np.ascontiguousarray(
        skip, dtype=np.int64)
    if not (out.flags.c_contiguous and out.dtype == np.float64):
        raise ValueError("out must be a C-contiguous float64 array")
    worlds = np.asarray(worlds, dtype=np.uint64)
    kernel = _kernels()["gammas_below"]  # resolved here, not in each thread
    missed = sum(by_rows(lambda rows: kernel(base, shape, bound[rows], skip[rows],
                                             worlds[rows], out[rows], normalise),
                         len(out), out.size))
    if missed:  # a >= 1 and a bound far in the lower tail: inversion on a keyed uniform
        from scipy.special import gammainc, gammaincinv  # 0.3 s to import: only when needed

        w, r, c = np.nonzero(np.isnan(out))
        state = _mix(base[r, c] + _offsets(worlds)[w])
        v = ((_mix(state) >> np.uint64(11)).astype(np.float64) + 0.5) * (1.0 / 2**53)
        a, b = shape[r, c], bound[w, r]
        out[w, r, c] = np.minimum(gammaincinv(a, v * gammainc(a, b)), np.nextafter(b, 0))
        if normalise:
            w, r = np.unique(np.stack([w, r]), axis=1)
            total = out[w, r].sum(axis=1, keepdims=True)
            out[w, r] = np.divide(out[w, r], total, where=total > 0,
                                  out=np.zeros_like(out[w, r]))
    return out


def row_reduce(ufunc: np.ufunc, x: np.ndarray, starts: np.ndarray | None) -> np.ndarray:
    """``ufunc`` reduced over each row of ``x``, broadcast back to ``x``'s shape: the rows are
    the last axis (``starts`` None), or runs of the second-to-last axis beginning at
    ``starts`` (ascending, the first 0: a table ``(..., n, k)`` whose entries ``[s:t, j]``
    form one row for each run ``s:t`` and column ``j``).

    Examples
    --------
    >>> x = np.arange(6.0).reshape(3, 2)
    >>> row_reduce(np.add, x, None).tolist(), row_reduce(np.add, x, np.array([0, 2])).tolist()
    ([[1.0], [5.0], [9.0]], [[2.0, 4.0], [2.0, 4.0], [4.0, 5.0]])
    """
    if starts is None:
        return ufunc.reduce(x, axis=-1, keepdims=True)
    run = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, x.shape[-2])))
    return ufunc.reduceat(x, starts, axis=-2)[..., run, :]


def dirichlet(
    seed: int, stream: int, keys: np.ndarray, concentration: np.ndarray, worlds: np.ndarray,
    *, starts: np.ndarray | None = None,
) -> np.ndarray:
    """Keyed Dirichlet rows: ``(n_worlds, *concentration.shape)``, each row the normalised
    Gamma draws of its components; ``keys`` has one key per component
    (``concentration.shape``). A row whose concentrations are all 0 stays all 0. A row is the
    last axis, or with ``starts`` a run of the second-to-last (:func:`row_reduce`): a
    Dawid–Skene confusion row is an annotator's entries for one class, one per label it used.

    The draws are taken in logs and scaled by each row's largest before the sum: a row of
    small concentrations (below about 0.003 each) would otherwise have every draw below the
    smallest double, a sum of 0 and no proportions at all.

    Examples
    --------
    >>> keys = np.arange(6, dtype=np.uint64).reshape(2, 3)
    >>> d = dirichlet(1, 2, keys, np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), np.arange(5))
    >>> d.shape, bool(np.allclose(d[:, 0].sum(axis=1), 1.0)), bool((d[:, 1] == 0).all())
    ((5, 2, 3), True, True)
    >>> small = dirichlet(1, 2, keys[:1], np.full((1, 3), 1e-5), np.arange(5))
    >>> bool(np.allclose(small.sum(axis=-1), 1.0))  # nearly a vertex of the simplex each
    True
    """
    flat = gammas(seed, stream, keys.ravel(), concentration.ravel(), worlds, log=True)
    draws = flat.reshape(len(worlds), *concentration.shape)
    top = row_reduce(np.maximum, draws, starts)
    draws -= np.where(np.isfinite(top), top, 0.0)  # a row of zero concentrations: -inf
    np.exp(draws, out=draws)
    total = row_reduce(np.add, draws, starts)
    np.divide(draws, total, out=draws, where=total > 0)
    return draws


def _mix_one_py(z):  # pragma: no cover - compiled
    """SplitMix64's finaliser of one uint64 (what :func:`_mix` does to an array)."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _draw53_py(base, world):  # pragma: no cover - compiled
    """The keyed draw of one unit in one world: SplitMix64's finaliser of the unit's base key
    offset by the world, its top 53 bits (the same numbers as :func:`uniforms` x 2**53)."""
    return _mix53(base + (world + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))


def _base_py(key, salt):  # pragma: no cover - compiled
    """One unit's :func:`stream_bases` entry: SplitMix64's finaliser of its key xor the salt."""
    z = key ^ salt
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _uniform_py(state, k):  # pragma: no cover - compiled
    """The k-th uniform in (0, 1) of a unit's state (never exactly 0)."""
    z = _mix_one(state + np.uint64(k) * _GOLDEN)
    return ((z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)


def _gamma_py(a, state):  # pragma: no cover - compiled
    """One Gamma(a) variate from a unit's state (Marsaglia–Tsang; boosted when a < 1)."""
    if a <= 0.0:
        return 0.0
    if a < 1.0:
        return _marsaglia_tsang(a + 1.0, state, 2) * math.exp(math.log(_uniform(state, 1)) / a)
    return _marsaglia_tsang(a, state, 1)


def _log_gamma_py(a, state):  # pragma: no cover - compiled
    """The log of :func:`_gamma`'s variate, from the same uniforms, kept in logs: the boost
    ``U**(1/a)`` of a small shape is below the smallest double whenever ``U < 1e-308**a``
    (half the draws at ``a = 0.001``), its log never is."""
    if a <= 0.0:
        return -math.inf
    if a < 1.0:
        return math.log(_marsaglia_tsang(a + 1.0, state, 2)) + math.log(_uniform(state, 1)) / a
    return math.log(_marsaglia_tsang(a, state, 1))


def _marsaglia_tsang_py(a, state, k):  # pragma: no cover - compiled
    """Marsaglia & Tsang's Gamma(a >= 1) variate from a unit's state, drawing its uniforms
    from the ``k``-th on."""
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
        # Marsaglia & Tsang's squeeze: inside the acceptance region, decided without logs
        if u < 1.0 - 0.0331 * (x * x) * (x * x):
            return d * v
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v


def _gammas_py(base, shape, worlds, out, log):  # pragma: no cover - compiled
    for w in range(len(worlds)):
        offset = (np.uint64(worlds[w]) + np.uint64(1)) * _GOLDEN
        for i in range(len(base)):
            state = _mix_one(base[i] + offset)
            out[w, i] = _log_gamma(shape[i], state) if log else _gamma(shape[i], state)


_ATTEMPTS = 32
_TINY = 2.0**-54  # below it exp(-x) >= 1 - x exceeds every uniform (at most 1 - 2**-54)


def _gamma_below_py(a, bound, upper, state):  # pragma: no cover - compiled
    """One Gamma(a) variate conditioned below ``bound`` (> 0) from a unit's state.

    ``a < 1``: Ahrens & Dieter's GS with ``b = 1 + a/e``: ``p = b U``; ``p <= 1`` proposes
    ``x = p**(1/a)``, accepted with probability ``exp(-x)``; else ``x = -log((b - p)/a)``,
    accepted with probability ``x**(a-1)``. As ``x`` increases with ``p``, the proposal is cut
    at the bound by drawing ``p`` below ``upper`` (:func:`_gs_upper`). ``a >= 1``:
    Marsaglia–Tsang draws until one falls below the bound, attempt ``t`` on the state offset by
    ``t`` times a second constant; NaN after ``_ATTEMPTS`` rejections (the caller inverts the
    CDF).
    """
    if a >= 1.0:
        for attempt in range(_ATTEMPTS):
            g = _gamma(a, _mix_one(state + np.uint64(attempt) * _M1))
            if g < bound:
                return g
        return np.nan
    k = 0
    while True:
        p = upper * _uniform(state, k)
        k += 1
        if p <= 1.0:
            x = math.exp(math.log(p) / a)
            if x >= bound:  # rounding at the cut
                continue
            if x <= _TINY:  # accepted whatever the uniform: it is not drawn
                return x
            u = _uniform(state, k)
            k += 1
            if u <= 1.0 - x or u <= math.exp(-x):
                return x
        else:
            x = -math.log((1.0 + a * 0.36787944117144233 - p) / a)
            if x >= bound:
                continue
            u = _uniform(state, k)
            k += 1
            if u <= math.exp((a - 1.0) * math.log(x)):
                return x


def _gs_upper_py(a, bound):  # pragma: no cover - compiled
    """Where GS's ``p`` is cut for draws below ``bound``: ``bound**a`` (bound <= 1) or
    ``b - a exp(-bound)`` with ``b = 1 + a/e``."""
    if bound <= 1.0:
        return math.exp(a * math.log(bound))
    return 1.0 + a * 0.36787944117144233 - a * math.exp(-bound)


def _gammas_below_py(base, shape, bound, skip, worlds, out, normalise):  # pragma: no cover
    """:func:`gammas_below`'s pass, rows outside and cells inside; returns the number of cells
    left NaN for inversion (their rows are not normalised here)."""
    missed = 0
    n_rows, n_cols = shape.shape
    for w in range(len(worlds)):
        offset = (np.uint64(worlds[w]) + np.uint64(1)) * _GOLDEN
        for r in range(n_rows):
            limit = bound[w, r]
            last_a, upper, total, row_missed = -1.0, 0.0, 0.0, False
            for c in range(n_cols):
                a = shape[r, c]
                if a > 0.0 and c != skip[w, r]:
                    if limit <= 0.0:
                        g = 0.0
                    else:
                        if a != last_a:  # the cut, reused while the shape stays
                            last_a, upper = a, _gs_upper(a, limit)
                        g = _gamma_below(a, limit, upper, _mix_one(base[r, c] + offset))
                    out[w, r, c] = g
                    if np.isnan(g):
                        row_missed = True
                        missed += 1
                        continue
                total += out[w, r, c]
            if normalise and not row_missed and total > 0.0:
                scale = 1.0 / total
                for c in range(n_cols):
                    out[w, r, c] *= scale
    return missed


# replaced by their compiled forms (callees first) before the passes that call them
_mix53: Any = _mix53_py
_mix_one: Any = _mix_one_py
_draw53: Any = _draw53_py
_base: Any = _base_py
_uniform: Any = _uniform_py
_marsaglia_tsang: Any = _marsaglia_tsang_py
_gamma: Any = _gamma_py
_log_gamma: Any = _log_gamma_py
_categorical_row: Any = _categorical_row_py
_ordered_cum: Any = _ordered_cum_py
_gamma_below: Any = _gamma_below_py
_gs_upper: Any = _gs_upper_py


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled passes, built at first use (numba is slow to import); the one-unit
    functions (draw, mix, base, uniform, gamma) are compiled first, callees before callers, so
    that every pass calls the same compiled functions."""
    import numba

    global _mix53, _mix_one, _draw53, _base, _uniform, _marsaglia_tsang, _gamma, _log_gamma
    global _categorical_row, _ordered_cum, _gamma_below, _gs_upper
    jit = numba.njit(cache=True, nogil=True)
    _mix_one = jit(_mix_one_py)
    _mix53 = jit(_mix53_py)
    _draw53 = jit(_draw53_py)
    _base = jit(_base_py)
    _uniform = jit(_uniform_py)
    _marsaglia_tsang = jit(_marsaglia_tsang_py)
    _gamma = jit(_gamma_py)
    _log_gamma = jit(_log_gamma_py)
    _categorical_row = jit(_categorical_row_py)
    _ordered_cum = jit(_ordered_cum_py)
    _gamma_below = jit(_gamma_below_py)
    _gs_upper = jit(_gs_upper_py)
    return {
        "bernoulli_sums": jit(_bernoulli_sums_py),
        "bernoulli_pick": jit(_bernoulli_pick_py),
        "member_sums": jit(_member_sums_py),
        "member_pick": jit(_member_pick_py),
        "categorical": jit(_categorical_py),
        "categorical_of": jit(_categorical_of_py),
        "categorical_each": jit(_categorical_each_py),
        "index_counts": jit(_index_counts_py),
        "group_counts": jit(_group_counts_py),
        "weighted_sums": jit(_weighted_sums_py),
        "random_bytes": jit(_random_bytes_py),
        "permutations": jit(_permutations_py),
        "two_stage": jit(_two_stage_py),
        "gammas": jit(_gammas_py),
        "gammas_below": jit(_gammas_below_py),
    }
