"""evaluate(): every measure of the registry, under crisp or uncertain ground truth, one path.

The ground truth is one of (:mod:`fuzzytruth.truth`)

* a crisp :class:`~fuzzytruth.runs.Qrels` — every value is a point (``method="crisp"``);
* a :class:`~fuzzytruth.uncertain.probabilistic_qrels.ProbabilisticQrels` (each judged
  (query, document) relevant independently with a probability, e.g. the share of assessors);
* a :class:`~fuzzytruth.membership.Membership` (categorical: annotators put items in a
  taxonomy; a document is relevant when it belongs to the query's category).

Each run is ranked once (:func:`fuzzytruth.runs.rank`: the preset's tie rule and score
precision), its documents are looked up in the truth, and each measure's *family* says how its
value is computed (:mod:`fuzzytruth.measures`); nothing here depends on a family's name:

* crisp truth: the family's kernel on the ranked grades;
* uncertain truth, ``method="auto"`` (default): the family's exact distribution when it has one
  and the ranking is strict (``method`` column ``"exact"``: P@k, R@k, Success@k, RR, F_β, E_β
  under independent relevance; a query with an uncertain category mixes over its categories),
  otherwise Monte Carlo over sampled crisp worlds (``"worlds"``), through the family's fast 0/1
  kernel when it has one (``"worlds_binary"``) and its crisp kernel otherwise. ``"exact"``
  requires a closed form, ``"worlds"`` never uses one.

The worlds (``n_worlds``, default 1000) are shared by every system and measure: they give the
spread of each system's aggregate value over the truth (queries share items under categorical
truth, so the mean's law needs the joint law) and the input of :mod:`fuzzytruth.stats`.

Rules (one name each, the same in every output — per-query table, :meth:`Evaluation.aggregate`,
:meth:`Evaluation.query_means`, :meth:`Evaluation.world_scores`, ``compare()``, the CLI):

* ``undefined="zero"`` (default, trec_eval's): where a measure is undefined (no relevant
  document: AP, R, nDCG...; a category with no other member) the query still counts and scores
  the family's ``undefined_value`` (0; 1 for E). ``"skip"``: the query is left out of that
  measure's aggregate (per world under uncertain truth); ``n_queries`` says how many were
  averaged. The per-query table always reports ``p_undefined``.
* ``missing="skip"`` (default, trec_eval's): queries of the runs that the truth does not know
  are not evaluated, with a warning naming them; ``"error"`` raises.
* ``complete=False`` (default): queries are those of the runs; ``True`` (``trec_eval -c``) adds
  every query the truth judges, scored as an empty list by systems that did not answer it. A
  system without results for an evaluated query always scores an empty list there.
* ``exclude_query=True``: under categorical truth a query item is not relevant to itself (shape
  benchmarks).
* ``recall_form="exact"``: R is TP/(TP+FN), the crisp kernel's recall; ``"expected_size"`` is
  Santini's printed TP/E|ω| (eq. 12; exact form only).
* presets may rename a family (``crossmodal``: ``R@K`` is the community's R@K, i.e. Success@K)
  and leave out queries with too few relevant documents from every aggregate (``psb``: classes
  of fewer than 3 models); see :mod:`fuzzytruth.presets`. Under uncertain truth that rule is
  decided world by world, as ``undefined="skip"`` is: a query enters a world's aggregate when
  it has enough relevant documents in that world, ``query_means`` are its expected values over
  the worlds where it enters, and ``n_queries`` is the expected number per world. A truth all
  of whose annotators agree then gives the crisp numbers.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Membership, Taxonomy
>>> from fuzzytruth.runs import Run
>>> tax = Taxonomy.from_nested({"all": {"cat": None, "dog": None}})
>>> ann = Annotations.from_frame(pd.DataFrame({
...     "item_id": ["a", "a", "b", "b", "c", "c"], "annotator_id": ["x", "y"] * 3,
...     "label": ["cat", "cat", "cat", "dog", "dog", "dog"]}), taxonomy=tax)
>>> mem = Membership.from_annotations(ann)
>>> run = Run(["q1", "q1", "q1"], ["c", "b", "a"], [3.0, 2.0, 1.0], name="sys")
>>> ev = evaluate(run, mem, ["P@2", "AP"], query_categories={"q1": "cat"}, rng=0)
>>> ev.to_frame()[["system", "query_id", "measure", "mean", "method"]]
  system query_id measure      mean         method
0    sys       q1     P@2  0.250000          exact
1    sys       q1      AP  0.457333  worlds_binary
>>> ev.distribution("sys", "q1", "P@2").to_frame()
   value  probability
0    0.0          0.5
1    0.5          0.5
>>> ev.distribution("sys", "q1", "AP").support.round(4).tolist()   # b relevant or not
[0.3333, 0.5833]
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._validation import as_generator, check_choice, check_confidence_level, check_int
from fuzzytruth.measures import (
    Measure,
    MeasureFamily,
    Preset,
    get_preset,
    parse_measures,
    positive_float,
)
from fuzzytruth.membership import Membership
from fuzzytruth.metrics.base import judged_only as judged_only_gains
from fuzzytruth.progress import Progress, track
from fuzzytruth.runs import Qrels, Ranking, Run, rank
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth import as_truth
from fuzzytruth.uncertain.batch import DistributionBatch
from fuzzytruth.uncertain.closed_form import RECALL_FORMS, ExactInput
from fuzzytruth.uncertain.cutoffs import SUMMARIES, cutoff_summaries
from fuzzytruth.uncertain.distribution import Distribution
from fuzzytruth.uncertain.keyed import draw_seed
from fuzzytruth.uncertain.probabilistic_qrels import ProbabilisticQrels
from fuzzytruth.uncertain.worlds import RankedDocs, check_world_model, kernel_params, world_values

__all__ = ["UNDEFINED", "Evaluation", "evaluate", "precision_recall_bands"]

METHODS = ("auto", "exact", "worlds")
MISSING = ("skip", "error")
UNDEFINED = ("zero", "skip")
_BAND_WORK = 2e7  # (component, cutoff, FN atom) steps per block of P-R bands: ~0.05 s


# ---------------------------------------------------------------------------------------------
# the result


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
        measure, value`` (:func:`fuzzytruth.crisp.evaluate_per_annotator`).
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


# ---------------------------------------------------------------------------------------------
# the entry point


def evaluate(
    runs: Run | Mapping[str, Run],
    truth: Membership | ProbabilisticQrels | Qrels,
    measures: str | Measure | Iterable[str | Measure],
    *,
    preset: str | Preset = "trec",
    undefined: str = "zero",
    missing: str = "skip",
    complete: bool = False,
    depth: int | None = None,
    relevance_level: float | None = None,
    judged_only: bool = False,
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    method: str = "auto",
    n_worlds: int = 1000,
    world_model: str = "annotator",
    rng: np.random.Generator | int | None = None,
    confidence_level: float = 0.95,
    recall_form: str = "exact",
    exclude_query: bool = True,
    ties: str | None = None,
    score_dtype: str | None = None,
    memory_budget: float = 200e6,
    progress: bool | None = None,
) -> Evaluation:
    """Evaluate one or several systems under crisp or uncertain ground truth.

    Parameters
    ----------
    runs : Run or mapping of str to Run
        One run (named by ``run.name``) or systems by name.
    truth : Qrels, ProbabilisticQrels or Membership
        Crisp qrels, probabilistic qrels, or categorical uncertain truth (module docstring).
    measures : str, Measure or iterable of them
        Any registered measures (``"P@10"``, ``"AP"``, ``"nDCG@10"``, ``"FT"``...), canonical
        or in trec_eval / ir_measures spelling.
    preset : str or Preset
        Conventions for unset parameters, ties and score precision (default ``"trec"``:
        trec_eval 9.0.8).
    undefined : {"zero", "skip"}
        Where a measure is undefined: the query counts and scores the family's
        ``undefined_value`` (default, trec_eval), or is left out of the aggregate.
    missing : {"skip", "error"}
        Queries of the runs that the truth cannot answer: not evaluated, with a warning
        (default, trec_eval), or an error.
    complete : bool
        Also evaluate every query the truth judges that no run answers, as empty lists
        (``trec_eval -c``). Default False.
    depth : int, optional
        Only the top ``depth`` documents of each list are evaluated (``trec_eval -M``).
    relevance_level : float, optional
        The grade from which a document is relevant, replacing the preset's ``rel``
        (``trec_eval -l``); a measure's own ``rel=`` still wins.
    judged_only : bool
        Crisp truth: unjudged documents are removed from each ranking before any measure
        (``trec_eval -J``; :func:`fuzzytruth.metrics.base.judged_only`). Default False.
    query_categories : mapping, optional
        Categorical truth: query id → target category. Queries not listed ask for their own
        (uncertain) category and must be items of the membership.
    weights : {"direct", "literal"}
        Mixture weights of a query's own category: the share of its annotators who chose each
        node directly (default) or Santini eq. 13–14 normalised
        (:func:`~fuzzytruth.uncertain.categorical.query_category_weights`).
    method : {"auto", "exact", "worlds"}
        Per-query distributions under uncertain truth (module docstring).
    n_worlds : int
        Monte Carlo worlds, shared by all systems and measures (0: none; then every measure
        needs a closed form and aggregates have no interval).
    world_model : {"annotator", "bernoulli"}
        How worlds are drawn (:mod:`fuzzytruth.uncertain.worlds`).
    rng : numpy.random.Generator or int, optional
        The one source of randomness.
    confidence_level : float
        Default level of the intervals (0.95).
    recall_form : {"exact", "expected_size"}
        R as TP/(TP+FN) (default) or Santini's printed TP/E|ω| (exact form only).
    exclude_query : bool
        Categorical truth: a query item is not relevant to itself (default True).
    ties, score_dtype : str, optional
        Override the preset's tie policy and score precision (:func:`fuzzytruth.runs.rank`).
    memory_budget : float
        Bytes of working memory per chunk of worlds (default 200 MB).
    progress : bool, optional
        Progress bar on stderr while worlds are drawn: None (default) only when stderr is a
        terminal, True always, False never.

    Returns
    -------
    Evaluation

    Examples
    --------
    A query without relevant documents counts and scores 0 (trec_eval), or is left out:

    >>> run = Run(["q1", "q2"], ["a", "b"], [1.0, 1.0])
    >>> qrels = Qrels(["q1", "q2"], ["a", "b"], [1, 0])
    >>> evaluate(run, qrels, ["AP", "P@1"]).aggregate()[["measure", "value", "n_queries"]]
      measure  value  n_queries
    0      AP    0.5          2
    1     P@1    0.5          2
    >>> evaluate(run, qrels, "AP", undefined="skip").aggregate()[["value", "n_queries"]]
       value  n_queries
    0    1.0          1
    """
    check_choice("method", method, METHODS)
    check_choice("missing", missing, MISSING)
    check_choice("undefined", undefined, UNDEFINED)
    check_choice("recall_form", recall_form, RECALL_FORMS)
    check_choice("complete", complete, (True, False))
    check_choice("judged_only", judged_only, (True, False))
    check_world_model(world_model)
    confidence_level = check_confidence_level(confidence_level)
    n_worlds = check_int("n_worlds", n_worlds)
    rng = as_generator(rng)
    p = get_preset(preset)
    if relevance_level is not None:
        try:
            rel = positive_float(relevance_level)
        except ValueError as exc:
            raise ValueError(f"relevance_level {exc}") from None
        p = replace(p, params={**p.params, "rel": rel}, name=f"{p.name}(rel={rel:g})")
    if depth is not None:
        depth = check_int("depth", depth, minimum=1)
    ties = ties or p.ties
    score_dtype = score_dtype or p.score_dtype
    asked = parse_measures(measures)
    names = [str(m) for m in asked]
    resolved = [m.resolve(p) for m in asked]

    adapter = as_truth(
        truth, query_categories=query_categories, weights=weights, exclude_query=exclude_query
    )
    rankings = _rank_runs(runs, ties, score_dtype, depth)
    queries = _queries(rankings, adapter, missing, complete)
    adapter.prepare(queries)
    rankings = {name: (r.on(queries), run) for name, (r, run) in rankings.items()}
    conventions = {
        "preset": p.as_dict(),
        "ties": ties,
        "score_dtype": score_dtype,
        "measures": {n: str(r) for n, r in zip(names, resolved, strict=True)},
        "truth": adapter.kind,
        "undefined": undefined,
        "missing": missing,
        "complete": complete,
        "depth": depth,
        "judged_only": judged_only,
    }
    families = {n: r.family for n, r in zip(names, resolved, strict=True)}
    if adapter.kind == "crisp":
        batches, methods, counted = _crisp(adapter, rankings, names, resolved, p, judged_only)
        return Evaluation(
            tuple(rankings), tuple(queries), tuple(names), "crisp", undefined, conventions,
            confidence_level, families, batches, methods, None, counted,
        )

    if judged_only:
        raise ValueError(
            "judged_only applies to crisp qrels (trec_eval -J); under uncertain truth every "
            "document the truth knows is judged"
        )
    conventions.update(
        method=method, n_worlds=n_worlds, world_model=world_model, recall_form=recall_form,
        exclude_query=exclude_query, weights=weights,
    )
    ranked = {name: adapter.doc_index(r, run) for name, (r, run) in rankings.items()}
    strict = ties != "average"
    exact_ok = [strict and r.family.exact is not None for r in resolved]
    if method == "exact" and not all(exact_ok):
        lacking = [n for n, ok in zip(names, exact_ok, strict=True) if not ok]
        raise ValueError(
            f"method='exact': no closed form for {lacking} under ties={ties!r}; use "
            "method='auto' or 'worlds'"
        )
    if recall_form == "expected_size" and method == "worlds":
        raise ValueError("recall_form='expected_size' has a closed form only; use method='auto'")
    use_exact = [ok and method != "worlds" for ok in exact_ok]
    if p.min_relevant > 0:  # the preset's class-size rule holds world by world
        needs = []
        if n_worlds == 0:
            needs.append(f"n_worlds must be > 0; got n_worlds={n_worlds}")
        if method == "exact":
            needs.append(f"method must be 'auto' or 'worlds'; got method={method!r}")
        if needs:
            raise ValueError(
                f"preset {p.name!r} leaves out of its aggregates the queries with fewer than "
                f"{p.min_relevant} relevant documents; under uncertain truth that is decided "
                f"world by world, so {' and '.join(needs)}"
            )
        use_exact = [False] * len(resolved)
    worlds = world_counted = None
    if n_worlds > 0:
        with Progress(total=n_worlds, desc="worlds", unit="world", progress=progress) as bar:
            worlds, world_counted = world_values(
                adapter.worlds(world_model), list(ranked.values()), resolved,
                n_worlds=n_worlds, seed=draw_seed(rng), memory_budget=memory_budget,
                on_chunk=bar.update, min_relevant=p.min_relevant,
            )
    elif not all(use_exact):
        raise ValueError(
            "n_worlds=0 leaves no way to compute measures without a closed form; give n_worlds > 0"
        )
    batches: dict[tuple[str, str], DistributionBatch | None] = {}
    methods: dict[tuple[str, str], str] = {}
    for system, docs in ranked.items():
        ctx = _exact_input(adapter, docs, recall_form)
        for m, (name, measure) in enumerate(zip(names, resolved, strict=True)):
            if use_exact[m]:
                comp = measure.family.exact(ctx, **kernel_params(measure))
                batches[system, name] = _mix(comp, *adapter.comp, len(queries))
                methods[system, name] = "exact"
            else:
                batches[system, name] = None  # summarised from the world values on demand
                binary = measure.family.binary is not None and docs.tie_start is None
                methods[system, name] = "worlds_binary" if binary else "worlds"
    ever = np.ones(len(queries), dtype=bool) if world_counted is None else world_counted.any(0)
    counted = dict.fromkeys(names, ever)
    return Evaluation(
        tuple(ranked), tuple(queries), tuple(names), adapter.kind, undefined, conventions,
        confidence_level, families, batches, methods, worlds, counted,
        _world_counted=world_counted,
    )


def _rank_runs(
    runs: Run | Mapping[str, Run], ties: str, score_dtype: str, depth: int | None = None
) -> dict[str, tuple[Ranking, Run]]:
    if isinstance(runs, Run):
        runs = {runs.name: runs}
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError(
            f"runs must be a Run or a non-empty mapping of system name to Run; got "
            f"{type(runs).__name__}"
        )
    out = {}
    for name, run in runs.items():
        if not isinstance(run, Run):
            raise ValueError(f"runs[{name!r}] must be a Run; got {type(run).__name__}")
        ranking = rank(run, ties=ties, score_dtype=score_dtype)
        out[str(name)] = (ranking if depth is None else ranking.truncate(depth), run)
    return out


def _queries(
    rankings: Mapping[str, tuple[Ranking, Run]], adapter: Any, missing: str, complete: bool
) -> np.ndarray:
    """The evaluated queries: the runs' (and with ``complete`` the truth's) that it answers."""
    queries = np.unique(np.concatenate([r.query_ids for r, _ in rankings.values()]))
    ok = adapter.answerable(queries)
    if not ok.all():
        lost = queries[~ok].tolist()
        if missing == "error":
            raise ValueError(adapter.missing_message(lost) + " (missing='error')")
        warnings.warn(
            f"{adapter.missing_message(lost)}: {len(lost)} query(ies) not evaluated, as "
            "trec_eval does (missing='skip')",
            UserWarning,
            stacklevel=3,
        )
        queries = queries[ok]
    if complete:
        queries = np.union1d(queries, adapter.judged_queries)
    if len(queries) == 0:
        raise ValueError("no query left to evaluate: no query of the runs is in the truth")
    return np.sort(queries.astype(object))


def _crisp(
    adapter: Any,
    rankings: Mapping[str, tuple[Ranking, Run]],
    names: list[str],
    resolved: list[Measure],
    preset: Preset,
    judged_only: bool = False,
) -> tuple[dict, dict, dict]:
    """Crisp truth: every family's kernel on the ranked grades; values are points."""
    judged = judged_only or any("judged" in m.uses for m in resolved)
    batches, methods = {}, {}
    counted = None
    for system, (ranking, run) in rankings.items():
        rg = adapter.ranked_gains(ranking, run, judged=judged)
        if judged_only:
            rg = judged_only_gains(rg)
        if counted is None:
            counted = preset.counts_query(rg)
        for name, measure in zip(names, resolved, strict=True):
            batches[system, name] = DistributionBatch.from_points(measure.compute(rg))
            methods[system, name] = "crisp"
    return batches, methods, dict.fromkeys(names, counted)


