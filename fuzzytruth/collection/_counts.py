"""Shared building blocks: label counts per item, disagreement metrics, bootstrap counts.

Everything in :mod:`fuzzytruth.collection` starts from one ``(n_items, n_nodes)`` matrix of
label counts (how many annotators of each item chose each node directly), built once from the
codes of an :class:`~fuzzytruth.annotations.Annotations`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Literal, NamedTuple, TypeAlias

import numpy as np

from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._validation import check_confidence_level
from fuzzytruth.annotations import Annotations
from fuzzytruth.taxonomy import Taxonomy
from fuzzytruth.truth.membership import Membership

MetricName = Literal["nominal", "path", "squared_path"]
Metric: TypeAlias = MetricName | np.ndarray | Callable[[Hashable, Hashable], float]
_METRIC_NAMES = ("nominal", "path", "squared_path")


def require_annotations(data: object, *, analysis: str, name: str = "annotations") -> Annotations:
    """``data`` as Annotations, or a ValueError naming parameter ``name`` that says why raw
    labels are needed."""
    if isinstance(data, Annotations):
        return data
    if isinstance(data, Membership):
        raise ValueError(
            f"{analysis} needs raw labels (who labelled what): pass an Annotations as {name}, "
            "not a Membership. A Membership keeps only shares per item, not the number of "
            "annotators or their individual labels; category_reliability accepts a Membership."
        )
    allowed = "an Annotations or a Membership" if name == "data" else "an Annotations"
    raise ValueError(f"{name} must be {allowed}; got {type(data).__name__}")


class LabelCounts(NamedTuple):
    """A label-count table (:func:`label_counts`: items × taxonomy nodes, rows in the
    annotations' item order) and its taxonomy: what the agreement coefficients read. The Dask
    back end assembles one from item partitions and passes it where Annotations go."""

    counts: np.ndarray
    taxonomy: Taxonomy


def counts_of(data: object, *, analysis: str) -> LabelCounts:
    """The label-count table of Annotations (or ``data`` itself when it is one already)."""
    if isinstance(data, LabelCounts):
        return data
    annotations = require_annotations(data, analysis=analysis)
    return LabelCounts(label_counts(annotations), annotations.taxonomy)


def label_counts(annotations: Annotations) -> np.ndarray:
    """``(n_items, n_nodes)`` float counts of annotators choosing each node directly.

    Annotator weights are ignored (agreement is about the raw labels). Votes split between
    several labels (``duplicates="split"``) are an error: agreement coefficients are defined
    for one label per annotator and item.
    """
    item, _, label, _ = annotations.codes()
    if not annotations.one_label_per_pair():
        raise ValueError(
            "agreement needs one label per (item, annotator); these annotations split some "
            "votes between several labels (duplicates='split'): rebuild them with "
            "duplicates='first' or 'last'"
        )
    n_nodes = len(annotations.taxonomy)
    cells = item.astype(np.int64) * n_nodes + label
    counts = np.bincount(cells, minlength=annotations.n_items * n_nodes)
    return counts.reshape(annotations.n_items, n_nodes).astype(float)


def metric_matrix(metric: Metric, taxonomy: Taxonomy) -> np.ndarray:
    """The ``(n_nodes, n_nodes)`` disagreement matrix δ of a metric name, matrix or callable.

    ``"nominal"``: 0 on the diagonal, 1 elsewhere. ``"path"``: number of edges on the shortest
    path between the two labels (:meth:`Taxonomy.distance_matrix`). ``"squared_path"``: its
    square. A matrix must be square over the taxonomy's nodes, finite, non-negative, symmetric
    and zero on the diagonal; a callable ``f(a, b)`` is evaluated on every pair of node names.
    """
    n = len(taxonomy)
    if isinstance(metric, str):
        if metric not in _METRIC_NAMES:
            raise ValueError(
                f"metric must be one of {_METRIC_NAMES}, a (n_nodes, n_nodes) matrix or a "
                f"callable; got {metric!r}"
            )
        if metric == "nominal":
            return 1.0 - np.eye(n)
        dist = taxonomy.distance_matrix().astype(float)
        return dist if metric == "path" else dist**2
    if callable(metric):
        nodes = taxonomy.nodes
        delta = np.array([[float(metric(a, b)) for b in nodes] for a in nodes])
    else:
        delta = np.array(metric, dtype=float)
    if delta.shape != (n, n):
        raise ValueError(
            f"metric matrix must have shape (n_nodes, n_nodes) = {(n, n)}; got {delta.shape}"
        )
    if not np.all(np.isfinite(delta)) or delta.min() < 0:
        raise ValueError("metric values must be finite and >= 0")
    if np.any(np.diag(delta) != 0):
        raise ValueError("metric must be 0 between a label and itself (zero diagonal)")
    if not np.allclose(delta, delta.T):
        raise ValueError("metric must be symmetric: metric(a, b) == metric(b, a)")
    return delta


def collapse_matrix(taxonomy: Taxonomy, depth: int) -> np.ndarray:
    """``(n_nodes, n_nodes)`` 0/1 matrix sending each node to its ancestor at ``depth``.

    A node shallower than ``depth`` is sent to itself (:meth:`Taxonomy.ancestor_at_depth`), so
    ``counts @ collapse_matrix(tax, d)`` are the label counts after collapsing to depth ``d``.
    """
    n = len(taxonomy)
    target = taxonomy.indices(taxonomy.ancestor_at_depth(node, depth) for node in taxonomy)
    out = np.zeros((n, n))
    out[np.arange(n), target] = 1.0
    return out


def check_bootstrap(
    n_resamples: int, confidence_level: float, memory_budget: float = MEMORY_BUDGET
) -> None:
    """ValueErrors naming ``n_resamples``, ``confidence_level`` or ``memory_budget``."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise ValueError(f"n_resamples must be an integer >= 0; got {n_resamples!r}")
    if n_resamples < 0:
        raise ValueError(f"n_resamples must be an integer >= 0; got {n_resamples!r}")
    check_confidence_level(confidence_level)
    if not (isinstance(memory_budget, (int, float)) and memory_budget > 0):
        raise ValueError(f"memory_budget must be a number of bytes > 0; got {memory_budget!r}")


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
