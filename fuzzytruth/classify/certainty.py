"""Rank-k annotation certainty of the truth itself (Stutz et al. 2023).

Over the truth's plausibility worlds (a PrIRN Dirichlet sample, a label model's posterior
under drawn parameters, or a point posterior repeated), the rank-k class of each world's
plausibility vector is found (ties: the earlier class, as ``jax.lax.top_k``), lifted to the
taxonomy ``level`` asked for (conditions, or risk groups), and counted: the *frequencies* say
how often each group is the item's rank-k answer, and the *certainty* is the largest of them
(1: every plausible truth agrees; near 1 / n_groups: no agreement at all). It describes the
truth, not a classifier: how far an accuracy computed against the truth can be trusted per
item.

Examples
--------
Stutz et al.'s test (``eval_utils_test.py``): ten samples whose argmax is class 2 four times,
1 three times, 0 twice and 3 once.

>>> samples = np.array([[[0, .1, .9, 0]] * 4 + [[0, .9, .1, 0], [0, .9, 0, .1], [0, .9, .1, 0],
...                      [.9, .1, 0, 0], [.9, 0, 0, .1], [0, 0, .1, .9]]])
>>> rank_k_frequencies(samples, k=1).tolist()
[[0.2, 0.3, 0.4, 0.1]]
>>> rank_k_frequencies(samples, k=2).tolist()
[[0.0, 0.5, 0.3, 0.2]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._random import draw_seed
from fuzzytruth._resampling import MEMORY_BUDGET
from fuzzytruth._t_interval import t_interval
from fuzzytruth._validation import (
    check_confidence_level,
    check_int,
    check_n_worlds,
    significance_level,
)
from fuzzytruth.classify.targets import _lift, class_truth

__all__ = ["AnnotationCertainty", "annotation_certainty", "rank_k_frequencies"]


def rank_k_frequencies(plausibilities: np.ndarray, *, k: int = 1,
                       groups: np.ndarray | None = None,
                       n_groups: int | None = None) -> np.ndarray:
    """``(n_items, n_groups)`` how often each group holds the rank-k class of a sample.

    Parameters
    ----------
    plausibilities : numpy.ndarray
        ``(n_items, n_samples, n_classes)`` plausibility samples.
    k : int
        The rank (1 = the most plausible class; ties to the earlier class).
    groups : numpy.ndarray, optional
        ``(n_classes,)`` the group of each class (default: each class its own group).
    n_groups : int, optional
        Number of groups (default ``groups.max() + 1``).
    """
    k = check_int("k", k, minimum=1)
    x = np.asarray(plausibilities, dtype=np.float64)
    if x.ndim != 3:
        raise ValueError("plausibilities must be a 3-D array (n_items, n_samples, n_classes); "
                         f"got shape {x.shape}")
    n_classes = x.shape[2]
    if groups is not None and np.shape(groups) != (n_classes,):
        raise ValueError(f"groups must give one group per class, shape ({n_classes},); got "
                         f"shape {np.shape(groups)}")
    if k > n_classes:
        raise ValueError(f"k must be at most the number of classes ({n_classes}); got {k}")
    order = np.argsort(-x, axis=2, kind="stable")
    ranked = order[:, :, k - 1]
    return _frequencies(ranked, groups, n_groups, n_classes)


def _frequencies(ranked: np.ndarray, groups: np.ndarray | None, n_groups: int | None,
                 n_classes: int) -> np.ndarray:
    """``ranked`` ``(n_items, n_samples)`` class positions -> group frequencies per item."""
    groups = np.arange(n_classes) if groups is None else np.asarray(groups)
    n_groups = int(groups.max()) + 1 if n_groups is None else n_groups
    n_items, n_samples = ranked.shape
    flat = np.arange(n_items)[:, None] * n_groups + groups[ranked]
    counts = np.bincount(flat.ravel(), minlength=n_items * n_groups)
    return counts.reshape(n_items, n_groups) / n_samples


@dataclass(frozen=True, eq=False)
class AnnotationCertainty:
    """Rank-k annotation certainty of a truth (:func:`annotation_certainty`).

    Attributes
    ----------
    frequencies : pandas.DataFrame
        Items × groups: the share of worlds whose rank-k class falls in each group.
    k : int
        The rank.
    level : int or None
        The taxonomy depth of the groups (None: the truth's classes).
    n_worlds : int
        Worlds counted.
    """

    frequencies: pd.DataFrame
    k: int
    level: int | None
    n_worlds: int

    @property
    def certainty(self) -> pd.Series:
        """Each item's certainty: the largest frequency."""
        return self.frequencies.max(axis=1).rename("certainty")

    @property
    def mode(self) -> pd.Series:
        """Each item's most frequent group (the first on ties)."""
        return self.frequencies.idxmax(axis=1).rename("mode")

    @property
    def measure(self) -> str:
        """Its name in a table beside classifiers' measures: ``certainty@k``, with
        ``(level=...)`` when the groups are a taxonomy depth."""
        return f"certainty{'' if self.level is None else f'(level={self.level})'}@{self.k}"

    def summary(self, confidence_level: float = 0.95) -> pd.Series:
        """The mean certainty over the items with its t interval over them (the items as
        the sampling unit, as for a classifier's mean).

        Returns ``measure, value, ci_low, ci_high, n_items, n_worlds, confidence_level,
        method``; ``method`` is ``"worlds"``, or ``"exact"`` when the truth is one point (its
        one world is the truth).

        Examples
        --------
        >>> frequencies = pd.DataFrame({"a": [1.0, 0.5, 0.75], "b": [0.0, 0.5, 0.25]})
        >>> row = AnnotationCertainty(frequencies, k=1, level=None, n_worlds=4).summary()
        >>> row["measure"], row["value"], row["n_items"]
        ('certainty@1', 0.75, 3)
        """
        level = check_confidence_level(confidence_level)
        values = self.certainty.to_numpy(dtype=np.float64)
        _, low, high = t_interval(values[None, :], "two-sided", significance_level(level))
        return pd.Series({
            "measure": self.measure, "value": float(values.mean()), "ci_low": float(low[0]),
            "ci_high": float(high[0]), "n_items": len(values), "n_worlds": self.n_worlds,
            "confidence_level": level, "method": "worlds" if self.n_worlds > 1 else "exact",
        })


def annotation_certainty(
    truth: Any,
    *,
    k: int = 1,
    level: int | None = None,
    n_worlds: int = 1000,
    rng: np.random.Generator | int | None = None,
    memory_budget: float = MEMORY_BUDGET,
) -> AnnotationCertainty:
    """Rank-k annotation certainty of a categorical truth (module docstring).

    Parameters
    ----------
    truth : Membership or FittedTruth
        A categorical truth (annotator shares, a label model, IRN/PrIRN). The classes ranked
        are a fitted truth's classes; for a Membership, the labels the annotators used (its
        nodes with a direct share, the classes of
        :class:`~fuzzytruth.truth.models.Shares`): the root and the other ancestors nobody
        chose are no class, they hold every label (the closure's probability 1).
    k : int
        The rank.
    level : int, optional
        Taxonomy depth of the groups (e.g. 1 for the dermatology risk groups).
    n_worlds : int
        Plausibility worlds drawn (one when the truth's plausibilities are a point).
    rng : numpy.random.Generator or int, optional
        The one source of randomness.
    memory_budget : float
        Bytes of working memory per block of worlds.

    Examples
    --------
    >>> from fuzzytruth.datasets import dermatology
    >>> from fuzzytruth.truth.models import PrIRN
    >>> data = dermatology()
    >>> fit = PrIRN(temperature=1).fit(data.rankings)
    >>> result = annotation_certainty(fit, level=1, n_worlds=200, rng=0)
    >>> list(result.frequencies.columns)
    ['low risk', 'medium risk', 'high risk']
    >>> bool(result.certainty.between(1 / 3, 1).all())
    True

    A Membership ranks the labels used: item ``y``'s rank-2 class is the first of the tied
    zero shares, ``cat``, not the taxonomy's root.

    >>> from fuzzytruth import Annotations, Membership, Taxonomy
    >>> df = pd.DataFrame({"item_id": ["x", "x", "y"], "annotator_id": ["a", "b", "a"],
    ...                    "label": ["cat", "dog", "dog"]})
    >>> ann = Annotations.from_frame(df, taxonomy=Taxonomy.flat(["cat", "dog"]))
    >>> annotation_certainty(Membership.from_annotations(ann), k=2).frequencies
    group    cat  dog
    item_id
    x        0.0  1.0
    y        1.0  0.0
    """
    k = check_int("k", k, minimum=1)
    n_worlds = check_n_worlds(n_worlds, minimum=1)
    bound = class_truth(truth)
    if bound.kind.crisp:
        raise ValueError("annotation certainty needs a categorical truth (a Membership or a "
                         "fitted truth model); got label sets")
    prepared = bound.prepare(list(bound.items))
    columns = _class_columns(truth, prepared)
    nodes = [prepared.nodes[c] for c in columns]
    tax = prepared.taxonomy
    lifted = _lift(tax, level)[tax.indices(nodes)]
    group_nodes, groups = np.unique(lifted, return_inverse=True)
    if k > len(nodes):
        raise ValueError(f"k must be at most the number of classes ({len(nodes)}); got {k}")
    seed = draw_seed(rng)
    if prepared.point is not None:
        order = np.argsort(-prepared.point[:, columns], axis=1, kind="stable")[:, k - 1]
        freq = _frequencies(order[:, None], groups, len(group_nodes), len(nodes))
        used = 1
    elif k == 1 and hasattr(truth, "sample_top1"):
        top = prepared.top1(np.arange(n_worlds), seed, memory_budget)
        freq = _frequencies(top.T, groups, len(group_nodes), len(nodes))
        used = n_worlds
    else:
        counts = np.zeros((prepared.n_items, len(group_nodes)))
        for _, block in prepared.plausibility_blocks(np.arange(n_worlds), seed, memory_budget):
            ranked = np.argsort(-block, axis=2, kind="stable")[:, :, k - 1]
            counts += _frequencies(ranked.T, groups, len(group_nodes),
                                   len(nodes)) * len(block)
        freq = counts / n_worlds
        used = n_worlds
    names = [str(tax.nodes[g]) for g in group_nodes]
    frame = pd.DataFrame(freq, index=pd.Index(bound.items, name="item_id"),
                         columns=pd.Index(names, name="group"))
    ordered = [n for n in map(str, tax.nodes) if n in set(names)]
    return AnnotationCertainty(frame[ordered], k, level, used)


def _class_columns(truth: Any, prepared: Any) -> np.ndarray:
    """Positions in ``prepared.nodes`` of the truth's classes: a fitted truth's own classes;
    for a Membership, whose node space is the whole taxonomy, the labels the annotators used
    (the classes of :class:`~fuzzytruth.truth.models.Shares`), not every ancestor of them."""
    from fuzzytruth.truth.membership import Membership

    if isinstance(truth, Membership):
        return np.flatnonzero(prepared.support())
    return np.arange(len(prepared.nodes))
