"""Two-stage bootstrap of each system's mean displacement quality (queries, then annotators).

Estimand: each system's mean over queries of the mean over a query's annotators (the estimate
of :meth:`~fuzzytruth.displacement.DisplacementResult.by_system`), generalised to new queries
and new annotators of the same kind. Each replicate resamples the queries with replacement,
then, within each drawn query, its annotators with replacement; every system and hypothesis
sees the same draws (paired).

The draws are keyed (:func:`fuzzytruth._random.two_stage_sums`): draw ``j`` of replicate
``r`` is a function of the seed, ``r`` and ``j`` only, and the annotators of that draw of the
seed, ``r``, ``j`` and the annotator slot. Queries are taken in sorted order and annotators in
sorted order within their query, so a replicate is the same bits whatever the memory budget,
the blocks of replicates, the order of the table's rows or the other systems scored with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._random import draw_seed, two_stage_sums
from fuzzytruth._resampling import (
    MEMORY_BUDGET,
    percentile_interval,
    replicate_blocks,
    run_blocks,
)
from fuzzytruth._validation import check_confidence_level, check_n_resamples
from fuzzytruth.displacement.kernel import HYPOTHESES

__all__ = ["DISPLACEMENT_STREAM", "DisplacementBootstrap", "two_stage_bootstrap"]

DISPLACEMENT_STREAM = 0x44495350  # "DISP": the keyed draws of the two-stage bootstrap


@dataclass(frozen=True, eq=False)
class DisplacementBootstrap:
    """Two-stage (queries, then annotators) bootstrap of each system's mean score.

    Attributes
    ----------
    systems : numpy.ndarray
        ``(n_systems,)`` system names.
    measure : str
        ``'q'`` or ``'w'``.
    n_queries : int
        Number of queries resampled.
    estimate : numpy.ndarray
        ``(n_systems, 3)`` mean over queries of the mean over annotators, per hypothesis (in
        the order of :data:`~fuzzytruth.displacement.HYPOTHESES`).
    bootstrap_distribution : numpy.ndarray
        ``(n_systems, 3, n_resamples)`` the statistic on each replicate.
    confidence_level : float
        Level of the interval reported by :meth:`to_frame`.
    """

    systems: np.ndarray
    measure: str
    n_queries: int
    estimate: np.ndarray
    bootstrap_distribution: np.ndarray
    confidence_level: float

    def __repr__(self) -> str:
        return (
            f"DisplacementBootstrap({len(self.systems)} systems, measure={self.measure!r}, "
            f"{self.n_queries} queries, {self.bootstrap_distribution.shape[-1]} resamples)"
        )

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Percentile interval ``(low, high)``, each ``(n_systems, 3)``.

        Parameters
        ----------
        confidence_level : float, optional
            Defaults to the level given to :meth:`DisplacementResult.bootstrap`.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        check_confidence_level(level)
        return percentile_interval(self.bootstrap_distribution, level)

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per system, the three hypotheses side by side.

        Columns: ``system``, ``measure``, ``n_queries``, then for each hypothesis ``h``
        (pessimist, exact_pessimist, optimist): ``h``, ``h_ci_low``, ``h_ci_high``; and
        ``confidence_level``, ``n_resamples``.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        data: dict[str, Any] = {
            "system": self.systems,
            "measure": self.measure,
            "n_queries": self.n_queries,
        }
        for j, h in enumerate(HYPOTHESES):
            data[h] = self.estimate[:, j]
            data[f"{h}_ci_low"] = low[:, j]
            data[f"{h}_ci_high"] = high[:, j]
        data["confidence_level"] = level
        data["n_resamples"] = self.bootstrap_distribution.shape[-1]
        return pd.DataFrame(data)


def _layout(table: pd.DataFrame, measure: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(systems, annotators per query, values)`` of a per-list table: queries sorted, the
    annotators of each sorted, one row per (query, annotator slot), one column per (system,
    hypothesis). Every system must have every (query, annotator) list exactly once."""
    s_code, systems = pd.factorize(table["system"].to_numpy(), sort=True)
    q_code, _ = pd.factorize(table["query_id"].to_numpy(), sort=True)
    a_code, _ = pd.factorize(table["annotator_id"].to_numpy(), sort=True)
    n_q, n_sys = int(q_code.max()) + 1, len(systems)
    qa, qa_code = np.unique(q_code.astype(np.int64) * (a_code.max() + 1) + a_code,
                            return_inverse=True)
    qa_query = qa // (a_code.max() + 1)
    seen = np.unique(s_code.astype(np.int64) * len(qa) + qa_code)
    if len(seen) != len(table) or len(seen) != n_sys * len(qa):
        raise ValueError(
            "the table must hold exactly one row per (system, query, annotator) for every "
            f"system (the bootstrap is paired); got {len(table)} rows for {n_sys} systems and "
            f"{len(qa)} (query, annotator) lists"
        )
    n_ann = np.bincount(qa_query, minlength=n_q)
    width = int(n_ann.max())
    slot = np.arange(len(qa)) - np.concatenate(([0], np.cumsum(n_ann)[:-1]))[qa_query]
    rows = qa_query[qa_code] * width + slot[qa_code]
    values = np.zeros((n_q * width, n_sys * len(HYPOTHESES)))
    for j, h in enumerate(HYPOTHESES):
        values[rows, s_code * len(HYPOTHESES) + j] = table[f"{measure}_{h}"].to_numpy()
    return np.asarray(systems, dtype=object), n_ann, values


