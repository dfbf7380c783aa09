"""Resampling, in one home: memory-budgeted blocks of replicates, keyed replicate kernels
(bootstrap counts, sign flips, permutations), and the percentile interval.

Every random replicate — a bootstrap resample of queries or items, a vector of sign flips, a
permutation of the systems within each query — is drawn from the counter-based generator of
:mod:`fuzzytruth._random`, keyed by (seed, what is drawn, replicate number, unit), and computed
row by row without any arithmetic across replicates. So the replicates ``[start, stop)`` are
one independent task, and :func:`replicates` — the one rule that puts blocks together —
concatenates them in replicate order: any split into blocks, here or on a cluster
(:data:`BLOCK_RUNNER`), gives the same bits as the whole. Blocks are sized from a memory
budget (:data:`MEMORY_BUDGET`, the one default of the library), never a fixed row count.
Everything after the draws (quantiles, counts, bisection) runs once on the whole distribution.
Every kernel works on *system* columns and derives pairwise quantities from them, so nothing
of size ``(n_resamples, n_pairs, n_queries)`` is ever built.

Examples
--------
>>> x = np.random.default_rng(0).random((3, 20))
>>> whole = bootstrap_means(x, 50, seed=7)
>>> token = BLOCKING.set((7, 1))  # blocks of 7 replicates
>>> bool((bootstrap_means(x, 50, seed=7) == whole).all())
True
>>> BLOCKING.reset(token)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

from fuzzytruth._random import (
    draw_seed,
    index_counts,
    index_sums,
    permutations,
    random_bytes,
    weighted_sums,
)
from fuzzytruth._validation import (
    check_confidence_level,
    check_memory_budget,
    physical_memory,
    significance_level,
    tail_levels,
)
from fuzzytruth._warnings import warn

MEMORY_BUDGET = 128e6
"""Default working memory of one block (of replicates, worlds or queries), in bytes: the one
default of every ``memory_budget`` argument."""

BYTES_PER_DRAW = 24
"""Temporaries per (replicate, unit) of a block of keyed bootstrap counts
(:func:`fuzzytruth._random.index_counts`): the float count and its products."""

ITEM_STREAM = 0x424F4F54  # "BOOT": item resamples of the collection analysis

def length_blocks(
    lengths: np.ndarray, bytes_per_cell: float, memory_budget: float
) -> list[np.ndarray] | None:
    """Blocks of rows of lists of ``lengths`` whose tables padded to the block's longest list
    fit ``memory_budget`` at ``bytes_per_cell`` (see :meth:`Ranking.row_blocks`), or None
    when the table of all of them does.

    >>> [b.tolist() for b in length_blocks(np.array([5, 1, 1, 2]), 1.0, 6.0)]
    [[1, 2, 3], [0]]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    n = len(lengths)
    if n == 0 or n * max(int(lengths.max()), 1) * bytes_per_cell <= memory_budget:
        return None
    order = np.argsort(lengths, kind="stable")
    width = np.maximum(lengths[order], 1)
    cap = memory_budget / bytes_per_cell
    out, start = [], 0
    while start < n:  # rows start..j fit while (j - start + 1) * width[j] <= cap
        cells = np.arange(1, n - start + 1) * width[start:]
        stop = start + max(int(np.searchsorted(cells, cap, side="right")), 1)
        out.append(order[start:stop])
        start = stop
    return out


