"""Shared building blocks: sparse label counts per item, the canonical item order, disagreement
metrics, bootstrap settings.

Everything in :mod:`fuzzytruth.collection` starts from one sparse ``(n_items, n_nodes)`` table
of label counts (how many annotators of each item chose each node directly): a CSR array with
one stored value per (item, label) that occurs, so its size grows with the number of labels
given, never with items × nodes.

**Row order never matters.** Every analysis puts the items (and annotators) in one canonical
order first, their ids sorted (:func:`fuzzytruth._order.sorted_order`; Annotations keep
that order themselves), so the result of an analysis, bootstrap
replicates included, is the same bits whatever the order of the rows of the annotation table.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Hashable
from numbers import Real
from typing import Literal, NamedTuple, TypeAlias

import numpy as np
import pandas as pd
from scipy import sparse

from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import (
    check_confidence_level,
    check_memory_budget,
    check_n_resamples,
    check_table_fits,
)
from fuzzytruth.annotations import Annotations, labels_hint
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.membership import Membership

MetricName = Literal["nominal", "path", "squared_path"]
Metric: TypeAlias = MetricName | np.ndarray | Callable[[Hashable, Hashable], float]
_METRIC_NAMES = ("nominal", "path", "squared_path")


def require_annotations(
    data: object, *, analysis: str, name: str = "annotations", accepts: str = "an Annotations"
) -> Annotations:
    """``data`` as Annotations, or a ValueError naming parameter ``name``, what it ``accepts``
    and what it got, that says why raw labels are needed when it got a Membership."""
    if isinstance(data, Annotations):
        return data
    if isinstance(data, Membership):
        raise ValueError(
            f"{analysis} needs raw labels (who labelled what): pass {accepts} as {name}, "
            "not a Membership. A Membership keeps only shares per item, not the number of "
            "annotators or their individual labels; category_reliability accepts a Membership."
        )
    raise ValueError(f"{name} must be {accepts}; got {type(data).__name__}{labels_hint(data)}")


# ---------------------------------------------------------------------------- label counts
class LabelCounts(NamedTuple):
    """A sparse label-count table (items × taxonomy nodes, rows in sorted item-id order; see
    :func:`counts_of`) and its taxonomy: what the agreement coefficients read. The Dask back
    end assembles one from item partitions and passes it where Annotations go."""

    counts: sparse.csr_array
    taxonomy: Taxonomy


def label_counts(
    annotations: Annotations, *, analysis: str = "agreement", name: str = "annotations"
) -> sparse.csr_array:
    """``(n_items, n_nodes)`` sparse float counts of annotators choosing each node directly,
    rows in :attr:`Annotations.items` order.

    Annotator weights are ignored (agreement is about the raw labels). Votes split between
    several labels (``duplicates="split"``) are an error naming ``analysis`` and the
    parameter ``name``: agreement coefficients are defined for one label per annotator and
    item.

    Examples
    --------
    >>> from fuzzytruth.datasets import santini_figure1
    >>> data = santini_figure1()  # one item, five annotators
    >>> counts = label_counts(data.annotations)
    >>> names = data.taxonomy.nodes
    >>> counts.shape, {names[j]: float(c) for j, c in zip(counts.indices, counts.data)}
    ((1, 8), {'people': 2.0, 'crowd': 1.0, 'city': 2.0})
    """
    item, annotator, label, _ = annotations.codes()
    if not annotations.one_label_per_pair():
        split = annotations.to_frame()["weight"].to_numpy() < 1
        n_split = len(set(zip(item[split], annotator[split], strict=True)))
        raise ValueError(
            f"{analysis} needs one label per (item, annotator); got {name} that split the "
            f"votes of {n_split} (item, annotator) pair(s) between several labels "
            "(duplicates='split'): rebuild them with duplicates='first' or 'last'"
        )
    shape = (annotations.n_items, len(annotations.taxonomy))
    counts = sparse.coo_array((np.ones(len(item)), (item, label)), shape=shape).tocsr()
    counts.sum_duplicates()
    return counts


def counts_of(data: object, *, analysis: str) -> LabelCounts:
    """The label-count table of Annotations, rows in sorted item-id order (or ``data`` itself
    when it is a LabelCounts already, whose rows are in that order)."""
    if isinstance(data, LabelCounts):
        return data
    annotations = require_annotations(data, analysis=analysis)  # items in sorted order
    return LabelCounts(label_counts(annotations, analysis=analysis), annotations.taxonomy)


# ---------------------------------------------------------------------------- metrics
def _check_table_fits(metric: str, n_labels: int, memory: float | None = None) -> None:
    """The (labels x labels) distances of a taxonomy metric fit in ``memory`` (default: the
    physical memory; as floats, with the integer path lengths they come from), else an
    error naming their size: 50,000 labels made a 20 GB table and the process was killed.
    (Only a DAG's path metrics need the table: on a tree they come from the tree,
    :class:`~fuzzytruth.collection._label_metric.TreePath`.)

    >>> _check_table_fits("path", 50_000, memory=24e9)
    Traceback (most recent call last):
    ...
    ValueError: metric='path' compares every pair of the 50000 labels used: (labels x labels) \
