"""evaluate() for classifiers: :class:`~fuzzytruth.classify.Predictions` against a categorical
or set-valued truth, with items in the role of queries.

The vocabulary is the retrieval one (:mod:`fuzzytruth.evaluation.engine`): the same registry
(classifier families read a classifier's classes, ``reads="classes"``), the same
:class:`~fuzzytruth.evaluation.Evaluation` (its ``queries`` are the items), the same rules
(``undefined``, ``missing``, ``complete``) and the same ``compare()``. What differs is how each
family's values are obtained, per measure (the ``method`` column):

``"exact"``
    * a per-item family reading one label per world (``target="label"``) under a truth whose
      items' labels are independent draws from p(node | item) (annotator shares, point
      posteriors, PrIRN): its law is exact, class c with mass p(c | item), computed from the
      family's kernel on every node of the item's support (the atoms are built when a
      distribution is asked for, the means at once);
    * a truth that is the same in every world for this target (``"distribution"`` or
      ``"top1"`` under a point posterior): one value per item;
``"worlds"``
    Monte Carlo over the truth's own worlds (a label model's parameter draws, PrIRN's
    Dirichlet plausibilities, Stutz et al.'s top-1 of each sample) and for the statistics of
    the whole collection (ECE, soft micro-F1, entropy correlation) under a random truth;
``"crisp"``
    a set-valued truth (crisp qrels): one value per item, no worlds.

The worlds (``n_worlds``, default 1000) are shared by every classifier and measure: one label
per item per world for the measures reading labels, a keyed draw (the same whatever block of
worlds it is drawn in). The aggregates' sums read them once for every classifier and measure,
in chunks of worlds drawn as they are read; each classifier's values in whole worlds (world
scores, paired tests over worlds) are computed from them when asked (:class:`ClassWorlds`), and
only then are every world's labels kept, as node indices: 50,000 items × 1,000 worlds cost 100
MB of labels, not a float per (measure, classifier, world, item). Plausibility worlds are
computed in blocks sized from ``memory_budget`` and only their per-item values kept.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Membership, Taxonomy
>>> from fuzzytruth.classify import Predictions
>>> tax = Taxonomy.flat(["cat", "dog"])
>>> ann = Annotations.from_frame(pd.DataFrame({
...     "item_id": ["x", "x", "x", "y", "y", "y"], "annotator_id": list("abcabc"),
...     "label": ["cat", "cat", "dog", "dog", "dog", "dog"]}), taxonomy=tax)
>>> net = Predictions([[0.8, 0.2], [0.3, 0.7]], items=["x", "y"], classes=["cat", "dog"],
...                   name="net")
>>> from fuzzytruth.evaluation import evaluate
>>> ev = evaluate(net, Membership.from_annotations(ann), ["Acc", "CE"], rng=0)
>>> ev.to_frame()[["query_id", "measure", "mean", "method"]].round(4)
  query_id measure    mean method
0        x     Acc  0.6667  exact
1        y     Acc  1.0000  exact
2        x      CE  0.6852  exact
3        y      CE  0.3567  exact
>>> ev.distribution("net", "x", "Acc").to_frame()
   value  probability
0    0.0     0.333333
1    1.0     0.666667
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._progress import Progress
from fuzzytruth._random import draw_seed
from fuzzytruth._resampling import block_rows
from fuzzytruth._validation import check_n_worlds, text_names
from fuzzytruth._warnings import warn
from fuzzytruth.classify.context import SystemView, Target
from fuzzytruth.classify.predictions import Predictions
from fuzzytruth.classify.targets import ClassTruth, PreparedClassTruth, class_truth
from fuzzytruth.evaluation.label_spread import (
    LabelSpread,
    binned_sums,
    label_sums,
    spread_blocks,
)
from fuzzytruth.evaluation.result import Evaluation
from fuzzytruth.evaluation.undefined import Undefined
from fuzzytruth.measures import Measure, Preset
from fuzzytruth.metrics import classification as kernels
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.protocol import TruthKind
from fuzzytruth.uncertain.batch import DeferredBatch, DistributionBatch
from fuzzytruth.uncertain.worlds import kernel_params

__all__ = ["ClassWorlds", "MeasurePlan", "as_classifiers", "evaluate_predictions",
           "evaluated_items", "measure_plan", "system_views"]

#: Families that read a set-valued truth (label sets, as ImageNet ReaL's).
SET_KERNELS = (kernels.accuracy,)

LABEL_CHUNK_BYTES = 8.0
"""Memory budget bytes per (world, item) of a chunk of world labels drawn at once for the
sums: at 2-byte labels a chunk holds a quarter of the budget (32 MB of the default), so that
every world's labels are never held at once."""

