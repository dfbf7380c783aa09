"""``compare()`` on a Dask cluster: one task per measure, the same numbers as in memory.

:func:`fuzzytruth.stats.compare` draws each measure's resamples from its own stream, keyed by
the seed and the measure's name (:func:`~fuzzytruth.stats.compare.measure_stream`), so the
measures are independent computations: each runs the in-memory ``compare`` on a worker, on the
small score matrix of its measure (systems × queries, or worlds × systems × queries), and the
tables are put back together in the measures' order. Every procedure, correction and estimand
of ``compare`` is available, and the result equals the in-memory one bit for bit.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_int
from fuzzytruth.stats.compare import Comparison, base_entropy
from fuzzytruth.stats.compare import compare as compare_in_memory
from fuzzytruth.stats.population import PopulationScores
from fuzzytruth.stats.scores import as_score_matrices

__all__ = ["compare"]


def compare(
    scores: object,
    *,
    client: Any = None,
    retries: int = 2,
    rng: np.random.Generator | int | None = None,
    **options: Any,
) -> Comparison:
    """:func:`fuzzytruth.stats.compare` with one Dask task per measure.

    Parameters
    ----------
    scores : Evaluation, PopulationScores, array_like, mapping, ScoreMatrix or DataFrame
        As in :func:`fuzzytruth.stats.compare` (an Evaluation from
        :func:`fuzzytruth.distributed.evaluate` too).
    client : distributed.Client, optional
        The cluster (default: the active client).
    retries : int
        How often Dask reruns a measure whose worker died (default 2).
    rng : numpy.random.Generator or int, optional
        As in :func:`fuzzytruth.stats.compare`; the same seed gives the same table.
    **options
        Every other keyword of :func:`fuzzytruth.stats.compare`.

    Returns
    -------
    Comparison
    """
    from distributed import get_client

    client = get_client() if client is None else client
    retries = check_int("retries", retries)
    options["progress"] = False
    if isinstance(scores, PopulationScores):
        names = list(scores.scores) if options.get("measure") is None else [options["measure"]]
        units = [(scores, {**options, "measure": name}) for name in names]
    else:
        labels = {k: options.pop(k, None) for k in ("systems", "queries", "measure")}
        matrices = as_score_matrices(scores, **labels)
        units = [(sm, options) for sm in matrices.values()]
    if rng is None or isinstance(rng, np.random.Generator):
        generator = np.random.default_rng(rng)
        seeds = [copy.deepcopy(generator) for _ in units]
        base_entropy(generator)  # the caller's generator moves on as after compare()
    else:
        seeds = [rng] * len(units)
    futures = client.map(
        _compare_part, [u for u, _ in units], [o for _, o in units], seeds,
        pure=False, retries=retries,
    )
    results = client.gather(futures)
    for _, caught in results:
        for category, message in caught:
            warnings.warn(message, category, stacklevel=2)
    parts = [c for c, _ in results]
    return Comparison(
        table=pd.concat([p.table for p in parts], ignore_index=True),
        systems=pd.concat([p.systems for p in parts], ignore_index=True),
        alpha=parts[0].alpha,
        n_resamples=parts[0].n_resamples,
    )


def _compare_part(scores: object, options: dict, rng: Any
                  ) -> tuple[Comparison, list[tuple[type[Warning], str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare_in_memory(scores, rng=rng, **options)
    return result, [(w.category, str(w.message)) for w in caught]

