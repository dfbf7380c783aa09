"""The human baseline: each annotator scored as a classifier against the others' truth.

Leave-one-annotator-out, as Stutz et al. (2023) score each dermatologist against the other
readers' aggregate: for every (item, annotator) pair of an item with at least one other
annotator,

* the annotator's answer is a prediction: its label (a label split over k classes gives each
  1/k), or, for partial rankings, the reader's own IRN vector (a class in tie group g scores
  1/(1 + g), normalised), which ranks the reader's classes as the reader did;
* the truth is the truth model fitted on the *other* annotators' answers for that item. Models
  that work item by item (``shares``, ``irn``, ``prirn``) are fitted once on all the pairs; a
  model that pools items (Dawid–Skene and kin) is refitted without each annotator in turn, and
  each pair's truth is that fit's posterior (a point: the refits' own parameter draws are not
  carried).

The pairs are evaluated by :func:`fuzzytruth.evaluate` (each pair plays an item), so every
classifier measure, its exact law and its worlds apply. :class:`HumanBaseline` then averages
them per annotator, per item (the mean over the item's annotators: the human score of the
item) and overall, with intervals over items.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Taxonomy
>>> ann = Annotations.from_frame(pd.DataFrame({
...     "item_id": ["x"] * 3 + ["y"] * 3, "annotator_id": list("abcabc"),
...     "label": ["cat", "cat", "dog", "dog", "dog", "dog"]}),
...     taxonomy=Taxonomy.flat(["cat", "dog"]))
>>> human = leave_one_annotator_out(ann, ["Acc"], rng=0)
>>> human.by_item()[["item_id", "measure", "value", "n_annotators"]]
  item_id measure     value  n_annotators
0       x     Acc  0.333333             3
1       y     Acc  1.000000             3
>>> human.summary()[["measure", "value", "n_items", "n_pairs"]]
  measure     value  n_items  n_pairs
0     Acc  0.666667        2        6
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._resampling import percentile_interval
from fuzzytruth._t_interval import t_interval
from fuzzytruth._validation import check_confidence_level, significance_level
from fuzzytruth.annotations import Annotations, labels_hint
from fuzzytruth.classify.predictions import Predictions
from fuzzytruth.evaluation.engine import evaluate
from fuzzytruth.evaluation.result import Evaluation
from fuzzytruth.io.rankings import Rankings

__all__ = ["ITEM_LOCAL_MODELS", "HumanBaseline", "leave_one_annotator_out"]

ITEM_LOCAL_MODELS = ("shares", "irn", "prirn")
"""Truth models fitted item by item: leaving an annotator out of an item changes that item
only, so one fit over all the pairs serves every annotator."""


@dataclass(frozen=True, eq=False)
class HumanBaseline:
    """The annotators scored against each other (:func:`leave_one_annotator_out`).

    Attributes
    ----------
    evaluation : Evaluation
        One system, ``"annotators"``, whose queries are the (item, annotator) pairs (ids in
        :attr:`pairs`).
    pairs : pandas.DataFrame
        ``pair_id, item_id, annotator_id`` of every scored pair.
    truth_model : str
        The truth the annotators were scored against.
    """

    evaluation: Evaluation
    pairs: pd.DataFrame
    truth_model: str

    def _level(self, confidence_level: float | None) -> float:
        """``confidence_level`` checked, the evaluation's own when None (a 0 is refused, not
        replaced)."""
        if confidence_level is None:
            return self.evaluation.confidence_level
        return check_confidence_level(confidence_level)

    def _pair_means(self) -> pd.DataFrame:
        ev = self.evaluation
        frames = []
        for measure in ev.measures:
            frames.append(pd.DataFrame({"pair_id": ev.queries, "measure": measure,
                                        "value": ev.query_means(measure)[0]}))
        return pd.concat(frames, ignore_index=True).merge(self.pairs, on="pair_id")

    def by_item(self) -> pd.DataFrame:
        """Per item and measure, the mean over its annotators (the human score of the item):
        ``item_id, measure, value, n_annotators``."""
        table = self._pair_means().groupby(["measure", "item_id"], sort=False)["value"]
        out = table.agg(value="mean", n_annotators="count").reset_index()
        return out[["item_id", "measure", "value", "n_annotators"]]

    def by_annotator(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Per annotator and measure, the mean over the annotator's items with its t interval
        over them: ``annotator_id, measure, value, ci_low, ci_high, n_items``."""
        level = self._level(confidence_level)
        rows = []
        for (annotator, measure), group in self._pair_means().groupby(
                ["annotator_id", "measure"], sort=False):
            values = group["value"].dropna().to_numpy()
            low, high = _interval(values, level)
            rows.append({"annotator_id": annotator, "measure": measure,
                         "value": float(values.mean()) if len(values) else np.nan,
                         "ci_low": low, "ci_high": high, "n_items": len(values)})
        return pd.DataFrame(rows)

    def summary(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Per measure, the human baseline: the mean over items of each item's human score,
        its t interval over items (estimand: new items judged by annotators like these), and
        its spread over the truth's worlds: ``measure, value, ci_low, ci_high, truth_low,
        truth_high, n_items, n_pairs, truth_model, confidence_level``."""
        level = self._level(confidence_level)
        ev = self.evaluation
        per_item = self.by_item()
        item_of_pair = self.pairs.set_index("pair_id").loc[list(ev.queries), "item_id"]
        codes, _ = pd.factorize(item_of_pair.to_numpy())
        counts = np.bincount(codes)
        rows = []
        for measure in ev.measures:
            values = per_item.loc[per_item["measure"] == measure, "value"].dropna().to_numpy()
            low, high = _interval(values, level)
            row = {"measure": measure, "value": float(values.mean()), "ci_low": low,
                   "ci_high": high, "truth_low": np.nan, "truth_high": np.nan}
            if ev.n_worlds and not ev.truth.crisp:
                worlds = ev.world_scores(measure)[:, 0, :]  # (n_worlds, n_pairs)
                # each world's pair scores summed by item, in pair order: one bincount over
                # (world, item) bins (np.add.at over the pairs took 70 ms a measure for 9,577
                # pairs x 200 worlds)
                n_items = len(counts)
                bins = np.arange(worlds.shape[0])[:, None] * n_items + codes
                sums = np.bincount(bins.ravel(), weights=worlds.ravel(),
                                   minlength=worlds.shape[0] * n_items).reshape(-1, n_items)
                per_world = (sums / counts).mean(axis=1)
                low, high = percentile_interval(per_world, level)
                row["truth_low"], row["truth_high"] = float(low), float(high)
            row.update(n_items=len(values), n_pairs=len(ev.queries),
                       truth_model=self.truth_model, confidence_level=level)
            rows.append(row)
        return pd.DataFrame(rows)


def _interval(values: np.ndarray, level: float) -> tuple[float, float]:
    _, low, high = t_interval(values[None, :], "two-sided", significance_level(level))
    return float(low[0]), float(high[0])


def leave_one_annotator_out(
    annotations: Annotations | Rankings,
    measures: str | Iterable[str],
    *,
    truth_model: Any = "shares",
    n_worlds: int = 1000,
    rng: np.random.Generator | int | None = None,
    **options: Any,
) -> HumanBaseline:
    """Score every annotator as a classifier against the truth of the others (module
    docstring).

    Parameters
    ----------
    annotations : Annotations or Rankings
        The labels, or partial rankings with ties (each reader's ranking is their answer).
    measures : str or iterable of str
        Classifier measures (``"Acc"``, ``"top3"``, ``"Acc(level=1)"``, ``"CE"`` ...).
    truth_model : str or model
        The truth of the others: a name of :data:`fuzzytruth.truth.models.TRUTH_MODELS`
        (``"shares"`` by default; ``"irn"``/``"prirn"`` need rankings) or a configured model
        (``PrIRN(temperature=5)``).
    n_worlds : int
        Worlds of the truth (as :func:`fuzzytruth.evaluate`).
    rng : numpy.random.Generator or int, optional
        The one source of randomness.
    **options
        Passed to :func:`fuzzytruth.evaluate` (``confidence_level``, ``memory_budget``,
        ``method``, ``undefined``...).

    Returns
    -------
    HumanBaseline
    """
    from fuzzytruth.truth.models import TRUTH_MODELS

    model = TRUTH_MODELS[_model_name(truth_model)]() if isinstance(truth_model, str) else \
        truth_model
    name = getattr(model, "name", type(model).__name__)
    ranked = isinstance(annotations, Rankings)
    if not ranked and not isinstance(annotations, Annotations):
        raise ValueError(
            "annotations must be Annotations or Rankings; got "
            f"{type(annotations).__name__}{labels_hint(annotations)}"
        )
    frame, pairs, classes = _pairs(annotations)
    predictions = _answers(frame, pairs, classes, ranked)
    if name in ITEM_LOCAL_MODELS:
        truth = _fit(model, _others(annotations, frame, pairs))
    else:
        truth = _refit_per_annotator(model, annotations, frame, pairs)
    evaluation = evaluate(predictions, truth, measures, n_worlds=n_worlds, rng=rng, **options)
    return HumanBaseline(evaluation, pairs[["pair_id", "item_id", "annotator_id"]], name)


def _model_name(name: str) -> str:
    from fuzzytruth.truth.models import TRUTH_MODELS

    if name not in TRUTH_MODELS:
        raise ValueError(f"truth_model must be one of {sorted(TRUTH_MODELS)} or a configured "
                         f"model; got {name!r}")
    return name


def _pairs(data: Annotations | Rankings) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """The answers as one table (``item, who, class, value``), the scored pairs (items with
    another annotator) and the classes."""
    if isinstance(data, Rankings):
        f = data.frame
        frame = pd.DataFrame({"item": f["item_id"].to_numpy(), "who": f["reader_id"].to_numpy(),
                              "class": f["class"].to_numpy(),
                              "value": 1.0 / (1.0 + f["rank_group"].to_numpy())})
        classes = [str(c) for c in data.classes]
    else:
        f = data.to_frame()
        frame = pd.DataFrame({"item": f["item_id"].to_numpy(), "who": f["annotator_id"].to_numpy(),
                              "class": f["label"].to_numpy(), "value": f["weight"].to_numpy()})
        used = set(map(str, f["label"]))
        classes = [str(n) for n in data.taxonomy.nodes if str(n) in used]
    frame["item"] = frame["item"].astype(str)
    frame["who"] = frame["who"].astype(str)
    pairs = frame[["item", "who"]].drop_duplicates().reset_index(drop=True)
    per_item = pairs.groupby("item", sort=False)["who"].transform("count")
    pairs = pairs[per_item.to_numpy() > 1].reset_index(drop=True)
    if pairs.empty:
        raise ValueError("no item has two annotators: nobody can be scored against the others")
    pairs.insert(0, "pair_id", [f"{i}" for i in range(len(pairs))])
    pairs = pairs.rename(columns={"item": "item_id", "who": "annotator_id"})
    return frame, pairs, classes


def _answers(frame: pd.DataFrame, pairs: pd.DataFrame, classes: list[str],
             ranked: bool) -> Predictions:
    """Each pair's answer as a probability vector over the classes."""
    key = pd.MultiIndex.from_frame(pairs[["item_id", "annotator_id"]])
    row = key.get_indexer(pd.MultiIndex.from_arrays([frame["item"], frame["who"]]))
    keep = row >= 0
    col = pd.Index(classes).get_indexer(frame["class"].astype(str))
    matrix = np.zeros((len(pairs), len(classes)))
    np.add.at(matrix, (row[keep], col[keep]), frame["value"].to_numpy()[keep])
    matrix /= matrix.sum(axis=1, keepdims=True)
    return Predictions(matrix, items=pairs["pair_id"], classes=classes, name="annotators",
                       probabilities=True)


def _others_frame(frame: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """For each pair, the other annotators' answers on its item (item id = the pair id)."""
    joined = pairs.merge(frame, left_on="item_id", right_on="item")
    return joined[joined["who"] != joined["annotator_id"]]


def _others(data: Annotations | Rankings, frame: pd.DataFrame,
            pairs: pd.DataFrame) -> Annotations | Rankings:
    others = _others_frame(frame, pairs)
    if isinstance(data, Rankings):
        groups = np.rint(1.0 / others["value"].to_numpy() - 1.0).astype(np.int64)
        table = pd.DataFrame({"item_id": others["pair_id"].to_numpy(),
                              "reader_id": others["who"].to_numpy(),
                              "class": others["class"].to_numpy(), "rank_group": groups})
        return Rankings.from_frame(table, taxonomy=data.taxonomy, classes=list(data.classes),
                                   anonymous_readers=data.anonymous_readers)
    table = pd.DataFrame({"item_id": others["pair_id"].to_numpy(),
                          "annotator_id": others["who"].to_numpy(),
                          "label": others["class"].to_numpy(),
                          "weight": others["value"].to_numpy()})
    return Annotations(table, data.taxonomy, data.annotator_weights)


def _fit(model: Any, data: Annotations | Rankings) -> Any:
    return model.fit(data)


def _refit_per_annotator(model: Any, data: Annotations | Rankings, frame: pd.DataFrame,
                         pairs: pd.DataFrame) -> Any:
    """A pooled model refitted without each annotator; each pair's truth is the posterior of
    its item in the fit without its annotator (as a Membership of direct shares)."""
    from fuzzytruth.truth.membership import Membership

    annotations = data.annotations() if isinstance(data, Rankings) else data
    table = annotations.to_frame()
    who = table["annotator_id"].astype(str)
    rows = []
    for annotator, group in pairs.groupby("annotator_id", sort=False):
        fit = model.fit(Annotations(table[who != annotator].reset_index(drop=True),
                                    annotations.taxonomy, annotations.annotator_weights))
        posterior = fit.posterior_frame()
        posterior.index = posterior.index.astype(str)
        part = posterior.loc[group["item_id"].to_numpy()]
        part.index = group["pair_id"].to_numpy()
        rows.append(part)
    shares = pd.concat(rows).fillna(0.0)
    shares.columns = list(shares.columns)
    return Membership.from_probabilities(shares, taxonomy=annotations.taxonomy, close=True)