#: Options of evaluate() that rank runs and do not apply to classifiers, with their defaults.
RUN_OPTIONS = {
    "query_categories": None, "weights": "direct", "exclude_query": True,
    "recall_form": "exact", "depth": None, "relevance_level": None,
    "n_docs_in_collection": None, "judged_only": False, "ties": None, "score_dtype": None,
    "world_model": "annotator",
}


def as_classifiers(predictions: Any) -> dict[str, Predictions]:
    """``predictions`` as classifiers by name: one :class:`Predictions` (named by its
    ``name``) or a mapping of name to Predictions, each named by its key (as a mapping of
    runs names its systems), whatever its own ``name``.

    Examples
    --------
    >>> p = Predictions([[0.9, 0.1]], items=["x"], classes=["a", "b"])
    >>> {k: v.name for k, v in as_classifiers({"A": p, "B": p}).items()}
    {'A': 'A', 'B': 'B'}
    """
    if isinstance(predictions, Predictions):
        return {predictions.name: predictions}
    if isinstance(predictions, Mapping) and predictions and all(
        isinstance(p, Predictions) for p in predictions.values()
    ):
        out: dict[str, Predictions] = {}
        names = text_names(predictions, "predictions", "classifier")
        for name, p in zip(names, predictions.values(), strict=True):
            if p.name != name:  # the same scores under the key's name: no copy of them
                p = copy.copy(p)
                p.name = name
            out[name] = p
        return out
    listed = isinstance(predictions, list | tuple) and predictions
    raise ValueError(
        "predictions must be a Predictions or a non-empty mapping of classifier name to "
        f"Predictions; got {type(predictions).__name__}"
        + (": name the classifiers, {p.name: p for p in predictions}" if listed else "")
    )


def evaluated_items(
    systems: Mapping[str, Predictions], truth: ClassTruth, missing: str, complete: bool
) -> list[str]:
    """The evaluated items: those of the predictions the truth knows (with ``complete`` every
    item of the truth), sorted; every classifier must score every one of them."""
    names = list(systems)
    first = systems[names[0]].items
    if all(systems[n].items.equals(first) for n in names[1:]) and first.is_unique:
        items = pd.Index(np.sort(np.asarray(first, dtype=object)))  # the usual case: one set
    else:
        items = pd.Index(sorted(set().union(*(set(p.items) for p in systems.values()))))
    for name in names:
        lost = items.difference(systems[name].items)
        if len(lost):
            raise ValueError(
                f"the predictions {name!r} have no row for {len(lost)} item(s) other "
                f"classifiers score: {_show(list(lost))}; every classifier must score the same "
                "items"
            )
    ok = truth.answerable(items)
    if not ok.all():
        lost = list(items[~ok])
        if missing == "error":
            raise ValueError(truth.missing_message(lost) + " (missing='error')")
        warn(
            f"{truth.missing_message(lost)}: {len(lost)} item(s) not evaluated (missing='skip')",
            UserWarning,
        )
        items = items[ok]
    lost = truth.items.difference(items)
    if len(lost):
        unpredicted = f"{len(lost)} item(s) of the truth missing from the predictions: " \
            f"{_show(sorted(lost))}"
        if complete:
            raise ValueError(f"complete=True evaluates every item of the truth, and there are "
                             f"{unpredicted}")
        warn(f"{unpredicted}: not evaluated (complete=False)", UserWarning)
    if len(items) == 0:
        raise ValueError("no item left to evaluate: no item of the predictions is in the truth")
    return list(items)


@dataclass(frozen=True)
class MeasurePlan:
    """How one measure is computed: what it reads of a world, and by which method."""

    target: str  # "labels", "top1", "vectors", "sets"
    method: str  # "exact", "point", "worlds", "crisp"


