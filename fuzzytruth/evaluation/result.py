"""The result of :func:`fuzzytruth.evaluation.evaluate`: :class:`Evaluation`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, check_confidence_level
from fuzzytruth.measures import Measure, MeasureFamily
from fuzzytruth.uncertain.batch import DistributionBatch
from fuzzytruth.uncertain.distribution import Distribution

__all__ = ["Evaluation"]


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Distributions of every (system, query, measure), one batch per (system, measure), with
    the Monte Carlo world values when worlds were drawn. Build one with :func:`evaluate`.

    Attributes
    ----------
    systems, queries, measures : tuple of str
        Labels (measures as asked, in canonical spelling).
    truth : str
        ``"crisp"``, ``"probabilistic_qrels"``, ``"categorical"`` or ``"judgment_groups"``.
    undefined : {"zero", "skip"}
        The rule for undefined values (module docstring), applied in every output.
    conventions : dict
        Everything that fixes the numbers (preset, ties, each measure resolved, options).
    confidence_level : float
        Default level of the intervals.
    groups : pandas.DataFrame or None
        Per-annotator evaluation only: each judgment group's value, ``query_id, group,
        measure, value`` (:func:`fuzzytruth.evaluation.per_annotator.evaluate_per_annotator`).
    """

    systems: tuple[str, ...]
    queries: tuple[str, ...]
    measures: tuple[str, ...]
    truth: str
    undefined: str
    conventions: dict[str, Any]
    confidence_level: float
    _families: dict[str, MeasureFamily] = field(repr=False)
    _batches: dict[tuple[str, str], DistributionBatch | None] = field(repr=False)  # None: worlds
    _methods: dict[tuple[str, str], str] = field(repr=False)
    _worlds: np.ndarray | None = field(repr=False)  # (n_measures, n_systems, n_worlds, n_q)
    _counted: dict[str, np.ndarray] = field(repr=False)  # measure -> (n_q,) bool: in aggregates
    groups: pd.DataFrame | None = field(default=None, repr=False)
    # (n_worlds, n_q) bool: the preset's class-size rule world by world (uncertain truth)
    _world_counted: np.ndarray | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        worlds = f", {self.n_worlds} worlds" if self.n_worlds else ""
        return (
            f"Evaluation({len(self.systems)} systems × {len(self.queries)} queries × "
            f"{len(self.measures)} measures, truth={self.truth!r}, "
            f"undefined={self.undefined!r}{worlds})"
        )

    # ------------------------------------------------------------------ access
    def _key(self, system: str, measure: str | Measure) -> tuple[str, str]:
        name = str(measure)
        check_choice("system", system, self.systems)
        check_choice("measure", name, self.measures)
        return system, name

    def _samples(self, system: str, measure: str) -> np.ndarray:
        """``(n_worlds, n_queries)`` world values of a (system, measure) computed by worlds."""
        return self._worlds[self.measures.index(measure), self.systems.index(system)]

    def _raw_batch(self, system: str, measure: str) -> DistributionBatch:
        batch = self._batches[system, measure]
        if batch is None:  # built on demand: n_queries x n_worlds atoms
            return DistributionBatch.from_samples(self._samples(system, measure))
        return batch

    def batch(self, system: str, measure: str | Measure) -> DistributionBatch:
        """Per-query distributions of one system and measure, rows in :attr:`queries`, under
        the evaluation's ``undefined`` rule."""
        key = self._key(system, measure)
        batch = self._raw_batch(*key)
        if self.undefined == "zero":
            return batch.fill_undefined(self._families[key[1]].undefined_value)
        return batch

    def distribution(self, system: str, query_id: str, measure: str | Measure) -> Distribution:
        """The :class:`Distribution` of one (system, query, measure)."""
        query_id = str(query_id)
        check_choice("query_id", query_id, self.queries)
        return self.batch(system, measure).distribution(self.queries.index(query_id))

    @property
    def n_worlds(self) -> int:
        """Number of Monte Carlo worlds behind :meth:`world_scores` (0 when none)."""
        return 0 if self._worlds is None else self._worlds.shape[2]

    def method(self, system: str, measure: str | Measure) -> str:
        """Which path computed a (system, measure): crisp, exact, worlds or worlds_binary."""
        return self._methods[self._key(system, measure)]

    # ------------------------------------------------------------------ per query
    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table, one row per (system, query, measure).

        Columns ``system, query_id, measure, mean, std, ci_low, ci_high, confidence_level,
        p_undefined, method, mc_se`` (``mc_se``: Monte Carlo standard error of the mean, 0 when
        exact). Under ``undefined="zero"`` an undefined outcome counts as the family's
        ``undefined_value``; under ``"skip"`` summaries are conditional on being defined (NaN
        for a query undefined for sure). ``p_undefined`` is reported in both.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_confidence_level(level)
        parts = []
        queries = np.array(self.queries, dtype=object)
        for system in self.systems:
            for measure in self.measures:
                raw = self._raw_batch(system, measure)
                b = self.batch(system, measure)
                low, high = b.interval(level)
                parts.append(
                    pd.DataFrame(
                        {
                            "system": system,
                            "query_id": queries,
                            "measure": measure,
                            "mean": b.mean(),
                            "std": b.std(),
                            "ci_low": low,
                            "ci_high": high,
                            "confidence_level": level,
                            "p_undefined": raw.p_undefined,
                            "method": self._methods[system, measure],
                            "mc_se": b.mc_standard_error(),
                        }
                    )
                )
        return pd.concat(parts, ignore_index=True)

    def query_means(self, measure: str | Measure) -> np.ndarray:
        """``(n_systems, n_queries)`` each query's expected value under the uncertain truth
        (exact where the family has a closed form), under the ``undefined`` rule: NaN where a
        query is undefined for sure under ``"skip"``, and for queries left out of aggregates
        by the preset (e.g. ``psb``'s small classes; under uncertain truth the expectation is
        over the worlds where the query enters them, NaN when it enters none)."""
        name = self._key(self.systems[0], measure)[1]
        fill = self._families[name].undefined_value
        rows = []
        for system in self.systems:
            if self._batches[system, name] is not None:
                rows.append(self.batch(system, name).mean())
                continue
            samples = self._samples(system, name)
            keep = np.ones(samples.shape, dtype=bool)
            if self._world_counted is not None:
                keep &= self._world_counted
            if self.undefined == "zero":
                samples = np.where(np.isnan(samples), fill, samples)
            else:
                keep &= ~np.isnan(samples)
            total = np.where(keep, samples, 0.0).sum(axis=0)
            count = keep.sum(axis=0)
            rows.append(np.divide(total, count, out=np.full(len(count), np.nan),
                                  where=count > 0))
        return np.where(self._counted[name][None, :], np.stack(rows), np.nan)

    def world_scores(self, measure: str | Measure) -> np.ndarray:
        """``(n_worlds, n_systems, n_queries)`` values of one measure in each shared world.

        A crisp truth has one world. Undefined values follow the ``undefined`` rule: scored as
        the family's ``undefined_value`` (``"zero"``) or NaN (``"skip"``); queries the preset
        leaves out of aggregates are NaN (world by world under uncertain truth).
        """
        name = self._key(self.systems[0], measure)[1]
        m = self.measures.index(name)
        if self.truth in ("crisp", "judgment_groups"):
            values = np.stack([self._batches[s, name].mean() for s in self.systems])[None]
        elif self._worlds is None:
            raise ValueError("no worlds were drawn; evaluate with n_worlds > 0")
        else:
            values = self._worlds[m].transpose(1, 0, 2)
        if self.undefined == "zero":
            values = np.where(np.isnan(values), self._families[name].undefined_value, values)
        if self._world_counted is not None:
            values = np.where(self._world_counted[:, None, :], values, np.nan)
        return np.where(self._counted[name][None, None, :], values, np.nan)

    # ------------------------------------------------------------------ per system
    def aggregate(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Each system's value of each measure: its family's aggregate over queries.

        Columns ``system, measure, value, std, ci_low, ci_high, confidence_level, method,
        mc_se, n_queries``. ``value`` is the mean (or the family's sum / geometric mean) over
        the counted queries of their values; under uncertain truth with the arithmetic mean
        and ``undefined="zero"`` it is the mean of the per-query expectations (exact where
        they are), and ``std``/``ci_low``/``ci_high`` give the spread of the system's value
        over the sampled worlds (how much the truth's uncertainty moves it; NaN without
        worlds). ``n_queries`` is the number of queries averaged (the expected number per
        world under ``"skip"`` with uncertain truth).
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_confidence_level(level)
        rows = []
        worlds_of = {
            m: None if self._worlds is None else self.world_scores(m) for m in self.measures
        }
        means_of = {m: self.query_means(m) for m in self.measures}
        for s, system in enumerate(self.systems):
            for measure in self.measures:
                fam = self._families[measure]
                counted = self._counted[measure]
                worlds = worlds_of[measure]
                means = means_of[measure][s]
                row: dict[str, Any] = {"system": system, "measure": measure}
                if worlds is None or worlds.shape[0] == 1:
                    values = means if worlds is None else worlds[0, s]
                    exact_mean = self.truth not in ("crisp", "judgment_groups")
                    if exact_mean and (fam.aggregate != "mean" or self.undefined != "zero"):
                        raise ValueError(
                            f"the aggregate of {measure!r} needs possible worlds "
                            f"(aggregate={fam.aggregate!r}, undefined={self.undefined!r}); "
                            "evaluate with n_worlds > 0"
                        )
                    row.update(
                        value=float(fam.combine(values)),
                        std=0.0 if not exact_mean else np.nan,
                        ci_low=np.nan,
                        ci_high=np.nan,
                        mc_se=0.0,
                        n_queries=int((~np.isnan(values)).sum()),
                    )
                    if not exact_mean:
                        row["ci_low"] = row["ci_high"] = row["value"]
                else:
                    per_world = fam.combine(worlds[:, s], axis=1)
                    by_world = self.undefined == "skip" or self._world_counted is not None
                    linear = fam.aggregate == "mean" and not by_world
                    value = float(fam.combine(means)) if linear else float(np.nanmean(per_world))
                    alpha = (1 - level) / 2
                    row.update(
                        value=value,
                        std=float(np.nanstd(per_world, ddof=1)) if len(per_world) > 1 else 0.0,
                        ci_low=float(np.nanquantile(per_world, alpha)),
                        ci_high=float(np.nanquantile(per_world, 1 - alpha)),
                        mc_se=float(np.nanstd(per_world, ddof=1) / np.sqrt(len(per_world))),
                        n_queries=float((~np.isnan(worlds[:, s])).sum(axis=1).mean())
                        if by_world
                        else int(counted.sum()),
                    )
                row["confidence_level"] = level
                row["method"] = self._methods[system, measure]
                rows.append(row)
        columns = [
            "system", "measure", "value", "std", "ci_low", "ci_high", "confidence_level",
            "method", "mc_se", "n_queries",
        ]
        return pd.DataFrame(rows, columns=columns)

    def value(self, system: str, measure: str | Measure) -> float:
        """One system's aggregate value of one measure (as in :meth:`aggregate`)."""
        system, measure = self._key(system, measure)
        table = self.aggregate()
        pick = (table["system"] == system) & (table["measure"] == measure)
        return float(table.loc[pick, "value"].iloc[0])
