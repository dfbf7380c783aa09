"""Santini §4: precision and recall of a result list as distributions (eq. 10–14).

For a target category ω and a result list r_1..r_n, each returned item belongs to ω
independently with probability p(ω|r_i), so the number k of returned items in ω is
Poisson-binomial (eq. 10). Then

* precision = k / n (eq. 11);
* recall, **as printed** (eq. 12, ``recall_form="expected_size"``) = k / |ω| with the
  expected category size |ω| = Σ_q p(ω|q) in the denominator. It can exceed 1 when a list holds
  more members of ω in some world than |ω| expects; it is kept for reproducing the paper;
* recall, **exact** (``recall_form="exact"``) = TP / (TP + FN), with TP = k and FN the
  Poisson-binomial number of members of ω among the items *not* returned. It is undefined when
  TP + FN = 0; that probability is reported as ``p_undefined`` and the distribution is
  conditional on recall being defined.

When the query is itself an item with an uncertain category, the distributions are mixed over
the categories it may belong to (eq. 13–14); see :func:`query_category_weights` for the
weights.

These single-query functions share :func:`fuzzytruth.evaluate`'s defaults (exact recall,
``weights="direct"``, the query left out of its own category's size); the paper's printed
recall is ``recall_form="expected_size"``, which :mod:`fuzzytruth.repro` passes explicitly.
They keep the probability that a value is undefined in ``p_undefined`` (conditional
summaries); evaluate() applies its ``undefined`` rule on top.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from fuzzytruth._validation import check_choice, check_flag, check_type, id_list, ordered_ids
from fuzzytruth.taxonomy import _show
from fuzzytruth.truth.membership import Membership
from fuzzytruth.uncertain import poibin
from fuzzytruth.uncertain.closed_form import RECALL_FORMS
from fuzzytruth.uncertain.cutoffs import TRUTH_COLUMNS
from fuzzytruth.uncertain.distribution import Distribution

__all__ = [
    "CutoffDistributions",
    "precision_distribution",
    "precision_recall_curve",
    "query_category_weights",
    "recall_distribution",
]

Weights = Literal["direct", "literal"] | Mapping[Hashable, float]
RecallForm = Literal["expected_size", "exact"]


def query_category_weights(
    membership: Membership, query: Hashable, *, weights: Weights = "direct"
) -> pd.Series:
    """Weights of the categories a query item may ask for, summing to 1.

    Parameters
    ----------
    membership : Membership
        Must contain ``query``.
    query : hashable
        The query item's id.
    weights : {"direct", "literal"} or mapping
        ``"direct"`` (default): the share of the query's annotators who chose each node
        directly. It sums to 1 and treats "the query is of category ω" as the event that a
        randomly chosen annotator labelled it ω.

        ``"literal"``: the paper's eq. 13–14 weight p(ω|q) over *all* nodes, normalised. Caveat:
        p(ω|q) summed over nodes exceeds 1 (the root alone has weight 1 and every ancestor
        repeats its descendants' mass), so the literal form double-counts ancestors — the root,
        whose precision is always 1, gets the largest weight. Kept, normalised, only to
        reproduce the paper.

        A mapping category → weight gives the weights explicitly (normalised).

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_figure1
    >>> mem = santini_figure1().membership
    >>> query_category_weights(mem, "fig1").round(3).to_dict()
    {'people': 0.4, 'crowd': 0.2, 'city': 0.4}
    """
    _check_membership(membership)
    tax = membership.taxonomy
    row = membership.item_index([query])[0]
    if isinstance(weights, Mapping):
        values = np.zeros(len(tax))
        for category, w in weights.items():
            values[tax.index(category)] = w
        if np.any(values < 0) or values.sum() <= 0:
            raise ValueError("weights given as a mapping must be >= 0 with a positive sum")
    elif weights == "direct":
        if membership.direct is None:
            raise ValueError(
                "weights='direct' needs the annotators' direct shares, and this membership was "
                "built from already-closed probabilities; pass weights='literal' or a mapping"
            )
        values = membership.direct[row]
    elif weights == "literal":
        values = membership.matrix[row]
    else:
        raise ValueError(
            f"weights must be 'direct', 'literal' or a mapping category -> weight; got {weights!r}"
        )
    keep = values > 0
    series = pd.Series(
        values[keep] / values.sum(),
        index=pd.Index(np.array(tax.nodes, dtype=object)[keep], name="category"),
    )
    return series.rename("weight")


def precision_distribution(
    membership: Membership,
    results: Sequence[Hashable],
    *,
    category: Hashable | None = None,
    query: Hashable | None = None,
    weights: Weights = "direct",
) -> Distribution:
    """Distribution of the precision k/n of a result list (Santini eq. 10–11, 13).

    Parameters
    ----------
    membership : Membership
        p(ω|item) for every returned item.
    results : sequence of item ids
        The returned list (order does not matter for precision); no duplicates, not empty.
    category : hashable, optional
        The target category. When omitted, ``query`` must be given and the precision is mixed
        over the query's uncertain category (eq. 13).
    query : hashable, optional
        The query item's id (used for the mixture when ``category`` is omitted). Items are
        independent, as in the paper's equations: the query item, if it is in ``results``,
        counts with p(ω|query) in every component. :func:`fuzzytruth.evaluate` with
        ``exclude_query=False`` instead conditions each component on the query's own label
        (the item is then in ω for sure), the law of its annotator worlds.
    weights : {"direct", "literal"} or mapping
        Mixture weights; see :func:`query_category_weights`.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_figure1
    >>> mem = santini_figure1().membership
    >>> d = precision_distribution(mem, ["fig1"], category="people")
    >>> d.to_frame()
       value  probability
    0    0.0          0.4
    1    1.0          0.6
    """
    rows = _result_rows(membership, results)
    categories, mix = _targets(membership, category, query, weights)
    n = rows.size
    values = np.arange(n + 1) / n
    components = [
        Distribution.from_pmf(values, poibin.pmf(membership.matrix[rows, c])) for c in categories
    ]
    return components[0] if len(components) == 1 else Distribution.mixture(components, mix)


def recall_distribution(
    membership: Membership,
    results: Sequence[Hashable],
    *,
    category: Hashable | None = None,
    query: Hashable | None = None,
    weights: Weights = "direct",
    recall_form: RecallForm = "exact",
    exclude_query: bool = True,
) -> Distribution:
    """Distribution of the recall of a result list (Santini eq. 12, 14, or exact).

    Parameters
    ----------
    membership, results, category, query, weights
        As in :func:`precision_distribution`.
    recall_form : {"exact", "expected_size"}
        ``"exact"`` (default, the same as :func:`fuzzytruth.evaluate`'s recall): TP / (TP + FN)
        over the unreturned items, with the probability that it is undefined in
        ``p_undefined``; ``"expected_size"``: k / |ω| as printed in the paper (eq. 12). See
        the module docstring.
    exclude_query : bool
        When True (default) and ``query`` is given, the query item is left out of |ω| and of the
        unreturned items (shape benchmarks do not count the query in its own class). It is
        still counted if it appears in ``results`` (independently of the query's category:
        see ``query`` in :func:`precision_distribution`).

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_figure1
    >>> mem = santini_figure1().membership

    As printed (eq. 12) the denominator is the expected size |people| = 0.6, so a world in
    which the image is a person gives recall 1/0.6 > 1:

    >>> recall_distribution(mem, ["fig1"], category="people", recall_form="expected_size"
    ...                     ).support.round(4).tolist()
    [0.0, 1.6667]

    The exact recall is 1 whenever it is defined; it is undefined (nothing relevant anywhere)
    with probability 0.4:

    >>> d = recall_distribution(mem, ["fig1"], category="people", recall_form="exact")
    >>> d.support.tolist(), d.p_undefined
    ([1.0], 0.4)
    """
    exclude_query = check_flag("exclude_query", exclude_query)
    check_choice("recall_form", recall_form, RECALL_FORMS)
    rows = _result_rows(membership, results)
    categories, mix = _targets(membership, category, query, weights)
    excluded = _excluded_rows(membership, query, exclude_query)
    components = []
    for c in categories:
        p_returned = membership.matrix[rows, c]
        tp = poibin.pmf(p_returned)
        if recall_form == "expected_size":
            size = _size_without(membership, c, excluded)
            components.append(_ratio_to_size(tp, size))
        else:
            fn = poibin.pmf(_unreturned(membership, rows, excluded)[:, c])
            components.append(_exact_recall(tp, fn))
    return components[0] if len(components) == 1 else Distribution.mixture(components, mix)


@dataclass(frozen=True, eq=False)
class CutoffDistributions:
    """Precision and recall distributions at every cutoff 1..n of a result list.

    Attributes
    ----------
    cutoffs : numpy.ndarray
        1, 2, …, n.
    precision, recall : tuple of Distribution
        One per cutoff.
    recall_form : str
        Which recall was computed.
    """

    def __repr__(self) -> str:
        return (
            f"CutoffDistributions({len(self.cutoffs)} cutoffs, recall_form={self.recall_form!r})"
        )


    cutoffs: np.ndarray
    precision: tuple[Distribution, ...]
    recall: tuple[Distribution, ...]
    recall_form: str

    def to_frame(self, confidence_level: float = 0.95) -> pd.DataFrame:
        """Tidy bands: ``cutoff, measure, mean, truth_std, truth_low, truth_high,
        confidence_level, p_undefined`` (one row per cutoff and measure): each value's mean,
        standard deviation and central interval over the truths, named as in
        :meth:`fuzzytruth.evaluation.Evaluation.to_frame`."""
        rows = []
        for measure, dists in (("precision", self.precision), ("recall", self.recall)):
            for cutoff, d in zip(self.cutoffs, dists, strict=True):
                s = d.summary(confidence_level)
                rows.append(
                    {
                        "cutoff": int(cutoff),
                        "measure": measure,
                        "mean": s["mean"],
                        **{column: s[name] for name, column in TRUTH_COLUMNS.items()},
                        "confidence_level": confidence_level,
                        "p_undefined": s["p_undefined"],
                    }
                )
        return pd.DataFrame(rows)


def precision_recall_curve(
    membership: Membership,
    results: Sequence[Hashable],
    *,
    category: Hashable | None = None,
    query: Hashable | None = None,
    weights: Weights = "direct",
    recall_form: RecallForm = "exact",
    exclude_query: bool = True,
) -> CutoffDistributions:
    """Precision and recall distributions at every cutoff of the list: the P–R curve as bands.

    The distribution of k at every cutoff comes from one pass of the Poisson-binomial
    recursion (:func:`fuzzytruth.uncertain.poibin.prefix_pmfs`). Arguments as in
    :func:`recall_distribution`.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_illustrative
    >>> ex = santini_illustrative()
    >>> curve = precision_recall_curve(ex.membership, ex.results, category="people")
    >>> bands = curve.to_frame()
    >>> bands.query("cutoff == 1 and measure == 'precision'")["mean"].round(2).tolist()
    [0.8]
    """
    exclude_query = check_flag("exclude_query", exclude_query)
    check_choice("recall_form", recall_form, RECALL_FORMS)
    rows = _result_rows(membership, ordered_ids(results, "results", "of the ranking"))
    categories, mix = _targets(membership, category, query, weights)
    excluded = _excluded_rows(membership, query, exclude_query)
    n = rows.size
    cutoffs = np.arange(1, n + 1)
    per_category_precision, per_category_recall = [], []
    for c in categories:
        p_list = membership.matrix[rows, c]
        prefixes = poibin.prefix_pmfs(p_list)  # (n, n + 1)
        values = np.arange(n + 1)
        per_category_precision.append(
            [Distribution.from_pmf(values / i, prefixes[i - 1]) for i in cutoffs]
        )
        if recall_form == "expected_size":
            size = _size_without(membership, c, excluded)
            per_category_recall.append([_ratio_to_size(prefixes[i - 1], size) for i in cutoffs])
        else:
            outside = poibin.pmf(_unreturned(membership, rows, excluded)[:, c])
            suffixes = poibin.prefix_pmfs(p_list[::-1])  # row j: the last j + 1 items
            curve = []
            for i in cutoffs:
                below = suffixes[n - i - 1, : n - i + 1] if i < n else np.ones(1)
                curve.append(_exact_recall(prefixes[i - 1, : i + 1], np.convolve(outside, below)))
            per_category_recall.append(curve)
    if len(categories) == 1:
        precision, recall = per_category_precision[0], per_category_recall[0]
    else:
        precision = [
            Distribution.mixture(list(ds), mix) for ds in zip(*per_category_precision, strict=True)
        ]
        recall = [
            Distribution.mixture(list(ds), mix) for ds in zip(*per_category_recall, strict=True)
        ]
    return CutoffDistributions(cutoffs, tuple(precision), tuple(recall), recall_form)


# ---------------------------------------------------------------------- helpers
def _check_membership(given: object) -> None:
    """A ValueError when ``given`` is not a :class:`Membership`, with how to get one: the
    ``membership`` of an object that has one (a fitted truth model, the bundled examples),
    Membership.from_annotations of labels, from_probabilities of a table."""
    if isinstance(given, Membership):
        return
    if isinstance(getattr(given, "membership", None), Membership):
        hint = ": pass its .membership"
    elif type(given).__name__ == "Annotations":
        hint = ": the annotators' shares are Membership.from_annotations(annotations)"
    elif isinstance(given, pd.DataFrame):
        hint = (": an items × categories table of probabilities is "
                "Membership.from_probabilities(table); a table of labels, "
                "Membership.from_annotations(Annotations.from_frame(table, taxonomy=...))")
    else:
        hint = ""
    check_type(given, "membership", Membership, hint)


def _result_rows(membership: Membership, results: Sequence[Hashable]) -> np.ndarray:
    _check_membership(membership)
    results = id_list(results, "results", "item")
    if not results:
        raise ValueError("results must not be empty: precision of an empty list is undefined")
    rows = membership.item_index(results)  # matched as text: 2 and "2" are one item
    again = pd.Index(rows).duplicated()
    if again.any():
        shown = list(dict.fromkeys(results[i] for i in np.flatnonzero(again)))
        raise ValueError(f"results must not repeat an item; repeated: {_show(shown)}")
    return rows


def _targets(
    membership: Membership, category: Hashable | None, query: Hashable | None, weights: Weights
) -> tuple[np.ndarray, np.ndarray]:
    if category is not None:
        return membership.taxonomy.indices([category]), np.ones(1)
    if query is None:
        raise ValueError(
            "give the target category (category=...) or the query item (query=...) whose "
            "uncertain category the distribution is mixed over"
        )
    w = query_category_weights(membership, query, weights=weights)
    return membership.taxonomy.indices(w.index), w.to_numpy()


def _excluded_rows(
    membership: Membership, query: Hashable | None, exclude_query: bool
) -> np.ndarray:
    if exclude_query and query is not None:
        return membership.item_index([query])
    return np.empty(0, dtype=np.intp)


def _size_without(membership: Membership, column: int, excluded: np.ndarray) -> float:
    """Expected size |ω| (eq. 9) of the category in ``column``, leaving out ``excluded`` rows."""
    return float(membership.matrix[:, column].sum() - membership.matrix[excluded, column].sum())


def _unreturned(membership: Membership, rows: np.ndarray, excluded: np.ndarray) -> np.ndarray:
    mask = np.ones(len(membership.items), dtype=bool)
    mask[rows] = False
    mask[excluded] = False
    return membership.matrix[mask]


def _ratio_to_size(pmf_k: np.ndarray, size: float) -> Distribution:
    """k / |ω|; undefined with probability 1 when |ω| = 0 (no member anywhere)."""
    if size <= 0:
        return Distribution.undefined()
    return Distribution.from_pmf(np.arange(pmf_k.size) / size, pmf_k)


def _exact_recall(pmf_tp: np.ndarray, pmf_fn: np.ndarray) -> Distribution:
    """TP / (TP + FN) for independent TP and FN; (0, 0) is the undefined event."""
    tp = np.arange(pmf_tp.size)[:, None]
    fn = np.arange(pmf_fn.size)[None, :]
    joint = pmf_tp[:, None] * pmf_fn[None, :]
    total = tp + fn
    defined = total > 0
    values = np.divide(tp, total, out=np.zeros(joint.shape), where=defined)
    return Distribution.from_pmf(values[defined], joint[defined], p_undefined=float(joint[0, 0]))