def measure_plan(measure: Measure, truth: PreparedClassTruth, method: str) -> MeasurePlan:
    """The :class:`MeasurePlan` of a resolved measure under a prepared truth and the
    evaluation's ``method`` (the module docstring)."""
    fam = measure.family
    params = kernel_params(measure)
    if truth.kind is TruthKind.CRISP:
        if fam.kernel not in SET_KERNELS:
            raise ValueError(
                f"measure {str(measure)!r} compares distributions; a set-valued truth (qrels of "
                "plausible labels) gives accuracy only (Acc, ReaL): use a categorical truth "
                "(a Membership or a fitted truth model)"
            )
        return MeasurePlan("sets", "crisp")
    target = params.get("target", "label")
    if target == "label":
        exact = fam.per_item and truth.law is not None and method != "worlds"
        return MeasurePlan("labels", "exact" if exact else "worlds")
    if target == "top1":
        return MeasurePlan("top1", "point" if truth.point is not None else "worlds")
    return MeasurePlan("vectors", "point" if truth.point is not None else "worlds")


def system_views(systems: Mapping[str, Predictions], items: list[str],
                 prepared: PreparedClassTruth, measures: Iterable[Measure],
                 memory_budget: float) -> list[SystemView]:
    """Each classifier on the evaluated ``items`` as the measures read it: its classes mapped
    to the truth's nodes (``prepared``, the truth on those items), ranked once for the
    deepest top k of each tie rule."""
    depths: dict[str, int] = {}  # each tie rule's deepest top k: one ranking serves every k
    for m in measures:
        params = kernel_params(m)
        if m.family.kernel is kernels.accuracy:
            depths[params["ties"]] = max(depths.get(params["ties"], 0), params["k"])
    return [SystemView(p.subset(items), prepared, memory_budget, depths)
            for p in systems.values()]


def evaluate_predictions(
    predictions: Any,
    truth: Any,
    measures: Iterable[Measure],
    names: list[str],
    *,
    preset: Preset,
    undefined: Undefined,
    missing: str,
    complete: bool,
    method: str,
    n_worlds: int,
    rng: np.random.Generator,
    confidence_level: float,
    memory_budget: float,
    progress: bool | None,
    options: Mapping[str, Any],
    recorded_seed: int | None = None,
) -> Evaluation:
    """The classifier branch of :func:`fuzzytruth.evaluation.evaluate` (module docstring);
    ``measures`` are resolved, ``names`` as asked, ``options`` the run options given,
    ``recorded_seed`` the ``rng`` as recorded (:func:`fuzzytruth._random.recorded_seed`)."""
    for option, default in RUN_OPTIONS.items():
        value = options.get(option, default)
        if value != default:
            raise ValueError(
                f"{option}={value!r} applies to runs (retrieval); a classifier evaluation "
                f"takes the measures' own parameters (e.g. Acc(ties=first)@5, Acc(level=1))"
            )
    measures = list(measures)
    for name, m in zip(names, measures, strict=True):
        if m.family.reads != "classes":
            raise ValueError(
                f"measure {name!r} reads a ranked run; a classifier's predictions take the "
                "classifier measures (Acc, top5, ReaL, CE, KL, JS, poJSD, TV, MD, Wasserstein, "
                "SoftAcc, SoftF1, Brier, ECE, EntropyCorr)"
            )
    systems = as_classifiers(predictions)
    bound = class_truth(truth)
    items = evaluated_items(systems, bound, missing, complete)
    prepared = bound.prepare(items)
    views = system_views(systems, items, prepared, measures, memory_budget)
    plans = [measure_plan(m, prepared, method) for m in measures]
    crisp = prepared.kind is TruthKind.CRISP
    lacking = [n for n, p in zip(names, plans, strict=True) if p.method == "worlds"]
    if method == "exact" and lacking:
        raise ValueError(
            f"method='exact': no exact law for {lacking} under this truth (its worlds are drawn "
            "by the truth model, or the measure is a statistic of the whole collection); use "
            "method='auto' or 'worlds'"
        )
    if crisp or n_worlds == 0:
        if lacking:
            raise ValueError(
                f"n_worlds=0 leaves no way to compute {lacking}, which need the truth's "
                "worlds; give n_worlds > 0"
            )
        n_worlds = 0
    for view, plan, m in ((v, p, m) for v in views for p, m in zip(plans, measures,
                                                                    strict=True)):
        _check(view, plan, m)

    batches: dict[tuple[str, str], Any] = {}
    methods: dict[tuple[str, str], str] = {}
    points: dict[int, np.ndarray] = {}
    for j, (name, measure, plan) in enumerate(zip(names, measures, plans, strict=True)):
        params = kernel_params(measure)
        for view in views:
            key = (view.name, name)
            if plan.method in ("point", "crisp"):
                values = measure.family.kernel(view, _point_target(prepared, plan), **params)[0]
                points.setdefault(j, np.empty((len(views), len(items))))[
                    views.index(view)] = values
                batches[key] = DistributionBatch.from_points(values)
                methods[key] = "crisp" if crisp else "exact"
            elif plan.method == "exact":
                batches[key] = _exact(view, measure.family.kernel, params, prepared,
                                      memory_budget)
                methods[key] = "exact"
            else:
                batches[key] = None
                methods[key] = "worlds"

    worlds = None
    if n_worlds > 0:
        seed = draw_seed(rng)
        worlds = ClassWorlds(
            measures, plans, views, prepared, n_worlds, seed, points, memory_budget, progress
        )
    conventions = {
        "preset": preset.as_dict(),
        "measures": {n: str(m) for n, m in zip(names, measures, strict=True)},
        "truth": str(prepared.kind),
        "truth_model": prepared.truth_model,
        "undefined": str(undefined),
        "missing": missing,
        "complete": complete,
        "method": method,
        "n_worlds": n_worlds,
        "seed": recorded_seed,
        "items": "each item is evaluated as a query: its classes ranked by the classifier",
    }
    families = {n: m.family for n, m in zip(names, measures, strict=True)}
    counted = dict.fromkeys(names, np.ones(len(items), dtype=bool))
    return Evaluation(
        systems=[v.name for v in views], queries=items, measures=names, truth=prepared.kind,
        undefined=undefined, conventions=conventions, confidence_level=confidence_level,
        families=families, batches=batches, methods=methods, counted=counted, worlds=worlds,
    )


