"""What a ground truth tells a classifier's measures: each item's truth, world by world.

A categorical truth (a :class:`~fuzzytruth.truth.membership.Membership` built from annotations,
or a truth model fitted on them, :class:`~fuzzytruth.truth.models.base.FittedTruth`) gives each
item a plausibility over the nodes of its taxonomy; a world of it is one complete truth. A
measure reads each world in one of three forms, its ``target`` parameter:

``"label"``
    one true class per item per world, drawn from the world's plausibilities (the truth's own
    label sampler: annotator shares, a label model's posterior under its drawn parameters,
    PrIRN's mean). When the items' labels are independent draws from a fixed law p(class |
    item) (annotator shares, point posteriors, PrIRN; not a label model's parameter draws),
    every per-item measure has an exact law: class c with mass p(c | item);
``"top1"``
    the world's most plausible class (Stutz et al.'s label per plausibility sample). Under a
    point posterior it is the same in every world: the argmax, i.e. deterministic aggregation
    (majority vote for annotator shares, the IRN argmax for IRN); ties go to the first class in
    the truth's class order (``numpy.argmax``);
``"distribution"``
    the world's plausibility vector itself (the human label distribution for annotator shares,
    a point; a Dirichlet draw for PrIRN; the posterior under drawn parameters for Dawid–Skene).

A set-valued truth (crisp :class:`~fuzzytruth.truth.qrels.Qrels`, query = item, document =
class, relevant = grade >= 1) gives each item a set of plausible classes (ImageNet ReaL); an
item none of whose classes is relevant has an empty set, on which accuracy is undefined.

The truth's nodes and a classifier's classes meet through the taxonomy
(:class:`ClassMap`): a predicted class counts for a true node when it is that node or one of
its descendants, after the true node is lifted to the taxonomy ``level`` asked for (its
ancestor at that depth): condition vs risk group.

Examples
--------
>>> import pandas as pd
>>> from fuzzytruth import Annotations, Membership, Taxonomy
>>> tax = Taxonomy.flat(["cat", "dog"])
>>> ann = Annotations.from_frame(pd.DataFrame({"item_id": ["x", "x", "y"],
...     "annotator_id": ["a", "b", "a"], "label": ["cat", "dog", "dog"]}), taxonomy=tax)
>>> prepared = class_truth(Membership.from_annotations(ann)).prepare(["x", "y"])
>>> prepared.nodes, prepared.law.tolist()
(('(any)', 'cat', 'dog'), [[0.0, 0.5, 0.5], [0.0, 0.0, 1.0]])
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from fuzzytruth._order import is_identity
from fuzzytruth._resampling import MEMORY_BUDGET, block_rows
from fuzzytruth._validation import id_text, ids_text
from fuzzytruth.metrics.class_rules import TARGETS
from fuzzytruth.taxonomy import Taxonomy, _show
from fuzzytruth.truth.protocol import TruthKind, spelled_otherwise, truth_hint

__all__ = ["TARGETS", "ClassMap", "ClassTruth", "PreparedClassTruth", "class_truth"]


def _str_index(values: Sequence[Hashable]) -> pd.Index:
    return pd.Index([id_text(v, "classes") for v in values], dtype=object)


@dataclass(frozen=True, eq=False)
class PreparedClassTruth:
    """A truth fixed on the evaluated items (in the evaluation's order).

    Attributes
    ----------
    kind : TruthKind
        CATEGORICAL, or CRISP for a set-valued truth.
    nodes : tuple of str
        The truth's node space: world labels and plausibility columns index it.
    taxonomy : Taxonomy or None
        The taxonomy of the nodes (None for a set-valued truth: no levels).
    law : numpy.ndarray or None
        ``(n_items, n_nodes)`` p(node | item) when world labels are independent draws from it
        (the exact forms' law); None otherwise.
    point : numpy.ndarray or None
        ``(n_items, n_nodes)`` the plausibilities when they are the same in every world (a
        point posterior); None when the worlds draw them.
    sets : numpy.ndarray or None
        ``(n_items, n_nodes)`` bool membership of each item's set (set-valued truth only).
    model : str
        The truth's name (``"shares"``, a model's name, ``"qrels"``).
    """

    kind: TruthKind
    nodes: tuple[str, ...]
    taxonomy: Taxonomy | None
    law: np.ndarray | None
    point: np.ndarray | None
    sets: np.ndarray | None
    model: str
    _source: Any
    _rows: np.ndarray

    @property
    def n_items(self) -> int:
        """Number of evaluated items."""
        return len(self._rows)

    @property
    def truth_model(self) -> str | None:
        """The fitted truth model's name, None for a membership or qrels (as
        :attr:`fuzzytruth.Evaluation.estimand` names them)."""
        from fuzzytruth.truth.membership import Membership
        from fuzzytruth.truth.qrels import Qrels

        return None if isinstance(self._source, Membership | Qrels) else self.model

    def support(self) -> np.ndarray:
        """``(n_nodes,)`` bool: nodes that can carry some item's truth."""
        return self._support

    @cached_property
    def _support(self) -> np.ndarray:
        if self.sets is not None:
            return self.sets.any(axis=0)
        if self.law is not None:
            return (self.law > 0).any(axis=0)
        if self.point is not None:
            return (self.point > 0).any(axis=0)
        return (self._source.posterior[self._rows] > 0).any(axis=0)

    # ------------------------------------------------------------------ worlds
    def labels(self, worlds: np.ndarray, seed: int) -> np.ndarray:
        """``(len(worlds), n_items)`` one node per item per world (``target="label"``)."""
        from fuzzytruth.truth.categorical_worlds import sample_labels
        from fuzzytruth.truth.membership import Membership

        if isinstance(self._source, Membership):
            membership = self._source.subset(self._source.items[self._rows])
            return sample_labels(membership, len(worlds), rng=seed, worlds=worlds)
        # a fitted truth's nodes are its classes: its draws need no translation
        drawn = self._source.sample_labels(worlds, seed=seed, encoding="class")
        return drawn if self._all_rows else drawn[:, self._rows]

    def top1(self, worlds: np.ndarray, seed: int, memory_budget: float) -> np.ndarray | None:
        """``(len(worlds), n_items)`` each world's most plausible node (``target="top1"``), or
        None when it is the same in every world (then :meth:`argmax` gives it)."""
        if self.point is not None:
            return None
        sampler = getattr(self._source, "sample_top1", None)
        if sampler is not None:
            drawn = sampler(worlds, seed=seed)
            return self._from_taxonomy(drawn if self._all_rows else drawn[:, self._rows])
        out = np.empty((len(worlds), self.n_items), dtype=np.int32)
        for start, block in self.plausibility_blocks(worlds, seed, memory_budget):
            out[start : start + len(block)] = block.argmax(axis=2)
        return out

    def argmax(self) -> np.ndarray:
        """``(n_items,)`` the most plausible node of a point truth (first on ties)."""
        return self.point.argmax(axis=1)

    def plausibility_blocks(
        self, worlds: np.ndarray, seed: int, memory_budget: float
    ) -> Iterator[tuple[int, np.ndarray]]:
        """``(start, block)`` pairs: the plausibilities of worlds ``start ..`` as ``(w, n_items,
        n_nodes)`` blocks sized from ``memory_budget`` (``target="distribution"``)."""
        for start, block in self._source.plausibility_blocks(worlds, seed=seed,
                                                             memory_budget=memory_budget):
            yield start, block[:, self._rows]

    @cached_property
    def _all_rows(self) -> bool:
        """Whether the evaluated items are all the source's items, in its order."""
        return is_identity(self._rows, len(self._source.items))

    def _from_taxonomy(self, drawn: np.ndarray) -> np.ndarray:
        """Taxonomy node indices -> positions in :attr:`nodes`."""
        return self._taxonomy_to_node[drawn]

    @cached_property
    def _taxonomy_to_node(self) -> np.ndarray:
        dtype = np.int16 if len(self.nodes) < 2**15 else np.int32
        lookup = np.full(len(self.taxonomy), -1, dtype=dtype)
        lookup[self.taxonomy.indices(self.nodes)] = np.arange(len(self.nodes))
        return lookup