distance tables of 40 GB, more than the 24 GB of memory; metric='nominal' needs none, nor does \
a tree (this taxonomy is a DAG)
    """
    check_table_fits(16.0 * n_labels * n_labels,
                     f"metric={metric!r} compares every pair of the {n_labels} labels used: "
                     "(labels x labels) distance tables",
                     "; metric='nominal' needs none, nor does a tree (this taxonomy is a DAG)",
                     memory=memory)


def metric_matrix(
    metric: Metric,
    taxonomy: Taxonomy,
    nodes: np.ndarray | None = None,
    *,
    memory_budget: float = MEMORY_BUDGET,
) -> np.ndarray:
    """The disagreement matrix δ of a metric name, matrix or callable, between ``nodes``
    (column indices of taxonomy nodes; default all of them).

    ``"nominal"``: 0 on the diagonal, 1 elsewhere. ``"path"``: number of edges on the shortest
    path between the two labels (:meth:`Taxonomy.distance_matrix` over ``nodes``, whose cost
    grows with ``len(nodes) × n_nodes``). ``"squared_path"``: its square. A matrix must be
    square over the taxonomy's nodes, finite, non-negative, symmetric and zero on the diagonal;
    a callable ``f(a, b)`` is evaluated on every pair of ``nodes`` (and must be so between
    them). A DataFrame whose rows and columns are labelled by node names is read by those
    labels, in any order. Symmetric means to rounding (:func:`numpy.allclose`), and the
    symmetric part (δ + δᵀ) / 2 is returned: Krippendorff's sums count the pairs (a, b) and (b,
    a) alike, so that is the metric they use, whichever triangle a sum reads.

    Examples
    --------
    >>> tax = Taxonomy.from_nested({"all": {"a": ["a1", "a2"], "b": None}})
    >>> metric_matrix("path", tax, tax.indices(["a1", "a2", "b"])).tolist()
    [[0.0, 2.0, 3.0], [2.0, 0.0, 3.0], [3.0, 3.0, 0.0]]
    """
    n = len(taxonomy)
    every_node = nodes is None
    nodes = np.arange(n) if every_node else np.asarray(nodes, dtype=np.intp)
    kinds = f"one of {_METRIC_NAMES}, a (n_nodes, n_nodes) matrix or a callable"
    if isinstance(metric, str):
        if metric not in _METRIC_NAMES:
            raise ValueError(f"metric must be {kinds}; got {metric!r}")
        if metric == "nominal":
            return 1.0 - np.eye(len(nodes))
        _check_table_fits(metric, len(nodes))
        # between the nodes asked for only: no (n_nodes, n_nodes) matrix for a few labels
        between = None if every_node else [taxonomy.nodes[j] for j in nodes]
        dist = taxonomy.distance_matrix(between, memory_budget=memory_budget).astype(float)
        return dist if metric == "path" else dist**2
    if callable(metric):
        names = [taxonomy.nodes[j] for j in nodes]
        delta = np.array([[_metric_value(metric, a, b) for b in names] for a in names]).reshape(
            len(nodes), len(nodes)
        )
    else:
        names = list(taxonomy.nodes)
        try:
            delta = np.array(metric, dtype=float)
        except (TypeError, ValueError):
            delta = None
        if isinstance(metric, pd.DataFrame) and delta is not None:
            delta = _by_labels(metric, delta, taxonomy)
        if delta is None or delta.ndim != 2:
            raise ValueError(f"metric must be {kinds}; got {reprlib.repr(metric)}")
        if delta.shape != (n, n):
            raise ValueError(
                f"metric matrix must have shape (n_nodes, n_nodes) = {(n, n)}; got {delta.shape}"
            )
    offenders = {
        "values must be finite and >= 0": ~(delta >= 0) | ~np.isfinite(delta),
        "must be 0 between a label and itself (zero diagonal)": np.diag(np.diag(delta) != 0),
        "must be symmetric: metric(a, b) == metric(b, a)": ~np.isclose(delta, delta.T),
    }
    for rule, bad in offenders.items():
        if bad.any():
            i, k = np.argwhere(bad)[0]
            got = (f"{float(delta[i, i])!r} between {names[i]!r} and itself" if i == k else
                   f"{float(delta[i, k])!r} for ({names[i]!r}, {names[k]!r})")
            if rule.endswith("metric(b, a)"):
                got += f" and {float(delta[k, i])!r} for ({names[k]!r}, {names[i]!r})"
            raise ValueError(f"metric {rule}; got {got}")
    delta = delta if callable(metric) else delta[np.ix_(nodes, nodes)]
    # halves added, not a sum halved: two entries near the largest float overflowed as a sum
    # (the same bits wherever the sum did not: halving is exact above the subnormals)
    return np.where(delta == delta.T, delta, 0.5 * delta + 0.5 * delta.T)


def _by_labels(frame: pd.DataFrame, values: np.ndarray, taxonomy: Taxonomy) -> np.ndarray:
    """A metric table's values in taxonomy order, read by its row and column labels.

    A table labelled with node names may list them in any order (read by position it gave
    another metric, silently); each node must label one row and one column. A table without
    labels (both axes ``0 .. n-1`` and not node names) is read by position, as an array."""
    n = len(taxonomy)
    unlabelled = (
        frame.index.equals(pd.RangeIndex(n)) and frame.columns.equals(pd.RangeIndex(n))
        and not any(i in taxonomy for i in range(n))
    )
    if unlabelled or values.shape != (n, n):
        return values  # the shape check follows
    where = []
    for axis, labels in (("row", frame.index), ("column", frame.columns)):
        try:
            positions = taxonomy.indices(labels)
        except (KeyError, ValueError) as err:
            raise ValueError(f"metric table {axis} labels must be taxonomy nodes: {err}") from None
        again = pd.Index(positions).duplicated()
        if again.any():
            raise ValueError(
                f"metric table must label one {axis} per node; node "
                f"{taxonomy.nodes[positions[again.argmax()]]!r} labels several"
            )
        where.append(positions)
    delta = np.empty((n, n))
    delta[np.ix_(*where)] = values
    return delta


def _metric_value(metric: Callable[[Hashable, Hashable], float], a: Hashable,
                  b: Hashable) -> float:
    """``metric(a, b)`` as a float, or a ValueError naming the pair when it is not a number."""
    value = metric(a, b)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(
            f"metric(a, b) must return a number; got {value!r} for ({a!r}, {b!r})"
        )
    return float(value)


# ---------------------------------------------------------------------------- settings
def check_bootstrap(n_resamples: int, confidence_level: float, memory_budget: float) -> float:
    """ValueErrors naming ``n_resamples``, ``confidence_level`` or ``memory_budget``; the
    confidence level as :func:`~fuzzytruth._validation.check_confidence_level` reads it (a
    float32 0.95 is 0.95), which the results keep."""
    check_n_resamples(n_resamples, minimum=0)
    level = check_confidence_level(confidence_level)
    check_memory_budget(memory_budget)
    return level


def format_estimate(value: float, low: float, high: float) -> str:
    """``"0.430 [0.304, 0.525]"``, or ``"0.430"`` without an interval, for short reprs.

    Examples
    --------
    >>> format_estimate(0.43024, 0.304, 0.5251), format_estimate(0.43, np.nan, np.nan)
    ('0.430 [0.304, 0.525]', '0.430')
    """
    if np.isnan(low) and np.isnan(high):
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"