def _block(shared: tuple[int, np.ndarray, np.ndarray], start: int, stop: int) -> np.ndarray:
    """Replicates ``start .. stop - 1``: each system's mean of query means, per hypothesis."""
    seed, n_ann, values = shared
    sums = two_stage_sums(seed, DISPLACEMENT_STREAM, n_ann, values, np.arange(start, stop))
    return sums / len(n_ann)


def two_stage_bootstrap(
    table: pd.DataFrame,
    estimate: np.ndarray,
    *,
    measure: str,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    rng: np.random.Generator | int | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> DisplacementBootstrap:
    """The two-stage bootstrap of the per-list ``table`` (module docstring).

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``system``, ``query_id``, ``annotator_id`` and ``<measure>_<h>`` for each
        hypothesis ``h``: one row per (system, query, annotator), every system on every list.
    estimate : numpy.ndarray
        ``(n_systems, 3)`` the point estimate (systems sorted), recorded with the result.
    measure : {'q', 'w'}
        The column family bootstrapped.
    confidence_level : float, default 0.95
        In (0, 1).
    n_resamples : int, default 9999
        Number of replicates (>= 1).
    rng : numpy.random.Generator or int, optional
        The one source of randomness; one seed is drawn from it (:func:`~fuzzytruth._random.
        draw_seed`).
    memory_budget : float
        Bytes of working memory per block of replicates; changes no number.

    Returns
    -------
    DisplacementBootstrap
    """
    confidence_level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples)
    systems, n_ann, values = _layout(table, measure)
    seed = draw_seed(rng)
    from fuzzytruth.stats.procedures import replicates_to_draw  # scipy.stats: on use only

    n_resamples = replicates_to_draw(
        len(n_ann), n_resamples,
        "the displacement bootstrap resamples queries, then annotators: with one query the "
        "query level cannot vary (with one annotator as well, every replicate was the "
        "estimate: an interval of width 0)")
    blocks = replicate_blocks(n_resamples, 8.0 * values.shape[1], memory_budget)
    dist = np.concatenate([np.empty((0, values.shape[1])),
                           *run_blocks(_block, (seed, n_ann, values), blocks)])
    shape = (len(systems), len(HYPOTHESES))
    return DisplacementBootstrap(
        systems=systems,
        measure=measure,
        n_queries=len(n_ann),
        estimate=np.asarray(estimate, dtype=float).reshape(shape),
        bootstrap_distribution=dist.T.reshape(*shape, n_resamples),
        confidence_level=confidence_level,
    )
