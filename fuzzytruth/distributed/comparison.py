"""``compare()`` on a Dask cluster: blocks of resamples as tasks, the same numbers as in memory.

:func:`fuzzytruth.stats.compare` draws every random replicate — a bootstrap resample of the
queries, a vector of sign flips, a permutation of the systems within each query — from the
counter-based generator of :mod:`fuzzytruth._random`, keyed by (the measure's seed, what
is drawn, replicate number, query), and computes each replicate without arithmetic across
replicates (:mod:`fuzzytruth._resampling`). So a block of replicates ``[start, stop)`` is
an independent task. Here the in-memory ``compare`` runs on the driver with its blocks of
replicates mapped onto the workers (:func:`~fuzzytruth.distributed.partitions.blocks_on`):
each task returns the rows of its replicates (resampled system means and query counts,
flipped means, permutation ranges) and the driver concatenates them in replicate order — the
same one rule, in the same place, as in memory — then reads the intervals, p-values and
corrections off the whole distribution with the same code. The result equals the in-memory
one bit for bit, for every procedure, correction and estimand, whatever the block size or the
number of workers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fuzzytruth._resampling import BLOCKING
from fuzzytruth._validation import check_int
from fuzzytruth.distributed.partitions import blocks_on, cluster_client
from fuzzytruth.stats.compare import Comparison
from fuzzytruth.stats.compare import compare as compare_in_memory

__all__ = ["compare"]


def compare(
    scores: object,
    *,
    client: Any = None,
    retries: int = 2,
    block_size: int | None = None,
    rng: np.random.Generator | int | None = None,
    **options: Any,
) -> Comparison:
    """:func:`fuzzytruth.stats.compare` with each measure's resamples split into Dask tasks.

    Parameters
    ----------
    scores : Evaluation, PopulationScores, array_like, mapping, ScoreMatrix or DataFrame
        As in :func:`fuzzytruth.stats.compare` (an Evaluation from
        :func:`fuzzytruth.distributed.evaluate` too).
    client : distributed.Client, optional
        The cluster (default: the active client).
    retries : int
        How often Dask reruns a block whose worker died (default 2).
    block_size : int, optional
        Replicates per task. Default: as many as the memory budget of one block allows
        (:data:`fuzzytruth._resampling.MEMORY_BUDGET`), but no more than
        ``ceil(n_resamples / n_workers)``, so that every worker has a block. The block size
        changes no number.
    rng : numpy.random.Generator or int, optional
        As in :func:`fuzzytruth.stats.compare`; the same seed gives the same table.
    **options
        Every other keyword of :func:`fuzzytruth.stats.compare`.

    Returns
    -------
    Comparison
        Equal, bit for bit, to ``fuzzytruth.stats.compare(scores, rng=rng, **options)``.
        Procedures without resampling (``"t"``, ``"wilcoxon"``, ``"sign"``, the ANOVA Tukey)
        and the annotator-population estimand (its replicates are already drawn) run on the
        driver.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from fuzzytruth.stats import compare as compare_here
    >>> x = np.random.default_rng(0).random((3, 40))
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=None)
    >>> with cluster, Client(cluster):
    ...     remote = compare(x, method="bca", n_resamples=999, block_size=100, rng=1)
    >>> remote.table.equals(compare_here(x, method="bca", n_resamples=999, rng=1).table)
    True
    """
    client = cluster_client(client)
    retries = check_int("retries", retries)
    if block_size is not None:
        block_size = check_int("block_size", block_size, minimum=1)
    n_workers = max(1, len(client.scheduler_info()["workers"]))
    token = BLOCKING.set((block_size, n_workers))
    try:
        with blocks_on(client, retries):
            return compare_in_memory(scores, rng=rng, **options)
    finally:
        BLOCKING.reset(token)
