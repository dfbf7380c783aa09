"""``agreement()`` and ``agreement_by_level()`` on a Dask cluster: blocks of bootstrap
replicates as tasks, the same numbers as in memory.

The bootstrap of :mod:`fuzzytruth.collection.agreement` works in blocks of replicates sized
from the memory budget, and every draw of a replicate is keyed by (seed, replicate, draw)
(:func:`~fuzzytruth.collection._counts.resample_block`). Here the blocks are Dask tasks: the
per-item table (small: items × a few dozen columns) is broadcast once, each task draws and
evaluates its block, and the driver puts the blocks back in order. Same blocks, same draws,
same matrix products: the result equals the in-memory one bit for bit, whatever the number of
workers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from fuzzytruth._validation import check_int
from fuzzytruth.collection import agreement as agreement_in_memory
from fuzzytruth.collection import agreement_by_level as agreement_by_level_in_memory
from fuzzytruth.collection._counts import BLOCK_RUNNER
from fuzzytruth.collection.agreement import AgreementResult, LevelAgreement

__all__ = ["agreement", "agreement_by_level"]


def agreement(annotations: Any, *, client: Any = None, retries: int = 2,
              **options: Any) -> AgreementResult:
    """:func:`fuzzytruth.collection.agreement` with its bootstrap blocks as Dask tasks.

    Parameters
    ----------
    annotations : Annotations
        As in :func:`fuzzytruth.collection.agreement`.
    client : distributed.Client, optional
        The cluster (default: the active client).
    retries : int
        How often Dask reruns a block whose worker died (default 2).
    **options
        Every keyword of :func:`fuzzytruth.collection.agreement` (``n_resamples``, ``rng``,
        ``memory_budget``: the block size...).
    """
    with _blocks_on(client, retries):
        return agreement_in_memory(annotations, **options)


def agreement_by_level(annotations: Any, *, client: Any = None, retries: int = 2,
                       **options: Any) -> LevelAgreement:
    """:func:`fuzzytruth.collection.agreement_by_level` with its bootstrap blocks as Dask tasks
    (parameters as in :func:`agreement`)."""
    with _blocks_on(client, retries):
        return agreement_by_level_in_memory(annotations, **options)


@contextlib.contextmanager
def _blocks_on(client: Any, retries: int) -> Iterator[None]:
    from distributed import get_client

    client = get_client() if client is None else client
    retries = check_int("retries", retries)

    def runner(kernel: Callable[..., Any], shared: Any, blocks: list[tuple[int, int]]) -> list:
        if not blocks:
            return []
        [on_workers] = client.scatter([shared], broadcast=True)
        futures = client.map(kernel, [on_workers] * len(blocks), [a for a, _ in blocks],
                             [b for _, b in blocks], pure=False, retries=retries)
        return client.gather(futures)

    token = BLOCK_RUNNER.set(runner)
    try:
        yield
    finally:
        BLOCK_RUNNER.reset(token)
