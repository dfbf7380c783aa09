"""Resampling shared by the statistics, the collection analysis and the displacement bootstrap.

Blocks of replicates are sized from a memory budget, never a fixed row count
(:func:`block_rows`), and computed here or on a cluster (:func:`run_blocks`); the draws of a
replicate are keyed by its number (:mod:`fuzzytruth.uncertain.keyed`), so a block gives the
same numbers wherever and with whatever neighbours it is computed. One helper reads a
percentile interval off a bootstrap distribution.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import numpy as np

from fuzzytruth._validation import check_confidence_level

__all__ = [
    "BLOCK_RUNNER",
    "BYTES_PER_DRAW",
    "MEMORY_BUDGET",
    "block_rows",
    "percentile_interval",
    "run_blocks",
]

MEMORY_BUDGET = 64e6
"""Default working memory of one block of replicates, in bytes."""

BYTES_PER_DRAW = 24
"""Temporaries per (replicate, unit) of a block of keyed bootstrap counts
(:func:`fuzzytruth.uncertain.keyed.index_counts`): the float count and its products."""


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