def _check(view: SystemView, plan: MeasurePlan, measure: Measure) -> None:
    """Errors that do not depend on a world, raised before any is drawn: classes that are not
    taxonomy nodes, scores where probabilities are read, and true nodes with mass that no
    class meets where a measure compares distributions."""
    fam = measure.family
    params = kernel_params(measure)
    if fam.kernel is kernels.accuracy:
        _warn_if_every_class_counts(view, measure, params["k"])
    if plan.target == "sets":
        return
    level = params.get("level")
    view.map(level)  # classes must be nodes of the taxonomy
    if fam.kernel is kernels.accuracy:
        return
    if fam.kernel is kernels.calibration_error:
        view.predictions.require_probabilities(str(measure))
        return
    _, column = view.soft(level, str(measure))
    if plan.target == "top1" and plan.method == "point":
        # one label per item, the same in every world: only those labels must meet a class
        read = np.zeros(len(view.truth.nodes), dtype=bool)
        read[view.truth.argmax()] = True
        what = "has as an item's most plausible label"
    else:
        read, what = view.truth.support(), "puts mass on"
    lost = read & (column < 0)
    if lost.any():
        node = view.truth.nodes[int(np.flatnonzero(lost)[0])]
        raise ValueError(
            f"measure {str(measure)!r}: the truth {what} {node!r}, for which the "
            f"predictions {view.name!r} have no class at level={level!r} (set level= to a "
            "depth where every true node meets a class)"
        )


def _warn_if_every_class_counts(view: SystemView, measure: Measure, k: int) -> None:
    """Warn when top-k accuracy's k is at least the number of classes: all of them are then
    in the top k, and every item whose truth meets a class is a hit whatever the scores, at
    any taxonomy level (scikit-learn's ``top_k_accuracy_score`` warns likewise)."""
    if k >= view.predictions.n_classes:
        warn(
            f"measure {str(measure)!r}: its top {k} holds all {view.predictions.n_classes} "
            f"classes of the predictions {view.name!r}, so every item whose truth meets a "
            "class counts as a hit whatever the scores",
            UserWarning,
        )


def _point_target(truth: PreparedClassTruth, plan: MeasurePlan) -> Target:
    """The one row of a truth that is the same in every world."""
    if plan.target == "sets":
        return Target("sets", sets=truth.sets[None])
    if plan.target == "top1":
        return Target("labels", labels=truth.argmax()[None])
    return Target("vectors", vectors=truth.point[None])


