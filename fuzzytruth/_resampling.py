"""Resampling shared by the statistics, the collection analysis and the displacement bootstrap.

One kernel draws bootstrap count vectors (how often each unit — query or item — is drawn in a
resample), in blocks sized from a memory budget, never a fixed row count; one helper reads a
percentile interval off a bootstrap distribution. The draws are made block after block from
one stream, so the replicates do not depend on the block size.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> blocks = list(count_blocks(5, 7, rng, memory_budget=3 * 5 * BYTES_PER_DRAW))
>>> [len(b) for b in blocks], int(np.vstack(blocks).sum(axis=1).min())
([3, 3, 1], 5)
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from fuzzytruth._validation import check_confidence_level

__all__ = ["BYTES_PER_DRAW", "MEMORY_BUDGET", "block_rows", "count_blocks", "percentile_interval"]

MEMORY_BUDGET = 64e6
"""Default working memory of one block of replicates, in bytes."""

BYTES_PER_DRAW = 24
"""Temporaries per (replicate, unit) of :func:`count_blocks`: an int64 index, its bincount
slot and the count."""


def block_rows(n_units: int, memory_budget: float = MEMORY_BUDGET, *, bytes_per_unit: float =
               BYTES_PER_DRAW) -> int:
    """Replicates per block so that a block's temporaries (``bytes_per_unit`` per replicate
    and unit) stay within ``memory_budget`` bytes; at least one.

    Examples
    --------
    >>> block_rows(185_000, 64e6), block_rows(30, 64e6) > 10_000
    (14, True)
    """
    return max(1, int(memory_budget // (bytes_per_unit * max(n_units, 1))))


def count_blocks(
    n_units: int,
    n_resamples: int,
    rng: np.random.Generator,
    memory_budget: float = MEMORY_BUDGET,
) -> Iterator[np.ndarray]:
    """Bootstrap count matrices, ``(rows, n_units)`` int32 per block of replicates.

    Row ``b`` counts how often each unit is drawn in one resample of ``n_units`` units drawn
    with replacement (a multinomial(n_units, uniform) vector, drawn as indices and counted:
    several times faster than ``rng.multinomial`` for many units). A statistic that is a
    function of unit sums is then ``counts @ per_unit`` for every replicate of the block.
    """
    rows = block_rows(n_units, memory_budget)
    for start in range(0, n_resamples, rows):
        b = min(rows, n_resamples - start)
        idx = rng.integers(0, n_units, size=(b, n_units))
        idx += np.arange(b)[:, None] * n_units
        counts = np.bincount(idx.ravel(), minlength=b * n_units).reshape(b, n_units)
        yield counts.astype(np.int32)


def percentile_interval(
    distribution: np.ndarray, confidence_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval along the last axis, ignoring undefined (NaN) replicates.

    A row whose replicates are all NaN (or that has none) gets a NaN interval.

    Examples
    --------
    >>> percentile_interval(np.array([[1.0, 2.0, 3.0, np.nan], [np.nan] * 4]), 0.5)
    (array([1.5, nan]), array([2.5, nan]))
    """
    level = check_confidence_level(confidence_level)
    alpha = (1 - level) / 2
    flat = np.asarray(distribution, dtype=np.float64)
    shape = flat.shape[:-1]
    flat = flat.reshape(int(np.prod(shape)), flat.shape[-1])
    low = np.full(len(flat), np.nan)
    high = np.full(len(flat), np.nan)
    ok = np.isfinite(flat).any(axis=1) if flat.shape[1] else np.zeros(len(flat), dtype=bool)
    if ok.any():
        q = np.nanquantile(flat[ok], [alpha, 1 - alpha], axis=1)
        low[ok], high[ok] = q[0], q[1]
    return low.reshape(shape), high.reshape(shape)
