"""Vectorised resampling kernels: resample-count matrices, sign flips, per-pair counting.

Every kernel works on *system* columns and derives pairwise quantities from them, so nothing of
size ``(n_resamples, n_pairs, n_queries)`` is ever built, and work is done in chunks of
resamples (or of pairs) to bound memory.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from fuzzytruth._resampling import count_blocks

#: Rows (resamples) processed at a time; bounds every temporary to a few MB.
CHUNK_ROWS = 1024
#: Pairs processed at a time when a per-pair array of length ``n_resamples`` is needed.
CHUNK_PAIRS = 128


def row_chunks(n_rows: int, size: int = CHUNK_ROWS) -> Iterator[slice]:
    """Consecutive slices of at most ``size`` rows covering ``range(n_rows)``."""
    for start in range(0, n_rows, size):
        yield slice(start, min(start + size, n_rows))


def resample_counts(n_queries: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each query is drawn in each bootstrap resample.

    Row ``b`` is the multinomial count vector of one resample of ``n_queries`` queries drawn
    with replacement (drawn as indices, then counted), so ``counts @ x / n`` is the vector of
    bootstrap means of ``x``. One row is shared by every system: the resample is paired.

    Returns
    -------
    numpy.ndarray
        ``(n_resamples, n_queries)`` int32; every row sums to ``n_queries``.
    """
    blocks = list(count_blocks(n_queries, n_resamples, rng))  # blocks sized from memory
    return np.vstack(blocks) if blocks else np.zeros((0, n_queries), dtype=np.int32)


def sign_flip_means(
    scores: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Means of randomly sign-flipped scores, one flip vector per resample shared by all systems.

    Row ``r`` is ``scores @ f_r / n`` for independent fair signs ``f_r`` in {-1, +1}^n. The
    signs are the bits of uniform random bytes, one byte per 8 queries, and each byte indexes a
    precomputed table of the 256 signed sums of its 8 queries for every system, so a resample
    costs ``n / 8`` table look-ups per system instead of ``n`` multiply-adds (and no BLAS call,
    whose threads behave badly on a busy machine).

    Parameters
    ----------
    scores : numpy.ndarray
        ``(n_systems, n_queries)``.
    n_resamples : int
        Number of flip vectors B.
    rng : numpy.random.Generator
        Source of the random bytes.

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
    out = np.empty((n_resamples, n_systems))
    for rows in row_chunks(n_resamples):
        random_bytes = rng.integers(0, 256, size=(n_groups, rows.stop - rows.start),
                                    dtype=np.uint8)
        acc = out[rows]
        np.take(tables[0], random_bytes[0], axis=0, out=acc)
        for g in range(1, n_groups):
            acc += np.take(tables[g], random_bytes[g], axis=0)
        acc /= n
    return out


def all_sign_flips(n_queries: int) -> np.ndarray:
    """All ``2**n_queries`` sign vectors, one per row (float64), for exact enumeration."""
    codes = np.arange(2**n_queries, dtype=np.int64)[:, None] >> np.arange(n_queries)
    return (codes & 1).astype(np.float64) * 2.0 - 1.0


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
    scale: float = 1.0,
) -> np.ndarray:
    """Count, per pair, the null values at least as extreme as the observed one.

    The null value of pair ``(a, b)`` in resample ``r`` is
    ``null_system[r, a] - null_system[r, b]``. "At least as extreme" uses a
    relative tolerance of ``1e-12`` (and ``1e-12 * scale`` absolute), so values equal to the
    observed statistic up to rounding count, as in :func:`scipy.stats.permutation_test`.

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