def _exact(view: SystemView, kernel: Any, params: dict, truth: PreparedClassTruth,
           memory_budget: float) -> DeferredBatch:
    """The exact per-item law under independent labels: the means now (node by node, in
    blocks), the atoms when asked."""
    law = truth.law
    n, _ = law.shape
    mean_of = _EXPECTED.get(kernel)
    if mean_of is not None and params.get("ties") != "average":
        # linear in the one-hot label: the mean under the law is one pass over it
        return DeferredBatch(lambda: _atoms(view, kernel, params, law), mean_of(
            view, law, memory_budget=memory_budget, **params), np.zeros(n), "exact")
    nodes = np.flatnonzero((law > 0).any(axis=0))
    step = block_rows(n, memory_budget, bytes_per_unit=48.0)
    total = np.zeros(n)
    undefined = np.zeros(n)
    defined = np.zeros(n)  # summed, not 1 - undefined: that loses the digits of a tiny one
    for start in range(0, len(nodes), step):
        block = nodes[start : start + step]
        labels = np.broadcast_to(block[:, None], (len(block), n))
        values = kernel(view, Target("labels", labels=labels), **params)
        mass = law[:, block].T
        nan = np.isnan(values)
        total += np.where(nan, 0.0, values * mass).sum(axis=0)
        undefined += np.where(nan, mass, 0.0).sum(axis=0)
        defined += np.where(nan, 0.0, mass).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(defined > 0.0, total / defined, np.nan)

    return DeferredBatch(lambda: _atoms(view, kernel, params, law), mean, undefined, "exact")


_EXPECTED = {kernels.accuracy: kernels.expected_accuracy,
             kernels.cross_entropy: kernels.expected_cross_entropy,
             kernels.kl_divergence: kernels.expected_cross_entropy}
"""Kernels whose value is linear in the one-hot label, and their mean under a law in one
pass (the per-node sum of :func:`_exact` gives the same numbers, node by node)."""


