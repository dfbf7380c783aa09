"""The result of :func:`fuzzytruth.evaluation.evaluate`: :class:`Evaluation`."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._order import sorted_order
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows, percentile_interval
from fuzzytruth._t_interval import t_interval
from fuzzytruth._validation import (
    check_choice,
    check_confidence_level,
    id_text,
    ordered_ids,
    significance_level,
)
from fuzzytruth.evaluation.undefined import Undefined
from fuzzytruth.evaluation.world_sums import add_block, apply_rules
from fuzzytruth.measures import Measure, MeasureFamily
from fuzzytruth.measures.names import label_among
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.protocol import TruthKind, estimand_label
from fuzzytruth.uncertain.batch import (
    BYTES_PER_ATOM,
    DeferredBatch,
    DistributionBatch,
    stack,
)
from fuzzytruth.uncertain.distribution import Distribution, monte_carlo_se

__all__ = ["Evaluation"]


_BYTES_PER_WORLD_VALUE = 32
"""Bytes per world value of a block of kept worlds read at a time: the sums of
``Evaluation._world_sums`` (a geometric mean's logs, 8 bytes, and NumPy's passes for small
blocks) and the masks of the rules ``Evaluation.world_scores`` applies in place."""

_FRAME_COLUMNS = ("system", "query_id", "measure", "mean", "truth_std", "truth_low",
                  "truth_high", "confidence_level", "p_undefined", "method", "mc_se")
"""The columns of :meth:`Evaluation.to_frame`."""

_AGGREGATE_COLUMNS = ("system", "measure", "value", "ci_low", "ci_high", "estimand",
                      "n_queries", "truth_std", "truth_low", "truth_high", "confidence_level",
                      "method", "mc_se")
"""The columns of :meth:`Evaluation.aggregate`."""


def _empty_frame() -> pd.DataFrame:
    """:meth:`Evaluation.to_frame` of an evaluation without systems or measures."""
    text = ("system", "query_id", "measure", "method")
    return pd.DataFrame({c: pd.Series(dtype="str" if c in text else float)
                         for c in _FRAME_COLUMNS})


@dataclass(frozen=True, eq=False, init=False)
class Evaluation:
    """Distributions of every (system, query, measure), one batch per (system, measure), with
    the Monte Carlo world values when worlds were drawn. Built by :func:`evaluate` (and the
    other back ends) through its one keyword constructor, which checks that the parts fit.

    Parameters
    ----------
    systems, queries, measures : sequence of str
        Labels (measures as asked, in canonical spelling); queries sorted.
    truth : TruthKind or str
        The kind of truth (:class:`~fuzzytruth.truth.protocol.TruthKind`).
    undefined : Undefined or {"zero", "skip"}
        The rule for undefined values (:mod:`fuzzytruth.evaluation.undefined`), applied in
        every output.
    conventions : dict
        Everything that fixes the numbers (preset, ties, each measure resolved, options;
        under uncertain truth ``seed``: :attr:`seed`).
    confidence_level : float
        Default level of the intervals.
    families : mapping of str to MeasureFamily
        Each measure's family.
    batches : mapping of (system, measure) to DistributionBatch, DeferredBatch or None
        Per-query distributions (rows in ``queries``); a
        :class:`~fuzzytruth.uncertain.batch.DeferredBatch` when the exact law is built on
        demand (its means known); None where the values are summarised from the world values
        on demand.
    methods : mapping of (system, measure) to str
        Which path computed each: crisp, exact, worlds or worlds_binary.
    counted : mapping of str to numpy.ndarray
        Per measure, ``(n_queries,)`` bool: the queries that enter aggregates (the preset's
        class-size rule).
    worlds : numpy.ndarray, optional
        ``(n_measures, n_systems, n_worlds, n_queries)`` values in each sampled world: an
        array, or any object with that ``shape`` whose ``[m, s]`` gives one system's values of
        one measure (a classifier evaluation computes them from the worlds' labels on
        demand, :class:`fuzzytruth.evaluation.classifiers.ClassWorlds`). An array is held as
        given (no copy) and made read-only.
    world_counted : numpy.ndarray, optional
        ``(n_worlds, n_queries)`` bool: the preset's class-size rule world by world (held
        likewise).
    groups : pandas.DataFrame, optional
        Per-annotator evaluation only: each judgment group's value, ``query_id, group,
        measure, value`` (:func:`fuzzytruth.evaluation.per_annotator.evaluate_per_annotator`).
    """

    systems: tuple[str, ...]
    queries: tuple[str, ...]
    measures: tuple[str, ...]
    truth: TruthKind
    undefined: Undefined
    conventions: dict[str, Any]
    confidence_level: float
    groups: pd.DataFrame | None = field(repr=False)
    _families: dict[str, MeasureFamily] = field(repr=False)
    _batches: dict[tuple[str, str], DistributionBatch | DeferredBatch | None] = field(repr=False)
    _methods: dict[tuple[str, str], str] = field(repr=False)
    _worlds: np.ndarray | None = field(repr=False)
    _counted: dict[str, np.ndarray] = field(repr=False)
    _world_counted: np.ndarray | None = field(repr=False)

    def __init__(
        self,
        *,
        systems: Sequence[str],
        queries: Sequence[str],
        measures: Sequence[str],
        truth: TruthKind | str,
        undefined: Undefined | str,
        conventions: Mapping[str, Any],
        confidence_level: float,
        families: Mapping[str, MeasureFamily],
        batches: Mapping[tuple[str, str], DistributionBatch | DeferredBatch | None],
        methods: Mapping[tuple[str, str], str],
        counted: Mapping[str, np.ndarray],
        worlds: np.ndarray | None = None,
        world_counted: np.ndarray | None = None,
        groups: pd.DataFrame | None = None,
    ) -> None:
        systems, queries, measures = (
            tuple(str(x) for x in labels) for labels in (systems, queries, measures)
        )
        for name, labels in (("systems", systems), ("queries", queries), ("measures", measures)):
            if len(set(labels)) != len(labels):
                raise ValueError(f"{name} must be distinct; got {_show(list(labels))}")
        n_q = len(queries)
        keys = {(s, m) for s in systems for m in measures}
        if set(batches) != keys or set(methods) != keys:
            raise ValueError("batches and methods must hold every (system, measure) pair")
        if set(families) != set(measures) or set(counted) != set(measures):
            raise ValueError("families and counted must hold every measure")
        for key, batch in batches.items():
            if batch is None and worlds is None:
                raise ValueError(f"batch {key} is summarised from worlds, but none were given")
            if batch is not None and len(batch) != n_q:
                raise ValueError(f"batch {key} has {len(batch)} rows for {n_q} queries")
        if worlds is not None:
            shape = (len(measures), len(systems))
            if worlds.ndim != 4 or worlds.shape[:2] != shape or worlds.shape[3] != n_q:
                raise ValueError(
                    f"worlds must have shape (n_measures, n_systems, n_worlds, n_queries) with "
                    f"{(*shape, '·', n_q)}; got {worlds.shape}"
                )
        if world_counted is not None and (
            worlds is None or world_counted.shape != (worlds.shape[2], n_q)
        ):
            raise ValueError("world_counted must have shape (n_worlds, n_queries)")
        for m, mask in counted.items():
            if np.shape(mask) != (n_q,):
                raise ValueError(f"counted[{m!r}] must have one entry per query")
        if groups is not None and not isinstance(groups, pd.DataFrame):
            raise ValueError(f"groups must be a DataFrame or None; got {type(groups).__name__}")
        for held in (worlds, world_counted):  # held as given, made read-only: views of them
            if isinstance(held, np.ndarray):  # (world_scores) go out without copies
                held.flags.writeable = False
        values = {
            "systems": systems,
            "queries": queries,
            "measures": measures,
            "truth": TruthKind(truth),
            "undefined": Undefined.of(undefined),
            "conventions": dict(conventions),
            "confidence_level": check_confidence_level(confidence_level),
            "groups": groups,
            "_families": dict(families),
            "_batches": dict(batches),
            "_methods": dict(methods),
            "_worlds": worlds,
            "_counted": {m: np.asarray(counted[m], dtype=bool) for m in measures},
            "_world_counted": world_counted,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes: Any) -> Evaluation:
        """A copy with some constructor arguments changed (checked as by the constructor).

        New ``systems`` rename the systems, in their order (as many names as systems; the
        values stay with their positions). ``queries`` label the rows of the values: they
        change only with the values themselves (``batches``), never alone, which would
        relabel every query's numbers.

        Examples
        --------
        >>> from fuzzytruth import Qrels, Run, evaluate
        >>> ev = evaluate(Run(["q1"], ["a"], [1.0]), Qrels(["q1"], ["a"], [1]), "P@1")
        >>> ev.replace(systems=["bm25"]).value("bm25", "P@1")
        1.0
        """
        current = {
            "systems": self.systems, "queries": self.queries, "measures": self.measures,
            "truth": self.truth, "undefined": self.undefined, "conventions": self.conventions,
            "confidence_level": self.confidence_level, "families": self._families,
            "batches": self._batches, "methods": self._methods, "counted": self._counted,
            "worlds": self._worlds, "world_counted": self._world_counted,
            "groups": self.groups,
        }
        unknown = set(changes) - set(current)
        if unknown:
            raise ValueError(f"unknown Evaluation argument(s) {sorted(unknown)}")
        if "queries" in changes and "batches" not in changes:
            raise ValueError(
                "queries must change together with the values they label (batches): alone "
                "they would relabel every query's numbers; to evaluate other queries, "
                "evaluate again on them"
            )
        if "systems" in changes and not {"batches", "methods"} & set(changes):
            changes = {**changes, **self._renamed(changes["systems"])}
        return Evaluation(**{**current, **changes})

    def _renamed(self, systems: str | Iterable[object]) -> dict[str, Any]:
        """The values keyed by (system, measure) with the systems renamed in order."""
        names = ([systems] if isinstance(systems, str)
                 else list(ordered_ids(systems, "systems", "of the systems they rename")))
        if len(names) != len(self.systems):
            raise ValueError(
                f"systems must rename the {len(self.systems)} system(s) "
                f"{_show(list(self.systems))} in order, one name each; got {len(names)} "
                f"({_show(names)}). To keep some systems, evaluate their runs alone (the same "
                "rng gives them the same numbers)"
            )
        new = dict(zip(self.systems, (str(n) for n in names), strict=True))
        return {
            "batches": {(new[s], m): v for (s, m), v in self._batches.items()},
            "methods": {(new[s], m): v for (s, m), v in self._methods.items()},
        }

    @classmethod
    def concatenate(cls, parts: Sequence[Evaluation]) -> Evaluation:
        """One Evaluation from evaluations of disjoint query sets (same systems, measures and
        options, e.g. a cluster's partitions), its queries in sorted order as
        :func:`~fuzzytruth.evaluation.evaluate` gives them. Parts that differ in anything but
        their queries (systems, measures, truth, options such as the preset or ``undefined``,
        the number of worlds or their seed) are refused, naming the first difference: their
        numbers were not made under one set of rules.

        Examples
        --------
        >>> from fuzzytruth import Qrels, Run, evaluate
        >>> judged = {"q1": ("a", 1), "q2": ("b", 0)}  # each part's queries and their qrels
        >>> parts = [evaluate(Run([q], [d], [1.0]), Qrels([q], [judged[q][0]], [judged[q][1]]),
        ...                   "P@1") for q, d in (("q2", "b"), ("q1", "a"))]
        >>> joined = Evaluation.concatenate(parts)
        >>> joined.queries, joined.value("run", "P@1")
        (('q1', 'q2'), 0.5)
        """
        parts = list(parts)
        if not parts:
            raise ValueError("parts must hold at least one Evaluation")
        for i, part in enumerate(parts):
            if not isinstance(part, Evaluation):
                raise ValueError(f"parts[{i}] must be an Evaluation; got {type(part).__name__}")
        first = parts[0]
        for i, part in enumerate(parts[1:], start=1):
            difference = _difference(first, part)
            if difference:
                other_systems = first.systems != part.systems
                raise ValueError(
                    f"parts[{i}] cannot be joined to parts[0]: {difference} (parts must be "
                    "evaluations of disjoint query sets under the same systems, measures and "
                    "options)" + ("; systems evaluated apart are compared when evaluated "
                                  "together, evaluate({name: run, ...}, truth, measures)"
                                  if other_systems else "")
                )
        order, at = query_placement([p.queries for p in parts])
        worlds = world_counted = None
        if first._worlds is not None:
            worlds = _placed([p._worlds for p in parts], at)
        if first._world_counted is not None:
            world_counted = _placed([p._world_counted for p in parts], at)
        groups = None
        if first.groups is not None:  # per-annotator values: every part's
            groups = pd.concat([p.groups for p in parts], ignore_index=True)
        return first.replace(
            **joined_columns([QueryPart(p.queries, p._batches, p._methods, p._counted)
                              for p in parts], order, at),
            worlds=worlds, world_counted=world_counted,
            groups=groups,
        )

    @property
    def estimand(self) -> str:
        """What the intervals over queries generalise to: ``"queries"`` (crisp truth) or
        ``"collection"`` (this collection's truth), naming the truth model when the truth is
        a model's fit: ``"collection (truth model: dawid-skene)"``
        (``conventions["truth_model"]``)."""
        base = "queries" if self.truth.crisp else "collection"
        return estimand_label(base, self.conventions.get("truth_model"))

    @property
    def seed(self) -> int | None:
        """The seed of the sampled worlds: the ``rng`` given to :func:`evaluate` when it was
        an int (or a SeedSequence of one, :func:`fuzzytruth._random.recorded_seed`), which
        draws the same worlds again; None when it was a Generator or None (nothing recorded
        repeats the draws), and with a crisp truth (nothing drawn)."""
        return self.conventions.get("seed")

    def family(self, measure: str | Measure) -> MeasureFamily:
        """The family of one of the evaluated measures."""
        return self._families[self._measure(measure)]

    def _measure(self, measure: str | Measure) -> str:
        """The label of one of the evaluated measures, given in any spelling
        :func:`~fuzzytruth.evaluate` takes (``"map"`` for ``"AP"``), else an error naming
        them."""
        return label_among(str(measure), self.measures)

    def __repr__(self) -> str:
        worlds = f", {self.n_worlds} worlds" if self.n_worlds else ""
        model = self.conventions.get("truth_model")
        model = f", truth_model={model!r}" if model else ""
        return (
            f"Evaluation({len(self.systems)} systems × {len(self.queries)} queries × "
            f"{len(self.measures)} measures, truth={str(self.truth)!r}{model}, "
            f"undefined={str(self.undefined)!r}{worlds})"
        )

    # ------------------------------------------------------------------ access
    def _key(self, system: str, measure: str | Measure) -> tuple[str, str]:
        system = id_text(system, "system")  # systems are named by text: {1: run} is "1"
        check_choice("system", system, self.systems)
        return system, self._measure(measure)

    def _samples(self, system: str, measure: str) -> np.ndarray:
        """``(n_worlds, n_queries)`` world values of a (system, measure) computed by worlds."""
        return self._worlds[self.measures.index(measure), self.systems.index(system)]

    def _raw_batch(self, system: str, measure: str) -> DistributionBatch:
        batch = self._batches[system, measure]
        if isinstance(batch, DeferredBatch):
            return batch.resolve()  # built once, kept
        return self._law_of((system, measure), slice(None))

    def _law_of(self, key: tuple[str, str], rows: slice | np.ndarray) -> DistributionBatch:
        """The per-query laws of the queries at ``rows`` of one (system, measure), without
        building the other queries': a closed form's atoms of those queries (when not built
        yet), a sampled measure's from their world values (n_worlds atoms a query)."""
        raw = self._batches[key]
        if raw is None:
            return DistributionBatch.from_samples(self._samples(*key)[:, rows])
        if isinstance(rows, slice) and rows == slice(None):
            return raw.resolve() if isinstance(raw, DeferredBatch) else raw
        at = np.arange(len(raw))[rows]
        return raw.rows_of(at) if isinstance(raw, DeferredBatch) else raw.take(at)

    def _never_undefined(self, system: str, measure: str) -> bool:
        """Whether the closed form of ``measure`` for ``system`` gives every query
        probability 0 of being undefined (False where the worlds alone say, or may say)."""
        batch = self._batches[system, measure]
        return batch is not None and not (batch.p_undefined > 0).any()

    def batch(self, system: str, measure: str | Measure) -> DistributionBatch:
        """Per-query distributions of one system and measure, rows in :attr:`queries`, under
        the evaluation's ``undefined`` rule."""
        key = self._key(system, measure)
        return self.undefined.apply_batch(
            self._raw_batch(*key), self._families[key[1]].undefined_value
        )

    def distribution(self, system: str, query_id: str, measure: str | Measure) -> Distribution:
        """The :class:`Distribution` of one (system, query, measure)."""
        query_id = id_text(query_id, "query_id")
        check_choice("query_id", query_id, self.queries)
        key = self._key(system, measure)
        one = self._law_of(key, np.array([self.queries.index(query_id)]))  # that query's alone
        return self.undefined.apply_batch(one, self._families[key[1]].undefined_value
                                          ).distribution(0)

    @property
    def n_worlds(self) -> int:
        """Number of Monte Carlo worlds behind :meth:`world_scores` (0 when none)."""
        return 0 if self._worlds is None else self._worlds.shape[2]

    def method(self, system: str, measure: str | Measure) -> str:
        """Which path computed a (system, measure): crisp, exact, worlds or worlds_binary."""
        return self._methods[self._key(system, measure)]

    # ------------------------------------------------------------------ per query
    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Tidy table, one row per (system, query, measure): the distribution of the query's
        value over the truths consistent with the labels.

        Columns ``system, query_id, measure, mean, truth_std, truth_low, truth_high,
        confidence_level, p_undefined, method, mc_se``: ``mean`` the expected value;
        ``truth_std`` its standard deviation over the truths and ``truth_low, truth_high``
        the equal-tailed interval holding ``confidence_level`` of it (named as in
        :meth:`aggregate`, whose ``truth_*`` columns are the same spread for a system's
        mean; there ``ci_low, ci_high`` are the interval over queries, which one query does
        not have); ``mc_se`` the Monte Carlo standard error of the mean, 0 when exact. A crisp
        truth gives ``truth_std`` 0 and ``truth_low = truth_high = mean``
        (:func:`fuzzytruth.report.drop_empty_columns` drops such columns). Under
        ``undefined="zero"`` an undefined outcome counts as the family's ``undefined_value``;
        under ``"skip"`` summaries are conditional on being defined (NaN for a query
        undefined for sure). ``p_undefined`` is reported in both.

        Examples
        --------
        >>> from fuzzytruth import ProbabilisticQrels, Run, evaluate
        >>> truth = ProbabilisticQrels(["q1", "q1"], ["a", "b"], [0.5, 1.0])
        >>> run = Run(["q1", "q1"], ["a", "b"], [2.0, 1.0])
        >>> frame = evaluate(run, truth, "P@1").to_frame()
        >>> frame[["query_id", "mean", "truth_std", "truth_low", "truth_high"]]
          query_id  mean  truth_std  truth_low  truth_high
        0       q1   0.5        0.5        0.0         1.0
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_confidence_level(level)
        keys = [(s, m) for s in self.systems for m in self.measures]
        if not keys:
            return _empty_frame()
        # the columns of every (system, measure) joined once: a frame per pair and a concat
        # cost 1.4 ms a pair, 95 % of the whole evaluation of 44 measures on 6 queries
        numbers: dict[str, list[np.ndarray]] = {
            c: [] for c in ("mean", "truth_std", "truth_low", "truth_high", "p_undefined",
                            "mc_se")}
        for key in keys:
            for column, values in zip(numbers, self._summaries(key, level), strict=True):
                numbers[column].append(values)
        n_q = len(self.queries)
        labels = np.array([[s, m, self._methods[s, m]] for s, m in keys], dtype=object)
        columns = {
            "system": np.repeat(labels[:, 0], n_q),
            "query_id": np.tile(np.array(self.queries, dtype=object), len(keys)),
            "measure": np.repeat(labels[:, 1], n_q),
            **{c: np.concatenate(numbers[c]) for c in ("mean", "truth_std", "truth_low",
                                                       "truth_high")},
            "confidence_level": np.full(n_q * len(keys), level),
            "p_undefined": np.concatenate(numbers["p_undefined"]),
            "method": np.repeat(labels[:, 2], n_q),
            "mc_se": np.concatenate(numbers["mc_se"]),
        }
        return pd.DataFrame({c: pd.array(v, dtype="str") if v.dtype == object else v
                             for c, v in columns.items()})

    def _summaries(self, key: tuple[str, str], level: float) -> tuple[np.ndarray, ...]:
        """The per-query columns of :meth:`to_frame` for one (system, measure): mean, std,
        interval, p_undefined and Monte Carlo error, a block of queries at a time within the
        memory budget, no law kept: a closed form's law not built yet is built by blocks
        (the exact recall's atoms of 10,000 ragged queries took 9.9 GB at once), a sampled
        measure's law is its queries' world values, a block of queries' columns at a time
        (100,000 queries x 1,000 worlds took 9 GB at once)."""
        raw = self._batches[key]
        fill = self._families[key[1]].undefined_value
        n = len(self.queries)
        if isinstance(raw, DeferredBatch):
            parts: Iterable[tuple[Any, DistributionBatch]] = raw.blocks(MEMORY_BUDGET)
        else:  # held already (one block), or the world values' columns
            step = n if raw is not None else block_rows(self.n_worlds, MEMORY_BUDGET,
                                                        bytes_per_unit=BYTES_PER_ATOM)
            parts = ((slice(a, a + step), self._law_of(key, slice(a, a + step)))
                     for a in range(0, n, max(step, 1)))
        out = np.full((6, n), np.nan)
        for rows, batch in parts:
            b = self.undefined.apply_batch(batch, fill)
            low, high = b.interval(level)
            out[:, rows] = (b.mean(), b.std(), low, high, batch.p_undefined,
                            b.mc_standard_error())
        return tuple(out)

    def query_means(self, measure: str | Measure) -> np.ndarray:
        """``(n_systems, n_queries)`` each query's expected value under the uncertain truth
        (exact where the family has a closed form), under the ``undefined`` rule: NaN where a
        query is undefined for sure under ``"skip"``, and for queries left out of aggregates
        by the preset (e.g. ``psb``'s small classes; under uncertain truth the expectation is
        over the worlds where the query enters them, NaN when it enters none)."""
        name = self._key(self.systems[0], measure)[1]
        return self._query_means(name, {})

    def _query_means(self, name: str, sums: Mapping[tuple[int, str], WorldSums]) -> np.ndarray:
        """:meth:`query_means` of measure ``name``, reading world sums from ``sums`` where
        given (:meth:`_world_sums`)."""
        fill = self._families[name].undefined_value
        rows = []
        for s, system in enumerate(self.systems):
            batch = self._batches[system, name]
            if isinstance(batch, DeferredBatch):
                rows.append(batch.filled_mean(fill) if self.undefined.fills(fill) else batch.mean())
                continue
            if batch is not None:
                rows.append(self.batch(system, name).mean())
                continue
            summed = sums.get((s, name)) or self._world_sums([(s, name)])[s, name]
            rows.append(summed.item_means())
        return np.where(self._counted[name][None, :], np.stack(rows), np.nan)

    def _world_sums(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], WorldSums]:
        """One pass over the worlds for every ``(system index, measure)`` of ``keys``: each
        one's values under the rules of :meth:`world_scores`, summed over the queries of each
        world and over the worlds of each query. A classifier evaluation sums them from its
        worlds' labels without building every world's values (``ClassWorlds.sums``); other
        keys are summed block by block."""
        out: dict[tuple[int, str], WorldSums] = {}
        fast = getattr(self._worlds, "sums", None)
        if fast is not None and self._world_counted is None and not self.truth.crisp:
            plain = [(self.measures.index(n), s) for s, n in keys
                     if self._families[n].aggregate != "geometric"]
            fills = {m: self._families[self.measures[m]].undefined_value for m, _ in plain}
            counted = {m: self._counted[self.measures[m]] for m, _ in plain}
            for (m, s), parts in fast(plain, self.undefined, fills, counted).items():
                name = self.measures[m]
                out[s, name] = WorldSums.of_sums(*parts, self._families[name])
        for s, name in keys:
            if (s, name) in out:
                continue
            fam = self._families[name]
            fill = fam.undefined_value
            per_world, world_count = [], []
            item_total = np.zeros(len(self._counted[name]))
            item_count = np.zeros(len(item_total), dtype=np.int64)
            for start, raw in self._unruled_blocks(name, s):
                terms = None
                if fam.aggregate == "geometric":  # NumPy's log, as combine() takes it
                    terms = fam.summed(self.undefined.apply(raw, fill))
                flags = (None if self._world_counted is None
                         else self._world_counted[start : start + len(raw)])
                total, count = add_block(raw, terms, fill, self.undefined.fills(fill), flags,
                                         self._counted[name], item_total, item_count)
                per_world.append(total)
                world_count.append(count)
            if per_world:
                world_count = np.concatenate(world_count)
                out[s, name] = WorldSums.of_sums(np.concatenate(per_world), world_count,
                                                 item_total, item_count, fam)
        return out

    def world_scores(self, measure: str | Measure) -> np.ndarray:
        """``(n_worlds, n_systems, n_queries)`` values of one measure in each shared world.

        A crisp truth has one world. Undefined values follow the ``undefined`` rule: scored as
        the family's ``undefined_value`` (``"zero"``) or NaN (``"skip"``); queries the preset
        leaves out of aggregates are NaN (world by world under uncertain truth).

        Read-only. Where the rules change no kept value (no query left out, no undefined value
        to score), it is a view of the kept values, not a copy: 100,000 queries × 1,000
        worlds × 2 systems are 1.6 GB a measure, which ``compare()`` reads for each.
        """
        name = self._key(self.systems[0], measure)[1]
        if not self.truth.crisp and self._worlds is None:
            raise ValueError("no worlds were drawn; evaluate with n_worlds > 0")
        if self._rules_keep(name):
            view = self._worlds[self.measures.index(name)].transpose(1, 0, 2)
            view.flags.writeable = False
            return view
        n_worlds = 1 if self.truth.crisp else self.n_worlds
        # systems first, as the kept values are: each block of a system's worlds is one
        # C-ordered piece of it (apply_rules' compiled pass), the worlds axis moved to the front
        out = np.empty((len(self.systems), n_worlds, len(self.queries)))
        for s in range(len(self.systems)):  # each block written at its place under the rules
            for start, raw in self._unruled_blocks(name, s):
                self._ruled(name, start, raw, out[s, start : start + len(raw)])
        out.flags.writeable = False
        return out.transpose(1, 0, 2)

    def _rules_keep(self, name: str) -> bool:
        """Whether the kept world values of measure ``name`` are a plain array that the rules
        of :meth:`world_scores` leave as they are: every query counted in every world, and no
        undefined value to score (none, or ``undefined="skip"``, or a NaN fill)."""
        if (self.truth.crisp or not isinstance(self._worlds, np.ndarray)
                or self._world_counted is not None or not self._counted[name].all()):
            return False
        if not self.undefined.counts or np.isnan(self._families[name].undefined_value):
            return True
        return not any(np.isnan(raw).any() for s in range(len(self.systems))
                       for _, raw in self._raw_world_blocks(name, s))

    def _ruled(self, name: str, start: int, raw: np.ndarray, out: np.ndarray) -> None:
        """``raw`` (world values of measure ``name`` in the worlds from ``start``) under the
        rules of :meth:`world_scores`, written into ``out`` (:func:`apply_rules`)."""
        fill = self._families[name].undefined_value
        flags = (None if self._world_counted is None
                 else self._world_counted[start : start + len(raw)])
        apply_rules(raw, fill, self.undefined.fills(fill), flags, self._counted[name], out)

    def _raw_world_blocks(self, name: str, s: int):
        """``(start, values)``: one system's world values of measure ``name`` in blocks of
        worlds, before any rule: views of the kept array, as many worlds at a time as keep the
        temporaries of :meth:`world_scores` and :meth:`_world_sums` within the memory budget
        (a classifier evaluation computes them block by block)."""
        m = self.measures.index(name)
        blocks = getattr(self._worlds, "blocks", None)
        if blocks is not None:
            yield from blocks(m, s)
            return
        kept = self._worlds[m, s]
        step = block_rows(kept.shape[1], bytes_per_unit=_BYTES_PER_WORLD_VALUE)
        for start in range(0, len(kept), step):
            yield start, kept[start : start + step]

    def _unruled_blocks(self, name: str, s: int):
        """``(start, values)``: :meth:`_raw_world_blocks`, or a crisp truth's one world; none
        without worlds."""
        if self.truth.crisp:
            yield 0, self._batches[self.systems[s], name].mean()[None]
        elif self._worlds is not None:
            yield from self._raw_world_blocks(name, s)

    # ------------------------------------------------------------------ per system
    def aggregate(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Each system's value of each measure, with its interval over queries and its spread
        over the truth.

        Columns ``system, measure, value, ci_low, ci_high, estimand, n_queries, truth_std,
        truth_low, truth_high, confidence_level, method, mc_se``:

        ``value``
            the family's aggregate over the counted queries (the mean; the sum of trec_eval's
            counts; the geometric mean of gm_map): under uncertain truth with the arithmetic
            mean and ``undefined="zero"`` the mean of the per-query expectations (exact where
            they are), and so under ``"skip"`` where each query's closed form says it is never
            undefined (P@k); otherwise the mean over the sampled worlds of the per-world
            aggregate.
        ``ci_low``, ``ci_high``, ``estimand``
            the interval over queries, by the procedure that :func:`fuzzytruth.stats.compare`
            uses by default for differences (the t interval over queries of each query's
            value: of the mean, or ``n ×`` it for a sum, or ``exp`` of the mean of
            ``log(max(v, 1e-5))`` for a geometric mean). Its estimand is ``"queries"`` with a
            crisp truth (what the system would score on new queries like these, judged the
            same way) and ``"collection"`` under uncertain truth (each query's expected value
            under this collection's annotations: new queries, the same annotators' labels),
            with the truth model when the truth is a model's fit (:attr:`estimand`); NaN with
            fewer than two queries.
        ``truth_std``, ``truth_low``, ``truth_high``
            the spread of the system's value over the sampled worlds at the same level (how
            much the truth's uncertainty moves it, the queries held fixed): 0 and the value
            itself with a crisp truth, NaN without worlds.
        ``n_queries``
            the number of queries averaged (the expected number per world under ``"skip"``
            with uncertain truth).
        ``mc_se``
            the Monte Carlo standard error of ``value``: 0 when it is exact (crisp truth, or
            the mean of closed-form expectations, ``method`` ``"exact"``), otherwise the
            standard deviation over the worlds of the per-world aggregate over their number's
            square root (under ``"skip"``, of the worlds where some query is defined: the
            mean is theirs).

        Examples
        --------
        >>> from fuzzytruth import Qrels, Run, evaluate
        >>> queries = [f"q{i}" for i in range(8)]
        >>> run = Run(queries, ["a"] * 8, [1.0] * 8)
        >>> qrels = Qrels(queries, ["a", "a", "x", "a", "a", "x", "a", "a"], [1] * 8)
        >>> table = evaluate(run, qrels, "P@1").aggregate()
        >>> table[["value", "ci_low", "ci_high", "estimand", "truth_low", "truth_high"]].round(3)
           value  ci_low  ci_high estimand  truth_low  truth_high
        0   0.75   0.363    1.137  queries       0.75        0.75

        The t interval is the procedure's, unclipped: with 8 queries it reaches past 1.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        keys = [(s, m) for s in range(len(self.systems)) for m in self.measures]
        rows = self._aggregate_rows(keys, check_confidence_level(level))
        return pd.DataFrame(rows, columns=list(_AGGREGATE_COLUMNS))

    def _aggregate_rows(self, keys: Sequence[tuple[int, str]], level: float
                        ) -> list[dict[str, Any]]:
        """The rows of :meth:`aggregate` of ``(system index, measure)`` ``keys``, as dicts."""
        rows = []
        sums = self._world_sums(keys)
        means_of = {m: self._query_means(m, sums) for m in dict.fromkeys(m for _, m in keys)}
        for s, measure in keys:
            system = self.systems[s]
            fam = self._families[measure]
            counted = self._counted[measure]
            summed = sums.get((s, measure))
            n_worlds = 0 if summed is None else len(summed.per_world)
            means = means_of[measure][s]
            row: dict[str, Any] = {"system": system, "measure": measure}
            row.update(zip(("ci_low", "ci_high"), _query_interval(means, fam, level),
                           strict=True))
            row["estimand"] = self.estimand
            if n_worlds == 0 or self.truth.crisp:  # no worlds, or a crisp truth's one
                values = means if n_worlds == 0 else summed.item_means()
                exact_mean = not self.truth.crisp
                if exact_mean and (fam.aggregate != "mean" or not self.undefined.counts):
                    raise ValueError(
                        f"the aggregate of {measure!r} needs possible worlds "
                        f"(aggregate={fam.aggregate!r}, undefined={str(self.undefined)!r}); "
                        "evaluate with n_worlds > 0"
                    )
                value = float(fam.combine(values))
                row.update(
                    value=value,
                    truth_std=np.nan if exact_mean else 0.0,
                    truth_low=np.nan if exact_mean else value,
                    truth_high=np.nan if exact_mean else value,
                    mc_se=0.0,
                    n_queries=int((~np.isnan(values)).sum()),
                )
            else:
                per_world = summed.per_world
                # under "skip" each world averages its defined values, so the mean over the
                # worlds is not the mean of the queries' expectations, unless no query can be
                # undefined (its closed form says so): then both are, and the exact one is kept
                skips = not self.undefined.counts and not self._never_undefined(system, measure)
                by_world = skips or self._world_counted is not None
                linear = fam.aggregate == "mean" and not by_world
                # the worlds where the measure is defined (all, unless undefined="skip"): none
                # leaves NaN, without numpy's warnings about empty slices
                defined = per_world[~np.isnan(per_world)]
                value = (float(fam.combine(means)) if linear
                         else float(defined.mean()) if len(defined) else np.nan)
                # one world: its value, and no spread or interval to estimate from it (the
                # percentile interval's rule, which also warns when the worlds are too few)
                spread = float(defined.std(ddof=1)) if len(defined) > 1 else np.nan
                low, high = map(float, percentile_interval(defined, level))
                exact = linear and self._methods[system, measure] == "exact"
                row.update(
                    value=value,
                    truth_std=spread,
                    truth_low=low,
                    truth_high=high,
                    # the mean of the defined worlds: their number is its sample size
                    mc_se=0.0 if exact else float(monte_carlo_se(
                        defined.std() if len(defined) else np.nan, len(defined), 0.0)),
                    n_queries=summed.defined / n_worlds if by_world else int(counted.sum()),
                )
            row["confidence_level"] = level
            row["method"] = self._methods[system, measure]
            rows.append(row)
        return rows

    def value(self, system: str, measure: str | Measure) -> float:
        """One system's aggregate value of one measure (as in :meth:`aggregate`)."""
        system, measure = self._key(system, measure)
        [row] = self._aggregate_rows([(self.systems.index(system), measure)],
                                     self.confidence_level)
        return float(row["value"])


@dataclass(frozen=True, eq=False)
class WorldSums:
    """One system's values of one measure in every world, summed two ways: ``per_world`` its
    aggregate in each world (the family's combination of the world's defined values),
    ``defined`` the number of defined values in all, and ``item_total``, ``item_count`` each
    query's sum and number of defined values over the worlds."""

    per_world: np.ndarray
    defined: int
    item_total: np.ndarray
    item_count: np.ndarray

    @classmethod
    def of_sums(cls, world_total: np.ndarray, world_count: np.ndarray, item_total: np.ndarray,
                item_count: np.ndarray, family: MeasureFamily) -> WorldSums:
        """From each world's sum and count of defined values (of their floored logs for a
        geometric mean: :meth:`MeasureFamily.combine_totals`)."""
        return cls(family.combine_totals(world_total, world_count), int(np.sum(world_count)),
                   np.asarray(item_total, dtype=np.float64), np.asarray(item_count))

    def item_means(self) -> np.ndarray:
        """Each query's mean over the worlds where it is defined (NaN in none)."""
        count = self.item_count
        return np.divide(self.item_total, count, out=np.full(len(count), np.nan),
                         where=count > 0)


def _placed(arrays: list[np.ndarray], at: list[slice | np.ndarray]) -> np.ndarray:
    """One array of ``arrays`` (alike but in their last axis), ``arrays[i]`` written at
    ``at[i]`` of the last axis: each part's world values written once at their queries'
    places, in C order as :func:`~fuzzytruth.evaluation.evaluate` lays them out (reductions
    over worlds then add in one order); joining then reordering made two more copies
    (100,000 queries, 1,000 worlds: 4.8 GB and 15 s)."""
    first = arrays[0]
    out = np.empty((*first.shape[:-1], sum(a.shape[-1] for a in arrays)), dtype=first.dtype)
    for array, where in zip(arrays, at, strict=True):
        out[..., where] = array
    return out


@dataclass(frozen=True)
class QueryPart:
    """The per-query columns of an evaluation of some queries, before they are joined with
    other queries' (:func:`joined_columns`): the parts of :meth:`Evaluation.concatenate`, the
    blocks of ragged queries of :func:`~fuzzytruth.evaluation.evaluate`."""

    queries: Sequence[str]
    batches: Mapping[tuple[str, str], DistributionBatch | DeferredBatch | None]
    methods: Mapping[tuple[str, str], str]
    counted: Mapping[str, np.ndarray]


def query_placement(
    parts: Sequence[Sequence[str]],
) -> tuple[np.ndarray | None, list[slice | np.ndarray]]:
    """Where the queries of disjoint ``parts`` go once joined in sorted order, as
    :func:`~fuzzytruth.evaluation.evaluate` gives them: ``order`` (joined position -> position
    in the parts' concatenation; None when that is sorted already) and, for each part, the
    joined positions of its queries (a slice when they are consecutive in the concatenation).

    >>> order, at = query_placement([["q2", "q4"], ["q1", "q3"]])
    >>> order.tolist(), [a.tolist() for a in at]
    ([2, 0, 3, 1], [[1, 3], [0, 2]])
    >>> query_placement([["a\\x00"], ["a"]])[0].tolist()  # "a" sorts first, as in Python
    [1, 0]
    """
    queries = np.concatenate([np.asarray(p, dtype=object) for p in parts])
    order = sorted_order(queries)  # as Python sorts str (a NumPy str array drops a final NUL)
    if np.array_equal(order, np.arange(len(order))):
        order = None
    bounds = np.cumsum([0] + [len(p) for p in parts]).tolist()
    place = None if order is None else np.argsort(order)
    return order, [slice(a, b) if place is None else place[a:b]
                   for a, b in itertools.pairwise(bounds)]


def joined_columns(
    parts: Sequence[QueryPart], order: np.ndarray | None, at: Sequence[slice | np.ndarray]
) -> dict[str, Any]:
    """The columns of ``parts`` joined in the order of :func:`query_placement` (its ``order``
    and ``at``), as :class:`Evaluation` takes them: ``queries``, ``batches`` (a closed
    form's rows stacked, deferred when any part's are), ``methods`` ("worlds" when any part
    went through the general kernel: a tie in one block sends the whole column there) and
    ``counted``. The world values, when there are, are placed by the caller."""
    first = parts[0]
    queries = np.concatenate([np.asarray(p.queries, dtype=object) for p in parts])
    batches: dict[tuple[str, str], DistributionBatch | DeferredBatch | None] = {}
    methods: dict[tuple[str, str], str] = {}
    for key, batch in first.batches.items():
        batches[key] = None if batch is None else _stack([p.batches[key] for p in parts],
                                                         order)
        names = {p.methods[key] for p in parts}
        methods[key] = "worlds" if "worlds" in names else first.methods[key]
    return {
        "queries": tuple(queries if order is None else queries[order]),
        "batches": batches,
        "methods": methods,
        "counted": {name: _placed([p.counted[name] for p in parts], at)
                    for name in first.counted},
    }


def _stack(batches: list[DistributionBatch | DeferredBatch], order: np.ndarray | None
           ) -> DistributionBatch | DeferredBatch:
    """Rows of several batches in one, in ``order`` (None: as given); deferred when any is
    (its atoms, which may be wide, built when asked for)."""
    if any(isinstance(b, DeferredBatch) for b in batches):
        joined = DeferredBatch.concatenate(batches)
        return joined if order is None else joined.take(order)
    joined = stack(batches)
    return joined if order is None else joined.take(order)


def _query_interval(
    values: np.ndarray, family: MeasureFamily, level: float
) -> tuple[float, float]:
    """The t interval over queries of a system's aggregate from its per-query ``values``
    (NaN entries left out): of the mean, ``n ×`` it for a sum, ``exp`` of the interval of the
    mean log for a geometric mean; NaN with fewer than two values."""
    values = np.asarray(values, dtype=np.float64)
    values = family.summed(values[~np.isnan(values)])
    _, low, high = t_interval(values[None, :], "two-sided", significance_level(level))
    low, high = float(low[0]), float(high[0])
    if family.aggregate == "sum":
        return low * len(values), high * len(values)
    if family.aggregate == "geometric":
        return float(np.exp(low)), float(np.exp(high))
    return low, high


def _difference(first: Evaluation, other: Evaluation) -> str:
    """What of ``other`` differs from ``first`` besides the queries, in words ('' when
    nothing does): the first difference found, for :meth:`Evaluation.concatenate`."""
    for name, verb in (("systems", "are"), ("measures", "are"), ("truth", "is"),
                       ("undefined", "is"), ("confidence_level", "is")):
        mine, theirs = getattr(first, name), getattr(other, name)
        if mine != theirs:
            return f"its {name} {verb} {_plain(theirs)!r}, not {_plain(mine)!r}"
    option = _changed(first.conventions, other.conventions, "")
    if option:
        return option
    for measure in first.measures:
        if first._families[measure] is not other._families[measure]:
            return f"its measure {measure!r} is of another family"
    worlds = [None if e._worlds is None else e._worlds.shape[2] for e in (first, other)]
    if worlds[0] != worlds[1]:
        return f"it has {worlds[1]} world(s), not {worlds[0]}"
    if (first.groups is None) != (other.groups is None):
        return "one part has per-annotator values and the other not"
    return ""


def _plain(value: Any) -> Any:
    """An enum as its value, for a message."""
    return getattr(value, "value", value)


def _changed(mine: Mapping[str, Any], theirs: Mapping[str, Any], path: str) -> str:
    """The first option of two conventions that differs, named by its path
    (``preset['name']``), in words; '' when none does."""
    for key in dict.fromkeys([*mine, *theirs]):
        a, b = mine.get(key), theirs.get(key)
        where = f"{path}[{key!r}]" if path else key
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            inner = _changed(a, b, where)
            if inner:
                return inner
        elif a != b:
            return f"its option {where} is {b!r}, not {a!r}"
    return ""