def _exact_input(adapter: Any, docs: RankedDocs, recall_form: str) -> ExactInput:
    q = adapter.comp[0]
    return ExactInput(
        lambda rel: adapter.probabilities(docs, rel),
        docs.lengths[q],
        lambda rel: adapter.rest(docs, rel),
        lambda: adapter.expected_size(docs),
        recall_form=recall_form,
        judged=docs.docs[q] >= 0,
    )


def _mix(
    comp: DistributionBatch, row: np.ndarray, node: np.ndarray, weight: np.ndarray, n_rows: int
) -> DistributionBatch:
    """Mix component rows into ``n_rows`` rows: component i goes to row ``row[i]``."""
    order = np.argsort(row, kind="stable")
    row, weight = row[order], weight[order]
    counts = np.bincount(row, minlength=n_rows)
    if np.all(counts == 1):
        return DistributionBatch(
            comp.values[order], comp.masses[order], comp.p_undefined[order], comp.method
        )
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    column = np.arange(len(row)) - start[row]
    index = np.full((n_rows, int(counts.max())), -1, dtype=np.intp)
    index[row, column] = order
    mix = np.zeros(index.shape)
    mix[row, column] = weight
    return DistributionBatch.mixture(comp, index, mix)


def precision_recall_bands(
    runs: Run | Mapping[str, Run],
    truth: Membership | ProbabilisticQrels,
    *,
    preset: str | Preset = "trec",
    query_categories: Mapping[Hashable, Hashable] | None = None,
    weights: str = "direct",
    confidence_level: float = 0.95,
    recall_form: str = "exact",
    exclude_query: bool = True,
    undefined: str = "zero",
    missing: str = "skip",
    ties: str | None = None,
    score_dtype: str | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Precision and recall at every cutoff of every list, exactly: the P–R curve as bands.

    Arguments as in :func:`evaluate` (relevance threshold: the preset's ``rel``; ``undefined``
    applies to recall without any relevant document as everywhere else). The values are the
    ``P@k`` and ``R@k`` families' exact distributions at every cutoff k, mixed over each
    query's categories, so a band equals the per-cutoff measure of :func:`evaluate`; they are
    summarised for all cutoffs at once without listing the distributions' atoms
    (:mod:`fuzzytruth.uncertain.cutoffs`). The ranking must be a strict order (no
    tie-averaged policy). ``progress`` draws a bar over blocks of queries (by default only
    when stderr is a terminal).

    Returns
    -------
    pandas.DataFrame
        ``system, query_id, cutoff, measure ("precision" or "recall"), mean, std, ci_low,
        ci_high, confidence_level, p_undefined, method``.

    Examples
    --------
    >>> pq = ProbabilisticQrels(["q", "q"], ["a", "b"], [1.0, 0.5])
    >>> bands = precision_recall_bands(Run(["q", "q"], ["a", "b"], [2.0, 1.0]), pq)
    >>> bands[["cutoff", "measure", "mean"]]
       cutoff    measure  mean
    0       1  precision  1.00
    1       2  precision  0.75
    2       1     recall  0.75
    3       2     recall  1.00
    """
    check_choice("missing", missing, MISSING)
    check_choice("recall_form", recall_form, RECALL_FORMS)
    check_choice("undefined", undefined, UNDEFINED)
    confidence_level = check_confidence_level(confidence_level)
    p = get_preset(preset)
    ties = ties or p.ties
    if ties == "average":
        raise ValueError("precision_recall_bands needs a strict ranking; got ties='average'")
    if isinstance(truth, Qrels):
        raise ValueError(
            "truth must be uncertain (a Membership or a ProbabilisticQrels); use "
            "evaluate() for crisp qrels"
        )
    adapter = as_truth(
        truth, query_categories=query_categories, weights=weights, exclude_query=exclude_query
    )
    rankings = _rank_runs(runs, ties, score_dtype or p.score_dtype)
    queries = _queries(rankings, adapter, missing, complete=False)
    adapter.prepare(queries)
    rel = float(p.params.get("rel", 1))
    undefined_value = Measure("R").family.undefined_value
    q_of_comp, _, comp_weight = adapter.comp
    comp_start = np.searchsorted(q_of_comp, np.arange(len(queries) + 1))
    parts = []
    for system, (ranking, run) in rankings.items():
        docs = adapter.doc_index(ranking.on(queries), run)
        ctx = _exact_input(adapter, docs, recall_form)
        probabilities = ctx.probabilities(rel)
        rest_p, certain = ctx.rest(rel)
        depth = probabilities.shape[1]
        work = np.diff(comp_start) * depth * (depth + rest_p.shape[1] + 1.0)
        n_blocks = max(1, min(len(queries), int(np.ceil(work.sum() / _BAND_WORK))))
        blocks = track(
            np.array_split(np.arange(len(queries)), n_blocks), total=n_blocks,
            desc=f"P-R bands {system}", unit="block", progress=progress,
        )
        summaries: dict[str, list[dict[str, np.ndarray]]] = {"precision": [], "recall": []}
        for block in blocks:  # blocks of queries: only for the progress bar, same numbers
            rows = slice(comp_start[block[0]], comp_start[block[-1] + 1])
            out = cutoff_summaries(
                probabilities[rows], comp_start[block[0] : block[-1] + 2] - rows.start,
                comp_weight[rows], rest_p[rows], certain[rows], ctx.expected_size()[rows],
                recall_form=recall_form, undefined=undefined, undefined_value=undefined_value,
                confidence_level=confidence_level,
            )
            for measure in summaries:
                summaries[measure].append(out[measure])
        for measure, pieces in summaries.items():
            columns = {
                name: np.concatenate([piece[name] for piece in pieces]).ravel()
                for name in SUMMARIES
            }
            parts.append(
                pd.DataFrame(
                    {
                        "system": system,
                        "query_id": np.repeat(queries, depth),
                        "cutoff": np.tile(np.arange(1, depth + 1), len(queries)),
                        "measure": measure,
                        **{n: columns[n] for n in ("mean", "std", "ci_low", "ci_high")},
                        "confidence_level": confidence_level,
                        "p_undefined": columns["p_undefined"],
                        "method": "exact",
                    }
                )
            )
    if not parts:
        raise ValueError(f"no system to evaluate; got {_show(list(rankings))}")
    frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values(
        ["system", "measure", "query_id", "cutoff"],
        key=lambda c: c.map({n: i for i, n in enumerate(rankings)}) if c.name == "system" else c,
        kind="stable",
    ).reset_index(drop=True)