def block_rows(n_units: int, memory_budget: float = MEMORY_BUDGET, *, bytes_per_unit: float =
               BYTES_PER_DRAW) -> int:
    """Replicates per block so that a block's temporaries (``bytes_per_unit`` per replicate
    and unit) stay within ``memory_budget`` bytes; at least one. Every public ``memory_budget``
    that sizes blocks comes here, so the budget is checked here (a positive number of bytes).

    Examples
    --------
    >>> block_rows(185_000, 64e6), block_rows(30, 64e6) > 10_000
    (14, True)
    """
    memory_budget = check_memory_budget(memory_budget)
    return max(1, int(memory_budget // (bytes_per_unit * max(n_units, 1))))


#: Where blocks of replicates are computed: None in this process, or a function
#: ``runner(kernel, shared, blocks) -> list`` (the Dask back end sets one). Results are the same
#: either way: the blocks and their keyed draws are.
BLOCK_RUNNER: ContextVar[Callable[..., list] | None] = ContextVar("block_runner", default=None)


def run_blocks(kernel: Callable[..., Any], shared: Any, blocks: list[tuple[int, int]]) -> list:
    """``[kernel(shared, start, stop) for each block]``, here or on the active runner.

    Examples
    --------
    >>> run_blocks(lambda shared, a, b: shared * (b - a), 2, [(0, 3), (3, 4)])
    [6, 2]
    """
    runner = BLOCK_RUNNER.get()
    if runner is None:
        return [kernel(shared, start, stop) for start, stop in blocks]
    return runner(kernel, shared, blocks)


def interval_tail(confidence_level: float, alternative: str) -> float:
    """The tail probability an interval leaves out on each bounded side: half of
    ``1 - confidence_level`` (rounded by :func:`~fuzzytruth._validation.significance_level`)
    for a two-sided interval, all of it for a one-sided one."""
    alpha = significance_level(confidence_level)
    return alpha / 2.0 if alternative == "two-sided" else alpha


def tail_resolved(tail: float, n_resamples: int) -> bool:
    """Whether ``n_resamples`` resamples resolve a tail probability of ``tail``: it must be
    finer than their resolution ``1 / (B + 1)``, else the interval's end is unbounded (and a
    p-value is at least the resolution)."""
    return tail > 1.0 / (n_resamples + 1)


def resamples_to_bound(confidence_level: float, alternative: str) -> int:
    """The fewest resamples B whose resolution ``1 / (B + 1)`` is finer than the tail of a
    ``confidence_level`` interval: with fewer, its bounded ends are infinite (40 for a
    two-sided 95 % interval, 20 for a one-sided one).

    Examples
    --------
    >>> resamples_to_bound(0.95, "two-sided"), resamples_to_bound(0.95, "greater")
    (40, 20)
    """
    tail = interval_tail(confidence_level, alternative)
    b = max(int(1.0 / tail) - 2, 1)
    while not tail_resolved(tail, b):
        b += 1
    return b


class ResamplingResolutionWarning(UserWarning):
    """Too few resamples for the result to mean what it says: no Monte Carlo p-value can
    survive the correction, a percentile interval's ends are the most extreme replicates, or
    a bootstrap interval's tail is finer than ``1 / (B + 1)`` (it is unbounded)."""


def percentile_interval(
    distribution: np.ndarray, confidence_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval along the last axis, ignoring undefined (NaN) replicates.

    The ends are the quantiles at ``alpha / 2`` and ``1 - alpha / 2``, ``alpha`` the tests'
    significance level (:func:`~fuzzytruth._validation.tail_levels`: 0.025 and 0.975 at a
    0.95 level, not ``(1 - 0.95) / 2 = 0.025000000000000022``). A row with fewer than two
    defined replicates gets a NaN interval: one value has no spread (its value at both ends
    read as a quantity that cannot move).

    Examples
    --------
    >>> percentile_interval(np.array([[1.0, 2.0, 3.0, np.nan], [np.nan, 7.0, np.nan, np.nan]]),
    ...                     0.5)
    (array([1.5, nan]), array([2.5, nan]))
    """
    level = check_confidence_level(confidence_level)
    alpha, upper = tail_levels(level)
    flat = np.asarray(distribution, dtype=np.float64)
    n_replicates = flat.shape[-1]
    needed = math.ceil(1 / alpha) - 1
    if n_replicates == 1:
        warn(
            f"1 replicate gives no {level:g} percentile interval (NaN): one value has no "
            f"spread (at least {needed} replicates are needed)",
            ResamplingResolutionWarning,
        )
    elif 0 < n_replicates and alpha * (n_replicates + 1) < 1:
        warn(
            f"{n_replicates} replicates are too few for a {level:g} percentile interval: its "
            f"ends are the most extreme replicates, not their {alpha:g} and {upper:g} "
            f"quantiles (at least {needed} are needed)",
            ResamplingResolutionWarning,
        )
    shape = flat.shape[:-1]
    flat = flat.reshape(int(np.prod(shape)), flat.shape[-1])
    low = np.full(len(flat), np.nan)
    high = np.full(len(flat), np.nan)
    defined = np.isfinite(flat).sum(axis=1)
    ok = defined >= 2
    few = ok & (alpha * (defined + 1) < 1)
    if few.any() and alpha * (n_replicates + 1) >= 1:  # the rows the total does not warn of
        warn(
            f"{int(few.sum())} of {len(flat)} rows have too few defined replicates for a "
            f"{level:g} percentile interval (the fewest {int(defined[few].min())} of "
            f"{n_replicates}; at least {needed} are needed): their ends are the most extreme "
            "of those replicates",
            ResamplingResolutionWarning,
        )
    if ok.any():
        q = np.nanquantile(flat[ok], [alpha, upper], axis=1)
        low[ok], high[ok] = q[0], q[1]
    return low.reshape(shape), high.reshape(shape)


#: Rows processed at a time by the deterministic code after the draws (counting, sorting).
CHUNK_ROWS = 1024
#: Pairs processed at a time when a per-pair array of length ``n_resamples`` is needed.
CHUNK_PAIRS = 128

#: Keyed streams (:mod:`fuzzytruth._random`) of the three kinds of replicate.
BOOTSTRAP_STREAM = 0x51424F4F  # query resamples
SIGN_FLIP_STREAM = 0x5153474E  # sign flips
PERMUTATION_STREAM = 0x51504552  # permutations of systems within queries

#: ``(block_size, fewest_blocks)``: replicates per block when ``block_size`` is set, else as
#: many as the memory budget allows but at most ``ceil(n_resamples / fewest_blocks)``. The
#: Dask back end sets it (:func:`fuzzytruth.distributed.compare`); it changes no number.
BLOCKING: ContextVar[tuple[int | None, int]] = ContextVar("replicate_blocking",
                                                          default=(None, 1))


def row_chunks(n_rows: int, size: int = CHUNK_ROWS) -> Iterator[slice]:
    """Consecutive slices of at most ``size`` rows covering ``range(n_rows)``."""
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


def replicate_blocks(
    n_resamples: int, bytes_per_replicate: float, memory_budget: float = MEMORY_BUDGET
) -> list[tuple[int, int]]:
    """``(start, stop)`` of each block of replicates (see :data:`BLOCKING`).

    Examples
    --------
    >>> replicate_blocks(10, 8e6, memory_budget=32e6)
    [(0, 4), (4, 8), (8, 10)]
    """
    size, fewest = BLOCKING.get()
    if size is None:
        size = min(block_rows(1, memory_budget, bytes_per_unit=bytes_per_replicate),
                   max(1, -(-n_resamples // fewest)))
    return [(start, min(start + size, n_resamples)) for start in range(0, n_resamples, size)]


def replicates(
    kernel: Callable[..., tuple[np.ndarray, ...]],
    shared: Any,
    n_resamples: int,
    bytes_per_replicate: float,
) -> tuple[np.ndarray, ...]:
    """Replicates ``0 .. n_resamples - 1`` of ``kernel``, block by block: the outputs of the
    blocks (arrays whose first axis is the replicate) concatenated in replicate order."""
    blocks = replicate_blocks(n_resamples, bytes_per_replicate)
    parts = run_blocks(kernel, shared, blocks)
    return tuple(np.concatenate(columns) for columns in zip(*parts, strict=True))


def bootstrap_block(shared: tuple[np.ndarray, int], start: int, stop: int) -> tuple[np.ndarray]:
    """Bootstrap replicates ``start .. stop - 1``: every system's mean.

    ``shared = (scores.T, seed)``. Draw ``j`` of replicate ``r`` is query
    ``floor(u * n_queries)``, ``u`` keyed by (seed, replicate r, draw j); one count vector is
    shared by every system (the resample is paired). The counts are not returned: they are
    :class:`QueryCounts`' rows, drawn again when an interval needs them.
    """
    values, seed = shared
    _, sums = index_sums(seed, BOOTSTRAP_STREAM, values, np.arange(start, stop))
    sums /= values.shape[0]
    return (sums,)


class QueryCounts:
    """How often each query is drawn in each replicate of a query bootstrap: a
    ``(n_resamples, n_queries)`` table of floats, drawn again from the replicates' keys when
    asked rather than kept beside the bootstrap means.

    Kept, the table would be 8 bytes per replicate and query whatever the memory budget
    (800 MB at 10,000 queries and B = 10,000). It is kept only when it fits in
    ``memory_budget`` (drawn whole on first use); otherwise :meth:`blocks` draws it a block of
    replicates at a time, two blocks within the budget, and :meth:`rows` draws only the rows
    asked. Row ``r`` is ``index_counts(seed, BOOTSTRAP_STREAM, n_queries, [r])``, the counts
    :func:`bootstrap_block` summed.

    Examples
    --------
    >>> counts = QueryCounts(seed=7, n_queries=5, n_resamples=3)
    >>> counts.rows(np.array([2, 0])).sum(axis=1).tolist()
    [5.0, 5.0]
    >>> small = QueryCounts(seed=7, n_queries=5, n_resamples=3, memory_budget=100)
    >>> [(block.start, block.stop) for block, _ in small.blocks()]
    [(0, 1), (1, 2), (2, 3)]
    >>> bool((np.concatenate([c for _, c in small.blocks()]) == counts.rows(np.arange(3))).all())
    True
    """

    def __init__(self, seed: int, n_queries: int, n_resamples: int,
                 memory_budget: float = MEMORY_BUDGET) -> None:
        self.seed, self.n_queries, self.n_resamples = seed, n_queries, n_resamples
        self._keep = block_rows(n_queries, memory_budget, bytes_per_unit=8.0) >= n_resamples
        # a block is drawn while the one before is still held: two within the budget
        self._step = block_rows(n_queries, memory_budget, bytes_per_unit=16.0)
        self._whole: np.ndarray | None = None

    @property
    def kept(self) -> bool:
        """Whether the whole table is kept (it fits in the budget) rather than drawn again."""
        return self._keep

    def rows(self, replicates: np.ndarray) -> np.ndarray:
        """The count rows of ``replicates`` (replicate numbers, in any order, repeats allowed)."""
        if self._keep:
            return self._kept()[replicates]
        return index_counts(self.seed, BOOTSTRAP_STREAM, self.n_queries,
                            np.asarray(replicates, dtype=np.int64))

    def blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        """``(replicates, counts)`` of consecutive blocks of replicates, two of them within the
        budget (one block, the kept table, when it fits)."""
        if self._keep:
            yield slice(0, self.n_resamples), self._kept()
            return
        for start in range(0, self.n_resamples, self._step):
            block = slice(start, min(start + self._step, self.n_resamples))
            yield block, self.rows(np.arange(block.start, block.stop))

    def _kept(self) -> np.ndarray:
        if self._whole is None:
            self._whole = index_counts(self.seed, BOOTSTRAP_STREAM, self.n_queries,
                                       np.arange(self.n_resamples))
        return self._whole


def bootstrap_means(scores: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """``(n_resamples, n_systems)`` means of the paired bootstrap of ``(n_systems, n_queries)``
    scores: row ``r`` is ``counts[r] @ scores.T / n_queries`` with ``counts`` the replicates'
    :class:`QueryCounts` (multinomial(n_queries, uniform) vectors)."""
    n_systems, n = scores.shape
    values = np.ascontiguousarray(scores.T, dtype=np.float64)
    (means,) = replicates(bootstrap_block, (values, seed), n_resamples, 8.0 * (3 * n + n_systems))
    return means


def sign_flip_block(
    shared: tuple[np.ndarray, int, int], start: int, stop: int
) -> tuple[np.ndarray]:
    """Sign-flipped means of replicates ``start .. stop - 1`` (see :func:`sign_flip_means`);
    ``shared = (tables, n_queries, seed)``."""
    tables, n, seed = shared
    codes = random_bytes(seed, SIGN_FLIP_STREAM, tables.shape[0], np.arange(start, stop))
    codes = np.ascontiguousarray(codes.T)  # (n_groups, rows)
    acc = np.take(tables[0], codes[0], axis=0)
    for g in range(1, tables.shape[0]):
        acc += np.take(tables[g], codes[g], axis=0)
    acc /= n
    return (acc,)


def sign_flip_means(scores: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Means of randomly sign-flipped scores, one flip vector per resample shared by all systems.

    Row ``r`` is ``scores @ f_r / n`` for independent fair signs ``f_r`` in {-1, +1}^n. The
    signs are the bits of keyed random bytes (:func:`~fuzzytruth._random.random_bytes`
    of replicate ``r``), one byte per 8 queries, and each byte indexes a precomputed table of
    the 256 signed sums of its 8 queries for every system, so a resample costs ``n / 8``
    table look-ups per system instead of ``n`` multiply-adds (and no BLAS call, whose threads
    behave badly on a busy machine).

    Parameters
    ----------
    scores : numpy.ndarray
        ``(n_systems, n_queries)``.
    n_resamples : int
        Number of flip vectors B.
    seed : int
        Seed of the keyed draws (:func:`~fuzzytruth._random.draw_seed`).

    Returns
    -------
    numpy.ndarray
        ``(n_resamples, n_systems)`` float64.
    """
    n_systems, n = scores.shape
    n_groups = -(-n // 8)
    padded = np.zeros((n_systems, n_groups * 8))
    padded[:, :n] = scores  # padding queries score 0: their sign changes nothing
    signs = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1) * 2.0 - 1.0
    # tables[g, v, s]: signed sum of system s over the 8 queries of group g under byte v.
    tables = np.einsum("vj,sgj->gvs", signs, padded.reshape(n_systems, n_groups, 8))
    (out,) = replicates(sign_flip_block, (tables, n, seed), n_resamples,
                        2.0 * n_groups + 16.0 * n_systems)
    return out


def permutation_block(
    shared: tuple[np.ndarray, int], start: int, stop: int
) -> tuple[np.ndarray]:
    """Range of the system means (largest minus smallest) in permutations ``start .. stop - 1``
    of the systems within every query; ``shared = (scores.T, seed)``."""
    base, seed = shared
    n, k = base.shape
    perm = permutations(seed, PERMUTATION_STREAM, n, k, np.arange(start, stop))
    permuted = np.take_along_axis(base[None], perm, axis=2)  # (rows, n_queries, n_systems)
    means = permuted.mean(axis=1)
    return (means.max(axis=1) - means.min(axis=1),)


def permutation_ranges(scores: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """``(n_resamples,)`` range of the system means when the system labels of every query are
    permuted at random (keyed by seed, replicate and query): the randomised Tukey null."""
    base = np.ascontiguousarray(np.asarray(scores, dtype=np.float64).T)
    (out,) = replicates(permutation_block, (base, seed), n_resamples, 24.0 * base.size)
    return out


def exact_flip_means(scores: np.ndarray, memory_budget: float = MEMORY_BUDGET) -> np.ndarray:
    """Means of the scores under every sign vector, for exact enumeration: row ``c`` of the
    ``(2**n_queries, n_systems)`` result is ``scores @ f_c / n`` with ``f_c[j] = +1`` where
    bit ``j`` of ``c`` is set, else -1.

    The sign vectors are made and multiplied a block at a time (their temporaries within
    ``memory_budget``: all of them at once took 13 GB at 24 queries); a result that could not
    fit in this machine's memory is refused with its size.

    Examples
    --------
    >>> exact_flip_means(np.array([[1.0, 3.0]])).ravel().tolist()  # (-1-3)/2, (1-3)/2, ...
    [-2.0, -1.0, 1.0, 2.0]
    """
    n_systems, n = scores.shape
    total = 2**n
    need, memory = 8.0 * total * n_systems, physical_memory()
    if memory is not None and need > memory:
        raise ValueError(
            f"exact enumeration of the 2**{n} sign flips of {n} queries for {n_systems} systems "
            f"would keep {need / 1e9:.3g} GB, more than the {memory / 1e9:.3g} GB of memory: use "
            "Monte Carlo flips (exact=False, n_resamples)"
        )
    out = np.empty((total, n_systems))
    step = block_rows(n + n_systems, memory_budget, bytes_per_unit=16.0)
    bits = np.arange(n)
    values = np.ascontiguousarray(scores.T, dtype=np.float64)
    for start in range(0, total, step):
        stop = min(start + step, total)
        signs = ((np.arange(start, stop)[:, None] >> bits) & 1) * 2.0 - 1.0
        # summed in query order (not a BLAS product, which rounds a system's column by the
        # systems beside it: the inverted interval of a pair moved when a system was added)
        out[start:stop] = weighted_sums(signs, values)
    out /= n
    return out


def _as_slice(index: np.ndarray) -> slice | np.ndarray:
    """A slice when ``index`` is a run of consecutive integers (a view, no gather)."""
    if len(index) and np.array_equal(index, np.arange(index[0], index[0] + len(index))):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index


def count_extreme(
    null_system: np.ndarray,
    pairs: np.ndarray,
    observed: np.ndarray,
    *,
    alternative: str,
    scale: float | np.ndarray = 1.0,
) -> np.ndarray:
    """Count, per pair, the null values at least as extreme as the observed one.

    The null value of pair ``(a, b)`` in resample ``r`` is
    ``null_system[r, a] - null_system[r, b]``. "At least as extreme" uses a
    relative tolerance of ``1e-12`` (and ``1e-12 * scale`` absolute, ``scale`` one number or
    one per pair), so values equal to the observed statistic up to rounding count, as in
    :func:`scipy.stats.permutation_test`.

    Returns
    -------
    numpy.ndarray
        ``(n_pairs,)`` int64 counts.
    """
    n_rows = null_system.shape[0]
    gamma = 1e-12 * (np.abs(observed) + scale)
    if alternative == "two-sided":
        threshold = np.abs(observed) - gamma  # count |d| >= threshold
    elif alternative == "greater":
        threshold = observed - gamma  # count d >= threshold
    else:
        threshold = observed + gamma  # count d <= threshold
    # Group the pairs by their first system so each group is one broadcast subtraction
    # (null[a] - null[bs]) instead of a gather per pair.
    order = np.argsort(pairs[:, 0], kind="stable")
    firsts, starts = np.unique(pairs[order, 0], return_index=True)
    bounds = [*starts[1:], len(order)]
    groups = [
        (int(a), _as_slice(pairs[order[s:e], 1]), order[s:e])
        for a, s, e in zip(firsts, starts, bounds, strict=True)
    ]
    counts = np.zeros(len(pairs), dtype=np.int64)
    for rows in row_chunks(n_rows, 4 * CHUNK_ROWS):
        block = np.ascontiguousarray(null_system[rows].T)  # (n_systems, chunk)
        for a, bs, idx in groups:
            diff = block[a] - block[bs]  # (len(bs), chunk)
            if alternative == "two-sided":
                np.abs(diff, out=diff)
            if alternative == "less":
                counts[idx] += np.count_nonzero(diff <= threshold[idx, None], axis=1)
            else:
                counts[idx] += np.count_nonzero(diff >= threshold[idx, None], axis=1)
    return counts


def resample_block(n_items: int, seed: int, start: int, stop: int) -> np.ndarray:
    """Resample counts of replicates ``start .. stop - 1``, keyed by (seed, replicate, draw).

    Draw ``j`` of replicate ``r`` is item ``floor(u * n_items)`` with ``u`` the counter-based
    uniform of (seed, replicate r, draw j) (:func:`fuzzytruth._random.index_counts`),
    so a replicate is the same whatever block it is computed in, on one machine or on a
    cluster.

    Returns
    -------
    numpy.ndarray
        ``(stop - start, n_items)`` float; row ``i`` counts how often each item is drawn in
        replicate ``start + i`` (a multinomial(n_items, uniform) vector).

    Examples
    --------
    >>> whole = resample_block(6, 1, 0, 4)
    >>> bool((resample_block(6, 1, 2, 4) == whole[2:]).all()), whole.sum(axis=1).tolist()
    (True, [6.0, 6.0, 6.0, 6.0])
    """
    return index_counts(seed, ITEM_STREAM, n_items, np.arange(start, stop))


def resample_chunks(
    n_items: int,
    n_resamples: int,
    rng: np.random.Generator,
    memory_budget: float = MEMORY_BUDGET,
) -> Iterator[np.ndarray]:
    """Bootstrap resample-count matrices, in blocks of :func:`block_rows` replicates.

    One seed is taken from ``rng``; each replicate's draws are keyed by (seed, replicate,
    draw) (:func:`resample_block`), so the replicates do not depend on the block size (nor on
    the memory budget, nor on where a block is computed). Each row counts how often each item
    is drawn in one resample of ``n_items`` items drawn with replacement. A statistic that is
    a function of item sums is then ``counts @ per_item`` for all replicates of the block at
    once.
    """
    seed = draw_seed(rng)
    for start, stop in replicate_blocks(n_resamples, BYTES_PER_DRAW * n_items, memory_budget):
        yield resample_block(n_items, seed, start, stop)