def _defined(values: np.ndarray, rule: Undefined, fill: float,
             counted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` under ``rule`` as sums read them: the defined values of the counted items
    (0 elsewhere) and the indicator of being defined and counted (float)."""
    values = rule.apply(values, fill)
    keep = ~np.isnan(values) & counted
    return np.where(keep, values, 0.0), keep.astype(np.float64)


_BINNED = {kernels.calibration_error: kernels.calibration_parts}
"""Statistics of the whole collection summed from the labels' spread
(:func:`~fuzzytruth.evaluation.label_spread.binned_sums`), and what each bins."""


def _atoms(view: SystemView, kernel: Any, params: dict, law: np.ndarray) -> DistributionBatch:
    """The exact per-item law's atoms: the kernel at each node of positive mass."""
    positive = law > 0
    width = int(positive.sum(axis=1).max(initial=1))
    order = np.argsort(~positive, axis=1, kind="stable")[:, :width]
    masses = np.take_along_axis(law, order, axis=1)
    order = np.where(masses > 0, order, order[:, :1])  # pad with a node of the item
    values = kernel(view, Target("labels", labels=np.ascontiguousarray(order.T)), **params).T
    nan = np.isnan(values)
    p_undefined = np.where(nan, masses, 0.0).sum(axis=1)
    masses = np.where(nan, 0.0, masses)
    masses = masses / np.maximum(masses.sum(axis=1, keepdims=True) + p_undefined[:, None],
                                 1e-300)
    p_undefined = 1.0 - masses.sum(axis=1)
    return DistributionBatch(np.where(nan, 0.0, values), masses,
                             np.clip(p_undefined, 0.0, 1.0), "exact")


class ClassWorlds:
    """``(n_measures, n_systems, n_worlds, n_items)`` world values of a classifier evaluation,
    computed when asked: ``[m, s]`` gives one classifier's values of one measure.

    Labels (one node per item per world) are shared by every classifier and measure reading
    them: :meth:`sums` draws them chunk by chunk, and whole worlds' values (``[m, s]``, the
    family's kernel on them in blocks of worlds sized from the memory budget) draw them once
    and keep them; a truth that is the same in every world gives its one
    value per item in every world; plausibility worlds are computed once, in blocks, and their
    per-item values kept.
    """

    ndim = 4

    def __init__(
        self,
        measures: list[Measure],
        plans: list[MeasurePlan],
        views: list[SystemView],
        truth: PreparedClassTruth,
        n_worlds: int,
        seed: int,
        points: Mapping[int, np.ndarray],
        memory_budget: float,
        progress: bool | None,
    ) -> None:
        n_items = truth.n_items
        check_n_worlds(n_worlds, minimum=1)
        self.shape = (len(measures), len(views), n_worlds, n_items)
        self._measures = measures
        self._views = views
        self._budget = memory_budget
        self._truth, self._seed = truth, seed
        worlds = np.arange(n_worlds)
        self._kept: dict[str, np.ndarray] = {}  # a target's labels, once whole worlds are read
        self._sources: list[tuple[str, Any]] = []
        vector_measures = [j for j, p in enumerate(plans)
                           if p.target == "vectors" and p.method == "worlds"]
        stored = self._plausibility_values(vector_measures, truth, worlds, seed, progress)
        for j, plan in enumerate(plans):
            if plan.method == "point":
                self._sources.append(("point", points[j]))
            elif j in stored:
                self._sources.append(("stored", stored[j]))
            else:  # "labels" or "top1": drawn when read (keyed: the same in any block)
                self._sources.append(("labels", plan.target))

    def _plausibility_values(self, measures: list[int], truth: PreparedClassTruth,
                             worlds: np.ndarray, seed: int,
                             progress: bool | None) -> dict[int, np.ndarray]:
        if not measures:
            return {}
        out = {j: np.empty((len(self._views), len(worlds), truth.n_items)) for j in measures}
        with Progress(total=len(worlds), desc="worlds", unit="world",
                      progress=progress) as bar:
            for start, block in truth.plausibility_blocks(worlds, seed, self._budget):
                target = Target("vectors", vectors=block)
                for j in measures:
                    params = kernel_params(self._measures[j])
                    for s, view in enumerate(self._views):
                        out[j][s, start : start + len(block)] = self._measures[j].family.kernel(
                            view, target, **params)
                bar.update(len(block))
        return out

    def blocks(self, m: int, s: int) -> Iterator[tuple[int, np.ndarray]]:
        """``(start, values)``: classifier ``s``'s values of measure ``m`` in blocks of worlds
        (sized from the memory budget when computed from labels)."""
        kind, data = self._sources[m]
        n_worlds, n_items = self.shape[2:]
        if kind == "point":
            yield 0, np.broadcast_to(data[s], (n_worlds, n_items))
            return
        if kind == "stored":
            yield 0, data[s]
            return
        measure = self._measures[m]
        params = kernel_params(measure)
        view = self._views[s]
        labels = self._labels(data)
        step = block_rows(n_items, self._budget, bytes_per_unit=64.0)
        for start in range(0, n_worlds, step):  # rows are worlds: any statistic is per row
            rows = labels[start : start + step]
            yield start, measure.family.kernel(view, Target("labels", labels=rows), **params)

    def _draw(self, target: str, worlds: np.ndarray) -> np.ndarray:
        """``(len(worlds), n_items)`` the labels of ``target`` (``"labels"`` or ``"top1"``)
        in those worlds."""
        if target == "labels":
            return self._truth.labels(worlds, self._seed)
        return self._truth.top1(worlds, self._seed, self._budget)

    def _labels(self, target: str) -> np.ndarray:
        """Every world's labels of ``target``, drawn once and kept: what whole worlds'
        values (:meth:`blocks`) read."""
        if target not in self._kept:
            self._kept[target] = self._draw(target, np.arange(self.shape[2]))
        return self._kept[target]

    def _label_chunks(self, target: str) -> Iterator[tuple[int, np.ndarray]]:
        """``(start, labels)``: the labels of ``target`` in chunks of worlds sized from the
        memory budget, drawn chunk by chunk unless they are kept (the same chunks either
        way, so that the sums do not depend on what was read before). When one chunk holds
        every world they are drawn whole and kept (:meth:`_labels`), so that reading whole
        worlds' values after the sums (an aggregate, then per-query means) does not draw
        them again."""
        n_worlds, n_items = self.shape[2:]
        step = block_rows(n_items, self._budget, bytes_per_unit=LABEL_CHUNK_BYTES)
        kept = self._labels(target) if step >= n_worlds else self._kept.get(target)
        for start in range(0, n_worlds, step):
            stop = min(start + step, n_worlds)
            yield start, (kept[start:stop] if kept is not None
                          else self._draw(target, np.arange(start, stop)))

    def sums(self, keys: Iterable[tuple[int, int]], rule: Undefined,
             fills: Mapping[int, float], counted: Mapping[int, np.ndarray],
             ) -> dict[tuple[int, int], tuple[np.ndarray, ...]]:
        """Sums of the values of measure ``m`` of classifier ``s`` for each ``(m, s)`` of
        ``keys`` that can be summed from the worlds' labels without building every world's
        values (:mod:`~fuzzytruth.evaluation.label_spread`): ``(world_total, world_count,
        item_total, item_count)`` of the values under ``rule`` (NaN scored ``fills[m]`` or
        left out), over the items ``counted[m]`` of each world and over the worlds of each
        item. Per-item measures and ECE reading labels qualify, and a truth the same in every
        world; the worlds are read once, in blocks sized from the memory budget."""
        n_worlds = self.shape[2]
        out: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        spread_keys = []
        for m, s in keys:
            kind, data = self._sources[m]
            if kind == "point":  # the same values in every world
                total, count = _defined(data[s], rule, fills[m], counted[m])
                out[m, s] = (np.full(n_worlds, total.sum()), np.full(n_worlds, count.sum()),
                             n_worlds * total, n_worlds * count)
            elif kind == "labels" and (self._measures[m].family.per_item or (
                    self._measures[m].family.kernel in _BINNED and counted[m].all())):
                spread_keys.append((m, s))
        for target in ("labels", "top1"):  # each read once, for every key reading it
            keys = [(m, s) for m, s in spread_keys if self._sources[m][1] == target]
            if keys:
                out.update(self._spread_sums(keys, target, rule, fills, counted))
        return out

    def _spread_sums(self, keys: list[tuple[int, int]], target: str, rule: Undefined,
                     fills: Mapping[int, float], counted: Mapping[int, np.ndarray],
                     ) -> dict[tuple[int, int], tuple[np.ndarray, ...]]:
        """:meth:`sums` of the ``keys`` reading the labels of ``target``, in one pass over
        them, chunk by chunk (:meth:`_label_chunks`) and block by block within a chunk."""
        n_worlds, n_items = self.shape[2:]
        sums = {key: [np.zeros(n_worlds), np.zeros(n_worlds), np.zeros(n_items),
                      np.zeros(n_items)] for key in keys}
        base = None
        for first, chunk in self._label_chunks(target):
            if base is None:  # from the first three worlds: drawn again if the chunk is shorter
                head = min(3, n_worlds)
                base = self._base_labels(chunk[:head] if len(chunk) >= head
                                         else self._draw(target, np.arange(head)))
            for begin, end in spread_blocks(chunk, base, self._budget):
                self._add_spread(sums, LabelSpread(chunk[begin:end], base), first + begin,
                                 rule, fills, counted)
        return {key: tuple(parts) for key, parts in sums.items()}

    def _add_spread(self, sums: dict[tuple[int, int], list[np.ndarray]], spread: LabelSpread,
                    start: int, rule: Undefined, fills: Mapping[int, float],
                    counted: Mapping[int, np.ndarray]) -> None:
        """Add one block of worlds (``start ..``) to the ``sums`` of every key."""
        n_items = self.shape[3]
        stop = start + spread.n_worlds
        for (m, s), acc in sums.items():
            measure, view = self._measures[m], self._views[s]
            params = kernel_params(measure)
            target = Target("labels", labels=spread.grid)
            if measure.family.per_item:
                table = measure.family.kernel(view, target, **params)
                total, count = _defined(table, rule, fills[m], counted[m])
                for j, part in enumerate((total, count)):
                    world, item = label_sums(spread, part[0], spread.values(part))
                    acc[j][start:stop] = world
                    acc[j + 2] += item
                continue
            correct, conf, bins = _BINNED[measure.family.kernel](view, target, **params)
            correct = np.asarray(correct, dtype=np.float64)
            world, item = binned_sums(spread, correct[0], spread.values(correct), conf,
                                      bins, kernels.table_width(bins, params["n_bins"]))
            acc[0][start:stop] = world
            acc[1][start:stop] = n_items
            acc[2] += item
            acc[3] += spread.n_worlds

    @staticmethod
    def _base_labels(labels: np.ndarray) -> np.ndarray:
        """Each item's base label: the one at least two of the first three worlds give (the
        first world's when they all differ), the most probable one as a rule."""
        if len(labels) < 3:
            return labels[0]
        return np.where(labels[1] == labels[2], labels[1], labels[0])

    def _values(self, m: int, s: int) -> np.ndarray:
        parts = [values for _, values in self.blocks(m, s)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, tuple):
            m, s = key
            return self._values(m, s)
        return np.stack([self._values(key, s) for s in range(self.shape[1])])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.stack([self[m] for m in range(self.shape[0])])
        return out if dtype is None else out.astype(dtype)
