"""The result of :func:`~fuzzytruth.displacement.weighted_displacement`: one row per (system,
query, annotator), and its aggregates over annotators and queries."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import check_choice, check_confidence_level, check_n_resamples
from fuzzytruth.displacement.bootstrap import DisplacementBootstrap, two_stage_bootstrap
from fuzzytruth.displacement.kernel import HYPOTHESES

__all__ = ["MEASURES", "DisplacementResult"]

MEASURES = ("q", "w")
"""What the aggregates summarise: the quality ``q`` or the displacement ``w``."""

_STATS = ("std", "min", "median", "max")


def _canonical(table: pd.DataFrame) -> pd.DataFrame:
    """The rows sorted by (system, query, annotator), so that every mean adds the same numbers
    in the same order whatever the order of the rows (the table of
    :func:`~fuzzytruth.displacement.weighted_displacement` is in this order already)."""
    codes = [pd.factorize(table[c].to_numpy(), sort=True)[0]
             for c in ("annotator_id", "query_id", "system")]
    order = np.lexsort(codes)
    return table if np.all(order[1:] > order[:-1]) else table.iloc[order]


def _ordered(hypotheses: tuple[str, ...]) -> list[str]:
    return [c for h in hypotheses for c in (h, *(f"{h}_{s}" for s in _STATS))]


@dataclass(frozen=True, eq=False)
class DisplacementResult:
    """Per (system, query, annotator) weighted displacements and qualities (Santini §5).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (system, query_id, annotator_id); see :meth:`to_frame`.
    g : str
        The normalisation used for ``q``.
    use_deeper_ranks : bool
        Whether runs were read past the annotator's list length.
    run_order : str
        How run positions were taken (``'rank'``: a rank column; ``'score'``: ranked by score).
    ties, score_dtype : str or None
        With ``run_order='score'``: the tie rule and score precision of the ranking
        (:func:`fuzzytruth.runs.rank`); None when positions came from ranks.
    """

    table: pd.DataFrame
    g: str
    use_deeper_ranks: bool
    run_order: str
    ties: str | None = None
    score_dtype: str | None = None

    def __repr__(self) -> str:
        t = self.table
        return (
            f"DisplacementResult({t['system'].nunique()} systems × {t['query_id'].nunique()} "
            f"queries × {t['annotator_id'].nunique()} annotators, g={self.g})"
        )

    def to_frame(self) -> pd.DataFrame:
        """The tidy per-list table (a copy).

        Columns: ``system``, ``query_id``, ``annotator_id``; ``m`` (annotator list length),
        ``run_depth`` (run items read), ``n_items`` (N); ``n_a``, ``n_b``, ``n_c`` (set
        sizes); ``w_a``; ``w_b_<h>`` and ``w_<h>`` for each hypothesis ``h`` in
        :data:`~fuzzytruth.displacement.HYPOTHESES`; ``w_max = N Σ s``; ``q_<h>``.
        """
        return self.table.copy()

    def _summary(self, keys: list[str], measure: str) -> pd.DataFrame:
        cols = [f"{measure}_{h}" for h in HYPOTHESES]
        stats = _canonical(self.table).groupby(keys, sort=True)[cols].agg(list(_STATS))
        stats.columns = [f"{c[len(measure) + 1 :]}_{s}" for c, s in stats.columns]
        return stats

    def _with_spread(self, keys: list[str], measure: str, counts: pd.DataFrame,
                     mean: pd.DataFrame) -> pd.DataFrame:
        """``counts`` and each hypothesis' ``mean`` per ``keys``, each beside its spread over
        the (query, annotator) lists."""
        out = pd.concat([counts, mean, self._summary(keys, measure)], axis=1)
        return out[[*counts.columns, *_ordered(HYPOTHESES)]].reset_index()

    def by_query(self, *, measure: str = "q") -> pd.DataFrame:
        """Per (system, query): mean over annotators and the spread across them.

        Parameters
        ----------
        measure : {'q', 'w'}, default 'q'
            Aggregate the quality ``q`` or the displacement ``w``.

        Returns
        -------
        pandas.DataFrame
            Columns ``system``, ``query_id``, ``n_annotators``, then for each hypothesis ``h``
            (pessimist, exact_pessimist, optimist, side by side): ``h`` (the mean over
            annotators), ``h_std`` (ddof=1; NaN for one annotator), ``h_min``, ``h_median``,
            ``h_max``.
        """
        check_choice("measure", measure, MEASURES)
        keys = ["system", "query_id"]
        cols = [f"{measure}_{h}" for h in HYPOTHESES]
        table = _canonical(self.table)
        mean = table.groupby(keys, sort=True)[cols].mean()
        mean.columns = list(HYPOTHESES)
        n = table.groupby(keys, sort=True).size().rename("n_annotators").to_frame()
        return self._with_spread(keys, measure, n, mean)

    def by_system(self, *, measure: str = "q") -> pd.DataFrame:
        """Per system: mean over queries of the per-query mean over annotators, and the spread.

        Parameters
        ----------
        measure : {'q', 'w'}, default 'q'
            Aggregate the quality ``q`` or the displacement ``w``.

        Returns
        -------
        pandas.DataFrame
            Columns ``system``, ``n_queries``, ``n_lists``, then for each hypothesis ``h``:
            ``h`` (every query weighs the same, whatever its number of annotators), and
            ``h_std``, ``h_min``, ``h_median``, ``h_max`` over all (query, annotator) lists.
        """
        per_query = self.by_query(measure=measure)
        mean = per_query.groupby("system", sort=True)[list(HYPOTHESES)].mean()
        counts = per_query.groupby("system", sort=True).agg(
            n_queries=("query_id", "size"), n_lists=("n_annotators", "sum")
        )
        return self._with_spread(["system"], measure, counts, mean)

    def bootstrap(
        self,
        *,
        measure: str = "q",
        confidence_level: float = 0.95,
        n_resamples: int = 9999,
        rng: np.random.Generator | int | None = None,
        memory_budget: float = MEMORY_BUDGET,
    ) -> DisplacementBootstrap:
        """Two-stage bootstrap of each system's mean over queries and annotators.

        Each replicate resamples queries with replacement, then, within each drawn query,
        resamples its annotators with replacement; the statistic is the mean over the drawn
        queries of the mean over each query's drawn annotators (the estimate of
        :meth:`by_system`). Every system sees the same draws (paired). Intervals are percentile
        intervals; with one query none is drawn (NaN intervals, with an
        ``UnreliableInferenceWarning``): the query level cannot vary. The draws are keyed by
        replicate and draw (:mod:`fuzzytruth.displacement.bootstrap`): the same ``rng`` gives
        the same bits whatever ``memory_budget`` and whatever the order of the table's rows.

        Parameters
        ----------
        measure : {'q', 'w'}, default 'q'
            Bootstrap the quality ``q`` or the displacement ``w``.
        confidence_level : float, default 0.95
            In (0, 1).
        n_resamples : int, default 9999
            Number of bootstrap replicates (≥ 1).
        rng : numpy.random.Generator or int, optional
            Source of randomness (a seed makes the result reproducible).
        memory_budget : float
            Bytes of working memory per block of replicates (changes no number).

        Returns
        -------
        DisplacementBootstrap

        Raises
        ------
        ValueError
            On a bad option, or a table in which some system lacks a (query, annotator) list
            that another has (the resample is paired).

        Examples
        --------
        >>> import pandas as pd
        >>> from fuzzytruth.displacement import weighted_displacement
        >>> ann = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
        ...                     "annotator_id": ["a", "b", "a", "b"], "item_id": "x",
        ...                     "rank": 1, "relevance": [1.0, 0.5, 1.0, 1.0]})
        >>> run = pd.DataFrame({"system": "S", "query_id": ["q1", "q2"],
        ...                     "item_id": ["y", "x"], "rank": 1})
        >>> res = weighted_displacement(ann, run, n_items=5, g="scale_free")
        >>> boot = res.bootstrap(n_resamples=200, rng=0)
        >>> boot.to_frame()[["system", "pessimist", "optimist"]]
          system  pessimist  optimist
        0      S        0.5       0.9
        """
        check_choice("measure", measure, MEASURES)
        check_confidence_level(confidence_level)  # before the aggregate below
        check_n_resamples(n_resamples)
        estimate = self.by_system(measure=measure)[list(HYPOTHESES)].to_numpy()
        return two_stage_bootstrap(
            self.table,
            estimate,
            measure=measure,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            rng=rng,
            memory_budget=memory_budget,
        )