class ClassTruth:
    """A ground truth as classifiers' measures read it (see the module docstring).

    Built by :func:`class_truth`; :meth:`prepare` fixes it on the evaluated items.
    """

    def __init__(self, source: Any, kind: TruthKind, items: pd.Index, model: str) -> None:
        self._source = source
        self.kind = kind
        self.items = items
        self.model = model

    def answerable(self, items: Sequence[str]) -> np.ndarray:
        """``(len(items),)`` bool: which items the truth knows."""
        return self.items.get_indexer(pd.Index(items)) >= 0

    def missing_message(self, missing: Sequence[str]) -> str:
        """What to say about items of the predictions the truth does not know."""
        return (f"the truth has no item {_show(missing)}"
                + spelled_otherwise(missing, self.items, "the predictions"))

    def prepare(self, items: Sequence[str]) -> PreparedClassTruth:
        """The truth fixed on ``items`` (all known to it), in that order."""
        rows = self.items.get_indexer(list(items))
        if (rows < 0).any():
            raise ValueError(self.missing_message([i for i, r in zip(items, rows,
                                                                  strict=True) if r < 0]))
        source = self._source
        from fuzzytruth.truth.membership import Membership
        from fuzzytruth.truth.qrels import Qrels

        if isinstance(source, Qrels):
            return _prepare_sets(source, self.items, rows)
        if isinstance(source, Membership):
            if source.direct is None:
                raise ValueError(
                    "a classifier's truth needs each item's direct shares (p(class | item) "
                    "summing to 1), and this membership was built from already-closed "
                    "probabilities; build it with Membership.from_annotations or "
                    "from_probabilities(close=True)"
                )
            tax = source.taxonomy
            direct = _rows_of(source.direct, rows)
            return PreparedClassTruth(
                TruthKind.CATEGORICAL, tuple(str(n) for n in tax.nodes), tax, direct, direct,
                None, self.model, source, rows,
            )
        posterior = _rows_of(source.posterior, rows)
        independent = _independent_items(source)
        point = posterior if _point_posterior(source) else None
        return PreparedClassTruth(
            TruthKind.CATEGORICAL, tuple(str(c) for c in source.classes), source.taxonomy,
            posterior if independent else None, point, None, self.model, source, rows,
        )


def _rows_of(array: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``array[rows]``, C-contiguous, without a copy when ``rows`` are all of them in order."""
    if is_identity(rows, len(array)):
        return np.ascontiguousarray(array)
    return np.ascontiguousarray(array[rows])


def _independent_items(fit: Any) -> bool:
    """Whether a fit's world labels are independent draws from its posterior
    (``FittedTruth.independent_items`` where the fit has it)."""
    flag = getattr(fit, "independent_items", None)
    if flag is not None:
        return bool(flag)
    return bool(fit._point_posterior or fit._labels_from_mean)


def _point_posterior(fit: Any) -> bool:
    """Whether every world's plausibilities are the fit's posterior itself (the fit's own
    flag: FittedTruth has no public name for it yet)."""
    return bool(fit._point_posterior)


def _prepare_sets(qrels: Any, items: pd.Index, rows: np.ndarray) -> PreparedClassTruth:
    queries = ids_text(qrels.query_ids, "query_ids")
    docs = ids_text(qrels.doc_ids, "doc_ids")
    relevant = qrels.relevance >= 1
    nodes = _str_index(pd.unique(pd.Series(docs, dtype=object)))
    position = pd.Index(items[rows]).get_indexer(queries)
    keep = (position >= 0) & relevant
    sets = np.zeros((len(rows), len(nodes)), dtype=bool)
    sets[position[keep], nodes.get_indexer(docs[keep])] = True
    return PreparedClassTruth(TruthKind.CRISP, tuple(nodes), None, None, None, sets, "qrels",
                              qrels, rows)


def class_truth(truth: Any) -> ClassTruth:
    """The truth of a classifier evaluation: a Membership, a fitted truth model or crisp Qrels.

    Examples
    --------
    >>> from fuzzytruth import Qrels
    >>> class_truth(Qrels(["img1", "img1"], ["cat", "dog"], [1, 1])).kind
    <TruthKind.CRISP: 'crisp'>
    """
    from fuzzytruth.truth.membership import Membership
    from fuzzytruth.truth.models.base import FittedTruth
    from fuzzytruth.truth.qrels import Qrels

    if isinstance(truth, Membership):
        return ClassTruth(truth, TruthKind.CATEGORICAL, _str_index(truth.items), "shares")
    if isinstance(truth, FittedTruth):
        return ClassTruth(truth, TruthKind.CATEGORICAL, _str_index(truth.items), truth.name)
    if isinstance(truth, Qrels):
        return ClassTruth(truth, TruthKind.CRISP, _str_index(truth.queries), "qrels")
    raise ValueError(
        "the truth of a classifier evaluation must be a Membership, a fitted truth model "
        "(fuzzytruth.truth.models) or crisp Qrels of plausible label sets; got "
        f"{type(truth).__name__}{truth_hint(truth, classifiers=True)}"
    )


def _positions_hint(classes: Sequence[str], found: np.ndarray) -> str:
    """A hint when no class is a node and the classes read as column positions 0 .. n - 1
    (a model's class indices, as ``numpy.argsort`` or a label encoder gives them)."""
    if (found >= 0).any() or classes != [str(i) for i in range(len(classes))]:
        return ""
    return ("; they read as column positions: classes are matched to the taxonomy by name, "
            "so give classes= the names of the columns' classes, in the columns' order")


class ClassMap:
    """How one classifier's classes meet the truth's nodes, at a taxonomy level.

    Parameters
    ----------
    truth : PreparedClassTruth
        The truth, categorical (with a taxonomy; a set-valued truth's classes meet the
        classifier's by name, :attr:`fuzzytruth.classify.context.SystemView.class_node`).
    classes : sequence of str
        The classifier's classes (columns).
    level : int, optional
        Taxonomy depth the true nodes are lifted to (their ancestor at that depth; nodes
        shallower stay as they are). None: the nodes themselves.
    name : str, optional
        The classifier's name, for messages.

    Attributes
    ----------
    hard_group : numpy.ndarray
        ``(n_nodes,)`` index of each true node's *hard group* (its lifted node), in
        :attr:`hard_members` order.
    hard_members : list of numpy.ndarray
        For each hard group, the class columns that count for it (the lifted node and its
        descendants).
    soft_group : numpy.ndarray
        ``(n_nodes,)`` each true node's position among the *soft groups* (the classes lifted
        to ``level``), -1 when no class lifts to its group.
    class_group : numpy.ndarray
        ``(n_classes,)`` each class's soft group.
    n_soft : int
        Number of soft groups (the support of the distributions soft measures compare).
    """

    def __init__(self, truth: PreparedClassTruth, classes: Sequence[str],
                 level: int | None = None, name: str | None = None) -> None:
        classes = [id_text(c, "classes") for c in classes]
        tax = truth.taxonomy
        names = _str_index(tax.nodes)  # distinct: a taxonomy refuses nodes equal as text
        class_tax = names.get_indexer(classes)
        unknown = [c for c, i in zip(classes, class_tax, strict=True) if i < 0]
        if unknown:
            from fuzzytruth.taxonomy import closest_names

            hint = closest_names(unknown[0], [str(n) for n in tax.nodes])
            whose = "" if name is None else f" {name!r}"
            raise ValueError(
                f"class(es) {_show(unknown)} of the predictions{whose} are not nodes of the "
                "truth's taxonomy" + (f" (closest to {unknown[0]!r}: {_show(hint)})" if hint
                                      else "") + _positions_hint(classes, class_tax)
            )
        node_tax = names.get_indexer(list(truth.nodes))
        lift = _lift(tax, level)
        lifted_nodes = lift[node_tax]
        groups, self.hard_group = np.unique(lifted_nodes, return_inverse=True)
        self.hard_members = _members(tax, class_tax, groups)
        class_lifted = lift[class_tax]
        soft, self.class_group = np.unique(class_lifted, return_inverse=True)
        position = pd.Index(soft).get_indexer(lifted_nodes)
        self.soft_group = position.astype(np.int64)
        self.n_soft = len(soft)
        self.level = level

    @cached_property
    def identity(self) -> bool:
        """True when every soft group is one class and the map needs no summing."""
        return self.n_soft == len(self.class_group)


def _members(tax: Taxonomy, class_tax: np.ndarray, groups: np.ndarray, *,
             memory_budget: float = MEMORY_BUDGET) -> list[np.ndarray]:
    """The classes at or below each group's node (positions into ``class_tax``, increasing),
    one :meth:`~fuzzytruth.taxonomy.Taxonomy.is_under` table for a block of groups at a time,
    blocks sized from ``memory_budget`` (a call per group took about 0.1 ms: 40 ms for a map
    of the dermatology truth's 419 classes, 2026-11-28)."""
    step = block_rows(len(class_tax), memory_budget, bytes_per_unit=16.0)  # bool + index
    members: list[np.ndarray] = []
    for start in range(0, len(groups), step):
        block = groups[start : start + step]
        row, column = np.nonzero(tax.is_under(class_tax[None, :], block[:, None]))
        members += np.split(column, np.searchsorted(row, np.arange(1, len(block))))
    return members


def _lift(tax: Taxonomy, level: int | None) -> np.ndarray:
    """``(n_nodes,)`` taxonomy index of each node's ancestor at ``level`` (itself if
    shallower, or when ``level`` is None)."""
    n = len(tax)
    if level is None:
        return np.arange(n)
    depths = tax.depths
    if level > depths.max():
        raise ValueError(
            f"level must be a taxonomy depth between 0 and {int(depths.max())}; got {level}"
        )
    return tax.ancestors_at_depths()[level].copy()
